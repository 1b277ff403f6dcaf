/* tier1.c - tier-1 calibration (see calib.h). */
#define _GNU_SOURCE
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "engine/registry.h"
#include "base/afile.h"
#include "base/alloc.h"
#include "calib/calib.h"
#include "calib/fit.h"
#include "base/json.h"
#include "base/pcg32.h"
#include "base/pfor.h"
#include "engine/scenario.h"
#include "base/version.h"

void calib_set_release(struct calib_set *s)
{
	free(s->u);
	memset(s, 0, sizeof(*s));
}

static struct calib_unit *push(struct calib_set *s)
{
	XGROW(s->u, s->cap, s->n + 1);
	memset(&s->u[s->n], 0, sizeof(s->u[0]));
	return &s->u[s->n++];
}

/* Experiment x at overheads ov: its simulation, run (st released on
 * failure); keep: the run keeps its completions' times (sim_reprice_api). */
static int simulate_one(const struct experiment *x, const struct model_cfg *m,
			const struct gpu_spec *g, const struct overheads *ov, const char *data_dir,
			struct mfu_cache *cache, bool keep, struct scenario_state *st, struct err *e)
{
	struct scenario sc;
	int rc;

	{
		struct eval_opts o;
		memset(&o, 0, sizeof(o));
		o.ov = *ov;
		o.cache = cache; /* tables parsed once, not at every simulation of the fit */
		experiment_scenario(x, m, g, &o, &sc);
	}
	if ((rc = scenario_prepare(&sc, data_dir, st, e)) < 0)
		return rc;
	if (keep)
		sim_keep_client_times(st->sim);
	if ((rc = sim_run(st->sim, e)) < 0)
		scenario_release(st);
	return rc;
}

/* Measured-only verdict of a stage: overloaded stages teach queue length,
 * not overheads. */
static bool stage_overloaded(const struct measured_stage *ms)
{
	return (double)ms->completed < 0.9 * ms->rate * ms->duration_s || ms->v[EM_TTFT_MEAN] > 5000;
}

/* Does x give no unit whatever its simulation says (every stage
 * overloaded)?  units_of then reads no simulation. */
static bool teaches_nothing(const struct experiment *x)
{
	size_t i;

	if (x->kind == EXP_REQUESTS)
		return false;
	for (i = 0; i < x->nstages; i++)
		if (!stage_overloaded(&x->stages[i]))
			return false;
	return true;
}

/* Pair x's measurements with its finished simulation (NULL when
 * teaches_nothing). */
static void units_of(const struct experiment *x, struct sim *sim, int group_base, struct calib_set *out)
{
	size_t i;

	if (x->kind == EXP_REQUESTS) {
		double *tt = xmalloc(xmul(x->meas.n, sizeof(double)));
		double *ee = xmalloc(xmul(x->meas.n, sizeof(double)));
		sim_per_request(sim, tt, ee, x->meas.n);
		for (i = 0; i < x->meas.n; i++) {
			const struct gt_request *r = &x->meas.r[i];
			struct calib_unit *u;
			if (isnan(tt[i]) || isnan(r->ttft_ms) || !(r->e2e_ms > 0) || !(r->ttft_ms > 0))
				continue;
			u = push(out);
			u->prompt = (double)r->prompt_tokens;
			u->output = (double)r->output_tokens;
			u->ttft_meas = r->ttft_ms;
			u->e2e_meas = r->e2e_ms;
			u->ttft_pred = tt[i];
			u->e2e_pred = ee[i];
			u->group = group_base + r->stage;
			out->requests++;
		}
		free(tt);
		free(ee);
	} else {
		for (i = 0; i < x->nstages; i++) {
			const struct measured_stage *ms = &x->stages[i];
			struct metric_set p;
			struct calib_unit *u;
			if (stage_overloaded(ms)) {
				out->overloaded++;
				continue;
			}
			sim_summary(sim, ms->index, &p);
			if (p.completed == 0)
				continue;
			u = push(out);
			if (x->wl.sp_groups > 0) {
				u->prompt = (double)(x->wl.sp_system + x->wl.sp_question);
				u->output = (double)x->wl.sp_output;
			} else { /* a benchmark run's or report's mean lengths */
				u->prompt = wl_dist_mean(&x->wl.prompt) + (double)x->wl.prefix_tokens;
				u->output = wl_dist_mean(&x->wl.output);
			}
			u->ttft_meas = ms->v[EM_TTFT_MEAN];
			u->e2e_meas = ms->v[EM_E2E_MEAN];
			u->ttft_pred = p.ttft_ms.mean;
			u->e2e_pred = p.e2e_ms.mean;
			/* stages of one experiment share a workload: stratify by
			 * experiment, not stage (a stage alone is a group of one) */
			u->group = group_base;
			out->requests += ms->completed;
		}
	}
}

/* Simulations handed out to the threads of collect_points one at a time
 * (job i: point i / n, experiment i % n); each result goes to its own
 * slot, merged in experiment order after.  skip[x]: experiment x
 * teaches nothing and was simulated once already (its units without a
 * simulation); kept: each job's finished simulation is kept there
 * (heap-allocated: a simulation points into its state) instead of
 * released. */
struct collect_job {
	const struct calib_ctx *c;
	const struct overheads *ov;  /* [npoints] */
	const bool *skip;
	struct scenario_state **kept;
	struct calib_set *sets;
	int *rc;
	struct err *errs;
};

