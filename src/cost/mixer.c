/* mixer.c - the attention of a step over the model's layer groups (its
 * mixers), each priced by its kernel family: full attention (GQA in attn.c,
 * MLA in mla.c, DSA in dsa.c), sliding-window and chunked-local layers
 * (attn.c), linear attention (linattn.c) and DeepSeek-V4's blocks (csa.c). */
#include <math.h>

#include "cost/costmodel.h"
#include "cost/csamod.h"
#include "cost/kern.h"

/* --- attention, summed over layer groups ---
 * A model's layers fall in groups priced differently: full attention (all
 * earlier keys; MLA and DSA included), sliding-window (keys capped at the
 * window, with the sliding layers' own head layout), chunked-local (keys of
 * the query's own chunk) and linear attention (a recurrent update over a
 * fixed-size state, priced as one launch: a roofline of its FLOPs and the
 * state read and written once per sequence).  cost_attn_prefill_s and
 * cost_attn_decode_s return the sum over groups divided by the number of
 * layers, i.e. the mean per layer, so that callers multiply by layers. */

/* The prefix-free prefill length whose queries, each seeing at most w keys,
 * make `pairs` query-key pairs (attn_capped_pairs inverted): a chunk after
 * a cached prefix is looked up in the windowed tables as the prefill with
 * its pairs. */
static double window_isl(double pairs, double w)
{
	double tri = w * (w + 1) / 2;

	if (pairs <= tri)
		return (sqrt(8.0 * pairs + 1) - 1) / 2;
	return w + (pairs - tri) / w;
}

/* Full-attention layer (GQA, MLA, DSA) for a step's prefill chunks. */
static double full_prefill_s(const struct cost_model *c, const struct chunk_sums *k)
{
	const struct model_cfg *m = c->m;

	if (m->attn != ATTN_MLA) {
		struct attn_group g = cost_attn_full_group(c);
		return cost_gqa_prefill_s(c, &g, k->n, k->pairs, k->ctx, k->tok, NULL, 0.0) *
		       cost_triton_attn_scale(c, k->pairs, k->tok);
	}
	if (m->index_topk > 0)
		return cost_dsa_prefill_s(c, k);
	return cost_mla_prefill_s(c, k);
}

/* Full-attention layer (GQA, MLA, DSA) for n decode requests (lm: the
 * log of their mean context taken already, or NULL). */
static inline double full_decode_s(const struct cost_model *c, int64_t n, double ctx_sum,
				   const struct cost_log_mean *lm)
{
	if (c->m->attn == ATTN_MLA && c->m->index_topk > 0)
		return cost_dsa_decode_s(c, n, ctx_sum);
	return cost_gqa_decode_full_s(c, n, ctx_sum, lm) + cost_mla_decode_floor_s(c, n);
}

/* One layer of mixer mix for a step's n >= 1 prefill chunks (len[i] tokens
 * after prefix[i]; k: their count, new and context tokens, pairs 0) run as
 * one call, seconds; 0 for a mixer without attention. */
