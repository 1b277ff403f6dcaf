/* measured.h - measured runs read from benchmark outputs (GuideLLM results
 * of every schema era, vLLM OpenTelemetry spans and engine stats, vcr
 * traces, inference-perf folders, vLLM/SGLang bench results, aiconfigurator
 * silicon CSVs), in neutral forms: what the simulator needs to replay them
 * and what it is compared with.  Each format's reader is its file in
 * src/readers/, which readers/readers.h tells apart.  Readers never keep
 * prompt or output text. */
#ifndef SERVESIM_MEASURED_H
#define SERVESIM_MEASURED_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

enum ev_metric { EM_TTFT_MEAN, EM_TTFT_P90, EM_ITL_MEAN, EM_E2E_MEAN, EM_E2E_P90, EM_THROUGHPUT,
		 EM__COUNT };

/* Per-stage measured summaries (inference-perf). */
struct measured_stage {
	int index;
	double rate, duration_s;
	int64_t completed;
	double v[EM__COUNT];   /* measured values, NAN where absent */
	double itl_reported_ms; /* as the tool reported it (see infperf_read) */
};

struct gt_request {
	double arrival_s;          /* seconds from the first request of the file */
	int64_t prompt_tokens, output_tokens;
	double ttft_ms, e2e_ms;    /* NAN where absent */
	int stage;                 /* benchmark (GuideLLM) index; 0 otherwise */
};

#define GT_MAX_BENCH 64

struct gt_bench {
	char strategy[24];         /* synchronous, concurrent, throughput, constant, poisson, ... */
	double rate;               /* requests/s, or concurrency; 0 when none */
	double start_s, end_s;     /* relative, from the first and last request */
	int64_t completed, errored, incomplete;
};

struct gt_requests {
	struct gt_request *r;
	size_t n, cap;
	struct gt_bench b[GT_MAX_BENCH];
	size_t nb;
	char era[16];              /* "0.1", "0.2-0.3", "0.4-0.6", "0.7+", "otel" */
	bool server_side;          /* engine-side timings (OTel), no client terms */
	double t0;                 /* absolute time of the first request */
};

void gt_requests_release(struct gt_requests *g);
/* GuideLLM results (.json, .json.gz, .yaml), streamed in bounded memory. */
int guidellm_read(const char *path, struct gt_requests *g, struct err *e);
/* The same over a buffer (fuzzing, tests); name labels messages. */
int guidellm_read_mem(const char *buf, size_t len, const char *name, struct gt_requests *g,
		      struct err *e);
struct wl_spec;
/* GuideLLM reports with aggregate metrics only (src/readers/guidellm_v2.c):
 * the benchmarks as back-to-back stages of wl, measured in stages.
 * Returns 1 (nothing set, no message) when path is not such a report. */
int guidellm_read_aggregates(const char *path, struct wl_spec *wl, struct measured_stage *stages,
			     size_t *nstages, struct err *e);
/* The same over a parsed report (fuzzing, tests). */
struct json;
int guidellm_aggregates_json(const struct json *root, const char *name, struct wl_spec *wl,
			     struct measured_stage *stages, size_t *nstages, struct err *e);
/* vLLM OpenTelemetry spans, one JSON document per line (.json or .json.gz). */
int otel_read(const char *path, struct gt_requests *g, struct err *e);
struct wl_spec;
/* An inference-perf result folder (exp-config.yaml, results/config.yaml,
 * results/stage_N_lifecycle_metrics.json): the workload that actually ran
 * (the resolved results/config.yaml) and the measured stages.  Inference-perf
 * <= 0.2 records two timestamps per streamed event, so its ITL is about half
 * the truth: the measured ITL is taken as (E2E mean - TTFT mean)/(output - 1)
 * and the reported one kept in itl_reported_ms. */
int infperf_read(const char *dir, struct wl_spec *wl, struct measured_stage *stages,
		 size_t *nstages, struct err *e);
/* Mean / percentile of a measured metric over one stage (-1: all). */
double gt_stat(const struct gt_requests *g, int stage, int which /* 0 ttft, 1 e2e, 2 itl */,
	       double pct /* <0: mean */);

/* Settings a results file records (0 / "" where it does not). */
struct gt_settings {
	char model[128], gpu[48], engine[16], version[32], dtype[16];
	int tp, dp;
	int64_t max_num_seqs, max_num_batched_tokens, max_model_len, block_size;
};

/* Every reader fills its records through gt_request_set (src/readers/measured.c),
 * which checks each value before converting it: start (an absolute time, s)
 * in [0, GT_MAX_START_S]; prompt and output token counts integers in [1,
 * WL_MAX_TOKENS]; E2E in [0, GT_MAX_MS] ms; TTFT (NAN: absent) in [0, E2E].
 * f names the reader's fields, ctx the record ("FILE:LINE"); SS_EDATA
 * naming both, the value and the range. */
