#!/usr/bin/env python3
"""Writes eval/public-amd/<gpu folder>/<engine>/<name>/experiment.json from the table
below: dstack's published DeepSeek-R1 serving runs on 8x MI300X (held out:
nothing is fitted to them) and, from the same source, harness and workloads,
the 8x H200 runs as a same-source control.  Figures only (the means of the
run's raw CSV); sources and assumptions in eval/public-amd/PROVENANCE.md.
Run from the repository root: python3 eval/public-amd/make_points.py"""
import json
import os

SRC = ("dstackai/benchmarks@7f37e6697725e58dd09b9ef190b62ce19f01d45e "
       "Deepseek-R1/raw_data/online_results.csv (blog dstack.ai/blog/h200-mi300x-deepskeek-benchmark, 2025-03-18)")

# vLLM V0 (0.7.x): max_num_seqs 256; with chunked prefill off (vLLM disables
# it for MLA models then, and its default is on only above 32k of context)
# max_num_batched_tokens = max(max_model_len, 2048) = the serve line's 32768;
# prefix caching off by default in V0.
VLLM_V0 = dict(max_num_batched_tokens=32768, max_num_seqs=256, block_size=16,
               gpu_memory_utilization=0.9, enable_prefix_caching=False,
               max_model_len=32768)
# SGLang 0.4.2-0.4.3 server_args: chunked_prefill_size 8192 (any GPU over
# 25 GB), halved to 4096 with --enable-dp-attention (which also sets
# dp_size = tp_size); page 1; radix cache on; context = the model's.
SGL = dict(max_num_batched_tokens=8192, block_size=1, enable_prefix_caching=True,
           max_model_len=163840)
SGL_DPA = dict(SGL, max_num_batched_tokens=4096)

# (gpu, engine, version) -> (folder, name tag, tp, dp, engine settings, serve line)
DEP = {
    ("mi300x", "vllm"): ("mi300x", "vllm0.7.3-tp8", "0.7.3", 8, 1, VLLM_V0,
                         "rocm/vllm-dev:vllm-ds3-staging-0217 (vLLM 0.7.3.dev138+g21f6ca217), "
                         "'vllm serve deepseek-ai/DeepSeek-R1 --tensor-parallel-size 8 --max-model-len 32768', "
                         "VLLM_FP8_PADDING=0 VLLM_USE_TRITON_FLASH_ATTN=0"),
    ("mi300x", "sglang"): ("mi300x", "sglang0.4.2-tp8", "0.4.2", 8, 1, SGL,
                           "rocm/sglang-staging:20250212 (SGLang 0.4.2.post4), "
                           "'sglang.launch_server --tp 8'"),
    ("h200", "vllm"): ("h200-same-source", "vllm0.7.4-tp8", "0.7.4", 8, 1,
                       dict(VLLM_V0, max_num_batched_tokens=163840, max_model_len=163840),
                       "vLLM nightly 0.7.4.dev181+gf35f8e22, VLLM_ATTENTION_BACKEND=FLASHMLA, "
                       "'vllm serve deepseek-ai/DeepSeek-R1 --tensor-parallel-size 8' (max_model_len "
                       "not set: 163840; V0 turns chunked prefill on above 32k but not for MLA then)"),
    ("h200", "sglang"): ("h200-same-source", "sglang0.4.3-dpattn8", "0.4.3", 1, 8, SGL_DPA,
                         "lmsysorg/sglang (SGLang 0.4.3.post2), "
                         "'sglang.launch_server --tp 8 --enable-dp-attention'"),
}

