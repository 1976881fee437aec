#!/usr/bin/env bash
# Publishes the checksums and counts of the moving-phase tables up to five
# stones a side: solves them (or takes those of --dir), verifies every value
# with `moulin verify`, and only then writes data/checksums/moving-5.txt:
# per sector the file's length, its CRC32 (the table's own trailer), the
# outcome counts over classes and positions, the longest win and loss, and
# the file's SHA-256.
#
#   scripts/publish-checksums.sh              # solve into a temporary directory
#   scripts/publish-checksums.sh --dir DIR    # use (and complete) the tables in DIR
#
# Check downloaded tables against it with:
#   awk '!/^#/ {print $12 "  " $1 ".mtb"}' data/checksums/moving-5.txt | (cd DIR && sha256sum -c)
# The test `published_checksums_are_reproduced` (tests/tests/verify.rs)
# solves up to four a side and compares with this file.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
out="$root/data/checksums/moving-5.txt"
max=5
dir=""
while [ $# -gt 0 ]; do
    case "$1" in
        --dir) dir="$2"; shift 2 ;;
        *) echo "usage: $0 [--dir DIR]" >&2; exit 2 ;;
    esac
done
if [ -z "$dir" ]; then
    dir="$(mktemp -d)"
    trap 'rm -rf "$dir"' EXIT
fi

cd "$root"
cargo build --release --quiet -p moulin --bin moulin
moulin="$root/target/release/moulin"

"$moulin" solve --dir "$dir" --max-stones "$max" -q
sectors=()
for a in $(seq 3 "$max"); do
    for b in $(seq 3 "$max"); do
        sectors+=(--sector "${a}v${b}")
    done
done
manifest="$(mktemp)"
"$moulin" verify --dir "$dir" "${sectors[@]}" -q --manifest "$manifest"

mkdir -p "$(dirname "$out")"
{
    echo "# moulin moving-phase tables up to $max stones a side, rules: flying, table format version 1"
    echo "# written by scripts/publish-checksums.sh after \`moulin verify\` passed; $(rustc --version)"
    sed -n '1s/$/ sha256/p' "$manifest"
    sed -n '2,$p' "$manifest" | while read -r sector rest; do
        sum="$(sha256sum "$dir/$sector.mtb" | cut -d' ' -f1)"
        echo "$sector $rest $sum"
    done
} >"$out"
rm -f "$manifest"
echo "wrote $out"
