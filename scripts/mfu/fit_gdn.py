#!/usr/bin/env python3
"""Fit servesim's linear-attention (Gated DeltaNet) kernel terms on aiconfigurator's
measured GDN kernels (aic-engines: vLLM 0.24, SGLang 0.5.14, TensorRT-LLM 1.3 on
H100/H200/B200; linear_attention/<engine>/<version>/gdn_perf.csv[.gz]).

usage: python3 scripts/mfu/fit_gdn.py AIC_ENGINES_DIR [INFERSIM_DIR]

Per measured configuration the kernels of one phase are summed (context:
causal_conv1d_fn + the chunked delta rule; generation: causal_conv1d_update + the
recurrent decode kernel); configurations measured for several models with the same
head layout are merged (median).  With E = v_heads x head_v_dim x head_k_dim per GPU
(the recurrent state, elements), b sequences of s tokens each, SM the GPU's SM count
and HBM its bandwidth, servesim prices a layer (per engine e) as

  context:    t = L_e + c_e x ceil(s / 64)                    (the chunk chain of one sequence:
                                                               the chunked kernels walk a
                                                               sequence's 64-token chunks in order)
                  + b s E x (a_e / SM + m_e / HBM)             (per-token work over the SMs and
                                                               per-token traffic: q/k/v/g, the
                                                               per-chunk states, the output)
                  + g_e x b E / HBM                            (per-sequence state pass)
  generation: t = L_e + 2 b E x 4 bytes / (HBM x eta_e)        (the fp32 state read and written)

The context terms are fitted per engine by Nelder-Mead on the mean squared log error
(log-parameters, so every term stays >= 0); the generation terms are medians (launch:
1 sequence; eta: >= 64 sequences), skipping rows faster than the GPU's HBM can pass
their state (b = 1024 x 64 heads: a failed measurement).  The script prints the
constants, the median |log error| per GPU and engine of the form servesim used before
(context: 23 us + 6 b s E FLOPs / (bf16 peak x an engine utilisation); generation:
6.25 us + state bytes / (0.85 HBM), both fitted on all rows) and of this one, and
hold-outs: every term refitted without one GPU, that GPU predicted.

With INFERSIM_DIR (../shared/data/mfu/infersim) both forms are also checked against
InferSim's H20 GDN kernels (SGLang's FLA kernels, 16 k / 32 v heads x 128 on one GPU,
fp32 state; bench_data/gdn/{prefill,decode}/h20/), which no fit sees.  InferSim timed
Python calls: its decode rows of <= 32 sequences sit on a ~81 us host floor.
Runs in about 15 minutes (12 Nelder-Mead fits in pure Python).
"""
import csv, gzip, math, os, statistics as st, sys, glob, collections

# data/gpus.json: bf16 peak (FLOP/s), HBM bandwidth (B/s), SM count
GPU = {'h100_sxm': (989.4e12, 3.35e12, 132), 'h200_sxm': (989.4e12, 4.8e12, 132),
       'b200_sxm': (2250e12, 8.0e12, 148), 'h20': (148e12, 4.0e12, 78)}
ENGINES = ('vllm', 'sglang', 'trtllm')
CHUNK = 64  # the chunk length of FLA's / FlashInfer's chunked delta rule


def rows(path):
    op = gzip.open if path.endswith('.gz') else open
    with op(path, 'rt') as f:
        yield from csv.DictReader(f)


def load(root):
    cfg = collections.defaultdict(float)
    for path in sorted(glob.glob(os.path.join(root, '*', 'linear_attention', '*', '*', 'gdn_perf.csv*'))):
        gpu, eng = path.split(os.sep)[-5], path.split(os.sep)[-3]
        if gpu not in GPU:
            continue
        for r in rows(path):
            key = (gpu, eng, r['phase'], int(r['batch_size']), int(r['seq_len']),
                   int(r['num_v_heads']) * int(r['head_v_dim']) * int(r['head_k_dim']), r['model_name'])
            cfg[key] += float(r['latency']) * 1e-3  # ms -> s
    shape = collections.defaultdict(list)
    for k, t in cfg.items():
        shape[k[:6]].append(t)
    return [k + (st.median(v),) for k, v in sorted(shape.items())]


def ctx_new(p, gpu, b, s, E):
    L, c, a, m, g = p
    _, bw, sm = GPU[gpu]
    return L + c * math.ceil(s / CHUNK) + b * s * E * (a / sm + m / bw) + g * b * E / bw


