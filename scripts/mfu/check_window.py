#!/usr/bin/env python3
"""Check of the sliding-window pricing (src/hw/mfu.c mfu_window_*) on the
measured windowed rows (data/mfu/<gpu>/<engine>-<version>/attn_{prefill,
decode}_window.csv.gz, derived by scripts/mfu/derive.py from aiconfigurator).
Nothing is fitted: servesim's lookup of each measured row is compared with
the measurement, two ways:
  capped   - the rule before the windowed tables: the dense rows of the
             model's layout at the keys capped by the window;
  windowed - the same times the windowed tables' penalty.
In-sample (every windowed row visible) the windowed price of a layout that
the tables measure is its own row, so three hold-outs say what the rule is
worth where nothing was measured:
  layout   - each row's own layout hidden at its window (the penalty from
             the nearest other layout at the same window);
  window   - window 1024 hidden, its rows predicted from windows 128 and
             8192 (mixed in 1/window);
Prints per GPU, engine, table and window: rows, median measured/capped (all
rows, and the rows longer than the window), and median
|log(predicted/measured)| capped -> windowed (in-sample, layout hold-out,
window hold-out).

usage: python3 scripts/mfu/check_window.py [BUILD_DIR]   (from the repository
root after `make`; compiles tools/swacheck.c against BUILD_DIR/libservesim.a)
"""
import csv, glob, gzip, math, os, shutil, statistics as st, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checktool  # noqa: E402

GPUS = (('h100', 'h100_sxm'), ('h200', 'h200_sxm'), ('b200', 'b200_sxm'), ('l40s', 'l40s'))


def read(path):
    with gzip.open(path, 'rt') as f:
        return list(csv.DictReader(l for l in f if not l.startswith('#')))


def run(tool, gpu, engine, lines, hold=None):
    args = [tool, 'data', gpu, engine] + ([str(hold)] if hold else [])
    out = subprocess.run(args, input='\n'.join(lines) + '\n', capture_output=True, text=True,
                         check=True).stdout.split('\n')
    return [tuple(float(x) for x in l.split()) for l in out if l.strip()]


def med_abs(xs):
    return st.median(abs(x) for x in xs) if xs else float('nan')


def main(build):
    tmp = tempfile.mkdtemp(prefix='swacheck.')
    tool = checktool.build('swacheck', build, tmp)
    pooled = {}
    try:
        print('%-5s %-16s %-7s %6s %6s %8s %8s  %s' % ('gpu', 'collection', 'table', 'window', 'rows', 'meas/cap',
                                                  'past win',
                                                  'median |log(pred/meas)|: capped -> windowed (in-sample, layout held out, window held out)'))
        for gpu, tdir in GPUS:
            for engine in ('vllm', 'sglang', 'trtllm'):
                colls = sorted(glob.glob('data/mfu/%s/%s-*' % (tdir, engine)))
                colls = [c for c in colls if glob.glob(os.path.join(c, '*_window.csv.gz'))]
                if not colls:
                    continue
                coll = colls[-1]
                for kind in ('prefill', 'decode'):
                    path = os.path.join(coll, 'attn_%s_window.csv.gz' % kind)
                    if not os.path.exists(path):
                        continue
                    rows = read(path)
                    col = 'isl' if kind == 'prefill' else 'kv_len'
                    q = ['%s %s %s %s %s %s %s %s' % (kind, r['heads'], r['kv_heads'], r['head_dim'], r['kv_dtype'],
                                                      r['window'], r['batch'], r[col]) for r in rows]
                    ins = run(tool, gpu, engine, q)
                    lay = run(tool, gpu, engine, [x + ' hold' for x in q])
                    wins = sorted({int(r['window']) for r in rows})
                    held = run(tool, gpu, engine, q, 1024) if 1024 in wins and len(wins) > 1 else None
                    for w in wins:
                        idx = [i for i, r in enumerate(rows) if int(r['window']) == w]
                        meas = [float(rows[i]['latency_us']) for i in idx]
                        cap = [math.log(ins[i][0] / m) for i, m in zip(idx, meas)]
                        past = [c for i, c in zip(idx, cap) if float(rows[i][col]) > w]
                        win = [math.log(ins[i][1] / m) for i, m in zip(idx, meas)]
                        lh = [math.log(lay[i][1] / m) for i, m in zip(idx, meas)]
                        wh = [math.log(held[i][1] / m) for i, m in zip(idx, meas)] if held and w == 1024 else []
                        print('%-5s %-16s %-7s %6d %6d %8.2f %8.2f  %.3f -> %.3f, %.3f, %s' % (
                            gpu, os.path.basename(coll), kind, w, len(idx), math.exp(-st.median(cap)),
                            math.exp(-st.median(past)) if past else float('nan'),
                            med_abs(cap), med_abs(win), med_abs(lh), '%.3f' % med_abs(wh) if wh else '-'))
                        for k, v in (('cap', cap), ('win', win), ('lay', lh), ('wh', wh)):
                            pooled.setdefault((gpu, kind, k), []).extend(v)
        print('\npooled per GPU (all engines and windows): median |log(pred/meas)| capped -> windowed '
              '(in-sample, layout held out)')
        for gpu, _ in GPUS:
            for kind in ('prefill', 'decode'):
                p = lambda k: pooled.get((gpu, kind, k), [])
                if not p('cap'):
                    continue
                print('  %-5s %-7s rows %6d: %.3f -> %.3f, %.3f' % (gpu, kind, len(p('cap')), med_abs(p('cap')),
                                                                    med_abs(p('win')), med_abs(p('lay'))))
    finally:
        shutil.rmtree(tmp)


if __name__ == '__main__':
    main(sys.argv[1] if len(sys.argv) > 1 else 'build')
