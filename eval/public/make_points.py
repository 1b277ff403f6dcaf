#!/usr/bin/env python3
"""Writes eval/public/<name>/experiment.json from the table below: published
vLLM / SGLang serving measurements of MoE models (figures only; sources and
assumptions per point in eval/public/PROVENANCE.md).  Run from the repository
root: python3 eval/public/make_points.py"""
import json
import os

GS = "gpustack/gpustack@47277d79f4a5bae12a2d25e9ecbed2a2177a5f2d docs/performance-lab/"
# vLLM >= 0.8 V1 API-server defaults on a >= 70 GiB GPU other than A100
# (EngineArgs._set_default_args_v1): max_num_batched_tokens 8192, max_num_seqs 1024
VLLM_BIG = dict(max_num_batched_tokens=8192, max_num_seqs=1024, block_size=16,
                gpu_memory_utilization=0.9, enable_prefix_caching=True)
# ... and on an A100 (or a GPU under 70 GiB): 2048 and 256
VLLM_A100 = dict(VLLM_BIG, max_num_batched_tokens=2048, max_num_seqs=256)
# GPUStack's vLLM 0.11.0 runner image (gpustack/runner pack/cuda/Dockerfile with
# VLLM_VERSION=0.11.0, commit 01961f47623009fd86e45e61bd8958f7e34b182b): vllm
# from PyPI, FlashInfer and LMCache, no deep_gemm package, so vLLM finds no
# DeepGEMM (--no-deep-gemm: block-fp8 dense linears on Hopper run its
# CUTLASS block-scaled GEMM; src/cost/cutlassbs.c)
GS011 = dict(no_deep_gemm=True)
# SGLang: chunked_prefill_size and max_running_requests (max_num_seqs) left
# to servesim's SGLang rules when the serve line does not set them;
# mem_fraction_static: servesim applies SGLang's rule (src/engine/sglang.c)
# unless the serve line sets it;
# the KV cache: SGLang's --kv-cache-dtype auto (bf16) unless "kv_dtype"
# (moved from these engine settings to the experiment's top level)
SGL = dict(block_size=1,
           enable_prefix_caching=True)

V = "vllm"
S = "sglang"


def dep(model, gpu, tp, dp, ep, dtype, prec, eng, ver, eo, mml):
    """One deployment: model, GPU, TP, DP, EP, dtype, precision, engine,
    version, engine settings (eo), max_model_len."""
    return dict(model=model, gpu=gpu, tp=tp, dp=dp, ep=ep, dtype=dtype, prec=prec, eng=eng, ver=ver,
                eo=eo, mml=mml)


# one closed-loop point a row: the deployment's fields and name, source,
# isl, osl, concurrency, n, ttft_ms, tpot_ms
P = []


def add(name, src, d, isl, osl, conc, n, ttft, tpot):
    P.append(dict(d, name=name, src=src, isl=isl, osl=osl, conc=conc, n=n, ttft=ttft, tpot=tpot))


def bursts(prefix, src, d, pts):
    """Random-length bursts (all n requests at once) on deployment d: point
    (nm, isl, osl, n, ttft_ms, tpot_ms) is named prefix + nm, its source
    src + "random " + nm."""
    for nm, isl, osl, n, tt, tpot in pts:
        add(prefix + nm, src + "random " + nm, d, isl, osl, n, n, tt, tpot)


# ShareGPT at max-concurrency 4, 100 requests, lengths fixed at the run's means
SHAREGPT = ", ShareGPT max-concurrency 4 (lengths fixed at the run's means)"

R1 = GS + "deepseek-r1/h200.md"
d = dep("deepseek-r1", "h200-sxm", 8, 1, 1, "fp8", "", V, "0.11.0", dict(VLLM_BIG, **GS011), 163840)
bursts("dsr1-h200-vllm0.11-tp8-", R1 + " baseline 'vllm serve -tp 8', ", d,
       [("4k200-burst500", 4000, 200, 500, 63058.71, 164.23),
        ("2k100-burst500", 2000, 100, 500, 28911.90, 237.02),
        ("32k100-burst100", 32000, 100, 100, 101351.99, 365.79)])
add("dsr1-h200-vllm0.11-tp8-sharegpt-c4", R1 + " baseline 'vllm serve -tp 8'" + SHAREGPT, d,
    228, 213, 4, 100, 123.30, 19.36)
bursts("dsr1-h200-sglang0.5.3-tp8-", R1 + " optimized 'sglang --tp 8 --enable-dp-attention' (dp-size 1), ",
       dep("deepseek-r1", "h200-sxm", 8, 1, 1, "fp8", "", S, "0.5.3", SGL, 163840),
       [("4k200-burst500", 4000, 200, 500, 62808.37, 107.91),
        ("2k100-burst500", 2000, 100, 500, 27248.86, 154.49),
        ("32k100-burst100", 32000, 100, 100, 98133.46, 198.62)])

