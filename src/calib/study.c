/* study.c - `servesim calibrate`'s runs and fits (study.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "calib/study.h"
#include "engine/registry.h"
#include "hw/mfucache.h"

void calib_runs_release(struct calib_runs *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		experiment_release(&l->x[i]);
	free(l->x);
	free(l->mbuf);
	free(l->m);
	free(l->g);
	free(l->names);
	memset(l, 0, sizeof(*l));
}

/* Room for one more run in l. */
static void runs_grow(struct calib_runs *l, size_t *cap)
{
	size_t old = *cap, need = l->n + 1;

	if (need <= old)
		return;
	*cap = old ? old * 2 : 16;
	l->x = xreallocarray(l->x, *cap, sizeof(*l->x));
	l->mbuf = xreallocarray(l->mbuf, *cap, sizeof(*l->mbuf));
	l->m = xreallocarray(l->m, *cap, sizeof(*l->m));
	l->g = xreallocarray(l->g, *cap, sizeof(*l->g));
	l->names = xreallocarray(l->names, *cap, sizeof(*l->names));
	memset(l->x + old, 0, (*cap - old) * sizeof(*l->x));
}

/* The model and GPU of the run just loaded into l->x[l->n]. */
static int runs_add(struct catalog *cat, const char *path, FILE *diag, struct calib_runs *l, struct err *e)
{
	size_t i = l->n++;
	int rc;

	if (l->x[i].warning[0])
		fprintf(diag, "servesim calibrate: warning: %s\n", l->x[i].warning);
	if ((rc = catalog_load_model(cat, l->x[i].model, NULL, &l->mbuf[i], e)) < 0 ||
	    (rc = catalog_find_gpu(cat, l->x[i].gpu, &l->g[i], e)) < 0) {
		err_prefix(e, "%s", path);
		return -SS_EDATA;
	}
	return 0;
}

/* A serving benchmark's results file: one run per calibration unit (its
 * TTFT and E2E means at its mean lengths).  A silicon CSV is refused: its
 * rows mix models, GPUs and engines. */
static int load_table(struct catalog *cat, const char *path, const char *gpu, const struct experiment *base,
		      FILE *diag, struct calib_runs *l, size_t *cap, struct err *e)
{
	struct exp_table t;
	char why[200];
	size_t i;
	int rc;

	if ((rc = exp_table_open(path, NULL, &t, e)) < 0)
		return rc;
	if (t.fmt == RD_AIC) {
		exp_table_release(&t);
		return err_set(e, SS_EUSAGE,
			       "%s: an aiconfigurator silicon CSV holds rows of many models, GPUs and engines and a calibration file fits one: write the rows of one with `servesim import %s --where model_path=M,system=S,backend=B -o DIR` and calibrate DIR's experiments",
			       path, path);
	}
	for (i = 0; i < t.n; i++) {
		runs_grow(l, cap);
		rc = exp_table_load(&t, i, gpu, base, &l->x[l->n], why, sizeof(why), e);
		if (rc == 0)
			rc = err_set(e, SS_EUSAGE, "%s run %zu: %s", path, i + 1, why);
		if (rc < 0 || (rc = runs_add(cat, path, diag, l, e)) < 0)
			break;
	}
	exp_table_release(&t);
	return rc < 0 ? rc : 0;
}

int calib_runs_load(struct catalog *cat, char **paths, size_t np, const char *gpu, const struct experiment *base,
		    FILE *diag, struct calib_runs *l, struct err *e)
{
	size_t cap = 0, i;
	char tf[1200];
	int rc;

	memset(l, 0, sizeof(*l));
	for (i = 0; i < np; i++) {
		if (exp_table_detect(paths[i], tf, sizeof(tf))) {
			if ((rc = load_table(cat, paths[i], gpu, base, diag, l, &cap, e)) < 0)
				return rc;
			continue;
		}
		runs_grow(l, &cap);
		if ((rc = experiment_load_with(paths[i], gpu, base, &l->x[l->n], e)) < 0)
			return rc;
		if ((rc = runs_add(cat, paths[i], diag, l, e)) < 0)
			return rc;
	}
	/* the arrays have stopped moving */
	for (i = 0; i < l->n; i++) {
		l->m[i] = &l->mbuf[i];
		l->names[i] = l->x[i].name;
	}
	return 0;
}

int calib_runs_one_deployment(const struct calib_runs *l, struct err *e)
{
	size_t i;

	for (i = 1; i < l->n; i++)
		if (strcmp(l->m[i]->id, l->m[0]->id) != 0 || strcmp(l->g[i]->id, l->g[0]->id) != 0)
			return err_set(e, SS_EUSAGE,
				       "the runs mix models or GPUs (%s on %s in %s, %s on %s in %s): fit one model and GPU at a time",
				       l->m[0]->id, l->g[0]->id, l->x[0].name, l->m[i]->id, l->g[i]->id, l->x[i].name);
	return 0;
}

