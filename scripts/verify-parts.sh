#!/usr/bin/env bash
# `moulin verify` of a whole directory, a few sectors at a time, resumable:
# each sector's line goes to LOG, and a rerun skips the sectors LOG already
# calls ok. For a set that takes longer to verify than one sitting (a play
# set rebuilds every position of the side it does not store).
#
#   scripts/verify-parts.sh DIR LOG
#   GROUP=4 NICE=19 MOULIN_BIN=/tmp/moulin scripts/verify-parts.sh data/play data/verify-play.txt
#
# A sector whose verification fails is not "ok" in LOG, so a rerun checks
# it again; the script stops at the first failing part (exit status 1).
set -euo pipefail
[ $# -eq 2 ] || { sed -n 2,11p "$0"; exit 2; }
dir=$1 log=$2
bin=${MOULIN_BIN:-target/release/moulin}
group=${GROUP:-8}
[ -x "$bin" ] || { echo "no moulin program at $bin (cargo build --release)" >&2; exit 2; }
# The sectors `moulin verify` checks: every table's, and a play set's
# left-out sectors.
mapfile -t sectors < <("$bin" verify --dir "$dir" --list)
[ ${#sectors[@]} -gt 0 ] || { echo "no sector to verify in $dir" >&2; exit 2; }
todo=()
for s in "${sectors[@]}"; do
  grep -qE "^ *$s +[0-9]+ slots +ok" "$log" 2>/dev/null || todo+=("$s")
done
echo "== $(date -u +%FT%TZ) $("$bin" --version): ${#todo[@]} of ${#sectors[@]} sectors to verify in $dir" >> "$log"
for ((i = 0; i < ${#todo[@]}; i += group)); do
  args=()
  for s in "${todo[@]:i:group}"; do args+=(--sector "$s"); done
  /usr/bin/time -a -o "$log" -f 'part: wall %e s, user %U s, peak %M KiB' \
    nice -n "${NICE:-0}" "$bin" verify --dir "$dir" -q "${args[@]}" >> "$log" 2>&1 || {
    echo "verification failed: see $log" >&2
    exit 1
  }
done
echo "== $(date -u +%FT%TZ) every sector of $dir verified" >> "$log"