/* Job i: experiment i % n at overhead point i / n. */
static void collect_one(void *arg, size_t i)
{
	struct collect_job *j = arg;
	const struct calib_ctx *c = j->c;
	struct scenario_state *st;
	size_t x = i % c->n;

	err_clear(&j->errs[i]);
	j->rc[i] = 0;
	if (j->skip && j->skip[x]) {
		units_of(&c->x[x], NULL, (int)x * 100, &j->sets[i]);
		return;
	}
	st = xcalloc(1, sizeof(*st));
	j->rc[i] = simulate_one(&c->x[x], c->m[x], c->g[x], &j->ov[i / c->n], c->data_dir, c->cache,
				j->kept != NULL, st, &j->errs[i]);
	if (j->rc[i] < 0) {
		free(st);
		return;
	}
	units_of(&c->x[x], st->sim, (int)x * 100, &j->sets[i]);
	if (j->kept) {
		j->kept[i] = st;
	} else {
		scenario_release(st);
		free(st);
	}
}

/* Point p's units from its experiments' slots; 0, or its first failing
 * experiment's status with that error in *e. */
static int merge_point(const struct calib_ctx *c, const struct calib_set *sets, const int *rcs,
		       const struct err *errs, size_t p, struct calib_set *out, struct err *e)
{
	size_t i, overloaded;

	memset(out, 0, sizeof(*out));
	/* the first failing experiment's error, as one thread stops at it */
	for (i = p * c->n; i < (p + 1) * c->n; i++) {
		if (rcs[i] < 0) {
			*e = errs[i];
			calib_set_release(out);
			return rcs[i];
		}
		if (sets[i].n) {
			XGROW(out->u, out->cap, out->n + sets[i].n);
			memcpy(out->u + out->n, sets[i].u, sets[i].n * sizeof(out->u[0]));
			out->n += sets[i].n;
		}
		out->requests += sets[i].requests;
		out->overloaded += sets[i].overloaded;
	}
	if (out->n == 0) {
		overloaded = out->overloaded;
		calib_set_release(out);
		if (overloaded > 0)
			return err_set(e, SS_EDATA,
				       "no measured requests or steady stages to fit on: all %zu stages are overloaded (fewer than 90 %% of their requests completed, or a mean TTFT above 5 s) and teach queue length, not overheads",
				       overloaded);
		return err_set(e, SS_EDATA, "no measured requests or steady stages to fit on");
	}
	return 0;
}

/* calib_collect at npoints overhead points at once, all npoints x n
 * simulations shared by the threads (the in-loop fit's finite-difference
 * points: a thread is not left waiting on one point's longest experiment).
 * out[p] and rc[p] (0 or <0 with errs[p]) per point; skip and kept as in
 * struct collect_job (kept: [npoints * n], NULL where a job kept none). */
static void collect_points(const struct calib_ctx *c, const struct overheads *ov, size_t npoints,
			   const bool *skip, struct scenario_state **kept, struct calib_set *out, int *rc,
			   struct err *errs)
{
	struct collect_job j;
	size_t i, nj = npoints * c->n;

	memset(&j, 0, sizeof(j));
	j.c = c;
	j.ov = ov;
	j.skip = skip;
	j.kept = kept;
	j.sets = xcalloc(nj ? nj : 1, sizeof(*j.sets));
	j.rc = xcalloc(nj ? nj : 1, sizeof(*j.rc));
	j.errs = xcalloc(nj ? nj : 1, sizeof(*j.errs));
	pfor_run(nj, c->jobs, collect_one, &j);
	for (i = 0; i < npoints; i++)
		rc[i] = merge_point(c, j.sets, j.rc, j.errs, i, &out[i], &errs[i]);
	for (i = 0; i < nj; i++)
		calib_set_release(&j.sets[i]);
	free(j.sets);
	free(j.rc);
	free(j.errs);
}

int calib_collect(const struct calib_ctx *c, const struct overheads *ov, struct calib_set *out,
		  struct err *e)
{
	int rc;

	collect_points(c, ov, 1, NULL, NULL, out, &rc, e);
	return rc;
}

static double corr_e2e(const struct tier1_coef *k, const struct calib_unit *u)
{
	return k ? k->a_ms_per_output_token * u->output + k->b_ms_per_prompt_token * u->prompt + k->d_ms : 0;
}

static double corr_ttft(const struct tier1_coef *k, const struct calib_unit *u)
{
	return k ? k->ttft_d0_ms + k->ttft_b0_ms_per_prompt_token * u->prompt : 0;
}

void calib_mape(const struct calib_set *s, const struct tier1_coef *k, const bool *mask, double *e2e,
		double *ttft)
{
	double se = 0, st = 0;
	size_t i, n = 0;

	for (i = 0; i < s->n; i++) {
		const struct calib_unit *u = &s->u[i];
		if (mask && !mask[i])
			continue;
		se += fabs(u->e2e_pred + corr_e2e(k, u) - u->e2e_meas) / u->e2e_meas;
		st += fabs(u->ttft_pred + corr_ttft(k, u) - u->ttft_meas) / u->ttft_meas;
		n++;
	}
	*e2e = n ? se / (double)n : NAN;
	*ttft = n ? st / (double)n : NAN;
}

