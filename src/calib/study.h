/* study.h - `servesim calibrate` as library calls: the runs loaded
 * (experiment folders and serving-benchmark results, each with its model
 * and GPU), the linear fit judged where it acts (re-simulated, it must beat
 * tier 0), the in-loop fit, the choice between them, and the check of a
 * calibration file against new runs (staleness).  The command prints what
 * they return (report/calibreport.h). */
#ifndef SERVESIM_CALIB_STUDY_H
#define SERVESIM_CALIB_STUDY_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "calib/calib.h"
#include "deploy/catalog.h"

/* Runs to calibrate on: x[i] with its model m[i] and GPU g[i], named
 * names[i] (its experiment name). */
struct calib_runs {
	struct experiment *x;
	struct model_cfg *mbuf;
	const struct model_cfg **m;
	const struct gpu_spec **g;
	const char **names;
	size_t n;
};
/* paths[0, np) in order: a serving benchmark's results file gives one run
 * per benchmark, an aiconfigurator silicon CSV is refused (its rows mix
 * models, GPUs and engines); gpu and base (may be NULL) as
 * experiment_load_with's.  Warnings go to diag; errors name the path.
 * calib_runs_release frees l whatever the status. */
int calib_runs_load(struct catalog *cat, char **paths, size_t np, const char *gpu, const struct experiment *base,
		    FILE *diag, struct calib_runs *l, struct err *e);
/* A calibration file describes one model on one GPU: SS_EUSAGE naming the
 * first run that differs from the first. */
int calib_runs_one_deployment(const struct calib_runs *l, struct err *e);
void calib_runs_release(struct calib_runs *l);

struct calib_study {
	struct calib_ctx cc;            /* the runs, simulated on cc.jobs threads */
	struct overheads base;          /* the engine's own host terms: the fits start
					 * from them and fall back to them */
	struct calib_set set;           /* units priced with base */
	struct tier1_result r;          /* the linear fit, judged applied */
	struct tier1_result rl;         /* the in-loop fit (calib_study_in_loop) */
	struct tier1_result chosen;     /* calib_study_choose */
	bool forced;                    /* chosen was rejected and is applied anyway */
	/* 002's TPOT residual, reported beside the fit (tpot_ok false: why) */
	struct tier1_tpot tpot;
	bool tpot_ok;
	char tpot_why[1024];
};
/* The study of runs l (which must outlive it): each GPU's kernel tables
 * parsed once for every simulation. */
void calib_study_init(struct calib_study *s, const struct calib_runs *l, const char *data_dir, int jobs);
void calib_study_release(struct calib_study *s);
/* The linear fit (tier1_fit, seed for its split), re-simulated with what it
 * fitted: rejected when it does worse than tier 0 once applied.  SS_EDATA
 * when the runs hold fewer than CALIB_MIN_REQUESTS requests. */
int calib_study_linear(struct calib_study *s, uint64_t seed, struct err *e);
/* The in-loop fit (tier1_fit_in_loop from the engine's terms), judged the
 * same way, into s->rl. */
int calib_study_in_loop(struct calib_study *s, struct err *e);
/* The accepted fit that does better once applied; with none accepted, the
 * in-loop fit when it ran, else the linear one; force applies a rejected
 * choice (its fitted terms). */
void calib_study_choose(struct calib_study *s, bool in_loop, bool force);

/* --check FILE: the file's terms on the study's runs. */
struct calib_check {
	struct calib_file f;
	size_t units;
	double e2e, ttft;               /* MAPE */
	bool stale;                     /* either above CALIB_STALE_MAPE */
};
/* A warning on diag per kind of run the file was not fitted on. */
int calib_check_file(struct calib_study *s, const struct calib_runs *l, const char *path, FILE *diag,
		     struct calib_check *c, struct err *e);

#endif
