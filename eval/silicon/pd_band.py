#!/usr/bin/env python3
"""The P/D runs whose TTFT error lies in a band, grouped.

Groups the runs of a `servesim eval --format csv` output of the silicon P/D
rows whose |TTFT error| lies in (LO, HI] (default 25-40 %: the runs nearest
the 25 % target) by engine x GPU x precision x sign, by engine x load x
sign, by engine x ISL/OSL x MTP: for each group, its runs in the band of
its runs in all, and the signed TTFT and ITL medians of those in the band.
The pools and MTP come from inferencex_pools.csv where the row leaves them
blank.  eval/silicon/HARNESS.md "pdx".

usage: ./servesim eval eval/silicon/silicon_trtllm_and_disagg.csv.gz \
           --where mode=disagg --format csv > F.csv
       eval/silicon/pd_band.py F.csv [LO HI]       e.g. 0.25 0.40
"""
import collections, csv, gzip, os, statistics, sys

HERE = os.path.dirname(os.path.abspath(__file__))


def joined(path):
    """Each simulated run of the eval CSV at path: (its eval row, its silicon
    row, the silicon row's data-source fields, its inferencex_pools.csv row or
    {}), runs without a TTFT error left out (pd_resid.py reads them too)."""
    data = {r["id"]: r for r in csv.DictReader(gzip.open(os.path.join(HERE, "silicon_trtllm_and_disagg.csv.gz"), "rt"))}
    pools = {r["id"]: r for r in csv.DictReader(open(os.path.join(HERE, "inferencex_pools.csv")))}
    for e in csv.DictReader(open(path)):
        r = data.get(e["experiment"])
        if r is None or e["ttft_mean_ms_ape"] in ("", "nan"):
            continue
        f = dict(p.strip().split("=", 1) for p in r["silicon_data_source"].split(";") if "=" in p)
        yield e, r, f, pools.get(e["experiment"], {})


def runs(path):
    out = []
    for e, r, f, p in joined(path):
        c = int(f.get("silicon_concurrency") or r["batch_size"] or 0)
        out.append({"be": r["backend"], "gpu": r["system"], "prec": r["precision"], "isl": r["isl"],
                    "osl": r["osl"], "c": c, "mtp": p.get("speculative", "none"),
                    "ape": float(e["ttft_mean_ms_ape"]),
                    "ttft": float(e["ttft_mean_ms_predicted"]) / float(e["ttft_mean_ms_measured"]) - 1,
                    "itl": float(e["itl_mean_ms_predicted"]) / float(e["itl_mean_ms_measured"]) - 1})
    return out


def load(c):
    return "c<=16" if c <= 16 else "c17-127" if c < 128 else "c128-1023" if c < 1024 else "c>=1024"


def main():
    if len(sys.argv) not in (2, 4):
        sys.exit(__doc__.split("usage:")[1])
    lo, hi = (float(sys.argv[2]), float(sys.argv[3])) if len(sys.argv) == 4 else (0.25, 0.40)
    alls = runs(sys.argv[1])
    band = [o for o in alls if lo < o["ape"] <= hi]
    print("%d runs, %d in (%g, %g]: %d under, %d over" % (len(alls), len(band), lo, hi,
                                                        sum(o["ttft"] < 0 for o in band), sum(o["ttft"] > 0 for o in band)))
    sign = lambda o: "+" if o["ttft"] > 0 else "-"
    for title, key in (("engine gpu precision sign", lambda o: (o["be"], o["gpu"], o["prec"], sign(o))),
                       ("engine load sign", lambda o: (o["be"], load(o["c"]), sign(o))),
                       ("engine ISL/OSL MTP", lambda o: (o["be"], o["isl"] + "/" + o["osl"], o["mtp"]))):
        g = collections.defaultdict(list)
        for o in band:
            g[key(o)].append(o)
        print(title)
        for k, v in sorted(g.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            n = sum(1 for o in alls if key(o) == k)
            print("  %-42s %3d of %3d  TTFT %+6.1f %%  ITL %+6.1f %%" % (
                " ".join(k), len(v), n, 100 * statistics.median(o["ttft"] for o in v),
                100 * statistics.median(o["itl"] for o in v)))


if __name__ == "__main__":
    main()
