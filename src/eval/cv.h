/* cv.h - held-out accuracy of the engine host terms (`servesim eval --cv`).
 *
 * Each engine's host rows (src/engine/: engine_host) hold terms fitted on
 * measured runs (engine_host.fit).  Cross-validation refits them leaving one
 * group of rows out (a model family, a GPU, an engine) and predicts that
 * group with what the others chose, so the accuracy it reports was not tuned
 * on the rows it is measured on.
 *
 * The refit is a search over one scale of each host row's fitted terms
 * (cv_scales: 0 = the row's fitted terms off, 1 = as shipped): the same
 * rows are simulated once per scale (eval_opts.host_scale), and for each
 * group left out and each (engine, host row) the scale that minimises
 * median |ITL err| + 0.5 x median |TTFT err| over the rest of that row's
 * rows is taken (nearest 1 on ties; 0, the row unfitted, where the rest holds
 * none of its rows, as for an engine left out). */
#ifndef SERVESIM_CV_H
#define SERVESIM_CV_H

#include <stddef.h>

#include "base/err.h"
#include "eval/experiment.h"
#include "eval/pass.h"

enum cv_by { CV_FAMILY, CV_GPU, CV_ENGINE };

/* "model" (a model family: the model id's words before the first holding a
 * digit, "llama-3.1-8b" -> "llama", "qwen3-32b" -> "qwen", "gpt-oss-120b" ->
 * "gpt-oss"), "gpu", "engine"; SS_EUSAGE otherwise. */
int cv_by_parse(const char *s, enum cv_by *out, struct err *e);
const char *cv_by_name(enum cv_by by);
/* The group row r falls in (buf, n bytes). */
void cv_group_of(const struct eval_row *r, enum cv_by by, char *buf, size_t n);

/* The scales the refit chooses from, in order of preference (1 first). */
#define CV_NSCALES 7
extern const double cv_scales[CV_NSCALES];

/* One pass of every row at one scale of the fitted host terms. */
struct cv_pass {
	double scale;
	const struct eval_row *rows;
	size_t n;
};

#define CV_MAX_GROUPS 32
#define CV_MAX_FITS 8

/* Medians of |TTFT mean err| and |ITL mean err| (fractions, NAN: no row
 * measured it) over a set of rows, and how many rows. */
struct cv_stat {
	double ttft, itl;
	size_t rows;
};

struct cv_group {
	char name[48];
	struct cv_stat in;         /* as shipped (scale 1) */
	struct cv_stat out;        /* held out: the others' refit */
	/* the scale chosen for each host row of its rows ("sglang#0 x0.75") */
	char chosen[160];
};

struct cv_result {
	enum cv_by by;
	struct cv_group g[CV_MAX_GROUPS];
	size_t ng;
	size_t other;              /* rows of groups past CV_MAX_GROUPS (in "all" only) */
	struct cv_stat in, out;    /* over every row */
	size_t unfitted;           /* rows no host row's fitted terms price */
	/* per row, the pass its held-out prediction comes from (n rows;
	 * cv_result_release frees it) */
	int *held_pass;
	size_t n;
};
void cv_result_release(struct cv_result *r);

/* Cross-validate over passes[0, np), one per scale of cv_scales, each
 * holding the same rows in the same order (SS_ERUNTIME naming the row where
 * they differ).  Rows past CV_MAX_GROUPS groups are pooled in "all" only. */
int eval_cv(const struct cv_pass *passes, size_t np, enum cv_by by, struct cv_result *out,
	    struct err *e);

/* The study (`eval --cv`): the pass at every scale of cv_scales, then
 * eval_cv over them; done false (rc 0) when no input of the first pass was
 * evaluated (its failures are in pass[0]).  cv_run_release frees it. */
struct cv_run {
	struct eval_pass pass[CV_NSCALES];
	struct cv_result r;
	bool done;
};
int cv_run(const struct eval_inputs *in, const struct eval_opts *eo, const char *calibration, enum cv_by by,
	   struct cv_run *run, struct err *e);
/* The shipped pass (pass[0]) with each row's held-out prediction in its
 * place (held->rows allocated; eval_pass_release). */
void cv_run_held(const struct cv_run *run, struct eval_pass *held);
void cv_run_release(struct cv_run *run);

#endif