def ctx_old(p, gpu, b, s, E):
    return p[0] + b * s * E * 6 / (GPU[gpu][0] * p[1])


def gen(p, gpu, b, E):
    return p[0] + 2 * b * E * 4 / (GPU[gpu][1] * p[1])


def nelder_mead(fun, x0, iters=1500, step=0.7):
    n = len(x0)
    pts = [list(x0)] + [[x0[j] + (step if j == i else 0) for j in range(n)] for i in range(n)]
    vals = [fun(x) for x in pts]
    for _ in range(iters):
        order = sorted(range(n + 1), key=lambda i: vals[i])
        pts, vals = [pts[i] for i in order], [vals[i] for i in order]
        c = [sum(p[j] for p in pts[:-1]) / n for j in range(n)]
        r = [c[j] + (c[j] - pts[-1][j]) for j in range(n)]
        fr = fun(r)
        if fr < vals[0]:
            e = [c[j] + 2 * (c[j] - pts[-1][j]) for j in range(n)]
            fe = fun(e)
            pts[-1], vals[-1] = (e, fe) if fe < fr else (r, fr)
        elif fr < vals[-2]:
            pts[-1], vals[-1] = r, fr
        else:
            k = [c[j] + 0.5 * (pts[-1][j] - c[j]) for j in range(n)]
            fk = fun(k)
            if fk < vals[-1]:
                pts[-1], vals[-1] = k, fk
            else:
                pts = [pts[0]] + [[pts[0][j] + 0.5 * (p[j] - pts[0][j]) for j in range(n)] for p in pts[1:]]
                vals = [vals[0]] + [fun(p) for p in pts[1:]]
    i = min(range(n + 1), key=lambda i: vals[i])
    return pts[i], vals[i]


