#!/usr/bin/env python3
"""Derive servesim's compact kernel tables from the aiconfigurator vLLM export.

usage: python3 scripts/mfu/derive.py AIC_DIR AIC_ENGINES_DIR OUT_DIR
       python3 scripts/mfu/derive.py --test   (its filters on made-up rows)
  AIC_DIR         = the aic export (vLLM 0.14/0.19/0.24 per system)
  AIC_ENGINES_DIR = the aic-engines export (newest vLLM, SGLang, TensorRT-LLM)
  (../shared/data/mfu/aic and aic-engines; upstream repository and commit in
  data/PROVENANCE.md).
Writes OUT_DIR/<system>/<engine>-<version>/{gemm,moe,attn_prefill,attn_decode,
attn_prefill_window,attn_decode_window,mla_prefill,mla_decode,allreduce}.csv.gz
with '#' provenance lines, and one MoE backend's own kernels as
moe_<backend>.csv.gz where MOE_KERNELS names them.  Latencies in microseconds; where
a key was measured twice or by several kernel sources the fastest is kept (the
engine dispatches its fastest kernel); only what servesim prices is kept.
"""
import glob, os, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from aic import rows, find, write  # noqa: E402,F401  (shared with derive_*.py; derive_infersim uses derive.write)


def us(ms):
    return '%.6g' % (float(ms) * 1000.0)

# --- per-engine collections -------------------------------------------------
#
# Every collection (one engine and version on one system) becomes one folder
# data/mfu/<system>/<engine>-<version>/ holding whichever of gemm, moe,
# attn_prefill, attn_decode and allreduce it measured.  servesim picks the
# collection named by --engine/--engine-version and fills the gaps from the
# nearest other collection, saying so in the run header.

# GEMM m values kept: the power-of-two-ish grid the collectors sweep without
# the off-by-one probes (33, 49, ...) and the 3..15 fillers, which interpolate
# to within a few per cent in log space.
GEMM_M = {1, 2, 4, 8, 16, 32, 48, 64, 80, 96, 112, 128, 160, 192, 224, 256, 384, 512, 768, 1024,
          1280, 1536, 1792, 2048, 2560, 3072, 3584, 4096, 6144, 8192, 12288, 16384, 32768, 65536}
GEMM_DT = {'bfloat16': 'bf16', 'float16': 'bf16', 'fp8': 'fp8', 'fp8_block': 'fp8', 'nvfp4': 'fp4'}
MOE_DT = {'bfloat16': 'bf16', 'float16': 'bf16', 'fp8': 'fp8', 'fp8_block': 'fp8_block',
          'int4_wo': 'int4', 'nvfp4': 'fp4', 'w4a16_mxfp4': 'mxfp4', 'w4a8_mxfp4_mxfp8': 'mxfp4'}
# MXFP4 experts (gpt-oss): W4A16 on Hopper (no fp4 tensor cores), MXFP4 x
# MXFP8 on Blackwell; both serve the 'mxfp4' key, fastest per key, so a GPU
# with both kernels is priced by the one its engine dispatches (the faster)


def gemm_table(path, note, out, tuned_fp4=None, cap=True):
    """Fastest kernel source per (dtype, m, n, k).  fp8 and fp8_block are both
    w8a8 fp8: servesim prices 'fp8' with the faster of the two per shape.
    tuned_fp4: {(m, n, k): latency} of the other collections' fp4 GEMMs on
    this system (see TUNED_FP4), or None.  cap: price a low-precision shape
    measured slower than bf16 at bf16 (gemm_clamp; see QUANT_UNFUSED).
    Writes out; returns the table."""
    best = gemm_best(path)
    notes = gemm_clamp(best, out, cap)
    if tuned_fp4:
        faster = 0
        for k_ in [k_ for k_ in best if k_[0] == 'fp4']:
            alt = tuned_fp4.get(k_[1:])
            if alt is not None and alt < best[k_]:
                best[k_] = alt
                faster += 1
        notes.append('fp4: TensorRT-LLM autotunes its nvfp4 GEMM tactics at warm-up and the collector '
                     'times the untuned default: %d shapes priced at the fastest fp4 GEMM another '
                     'collection measured on this system' % faster)
    notes += gemm_outliers(best)
    data = sorted(k_ + ('%.6g' % (v * 1000.0),) for k_, v in best.items())
    write(out, ['dtype', 'm', 'n', 'k', 'latency_us'], data, note + notes)
    return best


# Engines whose nvfp4 GEMM rows are the collector's untuned default tactic:
# TensorRT-LLM's nvfp4 GEMM ops are AutoTuner runners (CUTLASS, cuBLASLt,
# CuteDSL tactics chosen at warm-up), which aiconfigurator's
# collector/trtllm/collect_gemm.py does not run: its large-k shapes take up
# to twice as long as the other engines' (B200, m=4, n=8192, k=65536: 134 us against vLLM's and SGLang's
# CUTLASS/FlashInfer nvfp4 kernels' 66 us, and slower than its fp8, 92 us).
# Each such shape is priced at the fastest fp4 latency another collection
# measured for it on the same system (a kernel the tuner also has).
TUNED_FP4 = {'trtllm'}


