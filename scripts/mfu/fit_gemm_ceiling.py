#!/usr/bin/env python3
"""Fits each GPU's sustained 16-bit GEMM rate (gpus.json gemm_tflops_sustained)
and checks it on kernel timings it was not fitted on.

Why: aiconfigurator's vLLM GEMM collector (collector/vllm/collect_gemm.py, the
same in the 0.14.0 and 0.24.0 collections) builds RowParallelLinear layers and
leaves their weights as allocated ('# TODO, to evaluate random weights
impact'), so its compute-bound rows time multiplications by uninitialised
memory: they run up to 0.96 of the bf16 peak on A100, H100, H200 and B200, above
the maximum achievable matmul rate measured with random data
(../shared/data/mfu/kernel_tables/mamf_stas00_ml_engineering.csv: A100 271,
H100 795, B200 1745 TFLOPS).  The SGLang collector (collector/sglang/
collect_gemm.py) times F.linear, the same cuBLAS kernel vLLM runs for an
unquantised layer, on torch.randn weights.  The form: a GEMM takes
max(vLLM table time, FLOPs / C); C per GPU minimises the median |log(model /
SGLang time)| over the rows with m >= 512 that both tables hold.

Held out: TensorRT-LLM's GEMM tables of the same GPUs (data/mfu/<gpu>/
trtllm-*), Vidur's A100 and H100 per-operator timings of Llama-2-7B/70B and
Llama-3-8B (../shared/data/mfu/vidur, fp16 dummy weights, 20 back-to-back
steps; the shapes the vLLM table holds).

Second part, fp8 (issue 9): the same fit on the fp8 rows (vLLM 0.24.0 against
SGLang 0.5.14, whose collector quantises torch.rand weights; TensorRT-LLM held
out), and per table the share of compute-bound rows above the fitted C and
above stas00's maximum achievable matmul with random data, fp8 beside bf16.
The vLLM fp8 tables are not above the random-data rates the way the bf16 ones
are, so no fp8 ceiling is used (README, "Kernel collections").

usage: python3 scripts/mfu/fit_gemm_ceiling.py [--a100 SGLANG_CSV [TRTLLM_CSV]]
  SGLANG_CSV / TRTLLM_CSV: aiconfigurator's A100 tables
  (ai-dynamo/aiconfigurator 0b077da5, aic-core/src/aiconfigurator_core/systems/
  data/a100_sxm/gemm/sglang/0.5.10/gemm_perf.parquet and gemm/trtllm/1.0.0/,
  written out as CSV: gemm_dtype,m,n,k,latency in ms); without them A100 is
  checked against Vidur only.  Run from the repository root."""
import csv
import gzip
import math
import os
import statistics as st
import sys

DATA = 'data/mfu'
VIDUR = os.path.join('..', 'shared', 'data', 'mfu', 'vidur', 'compute')
PEAK = {'a100_sxm': 312e12, 'h100_sxm': 989.4e12, 'h200_sxm': 989.4e12, 'b200_sxm': 2250e12}
# stas00's maximum achievable fp8 matmul with random data (../shared/data/mfu/
# kernel_tables/mamf_stas00_ml_engineering.csv; H200 = the H100 chip)
MAMF_FP8 = {'h100_sxm': 1453.4e12, 'h200_sxm': 1453.4e12, 'b200_sxm': 3432.5e12}
MAMF_BF16 = {'h100_sxm': 794.5e12, 'h200_sxm': 794.5e12, 'b200_sxm': 1745.0e12}
M_MIN = 512  # compute-bound rows only: below it the tables agree (weights stream)


def load_table(path, dtype='bf16'):
    """dtype rows of a derive.py gemm.csv.gz: {(m, n, k): seconds}."""
    out = {}
    with gzip.open(path, 'rt') as f:
        for line in f:
            if line.startswith('#') or line.startswith('dtype'):
                continue
            d, m, n, k, t = line.strip().split(',')
            if d == dtype:
                out[(int(m), int(n), int(k))] = float(t) * 1e-6
    return out


