#!/usr/bin/env bash
# The solve ladder: time to solve every moving-phase sector up to N stones a
# side, from scratch, for each N given (default 4 5 6). Prints a Markdown
# table row per rung: wall time, CPU time, peak memory, slots per second.
#
#   scripts/ladder.sh            # rungs 4, 5, 6
#   scripts/ladder.sh 4 5 6 7    # add the 7-stone rung (about 20 min on 2 cores)
#   THREADS=1 scripts/ladder.sh  # pin the thread count
#   MOULIN_BIN=/old/moulin scripts/ladder.sh 4 5 6 7
#                                # another build (before/after comparisons)
#   SOLVE_ARGS=--no-wdl scripts/ladder.sh   # more options for each solve
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -n "${MOULIN_BIN:-}" ]; then
  bin=$MOULIN_BIN
else
  cargo build --release -q
  bin=target/release/moulin
fi
rungs=("$@")
[ ${#rungs[@]} -eq 0 ] && rungs=(4 5 6)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
threads=()
[ -n "${THREADS:-}" ] && threads=(--threads "$THREADS")
echo "| up to | slots | wall | CPU (user+sys) | peak memory | slots/s |"
echo "|---:|---:|---:|---:|---:|---:|"
for n in "${rungs[@]}"; do
  rm -rf "$work/tables"
  /usr/bin/time -f '%e %U %S %M' -o "$work/time" \
    "$bin" solve --dir "$work/tables" --max-stones "$n" -q "${threads[@]}" ${SOLVE_ARGS:-} > "$work/out"
  read -r wall user sys rss < "$work/time"
  slots=$(awk '/^solved/ {print $2}' "$work/out")
  awk -v n="$n" -v s="$slots" -v w="$wall" -v u="$user" -v y="$sys" -v r="$rss" 'BEGIN {
    printf "| %d | %d | %.1f s | %.1f s | %.0f MiB | %.2e |\n", n, s, w, u + y, r / 1024, s / w }'
done
