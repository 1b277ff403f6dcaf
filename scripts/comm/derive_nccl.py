#!/usr/bin/env python3
"""Derive data/comm/nccl.csv from measured NCCL all-gather and reduce-scatter latencies.

Source: aiconfigurator's NCCL collections (nccl-tests `all_gather_perf` / `reduce_scatter_perf`, NCCL 2.29.2,
one node, bf16 "half", out-of-place time; github.com/ai-dynamo/aiconfigurator collector/collect_nccl.py at commit
095f58a51): `mfu/aic-engines/<gpu>/comm/nccl/2.29.2/nccl_perf.csv`.  The collector passes nccl-tests' size in bytes
(`-b`, the whole gathered buffer for all_gather, the whole reduced input for reduce_scatter) and records
message_size = bytes / 2 for half; this file keeps the bytes.
usage: derive_nccl.py SHARED_DATA_DIR > nccl.csv
"""
import csv, sys

shared = sys.argv[1]
print("# NCCL all_gather / reduce_scatter latencies, derived by scripts/comm/derive_nccl.py (see data/PROVENANCE.md)")
print("# bytes = the whole gathered (all_gather) or reduced (reduce_scatter) buffer, bf16; latency_us = nccl-tests'")
print("# out-of-place time on one node (aiconfigurator nccl_perf.csv, NCCL 2.29.2)")
print("gpu,op,gpus,bytes,latency_us")
for gpu in ("h100_sxm", "h200_sxm", "b200_sxm"):
    path = f"{shared}/mfu/aic-engines/{gpu}/comm/nccl/2.29.2/nccl_perf.csv"
    rows = []
    for r in csv.DictReader(open(path)):
        if r["op_name"] not in ("all_gather", "reduce_scatter") or r["nccl_dtype"] != "half":
            continue
        rows.append((r["op_name"], int(r["num_gpus"]), int(r["message_size"]) * 2, float(r["latency"]) * 1e3))
    for op, n, b, us in sorted(set(rows)):
        print(f"{gpu},{op},{n},{b},{us:.3f}")
