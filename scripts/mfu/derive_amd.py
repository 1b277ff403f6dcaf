#!/usr/bin/env python3
"""Derive servesim's AMD Instinct kernel tables from the measured ROCm/aiter
and InferenceX tuning tables.

usage: python3 scripts/mfu/derive_amd.py AMD_DIR H100_MOE OUT_DIR
       python3 scripts/mfu/derive_amd.py --test   (its MoE copy, carry and untuned rules on made-up rows)
  AMD_DIR  = ../shared/data/mfu/amd (aiter_tuned_gemm.csv.gz,
             aiter_tuned_fused_moe.csv.gz, inferencex_kimik3_bf16_gemm_gfx950.csv.gz;
             commits and licences in its PROVENANCE.md)
  H100_MOE = data/mfu/h100_sxm/sglang-0.5.14/moe.csv.gz (the routing-imbalance
             ratios only, as derive_infersim.py takes them)
  OUT_DIR  = data/mfu
Writes OUT_DIR/{mi300x,mi355x}/aiter-e404860/{gemm,moe,allreduce,attn_prefill}.csv.gz and
OUT_DIR/mi300x/aiter-e404860/mla_decode.csv.gz.

What the sources are: every row of aiter's tuned tables is the winning kernel
of an autotuning sweep for one shape, timed on the part (gfx942 with 304 CUs =
MI300X/MI325X, one die; gfx950 with 256 CUs = MI350X/MI355X).  Both ROCm
engines (vLLM and SGLang) dispatch these kernels (aiter is the kernel library
both call on Instinct GPUs), so one collection serves both.

GEMM (dtype,m,n,k,latency_us):
  bf16      aiter bf16 tables + InferenceX's gfx950 Kimi-K3 bf16 table (MI355X;
            MI300X has no unbatched bf16 rows: it keeps the default MFU)
  fp8       aiter a8w8 block-scale (1x128 / 128x128, DeepSeek-style) and
            per-token fp8 tables (e4m3fnuz on MI300X), the faster per shape as
            derive.py does for the NVIDIA fp8 / fp8_block rows; int8 rows left out
  fp4       aiter a4w4 MXFP4 (1x32 e8m0 scales), MI355X only
  Rows with err_ratio > 0.05 (the winner failed the tuner's accuracy check)
  and batched GEMMs are left out; m is kept on derive.GEMM_M (the grid the
  NVIDIA tables use), n, k >= 128; the fastest row per key.
MoE (dtype,hidden,inter,topk,experts,moe_tp,moe_ep,distribution,tokens,latency_us):
  aiter fused-MoE us_total (both stages).  A tuned row is one GPU's MoE call
  as the tuner ran it: `expert` experts of width `inter_dim`, top-`topk`
  routing, so it is written as that shape (moe_tp = moe_ep = 1): servesim's
  lookup compares per-GPU width, local and global expert counts, and a TP- or
  EP-sharded target takes the nearest such curve by efficiency.  Rows tuned
  with the shared expert fused in (257 experts, top-9 for DeepSeek) keep those
  counts.  Formats: bf16 x bf16 -> bf16; fp8 x fp8 per_1x128 -> fp8_block,
  per_Token/per_Tensor -> fp8; fp4 x fp4 (MXFP4, per_1x32) -> fp4 (both
  operands fp4 on the fp4 peak, as NVFP4); bf16 x fp4 -> mxfp4 (weight-only);
  bf16 x int4 -> int4.  fp8 x fp4 and MXFP8 rows have no servesim format and
  are left out, as are Gelu and SiTUv2 activations (the models servesim knows
  use SiLU/SwiGLU).  aiter's tuner routes random scores (about balanced):
  those rows are 'balanced'; power-law rows are balanced x the power-law /
  balanced latency ratio of the H100's SGLang fp8_block kernels at the same
  rows per expert (derive_infersim.py's imbalance_ratios), the routing's
  effect, not an NVIDIA efficiency.
  Untuned shapes (MOE_UNTUNED, moe_untuned): a shape an engine runs with no
  tuned row on that GPU (DeepSeek's TP-8 7168 x 256 / 257 top 9 fp8 on
  gfx942) runs aiter's untuned default (aiter/fused_moe.py `cfg is None`:
  one-stage asm at block_m 32 above 32 tokens, CK two-stage at block_m 16
  at or below): derived rows for it from the nearest tuned shape with the
  same experts, topk and inter_dim on that GPU (GLM-5's 6144 x 256), its
  32-row one-stage rows as measured, its 64-row buckets carried from its
  largest 32-row row by 32-row tile count, both x the model_dim ratio; the
  header names each derived run's kernel and source.  Tuned shapes keep
  their own rows.
All-reduce (mi300x only): mk1-project/quickreduce (MIT) README at commit
  910e892250b6a1769e0ea771a680d30f9cebf471, "All-Reduce Latency across
  {2,4,8}xMI300X" (ROCm 6.2, RCCL 2.20.5, 8xMI300X on TensorWave), fp16
  messages of 32 KB to 64 MB: the faster of RCCL and QR-FP16 (uncompressed
  two-shot) per size, as an engine's custom all-reduce takes small messages
  and RCCL the large; the compressed codecs (FP8, Q8, Q6, Q4) are opt-in
  (vLLM VLLM_ROCM_QUICK_REDUCE_QUANTIZATION, default NONE) and left out.
  message_elems = bytes / 2.
All-reduce (mi355x, derived): no public MI355X all-reduce timing was found.
  MI355X boards are the same fully connected xGMI mesh (7 links per GPU, one
  to each peer) running the same collectives (RCCL, the engines' custom
  all-reduce), with 76.8 GB/s links instead of 64: each MI300X row's time
  above its group size's floor (its smallest message, the latency part) is
  scaled by 64/76.8, the floor kept.  The ring model this replaces priced
  MI300X's own 64 MB all-reduce over 8 GPUs at 197 us against the measured
  426 us, and its 1 MB one at 13 us against the measured 20 us.
MLA decode (mi300x only): the AITER MLA decode kernel's measured latency on
  MI300X from AMD's ROCm AI developer hub tutorial "MLA decoding kernel of the
  AITER library" (github.com/ROCm/gpuaidev commit 2d217d5f, notebook
  docs/notebooks/gpu_dev_optimize/aiter_mla_decode_kernel.ipynb, figure
  docs/notebooks/assets/aiter-performance-comparison.png): batch 128, 128
  query heads, bf16 latent KV (576) , context 1024-8192: 0.68, 0.81, 1.05,
  1.18, 1.43 ms, read off the figure's bar labels.  Written as derive.py writes
  MLA decode rows (head_dim MFU_MLA_DECODE_DIM, kv_heads 1).
Prefill attention (attn_prefill, both GPUs): ROCm/aiter's own measurement of
  its assembly flash-attention forward kernels, op_tests/cpp/mha/README.md at
  the commit above ("the asm kernel performance of the attention forwards",
  added by aiter PR 1270, commit a83421bee6, 2025-10-31): BF16, BSHD, batch
  mode, head dim 128, FWD TFLOPS on MI300X and MI355X for batch 1/4/8, 32 or
  64 query heads over 8 or 4 KV heads, seqlen_q = seqlen_kv = 1k-16k.  The
  causal rows only (a prefill is causal), as context attention without a
  cached prefix (derive.py's attn_prefill rows): latency = the benchmark's
  FLOPs / TFLOPS, its count (op_tests/cpp/mha/benchmark_mha_fwd.cpp)
  4 x heads x seqlen_q x seqlen_kv x head_dim, halved under a causal mask.
"""
import csv, gzip, math, os, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from aic import write  # noqa: E402
from derive import GEMM_M, MLA_DECODE_DIM  # noqa: E402
from derive_infersim import imbalance_ratios, ratio_at  # noqa: E402

