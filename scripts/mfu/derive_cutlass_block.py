#!/usr/bin/env python3
"""Derive vLLM's CUTLASS block-scaled fp8 GEMM table (gemm_cutlass_block.csv.gz)
from aiconfigurator's vLLM 0.19.0 collections.

usage: python3 scripts/mfu/derive_cutlass_block.py AIC_DIR OUT_DIR
  AIC_DIR holds <system>/gemm/vllm-0.19.0/gemm_perf.csv[.gz] for h100_sxm and
  h200_sxm: aiconfigurator 095f58a's aic-core/src/aiconfigurator_core/systems/
  data/<system>/gemm/vllm/0.19.0/gemm_perf.parquet written as CSV by
  scripts/mfu/parquet_csv.mjs (../shared/data/mfu/aic exports 0.14.0 and 0.24.0
  only; data/PROVENANCE.md)
Writes OUT_DIR/<system>/vllm-0.14.0/gemm_cutlass_block.csv.gz (the collection
servesim prices vLLM <= 0.19 from) for h100_sxm and h200_sxm: columns dtype
(fp8), m, n, k, latency_us; '#' provenance lines.

What the rows are: aiconfigurator's collector/vllm/collect_gemm.py (the
2026-04 collector, after commit 2ecce6ab4 "add nvfp4 gemm and fix fp8 block
problem") times vLLM's RowParallelLinear with Fp8Config(weight_block_size
[128, 128], dynamic activations) on float16 activations under a CUDA graph
(collector/helper.py benchmark_with_power).  DeepGEMM takes only bf16 outputs
(vllm/utils/deep_gemm.py should_use_deepgemm_for_fp8_linear), so every
fp8_block row is W8A8BlockFp8LinearOp's other Hopper path
(vllm/model_executor/layers/quantization/utils/fp8_utils.py _run_cutlass):
the per-token-group activation quantisation, then padded_cutlass (no copy
at these m, multiples of 4) and cutlass_scaled_mm's block-scaled SM90
kernel.  Not the 0.14.0 collection's rows: that collector quantised op by
op (most likely QuantFP8's forward_native, uncompiled, under its bare
VllmConfig(): no model config, so no "+quant_fp8"; custom_ops "none"),
which adds ~12 us a call at small m and 9-13 ps an activation element at
large m (H200, m 8192, n 512, k 7168: 749 us against 0.19.0's 171 us; its
per-tensor fp8 rows are slower than its bf16 rows there), where a served
vLLM quantises in one pass.  derive.py merges the fp8_block rows of the
collections it reads into 'fp8' (fastest per shape); this table keeps them
apart for the deployments that run that path (vLLM without the deep_gemm
package, src/cost/cutlassbs.c).  Same m grid and outlier rule as derive.py's
GEMMs; where a key was measured twice the faster is kept.
"""
import os, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from aic import find, write  # noqa: E402
from derive import GEMM_M, gemm_outliers, rows  # noqa: E402

SYSTEMS = ('h100_sxm', 'h200_sxm')
VERSION = '0.19.0'  # the collection the rows come from
COLLECTION = '0.14.0'  # the folder servesim reads them from


def derive(aic, system, out):
    d = os.path.join(aic, system, 'gemm', 'vllm-' + VERSION)
    path = find(d, 'gemm_perf.csv')
    if not path:
        sys.exit('%s: no gemm_perf.csv' % d)
    best = {}
    for r in rows(path):
        if r['gemm_dtype'] != 'fp8_block':
            continue
        m, n, k = int(r['m']), int(r['n']), int(r['k'])
        if m not in GEMM_M or n < 128 or k < 128:
            continue
        key = ('fp8', m, n, k)
        lat = float(r['latency'])
        if key not in best or lat < best[key]:
            best[key] = lat
    notes = ['source: ai-dynamo/aiconfigurator 095f58a51c4ca8e61b66ec108d86f223f8d559ce (Apache-2.0), systems/%s, '
             'vllm %s, gemm_dtype fp8_block' % (system, VERSION),
             'derived by scripts/mfu/derive_cutlass_block.py; latency in microseconds, one call on one GPU',
             "vLLM's W8A8BlockFp8LinearOp._run_cutlass: per-token-group quantisation + padded_cutlass "
             '(block-scaled SM90 CUTLASS), float16 activations, CUDA graph',
             "not the vllm 0.14.0 collection's rows: its collector ran QuantFP8's native form op by op "
             '(custom ops off, not compiled), which no served vLLM does']
    notes += gemm_outliers(best)
    data = sorted(k_ + ('%.6g' % (v * 1000.0),) for k_, v in best.items())
    od = os.path.join(out, system, 'vllm-' + COLLECTION)
    os.makedirs(od, exist_ok=True)
    write(os.path.join(od, 'gemm_cutlass_block.csv.gz'), ['dtype', 'm', 'n', 'k', 'latency_us'], data, notes)
    print(system, len(data), 'rows')


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.split('\n\n')[1])
    for s in SYSTEMS:
        derive(sys.argv[1], s, sys.argv[2])


if __name__ == '__main__':
    main()
