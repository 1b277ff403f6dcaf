#!/usr/bin/env python3
"""Fit servesim's linear-attention (Gated DeltaNet) kernel terms on aiconfigurator's
measured GDN kernels (aic-engines: vLLM 0.24, SGLang 0.5.14, TensorRT-LLM 1.3 on
H100/H200/B200; linear_attention/<engine>/<version>/gdn_perf.csv[.gz]).

usage: python3 data/mfu/fit_gdn.py AIC_ENGINES_DIR [INFERSIM_DIR]

Per measured configuration the kernels of one phase are summed (context:
causal_conv1d_fn + the chunked delta rule; generation: causal_conv1d_update + the
recurrent decode kernel).  With elems = v_heads x head_v_dim x head_k_dim per GPU
(the recurrent state), servesim prices a layer as
  context:    t = launch + tokens x elems x 6 / (peak_bf16 x mfu_ctx)
  generation: t = launch + 2 x seqs x elems x 4 bytes / (hbm_bw x bw_eff)
(6 FLOPs per state element per token: LINEAR_FLOPS_PER_STATE_ELEM; the fp32
state read and written once per step).  This script prints, per GPU and engine
and over all, the median of mfu_ctx (rows with >= 4096 tokens; per engine), of bw_eff (rows
with >= 64 sequences) and of the launch floors (1 token / 1 sequence), and the
median |log error| of the fitted model over every row.

With INFERSIM_DIR (../shared/data/mfu/infersim) the fitted terms are also
checked against InferSim's H20 GDN kernels (SGLang's FLA kernels, all heads on
one GPU, fp32 state; bench_data/gdn/{prefill,decode}/h20/), which the fit did
not see: per row the fitted model's time against the measured one, and the
H20's own terms (launch floor, state-pass bandwidth fraction, context FLOP
rate) from those rows.  Nothing of this is used by servesim (a report).
"""
import csv, gzip, math, os, statistics as st, sys, glob, collections

GPU = {'h100_sxm': (989e12, 3.35e12), 'h200_sxm': (989e12, 4.8e12), 'b200_sxm': (2250e12, 8.0e12)}

def rows(path):
    op = gzip.open if path.endswith('.gz') else open
    with op(path, 'rt') as f:
        yield from csv.DictReader(f)

def load(root):
    out = []
    for path in sorted(glob.glob(os.path.join(root, '*', 'linear_attention', '*', '*', 'gdn_perf.csv*'))):
        gpu = path.split(os.sep)[-5]
        eng = path.split(os.sep)[-3]
        if gpu not in GPU:
            continue
        cfg = collections.defaultdict(float)
        for r in rows(path):
            key = (r['phase'], int(r['batch_size']), int(r['seq_len']), int(r['num_k_heads']),
                   int(r['head_k_dim']), int(r['num_v_heads']), int(r['head_v_dim']), r['model_name'])
            cfg[key] += float(r['latency']) * 1e-3  # ms -> s
        for (ph, b, s, kh, kd, vh, vd, _), t in cfg.items():
            out.append((gpu, eng, ph, b, s, vh * vd * kd, t))
    return out

