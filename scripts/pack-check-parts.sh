#!/usr/bin/env bash
# `moulin pack --check` of a whole play set against its tables, a few
# sectors at a time, resumable: each sector's line goes to LOG, and a rerun
# skips the sectors LOG already says agree. For a set whose check takes
# longer than one sitting (a rule set's: more than an hour here).
#
#   scripts/pack-check-parts.sh TABLES PLAY LOG
#   GROUP=4 NICE=19 MOULIN_BIN=/tmp/moulin scripts/pack-check-parts.sh data/tables-n100 data/play-n100 data/check.txt
#
# A sector that differs is not "agree" in LOG, so a rerun checks it again;
# the script stops at the first part that fails (exit status 1).
set -euo pipefail
[ $# -eq 3 ] || { sed -n 2,11p "$0"; exit 2; }
tables=$1 play=$2 log=$3
bin=${MOULIN_BIN:-target/release/moulin}
group=${GROUP:-8}
[ -x "$bin" ] || { echo "no moulin program at $bin (cargo build --release)" >&2; exit 2; }
# Every sector with a distance table: the play set answers for each.
mapfile -t sectors < <(ls "$tables" | sed -n 's/\.mtb$//p' | sort)
todo=()
for s in "${sectors[@]}"; do
  grep -qE "^$s: [0-9]+ slots agree" "$log" 2>/dev/null || todo+=("$s")
done
echo "== $(date -u +%FT%TZ) $("$bin" --version): ${#todo[@]} of ${#sectors[@]} sectors to check in $play" >> "$log"
for ((i = 0; i < ${#todo[@]}; i += group)); do
  args=()
  for s in "${todo[@]:i:group}"; do args+=(--sector "$s"); done
  /usr/bin/time -a -o "$log" -f 'part: wall %e s, user %U s, peak %M KiB' \
    nice -n "${NICE:-0}" "$bin" pack --dir "$tables" --out "$play" --check "${args[@]}" >> "$log" 2>&1 || {
    echo "the play set differs from the tables or cannot be read: see $log" >&2
    exit 1
  }
done
echo "== $(date -u +%FT%TZ) every sector of $play agrees with $tables" >> "$log"
