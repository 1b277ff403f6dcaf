#!/usr/bin/env python3
"""Convert the shared ground-truth runs into servesim's experiment format.

usage: python3 eval/derive_ground_truth.py SHARED_GROUND_TRUTH_DIR OUT_DIR
Writes OUT_DIR/inference-perf/<run>/experiment.json (figures only): model, GPU,
parallelism, engine settings, the workload as a servesim spec (the resolved
results/config.yaml, which is what actually ran), and the measured per-stage
latencies converted from seconds to milliseconds.  Inference-perf <= 0.2
records two timestamps per streamed event, so its reported ITL is about half
the truth; `itl_ms.mean` here is (E2E mean - TTFT mean) / (output_len - 1) and
the reported value is kept as `itl_ms.reported_mean`.
"""
import json, os, sys
import yaml

MODELS = {'meta-llama/Llama-2-7b-hf': 'llama-2-7b',
          'codellama/CodeLlama-34b-Instruct-hf': 'codellama-34b'}

def stat(d, scale=1000.0):
    return {k: round(d[v] * scale, 6) for k, v in
            (('mean', 'mean'), ('p50', 'median'), ('p90', 'p90'), ('p99', 'p99'))}

def inference_perf(src, out):
    for run in sorted(os.listdir(src)):
        d = os.path.join(src, run)
        exp = yaml.safe_load(open(os.path.join(d, 'exp-config.yaml')))
        cfg = yaml.safe_load(open(os.path.join(d, 'results', 'config.yaml')))
        sp = cfg['data']['shared_prefix']
        stages = cfg['load']['stages']
        workload = {
            'seed': 42,
            'arrival': {'process': 'uniform_count' if cfg['load']['type'] == 'constant' else 'poisson_count'},
            'stages': [{'rate': s['rate'], 'duration_s': s['duration']} for s in stages],
            'shared_prefix': {'num_groups': sp['num_groups'], 'num_prompts_per_group': sp['num_prompts_per_group'],
                              'system_prompt_len': sp['system_prompt_len'], 'question_len': sp['question_len'],
                              'output_len': sp['output_len']},
        }
        measured = []
        for i in range(len(stages)):
            m = json.load(open(os.path.join(d, 'results', 'stage_%d_lifecycle_metrics.json' % i)))
            lat = m['successes']['latency']
            ttft, e2e = stat(lat['time_to_first_token']), stat(lat['request_latency'])
            itl = {'mean': round((e2e['mean'] - ttft['mean']) / (sp['output_len'] - 1), 6),
                   'reported_mean': round(lat['inter_token_latency']['mean'] * 1000, 6)}
            measured.append({'index': i, 'rate': stages[i]['rate'], 'duration_s': stages[i]['duration'],
                             'completed': m['successes']['count'],
                             'achieved_rate': round(m['load_summary']['achieved_rate'], 6),
                             'ttft_ms': ttft, 'itl_ms': itl, 'e2e_ms': e2e})
        e = {
            'name': run,
            'source': 'inference-sim/training ed5c1d26900e6909758d5e1641a18edaf56a1caf default_args/%s (Apache-2.0)' % run,
            'workload_name': run.rsplit('-', 1)[1],  # the data set: codegen, general, roleplay, reasoning
            'model': MODELS[exp['model']], 'gpu': 'h100-sxm',
            'tp': exp['tensor_parallelism'], 'pp': 1, 'dp': 1, 'ep': 1, 'dtype': 'bf16',
            'engine': {'name': 'vllm', 'version': '0.15.1',
                       'max_num_batched_tokens': exp['max_num_batched_tokens'],
                       'max_num_seqs': exp['max_num_seqs'], 'max_model_len': exp['max_model_len'],
                       'block_size': 16, 'gpu_memory_utilization': 0.9,
                       'enable_prefix_caching': True},
            'workload': workload,
            'measured': {'kind': 'stages', 'stages': measured},
        }
        od = os.path.join(out, 'inference-perf', run)
        os.makedirs(od, exist_ok=True)
        with open(os.path.join(od, 'experiment.json'), 'w') as f:
            json.dump(e, f, indent=1)
            f.write('\n')
        print(run)

if __name__ == '__main__':
    inference_perf(os.path.join(sys.argv[1], 'inference-perf'), sys.argv[2])
