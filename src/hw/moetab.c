/* moetab.c - fused-MoE kernel tables.  See moetab.h for the model.
 *
 * Why efficiencies and not latencies: the collections measure a dozen model
 * shapes (Mixtral, Qwen3-MoE, DeepSeek, gpt-oss, ...) at each MoE TP/EP
 * split; a model between them must still be priced.  Relative to its own
 * roofline a fused MoE kernel's efficiency depends mostly on how many rows
 * each expert GEMM gets (tokens x topk / experts) and on the GEMM sizes,
 * so it carries from the nearest measured shape far better than a latency
 * does, and an exact shape gets its measured latency back unchanged. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "base/alloc.h"
#include "base/csv.h"
#include "hw/moetab.h"
#include "base/bytepack.h"

struct curve {
	enum moe_fmt fmt;
	enum moe_dist dist;
	struct moe_shape s;
	double pk, bpp, bw; /* the roofline leff is against (moe_fmt_rates, table bandwidth) */
	double fixed;    /* seconds carried as measured when the curve is transferred */
	double *x;       /* log(tokens x topk / experts), ascending */
	double *leff;    /* log efficiency */
	double *lrem;    /* log(roofline / (latency - fixed)); while loading, log latency */
	size_t n, cap;
	bool mapped;     /* x, leff and lrem read in place (moetab_view_dist): not freed */
};

struct moetab {
	struct curve *c;
	size_t n, cap;
	unsigned loaded;  /* bit per moe_dist whose rows are in c */
};

static const char *const fmt_names[MOE__COUNT] = {"bf16", "fp8", "fp8_block", "int4", "fp4",
						  "mxfp4"};
static const char *const dist_names[MOE_DIST__COUNT] = {"power_law_1.01", "balanced",
							"power_law_1.2"};

const char *moe_fmt_name(enum moe_fmt f)
{
	return (unsigned)f < MOE__COUNT ? fmt_names[f] : "?";
}

const char *moe_dist_name(enum moe_dist d)
{
	return (unsigned)d < MOE_DIST__COUNT ? dist_names[d] : "?";
}

static const char *const backend_names[MOE_BACKEND__COUNT] = {"default", "TRTLLM", "DEEPGEMM", "CUTLASS",
								"CUTEDSL", "WIDEEP", "TRITON"};

const char *moe_backend_name(enum moe_backend b)
{
	return (unsigned)b < MOE_BACKEND__COUNT ? backend_names[b] : "?";
}

int moe_backend_parse(const char *s, enum moe_backend *out, struct err *e)
{
	int i;

	for (i = 0; i < MOE_BACKEND__COUNT; i++)
		if (strcasecmp(s, backend_names[i]) == 0) {
			*out = (enum moe_backend)i;
			return 0;
		}
	return err_set(e, SS_EUSAGE,
		       "unknown MoE backend '%.40s' (expected TRTLLM, DEEPGEMM, CUTLASS, CUTEDSL, WIDEEP, TRITON or default)", s);
}

int moe_fmt_parse(const char *s, enum moe_fmt *out, struct err *e)
{
	int i;

	for (i = 0; i < MOE__COUNT; i++)
		if (strcmp(s, fmt_names[i]) == 0) {
			*out = (enum moe_fmt)i;
			return 0;
		}
	if (strcmp(s, "nvfp4") == 0) {
		*out = MOE_FP4;
		return 0;
	}
	return err_set(e, SS_EUSAGE,
		       "unknown MoE format '%s' (expected bf16, fp8, fp8_block, fp4, nvfp4, mxfp4 or int4)", s);
}

int moe_dist_parse(const char *s, enum moe_dist *out, struct err *e)
{
	int i;

	for (i = 0; i < MOE_DIST__COUNT; i++)
		if (strcmp(s, dist_names[i]) == 0) {
			*out = (enum moe_dist)i;
			return 0;
		}
	return err_set(e, SS_EUSAGE,
		       "unknown MoE routing distribution '%s' (expected balanced, power_law_1.01 or power_law_1.2)",
		       s);
}

