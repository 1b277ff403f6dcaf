#!/usr/bin/env python3
"""Drive `servesim run` over the TensorRT-LLM aggregated rows of aiconfigurator's
silicon measurements and report TPOT / TTFT error per model x system.

usage: python3 eval/silicon/run_agg.py [--csv PATH] [--jobs N] [--engine E] [--only SUBSTR] [--out FILE.csv]

Each row is one closed-loop benchmark: `batch_size` concurrent clients, fixed
ISL/OSL, the row's TP / MoE-TP / MoE-EP and precision.  servesim replays it as
a closed loop at that concurrency (10 x concurrency requests, at least 64),
with TRT-LLM's kernel tables (--engine trtllm), max_num_seqs = concurrency and
8192 batched tokens (TRT-LLM's default max_num_tokens).  TPOT is compared with
servesim's ITL mean ((E2E - TTFT)/(output - 1)), TTFT with TTFT mean.  Rows
servesim cannot express yet (attention DP > 1, models it cannot load, GPUs it
does not know) are skipped and counted.  This script is the interim driver
that issue 9 asks for until `servesim eval` reads the silicon CSV itself.
"""
import argparse, csv, gzip, json, os, statistics, subprocess, sys, tempfile
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
MODELS = {
    'meta-llama/Llama-3.1-8B-Instruct': 'llama-3.1-8b', 'meta-llama/Llama-3.1-70B': 'llama-3.1-70b',
    'Qwen/Qwen3-32B': 'qwen3-32b', 'nvidia/Qwen3-32B-NVFP4': 'qwen3-32b',
    'Qwen/Qwen3-235B-A22B-FP8': 'qwen3-235b-a22b', 'deepseek-ai/DeepSeek-R1': 'deepseek-r1',
    'deepseek-ai/DeepSeek-V3': 'deepseek-v3', 'nvidia/DeepSeek-R1-NVFP4': 'deepseek-r1',
    'nvidia/DeepSeek-V3.1-NVFP4': 'deepseek-v3', 'openai/gpt-oss-120b': 'gpt-oss-120b',
}
DTYPE = {'': 'bf16', 'fp8': 'fp8', 'fp4': 'fp4'}


def rows(path):
    op = gzip.open if path.endswith('.gz') else open
    with op(path, 'rt') as f:
        yield from csv.DictReader(f)


