/* spec.c - speculative decoding: flags, acceptance draws, draft cost. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/spec.h"
#include "base/argval.h"

const char *spec_method_name(enum spec_method m)
{
	switch (m) {
	case SPEC_MTP: return "mtp";
	case SPEC_EAGLE: return "eagle";
	case SPEC_NGRAM: return "ngram";
	case SPEC_DRAFT: return "draft";
	default: return "none";
	}
}

int spec_parse_method(const char *s, enum spec_method *m, char *draft_model, size_t n,
		      struct err *e)
{
	if (strcmp(s, "mtp") == 0)
		*m = SPEC_MTP;
	else if (strcmp(s, "eagle") == 0)
		*m = SPEC_EAGLE;
	else if (strcmp(s, "ngram") == 0)
		*m = SPEC_NGRAM;
	else if (strncmp(s, "draft:", 6) == 0 && s[6]) {
		*m = SPEC_DRAFT;
		snprintf(draft_model, n, "%s", s + 6);
	} else
		return err_set(e, SS_EUSAGE,
			       "--speculative-method must be mtp, eagle, ngram or draft:MODEL, got '%s'", s);
	return 0;
}

int spec_parse_rates(const char *s, struct spec_cfg *sp, struct err *e)
{
	const char *p = s;
	int n = 0;

	while (*p) {
		const char *end;
		double v;
		errno = 0;
		if (!argval_lead_num(p, &v, &end) || errno || (*end && *end != ',') || !(v >= 0 && v <= 1))
			return err_set(e, SS_EUSAGE,
				       "--acceptance-rate must be a rate in [0, 1] or a comma-separated list of them, got '%s'",
				       s);
		if (n == SPEC_MAX_TOKENS)
			return err_set(e, SS_EUSAGE, "--acceptance-rate: at most %d rates", SPEC_MAX_TOKENS);
		sp->rate[n++] = v;
		p = *end ? end + 1 : end;
		if (*end && !*p)
			return err_set(e, SS_EUSAGE,
				       "--acceptance-rate: '%s' ends in a comma (a rate in [0, 1], or one per draft position, "
				       "comma-separated)",
				       s);
	}
	if (n == 0)
		return err_set(e, SS_EUSAGE, "--acceptance-rate: give a rate in [0, 1]");
	if (n > 1 && n != sp->k)
		return err_set(e, SS_EUSAGE,
			       "--acceptance-rate lists %d rates but --speculative-tokens is %d (give one rate or one per draft position)",
			       n, sp->k);
	sp->nrates = n;
	return 0;
}

/* Per-position acceptance curves (scripts/specdec/fit_acceptance.py).
 * Text prompts: fitted on InferenceX's measured mean acceptance lengths
 * (SemiAnalysisAI/InferenceX @ 843c6254, Apache-2.0: vLLM on B300,
 * SPEED-Bench qualitative coding, k = 1..8; data/specdec/acceptance_al.csv),
 * every model and thinking mode of a method pooled.  Relative |AL error|
 * median (largest) in sample: MTP 0.122 (0.514) over DeepSeek-V4-Pro,
 * GLM-5.2 and Qwen3.5-397B, whose curves differ (DeepSeek's one MTP module,
 * reused for later drafts, stops gaining at 3-4 drafts: AL 2.49 at 3;
 * Qwen3.5's 3.39); EAGLE-3 0.030 (0.085) over Kimi-K2.5 and MiniMax-M3,
 * 0.014-0.031 leaving either model out.
 * Random-token prompts (a benchmark client's synthetic prompts): MTP from
 * the one per-position measurement we hold (DeepSeek-V4-Flash, 2 drafts,
 * vllm bench serve's random dataset: unconditional 0.700 / 0.287, AL 1.99,
 * where the text curve gives 0.842 / 0.669, AL 2.51;
 * data/specdec/acceptance_random.csv); EAGLE-3 has none, so it keeps its
 * text curve and says so.  Until 2026-11-28 MTP took one rate, 0.85 at
 * every position (the DeepSeek-V3 report's second-token acceptance): AL
 * 3.18 at 3 drafts against the measured 2.49-3.39 on text (issue 26). */
