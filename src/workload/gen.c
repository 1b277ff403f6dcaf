/* gen.c - lazy request generation in arrival order.
 *
 * PCG32 streams: 1 arrivals, 2 prompt lengths, 3 output lengths, 4 prompt
 * shuffling; sessions: 5 turns per session, 6 think times, 7 tool-output
 * tokens, 8 and 9 the later turns' new user tokens and output lengths (in
 * the order the turns are released, which the simulation fixes); 13 LoRA
 * adapters (wl_lora); 14 image counts, 15 image repeats (wl_images).  Sorted uniform points of a stage (inference-perf's constant
 * load, a Poisson process conditioned on its count) are produced one at a
 * time by the sequential order-statistics method: the next of the k points
 * left in [x, 1) is x + (1 - x)(1 - U^(1/k)). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/csv.h"
#include "base/pcg32.h"
#include "base/simtime.h"
#include "workload/curve.h"
#include "workload/workload.h"

/* lengths drawn ahead, GEN_BATCH at a time from each stream (gen_refill) */
#define GEN_BATCH 64
/* the most requests a wl_draws keeps */
#define DRAWS_MAX ((size_t)1 << 20)

struct wl_draws {
	uint64_t seed;
	bool used;
	double *arr;                    /* the arrival stream's unit draws */
	size_t narr, carr;
	struct pcg32 r_arr;             /* its state after them */
	int64_t *bp, *bo;               /* prompt and output lengths */
	size_t nlen, cbp, cbo;
	struct pcg32 r_prompt, r_out;   /* their streams' state after them */
};

struct wl_draws *wl_draws_new(void)
{
	return xcalloc(1, sizeof(struct wl_draws));
}

void wl_draws_free(struct wl_draws *d)
{
	if (!d)
		return;
	free(d->arr);
	free(d->bp);
	free(d->bo);
	free(d);
}

struct wl_gen {
	const struct wl_spec *s;
	struct wl_dist prompt, output; /* prepared copies of the spec's */
	int64_t bp[GEN_BATCH], bo[GEN_BATCH]; /* prompt and output lengths drawn ahead */
	int bpos, blen;
	struct pcg32 r_arr, r_prompt, r_out, r_shuf;
	int64_t issued;
	double t;             /* seconds: last arrival (open loop) */
	size_t stage;         /* current stage */
	double stage_start;
	/* uniform_count / poisson_count: points left in the window and position */
	int64_t left;
	double pos, win_start, win_len;
	bool win_open;
	/* rate curve: operational time of the last arrival, and the segment
	 * it lies in with the integral up to that segment's start */
	double u, seg_u0;
	size_t seg;
	int64_t *perm;        /* shared_prefix: shuffled prompt order */
	struct csv *trace;
	int tcol[6];
	double last_trace_s;
	/* sessions: prepared distributions, streams, each started session's
	 * turns, and the later turns released so far */
	struct wl_dist turns, think, tool;
	struct pcg32 r_turns, r_think, r_tool, r_uprompt, r_uout;
	int32_t *sess_turns;
	size_t sess_cap;
	int64_t nlater;
	bool joint;           /* prompt and output of one dataset: drawn together */
	/* LoRA: the adapters' cumulative popularity (Zipf; NULL: uniform) */
	struct pcg32 r_lora;
	double *lora_cdf;
	/* images: the prepared count, streams, the next new image's number */
	struct wl_dist img_count;
	struct pcg32 r_img, r_imgrep;
	int64_t next_image;
	/* the shared draws (wl_draws; NULL: none) and the indices of the next
	 * arrival draw and length pair */
	struct wl_draws *d;
	size_t narr, nlen;
};

static double unif(struct pcg32 *r)
{
	double u = pcg32_double(r);
	return u > 0 ? u : 0x1p-53;
}

