/* dsamod.h - the DSA module term: an engine's measured DeepSeek sparse
 * attention module (DeepSeek-V3.2, GLM-5; hw/dsatab.h) against servesim's
 * sum of the same parts, added per DSA layer.
 *
 * At start-up the engine's module table on the GPU (the collection mfu_load
 * would use, falling back the same way) is cut at the model's geometry,
 * heads per GPU, KV and projection dtypes (dsatab_grid); at every measured
 * point the parts are priced by the cost model itself (cost_dsa_parts_s, handed in)
 * and the excess module - parts kept, in seconds, on the table's batch x len
 * grid.  Holes are filled as hw/lgrid.h does (linear in log batch and log
 * len between measured points, past the last measured batch in proportion
 * to the batch, else from the nearest).  A step adds, per layer, the excess at
 * its decode batch and mean keys (bilinear in log batch and log keys; past
 * the largest batch in proportion to the batch), and at its prefill chunks
 * taken as that many prefix-free prompts of their mean length (past the
 * grid in proportion to the chunks and to the tokens); a cached prefix
 * reaches the price through the parts (the indexer scores every key).
 * Where a phase was measured for layers that reuse an earlier layer's top-k
 * (SGLang's skip-indexer rows, GLM-5.2) those layers take its excess;
 * elsewhere the caller's fallback (the engine's plain MLA module terms).
 *
 * Library-internal: dsa.c is its only caller (cost.c frees it). */
#ifndef SERVESIM_DSAMOD_H
#define SERVESIM_DSAMOD_H
#include <stdbool.h>
#include <stddef.h>

#include "cost/engterms.h"
#include "base/err.h"

struct dsa_module;

/* The price of one DSA layer's parts at a table point (dsa.c's
 * cost_dsa_parts_s, handed down so that this module never calls up into the
 * cost model; ctx is the cost model, opaque here): prefill or decode, a
 * layer running its own indexer or not, batch requests of len tokens
 * (prefill) or keys (decode), seconds. */
typedef double (*dsa_parts_fn)(const void *ctx, bool prefill, bool own, double batch, double len);

/* Build the term for c (a DSA model), the excess of each measured point
 * over parts(ctx, ...) (ctx: the otherwise complete cost model): 0 with
 * *out set, or with *out
 * NULL when the engine has no module table on c's GPU (or the GPU carries
 * InferSim measurements of its own: g->measured); <0 on a bad table. */
int dsa_module_init(const struct cost_mod_in *c, dsa_parts_fn parts, const void *ctx, const char *data_dir,
		    struct dsa_module **out, struct err *e);
void dsa_module_free(struct dsa_module *d);
/* Excess of one layer, seconds: n decode requests attending `keys` keys
 * each on average; own: a layer running its own indexer.  shared_fallback
 * is returned for a shared layer where no shared phase was measured. */
double dsa_module_decode_s(const struct dsa_module *d, bool own, double n, double keys,
			   double shared_fallback);
/* Same for a step's nchunks prefill chunks of `tokens` new tokens in all. */
double dsa_module_prefill_s(const struct dsa_module *d, bool own, double nchunks, double tokens,
			    double shared_fallback);
/* Whether the shared (top-k reusing) layers have a measured phase. */
bool dsa_module_has_shared(const struct dsa_module *d, bool prefill);
/* One line for the run header: the table, what it was cut at, and the
 * excess at a few sizes. */
void dsa_module_note(const struct dsa_module *d, bool prefill, char *out, size_t cap);

#endif
