/* gpu.h - GPU specifications from data/gpus.json. */
#ifndef SERVESIM_GPU_H
#define SERVESIM_GPU_H
#include <stddef.h>

#include "base/err.h"

/* Weight/GEMM data types.  DT_FP4 is an fp4 tensor-core format (NVFP4 or
 * MXFP4, Blackwell); DT_INT4 is int4 weight-only (W4A16: int4 weights
 * dequantised to 16 bits inside the kernel, bf16 tensor-core math). */
enum dtype { DT_BF16, DT_FP16, DT_FP8, DT_FP4, DT_INT4, DT__COUNT };

struct gpu_spec {
	char id[48];
	char name[96];
	/* architecture family (gpus.json "family", default "other"): hopper,
	 * blackwell, ampere, ada, other; the GPU part of an accuracy class
	 * (eval/accuracy.h) */
	char family[16];
	/* who makes it (gpus.json "vendor", default "nvidia"): "amd" GPUs run
	 * the engines' ROCm builds and their kernel library
	 * (cost_engine.rocm, engine/) */
	char vendor[16];
	char aliases[4][48];
	int naliases;
	double peak_flops[DT__COUNT]; /* dense FLOP/s (SI); 0 where the dtype is unsupported */
	double hbm_bytes;             /* bytes (SI GB x 1e9) */
	double mem_bytes;             /* capacity CUDA reports (mem_mib x 2^20), else hbm_bytes */
	double hbm_bw;                /* bytes/s */
	double bw_eff;                /* achievable fraction of hbm_bw (H1) */
	double link_bw;               /* intra-node interconnect, bytes/s per GPU */
	/* nodes and links (gpus.json keys gpus_per_node, nvlink_domain,
	 * internode_gbit; defaults in gpu.c): GPUs per node, GPUs one NVLink
	 * domain joins (72 on GB200/GB300 NVL72), inter-node bytes/s per GPU */
	int gpus_per_node, nvlink_domain;
	double internode_bw;
	/* the GPU's link to host memory, which KV offload moves blocks over
	 * (gpus.json host_link, host_link_gbps; default PCIe 5.0 x16, 64 GB/s):
	 * its name and bytes/s one way, per GPU (a link two GPUs share counts
	 * half) */
	char host_link[32];
	double host_link_bw;
	int sm_count;
	char tables[32];              /* data/mfu/<tables>/ or "" */
	char tables_of[48];           /* id of the GPU whose tables these are ("" = its own) */
	double table_peak[DT__COUNT]; /* peaks of the GPU the tables were measured on */
	double table_hbm_bw;          /* and its HBM bandwidth, bytes/s */
	/* borrowed tables: how much nearer its peak a compute-bound kernel runs
	 * here than on the lender (gpus.json compute_eff_scale, default 1;
	 * fitted by scripts/mfu/fit_compute_scale.py) */
	double compute_eff_scale;
	/* the fastest a dense 16-bit GEMM runs here with random operands,
	 * sustained (gpus.json gemm_tflops_sustained, FLOP/s; 0 = no cap):
	 * fitted by scripts/mfu/fit_gemm_ceiling.py on aiconfigurator's SGLang
	 * GEMM tables, which time random weights, against the vLLM ones, whose
	 * collector leaves the weights uninitialised; cost_gemm_s prices no
	 * bf16/fp16 GEMM (nor W4A16, bf16 math) faster than this */
	double gemm_max_flops;
	/* the GPU's own measured kernels (gpus.json "measured": the id of the
	 * GPU they were measured on; data/mfu/<that id>/infersim-<commit>/),
	 * loaded before the borrowed tables, which fill what they lack; "" =
	 * none.  meas_peak and meas_hbm_bw are that GPU's figures (H20-3e runs
	 * the H20's measurements at its own bandwidth). */
	char measured[48];
	double meas_peak[DT__COUNT];
	double meas_hbm_bw;
	/* board power limit (TDP/TGP/TBP) and idle draw, W (gpus.json
	 * board_power_w, idle_power_w; 0 = no published figure): the power
	 * model's (hw/power.h) */
	double board_power_w, idle_power_w;
};

struct gpu_db {
	struct gpu_spec *gpus;
	size_t n;
};

const char *dtype_name(enum dtype d);
double dtype_bytes(enum dtype d);
/* The dtype a GEMM of weight dtype d computes in: int4 weight-only runs
 * bf16 math; the others their own. */
enum dtype dtype_compute(enum dtype d);
/* Parse "bf16", "fp16", "fp8", "fp4", "int4" (SS_EUSAGE otherwise). */
int dtype_parse(const char *s, enum dtype *out, struct err *e);
/* The same as a flag table's parser (argtab.h AT_FUNC), into the enum
 * dtype at dst. */
int dtype_arg(const char *flag, const char *arg, void *dst, struct err *e);

int gpu_db_load(struct gpu_db *db, const char *path, struct err *e);
void gpu_db_release(struct gpu_db *db);
/* By id or alias, case-insensitive; unknown names give SS_EUSAGE listing ids. */
int gpu_find(const struct gpu_db *db, const char *name, const struct gpu_spec **out,
	     struct err *e);
/* The GPU a device name as drivers report it names ("NVIDIA H800",
 * "NVIDIA A100-SXM4-80GB"): the first of its words (split at blanks and
 * '-') that is a GPU id or alias; NULL when none is. */
const struct gpu_spec *gpu_from_device_name(const struct gpu_db *db, const char *device);
/* gpu_find, then the name as benchmark result files write GPUs (H200,
 * RTXPRO6000, h100_sxm) with '-' for each '_'; the error is gpu_find's for
 * the name as given. */
int gpu_find_result_name(const struct gpu_db *db, const char *name, const struct gpu_spec **out,
			 struct err *e);

#endif
