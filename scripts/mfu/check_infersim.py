#!/usr/bin/env python3
"""Hold-out check of the H20/H800 tables derived from InferSim
(scripts/mfu/derive_infersim.py): within every measured sweep (a GEMM's m for
one (n, k); a decode attention's kv_len for one head layout and batch; a
prefill's length; an MoE curve's tokens) every other row is held out, the
tables are rebuilt from the rest, and servesim's lookup of each held-out row
(after) is compared with the measurement, next to what servesim gave before
these tables existed (the borrowed H100 tables carried by roofline
efficiency and compute_eff_scale).  Nothing is fitted here.

usage: python3 scripts/mfu/check_infersim.py [BUILD_DIR]   (from the repository root,
after `make`; compiles tools/kerncheck.c against BUILD_DIR/libservesim.a)

Prints per GPU and table kind: rows checked, median predicted/measured and
median |log(predicted/measured)| (the spread), before -> after.  Then the
layout hold-out: each own attention/MLA layout removed whole and predicted
from the rest (per layout: median log(pred/meas) / median |log|, before ->
after), the check of the rule for layouts InferSim did not measure.
"""
import csv, glob, gzip, math, os, shutil, statistics as st, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checktool  # noqa: E402

KEYS = {  # table -> (group columns, sweep column)
    'gemm': (['dtype', 'n', 'k'], 'm'),
    'attn_decode': (['heads', 'kv_heads', 'head_dim', 'kv_dtype', 'batch'], 'kv_len'),
    'attn_prefill': (['heads', 'kv_heads', 'head_dim', 'kv_dtype', 'batch'], 'isl'),
    'mla_decode': (['heads', 'kv_heads', 'head_dim', 'kv_dtype', 'batch'], 'kv_len'),
    'mla_prefill': (['heads', 'kv_heads', 'head_dim', 'kv_dtype', 'batch'], 'isl'),
    'moe': (['dtype', 'hidden', 'inter', 'topk', 'experts', 'moe_tp', 'moe_ep', 'distribution'], 'tokens'),
}


def read(path):
    with gzip.open(path, 'rt') as f:
        lines = f.read().splitlines()
    notes = [l for l in lines if l.startswith('#')]
    rows = list(csv.DictReader(l for l in lines if not l.startswith('#')))
    return notes, rows


def query(kind, r):
    if kind == 'gemm':
        return 'gemm %s %s %s %s' % (r['dtype'], r['m'], r['n'], r['k'])
    if kind.startswith('attn_'):
        return '%s %s %s %s %s %s %s' % (kind, r['heads'], r['kv_heads'], r['head_dim'], r['kv_dtype'], r['batch'],
                                         r['kv_len' if kind == 'attn_decode' else 'isl'])
    if kind.startswith('mla_'):
        return '%s %s %s %s %s' % (kind, r['heads'], r['kv_dtype'], r['batch'], r['kv_len' if kind == 'mla_decode' else 'isl'])
    return 'moe %s %s %s %s %s %s %s %s %s' % (r['dtype'], r['hidden'], r['inter'], r['topk'], r['experts'],
                                               r['moe_tp'], r['moe_ep'], r['distribution'], r['tokens'])


def run(tool, data, gpu, mode, lines):
    out = subprocess.run([tool, data, gpu, mode], input='\n'.join(lines) + '\n', capture_output=True,
                         text=True, check=True).stdout.split()
    return [float(x) for x in out]