/* Peak and weight bytes a format computes and streams at. */
void moe_fmt_rates(enum moe_fmt f, const double *peak, double *pk, double *bpp)
{
	switch (f) {
	case MOE_FP8:
	case MOE_FP8_BLOCK:
		*pk = peak[DT_FP8] > 0 ? peak[DT_FP8] : peak[DT_BF16];
		*bpp = 1.0;
		break;
	case MOE_FP4:
		*pk = peak[DT_FP4] > 0 ? peak[DT_FP4] : peak[DT_BF16];
		*bpp = 0.5;
		break;
	case MOE_INT4:
	case MOE_MXFP4: /* weight-only 4-bit: 16-bit math */
		*pk = peak[DT_BF16];
		*bpp = 0.5;
		break;
	default:
		*pk = peak[DT_BF16];
		*bpp = 2.0;
		break;
	}
}

double moe_roofline_s(const struct moe_shape *s, double tokens, double peak, double bytes_per_param,
		      double bw)
{
	double e_local = s->experts / s->ep, w = s->inter / s->tp;
	double assign = tokens * s->topk / s->ep; /* routed rows landing on this GPU */
	/* expected distinct local experts hit by tokens x topk uniform draws */
	double touched = e_local * (1.0 - pow(1.0 - 1.0 / s->experts, tokens * s->topk));
	double flops = 2.0 * 3.0 * assign * s->hidden * w;
	double bytes = touched * 3.0 * s->hidden * w * bytes_per_param +
		       assign * (2.0 * s->hidden + 3.0 * w) * 2.0;
	double tc = flops / peak, tb = bytes / bw;

	return tc > tb ? tc : tb;
}

static double xof(const struct moe_shape *s, double tokens)
{
	return log(tokens * s->topk / s->experts);
}

static int parse_fmt(const char *s, enum moe_fmt *f)
{
	int i;

	for (i = 0; i < MOE__COUNT; i++)
		if (strcmp(s, fmt_names[i]) == 0) {
			*f = (enum moe_fmt)i;
			return 0;
		}
	return -1;
}

static struct curve *find_curve(struct moetab *t, enum moe_fmt f, enum moe_dist d,
				const struct moe_shape *s, double pk, double bpp, double bw)
{
	/* derive.py writes the rows sorted by key, so the rows of one curve
	 * are contiguous: only the last curve can match */
	if (t->n > 0) {
		struct curve *c = &t->c[t->n - 1];
		if (c->fmt == f && c->dist == d && c->s.hidden == s->hidden && c->s.inter == s->inter &&
		    c->s.topk == s->topk && c->s.experts == s->experts && c->s.tp == s->tp &&
		    c->s.ep == s->ep)
			return c;
	}
	XGROW(t->c, t->cap, t->n + 1);
	memset(&t->c[t->n], 0, sizeof(t->c[0]));
	t->c[t->n].fmt = f;
	t->c[t->n].dist = d;
	t->c[t->n].s = *s;
	t->c[t->n].pk = pk;
	t->c[t->n].bpp = bpp;
	t->c[t->n].bw = bw;
	return &t->c[t->n++];
}

static void sort_curve(struct curve *c)
{
	size_t i, j;

	/* insertion sort: a few dozen points, mostly in order already */
	for (i = 1; i < c->n; i++) {
		double x = c->x[i], v = c->leff[i], r = c->lrem[i];
		for (j = i; j > 0 && c->x[j - 1] > x; j--) {
			c->x[j] = c->x[j - 1];
			c->leff[j] = c->leff[j - 1];
			c->lrem[j] = c->lrem[j - 1];
		}
		c->x[j] = x;
		c->leff[j] = v;
		c->lrem[j] = r;
	}
}

/* The format and distribution of the current row.  Rows are written
 * sorted by them, so the previous row's strings usually match and their
 * parse is reused (the tables have 100k+ rows). */
struct keys {
	char fmt[16], dist[24];
	int fmt_rc, dist_rc;
	enum moe_fmt f;
	enum moe_dist d;
	bool valid;
};

static int row_keys(const struct csv *c, const int *idx, struct keys *k, enum moe_fmt *f,
		    enum moe_dist *d)
{
	const char *fs = csv_field(c, idx[0]), *ds = csv_field(c, idx[7]);

