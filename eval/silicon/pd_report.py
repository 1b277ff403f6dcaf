#!/usr/bin/env python3
"""Median |TTFT error| and |TPOT error| of `servesim eval` over the
disaggregated (mode=disagg) rows of eval/silicon/silicon_trtllm_and_disagg.csv.gz,
per backend, per model x GPU, per source (rows with pool worker counts recorded
or not) and per concurrency band, plus the median signed errors.

usage: ./servesim eval eval/silicon --where mode=disagg --format json > F.json
       eval/silicon/pd_report.py F.json [--subset pd_silicon]

--subset pd_silicon keeps the rows eval/silicon/pd_silicon.py ran (DeepSeek-V3/R1,
fp8, no attention-DP pool, PP 1, H100/H200/B200), for a like-for-like comparison
with its README figures.
"""
import argparse, csv, gzip, json, os, re, statistics

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "silicon_trtllm_and_disagg.csv.gz")


def med(v):
    return 100 * statistics.median(v) if v else float("nan")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("json")
    ap.add_argument("--subset", default="")
    a = ap.parse_args()
    rows = {r["id"]: r for r in csv.DictReader(gzip.open(SRC, "rt")) if r["mode"] == "disagg"}
    ev = json.load(open(a.json))["rows"]
    groups = {}
    for e in ev:
        r = rows.get(e["experiment"])
        if r is None:
            continue
        if a.subset == "pd_silicon" and not (
                r["model_path"] in ("deepseek-ai/DeepSeek-V3", "deepseek-ai/DeepSeek-R1")
                and r["precision"] == "fp8" and r["system"] in ("h100_sxm", "h200_sxm", "b200_sxm")):
            continue
        m = e["metrics"]
        t, p = m["ttft_mean_ms"], m["itl_mean_ms"]
        et = (t["predicted"] - t["measured"]) / t["measured"]
        ep = (p["predicted"] - p["measured"]) / p["measured"]
        c = int(re.sub(r"\D", "", e["benchmark"]) or 0)  # eval's label: c<concurrency>
        src = "pool counts recorded" if r["decode_num_workers"] else "pool counts blank"
        band = "c<=16" if c <= 16 else ("c<=127" if c < 128 else "c>=128")
        for key in (("all",), ("backend", r["backend"]), ("model x GPU", e["model"], r["system"]),
                    ("source", src), ("concurrency", band)):
            groups.setdefault(key, []).append((et, ep))
    print(f"{'group':44} {'rows':>5} {'|TTFT|':>8} {'|TPOT|':>8} {'TTFT':>8} {'TPOT':>8}")
    for key in sorted(groups, key=lambda k: (k[0] != "all", k)):
        v = groups[key]
        print(f"{' '.join(key):44} {len(v):5d} {med([abs(x[0]) for x in v]):7.1f}% {med([abs(x[1]) for x in v]):7.1f}% "
              f"{med([x[0] for x in v]):+7.1f}% {med([x[1] for x in v]):+7.1f}%")


if __name__ == "__main__":
    main()
