#!/usr/bin/env python3
"""Derive servesim's kernel tables of the H20 and the H800 from InferSim's
measured kernel timings (alibaba/InferSim bench_data; provenance in
../shared/data/mfu/infersim/PROVENANCE.md).

usage: python3 scripts/mfu/derive_infersim.py INFERSIM_DIR LENDER_MOE OUT_DIR
  INFERSIM_DIR = ../shared/data/mfu/infersim
  LENDER_MOE   = data/mfu/h100_sxm/sglang-0.5.14/moe.csv.gz (routing-imbalance
                 ratios, see moe_table; its folder's attn_decode / mla_decode
                 give the length ratios of host_floor_fix)
  OUT_DIR      = data/mfu
Writes OUT_DIR/<gpu>/infersim-f2293da/{gemm,attn_decode,attn_prefill,
mla_decode,mla_prefill,moe}.csv.gz (whichever InferSim measured) in the
format of scripts/mfu/derive.py, with '#' provenance lines.  servesim loads this
folder for the GPUs of data/gpus.json whose "measured" names it, before the
borrowed (tables_of) collections, which fill what InferSim did not measure.

What is mapped, and what is assumed (each table's notes repeat it):
- gemm: DeepGEMM fp8 (1x128 / 128x128 block scales) m x k x n -> dtype fp8.
  InferSim has no bf16 GEMM: bf16 stays borrowed.
- attn_decode / attn_prefill: MHA/GQA (FlashInfer / FlashAttention as InferSim
  ran them), file name <q_heads>-<kv_heads>-<head_dim> per GPU; prefill rows are
  one causal sequence (batch 1) of seq_len tokens, no cached prefix.  kv_len of
  a decode row is taken as the keys attended.  Decode rows at the timing
  harness's host floor are replaced (HOST_FLOOR_X, host_floor_fix).
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
            'derived by scripts/mfu/derive_infersim.py; latency in microseconds, one call on one %s' % gpu.upper()]


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


# InferSim timed its decode-attention calls (FlashInfer's Python wrapper) as
# host wall time per call (torch.utils.benchmark), so a call whose kernel is
# shorter than the wrapper's host overhead reads as that overhead: on the H20
# a 16-2-128 decode of one sequence takes 27-32 us for any length from 1k to
# 32k keys (its KV read: 0.3-8 us at 4 TB/s), on the H800 28-36 us likewise;
# an engine running CUDA graphs does not pay it.  Rows below HOST_FLOOR_X x
# the GPU's floor (the median over its layouts of the shortest single-
# sequence call) are replaced, per batch sweep, by the first row above it
# times the H100 table's latency ratio between the two lengths (the lender
# given for the MoE ratios: aiconfigurator SGLang 0.5.14, nearest layout).
# A layout whose own shortest call is well below the floor (H20 32-8-128: 10
# us, timed without the overhead) is kept as measured.
HOST_FLOOR_X = 1.5
HOST_FLOOR_OWN_MIN = 0.75


def lender_attn(path):
    """(heads, kv_heads, head_dim, kv_dtype) -> {batch: sorted [(log kv_len, log latency)]}."""
    out = {}
    with gzip.open(path, 'rt') as f:
        for r in csv.DictReader(l for l in f if not l.startswith('#')):
            key = (int(r['heads']), int(r['kv_heads']), int(r['head_dim']), r['kv_dtype'])
            out.setdefault(key, {}).setdefault(int(r['batch']), []).append(
                (math.log(float(r['kv_len'])), math.log(float(r['latency_us']))))
    for k in out:
        for b in out[k]:
            out[k][b].sort()
    return out


def lender_ratio(lend, lay, batch, l_to, l_from):
    """Latency ratio lender(batch, l_to) / lender(batch, l_from) for the nearest
    lender layout and batch, log-log interpolated over kv_len (clamped)."""
    def dist(k):
        return (abs(math.log(k[0] / lay[0])) + abs(math.log(k[1] / lay[1])) + 2 * abs(math.log(k[2] / lay[2])) +
                (0.5 if k[3] != lay[3] else 0))
    key = min(lend, key=dist)
    b = min(lend[key], key=lambda x: abs(math.log(x / batch)))
    pts = lend[key][b]

    def at(x):
        if x <= pts[0][0]:
            return pts[0][1]
        if x >= pts[-1][0]:
            return pts[-1][1]
        i = bisect.bisect_left(pts, (x, -1e30))
        (x0, y0), (x1, y1) = pts[i - 1], pts[i]
        return y0 + (y1 - y0) * (x - x0) / (x1 - x0)
    return min(1.0, math.exp(at(math.log(l_to)) - at(math.log(l_from))))


def host_floor_fix(per_file, lend):
    """per_file: {layout: {(kv_dtype, batch, kv_len): latency}} of one GPU's
    decode kind, corrected in place; returns (floor, rows replaced)."""
    firsts = []
    for rows in per_file.values():
        b1 = sorted((L, v) for (kd, b, L), v in rows.items() if b == 1 and kd == 'bf16')
        if b1:
            firsts.append(b1[0][1])
    if not firsts:
        return 0, 0
    floor = st.median(firsts)
    fixed = 0
    for lay, rows in per_file.items():
        if min(rows.values()) < HOST_FLOOR_OWN_MIN * floor:
            continue
        for kd, b in sorted({(k[0], k[1]) for k in rows}):
            sweep = sorted((L, v) for (kd_, b_, L), v in rows.items() if kd_ == kd and b_ == b)
            low = [i for i, (L, v) in enumerate(sweep) if v < HOST_FLOOR_X * floor]
            if not low or low[-1] + 1 >= len(sweep):
                continue  # nothing host-bound, or no row above the floor to start from
            L0, v0 = sweep[low[-1] + 1]
            for L, v in sweep[:low[-1] + 1]:
                rows[(kd, b, L)] = v0 * lender_ratio(lend, lay[:3] + (kd,), b, L, L0)
                fixed += 1
    return floor, fixed


def attn_tables(d, gpu, od, lender_dir):
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
        floor_note = []
        if phase == 'decode':
            per_file = {}
            for k, v in best.items():
                per_file.setdefault(k[:3], {})[(k[3], k[4], k[5])] = v
            lend = lender_attn(os.path.join(lender_dir, out + '.csv.gz'))
            floor, fixed = host_floor_fix(per_file, lend)
            best = {lay + k: v for lay, rows in per_file.items() for k, v in rows.items()}
            floor_note = ['%d rows at the timing harness\'s host floor (< %.1f x %.1f us) replaced by the first row above it '
                          'x the latency ratio of %s/%s.csv.gz (derive_infersim.py, HOST_FLOOR_X)'
                          % (fixed, HOST_FLOOR_X, floor, os.path.relpath(lender_dir, os.path.dirname(os.path.dirname(lender_dir))), out)]
            print(gpu, out, 'host floor %.1f us, %d rows replaced' % (floor, fixed))
        data = sorted(k + ('%.6g' % v,) for k, v in best.items())
        extra = {'attn_decode': 'MHA/GQA decode, one new token per sequence; kv_len = keys attended; per-GPU heads from the file name',
                 'attn_prefill': 'MHA/GQA prefill, one causal sequence of isl tokens (batch 1), no cached prefix; per-GPU heads',
                 'mla_decode': 'MLA decode (absorbed, FlashMLA-style); head_dim %d is the FLOPs-equivalent dimension (derive.py)' % MLA_DECODE_DIM,
                 'mla_prefill': 'MLA prefill (expanded: QK 192, V 128), one causal sequence; head_dim %d is the FLOPs-equivalent dimension (derive.py)' % MLA_PREFILL_DIM}[out]
        write(os.path.join(od, out + '.csv.gz'),
              ['heads', 'kv_heads', 'head_dim', 'kv_dtype', 'batch', 'kv_len' if phase == 'decode' else 'isl', 'latency_us'],
              data, note(gpu, '%s/%s/%s/*.csv' % (kind, phase, gpu)) + [extra] + floor_note)
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
        na = attn_tables(d, gpu, od, os.path.dirname(lender))
        nm = moe_table(d, gpu, lender, od)
        print(gpu, COLL, 'gemm', ng, ' '.join('%s %d' % kv for kv in sorted(na.items())), 'moe', nm)


if __name__ == '__main__':
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])
