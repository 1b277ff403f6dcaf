#!/usr/bin/env python3
"""Derive servesim's DeepSeek-V4 attention module tables from aiconfigurator's
measured DeepSeek-V4 attention blocks (CSA and HCA layers: the whole
DeepseekV4Attention forward - the q_a/kv projection and norms, q_b, the
compressor, the lightning indexer (CSA), the sparse attention kernel over the
sliding window and the compressed entries, the grouped output projection o_a
and o_b - timed on one GPU per engine, TP emulated by the heads per GPU) and
the two kernels timed alone that grow with a cached prefix (the CSA indexer's
paged MQA logits, HCA's sparse attention).

usage: python3 scripts/mfu/derive_dsv4.py AIC_ENGINES_DIR OUT_DIR
  AIC_ENGINES_DIR = ../shared/data/mfu/aic-engines (github.com/ai-dynamo/
  aiconfigurator commit 095f58a51c4ca8e61b66ec108d86f223f8d559ce, Apache-2.0;
  see its README), OUT_DIR = data/mfu.
Reads <system>/sparse_attention/<engine>/<version>/dsv4_{csa,hca}_{generation,
context}_module_perf.csv[.gz], dsv4_paged_mqa_logits_module_perf.csv and
(vLLM) dsv4_hca_attn_module_perf.csv, and writes OUT_DIR/<system>/
<engine>-<version>/dsv4_module.csv.gz with '#' provenance lines:

  kind,model,hidden,heads,batch,isl,prefix,latency_us

kind     csa_decode, hca_decode (one new token per request), csa_prefill,
         hca_prefill (batch prompts of isl new tokens), csa_logits (the CSA
         indexer's fp8 paged MQA logits kernel alone), hca_attn (vLLM: HCA's
         sparse attention kernel alone)
model    the geometry: flash (hidden 4096, 64 heads) or pro (hidden 7168, 128
         heads); the kernels were timed at Flash's geometry only
heads    attention heads on the GPU (the collectors emulate one TP rank; the
         kernels: the model's heads)
batch    requests
isl      new tokens per request (1 for decode)
prefix   tokens cached before them (the tables' step: decode's past KV,
         prefill's cached prefix)
A key measured several times keeps the median.  Only the rows servesim
prices are kept: fp8_block projections (the published V4 checkpoints' block
fp8 attention; SGLang also timed bf16 ones) and the fp8 KV cache (every row);
SGLang's dsv4_csa_topk_calib (the top-k kernel alone) is not used (its
context module covers the prefixes the top-k grows with).  Collections
without a servesim kernel collection of the same engine and version
(TensorRT-LLM 1.3.0rc23 on B200) are skipped.
"""
import os, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from aic import rows, find, geometry_of, sparse_main, sparse_source, write_medians  # noqa: E402

KINDS = {
    'dsv4_csa_generation_module_perf.csv': 'csa_decode',
    'dsv4_hca_generation_module_perf.csv': 'hca_decode',
    'dsv4_csa_context_module_perf.csv': 'csa_prefill',
    'dsv4_hca_context_module_perf.csv': 'hca_prefill',
    'dsv4_paged_mqa_logits_module_perf.csv': 'csa_logits',
    'dsv4_hca_attn_module_perf.csv': 'hca_attn',
}


def geometry(model):
    return geometry_of(model, GEOMETRY)


GEOMETRY = [('DeepSeek-V4-Flash', 'flash', 4096), ('DeepSeek-V4-Pro', 'pro', 7168)]


def collect(path, kind, acc):
    for r in rows(path):
        geo, hidden = geometry(r['model'])
        if not geo or r['gemm_type'] != 'fp8_block' or 'fp8' not in r['kv_cache_dtype']:
            continue
        heads = int(r.get('local_num_heads') or r['num_heads'])
        acc.setdefault((kind, geo, hidden, heads, int(r['batch_size']), int(r['isl']), int(r['step'])),
                       []).append(float(r['latency']) * 1000.0)


def derive(system, engine, ver, d, out):
    acc, used = {}, []
    for name, kind in KINDS.items():
        p = find(d, name)
        if p:
            collect(p, kind, acc)
            used.append(name.replace('_perf.csv', ''))
    if not any(k[0].endswith('_decode') for k in acc):
        return
    write_medians(out, system, engine, ver, 'dsv4_module.csv.gz',
                  ['kind', 'model', 'hidden', 'heads', 'batch', 'isl', 'prefix', 'latency_us'], acc,
                  [sparse_source(system, engine, ver, '{%s}' % ','.join(used)),
                   'derived by scripts/mfu/derive_dsv4.py; latency in microseconds: one DeepSeek-V4 attention '
                   'block (projections, compressor, indexer, sparse attention, o_a/o_b) or one kernel on one '
                   'GPU; fp8_block projections, fp8 KV cache; median of repeated keys',
                   'isl = new tokens per request (1: decode); prefix = tokens cached before them'])


if __name__ == '__main__':
    sparse_main('derive_dsv4.py', derive)