def gemm_best(path):
    """{(dtype, m, n, k): latency ms}: the fastest kernel source per key."""
    best = {}
    for r in rows(path):
        dt = GEMM_DT.get(r['gemm_dtype'])
        m, n, k = int(r['m']), int(r['n']), int(r['k'])
        if not dt or m not in GEMM_M or n < 128 or k < 128:
            continue
        key = (dt, m, n, k)
        lat = float(r['latency'])
        if key not in best or lat < best[key]:
            best[key] = lat
    return best


# Engines that quantise a low-precision linear's activations in a kernel of
# their own before the GEMM, as the collectors time it: SGLang's block-fp8
# linears call sglang_per_token_group_quant_fp8 and then DeepGEMM or
# FlashInfer's groupwise GEMM (deepgemm_ / flashinfer_gemm_w8a8_block_fp8_
# linear_with_fallback, python/sglang/srt/layers/quantization/fp8_utils.py,
# 0.5.x), its per-tensor fp8 linears sglang_per_token_quant_fp8 /
# scaled_fp8_quant before fp8_scaled_mm (apply_fp8_linear), its ModelOpt
# nvfp4 linears fp4_quantize before the fp4 GEMM (modelopt_quant.py); no
# CUDA release fuses them into the preceding RMSNorm.  aiconfigurator's
# SGLang collector times the same pair per row (collector/sglang/
# collect_gemm.py: sglang_per_token_group_quant_fp8 + gemm_nt_f8f8bf16,
# sgl_per_token_quant_fp8 + fp8_scaled_mm, fp4_quantize + mm_fp4), so its
# rows are what SGLang runs, also where they come out slower than bf16:
# its collections keep them (no bf16 cap).
QUANT_UNFUSED = {'sglang'}


