#!/usr/bin/env python3
"""Derive servesim's DSA module tables from aiconfigurator's measured DSA
attention modules (DeepSeek-V3.2 / GLM-5 sparse attention: the whole
attention block - MLA projections and norms, the lightning indexer with its
projections, scores and top-k, the sparse MLA kernel and o_proj - timed on one
GPU, per engine).

usage: python3 scripts/mfu/derive_dsa.py AIC_ENGINES_DIR OUT_DIR
  AIC_ENGINES_DIR = ../shared/data/mfu/aic-engines (github.com/ai-dynamo/
  aiconfigurator commit 095f58a51c4ca8e61b66ec108d86f223f8d559ce, Apache-2.0;
  see its README), OUT_DIR = data/mfu.
Reads <system>/sparse_attention/<engine>/<version>/dsa_{generation,context}_
module_perf.csv[.gz] and writes OUT_DIR/<system>/<engine>-<version>/
dsa_module.csv.gz with '#' provenance lines:

  phase,model,hidden,kv_dtype,gemm,heads,batch,len,latency_us

phase    decode (one new token per request), prefill (batch prompts of len
         tokens, no cached prefix: the tables' step 0 rows), and
         decode_shared / prefill_shared for layers that reuse an earlier
         layer's top-k (SGLang's *_skip_indexer rows, GLM-5.2)
model    the geometry: deepseek-v3.2 (hidden 7168, 128 heads, q_lora 1536) or
         glm-5 (hidden 6144, 64 heads, q_lora 2048); GLM-5, GLM-5-FP8,
         GLM-5.2(-FP8/-NVFP4) rows share the glm-5 geometry
kv_dtype bf16 | fp8 (fp8_e4m3 and vLLM's fp8_ds_mla alike)
gemm     the projections' dtype: fp8 (fp8_block) | bf16
heads    attention heads on the GPU (the collectors emulate one TP rank)
len      decode: keys each request attends (vLLM's step counts the new
         token; TensorRT-LLM's and SGLang's count the cache, + 1 here);
         prefill: new tokens per prompt
A key measured several times (several checkpoints of one geometry, e.g.
SGLang's GLM-5 and GLM-5.2 rows) keeps the median.  Left out: SGLang decode
batches above 256 (past its CUDA-graph batch sizes the module runs eagerly:
~1.3 ms at any keys on H200), TensorRT-LLM decode rows whose cache holds
exactly index_topk keys (a separate kernel path: 427-506 us where 1024 and
4096 keys give 257 and 298 us at batch 8; interpolating through it would
smear it over 1k-4k keys), nvfp4 projection rows (the attention of
NVFP4 checkpoints runs bf16 GEMMs) and fewer than 8 heads per GPU (vLLM's
and TensorRT-LLM's 1-4: DeepSeek-V3.2 at TP >= 32).
"""
import os, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from aic import rows, find, geometry_of, sparse_main, sparse_source, write_medians  # noqa: E402

TOPK = 2048


def geometry(model):
    return geometry_of(model, GEOMETRY)


GEOMETRY = [('DeepSeek-V3.2', 'deepseek-v3.2', 7168), ('GLM-5', 'glm-5', 6144)]


def collect(path, phase, engine, acc):
    for r in rows(path):
        geo, hidden = geometry(r['model'])
        gemm = {'fp8_block': 'fp8', 'bfloat16': 'bf16'}.get(r['gemm_type'])
        if not geo or not gemm or r['mla_dtype'] != 'bfloat16':
            continue
        kv = 'fp8' if 'fp8' in r['kv_cache_dtype'] else 'bf16'
        shared = 'skip_indexer' in r['op_name']
        b, h = int(r['batch_size']), int(r['num_heads'])
        if h < 8:
            continue
        if phase == 'decode':
            step = int(r['step'])
            if engine == 'sglang' and b > 256:
                continue
            if engine == 'trtllm' and step == TOPK:
                continue
            n = step if engine == 'vllm' else step + 1
        else:
            if int(r['step']) != 0:
                continue
            n = int(r['isl'])
        ph = phase + ('_shared' if shared else '')
        acc.setdefault((ph, geo, hidden, kv, gemm, h, b, n), []).append(float(r['latency']) * 1000.0)


def derive(system, engine, ver, d, out):
    gen, ctx = find(d, 'dsa_generation_module_perf.csv'), find(d, 'dsa_context_module_perf.csv')
    if not gen or not ctx:
        return
    acc = {}
    collect(gen, 'decode', engine, acc)
    collect(ctx, 'prefill', engine, acc)
    write_medians(out, system, engine, ver, 'dsa_module.csv.gz',
                  ['phase', 'model', 'hidden', 'kv_dtype', 'gemm', 'heads', 'batch', 'len', 'latency_us'], acc,
                  [sparse_source(system, engine, ver, 'dsa_{generation,context}_module_perf'),
                   'derived by scripts/mfu/derive_dsa.py; latency in microseconds: one DSA attention module '
                   '(projections, indexer, sparse MLA, o_proj) on one GPU; median of repeated keys',
                   'decode len = keys attended per request; prefill len = new tokens per prompt, no cached prefix'])


if __name__ == '__main__':
    sparse_main('derive_dsa.py', derive)
