/* kflow.h - kernel-level MFU: measured kernels of one layer (a "kernel flow"
 * JSON, or per-category times) mapped onto the operator graph's operators.
 *
 * Mapping, per kernel category:
 *   direct        categories with their own operators (mla -> attention core,
 *                 moe -> routed experts, rmsnorm -> norms, rope, activation,
 *                 moe_gate -> router, topk, paged_mqa -> indexer scores, ...):
 *                 1:1 in order when the kernel and operator counts agree,
 *                 else the category's time spread by FLOPs share;
 *   proportional  generic GEMM categories (gemm_fp8, gemm_bf16, gemm): time
 *                 spread over the GEMM operators no direct category claimed,
 *                 by FLOPs share;
 *   overhead      everything else (allreduce, moe_align, moe_sort,
 *                 mla_metadata, indexer, other, unknown names, and direct
 *                 categories whose operator the graph does not model): rows
 *                 kept, FLOPs and MFU "N/A".
 * Kernels of categories moe and gemm_fp8 compute in fp8 even in a bf16
 * model: their MFU uses the fp8 peak (and is marked). */
#ifndef SERVESIM_KFLOW_H
#define SERVESIM_KFLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "servesim/err.h"
#include "servesim/opgraph.h"

struct kf_kernel {
	char name[128], category[32], half[8];
	char shape_in[96], shape_out[96];
	double dur_us, ts;
};

struct kf_category {
	char name[32];
	double dur_us;
	int64_t count;
};

struct kernel_flow {
	int64_t layer_id, num_layers, num_kernels; /* -1 when absent (--kernel-ms) */
	double wall_us, total_dur_us, compress_ratio;
	char fwd_pass[24];
	struct kf_kernel *k;
	size_t nk;
	struct kf_category *cat; /* category_summary, or the --kernel-ms input */
	size_t ncat;
};

/* arg: inline JSON or @FILE (.json or .json.gz).  Strict: unknown keys,
 * wrong types and negative durations are errors naming the JSON path. */
int kflow_parse(const char *arg, struct kernel_flow *kf, struct err *e);
/* --kernel-ms: {"category": ms, ...} (inline JSON or @FILE). */
int kflow_parse_ms(const char *arg, struct kernel_flow *kf, struct err *e);
void kflow_release(struct kernel_flow *kf);

enum kf_map { KF_DIRECT, KF_PROPORTIONAL, KF_OVERHEAD };
const char *kf_map_name(enum kf_map m);

struct kf_row {              /* one per kernel, input order */
	enum kf_map map;
	char op[160];            /* operator(s) it was mapped to; "" for overhead */
	double flops;            /* NAN for overhead */
	double theory_us, mfu;   /* NAN for overhead */
	bool fp8;
};

struct kf_op {               /* one per operator of the layer kind */
	const struct op *op;
	enum kf_map map;
	double time_us;          /* measured time attributed to it; NAN when none */
	double theory_us, mfu;   /* NAN when no time */
	bool fp8;
};

struct kf_result {
	struct kf_row *rows;     /* nk rows */
	struct kf_op *ops;       /* lk->nops entries */
	size_t nrows, nops;
	double overhead_us, mapped_us;
	char unknown[256];       /* unknown category names, comma separated */
	char unmodelled[256];    /* direct categories with no operator here */
	char groups[1024];       /* "cat: op, op; cat: ..." of time spread by FLOPs */
};

/* Map kf onto the operators of lk.  peak / peak_fp8: FLOP/s of the model's
 * dtype and of fp8 (0 when the GPU has no fp8: fp8 rows then use peak). */
int kflow_map(const struct kernel_flow *kf, const struct layer_kind *lk, double peak,
	      double peak_fp8, struct kf_result *r, struct err *e);
void kflow_result_release(struct kf_result *r);

#endif
