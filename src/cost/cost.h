/* cost.h - tier-0 step pricing: a per-operator roofline fed with measured
 * MFU tables, precomputed per model/GPU so that pricing one engine step is a
 * handful of table lookups.
 *
 *   t_step = T_tok[m] (every op whose work scales with the step's tokens:
 *            GEMMs at fused shapes, norms, RoPE, MoE, TP all-reduce, EP a2a)
 *          + sum over prefill chunks of attention(chunk, prefix)
 *          + attention over the decode batch's per-request contexts
 *          + LM head on the sequences that produce a token
 *          + overheads (per step, per layer, per request)
 *   t_op   = max(FLOPs / (peak x MFU(shape)), bytes / (HBM BW x bw_eff))
 *
 * Six corrections can be switched off for ablation (tier0_off bits):
 * H1 bandwidth term, H2 overheads, H3 fused shapes, H4 per-component pricing
 * (off = one aggregate roofline), H5 additive mixed batches (off = 0.75/0.25
 * weighted average of the prefill and decode parts), H6 interpolation (off =
 * nearest grid point). */
#ifndef SERVESIM_COST_H
#define SERVESIM_COST_H

#include "cost/costmodel.h"

/* Parse "H1,H4" into bits; SS_EUSAGE on anything else. */
int cost_parse_off(const char *s, unsigned *bits, struct err *e);
/* Defaults chosen by the H2 protocol (see DESIGN notes in README); nothing
 * given, so a scenario takes its engine's own terms (engine_host). */
void cost_default_overheads(struct overheads *ov);
/* The terms of over that were given (over->given) replace base's. */
void cost_overheads_apply(struct overheads *base, const struct overheads *over);
/* The terms named by OV_* bits `terms` times k (eval --cv's refits). */
void cost_overheads_scale(struct overheads *ov, unsigned terms, double k);
/* Whether a and b hold the same values of the terms named by `terms`. */
bool cost_overheads_same(const struct overheads *a, const struct overheads *b, unsigned terms);
const char *cost_src_name(enum cost_src s);
int cost_init(struct cost_model *c, const struct model_cfg *m, const struct gpu_spec *g,
	      const struct parallel *p, const struct cost_cfg *cfg, const char *data_dir,
	      struct err *e);
void cost_release(struct cost_model *c);
/* Seconds of one engine step (all pipeline stages).  With attention-DP
 * (c->dp_attn) the step is one DP rank's: attention, dense and shared-expert
 * parts at its own batch, the routed experts and EP all-to-all at
 * s->moe_tokens; the lockstep step costs the maximum over the ranks. */
double cost_step_s(const struct cost_model *c, const struct step_desc *s);
/* An attention-DP rank's decode-only step (cost_step_splits: no prefill
 * chunk, moe_tokens > 0, priced through its components) in two parts, so
 * that the first can be kept by the rank's own requests: what depends on
 * them alone (cost_step_local_s: attention, GEMMs, LM head, PP sends) and
 * the step's price from it and the group's MoE tokens (cost_step_join_s:
 * the shared MoE layers added, then the overheads).
 * cost_step_join_s(c, s, cost_step_local_s(c, s)) is cost_step_s(c, s) bit
 * for bit: the same operations on the same values, in the same order. */
bool cost_step_splits(const struct cost_model *c, const struct step_desc *s);
/* cost_step_splits of any decode-only step (no chunk) with moe_tokens > 0:
 * a property of the cost model (what a caller pricing many such steps
 * tests once per model). */
bool cost_splits_decode(const struct cost_model *c);
double cost_step_local_s(const struct cost_model *c, const struct step_desc *s);
/* The summed contexts [*lo, *hi) (*lo INFINITY: none) of the decode-only
 * steps s of n decoders (any count of sampled sequences) where the price
 * of s in two parts,
 * cost_step_join_moe_s(c, s, cost_step_local_s(c, s), moe) for any moe, is
 * no less than that of every step with its counts (decoders, sampled
 * sequences; no chunk) and smaller summed contexts for which this also
 * holds: its decode attention's compute time rises with the summed
 * contexts from some mean context up by a margin larger than any rounding
 * of its evaluation (mfu_row_rises_from), s is past that mean, and every
 * other term of the price is a rounded sum, product or maximum of that
 * time and terms of the counts alone.  For a caller that needs only the
 * slowest of many such steps (an attention-DP group step, step.c), which
 * it may then take from the one with the largest sum; one that asks at
 * every step keeps the range by n. */