V32 = GS + "deepseek-v3.2/h200.md"
bursts("dsv32-h200-vllm0.13-tp8-", V32 + " baseline 'vllm serve -tp 8', ",
       dep("deepseek-v3.2", "h200-sxm", 8, 1, 1, "fp8", "", V, "0.13.0", VLLM_BIG, 163840),
       [("1k2k-burst100", 1000, 2000, 100, 4789.20, 45.72),
        ("4k200-burst500", 4000, 200, 500, 103386.88, 226.74)])
bursts("dsv32-h200-sglang0.5.6-dpattn8-",
       V32 + " optimized 'sglang --tp-size 8 --dp-size 8 --enable-dp-attention --context-length 32768', ",
       dep("deepseek-v3.2", "h200-sxm", 1, 8, 1, "fp8", "", S, "0.5.6", SGL, 32768),
       [("1k2k-burst100", 1000, 2000, 100, 2103.54, 39.45),
        ("4k200-burst500", 4000, 200, 500, 44019.81, 177.95)])

Q = GS + "qwen3-235b-a22b/h100.md"
bursts("qwen3-235b-h100-vllm0.11-bf16-tp8-", Q + " baseline 'vllm serve Qwen3-235B-A22B-Instruct-2507 -tp 8', ",
       dep("qwen3-235b-a22b", "h100-sxm", 8, 1, 1, "bf16", "", V, "0.11.0", dict(VLLM_BIG, **GS011), 40960),
       [("4k184-burst500", 4000, 184, 500, 47811.58, 68.94),
        ("2k99-burst500", 2000, 99, 500, 21313.79, 101.08),
        ("32k82-burst100", 32000, 82, 100, 70409.55, 132.10)])
bursts("qwen3-235b-h100-vllm0.11-fp8-tp4-",
       Q + " optimized 'vllm serve Qwen3-235B-A22B-Instruct-2507-FP8 -tp 4 --max-num-batched-tokens 16384', ",
       dep("qwen3-235b-a22b", "h100-sxm", 4, 1, 1, "fp8", "moe=fp8_block", V, "0.11.0",
           dict(VLLM_BIG, max_num_batched_tokens=16384, **GS011), 40960),
       [("4k182-burst500", 4000, 182, 500, 60513.14, 89.52),
        ("2k99-burst500", 2000, 99, 500, 26860.95, 125.93),
        ("32k83-burst100", 32000, 83, 100, 103754.50, 194.60)])

G1 = GS + "gpt-oss-120b/h100.md"
d = dep("gpt-oss-120b", "h100-sxm", 1, 1, 1, "bf16", "", V, "0.10.2", VLLM_BIG, 32768)
bursts("gpt-oss-120b-h100-vllm0.10.2-tp1-", G1 + " baseline 'vllm serve openai/gpt-oss-120b --max-model-len 32768', ", d,
       [("4k134-burst500", 4000, 134, 500, 72954.68, 31.70),
        ("2k98-burst500", 2000, 98, 500, 36234.76, 41.35),
        ("32k99-burst100", 32000, 99, 100, 99444.04, 23.99)])
add("gpt-oss-120b-h100-vllm0.10.2-tp1-sharegpt-c4", G1 + " baseline" + SHAREGPT, d, 229, 217, 4, 100, 49.00, 8.31)
d = dep("gpt-oss-120b", "h100-sxm", 2, 1, 1, "bf16", "", V, "0.10.2", VLLM_BIG, 131072)
bursts("gpt-oss-120b-h100-vllm0.10.2-tp2-", G1 + " optimized 'vllm serve openai/gpt-oss-120b --async-scheduling -tp 2', ", d,
       [("4k136-burst500", 4000, 136, 500, 29487.34, 164.73),
        ("2k98-burst500", 2000, 98, 500, 15291.77, 139.32),
        ("32k100-burst100", 32000, 100, 100, 48826.05, 220.32)])
add("gpt-oss-120b-h100-vllm0.10.2-tp2-sharegpt-c4", G1 + " optimized (-tp 2, async scheduling)" + SHAREGPT, d,
    229, 217, 4, 100, 37.51, 5.75)

G2 = GS + "gpt-oss-20b/h100.md"
bursts("gpt-oss-20b-h100-vllm0.11-tp1-", G2 + " baseline 'vllm serve openai/gpt-oss-20b', ",
       dep("gpt-oss-20b", "h100-sxm", 1, 1, 1, "bf16", "", V, "0.11.0", dict(VLLM_BIG, **GS011), 131072),
       [("4k105-burst500", 4000, 105, 500, 31245.12, 184.26),
        ("2k94-burst500", 2000, 94, 500, 16515.86, 149.76),
        ("32k94-burst100", 32000, 94, 100, 53687.69, 239.44)])