static double tpot_of(double e2e, double ttft, double output)
{
	return output > 1 ? (e2e - ttft) / (output - 1) : NAN;
}

/* Unit i's measured and predicted TPOT, true when it counts in a TPOT fit:
 * in mask (NULL: all), more than one output token, measured TPOT > 0. */
static bool tpot_unit(const struct calib_set *s, const bool *mask, size_t i, double *tm, double *tp)
{
	const struct calib_unit *u = &s->u[i];

	*tm = tpot_of(u->e2e_meas, u->ttft_meas, u->output);
	*tp = tpot_of(u->e2e_pred, u->ttft_pred, u->output);
	return (!mask || mask[i]) && *tm > 0 && !isnan(*tp);
}

/* TPOT residual fit (see calib.h), weighted like the others by 1/meas^2 */
static int fit_tpot_masked(const struct calib_set *s, const bool *mask, double *c3, struct err *e)
{
	size_t i, n = 0;
	double *X = xmalloc(xmul(s->n ? s->n : 1, 3 * sizeof(double)));
	double *y = xmalloc(xmul(s->n ? s->n : 1, sizeof(double)));
	double *w = xmalloc(xmul(s->n ? s->n : 1, sizeof(double)));
	int rc;

	for (i = 0; i < s->n; i++) {
		const struct calib_unit *u = &s->u[i];
		double tm, tp;
		if (!tpot_unit(s, mask, i, &tm, &tp))
			continue;
		X[n * 3 + 0] = u->output;
		X[n * 3 + 1] = u->prompt;
		X[n * 3 + 2] = 1;
		y[n] = tm - tp;
		w[n] = 1.0 / (tm * tm);
		n++;
	}
	rc = n >= 3 ? fit_wls(X, y, w, n, 3, c3, NULL, e)
		    : err_set(e, SS_EDATA, "%zu units with more than one output token: too few for the TPOT fit", n);
	free(X);
	free(y);
	free(w);
	return rc;
}

static double tpot_mape(const struct calib_set *s, const double *c3, const bool *mask, size_t *cnt)
{
	double sum = 0;
	size_t i, n = 0;

	for (i = 0; i < s->n; i++) {
		const struct calib_unit *u = &s->u[i];
		double tm, tp;
		if (!tpot_unit(s, mask, i, &tm, &tp))
			continue;
		if (c3)
			tp += c3[0] * u->output + c3[1] * u->prompt + c3[2];
		sum += fabs(tp - tm) / tm;
		n++;
	}
	if (cnt)
		*cnt = n;
	return n ? sum / (double)n : NAN;
}

int tier1_fit_tpot(const struct calib_set *s, uint64_t seed, struct tier1_tpot *t, struct err *e)
{
	bool *train = xcalloc(s->n ? s->n : 1, sizeof(bool)), *val = xcalloc(s->n ? s->n : 1, sizeof(bool));
	struct pcg32 rng;
	double c3[3];
	size_t i;
	int rc;

	memset(t, 0, sizeof(*t));
	t->tier0 = tpot_mape(s, NULL, NULL, &t->units);
	/* the 70/30 split: a seeded coin per unit */
	pcg32_seed(&rng, seed, 11);
	for (i = 0; i < s->n; i++) {
		train[i] = pcg32_bounded(&rng, 10) < 7;
		val[i] = !train[i];
	}
	t->train = t->val = NAN;
	if ((rc = fit_tpot_masked(s, train, c3, e)) == 0) {
		t->train = tpot_mape(s, c3, train, NULL);
		t->val = tpot_mape(s, c3, val, NULL);
	}
	if ((rc = fit_tpot_masked(s, NULL, c3, e)) == 0) {
		t->a_ms_per_output_token = c3[0];
		t->b_ms_per_prompt_token = c3[1];
		t->d_ms = c3[2];
	}
	free(train);
	free(val);
	return rc;
}

/* Fit both residual models on the units where mask is true. */
static int fit_masked(const struct calib_set *s, const bool *mask, struct tier1_coef *k,
		      struct err *e)
{
	size_t i, n = 0;
	double *X = xmalloc(xmul(s->n, 3 * sizeof(double))), *y = xmalloc(xmul(s->n, sizeof(double)));
	double *w = xmalloc(xmul(s->n, sizeof(double))), *X2 = xmalloc(xmul(s->n, 2 * sizeof(double)));
	double *y2 = xmalloc(xmul(s->n, sizeof(double))), *w2 = xmalloc(xmul(s->n, sizeof(double)));
	double c3[3], c2[2];
	int rc;

	for (i = 0; i < s->n; i++) {
		const struct calib_unit *u = &s->u[i];
		if (mask && !mask[i])
			continue;
		X[n * 3 + 0] = u->output;
		X[n * 3 + 1] = u->prompt;
		X[n * 3 + 2] = 1;
		y[n] = u->e2e_meas - u->e2e_pred;
		w[n] = 1.0 / (u->e2e_meas * u->e2e_meas);
		X2[n * 2 + 0] = 1;
		X2[n * 2 + 1] = u->prompt;
		y2[n] = u->ttft_meas - u->ttft_pred;
		w2[n] = 1.0 / (u->ttft_meas * u->ttft_meas);
		n++;
	}
	/* with a single prompt or output length the columns are collinear:
	 * fit what the data can tell apart */
	rc = fit_wls(X, y, w, n, 3, c3, NULL, e);
	if (rc == 0)
		rc = fit_wls(X2, y2, w2, n, 2, c2, NULL, e);
	if (rc == 0) {
		k->a_ms_per_output_token = c3[0];
		k->b_ms_per_prompt_token = c3[1];
		k->d_ms = c3[2];
		k->ttft_d0_ms = c2[0];
		k->ttft_b0_ms_per_prompt_token = c2[1];
	}
	free(X);
	free(y);
	free(w);
	free(X2);
	free(y2);
	free(w2);
	return rc;
}

