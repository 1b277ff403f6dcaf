/* experiment.h - ground-truth experiments in servesim's format
 * (eval/ground_truth/<suite>/<name>/experiment.json, see README) and their
 * evaluation: simulate, compare per stage, APE per metric. */
#ifndef SERVESIM_EVAL_EXPERIMENT_H
#define SERVESIM_EVAL_EXPERIMENT_H
#include <stdbool.h>
#include <stdint.h>

#include "eval/accuracy.h"
#include "cost/cost.h"
#include "hw/gpu.h"
#include "readers/readers.h"
#include "readers/measured.h"
#include "engine/scenario.h"
#include "model/model.h"
#include "workload/workload.h"
#include "sim/sim.h"

struct eval_opts {
	unsigned tier0_off;
	struct overheads ov;
	/* eval --cv: every engine host row's fitted terms times host_scale
	 * (scenario.host_scale) when host_scaled */
	bool host_scaled;
	double host_scale;
	const struct tier2 *tier2;
	struct mfu_cache *cache;   /* shared kernel tables, or NULL */
};

/* EXP_CLOSED: a closed-loop benchmark at fixed lengths (aiconfigurator's
 * silicon rows): wl is the closed loop, stages[0] the measured means, the
 * first warmup_requests requests are not measured. */
enum exp_kind { EXP_STAGES, EXP_REQUESTS, EXP_CLOSED };

struct experiment {
	char name[160], source[512], model[128], gpu[48], path[700];
	char workload_name[64];    /* optional label ("codegen"); see experiment_workload */
	char format[32];       /* servesim, inference-perf, guidellm <era>, otel */
	enum exp_kind kind;
	struct gt_requests meas;   /* EXP_REQUESTS: measured requests, replayed */
	struct wl_req *replay;     /* EXP_REQUESTS: the workload built from them */
	int tp, pp, dp, ep;
	enum dtype dtype;
	/* the KV cache's dtype when the source names it ("kv_dtype"; the
	 * engine's --kv-cache-dtype), else the engine's default for dtype
	 * (scenario_kv_auto) */
	bool kv_dtype_given;
	enum dtype kv_dtype;
	char engine_version[32];
	/* the engine knobs (deploy/fields.h) experiment.json's engine block
	 * records, by the table's keys: max_num_batched_tokens and max_num_seqs
	 * 0 for SGLang's rules (resolved by experiment_scenario); SGLang's
	 * max_prefill_tokens (0: no cap), enable_mixed_chunk,
	 * scheduler_recv_interval (0: 1) and mem_fraction_static (0: its rule) */
	struct deploy_knobs k;
	struct wl_spec wl;
	struct measured_stage stages[WL_MAX_STAGES];
	size_t nstages;
	char engine[16];           /* engine name as recorded (vllm, sglang, trtllm); "" = vllm */
	bool skippable;            /* eval skips it (counted) when its model or GPU is unknown */
	char precision[96];        /* the source's precision strings, as written */
	int64_t warmup_requests;   /* EXP_CLOSED */
	/* TensorRT-LLM's attention_dp_config enable_balance: timeout_iters,
	 * batching_wait_iters (0: not enabled) */
	int64_t adp_timeout_iters, adp_batching_wait_iters;
	/* TensorRT-LLM's batch_wait_timeout_iters, batch_wait_max_tokens_ratio
	 * (0: not set) */
	int64_t batch_wait_iters;
	double batch_wait_ratio;
	/* its client sent no warm-up requests (scenario.cold_start) */
	bool cold_start;
	bool kv_engine_auto;       /* silicon rows: the engine's default KV dtype, not the row's precision */
	/* the quantised checkpoint the row served, where its harness names one
	 * the row's model does not (silicon rows: InferenceX's DeepSeek-R1 fp4
	 * TensorRT-LLM runs, nvidia/DeepSeek-R1-0528-FP4-v2); its config is
	 * priced, the row keeps its model; "" otherwise */
	char checkpoint[128];
	/* vLLM's FlashInfer all-reduce fusion up to this many bytes, as the
	 * launch line sets it (scenario.ar_fused_bytes; 0: the engine's
	 * default for the version) */
	double ar_fused_bytes;
	int spec_tokens;           /* multi-token prediction's draft tokens per step (0: off) */
	/* P/D disaggregation (pd_prefill 0: aggregated): pd_prefill prefill
	 * workers of prefill_tp x prefill_ep (prefill_dp attention-DP ranks,
	 * 0 or 1: one engine) with their own max_num_seqs and token budget per
	 * rank, and pd_decode decode workers of tp x pp x ep with the limits
	 * above (dp: each decode worker's attention-DP ranks); eval only
	 * (import writes aggregated ones) */
	int pd_prefill, pd_decode, prefill_tp, prefill_ep, prefill_dp;
	int64_t prefill_max_num_seqs, prefill_max_num_batched_tokens;
	/* SGLang's --mem-fraction-static of the prefill workers (0: the rule;
	 * the decode workers' is k.mem_fraction_static); silicon P/D rows only
	 * (aic_pools_apply) */
	double prefill_mem_fraction_static;
	/* redundant expert slots of the decode (or only) and the prefill
	 * layout as launched (parallel.ep_redundant; 0: none); silicon rows
	 * only (aic_pools_apply) */
	int ep_redundant, prefill_ep_redundant;
	/* the routed experts' kernels the launch names (scenario.moe_backend;
	 * experiment.json's engine 'moe_backend'; silicon P/D rows: each
	 * pool's from its recipe, aic_pools_apply); DEFAULT: not named */
	enum moe_backend moe_backend, prefill_moe_backend;
	char warning[400];         /* set when a side file was missing and a default applied */
	/* a Mooncake trace workload (arrival process "mooncake"): its file as
	 * written, the requests replayed (0: all) and the speed-up of its
	 * timestamps (mooncake_slice); trace_file "" otherwise */
	char trace_file[300];
	int64_t trace_requests;
	double trace_speedup;
};

