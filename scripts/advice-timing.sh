#!/usr/bin/env bash
# Time of `moulin probe --json` with and without practical chances (README,
# "Practical chances"): 1000 random positions of a few moving-phase sectors,
# White to move, answered by one process reading standard input.
# Usage: scripts/advice-timing.sh [DIR]   (tables up to 5 a side in DIR)
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-data/tables}
cargo build --release -q -p moulin
moulin=target/release/moulin
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 - "$tmp" <<'PY'
import random, sys
points = "a1 d1 g1 b2 d2 f2 c3 d3 e3 a4 b4 c4 e4 f4 g4 c5 d5 e5 b6 d6 f6 a7 d7 g7".split()
random.seed(7)
for white, black in [(5, 5), (4, 4), (3, 5)]:
    with open(f"{sys.argv[1]}/{white}v{black}.txt", "w") as f:
        for _ in range(1000):
            p = random.sample(points, white + black)
            f.write(f"W:{','.join(p[:white])} B:{','.join(p[white:])} w\n")
PY
for sector in 5v5 4v4 3v5; do
    for opts in "--no-chances" "" "--depth 4"; do
        start=$(date +%s.%N)
        # shellcheck disable=SC2086
        "$moulin" probe --json $opts --dir "$dir" - < "$tmp/$sector.txt" > "$tmp/out.json"
        end=$(date +%s.%N)
        replies=$(python3 -c "import json,sys; L=[json.loads(l) for l in open(sys.argv[1])]; print(sum(m.get('chances',{}).get('replies',0) for a in L for m in a['moves'])//len(L))" "$tmp/out.json")
        # Seconds for 1000 positions: milliseconds a position.
        printf '%s  %-14s %8.3f ms a position  (%s replies a position)\n' \
            "$sector" "${opts:-(2 plies)}" "$(echo "($end - $start)" | bc -l | awk '{print $1}')" "$replies"
    done
done
