/* opsview.h - what `servesim ops` reports on: one model's forward pass as
 * operator graphs, model-wide and per GPU after the parallel split, with
 * the parameter counts and, where images are given, the vision encoder's
 * operators and its token rule. */
#ifndef SERVESIM_ANALYSIS_OPSVIEW_H
#define SERVESIM_ANALYSIS_OPSVIEW_H
#include <stdint.h>

#include "base/err.h"
#include "deploy/catalog.h"
#include "deploy/parflags.h"
#include "model/opgraph.h"
#include "model/model.h"

/* The pass asked for. */
struct ops_req {
	const char *model, *config, *gpu;   /* registry id or HF name, or config.json; GPU id */
	struct pass_shape shape;
	struct parallel par;                /* resolved in place (par_flags_resolve) */
	struct par_flags pf;
	enum dtype dtype;                   /* bf16 or fp8 */
	int64_t img_w, img_h;               /* images of the batch, pixels (0: none) */
};

/* The graphs and counts (caller storage; ops_view_release). */
struct ops_view {
	struct catalog env;
	struct model_cfg *m;
	const struct gpu_spec *g;
	struct opgraph gm, gg;   /* model-wide (TP 1), per GPU after q.par */
	struct param_counts pc;
	char images[600];        /* the images and their rule ("": none) */
};

/* Load the model and GPU (SS_EUSAGE when the GPU has no peak for the
 * dtype), resolve the layout and build both graphs. */
int ops_view_build(struct ops_req *q, struct ops_view *v, struct err *e);
void ops_view_release(struct ops_view *v);

#endif