static double prefill_mixer_s(const struct cost_model *c, int mix, const struct chunk_sums *k0, int64_t n,
			      const int64_t *len, const int64_t *prefix)
{
	const struct model_cfg *m = c->m;
	struct chunk_sums k = *k0;
	int64_t i;

	if (c->csa) /* DeepSeek-V4: the chunks as that many prompts of their mean length and prefix */
		return csa_module_prefill_s(c->csa, mix, k.n, k.tok, (k.ctx - k.tok) / k.n);
	switch (mix) {
	case LM_FULL:
		for (i = 0; i < n; i++) {
			k.pairs += attn_causal_pairs(len[i], prefix[i]);
			if (m->index_topk > 0)
				k.topk_pairs += attn_capped_pairs(len[i], prefix[i], m->index_topk);
		}
		return full_prefill_s(c, &k);
	case LM_SLIDING: {
		struct attn_group g = cost_attn_window_group(c);
		int64_t w = m->window.size;
		double pairs = 0, keys = 0, wl;
		for (i = 0; i < n; i++) {
			pairs += attn_capped_pairs(len[i], prefix[i], w);
			keys += (double)(prefix[i] < w - 1 ? prefix[i] : w - 1) + (double)len[i];
		}
		wl = window_isl(pairs / k.n, (double)w);
		return cost_gqa_prefill_s(c, &g, k.n, pairs, keys, k.tok, &c->win_prefill, wl < 1 ? 0.0 : log(wl)) *
		       cost_triton_attn_scale(c, pairs, k.tok);
	}
	case LM_CHUNKED: {
		struct attn_group g = cost_attn_full_group(c);
		double pairs = 0, keys = 0;
		for (i = 0; i < n; i++) {
			pairs += attn_chunked_pairs(len[i], prefix[i], m->chunk);
			keys += (double)(prefix[i] % m->chunk) + (double)len[i];
		}
		return cost_gqa_prefill_s(c, &g, k.n, pairs, keys, k.tok, NULL, 0.0) *
		       cost_triton_attn_scale(c, pairs, k.tok);
	}
	case LM_LINEAR:
		return cost_linear_attn_s(c, k.tok, k.n, false);
	default:
		return 0;
	}
}

/* A step's n prefill chunks summed (pairs left 0: each mixer counts its own). */
static struct chunk_sums chunks_of(int64_t n, const int64_t *len, const int64_t *prefix)
{
	struct chunk_sums k = {(double)n, 0, 0, 0, 0};
	int64_t i;

	for (i = 0; i < n; i++) {
		k.tok += (double)len[i];
		k.ctx += (double)(len[i] + prefix[i]);
	}
	return k;
}

/* Mean per layer of the attention for a step's n >= 1 prefill chunks
 * (len[i] tokens after prefix[i]) run as one call per layer. */
double cost_attn_prefill_n_s(const struct cost_model *c, int64_t n, const int64_t *len, const int64_t *prefix)
{
	const struct model_cfg *m = c->m;
	const int64_t *nk = m->n_mixer;
	struct chunk_sums k = chunks_of(n, len, prefix);
	double t = 0;

	if (c->csa) /* DeepSeek-V4: the chunks as that many prompts of their mean length and prefix */
		return cost_csa_attn_s(c, true, k.n, k.tok, (k.ctx - k.tok) / k.n) / (double)m->layers;
	if (nk[LM_FULL] > 0)
		t += (double)nk[LM_FULL] * prefill_mixer_s(c, LM_FULL, &k, n, len, prefix);
	if (nk[LM_SLIDING] > 0)
		t += (double)nk[LM_SLIDING] * prefill_mixer_s(c, LM_SLIDING, &k, n, len, prefix);
	if (nk[LM_CHUNKED] > 0)
		t += (double)nk[LM_CHUNKED] * prefill_mixer_s(c, LM_CHUNKED, &k, n, len, prefix);
	if (nk[LM_LINEAR] > 0)
		t += (double)nk[LM_LINEAR] * prefill_mixer_s(c, LM_LINEAR, &k, n, len, prefix);
	return t / (double)m->layers;
}

/* Mean per layer of the attention for a prefill chunk of len tokens after prefix. */
double cost_attn_prefill_s(const struct cost_model *c, int64_t len, int64_t prefix)
{
	return cost_attn_prefill_n_s(c, 1, &len, &prefix);
}

/* Mean per layer of the attention for a step's prefill chunks. */
double cost_attn_prefill_step_s(const struct cost_model *c, int64_t n, const int64_t *len,
				const int64_t *prefix)
{
	return n > 0 ? cost_attn_prefill_n_s(c, n, len, prefix) : 0.0;
}

/* Mean per layer of the attention for n decode requests attending ctx_sum
 * keys in all (per full-attention layer). */
/* One layer of mixer mix for n >= 1 decode requests attending ctx_sum keys
 * in all, seconds; 0 for a mixer without attention. */
