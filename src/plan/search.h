/* search.h - deployment search: the layouts servesim can simulate for a
 * model on a GPU budget (engine, TP, PP, DP, EP, weight dtype,
 * max_num_seqs, max_num_batched_tokens, MTP speculative decoding, P/D
 * splits), each pruned by the memory plan and the start-up checks or run at
 * its SLO capacity (capacity.h), then ranked by output tokens/s per GPU.
 *
 * An instance is one deployment (TP x PP x DP GPUs, or the X + Y workers of
 * a P/D split), or replicas of one behind the router (scenario.replicas).  For a dense model DP > 1 is replicas behind the router (one
 * pool); for an MoE model it is attention DP over shared MoE layers (EP off
 * or EP = TP x DP), a different engine.  The budget and --target-rate count
 * further copies of an instance. */
#ifndef SERVESIM_SEARCH_H
#define SERVESIM_SEARCH_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "plan/capacity.h"
#include "base/err.h"
#include "hw/gpu.h"
#include "plan/prices.h"
#include "engine/scenario.h"

#define SEARCH_MAX_LIST 16

/* What to enumerate; an empty list takes the default. */
#define SEARCH_MAX_ENGINES 2

/* MTP draft tokens of the "on" point: DeepSeek-V3 trains one MTP module
 * (num_nextn_predict_layers 1, arXiv 2412.19437 sec. 2.2) */
#define SEARCH_MTP_TOKENS 1
/* ... accepted at `run`'s default: the measured MTP curve (spec_default_rates) */

/* What to enumerate; an empty list takes the default. */
struct search_space {
	/* default: every engine with launch lines (vllm, sglang) */
	const struct engine_type *engine[SEARCH_MAX_ENGINES];
	size_t nengine;
	int tp[SEARCH_MAX_LIST], pp[SEARCH_MAX_LIST], dp[SEARCH_MAX_LIST];
	size_t ntp, npp, ndp;
	enum dtype dtype[SEARCH_MAX_LIST];
	size_t ndtype;
	int64_t mns[SEARCH_MAX_LIST];   /* max_num_seqs; none given: the engine's default */
	size_t nmns;
	int64_t mnbt[SEARCH_MAX_LIST];  /* none given: the engine's default (0) only */
	size_t nmnbt;
	int spec_k[SEARCH_MAX_LIST];    /* MTP draft tokens, 0 off; none given: 0 and
					 * SEARCH_MTP_TOKENS for a model with MTP modules */
	size_t nspec;
	/* replicas of each deployment (--replicas LIST, each within the
	 * budget); none given: 1, and for an MoE model also 2, 4, ... up to
	 * the budget for its aggregated layouts without DP (DP of an MoE
	 * model is attention DP; DP of a dense model is replicas already) */
	int replicas[SEARCH_MAX_LIST];
	size_t nreplicas;
	bool pd;                        /* also P/D splits */
	int pd_max_workers;             /* X + Y at most this */
};
void search_space_defaults(struct search_space *sp);

/* One GPU type of the budget. */
struct search_gpu {
	const struct gpu_spec *gpu;
	int count;                      /* most GPUs one instance may use */
	double usd_per_gpu_hour;        /* NAN: no price */
};

struct search_deploy {
	int gpu;                        /* index into the budget (a P/D split's decode workers) */
	int pgpu;                       /* the prefill workers' GPU, an index into the budget:
					 * gpu's but for a mixed P/D split (search_mixed) */
	int engine;                     /* index into search_space.engine */
	struct parallel par;
	enum dtype wdt;
	int64_t max_num_seqs;           /* 0: the engine's default */
	int64_t max_num_batched_tokens; /* 0: the engine's default */
	int spec_k;                     /* MTP draft tokens, 0: off */
	int pd_prefill, pd_decode;      /* 0: aggregated */
	int replicas;                   /* copies behind the router (1) */
	int gpus;                       /* GPUs of one instance, every replica's */
};

/* Every candidate, in a fixed order (GPU, engine, P/D last, dtype, TP, PP,
 * DP, EP, replicas, max_num_seqs, max_num_batched_tokens, MTP), then with
 * several GPU types in the budget the mixed P/D splits: X prefill workers
 * on one type and Y decode workers on another (each pair of types, both
 * ways, by decode GPU then prefill GPU; the same TP on both sides, X x TP
 * and Y x TP within each type's count).  *out heap-owned. */
void search_enumerate(const struct model_cfg *m, const struct search_gpu *budget, size_t nb,
		      const struct search_space *sp, struct search_deploy **out, size_t *n);

/* Prefill and decode workers on two GPU types? */
static inline bool search_mixed(const struct search_deploy *d)
{
	return d->pd_prefill > 0 && d->pgpu != d->gpu;
}

/* d's price per GPU-hour averaged over its GPUs (each side at its type's
 * price; NAN when either has none). */
double search_usd_per_gpu_hour(const struct search_gpu *budget, const struct search_deploy *d);

enum search_status { SEARCH_OK, SEARCH_PRUNED, SEARCH_NO_RATE };
/* Why a deployment was pruned, from the start-up message. */
enum search_prune { SEARCH_PRUNE_NONE, SEARCH_PRUNE_WEIGHTS, SEARCH_PRUNE_KV, SEARCH_PRUNE_VENDORS, SEARCH_PRUNE_OTHER,
		    SEARCH_PRUNE__COUNT };
const char *search_prune_name(enum search_prune p);

