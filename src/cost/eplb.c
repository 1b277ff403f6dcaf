/* eplb.c - the hottest EP rank's load with and without EPLB (eplb.h). */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "base/alloc.h"
#include "cost/eplb.h"

double eplb_alpha(enum moe_dist d)
{
	switch (d) {
	case MOE_POWER_LAW_101: return 1.01;
	case MOE_POWER_LAW_12: return 1.2;
	default: return 0;
	}
}

void eplb_popularity(double alpha, double tokens, int topk, int experts, double *pop)
{
	/* aiconfigurator's sample_power_law ranges (its collectors' collect_moe.py) */
	bool many = tokens * topk > experts;
	double lo = many ? 1.0 : 0.01, hi = many ? 0.8 * tokens : 2.0, total = tokens * topk, sum = 0;
	double a = 1.0 - alpha;
	int i, pass;

	for (i = 0; i < experts; i++) {
		double u = (i + 0.5) / experts;
		if (alpha <= 0 || hi <= lo)
			pop[i] = 1;
		else
			pop[i] = pow((pow(hi, a) - pow(lo, a)) * u + pow(lo, a), 1.0 / a);
		sum += pop[i];
	}
	for (i = 0; i < experts; i++)
		pop[i] *= total / sum;
	/* no expert gets more than every token (each token picks distinct
	 * experts): the excess goes to the others in proportion, until none
	 * is over (at most `experts` passes, one more expert capped each) */
	for (pass = 0; pass < experts; pass++) {
		double over = 0, free_sum = 0;
		for (i = 0; i < experts; i++) {
			if (pop[i] > tokens) {
				over += pop[i] - tokens;
				pop[i] = tokens;
			} else if (pop[i] < tokens) {
				free_sum += pop[i];
			}
		}
		if (over <= 0 || free_sum <= 0)
			break;
		for (i = 0; i < experts; i++)
			if (pop[i] < tokens)
				pop[i] += over * pop[i] / free_sum;
	}
}

/* Phi^-1(p) by bisection on the normal CDF (p in (0, 1)). */
static double norm_quantile(double p)
{
	double lo = -10, hi = 10;
	int k;

	for (k = 0; k < 80; k++) {
		double mid = 0.5 * (lo + hi);
		if (0.5 * erfc(-mid / sqrt(2.0)) < p)
			lo = mid;
		else
			hi = mid;
	}
	return 0.5 * (lo + hi);
}

struct copy {
	double load;
	int expert;
};

static int copy_cmp(const void *pa, const void *pb)
{
	const struct copy *a = pa, *b = pb;

	if (a->load != b->load)
		return a->load > b->load ? -1 : 1;
	return a->expert - b->expert;
}

static int dbl_desc(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	return a > b ? -1 : a < b ? 1 : 0;
}

/* E[max of R standard normals] by Blom's approximation,
 * Phi^-1((R - 0.375) / (R + 0.25)); 0 for one rank. */
static double blom_max(int ranks)
{
	return ranks > 1 ? norm_quantile((ranks - 0.375) / (ranks + 0.25)) : 0;
}

/* Static placement: E / R experts per rank, drawn at random as far as
 * popularity goes (module comment). */
static double hot_static_of(const double *pop, int experts, int ranks)
{
	double n = (double)experts / ranks, mean = 0, var = 0, hot, top = 0, floor_hot;
	double *s;
	int i;

	if (ranks <= 1)
		return 1;
	for (i = 0; i < experts; i++)
		mean += pop[i];
	mean /= experts;
	if (mean <= 0)
		return 1;
	for (i = 0; i < experts; i++)
		var += (pop[i] - mean) * (pop[i] - mean);
	var /= experts;
	hot = 1 + blom_max(ranks) * sqrt(n * var * (experts - n) / (experts > 1 ? experts - 1 : 1)) / (n * mean);
	s = xmalloc((size_t)experts * sizeof(*s));
	for (i = 0; i < experts; i++)
		s[i] = pop[i];
	qsort(s, (size_t)experts, sizeof(*s), dbl_desc);
	for (i = 0; i < (int)n; i++)
		top += s[i];
	/* some rank holds the hottest expert and n - 1 others of the mean of
	 * the rest (the normal approximation falls short of it at a few
	 * experts per rank), and none holds more than the n hottest */
	floor_hot = (s[0] + (n - 1) * (mean * experts - s[0]) / (experts > 1 ? experts - 1 : 1)) / (n * mean);
	free(s);
	top /= n * mean;
	if (hot < floor_hot)
		hot = floor_hot;
	return hot < top ? hot : top;
}

/* DeepSeek's packing of the copies (cnt[i] of expert i, load pop[i] /
 * cnt[i] each) onto ranks, (E + redundant) / R slots each, heaviest copy
 * first onto the least loaded rank with a slot free: the hottest rank's
 * load over the mean. */