#define GT_MAX_START_S 1e11 /* s: the Unix epoch reaches it in the year 5138 */
#define GT_MAX_MS 1e12      /* 31.7 years, the longest latency taken as measured */
struct gt_fields {
	const char *start, *prompt, *output, *ttft, *e2e;
};
int gt_request_set(struct gt_request *r, const char *ctx, const struct gt_fields *f, double start_s,
		   double prompt, double output, double ttft_ms, double e2e_ms, struct err *e);
/* Arrivals relative to the first (g->t0): SS_EDATA naming the field start
 * when they span more than a simulation may (WL_MAX_TIME_S). */
int gt_requests_relative(struct gt_requests *g, const char *name, const char *start, struct err *e);
/* gt_requests_relative, then sort by arrival, one benchmark over all. */
int gt_requests_finish(struct gt_requests *g, const char *name, const char *start, const char *strategy,
		       double rate, const char *era, bool server_side, struct err *e);

/* The end of a reader of one request per line (vcr, vLLM engine stats,
 * OpenTelemetry spans) whose status so far is rc: no request at all is
 * SS_EDATA "NAME: none"; ids, when given, are checked (two lines sharing an
 * idkey fail) and released; then gt_requests_finish as one "replay"
 * benchmark of server-side timings, start naming its clock.  g is released
 * on failure. */
struct gt_ids;
int gt_replay_finish(struct gt_requests *g, int rc, struct gt_ids *ids, const char *idkey, const char *name,
		     const char *none, const char *start, const char *era, struct err *e);

/* Request ids of a file, each to be counted once: gt_ids_check sorts them
 * and fails (SS_EDATA) naming two records (rec_name N) that share one. */
struct gt_id {
	char *id;
	size_t rec;
};
struct gt_ids {
	struct gt_id *v;
	size_t n, cap;
};
void gt_ids_add(struct gt_ids *ids, const char *id, size_t rec);
int gt_ids_check(struct gt_ids *ids, const char *name, const char *key, const char *rec_name, struct err *e);
void gt_ids_release(struct gt_ids *ids);
/* vLLM engine request stats, one object per line (src/readers/vllm_requests.c);
 * engine-side TTFT and E2E. */
int vllm_requests_read(const char *path, struct gt_requests *g, struct err *e);
int vllm_requests_read_mem(const char *buf, size_t len, const char *name, struct gt_requests *g,
			   struct err *e);
/* The meta.json beside them: model, version, engine arguments. */
int vllm_meta_read(const char *path, struct gt_settings *s, struct err *e);
/* vllm-vcr traces (src/readers/vcr.c): a meta line, then one line per request. */
int vcr_read(const char *path, struct gt_requests *g, struct gt_settings *s, struct err *e);
int vcr_read_mem(const char *buf, size_t len, const char *name, struct gt_requests *g,
		 struct gt_settings *s, struct err *e);

/* vLLM `bench serve` result JSON and SGLang `bench_serving` JSONL
 * (src/readers/bench.c): one run per object, aggregate metrics (ms). */
struct bench_run {
	char backend[32], model[128], dataset[32];
	double request_rate;      /* requests/s; INFINITY: all sent at once */
	double burstiness;        /* vLLM's gamma shape (1 = Poisson) */
	int64_t max_concurrency;  /* 0: none */
	int64_t completed;
	double duration_s, mean_in, mean_out;
	double *in_lens, *out_lens; /* per request (detailed results), or NULL */
	size_t nlens;
	double ttft_mean, ttft_p90, tpot_mean, itl_mean, e2e_mean, e2e_p90, throughput; /* NAN: absent */
};

struct bench_runs {
	struct bench_run *r;
	size_t n, cap;
	char tool[16];            /* vllm-bench, sglang-bench */
};

int bench_read(const char *path, struct bench_runs *b, struct err *e);
int bench_read_mem(const char *buf, size_t len, const char *name, struct bench_runs *b,
		   struct err *e);
void bench_runs_release(struct bench_runs *b);

/* aiconfigurator silicon CSV (src/readers/aic.c): one measured serving point
 * per row, closed loop at `concurrency` with fixed isl/osl. */