def main(root):
    data = load(root)
    # launch floors first (1 token / 1 sequence), then the slopes above them
    l_ctx = st.median(t for gpu, eng, ph, b, s, elems, t in data if ph == 'context' and b * s == 1)
    l_gen = st.median(t for gpu, eng, ph, b, s, elems, t in data if ph == 'generation' and b == 1)
    fc, fg = [], []
    for gpu, eng, ph, b, s, elems, t in data:
        peak, bw = GPU[gpu]
        if ph == 'context' and b * s >= 4096:
            fc.append(b * s * elems * 6 / ((t - l_ctx) * peak))
        if ph == 'generation' and b >= 64:
            fg.append(2 * b * elems * 4 / ((t - l_gen) * bw))
    mfu, bwe = st.median(fc), st.median(fg)
    # the chunked kernels differ by engine (FlashInfer/Triton/TRT-LLM's own)
    per_eng = {}
    for e in sorted({d[1] for d in data}):
        per_eng[e] = st.median(b * s * elems * 6 / ((t - l_ctx) * GPU[gpu][0])
                               for gpu, eng, ph, b, s, elems, t in data
                               if eng == e and ph == 'context' and b * s >= 4096)
        print('context mfu_ctx %-7s %.4f' % (e, per_eng[e]))
    print('context: mfu_ctx %.4f (n=%d), launch %.2f us' % (mfu, len(fc), l_ctx * 1e6))
    print('generation: bw_eff %.4f (n=%d), launch %.2f us' % (bwe, len(fg), l_gen * 1e6))
    err = collections.defaultdict(list)
    for gpu, eng, ph, b, s, elems, t in data:
        peak, bw = GPU[gpu]
        if ph == 'context':
            p = l_ctx + b * s * elems * 6 / (peak * per_eng[eng])
            # servesim before this fit: half the bf16 peak, no launch term
            p0 = max(b * s * elems * 6 / (peak * 0.5), 2 * b * elems * 4 / (bw * 0.8))
        else:
            p = l_gen + 2 * b * elems * 4 / (bw * bwe)
            p0 = max(b * elems * 6 / (peak * 0.5), 2 * b * elems * 4 / (bw * 0.8))
        err[('all', '', ph, 'fit')].append(abs(math.log(p / t)))
        err[('all', '', ph, 'before')].append(abs(math.log(p0 / t)))
        err[(gpu, eng, ph, 'fit')].append(abs(math.log(p / t)))
    for k in sorted(err):
        print('%-9s %-7s %-10s %-6s n=%5d median |log err| %.3f' % (k + (len(err[k]), st.median(err[k]))))
    return per_eng, l_ctx, l_gen, bwe

H20 = (148e12, 4.0e12)  # data/gpus.json: bf16 peak, HBM bandwidth


def check_infersim_h20(d, mfu_eng, l_ctx, l_gen, bwe):
    """The fitted terms against InferSim's H20 rows (file name: conv kernel,
    k heads, k dim, v heads, v dim; the 64-v-head files are byte copies of
    the 32-v-head ones and are skipped)."""
    peak, bw = H20
    name = '4-16-128-32-128.csv'
    kh, kd, vh, vd = 16, 128, 32, 128
    elems = vh * vd * kd
    with open(os.path.join(d, 'gdn', 'prefill', 'h20', name)) as f:
        pre = [(int(r['seq_len']), sum(float(v) for k, v in r.items() if k != 'seq_len') * 1e-6)
               for r in csv.DictReader(f)]
    with open(os.path.join(d, 'gdn', 'decode', 'h20', name)) as f:
        dec = [(int(r['batchsize']), (float(r['conv']) + float(r['gdn_update'])) * 1e-6)
               for r in csv.DictReader(f)]
    print('H20 (InferSim, SGLang FLA kernels, %d v heads x %d x %d per GPU, fp32 state): fitted model / measured' % (vh, vd, kd))
    for s_, t in pre:
        fl = s_ * elems * 6
        print('  context %5d tokens: measured %7.1f us (%.1f TFLOP/s = %.3f of the bf16 peak); ' % (s_, t * 1e6, fl / t / 1e12, fl / t / peak)
              + ', '.join('%s %.2fx' % (e, (l_ctx + fl / (peak * m)) / t) for e, m in sorted(mfu_eng.items())))
    for b, t in dec:
        by = 2 * b * elems * 4
        p = l_gen + max(by / (bw * bwe), b * elems * 6 / (peak * mfu_eng['sglang']))
        print('  generation %4d seqs: measured %7.1f us, fitted model (sglang) %7.1f us = %.2fx' % (b, t * 1e6, p * 1e6, p / t))
    small = [t for b, t in dec if b <= 32]
    big = [(b, t) for b, t in dec if b >= 64]
    slope = (big[-1][1] - big[0][1]) / (big[-1][0] - big[0][0])
    print('  H20 own terms: generation launch floor %.1f us (median, <= 32 seqs; fit %.2f), state pass at %.3f of HBM '
          '(slope over %d..%d seqs; fit %.3f), context %.3f of the bf16 peak (fit, sglang %.4f)'
          % (st.median(small) * 1e6, l_gen * 1e6, 2 * elems * 4 / slope / bw, big[0][0], big[-1][0], bwe,
             st.median(s_ * elems * 6 / t / peak for s_, t in pre), mfu_eng['sglang']))


if __name__ == '__main__':
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    r = main(sys.argv[1])
    if len(sys.argv) == 3:
        check_infersim_h20(sys.argv[2], *r)
