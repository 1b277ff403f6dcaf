/* eval.h - ground-truth experiments in servesim's format
 * (eval/ground_truth/<suite>/<name>/experiment.json, see README) and their
 * evaluation: simulate, compare per stage, APE per metric. */
#ifndef SERVESIM_EVAL_H
#define SERVESIM_EVAL_H
#include <stdbool.h>
#include <stdint.h>

#include "servesim/cost.h"
#include "servesim/gpu.h"
#include "servesim/measured.h"
#include "servesim/scenario.h"
#include "servesim/model.h"
#include "servesim/workload.h"

struct eval_opts {
	unsigned tier0_off;
	struct overheads ov;
	const struct tier2 *tier2;
};

enum exp_kind { EXP_STAGES, EXP_REQUESTS };

struct experiment {
	char name[160], source[512], model[128], gpu[48], path[700];
	char workload_name[64];    /* optional label ("codegen"); see experiment_workload */
	char format[32];       /* servesim, inference-perf, guidellm <era>, otel */
	enum exp_kind kind;
	struct gt_requests meas;   /* EXP_REQUESTS: measured requests, replayed */
	struct wl_req *replay;     /* EXP_REQUESTS: the workload built from them */
	int tp, pp, dp, ep;
	enum dtype dtype;
	char engine_version[32];
	int64_t max_num_batched_tokens, max_num_seqs, max_model_len, block_size, total_kv_blocks;
	double gpu_memory_utilization;
	bool prefix_caching;
	struct wl_spec wl;
	struct measured_stage stages[WL_MAX_STAGES];
	size_t nstages;
	char warning[400];         /* set when a side file was missing and a default applied */
};

struct eval_row {
	char experiment[160];
	char model[128];
	char label[40];        /* benchmark strategy@rate for per-request data */
	char workload[64];     /* experiment_workload() */
	int stage;
	bool overloaded;
	double meas[EM__COUNT], pred[EM__COUNT], ape[EM__COUNT]; /* NAN where absent */
};

const char *ev_metric_name(enum ev_metric m);
/* The scenario that replays x: its parallelism, engine settings, KV blocks
 * and workload, with the given overheads (client terms dropped for
 * engine-side measurements), corrections and tier-2 file. */
void experiment_scenario(const struct experiment *x, const struct model_cfg *m,
			 const struct gpu_spec *g, const struct eval_opts *o, struct scenario *sc);
int experiment_load(const char *path, struct experiment *x, struct err *e);
/* The workload label rows are grouped by: workload_name when the file gives
 * one, else a description ("shared-prefix 100+466->247", "replay ~3000->~50",
 * "prompt ~600 out ~250"). */
void experiment_workload(const struct experiment *x, char *buf, size_t n);
/* What a folder holds: 0 nothing we read, else 1 servesim experiment.json,
 * 2 inference-perf results, 3 GuideLLM results, 4 vLLM OTel spans. */
int experiment_detect(const char *dir);
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
/* Simulate x and append one row per measured stage to rows (capacity cap). */
int eval_experiment(const struct experiment *x, const struct model_cfg *m,
		    const struct gpu_spec *g, const struct eval_opts *o, const char *data_dir,
		    struct eval_row *rows, size_t cap, size_t *nrows, struct err *e);
/* Median and mean APE of metric k over the rows (overloaded or not), of
 * one model and/or workload when those are not NULL. */
void eval_ape_stats(const struct eval_row *rows, size_t n, enum ev_metric k, bool overloaded,
		    const char *model, const char *workload, double *median, double *mean,
		    size_t *count);

#endif
