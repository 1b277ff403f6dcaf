/* moetab.h - measured fused-MoE kernel tables (data/mfu/<gpu>/<collection>/
 * moe.csv.gz) and their lookup for any expert shape.
 *
 * A row times the routed experts of one MoE layer on one GPU as the engine
 * runs them: one fused/grouped kernel over `tokens` tokens entering the
 * layer, each routed to `topk` of `experts` experts of width `inter` (full
 * model sizes), sharded `moe_tp` ways within each expert and `moe_ep` ways
 * over the experts, under a routing `distribution` (balanced or power-law;
 * with a power law the measured rank is the most loaded one).  Router,
 * top-k and all-to-all are not in the time.
 *
 * Every measured curve is turned into an efficiency against the kernel's
 * own roofline (expected routed FLOPs at the dtype's peak, or the weights of
 * the experts the tokens touch plus activations at the HBM bandwidth):
 * eff(x) = t_roof / t_measured along x = log(tokens x topk / experts), the
 * routed rows per expert.  A lookup takes the curve of the nearest measured
 * shape (normalised log distance over hidden, per-GPU expert width, local
 * expert count, top-k and expert count; exact shapes have distance 0 and
 * give back the measured latency), interpolates log(eff) linearly in x
 * (held at the ends) and returns the target's roofline / eff.  A curve
 * priced on another shape or roofline (a nearest-shape pick, a GPU that
 * borrows the tables) keeps the fixed part of its latency as measured and
 * scales only the rest (moetab_time_s). */
#ifndef SERVESIM_MOETAB_H
#define SERVESIM_MOETAB_H
#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "hw/gpu.h"

/* Storage formats of the routed experts in the tables. */
enum moe_fmt { MOE_BF16, MOE_FP8, MOE_FP8_BLOCK, MOE_INT4, MOE_FP4, MOE_MXFP4, MOE__COUNT };

/* Routing imbalance.  The default (0) is the power law with exponent 1.01,
 * aiconfigurator's mildly skewed routing: real routers are not balanced
 * and the slowest (most loaded) rank sets the layer's time. */
enum moe_dist { MOE_POWER_LAW_101, MOE_BALANCED, MOE_POWER_LAW_12, MOE_DIST__COUNT };

/* The kernels a pool runs its routed experts on, as TensorRT-LLM's
 * moe_config.backend names them (tensorrt_llm/_torch/modules/fused_moe/
 * create_moe.py, get_moe_cls: TRTLLM -> TRTLLMGenFusedMoE, the trtllm-gen
 * kernels, for fp8 block scales and nvfp4; DEEPGEMM -> DeepGemmFusedMoE;
 * CUTLASS -> CutlassFusedMoE; CUTEDSL -> CuteDslFusedMoE; WIDEEP ->
 * WideEPMoE), and vLLM's: DEEPGEMM (VLLM_MOE_USE_DEEP_GEMM=1) and TRITON
 * (its fused_moe Triton kernel, VLLM_MOE_USE_DEEP_GEMM=0).
 * MOE_BACKEND_DEFAULT: not named, the collections' fastest kernel per shape
 * (cost/moe.c) and the engine's default path (engine_type.moe_dg_padded). */
enum moe_backend { MOE_BACKEND_DEFAULT, MOE_BACKEND_TRTLLM, MOE_BACKEND_DEEPGEMM, MOE_BACKEND_CUTLASS,
		   MOE_BACKEND_CUTEDSL, MOE_BACKEND_WIDEEP, MOE_BACKEND_TRITON, MOE_BACKEND__COUNT };

struct moe_shape {
	double hidden, inter;   /* full model sizes */
	double topk, experts;   /* global expert count */
	double tp, ep;          /* MoE tensor and expert parallelism */
};

struct moetab; /* opaque */

const char *moe_fmt_name(enum moe_fmt f);
const char *moe_dist_name(enum moe_dist d);
/* Parse "bf16", "fp8", "fp8_block", "int4", "fp4" (or "nvfp4"), "mxfp4"
 * (SS_EUSAGE otherwise). */
int moe_fmt_parse(const char *s, enum moe_fmt *out, struct err *e);
/* "default", "TRTLLM", "DEEPGEMM", "CUTLASS", "CUTEDSL", "WIDEEP", "TRITON". */
const char *moe_backend_name(enum moe_backend b);
/* Parse a backend name, any case ("default" too; SS_EUSAGE otherwise,
 * naming the ones taken). */
int moe_backend_parse(const char *s, enum moe_backend *out, struct err *e);
/* Parse "balanced", "power_law_1.01", "power_law_1.2" (SS_EUSAGE otherwise). */
int moe_dist_parse(const char *s, enum moe_dist *out, struct err *e);

/* Load a moe.csv.gz; latencies become efficiencies against g->table_peak and
 * g->table_hbm_bw (the GPU the tables were measured on). */
int moetab_load(const char *path, const struct gpu_spec *g, struct moetab **out, struct err *e);
/* Add the rows of distribution d to *t (created when NULL) unless they
 * are there already; what moetab_pick finds for d is what moetab_load's
 * tables give.  On error *t may hold part of d's rows. */
int moetab_load_dist(const char *path, const struct gpu_spec *g, enum moe_dist d,
		     struct moetab **t, struct err *e);
void moetab_free(struct moetab *t);

