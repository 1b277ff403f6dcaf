/* csamod.h - DeepSeek-V4 attention priced from each engine's measured
 * attention blocks (hw/csatab.h): one CSA or HCA layer's whole attention
 * (projections, compressor, indexer, sparse attention, grouped output
 * projection; not the input norm, the TP all-reduce or the hyper-connections)
 * at a step's decode batch and prefill chunks.
 *
 * At start-up the engine's table on the GPU (the collection mfu_load would
 * use, falling back the same way) is cut at the model's geometry and heads
 * per GPU; the points become latency grids: decode over batch x keys, prefill
 * one batch x prompt-length grid per measured cached prefix (the prefixes the
 * collector swept: vLLM 0, 128, 2k, 4k; SGLang 0 to 1M).  Holes are filled
 * along each axis (linear in log between measured points, in proportion to
 * the batch past the last measured batch, else the nearest point).  A step
 * takes, per layer, the decode latency at its decode batch and mean keys
 * (bilinear in log batch x log keys; past the largest batch in proportion to
 * the batch) and the prefill latency of its chunks taken as that many
 * prompts of their mean length after their mean prefix (bilinear in log
 * batch x log length, linear in the prefix between the measured prefixes;
 * past the longest prompt in proportion to the tokens).  Past the longest
 * measured prefix or context (vLLM: 4k prefix, 64k keys) the growth comes
 * from the kernels the collector timed alone up to 1M keys: the CSA
 * indexer's paged MQA logits, HCA's sparse attention (x max(heads, 64) / 64,
 * FlashMLA's padded heads).  Layers of ratio 0 (the window only) take the
 * HCA block with the keys capped at the window: below 128 keys an HCA layer
 * has no compressed entry yet.
 *
 * Library-internal: cost.c (start-up), csa.c and mixer.c are its only callers. */
#ifndef SERVESIM_CSAMOD_H
#define SERVESIM_CSAMOD_H
#include <stdbool.h>
#include <stddef.h>

#include "cost/engterms.h"
#include "base/err.h"

struct csa_module;
struct opgraph;
struct layer_kind;

/* The operators of a DeepSeek-V4 layer kind that the measured block
 * covers: [*first, *last] (after input_norm up to wo_b); false when lk is
 * not such a kind. */
bool csa_block_range(const struct model_cfg *m, const struct layer_kind *lk, size_t *first, size_t *last);

/* What a block does at a point, per GPU: GEMM FLOPs at the weights' dtype
 * (f_lp) and at bf16 (f_hp: the bf16-stored compressor and indexer
 * projections), attention-core FLOPs (f_attn: QK and PV over the window and
 * the compressed entries at FlashMLA's padded heads, max(heads, 64), and
 * the indexer's scores) and bytes (weights, activations, the cache read and
 * written). */
struct csa_parts {
	double f_lp, f_hp, f_attn, bytes;
};

/* Build the module for c (a DeepSeek-V4 model; gr its one-token operator
 * graph): 0 with *out set (NULL for other models);
 * without a table on c's GPU the blocks are priced by the fitted parts model
 * (csa_module_has_table false); <0 on a bad table. */
int csa_module_init(const struct cost_mod_in *c, const struct opgraph *gr, const char *data_dir,
		    struct csa_module **out, struct err *e);
bool csa_module_has_table(const struct csa_module *d);
/* The parts of one layer of mixer mix at n requests of isl new tokens after
 * prefix cached ones each. */
void csa_module_parts(const struct csa_module *d, int mix, double n, double isl, double prefix,
		      struct csa_parts *p);
void csa_module_free(struct csa_module *d);
/* One layer of mixer mix (LM_CSA, LM_HCA, LM_SLIDING), seconds: n decode
 * requests attending `keys` keys each on average (the new token included). */
double csa_module_decode_s(const struct csa_module *d, int mix, double n, double keys);
/* Same for nchunks prefill chunks of `tokens` new tokens in all after
 * `prefix` cached tokens each on average. */
double csa_module_prefill_s(const struct csa_module *d, int mix, double nchunks, double tokens,
			    double prefix);
/* One line for the run header: the table, what it was cut at, and the
 * latency at a few sizes. */
void csa_module_note(const struct csa_module *d, bool prefill, char *out, size_t cap);

#endif
