#!/usr/bin/env python3
"""Delivered rate of each P/D run's prefill workers, measured and predicted.

In the closed loop of a silicon P/D row (C clients, each sending its next
request when the last one finishes), a request's cycle is TTFT + (OSL - 1) x
ITL, so the pool delivers C / cycle requests a second; divided by the prefill
worker count this is the rate each prefill worker serves.  Where that rate
stays flat while C grows several-fold and TTFT is seconds, the prefill
workers are saturated and the rate is their capacity, which can be held
against the capacity servesim prices (`servesim run ... --breakdown
prefill:B:L`: B prompts of L tokens a step).  eval/silicon/HARNESS.md "pdfp8".

usage: ./servesim eval eval/silicon/silicon_trtllm_and_disagg.csv.gz \
           --where mode=disagg,backend=trtllm --format csv > F.csv
       eval/silicon/pd_rate.py F.csv [GPU PRECISION]     e.g. b200 fp8

One line per run: ISL/OSL, concurrency, the pools inferencex_pools.csv gives
(prefill workers P, prefill attention DP and EP, prefill prompts a rank pb,
decode workers, their attention DP and batch, MTP tokens), signed TTFT and
ITL errors, and the rate per prefill worker measured and predicted.
"""
import csv, gzip, os, sys

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    if len(sys.argv) not in (2, 4):
        sys.exit(__doc__.split("usage:")[1].split("One line")[0])
    data = {r["id"]: r for r in csv.DictReader(gzip.open(os.path.join(HERE, "silicon_trtllm_and_disagg.csv.gz"), "rt"))}
    pools = {r["id"]: r for r in csv.DictReader(open(os.path.join(HERE, "inferencex_pools.csv")))}
    want = sys.argv[2:]
    out = []
    for r in csv.DictReader(open(sys.argv[1])):
        d = data.get(r["experiment"])
        if not d or r["ttft_mean_ms_ape"] in ("nan", "") or not r["benchmark"].startswith("c"):
            continue
        if want and (d["system"].split("_")[0] != want[0] or d["precision"] != want[1]):
            continue
        p = pools.get(r["experiment"], {})
        c, isl, osl = int(r["benchmark"][1:]), int(d["isl"]), int(d["osl"])
        nw = int(p.get("prefill_num_workers") or d["prefill_num_workers"] or 1)
        tm, tp = float(r["ttft_mean_ms_measured"]) / 1e3, float(r["ttft_mean_ms_predicted"]) / 1e3
        im, ip = float(r["itl_mean_ms_measured"]) / 1e3, float(r["itl_mean_ms_predicted"]) / 1e3
        lm = c / (tm + (osl - 1) * im) / nw
        lp = c / (tp + (osl - 1) * ip) / nw
        out.append((isl, osl, c, "P%d dp%s ep%s pb%s D%s dp%s db%s mtp%s" % (
            nw, p.get("prefill_attention_dp_size", ""), p.get("prefill_moe_ep_size", ""),
            p.get("prefill_batch_size", ""), p.get("decode_num_workers", ""),
            p.get("decode_attention_dp_size", ""), p.get("decode_batch_size", ""), p.get("mtp_tokens", "")),
            tm, tp, im, ip, lm, lp))
    for isl, osl, c, pl, tm, tp, im, ip, lm, lp in sorted(set(out)):
        print("%5d/%-5d c%-6d %-42s TTFT %7.2f %7.2f s (%+4.0f%%)  ITL %+4.0f%%  rate/prefill worker %7.2f %7.2f (%+4.0f%%)" % (
            isl, osl, c, pl, tm, tp, 100 * (tp / tm - 1), 100 * (ip / im - 1), lm, lp, 100 * (lp / lm - 1)))


if __name__ == "__main__":
    main()