AITER = 'e4048607a535ace3a2b51ded31b1c8c2d45c0879'
INFX = '910aa890188e1c20193f629bc1ecdb26e10cbff2'
COLL = 'aiter-' + AITER[:7]
GPU = {'MI300X|MI325X': 'mi300x', 'MI350X|MI355X': 'mi355x'}
ERR_MAX = 0.05
QR = '910e892250b6a1769e0ea771a680d30f9cebf471'
# (GPUs, size in KiB): (RCCL us, QR-FP16 us), quickreduce README tables
AR_SIZES_KIB = [32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536]
AR_US = {
    2: [(17.15, 8.47), (17.52, 8.98), (18.31, 10.31), (20.73, 12.70), (25.97, 18.31), (37.22, 28.78),
        (59.14, 49.83), (105.1, 95.29), (195.2, 191.13), (376.3, 377.52), (739.0, 737.50), (1464.3, 1463.51)],
    4: [(18.17, 10.59), (18.23, 11.02), (29.42, 11.95), (29.98, 12.90), (32.27, 15.60), (39.40, 21.92),
        (48.87, 35.60), (70.61, 66.23), (115.7, 132.53), (205.4, 239.45), (388.6, 444.78), (761.2, 831.42)],
    8: [(16.22, 14.81), (20.00, 15.41), (22.56, 16.15), (18.01, 16.36), (24.19, 17.26), (26.39, 20.01),
        (34.05, 27.90), (52.13, 46.84), (83.12, 90.34), (148.4, 147.05), (240.4, 257.34), (426.0, 463.72)],
}
# GB/s per xGMI link each way (docs/hardware.md, data/PROVENANCE.md gpus.json)
LINK_GBPS = {'mi300x': 64.0, 'mi355x': 76.8}
MLA_ROWS = [(1024, 680.0), (2048, 810.0), (4096, 1050.0), (6144, 1180.0), (8192, 1430.0)]
# aiter op_tests/cpp/mha/README.md, causal FWD rows: (batch, q heads, kv heads,
# seqlen, MI300X TFLOPS, MI355X TFLOPS), head dim 128, BF16
FA_HDIM = 128
FA_CAUSAL = [
    (1, 32, 8, 1024, 130.62, 233.12),
    (1, 32, 8, 2048, 255.105, 577.28),
    (1, 32, 8, 4096, 467.805, 949.325),
    (1, 32, 8, 8192, 522.68, 1247.73),
    (1, 32, 8, 10240, 440.12, 1200.645),
    (4, 32, 8, 1024, 334.005, 720.995),
    (4, 32, 8, 2048, 419.435, 809.835),
    (4, 32, 8, 4096, 486.73, 1130.115),
    (4, 32, 8, 8192, 547.09, 1318.92),
    (4, 32, 8, 10240, 527.705, 1342.995),
    (8, 32, 8, 1024, 311.385, 623.93),
    (8, 32, 8, 2048, 412.99, 894.45),
    (8, 32, 8, 4096, 513.1, 1166.875),
    (8, 32, 8, 8192, 537.36, 1316.805),
    (8, 32, 8, 10240, 556.045, 1334.865),
    (1, 64, 8, 1024, 228.54, 432.565),
    (1, 64, 8, 2048, 392.425, 936.435),
    (1, 64, 8, 4096, 474.385, 1046.085),
    (1, 64, 8, 8192, 518.29, 1300.105),
    (1, 64, 8, 10240, 510.895, 1338.005),
    (4, 64, 8, 1024, 326.51, 638.705),
    (4, 64, 8, 2048, 425.735, 899.845),
    (4, 64, 8, 4096, 513.79, 1174.92),
    (4, 64, 8, 8192, 540.515, 1319.225),
    (4, 64, 8, 10240, 557.475, 1337.965),
    (8, 64, 8, 1024, 321.865, 626.57),
    (8, 64, 8, 2048, 452.03, 963.165),
    (8, 64, 8, 4096, 509.255, 1190.295),
    (8, 64, 8, 8192, 550.67, 1311.955),
    (8, 64, 8, 10240, 547.05, 1313.695),
    (1, 64, 4, 1024, 229.09, 421.615),
    (1, 64, 4, 2048, 407.525, 949.635),
    (1, 64, 4, 4096, 476.26, 1058.9),
    (1, 64, 4, 8192, 519.32, 1318.15),
    (1, 64, 4, 10240, 515.275, 1348.155),
    (4, 64, 4, 1024, 314.82, 661.045),
    (4, 64, 4, 2048, 426.77, 896.095),
    (4, 64, 4, 4096, 524.585, 1182.87),
    (4, 64, 4, 8192, 540.935, 1324.275),
    (4, 64, 4, 10240, 560.63, 1346.46),
    (8, 64, 4, 1024, 348.76, 663.48),
    (8, 64, 4, 2048, 461.89, 983.355),
    (8, 64, 4, 4096, 513.795, 1196.675),
    (8, 64, 4, 8192, 552.78, 1318.92),
    (8, 64, 4, 10240, 548.65, 1313.945),
    (1, 64, 8, 16384, 541.55, 1392.485),
    (1, 64, 4, 16384, 544.1, 1398.14),
]
FA_COL = {'mi300x': 4, 'mi355x': 5}