add("qwen3-30b-a3b-h100-vllm0.10.1-tp1-2k1k-c10",
    "vllm-project/vllm PR #23151 (2025-08-19), 'VLLM_USE_DEEP_GEMM=1 vllm serve Qwen/Qwen3-30B-A3B', benchmark_serving random 2048/1024 max-concurrency 10, 100 prompts, without the PR's tuned configs (H100, TP1)",
    dep("qwen3-30b-a3b", "h100-sxm", 1, 1, 1, "bf16", "", V, "0.10.1", VLLM_BIG, 40960),
    2042, 1016, 10, 100, 267.22, 13.18)


GLM = GS + "glm-5.2/h200.md"
# GuideLLM via GPUStack's benchmark-runner: "Mean ITL" = (latency - TTFT)/(output - 1)
# (vLLM's TPOT; the page's "Mean TPOT" is latency / output); constant rate 1000
# with GuideLLM's 512-request concurrency cap = a closed loop at 512
GUIDELLM_512 = ", GuideLLM constant 1000 req/s capped at 512 concurrent, "
# the KV-cache dtype where the page's command line sets one
# (--kv-cache-dtype=fp8_e4m3); elsewhere the engine's default ("auto": bf16
# for these fp8 checkpoints)
# and the page's --mem-fraction-static=0.85 (SGLang's rule gives less on an H200)
SGL_WIDE = dict(max_num_seqs=256, **SGL, kv_dtype="fp8", mem_fraction_static=0.85)
GLM_VLLM = dep("glm-5.2", "h200-sxm", 8, 1, 1, "fp8", "", V, "0.24.0", VLLM_BIG, 1048576)
GLM_SGL = dep("glm-5.2", "h200-sxm", 1, 8, 8, "fp8", "", S, "0.5.14", SGL_WIDE, 1048576)
for prefix, src, d, pts in [
        ("glm-5.2-h200-vllm0.24-tp8-", " baseline 'vllm serve zai-org/GLM-5.2-FP8 --tensor-parallel-size=8'", GLM_VLLM,
         [("8k1k-c512", 8204, 1024, 592315.54, 57.86), ("1k128-c512", 1036, 128, 19596.45, 164.92)]),
        ("glm-5.2-h200-sglang0.5.14-dpattn8-deepep-",
         " optimized 'sglang --tp-size=8 --dp-size=8 --enable-dp-attention --mem-fraction-static=0.85 --moe-a2a-backend=deepep --max-running-requests=256 --kv-cache-dtype=fp8_e4m3'",
         GLM_SGL, [("8k1k-c512", 8204, 1024, 143076.43, 78.24), ("1k128-c512", 1036, 128, 17437.67, 75.41)])]:
    for nm, isl, osl, tt, itl in pts:
        add(prefix + nm, GLM + src + GUIDELLM_512 + nm, d, isl, osl, 512, 1000, tt, itl)
# GuideLLM constant rate 1 req/s, 200 requests: an open-loop stage;
# name, source, deployment, TTFT, ITL, E2E (mean ms)
HEAVY = ", Generation Heavy: GuideLLM constant 1 req/s, 200 requests, 1012 in / 2000 out"
STAGES = [
    ("glm-5.2-h200-vllm0.24-tp8-1k2k-rate1", GLM + " baseline (vLLM TP8)" + HEAVY, GLM_VLLM, 236.63, 42.01, 84220.0),
    ("glm-5.2-h200-sglang0.5.14-dpattn8-deepep-1k2k-rate1", GLM + " optimized (SGLang dp 8 + DeepEP, as above)" + HEAVY,
     GLM_SGL, 374.11, 46.38, 93090.0),
]

GA = GS + "gpt-oss-120b/a100.md"
d = dep("gpt-oss-120b", "a100-sxm-80gb", 1, 1, 1, "bf16", "", V, "0.11.0", dict(VLLM_A100, **GS011), 32768)
bursts("gpt-oss-120b-a100-vllm0.11-tp1-",
       GA + " baseline 'vllm serve openai/gpt-oss-120b --max-model-len 32768' (one A100 SXM 80GB), ", d,
       [("4k135-burst500", 4000, 135, 500, 133561.13, 112.18),
        ("2k98-burst500", 2000, 98, 500, 61328.02, 131.94),
        ("32k100-burst100", 32000, 100, 100, 368856.64, 224.58)])
