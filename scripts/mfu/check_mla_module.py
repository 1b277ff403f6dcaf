#!/usr/bin/env python3
"""MLA decode module check (issue 9): each engine's measured MLA generation
module (aiconfigurator's mla_generation_module_perf: the whole attention
block - projections, norms, RoPE, absorb BMMs, MLA kernel, o_proj - timed
under a CUDA graph, DeepSeek-V3 geometry, fp8_block GEMMs, bf16 MLA compute)
against servesim's sum of the same parts priced from that engine's tables
(tools/mlacheck.c), at heads 8..128, batch 1..256 and 1k/4k/16k keys.
Nothing is fitted here: it prints module - parts per point and the median
over batch <= 64, the figures behind cost.c's MLA_MODULE_VLLM_* terms (the
printed medians are with the term left out).

With --prefill: the same for the MLA context module (mla_context_module_perf:
batch prefix-free prompts of isl tokens, expanded MLA prefill) against
mlacheck's prefill parts, heads 8..128, batch 1..256, isl 128..16384
(batch x isl <= 65536): module - parts, module / parts and the medians over
all points and over points of >= 1024 tokens, and the least-squares line
(module - parts) per 1k tokens = a + b x heads over the points of >= 1024
tokens, per set and pooled over each engine's Hopper sets (the figures
behind cost.c's MLA_CTX_VLLM_HOPPER_* and MLA_CTX_TRTLLM_HOPPER_* terms; printed with the term left out).

usage: python3 scripts/mfu/check_mla_module.py [--prefill] [BUILD_DIR]   (from the repository
root, after `make`; compiles tools/mlacheck.c against BUILD_DIR/libservesim.a;
reads ../shared/data/mfu/aic-engines)
"""
import csv, gzip, os, statistics as st, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checktool  # noqa: E402

AIC = os.path.join('..', 'shared', 'data', 'mfu', 'aic-engines')
GPUS = {'h100_sxm': 'h100', 'h200_sxm': 'h200', 'b200_sxm': 'b200'}


def module_rows(path, key_col='step'):
    best = {}
    with gzip.open(path, 'rt') as f:
        for r in csv.DictReader(f):
            if r['gemm_type'] != 'fp8_block' or r['mla_dtype'] != 'bfloat16':
                continue
            kv = 'bf16' if r['kv_cache_dtype'] == 'bfloat16' else 'fp8'
            key = (kv, int(r['num_heads']), int(r['batch_size']), int(r[key_col]))
            lat = float(r['latency']) * 1000.0
            best[key] = min(best.get(key, lat), lat)
    return best


def line_fit(pts):
    """least squares y = a + b x over (x, y) points"""
    n = len(pts)
    mx = sum(x for x, _ in pts) / n
    my = sum(y for _, y in pts) / n
    b = sum((x - mx) * (y - my) for x, y in pts) / sum((x - mx) ** 2 for x, _ in pts)
    return my - b * mx, b


POOL = {}


def prefill(tool, system, gpu, engine, ver, path):
    mod = module_rows(path, 'isl')
    for kv in ('bf16', 'fp8'):
        out = subprocess.run([tool, 'data', engine, gpu, kv, 'prefill'], check=True, capture_output=True,
                             text=True).stdout
        print('== %s %s %s, %s KV, prefill: module - parts (us) [module / parts]; rows heads x batch, '
              'columns isl 128..16384' % (system, engine, ver, kv))
        gaps, ratios, big, bigr, per = [], [], [], [], []
        rows = {}
        for line in out.split('\n'):
            if not line:
                continue
            h, b, isl, t = line.split()
            h, b, isl, t = int(float(h)), int(b), int(isl), float(t)
            m = mod.get((kv, h, b, isl))
            if m is None:
                cell = '-'
            else:
                g = m - t
                gaps.append(g)
                ratios.append(m / t)
                if b * isl >= 1024:
                    big.append(g / (b * isl) * 1000.0)
                    per.append((h, g / (b * isl) * 1000.0))
                    bigr.append(m / t)
                cell = '%.0f[%.2f]' % (g, m / t)
            rows.setdefault((h, b), []).append(cell)
        for (h, b), cells in sorted(rows.items()):
            print('%4d %4d  %s' % (h, b, ' '.join('%-12s' % c for c in cells)))
        if gaps:
            print('  median module - parts %.1f us, module / parts %.3f (%d points); >= 1024 tokens: '
                  '%.2f us per 1k tokens, module / parts %.3f (%d points)'
                  % (st.median(gaps), st.median(ratios), len(gaps), st.median(big), st.median(bigr), len(big)))
            print('  per 1k tokens: %.1f + %.3f x heads us' % line_fit(per))
            if system in ('h100_sxm', 'h200_sxm'):
                POOL.setdefault(engine, []).extend(per)


def main():
    args = [a for a in sys.argv[1:] if a != '--prefill']
    pre = len(args) != len(sys.argv) - 1
    build = args[0] if args else 'build'
    tool = checktool.build('mlacheck', build)
    for system, gpu in GPUS.items():
        for engine in ('vllm', 'trtllm'):
            d = os.path.join(AIC, system, 'mla', engine)
            if not os.path.isdir(d):
                continue
            ver = sorted(os.listdir(d), key=lambda v: [int(x) if x.isdigit() else x for x in v.replace('rc', '.').split('.')])[-1]
            path = os.path.join(d, ver, 'mla_%s_module_perf.csv.gz' % ('context' if pre else 'generation'))
            if not os.path.exists(path):
                continue
            if pre:
                prefill(tool, system, gpu, engine, ver, path)
                continue
            mod = module_rows(path)
            for kv in ('bf16', 'fp8'):
                out = subprocess.run([tool, 'data', engine, gpu, kv], check=True, capture_output=True, text=True).stdout
                parts = {}
                for line in out.split('\n'):
                    if line:
                        h, b, k, t = line.split()
                        parts[(int(float(h)), int(b), int(k))] = float(t)
                print('== %s %s %s, %s KV: module - parts (us); rows heads, columns batch 1..256, keys 1k/4k/16k'
                      % (system, engine, ver, kv))
                gaps = []
                for h in (8, 16, 32, 64, 128):
                    cells = []
                    for b in (1, 2, 4, 8, 16, 32, 64, 128, 256):
                        cell = []
                        for k in (1024, 4096, 16384):
                            # generation 'step' counts keys in all (step k or k - 1)
                            m = next((mod[(kv, h, b, s)] for s in (k, k - 1) if (kv, h, b, s) in mod), None)
                            if m is None or (h, b, k) not in parts:
                                cell.append('-')
                                continue
                            g = m - parts[(h, b, k)]
                            cell.append('%.0f' % g)
                            if b <= 64:
                                gaps.append(g)
                        cells.append('/'.join(cell))
                    print('%4d  %s' % (h, ' '.join('%-12s' % c for c in cells)))
                if gaps:
                    print('  median over batch <= 64: %.1f us (%d points)' % (st.median(gaps), len(gaps)))

    for engine, per in sorted(POOL.items()):
        print('pooled %s H100/H200 bf16+fp8 KV, >= 1024 tokens: (module - parts) per 1k tokens = %.1f + %.3f x heads us'
              ' (%d points)' % ((engine,) + line_fit(per) + (len(per),)))


if __name__ == '__main__':
    main()
