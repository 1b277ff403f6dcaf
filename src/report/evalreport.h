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

#include "base/afile.h"
#include "base/err.h"
#include "eval/experiment.h"
#include "eval/pass.h"

/* Rows, APE summaries (all, per model, per workload, overloaded),
 * per-request APE and the silicon tables' groups; tier0_off: the
 * corrections switched off (COST_H* bits, for the header). */
void out_eval_text(FILE *f, const struct eval_pass *p, unsigned tier0_off);
void out_eval_json(FILE *f, const struct eval_pass *p, unsigned tier0_off);
/* --html: the page of out_eval_json (as `servesim report` builds it), an
 * afile_job writer of a struct out_eval_page. */
struct out_eval_page {
	const struct eval_pass *p;
	unsigned tier0_off;
};
int out_eval_html(FILE *f, const void *ctx, struct err *e);
struct jw;
/* out_eval_json's members, into an object w has open. */
void out_eval_json_members(struct jw *w, const struct eval_pass *p, unsigned tier0_off);
/* One row per experiment stage, RFC 4180 quoting. */
void out_eval_csv(FILE *f, const struct eval_pass *p);
/* The markdown report's calibration line, rows, summaries and per-request
 * table (tier0_off: as out_eval_text's). */
void out_eval_md_rows(FILE *md, const struct eval_pass *p, unsigned tier0_off);
/* Plot data, a gnuplot script and SVG charts in the folder dir (made
 * with its parents when missing: made[nmade] names the first folder
 * created, "" none, for paths_rmdir_made when the command fails), each
 * file opened into set, to be committed with the command's other outputs
 * (all or none); md gets the image links.
 * Errors: the folder or a file cannot be made (SS_ERUNTIME; set aborted). */
int out_eval_plots(const struct eval_pass *p, const char *dir, FILE *md, struct afile_set *set, char *made,
		   size_t nmade, struct err *e);
/* The names of the files out_eval_plots writes in its folder, into files
 * (NULL-terminated; the per-metric names kept in buf), for the output
 * rule (afile_check_outputs). */
void out_eval_plot_files(char buf[8][64], const char *files[12]);
/* The ablation table (md: under the report's section heading): median APE with each of H1..H6 off (offs[0..5],
 * tier 0, no calibration) against full tier 0 (full); md may be NULL. */
void out_eval_ablation(FILE *f, FILE *md, const struct eval_pass *full, const struct eval_pass *offs);
/* Each hypothesis against design document 002's criterion and its
 * regression gate per model.  ms: the pass with InferSim-scale overheads
 * (002's H2); gqa[k]: models[k] of full has grouped-query attention (1),
 * multi-head attention (0), or is unknown (-1). */
void out_eval_criteria(FILE *f, FILE *md, const struct eval_pass *full, const struct eval_pass *offs,
		       const struct eval_pass *ms, const int *gqa);
/* The spread over `seeds` passes of each metric's median and mean APE
 * (med[s][k], mean[s][k]). */
void out_eval_seed_spread(FILE *f, FILE *md, int seeds, const double (*med)[EM__COUNT],
			  const double (*mean)[EM__COUNT]);

struct cv_result;
/* eval --cv (cv.h): each group's medians as shipped and held out; JSON:
 * "cv", then the pass held holds (each row's held-out prediction) as
 * out_eval_json writes a pass. */
void out_cv_text(FILE *f, const struct cv_result *r);
void out_cv_json(FILE *f, const struct cv_result *r, const struct eval_pass *held, unsigned tier0_off);

#endif
