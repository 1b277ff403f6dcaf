#!/usr/bin/env python3
"""Derive servesim's kernel tables of the H20 and the H800 from InferSim's
measured kernel timings (alibaba/InferSim bench_data; provenance in
../shared/data/mfu/infersim/PROVENANCE.md).

usage: python3 data/mfu/derive_infersim.py INFERSIM_DIR LENDER_MOE OUT_DIR
  INFERSIM_DIR = ../shared/data/mfu/infersim
  LENDER_MOE   = data/mfu/h100_sxm/sglang-0.5.14/moe.csv.gz (routing-imbalance
                 ratios, see moe_table)
  OUT_DIR      = data/mfu
Writes OUT_DIR/<gpu>/infersim-f2293da/{gemm,attn_decode,attn_prefill,
mla_decode,mla_prefill,moe}.csv.gz (whichever InferSim measured) in the
format of data/mfu/derive.py, with '#' provenance lines.  servesim loads this
folder for the GPUs of data/gpus.json whose "measured" names it, before the
borrowed (tables_of) collections, which fill what InferSim did not measure.

What is mapped, and what is assumed (each table's notes repeat it):
- gemm: DeepGEMM fp8 (1x128 / 128x128 block scales) m x k x n -> dtype fp8.
  InferSim has no bf16 GEMM: bf16 stays borrowed.
- attn_decode / attn_prefill: MHA/GQA (FlashInfer / FlashAttention as InferSim
  ran them), file name <q_heads>-<kv_heads>-<head_dim> per GPU; prefill rows are
  one causal sequence (batch 1) of seq_len tokens, no cached prefix.  kv_len of
  a decode row is taken as the keys attended.
- mla_decode / mla_prefill: <heads>-<kv_lora_rank>-<rope_dim>; written with
  kv_heads 1 and the FLOPs-equivalent head_dim of derive.py (decode absorbed
  544, prefill expanded 160), as derive.py writes aiconfigurator's MLA rows.
- moe: grouped_gemm decode (DeepGEMM masked layout) and prefill (contiguous
  layout) rows, DeepGEMM fp8 with 128x128 block scales -> dtype fp8_block.
  InferSim's setting is DeepEP expert parallelism with data-parallel attention:
  num_gpus GPUs each bring batch_size_per_gpu (seq_len_per_gpu) tokens, so the
  tokens entering the layer (servesim's key) are that times num_gpus, moe_ep =
  num_gpus, moe_tp = 1 (tokens_per_expert = tokens x topk / experts, as the
  files say).  latency = up_proj + down_proj: the two grouped GEMMs only; the
  activation (SiLU-and-mul + fp8 re-quantisation) and the token permutation
  that a fused kernel also runs are NOT in the time (a few per cent of the
  layer at decode sizes).  Routing is balanced (every expert gets
  tokens_per_expert rows).  Power-law rows (servesim's default routing) are the
  balanced latency times the measured power-law / balanced latency ratio of the
  same kernel family on the H100 (aiconfigurator SGLang 0.5.14 fp8_block MoE:
  the median ratio over its curves with the same EP degree and rows per expert
  within a factor 2), so the H20's own shape-and-size efficiency is kept and
  only the imbalance comes from the H100 measurements.
"""
import bisect, csv, glob, gzip, io, math, os, statistics as st, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import derive  # noqa: E402  (the table writer and the MLA dimensions, shared)
from derive import MLA_DECODE_DIM, MLA_PREFILL_DIM  # noqa: E402

COMMIT = 'f2293dab6d23fe2780356eb71e0ffc3b4baf61dd'
COLL = 'infersim-' + COMMIT[:7]


def write(path, header, data, notes):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    derive.write(path, header, data, notes)


def read_csv(path, header):
    """Rows as dicts; a file without its header row (mha/decode/h20/64-2-128.csv)
    gets `header`."""
    with open(path) as f:
        lines = [l for l in f.read().splitlines() if l.strip()]
    if lines and lines[0].split(',')[0] == header[0]:
        lines = lines[1:]
    return [dict(zip(header, l.split(','))) for l in lines]