def gemm_clamp(best, out=None, cap=True):
    """The fp8 check and, with cap, the per-shape bf16 cap (in place); the
    notes."""
    # the fp8 check (issue 9): on model-sized shapes (m >= 64, n, k >= 1024)
    # the median fp8 / bf16 latency ratio must be below 1, else the fp8 part
    # of this collection is refused (vLLM 0.14's static-scale kernels are
    # slower than bf16, which no engine would ship) and servesim takes fp8
    # from the nearest collection that passes.
    notes = []
    for lp in ('fp8', 'fp4'):
        ratios = sorted(v / best[('bf16',) + k_[1:]] for k_, v in best.items()
                        if k_[0] == lp and k_[1] >= 64 and k_[2] >= 1024 and k_[3] >= 1024
                        and ('bf16',) + k_[1:] in best)
        if not ratios:
            continue
        med = ratios[len(ratios) // 2]
        if med >= 1.0:
            for k_ in [k_ for k_ in best if k_[0] == lp]:
                del best[k_]
            notes.append('%s refused: median %s/bf16 latency ratio %.2f >= 1 on m >= 64, n, k >= 1024' % (lp, lp, med))
            if out:
                print('  ', out, lp, 'REFUSED, median ratio %.2f' % med)
            continue
        # shape by shape, an isolated low-precision GEMM that includes its
        # activation-quantisation kernel can come out slower than bf16 on
        # small shapes (a fixed ~10 us at decode sizes); engines fuse that
        # quantisation into the preceding norm, so such a shape is priced at
        # the bf16 latency (counted here).
        clamped = 0
        for k_ in [k_ for k_ in best if k_[0] == lp]:
            b = best.get(('bf16',) + k_[1:])
            if b is not None and best[k_] > b:
                if cap:
                    best[k_] = b
                clamped += 1
        if cap:
            notes.append('%s: median %s/bf16 ratio %.2f on model-sized shapes; %d shapes measured slower than bf16 priced at bf16' % (lp, lp, med, clamped))
        else:
            notes.append('%s: median %s/bf16 ratio %.2f on model-sized shapes; %d shapes measured slower than bf16 kept as measured '
                         '(the engine quantises the activations in a kernel of its own, as the rows time it: derive.py QUANT_UNFUSED)' % (lp, lp, med, clamped))
    return notes


def gemm_outliers(best):
    """Drop measurement glitches (in place); the note."""
    # outliers: a smaller problem cannot take much longer than a larger one
    # of the same shape; drop a row whose latency exceeds 1.3x that of any
    # larger m in its (dtype, n, k) column (measurement glitches, e.g. vLLM
    # 0.14 h100 m=2048 n=10240 k=8192 at 1400 us where m=4096 takes 887 us).
    cols = {}
    for k_ in best:
        cols.setdefault((k_[0], k_[2], k_[3]), []).append(k_[1])
    dropped = 0
    for (dt, n, k), ms in cols.items():
        ms.sort()
        suffix_min = float('inf')
        for m in reversed(ms):
            lat = best[(dt, m, n, k)]
            if lat > 1.3 * suffix_min:
                del best[(dt, m, n, k)]
                dropped += 1
            else:
                suffix_min = min(suffix_min, lat)
    return ['dropped %d outlier rows: latency > 1.3x that of a larger m of the same (n, k)' % dropped]


def fastest_attn(p, col, new_keys, dtype_col, heads, skip=None):
    """The rows of an attention table from the bf16/fp8-KV rows of p (not
    those skip(r) names): (heads, kv_heads, head_dim) as heads(r), kv_dtype,
    batch, the length of column col (+1 for a generation step of new_keys)
    and the fastest latency in us, sorted."""
    best = {}
    for r in rows(p):
        if skip and skip(r):
            continue
        kvd = {'bfloat16': 'bf16', 'fp8': 'fp8', 'float16': 'bf16'}.get(r['kv_cache_dtype'])
        if not kvd or r.get(dtype_col, 'bfloat16') not in ('bfloat16', 'float16'):
            continue
        L = int(r[col]) + (1 if (col == 'step' and new_keys) else 0)
        key = heads(r) + (kvd, int(r['batch_size']), L)
        lat = float(r['latency'])
        if key not in best or lat < best[key]:
            best[key] = lat
    return sorted(k_ + ('%.6g' % (v * 1000.0),) for k_, v in best.items())


# A kernel's time does not grow much faster than its work: a causal
# prefill's work grows with its query-key pairs, L (L + 1) / 2 at length L, a
# decode's with the keys it reads, a fused MoE's with its tokens, and a
# larger call does not run at a third less of the rate of a smaller one
# (FlashAttention-style kernels keep their tiles on chip; at small sizes a
# call is latency-bound, and the rate only rises).  Some collected rows break
# that once and the series goes back on its line at the next length: vLLM
# 0.14.0 on H100, prefill, 8 query / 1 KV heads, bf16, batch 1: 12288 tokens
# 561 us, 16384 tokens 3608 us (the pairs alone give 998 us; vLLM 0.24.0
# measured 860 us); 4 heads, batch 16: 4096 587 us, 6144 4244 us, 8192 1982
# us; TensorRT-LLM 1.3.0rc20 on H200, MLA decode, 4 heads, batch 16: 64 keys
# 11.7 us, 128 keys 3116 us, 256 keys 16.3 us; its bf16 MoE, 2048 x 768, top
# 8 of 128, EP 128: 2 tokens 30.3 us, 4 tokens 405 us, 8 tokens 30.7 us.  Such
# a row (above SPIKE_SLACK x the last kept shorter row's time scaled by the
# work, while the next longer row is within that bound again and faster than
# it by the slack: a larger call does not take less time) is dropped,
# and the loader interpolates across the gap.  The longest row of a prefill
# series is dropped on the bound alone (the H100 16384-token rows above); a
# decode's or MoE's longest row is kept (a decode past the L2 cache, or a MoE
# call past its tile counts, can step up for real).  A sustained step up
# (every longer row above the bound too, e.g. L40S fp8 prefill rows from
# 1,536 tokens, L40S decodes past its cache) is kept: that is a kernel or
# memory-level change, not a glitch.
SPIKE_SLACK = 1.5


def series_spikes(data, nkey, work, drop_longest, what):
    """Drop the isolated spikes (see SPIKE_SLACK) of rows key (nkey fields),
    length, latency string, as the table writers sort them; work(L) the
    call's work at length L; drop_longest: the longest row may go on the
    bound alone.  Returns (rows kept, the note)."""
    series = {}
    for row in data:
        series.setdefault(row[:nkey], []).append(row)
    kept, dropped = [], 0
    for key in sorted(series):
        rows_ = sorted(series[key], key=lambda r_: r_[nkey])
        last = 0
        out = [rows_[0]]
        for i in range(1, len(rows_)):
            a, ta = rows_[last][nkey], float(rows_[last][nkey + 1])
            bound = lambda L: SPIKE_SLACK * ta * work(L) / work(a)
            t = float(rows_[i][nkey + 1])
            nxt = rows_[i + 1] if i + 1 < len(rows_) else None
            # the next longer row back on the line and faster than this one
            # by the slack (a larger call cannot take less time: the spike is
            # this row's); a step the next row stays on is kept
            back = nxt is not None and float(nxt[nkey + 1]) <= bound(nxt[nkey]) and \
                SPIKE_SLACK * float(nxt[nkey + 1]) < t
            if a >= 1 and t > bound(rows_[i][nkey]) and (back or (nxt is None and drop_longest)):
                dropped += 1
                continue
            last = i
            out.append(rows_[i])
        kept += out
    return sorted(kept), ['dropped %d isolated spikes: a row above %.1fx the last shorter row of its series '
                          'scaled by %s, the next longer row back within (derive.py, series_spikes)'
                          % (dropped, SPIKE_SLACK, what)]


def prefill_spikes(data):
    """series_spikes of prefill attention rows (heads, kv_heads, head_dim,
    kv_dtype, batch, isl, latency): work the causal query-key pairs."""
    return series_spikes(data, 5, lambda L: L * (L + 1) / 2.0, True, 'the query-key pairs')


def decode_spikes(data):
    """series_spikes of decode attention rows (..., batch, kv_len, latency):
    work the keys read."""
    return series_spikes(data, 5, float, False, 'the keys read')


def write_attn(od, out_name, col, data, notes):
    """od/out_name in the attention-table format; col 'isl' (prefill) or 'step'."""
    write(os.path.join(od, out_name),
          ['heads', 'kv_heads', 'head_dim', 'kv_dtype', 'batch', 'isl' if col == 'isl' else 'kv_len', 'latency_us'],
          data, notes)


# vLLM collections before aiconfigurator #1004 (2026-05-12: "FA3
# scheduler_metadata mismatch in vllm attention collector") built FA3's
# ahead-of-time decode schedule (scheduler_metadata: the splits of the keys
# each request and KV head gets) for the collector's fake model, 16 query / 8
# KV heads (collector/vllm/fake_hf_model/config.json; create_vllm_config
# forwarded head_dim only), and ran the kernel with the swept head counts.  A
# row with fewer than 8 KV heads per GPU therefore ran with the splits planned
# for 8: too few CTAs where batch x KV heads is small.  H100, 8 query / 1 KV
# head, bf16, batch 8, 32768 keys: vLLM 0.14.0 149 us (27 % of the HBM
# bandwidth its 134 MB need), 0.24.0 59 us; 2 KV heads 154 / 101 us; 4 KV
# heads 196 / 184 us; 8 KV heads 356 / 366 us; batch 64 at 4096 keys (enough
# CTAs without splits) all within 4 %.  vLLM itself plans the splits from the
# model's own head counts (FlashAttentionMetadataBuilder).  Only FA3 schedules
# ahead of time, and vLLM runs FA3 on Hopper only (A100: FA2, Blackwell:
# FlashInfer): those decode rows are left out there, and servesim takes the
# configurations from the next collection of the engine (hw/mfuload.c).
FA3_AOT_PLANNED_KV_HEADS = 8
FA3_AOT_SYSTEMS = ('h100_sxm', 'h200_sxm')
FA3_AOT_FIXED_IN = '0.19.0'


def fa3_misplanned(system, engine, version):
    """Whether the collection's decode rows with fewer than
    FA3_AOT_PLANNED_KV_HEADS KV heads ran under the fake model's split plan."""
    return engine == 'vllm' and system in FA3_AOT_SYSTEMS and version_key(version) < version_key(FA3_AOT_FIXED_IN)


def attn_tables(ctx, gen, new_keys, note, od, misplanned=False):
    """Dense MHA/GQA attention, full attention only (window_size 0).
    new_keys: generation 'step' counts cached tokens and one more is new
    (collectors from 2026-07 on: vLLM 0.24, SGLang, TRT-LLM), so kv_len =
    step + 1; older collectors attend 'step' tokens in all.  misplanned:
    leave out the decode rows with fewer KV heads than FA3's schedule was
    planned for (FA3_AOT_PLANNED_KV_HEADS)."""
    for p, out_name, col, extra in ((ctx, 'attn_prefill.csv.gz', 'isl', 'context attention, causal, no cached prefix'),
                                    (gen, 'attn_decode.csv.gz', 'step', 'generation attention, one new token; kv_len = keys attended')):
        if not p:
            continue
        drop_kv = misplanned and col == 'step'
        data = fastest_attn(p, col, new_keys, 'attn_dtype',
                            lambda r: (int(r['num_heads']), int(r['num_key_value_heads']), int(r['head_dim'])),
                            lambda r: r.get('window_size', '0') not in ('0', '') or
                            (drop_kv and int(r['num_key_value_heads']) < FA3_AOT_PLANNED_KV_HEADS))
        data, spikes = prefill_spikes(data) if col == 'isl' else decode_spikes(data)
        left = ['left out: the rows with fewer than %d KV heads per GPU, timed under FA3\'s split plan for the '
                'collector\'s %d (aiconfigurator #1004; derive.py FA3_AOT_PLANNED_KV_HEADS)'
                % (FA3_AOT_PLANNED_KV_HEADS, FA3_AOT_PLANNED_KV_HEADS)] if drop_kv else []
        write_attn(od, out_name, col, data,
                   note + ['%s; per-GPU head counts; fastest kernel source per key' % extra] + spikes + left)


def window_tables(ctx, gen, new_keys, note, od):
    """Sliding-window MHA/GQA attention (window_size > 0): the rows
    attn_tables leaves out, keyed by the window as well.  A query attends
    the last `window` keys up to itself (TensorRT-LLM's
    attention_window_size, vLLM's and SGLang's sliding window; the
    TensorRT-LLM collector adds gpt-oss's attention sinks to its head-dim-64
    rows, as to its dense ones).  A window whose rows never exceed it (vLLM
    0.19.0's B200 rows: isl <= 1024 at window 8192) measures nothing a dense
    row does not and is left out.  servesim prices a sliding layer from
    these rows relative to the dense rows of the same collection (mfu.c
    mfu_attn_window_rebase)."""
    for p, out_name, col, extra in ((ctx, 'attn_prefill_window.csv.gz', 'isl',
                                     'sliding-window context attention, causal, no cached prefix; '
                                     'query i attends keys max(1, i - window + 1)..i'),
                                    (gen, 'attn_decode_window.csv.gz', 'step',
                                     'sliding-window generation attention, one new token; kv_len = tokens '
                                     'in the sequence, keys attended min(kv_len, window)')):
        if not p:
            continue
        best, src = {}, {}
        for r in rows(p):
            w = int(r.get('window_size') or 0)
            if w <= 0:
                continue
            kvd = {'bfloat16': 'bf16', 'fp8': 'fp8', 'float16': 'bf16'}.get(r['kv_cache_dtype'])
            if not kvd or r.get('attn_dtype', 'bfloat16') not in ('bfloat16', 'float16'):
                continue
            L = int(r[col]) + (1 if (col == 'step' and new_keys) else 0)
            key = (int(r['num_heads']), int(r['num_key_value_heads']), int(r['head_dim']), kvd, w,
                   int(r['batch_size']), L)
            lat = float(r['latency'])
            if key not in best or lat < best[key]:
                best[key] = lat
                src[key] = r.get('kernel_source', '?')
        wins = sorted({k[4] for k in best})
        active = [w for w in wins if any(k[4] == w and k[6] > w for k in best)]
        if not active:
            if wins:
                print('  ', od, out_name, 'no window exceeded by its rows:', wins, '(not written)')
            continue
        data = sorted(k_ + ('%.6g' % (v * 1000.0),) for k_, v in best.items() if k_[4] in active)
        srcs = []
        for w in active:
            c = {}
            for k_ in best:
                if k_[4] == w:
                    c[src[k_]] = c.get(src[k_], 0) + 1
            srcs.append('window %d: %s' % (w, ', '.join('%s %d' % (s_, n) for s_, n in sorted(c.items()))))
        extra_notes = ['kernel source of the kept rows by window: ' + '; '.join(srcs)]
        if len(active) < len(wins):
            extra_notes.append('left out: window(s) %s, no row longer than the window' %
                               ', '.join(str(w) for w in wins if w not in active))
        write(os.path.join(od, out_name),
              ['heads', 'kv_heads', 'head_dim', 'kv_dtype', 'window', 'batch', 'isl' if col == 'isl' else 'kv_len',
               'latency_us'],
              data, note + ['%s; per-GPU head counts; fastest kernel source per key' % extra] + extra_notes)


# Kernel paths the engine does not dispatch by default on that GPU family
# (issue 26, mechanism 1): a collection that timed such a path must not price
# the engines that run the fast one, so its rows of that MoE dtype are left out
# and servesim falls through to the next collection that has the dtype (its
# run header names it).  (engine, systems, moe_dtype, kernel_source) -> why.
#  - vLLM on Blackwell runs gpt-oss's MXFP4 experts with FlashInfer's
#    TRT-LLM-gen kernels (MXFP4 weights x MXFP8 activations; vLLM's GPT-OSS
#    recipe, docs.vllm.ai/projects/recipes OpenAI/GPT-OSS, "Blackwell"; the
#    0.24.0 collection times them as *_flashinfer_trtllm_*).  The 0.19.0
#    collection's only MXFP4 source, 'vllm_mxfp4_moe' with w4a16_mxfp4
#    (weight-only, bf16 activations), is 2.6-3.8x slower at every shape (80 vs
#    29 us at 1 token, 2,030 vs 534 us at 256, top-4 of 128 2880x2880) and
#    prices the measured vLLM 0.15.1 gpt-oss-120b B200 rows 3.6x too slow
#    (median ITL ratio; eval/silicon/silicon_vllm_sglang_agg.csv.gz).
MOE_NOT_DISPATCHED = {
    ('vllm', 'b200_sxm', 'w4a16_mxfp4', 'vllm_mxfp4_moe'):
        'vLLM on Blackwell runs MXFP4 experts with FlashInfer TRT-LLM-gen (MXFP8 activations); '
        'this collection timed only the weight-only w4a16 path (2.6-3.8x slower)',
}


# One MoE backend's own kernels, written beside a collection's moe.csv.gz as
# moe_<backend>.csv.gz: servesim prices a pool whose launch names that
# backend (TensorRT-LLM's moe_config.backend) from it (src/cost/moe.c,
# moe_backend_pick).  (system, engine, version) -> (file stem, kernel
# sources, moe dtypes).
#  - TensorRT-LLM's TRTLLM MoE backend on Blackwell runs its trtllm-gen
#    kernels (TRTLLMGenFusedMoE); its own collections never time them for
#    fp8 block scales, but SGLang 0.5.14's does through FlashInfer, whose
#    trtllm_fp8_block_scale_moe launches the same trtllm-gen batched GEMMs
#    (flashinfer-ai/flashinfer csrc/trtllm_fused_moe_kernel_launcher.cu:
#    tensorrt_llm::kernels::trtllmgen_moe); vLLM 0.24.0's
#    vllm_fp8moe_flashinfer_trtllm_trtllmfp8expertsmonolithic rows agree
#    within 2 % at 8,192 tokens but cover fewer splits (no MoE TP x EP).
MOE_KERNELS = {
    ('b200_sxm', 'sglang', '0.5.14'): ('moe_trtllm_gen', {'sglang_flashinfer_trtllm_moe'}, {'fp8_block'}),
}


def moe_table(path, note, out, engine=None, system=None, kernels=None):
    """Fused/grouped MoE kernels: tokens entering the layer on one GPU, full
    model expert shape, global expert count, MoE TP and EP; no communication.
    Fastest kernel source per key; distributions balanced and power_law_1.01
    (the power law is servesim's default routing imbalance); kernel paths the
    engine does not dispatch on this GPU (MOE_NOT_DISPATCHED) left out.
    kernels: (kernel sources, moe dtypes) to keep, for one backend's table
    (MOE_KERNELS); None: every row."""
    best = {}
    dropped = {}
    for r in rows(path):
        if kernels and (r.get('kernel_source') not in kernels[0] or r['moe_dtype'] not in kernels[1]):
            continue
        why = MOE_NOT_DISPATCHED.get((engine, system, r['moe_dtype'], r.get('kernel_source')))
        if why:
            dropped[(r['moe_dtype'], r.get('kernel_source'))] = why
            continue
        # TensorRT-LLM's MXFP4 rows come from its 'moe_torch_flow' source
        # (the engine's own MoE module timed end to end), the only MXFP4
        # data of that engine: kept, and per key the fastest source wins
        dt = MOE_DT.get(r['moe_dtype'])
        dist = {'balanced': 'balanced', 'power_law_1.01': 'power_law_1.01', 'power_law_1.2': 'power_law_1.2'}.get(r['distribution'])
        if not dt or not dist:
            continue
        key = (dt, int(r['hidden_size']), int(r['inter_size']), int(r['topk']), int(r['num_experts']),
               int(r['moe_tp_size']), int(r['moe_ep_size']), dist, int(r['num_tokens']))
        lat = float(r['latency'])
        if key not in best or lat < best[key]:
            best[key] = lat
    data = sorted(k_ + ('%.6g' % (v * 1000.0),) for k_, v in best.items())
    data, spikes = series_spikes(data, 8, float, False, 'the tokens')
    what = ('kernel source %s only (%s rows)' % ('/'.join(sorted(kernels[0])), '/'.join(sorted(kernels[1])))
            if kernels else 'fastest kernel source per key')
    write(out, ['dtype', 'hidden', 'inter', 'topk', 'experts', 'moe_tp', 'moe_ep', 'distribution', 'tokens', 'latency_us'],
          data, note + ['fused MoE (routed experts only; router/top-k and all-to-all not timed in most sources); '
                        'hidden/inter full model sizes, experts global; %s' % what] +
          ['left out: %s rows of kernel source %s: %s' % (dt, ks, why) for (dt, ks), why in sorted(dropped.items())] +
          spikes)
    return len(data)


# MLA (DeepSeek-V3 geometry: kv_lora_rank 512, rope 64, nope 128, v 128),
# kernel-level tables only (the module-level ones include projections).  The
# rows are written in the attention-table format with kv_heads 1 and a
# head_dim that makes servesim's attention FLOPs formula (4 x batch x heads
# x head_dim x pairs) equal MLA's: decode runs the absorbed form, QK over
# 576 dims and PV over 512, i.e. 2 x (576 + 512) / 4 = 544; prefill runs the
# expanded form, QK over 192 and PV over 128, i.e. 2 x (192 + 128) / 4 = 160.
MLA_DECODE_DIM, MLA_PREFILL_DIM = 544, 160


# SGLang's MLA collector (aiconfigurator collector/sglang/collect_mla.py)
# times the context phase in the expanded form only on Blackwell, where it
# runs the trtllm_mla backend with QK 192 / PV 128; elsewhere it builds the
# FlashAttention backend with the absorbed dimensions (QK 576, PV 512) for
# both phases.  SGLang itself prefills DeepSeek on Hopper in the expanded form:
# its default fa3 backend takes MHA_ONE_SHOT / MHA_CHUNKED_KV for an extend
# without a cached prefix or with one above chunked_prefix_cache_threshold
# (python/sglang/srt/models/deepseek_v2.py, _handle_attention_backend).  Those
# context rows time about 3.4x the FLOPs of the kernel SGLang runs (H200, 16
# heads, 32,768 tokens: 30.8 ms, 607 TFLOP/s in the absorbed form's FLOPs;
# vLLM's and TensorRT-LLM's expanded rows 7.2 and 7.8 ms) and are left out
# of mla_prefill: servesim's loader then prices SGLang's expanded MLA
# prefill there on the next collection of the GPU that has an expanded-form
# table (vLLM 0.14.0's on H100/H200, named in the run header;
# docs/kernels.md, "MLA").
def mla_context_expanded(system, engine):
    return engine != 'sglang' or system.startswith(('b', 'gb'))


# Those absorbed context rows are the form SGLang does run for an extend
# batch whose summed cached prefix is above 0 and below
# chunked_prefix_cache_threshold (8192 by default): _handle_attention_backend
# then dispatches the whole batch to MLA (the absorbed form, as decode),
# e.g. every step of a burst that carries the tail of a chunked prompt.  They
# are kept apart as mla_prefill_absorbed.csv.gz (head_dim 544, the absorbed
# FLOPs-equivalent dimension, as the decode rows); src/cost/mla.c prices such
# a step from them (docs/kernels.md, "MLA").
def mla_tables(ctx, gen, new_keys, note, od, ctx_absorbed=None):
    for p, out_name, col, dim, extra in ((ctx, 'mla_prefill.csv.gz', 'isl', MLA_PREFILL_DIM,
                                          'MLA context attention (expanded), causal, no cached prefix'),
                                         (ctx_absorbed, 'mla_prefill_absorbed.csv.gz', 'isl', MLA_DECODE_DIM,
                                          'MLA context attention in the absorbed form (MQA over the latent, QK 576 '
                                          '/ PV 512, as decode), causal, no cached prefix'),
                                         (gen, 'mla_decode.csv.gz', 'step', MLA_DECODE_DIM,
                                          'MLA generation attention (absorbed), one new token; kv_len = keys attended')):
        if not p:
            continue
        data = fastest_attn(p, col, new_keys, 'mla_dtype', lambda r, d=dim: (int(r['num_heads']), 1, d))
        data, spikes = prefill_spikes(data) if col == 'isl' else decode_spikes(data)
        write_attn(od, out_name, col, data,
                   note + ['%s; per-GPU heads; head_dim %d is the FLOPs-equivalent dimension (see derive.py)' % (extra, dim)]
                   + spikes)


def mla_decode_plausible(gen, system, engine, eng_root):
    """A kernel cannot be slower than a module that runs it plus its GEMMs:
    the MLA generation kernel table is refused when, per (heads, batch), its
    fastest latency is above the same engine's newest measured MLA generation
    module (aic-engines mla/<engine>/<version>/mla_generation_module_perf)
    for more than a tenth of the pairs (TensorRT-LLM's kernel tables: 0 of 88
    above its own module on H100/H200/B200; vLLM 0.14.0's H100/H200 kernel
    rows: 46 and 44 of 88 above vLLM 0.24/0.22's whole module, and 5-9x slower
    than SGLang's kernel)."""
    mods = sorted(glob.glob(os.path.join(eng_root, system, 'mla', engine, '*',
                                         'mla_generation_module_perf.csv*')),
                  key=lambda f: version_key(f.split(os.sep)[-2]))
    if not mods:
        return True, 'no module measurement to check against'
    def fastest(path, extra):
        out = {}
        for r in rows(path):
            if r['kv_cache_dtype'] not in ('bfloat16', 'float16') or not extra(r):
                continue
            k = (int(r['num_heads']), int(r['batch_size']))
            out[k] = min(out.get(k, 1e18), float(r['latency']))
        return out
    kern = fastest(gen, lambda r: r.get('mla_dtype', 'bfloat16') in ('bfloat16', 'float16'))
    mod = fastest(mods[-1], lambda r: r.get('gemm_type', 'bfloat16') in ('bfloat16', 'float16'))
    common = [k for k in kern if k in mod]
    if not common:
        return True, 'no (heads, batch) in common with %s' % mods[-1]
    above = sum(kern[k] > mod[k] for k in common)
    why = '%d of %d (heads, batch) pairs slower than the whole module of %s' % (above, len(common), mods[-1].split(os.sep)[-2])
    return above * 10 <= len(common), why


def allreduce_table(path, note, out):
    best = {}
    for r in rows(path):
        be = r.get('backend', r.get('implementation', ''))
        if be.endswith('_eager') or r['allreduce_dtype'] not in ('bfloat16', 'float16'):
            continue
        key = (int(r['num_gpus']), int(r['message_size']))
        if key not in best:
            best[key] = float(r['latency'])
    data = sorted(k_ + ('%.6g' % (v * 1000.0),) for k_, v in best.items())
    write(out, ['num_gpus', 'message_elems', 'latency_us'], data,
          note + ['custom all-reduce in CUDA graphs, bf16; message_size counts elements (2 bytes each)'])


def version_key(v):
    return [int(x) if x.isdigit() else 0 for x in v.replace('rc', '.').split('.')]


def op_folders(root):
    """(system, op, folder) for each root/<system>/<op> folder of an op servesim reads."""
    for system in sorted(os.listdir(root)):
        for op in ('gemm', 'attention', 'moe', 'comm', 'mla'):
            od = os.path.join(root, system, op)
            if os.path.isdir(od):
                yield system, op, od


def collections_of(aic, eng):
    """(system, engine, version) -> {op: folder} for both exports."""
    out = {}
    for system, op, od in op_folders(aic):
        for d in os.listdir(od):
            if op == 'mla' and not find(os.path.join(od, d), 'generation_mla_perf.csv'):
                continue
            if d.startswith('vllm-'):
                out.setdefault((system, 'vllm', d[5:]), {})[op] = os.path.join(od, d)
    for system, op, od in op_folders(eng):
        for e in os.listdir(od):
            if e == 'nccl':
                continue
            for v in os.listdir(os.path.join(od, e)):
                folder = os.path.join(od, e, v)
                if op == 'moe' and not find(folder, 'moe_perf.csv'):
                    continue
                if op == 'comm' and not find(folder, 'custom_allreduce_perf.csv'):
                    continue
                if op == 'mla' and not find(folder, 'generation_mla_perf.csv'):
                    continue
                out.setdefault((system, e, v), {})[op] = folder
    # a partial re-collection (trtllm 1.3.0rc23 moe on b200) is merged into
    # the big collection of the same engine it refines; keep them apart but
    # drop collections that hold nothing servesim reads.
    return out


def main(aic, eng, out):
    cols = collections_of(aic, eng)
    # the fp4 GEMMs of the engines that tune them, per system (TUNED_FP4)
    tuned = {}
    for (system, e, v), ops in sorted(cols.items()):
        if e not in TUNED_FP4 and 'gemm' in ops and find(ops['gemm'], 'gemm_perf.csv'):
            b = gemm_best(find(ops['gemm'], 'gemm_perf.csv'))
            gemm_clamp(b)
            gemm_outliers(b)
            t = tuned.setdefault(system, {})
            for k_, lat in b.items():
                if k_[0] == 'fp4' and (k_[1:] not in t or lat < t[k_[1:]]):
                    t[k_[1:]] = lat
    for (system, e, v), ops in sorted(cols.items()):
        # partial re-collections (only an all-reduce, or only MoE rows that
        # refine a bigger collection of the same engine) are left out
        if set(ops) <= {'comm'} or set(ops) == {'moe'} or set(ops) == {'mla'}:
            print(system, e, v, 'skipped (partial collection)')
            continue
        # the newest vLLM in the aic export duplicates aic-engines' vllm/0.24.0
        od = os.path.join(out, system, '%s-%s' % (e, v))
        note = ['source: ai-dynamo/aiconfigurator 095f58a51c4ca8e61b66ec108d86f223f8d559ce (Apache-2.0), systems/%s, %s %s' % (system, e, v),
                'derived by scripts/mfu/derive.py; latency in microseconds, one call on one GPU']
        wrote = []
        os.makedirs(od, exist_ok=True)
        if 'gemm' in ops and find(ops['gemm'], 'gemm_perf.csv'):
            gemm_table(find(ops['gemm'], 'gemm_perf.csv'), note, os.path.join(od, 'gemm.csv.gz'),
                       tuned.get(system) if e in TUNED_FP4 else None, e not in QUANT_UNFUSED)
            wrote.append('gemm')
        if 'attention' in ops:
            a = ops['attention']
            new = not (e == 'vllm' and version_key(v) < version_key('0.22.0'))
            attn_tables(find(a, 'context_attention_perf.csv'), find(a, 'generation_attention_perf.csv'), new, note, od,
                        fa3_misplanned(system, e, v))
            window_tables(find(a, 'context_attention_perf.csv'), find(a, 'generation_attention_perf.csv'), new, note, od)
            wrote.append('attention')
        if 'moe' in ops:
            moe_table(find(ops['moe'], 'moe_perf.csv'), note, os.path.join(od, 'moe.csv.gz'), e, system)
            wrote.append('moe')
            if (system, e, v) in MOE_KERNELS:
                stem, ks, dts = MOE_KERNELS[(system, e, v)]
                moe_table(find(ops['moe'], 'moe_perf.csv'), note, os.path.join(od, stem + '.csv.gz'), e, system,
                          (ks, dts))
                wrote.append(stem)
        if 'mla' in ops and find(ops['mla'], 'generation_mla_perf.csv'):
            new = not (e == 'vllm' and version_key(v) < version_key('0.22.0'))
            gen = find(ops['mla'], 'generation_mla_perf.csv')
            ok, why = mla_decode_plausible(gen, system, e, eng)
            if not ok:
                print(system, e, v, 'MLA decode refused:', why)
                gen = None
            ctx = find(ops['mla'], 'context_mla_perf.csv')
            ctx_abs = None
            if ctx and not mla_context_expanded(system, e):
                print(system, e, v, 'MLA context in the absorbed form: kept as mla_prefill_absorbed')
                ctx, ctx_abs = None, ctx
            mla_tables(ctx, gen, new, note, od, ctx_abs)
            wrote.append('mla')
        if 'comm' in ops and find(ops['comm'], 'custom_allreduce_perf.csv'):
            allreduce_table(find(ops['comm'], 'custom_allreduce_perf.csv'), note, os.path.join(od, 'allreduce.csv.gz'))
            wrote.append('allreduce')
        if not wrote:
            os.rmdir(od)
        print(system, e, v, ' '.join(wrote))


def self_test():
    """--test: prefill_spikes on made-up series."""
    def series(key, pts):
        return [key + (L, '%g' % t) for L, t in pts]
    a = series((8, 1, 128, 'bf16', 1), [(4096, 93.3), (8192, 277), (12288, 561), (16384, 3608)])
    b = series((4, 1, 128, 'bf16', 16), [(2048, 250), (4096, 587), (6144, 4244), (8192, 1982)])
    c = series((12, 1, 128, 'fp8', 16), [(1024, 61), (1536, 216), (2048, 376), (3072, 592)])
    kept, note = prefill_spikes(a + b + c)
    got = {(r[0], r[5]) for r in kept}
    assert (8, 16384) not in got and (8, 12288) in got, 'the longest row, 6.4x its predecessor: dropped'
    assert (4, 6144) not in got and (4, 8192) in got, 'a spike whose next row is back on the line: dropped'
    assert (12, 1536) in got and (12, 2048) in got, 'a sustained step (the next rows stay high): kept'
    assert len(kept) == len(a + b + c) - 2 and 'dropped 2 ' in note[0], note
    d = series((4, 1, 544, 'bf16', 16), [(64, 11.7), (128, 3116), (256, 16.3), (512, 40)])
    e = series((2, 1, 192, 'fp8', 2), [(32768, 230), (65536, 459), (131072, 1397)])
    kept, note = decode_spikes(d + e)
    got = {(r[0], r[5]) for r in kept}
    assert (4, 128) not in got and (4, 256) in got, 'a decode spike between two rows on the line: dropped'
    assert (2, 131072) in got, "a decode's longest row: kept"
    print('ok: prefill_spikes drops 2 isolated spikes of 12 rows and keeps a sustained step; decode_spikes drops '
          'an interior spike and keeps the longest row')


if __name__ == '__main__':
    if len(sys.argv) == 2 and sys.argv[1] == '--test':
        self_test()
        sys.exit(0)
    if len(sys.argv) != 4:
        sys.exit('usage: derive.py AIC_DIR AIC_ENGINES_DIR OUT_DIR')
    main(sys.argv[1], sys.argv[2], sys.argv[3])
