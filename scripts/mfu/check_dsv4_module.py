#!/usr/bin/env python3
"""DeepSeek-V4 attention check (issue 9, attention kinds): each engine's
measured DeepSeek-V4 attention blocks (aiconfigurator's dsv4_{csa,hca}_
{generation,context}_module_perf: one CSA or HCA layer's whole attention on
one GPU) against servesim's price of the same block (tools/csacheck.c,
cost_csa_block_s: the derived table's grids, scripts/mfu/derive_dsv4.py) and the
fitted parts model that prices GPUs without a table of their own.

Prints, per engine x GPU x phase x layer kind:
1. interpolation: median |log(servesim / measured)| at every measured point
   (the grids give the table back; the non-decreasing smoothing moves a few
   points);
2. vLLM's long-prefix rows (prefill of 2k-16k tokens after 48k-64k cached,
   left out of the grids, which stop at 4k cached): servesim's price through
   the timed indexer-logits / HCA-attention kernels past 4k, against them;
3. the parts model seconds = c0 + c_gemm (f_lp / peak_fp8 + f_hp / peak_bf16)
   + c_attn f_attn / peak_bf16 + c_bytes bytes / HBM (the parts from
   cost_csa_parts: GEMM FLOPs, attention FLOPs at FlashMLA's padded heads,
   weight / activation / cache bytes) held out by GPU: fitted on two GPUs'
   rows (least squares on the relative error, coefficients >= 0), predicting
   the third: median |log(predicted / measured)| of (a) the other GPU's
   measured block as it is (nearest: H100 for H200, H200 for H100 and B200),
   (b) the parts model alone, (c) that measured block x the model's ratio
   between the two GPUs (what a GPU borrowing another's tables gets);
4. the coefficients fitted on all three GPUs, as the C initializer of
   src/cost/csamod.c's csa_fits.

usage: python3 scripts/mfu/check_dsv4_module.py [BUILD_DIR]   (from the
repository root, after `make`; compiles tools/csacheck.c against
BUILD_DIR/libservesim.a: checktool.py; reads ../shared/data/mfu/aic-engines)
"""
import collections, math, os, statistics as st, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import aic, checktool  # noqa: E402

AIC = os.path.join('..', 'shared', 'data', 'mfu', 'aic-engines')
GPUS = [('h100_sxm', 'h100'), ('h200_sxm', 'h200'), ('b200_sxm', 'b200')]
ENGINES = [('vllm', '0.24.0'), ('sglang', '0.5.14')]
NEAREST = {'h100': 'h200', 'h200': 'h100', 'b200': 'h200'}
FILES = {('csa', 'decode'): 'dsv4_csa_generation_module_perf.csv',
         ('hca', 'decode'): 'dsv4_hca_generation_module_perf.csv',
         ('csa', 'prefill'): 'dsv4_csa_context_module_perf.csv',
         ('hca', 'prefill'): 'dsv4_hca_context_module_perf.csv'}
MODELS = {'flash': 'deepseek-v4-flash', 'pro': 'deepseek-v4-pro'}


def points(system, eng, ver):
    """(geo, kind, phase, heads, batch, isl, prefix) -> median latency us."""
    acc = collections.defaultdict(list)
    for (kind, phase), name in FILES.items():
        p = aic.find(os.path.join(AIC, system, 'sparse_attention', eng, ver), name)
        if not p:
            continue
        for r in aic.rows(p):
            if r['gemm_type'] != 'fp8_block':
                continue
            geo = 'flash' if 'Flash' in r['model'] else 'pro' if 'Pro' in r['model'] else None
            if not geo:
                continue
            acc[(geo, kind, phase, int(r['num_heads']), int(r['batch_size']), int(r['isl']),
                 int(r['step']))].append(float(r['latency']) * 1000.0)
    return {k: st.median(v) for k, v in acc.items()}


def price(tool, eng, gpu, pts):
    """servesim's price and parts at each point (csacheck)."""
    out = {}
    bygeo = collections.defaultdict(list)
    for k in pts:
        bygeo[k[0]].append(k)
    for geo, keys in bygeo.items():
        inp = ''.join('%s %s %d %d %d %d\n' % (k[1], k[2], k[3], k[4], k[5], k[6]) for k in keys)
        res = subprocess.run([tool, 'data', eng, gpu, MODELS[geo]], input=inp, capture_output=True, text=True,
                             check=True)
        for line in res.stdout.split('\n'):
            f = line.split()
            if len(f) != 14:
                continue
            k = (geo, f[0], f[1], int(f[2]), int(f[3]), int(f[4]), int(f[5]))
            out[k] = [float(x) for x in f[6:]]
    return out


def feats(v):
    """The parts model's four features (seconds at unit coefficients)."""
    flp, fhp, fat, by, plp, p16, bw = v
    return [1.0, flp / plp + fhp / p16, fat / p16, by / bw]


def solve(A, b):
    n = len(b)
    M = [row[:] + [b[i]] for i, row in enumerate(A)]
    for c in range(n):
        piv = max(range(c, n), key=lambda r: abs(M[r][c]))
        if abs(M[piv][c]) < 1e-300:
            return None
        M[c], M[piv] = M[piv], M[c]
        for r in range(n):
            if r != c:
                f = M[r][c] / M[c][c]
                for j in range(c, n + 1):
                    M[r][j] -= f * M[c][j]
    return [M[i][n] / M[i][i] for i in range(n)]