static void apply_overheads(const struct overheads *base, const struct tier1_coef *k,
			    struct overheads *ov)
{
	*ov = *base;
	ov->given |= OV_TIER1; /* the fitted terms, not the engine's own */
	ov->step_us += k->a_ms_per_output_token * 1e3;
	ov->prefill_token_us += k->ttft_b0_ms_per_prompt_token * 1e3;
	ov->api_ttft_ms += k->ttft_d0_ms;
	ov->api_e2e_ms += k->d_ms - k->ttft_d0_ms;
	if (ov->api_ttft_ms < 0)
		ov->api_ttft_ms = 0;
	if (ov->api_e2e_ms < -ov->api_ttft_ms)
		ov->api_e2e_ms = -ov->api_ttft_ms;
}

int tier1_fit(const struct calib_set *s, uint64_t seed, const struct overheads *base,
	      struct tier1_result *r, struct err *e)
{
	bool *train = xcalloc(s->n, sizeof(bool)), *val = xcalloc(s->n, sizeof(bool));
	size_t *order = xmalloc(xmul(s->n, sizeof(size_t))), i, j, f;
	struct pcg32 rng;
	struct tier1_coef k;
	double se, st, ke = 0, kt = 0;
	int rc, folds = 0;

	memset(r, 0, sizeof(*r));
	snprintf(r->method, sizeof(r->method), "wls");
	calib_mape(s, NULL, NULL, &r->tier0_e2e, &r->tier0_ttft);
	/* stratified 70/30: shuffle, then every group keeps 70 % for training */
	pcg32_seed(&rng, seed, 7);
	for (i = 0; i < s->n; i++)
		order[i] = i;
	for (i = s->n; i-- > 1;) {
		size_t t2 = order[i], jj = pcg32_bounded(&rng, (uint32_t)(i + 1));
		order[i] = order[jj];
		order[jj] = t2;
	}
	for (i = 0; i < s->n; i++) {
		size_t seen = 0, total = 0;
		int grp = s->u[order[i]].group;
		for (j = 0; j < s->n; j++)
			if (s->u[order[j]].group == grp) {
				total++;
				if (j < i)
					seen++;
			}
		/* position within its group decides: the first 70 % train */
		if ((double)seen < 0.7 * (double)total || total < 2)
			train[order[i]] = true;
		else
			val[order[i]] = true;
	}
	if ((rc = fit_masked(s, train, &k, e)) < 0)
		goto out;
	calib_mape(s, &k, train, &r->train_e2e, &r->train_ttft);
	calib_mape(s, &k, val, &r->val_e2e, &r->val_ttft);
	/* 5-fold */
	for (f = 0; f < 5; f++) {
		struct tier1_coef kf;
		size_t nt = 0;
		for (i = 0; i < s->n; i++) {
			bool in = (i % 5) != f;
			train[order[i]] = in;
			val[order[i]] = !in;
			nt += in;
		}
		if (nt < 3 || nt == s->n)
			continue;
		if (fit_masked(s, train, &kf, e) < 0)
			continue;
		calib_mape(s, &kf, val, &se, &st);
		if (!isnan(se)) {
			ke += se;
			kt += st;
			folds++;
		}
	}
	r->kfold_e2e = folds ? ke / folds : NAN;
	r->kfold_ttft = folds ? kt / folds : NAN;
	/* the final coefficients use every unit */
	if ((rc = fit_masked(s, NULL, &r->coef, e)) < 0)
		goto out;
	apply_overheads(base, &r->coef, &r->ov);
	r->fitted = r->ov;
	r->accepted = true;
	/* no holdout left (every group too small to split): 5-fold validates */
	if (isnan(r->val_e2e)) {
		r->val_e2e = r->kfold_e2e;
		r->val_ttft = r->kfold_ttft;
	}
	if (isnan(r->val_e2e)) {
		r->accepted = false;
		snprintf(r->reason, sizeof(r->reason), "too few units to validate the fit (%zu)", s->n);
	} else if (r->val_e2e > 2 * r->train_e2e && r->val_e2e > 0.01) {
		r->accepted = false;
		snprintf(r->reason, sizeof(r->reason),
			 "overfitting: E2E validation MAPE %.1f%% > 2 x training %.1f%%", 100 * r->val_e2e,
			 100 * r->train_e2e);
	} else if (!isnan(r->val_ttft) && r->val_ttft > 2 * r->train_ttft && r->val_ttft > 0.01) {
		r->accepted = false;
		snprintf(r->reason, sizeof(r->reason),
			 "overfitting: TTFT validation MAPE %.1f%% > 2 x training %.1f%%", 100 * r->val_ttft,
			 100 * r->train_ttft);
	}
	if (!r->accepted)
		r->ov = *base; /* fall back to tier 0 */
	rc = 0;
out:
	free(train);
	free(val);
	free(order);
	return rc;
}

