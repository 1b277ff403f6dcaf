#!/usr/bin/env python3
"""A100 step components, as servesim prices them, against independent A100
kernel timings (issue 9, "every GPU": is A100 priced optimistically?).

Compares, per component, servesim's price (tools/opprice.c, built here against
BUILD_DIR/libservesim.a: the same cost functions a run uses, vLLM collection)
with Vidur's A100 profiling (microsoft/vidur 7d47513, ../shared/data/mfu/vidur;
times in ms, CUDA kernel times from the PyTorch profiler):
- compute/a100/meta-llama/{Llama-2-7b-hf,Llama-2-70b-hf,Meta-Llama-3-8B}/mlp.csv:
  each operator of a decoder layer (QKV, O, gate_up, down projections; the two
  RMSNorms, RoPE, SiLU-and-mul, the residual add) at 1..4096 (32768) tokens and
  TP 1, 2, 4, 8 (fp16, dummy random weights, 20 back-to-back passes);
- network/a100_dgx/all_reduce.csv: NCCL all-reduce on a DGX A100.  Its 'size'
  column is bytes: Vidur's collectives_wrapper.py records `self._size * 2`
  for a buffer of `size` fp16 elements (../shared's PROVENANCE.md says
  elements);
- optionally ATTENTION_CSV: Vidur's older A100 attention profile (commit
  e2d00e9, data/profiling/a100/attention.csv: Llama-2/3-70B at TP 2, i.e. 32
  query and 4 KV heads of 128, FlashAttention via sarathi, paged KV, block 16;
  not in ../shared, pass its path).

Prints the median servesim / measured ratio per operator and token band, the
per-layer sums, and the all-reduce and attention ratios.

usage: python3 scripts/mfu/check_a100.py [BUILD_DIR] [ATTENTION_CSV]   (from the
repository root, after `make`)"""
import csv
import os
import statistics as st
import subprocess
import sys
import tempfile

VIDUR = os.path.join('..', 'shared', 'data', 'mfu', 'vidur')
MODELS = {'Llama-2-7b-hf': 'llama-2-7b', 'Llama-2-70b-hf': 'llama-2-70b', 'Meta-Llama-3-8B': 'llama-3.1-8b'}
OPS = {'attn_pre_proj': 'qkv_proj', 'attn_post_proj': 'o_proj', 'mlp_up_proj': 'gate_up_proj',
       'mlp_down_proj': 'down_proj', 'input_layernorm': 'input_norm', 'post_attention_layernorm': 'post_attn_norm',
       'attn_rope': 'rope', 'mlp_act': 'act_mul', 'add': 'residual_attn'}
GEMMS = ('qkv_proj', 'o_proj', 'gate_up_proj', 'down_proj')
BANDS = ((1, 16), (17, 128), (129, 1024), (1025, 4096), (4097, 1 << 20))


def opprice(tool, model, tp, lines):
    """Run the tool on query lines; return its output lines."""
    out = subprocess.run([tool, 'data', 'vllm', 'a100', model, str(tp)], input=''.join(lines),
                         capture_output=True, text=True, check=True).stdout
    return out.split('\n')


def layer_ops(tool):
    """[(model, tp, m, op, servesim_us, vidur_us)] over Vidur's mlp.csv rows."""
    rows = []
    for name, sid in MODELS.items():
        with open(os.path.join(VIDUR, 'compute', 'a100', 'meta-llama', name, 'mlp.csv')) as f:
            data = list(csv.DictReader(f))
        for tp in (1, 2, 4, 8):
            first = {}
            for r in data:
                if int(r['num_tensor_parallel_workers']) == tp:
                    first.setdefault(int(r['num_tokens']), r)
            ms = sorted(first)
            got, cur, i = {}, {}, 0
            for line in opprice(tool, sid, tp, ['tok %d\n' % m for m in ms]):
                p = line.split()
                if p and p[0] == 'op':
                    cur[p[1]] = float(p[2])
                elif p and p[0] == 'tok_total':
                    got[ms[i]], cur, i = cur, {}, i + 1
            for m in ms:
                for vop, sop in OPS.items():
                    rows.append((name, tp, m, sop, got[m][sop], float(first[m]['time_stats.%s.median' % vop]) * 1e3))
    return rows


