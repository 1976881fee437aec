#!/usr/bin/env bash
# Times two single-threaded commands side by side, each pinned to its own
# core (the cores swapped every run), and prints their user seconds and
# ratio per run, then the median ratio. On a shared host whose speed drifts
# from one minute to the next, two commands that run at the same time see
# the same drift, which runs one after the other (A B A B) do not.
#
#   scripts/pair-at-once.sh RUNS 'COMMAND_A' 'COMMAND_B'
#   scripts/pair-at-once.sh 4 \
#     'target/release/moulin verify --dir D --sector 6v6 -q --threads 1' \
#     '/tmp/moulin-old verify --dir D --sector 6v6 -q --threads 1'
#
# The commands are split as a shell splits words and must not write the same
# files. Needs two cores, `taskset` and GNU time (/usr/bin/time).
set -euo pipefail
[ $# -eq 3 ] || { sed -n 2,14p "$0"; exit 2; }
runs=$1 a=$2 b=$3
[ "$(nproc)" -ge 2 ] || { echo "needs two cores" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "# $(date -u +%FT%TZ) A = $a; B = $b"
echo "# run  A user s  B user s  A/B"
ratios=()
for i in $(seq "$runs"); do
  ca=$(( (i + 1) % 2 )) cb=$(( i % 2 ))
  # shellcheck disable=SC2086 # the commands are word lists
  /usr/bin/time -f %U -o "$out/a" taskset -c "$ca" $a > /dev/null 2> "$out/a.err" &
  pa=$!
  # shellcheck disable=SC2086
  /usr/bin/time -f %U -o "$out/b" taskset -c "$cb" $b > /dev/null 2> "$out/b.err" &
  pb=$!
  wait "$pa" || { echo "A failed:" >&2; cat "$out/a.err" >&2; exit 1; }
  wait "$pb" || { echo "B failed:" >&2; cat "$out/b.err" >&2; exit 1; }
  ua=$(tail -n 1 "$out/a") ub=$(tail -n 1 "$out/b")
  r=$(python3 -c "print(f'{$ua / $ub:.3f}')")
  ratios+=("$r")
  echo "$i  $ua  $ub  $r"
done
python3 -c "import statistics, sys; r = sorted(map(float, sys.argv[1:])); print(f'median A/B {statistics.median(r):.3f} (from {r[0]:.3f} to {r[-1]:.3f})')" "${ratios[@]}"