/* --- in-loop fit --- */

/* parameters in units that move the simulator: 100 us per step, 1 us per
 * prefill token, 1 ms of API time at either end */
static const double loop_scale[4] = {100.0, 1.0, 1.0, 1.0};

/* points whose simulations are kept for repricing (struct loop_ctx; each
 * holds its n simulations, a few MB each) */
#define LOOP_KEPT 1

struct loop_ctx {
	const struct calib_ctx *c;
	struct overheads base;
	int *groups;      /* distinct group keys */
	size_t ngroups;
	const bool *use;  /* groups the fit may see (NULL: all) */
	int evals;
	/* every point simulated so far and its group sums (pe, me, pt, mt per
	 * group): the solver asks for some points again (a rejected step's
	 * start, the second fit's first points), and a simulation is a
	 * function of its point */
	struct loop_memo {
		double x[4];
		double *sums;
	} *memo;
	size_t nmemo, memo_cap;
	/* experiments that teach nothing (every stage overloaded), simulated
	 * once by the first collect: not again ([n], NULL: none known) */
	bool *skip;
	/* The simulations of the last LOOP_KEPT points loop_residuals
	 * simulated, [n] each (NULL for a skipped experiment): the API terms
	 * x[2] and x[3] move no step, so a point that differs from one of
	 * them only there is that simulation repriced (sim_reprice_api), not
	 * simulated again.  The solver takes a Jacobian at the last point it
	 * evaluated alone (the accepted trial), so one is enough: the README
	 * example's 60 finite-difference points include 30 such */
	struct loop_kept {
		double x01[2];
		struct scenario_state **st;
	} kept[LOOP_KEPT];
	size_t kept_next;
};

static void kept_release(const struct calib_ctx *c, struct loop_kept *k)
{
	size_t i;

	if (!k->st)
		return;
	for (i = 0; i < c->n; i++)
		if (k->st[i]) {
			scenario_release(k->st[i]);
			free(k->st[i]);
		}
	free(k->st);
	k->st = NULL;
}

static void loop_memo_release(struct loop_ctx *l)
{
	size_t i;

	for (i = 0; i < l->nmemo; i++)
		free(l->memo[i].sums);
	free(l->memo);
	l->memo = NULL;
	l->nmemo = l->memo_cap = 0;
	for (i = 0; i < LOOP_KEPT; i++)
		kept_release(l->c, &l->kept[i]);
}

static void loop_overheads(const struct loop_ctx *l, const double *x, struct overheads *ov)
{
	*ov = l->base;
	ov->given |= OV_TIER1; /* the fitted terms, not the engine's own */
	ov->step_us = x[0] * loop_scale[0];
	ov->prefill_token_us = x[1] * loop_scale[1];
	ov->api_ttft_ms = x[2] * loop_scale[2];
	ov->api_e2e_ms = x[3] * loop_scale[3];
}

/* The memoised group sums of point x, or NULL. */
static const double *memo_find(const struct loop_ctx *l, const double *x)
{
	size_t i;

	for (i = 0; i < l->nmemo; i++)
		if (memcmp(l->memo[i].x, x, sizeof(l->memo[i].x)) == 0)
			return l->memo[i].sums;
	return NULL;
}

/* Memoise point x's group sums from its simulated units. */
static const double *memo_add(struct loop_ctx *l, const double *x, const struct calib_set *s)
{
	double *ns = xcalloc(4 * l->ngroups + 1, sizeof(double));
	size_t i, k;

	l->evals++;
	for (k = 0; k < l->ngroups; k++) {
		double pe = 0, me = 0, pt = 0, mt = 0;
		for (i = 0; i < s->n; i++) {
			if (s->u[i].group != l->groups[k])
				continue;
			pe += s->u[i].e2e_pred;
			me += s->u[i].e2e_meas;
			pt += s->u[i].ttft_pred;
			mt += s->u[i].ttft_meas;
		}
		ns[4 * k] = pe;
		ns[4 * k + 1] = me;
		ns[4 * k + 2] = pt;
		ns[4 * k + 3] = mt;
	}
	XGROW(l->memo, l->memo_cap, l->nmemo + 1);
	memcpy(l->memo[l->nmemo].x, x, sizeof(l->memo[l->nmemo].x));
	l->memo[l->nmemo++].sums = ns;
	return ns;
}

/* Residuals: per group (stage or benchmark), the relative error of the
 * mean E2E and of the mean TTFT: robust to per-request noise, and what the
 * evaluation compares. */
static void loop_fill(const struct loop_ctx *l, const double *sums, double *f)
{
	size_t k;

	for (k = 0; k < l->ngroups; k++) {
		double pe = sums[4 * k], me = sums[4 * k + 1], pt = sums[4 * k + 2],
		       mt = sums[4 * k + 3];
		f[2 * k] = me > 0 && (!l->use || l->use[k]) ? (pe - me) / me : 0;
		f[2 * k + 1] = mt > 0 && (!l->use || l->use[k]) ? (pt - mt) / mt : 0;
	}
}

