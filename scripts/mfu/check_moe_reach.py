#!/usr/bin/env python3
"""Which measured fused-MoE curve prices a prefill-sized call (src/hw/moetab.c
moetab_pick_reach): the nearest shape, or the nearest among the curves whose
measurements reach the step's tokens.  Checked held out on the kernel tables
themselves, as check_moe_transfer.py does; nothing here is fitted to engine
data.

Some collectors stopped a curve after a few token counts: vLLM 0.14.0's Marlin
int4 rows at EP > 1 on H100 and H200 end at 1-160 tokens (the kernel's sweep
went no further), a few of vLLM 0.19/0.24's and TensorRT-LLM 1.2's on B200 at
1-1,024.  moetab.c holds a curve at its last measured efficiency beyond it, so
such a curve carries a memory-bound efficiency measured at 8 tokens to an
8,192-token prefill.  Here each model shape is held out of its table in turn
(all formats, TP/EP splits) and every one of its measured points is priced
from the rest, once from the nearest shape (moetab_pick) and once from the
nearest that reaches REACH tokens (or, where none of the table's curves of
that format goes so far, the farthest any does), with the transfer moetab.c
uses (table floor kept, the rest scaled: check_moe_transfer.py 'fixed').

Output: median |log(pred/meas)| and median signed log(pred/meas) by tokens
entering the layer (1-16, 17-256, 257-2,047, >= 2,048), over all held-out
points and over the points whose pick the reach changes.

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

BANDS = ((1, 16), (17, 256), (257, 2047), (2048, float('inf')))


def pick(curves, fmt, s, reach):
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
                near, far = pick(rest, c['fmt'], c['s'], 0), pick(rest, c['fmt'], c['s'], a.reach)
                if near is None:
                    continue
                if far is not near:
                    changed['%s %s %s' % (d, coll, c['fmt'])] += 1
                for name, src in (('nearest', near), ('reach', far)):
                    p = T.predict(src, c['s'], c['tok'], c['roof'], min(fl[src['fmt']], T.CAP * src['tmin']))
                    for tok, pp, m in zip(c['tok'], p, c['t']):
                        lg = math.log(pp / m)
                        for scope in ('all',) + (('changed',) if far is not near else ()):
                            acc[(scope, name, band(tok))].append(lg)
    print('%s, %d tables, reach %.0f tokens; median |log(pred/meas)| / signed (points)' % (a.dist, len(tabs), a.reach))
    print('%-22s' % '' + ''.join('%-26s' % ('tokens %g-%g' % b) for b in BANDS))
    for scope in ('all', 'changed'):
        for name in ('nearest', 'reach'):
            row = []
            for b in range(len(BANDS)):
                v = acc[(scope, name, b)]
                row.append('%.3f / %+.3f (%6d)' % (st.median(abs(x) for x in v), st.median(v), len(v))
                           if v else '%-24s' % '-')
            print('%-22s' % ('%s, %s' % (scope, name)) + '  '.join(row))
    print('held-out curves whose pick changes:', ', '.join('%s: %d' % kv for kv in sorted(changed.items())))


if __name__ == '__main__':
    main()
