#!/usr/bin/env python3
"""P/D disaggregation check: drive `servesim run --disaggregate XpYd` over the
disaggregated rows of eval/silicon/silicon_trtllm_and_disagg.csv.gz that servesim can
express (a model in the registry, one of its GPUs, fp8, no attention-DP pool) and
report the median |TTFT error| and |TPOT error| per model x system.

Each row is a closed loop of `silicon_concurrency` clients with fixed isl/osl;
it is replayed as that many clients over 3 x concurrency requests (at least 32).
Silicon TPOT is compared with servesim's ITL ((E2E - TTFT)/(output - 1)), the
benchmark's TPOT definition.  Each row is priced with its engine's kernel tables
(--engine trtllm|sglang|vllm).  Worker counts left blank in the file are taken as 1.

usage: eval/pd_silicon.py [--limit N] [--servesim ./servesim] [--csv OUT]
"""
import argparse, csv, gzip, json, os, re, statistics, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SRC = os.path.join(ROOT, "eval", "silicon", "silicon_trtllm_and_disagg.csv.gz")
MODELS = {"deepseek-ai/DeepSeek-V3": "deepseek-v3", "deepseek-ai/DeepSeek-R1": "deepseek-r1"}
GPUS = {"h100_sxm": "h100", "h200_sxm": "h200", "b200_sxm": "b200"}


def num(x, default=1):
    return int(x) if x not in ("", None) else default


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--servesim", default=os.path.join(ROOT, "servesim"))
    ap.add_argument("--csv", default="")
    a = ap.parse_args()
    rows = [r for r in csv.DictReader(gzip.open(SRC, "rt")) if r["mode"] == "disagg"
            and r["model_path"] in MODELS and r["system"] in GPUS and r["precision"] == "fp8"
            and num(r["prefill_attention_dp_size"]) == 1 and num(r["decode_attention_dp_size"]) == 1
            and num(r["prefill_pp_size"]) == 1 and num(r["decode_pp_size"]) == 1]
    if a.limit:
        rows = rows[:a.limit]
    out, per = [], {}
    for r in rows:
        conc = int(re.search(r"silicon_concurrency=(\d+)", r["silicon_data_source"]).group(1))
        isl, osl = int(r["isl"]), int(r["osl"])
        wl = {"seed": 1, "arrival": {"process": "concurrency", "concurrency": conc},
              "num_requests": max(32, 3 * conc),
              "prompt_tokens": {"dist": "fixed", "value": isl},
              "output_tokens": {"dist": "fixed", "value": osl}}
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump(wl, f)
            wpath = f.name
        dtp, ptp = num(r["decode_tp_size"]), num(r["prefill_tp_size"])
        dep, pep = num(r["decode_moe_ep_size"]), num(r["prefill_moe_ep_size"])
        cmd = [a.servesim, "run", "--model", MODELS[r["model_path"]], "--gpu", GPUS[r["system"]],
               "--dtype", "fp8", "--tp", str(dtp), "--ep", str(dep), "--prefill-tp", str(ptp),
               "--prefill-ep", str(pep), "--disaggregate",
               f"{num(r['prefill_num_workers'])}p{num(r['decode_num_workers'])}d",
               "--workload", wpath, "--format", "json", "--allow-invalid",
               "--engine", r["backend"] if r["backend"] in ("vllm", "sglang", "trtllm") else "vllm"]
        p = subprocess.run(cmd, capture_output=True, text=True)
        os.unlink(wpath)
        if p.returncode != 0:
            print(f"skip {r['id']}: {p.stderr.strip()[:160]}", file=sys.stderr)
            continue
        s = json.loads(p.stdout)["summary"]
        ttft, tpot = s["ttft_ms"]["mean"], s["itl_ms"]["mean"]
        mt, mp = float(r["silicon_ttft_ms"]), float(r["silicon_tpot_ms"])
        et, ep = (ttft - mt) / mt, (tpot - mp) / mp
        key = (MODELS[r["model_path"]], r["system"])
        per.setdefault(key, []).append((abs(et), abs(ep)))
        out.append([r["id"], key[0], key[1], conc, isl, osl, mt, ttft, et, mp, tpot, ep])
    if a.csv:
        with open(a.csv, "w") as f:
            w = csv.writer(f)
            w.writerow(["id", "model", "system", "concurrency", "isl", "osl", "ttft_ms_measured",
                        "ttft_ms_servesim", "ttft_err", "tpot_ms_measured", "tpot_ms_servesim", "tpot_err"])
            w.writerows(out)
    print(f"{'model':14} {'system':10} {'rows':>5} {'median |TTFT err|':>18} {'median |TPOT err|':>18}")
    for key in sorted(per):
        v = per[key]
        print(f"{key[0]:14} {key[1]:10} {len(v):5d} {100 * statistics.median(x[0] for x in v):17.1f}% "
              f"{100 * statistics.median(x[1] for x in v):17.1f}%")


if __name__ == "__main__":
    main()
