/* tracereport.h - the reports of `servesim trace` (output module): what a
 * profiler trace's operator flow (trace.h) looks like as text and JSON,
 * and its comparison with servesim's operator template for a shape. */
#ifndef SERVESIM_TRACEREPORT_H
#define SERVESIM_TRACEREPORT_H
#include <stddef.h>
#include <stdio.h>

#include "base/err.h"
#include "hw/gpu.h"
#include "model/model.h"
#include "model/opgraph.h"
#include "analysis/trace.h"

/* Where the trace came from and what it holds: format, kernels, shapes,
 * Ascend passes and window, layers, CUDA-graph and unlinked kernels.
 * root/nfound: --profiler-root and the kernel_details.csv files found
 * (root NULL: FILE given). */
void out_trace_header(FILE *f, const struct trace *t, const char *file, const char *root, size_t nfound);
/* One line per operator. */
void out_trace_sequence(FILE *f, const struct trace *t);
/* Per category, per operator type (top 15 by kernel time), per layer. */
void out_trace_summary(FILE *f, const struct trace *t);
/* Everything as one JSON object. */
void out_trace_json(FILE *f, const struct trace *t);
/* The one-line summary: dominant category, MFU of the matmul FLOPs
 * against g's dense peak in dt, and the bottleneck operator type. */
void out_trace_one_line(FILE *f, const struct trace *t, const struct gpu_spec *g, enum dtype dt);
/* Builds servesim's operator template for m at c's shape (per GPU after
 * the split c->par; a training step: c->layers forward layers and as many
 * backward ones, whose GEMMs count twice the forward FLOPs) and prints it
 * against the trace by category, saying where the shape came from.
 * Errors: the template cannot be built (opgraph_build's), or m has no
 * layer kind to compare with (SS_EUSAGE). */
int out_trace_compare(FILE *f, const struct trace *t, const struct model_cfg *m, const struct gpu_spec *g,
		      const struct tr_compare *c, struct err *e);

#endif
