#!/usr/bin/env python3
"""Fit the compute-efficiency scale of a GPU that borrows another's kernel
tables (data/gpus.json 'compute_eff_scale'), from InferSim's GEMM timings of
the same kernel (DeepGEMM fp8) on both GPUs.

usage: python3 scripts/mfu/fit_compute_scale.py INFERSIM_GEMM_DIR TARGET LENDER
  e.g. ../shared/data/mfu/infersim/gemm h20 h800   (H800 = H100 silicon with
  a cut NVLink: its kernels run as an H100's)

Prints, over the (m, k, n) shapes both GPUs measured with m >= 1024 (compute-
bound on both), the median ratio of the target's MFU to the lender's, and the
largest MFU the target reached (the cap).
"""
import csv, os, statistics as st, sys

def load(d, gpu):
    with open(os.path.join(d, gpu, 'data.csv')) as f:
        return {(int(r['m']), int(r['k']), int(r['n'])): float(r['mfu']) for r in csv.DictReader(f)}

def main(d, tgt, lender):
    a, b = load(d, tgt), load(d, lender)
    common = sorted(k for k in set(a) & set(b) if k[0] >= 1024)
    ratios = [a[k] / b[k] for k in common]
    print('%s / %s: %d shapes with m >= 1024, median MFU ratio %.3f (min %.3f, max %.3f); %s max MFU %.3f'
          % (tgt, lender, len(common), st.median(ratios), min(ratios), max(ratios), tgt, max(a.values())))

if __name__ == '__main__':
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])
