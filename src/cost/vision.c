/* vision.c - an image encoder's operators priced by the cost model. */
#include <string.h>

#include "cost/vision.h"
#include "model/opgraph.h"

double cost_vision_s(const struct cost_model *c, int64_t images, int64_t patches, const struct vis_windows *win)
{
	const struct model_vision *v = &c->m->vis;
	int64_t heads = v->heads / c->p.tp > 0 ? v->heads / c->p.tp : 1;
	struct opgraph g;
	struct err e;
	double t = 0, windows = 0, wpairs = 0;
	size_t i, k;

	if (images < 1 || opgraph_vision(c->m, &c->p, images, patches, win, &g, &e) < 0)
		return 0;
	for (k = 0; win && k < (size_t)win->n; k++) {
		windows += (double)images * (double)win->count[k];
		wpairs += (double)images * (double)win->count[k] * (double)win->len[k] * (double)win->len[k];
	}
	for (i = 0; i < g.nkinds; i++) {
		const struct layer_kind *lk = &g.kinds[i];
		double s = 0;
		for (k = 0; k < lk->nops; k++) {
			const struct op *o = &lk->ops[k];
			double u;
			switch (o->kind) {
			case OPK_GEMM:
				u = cost_gemm_s(c, DT_BF16, (double)o->m, (double)o->n, (double)o->k, (double)o->batch);
				break;
			case OPK_ATTN:
				/* the windowed blocks: one varlen call over the windows */
				u = strcmp(lk->name, "vit_block_window") == 0
					    ? cost_attn_vision_pairs_s(c, windows, (double)(images * patches), wpairs, heads,
								       v->hidden / v->heads)
					    : cost_attn_vision_s(c, images, patches, heads, v->hidden / v->heads);
				break;
			case OPK_COMM:
				/* the message: act_bytes holds the ring's 2(tp-1)/tp share
				 * of rows x width bf16 elements (opgraph.c allreduce) */
				u = cost_allreduce_s(c, o->act_bytes / (2.0 * 2.0 * (double)(c->p.tp - 1) / (double)c->p.tp));
				break;
			default:
				u = o->act_bytes / c->bw;
				if (u < COST_LAUNCH_S)
					u = COST_LAUNCH_S;
				break;
			}
			s += u;
		}
		t += (double)lk->count * s;
	}
	opgraph_release(&g);
	return t;
}