add("gpt-oss-120b-a100-vllm0.11-tp1-sharegpt-c4", GA + " baseline" + SHAREGPT, d, 229, 217, 4, 100, 61.91, 11.67)
GA2 = GS + "gpt-oss-20b/a100.md"
bursts("gpt-oss-20b-a100-vllm0.11-tp1-", GA2 + " baseline 'vllm serve openai/gpt-oss-20b' (one A100 SXM 80GB), ",
       dep("gpt-oss-20b", "a100-sxm-80gb", 1, 1, 1, "bf16", "", V, "0.11.0", dict(VLLM_A100, **GS011), 131072),
       [("4k107-burst500", 4000, 107, 500, 62947.13, 123.35),
        ("2k94-burst500", 2000, 94, 500, 31669.55, 100.32),
        ("32k95-burst100", 32000, 95, 100, 219739.77, 268.03)])
QA = GS + "qwen3-235b-a22b/a100.md"
bursts("qwen3-235b-a100-vllm0.11-bf16-tp8-",
       QA + " baseline 'vllm serve Qwen/Qwen3-235B-A22B-Instruct-2507 -tp 8' (8x A100 SXM 80GB), ",
       dep("qwen3-235b-a22b", "a100-sxm-80gb", 8, 1, 1, "bf16", "", V, "0.11.0", dict(VLLM_A100, **GS011), 40960),
       [("4k183-burst500", 4000, 183, 500, 122190.64, 205.64),
        ("2k99-burst500", 2000, 99, 500, 54722.50, 190.79),
        ("32k82-burst100", 32000, 82, 100, 240229.05, 298.86)])

MM = "vllm-project/recipes@6291585 (2025-10-27, PR #99 'MiniMax-M2 benchmark'; Apache-2.0) MiniMax/MiniMax-M2.md"
add("minimax-m2-h20-3e-vllm0.11.1-tp4-2k1k-c10", MM + ": 'vllm serve MiniMaxAI/MiniMax-M2 --tensor-parallel-size 4' on 4x H20-3e, vllm bench serve random 2048/1024 --max-concurrency 10 --num-prompt 100",
    dep("minimax-m2.5", "h20-3e", 4, 1, 1, "fp8", "", V, "0.11.1", VLLM_BIG, 196608),
    2048, 987, 10, 100, 520.98, 82.82)


def experiment(name, src, workload_name, d):
    """The head of an experiment on deployment d: the deployment's fields,
    the KV-cache dtype where its engine settings name one, the precision
    where given, the engine with its settings."""
    eng = dict(name=d["eng"], version=d["ver"])
    eng.update(d["eo"])
    kv = eng.pop("kv_dtype", None)
    eng["max_model_len"] = d["mml"]
    exp = {"name": name, "source": src, "workload_name": workload_name, "model": d["model"], "gpu": d["gpu"],
           "tp": d["tp"], "pp": 1, "dp": d["dp"], "ep": d["ep"], "dtype": d["dtype"]}
    if kv:
        exp["kv_dtype"] = kv
    if d["prec"]:
        exp["precision"] = d["prec"]
    exp["engine"] = eng
    return exp


def write(d, exp):
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "experiment.json"), "w") as f:
        json.dump(exp, f, indent=1)
        f.write("\n")


def main():
    root = os.path.dirname(os.path.abspath(__file__))
    for p in P:
        exp = experiment(p["name"], p["src"], "%d/%d c%d" % (p["isl"], p["osl"], p["conc"]), p)
        exp["workload"] = {"seed": 42, "arrival": {"process": "concurrency", "concurrency": p["conc"]},
                           "num_requests": p["n"], "prompt_tokens": p["isl"], "output_tokens": p["osl"]}
        exp["measured"] = {"kind": "closed", "warmup_requests": 0,
                           "ttft_ms": {"mean": p["ttft"]}, "itl_ms": {"mean": p["tpot"]}}
        write(os.path.join(root, p["name"]), exp)
    for name, src, d, ttft, itl, e2e in STAGES:
        exp = experiment(name, src, "1012/2000 rate 1", d)
        exp["workload"] = {"seed": 42, "arrival": {"process": "constant"},
                           "stages": [{"rate": 1.0, "duration_s": 200}],
                           "prompt_tokens": 1012, "output_tokens": 2000}
        exp["measured"] = {"kind": "stages", "stages": [{"index": 0, "rate": 1.0, "duration_s": 200,
                                                         "completed": 200, "ttft_ms": {"mean": ttft},
                                                         "itl_ms": {"mean": itl}, "e2e_ms": {"mean": e2e}}]}
        write(os.path.join(root, name), exp)
    print(len(P) + len(STAGES), "experiments")


main()
