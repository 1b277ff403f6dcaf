#!/bin/sh
# sweep and search on threads and MPI ranks give the same bytes: --jobs 1
# and --jobs 2 of the default build, and `mpirun -np 2` of the MPI build
# (build-mpi/servesim).  Also: the default build refuses to run under a
# several-process mpirun.  usage: run.sh SERVESIM SERVESIM_MPI
bin=$1; mbin=$2
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
pass=0; fail=0
# Open MPI refuses root without these (CI containers run as root)
MPIRUN="mpirun --allow-run-as-root --oversubscribe -np 2"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
check() { # name, command...
	name=$1; shift
	if "$@"; then echo "ok $name"; pass=$((pass + 1)); else echo "FAIL $name"; fail=$((fail + 1)); fi
}
same() { cmp -s "$1" "$2" || { diff "$1" "$2" | head -5; return 1; }; }

SW="sweep --tp 1,2 --max-num-seqs 64,256 --rate 10:30:10 --num-requests 200"
"$bin" $SW --jobs 1 > "$out/sw1.csv" 2>/dev/null
"$bin" $SW --jobs 2 > "$out/sw2.csv" 2>/dev/null
$MPIRUN "$mbin" $SW --jobs 1 > "$out/swm.csv" 2>"$out/swm.err"
check "sweep rows" test "$(wc -l < "$out/sw1.csv")" -eq 13
check "sweep --jobs 2 = --jobs 1" same "$out/sw1.csv" "$out/sw2.csv"
check "sweep mpirun -np 2 = --jobs 1" same "$out/sw1.csv" "$out/swm.csv"
"$bin" $SW --format jsonl --jobs 1 > "$out/sw1.jsonl" 2>/dev/null
$MPIRUN "$mbin" $SW --format jsonl --jobs 2 > "$out/swm.jsonl" 2>/dev/null
check "sweep jsonl mpirun -np 2 --jobs 2 = --jobs 1" same "$out/sw1.jsonl" "$out/swm.jsonl"

SE="search --model llama-3.1-8b --gpus h100:2 --slo ttft_p90_ms=500,itl_mean_ms=30 --num-requests 1000 --target-rate 50"
"$bin" $SE --jobs 1 --csv "$out/se1.csv" > "$out/se1.txt" 2>/dev/null
"$bin" $SE --jobs 2 --csv "$out/se2.csv" > "$out/se2.txt" 2>/dev/null
$MPIRUN "$mbin" $SE --jobs 1 --csv "$out/sem.csv" > "$out/sem.txt" 2>/dev/null
check "search --jobs 2 = --jobs 1" same "$out/se1.txt" "$out/se2.txt"
check "search csv --jobs 2 = --jobs 1" same "$out/se1.csv" "$out/se2.csv"
check "search mpirun -np 2 = --jobs 1" same "$out/se1.txt" "$out/sem.txt"
check "search csv mpirun -np 2 = --jobs 1" same "$out/se1.csv" "$out/sem.csv"

$MPIRUN "$bin" $SW > "$out/nompi.out" 2>"$out/nompi.err"; rc=$?
check "default build refuses mpirun -np 2" test $rc -ne 0
check "and says how to build with MPI" grep -q "make mpi" "$out/nompi.err"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