def attn_prefill_rows(gpu):
    """(heads, kv_heads, head_dim, kv_dtype, batch, isl, latency_us) from the
    causal FWD TFLOPS: aiter's benchmark counts 4 x heads x s x s x d FLOPs
    per sequence, halved under a causal mask."""
    out = []
    for r in FA_CAUSAL:
        b, h, kvh, sl = r[:4]
        flop = 4.0 * b * h * sl * sl * FA_HDIM / 2
        out.append((h, kvh, FA_HDIM, 'bf16', b, sl, '%.6g' % (flop / (r[FA_COL[gpu]] * 1e12) * 1e6)))
    return sorted(out)


def rows(path):
    with gzip.open(path, 'rt') as f:
        yield from csv.DictReader(f)


def gemm_dtype(r):
    s = r['scheme']
    if r.get('B'):
        return None  # batched GEMM
    if s.startswith('bf16'):
        return 'bf16'
    if s.startswith('a4w4_blockscale'):
        return 'fp4'
    if s.startswith('a8w8') and r.get('q_dtype_w') != 'int8':
        return 'fp8'
    return None


def keep(best, gpu, dt, r):
    m, n, k, us = int(r['M']), int(r['N']), int(r['K']), float(r['us'])
    err = float(r['err_ratio'] or 0)
    if m not in GEMM_M or n < 128 or k < 128 or not us > 0 or err > ERR_MAX:
        return
    key = (dt, m, n, k)
    t = best.setdefault(gpu, {})
    if key not in t or us < t[key]:
        t[key] = us


