#!/bin/sh
# same.sh - are two servesim binaries' outputs byte for byte the same?
#   usage: tests/bench/same.sh OLD_SERVESIM NEW_SERVESIM [OUTDIR]
# Runs both on a set of `run` cases (every engine, P/D, PP, DP, attention-DP,
# speculative decoding, closed loop, preemption-heavy, long-context, shared
# prefixes, step by step), each with its summary (json), per-request CSV and
# step log, then `eval` of the ground truth and of the TensorRT-LLM silicon
# rows, and compares every file.  Exit status 1 and the first differences
# when anything differs.  For speed work that must not move a number.
set -u
old=$1
new=$2
out=${3:-/tmp/servesim-same}
rm -rf "$out"
mkdir -p "$out/old" "$out/new"

i=0
while IFS= read -r args; do
	case "$args" in '' | '#'*) continue ;; esac
	i=$((i + 1))
	for side in old new; do
		bin=$old
		[ "$side" = new ] && bin=$new
		d="$out/$side"
		# shellcheck disable=SC2086
		"$bin" run $args --format json --requests-out "$d/$i.csv" --step-log "$d/$i.steps" \
			>"$d/$i.out" 2>"$d/$i.err"
		echo "rc=$?" >>"$d/$i.out"
	done
	echo "case $i: $args" >>"$out/cases"
done <<'EOF'
--num-requests 3000
--rate 30 --num-requests 20000 --prompt-tokens 600:300 --output-tokens 250:120 --dist lognormal
--rate 5 --num-requests 3000 --total-kv-blocks 400 --max-model-len 6400 --prompt-tokens 600:300 --output-tokens 250:120 --dist lognormal
--rate 0.5 --num-requests 60 --prompt-tokens 32768 --output-tokens 1000
--rate 12 --num-requests 4000 --model llama-2-70b --tp 4 --prompt-tokens 600:300 --output-tokens 250:120 --dist lognormal
--workload workloads/shared-prefix.json --num-requests 3000
--workload workloads/shared-prefix.json --num-requests 2000 --total-kv-blocks 900 --max-model-len 14400
--workload workloads/closed-loop.json --num-requests 2000
--engine sglang --rate 20 --num-requests 3000
--engine sglang --workload workloads/shared-prefix.json --num-requests 2000 --total-kv-blocks 900 --max-model-len 900
--engine trtllm --rate 20 --num-requests 3000
--disaggregate 1p1d --rate 15 --num-requests 2000
--pp 2 --rate 20 --num-requests 2000
--dp 2 --router rr --rate 40 --num-requests 4000
--dp 16 --rate 480 --num-requests 16000
--replicas 12 --rate 360 --num-requests 12000
--speculative-tokens 3 --speculative-method eagle --rate 10 --num-requests 2000
--model deepseek-v3 --gpu h200 --dtype fp8 --tp 8 --rate 5 --num-requests 1000
--model deepseek-v3 --gpu h200 --dtype fp8 --tp-size 8 --dp-size 8 --enable-dp-attention --rate 8 --num-requests 1000
--no-decode-segments --rate 30 --num-requests 5000 --total-kv-blocks 2000 --max-model-len 32000 --prompt-tokens 600:300 --output-tokens 250:120 --dist lognormal
--tier0-off H2,H4 --rate 10 --num-requests 2000
--tier0-off H1 --rate 10 --num-requests 2000
--long-prefill-token-threshold 256 --rate 20 --num-requests 2000 --prompt-tokens 2000 --output-tokens 100
--no-prefix-caching --rate 5 --num-requests 2000 --total-kv-blocks 600 --max-model-len 9600 --prompt-tokens 600:300 --output-tokens 250:120 --dist lognormal
--rate 3 --num-requests 300 --total-kv-blocks 2000 --max-model-len 32000 --prompt-tokens 1034 --output-tokens 1448
--seed 7 --rate 100 --num-requests 20000 --prompt-tokens 200:100 --output-tokens 60:50 --dist lognormal --max-num-seqs 64
EOF

for side in old new; do
	bin=$old
	[ "$side" = new ] && bin=$new
	d="$out/$side"
	"$bin" eval eval/ground_truth >"$d/eval_gt.out" 2>"$d/eval_gt.err"
	echo "rc=$?" >>"$d/eval_gt.out"
	"$bin" eval eval/ground_truth/inference-perf --jobs 1 >"$d/eval_ip1.out" 2>"$d/eval_ip1.err"
	echo "rc=$?" >>"$d/eval_ip1.out"
	"$bin" eval eval/silicon --where mode=agg,backend=trtllm >"$d/eval_si.out" 2>"$d/eval_si.err"
	echo "rc=$?" >>"$d/eval_si.out"
done

bad=0
for f in "$out"/old/*; do
	b=$(basename "$f")
	if ! cmp -s "$f" "$out/new/$b"; then
		echo "DIFFERS: $b"
		diff "$f" "$out/new/$b" | head -5
		bad=1
	fi
done
# a case the binaries refuse compares nothing: say so (a start-up check added
# since the case was written refuses it; give it a valid deployment)
for f in "$out"/old/*.out; do
	if ! tail -n 1 "$f" | grep -qx 'rc=0'; then
		echo "REFUSED: $(basename "$f") $(tail -n 1 "$f"): $(head -n 1 "${f%.out}.err")"
		bad=1
	fi
done
n=$(ls "$out/old" | wc -l)
if [ $bad -eq 0 ]; then
	echo "same: $n files ($i run cases, 3 evals) byte for byte"
fi
exit $bad
