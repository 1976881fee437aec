#!/usr/bin/env bash
# Solves the whole game (moving phase, then placement) into DIR (default
# data/tables), resumably: rerun it after an interruption and it continues
# with the first sector not yet on disk. Records wall time, CPU time, peak
# memory and disk use of each run in DIR/full-solve.log, and finally probes
# the start position. `moulin solve` itself appends a line per item (stage
# times, memory, bytes) to DIR/solve-record.jsonl: compare two runs with
# scripts/compare-records.py OLD NEW.
#
#   scripts/full-solve.sh                 # everything, into data/tables
#   scripts/full-solve.sh /big/disk/tb    # elsewhere
#   MOVING_ONLY=1 scripts/full-solve.sh   # only the 49 moving-phase sectors
#   SOLVE_ARGS="--no-capture-limit 50" scripts/full-solve.sh data/tables-n50
#                                         # rule tables, any option
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-data/tables}
mkdir -p "$dir"
cargo build --release -q
bin=target/release/moulin
what=(--all)
[ -n "${MOVING_ONLY:-}" ] && what=(--moving)
log="$dir/full-solve.log"
MOULIN_COMMIT=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
export MOULIN_COMMIT
echo "== $(date -u +%FT%TZ) build $MOULIN_COMMIT: moulin solve ${what[*]} ${SOLVE_ARGS:-} --dir $dir" >> "$log"
/usr/bin/time -f 'wall %e s, user %U s, sys %S s, peak memory %M KiB' -a -o "$log" \
  "$bin" solve "${what[@]}" ${SOLVE_ARGS:-} --dir "$dir" | tee -a "$log"
bytes() { cat "$@" 2>/dev/null | wc -c; }
echo "disk: $(bytes "$dir"/*.mtb) bytes in $(ls "$dir"/*.mtb | wc -l) tables, $(bytes "$dir"/*.mtw) bytes in $(ls "$dir"/*.mtw 2>/dev/null | wc -l) WDL tables" | tee -a "$log"
if [ -z "${MOVING_ONLY:-}" ]; then
  "$bin" probe --dir "$dir" "W: B: w 9 9" | tee -a "$log"
fi
tail -n 3 "$log"
