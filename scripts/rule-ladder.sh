#!/usr/bin/env bash
# The no-capture rule against the distance-to-win tables: solves
# the moving phase up to M stones a side (default 6) once without the rule
# and once per limit (default 50 100 4096; 4096 exceeds every DTC of the
# game, so it leaves no cursed value), from scratch, and prints in Markdown:
# wall and CPU time, peak memory and disk of each run against the DTW run;
# per sector the cursed wins and blessed losses and the longest DTC; and for
# the largest limit a check that every sector's win/draw/loss counts equal
# the DTW tables' (exit 1 if not).
#
#   scripts/rule-ladder.sh            # up to 6, limits 50 100 4096
#   scripts/rule-ladder.sh 7 50 100   # up to 7, two limits
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q
bin=target/release/moulin
max=${1:-6}
shift || true
limits=("$@")
[ ${#limits[@]} -eq 0 ] && limits=(50 100 4096)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

run() { # name, extra args...
  local name=$1
  shift
  /usr/bin/time -f '%e %U %S %M' -o "$work/$name.time" \
    "$bin" solve --dir "$work/$name" --max-stones "$max" -q "$@" > "$work/$name.out"
  "$bin" stats --json --dir "$work/$name" > "$work/$name.json"
}
run dtw
for n in "${limits[@]}"; do run "n$n" --no-capture-limit "$n"; done

echo "Moving phase up to $max stones a side, one run each, default threads:"
echo
echo "| tables | wall | CPU | peak memory | disk | wall / DTW | disk / DTW |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for name in dtw $(printf 'n%s ' "${limits[@]}"); do
  read -r wall user sys rss < "$work/$name.time"
  disk=$(cat "$work"/"$name"/*.mtb | wc -c)
  echo "$name $wall $user $sys $rss $disk"
done | awk 'NR == 1 { w0 = $2; d0 = $6 }
  { label = ($1 == "dtw") ? "DTW (no rule)" : "N = " substr($1, 2)
    printf "| %s | %.1f s | %.1f s | %.0f MiB | %d | %.2f | %.2f |\n", label, $2, $3 + $4, $5 / 1024, $6, $2 / w0, $6 / d0 }'
echo
python3 - "$work" "${limits[@]}" <<'PY'
import json, sys
work, limits = sys.argv[1], sys.argv[2:]
load = lambda name: {s["sector"]: s for s in json.load(open(f"{work}/{name}.json"))}
dtw = load("dtw")
tables = {n: load(f"n{n}") for n in limits}
head = "| sector | DTW longest win/loss |" + "".join(f" N={n}: cursed / blessed | N={n}: longest DTC win/loss |" for n in limits)
print(head)
print("|---" * (2 + 2 * len(limits)) + "|")
d = lambda x: "-" if x is None else str(x)
total = {n: [0, 0] for n in limits}
for sector, s in dtw.items():
    row = f"| {sector} | {d(s['max_win'])} / {d(s['max_loss'])} |"
    for n in limits:
        t = tables[n][sector]
        total[n][0] += t["cursed_wins"]; total[n][1] += t["blessed_losses"]
        row += f" {t['cursed_wins']} / {t['blessed_losses']} | {d(t['max_win'])} / {d(t['max_loss'])} |"
    print(row)
print("| total | |" + "".join(f" {total[n][0]} / {total[n][1]} | |" for n in limits))
big = max(limits, key=int)
bad = []
for sector, s in dtw.items():
    t = tables[big][sector]
    if t["cursed_wins"] or t["blessed_losses"] or t["classes"] != s["classes"] or t["positions"] != s["positions"]:
        bad.append(sector)
print()
if bad:
    print(f"N = {big}: win/draw/loss counts differ from the DTW tables in {', '.join(bad)}")
    sys.exit(1)
print(f"N = {big}: no cursed win or blessed loss, and in every sector the win/draw/loss counts "
      f"(classes and positions) equal the DTW tables'.")
PY
