#!/usr/bin/env bash
# The whole game under the no-capture rule in one command: solves
# it with `--no-capture-limit N` (scripts/full-solve.sh, resumable), then
# verifies every table (`moulin verify` through scripts/publish-checksums.sh,
# which writes the checksums only if it passed), and records the statistics
# and the start position's value. About 1 h 30 min of solve and 35 min of
# verify on a 2-core machine; rerun it after an interruption.
#
#   scripts/rule-game.sh 50               # into data/tables-n50
#   scripts/rule-game.sh 100 /big/tb-n100 # elsewhere
#
# Writes data/checksums/game-9-nN.txt (per table: length, CRC32, counts,
# longest distances, SHA-256) and game-9-nN.sha256, data/stats/game-9-nN.txt
# (`moulin stats`), data/verify-game-nN.txt (the verifier's output) and
# data/probe-start-nN.txt, and data/stats/game-9-nN-vs-dtw.txt (cursed wins
# and blessed losses per phase, and the check that the rule only turns wins
# and losses of the DTW tables, data/stats/game-9.txt, into draws).
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:?usage: $0 N [DIR]}
case "$n" in
  ''|*[!0-9]*) echo "$0: the limit must be a number of turns, got '$n'" >&2; exit 2 ;;
esac
dir=${2:-data/tables-n$n}
SOLVE_ARGS="--no-capture-limit $n ${SOLVE_ARGS:-}" scripts/full-solve.sh "$dir"
scripts/publish-checksums.sh --all --dir "$dir" --out "data/checksums/game-9-n$n.txt"
cp "$dir/verify.txt" "data/verify-game-n$n.txt"
bin=target/release/moulin
awk '!/^#/ {print $12 "  " $1 ".mtb"}' "data/checksums/game-9-n$n.txt" > "data/checksums/game-9-n$n.sha256"
"$bin" stats --dir "$dir" > "data/stats/game-9-n$n.txt"
python3 scripts/rule-vs-dtw.py "data/stats/game-9-n$n.txt" data/stats/game-9.txt | tee "data/stats/game-9-n$n-vs-dtw.txt"
"$bin" probe --dir "$dir" "W: B: w 9 9" > "data/probe-start-n$n.txt"
tail -n 3 "data/verify-game-n$n.txt"
cat "data/probe-start-n$n.txt"
