#!/bin/sh
# wall.sh BIN - whole-process wall time of the commands bounded by start-up
# and table loading (issue 13 targets), median of several runs after one
# warm-up, with the host's load average (a busy shared host inflates wall
# time).  Figures, not pass/fail.  Run from the repository root.
bin=${1:-./servesim}
cal="eval/ground_truth/inference-perf/*codellama* eval/ground_truth/guidellm eval/ground_truth/otel"

# measure RUNS CMD...: median wall milliseconds of RUNS runs of CMD; when the
# warm-up run fails, its exit status and first message instead (and wall.sh
# then exits 1: the flag file, since each measure runs in a subshell)
failed=$(mktemp "${TMPDIR:-/tmp}/servesim-wall.XXXXXX")
trap 'rm -f "$failed" "$failed.err"' EXIT
trap 'exit 130' INT TERM
measure() {
	runs=$1; shift
	"$@" >/dev/null 2>"$failed.err"; rc=$?
	if [ "$rc" != 0 ]; then
		printf '  FAILED (exit %s): %s' "$rc" "$(head -n 1 "$failed.err")"
		echo 1 >"$failed"
		rm -f "$failed.err"
		return
	fi
	rm -f "$failed.err"
	i=0
	while [ $i -lt "$runs" ]; do
		s=$(date +%s%N); "$@" >/dev/null 2>&1; t=$(date +%s%N)
		echo $(( (t - s) / 1000 ))
		i=$((i + 1))
	done | sort -n | sed -n "$(( (runs + 1) / 2 ))p" | awk '{ printf "%9.1f ms wall", $1 / 1000 }'
}

echo "start-up and table loading (median wall; load average $(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo ?))"
printf "run --num-requests 1, Llama-3.1-8B/H100        %s  (21 runs; target <= 5 ms wall)\n" \
	"$(measure 21 "$bin" run --num-requests 1)"
printf "run --num-requests 1, DeepSeek-V3/H200 TP8     %s  (11 runs)\n" \
	"$(measure 11 "$bin" run --model deepseek-v3 --gpu h200 --tp 8 --num-requests 1)"
printf "eval eval/ground_truth/inference-perf          %s  (5 runs; target <= 100 ms wall)\n" \
	"$(measure 5 "$bin" eval eval/ground_truth/inference-perf)"
printf "run --engine sglang, chat at 30 req/s, 20000 req %s  (3 runs; SGLang's decode batches)\n" \
	"$(measure 3 "$bin" run --engine sglang --rate 30 --num-requests 20000)"
printf "run --engine vllm, the same                      %s  (3 runs)\n" \
	"$(measure 3 "$bin" run --engine vllm --rate 30 --num-requests 20000)"
printf "eval eval/public (vLLM and SGLang runs)          %s  (3 runs)\n" \
	"$(measure 3 "$bin" eval eval/public)"
printf "capacity README example, three seeds             %s  (3 runs; 50 simulations, probes read as numbers)\n" \
	"$(measure 3 "$bin" capacity --slo ttft_p90_ms=500,itl_mean_ms=30 --seeds 3)"
# shellcheck disable=SC2086
printf "calibrate README --in-loop example, --jobs %-3s %s  (1 run; target <= 5000 ms wall)\n" \
	"$(getconf _NPROCESSORS_ONLN)" "$(measure 1 "$bin" calibrate $cal --in-loop)"
[ ! -s "$failed" ]