def load_aic_csv(path):
    """An aiconfigurator gemm_perf table as CSV (latency in ms), 16-bit rows."""
    out = {}
    with open(path) as f:
        for r in csv.DictReader(f):
            if r['gemm_dtype'] in ('bfloat16', 'float16'):
                out[(int(r['m']), int(r['n']), int(r['k']))] = float(r['latency']) * 1e-3
    return out


def load_vidur(gpu, shapes):
    """Vidur's per-operator medians at the shapes the vLLM table holds."""
    models = {'Llama-2-7b-hf': (4096, 32, 32, 11008), 'Llama-2-70b-hf': (8192, 64, 8, 28672),
              'Meta-Llama-3-8B': (4096, 32, 8, 14336)}
    out = {}
    for name, (h, nh, nkv, inter) in models.items():
        path = os.path.join(VIDUR, gpu, 'meta-llama', name, 'mlp.csv')
        if not os.path.exists(path):
            continue
        with open(path) as f:
            for r in csv.DictReader(f):
                tp, m, hd = int(r['num_tensor_parallel_workers']), int(r['num_tokens']), h // nh
                ops = {'attn_pre_proj': ((nh + 2 * nkv) * hd // tp, h), 'attn_post_proj': (h, h // tp),
                       'mlp_up_proj': (2 * inter // tp, h), 'mlp_down_proj': (h, inter // tp)}
                for op, (n, k) in ops.items():
                    if (m, n, k) in shapes:
                        out[(m, n, k)] = float(r['time_stats.%s.median' % op]) * 1e-3
    return out


def score(ref, truth, c):
    """(median |log(model / truth)|, median model / truth, rows) over m >= M_MIN."""
    lr = [math.log(max(ref[s], 2.0 * s[0] * s[1] * s[2] / c) / t) for s, t in truth.items()
          if s in ref and s[0] >= M_MIN]
    if not lr:
        return None
    return st.median(abs(x) for x in lr), math.exp(st.median(lr)), len(lr)


def fit(ref, rnd, peak):
    best = None
    for i in range(500, 2001):  # 0.25 .. 1.0 of the peak in 0.05 % steps
        c = peak * i / 2000.0
        e = score(ref, rnd, c)[0]
        if best is None or e < best[0]:
            best = (e, c)
    return best[1]


def above(tab, c):
    """per cent of the rows with m >= M_MIN faster than FLOPs / c"""
    big = [s for s in tab if s[0] >= M_MIN]
    return 100.0 * sum(1 for s in big if 2.0 * s[0] * s[1] * s[2] / tab[s] > c) / max(1, len(big))


def fmt(s):
    return '-' if s is None else '%.3f / %.3f (%d)' % s


def report(gpu, vllm, ref, rnd, held, dtype='bf16'):
    peak = PEAK[gpu] * (2 if dtype == 'fp8' else 1)
    c = fit(ref, rnd, peak)
    print('%s %s: vLLM %s, fitted on SGLang: C = %.0f TFLOPS (%.3f of the %s peak)' %
          (gpu, dtype, vllm, c / 1e12, c / peak, dtype))
    print('  median |log err| / median model/measured (rows), no ceiling -> C')
    print('    %-28s %s -> %s' % ('SGLang (fitted)', fmt(score(ref, rnd, 1e30)), fmt(score(ref, rnd, c))))
    for name, tab in held:
        print('    %-28s %s -> %s' % (name + ' (held out)', fmt(score(ref, tab, 1e30)),
                                       fmt(score(ref, tab, c))))
    return c


def newest(gpu, engine):
    vs = [d for d in os.listdir(os.path.join(DATA, gpu)) if d.startswith(engine + '-')]
    vs.sort(key=lambda d: [int(x) if x.isdigit() else 0 for x in d.split('-', 1)[1].replace('rc', '.').split('.')])
    return vs[-1] if vs else None


def main(argv):
    out = {}
    for gpu in ('h100_sxm', 'h200_sxm', 'b200_sxm'):
        vllm, trt = newest(gpu, 'vllm'), newest(gpu, 'trtllm')
        ref = load_table(os.path.join(DATA, gpu, vllm, 'gemm.csv.gz'))
        rnd = load_table(os.path.join(DATA, gpu, 'sglang-0.5.14', 'gemm.csv.gz'))
        held = [('TensorRT-LLM ' + trt.split('-', 1)[1], load_table(os.path.join(DATA, gpu, trt, 'gemm.csv.gz')))]
        vid = load_vidur(gpu.split('_')[0], ref)
        if vid:
            held.append(('Vidur', vid))
        out[gpu] = report(gpu, vllm, ref, rnd, held)
    ref = load_table(os.path.join(DATA, 'a100_sxm', 'vllm-0.14.0', 'gemm.csv.gz'))
    held = [('Vidur', load_vidur('a100', ref))]
    if len(argv) > 2 and argv[1] == '--a100':
        rnd = load_aic_csv(argv[2])
        if len(argv) > 3:
            held.insert(0, ('TensorRT-LLM 1.0.0', load_aic_csv(argv[3])))
        out['a100_sxm'] = report('a100_sxm', 'vllm-0.14.0', ref, rnd, held)
    else:
        print('a100_sxm: no SGLang table given (--a100 CSV); Vidur against the vLLM table:')
        for c in (1e30, 249e12):
            print('    C = %-8s Vidur %s' % ('none' if c > 1e20 else '%.0f' % (c / 1e12), fmt(score(ref, held[0][1], c))))
    print('gpus.json gemm_tflops_sustained: ' +
          ', '.join('%s %.0f' % (g, c / 1e12) for g, c in sorted(out.items())))
    fp8, bf16_c = {}, out
    for gpu in ('h100_sxm', 'h200_sxm', 'b200_sxm'):
        trt = newest(gpu, 'trtllm')
        ref = load_table(os.path.join(DATA, gpu, 'vllm-0.24.0', 'gemm.csv.gz'), 'fp8')
        rnd = load_table(os.path.join(DATA, gpu, 'sglang-0.5.14', 'gemm.csv.gz'), 'fp8')
        held = [('TensorRT-LLM ' + trt.split('-', 1)[1],
                 load_table(os.path.join(DATA, gpu, trt, 'gemm.csv.gz'), 'fp8'))]
        fp8[gpu] = c = report(gpu, 'vllm-0.24.0', ref, rnd, held, 'fp8')
        mamf = MAMF_FP8[gpu]
        print('    C / stas00 maximum achievable fp8 matmul (%.0f TFLOPS) = %.3f' % (mamf / 1e12, c / mamf))
        print('    compute-bound rows (m >= %d) above C / above the maximum achievable, fp8 vs bf16 (bf16 C %.0f):' %
              (M_MIN, bf16_c[gpu] / 1e12))
        for name, path in (('vLLM 0.24.0', os.path.join(DATA, gpu, 'vllm-0.24.0', 'gemm.csv.gz')),
                           ('SGLang 0.5.14', os.path.join(DATA, gpu, 'sglang-0.5.14', 'gemm.csv.gz')),
                           ('TensorRT-LLM ' + trt.split('-', 1)[1], os.path.join(DATA, gpu, trt, 'gemm.csv.gz'))):
            f8, b16 = load_table(path, 'fp8'), load_table(path, 'bf16')
            print('      %-24s fp8 %4.1f %% / %4.1f %%   bf16 %4.1f %% / %4.1f %%' % (
                name, above(f8, c), above(f8, mamf), above(b16, bf16_c[gpu]), above(b16, MAMF_BF16[gpu])))
    print('fp8 ceiling fitted the same way (not used: see README, "Kernel collections"): ' +
          ', '.join('%s %.0f' % (g, c / 1e12) for g, c in sorted(fp8.items())))


if __name__ == '__main__':
    main(sys.argv)
