#!/usr/bin/env python3
"""Fit servesim's Mamba2 kernel terms on aiconfigurator's measured TensorRT-LLM 1.3
kernels (aic-engines <gpu>/linear_attention/trtllm/1.3.0rc20/: mamba2_perf.csv and
gdn_perf.csv; H100/H200/B200; see ../shared/data/mfu/aic-engines/README.md).

usage: python3 scripts/mfu/fit_mamba2.py AIC_ENGINES_DIR

What the tables hold: mamba2_perf.csv measures only the causal conv of a Mamba2
mixer (causal_conv1d_fn in a prefill, causal_conv1d_update in a decode step) over
C = nheads x head_dim + 2 n_groups x d_state channels, for Nemotron-H / Nemotron-3
shapes and two generic ones; the SSD chunk scan and the selective state update are
not measured anywhere in the data we hold.  So a Mamba2 layer is priced as

  conv (measured, fitted here; b sequences of s tokens, HBM the GPU's bandwidth):
    context:    t = L + p x b + b s C x m / HBM
                (TensorRT-LLM's conv costs ~9 us a sequence in a prefill batch:
                 64 one-token sequences take 0.73 ms on H100, one takes 15 us)
    generation: t = L_g + b C x q / HBM
  + the recurrence: GDN's form (fit_gdn.py) fitted on TensorRT-LLM's GDN recurrence
    kernels alone (chunk_gated_delta_rule, fused_recurrent_gated_delta_rule; the
    conv rows left out), with E = nheads x head_dim x d_state state elements: the
    nearest measured kernels (a chunked scan over the same fp32 state; Mamba2's
    SSD has a scalar decay and no delta correction, so this errs slow).

Before this fit the conv was priced as an elementwise op at the roofline (servesim
opgraph causal_conv1d: 2 x K FLOPs, one read and one write of 2 bytes a channel-token,
at the GPU's HBM x 0.80 bw_eff) and the whole layer by the engine's GDN terms, whose
fit includes GDN's own conv.  The script prints the conv terms, the median |log error|
of the conv rows before (roofline) -> after, per GPU and phase, hold-outs (fitted
without one GPU, that GPU predicted) and the recurrence terms.  Runs in about 2
minutes (pure Python).
"""
import csv, gzip, math, os, statistics as st, sys, glob, collections

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fit_gdn  # noqa: E402  (GPU figures, Nelder-Mead, the GDN form)

GPUS = ('h100_sxm', 'h200_sxm', 'b200_sxm')
BW_EFF = 0.80  # data/gpus.json bw_eff of H100/H200/B200: servesim's elementwise roofline
CONV_K = 4     # d_conv of every row


def rows(path):
    op = gzip.open if path.endswith('.gz') else open
    with op(path, 'rt') as f:
        yield from csv.DictReader(f)


def load_conv(root):
    seen, out = set(), []
    for path in sorted(glob.glob(os.path.join(root, '*', 'linear_attention', 'trtllm', '*', 'mamba2_perf.csv'))):
        gpu = path.split(os.sep)[-5]
        if gpu not in GPUS:
            continue
        for r in rows(path):
            C = int(r['nheads']) * int(r['head_dim']) + 2 * int(r['n_groups']) * int(r['d_state'])
            key = (gpu, r['phase'], int(r['batch_size']), int(r['seq_len']), C, r['model_name'])
            if key in seen:  # the first of a re-measured key, as aiconfigurator's loaders
                continue
            seen.add(key)
            out.append(key[:5] + (float(r['latency']) * 1e-3,))
    return out


def conv_pred(p, gpu, ph, b, s, C):
    bw = fit_gdn.GPU[gpu][1]
    if ph == 'context':
        L, per_seq, m = p[0]
        return L + per_seq * b + b * s * C * m / bw
    L, q = p[1]
    return L + b * C * q / bw


def conv_roofline(gpu, ph, b, s, C):
    """servesim's elementwise pricing of the opgraph causal_conv1d op: bytes at
    HBM x bw_eff (no launch term for elementwise ops)."""
    return b * s * C * 2 * 2.0 / (fit_gdn.GPU[gpu][1] * BW_EFF)


