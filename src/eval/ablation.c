/* ablation.c - the passes of design document 002's ablation (ablation.h):
 * the study's design lives here, `servesim eval --ablate` only runs it. */
#include "eval/ablation.h"

void abl_design(const struct eval_opts *base, struct abl_design *d)
{
	int h;

	d->full = *base;
	for (h = 0; h < ABL_NOFF; h++) {
		d->off[h] = *base;
		d->off[h].tier0_off = 1u << h;
	}
	d->infersim = *base;
	d->infersim.tier0_off = 0;
	d->infersim.ov.step_us = ABL_INFERSIM_STEP_US;
	d->infersim.ov.layer_us = d->infersim.ov.req_us = 0;
	d->infersim.ov.api_ttft_ms = ABL_INFERSIM_TTFT_MS;
	d->infersim.ov.given |= OV_STEP | OV_LAYER | OV_REQ | OV_API_TTFT;
}

bool abl_model_gqa(const struct model_cfg *m)
{
	return m->kv_heads < m->heads;
}
