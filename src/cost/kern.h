/* kern.h - the kernel families of the cost model, one file each, as cost.c
 * (the roofline and step pricing) reaches them; private to src/cost/.
 * A family chooses its measured tables at cost_init (FAMILY_init) and
 * prices one call (cost.h: cost_moe_s, cost_gemm_s, ...). */
#ifndef SERVESIM_COST_KERN_H
#define SERVESIM_COST_KERN_H
#include "cost/comm.h"
#include "cost/cost.h"

/* The roofline every family prices on: FLOPs at peak x mfu, or bytes at
 * bw, the longer (H1 off: FLOPs alone).  Inline: it is on the per-step
 * path of attention, and here it ties no family file back to cost.c. */
static inline double cost_roofline_bw(const struct cost_model *c, double flops, double peak, double mfu,
				      double bytes, double bw)
{
	double tc = flops / (peak * mfu), tb = bytes / bw;

	if (c->cfg.off & COST_H1)
		return tc;
	return tc > tb ? tc : tb;
}

/* --- dense GEMMs (gemm.c) --- */
/* cost_gemm_s with the shape's table column resolved once (col from
 * cost_gemm_col for the same dt, n, k and batch; NULL: looked up here). */
double cost_gemm_col_s(const struct cost_model *c, const struct mfu_gemm_col *col, enum dtype dt, double m,
		       double n, double k, double batch);
/* The lookup column of a GEMM that cost_gemm_col_s prices at (dt, n, k, batch). */
void cost_gemm_col(const struct cost_model *c, enum dtype dt, double n, double k, double batch,
		   struct mfu_gemm_col *col);

/* --- routed experts (moe.c) --- */
/* The experts' shape, format and measured curves (an MoE model). */
void cost_moe_init(struct cost_model *c, const struct cost_cfg *cfg);
/* The engine's wide-EP curves (cost_engine.wideep), when it runs DP+EP. */
int cost_moe_wideep_load(struct cost_model *c, const char *data_dir, struct err *e);
/* EPLB's terms (cost_cfg.eplb, EP > 1): the hot rank's load curve and the
 * rebalance's move of the redundant experts, stored at given->wdt (the
 * weights' dtype as the caller gave it, as the memory plan counts them);
 * c->place set. */
void cost_eplb_init(struct cost_model *c, const struct cost_cfg *given);
/* DeepEP's all-to-all mode at tokens_per_rank. */
enum comm_a2a_mode cost_ep_mode(const struct cost_model *c, double tokens_per_rank);

#endif
