#!/usr/bin/env python3
"""DSA module check (issue 9): each engine's measured DeepSeek sparse
attention module (aiconfigurator's dsa_{generation,context}_module_perf:
the whole DSA attention block of DeepSeek-V3.2 and GLM-5 - MLA projections
and norms, the lightning indexer with its projections, scores and top-k, the
sparse MLA kernel, o_proj - on one GPU) against servesim's sum of the same
parts priced from that engine's tables (tools/dsacheck.c, cost_dsa_parts_s),
on H100, H200 and B200, decode and prefill.

Prints, per engine x GPU x phase: the median module / parts and module -
parts, and how module / parts varies with the KV dtype, the projections'
dtype, the geometry, heads, batch, keys (decode; <= index_topk 2048 or
beyond) or prompt length (prefill); then the median |log(predicted /
measured)| of the parts alone (before) and with the engine's DSA module term
(after: cost_dsa_module_s, the excess scripts/mfu/derive_dsa.py's table gives
back); then the same held out by GPU: the excess fitted on the other GPUs of
the engine (their mean module - parts at the same point) added to this
GPU's parts, against the ratio form (their mean log(module / parts)); and
last SGLang's prefill rows with a cached prefix (not in the derived table:
the step's pricing of chunks with a prefix, parts and term, against them).

usage: python3 scripts/mfu/check_dsa_module.py [BUILD_DIR]   (from the
repository root, after `make`; compiles tools/dsacheck.c against
BUILD_DIR/libservesim.a: checktool.py; reads ../shared/data/mfu/aic-engines)
"""
import collections, math, os, statistics as st, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checktool  # noqa: E402
from aic import rows, find  # noqa: E402
from derive_dsa import geometry  # noqa: E402  (the derived table's geometries)

AIC = os.path.join('..', 'shared', 'data', 'mfu', 'aic-engines')
GPUS = {'h100_sxm': 'h100', 'h200_sxm': 'h200', 'b200_sxm': 'b200'}
TOPK = 2048


def points():
    """Every module row servesim can price, as derive_dsa.py keys them
    (prefill rows with a prefix too, flagged)."""
    for system, gpu in GPUS.items():
        for eng in ('vllm', 'sglang', 'trtllm'):
            d = os.path.join(AIC, system, 'sparse_attention', eng)
            if not os.path.isdir(d):
                continue
            for ver in sorted(os.listdir(d)):
                for phase, name in (('decode', 'dsa_generation_module_perf.csv'),
                                    ('prefill', 'dsa_context_module_perf.csv')):
                    p = find(os.path.join(d, ver), name)
                    if not p:
                        continue
                    for r in rows(p):
                        geo = geometry(r['model'])[0]
                        gm = {'fp8_block': 'fp8', 'bfloat16': 'bf16'}.get(r['gemm_type'])
                        if not geo or not gm:
                            continue
                        b, h, step = int(r['batch_size']), int(r['num_heads']), int(r['step'])
                        if h < 8:  # as derive_dsa.py
                            continue
                        if phase == 'decode':
                            if (eng == 'sglang' and b > 256) or (eng == 'trtllm' and step == TOPK):
                                continue
                            n, pre = (step if eng == 'vllm' else step + 1), 0
                        else:
                            n, pre = int(r['isl']), step
                        yield dict(gpu=gpu, engine=eng, ver=ver, phase=phase, model=geo,
                                   kv='fp8' if 'fp8' in r['kv_cache_dtype'] else 'bf16', gemm=gm,
                                   shared='skip_indexer' in r['op_name'], h=h, b=b, n=n, pre=pre,
                                   module=float(r['latency']) * 1000.0)


def price(tool, pts):
    groups = collections.defaultdict(list)
    for p in pts:
        groups[(p['engine'], p['gpu'], p['model'], p['kv'], p['gemm'], p['phase'], p['shared'])].append(p)
    for (eng, gpu, model, kv, gm, phase, shared), g in sorted(groups.items()):
        inp = ''.join('%d %d %d %d\n' % (p['h'], p['b'], p['n'], p['pre']) for p in g)
        args = [tool, 'data', eng, gpu, model, kv, gm, phase] + (['shared'] if shared else [])
        out = subprocess.run(args, input=inp, capture_output=True, text=True, check=True).stdout.split('\n')
        for p, line in zip(g, out):
            f = line.split()
            p['parts'], p['term'] = float(f[-2]), float(f[-1])


def med(x):
    return st.median(x) if x else float('nan')


