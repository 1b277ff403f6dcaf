#!/usr/bin/env python3
"""Can a GPU without a W4A16 MoE measurement (A100: vLLM runs gpt-oss's MXFP4
experts through Marlin on Ampere) borrow another GPU's Marlin curve?  Checked
on the GPUs that measured the same Marlin kernels (issue 9): nothing fitted.

Data: aiconfigurator's raw vLLM 0.24.0 MoE tables
(../shared/data/mfu/aic-engines/<gpu>/moe/vllm/0.24.0/moe_perf.csv.gz, CUDA
graph replay), the rows whose kernel_source runs Marlin: int4_wo
(compressed-tensors WNA16, 7168 x 2048, top-8 of 384, 1,053 rows a GPU) and
w4a16_mxfp4 (compressed-tensors MXFP4, 3584 x 3072, top-16 of 896, 972 rows)
on H100, H200 and B200; and vLLM 0.14.0's Marlin int4 rows (../shared/data/
mfu/aic/<gpu>/moe/vllm-0.14.0/moe_perf.csv, many shapes) on H100 and H200.

Three ways to carry a curve from GPU S to GPU D at the same shape and tokens:
- efficiency: D's roofline (moetab.c moe_roofline_s: W4A16 = bf16 math, 0.5 B
  a weight, HBM) divided by S's measured roofline efficiency (what servesim
  does for GPUs without tables, tables_of);
- time: S's measured time unchanged;
- SMs: S's time x S's SM count / D's.
Printed: median |log(predicted / measured)| / median predicted / measured
(rows), over all tokens, tokens <= 128 and tokens > 128.

usage: python3 scripts/mfu/check_w4a16_borrow.py   (from the repository root)"""
import csv
import gzip
import math
import os
import statistics as st

SHARED = os.path.join('..', 'shared', 'data', 'mfu')
PEAK = {'h100': 989.4e12, 'h200': 989.4e12, 'b200': 2250e12}
HBM = {'h100': 3.35e12, 'h200': 4.8e12, 'b200': 8.0e12}
SM = {'h100': 132, 'h200': 132, 'b200': 148}


def roofline(key, gpu):
    h, w, topk, e, tp, ep, _, tok = key
    el, w = e / ep, w / tp
    assign = tok * topk / ep
    touched = el * (1.0 - (1.0 - 1.0 / e) ** (tok * topk))
    flops = 2.0 * 3.0 * assign * h * w
    nbytes = touched * 3.0 * h * w * 0.5 + assign * (2.0 * h + 3.0 * w) * 2.0
    return max(flops / PEAK[gpu], nbytes / HBM[gpu])


def load(path, keep):
    out = {}
    opener = gzip.open if path.endswith('.gz') else open
    with opener(path, 'rt') as f:
        for r in csv.DictReader(f):
            if not keep(r):
                continue
            k = (int(r['hidden_size']), int(r['inter_size']), int(r['topk']), int(r['num_experts']),
                 int(r['moe_tp_size']), int(r['moe_ep_size']), r['distribution'], int(r['num_tokens']))
            t = float(r['latency']) * 1e-3
            out[k] = min(out.get(k, t), t)
    return out


def fmt(v):
    if not v:
        return '-'
    return '%.3f / %.3f (%d)' % (st.median(abs(x) for x in v), math.exp(st.median(v)), len(v))


def check(tabs, fam, src, dst):
    s, d = tabs[src, fam], tabs[dst, fam]
    for how in ('efficiency', 'time', 'SMs'):
        lr = {'all': [], 'dec': [], 'pre': []}
        for k, t in d.items():
            if k not in s:
                continue
            if how == 'efficiency':
                p = roofline(k, dst) / (roofline(k, src) / s[k])
            elif how == 'time':
                p = s[k]
            else:
                p = s[k] * SM[src] / SM[dst]
            x = math.log(p / t)
            lr['all'].append(x)
            lr['dec' if k[7] <= 128 else 'pre'].append(x)
        print('  %-13s %s -> %s by %-10s all %s   <= 128 %s   > 128 %s' % (
            fam, src, dst, how, fmt(lr['all']), fmt(lr['dec']), fmt(lr['pre'])))


def main():
    tabs = {}
    for g in ('h100', 'h200', 'b200'):
        p = os.path.join(SHARED, 'aic-engines', '%s_sxm' % g, 'moe', 'vllm', '0.24.0', 'moe_perf.csv.gz')
        tabs[g, 'marlin int4'] = load(p, lambda r: 'marlinexperts' in r['kernel_source'] and
                                      r['moe_dtype'] == 'int4_wo')
        tabs[g, 'marlin mxfp4'] = load(p, lambda r: 'marlinexperts' in r['kernel_source'] and
                                       r['moe_dtype'] == 'w4a16_mxfp4')
    for g in ('h100', 'h200'):
        p = os.path.join(SHARED, 'aic', '%s_sxm' % g, 'moe', 'vllm-0.14.0', 'moe_perf.csv')
        tabs[g, 'marlin 0.14'] = load(p, lambda r: r['moe_dtype'] == 'int4_wo')
    print('Marlin MoE carried between GPUs, median |log err| / median predicted/measured (rows):')
    for fam in ('marlin int4', 'marlin mxfp4'):
        for src, dst in (('h100', 'h200'), ('h100', 'b200'), ('h200', 'b200')):
            check(tabs, fam, src, dst)
    check(tabs, 'marlin 0.14', 'h100', 'h200')
    print('roofline efficiency of the measured curves, median (tokens <= 16, >= 4096):')
    for (g, fam), tab in sorted(tabs.items()):
        e = {k: roofline(k, g) / t for k, t in tab.items()}
        print('  %-5s %-13s %.3f (%.3f, %.3f)' % (g, fam, st.median(e.values()),
                                                 st.median(v for k, v in e.items() if k[7] <= 16),
                                                 st.median(v for k, v in e.items() if k[7] >= 4096)))


if __name__ == '__main__':
    main()