	if (!k->valid || strcmp(fs, k->fmt) != 0 || strcmp(ds, k->dist) != 0) {
		struct err ignore;
		k->f = MOE_BF16;
		k->d = MOE_POWER_LAW_101;
		k->fmt_rc = parse_fmt(fs, &k->f);
		k->dist_rc = moe_dist_parse(ds, &k->d, &ignore);
		/* strings too long to keep are parsed again on every row */
		k->valid = strlen(fs) < sizeof(k->fmt) && strlen(ds) < sizeof(k->dist);
		if (k->valid) {
			memcpy(k->fmt, fs, strlen(fs) + 1);
			memcpy(k->dist, ds, strlen(ds) + 1);
		}
	}
	*f = k->f;
	*d = k->d;
	return k->fmt_rc < 0 || k->dist_rc < 0 ? -1 : 0;
}

/* The part of a curve's latency that does not scale with its roofline.  At
 * a few routed rows per expert a fused MoE kernel's time is mostly fixed
 * (launches, routing and permutation, the latency-bound floor: 20-70 us on
 * H100/H200/B200 where the weights take a few us), so carrying the whole
 * latency as an efficiency to a shape with another roofline inflates or
 * deflates that floor by the ratio of the rooflines (issue 9: Kimi-K3 priced
 * from a curve of half its width came out 135 us at one token against the
 * measured 68 us).  A transfer therefore keeps `fixed` as measured and
 * scales the rest: t = fixed + roofline / exp(lrem(x)).  fixed is the
 * table's latency floor for the curve's format and distribution, the lower
 * quartile of its curves' minimum latencies, at most 0.9 of the curve's own
 * minimum (the rest stays positive).  Chosen held out on the kernel tables
 * (scripts/mfu/check_moe_transfer.py: each model shape held out of its table
 * and priced from the nearest other, all 14 aiconfigurator tables, power
 * law 1.01): median |log(pred/meas)| at 1-16 / 17-256 / 257+ tokens 0.190 /
 * 0.121 / 0.130 with the efficiency alone, 0.088 / 0.072 / 0.103 with the
 * floor kept; quartile 0 or 0.5 and cap 0.8 or 0.95 within 0.004; a
 * per-curve 0.7 x minimum 0.099 / 0.077 / 0.106.  The same curve carried to
 * another GPU of the same collection: 0.342 / 0.291 / 0.276 -> 0.147 /
 * 0.156 / 0.222 (H100 <-> H200 0.296 -> 0.070 at 1-16 tokens; worse only
 * from or to A100 and L40S, e.g. H100/H200 -> L40S 0.230 -> 0.308); below a
 * curve's first measured point (1-8 tokens from the curve cut at 16, as
 * InferSim's start) 0.759 -> 0.152.  An exact shape priced on its own
 * roofline keeps the measured curve (moetab_time_s). */
#define MOE_FIXED_QUANTILE 0.25
#define MOE_FIXED_CAP 0.9

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Set fixed and lrem of curves [first, t->n), whose lrem holds log latency;
 * the floor is taken over those curves of the same format and distribution
 * (one load adds whole distributions). */
static void split_fixed(struct moetab *t, size_t first)
{
	size_t n = t->n - first, i, j, m;
	double *tmin = xcalloc(n ? n : 1, sizeof(double)), *grp = xcalloc(n ? n : 1, sizeof(double));

	for (i = 0; i < n; i++) {
		const struct curve *c = &t->c[first + i];
		double lo = c->lrem[0];
		for (j = 1; j < c->n; j++)
			lo = c->lrem[j] < lo ? c->lrem[j] : lo;
		tmin[i] = exp(lo);
	}
	for (i = 0; i < n; i++) {
		struct curve *c = &t->c[first + i];
		double pos, q;
		for (j = 0, m = 0; j < n; j++)
			if (t->c[first + j].fmt == c->fmt && t->c[first + j].dist == c->dist)
				grp[m++] = tmin[j];
		qsort(grp, m, sizeof(double), cmp_double);
		pos = MOE_FIXED_QUANTILE * (double)(m - 1);
		j = (size_t)pos;
		q = j + 1 < m ? grp[j] + (grp[j + 1] - grp[j]) * (pos - (double)j) : grp[j];
		c->fixed = q < MOE_FIXED_CAP * tmin[i] ? q : MOE_FIXED_CAP * tmin[i];
		/* log(roof / (t - fixed)) = leff + log t - log(t - fixed) */
		for (j = 0; j < c->n; j++)
			c->lrem[j] = c->leff[j] + c->lrem[j] - log(exp(c->lrem[j]) - c->fixed);
	}
	free(tmin);
	free(grp);
}

