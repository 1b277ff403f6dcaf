/* table.h - an evaluation pass over the rows of a table of experiments (an
 * aiconfigurator silicon CSV, a serving benchmark's results: exp_table):
 * each kept row loaded and prepared in order, the rows simulated on
 * threads a few at a time (eval_run_jobs), then their results taken in
 * order, so that the rows, the skip tally and whatever the caller's
 * prepare prints are the same for any number of threads. */
#ifndef SERVESIM_EVAL_TABLE_H
#define SERVESIM_EVAL_TABLE_H
#include <stddef.h>

#include "eval/experiment.h"

struct eval_table_in {
	const char *path, *where;       /* exp_table_open's */
	const char *gpu;                /* exp_table_load's */
	const struct experiment *base;
	const char *data_dir;
	int threads;                    /* 1 .. */
	/* Row x, loaded: its model and GPU into m and *g and its options
	 * into o, called in row order.  1: simulate it; 0: skip it, counted
	 * under why (n bytes; eval_table_why words a refusal). */
	int (*prepare)(void *ctx, struct experiment *x, struct model_cfg *m, const struct gpu_spec **g,
		       struct eval_opts *o, char *why, size_t n);
	void *ctx;
};

struct eval_table_res {
	size_t kept, total;             /* rows kept by the filter, rows in the table */
	size_t pools_derived;           /* kept rows whose P/D pools or MTP came from EXP_POOLS_FILE */
	size_t dups;                    /* kept rows dropped as another row's measurement (exp_table.dups) */
	size_t simulated;
	struct eval_row *rows;          /* in row order; heap-owned (free) */
	size_t nrows;
};

/* Run the table's rows; rows skipped (not expressible, refused by
 * prepare or by the simulator) are added to skips by reason, in row
 * order.  <0: the table could not be read (e says why; res empty, skips
 * may hold some of its rows: the caller restores it). */
int eval_table_run(const struct eval_table_in *in, struct skip_tally *skips, struct eval_table_res *res,
		   struct err *e);

/* `servesim import` of a table: each kept row written as an experiment
 * folder under out named after the row ('/' and '#' as '_'); rows servesim
 * cannot express, and P/D rows (experiment.json has no P/D fields yet),
 * counted in skips.  *done: folders written; *total: rows in the table;
 * *title: the table's format (readers.h). */
int exp_table_import(const char *path, const char *where, const char *gpu, const struct experiment *base,
		     const char *out, struct skip_tally *skips, size_t *done, size_t *total, const char **title,
		     struct err *e);

/* The reason a row the simulator (or its set-up) refused is counted
 * under: model, GPU and the message without the row's name, its figures
 * as N (skip_reason_norm). */
void eval_table_why(const struct experiment *x, const struct model_cfg *m, const struct gpu_spec *g,
		    const struct err *e, char *why, size_t n);

#endif
