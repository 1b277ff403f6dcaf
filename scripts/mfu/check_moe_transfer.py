#!/usr/bin/env python3
"""How a measured fused-MoE curve carries to a shape (or GPU) the tables did
not measure (servesim issue 9): src/hw/moetab.c's transfer, checked held out
on the kernel tables themselves.  Nothing here is fitted to engine data.

Data: the project's own fused-MoE tables (data/mfu/<gpu>/<engine>-<version>/
moe.csv.gz, aiconfigurator's collections, derived by scripts/mfu/derive.py; one
table = engine x GPU x format), rows of one routing distribution (default
power_law_1.01, the one a run uses).  InferSim's H20/H800 tables are left out
(one or eight shapes, one format).

A curve is one (format, hidden, inter, top-k, experts, moe_tp, moe_ep) along
the tokens.  Its roofline is moetab.c's moe_roofline_s at the GPU's figures
(data/gpus.json; moe_fmt_rates' peak and bytes per weight); x = log(tokens x
top-k / experts), the routed rows per expert.  Two transfers of a source
curve S to a target shape T at `tokens` (x taken with T's shape):

- efficiency (moetab.c before this check): T's roofline / S's efficiency,
  eff_S(x) = roof_S / t_S, log-linear in x, held at the ends;
- fixed: t = F + T's roofline / eff'_S(x), eff'_S = roof_S / (t_S - F): the
  part of the latency that does not scale with the roofline (launches,
  routing/permutation, the latency-bound floor) is carried as measured and
  only the rest scales.  F = the lower quartile (QUANT) of the minimum
  latencies of the table's curves of S's format (the table's latency floor;
  at run time the target shape is never in the table, so here it is left
  out too), at most CAP x S's own minimum latency (the remainder stays > 0).

Checks (median |log(predicted / measured)| by tokens entering the layer on
the GPU: 1-16, 17-256, 257+; count of points in brackets):
1. by shape: in each table, every model shape (hidden, inter, top-k,
   experts) is held out in turn, all its formats and TP/EP splits; each of its
   curves is priced from the rest as moetab_pick does (shape_distance, the
   sibling format at +0.3), pooled over all tables and per table;
2. by GPU: a collection measured on several GPUs (same engine version), each
   curve priced from the same curve of another GPU (the borrowed-tables case:
   GB200/B300 from B200, H20/H800 from H100), by GPU family;
3. below a curve's first measured point (InferSim's H20/H800 curves start at
   16 tokens, and a shape priced at fewer rows per expert than its source
   measured falls there too): every table cut to its rows of >= 16 tokens,
   each curve priced at 1-8 tokens from its own cut curve (the floor from
   the cut table);
4. sensitivity of check 1 to QUANT and CAP, and a per-curve F (PHI x the
   curve's own minimum latency) instead of the table's floor.

usage: python3 scripts/mfu/check_moe_transfer.py [--dist D] [--tables] [--quick]
(from the repository root; --tables: per-table lines; --quick: skips 4)."""
import argparse
import collections
import csv
import gzip
import itertools
import json
import math
import os
import statistics as st

MFU = os.path.join('data', 'mfu')
TABLE_GPU = {'h100_sxm': 'h100-sxm', 'h200_sxm': 'h200-sxm', 'b200_sxm': 'b200', 'a100_sxm': 'a100-sxm-80gb',
             'l40s': 'l40s'}
FAMILY = {'h100_sxm': 'Hopper', 'h200_sxm': 'Hopper', 'b200_sxm': 'Blackwell', 'a100_sxm': 'A100', 'l40s': 'L40S'}
FORMATS = ('bf16', 'fp8', 'fp8_block', 'int4', 'fp4', 'mxfp4')
BANDS = ((1, 16), (17, 256), (257, float('inf')))
QUANT, CAP, PHI = 0.25, 0.9, 0.7