/* Append the rows of the distributions in `want` to t.  Curves of one
 * distribution come in file order whatever else is loaded, so moetab_pick
 * (which filters by distribution) picks the same curve either way. */
static int load_rows(const char *path, const struct gpu_spec *g, unsigned want, struct moetab *t,
		     struct err *e)
{
	static const char *const cols[] = {"dtype", "hidden", "inter", "topk", "experts", "moe_tp",
					   "moe_ep", "distribution", "tokens", "latency_us", NULL};
	struct csv *c;
	int idx[10], rc;
	size_t i, first = t->n;
	struct keys keys;

	memset(&keys, 0, sizeof(keys));
	if ((rc = csv_open(path, &c, e)) < 0)
		return rc;
	if ((rc = csv_require(c, cols, idx, e)) < 0)
		goto out;
	while ((rc = csv_next(c, e)) > 0) {
		double v[10], pk, bpp, troof;
		struct moe_shape s;
		enum moe_fmt f = MOE_BF16;
		enum moe_dist d = MOE_POWER_LAW_101;
		struct curve *cv;
		int j;
		if (row_keys(c, idx, &keys, &f, &d) < 0)
			continue; /* a format or distribution servesim does not price */
		if (!(want & (1u << d)))
			continue; /* not asked for: skipped before parsing the numbers */
		for (j = 1; j < 10; j++)
			if (j != 7 && (rc = csv_num(c, idx[j], &v[j], e)) < 0)
				goto out;
		for (j = 1; j < 10; j++)
			if (j != 7 && !(v[j] > 0)) {
				rc = err_set(e, SS_EDATA, "%s:%zu: '%s' must be > 0, got %g", path,
					     csv_lineno(c), cols[j], v[j]);
				goto out;
			}
		s = (struct moe_shape){v[1], v[2], v[3], v[4], v[5], v[6]};
		if (s.experts < s.ep || s.inter < s.tp)
			continue;
		moe_fmt_rates(f, g->table_peak, &pk, &bpp);
		troof = moe_roofline_s(&s, v[8], pk, bpp, g->table_hbm_bw);
		cv = find_curve(t, f, d, &s, pk, bpp, g->table_hbm_bw);
		if (cv->n == cv->cap) {
			cv->cap = cv->cap ? 2 * cv->cap : 32;
			cv->x = xreallocarray(cv->x, cv->cap, sizeof(double));
			cv->leff = xreallocarray(cv->leff, cv->cap, sizeof(double));
			cv->lrem = xreallocarray(cv->lrem, cv->cap, sizeof(double));
		}
		cv->x[cv->n] = xof(&s, v[8]);
		cv->leff[cv->n] = log(troof / (v[9] * 1e-6));
		cv->lrem[cv->n] = log(v[9] * 1e-6);
		cv->n++;
	}
	if (rc < 0)
		goto out;
	for (i = first; i < t->n; i++)
		sort_curve(&t->c[i]);
	split_fixed(t, first);
	t->loaded |= want;
	rc = 0;
out:
	csv_close(c);
	return rc;
}

int moetab_load(const char *path, const struct gpu_spec *g, struct moetab **out, struct err *e)
{
	struct moetab *t = xcalloc(1, sizeof(*t));
	int rc;

	*out = NULL;
	if ((rc = load_rows(path, g, (1u << MOE_DIST__COUNT) - 1, t, e)) < 0) {
		moetab_free(t);
		return rc;
	}
	*out = t;
	return 0;
}

int moetab_load_dist(const char *path, const struct gpu_spec *g, enum moe_dist d,
		     struct moetab **t, struct err *e)
{
	if (*t && ((*t)->loaded & (1u << d)))
		return 0;
	if (!*t)
		*t = xcalloc(1, sizeof(**t));
	return load_rows(path, g, 1u << d, *t, e);
}

void moetab_free(struct moetab *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->n; i++) {
		if (t->c[i].mapped)
			continue;
		free(t->c[i].x);
		free(t->c[i].leff);
		free(t->c[i].lrem);
	}
	free(t->c);
	free(t);
}

