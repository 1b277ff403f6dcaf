#!/bin/sh
# tests/bad/run.sh - the bad-input corpus (issue 15): every case runs servesim
# on a fresh copy of small fixtures and asserts the exit code, a fragment of
# the message on stderr, and that no file was created, changed or removed
# (no partial output, no temporary file, no overwritten input).
# usage: run.sh SERVESIM_BIN    (from the repository root; ~2 s, more under ASan)
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/servesim-bad.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
pass=0; fail=0

# --- fixtures --------------------------------------------------------------
mkdir -p "$work/fix" && cd "$work/fix" || exit 1
w() { mkdir -p "$(dirname "$1")"; printf '%s\n' "$2" > "$1"; }
w w.json '{"arrival": {"process": "poisson", "rate": 20}, "num_requests": 20}'
ln -s w.json link.json
w wmax.json '{"arrival": {"process": "poisson", "rate": 20}, "num_requests": 20, "prompt_tokens": {"dist": "lognormal", "mean": 600, "stdev": 300, "min": 16, "max": 4096}}'
w t.csv 'arrival_s,prompt_tokens,output_tokens
0.0,100,10
0.5,200,20'
w tw.json '{"arrival": {"process": "trace", "file": "t.csv"}}'
w wh.json '{"arrival": {"process": "poisson", "rate": 20}, "num_requests": 20, "harness": "locust"}'
trace_wl() { w "$1.csv" "arrival_s,prompt_tokens,output_tokens${3:-}
$2"; w "$1.json" "{\"arrival\": {\"process\": \"trace\", \"file\": \"$1.csv\"}}"; }
trace_wl tr-arr-huge '1e300,100,10'
trace_wl tr-prompt-huge '0,1e20,10'
trace_wl tr-prompt-frac '0,1.5,10'
trace_wl tr-arr-neg '-1,100,10'
trace_wl tr-group-huge '0,100,10,1e300' ,prefix_group
trace_wl tr-arr-inf 'inf,100,10'
trace_wl tr-arr-hex '0x10,100,10'
trace_wl tr-out-zero '0,100,0'
trace_wl tr-header-only ''
trace_wl tr-dup-column '0,100,10,5' ,prompt_tokens
trace_wl tr-slip-optional '0,100,10,1' ,prefix_grup
trace_wl tr-slip-case '0,100,10,0' ,Images
trace_wl tr-extra-column '0,100,10,u1,3' ,user_id,group
w tr-slip-required.csv 'arival_s,prompt_tokens,output_tokens
0,100,10'
w ascend-slip.csv 'Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us),Input shapes
1,MatMul,MatMulV2,AI_CORE,0,10,"1,2;2,3"'
w tr-slip-required.json '{"arrival": {"process": "trace", "file": "tr-slip-required.csv"}}'
printf '\357\273\277arrival_s,prompt_tokens,output_tokens\n0,100,10\n' > tr-bom.csv
w tr-bom.json '{"arrival": {"process": "trace", "file": "tr-bom.csv"}, "num_requests": 1}'
spec() { w "$1.json" "$2"; }
w wl-lora0.json '{"arrival": {"process": "poisson", "rate": 20}, "num_requests": 20, "lora": {"adapters": 0}}'
w wl-lora-bad.json '{"arrival": {"process": "poisson", "rate": 20}, "num_requests": 20, "lora": {"adapters": 4, "distribution": "pareto"}}'
w wl-lora.json '{"arrival": {"process": "poisson", "rate": 20}, "num_requests": 20, "lora": {"adapters": 8, "distribution": "zipf:1.1"}}'
img() { w "$1.json" "{\"arrival\": {\"process\": \"poisson\", \"rate\": 20}, \"num_requests\": 20, \"images\": $2}"; }
img wl-img '{"count": 1, "resolution": [1024, 768]}'
img wl-img-nores '{"count": 1}'
img wl-img-neg '{"resolution": [-5, 768]}'
img wl-img-frac '{"resolution": [1024.5, 768]}'
img wl-img-three '{"resolution": [1024, 768, 3]}'
img wl-img-rep '{"resolution": [1024, 768], "repeat_fraction": 1.5}'
img wl-img-count '{"count": 65, "resolution": [1024, 768]}'
img wl-img-key '{"resolution": [1024, 768], "size": 3}'
img wl-img-thin '{"resolution": [4000, 10]}'
trace_wl tr-adapter-frac '0,100,10,1.5' ,adapter
trace_wl tr-adapter-neg '0,100,10,-2' ,adapter
spec rate-1e999 '{"arrival": {"process": "poisson", "rate": 1e999}, "num_requests": 5}'
spec rate-tiny '{"arrival": {"process": "poisson", "rate": 1e-300}, "num_requests": 5}'
spec rate-inf '{"arrival": {"process": "poisson", "rate": Infinity}, "num_requests": 5}'
spec rate-nan '{"arrival": {"process": "poisson", "rate": NaN}, "num_requests": 5}'
spec rate-low-many '{"arrival": {"process": "poisson", "rate": 1e-6}, "num_requests": 2000}'
spec cv-tiny '{"arrival": {"process": "gamma", "rate": 10, "cv": 1e-300}, "num_requests": 5}'
spec cv-huge '{"arrival": {"process": "gamma", "rate": 10, "cv": 1e300}, "num_requests": 5}'
spec pcount-huge '{"arrival": {"process": "poisson_count", "rate": 1e30}, "duration_s": 10}'
spec ucount-huge '{"arrival": {"process": "uniform_count", "rate": 1e9}, "duration_s": 1000}'
spec ucount-1000 '{"arrival": {"process": "uniform_count", "rate": 10}, "duration_s": 100}'
spec nreq-huge '{"arrival": {"process": "poisson", "rate": 10}, "num_requests": 1e12}'
spec prompt-huge '{"arrival": {"process": "poisson", "rate": 10}, "num_requests": 5, "prompt_tokens": 1e20}'
spec mean-huge '{"arrival": {"process": "poisson", "rate": 10}, "num_requests": 5, "prompt_tokens": {"dist": "normal", "mean": 1e30, "stdev": 1}}'
spec stdev-neg '{"arrival": {"process": "poisson", "rate": 10}, "num_requests": 5, "output_tokens": {"dist": "lognormal", "mean": 100, "stdev": -1}}'
spec emp-huge '{"arrival": {"process": "poisson", "rate": 10}, "num_requests": 5, "prompt_tokens": {"dist": "empirical", "values": [10, 1e20]}}'
spec emp-winf '{"arrival": {"process": "poisson", "rate": 10}, "num_requests": 5, "prompt_tokens": {"dist": "empirical", "values": [10, 20], "weights": [1, Infinity]}}'
spec max-huge '{"arrival": {"process": "poisson", "rate": 10}, "num_requests": 5, "prompt_tokens": {"dist": "uniform", "min": 1, "max": 1e19}}'
spec dur-huge '{"arrival": {"process": "poisson", "rate": 10}, "duration_s": 1e300}'
spec stage-tiny '{"arrival": {"process": "constant"}, "stages": [{"rate": 1e-300, "duration_s": 10}]}'
spec stages-long '{"arrival": {"process": "constant"}, "stages": [{"rate": 1e-6, "duration_s": 9e8}, {"rate": 1e-6, "duration_s": 9e8}]}'
spec curve-back '{"arrival": {"process": "poisson"}, "rate_curve": [[0, 1], [60, 3], [30, 2]]}'
spec curve-nan '{"arrival": {"process": "poisson"}, "rate_curve": [[0, 1], [60, NaN]]}'
spec curve-neg '{"arrival": {"process": "poisson"}, "rate_curve": [[0, 1], [60, -3]]}'
spec curve-long '{"arrival": {"process": "poisson"}, "rate_curve": [[0, 1e-6], [1e300, 1e-6]]}'
spec curve-many '{"arrival": {"process": "poisson"}, "rate_curve": [[0, 1e9], [1e9, 1e9]]}'
spec curve-trace '{"arrival": {"process": "poisson_count"}, "rate_curve": [[0, 1], [60, 3]]}'
spec curve-point '{"arrival": {"process": "poisson"}, "rate_curve": [[0, 1], [60]]}'
spec sp-huge '{"arrival": {"process": "poisson", "rate": 10}, "num_requests": 5, "shared_prefix": {"num_groups": 1048576, "num_prompts_per_group": 1048576, "system_prompt_len": 10, "question_len": 10, "output_len": 10}}'
spec prefix-neg '{"arrival": {"process": "poisson", "rate": 10}, "num_requests": 5, "prefix_tokens": -1024}'
spec cl-dur '{"arrival": {"process": "concurrency", "concurrency": 4}, "duration_s": 100000, "prompt_tokens": 10, "output_tokens": 2}'
spec cl-stages '{"arrival": {"process": "concurrency", "concurrency": 2}, "stages": [{"concurrency": 2, "duration_s": 50000}, {"concurrency": 8, "duration_s": 50000}], "prompt_tokens": 10, "output_tokens": 2}'
spec cl-short '{"arrival": {"process": "concurrency", "concurrency": 4}, "duration_s": 1, "prompt_tokens": 10, "output_tokens": 2}'
spec conc-zero '{"arrival": {"process": "concurrency", "concurrency": 0}, "duration_s": 5}'
w mc-ok.jsonl '{"timestamp": 0, "input_length": 600, "output_length": 10, "hash_ids": [1, 2]}'
mcx() { w "$1/experiment.json" "{\"name\": \"$1\", \"model\": \"llama-3.1-8b\", \"gpu\": \"h100\", \"tp\": 1, $2
 \"engine\": {\"name\": \"vllm\", \"max_num_batched_tokens\": 2048, \"max_num_seqs\": 64, \"max_model_len\": 4096},
 \"workload\": {\"arrival\": {\"process\": \"mooncake\", \"file\": \"../mc-ok.jsonl\"$3}},
 \"measured\": {\"kind\": \"stages\", \"stages\": [{\"index\": 0, \"rate\": 1, \"duration_s\": 1, \"completed\": 1}]}}"; }
mcx mcx-requests '' ', "requests": 2'
mcx mcx-speedup '' ', "speedup": -4'
mcx mcx-router '"replicas": 2, "router": "random",' ''
mcx mcx-replicas '"replicas": 0,' ''
mcx mcx-key '' ', "rate": 3'
w mc-ts-back.jsonl '{"timestamp": 5, "input_length": 600, "output_length": 10, "hash_ids": [1, 2]}
{"timestamp": 4, "input_length": 600, "output_length": 10, "hash_ids": [1, 2]}'
w mc-ids-many.jsonl '{"timestamp": 0, "input_length": 600, "output_length": 10, "hash_ids": [1, 2, 3]}'
w mc-id-neg.jsonl '{"timestamp": 0, "input_length": 600, "output_length": 10, "hash_ids": [1, -2]}'
w mc-in-huge.jsonl '{"timestamp": 0, "input_length": 1e30, "output_length": 10, "hash_ids": [1]}'
w mc-key.jsonl '{"timestamp": 0, "input_length": 600, "output_length": 10, "hash_ids": [1, 2], "extra": 1}'
w mc-trunc.jsonl '{"timestamp": 0, "input_length": 600, "output_length": 10, "hash_ids": [1, 2]}
{"timestamp": 1, "input_length": 600, "out'
spec ds-unknown '{"arrival": {"process": "poisson", "rate": 1}, "num_requests": 5, "prompt_tokens": {"dataset": "sharegtp"}}'
spec ds-turns '{"arrival": {"process": "poisson", "rate": 1}, "sessions": {"count": 5, "turns": {"dataset": "sharegpt"}}}'
spec ds-key '{"arrival": {"process": "poisson", "rate": 1}, "num_requests": 5, "output_tokens": {"dataset": "sharegpt", "mean": 5}}'
spec ds-clip '{"arrival": {"process": "poisson", "rate": 1}, "num_requests": 5, "output_tokens": {"dataset": "sharegpt", "min": 50, "max": 10}}'
spec ss-turns-0 '{"arrival": {"process": "poisson", "rate": 1}, "sessions": {"count": 5, "turns": 0}}'
spec ss-think-neg '{"arrival": {"process": "poisson", "rate": 1}, "sessions": {"count": 5, "turns": 3, "think_time_s": -2}}'
spec ss-think-dist '{"arrival": {"process": "poisson", "rate": 1}, "sessions": {"count": 5, "turns": 3, "think_time_s": {"dist": "lognormal", "mean": 1e9, "stdev": 1}}}'
spec ss-count-huge '{"arrival": {"process": "poisson", "rate": 1}, "sessions": {"count": 1e30, "turns": 3}}'
spec ss-no-turns '{"arrival": {"process": "poisson", "rate": 1}, "sessions": {"count": 5}}'
spec ss-ok '{"arrival": {"process": "poisson", "rate": 1}, "sessions": {"count": 5, "turns": 2}}'
spec ss-key '{"arrival": {"process": "poisson", "rate": 1}, "sessions": {"count": 5, "turns": 2, "thinktime": 1}}'
spec ss-closed '{"arrival": {"process": "concurrency", "concurrency": 2}, "sessions": {"count": 5, "turns": 2}}'
spec ss-nreq '{"arrival": {"process": "poisson", "rate": 1}, "num_requests": 10, "sessions": {"count": 5, "turns": 2}}'
spec ss-prefix '{"arrival": {"process": "poisson", "rate": 1}, "prefix_tokens": 100, "sessions": {"count": 5, "turns": 2}}'
spec ss-tool-frac '{"arrival": {"process": "poisson", "rate": 1}, "sessions": {"count": 5, "turns": 2, "tool_tokens": {"dist": "empirical", "values": [10, 2.5]}}}'
printf '{"arrival": {"process": "poisson", "rate": 10}, "num_requests": 5, "name": "\377"}\n' > ff.json
w y-half.yaml 'arrival: {process: poisson, rate: .5}
num_requests: 3'
w y-hex.yaml 'arrival: {process: poisson, rate: 0x10}
num_requests: 3'
w y-big.yaml 'arrival: {process: poisson, rate: 1e999}
num_requests: 3'
w y-inf.yaml 'arrival: {process: poisson, rate: .inf}
num_requests: 3'
# a servesim experiment (20 requests of a real GuideLLM run, see eval/ground_truth)
mkdir -p aicp && cp "$root/tests/golden/fixtures/readers/aic-pools/"* aicp/
mkdir -p aicp-lim && cp aicp/silicon.csv aicp-lim/ &&
	sed '2s/,64,8320,0,0,0,0,0$/,64,1.5,0,0,0,0,0/' aicp/inferencex_pools.csv > aicp-lim/inferencex_pools.csv
mkdir -p aicp-gpus && cp aicp/silicon.csv aicp-gpus/ &&
	sed '6s/,4,4,4,0,0$/,4,-4,4,0,0/' aicp/inferencex_pools.csv > aicp-gpus/inferencex_pools.csv
mkdir -p aicp-red && cp aicp/silicon.csv aicp-red/ &&
	sed '7s/,0,32$/,0,-32/' aicp/inferencex_pools.csv > aicp-red/inferencex_pools.csv
# audit33: a slip of an optional pools column (decode_gpus -> Decode_GPUs) was
# read as absent: the pools it sized were taken from the parallel fields
mkdir -p aicp-slip && cp aicp/silicon.csv aicp-slip/ &&
	sed '1s/,decode_gpus,/,Decode_GPUs,/' aicp/inferencex_pools.csv > aicp-slip/inferencex_pools.csv
mkdir -p aicp-mb && cp aicp/silicon.csv aicp-mb/ &&
	sed -e '1s/$/,prefill_moe_backend,decode_moe_backend/' -e '2s/$/,TRTLLM,FLUX/' -e '3,$s/$/,,/' \
	aicp/inferencex_pools.csv > aicp-mb/inferencex_pools.csv
mkdir -p aicp-mfs && cp "$root/tests/golden/fixtures/readers/aic-pools-mfs/silicon.csv" aicp-mfs/ &&
	sed '2s/,0.95,0.95$/,0.95,1.5/' "$root/tests/golden/fixtures/readers/aic-pools-mfs/inferencex_pools.csv" \
	> aicp-mfs/inferencex_pools.csv
mkdir -p aicp-sgl && cp "$root/tests/golden/fixtures/readers/aic-pools-mfs/silicon.csv" aicp-sgl/ &&
	sed -e '1s/$/,prefill_sglang_max_running_requests,prefill_sglang_chunked_prefill_size,prefill_sglang_max_prefill_tokens,prefill_sglang_scheduler_recv_interval,decode_sglang_max_running_requests,decode_sglang_chunked_prefill_size,decode_sglang_max_prefill_tokens,decode_sglang_scheduler_recv_interval/' \
	-e '2s/$/,512,8192,,10,-1,8192,,10/' -e '3,$s/$/,,,,,,,,/' \
	"$root/tests/golden/fixtures/readers/aic-pools-mfs/inferencex_pools.csv" > aicp-sgl/inferencex_pools.csv
mkdir -p aicp-rec && cp aicp/silicon.csv aicp-rec/ &&
	sed 's/^\(dsr1_[^,]*,disagg\),1,3,/\1,1,4,/' aicp/inferencex_pools.csv > aicp-rec/inferencex_pools.csv
# audit31: a silicon CSV's measured latencies (the last two columns of aic-small.csv, CRLF lines)
sed '2s/,[0-9.]*,\([0-9.]*\r*\)$/,1e308,\1/' "$root/tests/golden/fixtures/readers/aic-small.csv" > aic-ttft-huge.csv
sed '2s/,[0-9.]*\(\r*\)$/,\1/' "$root/tests/golden/fixtures/readers/aic-small.csv" > aic-tpot-empty.csv
mkdir -p aicp-relay && cp aicp/silicon.csv aicp-relay/ &&
	sed 's/^\(dsr1_.*\),16,16384,0,0,0,0,0$/\1,16,16384,0,0,3,0,0/' aicp/inferencex_pools.csv > aicp-relay/inferencex_pools.csv
# a local model folder, as vLLM's --model takes one (audit33), and one without config.json
mkdir -p mdir/Llama-local mdir/empty && cp "$root/data/models/llama-3.1-8b-instruct.json" mdir/Llama-local/config.json
mkdir -p exp && cp "$root/eval/ground_truth/guidellm/jan20-codellama-prefill-1/experiment.json" exp/ &&
	head -21 "$root/eval/ground_truth/guidellm/jan20-codellama-prefill-1/requests.csv" > exp/requests.csv
x_exp() { mkdir -p "$1"; sed "$2" exp/experiment.json > "$1/experiment.json"; sed "$3" exp/requests.csv > "$1/requests.csv"; }
x_exp xp-stage-slip '' '1s/,stage$/,Stage/'
x_exp xp-prefix-neg 's/"prefix_tokens": [0-9]*/"prefix_tokens": -1024/' ''
x_exp xp-prefix-huge 's/"prefix_tokens": [0-9]*/"prefix_tokens": 1e300/' ''
x_exp xp-trace-key 's/"prefix_tokens": \([0-9]*\)/"prefx_tokens": \1/' ''
x_exp xp-trace-arrkey 's/"file": "requests.csv"/"file": "requests.csv", "rate": 5/' ''
x_exp xp-version-word 's/"version": "0.11.0"/"version": "abc"/' ''
x_exp xp-moe-backend 's/"version": "0.11.0"/"version": "0.11.0", "moe_backend": "FLUX"/' ''
x_exp xp-no-deep-gemm-sglang 's/"name": "vllm"/"name": "sglang", "no_deep_gemm": true/' ''
x_exp xp-dp-lm-head-vllm 's/"version": "0.11.0"/"version": "0.11.0", "enable_dp_lm_head": true/' ''
x_exp xp-moe-dense-tp-2 's/"name": "vllm"/"name": "sglang", "moe_dense_tp_size": 2/' ''
x_exp xr-ttft-inf '' '2s/^\([^,]*,[^,]*,[^,]*\),[^,]*,/\1,inf,/'
x_exp xr-prompt-huge '' '3s/^\([^,]*\),[^,]*,/\1,1e61,/'
x_exp xr-e2e-nan '' '4s/^\([^,]*,[^,]*,[^,]*,[^,]*\),[^,]*,/\1,nan,/'
x_exp xr-arr-huge '' '2s/^[^,]*,/1e300,/'
x_exp xr-neg-ttft '' '2s/^\([^,]*,[^,]*,[^,]*\),[^,]*,/\1,-5,/'
x_exp xr-stage-case '' '1s/,stage$/,Stage/'
x_exp xr-extra-column '' '1s/$/,user/;2,$s/$/,u1/'
# audit32: a misspelt optional column of the pools table
for s in prefill_gpus/prefill_gpu decode_redundant_experts/decode_redundant_expert; do
	d=aicp-slip-${s%%/*}; mkdir -p $d && cp aicp/silicon.csv $d/ && sed "1s/$s/" aicp/inferencex_pools.csv > $d/inferencex_pools.csv
done
# a GuideLLM results folder (0.6 schema) with its side files
gl() { mkdir -p "$1"; w "$1/exp-config.yaml" 'model: codellama/CodeLlama-34b-Instruct-hf
tensor_parallelism: 1
max_model_len: 4096
max_num_seqs: 256
max_num_batched_tokens: 8192'
	w "$1/profile.yaml" 'rate-type: constant
data:
  prefix_tokens: 64
  prompt_tokens: 500'
	w "$1/engine-facts.json" '{"engine": "vllm", "version": "0.11.0", "num_gpu_blocks": 2790}'
	w "$1/guidellm-results.json" "{\"metadata\": {\"version\": 1, \"guidellm_version\": \"0.6.0\"}, \"benchmarks\": [
 {\"type_\": \"generative_benchmark\", \"config\": {\"strategy\": {\"type_\": \"constant\", \"rate\": 2.5}},
  \"requests\": {\"successful\": [
   {\"request_start_time\": 3000.0, \"request_latency\": 1.0, \"prompt_tokens\": $2, \"output_tokens\": 41, \"time_to_first_token_ms\": 100.0},
   {\"request_start_time\": 3000.4, \"request_latency\": $3, \"prompt_tokens\": 900, \"output_tokens\": 81, \"time_to_first_token_ms\": 400.0}],
  \"errored\": [], \"incomplete\": [], \"total\": 2}}]}"; }
gl gl-ok 500 2.0
# nesting past the readers' bounds: 1,100 arrays (whole-file reader, 1,000) and 300 (streamed GuideLLM, 256)
awk 'BEGIN{for(i=0;i<1100;i++)printf "[";for(i=0;i<1100;i++)printf "]";print ""}' > deep.json
gl gl-deep 500 2.0; awk 'BEGIN{printf "{\"metadata\": ";for(i=0;i<300;i++)printf "[";for(i=0;i<300;i++)printf "]";print "}"}' > gl-deep/guidellm-results.json
gl gl-prompt-huge 1e61 2.0
sed '379,381s/"successful": 2,/"successful": 1e30,/' "$root/tests/golden/fixtures/readers/guidellm-v2-report.json" > gv2-done-huge.json
gl gl-lat-inf 500 Infinity
gl gl-lat-nan 500 NaN
gl gl-prof-bad 500 2.0; w gl-prof-bad/profile.yaml 'data: [unclosed'
gl gl-prof-neg 500 2.0; w gl-prof-neg/profile.yaml 'data:
  prefix_tokens: -5'
gl gl-prof-frac 500 2.0; w gl-prof-frac/profile.yaml 'data:
  prefix_tokens: 1e300'
gl gl-facts-key 500 2.0; w gl-facts-key/engine-facts.json '{"engine": "vllm", "num_gpu_block": 2790}'
gl gl-facts-bad 500 2.0; w gl-facts-bad/engine-facts.json '{"engine": "vllm",'
gl gl-facts-inf 500 2.0; w gl-facts-inf/engine-facts.json '{"engine": "vllm", "num_gpu_blocks": Infinity}'
gl gl-noprof 500 2.0; rm gl-noprof/profile.yaml
gl gl-facts-engine 500 2.0; w gl-facts-engine/engine-facts.json '{"engine": 5, "num_gpu_blocks": 2790}'
gl gl-facts-gib 500 2.0; w gl-facts-gib/engine-facts.json '{"engine": "vllm", "available_kv_cache_gib": -1}'
gl gl-facts-graphs 500 2.0; w gl-facts-graphs/engine-facts.json '{"engine": "vllm", "cudagraph_capture_sizes": [1, 2, 0.5]}'
gl gl-log-blocks 500 2.0; w gl-log-blocks/vllm.log 'INFO 01-20 10:00:00 gpu_executor.py:122] # GPU blocks: 99999999999999999999, # CPU blocks: 512'
gl gl-log-blocks-neg 500 2.0; w gl-log-blocks-neg/vllm.log 'INFO 01-20 10:00:00 kv_cache_utils.py:700] num_gpu_blocks is: -4'
gl gl-cfg-key 500 2.0; w gl-cfg-key/exp-config.yaml 'model: codellama/CodeLlama-34b-Instruct-hf
tensor_parallelism: 1
max_num_seq: 256'
gl gl-cfg-list 500 2.0; w gl-cfg-list/exp-config.yaml '- model: codellama/CodeLlama-34b-Instruct-hf'
gl gl-prof-key 500 2.0; w gl-prof-key/profile.yaml 'rate_type: constant
data:
  prefix_tokens: 64'
gl gl-prof-data5 500 2.0; w gl-prof-data5/profile.yaml 'rate-type: constant
data: 5'
gl gl-prof-datakey 500 2.0; w gl-prof-datakey/profile.yaml 'data:
  prefix_token: 64'
gl gl-prof-stdev 500 2.0; w gl-prof-stdev/profile.yaml 'data:
  prefix_tokens: 64
  prompt_tokens_stdev: .nan'
gl gl-prof-scalar 500 2.0; w gl-prof-scalar/profile.yaml 'just text'
# a vLLM bench serve result and variants: bv NAME SED-EXPRESSION
w b-ok.json '{"backend": "vllm", "model_id": "meta-llama/Llama-3.1-8B-Instruct", "request_rate": 4.0, "burstiness": 1.0, "max_concurrency": null, "duration": 2.9, "completed": 4, "total_input_tokens": 2048, "total_output_tokens": 512, "mean_ttft_ms": 41.2, "p90_ttft_ms": 50.1, "input_lens": [512, 512, 512, 512], "output_lens": [128, 128, 128, 128]}'
bv() { sed "$2" b-ok.json > "$1.json"; }
bv b-in-frac 's/"input_lens": \[512, 512/"input_lens": [512, 0.5/'
bv b-in-huge 's/"input_lens": \[512, 512, 512/"input_lens": [512, 512, 1e20/'
bv b-in-neg 's/"input_lens": \[512/"input_lens": [-1/'
bv b-in-str 's/"input_lens": \[512, 512/"input_lens": [512, "x"/'
bv b-out-huge 's/128, 128]/128, 1e300]/'
bv b-rate-neg 's/"request_rate": 4.0/"request_rate": -5/'
bv b-rate-str 's/"request_rate": 4.0/"request_rate": "fast"/'
bv b-dur-huge 's/"duration": 2.9/"duration": 1e300/'
bv b-p90-neg 's/"p90_ttft_ms": 50.1/"p90_ttft_ms": -3/'
bv b-p90-str 's/"p90_ttft_ms": 50.1/"p90_ttft_ms": "50"/'
bv b-burst-huge 's/"burstiness": 1.0/"burstiness": 1e300/'
bv b-conc-frac 's/"max_concurrency": null/"max_concurrency": 2.5/'
bv b-done-huge 's/"completed": 4/"completed": 1e12/'
bv b-tin-huge 's/"total_input_tokens": 2048/"total_input_tokens": 1e300/'
bv b-ttft-inf 's/"mean_ttft_ms": 41.2/"mean_ttft_ms": Infinity/'
mkdir -p emptydir
w ascend-hdr/kernel_details.csv 'Step Id,Device_id,Model ID,Task ID,Stream ID,Name,Type,OP State,Accelerator Core,Start Time(us),Duration(us),Wait Time(us),Block Dim,Input Shapes,Input Data Types,Output Shapes'
cp ascend-hdr/kernel_details.csv ascend-hdr.csv
# a projection's input dims whose product passes a long long (fuzz_trace, 2026-12-04)
sed 's/"8,4096;4096,12288"/"6,9223372036854775807,4096;4096,12288"/' "$root/tests/golden/fixtures/ascend-kernel_details.csv" > ascend-dims-huge.csv
w kineto-neg.json '{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 10, "dur": -5, "tid": 7}]}'
w kineto-nan.json '{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 10, "dur": 5, "tid": 1e300, "args": {"correlation": 1e300}}]}'
# measured requests (issue 30): GuideLLM, OTel spans, vLLM engine stats, vcr
glr() { mkdir -p "$1"; printf '{"metadata": {"version": 1, "guidellm_version": "0.6.0"}, "benchmarks": [{"type_": "generative_benchmark", "config": {"strategy": {"type_": "constant", "rate": %s}}, "requests": {"successful": [%s, %s], "errored": [], "incomplete": [], "total": 2}}]}\n' "$2" "$3" "$4" > "$1/guidellm-results.json"; }
R1='{"request_id": "a", "request_start_time": 3000.0, "request_latency": 1.0, "prompt_tokens": 500, "output_tokens": 41, "time_to_first_token_ms": 100.0}'
req() { printf '{"request_id": "%s", "request_start_time": %s, "request_latency": %s, "prompt_tokens": 900, "output_tokens": 81, "time_to_first_token_ms": %s}' "$@"; }
glr glr-start-1e10 2.5 "$R1" "$(req b 1e10 2.0 400)"
glr glr-start-neg 2.5 "$R1" "$(req b -1e10 2.0 400)"
glr glr-start-m5 2.5 "$R1" "$(req b -5 2.0 400)"
glr glr-start-abc 2.5 "$R1" "$(req b '"abc"' 2.0 400)"
glr glr-ttft-huge 2.5 "$R1" "$(req b 3000.4 2.0 1e300)"
glr glr-ttft-neg 2.5 "$R1" "$(req b 3000.4 2.0 -5)"
glr glr-e2e-neg 2.5 "$R1" "$(req b 3000.4 -2.0 400)"
glr glr-ttft-above 2.5 "$R1" "$(req b 3000.4 2.0 4000)"
glr glr-dup-id 2.5 "$R1" "$(req a 3000.4 2.0 400)"
glr glr-rate-neg -5 "$R1" "$(req b 3000.4 2.0 400)"
span() { printf '{"resourceSpans":[{"scopeSpans":[{"spans":[{"name":"llm_request","spanId":"%s","startTimeUnixNano":%s,"attributes":[{"key":"gen_ai.latency.time_to_first_token","value":{"doubleValue":%s}},{"key":"gen_ai.latency.e2e","value":{"doubleValue":%s}},{"key":"gen_ai.usage.prompt_tokens","value":{"intValue":%s}},{"key":"gen_ai.usage.completion_tokens","value":{"intValue":"50"}}]}]}]}]}\n' "$@"; }
S1=$(span a '"1700000000000000000"' 0.1 1.0 '"500"')
printf '%s\n' "$S1" "$(span b '"99999999999999999999"' 0.2 1.5 '"600"')" > otel-start-huge.json
printf '%s\n' "$S1" "$(span b '"1700000000500000000"' 0.2 1.5 '"99999999999999999999"')" > otel-prompt-huge.json
printf '%s\n' "$S1" "$(span b '"abc"' 0.2 1.5 '"600"')" > otel-start-abc.json
printf '%s\n' "$S1" "$(span a '"1700000000500000000"' 0.2 1.5 '"600"')" > otel-dup-span.json
printf '%s\n' "$S1" "$(span b '"1700000000500000000"' 2.2 1.5 '"600"')" > otel-ttft-above.json
ve() { mkdir -p "$1"; cp "$root/tests/golden/fixtures/readers/vllm-engine/vllm_meta.json" "$1/"; printf '%s\n' "$2" "$3" > "$1/vllm_requests.jsonl"; }
V1='{"request_id": "a", "input_toks": 100, "output_toks": 10, "queued_ts": 1000.0, "first_token_ts": 1000.1, "last_token_ts": 1001.0}'
ve ve-queued-late "$V1" '{"request_id": "b", "input_toks": 100, "output_toks": 10, "queued_ts": 10000001000.0, "first_token_ts": 10000001000.1, "last_token_ts": 10000001001.0}'
ve ve-dup-id "$V1" '{"request_id": "a", "input_toks": 100, "output_toks": 10, "queued_ts": 1001.0, "first_token_ts": 1001.1, "last_token_ts": 1002.0}'
vc() { { echo '{"meta": {"model": "meta-llama/Llama-3.1-8B-Instruct", "gpu": "H100", "tp": 1}}'; printf '%s\n' "$2" '{"prompt_tokens": 100, "output_tokens": 3, "ttft_ms": 10, "itl_ms": [1, 2], "arrival_ms": 5}'; } > "$1.jsonl"; }
vc vcr-ttft-huge '{"prompt_tokens": 100, "cached_tokens": 0, "output_tokens": 3, "ttft_ms": 1e300, "itl_ms": [1, 2], "arrival_ms": 0}'
vc vcr-cached-above '{"prompt_tokens": 100, "cached_tokens": 200, "output_tokens": 3, "ttft_ms": 10, "itl_ms": [1, 2], "arrival_ms": 0}'
x_exp xr-ttft-above '' '2s/^\([^,]*,[^,]*,[^,]*\),\([^,]*\),\([^,]*\)/\1,\3,\2/'
# HF config fields (issue 30): a Llama config with one field changed
hf() { sed "s|\"rope_theta\": 500000.0,|$2|" "$root/data/models/llama-3.1-8b-instruct.json" > "$1.json"; }
hf hf-rope-yes '"rope_theta": 500000.0, "rope_scaling": "yes",'
hf hf-rope-factor-neg '"rope_theta": 500000.0, "rope_scaling": {"factor": -4, "rope_type": "linear"},'
hf hf-window-neg '"rope_theta": 500000.0, "sliding_window": -5,'
hf hf-quant-foo '"rope_theta": 500000.0, "quantization_config": {"quant_method": "foo"},'
hf hf-quark-int4 '"rope_theta": 500000.0, "quantization_config": {"quant_method": "quark", "global_quant_config": {"weight": {"dtype": "int4", "qscheme": "per_group", "group_size": 128}, "input_tensors": null}, "exclude": ["lm_head"]},'
hf hf-dtype-float128 '"rope_theta": 500000.0, "dtype": "float128",'
hf hf-rope-ok '"rope_theta": 500000.0, "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 8192, "rope_type": "llama3"}, "sliding_window": null,'
sed '/max_position_embeddings/d' "$root/data/models/llama-3.1-8b-instruct.json" > hf-no-max-pos.json
sed 's/"max_position_embeddings": 131072/"max_position_embeddings": 9223372036854775807/' "$root/data/models/llama-3.1-8b-instruct.json" > hf-max-pos-2e63.json
w tz.json '{"arrival": {"process": "trace", "file": "/dev/zero"}}'
# a checkpoint folder whose name a shell would run (issue 30, defect 12)
mkdir -p 'sp ace;$(touch PWNED)' && cp "$root/data/models/llama-3.1-8b-instruct.json" 'sp ace;$(touch PWNED)/config.json'
# a servesim tree of its own (SERVESIM_DATA_DIR=$PWD/mini/data): the files
# a case may try to overwrite are copies, the rest links to the real ones
mkdir -p mini/data/models mini/calibration/tier1 mini/workloads
for f in "$root"/data/*; do case ${f##*/} in models|gpus.json|prices.json) ;; *) ln -s "$f" mini/data/ ;; esac; done
cp "$root/data/gpus.json" "$root/data/prices.json" mini/data/
for f in "$root"/data/models/*; do case ${f##*/} in index.json|llama-3.1-8b-instruct.json) cp "$f" mini/data/models/ ;; *) ln -s "$f" mini/data/models/ ;; esac; done
cp "$root/workloads/default.json" mini/workloads/
cp "$root"/calibration/tier1/*.json mini/calibration/tier1/
snap() { { find . -printf '%p %y %m %l\n'; find . -type f -exec cksum {} +; } | LC_ALL=C sort; }
snap > "$work/before"

# --- runner ----------------------------------------------------------------
# t NAME EXIT FRAGMENT 'shell command ($SS is servesim)'
t() {
	name=$1 want=$2 frag=$3 cmd=$4
	rm -rf "$work/c" && cp -a "$work/fix" "$work/c" && cd "$work/c" || exit 1
	SS=$bin timeout -k 5 "${BAD_TIMEOUT:-60}" sh -c "$cmd" > "$work/out" 2> "$work/err"; rc=$?
	cd "$work/c" && snap > "$work/after"
	why=""
	[ "$rc" = "$want" ] || why="exit $rc, want $want;"
	if [ -n "$frag" ] && ! grep -qF -- "$frag" "$work/err"; then why="$why stderr lacks '$frag';"; fi
	if grep -qE 'runtime error|ERROR: (Address|Leak)Sanitizer' "$work/err"; then why="$why sanitizer report;"; fi
	if ! cmp -s "$work/before" "$work/after"; then
		why="$why files differ: $(diff "$work/before" "$work/after" | grep '^[<>]' | head -3 | tr '\n' ' ')"
	fi
	if [ -z "$why" ]; then pass=$((pass + 1)); echo "ok $name"
	else fail=$((fail + 1)); echo "FAIL bad/$name: $why"; sed 's/^/    /' "$work/err" | head -5; fi
}

# 1. outputs never destroy inputs; checked before any work (exit 2)
t out-step-log-is-workload 2 'is the input' '$SS run --workload w.json --step-log w.json'
t out-requests-is-workload 2 'is the input' '$SS run --workload w.json --requests-out w.json'
t out-requests-is-trace 2 'is the input t.csv' '$SS run --workload tw.json --requests-out t.csv'
t out-requests-via-link 2 'is the input link.json' '$SS run --workload link.json --requests-out w.json'
t out-requests-is-folder 2 'is a folder' '$SS run --workload w.json --requests-out emptydir'
t out-requests-no-folder 2 'does not exist' '$SS run --workload w.json --requests-out nodir/r.csv'
t out-flag-by-prefix 2 "did you mean --requests-out" '$SS run --workload w.json --requests 20'
t flag-by-prefix-eq 2 "did you mean --num-requests" '$SS run --num-req=5'
t out-step-log-no-folder 2 'does not exist' '$SS run --workload w.json --step-log nodir/s.log'
t out-calibrate-into-input 2 'input folder exp' '$SS calibrate exp -o exp/experiment.json'
t out-import-into-input 2 'input folder exp' '$SS import exp -o exp'
t out-eval-report-into-input 2 'input folder exp' '$SS eval exp --report exp/requests.csv'
t out-eval-report-is-pools 2 'is the input aicp/inferencex_pools.csv' '$SS eval aicp/silicon.csv --report aicp/inferencex_pools.csv'
t aic-ttft-1e308 3 "aic-ttft-huge.csv:2: column 'silicon_ttft_ms' must be a number in (0, 1e+12] ms, got 1e+308" '$SS eval aic-ttft-huge.csv'
t aic-tpot-empty 3 "aic-tpot-empty.csv:2: column 'silicon_tpot_ms' must be a number in (0, 1e+12] ms, got an empty cell" '$SS eval aic-tpot-empty.csv'
t aic-pools-prefill-tokens-frac 3 "column 'prefill_max_num_tokens' must be an integer in [0, 1.67772e+07], got 1.5" '$SS eval aicp-lim'
t aic-pools-decode-gpus-negative 3 "column 'decode_gpus' must be an integer in [0, 4096], got -4" '$SS eval aicp-gpus'
t aic-pools-recorded-disagree 3 "row 'dsr1_gb200_trtllm_fp8_disagg_1024x1024_c27_cfg386' records its pools (workers 1/3, attention DP 8/1, decode EP 8); its line must repeat them and set only the limits and the prefill workers' layout on their GPUs" '$SS eval aicp-rec'
t aic-pools-recorded-relay-ep 3 "row 'dsr1_gb200_trtllm_fp8_disagg_1024x1024_c27_cfg386' records its pools (workers 1/3, attention DP 8/1, decode EP 8); its line must repeat them and set only the limits and the prefill workers' layout on their GPUs" '$SS eval aicp-relay'
t aic-pools-slip-optional 3 "column 'Decode_GPUs' is not one servesim reads: did you mean 'decode_gpus'?" '$SS eval aicp-slip'
t eval-requests-stage-slip 3 "column 'Stage' is not one servesim reads: did you mean 'stage'?" '$SS eval xp-stage-slip'
t aic-pools-redundant-negative 3 "column 'decode_redundant_experts' must be an integer in [0, 4096], got -32" '$SS eval aicp-red'
t aic-pools-sglang-limit 3 "column 'decode_sglang_max_running_requests' must be a whole number in [1, 16777216] or empty, got -1" '$SS eval aicp-sgl'
t aic-pools-mem-fraction 3 "column 'decode_mem_fraction_static' must be a fraction in [0, 1] (0 or empty: SGLang's rule), got 1.5" '$SS eval aicp-mfs'
t aic-pools-moe-backend 3 "column 'decode_moe_backend' must be TRTLLM, DEEPGEMM, CUTLASS, CUTEDSL, WIDEEP or empty, got \"FLUX\"" '$SS eval aicp-mb'
t out-roofline-folder 2 'is a folder' '$SS roofline llama-2-7b -o emptydir'
t out-roofline-grid-no-folder 2 'does not exist' '$SS roofline llama-2-7b --grid nodir/g.csv'
# 2. write errors are failures naming the file (exit 1).  Devices are reached
# through a link in the scratch folder: a servesim that replaces its output
# by rename() (3dc9ccc did) then replaces the link, never /dev/full itself.
t write-run-stdout-full 1 'standard output: write error' '$SS run --workload w.json > /dev/full'
t write-run-json-stdout-full 1 'standard output: write error' '$SS run --workload w.json --format json > /dev/full'
t write-step-log-full 1 '/dev/full: write error' 'ln -s /dev/full full && $SS run --workload w.json --step-log full > /dev/null; r=$?; rm full; exit $r'
t write-requests-full 1 '/dev/full: write error' 'ln -s /dev/full full && $SS run --workload w.json --requests-out full > /dev/null; r=$?; rm full; exit $r'
t write-eval-stdout-full 1 'standard output: write error' '$SS eval exp > /dev/full'
t write-trace-stdout-full 1 'standard output: write error' "\$SS trace $root/tests/golden/fixtures/ascend-kernel_details.csv > /dev/full"
t write-models-stdout-full 1 'standard output: write error' '$SS models > /dev/full'
t write-roofline-stdout-full 1 'standard output: write error' '$SS roofline llama-2-7b > /dev/full'
# 3. outputs: the umask's mode, links kept, FIFOs written in place, temp files gone on SIGTERM
t out-umask-mode 0 '' 'umask 027; $SS run --workload w.json --requests-out o.csv > /dev/null && [ "$(stat -c %a o.csv)" = 640 ] && rm o.csv'
t out-link-kept 0 '' 'ln -s tgt.csv l.csv && $SS run --workload w.json --requests-out l.csv > /dev/null && [ -L l.csv ] && [ -s tgt.csv ] && rm l.csv tgt.csv'
t out-fifo-direct 0 '' 'mkfifo f && { wc -l < f > n & } && $SS run --workload w.json --requests-out f > /dev/null && wait && [ -p f ] && [ "$(cat n)" = 21 ] && rm f n'
t out-sigterm-no-temp 143 '' '$SS run --rate 200 --num-requests 20000000 --requests-out big.csv > /dev/null 2>&1 & p=$!; i=0; while [ ! -e big.csv.tmp* ] 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done; ls | grep -q "big.csv.tmp" || exit 9; kill -TERM $p; wait $p'
t out-sigint-no-temp 124 '' 'timeout -s INT 1.5 $SS run --rate 200 --num-requests 20000000 --requests-out big.csv > /dev/null 2>&1'
# 4. numbers in traces are range-checked before conversion (exit 3)
t trace-arrival-1e300 3 "'arrival_s' must be in [0, 1e+09]" '$SS run --workload tr-arr-huge.json'
t trace-prompt-1e20 3 "integers in [1, 16777216], got 1e+20" '$SS run --workload tr-prompt-huge.json'
t trace-prompt-fraction 3 "got 1.5 and 10" '$SS run --workload tr-prompt-frac.json'
t trace-arrival-negative 3 "'arrival_s' must be in" '$SS run --workload tr-arr-neg.json'
t trace-group-1e300 3 "'prefix_group' must be an integer" '$SS run --workload tr-group-huge.json'
t trace-arrival-inf 3 "column 'arrival_s' must be a number, got 'inf'" '$SS run --workload tr-arr-inf.json'
t trace-arrival-hex 3 "must be a number, got '0x10'" '$SS run --workload tr-arr-hex.json'
t trace-output-zero 3 "got 100 and 0" '$SS run --workload tr-out-zero.json'
t trace-header-only 3 "tr-header-only.csv: no request: the trace has no row after its header" '$SS run --workload tr-header-only.json'
# a misspelt optional column would be dropped without a word: refused,
# named; a column of another name is the user's own, ignored
t trace-slip-optional 3 "tr-slip-optional.csv: column 'prefix_grup' is not one servesim reads: did you mean 'prefix_group'?" '$SS run --workload tr-slip-optional.json'
t trace-slip-case 3 "column 'Images' is not one servesim reads: did you mean 'images'?" '$SS run --workload tr-slip-case.json'
t trace-slip-required 3 "tr-slip-required.csv: missing column 'arrival_s' in the header (the header has 'arival_s': rename it 'arrival_s')" '$SS run --workload tr-slip-required.json'
t trace-extra-columns-ignored 0 '' '$SS run --workload tr-extra-column.json > /dev/null'
t trace-duplicate-column 3 "tr-dup-column.csv:1: column 'prompt_tokens' appears twice in the header (columns 2 and 4)" '$SS run --workload tr-dup-column.json'
t trace-bom-header 0 '' '$SS run --workload tr-bom.json > /dev/null'
# 5. numbers in workload specs (JSON and YAML alike)
t spec-rate-1e999 3 "number 'rate' is out of the range of a double" '$SS run --workload rate-1e999.json'
t spec-rate-1e-300 3 "'rate' must be in [1e-06, 1e+09] requests/s, got 1e-300" '$SS run --workload rate-tiny.json'
t spec-rate-infinity 3 "'rate' must be a finite number, got inf" '$SS run --workload rate-inf.json'
t spec-rate-nan 3 "'rate' must be a finite number, got nan" '$SS run --workload rate-nan.json'
t spec-rate-too-low-for-count 2 "past the 1e+09 s a simulation may span" '$SS run --workload rate-low-many.json'
t spec-gamma-cv-1e-300 3 "'cv' must be in [0.001, 100], got 1e-300" '$SS run --workload cv-tiny.json'
t spec-gamma-cv-1e300 3 "'cv' must be in [0.001, 100], got 1e+300" '$SS run --workload cv-huge.json'
t spec-poisson-count-1e30 3 "got 1e+30" '$SS run --workload pcount-huge.json'
t spec-uniform-count-1e12 2 "would generate 1e+12 requests" '$SS run --workload ucount-huge.json'
t spec-num-requests-1e12 2 "raise the limit with --max-requests" '$SS run --workload nreq-huge.json'
t spec-prompt-1e20 3 "prompt_tokens: must be an integer in [1, 16777216], got 1e+20" '$SS run --workload prompt-huge.json'
t spec-normal-mean-1e30 3 "'mean' must be in (0, 16777216], got 1e+30" '$SS run --workload mean-huge.json'
t spec-lognormal-stdev-neg 3 "'stdev' must be in [0, 16777216], got -1" '$SS run --workload stdev-neg.json'
t spec-empirical-1e20 3 "'values[1]' must be an integer in [1, 16777216], got 1e+20" '$SS run --workload emp-huge.json'
t spec-empirical-weight-inf 3 "'weights[1]' must be a finite number >= 0, got inf" '$SS run --workload emp-winf.json'
t spec-uniform-max-1e19 3 "'max' must be in [1, 16777216]" '$SS run --workload max-huge.json'
t spec-duration-1e300 3 "'duration_s' must be in (0, 1e+09] s, got 1e+300" '$SS run --workload dur-huge.json'
t spec-stage-rate-1e-300 3 "stages[0]: 'rate' must be in" '$SS run --workload stage-tiny.json'
t spec-stages-too-long 3 "the stages last 1.8e+09 s in all" '$SS run --workload stages-long.json'
t spec-curve-backwards 3 "rate_curve[2]: t_s must be above the previous point's (60)" '$SS run --workload curve-back.json'
t spec-curve-nan 3 "rate_curve[1]: rate must be in [0, 1e+09]" '$SS run --workload curve-nan.json'
t spec-curve-negative 3 "rate_curve[1]: rate must be in [0, 1e+09] requests/s, got -3" '$SS run --workload curve-neg.json'
t spec-curve-too-long 3 "rate_curve[1]: t_s must be above the previous point's (0) and at most 1e+09 s" '$SS run --workload curve-long.json'
t spec-curve-too-many 2 "the workload would generate 1e+18 requests" '$SS run --workload curve-many.json'
t spec-curve-process 3 "'rate_curve' needs poisson, gamma or constant arrivals, got poisson_count" '$SS run --workload curve-trace.json'
t spec-curve-pair 3 "rate_curve[1] must be a pair [t_s, rate] of numbers" '$SS run --workload curve-point.json'
t autoscale-min-above-max 2 "--autoscale must be MIN:MAX replicas with 1 <= MIN <= MAX <= 1024, got '3:2'" '$SS run --workload w.json --autoscale 3:2'
t autoscale-huge 2 "--autoscale must be MIN:MAX" '$SS run --workload w.json --autoscale 1:99999999999'
t autoscale-interval-zero 2 "--autoscale-interval-s" '$SS run --workload w.json --autoscale 1:2 --autoscale-interval-s 0'
t autoscale-target-above-1 2 "--autoscale-target must be in (0, 1], got 1.5" '$SS run --workload w.json --autoscale 1:2 --autoscale-target 1.5'
t autoscale-warmup-inf 2 "must be >= 0 and finite" '$SS run --workload w.json --autoscale 1:2 --autoscale-warmup-s 1e300'
t autoscale-interval-tiny 2 "makes more than 1000000 decisions" '$SS run --workload w.json --autoscale 1:2 --autoscale-interval-s 1e-9'
t autoscale-svg-dir 2 "folder /nonexistent-dir does not exist" '$SS run --workload w.json --autoscale 1:2 --svg /nonexistent-dir/a.svg'
t spec-shared-prefix-2e12 3 "num_groups x num_prompts_per_group must be <= 16777216" '$SS run --workload sp-huge.json'
t spec-prefix-negative 3 "'prefix_tokens' must be in [0, 16777216], got -1024" '$SS run --workload prefix-neg.json'
t spec-concurrency-zero 3 "'concurrency' must be in [1, 16777216], got 0" '$SS run --workload conc-zero.json'
t spec-closed-loop-duration-only 2 "the closed loop of 4 clients has issued 1000 requests by" '$SS run --workload cl-dur.json --max-requests 1000 --requests-out o.csv --step-log s.log'
t spec-closed-loop-stages-only 2 "issued 500 requests by" '$SS run --workload cl-stages.json --max-requests 500'
t spec-closed-loop-under-limit 0 '' '$SS run --workload cl-short.json --max-requests 1000 > /dev/null'
t sessions-turns-0 3 "sessions: turns: must be an integer in [1, 1024], got 0" '$SS run --workload ss-turns-0.json'
t sessions-think-negative 3 "sessions: think_time_s: must be in [0, 3600], got -2" '$SS run --workload ss-think-neg.json'
t sessions-think-mean-1e9 3 "sessions: think_time_s: 'mean' must be in (0, 3600], got 1e+09" '$SS run --workload ss-think-dist.json'
t sessions-count-1e30 3 "sessions: 'count' must be in [1, 16777216], got 1e+30" '$SS run --workload ss-count-huge.json'
t sessions-no-turns 3 "sessions: missing required key 'turns'" '$SS run --workload ss-no-turns.json'
t sessions-unknown-key 3 "thinktime" '$SS run --workload ss-key.json'
t sessions-closed-loop 3 "'sessions' need an open-loop arrival process (the one that starts sessions), got concurrency" '$SS run --workload ss-closed.json'
t sessions-num-requests 3 "'num_requests' and 'sessions' exclude each other" '$SS run --workload ss-nreq.json'
t sessions-num-requests-flag 2 "'num_requests' and 'sessions' exclude each other" '$SS run --workload ss-ok.json --num-requests 5'
t sessions-prefix 3 "give no 'shared_prefix' or 'prefix_tokens' with them" '$SS run --workload ss-prefix.json'
t sessions-tool-fraction 3 "tool_tokens: 'values[1]' must be an integer in [0, 16777216], got 2.5" '$SS run --workload ss-tool-frac.json'
t mooncake-timestamp-back 3 "mc-ts-back.jsonl:2: 'timestamp' must be in [0, 1e+12] ms and non-decreasing, got 4 after 5" '$SS run --workload mc-ts-back.jsonl'
t mooncake-too-many-ids 3 "mc-ids-many.jsonl:1: 'hash_ids' must be an array of at most 2 ids" '$SS run --workload mc-ids-many.jsonl'
t mooncake-negative-id 3 "'hash_ids[1]' must be an integer in [0, 2^53), got -2" '$SS run --workload mc-id-neg.jsonl'
t mooncake-input-1e30 3 "mc-in-huge.jsonl:1: 'input_length' must be in [1, 16777216], got 1e+30" '$SS run --workload mc-in-huge.jsonl'
t mooncake-unknown-key 3 "extra" '$SS run --workload mc-key.jsonl'
t mooncake-truncated 3 "mc-trunc.jsonl:2" '$SS run --workload mc-trunc.jsonl'
t mooncake-eval-no-latencies 2 "a Mooncake trace records arrivals, lengths and shared prefix blocks but no latencies" '$SS eval mc-ok.jsonl'
t mooncake-exp-requests 3 "mcx-requests/experiment.json: workload.arrival: 'requests' must be in [0, 1] (the trace's requests), got 2" '$SS eval mcx-requests'
t mooncake-exp-speedup 3 "'speedup' must be in (0, 1e6], got -4" '$SS eval mcx-speedup'
t mooncake-exp-router 3 "experiment.json: 'router' must be round-robin, least-loaded or kv-aware" '$SS eval mcx-router'
t mooncake-exp-replicas 3 "'replicas' must be" '$SS eval mcx-replicas'
t mooncake-exp-unknown-key 3 "rate" '$SS eval mcx-key'
t mooncake-run-speedup-not-trace 2 '--trace-speedup applies to a Mooncake trace given as --workload, not to w.json' '$SS run --workload w.json --trace-speedup 2'
t mooncake-run-speedup-huge 2 "--trace-speedup must be in (0, 1e6], got '1e9'" '$SS run --workload mc-ok.jsonl --trace-speedup 1e9'
t mooncake-requests-out-is-trace 2 'is the input mc-ok.jsonl' '$SS run --workload mc-ok.jsonl --requests-out mc-ok.jsonl'
t dataset-unknown 3 "prompt_tokens: 'dataset' must be one of sharegpt, arxiv-summarization, azure-conv-2023, azure-code-2023" '$SS run --workload ds-unknown.json'
t dataset-for-turns 3 "sessions: turns: a 'dataset' gives token lengths only" '$SS run --workload ds-turns.json'
t dataset-unknown-key 3 "mean" '$SS run --workload ds-key.json'
t dataset-clip-inverted 3 "output_tokens: 'max' (10) must be >= 'min' (50)" '$SS run --workload ds-clip.json'
t spec-raw-0xff 3 "byte 0xff is not valid UTF-8" '$SS run --workload ff.json'
t yaml-rate-dot5 0 '' '$SS run --workload y-half.yaml > /dev/null'
t yaml-rate-hex 0 '' '$SS run --workload y-hex.yaml > /dev/null'
t yaml-rate-1e999 3 "y-big.yaml:1:35: number 1e999 is out of the range of a double" '$SS run --workload y-big.yaml'
t yaml-rate-inf 3 "'rate' must be a finite number, got inf" '$SS run --workload y-inf.yaml'
# 6. numbers on the command line
t flag-length-not-clamped-by-file 0 "" '$SS run --workload wmax.json --prompt-tokens 5000 --num-requests 5 --requests-out p.csv > /dev/null 2>&1 && cut -d, -f5 p.csv | sort -u | grep -qx 5000 && rm p.csv'
t list-empty-item 2 "--tp: an empty item in '1,,2' (items are separated by single commas)" '$SS sweep --tp 1,,2 --num-requests 5'
t list-trailing-comma 2 "--slo: an empty item in 'ttft_p90_ms=1000,'" '$SS capacity --slo ttft_p90_ms=1000,'
t roofline-gpu-twice 2 "--gpu: h100-sxm given twice ('h100-sxm')" '$SS roofline llama-3.1-8b --gpu h100,h100-sxm'
t list-gpus-leading-comma 2 "--gpus: an empty item in ',h100:8'" '$SS search --gpus ,h100:8 --slo ttft_p90_ms=1000'
t flag-rate-hex 2 "--rate must be a number, got '0x10'" '$SS run --rate 0x10'
t flag-rate-inf 2 "--rate must be a number, got 'inf'" '$SS run --rate inf'
t flag-rate-1e-300 2 "--rate must be in [1e-06, 1e+09] requests/s, got 1e-300" '$SS run --rate 1e-300 --num-requests 5'
t flag-rate-1e300 2 "--rate must be in [1e-06, 1e+09] requests/s, got 1e+300" '$SS run --rate 1e300 --num-requests 5'
t flag-duration-1e30 2 "--duration must be in (0, 1e+09] s, got 1e+30" '$SS run --duration 1e30'
t flag-prompt-1e20 2 "--prompt-tokens must be in [1, 16777216] tokens, got 1e+20" '$SS run --prompt-tokens 1e20 --num-requests 5'
t flag-output-std-1e20 2 "--output-tokens: the standard deviation must be in [0, 16777216] tokens, got 1e+20" '$SS run --output-tokens 100:1e20 --num-requests 5'
t flag-num-requests-1e11 2 "more than the limit of 20000000" '$SS run --num-requests 100000000000'
t flag-max-requests-zero 2 "--max-requests must be >= 1, got 0" '$SS run --max-requests 0'
# (the limit is read before the workload's checks: lowered it refuses a
# workload the default admits; raised it admits one, and the run goes on)
t flag-max-requests-lowers 2 "would generate 1000 requests (rate x duration or num_requests), more than the limit of 50" '$SS run --workload ucount-1000.json --max-requests 50'
t flag-max-requests-admits 0 '' '$SS run --workload ucount-1000.json --max-requests 1000 > /dev/null'
# 7. measured data: finite, in range, named by file and record (eval, import, calibrate)
t exp-prefix-negative 3 "'prefix_tokens' must be in [0, 16777216], got -1024" '$SS eval xp-prefix-neg'
t exp-prefix-1e300 3 "'prefix_tokens' must be in [0, 16777216], got 1e+300" '$SS eval xp-prefix-huge'
t exp-requests-ttft-inf 3 "xr-ttft-inf/requests.csv:2: column 'ttft_ms' must be a number, got 'inf'" '$SS eval xr-ttft-inf'
t exp-requests-prompt-1e61 3 "xr-prompt-huge/requests.csv:3: arrival_s in [0, 1e+09], token counts integers" '$SS eval xr-prompt-huge'
t exp-requests-e2e-nan 3 "column 'e2e_ms' must be a number, got 'nan'" '$SS eval xr-e2e-nan'
t exp-requests-arrival-1e300 3 "xr-arr-huge/requests.csv:2:" '$SS eval xr-arr-huge'
t exp-requests-stage-case 3 "xr-stage-case/requests.csv: column 'Stage' is not one servesim reads: did you mean 'stage'?" '$SS eval xr-stage-case'
t exp-requests-stage-case-calibrate 3 "column 'Stage' is not one servesim reads" '$SS calibrate xr-stage-case'
t exp-requests-extra-column 0 "" '$SS eval xr-extra-column > /dev/null'
t aic-pools-slip-gpus 3 "inferencex_pools.csv: column 'prefill_gpu' is not one servesim reads: did you mean 'prefill_gpus'?" '$SS eval aicp-slip-prefill_gpus'
t aic-pools-slip-redundant 3 "column 'decode_redundant_expert' is not one servesim reads: did you mean 'decode_redundant_experts'?" '$SS eval aicp-slip-decode_redundant_experts'
t exp-requests-ttft-negative 3 "ttft_ms and e2e_ms >= 0" '$SS calibrate xr-neg-ttft'
t guidellm-prompt-1e61 3 "request 0 of benchmark 0: start 3000 s, ttft 100 ms, latency 1000 ms must be finite and prompt 1e+61" '$SS import gl-prompt-huge -o out'
t gv2-successful-huge 3 'request_totals.successful is 1e+30, expected at most 1e+12' '$SS eval gv2-done-huge.json --model llama-3.1-8b --tp 1'
t guidellm-latency-infinity 3 "latency inf ms must be finite" '$SS import gl-lat-inf -o out'
t guidellm-eval-latency-infinity 3 "latency inf ms must be finite" '$SS eval gl-lat-inf'
t json-nested-deep 3 "deep.json:1:1001: malformed JSON: arrays and objects nested more than 1000 deep" '$SS run --workload deep.json'
t guidellm-nested-deep 3 "arrays and objects nested more than 256 deep" '$SS eval gl-deep'
t guidellm-latency-nan 3 "lacks a start time, token counts or latency" '$SS eval gl-lat-nan'
# 8. side files of an experiment: never a silent default
t profile-malformed 3 "gl-prof-bad/profile.yaml:" '$SS eval gl-prof-bad'
t profile-prefix-negative 3 "profile.yaml: data: 'prefix_tokens' must be in [0, 16777216], got -5" '$SS eval gl-prof-neg'
t profile-prefix-1e300 3 "'prefix_tokens' must be in [0, 16777216], got 1e+300" '$SS import gl-prof-frac -o out'
t profile-missing-warns 0 "warning: gl-noprof: no profile.yaml" '$SS eval gl-noprof > /dev/null'
t facts-unknown-key 3 "engine-facts.json: unknown key 'num_gpu_block'" '$SS eval gl-facts-key'
t facts-malformed 3 "engine-facts.json:1:19: malformed JSON: the text ends with 1 object or array still open (a truncated file?)" '$SS eval gl-facts-bad'
t facts-infinity 3 "'num_gpu_blocks' must be a finite number" '$SS calibrate gl-facts-inf'
t facts-engine-not-string 3 "engine-facts.json: 'engine' must be a string" '$SS eval gl-facts-engine'
t facts-kv-gib-negative 3 "'available_kv_cache_gib' must be in [0, 1048576], got -1" '$SS eval gl-facts-gib'
t facts-capture-size-fraction 3 "'cudagraph_capture_sizes[2]' must be an integer in [1, 16777216]" '$SS eval gl-facts-graphs'
t vllm-log-blocks-overflow 3 "vllm.log:1: num_gpu_blocks must be an integer in [1, 268435456], got '99999999999999999999'" '$SS eval gl-log-blocks'
t vllm-log-blocks-negative 3 "vllm.log:1: num_gpu_blocks must be an integer in [1, 268435456], got '-4'" '$SS calibrate gl-log-blocks-neg'
t exp-config-unknown-key 3 "exp-config.yaml: unknown key 'max_num_seq'" '$SS eval gl-cfg-key'
t exp-config-not-mapping 3 "exp-config.yaml: expected a mapping of settings, got an array" '$SS import gl-cfg-list -o out'
t profile-unknown-key 3 "profile.yaml: unknown key 'rate_type'" '$SS eval gl-prof-key'
t profile-data-not-mapping 3 "profile.yaml: 'data' must be a mapping of synthetic-data settings, got a number" '$SS eval gl-prof-data5'
t profile-data-unknown-key 3 "profile.yaml: data: unknown key 'prefix_token'" '$SS eval gl-prof-datakey'
t profile-stdev-nan 3 "'prompt_tokens_stdev' must be a finite number" '$SS eval gl-prof-stdev'
t profile-not-mapping 3 "profile.yaml: expected a mapping of GuideLLM options, got a string" '$SS eval gl-prof-scalar'
t exp-engine-moe-backend 3 "xp-moe-backend/experiment.json: engine: 'moe_backend' must be TRTLLM, DEEPGEMM, CUTLASS, CUTEDSL, WIDEEP or default, got 'FLUX'" '$SS eval xp-moe-backend'
t exp-engine-dp-lm-head-vllm 3 "xp-dp-lm-head-vllm/experiment.json: engine: 'enable_dp_lm_head' and 'moe_dense_tp_size' are SGLang's: give \"name\": \"sglang\"" '$SS eval xp-dp-lm-head-vllm'
t exp-engine-moe-dense-tp-2 3 "xp-moe-dense-tp-2/experiment.json: engine: 'moe_dense_tp_size' must be in [1, 1], got 2" '$SS eval xp-moe-dense-tp-2'
t exp-engine-no-deep-gemm-sglang 3 "xp-no-deep-gemm-sglang/experiment.json: engine: 'no_deep_gemm' is vLLM's: give \"name\": \"vllm\"" '$SS eval xp-no-deep-gemm-sglang'
t run-moe-backend-unknown 2 "unknown MoE backend 'FLUX' (expected TRTLLM, DEEPGEMM, CUTLASS, CUTEDSL, WIDEEP, TRITON or default)" '$SS run --workload w.json --moe-backend FLUX'
t run-prefill-moe-backend-no-pd 2 "--prefill-moe-backend and --kv-handoff-ms need --disaggregate XpYd" '$SS run --workload w.json --prefill-moe-backend TRTLLM'
t run-prefill-moe-backend-unknown 2 "--prefill-moe-backend: unknown MoE backend 'flux'" '$SS run --workload w.json --model deepseek-r1 --gpu b200 --tp 8 --dtype fp8 --disaggregate 1p1d --prefill-moe-backend flux'
t exp-engine-version-word 3 "xp-version-word/experiment.json: engine: 'version' must be a version like 0.11.0 or 1.3.0rc20, or \"unknown\", got 'abc'" '$SS eval xp-version-word'
t exp-trace-workload-unknown-key 3 "experiment.json: workload: unknown key 'prefx_tokens'" '$SS eval xp-trace-key'
t exp-trace-arrival-unknown-key 3 "workload.arrival: unknown key 'rate'" '$SS eval xp-trace-arrkey'
# 8b. serving-benchmark results (vLLM bench serve): every number in range, named
t bench-input-len-fraction 3 "b-in-frac.json: 'input_lens[1]' must be an integer in [0, 16777216], got 0.5" '$SS eval b-in-frac.json --gpu h100'
t bench-input-len-1e20 3 "'input_lens[2]' must be an integer in [0, 16777216], got 1e+20" '$SS eval b-in-huge.json --gpu h100'
t bench-input-len-negative 3 "'input_lens[0]' must be an integer in [0, 16777216], got -1" '$SS import b-in-neg.json --gpu h100 -o out'
t bench-input-len-string 3 "'input_lens[1]' must be a token count, got a string" '$SS eval b-in-str.json --gpu h100'
t bench-output-len-1e300 3 "'output_lens[3]' must be an integer in [0, 16777216], got 1e+300" '$SS eval b-out-huge.json --gpu h100'
t bench-rate-negative 3 "'request_rate' must be in [1e-06, 1e+09] requests/s or \"inf\", got -5" '$SS eval b-rate-neg.json --gpu h100'
t bench-rate-string 3 "'request_rate' must be a number or \"inf\", got \"fast\"" '$SS eval b-rate-str.json --gpu h100'
t bench-duration-1e300 3 "'duration' must be a number in [1e-09, 1000000000], got 1e+300" '$SS eval b-dur-huge.json --gpu h100'
t bench-p90-ttft-negative 3 "'p90_ttft_ms' must be in [0, 1e+12], got -3" '$SS eval b-p90-neg.json --gpu h100'
t bench-p90-ttft-string 3 "'p90_ttft_ms' must be a number, got a string" '$SS eval b-p90-str.json --gpu h100'
t bench-burstiness-1e300 3 "'burstiness' must be in [0.0001, 1000000], got 1e+300" '$SS eval b-burst-huge.json --gpu h100'
t bench-concurrency-fraction 3 "'max_concurrency' must be an integer in [1, 16777216], got 2.5" '$SS eval b-conc-frac.json --gpu h100'
t bench-completed-1e12 3 "'completed' must be an integer in [1, 16777216], got 1e+12" '$SS eval b-done-huge.json --gpu h100'
t bench-input-tokens-1e300 3 "'total_input_tokens' must be an integer in [1, 67108864], got 1e+300" '$SS eval b-tin-huge.json --gpu h100'
t bench-mean-ttft-infinity 3 "'mean_ttft_ms' must be a finite number in [0, 1e+12], got null, NaN or Infinity" '$SS eval b-ttft-inf.json --gpu h100'
t bench-good 0 '' '$SS eval b-ok.json --gpu h100 > /dev/null'
# 9. inputs that are not files, empty folders, header-only traces
t eval-empty-folder 2 "no experiment under the given paths" '$SS eval emptydir'
t eval-missing-path 3 "nodir: no such file or folder" '$SS eval nodir'
t eval-cv-unknown-grouping 2 "--cv: 'family' is not a grouping (expected model, gpu or engine)" '$SS eval exp --cv family'
t calibrate-missing-path 3 "nodir: no such file or folder" '$SS calibrate nodir'
t run-workload-folder 3 "emptydir: is a folder, expected a file" '$SS run --workload emptydir'
t workload-harness-unknown 3 "'harness' must be one of aiperf, vllm-bench, sglang-bench, guidellm, inference-perf, got 'locust'" '$SS run --workload wh.json'
t run-harness-unknown 2 "--harness must be one of aiperf, vllm-bench, sglang-bench, guidellm, inference-perf, got 'locust'" '$SS run --harness locust'
t run-workload-missing 3 "nofile.json: cannot open" '$SS run --workload nofile.json'
t trace-ascend-header-only 3 "ascend-hdr" '$SS trace ascend-hdr'
t trace-ascend-csv-header-only 3 "ascend-hdr.csv" '$SS trace ascend-hdr.csv'
t trace-ascend-matmul-dims-huge 0 "" '$SS trace ascend-dims-huge.csv'
t trace-kineto-huge-ids 0 "" '$SS trace kineto-nan.json > /dev/null'
t trace-kineto-negative-dur 3 "(kernel 'k'): 'dur' must be >= 0" '$SS trace kineto-neg.json'
# 10. issue 30: every request accounted for in every mode
t pp2-loses-no-request 0 '' '$SS run --pp 2 --num-requests 10 --rate 200 --total-kv-blocks 300 --max-model-len 4096 --prompt-tokens 2000 --output-tokens 500 | grep -q "arrived 10, completed 10, rejected 0"'
t pp4-loses-no-request 0 '' '$SS run --pp 4 --num-requests 3000 --rate 200 --total-kv-blocks 300 --max-model-len 4096 --prompt-tokens 2000 --output-tokens 500 | grep -q "arrived 3000, completed 3000, rejected 0"'
t trace-past-max-requests 2 "tw.json: the trace holds more requests than the limit of 1" '$SS run --workload tw.json --max-requests 1 --requests-out o.csv'
t capacity-20-requests 2 "is too short to judge: only 16 of its 20 requests arrive after its warm-up" '$SS capacity --slo ttft_p90_ms=1000 --num-requests 20'
t capacity-40-requests 2 "give --num-requests" '$SS capacity --slo ttft_p90_ms=1000 --num-requests 40'
t capacity-100-requests 2 "under four mean E2Es" '$SS capacity --slo ttft_p90_ms=1000 --num-requests 100 --curve c.csv'
t search-40-requests 2 "h100-sxm x1, vllm, tp 1 pp 1 dp 1 ep 1: workloads/default.json: the probe at" '$SS search --gpus h100:1 --engines vllm --no-pd --slo ttft_p90_ms=1000 --num-requests 40'
t search-rank-unknown 2 "--rank: expected throughput or energy, got 'watts'" '$SS search --gpus h100:1 --slo ttft_p90_ms=1000 --rank watts'
t capacity-concurrency-start-1e11 2 "--start must be in [1, 16777216] clients" '$SS capacity --concurrency-search --start 1e11 --slo ttft_p90_ms=1000 --num-requests 50'
t capacity-rate-start-1e11 2 "--start must be in [0.015625, 1048576] req/s, got 1e+11" '$SS capacity --start 1e11 --slo ttft_p90_ms=1000'
# (an SLO all 50 clients meet: the search starts at the 50 the requests allow)
t capacity-concurrency-start-above-requests 0 "" '$SS capacity --concurrency-search --start 16777216 --slo ttft_p90_ms=2000 --num-requests 50 | grep -q "max conc   50 clients"'
# measured values: every time, count and latency checked, named by file, field and record
GL='--model llama-3.1-8b --gpu h100'
t guidellm-start-1e10 3 "the requests' 'request_start_time' span 1e+10 s" "\$SS eval glr-start-1e10 $GL"
t guidellm-start-negative 3 "request 1 of benchmark 0: 'request_start_time' must be a time in [0, 1e+11] s, got -1e+10" "\$SS eval glr-start-neg $GL"
t guidellm-start-minus-5 3 "'request_start_time' must be a time in [0, 1e+11] s, got -5" "\$SS import glr-start-m5 $GL -o out"
t guidellm-start-string 3 "'request_start_time' must be a number, got \"abc\"" "\$SS eval glr-start-abc $GL"
t guidellm-ttft-1e300 3 "'time_to_first_token_ms' must be in [0, 1e+12] ms, got 1e+300 ms" "\$SS eval glr-ttft-huge $GL"
t guidellm-ttft-negative 3 "'time_to_first_token_ms' must be in [0, 1e+12] ms, got -5 ms" "\$SS calibrate glr-ttft-neg $GL"
t guidellm-e2e-negative 3 "'request_latency' must be in [0, 1e+12] ms, got -2000 ms" "\$SS eval glr-e2e-neg $GL"
t guidellm-ttft-above-e2e 3 "'time_to_first_token_ms' must be at most 'request_latency' (2000 ms), got 4000 ms" "\$SS eval glr-ttft-above $GL"
t guidellm-duplicate-id 3 "requests 0 and 1 have the same 'request_id' \"a\"" "\$SS eval glr-dup-id $GL"
t guidellm-rate-negative 3 "the constant strategy's 'rate' must be in [0, 1e+09], got -5" "\$SS eval glr-rate-neg $GL"
t otel-start-1e20-ns 3 "otel-start-huge.json: the requests' 'startTimeUnixNano' span 9.83e+10 s" "\$SS eval otel-start-huge.json $GL"
t otel-prompt-1e20 3 "otel-prompt-huge.json:2: 'gen_ai.usage.prompt_tokens' must be an integer in [1, 16777216], got 1e+20" "\$SS eval otel-prompt-huge.json $GL"
t otel-start-string 3 "otel-start-abc.json:2: 'startTimeUnixNano' must be an integer count of ns, got \"abc\"" "\$SS eval otel-start-abc.json $GL"
t otel-duplicate-span 3 "lines 1 and 2 have the same 'spanId' \"a\"" "\$SS import otel-dup-span.json $GL -o out"
t otel-ttft-above-e2e 3 "'gen_ai.latency.time_to_first_token' must be at most 'gen_ai.latency.e2e' (1500 ms), got 2200 ms" "\$SS eval otel-ttft-above.json $GL"
t engine-stats-queued-late 3 "the requests' 'queued_ts' span 1e+10 s" '$SS eval ve-queued-late --gpu h100'
t engine-stats-duplicate-id 3 "lines 1 and 2 have the same 'request_id' \"a\"" '$SS eval ve-dup-id --gpu h100'
t vcr-ttft-1e300 3 "vcr-ttft-huge.jsonl:2: 'ttft_ms' must be in [0, 1e+12] ms, got 1e+300 ms" '$SS eval vcr-ttft-huge.jsonl'
t vcr-import-ttft-1e300 3 "'ttft_ms' must be in [0, 1e+12] ms" '$SS import vcr-ttft-huge.jsonl -o out'
t vcr-cached-above-prompt 3 "'cached_tokens' must be an integer in [0, prompt_tokens = 100], got 200" '$SS eval vcr-cached-above.jsonl'
t exp-requests-ttft-above-e2e 3 "xr-ttft-above/requests.csv:2: 'ttft_ms' must be at most 'e2e_ms'" '$SS eval xr-ttft-above'
# configurations the engines refuse to start: exit 2 (--allow-invalid simulates them)
t total-kv-blocks-1 2 "--total-kv-blocks 1 holds 16 tokens, less than one request of max_model_len 131072" '$SS run --num-requests 5 --total-kv-blocks 1'
t total-kv-blocks-1-allowed 0 "" '$SS run --num-requests 5 --total-kv-blocks 1 --allow-invalid | grep -q "invalid configuration simulated (--allow-invalid): --total-kv-blocks 1"'
t draft-weights-count 2 "with its draft model deepseek-v3 does not fit: the draft's weights take" '$SS run --num-requests 5 --speculative-tokens 2 --speculative-method draft:deepseek-v3 --acceptance-rate 0.8'
# the weights fit, the experts' second copy of their block scales does not (vLLM 0.12-0.23 on Hopper): refused
# with every cost model released (LeakSanitizer under check-asan)
t trace-ascend-column-slip 3 "column 'Input shapes' is not one servesim reads: did you mean 'Input Shapes'?" '$SS trace ascend-slip.csv'
t experts-scales-no-room 2 "no memory left for the KV cache once the experts' kept block scales take" '$SS run --model gpt-oss-120b --gpu h100 --engine vllm --engine-version 0.14.1 --num-requests 5 --gpu-memory-utilization 0.81 --max-model-len 1024'
t experts-scales-no-room-prefill 2 "prefill workers: no memory left for the KV cache once the experts' kept block scales take" '$SS run --model gpt-oss-120b --gpu h200 --prefill-gpu h100 --disaggregate 1p1d --engine vllm --engine-version 0.14.1 --num-requests 5 --gpu-memory-utilization 0.81 --max-model-len 1024'
t draft-weights-take-blocks 0 "" '$SS run --num-requests 5 --model llama-3.1-70b --tp 4 --speculative-tokens 2 --speculative-method draft:llama-3.1-8b --acceptance-rate 0.8 | grep -q "36.60 GiB weights"'
t mtp-without-modules 2 "llama-3.1-8b's config has no MTP module" '$SS run --num-requests 5 --speculative-tokens 1'
t kv-dtype-fp4-vllm 2 "kv_cache_dtype fp4 is not one vLLM takes" '$SS run --num-requests 5 --kv-dtype fp4'
t kv-dtype-int4-sglang 2 "kv_cache_dtype int4 is not one SGLang takes" '$SS run --num-requests 5 --engine sglang --kv-dtype int4'
t max-num-batched-tokens-below-seqs 2 "max_num_batched_tokens (1) must be greater than or equal to max_num_seqs (1024)" '$SS run --num-requests 5 --max-num-batched-tokens 1'
t block-size-7 2 "block_size 7 is not one vLLM takes (1, 8, 16, 32, 64 or 128)" '$SS run --num-requests 5 --block-size 7'
t engine-version-abc 2 "--engine-version must be a version like 0.11.0 or 1.3.0rc20, got 'abc'" '$SS run --num-requests 5 --engine-version abc'
t engine-version-empty 2 "--engine-version must be a version like 0.11.0 or 1.3.0rc20, got ''" "\$SS run --num-requests 5 --engine-version ''"
t engine-version-eval-abc 2 "got 'abc'" '$SS eval gl-ok --engine-version abc'
# KV offload (issue 28): each bad value refused with its flag named
t offload-size-zero 2 "--kv-offloading-size must be > 0, got 0" '$SS run --workload w.json --kv-offloading-size 0'
t offload-size-negative 2 "--kv-offloading-size must be > 0, got -3" '$SS run --workload w.json --kv-offloading-size -3'
t offload-size-huge 2 "--kv-offloading-size must be in (0, 1048576] GiB, got 1e+09" '$SS run --workload w.json --kv-offloading-size 1e9'
t offload-size-no-block 2 "--kv-offloading-size: 1.07e-05 GB per GPU holds no KV block" '$SS run --workload w.json --kv-offloading-size 0.00001'
t offload-backend-bad 2 "--kv-offloading-backend must be native or lmcache, got 'disk'" '$SS run --workload w.json --kv-offloading-size 4 --kv-offloading-backend disk'
t offload-backend-alone 2 "--kv-offloading-backend needs --kv-offloading-size" '$SS run --workload w.json --kv-offloading-backend lmcache'
t offload-no-prefix-caching 2 "--kv-offloading-size needs prefix caching" '$SS run --workload w.json --kv-offloading-size 4 --no-prefix-caching'
t offload-vllm-flags-on-sglang 2 "--kv-offloading-size and --kv-offloading-backend are vLLM's: give --engine vllm" '$SS run --workload w.json --engine sglang --kv-offloading-size 4'
t offload-hicache-on-vllm 2 "are SGLang's: give --engine sglang" '$SS run --workload w.json --enable-hierarchical-cache'
t offload-hicache-on-trtllm 2 "servesim models no KV offload for TensorRT-LLM" '$SS run --workload w.json --engine trtllm --enable-hierarchical-cache'
t offload-hicache-ratio-alone 2 "--hicache-ratio needs --enable-hierarchical-cache" '$SS run --workload w.json --engine sglang --hicache-ratio 3'
t offload-hicache-ratio-zero 2 "--hicache-ratio must be > 0, got 0" '$SS run --workload w.json --engine sglang --enable-hierarchical-cache --hicache-ratio 0'
t offload-hicache-ratio-nan 2 "--hicache-ratio must be a number, got 'nan'" '$SS run --workload w.json --engine sglang --enable-hierarchical-cache --hicache-ratio nan'
t offload-hicache-size-no-block 2 "--hicache-size: 1e-06 GB per GPU holds no KV block" '$SS run --workload w.json --engine sglang --enable-hierarchical-cache --hicache-size 1e-6'
t recv-interval-on-vllm 2 "--scheduler-recv-interval is SGLang's: give --engine sglang" '$SS run --workload w.json --scheduler-recv-interval 10'
t recv-interval-zero 2 "--scheduler-recv-interval must be in [1, 100000], got 0" '$SS run --workload w.json --engine sglang --scheduler-recv-interval 0'
t recv-interval-frac 2 "--scheduler-recv-interval must be an integer, got '2.5'" '$SS run --workload w.json --engine sglang --scheduler-recv-interval 2.5'
t max-prefill-on-trtllm 2 "--max-prefill-tokens is SGLang's: give --engine sglang" '$SS run --workload w.json --engine trtllm --max-prefill-tokens 4096'
t mixed-chunk-on-vllm 2 "--enable-mixed-chunk is SGLang's: give --engine sglang" '$SS run --workload w.json --enable-mixed-chunk'
t offload-radix-off 2 "--enable-hierarchical-cache needs prefix caching" '$SS run --workload w.json --engine sglang --enable-hierarchical-cache --disable-radix-cache'
# LoRA (issue 28): each bad value refused with its flag or key named
t lora-max-zero 2 "--max-loras must be in [1, 4096], got 0" '$SS run --workload wl-lora.json --enable-lora --max-loras 0'
t lora-rank-odd 2 "--max-lora-rank must be one of 1, 8, 16, 32, 64, 128, 256, 320, 512 (vLLM's choices), got 12" '$SS run --workload wl-lora.json --enable-lora --max-lora-rank 12'
t lora-cpu-below-max 2 "--max-cpu-loras (2) must be >= --max-loras (4)" '$SS run --workload wl-lora.json --enable-lora --max-loras 4 --max-cpu-loras 2'
t lora-loaded-below-batch 2 "--max-loaded-loras (2) must be >= --max-loras-per-batch (8)" '$SS run --workload wl-lora.json --engine sglang --enable-lora --max-loaded-loras 2'
t lora-max-alone 2 "--max-loras and --max-cpu-loras need --enable-lora" '$SS run --workload w.json --max-loras 2'
t lora-rank-alone 2 "--max-lora-rank needs --enable-lora" '$SS run --workload w.json --max-lora-rank 8'
t lora-workload-needs-flag 2 "the workload's requests name 8 LoRA adapters ('lora'): give --enable-lora" '$SS run --workload wl-lora.json'
t lora-sglang-flag-on-vllm 2 "--max-loras-per-batch and --max-loaded-loras are SGLang's: give --engine sglang" '$SS run --workload wl-lora.json --enable-lora --max-loras-per-batch 4'
t lora-vllm-flag-on-sglang 2 "--max-loras and --max-cpu-loras are vLLM's: give --engine vllm" '$SS run --workload wl-lora.json --engine sglang --enable-lora --max-loras 4'
t lora-on-trtllm 2 "servesim models no LoRA serving for TensorRT-LLM" '$SS run --workload wl-lora.json --engine trtllm --enable-lora'
# images (issue 28 item 6): each bad value refused with its key named
t img-no-resolution 3 "images: missing required key 'resolution' ([width, height] in pixels)" '$SS run --workload wl-img-nores.json --model qwen3-vl-30b-a3b --gpu h200'
t img-negative 3 "images: 'resolution'[0] (width) must be an integer in [1, 65536] pixels, got -5" '$SS run --workload wl-img-neg.json --model qwen3-vl-30b-a3b --gpu h200'
t img-fraction 3 "'resolution'[0] (width) must be an integer in [1, 65536] pixels, got 1024.5" '$SS run --workload wl-img-frac.json --model qwen3-vl-30b-a3b --gpu h200'
t img-three 3 "images: 'resolution' must be [width, height] in pixels" '$SS run --workload wl-img-three.json --model qwen3-vl-30b-a3b --gpu h200'
t img-repeat 3 "images: 'repeat_fraction' must be in [0, 1], got 1.5" '$SS run --workload wl-img-rep.json --model qwen3-vl-30b-a3b --gpu h200'
t img-count 3 "images: count: must be an integer in [0, 64], got 65" '$SS run --workload wl-img-count.json --model qwen3-vl-30b-a3b --gpu h200'
t img-unknown-key 3 "size" '$SS run --workload wl-img-key.json --model qwen3-vl-30b-a3b --gpu h200'
t img-text-model 2 "workload 'images.resolution': llama-3.1-8b takes no images" '$SS run --workload wl-img.json --model llama-3.1-8b'
t img-aspect 2 "4000x10 has an aspect ratio over 200" '$SS run --workload wl-img-thin.json --model qwen3-vl-30b-a3b --gpu h200'
t epd-zero-encoders 2 "--disaggregate must be XpYd (X prefill and Y decode workers, 1 to 1024 each), XeYpZd or Xe1pd" '$SS run --workload wl-img.json --model qwen3-vl-30b-a3b --gpu h200 --disaggregate 0e1p1d'
t epd-two-pd 2 "XeYpZd or Xe1pd (X encoder workers ahead of them or of the aggregated engine), got '1e2pd'" '$SS run --workload wl-img.json --model qwen3-vl-30b-a3b --gpu h200 --disaggregate 1e2pd'
t epd-no-images 2 "--disaggregate 1e...: an encoder pool needs a workload that sends images ('images')" '$SS run --workload w.json --model qwen3-vl-30b-a3b --gpu h200 --disaggregate 1e1pd'
t ops-image-bad 2 "--image must be WxH in pixels, 1 to 65536 a side, got '1024'" '$SS ops qwen3-vl-30b-a3b --image 1024'
t ops-image-text-model 2 "--image: llama-3.1-8b takes no images" '$SS ops llama-3.1-8b --image 640x480'
t ops-dtype-fp4 2 "--dtype must be bf16 or fp8 for ops, got 'fp4'" '$SS ops llama-3.1-8b --dtype fp4'
t lora-adapters-zero 3 "'adapters' must be" '$SS run --workload wl-lora0.json --enable-lora'
t lora-distribution-bad 3 "lora: 'distribution' must be uniform or zipf:S with S in (0, 100], got 'pareto'" '$SS run --workload wl-lora-bad.json --enable-lora'
t lora-trace-adapter-frac 3 "tr-adapter-frac.csv:2: 'adapter' must be an integer in [0, 1048576] (0: the base model), got 1.5" '$SS run --workload tr-adapter-frac.json --enable-lora'
t lora-trace-adapter-neg 3 "'adapter' must be an integer in [0, 1048576] (0: the base model), got -2" '$SS run --workload tr-adapter-neg.json --enable-lora'
# messages
t flag-rate-denormal 2 "--rate 4.9e-324 is below the smallest number servesim computes with (2.22507e-308)" '$SS run --rate 4.9e-324'
t sweep-rate-overflow 2 "--rate: '1e400' is above the largest number servesim computes with" '$SS sweep --rate 1,1e400'
t acceptance-rate-trailing-comma 2 "--acceptance-rate: '0.5,' ends in a comma" '$SS run --model deepseek-v3 --gpu h200 --tp 8 --speculative-tokens 2 --acceptance-rate 0.5, --num-requests 3'
t where-empty-condition 2 'an empty condition in "mode=agg,"' '$SS eval '"$root"'/eval/silicon --where mode=agg,'
t where-empty-middle 2 'an empty condition in "mode=agg,,backend=vllm"' '$SS eval '"$root"'/eval/silicon --where mode=agg,,backend=vllm'
t goodput-metric-twice 2 "--goodput: ttft given twice in 'ttft:100 ttft:200'" '$SS run --num-requests 3 --goodput "ttft:100 ttft:200"'
t flag-rate-overflow 2 "--rate 1e999 is above the largest number servesim computes with (1.79769e+308)" '$SS run --rate 1e999'
t replicas-zero 2 "--replicas must be in [1, 1024], got 0" '$SS run --workload w.json --replicas 0'
t replicas-frac 2 "--replicas must be an integer, got '1.5'" '$SS run --workload w.json --replicas 1.5'
t replicas-huge-capacity 2 "--replicas must be in [1, 1024], got 2000" '$SS capacity --slo ttft_p90_ms=500 --replicas 2000'
t router-unknown 2 "--router must be round-robin, least-loaded or kv-aware (or rr, lo, least-outstanding, kv), got 'random'" '$SS run --workload w.json --router random'
# a flag's number is the whole value: no blank before or after (strtoll and
# strtod pass over leading ones), in numbers inside a value too
t flag-jobs-leading-blank 2 "--jobs must be an integer, got ' 3'" '$SS sweep --rate 5 --num-requests 5 --jobs " 3"'
t flag-jobs-leading-tab 2 "--jobs must be an integer, got '	3'" '$SS eval exp --jobs "	3"'
t flag-rate-leading-blank 2 "--rate must be a number, got ' 5'" '$SS run --num-requests 5 --rate " 5"'
t flag-gpus-count-blank 2 "--gpus: count of h100 must be 1 to 4096, got ' 8'" '$SS search --gpus "h100: 8" --engines vllm --no-pd --slo ttft_p90_ms=500'
t flag-slo-limit-blank 2 "--slo: limit of ttft_p90_ms must be a number of ms > 0, got ' 500'" '$SS capacity --slo "ttft_p90_ms= 500"'
t flag-autoscale-blank 2 "--autoscale must be MIN:MAX replicas with 1 <= MIN <= MAX <= 1024, got '1: 2'" '$SS run --num-requests 5 --autoscale "1: 2"'
t flag-disaggregate-blank 2 "got '1p 1d'" '$SS run --num-requests 5 --disaggregate "1p 1d"'
t flag-breakdown-blank 2 "got 'decode: 8:100'" '$SS run --breakdown "decode: 8:100"'
t flag-sweep-item-blank 2 "--rate: ' 5' is not a number" '$SS sweep --rate " 5" --num-requests 5'
t flag-acceptance-blank 2 "--acceptance-rate must be a rate in [0, 1]" '$SS run --num-requests 5 --speculative-tokens 1 --acceptance-rate " 0.5"'
# --jobs: one limit for every command, the one --help names
t flag-jobs-eval-257 2 "--jobs must be in [1, 256], got 257" '$SS eval exp --jobs 257'
t flag-jobs-calibrate-1024 2 "--jobs must be in [1, 256], got 1024" '$SS calibrate exp --jobs 1024'
t flag-jobs-sweep-257 2 "--jobs must be in [1, 256], got 257" '$SS sweep --rate 5 --num-requests 5 --jobs 257'
t flag-jobs-eval-256 0 "" '$SS eval exp --jobs 256 > /dev/null'
t flag-jobs-help-names-limit 0 "" 'for c in eval calibrate search sweep; do $SS $c --help | grep -A1 -- "  --jobs N" | grep -q "1 to 256" || exit 1; done'
t flag-int-past-long 2 "--tp must be in [1, 4096], got 99999999999999999999" '$SS run --tp 99999999999999999999'
# strtoll and strtod skip leading blanks: a quoted ' 3' was taken as 3 while
# '3 ' was refused; both are refused now, as a number in any other odd form
t flag-int-leading-blank 2 "--jobs must be an integer, got ' 3'" "\$SS eval exp --jobs ' 3'"
t flag-int-leading-tab 2 "--tp must be an integer, got '	4'" "\$SS run --tp '	4'"
t flag-num-leading-blank 2 "--rate must be a number, got ' 5'" "\$SS run --rate ' 5' --num-requests 5"
t flag-num-plain-admits 0 '' '$SS run --rate 5 --tp 1 --num-requests 5 > /dev/null'
t duration-brings-no-request 2 "--duration: no request arrives within the 1e-300 s the workload lasts" '$SS run --duration 1e-300'
t workload-from-stdin 0 "" '$SS run --workload - --format json < w.json | grep -q "\"arrived\": 20"'
t eval-link-loop 3 "loop: Too many levels of symbolic links" 'ln -s loop loop && $SS eval loop; r=$?; rm loop; exit $r'
t curve-svg-fails-no-curve 1 "/dev/full: write error" 'ln -s /dev/full full && $SS capacity --slo ttft_p90_ms=1000 --curve c.csv --svg full > /dev/null; r=$?; rm full; exit $r'
# --html goes with the other outputs, all or nothing (issue 30): a page that cannot be written leaves none of them
t html-fails-capacity-no-curve 1 "/dev/full: write error" 'ln -s /dev/full full && $SS capacity --slo ttft_p90_ms=1000 --curve c.csv --html full > /dev/null; r=$?; rm full; exit $r'
t html-fails-search-no-csv 1 "/dev/full: write error" 'ln -s /dev/full full && $SS search --model llama-3.1-8b --gpus h100:1 --engine vllm --slo ttft_p90_ms=1000 --num-requests 1000 --csv s.csv --html full > /dev/null; r=$?; rm full; exit $r'
t html-fails-sweep-no-out 1 "/dev/full: write error" 'ln -s /dev/full full && $SS sweep --rate 5,10 --num-requests 50 --out o.jsonl --html full > /dev/null; r=$?; rm full; exit $r'
# audit33: a cut run JSON was read as sweep JSONL ("sweep rows:1:4: malformed
# JSON"); a bad JSONL row was placed in the rows joined, not the file's line
t report-truncated-run 3 "cut.json:3:14: malformed JSON: the text ends with 2 objects or arrays still open (a truncated file?)" 'printf "{\n  \"status\": \"ok\",\n  \"config\": {\n" > cut.json; $SS report cut.json --out o.html; r=$?; rm cut.json; exit $r'
t report-jsonl-bad-row 3 "rows.jsonl:2:10: malformed JSON" 'printf "%s\n%s\n" "{\"a\": 1}" "{\"b\": 2,,}" > rows.jsonl; $SS report rows.jsonl --out o.html; r=$?; rm rows.jsonl; exit $r'
t model-folder-no-config 2 "mdir/empty: a folder without config.json (a model folder holds the model's Hugging Face config.json)" '$SS run --model mdir/empty --num-requests 5'
t model-folder-admits 0 '' '$SS run --model mdir/Llama-local/ --num-requests 5 | grep -q "^model      Llama-local (mdir/Llama-local/config.json)"'
t model-config-folder-admits 0 '' '$SS run --config mdir/Llama-local --num-requests 5 | grep -q "^model      Llama-local "'
t report-fails-eval-no-plots 1 "/dev/full: write error" 'ln -s /dev/full full && $SS eval exp --report full --plots pl > /dev/null; r=$?; rm full; exit $r'
t report-fails-eval-no-html 1 "/dev/full: write error" 'ln -s /dev/full full && $SS eval exp --report full --html p.html > /dev/null; r=$?; rm full; exit $r'
t run-step-log-fails-no-requests 1 "/dev/full: write error" 'ln -s /dev/full full && $SS run --workload w.json --requests-out r.csv --step-log full > /dev/null; r=$?; rm full; exit $r'
t import-full-disk-no-folder 1 "write error" '(trap "" XFSZ; ulimit -f 1; exec $SS import exp -o new/exp)'
# memory does not grow with the GPU budget beyond what the simulation needs
# (issue 30, defect 9): 4,096 DP ranks in ~60 MB of address space (175 MB
# before: the prepared run's simulation kept beside the probes', 12 KB of KV
# arrays and a 24 KB completion ring a rank); not under ASan, whose shadow
# memory a bound on the address space forbids
t capacity-dp-4096-memory-bounded 0 "" 'case $($SS --version) in *sanitize=address*) exit 0 ;; esac; (ulimit -v 120000; exec $SS capacity --slo ttft_p90_ms=1000 --dp 4096 --num-requests 1000 > /dev/null)'
t config-dev-zero-bounded 3 "/dev/zero: larger than the 16777216-byte limit" '$SS run --config /dev/zero'
t workload-dev-zero-bounded 3 "/dev/zero: larger than the 67108864-byte limit" '$SS run --workload /dev/zero'
t trace-dev-zero-bounded 3 "/dev/zero:1: a line longer than 67108864 bytes" '$SS run --workload tz.json'
t message-no-doubled-command 2 "servesim run: --speculative-method ngram needs --acceptance-rate" '$SS run --speculative-tokens 2 --speculative-method ngram'
# HF config fields: checked, never run as something else
t hf-rope-scaling-string 3 "hf-rope-yes.json: 'rope_scaling' must be an object or null" '$SS run --config hf-rope-yes.json --num-requests 5'
t hf-rope-factor-negative 3 "'rope_scaling.factor' must be a positive number, got -4" '$SS run --config hf-rope-factor-neg.json --num-requests 5'
t hf-sliding-window-negative 3 "'sliding_window' must be in [0, 2147483647], got -5" '$SS run --config hf-window-neg.json --num-requests 5'
t hf-quant-method-unknown 3 "'quantization_config.quant_method' \"foo\" is not one servesim reads" '$SS run --config hf-quant-foo.json --num-requests 5'
t hf-quark-scheme-unmapped 3 "hf-quark-int4.json: 'quantization_config.global_quant_config.weight' dtype \"int4\" qscheme \"per_group\" group_size 128 is not a Quark scheme servesim maps" '$SS run --config hf-quark-int4.json --num-requests 5'
t hf-dtype-unknown 3 "hf-dtype-float128.json: 'dtype' must be a dtype transformers knows (float32, float16, bfloat16, float8_e4m3fn, float8_e5m2 or auto), got 'float128'" '$SS run --config hf-dtype-float128.json --num-requests 5'
t hf-no-max-position-embeddings 3 "hf-no-max-pos.json: no maximum context length" '$SS run --config hf-no-max-pos.json --num-requests 5'
t hf-max-position-2e63 3 "'max_position_embeddings' must be in [1, 2147483647], got 9.223372037e+18" '$SS run --config hf-max-pos-2e63.json --num-requests 5'
t hf-rope-scaling-good 0 "" '$SS run --config hf-rope-ok.json --num-requests 5 > /dev/null'
# launch lines: pasted into a shell, they run the engine on the checkpoint
# folder, whatever its name, and nothing else (vllm and python stand in)
D='d='"'sp ace;\$(touch PWNED)'"
t launch-line-vllm-quoted 0 "" "$D"'; l=$($SS search --config "$d/config.json" --gpus h100:1 --engines vllm --no-pd --slo ttft_p90_ms=500 | grep -o "vllm serve.*" | head -1); vllm() { [ "$1" = serve ] && [ "$2" = "$d" ]; }; eval "$l" && [ ! -e PWNED ]'
t launch-line-sglang-quoted 0 "" "$D"'; l=$($SS search --config "$d/config.json" --gpus h100:1 --engines sglang --no-pd --slo ttft_p90_ms=500 --format json | grep -o "python -m sglang.launch_server[^\\]*" | head -1); python() { [ "$3" = --model-path ] && [ "$4" = "$d" ]; }; eval "$l" && [ ! -e PWNED ]'
# outputs: never a file servesim reads, even unasked; never two on one file;
# standard output by name; temp files gone on every terminating signal
M='SERVESIM_DATA_DIR=$PWD/mini/data'
t out-requests-is-gpus-json 2 "is in servesim's data folder" "$M \$SS run --num-requests 5 --requests-out mini/data/gpus.json"
t out-requests-is-model-json 2 "is in servesim's data folder" "$M \$SS run --num-requests 5 --requests-out mini/data/models/llama-3.1-8b-instruct.json"
t out-requests-is-model-index 2 "is in servesim's data folder" "$M \$SS run --num-requests 5 --requests-out mini/data/models/index.json"
t out-search-csv-is-prices 2 "--csv mini/data/prices.json: is in servesim's data folder" "$M \$SS search --gpus h100:1 --engines vllm --no-pd --slo ttft_p90_ms=500 --csv mini/data/prices.json"
t out-step-log-is-default-workload 2 "is in the workloads folder" "$M \$SS run --num-requests 5 --step-log mini/workloads/default.json"
t out-curve-is-calibration 2 "is in the calibration folder" "$M \$SS capacity --slo ttft_p90_ms=500 --curve mini/calibration/tier1/h100-vllm-0.11.0-codellama-34b.json"
t out-data-via-link 2 "is in servesim's data folder" "ln -s mini/data/gpus.json g.json && $M \$SS run --num-requests 5 --requests-out g.json; r=\$?; rm g.json; exit \$r"
t out-requests-is-step-log 2 "--requests-out and --step-log name the same file" '$SS run --workload w.json --requests-out x.csv --step-log x.csv'
t out-curve-is-svg 2 "--curve and --svg name the same file" '$SS capacity --slo ttft_p90_ms=500 --curve x.csv --svg ./x.csv'
t out-search-csv-is-svg 2 "--csv and --svg name the same file" '$SS search --gpus h100:1 --engines vllm --no-pd --slo ttft_p90_ms=500 --csv y.csv --svg y.csv'
t out-two-on-stdout 2 "--requests-out and --step-log both name standard output" '$SS run --workload w.json --requests-out - --step-log /dev/stdout'
t out-requests-dev-stdout-file 0 "" '$SS run --workload w.json --requests-out /dev/stdout > o.txt 2> e.txt && [ "$(wc -l < o.txt)" = 21 ] && grep -q "^  TTFT" e.txt && rm o.txt e.txt'
t out-requests-dev-stdout-pipe 0 "" '$SS run --workload w.json --requests-out /dev/stdout 2> /dev/null | wc -l | grep -qx 21'
t out-requests-dash 0 "" '$SS run --workload w.json --requests-out - --format json 2> e.txt | head -1 | grep -q ^id, && grep -q "\"arrived\": 20" e.txt && rm e.txt'
t out-curve-dev-stdout 0 "" '$SS capacity --slo ttft_p90_ms=1000 --curve /dev/stdout > c.txt 2> e.txt && head -1 c.txt | grep -q ^servesim_version && grep -q "max rate" e.txt && rm c.txt e.txt'
t out-sweep-dev-stdout 0 "" '$SS sweep --rate 5,10 --num-requests 50 --out /dev/stdout 2> /dev/null | wc -l | grep -qx 3'
sig() { # sig NAME SIGNAL EXIT: the signal mid-run leaves no temp file
	t "out-$1-no-temp" "$3" '' "\$SS run --rate 200 --num-requests 20000000 --requests-out big.csv --step-log big.log > /dev/null 2>&1 & p=\$!; i=0; while ! ls | grep -q big.log.tmp && [ \$i -lt 100 ]; do sleep 0.1; i=\$((i+1)); done; ls | grep -q big.csv.tmp || exit 9; kill -$2 \$p; wait \$p"
}
sig sighup HUP 129; sig sigusr1 USR1 138; sig sigusr2 USR2 140; sig sigalrm ALRM 142; sig sigxcpu XCPU 152; sig sigpipe PIPE 141
sig sigvtalrm VTALRM 154; sig sigprof PROF 155; sig sigio IO 157; sig sigpwr PWR 158; sig sigrt1 35 163
t out-sigsys-no-temp 159 '' 'ulimit -c 0; $SS run --rate 200 --num-requests 20000000 --requests-out big.csv --step-log big.log > /dev/null 2>&1 & p=$!; i=0; while ! ls | grep -q big.log.tmp && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done; ls | grep -q big.csv.tmp || exit 9; kill -SYS $p; wait $p'
t out-sigquit-no-temp 124 '' 'ulimit -c 0; timeout -s QUIT 1.5 $SS run --rate 200 --num-requests 20000000 --requests-out big.csv --step-log big.log > /dev/null 2>&1'
t out-file-size-limit-no-temp 153 '' '(ulimit -f 200; exec $SS run --rate 200 --num-requests 200000 --requests-out big.csv --step-log big.log > /dev/null 2>&1)'

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
