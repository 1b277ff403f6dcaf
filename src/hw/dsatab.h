/* dsatab.h - measured DSA attention module tables (data/mfu/<gpu>/
 * <engine>-<version>/dsa_module.csv.gz, written by scripts/mfu/derive_dsa.py
 * from aiconfigurator's dsa_{generation,context}_module_perf tables).
 *
 * A row times one whole DeepSeek sparse attention block (DeepSeek-V3.2,
 * GLM-5: MLA projections, norms and RoPE, the lightning indexer with its
 * projections, scores and top-k, the sparse MLA kernel, o_proj) as one
 * engine runs it on one GPU: `batch` requests each attending `len` keys with
 * one new token (decode), or `batch` prefix-free prompts of `len` tokens
 * (prefill); `heads` attention heads on the GPU; per model geometry (hidden
 * size), KV-cache dtype and projection dtype.  The *_shared phases time a
 * layer that reuses an earlier layer's top-k (GLM-5.2), where measured.
 *
 * dsatab_grid cuts one phase out as a latency grid over batch x len at a
 * model's head count: the nearest geometry by hidden size, the wanted KV
 * and projection dtypes where measured (else the other), and the heads
 * exact or log-log interpolated between the two measured counts around them
 * (clamped at the ends).  Points measured at one head count and not the
 * other are holes (NAN). */
#ifndef SERVESIM_DSATAB_H
#define SERVESIM_DSATAB_H
#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "hw/gpu.h"

enum dsa_phase { DSA_DECODE, DSA_PREFILL, DSA_DECODE_SHARED, DSA_PREFILL_SHARED, DSA_PHASE__COUNT };

const char *dsa_phase_name(enum dsa_phase p);

struct dsatab; /* opaque: the rows of one file */

/* Load a dsa_module table; SS_EIO / SS_EDATA with file:line on errors. */
int dsatab_load(const char *path, struct dsatab **out, struct err *e);
void dsatab_free(struct dsatab *t);

struct dsa_grid {
	size_t nb, nl;
	double *batch, *len;    /* ascending axes: the union of the measured values */
	double *us;             /* [nb x nl] by batch then len: latency in us, NAN = not measured */
	char model[16];         /* the geometry picked, and what it was picked on */
	int hidden;
	enum dtype kv, gemm;
	int heads_lo, heads_hi; /* measured head counts used (equal: exact or clamped) */
};

/* The grid of phase ph for a model of `hidden` with `heads` heads per GPU:
 * 0 with *g filled (release it with dsa_grid_release), 1 when the table has
 * no rows of that phase (g zeroed). */
int dsatab_grid(const struct dsatab *t, enum dsa_phase ph, int hidden, double heads, enum dtype kv,
		enum dtype gemm, struct dsa_grid *g);
void dsa_grid_release(struct dsa_grid *g);

#endif
