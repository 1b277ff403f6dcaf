#!/usr/bin/env python3
"""Fit servesim's KDA (Kimi Delta Attention) kernel terms on aiconfigurator's measured
KDA kernels (aic export, vLLM 0.1.dev19262 "Kimi-K3 preview" build on H100/H200/B200/L40S:
<gpu>/kda/vllm-0.1.dev19262/kda_perf.csv; see ../shared/data/mfu/aic/README.md).

usage: python3 scripts/mfu/fit_kda.py AIC_DIR [--raw]    (AIC_DIR: ../shared/data/mfu/aic)

KDA is a gated delta rule whose forget gate is a per-channel (head_k_dim) vector
instead of GDN's per-head scalar: the recurrent state per head is head_k_dim x head_v_dim
fp32, as for GDN, and the kernels have the same structure (a short causal conv over
q, k, v, then a chunked delta rule in a prefill, a recurrent update in a decode).  So the
terms have fit_gdn.py's form (E = v heads x head_v_dim x head_k_dim per GPU, b sequences
of s tokens):

  context:    t = L + c x ceil(s / 64) + b s E x (a / SM + m / HBM) + g x b E / HBM
  generation: t = L_g + 2 b E x 4 bytes / (HBM x eta)

A layer's kernels are summed per measured configuration: context = causal_conv1d_fn_qkv3
+ flashkda_fwd, where the conv carries a constant 0.42-0.44 ms floor at one token on
every GPU (B200 as H100, 12 heads as 96: host work of the preview build, not the
kernel: vLLM 0.24's causal_conv1d_fn of GDN takes 2.1 us at one token).  By default
that floor (the median of the conv's rows of <= 8 tokens, per GPU) is taken out and one
2.1 us launch put back; --raw fits the rows as measured (printed for comparison).
Generation = causal_conv1d_update + the faster of the two decode kernels measured
(fused_recurrent_kda_packed_decode, fused_kda_decode: the packed one wins at every
size where both were measured, as GDN's does in vLLM 0.24).  The
generation terms are fitted on the mean squared log error of every row (not
fit_gdn.py's medians).  The 'verify' (speculative decoding) rows are not used.
Fitted on H100/H200/B200; L40S is only predicted (its prefill runs FLA's
chunk_kda_with_fused_gate: FlashKDA needs Hopper).  Prints the constants, the median
|log error| per GPU and phase of the terms servesim would use without this fit (vLLM's
GDN terms, src/cost/cost.c LIN_VLLM) and of these, and hold-outs (fitted without one
GPU, that GPU predicted).  Runs in about 5 minutes (pure Python).
"""
import csv, math, os, statistics as st, sys, glob, collections

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fit_gdn  # noqa: E402  (the same form, Nelder-Mead and GPU figures)

# data/gpus.json l40s: bf16 peak, HBM bandwidth, SM count
fit_gdn.GPU['l40s'] = (362.05e12, 0.864e12, 142)
FIT_GPUS = ('h100_sxm', 'h200_sxm', 'b200_sxm')
# vLLM 0.24's causal_conv1d_fn at one token on H100 (aic-engines gdn_perf, Qwen3.5-0.8B row)
CONV_LAUNCH = 2.12e-6
# src/cost/cost.c LIN_VLLM (vLLM 0.24 GDN terms): the "before"
GDN_VLLM = ((13.57e-6, 2.398e-6, 5.154e-12, 1.054e-14, 19.35), (6.38e-6, 0.8298))