enum { EV_REQ_TTFT, EV_REQ_TPOT, EV_REQ_E2E, EV_REQ__N };

struct eval_row {
	char experiment[160];
	char model[128];
	char label[40];        /* benchmark strategy@rate for per-request data */
	char workload[64];     /* experiment_workload() */
	char gpu[48];          /* the experiment's GPU */
	char config[160];      /* engine, version, layout, dtypes, limits (experiment_config_text) */
	int stage;
	bool overloaded;
	double meas[EM__COUNT], pred[EM__COUNT], ape[EM__COUNT]; /* NAN where absent */
	/* per-request data (GuideLLM, OTel): APE of each request's TTFT, TPOT
	 * and E2E (design document 002 compares per request), their mean and
	 * variance over the benchmark's requests; NAN / 0 for stage summaries */
	double req_ape_mean[EV_REQ__N], req_ape_var[EV_REQ__N];
	int64_t nreq;
	/* the row's accuracy class (accuracy.h): the experiment's engine,
	 * model kind and GPU family, and the load of its simulated stage
	 * (running_per_rank, queue_share: metric_set's load terms) */
	struct acc_class cls;
	double running_per_rank, queue_share;
	/* the engine host row (engine_host) whose fitted terms priced it: its
	 * engine's name and its index in that engine's table; -1: none (given
	 * terms replace them).  eval --cv refits each such row on its rows */
	const char *host_engine;
	int host_row;
	/* why the row has no prediction ("" when it has one): what the
	 * simulation completed and rejected (eval_row_no_pred) */
	char no_pred[160];
};

const char *ev_metric_name(enum ev_metric m);
/* The scenario that replays x: its parallelism, engine settings, KV blocks
 * and workload, with the given overheads (client terms dropped for
 * engine-side measurements), corrections and tier-2 file. */
void experiment_scenario(const struct experiment *x, const struct model_cfg *m,
			 const struct gpu_spec *g, const struct eval_opts *o, struct scenario *sc);
int experiment_load(const char *path, struct experiment *x, struct err *e);
/* "vllm 0.11.0, tp 2 pp 1 dp 1 ep 1, bf16 / KV bf16, mnbt 8192, mns 256"
 * (P/D: "1p1d prefill tp 4 ..."): how x is replayed, for reports. */