def shape_of(path):
    return tuple(int(x) for x in os.path.basename(path)[:-4].split('-'))


def note(gpu, what):
    return ['source: alibaba/InferSim %s (Apache-2.0), bench_data/%s' % (COMMIT, what),
            'derived by data/mfu/derive_infersim.py; latency in microseconds, one call on one %s' % gpu.upper()]


def gemm_table(d, gpu, od):
    p = os.path.join(d, 'gemm', gpu, 'data.csv')
    if not os.path.exists(p):
        return 0
    best = {}
    for r in read_csv(p, ['m', 'k', 'n', 'latency_us', 'mfu']):
        key = ('fp8', int(r['m']), int(r['n']), int(r['k']))
        lat = float(r['latency_us'])
        best[key] = min(best.get(key, lat), lat)
    data = sorted(k + ('%.6g' % v,) for k, v in best.items())
    write(os.path.join(od, 'gemm.csv.gz'), ['dtype', 'm', 'n', 'k', 'latency_us'], data,
          note(gpu, 'gemm/%s/data.csv' % gpu) +
          ['DeepGEMM fp8 (block-scaled) GEMMs; no bf16 GEMM was measured (bf16 stays borrowed)'])
    return len(data)


def attn_tables(d, gpu, od):
    n = {}
    for kind, phase, out, dim_of in (('mha', 'decode', 'attn_decode', None), ('mha', 'prefill', 'attn_prefill', None),
                                     ('mla', 'decode', 'mla_decode', MLA_DECODE_DIM),
                                     ('mla', 'prefill', 'mla_prefill', MLA_PREFILL_DIM)):
        files = sorted(glob.glob(os.path.join(d, kind, phase, gpu, '*.csv')))
        if not files:
            continue
        best = {}
        for f in files:
            sh = shape_of(f)
            heads, kvh, hd = (sh[0], 1, dim_of) if kind == 'mla' else sh
            if phase == 'decode':
                rows = read_csv(f, ['dtype', 'kv_dtype', 'batch_size', 'kv_len', 'latency_us', 'mfu'])
            else:
                rows = read_csv(f, ['dtype', 'seq_len', 'latency_us', 'mfu'])
            for r in rows:
                if r['dtype'] != 'bf16':
                    continue
                kvd = r.get('kv_dtype', 'bf16')
                if kvd not in ('bf16', 'fp8'):
                    continue
                if phase == 'decode':
                    key = (heads, kvh, hd, kvd, int(r['batch_size']), int(r['kv_len']))
                else:
                    key = (heads, kvh, hd, kvd, 1, int(r['seq_len']))
                lat = float(r['latency_us'])
                best[key] = min(best.get(key, lat), lat)
        data = sorted(k + ('%.6g' % v,) for k, v in best.items())
        extra = {'attn_decode': 'MHA/GQA decode, one new token per sequence; kv_len = keys attended; per-GPU heads from the file name',
                 'attn_prefill': 'MHA/GQA prefill, one causal sequence of isl tokens (batch 1), no cached prefix; per-GPU heads',
                 'mla_decode': 'MLA decode (absorbed, FlashMLA-style); head_dim %d is the FLOPs-equivalent dimension (derive.py)' % MLA_DECODE_DIM,
                 'mla_prefill': 'MLA prefill (expanded: QK 192, V 128), one causal sequence; head_dim %d is the FLOPs-equivalent dimension (derive.py)' % MLA_PREFILL_DIM}[out]
        write(os.path.join(od, out + '.csv.gz'),
              ['heads', 'kv_heads', 'head_dim', 'kv_dtype', 'batch', 'kv_len' if phase == 'decode' else 'isl', 'latency_us'],
              data, note(gpu, '%s/%s/%s/*.csv' % (kind, phase, gpu)) + [extra])
        n[out] = len(data)
    return n