def load(root, raw=False):
    cfg = collections.defaultdict(dict)
    for path in sorted(glob.glob(os.path.join(root, '*', 'kda', '*', 'kda_perf.csv'))):
        gpu = path.split(os.sep)[-4]
        if gpu not in fit_gdn.GPU:
            continue
        with open(path) as f:
            for r in csv.DictReader(f):
                if r['phase'] not in ('context', 'generation'):
                    continue
                E = int(r['num_v_heads']) * int(r['head_v_dim']) * int(r['head_k_dim'])
                key = (gpu, r['phase'], int(r['batch_size']), int(r['seq_len']), E)
                # first occurrence of a duplicated key, as aiconfigurator's loaders
                cfg[key].setdefault(r['kernel_source'], float(r['latency']) * 1e-3)
    # the conv's host floor per GPU: the median of its rows of <= 8 tokens in all
    floor = {g: st.median(k['causal_conv1d_fn_qkv3'] for (g2, ph, b, s, E), k in cfg.items()
                          if g2 == g and ph == 'context' and b * s <= 8 and 'causal_conv1d_fn_qkv3' in k)
             for g in {key[0] for key in cfg}}
    out = []
    for (gpu, ph, b, s, E), k in sorted(cfg.items()):
        if ph == 'context':
            chunk = k.get('flashkda_fwd', k.get('chunk_kda_with_fused_gate'))
            if 'causal_conv1d_fn_qkv3' not in k or chunk is None:
                continue
            conv = k['causal_conv1d_fn_qkv3']
            if not raw:
                conv = max(CONV_LAUNCH, conv - floor[gpu] + CONV_LAUNCH)
            t = conv + chunk
        else:
            dec = [k[n] for n in ('fused_recurrent_kda_packed_decode', 'fused_kda_decode') if n in k]
            if 'causal_conv1d_update' not in k or not dec:
                continue
            t = k['causal_conv1d_update'] + min(dec)
        out.append((gpu, ph, b, s, E, t))
    return out


def fit(data, skip=None):
    d = [r for r in data if r[0] in FIT_GPUS and r[0] != skip]
    cd = [(g, b, s, E, t) for g, ph, b, s, E, t in d if ph == 'context']
    gd = [(g, b, E, t) for g, ph, b, s, E, t in d if ph == 'generation' and fit_gdn.valid_gen(g, b, E, t)]
    # generation: both terms by Nelder-Mead on the mean squared log error of
    # every row (fit_gdn.py's medians over 1-sequence and >= 64-sequence rows
    # leave the 8..32-sequence rows 20-40 % off here)
    loss = lambda q: sum(math.log(fit_gdn.gen([math.exp(q[0]), math.exp(q[1])], g, b, E) / t) ** 2
                         for g, b, E, t in gd) / len(gd)
    x, _ = fit_gdn.nelder_mead(loss, [math.log(7e-6), math.log(0.8)])
    return fit_gdn.fit_ctx(cd), (math.exp(x[0]), math.exp(x[1]))


def errors(data, terms, only=None):
    err = collections.defaultdict(list)
    for gpu, ph, b, s, E, t in data:
        if only and gpu != only:
            continue
        if ph == 'context':
            po, pn = fit_gdn.ctx_new(GDN_VLLM[0], gpu, b, s, E), fit_gdn.ctx_new(terms[0], gpu, b, s, E)
        else:
            po, pn = fit_gdn.gen(GDN_VLLM[1], gpu, b, E), fit_gdn.gen(terms[1], gpu, b, E)
        for k in {(gpu, ph), ('all3' if gpu in FIT_GPUS else gpu, ph)}:
            err[k + ('before',)].append(abs(math.log(po / t)))
            err[k + ('after',)].append(abs(math.log(pn / t)))
    return err


def main(root, raw=False):
    data = load(root, raw)
    terms = fit(data)
    (L, c, a, m, g), (lg, eta) = terms
    print('kda context: launch %.4g s, %.4g s a 64-token chunk, %.4g s SM / elem-token, %.4g bytes / elem-token, '
          '%.4g bytes / state elem a sequence; generation: launch %.4g s, eta %.4f' % (L, c, a, m, g, lg, eta))
    print('#define LIN_KDA_VLLM %.4g, %.4g, %.4g, %.4g, %.4g, %.4g, %.4f' % (L, c, a, m, g, lg, eta))
    fit_gdn.report_pairs(errors(data, terms), 'every row, fitted on H100/H200/B200 (before: vLLM GDN terms -> after: KDA terms):')
    for gpu in FIT_GPUS:
        fit_gdn.report_pairs(errors(data, fit(data, skip=gpu), only=gpu), 'hold-out: fitted without %s, predicting it:' % gpu)
    return terms


if __name__ == '__main__':
    if len(sys.argv) not in (2, 3) or (len(sys.argv) == 3 and sys.argv[2] != '--raw'):
        sys.exit(__doc__)
    main(sys.argv[1], len(sys.argv) == 3)
