#!/usr/bin/env python3
"""How servesim prices 4-bit weight-only (W4A16) routed experts where no
collection times them (A100: vLLM runs gpt-oss's MXFP4 experts on Marlin,
and vLLM 0.14.0's A100 collection measures bf16 experts only), checked on
the GPUs whose collections time both Marlin and the bf16 fused-MoE kernel
at the same shapes and token counts.  Nothing is fitted.

Rules (cost/moe.c moe_w4a16_s; moetab.c moe_roofline_s's touched experts):
- bf16-less-saved: the same GPU's bf16 fused-MoE time less the weight bytes
  the 4-bit experts save (1.5 B a weight of the touched experts) at the
  weight bandwidth (HBM x bw_eff 0.8), never below a quarter of the bf16
  time: the rule cost/gemm.c applies to the dense W4A16 GEMMs;
- roofline: the routed FLOPs at the default MFU 0.60 of the bf16 peak or the
  4-bit weights and activations at HBM x 0.8, plus one 5 us launch (what
  priced them before).
Printed per collection: rows, median predicted / measured (p10, p90), median
|log(predicted / measured)|, and the medians by token decade.

Data: aiconfigurator's raw vLLM 0.14.0 tables, ../shared/data/mfu/aic/<gpu>/
moe/vllm-0.14.0/moe_perf.csv on H100 and H200 (vllm_marlin_moe int4_wo rows
against the vllm_fused_moe bfloat16 rows of the same shape and tokens),
distribution power_law_1.01.  vLLM 0.24.0's raw tables (aic-engines) time
Marlin at shapes they time no bf16 kernel at.

usage: python3 scripts/mfu/check_w4a16_moe.py   (from the repository root)"""
import csv
import gzip
import math
import os
import statistics as st

SHARED = os.path.join('..', 'shared', 'data', 'mfu')
PEAK = {'h100_sxm': 989.4e12, 'h200_sxm': 989.4e12}
HBM = {'h100_sxm': 3.35e12, 'h200_sxm': 4.8e12}
BW_EFF, MFU_DEFAULT, LAUNCH = 0.8, 0.60, 5e-6
SETS = [(g, os.path.join(SHARED, 'aic', g, 'moe', 'vllm-0.14.0', 'moe_perf.csv'), 'vLLM 0.14.0')
        for g in ('h100_sxm', 'h200_sxm')]


def load(path):
    w4, b16 = {}, {}
    opener = gzip.open if path.endswith('.gz') else open
    with opener(path, 'rt') as f:
        for r in csv.DictReader(f):
            if r['distribution'] != 'power_law_1.01':
                continue
            src, dt = r['kernel_source'], r['moe_dtype']
            if 'marlin' in src and dt in ('int4_wo', 'w4a16_mxfp4'):
                out = w4
            elif dt == 'bfloat16':
                out = b16
            else:
                continue
            k = (int(r['hidden_size']), int(r['inter_size']), int(r['topk']), int(r['num_experts']),
                 int(r['moe_tp_size']), int(r['moe_ep_size']), int(r['num_tokens']))
            t = float(r['latency']) * 1e-3
            out[k] = min(out.get(k, t), t)
    return w4, b16


def parts(k):
    h, w, topk, e, tp, ep, tok = k
    el, w = e / ep, w / tp
    assign = tok * topk / ep
    touched = el * (1.0 - (1.0 - 1.0 / e) ** (tok * topk))
    return 2.0 * 3.0 * assign * h * w, touched * 3.0 * h * w, assign * (2.0 * h + 3.0 * w) * 2.0


def summary(name, v):
    v = sorted(v)
    return '%-16s rows %4d  median %.2f (p10 %.2f, p90 %.2f)  median |log| %.2f' % (
        name, len(v), st.median(v), v[len(v) // 10], v[9 * len(v) // 10], st.median(abs(math.log(x)) for x in v))


def main():
    for gpu, path, label in SETS:
        if not os.path.exists(path):
            print('%s %s: %s missing' % (gpu, label, path))
            continue
        w4, b16 = load(path)
        bw = HBM[gpu] * BW_EFF
        rule, roof, dec = [], [], {}
        for k, meas in w4.items():
            if k not in b16:
                continue
            flops, weights, act = parts(k)
            tb = b16[k]
            q = max(tb - weights * 1.5 / bw, tb * 0.25)
            r = max(flops / (PEAK[gpu] * MFU_DEFAULT), (weights * 0.5 + act) / bw) + LAUNCH
            rule.append(q / meas)
            roof.append(r / meas)
            d = 10 ** int(math.log10(k[-1]))
            dec.setdefault(d, ([], []))
            dec[d][0].append(q / meas)
            dec[d][1].append(r / meas)
        if not rule:
            print('%s %s: no shape with both Marlin and bf16 rows' % (gpu, label))
            continue
        print('%s %s (predicted / measured Marlin time)' % (gpu, label))
        print('  ' + summary('bf16-less-saved', rule))
        print('  ' + summary('roofline', roof))
        print('  by tokens: ' + ', '.join('%d+: %.2f / %.2f' % (d, st.median(a), st.median(b))
                                          for d, (a, b) in sorted(dec.items())))


if __name__ == '__main__':
    main()