void calib_study_init(struct calib_study *s, const struct calib_runs *l, const char *data_dir, int jobs)
{
	memset(s, 0, sizeof(*s));
	s->cc.x = l->x;
	s->cc.m = l->m;
	s->cc.g = l->g;
	s->cc.n = l->n;
	s->cc.data_dir = data_dir;
	s->cc.cache = mfu_cache_new(); /* each GPU's tables parsed once for every simulation */
	s->cc.jobs = jobs;
	/* the terms the fit starts from and falls back to: the engine's own */
	engine_host_terms(l->x[0].engine, l->x[0].engine_version, l->x[0].wl.harness, &s->base);
}

void calib_study_release(struct calib_study *s)
{
	calib_set_release(&s->set);
	mfu_cache_free(s->cc.cache);
	s->cc.cache = NULL;
}

/* r's fitted terms re-simulated: its applied MAPE; rejected (tier 0's
 * terms kept) when it does worse than tier 0 once applied. */
static int judge_applied(const struct calib_study *s, struct tier1_result *r, const char *why, struct err *e)
{
	struct calib_set s2;
	int rc;

	if ((rc = calib_collect(&s->cc, &r->fitted, &s2, e)) < 0)
		return rc;
	calib_mape(&s2, NULL, NULL, &r->applied_e2e, &r->applied_ttft);
	calib_set_release(&s2);
	if (r->accepted && r->applied_e2e + r->applied_ttft > r->tier0_e2e + r->tier0_ttft) {
		r->accepted = false;
		if (why)
			snprintf(r->reason, sizeof(r->reason), "%s", why);
		else
			snprintf(r->reason, sizeof(r->reason),
				 "applied in the simulator it does worse than tier 0 (E2E %.1f%% vs %.1f%%, TTFT %.1f%% vs %.1f%%)",
				 100 * r->applied_e2e, 100 * r->tier0_e2e, 100 * r->applied_ttft, 100 * r->tier0_ttft);
		r->ov = s->base;
	}
	return 0;
}

int calib_study_linear(struct calib_study *s, uint64_t seed, struct err *e)
{
	int rc;

	if ((rc = calib_collect(&s->cc, &s->base, &s->set, e)) < 0)
		return rc;
	if (s->set.requests < CALIB_MIN_REQUESTS)
		return err_set(e, SS_EDATA,
			       "the runs hold %lld requests; a tier-1 fit needs a trace of at least %d (design document 002, tier 1)",
			       (long long)s->set.requests, CALIB_MIN_REQUESTS);
	if ((rc = tier1_fit(&s->set, seed, &s->base, &s->r, e)) < 0)
		return rc;
	/* judged where it acts, whatever the validation verdict */
	if ((rc = judge_applied(s, &s->r, NULL, e)) < 0)
		return rc;
	s->tpot_ok = tier1_fit_tpot(&s->set, seed, &s->tpot, e) == 0;
	if (!s->tpot_ok)
		snprintf(s->tpot_why, sizeof(s->tpot_why), "%s", e->msg);
	err_clear(e);
	return 0;
}

int calib_study_in_loop(struct calib_study *s, struct err *e)
{
	int rc;

	s->rl = s->r;
	if ((rc = tier1_fit_in_loop(&s->cc, &s->base, &s->rl, e)) < 0)
		return rc;
	/* the accepted flag is judged below, with tier 0's MAPE from the linear pass */
	s->rl.tier0_e2e = s->r.tier0_e2e;
	s->rl.tier0_ttft = s->r.tier0_ttft;
	return judge_applied(s, &s->rl, "applied in the simulator it does worse than tier 0", e);
}

void calib_study_choose(struct calib_study *s, bool in_loop, bool force)
{
	s->chosen = s->r;
	if (in_loop && (!s->r.accepted || (s->rl.accepted && s->rl.applied_e2e + s->rl.applied_ttft <
							      s->r.applied_e2e + s->r.applied_ttft)))
		s->chosen = s->rl;
	s->forced = !s->chosen.accepted && force;
	if (s->forced)
		s->chosen.ov = s->chosen.fitted;
}

int calib_check_file(struct calib_study *s, const struct calib_runs *l, const char *path, FILE *diag,
		     struct calib_check *c, struct err *e)
{
	char b[400], prev[400] = "";
	size_t i;
	int rc;

	memset(c, 0, sizeof(*c));
	if ((rc = calib_load(path, &c->f, e)) < 0)
		return rc;
	/* a file from another model, GPU or engine version than the runs:
	 * a warning per kind of run */
	for (i = 0; i < l->n; i++)
		if (calib_mismatch(&c->f, l->m[i]->id, l->g[i]->id, l->x[i].engine_version, b, sizeof(b)) &&
		    strcmp(b, prev) != 0) {
			fprintf(diag, "servesim calibrate: warning: %s was fitted on another %s\n", c->f.path, b);
			snprintf(prev, sizeof(prev), "%s", b);
		}
	if ((rc = calib_collect(&s->cc, &c->f.ov, &s->set, e)) < 0)
		return rc;
	calib_mape(&s->set, NULL, NULL, &c->e2e, &c->ttft);
	c->units = s->set.n;
	c->stale = c->e2e > CALIB_STALE_MAPE || c->ttft > CALIB_STALE_MAPE;
	return 0;
}