def fit(rows):
    """min sum((x . c - t) / t)^2 over c >= 0 (active set); rows: (x, t)."""
    active = [0, 1, 2, 3]
    while True:
        A = [[0.0] * len(active) for _ in active]
        b = [0.0] * len(active)
        for x, t in rows:
            xs = [x[i] / t for i in active]
            for i in range(len(active)):
                b[i] += xs[i]
                for j in range(len(active)):
                    A[i][j] += xs[i] * xs[j]
        c = solve(A, b)
        if c is None:
            return [0.0] * 4
        neg = [i for i, v in enumerate(c) if v < 0]
        if not neg:
            out = [0.0] * 4
            for i, a in enumerate(active):
                out[a] = c[i]
            return out
        worst = min(neg, key=lambda i: c[i])
        del active[worst]


def model(c, x):
    return sum(a * b for a, b in zip(c, x))


def med(v):
    return st.median(v) if v else float('nan')


def main(build):
    tool = checktool.build('csacheck', build)
    fits = {}
    for eng, ver in ENGINES:
        data = {}
        for system, gpu in GPUS:
            pts = points(system, eng, ver)
            pr = price(tool, eng, gpu, pts)
            data[gpu] = {k: (pts[k], pr[k]) for k in pts if k in pr}
        print('\n== %s %s' % (eng, ver))
        print('1. servesim against the measured blocks (median |log(servesim / measured)|, points)')
        for gpu in data:
            line = []
            for kind in ('csa', 'hca'):
                for phase in ('decode', 'prefill'):
                    e = [abs(math.log(v[1][0] / v[0])) for k, v in data[gpu].items()
                         if k[1] == kind and k[2] == phase and (eng != 'vllm' or phase == 'decode' or k[6] <= 4096)]
                    line.append('%s %s %.3f (%d)' % (kind, phase, med(e), len(e)))
            print('  %s: %s' % (gpu, ', '.join(line)))
        if eng == 'vllm':
            print('2. vLLM prefill past 4k cached (48k-64k; one slice of the grids at their median prefix): median |log error|')
            for gpu in data:
                line = []
                for kind in ('csa', 'hca'):
                    e = [(math.log(v[1][0] / v[0]), k) for k, v in data[gpu].items()
                         if k[1] == kind and k[2] == 'prefill' and k[6] > 32768]
                    line.append('%s %.3f (%d; signed median %+.3f)' % (
                        kind, med([abs(x) for x, _ in e]), len(e), med([x for x, _ in e])))
                print('  %s: %s' % (gpu, ', '.join(line)))
        print('3. held out by GPU, median |log(predicted / measured)|: (a) the nearest GPU\'s block as it is, '
              '(b) the parts model fitted on the other two, (c) (a) x the model\'s ratio')
        for kind in ('csa', 'hca'):
            for phase in ('decode', 'prefill'):
                line = []
                for gpu in data:
                    others = [g for g in data if g != gpu]
                    rows = [(feats(v[1][1:]), v[0] * 1e-6) for g in others for k, v in data[g].items()
                            if k[1] == kind and k[2] == phase]
                    c = fit(rows)
                    ref = NEAREST[gpu]
                    ea, eb, ec = [], [], []
                    for k, v in data[gpu].items():
                        if k[1] != kind or k[2] != phase:
                            continue
                        eb.append(abs(math.log(max(model(c, feats(v[1][1:])), 1e-9) / (v[0] * 1e-6))))
                        w = data[ref].get(k)
                        if w:
                            ea.append(abs(math.log(w[0] / v[0])))
                            r = model(c, feats(v[1][1:])) / model(c, feats(w[1][1:]))
                            ec.append(abs(math.log(w[0] * r / v[0])))
                    line.append('%s (from %s) %.3f / %.3f / %.3f' % (gpu, ref, med(ea), med(eb), med(ec)))
                print('  %s %s: %s' % (kind, phase, ', '.join(line)))
        for kind in ('csa', 'hca'):
            for phase in ('decode', 'prefill'):
                rows = [(feats(v[1][1:]), v[0] * 1e-6) for g in data for k, v in data[g].items()
                        if k[1] == kind and k[2] == phase]
                fits[(eng, phase, kind)] = (fit(rows), len(rows))
    print('\n4. fitted on H100, H200 and B200 (c0 s, c_gemm, c_attn, c_bytes; rows):')
    for k, (c, n) in sorted(fits.items()):
        print('  %s %s %s: %.3g, %.3f, %.3f, %.3f (%d)' % (k + tuple(c) + (n,)))
    print('\nstatic const struct csa_fit csa_fits[2][2][2] = {')
    for eng, _ in ENGINES:
        print('\t/* %s */ {' % eng)
        for phase in ('decode', 'prefill'):
            cs = [fits[(eng, phase, kind)][0] for kind in ('csa', 'hca')]
            print('\t\t{' + ', '.join('{%.4g, %.4g, %.4g, %.4g}' % tuple(c) for c in cs) + '},')
        print('\t},')
    print('};')


if __name__ == '__main__':
    main(sys.argv[1] if len(sys.argv) > 1 else 'build')
