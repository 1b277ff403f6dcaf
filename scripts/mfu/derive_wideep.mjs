// Derive servesim's wide-EP MoE tables from aiconfigurator's SGLang DeepEP
// collections (the routed experts under --moe-a2a-backend deepep: a decode
// step's DeepEP low-latency dispatch/combine around DeepGEMM's masked grouped
// GEMM, a prefill step's normal-mode dispatch/combine around its contiguous
// grouped GEMM; dispatch and combine are not in the time).
//
// usage: node scripts/mfu/derive_wideep.mjs AIC_REPO OUT_DIR
//   AIC_REPO = a checkout of github.com/ai-dynamo/aiconfigurator (commit in
//   data/PROVENANCE.md); needs the npm packages hyparquet and
//   hyparquet-compressors (the readers ../shared/data/mfu/aic-engines used).
//   OUT_DIR = data/mfu/wideep/sglang-0.5.10
// Writes OUT_DIR/<servesim GPU id>-{decode,prefill}.csv.gz in moe.csv.gz's columns (moetab.h), latency
// in microseconds, with '#' provenance lines; distribution "uniform" becomes
// "balanced"; only the distributions servesim reads are kept; a key measured
// twice keeps the faster.
import { parquetReadObjects } from 'hyparquet'
import { compressors } from 'hyparquet-compressors'
import fs from 'fs'
import path from 'path'
import zlib from 'zlib'

const [repo, out] = process.argv.slice(2)
const base = 'aic-core/src/aiconfigurator_core/systems/data'
const version = '0.5.10'
const keep = { uniform: 'balanced', 'power_law_1.01': 'power_law_1.01', 'power_law_1.2': 'power_law_1.2' }
// aic system -> servesim GPU id (data/gpus.json): the file cost.c looks for
const gpus = { h100_sxm: 'h100-sxm', h200_sxm: 'h200-sxm', b200_sxm: 'b200', b300_sxm: 'b300', gb200: 'gb200', gb300: 'gb300' }
const phases = { decode: 'wideep_generation_moe_perf.parquet', prefill: 'wideep_context_moe_perf.parquet' }
for (const sys of Object.keys(gpus)) for (const [phase, pq] of Object.entries(phases)) {
  const f = path.join(repo, base, sys, 'moe/sglang', version, pq)
  if (!fs.existsSync(f)) continue
  const buf = fs.readFileSync(f)
  const rows = await parquetReadObjects({ file: buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength), compressors })
  const best = new Map()
  for (const r of rows) {
    const dist = keep[r.distribution]
    if (!dist) continue
    const key = [r.moe_dtype, r.hidden_size, r.inter_size, r.topk, r.num_experts, r.moe_tp_size,
      r.moe_ep_size, dist, r.num_tokens].join(',')
    const us = Number(r.latency) * 1000
    if (!best.has(key) || us < best.get(key)) best.set(key, us)
  }
  const lines = [
    `# source: ai-dynamo/aiconfigurator 095f58a51c4ca8e61b66ec108d86f223f8d559ce (Apache-2.0), systems/${sys}/moe/sglang/${version}/${pq}`,
    '# derived by scripts/mfu/derive_wideep.mjs; latency in microseconds, one call on one GPU',
    phase === 'decode'
      ? '# SGLang wide-EP decode routed experts (DeepEP low-latency, DeepGEMM masked grouped GEMM); tokens = all EP ranks\' tokens; dispatch/combine not timed'
      : '# SGLang wide-EP prefill routed experts (DeepEP normal, DeepGEMM contiguous grouped GEMM); tokens = all EP ranks\' tokens; dispatch/combine not timed',
    'dtype,hidden,inter,topk,experts,moe_tp,moe_ep,distribution,tokens,latency_us']
  for (const [k, us] of [...best.entries()].sort()) lines.push(`${k},${Number(us.toPrecision(6))}`)
  fs.writeFileSync(path.join(out, `${gpus[sys]}-${phase}.csv.gz`), zlib.gzipSync(lines.join('\n') + '\n', { level: 9 }))
  console.log(sys, phase, best.size)
}
