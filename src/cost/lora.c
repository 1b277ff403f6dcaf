/* lora.c - LoRA projections, adapter sizes and kernel time (lora.h). */
#include <string.h>

#include "cost/lora.h"
#include "model/opgraph.h"

/* Is op o a projection an adapter targets (lora.h)? */
static bool targeted(const struct op *o)
{
	if (o->kind != OPK_GEMM || o->batch != 1 || (o->cat != OPC_ATTENTION && o->cat != OPC_FFN))
		return false;
	/* the sparse-attention indexers and compressors, and MLA's
	 * context-only up-projection, are no adapter's target */
	return strncmp(o->name, "indexer", 7) != 0 && strncmp(o->name, "compressor", 10) != 0 &&
	       strcmp(o->name, "kv_b_proj") != 0;
}

static int slices_of(const struct op *o)
{
	if (strcmp(o->name, "qkv_proj") == 0)
		return 3;
	if (strstr(o->name, "gate_up"))
		return 2;
	return 1;
}

/* The targeted projections of m on layout p: into l->proj when l is not
 * NULL; their parameters per unit of rank. */
static int walk(const struct model_cfg *m, const struct parallel *p, struct cost_lora *l, double *params,
		struct err *e)
{
	struct pass_shape one = {1, 1, 1, false};
	struct opgraph gr;
	size_t k, i;
	int rc;

	if ((rc = opgraph_build(m, p, &one, DT_BF16, DT_BF16, &gr, e)) < 0)
		return rc;
	*params = 0;
	for (k = 0; k < gr.nkinds; k++) {
		const struct layer_kind *lk = &gr.kinds[k];
		for (i = 0; i < lk->nops; i++) {
			const struct op *o = &lk->ops[i];
			int sl;
			if (!targeted(o) || lk->count <= 0)
				continue;
			sl = slices_of(o);
			*params += (double)lk->count * ((double)sl * (double)o->k + (double)o->n);
			if (!l)
				continue;
			if (l->nproj == COST_LORA_MAX_PROJ) {
				opgraph_release(&gr);
				return err_set(e, SS_EUSAGE, "%s: more than %d LoRA-targeted projections (not modelled)",
					       m->id, COST_LORA_MAX_PROJ);
			}
			l->proj[l->nproj].k = o->k;
			l->proj[l->nproj].n = o->n;
			l->proj[l->nproj].slices = sl;
			l->proj[l->nproj].count = (double)lk->count;
			l->nproj++;
		}
	}
	opgraph_release(&gr);
	return 0;
}

int cost_lora_init(const struct model_cfg *m, const struct parallel *p, struct cost_lora *l, struct err *e)
{
	struct parallel whole = {1, 1, 1, 1, 0, 0};
	int rc;

	memset(l, 0, sizeof(*l));
	if ((rc = walk(m, p, l, &l->params_gpu_per_rank, e)) < 0 ||
	    (rc = walk(m, &whole, NULL, &l->params_all_per_rank, e)) < 0)
		return rc;
	if (l->nproj == 0)
		return err_set(e, SS_EUSAGE, "%s has no projection a LoRA adapter targets (not modelled)", m->id);
	return 0;
}

double cost_lora_step_s(const struct cost_model *c, const struct cost_lora *l, int rank, int64_t tokens,
			int64_t adapters)
{
	double t = 0, a, rows;
	size_t i;

	if (tokens <= 0 || rank <= 0)
		return 0;
	a = (double)(adapters < 1 ? 1 : adapters > tokens ? tokens : adapters);
	rows = (double)tokens / a;
	for (i = 0; i < l->nproj; i++) {
		const struct cost_lora_proj *q = &l->proj[i];
		double r = (double)rank;
		t += q->count * (cost_gemm_s(c, DT_BF16, rows, (double)q->slices * r, (double)q->k, a) +
				 cost_gemm_s(c, DT_BF16, rows, (double)q->n, r, a));
	}
	return t;
}