# gpu, engine, concurrency, output tokens, completed, mean TTFT ms, mean TPOT ms
# (random dataset, input 3200, range ratio 1: fixed lengths; 500 prompts)
ROWS = [
    ("mi300x", "vllm", 128, 800, 500, 22245.64614, 109.0719536),
    ("mi300x", "vllm", 64, 800, 500, 12233.66578, 77.96798761),
    ("mi300x", "vllm", 32, 800, 500, 7110.186408, 61.93423014),
    ("mi300x", "vllm", 16, 800, 500, 4261.061847, 55.57127128),
    ("mi300x", "vllm", 8, 800, 500, 2231.22975, 50.87484791),
    ("mi300x", "vllm", 4, 800, 500, 1259.239487, 46.20285759),
    ("mi300x", "vllm", 128, 1600, 500, 22502.75001, 102.5909757),
    ("mi300x", "vllm", 128, 3200, 500, 22143.35855, 103.1311934),
    ("mi300x", "vllm", 128, 6400, 500, 28339.55226, 127.9427978),
    ("mi300x", "sglang", 4, 800, 500, 1644.592794, 34.93687731),
    ("mi300x", "sglang", 8, 800, 500, 2462.127757, 38.75499567),
    ("mi300x", "sglang", 16, 800, 500, 4186.809573, 47.0948801),
    ("mi300x", "sglang", 32, 800, 500, 7397.84833, 59.62448543),
    ("mi300x", "sglang", 64, 800, 500, 13925.27274, 84.94547977),
    ("mi300x", "sglang", 128, 800, 500, 27308.81256, 135.7318958),
    ("mi300x", "sglang", 128, 1600, 500, 27706.32235, 123.2047534),
    ("mi300x", "sglang", 128, 3200, 500, 27824.34941, 121.9050897),
    ("mi300x", "sglang", 128, 6400, 499, 35202.17118, 137.7621777),
    ("h200", "vllm", 128, 800, 500, 66811.62239, 71.85856239),
    ("h200", "vllm", 64, 800, 500, 14164.37107, 65.61773396),
    ("h200", "vllm", 32, 800, 500, 7650.775142, 51.66990612),
    ("h200", "vllm", 16, 800, 500, 3368.606197, 49.60112449),
    ("h200", "vllm", 8, 800, 500, 1765.745119, 31.28089729),
    ("h200", "vllm", 4, 800, 500, 975.6508477, 25.72997376),
    ("h200", "vllm", 128, 1600, 500, 116121.7992, 73.86396926),
    ("h200", "vllm", 128, 3200, 500, 250207.2416, 76.04368982),
    ("h200", "vllm", 128, 6400, 500, 1059605.396, 133.1230548),
    ("h200", "sglang", 128, 800, 500, 36230.47317, 110.7541571),
    ("h200", "sglang", 64, 800, 500, 20637.10398, 80.24293781),
    ("h200", "sglang", 32, 800, 500, 10992.45549, 63.63639162),
    ("h200", "sglang", 16, 800, 500, 7121.727302, 52.50769014),
    ("h200", "sglang", 8, 800, 500, 3673.555472, 43.81888046),
    ("h200", "sglang", 4, 800, 500, 3903.903552, 43.58305979),
    ("h200", "sglang", 128, 1600, 500, 35417.987, 100.4008092),
    ("h200", "sglang", 128, 3200, 500, 32593.70738, 96.69052681),
    ("h200", "sglang", 128, 6400, 500, 31927.771, 99.47912898),
]

GPU_ID = {"mi300x": "mi300x", "h200": "h200-sxm", "mi325x": "mi325x"}

# InferenceX (SemiAnalysisAI/InferenceX): its client is its copy of vLLM's
# benchmark_serving (benchmarks/benchmark_lib.sh run_benchmark_serving):
# --random-range-ratio 0.8 (the workflows' default, benchmark-tmpl.yml),
# 10 C prompts at --max-concurrency C after --num-warmups 2 C; lengths drawn
# uniformly from [floor(0.8 L), L].  The MI325X recipe
# (benchmarks/single_node/[fixed_seq_len/]dsr1_fp8_mi325x.sh, unchanged in
# these flags from 2026-01-22 to 2026-09-10): SGLANG_USE_AITER=1
# SGLANG_AITER_MLA_PERSIST=1, --tensor-parallel-size 8
# --mem-fraction-static 0.8 --cuda-graph-max-bs 128 --chunked-prefill-size
# 131072 --num-continuous-decode-steps 4 --max-prefill-tokens 131072
# --kv-cache-dtype fp8_e4m3 --attention-backend aiter --disable-radix-cache.
IX_SGL = dict(max_num_batched_tokens=131072, max_prefill_tokens=131072, block_size=1,
              enable_prefix_caching=False, mem_fraction_static=0.8, max_model_len=163840)
