#!/usr/bin/env python3
"""Derive servesim's compact kernel tables from the aiconfigurator vLLM export.

usage: python3 data/mfu/derive.py SRC_DIR OUT_DIR
  SRC_DIR = the aic export (one folder per system: h100_sxm, ...), see
            data/mfu/PROVENANCE.md for the upstream repository and commit.
Writes OUT_DIR/<system>/{gemm,attn_prefill,attn_decode,allreduce}.csv.gz with
'#' provenance lines.  Latencies are converted to microseconds; duplicate keys
keep the first occurrence (as aiconfigurator's loaders do); only the dtypes
servesim prices (bf16 and fp8 GEMMs, bf16/fp8 KV caches) are kept.
"""
import csv, gzip, io, os, sys

def rows(path):
    op = gzip.open if path.endswith('.gz') else open
    with op(path, 'rt') as f:
        yield from csv.DictReader(f)

def oldest(dirpath, prefix='vllm-'):
    vs = sorted((d for d in os.listdir(dirpath) if d.startswith(prefix)),
                key=lambda d: [int(x) if x.isdigit() else 0 for x in d[len(prefix):].split('.')])
    return os.path.join(dirpath, vs[0]) if vs else None

def find(d, name):
    for n in (name, name + '.gz'):
        p = os.path.join(d, n)
        if os.path.exists(p):
            return p
    return None

def write(path, header, data, notes):
    buf = io.StringIO()
    for n in notes:
        buf.write('# ' + n + '\n')
    buf.write(','.join(header) + '\n')
    for r in data:
        buf.write(','.join(str(x) for x in r) + '\n')
    with gzip.GzipFile(path, 'wb', mtime=0) as f:
        f.write(buf.getvalue().encode())

def us(ms):
    return '%.6g' % (float(ms) * 1000.0)

def main(src, out):
    for system in sorted(os.listdir(src)):
        sd = os.path.join(src, system)
        if not os.path.isdir(sd) or not os.path.isdir(os.path.join(sd, 'gemm')):
            continue
        od = os.path.join(out, system)
        os.makedirs(od, exist_ok=True)
        g = oldest(os.path.join(sd, 'gemm'))
        ver = os.path.basename(g)
        note = ['source: ai-dynamo/aiconfigurator 095f58a51c4ca8e61b66ec108d86f223f8d559ce (Apache-2.0), systems/%s' % system,
                'derived by data/mfu/derive.py; latency in microseconds, one call on one GPU']
        seen, data = set(), []
        for r in rows(find(g, 'gemm_perf.csv')):
            dt = {'bfloat16': 'bf16', 'float16': 'bf16', 'fp8': 'fp8'}.get(r['gemm_dtype'])
            if not dt:
                continue
            key = (dt, int(r['m']), int(r['n']), int(r['k']))
            if key in seen:
                continue
            seen.add(key)
            data.append(key + (us(r['latency']),))
        data.sort()
        # Outliers: a smaller problem cannot take much longer than a larger
        # one of the same shape.  Drop a row whose latency exceeds 1.3x that
        # of any larger m in its (dtype, n, k) column (measurement glitches in
        # the 0.14.0 collection, e.g. m=2048 n=10240 k=8192 at 1400 us where
        # m=4096 takes 887 us and the 0.24.0 collection 412 us).
        cols = {}
        for r in data:
            cols.setdefault((r[0], r[2], r[3]), []).append(r)
        kept, dropped = [], 0
        for key, rows_ in cols.items():
            rows_.sort(key=lambda r: r[1])
            suffix_min = float('inf')
            flags = [False] * len(rows_)
            for i in range(len(rows_) - 1, -1, -1):
                lat = float(rows_[i][4])
                flags[i] = lat > 1.3 * suffix_min
                suffix_min = min(suffix_min, lat)
            for r, f in zip(rows_, flags):
                if f:
                    dropped += 1
                else:
                    kept.append(r)
        kept.sort()
        write(os.path.join(od, 'gemm.csv.gz'), ['dtype', 'm', 'n', 'k', 'latency_us'], kept,
              note + ['gemm/%s/gemm_perf: per-GPU shape Y[m,n] = X[m,k] W^T; fp8 = per-tensor w8a8' % ver,
                      'dropped %d outlier rows: latency > 1.3x that of a larger m of the same (n, k)' % dropped])
        print(system, 'gemm rows kept', len(kept), 'dropped', dropped)
        a = oldest(os.path.join(sd, 'attention'))
        ver = os.path.basename(a)
        for fname, out_name, col, extra in (
                ('context_attention_perf.csv', 'attn_prefill.csv.gz', 'isl',
                 'context attention, causal, no cached prefix; isl new tokens per sequence'),
                ('generation_attention_perf.csv', 'attn_decode.csv.gz', 'step',
                 'generation attention, one new token; kv_len = step = keys attended (vLLM 0.14/0.19 collectors)')):
            p = find(a, fname)
            if not p:
                continue
            seen, data = set(), []
            for r in rows(p):
                if r.get('window_size', '0') not in ('0', ''):
                    continue
                kvd = {'bfloat16': 'bf16', 'fp8': 'fp8', 'float16': 'bf16'}.get(r['kv_cache_dtype'])
                if not kvd:
                    continue
                key = (int(r['num_heads']), int(r['num_key_value_heads']), int(r['head_dim']), kvd,
                       int(r['batch_size']), int(r[col]))
                if key in seen:
                    continue
                seen.add(key)
                data.append(key + (us(r['latency']),))
            data.sort()
            write(os.path.join(od, out_name),
                  ['heads', 'kv_heads', 'head_dim', 'kv_dtype', 'batch', 'isl' if col == 'isl' else 'kv_len', 'latency_us'],
                  data, note + ['attention/%s: %s; per-GPU head counts' % (ver, extra)])
        c = oldest(os.path.join(sd, 'comm'))
        if c and find(c, 'custom_allreduce_perf.csv'):
            seen, data = set(), []
            for r in rows(find(c, 'custom_allreduce_perf.csv')):
                if r['backend'].endswith('_eager') or r['allreduce_dtype'] not in ('bfloat16', 'float16'):
                    continue
                key = (int(r['num_gpus']), int(r['message_size']))
                if key in seen:
                    continue
                seen.add(key)
                data.append(key + (us(r['latency']),))
            data.sort()
            write(os.path.join(od, 'allreduce.csv.gz'), ['num_gpus', 'message_elems', 'latency_us'], data,
                  note + ['comm/%s/custom_allreduce_perf: vLLM custom all-reduce in CUDA graphs, bf16;'
                          ' message_size counts elements (2 bytes each)' % os.path.basename(c)])
        print(system, 'ok')

if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2])