def rates(fmt, g):
    """moetab.c moe_fmt_rates: (peak FLOP/s, bytes per weight)."""
    tf = g['tflops']
    bf = tf['bf16'] * 1e12
    if fmt in ('fp8', 'fp8_block'):
        return tf.get('fp8', 0) * 1e12 or bf, 1.0
    if fmt == 'fp4':
        return tf.get('fp4', 0) * 1e12 or bf, 0.5
    if fmt in ('int4', 'mxfp4'):
        return bf, 0.5
    return bf, 2.0


def roofline(s, tok, pk, bpp, bw):
    """moetab.c moe_roofline_s."""
    h, inter, topk, e, tp, ep = s
    el, w = e / ep, inter / tp
    assign = tok * topk / ep
    touched = el * (1.0 - (1.0 - 1.0 / e) ** (tok * topk))
    flops = 6.0 * assign * h * w
    nbytes = touched * 3.0 * h * w * bpp + assign * (2.0 * h + 3.0 * w) * 2.0
    return max(flops / pk, nbytes / bw)


def load(path, g, dist):
    """[curve] of one table: dict fmt, s, x, tok, t (s), roof (s)."""
    bw = g['hbm_tbps'] * 1e12
    pts = collections.OrderedDict()
    with gzip.open(path, 'rt') as f:
        for r in csv.DictReader(line for line in f if not line.startswith('#')):
            if r['distribution'] != dist or r['dtype'] not in FORMATS:
                continue
            s = tuple(float(r[k]) for k in ('hidden', 'inter', 'topk', 'experts', 'moe_tp', 'moe_ep'))
            if s[3] < s[5] or s[1] < s[4]:
                continue
            tok = float(r['tokens'])
            pk, bpp = rates(r['dtype'], g)
            pts.setdefault((r['dtype'], s), []).append(
                (math.log(tok * s[2] / s[3]), tok, float(r['latency_us']) * 1e-6, roofline(s, tok, pk, bpp, bw)))
    out = []
    for (fmt, s), p in pts.items():
        p.sort()
        out.append({'fmt': fmt, 's': s, 'x': [a[0] for a in p], 'tok': [a[1] for a in p],
                    't': [a[2] for a in p], 'roof': [a[3] for a in p], 'tmin': min(a[2] for a in p)})
    return out


def tables(dist):
    gpus = {g['id']: g for g in json.load(open(os.path.join('data', 'gpus.json')))['gpus']}
    res = []
    for d in sorted(os.listdir(MFU)):
        if d not in TABLE_GPU:
            continue
        for coll in sorted(os.listdir(os.path.join(MFU, d))):
            p = os.path.join(MFU, d, coll, 'moe.csv.gz')
            if os.path.exists(p):
                g = gpus[TABLE_GPU[d]]
                res.append((d, coll, g, load(p, g, dist)))
    return res


def shape_distance(a, b):
    """moetab.c shape_distance."""
    wa, wb = a[1] / a[4], b[1] / b[4]
    va, vb = wa * a[3] / a[5], wb * b[3] / b[5]
    lg = lambda u, v: abs(math.log(u / v))
    return (lg(a[0], b[0]) + lg(va, vb) + 0.3 * lg(wa, wb) + 0.5 * lg(a[2], b[2]) + 0.25 * lg(a[3], b[3]) +
            0.1 * lg(a[4], b[4]))


def compatible(want, have):
    if want == have:
        return True
    if want in ('fp8', 'fp8_block') and have in ('fp8', 'fp8_block'):
        return True
    return want in ('fp4', 'mxfp4') and have in ('fp4', 'mxfp4')


def pick(curves, fmt, s):
    """moetab.c moetab_pick (first of the nearest)."""
    best, bd = None, float('inf')
    for c in curves:
        if not compatible(fmt, c['fmt']):
            continue
        d = shape_distance(s, c['s']) + (0 if c['fmt'] == fmt else 0.3)
        if d < bd:
            best, bd = c, d
    return best