IX_SRC = {
    "0.5.9": ("SemiAnalysisAI/InferenceX issue 890 (2026-03-08), dsr1-fp8-mi325x-sglang, "
              "image lmsysorg/sglang:v0.5.9-rocm700-mi30x, runs 22811630847 (c4) and 22811631118 (c8)"),
    "0.5.19": ("SemiAnalysisAI/InferenceX pull request 3318 (2026-09-20), its baseline: the published "
               "2026-09-10 dsr1-fp8-mi325x-sglang points, image lmsysorg/sglang:v0.5.19-rocm700-mi30x "
               "(PR 2949's sweep)"),
}
# version, isl, osl, concurrency, mean TTFT ms, mean TPOT ms
IX_ROWS = [
    ("0.5.9", 1024, 1024, 4, 290.9, 24.03),
    ("0.5.9", 1024, 1024, 8, 418.1, 26.17),
    ("0.5.19", 8192, 1024, 4, 1025.49, 18.53),
    ("0.5.19", 8192, 1024, 8, 1026.66, 21.56),
    ("0.5.19", 8192, 1024, 16, 1163.49, 26.75),
    ("0.5.19", 8192, 1024, 32, 1363.26, 39.45),
    ("0.5.19", 8192, 1024, 64, 1917.85, 66.55),
]


def write_point(d, x):
    """Point x as d/experiment.json."""
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "experiment.json"), "w") as f:
        json.dump(x, f, indent=1)
        f.write("\n")


def ix_bench(isl, osl, conc, ttft, tpot):
    """The workload and measured means of an InferenceX point: its client's random
    isl/osl at range ratio 0.8, 10 x conc prompts after 2 x conc warm-up ones.
    The client gathers the warm-ups before the measured phase
    (utils/bench_serving/benchmark_serving.py at 843c6254f: `await
    asyncio.gather(*warmup_tasks)`, then the 10 C prompts at --request-rate inf
    under the --max-concurrency semaphore), so that phase starts from an idle
    server with C prompts at once: only it is simulated, 10 C requests from
    t = 0, all measured, as eval replays the same harness's eval/silicon rows
    (src/eval/experiment.c, AIC_WARMUP_PER_CLIENT; eval/silicon/HARNESS.md,
    "Two harnesses").  Until 2026-12-01 the points ran 12 C requests with the
    first 2 C as warm-up in the same closed loop: a steady state without the
    measured phase's opening burst of C prompts."""
    return {
        "workload": {
            "seed": 42,
            "harness": "vllm-bench",
            "arrival": {"process": "concurrency", "concurrency": conc},
            "num_requests": 10 * conc,
            "prompt_tokens": {"dist": "uniform", "min": int(0.8 * isl), "max": isl},
            "output_tokens": {"dist": "uniform", "min": int(0.8 * osl), "max": osl},
        },
        "measured": {
            "kind": "closed",
            "warmup_requests": 0,
            "ttft_ms": {"mean": ttft},
            "itl_ms": {"mean": tpot},
        },
    }


