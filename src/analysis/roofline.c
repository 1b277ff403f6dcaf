/* roofline.c - compute / HBM / network bounds of a forward pass from the
 * operator graph (see roofline.h). */
#include <math.h>
#include <string.h>

#include "servesim/opgraph.h"
#include "servesim/roofline.h"

int rl_eval(const struct rl_cfg *c, int64_t batch, int64_t seq, int64_t kv_len,
	    struct rl_point *out, struct err *e)
{
	struct pass_shape sh = {batch, seq, kv_len, false};
	struct opgraph og;
	double bw = c->g->hbm_bw * (c->g->bw_eff > 0 ? c->g->bw_eff : 1), hbm;
	size_t i, j;
	int rc;

	memset(out, 0, sizeof(*out));
	out->batch = batch;
	out->seq = seq;
	out->kv_len = kv_len;
	if ((rc = opgraph_build(c->m, &c->p, &sh, c->wdt, c->kvdt, &og, e)) < 0)
		return rc;
	for (i = 0; i < og.nkinds; i++) {
		const struct layer_kind *lk = &og.kinds[i];
		double n = (double)lk->count;
		for (j = 0; j < lk->nops; j++) {
			const struct op *o = &lk->ops[j];
			out->flops += n * o->flops;
			if (o->kind == OPK_COMM) {
				out->net_bytes += n * o->act_bytes;
				continue;
			}
			out->weight_bytes += n * o->weight_bytes;
			out->act_bytes += n * o->act_bytes;
			out->kv_bytes += n * (o->kv_read_bytes + o->kv_write_bytes);
		}
	}
	opgraph_release(&og);
	hbm = out->weight_bytes + out->act_bytes + out->kv_bytes;
	out->t_comp = out->flops / c->g->peak_flops[c->wdt];
	out->t_hbm = hbm / bw;
	out->t_net = c->g->link_bw > 0 ? out->net_bytes / c->g->link_bw : 0;
	out->t_est = fmax(out->t_comp, fmax(out->t_hbm, out->t_net));
	out->intensity = hbm > 0 ? out->flops / hbm : INFINITY;
	if (out->t_est == out->t_comp)
		out->regime = "compute";
	else if (out->t_est == out->t_net)
		out->regime = "network";
	else
		out->regime = out->kv_bytes > out->weight_bytes ? "HBM KV" : "HBM weights";
	return 0;
}

double rl_ridge(const struct rl_cfg *c)
{
	return c->g->peak_flops[c->wdt] / (c->g->hbm_bw * (c->g->bw_eff > 0 ? c->g->bw_eff : 1));
}

int rl_critical_batch(const struct rl_cfg *c, int64_t kv_len, int64_t max, int64_t *out,
		      struct err *e)
{
	struct rl_point pt;
	int64_t lo = 0, hi = 1;
	int rc;

	*out = 0;
	/* doubling, then bisection: T_comp - T_hbm grows with the batch */
	for (;;) {
		if ((rc = rl_eval(c, hi, 1, kv_len, &pt, e)) < 0)
			return rc;
		if (pt.t_comp >= pt.t_hbm)
			break;
		lo = hi;
		if (hi >= max)
			return 0;
		hi = hi * 2 > max ? max : hi * 2;
	}
	while (hi - lo > 1) {
		int64_t mid = lo + (hi - lo) / 2;
		if ((rc = rl_eval(c, mid, 1, kv_len, &pt, e)) < 0)
			return rc;
		if (pt.t_comp >= pt.t_hbm)
			hi = mid;
		else
			lo = mid;
	}
	*out = hi;
	return 0;
}
