/* opsview.c - the operator view `servesim ops` reports on (opsview.h). */
#include "analysis/opsview.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"

int ops_view_build(struct ops_req *q, struct ops_view *v, struct err *e)
{
	struct parallel one = {1, 1, 1, 1, 0, 0};
	char rule[400];
	int rc;

	memset(v, 0, sizeof(*v));
	catalog_init(&v->env);
	if (q->dtype != DT_BF16 && q->dtype != DT_FP8)
		return err_set(e, SS_EUSAGE, "--dtype must be bf16 or fp8 for ops, got '%s'", dtype_name(q->dtype));
	v->m = xcalloc(1, sizeof(*v->m));
	if ((rc = catalog_load_model(&v->env, q->model, q->config, v->m, e)) < 0 ||
	    (rc = catalog_find_gpu(&v->env, q->gpu, &v->g, e)) < 0)
		return rc;
	if (v->g->peak_flops[q->dtype] <= 0)
		return err_set(e, SS_EUSAGE, "%s has no %s peak in data/gpus.json", v->g->id, dtype_name(q->dtype));
	if ((rc = par_flags_resolve(&q->pf, v->m, &q->par, e)) < 0 ||
	    (rc = opgraph_build(v->m, &one, &q->shape, q->dtype, q->dtype, &v->gm, e)) < 0 ||
	    (rc = opgraph_build(v->m, &q->par, &q->shape, q->dtype, q->dtype, &v->gg, e)) < 0)
		return rc;
	if (q->img_w > 0) {
		int64_t tokens;
		if ((rc = opgraph_append_images(v->m, &one, q->shape.batch, q->img_w, q->img_h, "--image", &v->gm,
						 &tokens, rule, sizeof(rule), e)) < 0 ||
		    (rc = opgraph_append_images(v->m, &q->par, q->shape.batch, q->img_w, q->img_h, "--image", &v->gg,
						 &tokens, rule, sizeof(rule), e)) < 0)
			return rc;
		snprintf(v->images, sizeof(v->images),
			 "%lld x %lldx%lld, %lld tokens each (%s); the encoder in bf16 (TP %d)", (long long)q->shape.batch,
			 (long long)q->img_w, (long long)q->img_h, (long long)tokens, rule, q->par.tp);
	}
	model_params(v->m, &v->pc);
	return 0;
}

void ops_view_release(struct ops_view *v)
{
	opgraph_release(&v->gm);
	opgraph_release(&v->gg);
	free(v->m);
	catalog_release(&v->env);
}