def interp(xs, ys, x):
    if len(xs) == 1 or x <= xs[0]:
        return ys[0]
    if x >= xs[-1]:
        return ys[-1]
    lo, hi = 0, len(xs) - 1
    while hi - lo > 1:
        m = (lo + hi) // 2
        if xs[m] <= x:
            lo = m
        else:
            hi = m
    return ys[lo] + (ys[hi] - ys[lo]) * (x - xs[lo]) / (xs[hi] - xs[lo])


def quantile(v, q):
    v = sorted(v)
    i = q * (len(v) - 1)
    lo = int(i)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (i - lo)


def floors(curves, q):
    """{format: the QUANT quantile of its curves' minimum latencies}."""
    by = collections.defaultdict(list)
    for c in curves:
        by[c['fmt']].append(c['tmin'])
    return {f: quantile(v, q) for f, v in by.items()}


def predict(src, s, toks, roofs, fixed):
    """Seconds at each of toks (target shape s, target rooflines roofs) from
    source curve src with fixed part `fixed` (0: the efficiency transfer)."""
    ly = [math.log(r / (t - fixed)) for r, t in zip(src['roof'], src['t'])]
    return [fixed + r / math.exp(interp(src['x'], ly, math.log(tok * s[2] / s[3]))) for tok, r in zip(toks, roofs)]


def band(tok):
    return next(i for i, (a, b) in enumerate(BANDS) if a <= tok <= b)


def new_acc():
    return [[] for _ in BANDS]


def add(acc, toks, pred, meas):
    for tok, p, m in zip(toks, pred, meas):
        acc[band(tok)].append(abs(math.log(p / m)))


def fmt_acc(acc):
    return '  '.join('%.3f (%6d)' % (st.median(a), len(a)) if a else '%14s' % '-' for a in acc)


def by_shape(tabs, methods):
    """Check 1.  methods: {name: F(src, floor table)}; returns
    ({name: acc}, {(table, fmt): {name: acc}}, curves not priced)."""
    pooled = {m: new_acc() for m in methods}
    per = collections.defaultdict(lambda: {m: new_acc() for m in methods})
    unpriced = 0
    for d, coll, _, curves in tabs:
        for mk in sorted({c['s'][:4] for c in curves}):
            rest = [c for c in curves if c['s'][:4] != mk]
            fl = {q: floors(rest, q) for q in {0.0, 0.25, 0.5, QUANT}}
            for c in curves:
                if c['s'][:4] != mk:
                    continue
                src = pick(rest, c['fmt'], c['s'])
                if src is None:
                    unpriced += 1
                    continue
                for name, fixed in methods.items():
                    p = predict(src, c['s'], c['tok'], c['roof'], fixed(src, fl))
                    add(pooled[name], c['tok'], p, c['t'])
                    add(per[(d, coll, c['fmt'])][name], c['tok'], p, c['t'])
    return pooled, per, unpriced


def by_gpu(tabs, methods):
    """Check 2: {(name, 'family->family'): acc}."""
    colls = collections.defaultdict(dict)
    for d, coll, g, curves in tabs:
        colls[coll][d] = (g, curves)
    res = collections.defaultdict(new_acc)
    for coll, gs in colls.items():
        for a, b in itertools.permutations(sorted(gs), 2):
            (ga, ca), (gb, cb) = gs[a], gs[b]
            fl = {q: floors(ca, q) for q in {0.0, 0.25, 0.5, QUANT}}
            index = {(c['fmt'], c['s']): c for c in ca}
            bw = gb['hbm_tbps'] * 1e12
            for tgt in cb:
                src = index.get((tgt['fmt'], tgt['s']))
                if src is None:
                    continue
                pk, bpp = rates(tgt['fmt'], gb)
                roofs = [roofline(tgt['s'], tok, pk, bpp, bw) for tok in tgt['tok']]
                for name, fixed in methods.items():
                    p = predict(src, tgt['s'], tgt['tok'], roofs, fixed(src, fl))
                    add(res[(name, 'all')], tgt['tok'], p, tgt['t'])
                    add(res[(name, FAMILY[a] + '->' + FAMILY[b])], tgt['tok'], p, tgt['t'])
    return res