void experiment_config_text(const struct experiment *x, char *buf, size_t n);
/* The workload label rows are grouped by: workload_name when the file gives
 * one, else a description ("shared-prefix 100+466->247", "replay ~3000->~50",
 * "prompt ~600 out ~250"). */
void experiment_workload(const struct experiment *x, char *buf, size_t n);
/* Whether path is a folder of a format servesim reads (readers.h,
 * reader_of_dir). */
bool experiment_detect(const char *dir);
/* Load any supported folder (or an experiment.json).  gpu names the GPU for
 * foreign formats that do not record it. */
int experiment_load_any(const char *path, const char *gpu, struct experiment *x, struct err *e);
/* The same, where base (may be NULL) gives model, GPU, parallelism, engine
 * settings and shared prefix to results that do not record them: a bare
 * GuideLLM results file or OTel spans file, or a folder of them without
 * exp-config.yaml.  Without base such a file is a usage error. */
int experiment_load_with(const char *path, const char *gpu, const struct experiment *base,
			 struct experiment *x, struct err *e);
/* Write x in servesim's format into dir (experiment.json, and requests.csv
 * for per-request data), atomically. */
int experiment_write(const struct experiment *x, const char *dir, struct err *e);
void experiment_release(struct experiment *x);
/* The engine knobs of a result that records none: the deployment field
 * table's defaults (block_size 16, gpu_memory_utilization 0.9, prefix
 * caching on: vLLM v1's EngineArgs), max_num_batched_tokens 8192 and the
 * request limits the caller gives (its own defaults differ on purpose:
 * see experiment.c's apply_settings and pass.c's exp_settings_base). */
void experiment_default_knobs(struct deploy_knobs *k, int64_t max_num_seqs, int64_t max_model_len);

/* A file holding many experiments: aiconfigurator's silicon CSV (one
 * closed-loop experiment per row, see src/readers/aic.c) or a serving
 * benchmark's results (vLLM bench serve JSON, SGLang bench_serving JSONL:
 * one experiment per run, see src/readers/bench.c). */
#define EXP_TABLE_FILES 8
struct exp_table {
	enum reader_id fmt;        /* RD_AIC, RD_VLLM_BENCH or RD_SGLANG_BENCH */
	struct aic_table aic;
	struct bench_runs bench;
	size_t n, total;       /* rows kept by the filter, rows in the file(s) */
	char path[700];        /* the file, or the first of a folder's */
	/* a folder of silicon CSVs: every one, in name order (the rows'
	 * aic_row.file indexes them) */
	char files[EXP_TABLE_FILES][700];
	unsigned nfiles;
	size_t pools_derived;  /* rows whose pools or MTP came from the folder's
				  inferencex_pools.csv (EXP_POOLS_FILE) */
	/* rows the filter kept that repeat an earlier row's measurement
	 * (aic_drop_duplicates): dropped, not in n */
	size_t dups;
};
/* Beside a folder's silicon CSVs: the pool sizes of rows that leave them
 * blank, by row id (readers: aic_pools_apply; eval/silicon/HARNESS.md) */
#define EXP_POOLS_FILE "inferencex_pools.csv"
/* Whether path is such a file, or a folder holding a silicon CSV; the
 * file's path (a folder's first silicon CSV by name) in file. */
bool exp_table_detect(const char *path, char *file, size_t n);
/* The pools file a table at path reads (EXP_POOLS_FILE beside its silicon
 * CSVs) in out: true when there is one.  An input outputs may not
 * overwrite, as the table itself. */
bool exp_table_pools(const char *path, char *out, size_t n);
/* Read the table at path (file or folder), keeping rows matching where
 * (NULL, or "col=v,col!=v", comma = and; silicon CSVs only). */
int exp_table_open(const char *path, const char *where, struct exp_table *t, struct err *e);
/* Row i as an experiment: 1 loaded, 0 skipped with the reason in why (a
 * deployment servesim cannot express: disagg, ...), <0 on error.  gpu and
 * base (may be NULL) give what benchmark results do not record. */
int exp_table_load(const struct exp_table *t, size_t i, const char *gpu,
		   const struct experiment *base, struct experiment *x, char *why, size_t n,
		   struct err *e);
void exp_table_release(struct exp_table *t);