def run_row(r, binary, engine):
    c = int(r['batch_size'])
    isl, osl = int(r['isl']), int(r['osl'])
    wl = {'seed': 1, 'arrival': {'process': 'concurrency', 'concurrency': c},
          'num_requests': max(64, 10 * c),
          'prompt_tokens': {'dist': 'fixed', 'value': isl}, 'output_tokens': {'dist': 'fixed', 'value': osl}}
    tp = int(r['tp_size'] or 1)
    ep = int(r['moe_ep_size'] or 1)
    dt = DTYPE.get(r['precision'], 'bf16')
    with tempfile.NamedTemporaryFile('w', suffix='.json', delete=False) as f:
        json.dump(wl, f)
        wpath = f.name
    cmd = [binary, 'run', '--model', MODELS[r['model_path']], '--gpu', r['system'], '--tp', str(tp),
           '--dtype', dt, '--kv-dtype', 'bf16' if dt == 'bf16' else 'fp8', '--engine', engine,
           '--max-num-seqs', str(max(c, 1)), '--max-num-batched-tokens', '8192',
           '--max-model-len', str(isl + osl + 16), '--workload', wpath, '--format', 'json']
    if ep > 1:
        cmd += ['--ep', str(ep)]
    # the row's expert format; fp4 on Hopper runs weight-only (the checkpoint's
    # MXFP4 experts), so the dtype stays bf16 there and the stored format applies
    hopper = r['system'] in ('h100_sxm', 'h200_sxm')
    if dt == 'fp4' and hopper:
        cmd[cmd.index('--dtype') + 1] = 'bf16'
    elif r['moe_quant_mode'] in ('fp8', 'fp8_block', 'nvfp4'):
        cmd += ['--moe-format', {'nvfp4': 'fp4'}.get(r['moe_quant_mode'], r['moe_quant_mode'])]
    p = subprocess.run(cmd, capture_output=True, text=True)
    os.unlink(wpath)
    if p.returncode != 0:
        return None, p.stderr.strip().splitlines()[-1] if p.stderr.strip() else 'exit %d' % p.returncode
    j = json.loads(p.stdout)
    s = j['summary']
    return (s['itl_ms']['mean'], s['ttft_ms']['mean']), None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--csv', default=os.path.join(HERE, 'silicon_trtllm_and_disagg.csv.gz'))
    ap.add_argument('--binary', default=os.path.join(ROOT, 'servesim'))
    ap.add_argument('--jobs', type=int, default=2)
    ap.add_argument('--engine', default='trtllm')
    ap.add_argument('--only', default='')
    ap.add_argument('--out', default='')
    a = ap.parse_args()
    todo, skipped = [], {}
    for r in rows(a.csv):
        if r['backend'] != 'trtllm' or r['mode'] != 'agg':
            continue
        if a.only and a.only not in r['model_path'] + ' ' + r['system']:
            continue
        why = None
        if r['model_path'] not in MODELS:
            why = 'model not mapped'
        elif int(r['attention_dp_size'] or 1) > 1:
            why = 'attention DP > 1 (not expressible yet)'
        elif int(r['pp_size'] or 1) > 1:
            why = 'pp > 1'
        if why:
            skipped[why] = skipped.get(why, 0) + 1
        else:
            todo.append(r)
    with ThreadPoolExecutor(a.jobs) as ex:
        res = list(ex.map(lambda r: run_row(r, a.binary, a.engine), todo))
    groups, fails = {}, {}
    out = []
    for r, (pred, err) in zip(todo, res):
        if pred is None:
            key = err.split(':')[0][:80] if err else '?'
            fails[err[:140]] = fails.get(err[:140], 0) + 1
            continue
        tpot, ttft = float(r['silicon_tpot_ms']), float(r['silicon_ttft_ms'])
        e_tpot = (pred[0] - tpot) / tpot
        e_ttft = (pred[1] - ttft) / ttft
        g = groups.setdefault((r['model_path'], r['system']), [])
        g.append((e_tpot, e_ttft))
        out.append((r['id'], r['model_path'], r['system'], r['precision'], r['batch_size'], r['isl'], r['osl'],
                    r['tp_size'], r['moe_ep_size'], tpot, pred[0], ttft, pred[1]))
    moe = {'Qwen/Qwen3-235B-A22B-FP8', 'deepseek-ai/DeepSeek-R1', 'deepseek-ai/DeepSeek-V3',
           'nvidia/DeepSeek-R1-NVFP4', 'nvidia/DeepSeek-V3.1-NVFP4', 'openai/gpt-oss-120b'}
    print('%-34s %-9s %5s %12s %12s %12s %12s' % ('model', 'system', 'rows', 'TPOT med|e|', 'TPOT med e',
                                                   'TTFT med|e|', 'TTFT med e'))
    allk = {'dense': [], 'moe': []}
    for (m, sy), g in sorted(groups.items()):
        et = [x[0] for x in g]
        ef = [x[1] for x in g]
        allk['moe' if m in moe else 'dense'].extend(g)
        print('%-34s %-9s %5d %11.1f%% %+11.1f%% %11.1f%% %+11.1f%%' % (m, sy, len(g),
              100 * statistics.median(map(abs, et)), 100 * statistics.median(et),
              100 * statistics.median(map(abs, ef)), 100 * statistics.median(ef)))
    for k, g in allk.items():
        if g:
            print('%-44s %5d %11.1f%% %12s %11.1f%%' % ('ALL ' + k, len(g), 100 * statistics.median(abs(x[0]) for x in g),
                  '', 100 * statistics.median(abs(x[1]) for x in g)))
    print('ran %d rows; skipped %s; failed %s' % (len(out), skipped or 'none', fails or 'none'))
    if a.out:
        with open(a.out, 'w') as f:
            w = csv.writer(f)
            w.writerow(['id', 'model', 'system', 'precision', 'concurrency', 'isl', 'osl', 'tp', 'moe_ep',
                        'tpot_ms', 'pred_tpot_ms', 'ttft_ms', 'pred_ttft_ms'])
            w.writerows(out)


if __name__ == '__main__':
    main()
