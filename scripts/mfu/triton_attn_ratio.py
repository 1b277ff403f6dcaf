#!/usr/bin/env python3
"""The prefill cost of vLLM's Triton unified attention kernel relative to
FlashAttention-2, measured on one SM 8.x GPU: the table of
src/cost/tritonattn.c.

aiconfigurator's vLLM 0.24.0 collection on L40S (SM 8.9) times both kernels
at the same shapes: its context_attention rows of head dim 192 (64/4, 32/2,
16/1, 8/1, 4/1, 2/1 and 1/1 query/KV heads, batch 1-64, 1-16,384 tokens,
causal, no cached prefix) ran vllm_triton_attn with an fp8 KV cache and
vllm_flash_attn_fa2 with a bf16 one (vLLM 0.24 routes fp8-KV head-dim-192
shapes to TRITON_ATTN on SM 8.9).  Both kernels keep to SM 8.x's
instructions (mma.sync, cp.async; no TMA or wgmma), as on A100 (SM 8.0).
Per sequence length: the median, over every (batch, heads) cell both kernels
measured, of triton / fa2 latency, with the cells' count and quartiles.
Nothing is fitted: the medians are printed as the C table.

usage: python3 scripts/mfu/triton_attn_ratio.py [AIC_DIR]
       (AIC_DIR default ../shared/data/mfu/aic, the export README.md there)
"""
import os, statistics as st, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from aic import rows, find  # noqa: E402

TABLE = 'l40s/attention/vllm-0.24.0'


def main(aic):
    path = find(os.path.join(aic, TABLE), 'context_attention_perf.csv')
    if not path:
        sys.exit('%s: no context_attention_perf.csv[.gz] under %s' % (aic, TABLE))
    lat = {'tri': {}, 'fa2': {}}
    for r in rows(path):
        if r['head_dim'] != '192' or r['window_size'] != '0':
            continue
        k = 'tri' if r['kernel_source'] == 'vllm_triton_attn' else \
            'fa2' if r['kernel_source'] == 'vllm_flash_attn_fa2' else None
        if not k:
            continue
        key = (int(r['batch_size']), int(r['isl']), int(r['num_heads']), int(r['num_key_value_heads']))
        lat[k][key] = float(r['latency'])
    by_isl = {}
    for key, t in lat['tri'].items():
        f = lat['fa2'].get(key)
        if f:
            by_isl.setdefault(key[1], []).append(t / f)
    print('# %s: %d triton, %d fa2 rows, %d cells both' %
          (path, len(lat['tri']), len(lat['fa2']), sum(len(v) for v in by_isl.values())))
    print('# isl cells median q1 q3')
    for isl in sorted(by_isl):
        v = sorted(by_isl[isl])
        print('# %6d %4d %.3f %.3f %.3f' % (isl, len(v), st.median(v), v[len(v) // 4], v[3 * len(v) // 4]))
    print('\n'.join('\t{%d, %.3f},' % (isl, st.median(by_isl[isl])) for isl in sorted(by_isl)))


if __name__ == '__main__':
    main(sys.argv[1] if len(sys.argv) > 1 else '../shared/data/mfu/aic')
