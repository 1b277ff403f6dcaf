/* kflow.h - kernel-level MFU: measured kernels of one layer (a "kernel flow"
 * JSON, or per-category times) mapped onto the operator graph's operators.
 *
 * Mapping (design document 000, "Mapping rules"), per kernel category:
 *   direct        categories with their own operators (mla -> attention core,
 *                 moe -> routed expert GEMMs, rmsnorm -> norms, rope,
 *                 activation -> every act_mul (routed, shared, dense),
 *                 moe_gate -> router, topk, paged_mqa -> indexer scores, ...);
 *                 quant, hadamard, mhc and mla_cache_store are direct too but
 *                 the operator graph has no operator for them: their rows are
 *                 "direct" with the category as operator and FLOPs N/A;
 *   generic GEMM  gemm_fp8, gemm_bf16, gemm: the GEMM operators no direct
 *                 category claimed.
 * Within a category each kernel gets its own operator: first by its shape
 * (input_dims/output_dims; a GEMM kernel whose n is the sum of consecutive
 * operators with the same m and k is a fused kernel, e.g. q_a+kv_a), then
 * the rest in template order when the remaining kernel and operator counts
 * agree; only otherwise is the rest's time spread over the remaining
 * operators by FLOPs share ("proportional").  Overhead: everything else
 * (allreduce, moe_align, moe_sort, mla_metadata, indexer, other, unknown
 * names): rows kept, FLOPs and MFU "N/A".
 * Kernels of categories moe and gemm_fp8 compute in fp8 even in a bf16
 * model: their MFU uses the fp8 peak (and is marked); every other kernel
 * uses the bf16 peak, also under --dtype fp8. */
#ifndef SERVESIM_KFLOW_H
#define SERVESIM_KFLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "hw/gpu.h"
#include "model/opgraph.h"

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
	char fwd_pass[24];       /* a string, or a number written as text */
	char warn[1024];         /* input warnings (unknown keys), one per line */
	struct kf_kernel *k;
	size_t nk;
	struct kf_category *cat; /* category_summary, or the --kernel-ms input */
	size_t ncat;
};

/* arg: inline JSON or @FILE (.json or .json.gz).  Wrong types and negative
 * durations are errors naming the JSON path; unknown keys are ignored with a
 * warning in kf->warn (the files come from users' own scripts). */
int kflow_parse(const char *arg, struct kernel_flow *kf, struct err *e);
/* --kernel-ms: {"category": ms, ...} (inline JSON or @FILE). */
int kflow_parse_ms(const char *arg, struct kernel_flow *kf, struct err *e);
void kflow_release(struct kernel_flow *kf);

enum kf_map { KF_DIRECT, KF_PROPORTIONAL, KF_OVERHEAD };
/* how a direct row found its operator */
enum kf_how { KF_BY_SHAPE, KF_BY_ORDER, KF_BY_SHARE, KF_NO_OP };
const char *kf_map_name(enum kf_map m);

struct kf_row {              /* one per kernel, input order */
	enum kf_map map;
	enum kf_how how;
	char op[160];            /* operator(s) it was mapped to; "" for overhead */
	double flops;            /* NAN for overhead */
	double theory_us, mfu;   /* NAN for overhead */
	bool fp8;
	char shape_in[96], shape_out[96]; /* the kernel's, else its operator's */
	bool template_shape;     /* shapes taken from the operator graph */
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
	double kernel_sum_us;    /* sum of the kernels' dur_us */
	double layer_mfu;        /* layer FLOPs / peak over total_dur_us */
	char warn[2048];         /* cross-check warnings, one per line */
};

/* Map kf onto the operators of lk.  peak: bf16 FLOP/s (every category but
 * moe and gemm_fp8); peak_fp8: fp8 FLOP/s (0 when the GPU has no fp8: fp8
 * rows then use peak); layer_peak: the model dtype's, for the layer MFU.
 * Cross-checks (category_summary against the kernels, total_dur_us against
 * the kernel sum, a layer MFU above 100 %) go to r->warn. */
int kflow_map(const struct kernel_flow *kf, const struct layer_kind *lk, double peak,
	      double peak_fp8, double layer_peak, struct kf_result *r, struct err *e);
void kflow_result_release(struct kf_result *r);

/* ops --kernel-flow / --kernel-detail / --kernel-ms: the measured kernels
 * of arg parsed (per_pass_ms: forward-pass totals by category, divided
 * over the layers) and mapped onto the layer kind of gg they measured (the
 * flow's layer_id, else layer_kind, else moe or dense): *lk, priced at g's
 * peaks (dt: the layer's).  kf and r hold the result (released on error). */
int kflow_load_layer(const char *arg, bool per_pass_ms, const char *layer_kind, const struct model_cfg *m,
		     const struct gpu_spec *g, enum dtype dt, const struct opgraph *gg, struct kernel_flow *kf,
		     struct kf_result *r, const struct layer_kind **lk, struct err *e);

#endif