def ix_points(root):
    for ver, isl, osl, conc, ttft, tpot in IX_ROWS:
        name = "dsr1-mi325x-sglang%s-tp8-%dk%dk-c%d" % (ver, isl // 1024, osl // 1024, conc)
        engine = dict(name="sglang", version=ver)
        engine.update(IX_SGL)
        x = {
            "name": name,
            "source": "%s; DeepSeek-R1-0528 fp8 on 8x MI325X, TP 8 EP 1, random %d/%d, range ratio 0.8, "
                      "%d prompts at max-concurrency %d after %d warm-up requests" % (
                          IX_SRC[ver], isl, osl, 10 * conc, conc, 2 * conc),
            "workload_name": "%d/%d c%d" % (isl, osl, conc),
            "model": "deepseek-r1",
            "gpu": "mi325x",
            "tp": 8, "pp": 1, "dp": 1, "ep": 1,
            "dtype": "fp8",
            "kv_dtype": "fp8",
            "engine": engine,
        }
        x.update(ix_bench(isl, osl, conc, ttft, tpot))
        d = os.path.join(root, "mi325x", "sglang", name)
        write_point(d, x)


# Qwen3.5-397B-A17B MXFP4 on MI355X under SGLang 0.5.19 (InferenceX
# qwen3.5-fp4-mi355x-sglang): its recipe
# (benchmarks/single_node/fixed_seq_len/qwen3.5_fp4_mi355x.sh at 843c6254f,
# 2026-08-21, unchanged since 2026-07-16): SGLANG_USE_AITER=1
# SGLANG_USE_AITER_UNIFIED_ATTN=1 AITER_FLYDSL_FORCE=1
# SGLANG_MAMBA_SSM_DTYPE=bfloat16, --tensor-parallel-size TP
# --attention-backend aiter --mem-fraction-static 0.8 --disable-radix-cache
# --enable-aiter-allreduce-fusion --max-running-requests C --page-size 16;
# chunked prefill and KV cache dtype not set: SGLang's defaults, 16384 on a
# GPU over 160 GB (written out below) and auto = bf16.  Client as above
# (range ratio 0.8, 10 C prompts after 2 C warm-ups).
QW_SGL = dict(max_num_batched_tokens=16384, block_size=16, enable_prefix_caching=False, mem_fraction_static=0.8,
              max_model_len=262144)
QW_SRC = ("SemiAnalysisAI/InferenceX pull request 3311 (2026-09-20), its baseline: the published "
          "2026-09-14 qwen3.5-fp4-mi355x-sglang points, image "
          "lmsysorg/sglang-rocm:v0.5.19-rocm720-mi35x-20260913")
# tp, concurrency, mean TTFT ms, mean TPOT ms (8192/1024, EP 1)
QW_ROWS = [
    (2, 4, 343.27, 8.42),
    (2, 8, 513.18, 10.38),
    (2, 16, 571.66, 14.57),
    (2, 32, 719.09, 22.38),
    (2, 64, 1078.54, 33.16),
    (2, 128, 1773.84, 54.06),
    (4, 4, 273.61, 7.86),
    (4, 8, 424.11, 9.11),
    (4, 16, 490.04, 11.43),
]


def qwen_points(root):
    isl, osl = 8192, 1024
    for tp, conc, ttft, tpot in QW_ROWS:
        name = "qwen3.5-397b-mi355x-sglang0.5.19-tp%d-8k1k-c%d" % (tp, conc)
        engine = dict(name="sglang", version="0.5.19", max_num_seqs=conc)
        engine.update(QW_SGL)
        x = {
            "name": name,
            "source": "%s; Qwen3.5-397B-A17B MXFP4 (amd/Qwen3.5-397B-A17B-MXFP4) on %dx MI355X, TP %d EP 1, "
                      "random %d/%d, range ratio 0.8, %d prompts at max-concurrency %d after %d warm-up "
                      "requests" % (QW_SRC, tp, tp, isl, osl, 10 * conc, conc, 2 * conc),
            "workload_name": "%d/%d c%d" % (isl, osl, conc),
            "model": "qwen3.5-397b-a17b",
            "gpu": "mi355x",
            "tp": tp, "pp": 1, "dp": 1, "ep": 1,
            "dtype": "fp4",
            "engine": engine,
        }
        x.update(ix_bench(isl, osl, conc, ttft, tpot))
        d = os.path.join(root, "mi355x", "sglang", name)
        write_point(d, x)


# InferenceX's published DeepSeek-R1-0528 SGLang runs on MI300X, MI325X and
# MI355X (8 groups, 80 points): the public API's rows as SemiAnalysisAI/
# InferenceX-app captured them into packages/app/cypress/fixtures/api/
# benchmarks.json (`capture:fixtures`, GET /api/v1/benchmarks?model=
# DeepSeek-R1-0528 on inferencex.semianalysis.com; PR 318, cac6246e,
# 2026-05-05, and PR 458, 528c4146, 2026-06-14): mean_ttft and mean_tpot of
# the rows with framework sglang, spec_method none, disagg false, measured
# from 2026-01-21 (the client's warm-up phase, ix_bench).  Each date's image
# and recipe (SemiAnalysisAI/InferenceX, .github/configs/amd-master.yaml and
# benchmarks/single_node/[fixed_seq_len/]dsr1_fp{8,4}_mi3*x.sh on main at
# the run's date): PROVENANCE.md, source 4.
IXAPI_SRC = ("SemiAnalysisAI/InferenceX public API rows (benchmarks?model=DeepSeek-R1-0528), as captured in "
             "SemiAnalysisAI/InferenceX-app packages/app/cypress/fixtures/api/benchmarks.json (PR 318 cac6246e, "
             "PR 458 528c4146)")
# (gpu, precision, date) -> (SGLang version, image, Actions run, recipe flags)
# MI300X / MI325X fp8 (dsr1_fp8_mi300x.sh, dsr1_fp8_mi325x.sh at f267602ff
# and f3dbc40c9): SGLANG_USE_AITER=1 SGLANG_AITER_MLA_PERSIST=1,
# --chunked-prefill-size 131072 --max-prefill-tokens 131072
# --mem-fraction-static 0.8 --kv-cache-dtype fp8_e4m3 --attention-backend
# aiter --disable-radix-cache (IX_SGL).  MI355X fp8 (dsr1_fp8_mi355x.sh from
# 9d39c92ee, PR 865, 2026-03-05): --chunked-prefill-size 196608
# --max-prefill-tokens 196608, fp8 KV, the rest as above.  MI355X fp4
# (dsr1_fp4_mi355x.sh at f267602ff and 263aace86): amd/DeepSeek-R1-0528-
# MXFP4-Preview, --chunked-prefill-size and --max-prefill-tokens 196608, 32768
# at 8192/1024 above 32 clients, fp8 KV.
IX355_SGL = dict(IX_SGL, max_num_batched_tokens=196608, max_prefill_tokens=196608)
IXAPI_DEP = {
    ("mi300x", "fp8", "2026-02-27"): ("0.5.9", "lmsysorg/sglang:v0.5.9-rocm700-mi30x", 22469096331, IX_SGL),
    ("mi300x", "fp8", "2026-05-18"): ("0.5.12", "lmsysorg/sglang:v0.5.12-rocm700-mi30x", 26008678094, IX_SGL),
    ("mi325x", "fp8", "2026-02-27"): ("0.5.9", "lmsysorg/sglang:v0.5.9-rocm700-mi30x", 22469096331, IX_SGL),
    ("mi325x", "fp8", "2026-05-18"): ("0.5.12", "lmsysorg/sglang:v0.5.12-rocm700-mi30x", 26008679544, IX_SGL),
    ("mi355x", "fp8", "2026-03-05"): ("0.5.9", "lmsysorg/sglang:v0.5.9-rocm700-mi35x", 22725876766, IX355_SGL),
    ("mi355x", "fp8", "2026-05-03"): ("0.5.9", "lmsysorg/sglang:v0.5.9-rocm700-mi35x", 25281476062, IX355_SGL),
    ("mi355x", "fp8", "2026-05-27"): ("0.5.12", "lmsysorg/sglang:v0.5.12-rocm700-mi35x", 26486957776, IX355_SGL),
    ("mi355x", "fp4", "2026-02-27"): ("0.5.9", "lmsysorg/sglang:v0.5.9-rocm700-mi35x", 22469096331, IX355_SGL),
    ("mi355x", "fp4", "2026-06-11"): ("0.5.12", "lmsysorg/sglang:v0.5.12-rocm700-mi35x", 27213443242, IX355_SGL),
}
# gpu, precision, date, tp, isl, osl, concurrency, mean TTFT ms, mean TPOT ms
# (EP 1, no attention DP, every row)
IXAPI_ROWS = [
    ("mi300x", "fp8", "2026-02-27", 8, 1024, 1024, 4, 437.09, 24.648),
    ("mi300x", "fp8", "2026-02-27", 8, 1024, 1024, 8, 628.72, 26.336),
    ("mi300x", "fp8", "2026-02-27", 8, 1024, 1024, 16, 476.9, 30.944),
    ("mi300x", "fp8", "2026-02-27", 8, 1024, 1024, 32, 722.49, 41.242),
    ("mi300x", "fp8", "2026-02-27", 8, 1024, 1024, 64, 907.71, 51.251),
    ("mi300x", "fp8", "2026-02-27", 8, 1024, 8192, 4, 591.81, 25.144),
    ("mi300x", "fp8", "2026-02-27", 8, 1024, 8192, 8, 622.08, 27.533),
    ("mi300x", "fp8", "2026-02-27", 8, 1024, 8192, 16, 469.98, 30.985),
    ("mi300x", "fp8", "2026-02-27", 8, 1024, 8192, 32, 500.14, 42.119),
    ("mi300x", "fp8", "2026-02-27", 8, 1024, 8192, 64, 890.29, 52.798),
    ("mi300x", "fp8", "2026-02-27", 8, 8192, 1024, 4, 1334.81, 28.771),
    ("mi300x", "fp8", "2026-02-27", 8, 8192, 1024, 8, 1269.83, 37.007),
    ("mi300x", "fp8", "2026-02-27", 8, 8192, 1024, 16, 1534.62, 40.26),
    ("mi300x", "fp8", "2026-02-27", 8, 8192, 1024, 32, 1986.71, 54.751),
    ("mi300x", "fp8", "2026-02-27", 8, 8192, 1024, 64, 2834.1, 86.596),
    ("mi300x", "fp8", "2026-05-18", 8, 1024, 1024, 4, 449.55, 14.862),
    ("mi300x", "fp8", "2026-05-18", 8, 1024, 1024, 8, 428.19, 17.423),
    ("mi300x", "fp8", "2026-05-18", 8, 1024, 1024, 16, 617.5, 21.011),
    ("mi300x", "fp8", "2026-05-18", 8, 1024, 1024, 32, 545.68, 28.371),
    ("mi300x", "fp8", "2026-05-18", 8, 1024, 1024, 64, 655.21, 40.853),
    ("mi300x", "fp8", "2026-05-18", 8, 8192, 1024, 4, 1441.16, 19.408),
    ("mi300x", "fp8", "2026-05-18", 8, 8192, 1024, 8, 1411.27, 23.151),
    ("mi300x", "fp8", "2026-05-18", 8, 8192, 1024, 16, 1499.09, 29.853),
    ("mi300x", "fp8", "2026-05-18", 8, 8192, 1024, 32, 1705.3, 45.736),
    ("mi300x", "fp8", "2026-05-18", 8, 8192, 1024, 64, 2481.95, 77.054),
    ("mi325x", "fp8", "2026-02-27", 8, 1024, 1024, 4, 317.42, 24.079),
    ("mi325x", "fp8", "2026-02-27", 8, 1024, 1024, 8, 402.34, 26.052),
    ("mi325x", "fp8", "2026-02-27", 8, 1024, 1024, 16, 424.86, 29.567),
    ("mi325x", "fp8", "2026-02-27", 8, 1024, 1024, 32, 401.34, 34.574),
    ("mi325x", "fp8", "2026-02-27", 8, 1024, 1024, 64, 593.75, 44.725),
    ("mi325x", "fp8", "2026-02-27", 8, 1024, 8192, 4, 297.05, 25.384),
    ("mi325x", "fp8", "2026-02-27", 8, 1024, 8192, 8, 425.34, 26.957),
    ("mi325x", "fp8", "2026-02-27", 8, 1024, 8192, 16, 429.37, 30.231),
    ("mi325x", "fp8", "2026-02-27", 8, 1024, 8192, 32, 479.64, 35.965),
    ("mi325x", "fp8", "2026-02-27", 8, 1024, 8192, 64, 630.91, 48.031),
    ("mi325x", "fp8", "2026-02-27", 8, 8192, 1024, 4, 967.53, 28.298),
    ("mi325x", "fp8", "2026-02-27", 8, 8192, 1024, 8, 1038.54, 31.253),
    ("mi325x", "fp8", "2026-02-27", 8, 8192, 1024, 16, 1127.4, 37.274),
    ("mi325x", "fp8", "2026-02-27", 8, 8192, 1024, 32, 1540.72, 49.148),
    ("mi325x", "fp8", "2026-02-27", 8, 8192, 1024, 64, 2212.84, 75.637),
    ("mi325x", "fp8", "2026-05-18", 8, 1024, 1024, 4, 388.96, 14.335),
    ("mi325x", "fp8", "2026-05-18", 8, 1024, 1024, 8, 380.25, 16.409),
    ("mi325x", "fp8", "2026-05-18", 8, 8192, 1024, 4, 1050.73, 18.421),
    ("mi325x", "fp8", "2026-05-18", 8, 8192, 1024, 8, 922.07, 22.076),
    ("mi355x", "fp4", "2026-02-27", 4, 1024, 1024, 4, 147.74, 10.645),
    ("mi355x", "fp4", "2026-02-27", 4, 1024, 1024, 8, 211.74, 12.309),
    ("mi355x", "fp4", "2026-02-27", 8, 1024, 1024, 16, 215.96, 11.861),
    ("mi355x", "fp4", "2026-02-27", 8, 1024, 1024, 32, 272.31, 14.712),
    ("mi355x", "fp4", "2026-02-27", 8, 1024, 1024, 64, 373.98, 19.538),
    ("mi355x", "fp4", "2026-02-27", 8, 1024, 8192, 16, 214.79, 11.7),
    ("mi355x", "fp4", "2026-02-27", 8, 1024, 8192, 32, 247.05, 14.248),
    ("mi355x", "fp4", "2026-02-27", 8, 1024, 8192, 64, 344.33, 18.109),
    ("mi355x", "fp4", "2026-02-27", 8, 8192, 1024, 16, 706.27, 16.203),
    ("mi355x", "fp4", "2026-02-27", 8, 8192, 1024, 32, 1083.87, 22.812),
    ("mi355x", "fp4", "2026-02-27", 8, 8192, 1024, 64, 1187.5, 35.093),
    ("mi355x", "fp4", "2026-06-11", 4, 1024, 1024, 4, 172.63, 9.619),
    ("mi355x", "fp4", "2026-06-11", 8, 1024, 1024, 8, 148.46, 10.245),
    ("mi355x", "fp4", "2026-06-11", 8, 1024, 1024, 16, 192.36, 11.148),
    ("mi355x", "fp4", "2026-06-11", 4, 8192, 1024, 4, 323.33, 10.498),
    ("mi355x", "fp4", "2026-06-11", 8, 8192, 1024, 8, 307.18, 10.78),
    ("mi355x", "fp4", "2026-06-11", 8, 8192, 1024, 16, 386.19, 13.901),
    ("mi355x", "fp8", "2026-03-05", 8, 1024, 8192, 4, 469.47, 9.386),
    ("mi355x", "fp8", "2026-03-05", 8, 1024, 8192, 8, 481.76, 10.473),
    ("mi355x", "fp8", "2026-03-05", 8, 1024, 8192, 16, 495.29, 13.039),
    ("mi355x", "fp8", "2026-03-05", 8, 1024, 8192, 32, 531.77, 17.245),
    ("mi355x", "fp8", "2026-03-05", 8, 1024, 8192, 64, 624.39, 21.633),
    ("mi355x", "fp8", "2026-05-03", 8, 1024, 1024, 4, 568.03, 9.817),
    ("mi355x", "fp8", "2026-05-03", 8, 1024, 1024, 8, 299.86, 10.902),
    ("mi355x", "fp8", "2026-05-03", 8, 1024, 1024, 16, 328.18, 13.748),
    ("mi355x", "fp8", "2026-05-03", 8, 1024, 1024, 32, 606.13, 19.563),
    ("mi355x", "fp8", "2026-05-03", 8, 1024, 1024, 64, 692.92, 25.182),
    ("mi355x", "fp8", "2026-05-03", 4, 8192, 1024, 64, 3006.59, 64.094),
    ("mi355x", "fp8", "2026-05-03", 8, 8192, 1024, 4, 1168.5, 12.317),
    ("mi355x", "fp8", "2026-05-03", 8, 8192, 1024, 16, 1219.88, 18.568),
    ("mi355x", "fp8", "2026-05-03", 8, 8192, 1024, 32, 1541.89, 27.786),
    ("mi355x", "fp8", "2026-05-03", 8, 8192, 1024, 64, 2113.31, 41.764),
    ("mi355x", "fp8", "2026-05-27", 8, 1024, 1024, 4, 351.53, 10.143),
    ("mi355x", "fp8", "2026-05-27", 8, 1024, 1024, 8, 339.96, 11.459),
    ("mi355x", "fp8", "2026-05-27", 8, 8192, 1024, 4, 999.75, 12.369),
    ("mi355x", "fp8", "2026-05-27", 8, 8192, 1024, 32, 1398.51, 26.43),
]


def ixapi_points(root):
    for gpu, prec, date, tp, isl, osl, conc, ttft, tpot in IXAPI_ROWS:
        ver, image, run, eo = IXAPI_DEP[(gpu, prec, date)]
        group = "%s-dsr1-%s-sglang%s" % (gpu, prec, ver)
        name = "dsr1-%s-%s-sglang%s-tp%d-%dk%dk-c%d-%s" % (prec, gpu, ver, tp, isl // 1024, osl // 1024, conc,
                                                          date.replace("-", ""))
        engine = dict(name="sglang", version=ver)
        engine.update(eo)
        if prec == "fp4" and isl == 8192 and osl == 1024 and conc > 32:
            engine.update(max_num_batched_tokens=32768, max_prefill_tokens=32768)
        ckpt = "amd/DeepSeek-R1-0528-MXFP4-Preview" if prec == "fp4" else "deepseek-ai/DeepSeek-R1-0528"
        x = {
            "name": name,
            "source": "%s; %s, run %d, image %s; %s on %dx %s, TP %d EP 1, random %d/%d, range ratio 0.8, "
                      "%d prompts at max-concurrency %d after %d warm-up requests" % (
                          IXAPI_SRC, date, run, image, ckpt, tp, gpu.upper(), tp, isl, osl, 10 * conc, conc,
                          2 * conc),
            "workload_name": "%d/%d c%d" % (isl, osl, conc),
            "model": "deepseek-r1",
            "gpu": gpu,
            "tp": tp, "pp": 1, "dp": 1, "ep": 1,
            "dtype": prec,
            "kv_dtype": "fp8",
            "engine": engine,
        }
        if prec == "fp4":
            # priced as stored: the checkpoint's Quark config (attention, routers and lm_head bf16;
            # data/models/deepseek-r1-0528-mxfp4-preview.json), as eval/silicon's fp4 rows name theirs
            x["checkpoint"] = ckpt
        x.update(ix_bench(isl, osl, conc, ttft, tpot))
        write_point(os.path.join(root, "inferencex", group, name), x)


def main():
    root = os.path.dirname(os.path.abspath(__file__))
    for gpu, eng, conc, osl, done, ttft, tpot in ROWS:
        folder, tag, ver, tp, dp, eo, serve = DEP[(gpu, eng)]
        name = "dsr1-%s-%s-3k%s-c%d" % (gpu, tag, "%gk" % (osl / 1000.0) if osl % 1000 == 0 else "%d" % osl, conc)
        name = name.replace("3k0.8k", "3k800").replace("3k1.6k", "3k1600")
        engine = dict(name=eng, version=ver)
        engine.update(eo)
        x = {
            "name": name,
            "source": "%s; %s on 8x %s; bench_serving.py --dataset-name random --random-input 3200 "
                      "--random-output %d --random-range-ratio 1 --num-prompts 500 --max-concurrency %d "
                      "(%d completed)" % (SRC, serve, gpu.upper(), osl, conc, done),
            "workload_name": "3200/%d c%d" % (osl, conc),
            "model": "deepseek-r1",
            "gpu": GPU_ID[gpu],
            "tp": tp, "pp": 1, "dp": dp, "ep": 1,
            "dtype": "fp8",
            "engine": engine,
            "workload": {
                "seed": 42,
                "arrival": {"process": "concurrency", "concurrency": conc},
                "num_requests": 500,
                "prompt_tokens": 3200,
                "output_tokens": osl,
            },
            "measured": {
                "kind": "closed",
                "warmup_requests": 0,
                "ttft_ms": {"mean": round(ttft, 2)},
                "itl_ms": {"mean": round(tpot, 2)},
            },
        }
        d = os.path.join(root, folder, eng, name)
        write_point(d, x)
    ix_points(root)
    qwen_points(root)
    ixapi_points(root)


if __name__ == "__main__":
    main()
