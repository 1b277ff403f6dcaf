#!/usr/bin/env python3
"""Kernel terms for the small operators (norms, RoPE, activations, residual
adds), fitted on kernel timings only (issue 9).  Nothing here reads engine
data; README "How a step is priced" says what the engine data made of them.

1. A floor per kernel under CUDA-graph replay: aiconfigurator's vLLM static
   fp8 activation quantisation kernel (static_scaled_fp8_quant, one
   elementwise pass reading bf16 and writing fp8, 3 B an element), timed by
   collector/helper.py benchmark_with_power: five launches captured in one CUDA
   graph, replayed, CUDA events around the replays
   (../shared/data/mfu/aic/<gpu>/quantize/vllm-*/scale_matrix_perf.csv; H100
   and L40S vLLM 0.24.0, H200 and B200 0.22.0; A100 has none: the collector
   skips sm <= 86).  The floor is the median time of the rows that move at
   most 256 kB; each GPU is held out in turn and predicted by the median of the
   others.  The smallest bf16 GEMM kernels of vLLM 0.14.0's GEMM tables (also
   graph replay) compare A100 with H100.
2. The same kernel's bandwidth at >= 256 MB (past every L2), as a fraction of
   HBM: what a current vectorised elementwise kernel reaches.
3. Per operator class, the fraction of HBM Vidur's kernels reach at >= 128 MB
   (microsoft/vidur 7d47513, ../shared/data/mfu/vidur/compute/{a100,h100}/
   meta-llama/*/mlp.csv: per-operator GPU kernel time summed from the PyTorch
   profiler's trace, eager, sarathi-serve's kernels: RMSNorm, RoPE,
   SiLU-and-mul and the torch residual add), bytes as servesim's op graph
   counts them (norm 4 B an element, RoPE 4 B a rotated element, SiLU-and-mul
   6 B an output element, add 6 B).  Held out by GPU: each class fitted on one
   GPU predicts the other's rows.
4. At decode sizes (m <= 128) Vidur's per-layer sum of those five operators
   against servesim's pricing (bytes at bw_eff 0.8 of HBM, no floor) and the
   floor model (one floor per kernel launched, residual adds fused into the
   next norm as vLLM and SGLang run them: fused_add_rms_norm).

usage: python3 scripts/mfu/fit_elementwise.py   (from the repository root)"""
import csv
import math
import os
import statistics as st

SHARED = os.path.join('..', 'shared', 'data', 'mfu')
HBM = {'a100': 2.039e12, 'h100': 3.35e12, 'h200': 4.8e12, 'b200': 8.0e12, 'l40s': 0.864e12}
QUANT = {'h100': 'h100_sxm/quantize/vllm-0.24.0', 'h200': 'h200_sxm/quantize/vllm-0.22.0',
         'b200': 'b200_sxm/quantize/vllm-0.22.0', 'l40s': 'l40s/quantize/vllm-0.24.0'}
VIDUR_OPS = ('input_layernorm', 'post_attention_layernorm', 'attn_rope', 'mlp_act', 'add')
CLASS = {'input_layernorm': 'norm', 'post_attention_layernorm': 'norm', 'attn_rope': 'rope',
         'mlp_act': 'act', 'add': 'add'}
KERNELS = {'input_layernorm': 1, 'post_attention_layernorm': 1, 'attn_rope': 1, 'mlp_act': 1, 'add': 0}


def quant_rows(gpu):
    path = os.path.join(SHARED, 'aic', QUANT[gpu], 'scale_matrix_perf.csv')
    with open(path) as f:
        return [(int(r['m']) * int(r['k']) * 3.0, float(r['latency']) * 1e-3) for r in csv.DictReader(f)]


def floor_part():
    print('1. floor per kernel, CUDA-graph replay (vLLM static_scaled_fp8_quant, rows <= 256 kB):')
    med = {}
    for g in QUANT:
        small = [t for b, t in quant_rows(g) if b <= 256e3]
        med[g] = st.median(small)
        print('   %-5s %4d rows: median %.2f us (min %.2f, 90th pct %.2f)' % (
            g, len(small), med[g] * 1e6, min(small) * 1e6, sorted(small)[int(0.9 * len(small))] * 1e6))
    pooled = st.median(med.values())
    print('   pooled (median of the GPUs) %.2f us; each GPU held out, predicted by the others:' % (pooled * 1e6))
    for g in med:
        other = st.median(v for k, v in med.items() if k != g)
        print('     %-5s predicted %.2f us, measured %.2f us (%+.0f %%)' % (
            g, other * 1e6, med[g] * 1e6, 100 * (other / med[g] - 1)))
    for g, d in (('a100', 'a100_sxm'), ('h100', 'h100_sxm')):
        with open(os.path.join(SHARED, 'aic', d, 'gemm', 'vllm-0.14.0', 'gemm_perf.csv')) as f:
            t = sorted(float(r['latency']) * 1e3 for r in csv.DictReader(f)
                       if r['gemm_dtype'] in ('bfloat16', 'float16') and int(r['m']) * int(r['n']) * int(r['k'])
                       <= 1 << 21)
        print('   smallest bf16 GEMM kernels (m n k <= 2M), vLLM 0.14.0, %s: min %.2f us, median of the 10 '
              'fastest %.2f us' % (g, t[0], st.median(t[:10])))
    return pooled