/* A plain record (copied between MPI ranks as bytes). */
struct search_outcome {
	struct search_deploy d;
	enum search_status status;
	char reason[320];               /* pruned / no rate: why */
	enum search_prune prune;
	int64_t max_num_seqs, max_num_batched_tokens; /* as resolved (SGLang: max_running_requests,
						       * chunked_prefill_size) */
	enum dtype kvdt;
	int64_t kv_blocks;
	double max_rate;                /* req/s under the SLO */
	double saturation_rate;
	int binding;                    /* capacity fail code (cap_result.binding) */
	char binding_name[32];
	size_t probes;
	/* at max_rate (first seed): */
	double out_tok_s, tok_s_gpu, tok_s_user, ttft_p90_ms, itl_mean_ms, e2e_p90_ms;
	double running_per_rank, queue_share; /* its load terms (metric_set): its accuracy class */
	double usd_per_mtok;            /* NAN without a price */
	/* energy at max_rate (sim.h metric_set, hw/power.h): joules per output
	 * token and output tokens/s per watt of the instance's GPUs; NAN
	 * without a power figure for the GPU */
	double j_per_tok, tok_s_per_w;
};

struct search_in {
	const struct scenario *base;    /* per budget GPU and engine (gpu * nengine + engine):
					 * model, engine, limits, overheads */
	size_t nengine;
	const char *data_dir;
	const struct wl_spec *wl;
	const struct cap_cfg *cc;
	bool kv_follows_dtype;          /* no --kv-dtype: the engine's default for each dtype (scenario_kv_auto) */
	bool allow_invalid;
	/* the caller reads search_outcome.saturation_rate (JSON, CSV, HTML);
	 * false: it is left NAN and its search not run */
	bool want_saturation;
};

/* Deployments a and b priced by one cost model (the same inputs to
 * cost_init): they differ in MTP's draft tokens at most.  search_enumerate
 * puts such deployments side by side (MTP its innermost loop). */
bool search_alike(const struct search_deploy *a, const struct search_deploy *b);

/* Prune or run one deployment (usd_per_gpu_hour: search_usd_per_gpu_hour's),
 * its cost model through share (NULL: its own; search_alike says which
 * deployments gain by one).  Pruning is a result, not an error; a negative
 * status is a runtime failure. */
int search_evaluate(const struct search_in *in, const struct search_deploy *d, double usd_per_gpu_hour,
		    struct cost_share *share, struct search_outcome *out, struct err *e);

/* The capacity search of one prepared deployment as search ranks it: a
 * coarse pass (a quarter of the requests, at least 250, to
 * SEARCH_COARSE_TOL, from 8 x cc->start; only with 500 requests or more)
 * finds where the fine pass (cc on the whole workload, its bracket stepping
 * by SEARCH_FINE_FACTOR from there, failing probes stopped once decided,
 * the probes' energy metered, the saturation search only with
 * want_saturation) starts.  The simulations of both are added to *probes;
 * res as cap_search's (cap_result_release).  Why these two: search.c. */
#define SEARCH_COARSE_TOL 0.1
#define SEARCH_FINE_FACTOR 1.08
int search_capacity(const struct scenario_state *st, const struct wl_spec *wl, const struct cap_cfg *cc,
		    bool want_saturation, struct cap_result *res, size_t *probes, struct err *e);

/* Without a --replicas list, replicas of a deployment whose single copy
 * does not start are pruned for the same reason (each replica passes the
 * same checks), which the single copy's outcome already says: those
 * outcomes are dropped (the rest keep their order); the count left. */
size_t search_drop_pruned_copies(struct search_outcome *o, size_t n, const struct search_space *sp);
/* What search ranks by: output tokens/s per GPU (most first), or joules
 * per output token (fewest first; those without an energy figure after
 * the others, by tokens/s per GPU). */
enum search_rank_by { SEARCH_RANK_THROUGHPUT, SEARCH_RANK_ENERGY };
/* Parse "throughput" or "energy" (SS_EUSAGE naming --rank otherwise). */
int search_rank_parse(const char *s, enum search_rank_by *by, struct err *e);
/* Indices of the outcomes: OK ones by `by` (ties: tokens/s/GPU, fewer
 * GPUs, then enumeration order), then the others in enumeration order. */
void search_rank(const struct search_outcome *o, size_t n, enum search_rank_by by, size_t *order);
/* GPUs needed for a target rate: replicas of the instance. */
int64_t search_gpus_for_rate(const struct search_outcome *o, double target_rps);

/* Each budget GPU's price in p (NAN where p has none).  A key of p that is
 * not a GPU of db: SS_EDATA naming p's file and the key. */
int search_price_budget(const struct prices *p, const struct gpu_db *db, struct search_gpu *budget, size_t nb,
			struct err *e);

/* The outcomes taken together. */
struct search_summary {
	size_t nok, npruned, nnorate;   /* by status */
	size_t pruned_by[SEARCH_PRUNE__COUNT];
	size_t runs;                    /* simulations, all deployments */
	size_t *order;                  /* search_rank's; heap-owned */
	enum search_rank_by rank_by;    /* what order ranks by */
	bool *front;                    /* per outcome: on the Pareto front of tokens/s per user
					 * against tokens/s per GPU (OK ones); heap-owned */
	int best_target;                /* with a target rate: the outcome serving it on the
					 * fewest GPUs, the cheapest per hour among those; -1 */
};
/* target_rps 0: none.  Release with search_summary_release. */
void search_summarize(const struct search_outcome *r, size_t n, const struct search_gpu *budget,
		      double target_rps, enum search_rank_by by, struct search_summary *s);
void search_summary_release(struct search_summary *s);

#endif