/* Point x's units from a kept simulation of a point that differs from it
 * only in the API terms, repriced: false when there is none (or one of
 * its experiments' overheads differ elsewhere, or cannot be repriced),
 * else true with *rc (and *e) as collect_points gives them. */
static bool reprice_point(struct loop_ctx *l, const double *x, struct calib_set *out, int *rc,
			  struct err *e)
{
	const struct calib_ctx *c = l->c;
	struct loop_kept *k = NULL;
	struct overheads ov;
	struct calib_set *sets;
	struct err *errs;
	int *rcs;
	size_t i;

	for (i = 0; i < LOOP_KEPT && !k; i++)
		if (l->kept[i].st && l->kept[i].x01[0] == x[0] && l->kept[i].x01[1] == x[1])
			k = &l->kept[i];
	if (!k)
		return false;
	loop_overheads(l, x, &ov);
	/* the overheads each experiment runs with (experiment_scenario may
	 * drop the client terms): the kept run's but for the API terms */
	for (i = 0; i < c->n; i++) {
		struct scenario sc;
		struct overheads want;
		struct eval_opts o;
		const struct overheads *had;
		if (!k->st[i])
			continue;
		had = &k->st[i]->cost.cfg.ov;
		memset(&o, 0, sizeof(o));
		o.ov = ov;
		experiment_scenario(&c->x[i], c->m[i], c->g[i], &o, &sc);
		want = sc.ov;
		want.api_ttft_ms = had->api_ttft_ms;
		want.api_e2e_ms = had->api_e2e_ms;
		if (memcmp(&want, had, sizeof(want)) != 0 ||
		    !sim_reprice_api(k->st[i]->sim, sc.ov.api_ttft_ms, sc.ov.api_e2e_ms))
			return false;
	}
	sets = xcalloc(c->n, sizeof(*sets));
	errs = xcalloc(c->n, sizeof(*errs));
	rcs = xcalloc(c->n, sizeof(*rcs));
	for (i = 0; i < c->n; i++)
		units_of(&c->x[i], k->st[i] ? k->st[i]->sim : NULL, (int)i * 100, &sets[i]);
	*rc = merge_point(c, sets, rcs, errs, 0, out, e);
	for (i = 0; i < c->n; i++)
		calib_set_release(&sets[i]);
	free(sets);
	free(errs);
	free(rcs);
	return true;
}

static int loop_residuals(const double *x, double *f, void *ctx)
{
	struct loop_ctx *l = ctx;
	const double *sums = memo_find(l, x);

	if (!sums) {
		const struct calib_ctx *c = l->c;
		struct overheads ov;
		struct calib_set s;
		struct err e;
		int rc;
		if (!reprice_point(l, x, &s, &rc, &e)) {
			struct loop_kept *k = &l->kept[l->kept_next];
			kept_release(c, k);
			k->st = xcalloc(c->n, sizeof(*k->st));
			k->x01[0] = x[0];
			k->x01[1] = x[1];
			loop_overheads(l, x, &ov);
			collect_points(c, &ov, 1, l->skip, k->st, &s, &rc, &e);
			if (rc < 0)
				kept_release(c, k);
			else
				l->kept_next = (l->kept_next + 1) % LOOP_KEPT;
		}
		if (rc < 0) {
			fprintf(stderr, "calibrate --in-loop: %s\n", e.msg);
			return -SS_ERUNTIME;
		}
		sums = memo_add(l, x, &s);
		calib_set_release(&s);
	}
	loop_fill(l, sums, f);
	return 0;
}

/* loop_residuals at k points (a Jacobian's finite-difference points): the
 * points not memoised yet are repriced or simulated together, memoised in
 * point order as one call per point would. */
static int loop_residuals_batch(const double *xs, size_t k, double *fs, void *ctx)
{
	struct loop_ctx *l = ctx;
	struct overheads *ov = xcalloc(k ? k : 1, sizeof(*ov));
	struct calib_set *sets = xcalloc(k ? k : 1, sizeof(*sets));
	struct calib_set *rsets = xcalloc(k ? k : 1, sizeof(*rsets));
	struct err *errs = xcalloc(k ? k : 1, sizeof(*errs));
	size_t *miss = xcalloc(k ? k : 1, sizeof(*miss)), nmiss = 0, nsim = 0, q, i;
	int *rcs = xcalloc(k ? k : 1, sizeof(*rcs)), rc = 0;
	bool *repriced = xcalloc(k ? k : 1, sizeof(*repriced));

	for (q = 0; q < k; q++) {
		bool again = memo_find(l, &xs[4 * q]) != NULL;
		for (i = 0; i < nmiss && !again; i++)
			again = memcmp(&xs[4 * miss[i]], &xs[4 * q], 4 * sizeof(double)) == 0;
		if (again)
			continue;
		repriced[nmiss] = reprice_point(l, &xs[4 * q], &rsets[nmiss], &rcs[nmiss], &errs[nmiss]);
		if (repriced[nmiss] && rcs[nmiss] < 0) {
			fprintf(stderr, "calibrate --in-loop: %s\n", errs[nmiss].msg);
			rc = -SS_ERUNTIME;
			nmiss++;
			break;
		}
		if (!repriced[nmiss])
			loop_overheads(l, &xs[4 * q], &ov[nsim++]);
		miss[nmiss++] = q;
	}
	if (rc == 0 && nsim > 0) {
		int *srcs = xcalloc(nsim, sizeof(*srcs));
		struct err *serrs = xcalloc(nsim, sizeof(*serrs));
		collect_points(l->c, ov, nsim, l->skip, NULL, sets, srcs, serrs);
		/* the simulated points' results into their miss slots */
		for (i = 0, q = 0; i < nmiss; i++)
			if (!repriced[i]) {
				rsets[i] = sets[q];
				rcs[i] = srcs[q];
				errs[i] = serrs[q];
				memset(&sets[q], 0, sizeof(sets[q]));
				q++;
			}
		free(srcs);
		free(serrs);
	}
	for (i = 0; i < nmiss && rc == 0; i++) {
		if (rcs[i] < 0) {
			fprintf(stderr, "calibrate --in-loop: %s\n", errs[i].msg);
			rc = -SS_ERUNTIME;
			break;
		}
		memo_add(l, &xs[4 * miss[i]], &rsets[i]);
	}
	for (q = 0; q < k && rc == 0; q++)
		loop_fill(l, memo_find(l, &xs[4 * q]), &fs[q * 2 * l->ngroups]);
	for (i = 0; i < nmiss; i++)
		calib_set_release(&rsets[i]);
	free(ov);
	free(sets);
	free(rsets);
	free(errs);
	free(miss);
	free(rcs);
	free(repriced);
	return rc;
}

