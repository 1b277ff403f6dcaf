/* calib.h - tier-1 calibration: learn what the physics cannot see (API and
 * scheduler overheads) from measured runs, and apply it inside the
 * simulator as overhead terms so that queueing feels it.
 *
 * Units are requests (per-request data, replayed) or stages (stage
 * summaries).  With measured minus tier-0 predicted residuals,
 *   E2E residual (ms)  = a * output_tokens + b * prompt_tokens + d
 *   TTFT residual (ms) = d0 + b0 * prompt_tokens
 * are fitted by weighted least squares (weights 1/measured^2: relative
 * error), cross-validated (70/30 split stratified by stage/benchmark, and
 * 5-fold), and rejected when validation MAPE > 2 x training MAPE.  The
 * coefficients become: per-step overhead += a, per-prefill-token overhead +=
 * b0, API TTFT term += d0, API E2E term += d - d0 (b - b0 is reported, not
 * applied).  --in-loop instead fits those four terms by non-linear least
 * squares with the simulator in the loop. */
#ifndef SERVESIM_CALIB_H
#define SERVESIM_CALIB_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cost/cost.h"
#include "base/err.h"
#include "eval/experiment.h"
#include "readers/tier1file.h"

#define CALIB_STALE_MAPE 0.30

struct calib_unit {
	double prompt, output;          /* tokens (means for stage units) */
	double ttft_meas, e2e_meas;     /* ms */
	double ttft_pred, e2e_pred;     /* ms, tier 0 (or the overheads in use) */
	int group;                      /* stratification key */
};

struct calib_set {
	struct calib_unit *u;
	size_t n, cap;
	int64_t requests;               /* requests behind the units (per-request
					 * units, and the completed requests of stages) */
	size_t overloaded;              /* stages left out as overloaded */
};

/* Design document 002's tier-1 trace: at least this many requests. */
#define CALIB_MIN_REQUESTS 100

struct tier1_coef {
	double a_ms_per_output_token, b_ms_per_prompt_token, d_ms;
	double ttft_d0_ms, ttft_b0_ms_per_prompt_token;
};

struct tier1_result {
	struct tier1_coef coef;
	struct overheads ov;            /* overheads to apply (tier 0's when rejected) */
	struct overheads fitted;        /* the fitted overheads, whatever the verdict */
	double train_e2e, train_ttft;   /* MAPE of the corrected prediction */
	double val_e2e, val_ttft;
	double kfold_e2e, kfold_ttft;
	double tier0_e2e, tier0_ttft;   /* MAPE before calibration */
	double applied_e2e, applied_ttft; /* MAPE re-simulated with `ov` */
	bool accepted;
	char reason[200];
	char method[16];                /* "wls" or "nlls" */
	int iterations;
};

struct mfu_cache;

struct calib_ctx {                  /* experiments to simulate */
	struct experiment *x;
	const struct model_cfg **m;
	const struct gpu_spec **g;
	size_t n;
	const char *data_dir;
	struct mfu_cache *cache;     /* kernel tables shared by every simulation, or NULL */
	int jobs;                    /* simulations run at once on threads (<= 1: one) */
};

/* Simulate every experiment with overheads ov; append paired units, in
 * experiment order whatever c->jobs (the same bytes as one thread). */
int calib_collect(const struct calib_ctx *c, const struct overheads *ov, struct calib_set *out,
		  struct err *e);
void calib_set_release(struct calib_set *s);
/* MAPE of E2E and TTFT over units (optionally corrected by coefficients). */
void calib_mape(const struct calib_set *s, const struct tier1_coef *coef, const bool *mask,
		double *e2e, double *ttft);
/* The linear fit with cross-validation and the overfitting guard. */
int tier1_fit(const struct calib_set *s, uint64_t seed, const struct overheads *base,
	      struct tier1_result *r, struct err *e);
/* In-loop non-linear fit of the applied overhead terms. */
int tier1_fit_in_loop(const struct calib_ctx *c, const struct overheads *start,
		      struct tier1_result *r, struct err *e);

/* 002's TPOT residual (measured - predicted TPOT, TPOT = (E2E - TTFT) /
 * (output - 1)) fitted as a * output + b * prompt + d on the same 70/30
 * split; reported beside the E2E and TTFT fits (the simulator applies the
 * E2E/TTFT terms). */
struct tier1_tpot {
	double a_ms_per_output_token, b_ms_per_prompt_token, d_ms;
	double tier0, train, val;       /* TPOT MAPE before / after the fit */
	size_t units;                   /* units with output > 1 */
};
int tier1_fit_tpot(const struct calib_set *s, uint64_t seed, struct tier1_tpot *t, struct err *e);

/* Write r (the candidate chosen: its overheads and verdict on top) and
 * every candidate fit with its own fitted overheads, MAPE and verdict
 * under "candidates"; forced: r was rejected and applied on purpose
 * (written accepted, with "forced": true). */
int calib_write(const char *path, const struct tier1_result *r, const struct tier1_result *cands,
		size_t ncands, bool forced, const struct calib_ctx *c, const char *const *names,
		size_t nnames, struct err *e);

#endif
