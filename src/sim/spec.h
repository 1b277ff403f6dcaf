/* spec.h - speculative decoding and MTP as vLLM V1 runs them: each decode
 * step of a request verifies its last token plus K draft tokens (a
 * width-(K+1) forward pass: decode GEMMs, attention and LM head on K+1
 * positions), accepts a prefix of the drafts and samples one more token, so
 * a step yields 1..K+1 tokens.  Acceptance: one rate A (draft position i is
 * accepted with probability A once positions 1..i-1 were: the geometric
 * model) or one rate per position A1..AK (the same, position i with Ai);
 * draws from one seeded PCG32 stream (stream 11 of the workload seed) in
 * the scheduler's order, or, for a lazy verifier (specpath.h: vLLM's and
 * TensorRT-LLM's schedulers where pooled gaps are only counted), its whole
 * path at once as it joins, one draw a step.  Draft cost per step for n requests: mtp and eagle
 * run K sequential passes of one decoder layer plus the LM head on n tokens
 * (an MTP module is one DeepSeek-V3 decoder layer; an EAGLE draft head is
 * one decoder layer), ngram nothing on the GPU (a CPU lookup), a draft
 * model K decode steps of its own. */
#ifndef SERVESIM_SPEC_H
#define SERVESIM_SPEC_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cost/cost.h"
#include "base/err.h"
#include "base/pcg32.h"

enum spec_method { SPEC_NONE, SPEC_MTP, SPEC_EAGLE, SPEC_NGRAM, SPEC_DRAFT };

#define SPEC_MAX_TOKENS 16

struct spec_cfg {
	enum spec_method method;
	int k;                          /* draft tokens per step (0 = off) */
	int nrates;                     /* 1: geometric; k: one per position */
	double rate[SPEC_MAX_TOKENS];
	const struct cost_model *draft; /* SPEC_DRAFT: the draft model's costs */
	char src[240];                  /* where the rates come from ("" = given) */
};

/* The measured default acceptance of sp->method for sp->k drafts: the
 * conditional acceptance of draft position i is a x d^(i-1) (capped at 1),
 * a and d fitted per method on measured mean acceptance lengths
 * (data/specdec/, scripts/specdec/fit_acceptance.py); sets rate[0..k-1],
 * nrates = k and src.  random_prompts: the workload sends a benchmark
 * client's synthetic prompts, priced with the method's random-prompt curve
 * (MTP), else its text curve (src says so).
 * -1 (sp unchanged) for a method without measurements (ngram, a draft
 * model). */
int spec_default_rates(struct spec_cfg *sp, bool random_prompts);
/* Mean acceptance length of sp's rates over its k drafts (tokens a step
 * yields, the bonus token included). */
double spec_mean_accepted_len(const struct spec_cfg *sp);

const char *spec_method_name(enum spec_method m);
/* "mtp", "eagle", "ngram" or "draft:MODEL" (MODEL copied into draft_model). */
int spec_parse_method(const char *s, enum spec_method *m, char *draft_model, size_t n,
		      struct err *e);
/* "A" or "A1,...,AK" with every value in [0, 1]; k must be set first. */
int spec_parse_rates(const char *s, struct spec_cfg *sp, struct err *e);
/* The acceptance test of each draft position as an integer threshold
 * (spec_draws_init): position a is accepted when the 53 bits of
 * pcg32_double's draw, read as an integer X, are below thr[a].  The same
 * test as pcg32_double(r) < p, bit for bit: X * 2^-53 is exact, so it is
 * below p exactly when X < ceil(p * 2^53).  thr 0: p <= 0, rejected
 * without a draw; SPEC_DRAW_SURE: p >= 1, accepted without one.
 * Why: the draws are per verifying request and step (a fifth of the
 * instructions of an MTP row of the silicon eval); the high 27 bits decide
 * all but one draw in 2^27, so the low output's mixing and the conversion
 * to double are skipped. */
#define SPEC_DRAW_SURE UINT64_MAX
struct spec_draws {
	uint64_t thr[SPEC_MAX_TOKENS];
	/* a draw's two steps of the stream as one: state' = m2 state + c2
	 * (the LCG's step composed with itself, for the stream's inc): one
	 * multiplication a draw on the chain from draw to draw, not two */
	uint64_t m2, c2;
};
/* dr from sp's rates, for a stream of increment inc (pcg32.inc). */
void spec_draws_init(const struct spec_cfg *sp, uint64_t inc, struct spec_draws *dr);

/* Drafts accepted out of k offered (0..k <= SPEC_MAX_TOKENS), drawn from r:
 * position a in turn, while accepted, with probability sp->rate[a] (one
 * rate: rate[0]) as spec_draws_init made dr of sp (for r's inc). */
static inline int spec_accepted(const struct spec_draws *dr, int k, struct pcg32 *r)
{
	int a;

	for (a = 0; a < k; a++) {
		uint64_t t = dr->thr[a], hi, th;
		if (t == SPEC_DRAW_SURE)
			continue;
		if (t == 0)
			break;
		/* pcg32_double's high 27 bits, then its low 26 only when the
		 * high ones tie with the threshold's */
		hi = pcg32_output(r->state) >> 5;
		th = t >> 26;
		if (hi != th) {
			r->state = r->state * dr->m2 + dr->c2; /* pcg32_next, pcg32_skip */
			if (hi > th)
				break;
			continue;
		}
		pcg32_skip(r);
		if ((uint64_t)(pcg32_next(r) >> 6) >= (t & ((1u << 26) - 1)))
			break;
	}
	return a;
}
/* Seconds to draft k tokens for each of n requests attending ctx_sum keys
 * in all, with c the target model's costs. */
double spec_draft_s(const struct spec_cfg *sp, const struct cost_model *c, int64_t n,
		    double ctx_sum);

#endif