/* Mean relative error of the group means over the groups with use[k] ==
 * want (MAPE of stage/benchmark means). */
static void group_mape(const struct calib_set *s, const int *groups, size_t ng, const bool *use,
		       bool want, double *e2e, double *ttft)
{
	double se = 0, st = 0;
	size_t i, k, n = 0;

	for (k = 0; k < ng; k++) {
		double pe = 0, me = 0, pt = 0, mt = 0;
		if (use && use[k] != want)
			continue;
		for (i = 0; i < s->n; i++) {
			if (s->u[i].group != groups[k])
				continue;
			pe += s->u[i].e2e_pred;
			me += s->u[i].e2e_meas;
			pt += s->u[i].ttft_pred;
			mt += s->u[i].ttft_meas;
		}
		if (me > 0 && mt > 0) {
			se += fabs(pe - me) / me;
			st += fabs(pt - mt) / mt;
			n++;
		}
	}
	*e2e = n ? se / (double)n : NAN;
	*ttft = n ? st / (double)n : NAN;
}

static int loop_fit(struct loop_ctx *l, const struct overheads *start, struct overheads *ov,
		    int *iterations, struct err *e)
{
	double x[4], cost = 0;
	int rc;

	/* start inside the region where every term acts (a zero step term sits
	 * on the clamp at 0 and finite differences see a kink) */
	x[0] = (start->step_us > 100 ? start->step_us : 100) / loop_scale[0];
	x[1] = (start->prefill_token_us > 0.5 ? start->prefill_token_us : 0.5) / loop_scale[1];
	x[2] = start->api_ttft_ms / loop_scale[2];
	x[3] = start->api_e2e_ms / loop_scale[3];
	rc = fit_nls_batched(loop_residuals, loop_residuals_batch, l, 2 * l->ngroups, 4, x, 0.2, 30,
			     &cost, iterations, e);
	if (rc < 0)
		return rc;
	loop_overheads(l, x, ov);
	if (ov->api_ttft_ms < 0)
		ov->api_ttft_ms = 0;
	return 0;
}

int tier1_fit_in_loop(const struct calib_ctx *c, const struct overheads *start,
		      struct tier1_result *r, struct err *e)
{
	struct loop_ctx l;
	struct calib_set s0, s1;
	bool *use = NULL;
	size_t k, i, ntrain = 0;
	struct pcg32 rng;
	int rc;

