#!/usr/bin/env python3
"""Derive data/comm/deepep.csv from measured DeepEP all-to-all data.

Intra-node rows: aiconfigurator's SGLang 0.5.12 collections (one node, EP 8) at
the DeepSeek-V3 shape (hidden 7168, top-8, 256 experts): per GPU, per mode
(ll = low latency, normal with 24 SMs) and op, a least-squares line
t_us = alpha_us + bytes / (bw_GBps * 1e3) over the bandwidth-bound part
(>= 16 tokens per rank for ll, >= 256 for normal), bytes = tokens x top-k x
hidden x (1 B fp8 dispatch with a 4-byte scale per 128 elements, 2 B bf16 combine).
Inter-node rows: the DeepEP README table (H800, CX7 400 Gb/s InfiniBand per GPU):
achieved RDMA bandwidth per EP size; alpha from the low-latency kernels' latency
at 128 tokens minus the bytes term.
usage: derive_deepep.py SHARED_DATA_DIR > deepep.csv
"""
import csv, sys

shared = sys.argv[1]
H, K, E = 7168, 8, 256


def nbytes(tokens, op):
    elem = 1.0 + 4.0 / 128 if op == "dispatch" else 2.0
    return tokens * K * H * elem


def fit(pts):
    n = len(pts)
    sx = sum(x for x, _ in pts); sy = sum(y for _, y in pts)
    sxx = sum(x * x for x, _ in pts); sxy = sum(x * y for x, y in pts)
    b = (n * sxy - sx * sy) / (n * sxx - sx * sx)
    a = (sy - b * sx) / n
    return a, b


rows = []
for gpu in ("h100_sxm", "h200_sxm", "b200_sxm"):
    base = f"{shared}/mfu/aic-engines/{gpu}/comm/sglang/0.5.12"
    for mode, fname, tmin in (("ll", "wideep_deepep_ll_perf.csv", 16),
                              ("normal", "wideep_deepep_normal_perf.csv", 256)):
        recs = [r for r in csv.DictReader(open(f"{base}/{fname}"))
                if int(r["hidden_size"]) == H and int(r["num_topk"]) == K and int(r["num_experts"]) == E
                and int(r["node_num"]) == 1 and (mode == "ll" or int(r["dispatch_sms"]) == 24)]
        for op in ("dispatch", "combine"):
            col = f"{op}_avg_t_us" if mode == "ll" else f"{op}_transmit_us"
            pts = [(nbytes(int(r["num_token"]), op), float(r[col])) for r in recs
                   if int(r["num_token"]) >= tmin]
            a, b = fit(pts)
            rows.append((gpu, "intranode", mode, op, 8, round(a, 2), round(1.0 / b / 1e3, 1),
                         f"aic sglang 0.5.12 {fname} fit over {len(pts)} points"))
readme = f"{shared}/mfu/kernel_tables/deepep_h800_2025-04.csv"
for r in csv.DictReader(open(readme)):
    if r["link"] != "RDMA":
        continue
    mode = "ll" if r["kernel"] == "low_latency" else "normal"
    bw = float(r["bandwidth_GBps"])
    alpha = 0.0
    if mode == "ll":  # DeepEP README: 128 tokens per rank
        alpha = max(0.0, float(r["latency_us"]) - nbytes(128, r["op"]) / (bw * 1e3))
    rows.append(("h800", "internode", mode, r["op"], int(r["ep"]), round(alpha, 2), bw,
                 "DeepEP README (H800 CX7 400 Gb/s)"))
w = sys.stdout
w.write("# DeepEP all-to-all, derived by scripts/comm/derive_deepep.py (see data/PROVENANCE.md)\n")
w.write("# t_us = alpha_us + bytes_per_gpu / (bandwidth_GBps x 1e3); internode bandwidths were\n")
w.write("# measured on 400 Gb/s (50 GB/s) NICs: scale by the GPU's internode bandwidth / 50 GB/s\n")
w.write("gpu,scope,mode,op,ep,alpha_us,bandwidth_GBps,source\n")
for r in rows:
    w.write(",".join(str(x) for x in r) + "\n")