static double std_normal(struct pcg32 *r)
{
	/* Box-Muller, one variate per call: deterministic and simple */
	double u1 = unif(r), u2 = pcg32_double(r);
	return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

/* floor(exp(mu + sigma z) + 0.5), z the Box-Muller variate std_normal
 * draws (the same two draws, the same value), with cos and exp first in
 * single precision (about a third of their cost): the rounded value is
 * kept when exp's result lies farther from a rounding boundary (k + 0.5)
 * than the single-precision error can reach, else computed again as
 * std_normal and wl_dist_sample do.  The bound, relative to exp's value:
 * cos's argument rounded to float (<= 2^-24 * 2 pi = 3.8e-7) and cosf
 * (glibc: <= 1 ulp, 6e-8) move z by <= 5e-7 sqrt(-2 log u1); y rounded
 * to float moves it by <= 6e-8 |y|; expf (<= 1 ulp) by 1.2e-7; the test
 * allows four times their sum.  50 M draws over six (mean, sd) pairs
 * (5 to 30000 tokens) gave the same integers as the double-precision
 * path, falling back on 3.5 % of them (0.1 % for the bench's 600/300). */
static double lognormal_round(double mu, double sigma, struct pcg32 *r)
{
	double u1 = unif(r), u2 = pcg32_double(r);
	double sq = sqrt(-2.0 * log(u1)), arg = 2.0 * M_PI * u2;
	double y = mu + sigma * (sq * (double)cosf((float)arg));
	double e = (double)expf((float)y);

	if (e < 1e6) {
		/* floor(e + 0.5) by truncation: e + 0.5 > 0 */
		double k = (double)(int64_t)(e + 0.5), f = e + 0.5 - k;
		double tol = (sigma * sq * 2e-6 + fabs(y) * 2.4e-7 + 5e-7) * e + 1e-9;
		if (f > tol && 1.0 - f > tol)
			return k;
	}
	return floor(exp(mu + sigma * (sq * cos(arg))) + 0.5);
}

/* lognormal_round for n draws in a row (n <= GEN_BATCH): the same
 * operations on the same values, in phases over the batch, so that the
 * draws' long chains of dependent libm calls overlap in the processor
 * instead of waiting on one another. */
static void lognormal_round_n(double mu, double sigma, struct pcg32 *r, double *out, int n)
{
	double u1[GEN_BATCH], u2[GEN_BATCH], sq[GEN_BATCH];
	int i;

	for (i = 0; i < n; i++) {
		u1[i] = unif(r);
		u2[i] = pcg32_double(r);
	}
	for (i = 0; i < n; i++)
		sq[i] = sqrt(-2.0 * log(u1[i]));
	for (i = 0; i < n; i++) {
		double arg = 2.0 * M_PI * u2[i];
		double y = mu + sigma * (sq[i] * (double)cosf((float)arg));
		double e = (double)expf((float)y);
		if (e < 1e6) { /* lognormal_round's test */
			double k = (double)(int64_t)(e + 0.5), f = e + 0.5 - k;
			double tol = (sigma * sq[i] * 2e-6 + fabs(y) * 2.4e-7 + 5e-7) * e + 1e-9;
			if (f > tol && 1.0 - f > tol) {
				out[i] = k;
				continue;
			}
		}
		out[i] = floor(exp(mu + sigma * (sq[i] * cos(arg))) + 0.5);
	}
}

static double gamma_draw(struct pcg32 *r, double k)
{
	/* Marsaglia-Tsang; k < 1 boosted by U^(1/k) */
	double d, c, x, v, u;

	if (k < 1)
		return gamma_draw(r, k + 1) * pow(unif(r), 1.0 / k);
	d = k - 1.0 / 3.0;
	c = 1.0 / sqrt(9.0 * d);
	for (;;) {
		do {
			x = std_normal(r);
			v = 1 + c * x;
		} while (v <= 0);
		v = v * v * v;
		u = unif(r);
		if (log(u) < 0.5 * x * x + d - d * v + d * log(v))
			return d * v;
	}
}

/* The arrival stream's next unit draw: log U (Poisson) or a gamma variate
 * of shape k, from the shared draws where they hold it (the stream then
 * goes on from their state after it). */
static double arr_unit(struct wl_gen *g, bool gamma, double k)
{
	struct wl_draws *d = g->d;
	double v;

	if (d && g->narr < d->narr)
		return d->arr[g->narr++];
	if (d && g->narr == d->narr && d->narr > 0)
		g->r_arr = d->r_arr;
	v = gamma ? gamma_draw(&g->r_arr, k) : log(unif(&g->r_arr));
	if (d && g->narr == d->narr && d->narr < DRAWS_MAX) {
		XGROW(d->arr, d->carr, d->narr + 1);
		d->arr[d->narr++] = v;
		d->r_arr = g->r_arr;
	}
	g->narr++;
	return v;
}

static int64_t poisson_draw(struct pcg32 *r, double lambda)
{
	double p, s, u;
	int64_t k = 0;

	if (lambda > 500) {
		double x = floor(lambda + sqrt(lambda) * std_normal(r) + 0.5);
		return x < 0 ? 0 : (int64_t)x;
	}
	p = exp(-lambda);
	s = p;
	u = pcg32_double(r);
	while (u > s && k < 100000) {
		k++;
		p *= lambda / (double)k;
		s += p;
	}
	return k;
}

void wl_dist_prepare(struct wl_dist *d)
{
	if (d->kind == WL_LOGNORMAL && d->a > 0) {
		double s2 = log(1.0 + (d->b / d->a) * (d->b / d->a));
		d->ln_mu = log(d->a) - s2 / 2;
		d->ln_sigma = sqrt(s2);
	}
}

/* The length at probability u of a dataset's quantile table: log-linear
 * between the quantiles around it. */
static double dataset_at(const struct wl_dist *d, double u)
{
	size_t i = 1;
	double t;

	while (i + 1 < d->nvalues && u > d->cdf[i])
		i++;
	t = (u - d->cdf[i - 1]) / (d->cdf[i] - d->cdf[i - 1]);
	t = t < 0 ? 0 : t > 1 ? 1 : t;
	return floor(exp(log(d->values[i - 1]) + t * (log(d->values[i]) - log(d->values[i - 1]))) + 0.5);
}

/* wl_dist_sample's clip of a drawn value. */
static int64_t dist_clip(const struct wl_dist *d, double x)
{
	if (x < (double)d->min)
		x = (double)d->min;
	if (x > (double)d->max)
		x = (double)d->max;
	if (!(x <= (double)WL_MAX_TOKENS)) /* a hand-built spec: no overflow (NaN too) */
		x = (double)WL_MAX_TOKENS;
	return (int64_t)x;
}

int64_t wl_dist_sample(const struct wl_dist *d, struct pcg32 *r)
{
	double x = d->a;
	size_t i;

	switch (d->kind) {
	case WL_FIXED:
		x = d->a;
		break;
	case WL_UNIFORM:
		x = d->a + floor(pcg32_double(r) * (d->b - d->a + 1));
		break;
	case WL_NORMAL:
		x = d->b > 0 ? floor(d->a + d->b * std_normal(r) + 0.5) : d->a;
		break;
	case WL_LOGNORMAL:
		x = lognormal_round(d->ln_mu, d->ln_sigma, r);
		break; /* (dist_sample_n draws many at once) */
	case WL_DATASET:
		x = dataset_at(d, pcg32_double(r));
		break;
	case WL_EMPIRICAL: {
		double u = pcg32_double(r);
		for (i = 0; i + 1 < d->nvalues && u >= d->cdf[i]; i++)
			;
		x = d->values[i];
		break;
	}
	}
	return dist_clip(d, x);
}

void wl_dataset_pair(const struct wl_dist *p, const struct wl_dist *o, struct pcg32 *r_p, struct pcg32 *r_o,
		     int64_t *prompt, int64_t *output)
{
	/* the Gaussian copula: normal scores of correlation rho, each through
	 * its marginal's quantile table */
	double z1 = std_normal(r_p), z2 = p->rho * z1 + sqrt(1 - p->rho * p->rho) * std_normal(r_o);

	*prompt = dist_clip(p, dataset_at(p, 0.5 * erfc(-z1 / M_SQRT2)));
	*output = dist_clip(o, dataset_at(o, 0.5 * erfc(-z2 / M_SQRT2)));
}

/* n wl_dist_sample draws in a row into out (n <= GEN_BATCH). */
static void dist_sample_n(const struct wl_dist *d, struct pcg32 *r, int64_t *out, int n)
{
	double x[GEN_BATCH];
	int i;

	if (d->kind != WL_LOGNORMAL) {
		for (i = 0; i < n; i++)
			out[i] = wl_dist_sample(d, r);
		return;
	}
	lognormal_round_n(d->ln_mu, d->ln_sigma, r, x, n);
	for (i = 0; i < n; i++)
		out[i] = dist_clip(d, x[i]);
}

int wl_stage_of(const struct wl_spec *s, int64_t t_ns)
{
	double t = (double)t_ns * 1e-9, start = 0;
	size_t i;

	for (i = 0; i < s->nstages; i++) {
		if (t < start + s->stages[i].duration_s)
			return (int)i;
		start += s->stages[i].duration_s;
	}
	return s->nstages ? (int)s->nstages - 1 : 0;
}

static double stage_rate(const struct wl_gen *g)
{
	return g->s->nstages ? g->s->stages[g->stage].rate : g->s->rate;
}

static double stage_end(const struct wl_gen *g)
{
	if (g->s->nstages)
		return g->stage_start + g->s->stages[g->stage].duration_s;
	return g->s->duration_s > 0 ? g->s->duration_s : INFINITY;
}

/* Move to the next stage; false when none is left. */
static bool next_stage(struct wl_gen *g)
{
	if (!g->s->nstages || g->stage + 1 >= g->s->nstages)
		return false;
	g->stage_start += g->s->stages[g->stage].duration_s;
	g->stage++;
	g->win_open = false;
	return true;
}

int wl_gen_new(const struct wl_spec *s, struct wl_gen **out, struct err *e)
{
	struct wl_gen *g;
	int rc;

	*out = NULL;
	if ((rc = wl_spec_validate(s, s->source[0] ? s->source : "workload", e)) < 0 ||
	    (rc = wl_spec_check_size(s, s->source[0] ? s->source : "workload", e)) < 0)
		return rc;
	g = xcalloc(1, sizeof(*g));
	g->s = s;
	g->prompt = s->prompt;
	g->output = s->output;
	wl_dist_prepare(&g->prompt);
	wl_dist_prepare(&g->output);
	g->joint = g->prompt.kind == WL_DATASET && g->output.kind == WL_DATASET &&
		   strcmp(g->prompt.dataset, g->output.dataset) == 0;
	pcg32_seed(&g->r_arr, s->seed, 1);
	pcg32_seed(&g->r_prompt, s->seed, 2);
	pcg32_seed(&g->r_out, s->seed, 3);
	pcg32_seed(&g->r_shuf, s->seed, 4);
	if (s->sess.count > 0) {
		g->turns = s->sess.turns;
		g->think = s->sess.think_ms;
		g->tool = s->sess.tool;
		wl_dist_prepare(&g->turns);
		wl_dist_prepare(&g->think);
		wl_dist_prepare(&g->tool);
		pcg32_seed(&g->r_turns, s->seed, 5);
		pcg32_seed(&g->r_think, s->seed, 6);
		pcg32_seed(&g->r_tool, s->seed, 7);
		pcg32_seed(&g->r_uprompt, s->seed, 8);
		pcg32_seed(&g->r_uout, s->seed, 9);
	}
	if (s->lora.adapters > 0) {
		pcg32_seed(&g->r_lora, s->seed, 13);
		if (s->lora.zipf_s > 0) {
			double sum = 0;
			int64_t k;
			g->lora_cdf = xmalloc(xmul((size_t)s->lora.adapters, sizeof(double)));
			for (k = 0; k < s->lora.adapters; k++)
				g->lora_cdf[k] = sum += pow((double)(k + 1), -s->lora.zipf_s);
			for (k = 0; k < s->lora.adapters; k++)
				g->lora_cdf[k] /= sum;
		}
	}
	if (s->images.on) {
		g->img_count = s->images.count;
		wl_dist_prepare(&g->img_count);
		pcg32_seed(&g->r_img, s->seed, 14);
		pcg32_seed(&g->r_imgrep, s->seed, 15);
	}
	if (s->sp_groups > 0) {
		int64_t n = s->sp_groups * s->sp_prompts, i;
		g->perm = xmalloc(xmul((size_t)n, sizeof(int64_t)));
		for (i = 0; i < n; i++)
			g->perm[i] = i;
		for (i = n - 1; i > 0; i--) { /* Fisher-Yates */
			int64_t j = (int64_t)pcg32_bounded(&g->r_shuf, (uint32_t)(i + 1)), t = g->perm[i];
			g->perm[i] = g->perm[j];
			g->perm[j] = t;
		}
	}
	/* the shared draws, for the processes and generators they hold (a
	 * spec of another seed draws its own) */
	if (s->draws && !s->nstages && !s->ncurve && s->sp_groups == 0 && s->sess.count == 0 &&
	    (s->process == WL_POISSON || s->process == WL_GAMMA || s->process == WL_CONSTANT) &&
	    (!s->draws->used || s->draws->seed == s->seed)) {
		g->d = s->draws;
		g->d->used = true;
		g->d->seed = s->seed;
	}
	if (s->process == WL_TRACE && s->records) {
		*out = g;
		return 0;
	}
	if (s->process == WL_TRACE) {
		static const char *const cols[] = {"arrival_s", "prompt_tokens", "output_tokens", NULL};
		static const char *const opt[] = {"prefix_group", "adapter", "images", NULL};
		static const char *const known[] = {"arrival_s", "prompt_tokens", "output_tokens",
						    "prefix_group", "adapter", "images", NULL};
		if ((rc = csv_open(s->trace, &g->trace, e)) < 0 ||
		    (rc = csv_require(g->trace, cols, g->tcol, e)) < 0 ||
		    (rc = csv_optional(g->trace, opt, known, g->tcol + 3, e)) < 0) {
			wl_gen_free(g);
			return rc;
		}
	}
	*out = g;
	return 0;
}

void wl_gen_free(struct wl_gen *g)
{
	if (!g)
		return;
	free(g->lora_cdf);
	free(g->perm);
	free(g->sess_turns);
	csv_close(g->trace);
	free(g);
}

bool wl_gen_closed_loop(const struct wl_gen *g)
{
	return g->s->process == WL_CONCURRENCY;
}

int64_t wl_gen_concurrency(const struct wl_gen *g)
{
	return g->s->concurrency;
}

/* The next arrival on the rate curve: the process's next point u in
 * operational time (rate 1), mapped back through the curve's integral
 * (curve.h).  false past the curve's end or duration_s. */
static bool curve_arrival(struct wl_gen *g, double *t)
{
	const struct wl_spec *s = g->s;
	double t0, dt, r0, r1, area;

	switch (s->process) {
	case WL_GAMMA: {
		double k = 1.0 / (s->cv * s->cv);
		g->u += arr_unit(g, true, k) / k;
		break;
	}
	case WL_CONSTANT:
		g->u = (double)g->left++;
		break;
	default: /* poisson */
		g->u -= arr_unit(g, false, 0);
		break;
	}
	for (;;) {
		if (g->seg + 1 >= s->ncurve)
			return false;
		area = wl_curve_seg(s, g->seg, &t0, &dt, &r0, &r1);
		if (g->u < g->seg_u0 + area)
			break;
		g->seg_u0 += area;
		g->seg++;
	}
	*t = t0 + wl_curve_seg_time(r0, r1, dt, g->u - g->seg_u0);
	if (s->duration_s > 0 && *t >= s->duration_s)
		return false;
	g->t = *t;
	return true;
}

/* Next arrival time in seconds for the open-loop processes; false at end. */
static bool next_arrival(struct wl_gen *g, double *t)
{
	const struct wl_spec *s = g->s;

	if (s->ncurve)
		return curve_arrival(g, t);
	for (;;) {
		double rate = stage_rate(g), end = stage_end(g), x;
		switch (s->process) {
		case WL_POISSON:
			x = (g->issued == 0 && g->t == 0 ? g->stage_start : g->t) - arr_unit(g, false, 0) / rate;
			if (x < g->stage_start)
				x = g->stage_start;
			break;
		case WL_GAMMA: {
			double k = 1.0 / (s->cv * s->cv);
			x = (g->t < g->stage_start ? g->stage_start : g->t) + arr_unit(g, true, k) / (k * rate);
			break;
		}
		case WL_CONSTANT:
			/* exact spacing from the stage start */
			if (!g->win_open) {
				g->win_open = true;
				g->left = 0;
			}
			x = g->stage_start + (double)g->left / rate;
			g->left++;
			break;
		case WL_UNIFORM_COUNT:
		case WL_POISSON_COUNT:
			while (!g->win_open || g->left == 0) {
				if (!g->win_open) {
					g->win_start = g->stage_start;
				} else if (s->process == WL_POISSON_COUNT) {
					g->win_start += 1.0;
				} else {
					g->win_start = end; /* window exhausted */
				}
				if (g->win_start >= end)
					break;
				g->win_open = true;
				g->pos = 0;
				if (s->process == WL_UNIFORM_COUNT) {
					g->win_len = end - g->win_start;
					g->left = (int64_t)floor(rate * g->win_len);
				} else {
					g->win_len = end - g->win_start < 1.0 ? end - g->win_start : 1.0;
					g->left = poisson_draw(&g->r_arr, rate * g->win_len);
				}
			}
			if (g->win_start >= end) {
				x = INFINITY;
				break;
			}
			g->pos += (1 - g->pos) * (1 - pow(unif(&g->r_arr), 1.0 / (double)g->left));
			g->left--;
			x = g->win_start + g->pos * g->win_len;
			break;
		default:
			return false;
		}
		if (x < end) {
			g->t = x;
			*t = x;
			return true;
		}
		/* past this stage: the next one starts at its boundary */
		g->t = end;
		if (!next_stage(g))
			return false;
	}
}

/* The next lengths drawn ahead (fill_lengths) from the shared draws: read
 * where they hold them, else drawn a whole batch at a time (from their
 * streams' state after what they hold) and added to them. */
static void draws_refill(struct wl_gen *g)
{
	struct wl_draws *d = g->d;
	int n = GEN_BATCH, i;

	if (g->nlen < d->nlen) {
		if ((size_t)n > d->nlen - g->nlen)
			n = (int)(d->nlen - g->nlen);
		memcpy(g->bp, d->bp + g->nlen, (size_t)n * sizeof(int64_t));
		memcpy(g->bo, d->bo + g->nlen, (size_t)n * sizeof(int64_t));
	} else {
		if (g->nlen == d->nlen && d->nlen > 0) {
			g->r_prompt = d->r_prompt;
			g->r_out = d->r_out;
		}
		if (g->joint) {
			for (i = 0; i < n; i++)
				wl_dataset_pair(&g->prompt, &g->output, &g->r_prompt, &g->r_out, &g->bp[i], &g->bo[i]);
		} else {
			dist_sample_n(&g->prompt, &g->r_prompt, g->bp, n);
			dist_sample_n(&g->output, &g->r_out, g->bo, n);
		}
		if (g->nlen == d->nlen && d->nlen + (size_t)n <= DRAWS_MAX) {
			XGROW(d->bp, d->cbp, d->nlen + (size_t)n);
			XGROW(d->bo, d->cbo, d->nlen + (size_t)n);
			memcpy(d->bp + d->nlen, g->bp, (size_t)n * sizeof(int64_t));
			memcpy(d->bo + d->nlen, g->bo, (size_t)n * sizeof(int64_t));
			d->nlen += (size_t)n;
			d->r_prompt = g->r_prompt;
			d->r_out = g->r_out;
		}
	}
	g->nlen += (size_t)n;
	g->bpos = 0;
	g->blen = n;
}

static void fill_lengths(struct wl_gen *g, struct wl_req *r)
{
	const struct wl_spec *s = g->s;

	r->prefix_group = -1;
	r->prefix_tokens = 0;
	r->content_id = -(g->issued + 1); /* unique */
	if (s->sp_groups > 0) {
		int64_t n = s->sp_groups * s->sp_prompts, p = g->perm[g->issued % n];
		r->prompt_tokens = s->sp_system + s->sp_question;
		r->output_tokens = s->sp_output;
		r->prefix_group = p / s->sp_prompts;
		r->prefix_tokens = s->sp_system;
		r->content_id = p; /* the whole prompt repeats every n requests */
		return;
	}
	if (g->bpos == g->blen && g->d) {
		draws_refill(g);
	} else if (g->bpos == g->blen) {
		/* each stream's draws in its own order: drawing ahead changes
		 * no value (a draw past the last request is never used) */
		int n = GEN_BATCH;
		if (s->num_requests > 0 && s->num_requests - g->issued < n)
			n = (int)(s->num_requests - g->issued);
		if (n < 1)
			n = 1;
		if (g->joint) {
			for (int i = 0; i < n; i++)
				wl_dataset_pair(&g->prompt, &g->output, &g->r_prompt, &g->r_out, &g->bp[i], &g->bo[i]);
		} else {
			dist_sample_n(&g->prompt, &g->r_prompt, g->bp, n);
			dist_sample_n(&g->output, &g->r_out, g->bo, n);
		}
		g->bpos = 0;
		g->blen = n;
	}
	r->prompt_tokens = g->bp[g->bpos] + s->prefix_tokens;
	r->output_tokens = g->bo[g->bpos++];
	if (s->prefix_tokens > 0) {
		r->prefix_group = 0;
		r->prefix_tokens = s->prefix_tokens;
	}
	if (s->sess.count > 0) { /* a session's first turn */
		XGROW(g->sess_turns, g->sess_cap, (size_t)g->issued + 1);
		g->sess_turns[g->issued] = (int32_t)wl_dist_sample(&g->turns, &g->r_turns);
		r->turn = 1;
		r->prefix_group = WL_SESSION_GROUP0 + g->issued;
		r->prefix_tokens = r->prompt_tokens + r->output_tokens;
	}
}

int wl_gen_next_turn(struct wl_gen *g, const struct wl_req *r, int64_t done_ns, struct wl_req *out)
{
	int64_t sid = r->prefix_group - WL_SESSION_GROUP0, ctx = r->prompt_tokens + r->output_tokens;
	int64_t think_ms, add;

	if (r->turn < 1 || sid < 0 || sid >= g->s->sess.count || r->turn >= g->sess_turns[sid])
		return 0;
	think_ms = wl_dist_sample(&g->think, &g->r_think);
	add = wl_dist_sample(&g->tool, &g->r_tool) + wl_dist_sample(&g->prompt, &g->r_uprompt);
	memset(out, 0, sizeof(*out));
	out->arrival_ns = done_ns + think_ms * 1000000;
	/* past WL_MAX_TOKENS the engine refuses it as too long (the session
	 * ends there) */
	out->prompt_tokens = ctx + add < WL_MAX_TOKENS ? ctx + add : WL_MAX_TOKENS;
	out->output_tokens = wl_dist_sample(&g->output, &g->r_uout);
	out->prefix_group = r->prefix_group;
	out->prefix_tokens = out->prompt_tokens + out->output_tokens;
	out->content_id = -(g->s->sess.count + ++g->nlater);
	out->turn = r->turn + 1;
	out->lora = r->lora;
	out->stage = wl_stage_of(g->s, out->arrival_ns);
	return 1;
}

int64_t wl_image_id(int64_t image_id, uint64_t image_new, int32_t k)
{
	int32_t j;

	for (j = 1; j <= k; j++)
		image_id += (int64_t)((image_new >> j) & 1);
	return image_id;
}

/* The images of request r, n of them: each new, or with probability
 * repeat the one sent before it (the newest image). */
static void image_draw(struct wl_gen *g, struct wl_req *r, int64_t n)
{
	double rep = g->s->images.repeat;
	int64_t k;

	r->images = (int32_t)n;
	r->image_new = 0;
	for (k = 0; k < n; k++) {
		bool again = rep > 0 && unif(&g->r_imgrep) < rep && g->next_image > 0;
		if (!again) {
			r->image_new |= (uint64_t)1 << k;
			g->next_image++;
		}
		if (k == 0)
			r->image_id = g->next_image - 1;
	}
}

/* A request's LoRA adapter by popularity rank (1 .. adapters). */
static int32_t lora_draw(struct wl_gen *g)
{
	int64_t k = g->s->lora.adapters, lo = 0, hi;
	double u;

	if (!g->lora_cdf)
		return (int32_t)(1 + pcg32_bounded(&g->r_lora, (uint32_t)k));
	u = unif(&g->r_lora);
	hi = k - 1;
	while (lo < hi) { /* the first rank whose cumulative share exceeds u */
		int64_t mid = lo + (hi - lo) / 2;
		if (g->lora_cdf[mid] > u)
			hi = mid;
		else
			lo = mid + 1;
	}
	return (int32_t)(lo + 1);
}

static int trace_next(struct wl_gen *g, struct wl_req *r, struct err *e)
{
	double a, p, o, grp = -1, ad = 0;
	int rc = csv_next(g->trace, e);

	if (rc <= 0)
		return rc;
	if ((rc = csv_num(g->trace, g->tcol[0], &a, e)) < 0 ||
	    (rc = csv_num(g->trace, g->tcol[1], &p, e)) < 0 ||
	    (rc = csv_num(g->trace, g->tcol[2], &o, e)) < 0)
		return rc;
	if (g->tcol[3] >= 0 && csv_field(g->trace, g->tcol[3])[0] &&
	    (rc = csv_num(g->trace, g->tcol[3], &grp, e)) < 0)
		return rc;
	if (!(a >= 0 && a <= WL_MAX_TIME_S) || a < g->last_trace_s)
		return err_set(e, SS_EDATA, "%s:%zu: 'arrival_s' must be in [0, %g] s and non-decreasing, got %g",
			       csv_path(g->trace), csv_lineno(g->trace), WL_MAX_TIME_S, a);
	if (!(p >= 1 && p <= (double)WL_MAX_TOKENS) || p != floor(p) ||
	    !(o >= 1 && o <= (double)WL_MAX_TOKENS) || o != floor(o))
		return err_set(e, SS_EDATA,
			       "%s:%zu: 'prompt_tokens' and 'output_tokens' must be integers in [1, %lld], got %g and %g",
			       csv_path(g->trace), csv_lineno(g->trace), (long long)WL_MAX_TOKENS, p, o);
	if (!(grp >= -1 && grp <= (double)INT32_MAX) || grp != floor(grp))
		return err_set(e, SS_EDATA, "%s:%zu: 'prefix_group' must be an integer in [0, %d], got %g",
			       csv_path(g->trace), csv_lineno(g->trace), INT32_MAX, grp);
	if (g->tcol[4] >= 0 && csv_field(g->trace, g->tcol[4])[0] &&
	    (rc = csv_num(g->trace, g->tcol[4], &ad, e)) < 0)
		return rc;
	if (!(ad >= 0 && ad <= (double)WL_MAX_ADAPTERS) || ad != floor(ad))
		return err_set(e, SS_EDATA,
			       "%s:%zu: 'adapter' must be an integer in [0, %lld] (0: the base model), got %g",
			       csv_path(g->trace), csv_lineno(g->trace), (long long)WL_MAX_ADAPTERS, ad);
	r->lora = (int32_t)ad;
	if (g->s->images.on && g->tcol[5] >= 0 && csv_field(g->trace, g->tcol[5])[0]) {
		double im;
		if ((rc = csv_num(g->trace, g->tcol[5], &im, e)) < 0)
			return rc;
		if (!(im >= 0 && im <= WL_MAX_IMAGES) || im != floor(im))
			return err_set(e, SS_EDATA, "%s:%zu: 'images' must be an integer in [0, %d], got %g",
				       csv_path(g->trace), csv_lineno(g->trace), WL_MAX_IMAGES, im);
		image_draw(g, r, (int64_t)im);
		r->images = -1 - r->images; /* drawn: wl_gen_next keeps it */
	}
	g->last_trace_s = a;
	r->arrival_ns = (int64_t)llround(a * 1e9);
	r->prompt_tokens = (int64_t)p;
	r->output_tokens = (int64_t)o;
	r->prefix_group = grp >= 0 ? (int64_t)grp : -1;
	r->prefix_tokens = 0;
	r->content_id = -(g->issued + 1);
	r->stage = 0;
	return 1;
}

int wl_gen_next(struct wl_gen *g, int64_t now_ns, struct wl_req *out, struct err *e)
{
	const struct wl_spec *s = g->s;
	double t;
	int rc;

	if ((s->num_requests > 0 && g->issued >= s->num_requests) ||
	    (s->sess.count > 0 && g->issued >= s->sess.count))
		return 0;
	memset(out, 0, sizeof(*out));
	if (s->process == WL_TRACE) {
		if (s->records) {
			if ((size_t)g->issued >= s->nrecords)
				return 0;
			*out = s->records[g->issued];
			rc = 1;
		} else if ((rc = trace_next(g, out, e)) <= 0) {
			return rc;
		}
		/* a trace's adapter column says which; else the spec draws */
		if (s->lora.adapters > 0 && (s->records || g->tcol[4] < 0))
			out->lora = lora_draw(g);
		/* a trace's images column or the records say how many; else
		 * the spec draws */
		if (out->images < 0)
			out->images = -1 - out->images;
		else if (s->images.on && out->images == 0)
			image_draw(g, out, wl_dist_sample(&g->img_count, &g->r_img));
		/* a trace is read as it is replayed: its length is known only
		 * here, and the ceiling holds for it as for any workload */
		if (g->issued >= wl_spec_max_requests(s))
			return err_set(e, SS_EUSAGE, "%s: the trace holds more requests than the limit of %lld; "
				       "replay fewer with 'num_requests' or --num-requests, or raise the limit "
				       "with --max-requests", s->source, (long long)wl_spec_max_requests(s));
		g->issued++;
		return rc;
	}
	if (s->process == WL_CONCURRENCY) {
		double tn = (double)now_ns * 1e-9, limit = s->duration_s;
		if (s->nstages) {
			limit = 0;
			for (size_t i = 0; i < s->nstages; i++)
				limit += s->stages[i].duration_s;
		}
		if (limit > 0 && tn >= limit)
			return 0;
		/* only the duration ends this loop, and how many requests fit in
		 * it depends on how fast the engine serves them: the request
		 * ceiling is enforced as they are issued */
		if (s->num_requests == 0 && g->issued >= wl_spec_max_requests(s))
			return err_set(e, SS_EUSAGE, "%s: the closed loop of %lld clients has issued %lld "
				       "requests by %.6g s of its %g s, the limit; give 'num_requests', "
				       "fewer clients or a shorter duration, or raise the limit with "
				       "--max-requests", s->source, (long long)s->concurrency,
				       (long long)g->issued, tn, limit);
		out->arrival_ns = now_ns;
	} else {
		if (!next_arrival(g, &t))
			return 0;
		if (!(t <= WL_MAX_TIME_S))
			return err_set(e, SS_EUSAGE, "%s: arrival %lld would come at %g s, past the %g s a "
				       "simulation may span (the rate is too low for num_requests)",
				       s->source, (long long)g->issued, t, WL_MAX_TIME_S);
		out->arrival_ns = simtime_round(t * 1e9);
	}
	fill_lengths(g, out);
	if (s->lora.adapters > 0)
		out->lora = lora_draw(g);
	if (s->images.on)
		image_draw(g, out, wl_dist_sample(&g->img_count, &g->r_img));
	out->stage = wl_stage_of(s, out->arrival_ns);
	g->issued++;
	return 1;
}

int wl_spec_check_nonempty(const struct wl_spec *s, const char *src, struct err *e)
{
	struct wl_gen *g;
	struct wl_req r;
	int rc = wl_gen_new(s, &g, e);

	if (rc < 0)
		return rc;
	rc = wl_gen_next(g, 0, &r, e);
	wl_gen_free(g);
	if (rc == 0 && s->ncurve >= 2) {
		/* a rate curve ends the workload (duration_s is 0 or earlier) */
		double end = s->curve_t[s->ncurve - 1];
		if (s->duration_s > 0 && s->duration_s < end)
			end = s->duration_s;
		rc = err_set(e, SS_EUSAGE, "%s: no request arrives within the %g s the workload lasts (its "
			     "rate_curve expects %.3g requests by then); raise the curve's rates or lengthen it",
			     src, end, wl_curve_integral(s, end));
	} else if (rc == 0 && s->process == WL_TRACE && !s->records && s->trace[0]) {
		/* a trace without a row (a header alone): bad data, named */
		rc = err_set(e, SS_EDATA, "%s: no request: the trace has no row after its header", s->trace);
	} else if (rc == 0) {
		rc = err_set(e, SS_EUSAGE, "%s: no request arrives within the %g s the workload lasts; "
			     "lengthen its duration or give a number of requests", src, s->duration_s);
	}
	return rc < 0 ? rc : 0;
}