/* The peak (from peak[], indexed by enum dtype) and weight bytes per
 * parameter that a curve of format f is turned into efficiencies against:
 * fp8 formats the fp8 peak, nvfp4 the fp4 peak, the weight-only 4-bit
 * formats (int4, mxfp4) the bf16 peak, bf16 its own.  A lookup that prices
 * a curve of f on the same roofline gets an exact shape's latency back. */
void moe_fmt_rates(enum moe_fmt f, const double *peak, double *pk, double *bpp);

/* The fused routed-expert kernel's roofline on g for `tokens` tokens: the
 * larger of routed FLOPs at the dtype's peak and the bytes of the touched
 * experts' weights (bytes_per_param each) plus activations over bw. */
double moe_roofline_s(const struct moe_shape *s, double tokens, double peak, double bytes_per_param,
		      double bw);

/* A resolved lookup: the curve used for a (format, shape, distribution). */
struct moe_pick {
	const void *curve;      /* NULL: no table for that format */
	enum moe_fmt fmt;       /* format of the curve used */
	double distance;        /* 0 = the exact shape was measured */
	double fixed_s;         /* the curve's fixed part, kept on a transfer (moetab_time_s) */
	char desc[160];         /* "fp8_block 7168x2048 top8/256 tp1 ep8, power_law_1.01" */
	/* a nearest-shape pick's cap: the same model's experts measured less
	 * sharded (smaller or equal TP and EP), which one GPU of a wider split
	 * cannot be slower than; NULL when the shape is exact or none exists */
	const void *bound;
	struct moe_shape bound_s;
	char bound_desc[64];    /* "tp4 ep1" */
	/* moetab_pick_reach: where the curve's measurements stop short of
	 * the tokens asked, the curve that prices calls beyond its last
	 * point (NULL: none), from which tokens (on the curve's own shape),
	 * its fixed part and its description */
	const void *tail;
	double tail_from_tokens;
	double tail_fixed_s;
	char tail_desc[160];
};

/* Choose the curve for fmt (an fp8 request may use fp8_block curves and
 * the reverse, fp4 and mxfp4 likewise, taking the nearer shape) and shape;
 * pick->curve is NULL when the table has neither. */
void moetab_pick(const struct moetab *t, enum moe_fmt fmt, const struct moe_shape *s,
		 enum moe_dist dist, struct moe_pick *pick);
/* moetab_pick, and where the nearest curve's measurements stop short of
 * reach_tokens tokens (on its own shape), a tail: the nearest curve
 * measured as far (where none of the table's curves of that format is,
 * the farthest-measured), which moetab_time_s takes for calls beyond the
 * nearest curve's last point (in rows per expert).  A curve is held at its
 * last measured efficiency beyond it, so one the collector stopped at a
 * few tokens (vLLM 0.14.0's Marlin int4 curves at EP > 1 on H100/H200 end
 * at 1-160 tokens) would carry a bandwidth-bound efficiency to a
 * prefill-sized call, where within its range it is the nearest shape's
 * measurement.  reach_tokens <= 0: moetab_pick. */
void moetab_pick_reach(const struct moetab *t, enum moe_fmt fmt, const struct moe_shape *s,
		       enum moe_dist dist, double reach_tokens, struct moe_pick *pick);
/* Measured efficiency of the picked curve at `tokens` (tokens entering the
 * layer on this GPU, x computed with the target shape). */
double moetab_eff(const struct moe_pick *pick, const struct moe_shape *s, double tokens);
/* Seconds of the picked curve at `tokens` for shape s on the roofline at
 * peak, bytes_per_param and bw: an exact shape priced on the roofline its
 * table was normalised with gives the measured latency back (roofline /
 * moetab_eff, bit for bit); otherwise the curve's fixed part (fixed_s: its
 * table's latency floor for that format, at most 0.9 of the curve's minimum)
 * is kept as measured and the rest, roofline / (latency - fixed_s) along x,
 * is carried as an efficiency.  NAN without a curve. */
double moetab_time_s(const struct moe_pick *pick, const struct moe_shape *s, double tokens, double peak,
		     double bytes_per_param, double bw);
/* Seconds of the pick's cap at `tokens` (its measured curve on its own
 * shape, as moetab_time_s prices an exact shape, at peak, bytes_per_param
 * and bw), or INFINITY without one. */
double moetab_bound_s(const struct moe_pick *pick, double tokens, double peak, double bytes_per_param,
		      double bw);

struct sbuf;
/* The fused-MoE curves of distribution d in *t, appended to out in the
 * order moetab_load_dist adds them (moetab.c). */
void moetab_pack_dist(const struct moetab *t, enum moe_dist d, struct sbuf *out);
/* Append the curves packed by moetab_pack_dist for d to *t (created when
 * NULL) and mark d loaded; -1 (t unchanged) when buf is malformed. */
int moetab_unpack_dist(const unsigned char *buf, size_t len, enum moe_dist d, struct moetab **t);
/* The same, the curves' arrays read in place where aligned: buf must
 * outlive *t (a mapped pack the tables keep, mfu_tables.packs). */
int moetab_view_dist(const unsigned char *buf, size_t len, enum moe_dist d, struct moetab **t);
/* Whether d's rows are in t already. */
bool moetab_has_dist(const struct moetab *t, enum moe_dist d);

#endif