void cost_local_rise_range(const struct cost_model *c, int64_t n, double *lo, double *hi);
/* The same for the draft layer's price of n drafting sequences (spec.c
 * spec_draft_s of MTP and EAGLE through cost_draft_pair_s): no smaller
 * for larger summed contexts within [*lo, *hi). */
void cost_draft_rise_range(const struct cost_model *c, int64_t n, double *lo, double *hi);
double cost_step_join_s(const struct cost_model *c, const struct step_desc *s, double local_s);
/* cost_step_join_s in its two parts: the shared MoE layers of a group
 * step of moe_tokens (ext: some rank prefills), the same for every rank of
 * the group, and the price from a rank's local part and that one.
 * cost_step_join_moe_s(c, s, l, cost_step_moe_s(c, s->moe_tokens,
 * s->moe_extend)) is cost_step_join_s(c, s, l) bit for bit. */
double cost_step_moe_s(const struct cost_model *c, int64_t moe_tokens, bool ext);
double cost_step_join_moe_s(const struct cost_model *c, const struct step_desc *s, double local_s, double moe_s);
/* cost_step_s of s and, in *t2, of the same step with nl2 sampled
 * sequences (nlogits): the same bits as two cost_step_s calls, the parts
 * that do not depend on the sampled sequences (attention, GEMMs, MoE)
 * priced once (speculative decoding's draft layer and LM head). */
double cost_step_pair_s(const struct cost_model *c, const struct step_desc *s, int64_t nl2, double *t2);
/* cost_step_pair_s of a decode-only step of n requests attending ctx_sum
 * keys in all, none sampled and no group's MoE tokens, with nl2 = n, and
 * in *ov_s cost_overhead_s(c, n, 0): the same bits as those calls, cheaper
 * (MTP's and EAGLE's draft layer, priced at every step). */
double cost_draft_pair_s(const struct cost_model *c, int64_t n, double ctx_sum, double *t2, double *ov_s);
/* The work of one step on one GPU of a stage: *flops (GEMMs and the
 * other operators at the step's tokens, attention over its query-key
 * pairs, the LM head on its nlogits sequences) and *bytes (weights read,
 * the LM head's included once it samples, activations, the KV read and
 * written),
 * as the H4-off roofline counts them; returns the step's tokens (0: no
 * work).  With attention-DP (c->dp_attn) the shared MoE layers priced at
 * the group's moe_tokens add this GPU's share of them (every GPU of every
 * rank holds its slots of the experts and runs them on the tokens routed
 * to them: the same share on each, counted once a GPU by its own rank's
 * step).  What the power model (hw/power.h) drives GPU activity from. */
int64_t cost_step_work(const struct cost_model *c, const struct step_desc *s, double *flops, double *bytes);
/* Fills the entries cost_step_work reads for step s (per token count, and
 * with attention-DP per group's MoE tokens): after it, cost_step_work of
 * s only reads c, so another thread may run it while this one prices
 * other steps (sim/sinkq.h; the fill's writes published to it before the
 * step is). */
void cost_step_work_need(const struct cost_model *c, const struct step_desc *s);
/* cost_step_work of a decode-only step (no chunks, ndecode > 0) split at
 * its summed contexts: what depends on its cost model, decoders and
 * sampled sequences alone (cost_work_dec, the key) and, with attention-DP,
 * on the group's MoE tokens alone (cost_work_moe: one group step's ranks
 * share it) is worked out once (the _fill functions) and kept for the next
 * step with the same key, which adds only the terms of its summed contexts
 * (cost_work_of: the same operations on the same values as
 * cost_step_work's, so the same bits).  The energy meter's, at every
 * metered step (sim/step.c meter_step). */
struct cost_work_dec {
	const struct cost_model *c;           /* NULL: nothing kept */
	int64_t ndecode, nlogits;             /* the key */
	double tok_f, tok_b;                  /* the token-linear part's work at ndecode */
	double l2, heads, hd;                 /* attention FLOPs: l2 x ctx x heads x hd */
	double layers, kv_b;                  /* KV bytes: layers x ctx x kv_b */
	double head_f, head_b;                /* the LM head's */
	bool head;                            /* whether it is added */
	bool moe;                             /* attention-DP: the group's MoE share added */
	int64_t own_g;                        /* its MoE tokens where the step names none */
};
struct cost_work_moe {
	const struct cost_model *c;           /* NULL: nothing kept */
	int64_t g;                            /* the key: the group's MoE tokens */
	double f, b;                          /* this GPU's share of them */
};
/* w's parts for c and decode-only step s; m's for c and g MoE tokens (c's
 * tables they read filled). */