def fit_conv(data, skip=None):
    d = [r for r in data if r[0] != skip]
    res = []
    for ph, n in (('context', 3), ('generation', 2)):
        dd = [r for r in d if r[1] == ph]
        x0 = [math.log(v) for v in ((10e-6, 8e-6, 2.0) if n == 3 else (4e-6, 10.0))]
        def loss(q, dd=dd, ph=ph, n=n):
            p = [math.exp(v) for v in q]
            pp = (p, None) if ph == 'context' else (None, p)
            return sum(math.log(conv_pred(pp, g, ph, b, s, C) / t) ** 2 for g, _, b, s, C, t in dd) / len(dd)
        best = None
        x = x0
        for _ in range(3):
            x, v = fit_gdn.nelder_mead(loss, x)
            best = (x, v) if best is None or v < best[1] else best
        res.append([math.exp(v) for v in best[0]])
    return tuple(res)


def conv_errors(data, p, only=None):
    err = collections.defaultdict(list)
    for gpu, ph, b, s, C, t in data:
        if only and gpu != only:
            continue
        for k in ((gpu, ph), ('all', ph)):
            err[k + ('before',)].append(abs(math.log(conv_roofline(gpu, ph, b, s, C) / t)))
            err[k + ('after',)].append(abs(math.log(conv_pred(p, gpu, ph, b, s, C) / t)))
    return err


def load_scan(root):
    """TensorRT-LLM GDN rows without the conv kernels, as fit_gdn.load."""
    cfg = collections.defaultdict(float)
    for path in sorted(glob.glob(os.path.join(root, '*', 'linear_attention', 'trtllm', '*', 'gdn_perf.csv*'))):
        gpu = path.split(os.sep)[-5]
        if gpu not in GPUS:
            continue
        for r in rows(path):
            if r['kernel_source'].startswith('causal_conv1d'):
                continue
            key = (gpu, 'trtllm', r['phase'], int(r['batch_size']), int(r['seq_len']),
                   int(r['num_v_heads']) * int(r['head_v_dim']) * int(r['head_k_dim']), r['model_name'])
            cfg[key] += float(r['latency']) * 1e-3
    shape = collections.defaultdict(list)
    for k, t in cfg.items():
        shape[k[:6]].append(t)
    return [k + (st.median(v),) for k, v in sorted(shape.items())]


def main(root):
    conv = load_conv(root)
    p = fit_conv(conv)
    (L, ps, m), (lg, q) = p
    print('conv context: launch %.4g s, %.4g s a sequence, %.4g bytes / channel-token; generation: launch %.4g s, '
          '%.4g bytes / channel a sequence' % (L, ps, m, lg, q))
    fit_gdn.report_pairs(conv_errors(conv, p), 'conv rows, fitted on H100/H200/B200 (before: elementwise roofline -> after):')
    for gpu in GPUS:
        fit_gdn.report_pairs(conv_errors(conv, fit_conv(conv, skip=gpu), only=gpu), 'hold-out: fitted without %s, predicting it:' % gpu)
    scan = load_scan(root)
    cd = [(g, b, s, E, t) for g, eng, ph, b, s, E, t in scan if ph == 'context']
    gd = [(g, b, E, t) for g, eng, ph, b, s, E, t in scan if ph == 'generation' and fit_gdn.valid_gen(g, b, E, t)]
    sc = fit_gdn.fit_ctx(cd)
    slg = st.median(t for g, b, E, t in gd if b == 1)
    seta = st.median(2 * b * E * 4 / ((t - slg) * fit_gdn.GPU[g][1]) for g, b, E, t in gd if b >= 64)
    errc = [abs(math.log(fit_gdn.ctx_new(sc, g, b, s, E) / t)) for g, b, s, E, t in cd]
    errg = [abs(math.log(fit_gdn.gen((slg, seta), g, b, E) / t)) for g, b, E, t in gd]
    print('recurrence (TensorRT-LLM GDN kernels without the conv): launch %.4g s, %.4g s a 64-token chunk, '
          '%.4g s SM / elem-token, %.4g bytes / elem-token, %.4g bytes / state elem a sequence; '
          'generation: launch %.4g s, eta %.4f; median |log err| context %.3f (n=%d), generation %.3f (n=%d)'
          % (tuple(sc) + (slg, seta, st.median(errc), len(errc), st.median(errg), len(errg))))
    print('#define LIN_MAMBA2_CONV %.4g, %.4g, %.4g, %.4g, %.4g' % (L, ps, m, lg, q))
    print('#define LIN_MAMBA2_SCAN %.4g, %.4g, %.4g, %.4g, %.4g, %.4g, %.4f' % (tuple(sc) + (slg, seta)))


if __name__ == '__main__':
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
