/* measured.h - measured requests read from benchmark outputs (GuideLLM
 * results of every schema era, vLLM OpenTelemetry spans), in one neutral
 * form: what the simulator needs to replay them and what it is compared
 * with.  Readers never keep prompt or output text. */
#ifndef SERVESIM_MEASURED_H
#define SERVESIM_MEASURED_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "servesim/err.h"

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

#endif