/* Normalised log distance between two shapes (0 when equal).  The hidden
 * size and the per-GPU expert volume (inter/tp x experts/ep: the weights one
 * GPU streams) weigh fully, how that volume is split between thinner experts
 * (TP) and fewer experts (EP) 0.3, top-k and the global expert count (which
 * set rows per expert, already the x axis) less.  Chosen on the kernel data:
 * predicting every measured curve with TP x EP > 1 from the others (power
 * law 1.01, all collections of H100/H200/B200), the median |log error| is
 * 0.094 with the volume term against 0.170 when inter/tp and experts/ep
 * weighed separately (the latency-bound small shards were priced as if they
 * kept the unsharded kernel's efficiency). */
static double shape_distance(const struct moe_shape *a, const struct moe_shape *b)
{
	double wa = a->inter / a->tp, wb = b->inter / b->tp;
	double va = wa * a->experts / a->ep, vb = wb * b->experts / b->ep;

	return fabs(log(a->hidden / b->hidden)) + fabs(log(va / vb)) + 0.3 * fabs(log(wa / wb)) +
	       0.5 * fabs(log(a->topk / b->topk)) + 0.25 * fabs(log(a->experts / b->experts)) +
	       0.1 * fabs(log(a->tp / b->tp));
}

static bool fmt_compatible(enum moe_fmt want, enum moe_fmt have)
{
	if (want == have)
		return true;
	if ((want == MOE_FP8 || want == MOE_FP8_BLOCK) && (have == MOE_FP8 || have == MOE_FP8_BLOCK))
		return true;
	return (want == MOE_FP4 || want == MOE_MXFP4) && (have == MOE_FP4 || have == MOE_MXFP4);
}

/* The most tokens a curve measured on its own shape (its last point). */
static double curve_last_tokens(const struct curve *c)
{
	return exp(c->x[c->n - 1]) * c->s.experts / c->s.topk;
}

/* Whether curve c serves a lookup for (fmt, dist) at all. */
static bool curve_eligible(const struct curve *c, enum moe_fmt fmt, enum moe_dist dist)
{
	return c->dist == dist && fmt_compatible(fmt, c->fmt) && c->n > 0;
}

/* The nearest eligible curve to s, with last measured tokens >= reach
 * (0: any); *dist its distance (the sibling format at +0.3). */
static const struct curve *nearest_curve(const struct moetab *t, enum moe_fmt fmt, const struct moe_shape *s,
					 enum moe_dist dist, double reach, double *dist_out)
{
	const struct curve *best = NULL;
	double bd = INFINITY;
	size_t i;

	for (i = 0; i < t->n; i++) {
		const struct curve *c = &t->c[i];
		double d;
		if (!curve_eligible(c, fmt, dist) || curve_last_tokens(c) < reach * (1.0 - 1e-9))
			continue;
		/* the sibling format (per-tensor vs block fp8, nvfp4 vs mxfp4)
		 * runs other kernels: it serves only when the requested format's
		 * nearest shape is much farther (0.3 ~ a 35 % size difference) */
		d = shape_distance(s, &c->s) + (c->fmt == fmt ? 0 : 0.3);
		if (d < bd) {
			bd = d;
			best = c;
		}
	}
	*dist_out = bd;
	return best;
}

static void curve_desc(const struct curve *c, char *out, size_t n)
{
	snprintf(out, n, "%s %.0fx%.0f top%.0f/%.0f tp%.0f ep%.0f, %s", fmt_names[c->fmt], c->s.hidden, c->s.inter,
		 c->s.topk, c->s.experts, c->s.tp, c->s.ep, dist_names[c->dist]);
}

void moetab_pick(const struct moetab *t, enum moe_fmt fmt, const struct moe_shape *s,
		 enum moe_dist dist, struct moe_pick *pick)
{
	moetab_pick_reach(t, fmt, s, dist, 0, pick);
}

void moetab_pick_reach(const struct moetab *t, enum moe_fmt fmt, const struct moe_shape *s,
		       enum moe_dist dist, double reach_tokens, struct moe_pick *pick)
{
	const struct curve *best;
	double bd;
	size_t i;

