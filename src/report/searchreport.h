/* searchreport.h - the writers of `servesim search` (output module): the
 * ranking as text or JSON, one long-format CSV row per deployment and the
 * Pareto chart of tokens/s/GPU vs tokens/s/user as SVG.  The caller
 * (src/cmd/search.c) gathers the outcomes, their order, the front and the
 * target answer; these only write.  Writers do not check stdio errors. */
#ifndef SERVESIM_SEARCHREPORT_H
#define SERVESIM_SEARCHREPORT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/err.h"

#include "eval/accuracy.h"
#include "plan/capacity.h"
#include "plan/prices.h"
#include "base/sbuf.h"
#include "plan/search.h"
#include "workload/workload.h"

struct search_report {
	const struct model_cfg *model;
	const char *hf;                 /* the name the launch lines serve */
	const struct wl_spec *wl;
	const struct cap_cfg *cc;       /* SLOs, seeds */
	const struct search_space *sp;  /* engine names (search_deploy.engine indexes them) */
	const struct search_gpu *budget;
	size_t nb;
	const struct search_outcome *r; /* n outcomes in enumeration order */
	size_t n;
	const struct search_summary *s; /* their counts, ranking, front, best for the target */
	const struct prices *prices;    /* NULL: none */
	double target;                  /* --target-rate (0: none) */
	int64_t top;                    /* launch lines for this many */
	const struct acc_confidence *conf; /* per outcome: its stated confidence (accuracy.h) */
	/* --enable-eplb, for the launch lines (the settings as resolved) */
	const struct scenario *eplb;    /* NULL: off */
	const struct deploy_knobs *knobs; /* the engine flags as given (the launch lines') */
};

/* The report of a finished search r (rank 0) of q, with launch lines for
 * the top best (pointing into r and q, which must outlive it). */
struct search_run;
struct search_req;
void search_report_of(const struct search_run *r, const struct search_req *q, int64_t top, struct search_report *R);
void search_report_text(FILE *f, const struct search_report *R);
void search_report_json(FILE *f, const struct search_report *R);
/* The files of --csv (header and one row per deployment, enumeration
 * order) and --svg (the Pareto chart): afile_job writers, ctx a struct
 * search_report (--html: html.h html_search_file). */
int search_report_csv(FILE *f, const void *R, struct err *e);
int search_report_svg(FILE *f, const void *R, struct err *e);

#endif
