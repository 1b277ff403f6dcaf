/* evalreport.h - the reports of `servesim eval` (output module): a pass
 * over the ground-truth experiments (measured vs predicted and APE per
 * row) as text, JSON, CSV and markdown with gnuplot plots; the ablation of
 * the tier-0 corrections with design document 002's criteria; the spread
 * of the APE over workload seeds. */
#ifndef SERVESIM_EVALREPORT_H
#define SERVESIM_EVALREPORT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/err.h"
#include "eval/eval.h"

/* models a pass tells apart (models[], the criteria's gqa[]) */
#define OUT_EVAL_MAX_MODELS 16
/* failed inputs a pass lists by name (the rest are counted) */
#define OUT_EVAL_MAX_FAILED 16

/* One pass of eval over the experiments: its rows and what they came from. */
struct out_eval_pass {
	struct eval_row *rows;
	size_t nrows;
	char used[4][700];      /* calibration files applied */
	int nused;
	char models[OUT_EVAL_MAX_MODELS][128];
	int nmodels;
	char workloads[32][64]; /* in row order */
	int nworkloads;
	char warned[400];       /* the last calibration mismatch warned about */
	bool warned_rejected;   /* --calibration names a rejected file (said once) */
	/* aiconfigurator silicon tables */
	int ntables;
	size_t table_rows, table_total, table_sim;
	struct skip_tally skips;
	/* inputs that could not be evaluated (a malformed file, an unknown
	 * model, a refused layout, ...): counted, the first ones listed as
	 * "INPUT: why"; the others are still evaluated */
	size_t ninputs, nfailed;
	char failed[OUT_EVAL_MAX_FAILED][400];
	struct err first_failure;
};

/* Rows, APE summaries (all, per model, per workload, overloaded),
 * per-request APE and the silicon tables' groups; tier0_off: the
 * corrections switched off (COST_H* bits, for the header). */
void out_eval_text(FILE *f, const struct out_eval_pass *p, unsigned tier0_off);
void out_eval_json(FILE *f, const struct out_eval_pass *p, unsigned tier0_off);
/* One row per experiment stage, RFC 4180 quoting. */
void out_eval_csv(FILE *f, const struct out_eval_pass *p);
/* The markdown report's calibration line, rows, summaries and per-request
 * table (tier0_off: as out_eval_text's). */
void out_eval_md_rows(FILE *md, const struct out_eval_pass *p, unsigned tier0_off);
/* Plot data, a gnuplot script and (gnuplot installed) SVGs in dir, each
 * file written atomically; md gets the image links or what to run.
 * Errors: dir cannot be made, a file cannot be written (SS_ERUNTIME). */
int out_eval_plots(const struct out_eval_pass *p, const char *dir, FILE *md, struct err *e);
/* The ablation table (md: under the report's section heading): median APE with each of H1..H6 off (offs[0..5],
 * tier 0, no calibration) against full tier 0 (full); md may be NULL. */
void out_eval_ablation(FILE *f, FILE *md, const struct out_eval_pass *full, const struct out_eval_pass *offs);
/* Each hypothesis against design document 002's criterion and its
 * regression gate per model.  ms: the pass with InferSim-scale overheads
 * (002's H2); gqa[k]: models[k] of full has grouped-query attention (1),
 * multi-head attention (0), or is unknown (-1). */
void out_eval_criteria(FILE *f, FILE *md, const struct out_eval_pass *full, const struct out_eval_pass *offs,
		       const struct out_eval_pass *ms, const int *gqa);
/* The spread over `seeds` passes of each metric's median and mean APE
 * (med[s][k], mean[s][k]). */
void out_eval_seed_spread(FILE *f, FILE *md, int seeds, const double (*med)[EM__COUNT],
			  const double (*mean)[EM__COUNT]);

#endif