def imbalance_ratios(lender):
    """(dist, ep) -> sorted [(log2 rows per expert, power-law / balanced latency)]
    over the lender's fp8_block curves."""
    bal, other = {}, {}
    with gzip.open(lender, 'rt') as f:
        for r in csv.DictReader(l for l in f if not l.startswith('#')):
            if r['dtype'] != 'fp8_block':
                continue
            key = (r['hidden'], r['inter'], r['topk'], r['experts'], r['moe_tp'], r['moe_ep'], r['tokens'])
            (bal if r['distribution'] == 'balanced' else other.setdefault(r['distribution'], {}))[key] = float(r['latency_us'])
    out = {}
    for dist, rows in other.items():
        for k, v in rows.items():
            if k in bal:
                x = math.log2(float(k[6]) * float(k[2]) / float(k[3]))
                out.setdefault((dist, int(k[5])), []).append((x, v / bal[k]))
    for k in out:
        out[k].sort()
    return out


def ratio_at(ratios, dist, ep, x):
    """Median ratio within a factor 2 of rows per expert (|dx| <= 1), at the
    nearest EP degree measured."""
    eps = sorted({e for (d_, e) in ratios if d_ == dist}, key=lambda e: (abs(math.log2(e / ep)), e))
    for e in eps:
        pts = ratios[(dist, e)]
        lo = bisect.bisect_left(pts, (x - 1.0, -1))
        hi = bisect.bisect_right(pts, (x + 1.0, 1e30))
        near = [r for _, r in pts[lo:hi]]
        if near:
            return st.median(near)
    return 1.0


def moe_table(d, gpu, lender, od):
    rows = []
    for phase, bcol in (('decode', 'batch_size_per_gpu'), ('prefill', 'seq_len_per_gpu')):
        p = os.path.join(d, 'grouped_gemm', phase, gpu, 'data.csv')
        if not os.path.exists(p):
            continue
        with open(p) as f:
            for r in csv.DictReader(f):
                ex, ng, nl, k = int(r['num_experts']), int(r['num_gpus']), int(r['num_local_experts']), int(r['topk'])
                if ex != ng * nl:
                    continue
                tokens = int(r[bcol]) * ng
                lat = float(r['up_proj_us']) + float(r['down_proj_us'])
                rows.append((int(r['hidden_size']), int(r['intermediate_size']), k, ex, 1, ng, tokens, lat))
    if not rows:
        return 0
    ratios = imbalance_ratios(lender)
    best = {}
    for (h, i, k, ex, tp, ep, tok, lat) in rows:
        x = math.log2(tok * k / ex)
        for dist in ('balanced', 'power_law_1.01', 'power_law_1.2'):
            l = lat if dist == 'balanced' else lat * max(1.0, ratio_at(ratios, dist, ep, x))
            key = ('fp8_block', h, i, k, ex, tp, ep, dist, tok)
            best[key] = min(best.get(key, l), l)
    data = sorted(k_ + ('%.6g' % v,) for k_, v in best.items())
    write(os.path.join(od, 'moe.csv.gz'),
          ['dtype', 'hidden', 'inter', 'topk', 'experts', 'moe_tp', 'moe_ep', 'distribution', 'tokens', 'latency_us'],
          data, note(gpu, 'grouped_gemm/{decode,prefill}/%s/data.csv' % gpu) +
          ['DeepGEMM fp8 grouped GEMMs (decode: masked layout; prefill: contiguous), up_proj + down_proj only '
           '(activation and token permutation not timed); DeepEP setting: tokens = per-GPU batch x num_gpus, moe_ep = num_gpus, moe_tp 1',
           'balanced rows measured; power-law rows = balanced x the power-law/balanced latency ratio of '
           'aiconfigurator SGLang 0.5.14 H100 fp8_block MoE kernels (same EP, rows per expert within 2x; see derive_infersim.py)'])
    return len(data)


def main(d, lender, out):
    for gpu in ('h20', 'h800'):
        od = os.path.join(out, gpu, COLL)
        ng = gemm_table(d, gpu, od)
        na = attn_tables(d, gpu, od)
        nm = moe_table(d, gpu, lender, od)
        print(gpu, COLL, 'gemm', ng, ' '.join('%s %d' % kv for kv in sorted(na.items())), 'moe', nm)


if __name__ == '__main__':
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])
