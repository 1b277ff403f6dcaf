/* opsreport.h - the reports of `servesim ops` (output module): the
 * operator template of one forward pass per layer kind (shapes, FLOPs,
 * bytes, shares, MFU from a measured latency) and the kernel-level MFU of
 * one measured layer (kflow.h), as text and JSON. */
#ifndef SERVESIM_OPSREPORT_H
#define SERVESIM_OPSREPORT_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "hw/gpu.h"
#include "analysis/kflow.h"
#include "analysis/opsview.h"
#include "model/model.h"
#include "model/opgraph.h"

/* What the template report shows (nothing owned). */
struct out_ops {
	const struct model_cfg *m;
	const struct gpu_spec *g;
	const struct opgraph *gm, *gg;   /* model-wide, per GPU after the split par */
	const struct param_counts *pc;
	const struct pass_shape *shape;
	const struct parallel *par;
	enum dtype dtype;
	double measured_ms;              /* measured forward time; 0: none */
	bool kernel_mode;                /* kernel-level MFU follows: no per-layer template */
	const char *images;              /* --image: the images and their rule (the encoder's
					    kinds follow the pass's in gm, gg), or NULL */
};

/* The report of view v of request q (pointing into both). */
void out_ops_of(const struct ops_view *v, const struct ops_req *q, double measured_ms, bool kernel_mode,
		struct out_ops *r);

/* The kernel-level MFU of one layer (nothing owned). */
struct out_ops_kernels {
	const struct kernel_flow *kf;
	const struct layer_kind *lk;     /* the layer kind it measured */
	const struct kf_result *r;
	double peak, peak_fp8, layer_peak; /* FLOP/s: bf16, fp8 (bf16 when none), the dtype's */
	const char *dtype;
	bool per_kernel;                 /* one row per kernel (--kernel-flow); else per operator */
};

/* k for the kernels measured on GPU g at dtype (pointing into the
 * arguments, which must outlive it). */
void out_ops_kernels_of(const struct kernel_flow *kf, const struct layer_kind *lk, const struct kf_result *r,
			const struct gpu_spec *g, enum dtype dtype, bool per_kernel, struct out_ops_kernels *k);
/* Model, serving, shape, each layer kind's operators, totals; with
 * measured_ms the theoretical minimum and MFU overall and per layer. */
void out_ops_text(FILE *f, const struct out_ops *o);
void out_ops_json(FILE *f, const struct out_ops *o);
/* The kernel rows (or operators), what was mapped and how, and 000's
 * one-line summary; m_layers: the model's layers (per-layer times). */
void out_ops_kernel_text(FILE *f, const struct out_ops_kernels *k, int64_t m_layers);
/* out_ops_json's summary members and the kernel-level MFU object. */
void out_ops_kernel_json(FILE *f, const struct out_ops *o, const struct out_ops_kernels *k);
/* Each line of buf (newline-terminated warnings) as "servesim ops:
 * warning: LINE". */
void out_ops_warnings(FILE *f, const char *buf);

#endif
