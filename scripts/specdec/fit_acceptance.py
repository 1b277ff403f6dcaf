#!/usr/bin/env python3
"""Fit servesim's per-position acceptance curves (src/sim/spec.c, SPEC_CURVE_*) to
the measured mean acceptance lengths in acceptance_al.csv, and check them.

Model: the draft at position i is accepted, given positions 1..i-1 were, with
probability a * d**(i-1) (capped at 1): a is the first draft's acceptance, d
how fast a chained draft loses it.  The mean acceptance length with k drafts
is then AL(k) = 1 + sum_{i<=k} prod_{j<=i} a d**(j-1).  One (a, d) per method
is fitted by least squares on AL over every curve of that method (all models,
thinking modes and sampling settings pooled; k = 1..8), on a 0.001 grid.

Prints, per method: a, d, the rows, the median and largest |AL error| in
sample, and leaving each model out (fitted on the others, error on it); then
the per-position check against per_position.csv (MiniMax-M2.5 EAGLE3, k = 3,
LiveCodeBench: unconditional rates); then the random-token-prompt curve from
acceptance_random.csv (two measured positions fix a and d exactly: a the first
position's rate, d the second's conditional rate over a).  No third-party
packages.
usage: python3 scripts/specdec/fit_acceptance.py
"""
import csv
import os
import statistics

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "data", "specdec")
FAMILY = {"mtp": "mtp", "eagle3": "eagle3", "eagle3_gqa": "eagle3", "dspark": "dspark"}


def rows(name):
    with open(os.path.join(HERE, name)) as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def al(a, d, k):
    total, p, rate = 1.0, 1.0, a
    for _ in range(k):
        p *= min(rate, 1.0)
        total += p
        rate *= d
    return total


def fit(points):
    best = None
    for ia in range(300, 1001, 2):
        a = ia / 1000
        for idd in range(300, 1051, 2):
            d = idd / 1000
            s = sum((al(a, d, k) - y) ** 2 for k, y in points)
            if best is None or s < best[0]:
                best = (s, a, d)
    # refine on the 0.001 grid around the coarse optimum
    s0, a0, d0 = best
    for ia in range(int(a0 * 1000) - 2, int(a0 * 1000) + 3):
        for idd in range(int(d0 * 1000) - 2, int(d0 * 1000) + 3):
            a, d = ia / 1000, idd / 1000
            s = sum((al(a, d, k) - y) ** 2 for k, y in points)
            if s < best[0]:
                best = (s, a, d)
    return best[1], best[2]


def main():
    data = {}
    for r in rows("acceptance_al.csv"):
        fam = FAMILY[r["method"]]
        data.setdefault(fam, []).append((r["model"], int(r["k"]), float(r["al"])))
    for fam in sorted(data):
        pts = data[fam]
        a, d = fit([(k, y) for _, k, y in pts])
        errs = [abs(al(a, d, k) - y) / y for _, k, y in pts]
        print("%-7s a %.3f d %.3f  rows %d  |AL err| median %.3f max %.3f" %
              (fam, a, d, len(pts), statistics.median(errs), max(errs)))
        for model in sorted({m for m, _, _ in pts}):
            rest = [(k, y) for m, k, y in pts if m != model]
            if not rest:
                continue
            ha, hd = fit(rest)
            held = [abs(al(ha, hd, k) - y) / y for m, k, y in pts if m == model]
            print("        held out %-26s a %.3f d %.3f  |AL err| median %.3f max %.3f" %
                  (model, ha, hd, statistics.median(held), max(held)))
    pp = rows("per_position.csv")
    if "eagle3" in data:
        a, d = fit([(k, y) for _, k, y in data["eagle3"]])
        p, rate = 1.0, a
        for r in pp:
            p *= min(rate, 1.0)
            rate *= d
            print("per position %s k %s position %s: measured %.3f, eagle3 curve %.3f" %
                  (r["model"], r["k"], r["position"], int(r["accepted"]) / int(r["drafts"]), p))
    rnd = rows("acceptance_random.csv")
    for method in sorted({r["method"] for r in rnd}):
        rates = [float(r["rate"]) for r in sorted(rnd, key=lambda r: int(r["position"]))
                 if r["method"] == method]
        a = rates[0]
        d = rates[1] / rates[0] / a
        print("%-7s random-token prompts: a %.3f d %.3f  AL at k %d: measured %.3f, curve %.3f" %
              (method, a, d, len(rates), 1 + sum(rates), al(a, d, len(rates))))


if __name__ == "__main__":
    main()
