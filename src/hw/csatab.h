/* csatab.h - measured DeepSeek-V4 attention tables (data/mfu/<gpu>/
 * <engine>-<version>/dsv4_module.csv.gz, written by scripts/mfu/derive_dsv4.py
 * from aiconfigurator's dsv4_{csa,hca}_{generation,context}_module_perf and
 * kernel tables).
 *
 * A module row times one whole DeepSeek-V4 attention block (CSA or HCA
 * layer: projections, compressor, indexer, sparse attention, grouped output
 * projection) as one engine runs it on one GPU: `batch` requests, each with
 * `isl` new tokens (1: decode) after `prefix` cached ones, `heads`
 * attention heads on the GPU, per geometry (hidden size: Flash 4096, Pro
 * 7168).  Kernel rows time the two kernels that grow with the prefix alone
 * (the CSA indexer's paged MQA logits, HCA's sparse attention), at Flash's
 * geometry.
 *
 * csatab_cut cuts one kind out at a model's head count: the geometry nearest
 * by hidden size among those measured at that head count, else the nearest
 * geometry with the heads log-log interpolated between the two measured
 * counts around them (clamped at the ends; points measured at one of them
 * only are left out). */
#ifndef SERVESIM_CSATAB_H
#define SERVESIM_CSATAB_H
#include <stddef.h>

#include "base/err.h"

enum csa_kind { CSAK_CSA_DECODE, CSAK_HCA_DECODE, CSAK_CSA_PREFILL, CSAK_HCA_PREFILL, CSAK_CSA_LOGITS,
		CSAK_HCA_ATTN, CSAK__COUNT };

const char *csa_kind_name(enum csa_kind k);

struct csatab; /* opaque: the rows of one file */

/* Load a dsv4_module table; SS_EIO / SS_EDATA with file:line on errors. */
int csatab_load(const char *path, struct csatab **out, struct err *e);
void csatab_free(struct csatab *t);

struct csa_cut {
	size_t n;
	double *batch, *isl, *prefix, *us; /* [n] each, latency in us */
	char model[16];                    /* the geometry picked */
	int hidden;
	int heads_lo, heads_hi;            /* measured head counts used (equal: exact or clamped) */
};

/* The points of kind k for a model of `hidden` with `heads` heads per GPU:
 * 0 with *c filled (release with csa_cut_release), 1 when the table has no
 * rows of that kind (c zeroed). */
int csatab_cut(const struct csatab *t, enum csa_kind k, int hidden, double heads, struct csa_cut *c);
void csa_cut_release(struct csa_cut *c);

#endif
