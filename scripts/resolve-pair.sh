#!/usr/bin/env bash
# Times two builds of `moulin solve` on the same sectors of a solved set,
# alternately (A B A B ...), and checks that each writes the set's bytes:
# a before/after figure for a change to a pass, on the sectors it touches,
# without solving everything below them again.
#
#   scripts/resolve-pair.sh OLD_BIN NEW_BIN SECTOR...
#   RUNS=3 TABLES=data/tables SOLVE_ARGS="--max-stones 7 --placement" \
#     scripts/resolve-pair.sh /tmp/moulin-old target/release/moulin 5v6h1v0 6v6h1v0
#
# A scratch directory links every table of TABLES (default data/tables)
# but the named sectors; each run solves those (`moulin solve SOLVE_ARGS`,
# default `--all`: every other sector is found on disk and skipped), prints
# its wall and CPU time and the solve record's stages of each sector, and
# compares the new files with TABLES byte for byte.
set -euo pipefail
[ $# -ge 3 ] || { sed -n 2,14p "$0"; exit 2; }
old=$1 new=$2
shift 2
tables=${TABLES:-data/tables}
runs=${RUNS:-2}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for f in "$tables"/*.mtb "$tables"/*.mtw; do
  ln -s "$(realpath "$f")" "$scratch/"
done
for s in "$@"; do
  [ -e "$tables/$s.mtb" ] || { echo "no table $tables/$s.mtb" >&2; exit 2; }
done
echo "# $(date -u +%FT%TZ) $(nproc) cores; A = $old, B = $new; sectors: $*"
for i in $(seq "$runs"); do
  for which in A B; do
    bin=$old
    [ "$which" = B ] && bin=$new
    for s in "$@"; do rm -f "$scratch/$s.mtb" "$scratch/$s.mtw"; done
    : > "$scratch/solve-record.jsonl"
    /usr/bin/time -f "$which run $i: wall %e s, user %U s, peak %M KiB" \
      "$bin" solve ${SOLVE_ARGS:---all} --dir "$scratch" -q > /dev/null
    python3 - "$scratch/solve-record.jsonl" <<'EOF'
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get("type") == "item":
        stages = ", ".join(f"{k} {v['wall']:.2f}" for k, v in r["stages"].items())
        print(f"  {r['item']}: wall {r['wall']:.2f} s, cpu {r['cpu']:.2f} s ({stages})")
EOF
    for s in "$@"; do
      cmp -s "$scratch/$s.mtb" "$tables/$s.mtb" || { echo "  $s.mtb differs from $tables" >&2; exit 1; }
    done
    echo "  same bytes as $tables"
  done
done 2>&1