static double pack(const double *pop, const int *cnt, int experts, int ranks, int redundant, struct copy *c,
		   double *load, int *used)
{
	/* (ranks divide phys at start-up; rounded up for --allow-invalid) */
	int phys = experts + redundant, slots = (phys + ranks - 1) / ranks, i, r, k = 0;
	double total = 0, hot = 0;

	for (i = 0; i < experts; i++) {
		total += pop[i];
		for (r = 0; r < cnt[i]; r++)
			c[k++] = (struct copy){pop[i] / cnt[i], i};
	}
	qsort(c, (size_t)phys, sizeof(*c), copy_cmp);
	for (r = 0; r < ranks; r++) {
		load[r] = 0;
		used[r] = 0;
	}
	for (k = 0; k < phys; k++) {
		int best = -1;
		for (r = 0; r < ranks; r++)
			if (used[r] < slots && (best < 0 || load[r] < load[best]))
				best = r;
		load[best] += c[k].load;
		used[best]++;
	}
	for (r = 0; r < ranks; r++)
		if (load[r] > hot)
			hot = load[r];
	return total > 0 ? hot / (total / ranks) : 1;
}

/* DeepSeek's EPLB, global policy (module comment).  Its replication is
 * incremental (each redundant slot to the expert with the most load per
 * copy), its packing greedy: a placement with fewer redundant experts
 * (same residue mod R) stays possible with more, the extra copies on the
 * rank of their expert, so the best of them is kept and the hot load never
 * rises with the redundant count. */
static double hot_eplb_of(const double *pop, int experts, int ranks, int redundant)
{
	int *cnt = xcalloc((size_t)experts, sizeof(*cnt));
	int *used = xcalloc((size_t)ranks, sizeof(*used));
	double *load = xcalloc((size_t)ranks, sizeof(*load));
	struct copy *c = xmalloc((size_t)(experts + redundant) * sizeof(*c));
	double best = INFINITY;
	int i, r, start = redundant % ranks;

	for (i = 0; i < experts; i++)
		cnt[i] = 1;
	for (r = 0; r < redundant; r++) {
		int top = 0;
		if (r >= start && (r - start) % ranks == 0) {
			double h = pack(pop, cnt, experts, ranks, r, c, load, used);
			if (h < best)
				best = h;
		}
		for (i = 1; i < experts; i++)
			if (pop[i] / cnt[i] > pop[top] / cnt[top])
				top = i;
		cnt[top]++;
	}
	{
		double h = pack(pop, cnt, experts, ranks, redundant, c, load, used);
		if (h < best)
			best = h;
	}
	free(cnt);
	free(used);
	free(load);
	free(c);
	return best;
}

void eplb_hot_loads(const double *pop, int experts, int ranks, int redundant, double *hot_static,
		    double *hot_eplb)
{
	double rows = 0, noise;
	int i;

	for (i = 0; i < experts; i++)
		rows += pop[i];
	rows /= ranks; /* the mean rank's routed rows */
	*hot_static = hot_static_of(pop, experts, ranks);
	/* EPLB places by the window's mean load; a step's own rows vary
	 * around it, at least as Poisson counts: the hottest of R ranks
	 * carries blom_max(R) standard deviations more */
	noise = rows > 0 ? blom_max(ranks) / sqrt(rows) : 0;
	*hot_eplb = hot_eplb_of(pop, experts, ranks, redundant) + noise;
	if (*hot_eplb > *hot_static)
		*hot_eplb = *hot_static;
}

void eplb_curve_init(struct eplb_curve *c, enum moe_dist d, int experts, int topk, int ranks, int redundant)
{
	double *pop = xmalloc((size_t)experts * sizeof(*pop));
	double alpha = eplb_alpha(d);
	int j;

	for (j = 0; j < EPLB_GRID; j++) {
		eplb_popularity(alpha, pow(2.0, j / 4.0), topk, experts, pop);
		eplb_hot_loads(pop, experts, ranks, redundant, &c->hot_static[j], &c->hot_eplb[j]);
	}
	free(pop);
}

/* Linear in log2(tokens) between grid points, held at the ends. */
static double grid_at(const double *v, double tokens)
{
	double x = tokens > 1 ? 4.0 * log2(tokens) : 0, w;
	int j;

	if (x >= EPLB_GRID - 1)
		return v[EPLB_GRID - 1];
	j = (int)x;
	w = x - j;
	return v[j] + w * (v[j + 1] - v[j]);
}

double eplb_curve_scale(const struct eplb_curve *c, double tokens)
{
	double hs = grid_at(c->hot_static, tokens), he = grid_at(c->hot_eplb, tokens);

	/* EPLB never places worse than expert order (its packing can only
	 * tie it when every expert weighs the same) */
	return hs > 0 && he < hs ? he / hs : 1;
}

void eplb_curve_loads(const struct eplb_curve *c, double tokens, double *hot_static, double *hot_eplb)
{
	*hot_static = grid_at(c->hot_static, tokens);
	*hot_eplb = grid_at(c->hot_eplb, tokens);
}

double eplb_redundant_bytes(const struct model_cfg *m, const struct parallel *p, enum dtype wdt, int redundant)
{
	/* a GPU holds E / EP experts of each layer and gets redundant / EP more */
	if (m->n_experts <= 0)
		return 0;
	return model_expert_bytes_per_gpu(m, p, dtype_bytes(wdt)) * (double)redundant / (double)m->n_experts;
}
