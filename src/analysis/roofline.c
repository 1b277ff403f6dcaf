/* roofline.c - compute / HBM / network bounds of a forward pass from the
 * operator graph (see roofline.h). */
#include <math.h>
#include <string.h>

#include "model/opgraph.h"
#include "analysis/roofline.h"

/* Defaults, with where they come from:
 *   b_sat 128: a Hopper GEMM tile is 128 rows (CUTLASS / cuBLAS 128x128 and
 *     128x256 tiles); fewer rows leave tensor-core lanes idle.
 *   eta_scalar 0.068: H100 SXM non-tensor FP32 67 TFLOP/s over the 989
 *     TFLOP/s bf16 tensor peak (NVIDIA H100 datasheet).
 *   tile 128: the same tile height, for the naive re-read of weights.
 *   residency = 1 / WRF, the weight residency factor of design document 001
 *     ("Weight Residency Factor (WRF) Model"): efficient execution reuses
 *     attention weights 4x (WRF_attn 4.0), dense weights 4x (WRF_dense 4.0)
 *     and MoE weights 2x (WRF_moe 2.0), never more than the rows a GEMM
 *     has (residency below); naive execution has WRF 1 (001, "Naive vs
 *     Efficient Execution Models"), which rl_eval applies. */
void rl_cfg_defaults(struct rl_cfg *c)
{
	c->naive = false;
	c->train = false;
	c->b_sat = 128;
	c->eta_scalar = 0.068;
	c->tile = 128;
	c->res_attn = 1.0 / 4.0;
	c->res_dense = 1.0 / 4.0;
	c->res_moe = 1.0 / 2.0;
}

/* The fraction of an operator's weight bytes read from HBM in a step:
 * 1 / WRF, but a weight read serves at most the rows the step multiplies
 * by it (a GEMM's m: tokens, or the assignments per touched expert), so
 * the reuse is min(WRF, m) and a one-row GEMM reads all of its weights.
 * Until 2026-11-28 WRF divided the weight bytes even at one row: batch-1
 * decode of Llama-3.1-8B on an H100 came out compute-bound (weights 3.75 GB
 * of 15 GB, T_hbm 1.45 ms < T_comp 1.94 ms), against design document 001,
 * whose decode stays HBM-bound at every batch (issue 26). */
static double residency(const struct rl_cfg *c, const struct op *o)
{
	double r = o->cat == OPC_ATTENTION ? c->res_attn : o->cat == OPC_MOE ? c->res_moe : c->res_dense;

	if (o->kind == OPK_GEMM && o->m >= 1 && r < 1.0 / (double)o->m)
		r = 1.0 / (double)o->m;
	return r;
}

int rl_eval(const struct rl_cfg *c, int64_t batch, int64_t seq, int64_t kv_len,
	    struct rl_point *out, struct err *e)
{
	struct pass_shape sh = {batch, seq, kv_len, false};
	struct opgraph og;
	double bw = c->g->hbm_bw * (c->g->bw_eff > 0 ? c->g->bw_eff : 1), hbm, peak;
	double eff_flops = 0, mult = c->train ? 3.0 : 1.0;
	size_t i, j;
	int rc;

	memset(out, 0, sizeof(*out));
	out->batch = batch;
	out->seq = seq;
	out->kv_len = kv_len;
	peak = c->g->peak_flops[c->wdt];
	if ((rc = opgraph_build(c->m, &c->p, &sh, c->wdt, c->kvdt, &og, e)) < 0)
		return rc;
	for (i = 0; i < og.nkinds; i++) {
		const struct layer_kind *lk = &og.kinds[i];
		double n = (double)lk->count;
		for (j = 0; j < lk->nops; j++) {
			const struct op *o = &lk->ops[j];
			double wb = o->weight_bytes, ab = o->act_bytes, tb, eta = 1;
			out->flops += n * o->flops * mult;
			if (o->kind == OPK_GEMM) {
				eta = c->b_sat > 0 ? fmin(1.0, (double)o->m / c->b_sat) : 1;
				eff_flops += n * o->flops * mult / (eta > 0 ? eta : 1);
			} else if (o->kind == OPK_ATTN) {
				eff_flops += n * o->flops * mult;
			} else {
				eff_flops += n * o->flops * mult / (c->eta_scalar > 0 ? c->eta_scalar : 1);
			}
			if (o->kind == OPK_COMM) {
				out->net_bytes += n * ab * mult;
				continue;
			}
			/* temporaries (001's fourth byte term): the intermediate
			 * buffers an unfused execution writes and reads back */
			tb = 0;
			if (c->naive) {
				/* weights re-read per tile of rows; scores written and read
				 * in fp32; every elementwise op round-trips HBM */
				if (o->kind == OPK_GEMM && c->tile > 0)
					wb *= ceil((double)o->m / c->tile);
				if (o->kind == OPK_ATTN)
					tb = o->score_elems * 8.0;
				if (o->kind == OPK_ELEMENTWISE) {
					tb = ab;
					ab = 0;
				}
			} else {
				/* fused: elementwise work rides on its neighbours' loads,
				 * flash attention keeps the scores on chip */
				if (o->kind == OPK_ELEMENTWISE)
					ab = 0;
				wb *= residency(c, o);
			}
			if (c->train) { /* backward: weights read twice more, grads written */
				wb *= 4.0;
				ab *= 3.0;
				tb *= 3.0;
			}
			out->weight_bytes += n * wb;
			out->act_bytes += n * ab;
			out->temp_bytes += n * tb;
			out->kv_bytes += n * (o->kv_read_bytes + o->kv_write_bytes);
		}
	}
	opgraph_release(&og);
	hbm = out->weight_bytes + out->act_bytes + out->kv_bytes + out->temp_bytes;
	out->t_comp = eff_flops / peak;
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

double rl_oi_knee(const struct rl_cfg *c)
{
	return c->g->peak_flops[c->wdt] / c->g->hbm_bw;
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