void cost_work_dec_fill(struct cost_work_dec *w, const struct cost_model *c, const struct step_desc *s);
void cost_work_moe_fill(struct cost_work_moe *m, const struct cost_model *c, int64_t g);

static inline void cost_work_of(struct cost_work_dec *w, struct cost_work_moe *m, const struct cost_model *c,
				const struct step_desc *s, double *flops, double *bytes)
{
	double f, b, x = s->decode_ctx_sum;

	if (w->c != c || w->ndecode != s->ndecode || w->nlogits != s->nlogits)
		cost_work_dec_fill(w, c, s);
	/* cost_step_work's expressions in its order: the body's two sums
	 * (its pairs and KV tokens are the summed contexts alone), then the
	 * head's and the MoE share's additions */
	f = w->tok_f + w->l2 * x * w->heads * w->hd;
	b = w->tok_b + w->layers * x * w->kv_b;
	if (w->head) {
		f += w->head_f;
		b += w->head_b;
	}
	if (w->moe) {
		int64_t g = s->moe_tokens > 0 ? s->moe_tokens : w->own_g;
		if (m->c != c || m->g != g)
			cost_work_moe_fill(m, c, g);
		f += m->f;
		b += m->b;
	}
	*flops = f;
	*bytes = b;
}

/* Padded batch a CUDA graph would run for n decode tokens (n if none fits). */
int64_t cost_graph_pad(const struct cost_model *c, int64_t n);
double cost_overhead_s(const struct cost_model *c, int64_t nreq, int64_t prefill_tokens);
/* The token-linear part of a step of m tokens (GEMMs, norms, collectives;
 * linear in m past max_m), seconds. */
double cost_tok_s(const struct cost_model *c, int64_t m);
/* A step's price component by component, for `run --breakdown`: each layer
 * kind's operators in graph order, each priced as cost_step_s prices it
 * (token-linear operators at the step's tokens, the attention call of the
 * kind's mixer once per layer, MLA's absorb BMMs, attention-DP's shared MoE
 * part at all ranks' tokens), then the step's own terms (pipeline hand-off,
 * the eager launch floor, the host terms and what overlap scheduling hides).
 * The rows' count x s sums to cost_step_s up to rounding (step_s holds it).
 * SS_EUSAGE with H4 or H5 off (the step is then not priced per component). */
enum cost_part { CP_ATTN, CP_GEMM, CP_MOE, CP_COMM, CP_OTHER, CP_HOST, CP__COUNT };
const char *cost_part_name(enum cost_part p);
/* How a row is priced: on its own; inside another row's price (the fused
 * MoE kernel, the attention call or block); not at all (final_norm). */
enum cost_bd_how { BD_PRICED, BD_INSIDE, BD_UNPRICED };

struct cost_bd_row {
	char kind[24];       /* the layer kind (opgraph.h), or "step" */
	char op[32];         /* the operator or term */
	enum cost_part part;
	double count;        /* times it runs in the step (layers of the kind) */
	double s;            /* seconds per run */
	double flops;        /* per run; 0 where not counted (attention, elementwise ops) */
	enum cost_bd_how how;
};

struct cost_breakdown {
	struct cost_bd_row *rows;
	size_t n;
	int64_t tokens;       /* new tokens in the step (one DP rank's) */
	int64_t graph_tokens; /* what the token-linear ops run at (CUDA-graph padding) */
	int64_t moe_tokens;   /* attention-DP: tokens entering the shared MoE layers, else 0 */
	double gpu_s;         /* the rows before the step's host terms */
	double rows_s;        /* all rows: sum of count x s */
	double step_s;        /* cost_step_s of the same step */
};

int cost_step_breakdown(const struct cost_model *c, const struct step_desc *s, struct cost_breakdown *bd,
			struct err *e);
void cost_breakdown_release(struct cost_breakdown *bd);


/* The JIT cache key of a step of m tokens on aiter's Triton kernel (its
 * GRID_MN bucket and M's divisibility by 16), or -1 where the engine
 * compiled it at start-up (m <= c->tbs_jit_warm_m). */
int64_t cost_tbs_jit_key(const struct cost_model *c, int64_t m);

#endif
