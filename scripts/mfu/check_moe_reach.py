#!/usr/bin/env python3
"""How a fused-MoE lookup prices calls past the last point of its curve
(src/hw/moetab.c moetab_pick_reach): the nearest shape's curve held at its
last measured efficiency, or, past that point, the nearest curve measured as
far as the step.  Checked held out on the kernel tables themselves, as
check_moe_transfer.py does; nothing here is fitted to engine data.

Some collectors stopped a curve after a few token counts: vLLM 0.14.0's Marlin
int4 rows at EP > 1 on H100 and H200 end at 1-160 tokens (the sweep went no
further), a few of vLLM 0.19/0.24's and TensorRT-LLM 1.2's on B200 at 1-1,024,
AITER's at 128, 8,192 or 16,384 where others reach 32,768.  moetab.c holds a
curve at its last efficiency beyond it, so such a curve carries an efficiency
measured at 8 tokens (bandwidth-bound) to an 8,192-token prefill.  Each model
shape is held out of its table in turn (all formats, TP/EP splits) and every
one of its measured points priced from the rest, with the transfer moetab.c
uses (table floor kept, the rest scaled: check_moe_transfer.py 'fixed'):

- nearest: the nearest shape's curve everywhere (moetab_pick);
- reach: the nearest curve measured as far as REACH tokens (or as far as any
  curve of that format in the table) everywhere;
- tail (moetab_pick_reach): the nearest curve within its measured range (in
  rows per expert), the 'reach' curve past it.

Output: median |log(pred/meas)| / median signed log(pred/meas) by tokens
entering the layer, over the points whose lookup the rule changes, for the
held-out curves that are themselves cut short (< 1,024 tokens) and the others.

usage: python3 scripts/mfu/check_moe_reach.py [--reach N] [--dist D]
(from the repository root)."""
import argparse
import collections
import math
import os
import statistics as st
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_moe_transfer as T  # noqa: E402

# AITER's tables too (their curves end at 128 to 32,768 tokens)
T.TABLE_GPU.update({'mi300x': 'mi300x', 'mi355x': 'mi355x'})
BANDS = ((1, 16), (17, 256), (257, 2047), (2048, 16384), (16385, float('inf')))


def nearest(curves, fmt, s, reach):
    el = [c for c in curves if T.compatible(fmt, c['fmt'])]
    if not el:
        return None
    if reach > 0:
        r = min(reach, max(c['tok'][-1] for c in el))
        el = [c for c in el if c['tok'][-1] >= r * (1 - 1e-9)]
    return T.pick(el, fmt, s)


def band(tok):
    return next(i for i, (a, b) in enumerate(BANDS) if a <= tok <= b)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--reach', type=float, default=8192)
    ap.add_argument('--dist', default='power_law_1.01')
    a = ap.parse_args()
    tabs = T.tables(a.dist)
    acc = collections.defaultdict(list)
    changed = collections.Counter()
    for d, coll, _, curves in tabs:
        for mk in sorted({c['s'][:4] for c in curves}):
            rest = [c for c in curves if c['s'][:4] != mk]
            fl = T.floors(rest, T.QUANT)
            for c in curves:
                if c['s'][:4] != mk:
                    continue
                near = nearest(rest, c['fmt'], c['s'], 0)
                if near is None or near['tok'][-1] >= a.reach:
                    continue
                far = nearest(rest, c['fmt'], c['s'], a.reach)
                if far is near or far['tok'][-1] <= near['tok'][-1]:
                    continue
                changed['%s %s %s' % (d, coll, c['fmt'])] += 1
                pn = T.predict(near, c['s'], c['tok'], c['roof'], min(fl[near['fmt']], T.CAP * near['tmin']))
                pf = T.predict(far, c['s'], c['tok'], c['roof'], min(fl[far['fmt']], T.CAP * far['tmin']))
                xs = [math.log(t * c['s'][2] / c['s'][3]) for t in c['tok']]
                pt = [u if x <= near['x'][-1] + 1e-12 else v for u, v, x in zip(pn, pf, xs)]
                cut = 'held-out curve cut short' if c['tok'][-1] < 1024 else 'held-out curve complete'
                for name, pr in (('nearest', pn), ('reach', pf), ('tail', pt)):
                    for tok, p, m in zip(c['tok'], pr, c['t']):
                        for scope in (cut, 'all changed'):
                            acc[(scope, name, band(tok))].append(math.log(p / m))
    print('%s, %d tables, reach %.0f tokens; median |log(pred/meas)| / signed (points)' % (a.dist, len(tabs), a.reach))
    print('%-34s' % '' + ''.join('%-24s' % ('%g-%g' % b) for b in BANDS))
    for scope in ('held-out curve complete', 'held-out curve cut short', 'all changed'):
        for name in ('nearest', 'reach', 'tail'):
            row = []
            for b in range(len(BANDS)):
                v = acc[(scope, name, b)]
                row.append('%.3f/%+.3f (%5d)' % (st.median(abs(x) for x in v), st.median(v), len(v)) if v else '-')
            print('%-34s' % ('%s, %s' % (scope, name)) + ''.join('%-24s' % r for r in row))
    print('held-out curves whose lookup changes:', ', '.join('%s: %d' % kv for kv in sorted(changed.items())))


if __name__ == '__main__':
    main()
