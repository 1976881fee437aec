#!/usr/bin/env python3
"""Totals of a play set's record (pack-record.jsonl, written by `moulin pack`):
bytes of the tables and of the play set, by phase, beside the empirical
entropy of what is stored. The last line of a sector counts.

    scripts/pack-summary.py data/play/pack-record.jsonl
"""
import json
import sys


def main(path):
    last = {}
    with open(path) as f:
        for line in f:
            r = json.loads(line)
            last[r["sector"]] = r
    groups = {"moving": [], "placement": [], "all": []}
    for r in last.values():
        groups["placement" if "h" in r["sector"] else "moving"].append(r)
        groups["all"].append(r)
    keys = ["table_bytes", "outcome_bytes", "distance_bytes", "outcome_order0_bytes",
            "distance_order0_bytes", "distance_order1_bytes", "stored", "classes", "seconds"]
    print(f"{'phase':<10} {'sectors':>7} {'tables':>15} {'outcomes':>15} {'distances':>15} "
          f"{'play set':>15} {'of tables':>9} {'dist. order 0':>15} {'dist. order 1':>15} "
          f"{'bits/stored':>11}")
    for name, rs in groups.items():
        t = {k: sum(r[k] for r in rs) for k in keys}
        play = t["outcome_bytes"] + t["distance_bytes"]
        print(f"{name:<10} {len(rs):>7} {t['table_bytes']:>15,} {t['outcome_bytes']:>15,} "
              f"{t['distance_bytes']:>15,} {play:>15,} {100 * play / max(t['table_bytes'], 1):>8.1f}% "
              f"{t['distance_order0_bytes']:>15,} {t['distance_order1_bytes']:>15,} "
              f"{8 * t['distance_bytes'] / max(t['stored'], 1):>11.2f}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
