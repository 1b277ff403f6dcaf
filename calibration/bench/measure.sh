#!/bin/sh
# measure.sh GPU_ID PEAK_TBPS OUTDIR - every tier-2 measurement of one GPU in one go:
# builds the programs (make bench-gpu), records the GPU's identity and clocks, runs `bw` at
# the default 64 KiB KV block (writing OUTDIR/GPU_ID.json, the tier-2 file) and at other block
# sizes, and the full `gemm` sweep launched back to back (OUTDIR/gemm.csv.gz) and in CUDA graphs
# (OUTDIR/gemm-graphs.csv.gz).  About three minutes on an H100 or H200.
# Example: sh calibration/bench/measure.sh h200-sxm 4.8 /tmp/t2
set -e
[ $# -eq 3 ] || { echo "usage: measure.sh GPU_ID PEAK_TBPS OUTDIR" >&2; exit 2; }
gpu=$1 peak=$2 out=$3
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem,power.limit \
	--format=csv >"$out/gpu.txt"
make --no-print-directory bench-gpu >"$out/build.txt" 2>&1
./build-gpu/bw --peak-tbps "$peak" --gpu "$gpu" -o "$out/$gpu.json" >"$out/bw.txt"
for b in 4096 16384 32768 131072 262144; do
	./build-gpu/bw --block-bytes "$b" | grep -v '^sequential\|^mixed' >>"$out/bw.txt"
done
s=$(date +%s)
./build-gpu/gemm >"$out/gemm.csv"
echo "gemm sweep: $(( $(date +%s) - s )) s, $(grep -c '^[bf]' "$out/gemm.csv") shapes" >>"$out/bw.txt"
s=$(date +%s)
./build-gpu/gemm --graphs >"$out/gemm-graphs.csv"
echo "gemm sweep in CUDA graphs: $(( $(date +%s) - s )) s" >>"$out/bw.txt"
gzip -9f "$out/gemm.csv" "$out/gemm-graphs.csv"