def quant_bw_part():
    print('2. the same kernel at >= 256 MB, fraction of HBM:')
    for g in QUANT:
        v = [b / t / HBM[g] for b, t in quant_rows(g) if b >= 256e6]
        print('   %-5s %3d rows: median %.2f (range %.2f-%.2f)' % (g, len(v), st.median(v), min(v), max(v)))


def vidur_rows(gpu):
    """(model, tp, m, op, bytes, seconds) over Vidur's mlp.csv rows."""
    out = []
    base = os.path.join(SHARED, 'vidur', 'compute', gpu, 'meta-llama')
    for name in sorted(os.listdir(base)):
        with open(os.path.join(base, name, 'mlp.csv')) as f:
            for r in csv.DictReader(f):
                tp, m = int(r['num_tensor_parallel_workers']), int(r['num_tokens'])
                h, nh, nkv = int(r['n_embd']), int(r['n_head']), int(r['n_kv_head'])
                hd, w = h // nh, int(r['n_expanded_embd']) // tp
                per_tok = {'input_layernorm': h * 4, 'post_attention_layernorm': h * 4,
                           'attn_rope': (nh + nkv) // tp * hd * 4, 'mlp_act': w * 6, 'add': h * 6}
                for op in VIDUR_OPS:
                    out.append((name, tp, m, op, per_tok[op] * m, float(r['time_stats.%s.median' % op]) * 1e-3))
    return out


def vidur_part(floor):
    print('3. Vidur, fraction of HBM per class at >= 128 MB (rows), and held out by GPU:')
    rows = {g: vidur_rows(g) for g in ('a100', 'h100')}
    eta = {}
    for g, rs in rows.items():
        for c in ('norm', 'rope', 'act', 'add'):
            v = [b / t / HBM[g] for (_, _, _, op, b, t) in rs if CLASS[op] == c and b >= 128e6]
            eta[g, c] = st.median(v)
        print('   %-5s ' % g + ', '.join('%s %.2f' % (c, eta[g, c]) for c in ('norm', 'rope', 'act', 'add')))
    pooled = {c: st.median([eta['a100', c], eta['h100', c]]) for c in ('norm', 'rope', 'act', 'add')}
    print('   pooled: ' + ', '.join('%s %.2f' % (c, v) for c, v in pooled.items()))
    for src, dst in (('h100', 'a100'), ('a100', 'h100')):
        big = [math.log(b / (HBM[dst] * eta[src, CLASS[op]]) / t) for (_, _, _, op, b, t) in rows[dst]
               if b >= 128e6]
        flat = [math.log(b / (HBM[dst] * 0.8) / t) for (_, _, _, op, b, t) in rows[dst] if b >= 128e6]
        print('   %s -> %s (>= 128 MB, %d rows): median |log err| %.3f, model/measured %.3f; one 0.8 for all: '
              '%.3f, %.3f' % (src, dst, len(big), st.median(abs(x) for x in big), math.exp(st.median(big)),
                              st.median(abs(x) for x in flat), math.exp(st.median(flat))))
    print('4. decode sizes (m <= 128), per layer: the five operators summed, median over models x TP x m:')
    for g, rs in rows.items():
        per = {}
        for (mdl, tp, m, op, b, t) in rs:
            if m > 128:
                continue
            a = per.setdefault((mdl, tp, m), [0.0, 0.0, 0.0])
            a[0] += t
            a[1] += b / (HBM[g] * 0.8)
            a[2] += KERNELS[op] * floor + b / (HBM[g] * pooled[CLASS[op]])
        v = list(per.values())
        print('   %-5s Vidur %.1f us, servesim today %.2f us, floor model %.1f us (4 kernels x %.2f us); '
              'Vidur\'s smallest kernel (the add) %.1f us' % (
                  g, st.median(x[0] for x in v) * 1e6, st.median(x[1] for x in v) * 1e6,
                  st.median(x[2] for x in v) * 1e6, floor * 1e6,
                  st.median(t for (_, _, m, op, _, t) in rs if op == 'add' and m <= 128) * 1e6))


def main():
    floor = floor_part()
    quant_bw_part()
    vidur_part(floor)


if __name__ == '__main__':
    main()