def gemm_tables(d):
    best = {}
    for r in rows(os.path.join(d, 'aiter_tuned_gemm.csv.gz')):
        gpu, dt = GPU.get(r['gpu']), gemm_dtype(r)
        if gpu and dt:
            keep(best, gpu, dt, r)
    for r in rows(os.path.join(d, 'inferencex_kimik3_bf16_gemm_gfx950.csv.gz')):
        if r['gpu'] in GPU and r['dtype'] == 'bfloat16':
            keep(best, GPU[r['gpu']], 'bf16', r)
    return best


def moe_format(r):
    a, w, q = r['q_dtype_a'], r['q_dtype_w'], r['q_type']
    if r['act_type'] not in ('Silu', 'Swiglu'):
        return None
    if a == 'bfloat16' and w == 'bfloat16':
        return 'bf16'
    if a.startswith('float8') and w.startswith('float8'):
        return {'per_1x128': 'fp8_block', 'per_Token': 'fp8', 'per_Tensor': 'fp8'}.get(q)
    if a.startswith('float4') and w.startswith('float4'):
        return 'fp4'
    if a == 'bfloat16' and w.startswith('float4'):
        return 'mxfp4'
    if a == 'bfloat16' and w == 'int4':
        return 'int4'
    return None


MOE_SHAPE = ('source_file', 'gpu', 'model_dim', 'inter_dim', 'expert', 'topk', 'act_type', 'dtype', 'q_dtype_a',
             'q_dtype_w', 'q_type', 'use_g1u1', 'doweight_stage1')


def moe_own_flops(r, us, tflops):
    """True when the row's tflops is its own token count's FLOPs over its
    us_total (within 2 %): aiter's tuner writes tflops = token x topk x 6 x
    model_dim x inter_dim / us (topk - 1 on some shared-expert-fused rows)."""
    tok, h, i, k = (int(r[c]) for c in ('token', 'model_dim', 'inter_dim', 'topk'))
    return any(kk > 0 and abs(tok * kk * 6.0 * h * i / (us * 1e-6) / 1e12 / tflops - 1) < 0.02 for kk in (k, k - 1))


def moe_copies(all_rows):
    """Ids of tuned rows that repeat another token bucket's measurement.
    Within one shape of one tuned file, two or more token buckets with the
    same us_total and the same tflops are one timing written into several
    buckets (aiter a8w8_blockscale_tuned_fmoe_ds_v3.csv at e4048607: DeepSeek's
    TP-8 shape on gfx950 holds us_total 359.4797, tflops 250.9 at every bucket
    from 1,024 to 32,768 tokens, which at 32,768 tokens would be ~180 % of the
    MI355X's fp8 peak, and 77.4907 us, tflops 10.23 at 1-8 tokens): the bucket
    whose own FLOPs reproduce the tflops is the measured one and is kept; the
    others are dropped, and all of them when none matches.  The fused-MoE
    curve then carries its efficiency from the kept points and neighbours."""
    runs = {}
    for n, r in enumerate(all_rows):
        runs.setdefault(tuple(r[c] for c in MOE_SHAPE) + (r['us_total'], r['tflops']), []).append(n)
    drop = set()
    for key, ids in runs.items():
        if len(ids) < 2:
            continue
        try:
            us, tf = float(key[-2]), float(key[-1])
        except ValueError:
            continue
        own = [n for n in ids if us > 0 and tf > 0 and moe_own_flops(all_rows[n], us, tf)]
        drop.update(n for n in ids if n not in own[:1])
    return drop