	memset(&l, 0, sizeof(l));
	l.c = c;
	l.base = *start;
	if ((rc = calib_collect(c, start, &s0, e)) < 0)
		return rc;
	l.groups = xmalloc(xmul(s0.n, sizeof(int)));
	for (i = 0; i < s0.n; i++) {
		for (k = 0; k < l.ngroups; k++)
			if (l.groups[k] == s0.u[i].group)
				break;
		if (k == l.ngroups)
			l.groups[l.ngroups++] = s0.u[i].group;
	}
	calib_set_release(&s0);
	/* every experiment ran once above: those that teach nothing need
	 * not run again */
	l.skip = xcalloc(c->n ? c->n : 1, sizeof(bool));
	for (i = 0; i < c->n; i++)
		l.skip[i] = teaches_nothing(&c->x[i]);
	if (2 * l.ngroups < 4) {
		free(l.groups);
		free(l.skip);
		return err_set(e, SS_EDATA, "calibrate --in-loop: %zu stage(s) or benchmark(s): too few for 4 terms",
			       l.ngroups);
	}
	snprintf(r->method, sizeof(r->method), "nlls");
	/* cross-validation by groups: about 70 % of the groups fit, the rest validate */
	use = xcalloc(l.ngroups, sizeof(bool));
	pcg32_seed(&rng, 42, 9);
	for (k = 0; k < l.ngroups; k++) {
		use[k] = pcg32_double(&rng) < 0.7;
		ntrain += use[k];
	}
	if (ntrain == l.ngroups)
		use[l.ngroups - 1] = false;
	if (ntrain == 0)
		use[0] = true;
	l.use = use;
	if ((rc = loop_fit(&l, start, &r->ov, &r->iterations, e)) < 0)
		goto out;
	if ((rc = calib_collect(c, &r->ov, &s1, e)) < 0)
		goto out;
	group_mape(&s1, l.groups, l.ngroups, use, true, &r->train_e2e, &r->train_ttft);
	group_mape(&s1, l.groups, l.ngroups, use, false, &r->val_e2e, &r->val_ttft);
	calib_set_release(&s1);
	r->kfold_e2e = r->kfold_ttft = NAN;
	r->accepted = true;
	r->reason[0] = '\0';
	if (r->val_e2e > 2 * r->train_e2e && r->val_e2e > 0.01) {
		r->accepted = false;
		snprintf(r->reason, sizeof(r->reason),
			 "overfitting: in-loop E2E validation MAPE %.1f%% > 2 x training %.1f%%",
			 100 * r->val_e2e, 100 * r->train_e2e);
	} else if (r->val_ttft > 2 * r->train_ttft && r->val_ttft > 0.01) {
		r->accepted = false;
		snprintf(r->reason, sizeof(r->reason),
			 "overfitting: in-loop TTFT validation MAPE %.1f%% > 2 x training %.1f%%",
			 100 * r->val_ttft, 100 * r->train_ttft);
	}
	/* the final terms use every group */
	l.use = NULL;
	if (r->accepted && (rc = loop_fit(&l, start, &r->ov, &r->iterations, e)) < 0)
		goto out;
	r->fitted = r->ov;
	if (!r->accepted)
		r->ov = *start;
	rc = 0;
out:
	free(use);
	free(l.groups);
	loop_memo_release(&l);
	free(l.skip);
	return rc;
}

/* --- files --- */

/* One of the result's (E2E, TTFT) MAPE pairs: "NAME_e2e", "NAME_ttft". */
static void mape_pair(struct jw *w, const char *name, double e2e, double ttft)
{
	char k[48];

	snprintf(k, sizeof(k), "%s_e2e", name);
	jw_num(w, k, e2e);
	snprintf(k, sizeof(k), "%s_ttft", name);
	jw_num(w, k, ttft);
}

static void write_mape(struct jw *w, const struct tier1_result *r)
{
	jw_obj(w, "mape");
	mape_pair(w, "tier0", r->tier0_e2e, r->tier0_ttft);
	mape_pair(w, "training", r->train_e2e, r->train_ttft);
	mape_pair(w, "validation", r->val_e2e, r->val_ttft);
	mape_pair(w, "kfold", r->kfold_e2e, r->kfold_ttft);
	mape_pair(w, "applied", r->applied_e2e, r->applied_ttft);
	jw_end_obj(w);
}

int calib_write(const char *path, const struct tier1_result *r, const struct tier1_result *cands,
		size_t ncands, bool forced, const struct calib_ctx *c, const char *const *names,
		size_t nnames, struct err *e)
{
	struct afile af;
	struct jw w;
	size_t i;
	int rc;

	if ((rc = afile_open(&af, path, e)) < 0)
		return rc;
	jw_init(&w, af.f, true);
	jw_obj(&w, NULL);
	jw_int(&w, "tier", 1);
	jw_str(&w, "servesim_version", SERVESIM_VERSION);
	jw_str(&w, "method", r->method);
	jw_obj(&w, "engine");
	jw_str(&w, "name", engine_default()->name);
	jw_str(&w, "version", c->n ? c->x[0].engine_version : "unknown");
	jw_end_obj(&w);
	jw_str(&w, "model", c->n ? c->m[0]->id : "");
	jw_str(&w, "gpu", c->n ? c->g[0]->id : "");
	jw_int(&w, "tp", c->n ? c->x[0].tp : 1);
	jw_arr(&w, "fitted_on");
	for (i = 0; i < nnames; i++)
		jw_str(&w, NULL, names[i]);
	jw_end_arr(&w);
	jw_obj(&w, "coefficients");
	jw_num(&w, "a_ms_per_output_token", r->coef.a_ms_per_output_token);
	jw_num(&w, "b_ms_per_prompt_token", r->coef.b_ms_per_prompt_token);
	jw_num(&w, "d_ms", r->coef.d_ms);
	jw_num(&w, "ttft_d0_ms", r->coef.ttft_d0_ms);
	jw_num(&w, "ttft_b0_ms_per_prompt_token", r->coef.ttft_b0_ms_per_prompt_token);
	jw_end_obj(&w);
	calib_overheads_json(&w, &r->ov);
	write_mape(&w, r);
	jw_bool(&w, "accepted", r->accepted || forced);
	jw_bool(&w, "forced", forced);
	jw_str(&w, "reason", r->reason);
	jw_arr(&w, "candidates");
	for (i = 0; i < ncands; i++) {
		jw_obj(&w, NULL);
		jw_str(&w, "method", cands[i].method);
		calib_overheads_json(&w, &cands[i].fitted);
		write_mape(&w, &cands[i]);
		jw_bool(&w, "accepted", cands[i].accepted);
		jw_str(&w, "reason", cands[i].reason);
		jw_end_obj(&w);
	}
	jw_end_arr(&w);
	jw_end_obj(&w);
	jw_finish(&w);
	return afile_commit(&af, e);
}