	memset(pick, 0, sizeof(*pick));
	if (!t || !(best = nearest_curve(t, fmt, s, dist, 0, &bd)))
		return;
	pick->curve = best;
	pick->fmt = best->fmt;
	pick->fixed_s = best->fixed;
	pick->distance = bd < 1e-6 ? 0 : bd;
	if (pick->distance > 0) {
		/* the same experts measured on fewer GPUs (issue 9: Qwen3-235B
		 * bf16 TP8 on B200 took vLLM's 2816x704 TP4 curve, whose latency
		 * floor made one GPU of eight slower than the measured TP4) */
		const struct curve *cap = NULL;
		for (i = 0; i < t->n; i++) {
			const struct curve *c = &t->c[i];
			if (c->dist != dist || c->fmt != best->fmt || c->n == 0 || c->s.hidden != s->hidden ||
			    c->s.inter != s->inter || c->s.topk != s->topk || c->s.experts != s->experts ||
			    c->s.tp > s->tp || c->s.ep > s->ep || c->s.tp * c->s.ep >= s->tp * s->ep)
				continue;
			if (!cap || c->s.tp * c->s.ep > cap->s.tp * cap->s.ep)
				cap = c;
		}
		if (cap) {
			pick->bound = cap;
			pick->bound_s = cap->s;
			snprintf(pick->bound_desc, sizeof(pick->bound_desc), "tp%.0f ep%.0f", cap->s.tp, cap->s.ep);
		}
	}
	curve_desc(best, pick->desc, sizeof(pick->desc));
	/* the nearest curve stops short of the calls to price: beyond its
	 * last point the nearest one measured as far (or as far as any) */
	if (reach_tokens > 0 && curve_last_tokens(best) < reach_tokens * (1.0 - 1e-9)) {
		double far = 0, td;
		const struct curve *tail;
		for (i = 0; i < t->n; i++)
			if (curve_eligible(&t->c[i], fmt, dist) && curve_last_tokens(&t->c[i]) > far)
				far = curve_last_tokens(&t->c[i]);
		far = far < reach_tokens ? far : reach_tokens;
		tail = nearest_curve(t, fmt, s, dist, far, &td);
		if (tail && tail != best && curve_last_tokens(tail) > curve_last_tokens(best)) {
			pick->tail = tail;
			pick->tail_fixed_s = tail->fixed;
			pick->tail_from_tokens = curve_last_tokens(best);
			curve_desc(tail, pick->tail_desc, sizeof(pick->tail_desc));
		}
	}
}

/* ys interpolated linearly at x along the curve's x (held at the ends). */
static double along(const struct curve *c, const double *ys, double x)
{
	size_t lo, hi;

	if (c->n == 1 || x <= c->x[0])
		return ys[0];
	if (x >= c->x[c->n - 1])
		return ys[c->n - 1];
	lo = 0;
	hi = c->n - 1;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		if (c->x[mid] <= x)
			lo = mid;
		else
			hi = mid;
	}
	return ys[lo] + (ys[hi] - ys[lo]) * (x - c->x[lo]) / (c->x[hi] - c->x[lo]);
}

double moetab_eff(const struct moe_pick *pick, const struct moe_shape *s, double tokens)
{
	const struct curve *c = pick->curve;

	return c ? exp(along(c, c->leff, xof(s, tokens))) : NAN;
}

/* Seconds of curve c at tokens for shape s on the roofline (peak, bpp, bw):
 * its measured latency where that is its own shape (exact) and roofline,
 * else the fixed part kept and the rest scaled (split_fixed). */
static double curve_s(const struct curve *c, bool exact, const struct moe_shape *s, double tokens, double peak,
		      double bpp, double bw)
{
	double roof = moe_roofline_s(s, tokens, peak, bpp, bw), x = xof(s, tokens);

	if (exact && peak == c->pk && bpp == c->bpp && bw == c->bw)
		return roof / exp(along(c, c->leff, x));
	return c->fixed + roof / exp(along(c, c->lrem, x));
}

double moetab_time_s(const struct moe_pick *pick, const struct moe_shape *s, double tokens, double peak,
		     double bytes_per_param, double bw)
{
	const struct curve *c = pick->curve;

	if (!c)
		return NAN;
	if (pick->tail && xof(s, tokens) > c->x[c->n - 1])
		return curve_s(pick->tail, false, s, tokens, peak, bytes_per_param, bw);
	return curve_s(c, pick->distance == 0, s, tokens, peak, bytes_per_param, bw);
}

double moetab_bound_s(const struct moe_pick *pick, double tokens, double peak, double bytes_per_param,
		      double bw)
{
	if (!pick->bound)
		return INFINITY;
	return curve_s(pick->bound, true, &pick->bound_s, tokens, peak, bytes_per_param, bw);
}

/* --- compact form (mfupack.h) --- */

