#!/usr/bin/env python3
"""Which run features split the P/D TTFT residuals, within one engine.

Reads a `servesim eval --format csv` output of the silicon P/D rows and, per
engine (and per engine x precision for the numeric features), prints the runs
of each value of a categorical feature, or of each quartile of a numeric one,
with their count within 25 % on TTFT, median |TTFT error| and the signed TTFT
and ITL medians (exp of the median log(pred / meas)).  The pools and MTP come
from inferencex_pools.csv where the row leaves them blank (as pd_band.py).

Features: engine version, GPU, precision, model, ISL, OSL, source file, MTP
tokens, prefill workers / attention DP / EP / prompts a rank / token budget,
decode workers / attention DP / EP / batch; and, numeric: concurrency C,
C / decode slots (workers x batch x attention DP: above 1 a client waits for a
slot), TTFT's share of the measured cycle TTFT + (0.9 OSL - 1) x ITL, the
prompt tokens a second each prefill worker served (C x 0.9 ISL / cycle /
workers), measured TTFT, and the run's ITL error.

With a second csv of the same rows run with the host terms at zero
(`--eager-op-us 0 --api-ttft-ms 0 --api-prompt-us 0`), `--gpu ZERO.csv`
prints, for the runs at C <= 16 with C <= decode slots, measured TTFT minus
that GPU-only prediction less the engine's hand-off (TensorRT-LLM 23 ms):
what the host, the frontend and the transfer took at low load, per model x
GPU x precision x ISL x prefill layout.  eval/silicon/HARNESS.md "pdttft".

usage: ./servesim eval eval/silicon/silicon_trtllm_and_disagg.csv.gz \\
           --where mode=disagg --format csv > F.csv
       eval/silicon/pd_resid.py F.csv [--gpu ZERO.csv]
"""
import collections, csv, math, os, statistics, sys

from pd_band import joined

HERE = os.path.dirname(os.path.abspath(__file__))
HANDOFF_MS = {"trtllm": 23.0, "sglang": 210.0, "vllm": 245.0}  # engine_type.pd_handoff_s


def num(x, d=0.0):
    try:
        return float(x)
    except (TypeError, ValueError):
        return d


def runs(path):
    out = []
    for e, r, f, p in joined(path):

        def pool(k, d):  # the pools CSV where it gives a value, else the row's
            v = p.get(k)
            return num(v if v not in (None, "", "0") else r.get(k), d)

        o = {"id": e["experiment"], "ver": r["backend_version"], "be": r["backend"], "gpu": r["system"].split("_")[0],
             "prec": r["precision"], "model": r["model_path"].split("/")[-1], "isl": int(r["isl"]),
             "osl": int(r["osl"]), "c": int(f.get("silicon_concurrency") or r["batch_size"] or 0),
             "src": r["silicon_data_source"].split(";")[0].split("/")[0].replace("source_file=", ""),
             "mtp": int(num(p.get("mtp_tokens"))), "pw": int(pool("prefill_num_workers", 1)),
             "pdp": int(pool("prefill_attention_dp_size", 1)), "pep": int(pool("prefill_moe_ep_size", 1)),
             "pb": int(num(p.get("prefill_batch_size") or r["prefill_batch_size"], 1)),
             "pmt": int(num(p.get("prefill_max_num_tokens"))), "dw": int(pool("decode_num_workers", 1)),
             "ddp": int(pool("decode_attention_dp_size", 1)), "dep": int(pool("decode_moe_ep_size", 1)),
             "db": int(num(p.get("decode_batch_size") or r["decode_batch_size"])),
             "tm": float(e["ttft_mean_ms_measured"]), "tp": float(e["ttft_mean_ms_predicted"]),
             "im": float(e["itl_mean_ms_measured"]), "ip": float(e["itl_mean_ms_predicted"]),
             "ape": float(e["ttft_mean_ms_ape"])}
        o["lt"], o["li"] = math.log(o["tp"] / o["tm"]), math.log(o["ip"] / o["im"])
        o["slots"] = o["c"] / (o["dw"] * o["db"] * o["ddp"]) if o["db"] else float("nan")
        cycle = o["tm"] / 1e3 + (0.9 * o["osl"] - 1) * o["im"] / 1e3
        o["ttft_share"] = o["tm"] / 1e3 / cycle
        o["ktok_s"] = o["c"] * 0.9 * o["isl"] / cycle / o["pw"] / 1e3
        o["itl_err"] = math.exp(o["li"]) - 1
        out.append(o)
    return out


