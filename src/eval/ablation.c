/* ablation.c - the passes of design document 002's ablation (ablation.h):
 * the study's design lives here, `servesim eval --ablate` only runs it. */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
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

int abl_run(const struct eval_inputs *in, const struct eval_opts *base, struct abl_run *r, struct err *e)
{
	struct abl_design d;
	int h, k, rc;

	memset(r, 0, sizeof(*r));
	abl_design(base, &d);
	if ((rc = eval_pass_run(in, &d.full, "none", &r->full, e)) < 0 || !eval_pass_any(&r->full))
		return rc;
	for (h = 0; h < ABL_NOFF; h++)
		if ((rc = eval_pass_run(in, &d.off[h], "none", &r->off[h], e)) < 0)
			return rc;
	if ((rc = eval_pass_run(in, &d.infersim, "none", &r->infersim, e)) < 0)
		return rc;
	for (k = 0; k < r->full.nmodels && k < EVAL_MAX_MODELS; k++) {
		struct model_cfg *m = xcalloc(1, sizeof(*m));
		r->gqa[k] = -1;
		if (catalog_load_model(in->cat, r->full.models[k], NULL, m, e) == 0)
			r->gqa[k] = abl_model_gqa(m);
		err_clear(e);
		free(m);
	}
	return 0;
}

void abl_run_release(struct abl_run *r)
{
	int h;

	eval_pass_release(&r->full);
	for (h = 0; h < ABL_NOFF; h++)
		eval_pass_release(&r->off[h]);
	eval_pass_release(&r->infersim);
}