def main(build):
    tmp = tempfile.mkdtemp(prefix='kerncheck.')
    tool = checktool.build('kerncheck', build, tmp)
    try:
        for gpu in ('h20', 'h800'):
            coll = sorted(glob.glob('data/mfu/%s/infersim-*' % gpu))[-1]
            data = os.path.join(tmp, gpu)
            os.makedirs(os.path.join(data, 'mfu', gpu, os.path.basename(coll)))
            shutil.copy('data/gpus.json', data)
            for d in glob.glob('data/mfu/*'):
                if os.path.isdir(d) and os.path.basename(d) not in ('h20', 'h800'):
                    os.symlink(os.path.abspath(d), os.path.join(data, 'mfu', os.path.basename(d)))
            held = {}
            for path in sorted(glob.glob(os.path.join(coll, '*.csv.gz'))):
                kind = os.path.basename(path)[:-7]
                notes, rows = read(path)
                gcols, sweep = KEYS[kind]
                groups = {}
                for r in rows:
                    groups.setdefault(tuple(r[c] for c in gcols), []).append(r)
                keep, out = [], []
                for g, rs in groups.items():
                    rs.sort(key=lambda r: float(r[sweep]))
                    keep += rs[0::2]
                    # the power-law MoE rows are derived (balanced x an H100
                    # ratio): only the measured balanced rows are checked
                    if kind != 'moe' or g[7] == 'balanced':
                        out += rs[1::2]
                held[kind] = out
                with gzip.open(os.path.join(data, 'mfu', gpu, os.path.basename(coll), os.path.basename(path)), 'wt') as f:
                    f.write('\n'.join(notes) + '\n' + ','.join(rows[0].keys()) + '\n')
                    for r in keep:
                        f.write(','.join(r.values()) + '\n')
            if 'moe' in held:  # EP and no EP apart (different kernels' regimes)
                held['moe ep1'] = [r for r in held['moe'] if r['moe_ep'] == '1']
                held['moe ep>1'] = [r for r in held.pop('moe') if r['moe_ep'] != '1']
            for kind, rows in held.items():
                if not rows:
                    continue
                q = [query(kind.split()[0], r) for r in rows]
                meas = [float(r['latency_us']) for r in rows]
                res = {}
                for mode, dd in (('borrowed', 'data'), ('own', data)):
                    pred = run(tool, dd, gpu, mode, q)
                    ok = [(p, m) for p, m in zip(pred, meas) if p == p and p > 0]
                    if not ok:
                        res[mode] = 'no table'
                        continue
                    ratio = [p / m for p, m in ok]
                    res[mode] = 'median %.3f, |log| %.3f (n=%d)' % (st.median(ratio), st.median(abs(math.log(x)) for x in ratio), len(ok))
                print('%-5s %-12s held out %4d: before %s -> after %s' % (gpu, kind, len(rows), res['borrowed'], res['own']))
        layout_holdout(tool, tmp)
    finally:
        shutil.rmtree(tmp)


def layout_holdout(tool, tmp):
    """Every own attention layout (heads, KV heads, head dim, KV dtype) in
    turn removed from the GPU's tables and its rows predicted from the rest:
    the rule for layouts InferSim did not measure (mfu.c
    mfu_attn_anchor_own: the nearest own layout x the borrowed ratio)
    against the borrowed tables alone."""
    for gpu in ('h20', 'h800'):
        coll = sorted(glob.glob('data/mfu/%s/infersim-*' % gpu))[-1]
        for path in sorted(glob.glob(os.path.join(coll, '*.csv.gz'))):
            kind = os.path.basename(path)[:-7]
            if not (kind.startswith('attn_') or kind.startswith('mla_')):
                continue
            notes, rows = read(path)
            gcols = KEYS[kind][0][:4]
            layouts = sorted({tuple(r[c] for c in gcols) for r in rows})
            if len(layouts) < 2:
                continue
            allr = {'borrowed': [], 'own': []}
            per = []
            for lay in layouts:
                data = os.path.join(tmp, 'lay')
                shutil.rmtree(data, ignore_errors=True)
                od = os.path.join(data, 'mfu', gpu, os.path.basename(coll))
                os.makedirs(od)
                shutil.copy('data/gpus.json', data)
                for d in glob.glob('data/mfu/*'):
                    if os.path.isdir(d) and os.path.basename(d) not in ('h20', 'h800'):
                        os.symlink(os.path.abspath(d), os.path.join(data, 'mfu', os.path.basename(d)))
                for other in glob.glob(os.path.join(coll, '*.csv.gz')):
                    if other != path:
                        shutil.copy(other, od)
                out = [r for r in rows if tuple(r[c] for c in gcols) == lay]
                with gzip.open(os.path.join(od, os.path.basename(path)), 'wt') as f:
                    f.write('\n'.join(notes) + '\n' + ','.join(rows[0].keys()) + '\n')
                    for r in rows:
                        if tuple(r[c] for c in gcols) != lay:
                            f.write(','.join(r.values()) + '\n')
                q = [query(kind, r) for r in out]
                meas = [float(r['latency_us']) for r in out]
                res = []
                for mode, dd in (('borrowed', 'data'), ('own', data)):
                    lr = [math.log(p / m) for p, m in zip(run(tool, dd, gpu, mode, q), meas) if p == p and p > 0]
                    allr[mode] += lr
                    res.append('%+.3f/%.3f' % (st.median(lr), st.median(abs(x) for x in lr)) if lr else 'none')
                per.append('-'.join(lay) + ' ' + ' -> '.join(res))
            print('%-5s %-12s layouts held out %2d (%4d rows): before median log %+.3f, |log| %.3f -> after %+.3f, |log| %.3f'
                  % (gpu, kind, len(layouts), len(allr['own']), st.median(allr['borrowed']),
                     st.median(abs(x) for x in allr['borrowed']), st.median(allr['own']),
                     st.median(abs(x) for x in allr['own'])))
            for line in per:
                print('      ' + line)


if __name__ == '__main__':
    main(sys.argv[1] if len(sys.argv) > 1 else 'build')
