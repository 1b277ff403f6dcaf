/* roofreport.h - the report of `servesim roofline` (output module): a
 * markdown report of which resource (compute, HBM weights, HBM KV,
 * network) bounds each phase, with sweeps over batch, KV length and
 * sequence length, the guidance that follows from the dominant term, a
 * Mermaid diagram per layer kind, a sensitivity ranking of knobs, other
 * GPUs compared, and optionally gnuplot plots and a decode grid CSV. */
#ifndef SERVESIM_ROOFREPORT_H
#define SERVESIM_ROOFREPORT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/err.h"
#include "hw/gpu.h"
#include "model/model.h"
#include "analysis/roofline.h"

struct out_roof_opts {
	const char *out;         /* the report's file (plots link relative to it); NULL: stdout */
	const char *grid;        /* decode grid CSV to write, or NULL */
	const char *plots;       /* folder for gnuplot SVGs and their data, or NULL */
	bool train, prefill, decode; /* phases reported */
	int grid_points;         /* 0: the default 4 x 2 x 2 grid */
	int mode;                /* 0 efficient, 1 naive, 2 both */
	struct rl_cfg k;         /* the constants (model, GPU, layout and dtypes set by the report) */
	enum dtype dtype, kvdt;
	struct parallel par;
	int64_t batch, seq, kv_len;
};

/* Writes the report for m on gs[0] (gs[1 .. ng-1] compared) to f, and the
 * plots and grid files asked for.  Errors: the roofline model's
 * (roofline.h) and file writes (SS_ERUNTIME); f may then hold part of the
 * report (the caller writes to a temporary). */
int out_roofline_report(FILE *f, const struct out_roof_opts *o, const struct model_cfg *m,
			const struct gpu_spec *const *gs, size_t ng, struct err *e);
/* The same as an afile_job writer of a struct out_roof_report. */
struct out_roof_report {
	const struct out_roof_opts *o;
	const struct model_cfg *m;
	const struct gpu_spec *const *gs;
	size_t ng;
};
int out_roofline_file(FILE *f, const void *ctx, struct err *e);

#endif