static const struct spec_curve {
	enum spec_method method;
	bool random_prompts;
	double first, decay;
	const char *what;
} spec_curves[] = {
	{SPEC_MTP, false, 0.842, 0.944,
	 "MTP: DeepSeek-V4-Pro, GLM-5.2, Qwen3.5-397B; InferenceX, SPEED-Bench coding prompts"},
	{SPEC_MTP, true, 0.700, 0.586,
	 "MTP: DeepSeek-V4-Flash on vllm bench serve's random-token prompts, vLLM PR 41044"},
	{SPEC_EAGLE, false, 0.795, 0.966, "EAGLE-3: Kimi-K2.5, MiniMax-M3; InferenceX, SPEED-Bench coding prompts"},
};

int spec_default_rates(struct spec_cfg *sp, bool random_prompts)
{
	const struct spec_curve *c = NULL;
	double r;
	size_t i;
	int j;

	/* the curve of the prompts' kind, else the method's text curve */
	for (i = 0; i < sizeof(spec_curves) / sizeof(spec_curves[0]); i++)
		if (spec_curves[i].method == sp->method &&
		    (!c || spec_curves[i].random_prompts == random_prompts))
			c = &spec_curves[i];
	if (!c || sp->k <= 0 || sp->k > SPEC_MAX_TOKENS)
		return -1;
	for (j = 0, r = c->first; j < sp->k; j++, r *= c->decay)
		sp->rate[j] = r < 1 ? r : 1;
	sp->nrates = sp->k;
	snprintf(sp->src, sizeof(sp->src), "measured curve %.3f x %.3f^(i-1) (%s; data/specdec)%s", c->first,
		 c->decay, c->what,
		 random_prompts && !c->random_prompts ?
			 "; random-token prompts: none measured for this method, the text curve stands in" : "");
	return 0;
}

double spec_mean_accepted_len(const struct spec_cfg *sp)
{
	double al = 1, p = 1;
	int i;

	for (i = 0; i < sp->k; i++) {
		p *= sp->rate[sp->nrates > 1 ? i : 0];
		al += p;
	}
	return al;
}

void spec_draws_init(const struct spec_cfg *sp, uint64_t inc, struct spec_draws *dr)
{
	int a;

	/* (m, c) twice: m (m x + c) + c, mod 2^64 */
	dr->m2 = PCG32_MULT * PCG32_MULT;
	dr->c2 = PCG32_MULT * inc + inc;
	for (a = 0; a < SPEC_MAX_TOKENS; a++) {
		double p = sp->rate[sp->nrates > 1 ? a : 0];
		/* p = 1 and p = 0 take no draw: exact for the limit tests */
		if (p >= 1)
			dr->thr[a] = SPEC_DRAW_SURE;
		else if (p > 0)
			dr->thr[a] = (uint64_t)ceil(p * 0x1p53); /* 1 .. 2^53 - 1 */
		else
			dr->thr[a] = 0;
	}
}

double spec_draft_s(const struct spec_cfg *sp, const struct cost_model *c, int64_t n,
		    double ctx_sum)
{
	struct step_desc d;
	double layer, head, body, ov;

	if (n <= 0 || sp->k <= 0)
		return 0;
	switch (sp->method) {
	case SPEC_NGRAM:
		return 0;
	case SPEC_DRAFT:
		/* K decode steps of the draft model, overheads included */
		memset(&d, 0, sizeof(d));
		d.ndecode = n;
		d.decode_ctx_sum = ctx_sum;
		d.nlogits = n;
		return sp->k * cost_step_s(sp->draft, &d);
	case SPEC_MTP:
	case SPEC_EAGLE:
		/* one decoder layer's share of a decode step, plus the LM head
		 * (the step without and with its n sampled sequences, priced
		 * together), the overheads taken out of both (computed once) */
		body = cost_draft_pair_s(c, n, ctx_sum, &head, &ov);
		body -= ov;
		head = head - ov - body;
		layer = body / (double)c->m->layers;
		if (!(c->cfg.off & COST_H2)) /* its own per-layer launch term */
			layer += c->cfg.ov.layer_us * 1e-6;
		return sp->k * (layer + head);
	default:
		return 0;
	}
}