def moe_tiles(tok, k, ex, bm):
    """Expected count of bm-row tiles over ex experts when tok tokens each
    pick k of them at random (the tuner's routing): ex x E[ceil(X / bm)],
    X ~ Binomial(tok, k / ex), from E[ceil(X / bm)] = sum_j P(X > j bm)."""
    p = min(1.0, k / ex)
    if p >= 1.0:
        return ex * math.ceil(tok / bm)
    lp, lq = math.log(p), math.log1p(-p)
    pmf = [math.exp(math.lgamma(tok + 1) - math.lgamma(x + 1) - math.lgamma(tok - x + 1) + x * lp + (tok - x) * lq)
           for x in range(tok + 1)]
    above, acc = [], 0.0
    for x in range(tok, -1, -1):          # above[x] = P(X > x)
        above.append(acc)
        acc += pmf[x]
    above.reverse()
    return ex * sum(above[j * bm] for j in range(tok // bm + 1))


def moe_carried(all_rows, drop):
    """{row id: us} for copied buckets above their run's measured bucket
    whose tuned config names the measured bucket's kernel tile (same block_m,
    one-stage): aiter runs that kernel at those token counts (its fused_moe
    looks the config up by the padded token bucket, get_padded_M), but timed
    it at the measured bucket only.  Its time there is carried by the count
    of block_m-row tiles the kernel works through (moe_tiles): DeepSeek's
    TP-8 fp8 shape on gfx950 runs the one-stage 32 x 256 asm kernel at every
    bucket from 1,024 tokens (aiter v0.1.10.post3 to e4048607), which the
    curve of another shape (GLM's, whose tuner picked a 64 x 256 kernel from
    2,048 tokens) priced before.  Derived, not measured: the header says so."""
    runs = {}
    for n, r in enumerate(all_rows):
        runs.setdefault(tuple(r[c] for c in MOE_SHAPE) + (r['us_total'], r['tflops']), []).append(n)
    out = {}
    for ids in runs.values():
        kept = [n for n in ids if n not in drop]
        if len(ids) < 2 or len(kept) != 1:
            continue
        m = all_rows[kept[0]]
        if m.get('run_1stage') != '1':
            continue
        k, ex, bm, t0 = (int(m[c]) for c in ('topk', 'expert', 'block_m', 'token'))
        for n in ids:
            r = all_rows[n]
            if n in drop and int(r['token']) > t0 and r.get('run_1stage') == '1' and r.get('block_m') == m['block_m']:
                out[n] = float(m['us_total']) * moe_tiles(int(r['token']), k, ex, bm) / moe_tiles(t0, k, ex, bm)
    return out


# Fused-MoE shapes an engine runs untuned on a GPU (aiter has no tuned row
# for them there): (aiter gpu, format, model_dim, inter_dim, experts, topk).
# DeepSeek-V3/R1 at TP 8 with the shared expert fused (7168 x 256, 257
# experts top 9, per-1x128 fp8) on gfx942 (MI300X / MI325X): no tuned row in
# any aiter from v0.1.10.post3 (SGLang 0.5.9's ROCm image) to e4048607, its
# gfx942 rows being EP 8's 7168 x 2048 / 33.
MOE_UNTUNED = [('MI300X|MI325X', 'fp8_block', 7168, 256, 257, 9)]
# aiter/fused_moe.py, `cfg is None` (v0.1.10.post3 to v0.1.16 and e4048607):
# a per-1x128 MoE runs one stage above this many tokens (inter_dim % 256
# == 0 at v0.1.10.post3, % 128 from v0.1.12), at block_m = BLOCK_SIZE_M,
# else CK's two stages at block_m 16
MOE_UNTUNED_1STAGE_ABOVE = 32
MOE_UNTUNED_BLOCK_M = 32


def moe_untuned(all_rows, drop, untuned=None):
    """[(row, us, what)] derived fused-MoE rows for the shapes an engine runs
    untuned (MOE_UNTUNED), from the nearest tuned shape on the same GPU with
    the same format, inter_dim, experts and topk (so the same tiles under the
    tuner's random routing; nearest model_dim), its time scaled by the work
    a tile does (model_dim ratio: both GEMMs of one 32-row tile of one expert
    are model_dim x inter_dim deep or wide).  Above
    MOE_UNTUNED_1STAGE_ABOVE tokens aiter's untuned path runs the one-stage
    assembly kernel at block_m 32 (asm_fmoe.cu get_heuristic_kernel: the
    32 x 256 tile for inter_dim 256, fewest rounds; from v0.1.12 only kernels
    whose subGU_m is that block_m are candidates, so the 64 x 256 ones added
    then are never picked): the lender's own one-stage block_m-32 rows are
    taken at their buckets, and buckets where the lender's tuner picked
    another tile take its largest block_m-32 row carried by the count of
    32-row tiles (moe_tiles).  At or below it aiter runs CK's two-stage
    kernel at block_m 16, which no public table times on gfx942: the
    lender's tuned row there, scaled alike (labelled).  Shapes with a tuned
    row of their own on that GPU are left to it."""
    untuned = MOE_UNTUNED if untuned is None else untuned
    out = []
    for gpu, fmt, h, i, ex, k in untuned:
        def shape_of(r):
            return (r['gpu'] == gpu and moe_format(r) == fmt and int(r['inter_dim']) == i and
                    int(r['expert']) == ex and int(r['topk']) == k)
        ok = [(n, r) for n, r in enumerate(all_rows) if n not in drop and shape_of(r) and float(r['us_total']) > 0]
        if any(int(r['model_dim']) == h for n, r in ok) or not ok:
            continue
        h0 = min({int(r['model_dim']) for n, r in ok}, key=lambda m: (abs(math.log(m / h)), m))
        lend = sorted((r for n, r in ok if int(r['model_dim']) == h0), key=lambda r: int(r['token']))
        bm = MOE_UNTUNED_BLOCK_M

        def tile32(r):
            return r.get('run_1stage') == '1' and int(r['block_m']) == bm

        base = [r for r in lend if tile32(r) and int(r['token']) > MOE_UNTUNED_1STAGE_ABOVE]
        if not base:
            continue
        b = base[-1]
        tb = int(b['token'])
        for r in lend:
            tok, us = int(r['token']), float(r['us_total']) * h / h0
            row = dict(r, model_dim=str(h))
            if tok <= MOE_UNTUNED_1STAGE_ABOVE:
                what = 'CK 2-stage block_m 16, untimed: %dx%d tuned row' % (h0, i)
            elif tile32(r):
                what = 'asm 1-stage %dx%d: %dx%d measured' % (bm, i, h0, i)
            else:
                us = float(b['us_total']) * h / h0 * moe_tiles(tok, k, ex, bm) / moe_tiles(tb, k, ex, bm)
                what = 'asm 1-stage %dx%d: %dx%d at %d tokens carried by %d-row tiles' % (bm, i, h0, i, tb, bm)
            out.append((row, us, what))
    return out


def moe_untuned_notes(extra):
    """Header lines naming each derived untuned row's kernel and source,
    runs of consecutive buckets with the same description joined."""
    runs = []
    for row, us, what in extra:
        key = (row['gpu'], row['model_dim'], row['inter_dim'], row['expert'], row['topk'], what)
        if runs and runs[-1][0] == key:
            runs[-1][2] = row['token']
        else:
            runs.append([key, row['token'], row['token']])
    out = []
    for (gpu, h, i, ex, k, what), lo, hi in runs:
        out.append('derived (untuned shape, %s): %sx%s %s experts top %s, %s-%s tokens: %s' %
                   (gpu, h, i, ex, k, lo, hi, what))
    return out


def moe_tables(d, lender):
    ratios = imbalance_ratios(lender)
    best = {}
    all_rows = list(rows(os.path.join(d, 'aiter_tuned_fused_moe.csv.gz')))
    copies = moe_copies(all_rows)
    carried = moe_carried(all_rows, copies)
    extra = moe_untuned(all_rows, copies)
    notes = {}
    for row, us, what in extra:
        notes.setdefault(GPU[row['gpu']], []).append((row, us, what))
    kept = [(carried.get(n), r) for n, r in enumerate(all_rows) if n not in copies or n in carried]
    for us, r in kept + [(us, row) for row, us, what in extra]:
        gpu, fmt = GPU.get(r['gpu']), moe_format(r)
        if not gpu or not fmt:
            continue
        h, i, ex, k, tok = (int(r[c]) for c in ('model_dim', 'inter_dim', 'expert', 'topk', 'token'))
        us = us if us is not None else float(r['us_total'])
        if not (us > 0 and tok > 0 and 0 < k <= ex):
            continue
        x = math.log2(tok * k / ex)
        for dist in ('balanced', 'power_law_1.01', 'power_law_1.2'):
            lat = us if dist == 'balanced' else us * max(1.0, ratio_at(ratios, dist, 1, x))
            key = (fmt, h, i, k, ex, 1, 1, dist, tok)
            t = best.setdefault(gpu, {})
            t[key] = min(t.get(key, lat), lat)
    return best, {g: moe_untuned_notes(v) for g, v in notes.items()}


def allreduce_rows(scale):
    """(num_gpus, message_elems, latency_us) rows: MI300X's measured times
    (the faster of RCCL and QR-FP16 per size), the part above each group
    size's floor multiplied by scale (1: as measured)."""
    out = []
    for n in sorted(AR_US):
        us = [min(pair) for pair in AR_US[n]]
        floor = min(us)
        out += [(n, kib * 1024 // 2, '%.6g' % (floor + (u - floor) * scale)) for kib, u in zip(AR_SIZES_KIB, us)]
    return out


def note(what):
    return ['source: ROCm/aiter %s (MIT) %s; see data/mfu/mi300x/PROVENANCE.md' % (AITER, what),
            'derived by scripts/mfu/derive_amd.py; latency in microseconds, one call on one GPU']


def main(d, lender, out):
    g = gemm_tables(d)
    m, untuned_notes = moe_tables(d, lender)
    for gpu in sorted(GPU.values()):
        od = os.path.join(out, gpu, COLL)
        os.makedirs(od, exist_ok=True)
        data = [k + ('%.6g' % v,) for k, v in sorted(g.get(gpu, {}).items())]
        write(os.path.join(od, 'gemm.csv.gz'), ['dtype', 'm', 'n', 'k', 'latency_us'], data,
              note('aiter/configs/**/*tuned_gemm*.csv') +
              (['and SemiAnalysisAI/InferenceX %s (Apache-2.0) kimik3_bf16_tuned_gemm.csv (bf16, gfx950)' % INFX]
               if gpu == 'mi355x' else []) +
              ['tuned winners; fp8 = the faster of a8w8 block-scale and per-token per shape; fp4 = a4w4 MXFP4'])
        mdata = [k + ('%.6g' % v,) for k, v in sorted(m.get(gpu, {}).items())]
        write(os.path.join(od, 'moe.csv.gz'),
              ['dtype', 'hidden', 'inter', 'topk', 'experts', 'moe_tp', 'moe_ep', 'distribution', 'tokens',
               'latency_us'], mdata,
              note('aiter/configs/**/*tuned_*fmoe*.csv') +
              ['fused MoE us_total as tuned: experts, inter and topk as the tuner ran them (shared expert fused '
               'where experts/topk say so), moe_tp = moe_ep = 1',
               'token buckets repeating another bucket\'s us_total and tflops (one timing copied) dropped but the '
               'bucket whose own FLOPs match the tflops (moe_copies); copied buckets above it whose config names the '
               'same one-stage kernel tile (block_m) are derived, not measured: its time carried by the count of '
               'block_m-row tiles under random routing (moe_carried)',
               'balanced rows measured (random routing); power-law rows = balanced x the power-law/balanced '
               'latency ratio of aiconfigurator SGLang 0.5.14 H100 fp8_block MoE kernels (see derive_amd.py)'] +
              (['shapes no aiter tunes on this GPU are derived for the kernel aiter\'s untuned path runs '
                '(moe_untuned): not measured'] + untuned_notes[gpu] if gpu in untuned_notes else []))
        n_mla = 0
        ar_src = ['source: mk1-project/quickreduce %s (MIT), README "All-Reduce Latency across {2,4,8}xMI300X" '
                  '(ROCm 6.2, RCCL 2.20.5)' % QR,
                  'derived by scripts/mfu/derive_amd.py; latency in microseconds, one call on one GPU',
                  'the faster of RCCL and QuickReduce FP16 (uncompressed) per size; message_elems counts fp16 '
                  'elements (2 bytes each)']
        if gpu != 'mi300x':
            ar_src.append('not measured on %s: the MI300X rows carried to its %.1f GB/s xGMI links (same '
                          'full mesh and collectives): the time above each group size\'s floor (its smallest '
                          'message) x %.4g, the floor kept' % (gpu, LINK_GBPS[gpu],
                                                               LINK_GBPS['mi300x'] / LINK_GBPS[gpu]))
        ar = allreduce_rows(LINK_GBPS['mi300x'] / LINK_GBPS[gpu])
        write(os.path.join(od, 'allreduce.csv.gz'), ['num_gpus', 'message_elems', 'latency_us'], ar, ar_src)
        n_ar = len(ar)
        if gpu == 'mi300x':
            mla = [(128, 1, MLA_DECODE_DIM, 'bf16', 128, kv, '%.6g' % us) for kv, us in MLA_ROWS]
            write(os.path.join(od, 'mla_decode.csv.gz'),
                  ['heads', 'kv_heads', 'head_dim', 'kv_dtype', 'batch', 'kv_len', 'latency_us'], mla,
                  ['source: ROCm/gpuaidev 2d217d5f59c230d2260f3d6c4ad5580e04a34aef, '
                   'docs/notebooks/assets/aiter-performance-comparison.png (AITER MLA decode on MI300X, bar labels)',
                   'derived by scripts/mfu/derive_amd.py; latency in microseconds, one call on one GPU',
                   'MLA generation attention (absorbed), batch 128, 128 query heads, bf16 latent KV; head_dim 544 '
                   'is the FLOPs-equivalent dimension (see derive.py)'])
            n_mla = len(mla)
        ap = attn_prefill_rows(gpu)
        write(os.path.join(od, 'attn_prefill.csv.gz'),
              ['heads', 'kv_heads', 'head_dim', 'kv_dtype', 'batch', 'isl', 'latency_us'], ap,
              note('op_tests/cpp/mha/README.md, "the asm kernel performance of the attention forwards" (%s)'
                   % gpu.upper()) +
              ['context attention, causal, no cached prefix: aiter\'s assembly flash-attention forward, BF16, '
               'BSHD, batch mode; latency = its benchmark\'s FLOPs (4 x heads x isl^2 x head_dim / 2) / its TFLOPS'])
        print(gpu, COLL, 'gemm', len(data), 'moe', len(mdata), 'mla_decode', n_mla, 'allreduce', n_ar,
              'attn_prefill', len(ap))


def self_test():
    """--test: moe_copies and moe_carried on made-up tuned rows."""
    def row(tok, us, h=7168, i=256, k=9, ex=257, f='ds_v3.csv', kk=None):
        flops = tok * (k if kk is None else kk) * 6.0 * h * i
        return {'source_file': f, 'gpu': 'MI350X|MI355X', 'model_dim': str(h), 'inter_dim': str(i),
                'expert': str(ex), 'topk': str(k), 'act_type': 'Silu', 'dtype': 'bfloat16',
                'q_dtype_a': 'float8_e4m3fn', 'q_dtype_w': 'float8_e4m3fn', 'q_type': 'per_1x128',
                'use_g1u1': '1', 'doweight_stage1': '0', 'token': str(tok), 'us_total': '%.4f' % us,
                'tflops': '%.2f' % (flops / (us * 1e-6) / 1e12)}
    a = [row(t, 40.0 + t / 8.0) for t in (16, 32, 64)]                  # measured, each its own
    b = [row(1024, 359.48, kk=8)] + [dict(row(1024, 359.48, kk=8), token=str(t)) for t in (2048, 4096)]
    c = [row(8, 77.49)] + [dict(row(8, 77.49), token=str(t)) for t in (1, 2, 4)]
    d = [dict(row(512, 100.0), token=str(t)) for t in (4096, 8192)]   # copied from a bucket not in the file
    e = [row(2048, 359.48, f='other.csv')]                             # same time, another file: not a copy
    rows_ = a + b + c + d + e
    drop = moe_copies(rows_)
    kept = {(r['source_file'], int(r['token'])) for n, r in enumerate(rows_) if n not in drop}
    assert {16, 32, 64} <= {t for f, t in kept}, 'rows with their own timings: kept'
    assert ('ds_v3.csv', 1024) in kept and ('ds_v3.csv', 2048) not in kept and ('ds_v3.csv', 4096) not in kept, \
        'a timing copied up from 1,024 tokens (tflops counted with topk - 1): only 1,024 kept'
    assert ('ds_v3.csv', 8) in kept and not {1, 2, 4} & {t for f, t in kept if f == 'ds_v3.csv'}, \
        'a timing copied down from 8 tokens: only 8 kept'
    assert ('ds_v3.csv', 8192) not in kept and len(drop) == 7, 'a run none of whose buckets matches: all dropped'
    assert ('other.csv', 2048) in kept, "another file's row with the same time: kept"
    print('ok: moe_copies keeps the measured bucket of two copied runs (topk and topk - 1 FLOPs), drops a run with '
          'no measured bucket, keeps rows with their own timings and other files\' rows')
    for r in b:
        r.update(block_m='32', run_1stage='1')
    b[2]['block_m'] = '64'                                             # another kernel tile at 4,096: not carried
    for r in c:
        r.update(block_m='16', run_1stage='1')
    car = moe_carried(rows_, drop)
    assert set(car) == {rows_.index(b[1])}, 'only a copy above its measured bucket with the same tile is carried'
    want = 359.48 * moe_tiles(2048, 9, 257, 32) / moe_tiles(1024, 9, 257, 32)
    assert abs(car[rows_.index(b[1])] - want) < 1e-9 and 359.48 < want < 2 * 359.48, 'carried by its tile count'
    assert abs(moe_tiles(64, 1, 1, 32) - 2) < 1e-12 and abs(moe_tiles(33, 2, 4, 32) - 4.0) < 1e-12, \
        'tiles: one expert takes all; X ~ B(33, 1/2): E[ceil(X/32)] = P(X > 0) + P(X > 32) = 1'
    print('ok: moe_carried carries the measured bucket to a copied one above it with the same kernel tile, by tiles')

    def g942(tok, us, bm, h=6144, k=9, ex=257, one='1'):
        return dict(row(tok, us, h=h, k=k, ex=ex), gpu='MI300X|MI325X', block_m=str(bm), run_1stage=one)
    lend = [g942(16, 120.0, 16, one='0'), g942(64, 290.0, 32), g942(512, 310.0, 32), g942(1024, 350.0, 64),
            g942(2048, 550.0, 64)]
    other = [g942(512, 999.0, 32, h=7000, k=8), g942(512, 1.0, 32, h=9000, ex=256)]   # other topk / experts
    rows_ = lend + other
    un = [('MI300X|MI325X', 'fp8_block', 7168, 256, 257, 9)]
    got = {int(r['token']): (us, what) for r, us, what in moe_untuned(rows_, set(), un)}
    f = 7168 / 6144
    assert sorted(got) == [16, 64, 512, 1024, 2048], 'one derived row per bucket of the nearest tuned shape'
    assert all(r['model_dim'] == '7168' for r, us, what in moe_untuned(rows_, set(), un)), 'written as the target'
    assert abs(got[16][0] - 120.0 * f) < 1e-9 and 'CK 2-stage' in got[16][1], '<= 32 tokens: untimed, labelled'
    assert abs(got[64][0] - 290.0 * f) < 1e-9 and abs(got[512][0] - 310.0 * f) < 1e-9, \
        'the 32-row one-stage rows taken at their buckets, by the work of a tile'
    for t in (1024, 2048):
        want = 310.0 * f * moe_tiles(t, 9, 257, 32) / moe_tiles(512, 9, 257, 32)
        assert abs(got[t][0] - want) < 1e-9 and 'carried' in got[t][1], '64-row buckets: 512 carried by 32-row tiles'
    assert got[2048][0] > 550.0 * f, 'the 32-row kernel is slower than the tuned 64-row one there'
    assert not moe_untuned(rows_ + [g942(64, 300.0, 32, h=7168)], set(), un), 'a shape tuned on the GPU: left to it'
    assert not moe_untuned(rows_, {1, 2}, un), 'no 32-row one-stage row above 32 tokens kept: nothing derived'
    notes = moe_untuned_notes(moe_untuned(rows_, set(), un))
    assert len(notes) == 3 and '64-512 tokens' in notes[1] and '1024-2048 tokens' in notes[2], notes
    print('ok: moe_untuned prices an untuned shape as the 32-row one-stage kernel from the nearest tuned shape, '
          'carried by tile count where that shape was tuned to another tile; tuned shapes left alone')


if __name__ == '__main__':
    if len(sys.argv) == 2 and sys.argv[1] == '--test':
        self_test()
        sys.exit(0)
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])