struct aic_row {
	char id[160], backend[16], version[48], model[128], system[32], mode[16];
	char precision[16], gemm_quant[24], moe_quant[24];
	int64_t isl, osl;
	int64_t batch;       /* batch_size: per worker and attention-DP rank */
	int64_t concurrency; /* the client's: silicon_concurrency= in
				silicon_data_source, else batch x attention DP */
	int workers;         /* agg workers: concurrency / (batch x attention DP) */
	int tp, pp, attn_dp, moe_tp, moe_ep; /* empty or 0 in the file = 1 */
	/* the benchmark client that measured it, from its source (aic.c,
	 * row_harness; eval/silicon/HARNESS.md, "Two harnesses") */
	enum aic_harness { AIC_HARNESS_AIPERF, AIC_HARNESS_INFERENCEX } harness;
	/* the day it was measured, "YYYY-MM-DD" from silicon_data_source's
	 * measured= ("" when not recorded): which launch recipe of the day ran */
	char measured[11];
	/* the tag V of the image when it was Dynamo's TensorRT-LLM runtime
	 * (silicon_data_source names ai-dynamo/tensorrtllm-runtime:V), else "":
	 * Dynamo's release, not TensorRT-LLM's (backend_version repeats it,
	 * or names something else) */
	char dynamo_image[24];
	bool relaid;         /* layout recorded x moe_ep (agg) or decode EP copied from
				the prefill pool's (disagg), read as the real one (aic.c) */
	/* disagg rows: each pool's per-worker batch_size and num_workers (0:
	 * not recorded) and layout (empty or 0 sizes = 1) */
	struct aic_pool {
		int64_t batch;
		int64_t max_tokens; /* per-step token budget (0: not recorded) */
		int workers, tp, pp, attn_dp, moe_tp, moe_ep;
		int redundant; /* redundant expert slots as launched (0: none) */
		/* SGLang's --mem-fraction-static the launch's recipe sets
		 * (0: not named, SGLang's rule) */
		double mem_fraction;
		/* the MoE backend the launch's recipe names (TRTLLM, DEEPGEMM,
		 * CUTLASS, CUTEDSL, WIDEEP; "": not named) */
		char moe_backend[12];
	} pre, dec;
	/* multi-token prediction's draft tokens: 0 none or not recorded, -1
	 * MTP of unnamed depth (aic_pools_apply) */
	int spec_tokens;
	bool pools_derived;  /* pools or MTP from eval/silicon/inferencex_pools.csv, not the row */
	double ttft_ms, tpot_ms;             /* measured means */
	size_t line;
	unsigned file;       /* index of its file in a folder of tables (exp_table.files) */
};

struct aic_table {
	struct aic_row *r;   /* rows that match the filter; agg and disagg rows are checked */
	size_t n, cap;
	size_t total;        /* data rows in the file, before filtering */
	size_t ncols;
};

/* Read a silicon CSV (plain or .gz).  where: NULL or "col=v,col!=v,..."
 * (comma = and; SS_EUSAGE naming an unknown column). */
int aic_read(const char *path, const char *where, struct aic_table *t, struct err *e);
int aic_read_mem(const char *buf, size_t len, const char *name, const char *where,
		 struct aic_table *t, struct err *e);
void aic_table_release(struct aic_table *t);
/* Fill the blank pools of t's disagg rows from a pools file (aicpools.c:
 * eval/silicon/inferencex_pools.csv's columns) by row id; *applied counts
 * the rows filled.  SS_EDATA naming file, line and column on a bad line. */
int aic_pools_apply(struct aic_table *t, const char *path, size_t *applied, struct err *e);
/* One benchmark run recorded as several rows (aicdup.c): a and b are alike
 * once read (engine, version, GPU, labels, lengths, concurrency, every
 * parallel size of the engine, MTP depth on agg rows, harness, day) and
 * their TTFT and TPOT means agree to 12 significant digits; the id, source,
 * model name and P/D pools are not compared (eval/silicon/HARNESS.md,
 * "Duplicate rows", "pdtwins"). */
bool aic_same_measurement(const struct aic_row *a, const struct aic_row *b);
/* Drop every row of t that repeats an earlier one's measurement, keeping
 * in the first copy's place the copy whose layout ran (aicdup.c) and the
 * order of the rest; returns how many were dropped.  After aic_pools_apply
 * (the pools decide which copy stays). */
size_t aic_drop_duplicates(struct aic_table *t);
/* Whether the file's header is a silicon CSV's. */
bool aic_is_table(const char *path);
/* The silicon CSVs (plain or .gz) of folder dir, in name order: at most cap
 * paths into files; returns how many there are (may exceed cap). */
size_t aic_table_files(const char *dir, char (*files)[700], size_t cap);
/* Registry names to try for a row's Hugging Face id (see aic.c); returns
 * how many of out[0..2] are set. */
int aic_model_candidates(const char *hf, char out[3][128]);

#endif