/* Rows skipped, counted by reason. */
#define SKIP_MAX_REASONS 48
struct skip_tally {
	char reason[SKIP_MAX_REASONS][120];
	size_t count[SKIP_MAX_REASONS];
	size_t n, total, other; /* other: reasons past the table */
};
void skip_tally_add(struct skip_tally *s, const char *reason);
/* The most rows eval_experiment appends for x. */
size_t eval_rows_bound(const struct experiment *x);
/* msg as a reason rows share (one per kind of refusal), into out (n bytes,
 * truncated): a figure, a number after a space, becomes N ("weights need N
 * GB"), but a flag's value stays ("--ep 8 given ... (use --ep 1)"): it is
 * the setting, and the advice. */
void skip_reason_norm(const char *msg, char *out, size_t n);
/* Simulate x and append one row per measured stage to rows (capacity cap). */
int eval_experiment(const struct experiment *x, const struct model_cfg *m,
		    const struct gpu_spec *g, const struct eval_opts *o, const char *data_dir,
		    struct eval_row *rows, size_t cap, size_t *nrows, struct err *e);
/* What the rows of a closed experiment without warm-up requests (EXP_CLOSED,
 * warmup_requests 0: the silicon rows) read of its simulation: the whole
 * run's summary, the totals and the max_model_len it ran with (the words
 * of a row without a prediction).  Rows whose simulations are the same
 * (eval/simkey.h) take their figures from one (eval_experiment_from). */
struct eval_outcome {
	struct metric_set p;
	struct sim_totals t;
	int64_t max_model_len;
};
/* Simulate x as eval_experiment does; where x's rows are such rows and the
 * run succeeds, also what they read of it into *oc and *kept true (else
 * *kept false). */
int eval_experiment_keep(const struct experiment *x, const struct model_cfg *m, const struct gpu_spec *g,
			 const struct eval_opts *o, const char *data_dir, struct eval_row *rows, size_t cap,
			 size_t *nrows, struct err *e, struct eval_outcome *oc, bool *kept);
/* The rows eval_experiment would append for x, from the outcome oc of the
 * same simulation (eval_experiment_keep's, of x or of an experiment whose
 * simulation is x's: eval_simkey_of) instead of simulating. */
void eval_experiment_from(const struct experiment *x, const struct model_cfg *m, const struct gpu_spec *g,
			  const struct eval_opts *o, const struct eval_outcome *oc, struct eval_row *rows,
			  size_t cap, size_t *nrows);
/* One eval_experiment to run with others (eval_run_jobs): inputs x, m, g,
 * o; out rows[0, nrows) (allocated there, freed by the caller), rc and e
 * its status and error.  The same simulation once (eval/simkey.h): from 0
 * simulates, keeping what its rows read of it in oc (kept) when keep;
 * from 1 + i takes the outcome job i (an earlier job of the same batch,
 * its simulation the same) kept, or simulates when it kept none;
 * EVAL_FROM_OC takes oc as the caller set it. */
#define EVAL_FROM_OC ((size_t)-1)
struct eval_job {
	const struct experiment *x;
	const struct model_cfg *m;
	const struct gpu_spec *g;
	struct eval_opts o;
	struct eval_row *rows;
	size_t nrows;
	int rc;
	struct err e;
	size_t from;
	bool keep, kept;
	struct eval_outcome oc;
};
/* eval_experiment for jobs[0, n) on up to `threads` threads (taken in
 * order); each job's rows are what eval_experiment alone would append with
 * room for all of them (every experiment's simulation is a function of its
 * inputs: the same rows whatever the threads, and whichever job's
 * simulation the rows take). */
void eval_run_jobs(struct eval_job *jobs, size_t n, int threads, const char *data_dir);
/* The median of v[0, n) (sorted in place); NAN when n is 0. */
double eval_median(double *v, size_t n);
/* Median and mean APE of metric k over the rows (overloaded or not), of
 * one model and/or workload when those are not NULL. */
void eval_ape_stats(const struct eval_row *rows, size_t n, enum ev_metric k, bool overloaded,
		    const char *model, const char *workload, double *median, double *mean,
		    size_t *count);

#endif
