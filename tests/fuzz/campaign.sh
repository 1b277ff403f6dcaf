#!/bin/sh
# campaign.sh - a long fuzz campaign that shares the machine: every fuzzer in
# turn, CHUNK runs at a time, at the lowest CPU priority, until each has TARGET
# runs or the DEADLINE (epoch seconds) passes.  Same options as `make fuzz`
# (corpus build-fuzz/corpus-NAME, seeds tests/fuzz/corpus/NAME); the runs
# accumulate in the corpus, the counts in build-fuzz/campaign.log.  A fuzzer
# that reports anything (sanitizer, crash, timeout) is dropped from later
# rounds and its log kept as build-fuzz/NAME.fail.log.
# Usage: tests/fuzz/campaign.sh DEADLINE [TARGET [CHUNK [FUZZER...]]]
# (build the fuzzers first: make build-fuzz/fuzz_json ... or make fuzz FUZZ_RUNS=1)
# Environment: NICE (default 19, the priority the fuzzers run at) and
# FUZZ_EXTRA (further libFuzzer options, e.g. -entropic=0), FUZZ_DIR (the build
# folder of the fuzzers, their corpora and logs; default build-fuzz, the long
# campaign's build-fuzz-long: make fuzz-long-build).
set -u
cd "$(dirname "$0")/../.."
nice=${NICE:-19}
fuzz_extra=${FUZZ_EXTRA:-}
fz=${FUZZ_DIR:-build-fuzz}
deadline=$1
target=${2:-10000000}
chunk=${3:-1000000}
shift 3 2>/dev/null || shift $#
list=${*:-fuzz_aic fuzz_bench fuzz_requests fuzz_guidellm fuzz_json fuzz_model fuzz_workload fuzz_csv fuzz_kflow fuzz_trace fuzz_prices fuzz_mfupack}
log=$fz/campaign.log
mkdir -p $fz/artifacts
for f in $list; do [ -f $fz/$f.runs ] || echo 0 > $fz/$f.runs; done
while :; do
	progress=0
	for f in $list; do
		done_runs=$(cat $fz/$f.runs)
		[ -f $fz/$f.fail.log ] && continue
		[ "$done_runs" -ge "$target" ] && continue
		left=$((deadline - $(date +%s)))
		[ "$left" -le 30 ] && { echo "$(date -u +%T) deadline" >> $log; exit 0; }
		n=$((target - done_runs)); [ "$n" -gt "$chunk" ] && n=$chunk
		mkdir -p $fz/corpus-$f
		len=4096 extra=""
		[ $f = fuzz_sim ] && len=256 extra=-malloc_limit_mb=8192 # as make fuzz
		UBSAN_OPTIONS=print_stacktrace=1 nice -n $nice ./$fz/$f -runs=$n -max_len=$len $extra $fuzz_extra \
			-timeout=60 -max_total_time=$left -print_final_stats=1 \
			-artifact_prefix=$fz/artifacts/$f- \
			$fz/corpus-$f tests/fuzz/corpus/$f > $fz/$f.log 2>&1
		rc=$?
		ran=$(sed -n 's/^stat::number_of_executed_units: *//p' $fz/$f.log)
		ran=${ran:-0}
		echo $((done_runs + ran)) > $fz/$f.runs
		echo "$(date -u +%T) $f +$ran = $((done_runs + ran)) runs, exit $rc," \
			"$(sed -n 's/^stat::average_exec_per_sec: *//p' $fz/$f.log) exec/s" >> $log
		if [ $rc -ne 0 ] || grep -qE 'runtime error|ERROR:' $fz/$f.log; then
			cp $fz/$f.log $fz/$f.fail.log
			echo "$(date -u +%T) $f FAILED ($fz/$f.fail.log)" >> $log
		fi
		progress=1
	done
	[ $progress -eq 0 ] && { echo "$(date -u +%T) all done" >> $log; exit 0; }
done