bool moetab_has_dist(const struct moetab *t, enum moe_dist d)
{
	return t && (t->loaded & (1u << d));
}

void moetab_pack_dist(const struct moetab *t, enum moe_dist d, struct sbuf *out)
{
	size_t i, n = 0;

	for (i = 0; i < t->n; i++)
		n += t->c[i].dist == d;
	bytes_put_u64(out, n);
	for (i = 0; i < t->n; i++) {
		const struct curve *c = &t->c[i];
		if (c->dist != d)
			continue;
		bytes_put_u64(out, (size_t)c->fmt);
		bytes_put(out, &c->s, sizeof(c->s));
		bytes_put(out, &c->pk, sizeof(double));
		bytes_put(out, &c->bpp, sizeof(double));
		bytes_put(out, &c->bw, sizeof(double));
		bytes_put(out, &c->fixed, sizeof(double));
		bytes_put_u64(out, c->n);
		bytes_put(out, c->x, c->n * sizeof(double));
		bytes_put(out, c->leff, c->n * sizeof(double));
		bytes_put(out, c->lrem, c->n * sizeof(double));
	}
}

/* n doubles of r for a curve: in place (mapped) or a copy. */
static double *curve_f64s(struct bytes_rd *r, size_t n, bool mapped)
{
	bool aligned;

	if (mapped) /* read-only: curve.mapped */
		return (double *)(uintptr_t)bytes_view_f64s(r, n, &aligned);
	return bytes_get_f64s(r, n);
}

static int unpack_dist(const unsigned char *buf, size_t len, enum moe_dist d, struct moetab **t,
		       bool in_place)
{
	struct bytes_rd r = {buf, buf ? buf + len : buf, false};
	struct curve *cs;
	size_t n = bytes_get_u64(&r), i, k;

	if (!buf || r.bad || n > len / sizeof(struct moe_shape))
		return -1;
	cs = xcalloc(n ? n : 1, sizeof(*cs));
	for (i = 0; i < n && !r.bad; i++) {
		size_t f = bytes_get_u64(&r);
		cs[i].fmt = f < MOE__COUNT ? (enum moe_fmt)f : MOE_BF16;
		r.bad |= f >= MOE__COUNT;
		cs[i].dist = d;
		bytes_get(&r, &cs[i].s, sizeof(cs[i].s));
		bytes_get(&r, &cs[i].pk, sizeof(double));
		bytes_get(&r, &cs[i].bpp, sizeof(double));
		bytes_get(&r, &cs[i].bw, sizeof(double));
		bytes_get(&r, &cs[i].fixed, sizeof(double));
		cs[i].n = cs[i].cap = bytes_get_u64(&r);
		/* the three arrays follow each other: all in place or none */
		cs[i].mapped = in_place && ((uintptr_t)r.p & (_Alignof(double) - 1)) == 0;
		cs[i].x = curve_f64s(&r, cs[i].n, cs[i].mapped);
		cs[i].leff = curve_f64s(&r, cs[i].n, cs[i].mapped);
		cs[i].lrem = curve_f64s(&r, cs[i].n, cs[i].mapped);
		if (!r.bad && (cs[i].n == 0 || !bytes_ascending(cs[i].x, cs[i].n, false)))
			r.bad = true; /* moetab_eff searches x */
		if (!r.bad && !(cs[i].fixed >= 0 && cs[i].fixed < INFINITY))
			r.bad = true; /* a seconds figure added to every transfer */
	}
	if (r.bad || r.p != r.end) {
		for (k = 0; k < n; k++) {
			if (cs[k].mapped)
				continue;
			free(cs[k].x);
			free(cs[k].leff);
			free(cs[k].lrem);
		}
		free(cs);
		return -1;
	}
	if (!*t)
		*t = xcalloc(1, sizeof(**t));
	for (i = 0; i < n; i++) {
		XGROW((*t)->c, (*t)->cap, (*t)->n + 1);
		(*t)->c[(*t)->n++] = cs[i];
	}
	(*t)->loaded |= 1u << d;
	free(cs);
	return 0;
}

int moetab_unpack_dist(const unsigned char *buf, size_t len, enum moe_dist d, struct moetab **t)
{
	return unpack_dist(buf, len, d, t, false);
}

int moetab_view_dist(const unsigned char *buf, size_t len, enum moe_dist d, struct moetab **t)
{
	return unpack_dist(buf, len, d, t, true);
}
