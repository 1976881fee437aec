#!/usr/bin/env python3
"""Compares two run records of `moulin solve` (solve-record.jsonl) item by item.

    scripts/compare-records.py OLD.jsonl NEW.jsonl [--top N] [--stage]

For every item solved in both records (a moving-phase pair such as
`7v9+9v7`, or a placement sector), prints the wall seconds of each, their
ratio and the stage whose time changed most, the items with the largest
change first; then the totals of each stage. An item solved more than once
in a record (a rerun) counts with its last line. Items found in only one
record are listed apart. Exit code 2 on a file that is not a record.
"""

import argparse
import json
import sys


def die(message):
    print(message, file=sys.stderr)
    sys.exit(2)


def read_record(path):
    """The last line of each item in a record, by item name, in order."""
    items = {}
    try:
        with open(path, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                line = line.strip()
                if not line:
                    continue
                try:
                    value = json.loads(line)
                except json.JSONDecodeError as e:
                    die(f"{path}:{number}: not a JSON line ({e.msg})")
                if not isinstance(value, dict) or "type" not in value:
                    die(f"{path}:{number}: not a line of a solve record (no `type`)")
                if value["type"] == "item":
                    for key in ("item", "wall", "stages"):
                        if key not in value:
                            die(f"{path}:{number}: an item line without `{key}`")
                    items.pop(value["item"], None)
                    items[value["item"]] = value
    except OSError as e:
        die(f"{path}: {e.strerror}")
    return items


def stage_walls(item):
    return {name: stage.get("wall", 0.0) for name, stage in item["stages"].items()}


def ratio(old, new):
    return f"{new / old:6.2f}x" if old > 0 else "     -"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--top", type=int, default=20, help="items to list (0: all)")
    args = parser.parse_args()
    old, new = read_record(args.old), read_record(args.new)
    common = [name for name in new if name in old]
    rows = []
    for name in common:
        a, b = old[name], new[name]
        sa, sb = stage_walls(a), stage_walls(b)
        stages = sorted(set(sa) | set(sb), key=lambda s: -abs(sb.get(s, 0) - sa.get(s, 0)))
        worst = stages[0] if stages else "-"
        change = f"{worst} {sa.get(worst, 0):.1f} -> {sb.get(worst, 0):.1f} s" if stages else ""
        rows.append((abs(b["wall"] - a["wall"]), name, a["wall"], b["wall"], change))
    rows.sort(reverse=True)
    shown = rows if args.top == 0 else rows[: args.top]
    print(f"{'item':>16} {'old s':>9} {'new s':>9} {'ratio':>7}  stage that changed most")
    for _, name, a, b, change in shown:
        print(f"{name:>16} {a:9.1f} {b:9.1f} {ratio(a, b)}  {change}")
    if len(shown) < len(rows):
        print(f"{'':>16} ... {len(rows) - len(shown)} more (--top 0 lists all)")
    totals_old, totals_new = {}, {}
    for name in common:
        for totals, record in ((totals_old, old), (totals_new, new)):
            for stage, wall in stage_walls(record[name]).items():
                totals[stage] = totals.get(stage, 0.0) + wall
    print()
    print(f"{'stage':>16} {'old s':>9} {'new s':>9} {'ratio':>7}   ({len(common)} items in both)")
    for stage in sorted(set(totals_old) | set(totals_new)):
        a, b = totals_old.get(stage, 0.0), totals_new.get(stage, 0.0)
        print(f"{stage:>16} {a:9.1f} {b:9.1f} {ratio(a, b)}")
    a = sum(old[n]["wall"] for n in common)
    b = sum(new[n]["wall"] for n in common)
    print(f"{'all':>16} {a:9.1f} {b:9.1f} {ratio(a, b)}")
    for label, record, other in (("old", old, new), ("new", new, old)):
        only = [n for n in record if n not in other]
        if only:
            print(f"only in {label}: {' '.join(only)}")


if __name__ == "__main__":
    main()
