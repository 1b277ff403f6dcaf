/* scenflags.h - the model / hardware / engine / cost settings of `servesim
 * run` and the commands that simulate a scenario many times (capacity,
 * search, sweep, serve), as their flags give them (engine/scenopts.h holds the
 * option table and the parser), and the one builder of a struct scenario
 * from them.  Speculative decoding and P/D disaggregation are run's own. */
#ifndef SERVESIM_ENGINE_SCENFLAGS_H
#define SERVESIM_ENGINE_SCENFLAGS_H
#include <stdbool.h>
#include <stdint.h>

#include "deploy/catalog.h"
#include "deploy/fields.h"
#include "deploy/parflags.h"
#include "hw/moetab.h"
#include "hw/tier2.h"
#include "engine/scenario.h"
#include "readers/tier1file.h"

struct scenflags {
	const char *model, *config, *gpu, *tier0_off, *tier2, *engine_version;
	bool gpu_given;            /* --gpu was given (run's --decode-gpu names it too) */
	const struct engine_type *engine;  /* NULL: the default engine */
	struct parallel par;
	struct par_flags pf;
	enum dtype dtype, kvdtype, moe_dtype;
	const char *calibration;   /* FILE, "none", or NULL (the default) */
	bool kv_given, moe_dtype_given, allow_invalid, ov_given;
	bool force_calibration;
	struct deploy_knobs k;     /* the table's knobs (deploy/fields.h) as flags set them */
	enum moe_dist moe_dist;
	int moe_format;
	enum moe_backend moe_backend; /* --moe-backend (P/D: both pools unless --prefill-moe-backend) */
	struct overheads ov;
};

/* Loaded and resolved pieces a scenario points into (owned here). */
struct scenflags_ctx {
	struct catalog env;
	struct model_cfg *model;
	const struct gpu_spec *gpu;
	struct tier2 t2;
	struct calib_file calib;   /* applied when calib_applied */
	bool calib_applied;
	char notes[4096];
};

void scenflags_defaults(struct scenflags *f);
/* Load model and GPU, resolve the layout, fill sc (workload wl; SGLang's
 * own defaults with --engine sglang), apply the tier-1 calibration
 * (--calibration FILE, none, or the matching accepted file when no overhead
 * flag was given; a file marked rejected is not applied unless force, and
 * a note says so) and check the configuration as run does (notes collect
 * the warnings). */
int scenflags_build(struct scenflags *f, const struct wl_spec *wl, struct scenflags_ctx *x,
		    struct scenario *sc, struct err *e);
/* run's own settings: P/D disaggregation (pd_prefill prefill and pd_decode
 * decode workers; the prefill workers' layout is the decode one's with
 * prefill_tp / prefill_dp / prefill_ep in place where given, EP over the
 * worker's GPUs when the decode side has EP; prefill_gpu their GPU type) and speculative decoding
 * (spec_k tokens; method and per-position acceptance rates, else MTP at
 * the measured rates; a draft model is loaded into *draft). */
struct scenflags_run {
	int pd_prefill, pd_decode;
	int epd_encoders;       /* E/P/D: encoder workers (--disaggregate XeYpZd, Xe1pd), 0: none */
	const char *prefill_gpu;   /* the prefill workers' GPU (NULL: --gpu's) */
	int64_t prefill_tp, prefill_ep, prefill_dp;
	double handoff_ms;
	bool handoff_given;
	int64_t spec_k;
	const char *spec_method, *spec_rates;
	const char *prefill_moe_backend; /* the prefill workers' MoE backend (NULL: --moe-backend's) */
};
/* run's deployment flags taken together (before anything is loaded):
 * --model or --config, not both; the prefill workers' flags need P/D;
 * decode_gpu (--decode-gpu, the decode workers' GPU: P/D's name for
 * --gpu) not with --gpu, and set as f->gpu; the speculative method or
 * acceptance rates need the draft count (SS_EUSAGE). */
int scenflags_run_check(struct scenflags *f, const struct scenflags_run *o, const char *decode_gpu, struct err *e);
/* They onto sc (built by scenflags_build); *draft (heap, the caller frees
 * it) is set for a draft model; the checks' notes go to x->notes. */
int scenflags_run_build(const struct scenflags_run *o, bool allow_invalid, struct scenflags_ctx *x,
			struct scenario *sc, struct model_cfg **draft, struct err *e);
/* run --disaggregate XpYd, XeYpZd or Xe1pd into o's pd_prefill, pd_decode
 * and epd_encoders (1 to 1024 each); SS_EUSAGE. */
int scenflags_run_parse_pd(const char *arg, struct scenflags_run *o, struct err *e);
/* run --breakdown's step: batch requests (0: none) over all DP ranks, each
 * decoding one token after ctx cached tokens, or (prefill) a prompt of len
 * new tokens after ctx cached. */
struct bd_step {
	bool prefill;
	int64_t batch, len, ctx;
};
/* "decode:BATCH:CONTEXT" or "prefill:BATCH:LEN[:PREFIX]"; SS_EUSAGE. */
int scenflags_breakdown_parse(const char *arg, struct bd_step *b, struct err *e);
/* run --breakdown: step b priced component by component on the prepared
 * cost model (P/D: a prefill step on the prefill workers'), *nlocal of its
 * requests on one DP rank; *cm the cost model that priced it.  bd:
 * cost_breakdown_release. */
int scenflags_breakdown(const struct scenario_state *st, const struct bd_step *b, const struct cost_model **cm,
			int64_t *nlocal, struct cost_breakdown *bd, struct err *e);
/* What one engine rank of st would refuse or split of step b (run
 * --breakdown's notes): the longest request it admits (max_model_len), the
 * requests one step runs (max_num_seqs) and the KV blocks and block size of
 * its cache (P/D: a prefill step's on the prefill workers'); 0 where st
 * sets no such limit. */
struct bd_limits {
	int64_t max_model_len, max_seqs, kv_blocks, block_size;
};
void scenflags_breakdown_limits(const struct scenario_state *st, const struct bd_step *b, struct bd_limits *out);
void scenflags_ctx_release(struct scenflags_ctx *x);

#endif