def band_table(rows):
    print('A100 per operator, median servesim / Vidur (rows), by step tokens:')
    print('  %-15s' % 'operator' + ''.join('%17s' % ('%d-%d' % b if b[1] < 1 << 20 else '>%d' % (b[0] - 1))
                                            for b in BANDS))
    for op in list(GEMMS) + ['input_norm', 'post_attn_norm', 'rope', 'act_mul', 'residual_attn']:
        line = '  %-15s' % op
        for lo, hi in BANDS:
            r = [s / v for (_, _, m, o, s, v) in rows if o == op and lo <= m <= hi and v > 0]
            line += '%17s' % ('%.2f (%d)' % (st.median(r), len(r)) if r else '-')
        print(line)
    print('  per layer (GEMMs + norms, RoPE, activation, one residual add), servesim / Vidur:')
    for lo, hi in BANDS[:4]:
        per = {}
        for (mdl, tp, m, op, s, v) in rows:
            if lo <= m <= hi:
                a = per.setdefault((mdl, tp, m), [0.0, 0.0, 0.0, 0.0])
                a[0] += s
                a[1] += v
                if op not in GEMMS:
                    a[2] += s
                    a[3] += v
        print('    m %4d-%-5d all %.2f, elementwise only %.2f (servesim %.1f us, Vidur %.1f us median)' % (
            lo, hi, st.median(a[0] / a[1] for a in per.values()), st.median(a[2] / a[3] for a in per.values()),
            st.median(a[2] for a in per.values()), st.median(a[3] for a in per.values())))


def allreduce(tool):
    print('A100 TP all-reduce, servesim (vLLM custom all-reduce table, NCCL past 8 MB) / Vidur NCCL (DGX A100):')
    with open(os.path.join(VIDUR, 'network', 'a100_dgx', 'all_reduce.csv')) as f:
        data = [r for r in csv.DictReader(f) if r['num_workers'] == r['devices_per_node']]
    for n in (2, 4, 8):
        seen = {}
        for r in data:
            if int(r['num_workers']) == n:
                seen.setdefault(int(r['size']) // 2, float(r['time_stats.all_reduce.median']) * 1e3)
        elems = sorted(e for e in seen if e >= 65536 and e & (e - 1) == 0)
        out = [float(x.split()[1]) for x in opprice(tool, 'llama-2-70b', n, ['ar %d\n' % e for e in elems]) if x]
        small = [s / seen[e] for e, s in zip(elems, out) if e * 2 < 8 << 20]
        big = [s / seen[e] for e, s in zip(elems, out) if e * 2 >= 8 << 20]
        print('  TP %d: < 8 MB %.2f (%d sizes, custom vs NCCL), >= 8 MB %.2f (%d sizes)' % (
            n, st.median(small), len(small), st.median(big), len(big)))


def attention(tool, path):
    with open(path) as f:
        data = list(csv.DictReader(f))
    dec = [r for r in data if r['is_prefill'] == 'False']
    pre = [r for r in data if r['is_prefill'] == 'True']
    q = ['decode %s %s\n' % (r['batch_size'], r['kv_cache_size']) for r in dec]
    q += ['prefill 1 %s %s\n' % (r['prefill_chunk_size'], r['kv_cache_size']) for r in pre]
    out = [float(x.split()[1]) for x in opprice(tool, 'llama-2-70b', 2, q) if x]
    d = [(int(r['batch_size']), s / (float(r['time_stats.attn_decode.median']) * 1e3)) for r, s in zip(dec, out)]
    p = [(int(r['prefill_chunk_size']), int(r['kv_cache_size']),
          s / (float(r['time_stats.attn_prefill.median']) * 1e3)) for r, s in zip(pre, out[len(dec):])]
    print('A100 attention, 32 query / 4 KV heads of 128 (Llama-70B TP 2), servesim / Vidur FlashAttention:')
    for lo, hi in ((1, 16), (17, 64), (65, 256)):
        r = [x for b, x in d if lo <= b <= hi]
        print('  decode batch %3d-%-3d  %.2f (%d)' % (lo, hi, st.median(r), len(r)))
    for lo, hi in ((64, 256), (257, 1024), (1025, 4096)):
        r = [x for c, k, x in p if lo <= c <= hi]
        print('  prefill chunk %4d-%-4d %.2f (%d)' % (lo, hi, st.median(r), len(r)))


def main():
    args = sys.argv[1:]
    build = args[0] if args and not args[0].endswith('.csv') else 'build'
    att = next((a for a in args if a.endswith('.csv')), None)
    tool = os.path.join(tempfile.mkdtemp(), 'opprice')
    subprocess.run(['cc', '-std=c11', '-O2', '-Iinclude', '-Isrc', 'tools/opprice.c', os.path.join(build, 'libservesim.a'),
                    '-o', tool, '-lcjson', '-lyaml', '-lgsl', '-lgslcblas', '-lz', '-lm', '-pthread'], check=True)
    band_table(layer_ops(tool))
    allreduce(tool)
    if att:
        attention(tool, att)


if __name__ == '__main__':
    main()
