/* searchrun.h - `servesim search` as one library call: the deployments of
 * a model on a GPU budget (plan/search.h enumerates and evaluates one),
 * each at its SLO capacity, summarised and ranked, with the name launch
 * lines serve and each outcome's confidence (eval/accuracy.h). */
#ifndef SERVESIM_PLAN_SEARCHRUN_H
#define SERVESIM_PLAN_SEARCHRUN_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "base/sbuf.h"
#include "engine/scenflags.h"
#include "eval/accuracy.h"
#include "hw/mfucache.h"
#include "plan/capacity.h"
#include "plan/parmap.h"
#include "plan/prices.h"
#include "plan/ranks.h"
#include "plan/search.h"
#include "workload/workload.h"

#define SEARCH_MAX_BUDGET 8

/* What to search. */
struct search_req {
	struct scenflags sf;                 /* the model and settings of every deployment */
	struct cap_cfg cc;                   /* SLOs, seeds (cc.seed set from seed or the workload's) */
	struct search_space sp;              /* engines, layouts, P/D, speculative decoding */
	char gpu_names[SEARCH_MAX_BUDGET][48];
	int gpu_count[SEARCH_MAX_BUDGET];
	size_t ngpu;
	bool engines_given;
	const char *workload, *prices;       /* NULL: workloads/default.json, data/prices.json */
	int64_t nreq, seed, seeds, jobs;     /* nreq 0: the workload's; jobs: threads per rank */
	bool seed_given;
	double target;                       /* --target-rate (0: none) */
	enum search_rank_by rank_by;
	bool want_saturation;                /* outcomes' saturation_rate is read (JSON, CSV, HTML) */
};

/* The defaults: the flags' (scenflags_defaults), the capacity search's
 * (cap_cfg_defaults), the space's (search_space_defaults), one seed, a
 * thread per online core, a budget of 8 H100. */
void search_req_defaults(struct search_req *q);
/* The search's lists, as --flag gives them (SS_EUSAGE naming flag):
 * --gpus "GPU:COUNT,..." into q's budget; "1,2,4" into v (*n values in
 * [lo, hi], at most SEARCH_MAX_LIST); --engines "vllm,sglang" (engines with
 * a launch line, each once); --dtype "bf16,fp8"; --max-num-batched-tokens
 * or --max-num-seqs (row of deployment field table t) in the row's range. */
int search_parse_gpus(const char *arg, struct search_req *q, struct err *e);
int search_parse_ints(const char *flag, const char *arg, int *v, size_t *n, int64_t lo, int64_t hi,
		      struct err *e);
int search_parse_engines(const char *flag, const char *arg, struct search_space *sp, struct err *e);
int search_parse_dtypes(const char *arg, struct search_space *sp, struct err *e);
int search_parse_limits(const struct deploy_table *t, size_t row, const char *flag, const char *arg,
			struct search_space *sp, struct err *e);
/* glibc's allocator tuned for a search's probes (mallopt; process-wide,
 * the caller's choice): see searchrun.c. */
void search_malloc_tuning(void);

/* The point callback's context: what every deployment shares.  A point
 * is a run of alike deployments (search_alike), d[grp[g]] .. d[grp[g+1]-1],
 * priced on one thread through one cost share. */
struct search_ctx {
	struct search_in in;
	const struct search_deploy *d;
	const struct search_gpu *budget;
	const size_t *grp; /* ngrp + 1 starts */
};

/* What a search found (owned; search_run_release). */
struct search_run {
	struct scenflags_ctx x[SEARCH_MAX_BUDGET * SEARCH_MAX_ENGINES];
	struct scenario base[SEARCH_MAX_BUDGET * SEARCH_MAX_ENGINES];
	size_t nx;
	struct search_gpu budget[SEARCH_MAX_BUDGET];
	struct wl_spec wl;
	struct prices prices;
	bool have_prices;
	struct mfu_cache *cache;
	struct search_deploy *dep;
	size_t ndep;
	size_t *grp, ngrp;                   /* the runs of alike deployments (search_ctx) */
	struct sbuf *bufs;                   /* per run, its outcomes in order */
	struct search_ctx ctx;
	struct search_outcome *res;          /* nres outcomes, enumeration order (rank 0 only) */
	size_t nres;
	struct search_summary S;
	bool summarized;
	const char *hf;                      /* the name launch lines serve */
	char config_dir[4096];
	struct acc_table acc;
	bool have_acc;
	struct acc_confidence *conf;         /* per outcome */
};

/* Run the search over rk's ranks (progress: parmap.h's, may be NULL).  On a rank other than 0 the outcomes stay empty (rc 0).
 * Errors: bad names or lists (SS_EUSAGE), unreadable data files. */
int search_run(struct search_req *q, struct ranks *rk, void (*progress)(void *pctx, size_t done, size_t mine),
	       void *pctx, struct search_run *r, struct err *e);
void search_run_release(struct search_run *r);

#endif