def fit_ctx(data):
    """data: (gpu, b, s, E, t); every 1 in len/1500 rows (deterministic), log-params."""
    tr = data[::max(1, len(data) // 1500)]
    # start: 20 us, 3 us a chunk, 1e-5 s per 1e9 elem-tokens a SM, 1 byte an elem-token, 10 bytes an elem
    x = [math.log(v) for v in (20e-6, 3e-6, 1e-14, 1.0, 10.0)]
    loss = lambda q: sum(math.log(ctx_new([math.exp(v) for v in q], g, b, s, E) / t) ** 2
                         for g, b, s, E, t in tr) / len(tr)
    best = None
    for _ in range(3):  # restarts from the best point so far
        x, v = nelder_mead(loss, x)
        best = (x, v) if best is None or v < best[1] else best
    return [math.exp(v) for v in best[0]]


def fit_ctx_old(data, l_ctx):
    return [l_ctx, st.median(b * s * E * 6 / ((t - l_ctx) * GPU[g][0]) for g, b, s, E, t in data if b * s >= 4096)]


def valid_gen(gpu, b, E, t):
    return 2 * b * E * 4 / t <= GPU[gpu][1]


def fit_all(data, skip=None):
    """Both forms' terms from every row but GPU `skip`."""
    d = [r for r in data if r[0] != skip]
    l_ctx = st.median(t for gpu, eng, ph, b, s, E, t in d if ph == 'context' and b * s == 1)
    l_gen_old = st.median(t for gpu, eng, ph, b, s, E, t in d if ph == 'generation' and b == 1)
    eff_old = st.median(2 * b * E * 4 / ((t - l_gen_old) * GPU[gpu][1])
                        for gpu, eng, ph, b, s, E, t in d if ph == 'generation' and b >= 64)
    new, old = {}, {}
    for e in ENGINES:
        cd = [(g, b, s, E, t) for g, eng, ph, b, s, E, t in d if eng == e and ph == 'context']
        gd = [(g, b, E, t) for g, eng, ph, b, s, E, t in d if eng == e and ph == 'generation' and valid_gen(g, b, E, t)]
        lg = st.median(t for g, b, E, t in gd if b == 1)
        eta = st.median(2 * b * E * 4 / ((t - lg) * GPU[g][1]) for g, b, E, t in gd if b >= 64)
        new[e] = (fit_ctx(cd), (lg, eta))
        old[e] = (fit_ctx_old(cd, l_ctx), (l_gen_old, eff_old))
    return new, old


def errors(data, new, old, only=None):
    err = collections.defaultdict(list)
    for gpu, eng, ph, b, s, E, t in data:
        if only and gpu != only:
            continue
        if ph == 'context':
            pn, po = ctx_new(new[eng][0], gpu, b, s, E), ctx_old(old[eng][0], gpu, b, s, E)
        else:
            pn, po = gen(new[eng][1], gpu, b, E), gen(old[eng][1], gpu, b, E)
        for k in ((gpu, eng, ph), ('all', eng, ph), ('all', 'all', ph)):
            err[k + ('before',)].append(abs(math.log(po / t)))
            err[k + ('after',)].append(abs(math.log(pn / t)))
    return err


def report(err, title, gpus_only=False):
    print(title)
    for k in sorted({k[:3] for k in err if not (gpus_only and k[0] == 'all')}):
        print('  %-9s %-7s %-10s n=%5d median |log err| %.3f -> %.3f'
              % (k + (len(err[k + ('after',)]), st.median(err[k + ('before',)]), st.median(err[k + ('after',)]))))


def report_pairs(err, title):
    """report for errors keyed (gpu, phase, before|after), with the largest error after (fit_kda, fit_mamba2)."""
    print(title)
    for k in sorted({k[:2] for k in err}):
        print('  %-9s %-10s n=%4d median |log err| %.3f -> %.3f, largest %.3f'
              % (k + (len(err[k + ('after',)]), st.median(err[k + ('before',)]), st.median(err[k + ('after',)]),
                      max(err[k + ('after',)]))))


def main(root):
    data = load(root)
    new, old = fit_all(data)
    for e in ENGINES:
        (L, c, a, m, g), (lg, eta) = new[e]
        print('%-7s context: launch %.2f us, %.3f us a 64-token chunk, %.4g s SM / elem-token, '
              '%.4g bytes / elem-token, %.3f bytes / state elem a sequence; generation: launch %.2f us, eta %.4f'
              % (e, L * 1e6, c * 1e6, a, m, g, lg * 1e6, eta))
        print('        before: context launch %.2f us, mfu %.4f; generation launch %.2f us, eta %.4f'
              % (old[e][0][0] * 1e6, old[e][0][1], old[e][1][0] * 1e6, old[e][1][1]))
    report(errors(data, new, old), 'every row, terms fitted on every row (before -> after):')
    for gpu in ('h100_sxm', 'h200_sxm', 'b200_sxm'):
        n2, o2 = fit_all(data, skip=gpu)
        report(errors(data, n2, o2, only=gpu), 'hold-out: fitted without %s, predicting it (before -> after):' % gpu, True)
    return new, old


def check_infersim_h20(d, new, old):
    """Both forms against InferSim's H20 rows (file name: conv kernel, k heads,
    k dim, v heads, v dim; the 64-v-head files are byte copies of the 32-v-head
    ones and are skipped)."""
    E = 32 * 128 * 128
    name = '4-16-128-32-128.csv'
    with open(os.path.join(d, 'gdn', 'prefill', 'h20', name)) as f:
        pre = [(int(r['seq_len']), sum(float(v) for k, v in r.items() if k != 'seq_len') * 1e-6)
               for r in csv.DictReader(f)]
    with open(os.path.join(d, 'gdn', 'decode', 'h20', name)) as f:
        dec = [(int(r['batchsize']), (float(r['conv']) + float(r['gdn_update'])) * 1e-6)
               for r in csv.DictReader(f)]
    print('H20 (InferSim, SGLang FLA kernels, 32 v heads x 128 x 128 per GPU, fp32 state): predicted / measured, before -> after')
    for s, t in pre:
        print('  context %5d tokens: measured %7.1f us; ' % (s, t * 1e6)
              + ', '.join('%s %.2fx -> %.2fx' % (e, ctx_old(old[e][0], 'h20', 1, s, E) / t,
                                                 ctx_new(new[e][0], 'h20', 1, s, E) / t) for e in ENGINES))
    for b, t in dec:
        print('  generation %4d seqs: measured %7.1f us, sglang %.2fx -> %.2fx'
              % (b, t * 1e6, gen(old['sglang'][1], 'h20', b, E) / t, gen(new['sglang'][1], 'h20', b, E) / t))
    big = [(b, t) for b, t in dec if b >= 64]
    slope = (big[-1][1] - big[0][1]) / (big[-1][0] - big[0][0])
    print('  H20 own terms: host floor %.1f us (median, <= 32 seqs), state pass at %.3f of HBM (slope over %d..%d seqs)'
          % (st.median(t for b, t in dec if b <= 32) * 1e6, 2 * E * 4 / slope / GPU['h20'][1], big[0][0], big[-1][0]))


if __name__ == '__main__':
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    r = main(sys.argv[1])
    if len(sys.argv) == 3:
        check_infersim_h20(sys.argv[2], *r)
