/* eplb.h - expert-parallel load balancing (EPLB) as vLLM (--enable-eplb)
 * and SGLang (--enable-eplb) run DeepSeek's algorithm: redundant copies of
 * the hottest experts, every physical expert packed onto the EP ranks so the
 * most loaded rank carries as little as it can, the placement recomputed
 * every so many engine steps.
 *
 * The measured fused-MoE tables time the most loaded EP rank under a routing
 * distribution (moetab.h): aiconfigurator draws each expert's token count
 * from a power law (x^-alpha over [1, 0.8 T] for T tokens when T x top-k
 * exceeds the expert count, else over [0.01, 2]) and times the hottest rank.
 * servesim turns that into a popularity per expert (the law's quantiles at
 * (i + 0.5) / E, no expert above T tokens) and computes, for T tokens:
 *   - hot_static: the hottest rank over the mean rank when experts sit in
 *     id order, E / R per rank, unrelated to their popularity (what the
 *     tables measured): a rank's load is a sum of E / R experts drawn
 *     without replacement, its expected maximum over R ranks the mean plus
 *     Blom's expected maximum of R standard normals times its spread (at
 *     most the E / R hottest experts together);
 *   - hot_eplb: the same with EPLB's placement (DeepSeek's eplb.py, global
 *     policy): each of N redundant slots goes to the expert with the
 *     largest load per copy, then the E + N copies, heaviest first, each to
 *     the least loaded rank with a slot free ((E + N) / R slots per rank).
 * With EPLB the hottest rank carries hot_eplb / hot_static of the rows the
 * tables' hottest rank carries at T tokens, which that rank carries at
 * about T x hot_eplb / hot_static tokens: the measured curve is priced
 * there (cost_moe_s), so the gain follows the kernel's own regime (little
 * where it streams weights, in proportion where it computes).  The
 * tables' balanced rows are no stand-in for it: aiconfigurator's balanced
 * router spreads each token over every rank and touches every expert, and
 * measures slower than its power law at every token count on the H200
 * vLLM 0.24 DeepSeek-V3 shape (5,959 against 3,459 us at 8,192 tokens). */
#ifndef SERVESIM_EPLB_H
#define SERVESIM_EPLB_H
#include <stddef.h>

#include "hw/moetab.h"
#include "model/model.h"

/* The power law's exponent of a routing distribution (0: balanced). */
double eplb_alpha(enum moe_dist d);
/* Popularity of each of `experts` experts (pop[experts], tokens routed to
 * it) for `tokens` tokens of top-k `topk` under exponent alpha: the law's
 * quantiles, scaled to tokens x topk in all, none above tokens. */
void eplb_popularity(double alpha, double tokens, int topk, int experts, double *pop);
/* The hottest of `ranks` EP ranks over the mean rank: static placement
 * (*hot_static) and EPLB with `redundant` redundant experts (*hot_eplb).
 * ranks must divide experts and experts + redundant. */
void eplb_hot_loads(const double *pop, int experts, int ranks, int redundant, double *hot_static,
		    double *hot_eplb);
/* Bytes per GPU of `redundant` redundant experts over p's EP ranks, the
 * experts stored as model_weight_bytes_per_gpu stores them at wdt. */
double eplb_redundant_bytes(const struct model_cfg *m, const struct parallel *p, enum dtype wdt, int redundant);

/* The MoE layer's EPLB terms for one deployment, on a grid of token counts
 * (quarter octaves from 1 to 2^24), interpolated in log2(tokens). */
#define EPLB_GRID 97
struct eplb_curve {
	double hot_static[EPLB_GRID], hot_eplb[EPLB_GRID];
};
/* Fill c for the model's experts (experts, topk) over `ranks` EP ranks with
 * `redundant` redundant experts under distribution d. */
void eplb_curve_init(struct eplb_curve *c, enum moe_dist d, int experts, int topk, int ranks, int redundant);
/* hot_eplb / hot_static and each at `tokens` (tokens entering the layer,
 * all EP ranks'). */
double eplb_curve_scale(const struct eplb_curve *c, double tokens);
void eplb_curve_loads(const struct eplb_curve *c, double tokens, double *hot_static, double *hot_eplb);

#endif
