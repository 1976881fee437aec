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
#   scripts/publish-checksums.sh --all --dir data/tables
#                                             # every table of DIR (the whole game,
#                                             # solved before): data/checksums/game-9.txt,
#                                             # the verifier's output in DIR/verify.txt
#   scripts/publish-checksums.sh --all --dir data/tables-n50 --out data/checksums/game-9-n50.txt
#                                             # the same for rule tables, elsewhere
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
all=""
out_set=""
while [ $# -gt 0 ]; do
    case "$1" in
        --dir) dir="$2"; shift 2 ;;
        --all) all=1; [ -n "$out_set" ] || out="$root/data/checksums/game-9.txt"; shift ;;
        --out) case "$2" in /*) out="$2" ;; *) out="$PWD/$2" ;; esac; out_set=1; shift 2 ;;
        *) echo "usage: $0 [--all] [--dir DIR] [--out FILE]" >&2; exit 2 ;;
    esac
done
if [ -n "$all" ] && [ -z "$dir" ]; then
    echo "$0: --all takes the tables of --dir DIR (solve them first: scripts/full-solve.sh)" >&2
    exit 2
fi
if [ -z "$dir" ]; then
    dir="$(mktemp -d)"
    trap 'rm -rf "$dir"' EXIT
fi

cd "$root"
cargo build --release --quiet -p moulin --bin moulin
moulin="$root/target/release/moulin"

manifest="$(mktemp)"
if [ -n "$all" ]; then
    # Every table of the directory, one run, its output kept.
    # The whole game is every sector `moulin sectors --placement` lists; a
    # directory holding fewer is named for what it is.
    tables=$(ls "$dir"/*.mtb | wc -l)
    game="$("$moulin" sectors --placement | awk 'NR > 1 && $1 != "total" {print $1}' | sort)"
    held="$(cd "$dir" && ls -- *.mtb | sed 's/\.mtb$//' | sort)"
    if [ "$held" = "$game" ]; then
        what="the whole game ($tables tables)"
    else
        what="$tables tables of $(basename "$dir"), not the whole game"
    fi
    /usr/bin/time -f 'wall %e s, user %U s, sys %S s, peak memory %M KiB' -a -o "$dir/verify.txt" \
        "$moulin" verify --dir "$dir" -q --manifest "$manifest" | tee "$dir/verify.txt"
else
    what="the moving-phase tables up to $max stones a side"
    "$moulin" solve --dir "$dir" --max-stones "$max" -q
    sectors=()
    for a in $(seq 3 "$max"); do
        for b in $(seq 3 "$max"); do
            sectors+=(--sector "${a}v${b}")
        done
    done
    "$moulin" verify --dir "$dir" "${sectors[@]}" -q --manifest "$manifest"
fi

mkdir -p "$(dirname "$out")"
{
    # The rules as the tables' own header states them (`moulin stats`).
    rules="$("$moulin" stats --dir "$dir" | sed -n 's/.*(rules: \(.*\)).*/\1/p' | head -n 1)"
    echo "# moulin: $what, rules: ${rules:-flying}, table format version 1"
    echo "# written by scripts/publish-checksums.sh after \`moulin verify\` passed; $(rustc --version)"
    sed -n '1s/$/ sha256/p' "$manifest"
    sed -n '2,$p' "$manifest" | while read -r sector rest; do
        sum="$(sha256sum "$dir/$sector.mtb" | cut -d' ' -f1)"
        echo "$sector $rest $sum"
    done
} >"$out"
rm -f "$manifest"
echo "wrote $out"
