#!/bin/sh
# jobs.sh BIN - what users wait for (issue 31): the README searches, the
# silicon eval, the README capacity, 1 M and 10 M chat requests through
# `run` (1 M also on 64 data-parallel replicas, each at chat's rate),
# each once, with its CPU seconds (user + sys), wall seconds, peak RSS
# and, where the host's perf exposes them, instructions (else "-": a VM
# without hardware counters; BENCH_CALLGRIND=1 counts them with valgrind's
# callgrind instead, about 50x slower).  Figures, not pass/fail;
# the targets are issue 31's.  Run from the repository root.
bin=${1:-./servesim}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/servesim-jobs.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

have_perf=0
if command -v perf >/dev/null 2>&1 &&
	perf stat -x, -e instructions true 2>&1 >/dev/null | grep -q '^[0-9]'; then
	have_perf=1
fi
have_time=0
[ -x /usr/bin/time ] && have_time=1
if [ "$have_perf" = 0 ] && [ "${BENCH_CALLGRIND:-0}" = 1 ] && ! command -v valgrind >/dev/null 2>&1; then
	echo "jobs.sh: BENCH_CALLGRIND=1 but valgrind is not installed: instructions not counted (-)" >&2
fi
[ "$have_time" = 1 ] || echo "jobs.sh: no /usr/bin/time: wall seconds only (CPU and peak RSS -)" >&2

# job LABEL TARGET CMD...: one run of CMD, its figures on one line; a run
# that fails prints its exit status and first message instead of figures
# (and jobs.sh then exits 1)
failed=0
job() {
	label=$1; target=$2; shift 2
	ins=-
	if [ "$have_time" = 1 ]; then
		/usr/bin/time -f '%U %S %e %M' -o "$tmp/t" "$@" >/dev/null 2>"$tmp/err"; rc=$?
	else
		s=$(date +%s%N); "$@" >/dev/null 2>"$tmp/err"; rc=$?; t=$(date +%s%N)
		echo "- - $(( (t - s) / 1000000 )).000 -" | awk '{ printf "%s %s %.3f %s\n", $1, $2, $3 / 1000, $4 }' >"$tmp/t"
	fi
	if [ "$rc" != 0 ]; then
		printf '%-44s FAILED (exit %s): %s\n' "$label" "$rc" "$(grep -v '^Command exited' "$tmp/err" | head -n 1)"
		failed=1
		return
	fi
	if [ "$have_perf" = 1 ]; then
		ins=$(perf stat -x, -e instructions -o "$tmp/p" "$@" >/dev/null 2>&1; \
			awk -F, '/instructions/ { printf "%.2f G", $1 / 1e9 }' "$tmp/p")
	elif [ "${BENCH_CALLGRIND:-0}" = 1 ] && command -v valgrind >/dev/null 2>&1; then
		valgrind --tool=callgrind --callgrind-out-file="$tmp/cg" "$@" >/dev/null 2>"$tmp/vg"
		ins=$(awk '/^summary:/ { printf "%.2f G", $2 / 1e9 }' "$tmp/cg")
	fi
	awk -v l="$label" -v g="$target" -v i="$ins" '{
		cpu = ($1 == "-") ? "-" : sprintf("%.2f", $1 + $2)
		rss = ($4 == "-") ? "-" : sprintf("%.1f", $4 / 1024)
		printf "%-44s %8s s CPU %8.2f s wall %7s MiB  instr %-9s (%s)\n", l, cpu, $3, rss, i, g
	}' "$tmp/t"
}

echo "jobs users wait for (issue 31; one run each, load average $(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo ?), $(getconf _NPROCESSORS_ONLN) cores)"
job "search DeepSeek-V3, 16 H200 (README)" "target <= 3 s CPU" \
	"$bin" search --model deepseek-v3 --gpus h200:16 --slo ttft_p90_ms=2000,itl_mean_ms=50 --target-rate 40 --top 2
job "search Llama-3.1-70B, 8 H100 (README)" "target <= 0.6 s CPU" \
	"$bin" search --model llama-3.1-70b --gpus h100:8 --engine vllm --slo ttft_p90_ms=1000,itl_mean_ms=50 \
	--target-rate 20 --top 1
job "eval eval/silicon (every visible row)" "target <= 6 s CPU" "$bin" eval eval/silicon
job "capacity (README)" "target <= 0.05 s CPU" \
	"$bin" capacity --model llama-3.1-8b --gpu h100 --slo ttft_p90_ms=500,itl_mean_ms=30
job "run 1 M chat requests" "target >= 3 M req/s wall" \
	"$bin" run --rate 30 --num-requests 1000000 --prompt-tokens 600:300 --output-tokens 250:120 --dist lognormal
job "run 1 M chat requests, DP 64" "target <= 1.3 x chat's CPU per request" \
	"$bin" run --dp 64 --rate 1920 --num-requests 1000000 --prompt-tokens 600:300 --output-tokens 250:120 \
	--dist lognormal
job "run 10 M chat requests --format json" "target <= 64 MiB" \
	"$bin" run --rate 30 --num-requests 10000000 --prompt-tokens 600:300 --output-tokens 250:120 \
	--dist lognormal --format json
exit $failed