static double decode_mixer_s(const struct cost_model *c, int mix, int64_t n, double ctx_sum,
			     const struct cost_log_mean *lm)
{
	const struct model_cfg *m = c->m;
	double mean = ctx_sum / (double)n;

	if (c->csa) {
		double prefix = mean - 1; /* csa_attn_s's prefix, as it takes it */
		return csa_module_decode_s(c->csa, mix, (double)n, prefix + 1);
	}
	switch (mix) {
	case LM_FULL:
		return full_decode_s(c, n, ctx_sum, lm);
	case LM_SLIDING: {
		/* each request's keys capped at the window (the mean as proxy);
		 * lm->mean is this mean (the same expression) */
		struct attn_group g = cost_attn_window_group(c);
		double w = (double)m->window.size;
		struct cost_log_mean l2 = {NAN, 0, w, c->log_window}; /* (past the window: its mean is w) */
		if (lm) {
			l2.mean = lm->mean;
			l2.log_mean = lm->log_mean;
		}
		return cost_gqa_decode_s(c, &g, n, (double)n * (mean < w ? mean : w), &c->win_decode,
					 lm ? lm->log_mean : mean < 1 ? 0.0 : log(mean), &l2);
	}
	case LM_CHUNKED: {
		/* past the first chunk a request sees chunk/2 keys on average */
		struct attn_group g = cost_attn_full_group(c);
		double ch = (double)m->chunk;
		return cost_gqa_decode_s(c, &g, n, (double)n * (mean <= ch ? mean : ch / 2), NULL, 0.0, NULL);
	}
	case LM_LINEAR:
		return cost_linear_attn_s(c, (double)n, (double)n, true);
	default:
		return 0;
	}
}

double cost_attn_decode_s(const struct cost_model *c, int64_t n, double ctx_sum)
{
	const struct model_cfg *m = c->m;
	const int64_t *nk = m->n_mixer;
	double t = 0, mean;
	struct cost_log_mean lmv, *lm = NULL;

	if (n <= 0)
		return 0;
	mean = ctx_sum / (double)n;
	if (c->csa)
		return cost_csa_attn_s(c, false, (double)n, (double)n, mean - 1) / (double)m->layers;
	/* with sliding layers the log of the mean is taken once for the step
	 * (the full layers' MFU, the sliding layers' window term and, where
	 * their capped mean is the same double, their MFU: one log where there
	 * were up to three; gpt-oss) */
	if (nk[LM_SLIDING] > 0) {
		lmv.mean = mean;
		lmv.log_mean = mean < 1 ? 0.0 : log(mean);
		lmv.alt = NAN;
		lmv.log_alt = 0;
		lm = &lmv;
	}
	if (nk[LM_FULL] > 0)
		t += (double)nk[LM_FULL] * full_decode_s(c, n, ctx_sum, lm); /* (decode_mixer_s's LM_FULL) */
	if (nk[LM_SLIDING] > 0)
		t += (double)nk[LM_SLIDING] * decode_mixer_s(c, LM_SLIDING, n, ctx_sum, lm);
	if (nk[LM_CHUNKED] > 0)
		t += (double)nk[LM_CHUNKED] * decode_mixer_s(c, LM_CHUNKED, n, ctx_sum, NULL);
	if (nk[LM_LINEAR] > 0)
		t += (double)nk[LM_LINEAR] * decode_mixer_s(c, LM_LINEAR, n, ctx_sum, NULL);
	return t / (double)m->layers;
}

/* The step's chunks and decodes. */
double cost_attn_step_mixer_s(const struct cost_model *c, const struct step_desc *s, int mix)
{
	double t = 0;

	if (s->nchunks > 0) {
		struct chunk_sums k = chunks_of(s->nchunks, s->chunk_len, s->chunk_prefix);
		t += prefill_mixer_s(c, mix, &k, s->nchunks, s->chunk_len, s->chunk_prefix);
	}
	if (s->ndecode > 0)
		t += decode_mixer_s(c, mix, s->ndecode, s->decode_ctx_sum, NULL);
	return t;
}