def below_range(tabs, first=16):
    """Check 3: {name: [|log|]}."""
    res = {'efficiency (before)': [], 'fixed': []}
    for _, _, _, curves in tabs:
        cut = []
        for c in curves:
            keep = [i for i, tok in enumerate(c['tok']) if tok >= first]
            if len(keep) < 2 or keep[0] == 0:
                continue
            cc = {k: [c[k][i] for i in keep] for k in ('x', 'tok', 't', 'roof')}
            cc.update(fmt=c['fmt'], s=c['s'], tmin=min(c['t'][i] for i in keep), full=c)
            cut.append(cc)
        fl = floors(cut, QUANT)
        for cc in cut:
            c = cc['full']
            low = [i for i, tok in enumerate(c['tok']) if tok < first]
            toks, roofs, meas = [c['tok'][i] for i in low], [c['roof'][i] for i in low], [c['t'][i] for i in low]
            for name, fixed in (('efficiency (before)', 0.0), ('fixed', min(fl[cc['fmt']], CAP * cc['tmin']))):
                p = predict(cc, c['s'], toks, roofs, fixed)
                res[name] += [abs(math.log(a / b)) for a, b in zip(p, meas)]
    return res


def table_floor(q, cap):
    return lambda src, fl: min(fl[q][src['fmt']], cap * src['tmin'])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--dist', default='power_law_1.01')
    ap.add_argument('--tables', action='store_true')
    ap.add_argument('--quick', action='store_true')
    a = ap.parse_args()
    tabs = tables(a.dist)
    head = '%-52s %-16s %-16s %-16s' % ('', 'tokens 1-16', '17-256', '257+')
    methods = {'efficiency (before)': lambda src, fl: 0.0,
               'fixed (QUANT %.2f, CAP %.2f)' % (QUANT, CAP): table_floor(QUANT, CAP)}
    print('%s, %d tables; median |log(pred/meas)| (points)' % (a.dist, len(tabs)))
    print('\n1. by shape (each model shape held out of its table)\n' + head)
    pooled, per, unpriced = by_shape(tabs, methods)
    for m in methods:
        print('  %-50s %s' % (m, fmt_acc(pooled[m])))
    print('  (%d held-out curves with no curve of a compatible format left: not priced)' % unpriced)
    if a.tables:
        for k in sorted(per):
            print('  %s' % ' '.join(k))
            for m in methods:
                print('    %-48s %s' % (m, fmt_acc(per[k][m])))
    print('\n2. by GPU (the same curve of another GPU, same collection)\n' + head)
    res = by_gpu(tabs, methods)
    for k in sorted(res, key=lambda k: (k[1] != 'all', k[1], k[0])):
        print('  %-50s %s' % ('%s: %s' % (k[1], k[0]), fmt_acc(res[k])))
    print('\n3. below the measured range (tokens 1-8 from the curve cut at >= 16 tokens)')
    for name, v in below_range(tabs).items():
        print('  %-50s %.3f (%6d)' % (name, st.median(v), len(v)))
    if a.quick:
        return
    print('\n4. sensitivity of check 1\n' + head)
    alt = {}
    for q, cap in ((0.0, CAP), (0.5, CAP), (QUANT, 0.8), (QUANT, 0.95)):
        alt['table floor QUANT %.2f CAP %.2f' % (q, cap)] = table_floor(q, cap)
    alt['per curve: PHI %.2f x its minimum' % PHI] = lambda src, fl: PHI * src['tmin']
    pooled, _, _ = by_shape(tabs, alt)
    for m in alt:
        print('  %-50s %s' % (m, fmt_acc(pooled[m])))


if __name__ == '__main__':
    main()
