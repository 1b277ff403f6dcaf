/* csa.c - DeepSeek-V4's attention blocks (CSA, HCA and sliding-window
 * layers) as the cost model prices them: every layer's block from the
 * engine's measured blocks or the fitted parts model (csamod.h), and the
 * run header's attention lines for them. */
#include <stdio.h>

#include "cost/costmodel.h"
#include "cost/csamod.h"
#include "cost/kern.h"

/* The run header's attention lines for DeepSeek-V4: the engine's measured
 * blocks (csamod.h), borrowed from another GPU's table, or the fitted parts
 * model. */
void cost_csa_note(struct cost_model *c)
{
	int i;

	if (!c->csa)
		return;
	for (i = 0; i < 2; i++) {
		bool pre = i == 0;
		char *dst = c->src[pre ? COST_SRC_ATTN_PREFILL : COST_SRC_ATTN_DECODE];
		char note[400];
		if (csa_module_has_table(c->csa)) {
			csa_module_note(c->csa, pre, note, sizeof(note));
			if (c->g->tables_of[0])
				cost_note_line(dst, sizeof(c->src[0]), "DeepSeek-V4 blocks measured on %.40s, x the fitted "
					       "parts model's %.40s / %.40s ratio: %s", c->g->tables_of, c->g->id,
					       c->g->tables_of, note);
			else
				cost_note_line(dst, sizeof(c->src[0]), "DeepSeek-V4 blocks measured: %s", note);
		} else {
			cost_note_line(dst, sizeof(c->src[0]),
				    "DeepSeek-V4 blocks: no measured %s table on %.31s: parts (GEMMs, attention, bytes) "
				    "at the efficiencies fitted on the H100/H200/B200 blocks (data/mfu/"
				    "check_dsv4_module.py): CSA / HCA layer %.0f / %.0f us %s",
				    c->cfg.engine->name, c->g->tables[0] ? c->g->tables : c->g->id,
				    (pre ? cost_csa_block_s(c, LM_CSA, true, 1, 1024, 0)
					 : cost_csa_block_s(c, LM_CSA, false, 1, 1, 4095)) * 1e6,
				    (pre ? cost_csa_block_s(c, LM_HCA, true, 1, 1024, 0)
					 : cost_csa_block_s(c, LM_HCA, false, 1, 1, 4095)) * 1e6,
				    pre ? "for one 1k-token prompt" : "at batch 1 x 4k keys");
		}
	}
}

/* DeepSeek-V4: the attention blocks of every layer (csamod.h) for n
 * decode requests with `prefix` cached tokens each on average (prefill
 * false), or n chunks of tok new tokens in all after `prefix` cached ones
 * each on average.  Layers of each mixer priced once and multiplied. */
double cost_csa_attn_s(const struct cost_model *c, bool prefill, double n, double tok, double prefix)
{
	const int64_t *nk = c->m->n_mixer;
	static const int mixers[] = {LM_CSA, LM_HCA, LM_SLIDING};
	double t = 0;
	size_t i;

	for (i = 0; i < sizeof(mixers) / sizeof(mixers[0]); i++) {
		if (nk[mixers[i]] == 0)
			continue;
		t += (double)nk[mixers[i]] * (prefill ? csa_module_prefill_s(c->csa, mixers[i], n, tok, prefix)
					       : csa_module_decode_s(c->csa, mixers[i], n, prefix + 1));
	}
	return t;
}

double cost_csa_block_s(const struct cost_model *c, int mix, bool prefill, double n, double isl, double prefix)
{
	if (!c->csa || n <= 0)
		return 0;
	return prefill ? csa_module_prefill_s(c->csa, mix, n, n * isl, prefix)
		       : csa_module_decode_s(c->csa, mix, n, prefix + 1);
}

void cost_csa_parts(const struct cost_model *c, int mix, double n, double isl, double prefix, double out[4])
{
	struct csa_parts p = {0, 0, 0, 0};

	if (c->csa)
		csa_module_parts(c->csa, mix, n, isl, prefix, &p);
	out[0] = p.f_lp;
	out[1] = p.f_hp;
	out[2] = p.f_attn;
	out[3] = p.bytes;
}
