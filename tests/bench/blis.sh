#!/bin/sh
# blis.sh BLIS [RUNS] - servesim side by side with BLIS (inference-sim) on the
# 8 inference-perf experiments of eval/ground_truth/inference-perf (issue 31).
# Per experiment: the requests each simulates, the CPU seconds (user + sys,
# best of RUNS paired runs, default 5) of each, their ratio, and each
# simulator's TTFT / ITL / E2E means beside the measured ones (stages
# weighted by their completed requests).
#   servesim: `servesim eval DIR --jobs 1`, what eval replays for the run.
#   BLIS:     `blis run` on the same model, GPU, TP and engine limits with an
#             inference_perf workload spec of the run's stages and shared
#             prefix (BLIS's own translation of inference-perf's config).
# BLIS reads defaults.yaml, model_configs/ and hardware_config.json from its
# source tree: BLIS_DIR (default: the binary's folder).  BLIS_FLAGS are added
# to every BLIS run; the default, "--cache-signal-delay 0 --log error", is
# BLIS's fastest setting that simulates the same thing (one instance: the
# prefix-cache signal feeds no routing decision; the outputs are byte for byte
# those of its defaults).  BLIS_FLAGS= runs its defaults.  SERVESIM (default
# ./servesim) is the binary measured.  CPU time from `perf stat -e
# task-clock` where perf works, else /usr/bin/time (10 ms steps).  Figures,
# not pass/fail, and not part of `make check` (CI has no BLIS): with no BLIS
# binary it says so and exits 0.  Building BLIS: docs/performance.md.
# Run from the repository root.
set -u
if [ $# -lt 1 ] || [ -z "$1" ]; then
	echo "blis.sh: no BLIS binary given: skipped (usage: sh tests/bench/blis.sh BLIS_BINARY [RUNS])"
	exit 0
fi
blis=$1
runs=${2:-5}
case "$blis" in /*) ;; *) blis=$(pwd)/$blis ;; esac
if [ ! -x "$blis" ]; then
	echo "blis.sh: $blis: not an executable file (expected the BLIS binary, built from inference-sim)" >&2
	exit 2
fi
case "$runs" in '' | *[!0-9]* | 0)
	echo "blis.sh: RUNS must be a positive integer, got '$runs'" >&2
	exit 2 ;;
esac
bdir=${BLIS_DIR:-$(dirname "$blis")}
if [ ! -f "$bdir/defaults.yaml" ] || [ ! -d "$bdir/model_configs" ]; then
	echo "blis.sh: $bdir: no defaults.yaml and model_configs/ (expected BLIS's source tree; set BLIS_DIR)" >&2
	exit 2
fi
bflags=${BLIS_FLAGS-"--cache-signal-delay 0 --log error"}
ss=${SERVESIM:-./servesim}
case "$ss" in /*) ;; *) ss=$(pwd)/$ss ;; esac
if [ ! -x "$ss" ]; then
	echo "blis.sh: $ss: not an executable file (build servesim with make, or set SERVESIM)" >&2
	exit 2
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/servesim-blis.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

have_perf=0
if command -v perf >/dev/null 2>&1 &&
	perf stat -x, -e task-clock true 2>&1 >/dev/null | grep -q '^[0-9.]*,msec'; then
	have_perf=1
fi

# cpu OUT CMD...: run CMD in the current folder, stdout to OUT; print its CPU ms
cpu() {
	out=$1; shift
	if [ "$have_perf" = 1 ]; then
		perf stat -x, -e task-clock -o "$tmp/perf" "$@" >"$out" 2>"$tmp/err" || return 1
		awk -F, '/task-clock/ { printf "%.3f\n", $1 }' "$tmp/perf"
	else
		/usr/bin/time -f '%U %S' -o "$tmp/time" "$@" >"$out" 2>"$tmp/err" || return 1
		awk '{ printf "%.3f\n", ($1 + $2) * 1000 }' "$tmp/time"
	fi
}

# spec EXPERIMENT.json: the BLIS workload spec of the run's workload (stdout);
# the run's settings as shell assignments in $tmp/vars
spec() {
	awk -v vars="$tmp/vars" '
	BEGIN { n = 0; total = 0 }
	function val(s) { sub(/^[^:]*: */, "", s); gsub(/[",]/, "", s); return s }
	/"measured":/ { done = 1 }
	done { next }
	/"model":/ { model = val($0) }
	/"gpu":/ { gpu = val($0) }
	/"tp":/ { tp = val($0) }
	/"max_num_batched_tokens":/ { mnbt = val($0) }
	/"max_num_seqs":/ { mns = val($0) }
	/"max_model_len":/ { mml = val($0) }
	/"block_size":/ { bs = val($0) }
	/"gpu_memory_utilization":/ { gmu = val($0) }
	/"seed":/ { seed = val($0) }
	/"rate":/ { rate[n] = val($0) }
	/"duration_s":/ { dur[n] = val($0); total += rate[n] * dur[n]; n++ }
	/"num_groups":/ { groups = val($0) }
	/"num_prompts_per_group":/ { users = val($0) }
	/"system_prompt_len":/ { sys = val($0) }
	/"question_len":/ { q = val($0) }
	/"output_len":/ { o = val($0) }
	END {
		printf "version: \"1\"\nseed: %s\ninference_perf:\n  stages:\n", seed
		for (i = 0; i < n; i++) printf "    - rate: %s\n      duration: %s\n", rate[i], dur[i]
		printf "  shared_prefix:\n    num_unique_system_prompts: %s\n", groups
		printf "    num_users_per_system_prompt: %s\n    system_prompt_len: %s\n", users, sys
		printf "    question_len: %s\n    output_len: %s\n    enable_multi_turn_chat: false\n", q, o
		printf "model=%s gpu=%s tp=%s mnbt=%s mns=%s mml=%s bs=%s gmu=%s requests=%d\n",
			model, gpu, tp, mnbt, mns, mml, bs, gmu, total > vars
	}' "$1"
}

printf "servesim %s vs BLIS (%s) on eval/ground_truth/inference-perf (best of %s paired runs, CPU = user + sys%s;\n" \
	"$("$ss" --version 2>/dev/null | head -n 1 | awk '{ print $2, $3 }')" "$blis" "$runs" \
	"$([ "$have_perf" = 1 ] && echo ", perf task-clock" || echo ", /usr/bin/time")"
printf "BLIS flags: %s; load average %s, %s cores)\n" "${bflags:-(its defaults)}" \
	"$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo ?)" "$(getconf _NPROCESSORS_ONLN)"
printf "%-44s %8s %8s %9s %9s %7s | %-29s | %-23s | %-29s\n" "" "reqs" "reqs" "CPU ms" "CPU ms" "" \
	"TTFT mean ms" "ITL mean ms" "E2E mean ms"
printf "%-44s %8s %8s %9s %9s %7s | %9s %9s %9s | %7s %7s %7s | %9s %9s %9s\n" "experiment" "servesim" "BLIS" \
	"servesim" "BLIS" "ratio" "measured" "servesim" "BLIS" "meas" "ss" "BLIS" "measured" "servesim" "BLIS"
for d in eval/ground_truth/inference-perf/*/; do
	d=${d%/}
	name=$(basename "$d")
	spec "$d/experiment.json" >"$tmp/spec.yaml"
	model='' gpu='' tp='' mnbt='' mns='' mml='' bs='' gmu='' requests=0
	# shellcheck disable=SC1091
	. "$tmp/vars"
	case "$model" in
	llama-2-7b) bmodel=meta-llama/llama-2-7b-hf ;;
	codellama-34b) bmodel=codellama/codellama-34b-instruct-hf ;;
	*) echo "$name: model $model has no BLIS name here: skipped"; continue ;;
	esac
	case "$gpu" in
	h100 | h100-sxm) bgpu=H100 ;;
	*) echo "$name: GPU $gpu has no BLIS name here: skipped"; continue ;;
	esac
	i=0
	: >"$tmp/ss.ms"
	: >"$tmp/blis.ms"
	while [ $i -lt "$runs" ]; do
		if ! cpu "$tmp/ss.csv" "$ss" eval "$d" --jobs 1 --format csv >>"$tmp/ss.ms"; then
			echo "$name: servesim failed:" >&2; cat "$tmp/err" >&2; exit 1
		fi
		# shellcheck disable=SC2086
		if ! (cd "$bdir" && cpu "$tmp/blis.out" "$blis" run --model "$bmodel" --hardware "$bgpu" --tp "$tp" \
			--max-num-batched-tokens "$mnbt" --max-num-seqs "$mns" --max-model-len "$mml" \
			--block-size-in-tokens "$bs" --gpu-memory-utilization "$gmu" \
			--workload-spec "$tmp/spec.yaml" --num-requests $((2 * requests)) $bflags) >>"$tmp/blis.ms"; then
			echo "$name: BLIS failed:" >&2; cat "$tmp/err" >&2; exit 1
		fi
		i=$((i + 1))
	done
	ssms=$(sort -n "$tmp/ss.ms" | head -n 1)
	bms=$(sort -n "$tmp/blis.ms" | head -n 1)
	# means over the stages, weighted by completed requests (throughput x duration)
	# shellcheck disable=SC2046
	set -- $(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{
		w = $c["throughput_rps_measured"]; v = $c["throughput_rps_predicted"]
		mw += w; pw += v
		mt += w * $c["ttft_mean_ms_measured"]; pt += v * $c["ttft_mean_ms_predicted"]
		mi += w * $c["itl_mean_ms_measured"]; pi += v * $c["itl_mean_ms_predicted"]
		me += w * $c["e2e_mean_ms_measured"]; pe += v * $c["e2e_mean_ms_predicted"]
	}
	END { printf "%.1f %.1f %.2f %.2f %.0f %.0f\n", mt / mw, pt / pw, mi / mw, pi / pw, me / mw, pe / pw }' \
		"$tmp/ss.csv")
	# shellcheck disable=SC2046
	set -- "$@" $(awk -F: '
		/"completed_requests"/ { gsub(/[ ,]/, "", $2); n = $2 }
		/"ttft_mean_ms"/ { gsub(/[ ,]/, "", $2); t = $2 }
		/"itl_mean_ms"/ { gsub(/[ ,]/, "", $2); i = $2 }
		/"e2e_mean_ms"/ { gsub(/[ ,]/, "", $2); e = $2 }
		END { printf "%s %.1f %.2f %.0f\n", n, t, i, e }' "$tmp/blis.out")
	printf "%-44s %8d %8d %9.2f %9.1f %6.0fx | %9.1f %9.1f %9.1f | %7.2f %7.2f %7.2f | %9.0f %9.0f %9.0f\n" \
		"$name" "$requests" "$7" "$ssms" "$bms" "$(echo "$bms $ssms" | awk '{ print $1 / $2 }')" \
		"$1" "$2" "$8" "$3" "$4" "$9" "$5" "$6" "${10}"
done