def bucket(v, edges):
    for e in edges:
        if v <= e:
            return e
    return edges[-1] * 2


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else 'build'
    tool = checktool.build('dsacheck', build)
    pts = list(points())
    price(tool, pts)
    main_pts = [p for p in pts if p['pre'] == 0 and not p['shared']]
    groups = collections.defaultdict(list)
    for p in main_pts:
        groups[(p['engine'], p['gpu'], p['phase'])].append(p)
    print('== module / parts, median (points); parts = servesim before the DSA module term')
    for k in sorted(groups):
        g = groups[k]
        print('%-6s %-4s %-7s %5d points: module/parts %.2f, module - parts %+.0f us'
              % (k + (len(g), med([p['module'] / p['parts'] for p in g]), med([p['module'] - p['parts'] for p in g]))))
        axes = [('kv', lambda p: p['kv']), ('gemm', lambda p: p['gemm']), ('model', lambda p: p['model']),
                ('heads', lambda p: p['h']), ('batch', lambda p: bucket(p['b'], [1, 4, 16, 64, 256, 1024]))]
        if k[2] == 'decode':
            axes += [('keys', lambda p: bucket(p['n'], [256, 1024, TOPK, 8192, 32768, 131072])),
                     ('topk', lambda p: 'keys<=2048' if p['n'] <= TOPK else 'keys>2048')]
        else:
            axes += [('isl', lambda p: bucket(p['n'], [16, 128, 1024, 4096, 16384, 32768])),
                     ('tokens', lambda p: bucket(p['b'] * p['n'], [256, 2048, 8192, 32768, 131072]))]
        for name, f in axes:
            d = collections.defaultdict(list)
            for p in g:
                d[f(p)].append(p['module'] / p['parts'])
            print('    %-6s %s' % (name, '  '.join('%s:%.2f' % (v, med(x)) for v, x in sorted(d.items()))))
    print('== median |log(predicted / measured)|: parts alone -> parts + DSA module term')
    allp = [p for p in pts if p['pre'] == 0]
    g2 = collections.defaultdict(list)
    for p in allp:
        g2[(p['engine'], p['gpu'], p['phase'] + ('_shared' if p['shared'] else ''))].append(p)
    for k in sorted(g2):
        g = g2[k]
        print('%-6s %-4s %-14s %5d: %.3f -> %.3f' % (k + (len(g), med([abs(math.log(p['parts'] / p['module'])) for p in g]),
                                                      med([abs(math.log(max(p['parts'] + p['term'], 1e-3) / p['module'])) for p in g]))))
    print('== held out by GPU: module - parts (or log module / parts) of the engine\'s other GPUs at the same point')
    key = lambda p: (p['engine'], p['phase'], p['shared'], p['model'], p['kv'], p['gemm'], p['h'], p['b'], p['n'])
    by = collections.defaultdict(dict)
    for p in allp:
        by[key(p)][p['gpu']] = p
    ho = collections.defaultdict(lambda: ([], [], []))
    for k, gp in by.items():
        for x, p in gp.items():
            others = [o for o in gp.values() if o is not p]
            if not others:
                continue
            ex = sum(o['module'] - o['parts'] for o in others) / len(others)
            lr = sum(math.log(o['module'] / o['parts']) for o in others) / len(others)
            b, a, r = ho[(k[0], x, k[1] + ('_shared' if k[2] else ''), len(others))]
            b.append(abs(math.log(p['parts'] / p['module'])))
            a.append(abs(math.log(max(p['parts'] + ex, 1e-3) / p['module'])))
            r.append(abs(math.log(p['parts'] * math.exp(lr) / p['module'])))
    for k in sorted(ho):
        b, a, r = ho[k]
        print('%-6s %-4s %-14s from %d other GPU(s) %5d: parts %.3f -> + excess %.3f (x ratio %.3f)'
              % (k[:3] + (k[3], len(b), med(b), med(a), med(r))))
    pref = [p for p in pts if p['pre'] > 0 and p['engine'] == 'sglang' and not p['shared']]
    print('== SGLang prefill with a cached prefix (not in the derived table): parts -> parts + term, as a step prices them')
    g3 = collections.defaultdict(list)
    for p in pref:
        g3[(p['gpu'], 'shared' if p['shared'] else 'own', bucket(p['pre'], [1024, 16384, 131072, 1 << 20]))].append(p)
    for k in sorted(g3):
        g = g3[k]
        print('%-4s %-6s prefix <= %-7d %5d: module/parts %.2f, |log err| %.3f -> %.3f'
              % (k + (len(g), med([p['module'] / p['parts'] for p in g]),
                      med([abs(math.log(p['parts'] / p['module'])) for p in g]),
                      med([abs(math.log((p['parts'] + p['term']) / p['module'])) for p in g]))))


if __name__ == '__main__':
    main()