def line(v):
    return "n %3d  w25 %3d  |TTFT| %5.1f %%  signed TTFT %+6.1f %%  ITL %+6.1f %%" % (
        len(v), sum(o["ape"] <= 0.25 for o in v), 100 * statistics.median(o["ape"] for o in v),
        100 * (math.exp(statistics.median(o["lt"] for o in v)) - 1),
        100 * (math.exp(statistics.median(o["li"] for o in v)) - 1))


CATS = ("ver", "gpu", "prec", "model", "isl", "osl", "src", "mtp", "pw", "pdp", "pep", "pb", "pmt", "dw", "ddp",
        "dep", "db")
NUMS = ("c", "slots", "ttft_share", "ktok_s", "tm", "itl_err")


def splits(rs):
    for be in sorted({o["be"] for o in rs}):
        s = [o for o in rs if o["be"] == be]
        print("== %s: %s" % (be, line(s)))
        for k in CATS:
            g = collections.defaultdict(list)
            for o in s:
                g[o[k]].append(o)
            if len(g) > 1:
                print("  -- %s" % k)
                for kk, v in sorted(g.items(), key=lambda kv: -len(kv[1])):
                    if len(v) >= 4:
                        print("     %-16s %s" % (kk, line(v)))
        for prec in sorted({o["prec"] for o in s}):
            sp = [o for o in s if o["prec"] == prec]
            if len(sp) < 8:
                continue
            print("  == %s %s: %s" % (be, prec, line(sp)))
            for k in NUMS:
                v = sorted((o for o in sp if o[k] == o[k]), key=lambda o: o[k])
                if len(v) < 8:
                    continue
                q = len(v) // 4
                print("    -- %s (quartiles)" % k)
                for i in range(4):
                    b = v[i * q:(i + 1) * q if i < 3 else len(v)]
                    print("       [%9.3g .. %9.3g] %s" % (b[0][k], b[-1][k], line(b)))


def gpu_residual(rs, zero_path):
    z = {e["experiment"]: float(e["ttft_mean_ms_predicted"]) for e in csv.DictReader(open(zero_path))
         if e["ttft_mean_ms_ape"] not in ("", "nan")}
    g = collections.defaultdict(list)
    for o in rs:
        if o["id"] in z and o["c"] <= 16 and not o["slots"] > 1:
            g[(o["be"], o["model"], o["gpu"], o["prec"], o["isl"], "dp%d" % o["pdp"])].append(
                (o["c"], o["tm"], z[o["id"]] - HANDOFF_MS[o["be"]]))
    print("measured TTFT - GPU-only prediction (ms) at C <= 16, C <= decode slots")
    for k, v in sorted(g.items()):
        v.sort()
        print("  %-44s median %+7.0f   %s" % (" ".join(map(str, k)), statistics.median(m - p for _, m, p in v),
                                           "  ".join("c%d %.0f/%.0f" % (c, m, p) for c, m, p in v[:5])))


def main():
    a = sys.argv[1:]
    if len(a) not in (1, 3) or (len(a) == 3 and a[1] != "--gpu"):
        sys.exit(__doc__.split("usage:")[1])
    rs = runs(a[0])
    if len(a) == 3:
        gpu_residual(rs, a[2])
    else:
        splits(rs)


if __name__ == "__main__":
    main()
