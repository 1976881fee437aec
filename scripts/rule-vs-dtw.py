#!/usr/bin/env python3
"""Compares the statistics of rule tables with the DTW tables'.

    scripts/rule-vs-dtw.py data/stats/game-9-n100.txt data/stats/game-9.txt

Both files are `moulin stats` output (text). The no-capture rule only turns
wins into cursed wins and losses into blessed losses, so in every sector
won + cursed won, lost + blessed lost and drawn of the rule tables must
equal the classes won, lost and drawn of the DTW tables. Prints the totals
of cursed wins and blessed losses of the moving phase, the placement phase
and the whole game, the longest DTC of each phase, and exits 1 if a sector
differs or is missing on either side.
"""
import sys


def rows(path):
    """Sector rows of a `moulin stats` text output: name -> list of fields."""
    out = {}
    with open(path) as f:
        for line in f:
            fields = line.split()
            # Sector names start with a digit ("3v3", "0v0h9v9"); headings,
            # comments and the total do not.
            if fields and fields[0][0].isdigit() and "v" in fields[0]:
                out[fields[0]] = fields
    return out


def number(field):
    return None if field == "-" else int(field)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: rule-vs-dtw.py RULE_STATS DTW_STATS")
    rule, dtw = rows(sys.argv[1]), rows(sys.argv[2])
    bad = sorted(set(rule) ^ set(dtw))
    for name in bad:
        print(f"{name}: in only one of the two files")
    totals = {}
    for name, r in rule.items():
        if name not in dtw:
            continue
        # rule: sector classes won cursed drawn blessed lost maxwin maxloss bytes
        won, cursed, drawn, blessed, lost = (int(x) for x in r[2:7])
        # dtw: sector pos.won pos.lost pos.drawn won lost drawn maxwin maxloss bytes bits
        d_won, d_lost, d_drawn = (int(x) for x in dtw[name][4:7])
        if (won + cursed, lost + blessed, drawn) != (d_won, d_lost, d_drawn):
            print(f"{name}: rule {won}+{cursed} / {drawn} / {lost}+{blessed}, DTW {d_won} / {d_drawn} / {d_lost}")
            bad.append(name)
        phase = "placement" if "h" in name else "moving"
        t = totals.setdefault(phase, [0, 0, 0, 0, 0])
        t[0] += cursed
        t[1] += blessed
        t[2] += int(r[1])
        for i, field in ((3, r[7]), (4, r[8])):
            v = number(field)
            if v is not None:
                t[i] = max(t[i], v)
    game = [sum(t[i] for t in totals.values()) for i in range(3)]
    game += [max(t[i] for t in totals.values()) for i in (3, 4)]
    for phase, t in list(totals.items()) + [("whole game", game)]:
        print(f"{phase}: {t[0]} cursed wins, {t[1]} blessed losses among {t[2]} classes; "
              f"longest DTC {t[3]} (win) / {t[4]} (loss)")
    if bad:
        print(f"{len(bad)} sectors differ")
        sys.exit(1)
    print(f"all {len(rule)} sectors: won + cursed won, drawn, lost + blessed lost equal the DTW tables'")


if __name__ == "__main__":
    main()
