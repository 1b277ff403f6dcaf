/* sweep.c - a sweep's grid of points over a run configuration, each point
 * simulated and its row rendered (report/sweepreport.c writes rows). */
#include "plan/sweep.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "engine/registry.h"
#include "plan/parmap.h"

#include "sim/status.h"

int sweep_simulate(const struct scenario_state *st, const struct wl_spec *wl, struct sweep_result *r,
		   struct err *e)
{
	struct sim_cfg sc = st->sc;
	struct sim *s = NULL;
	const struct sim_totals *t;
	struct run_status os;
	size_t k;
	int rc;

	memset(r, 0, sizeof(*r));
	sc.requests_out = NULL;
	sc.step_log = NULL;
	if ((rc = sim_new(&sc, &st->cost, wl, &s, e)) < 0 || (rc = sim_run(s, e)) < 0)
		goto out;
	sim_summary(s, -1, &r->m);
	t = sim_totals(s);
	r->arrived = t->arrived;
	r->completed = t->completed;
	for (k = 0; k < REJ__COUNT; k++)
		r->rejected += t->rejected[k];
	r->preemptions = t->preemptions;
	r->duration_s = (double)t->duration_ns * 1e-9;
	/* the status `run` prints (report/summary.c): one sustainability test */
	if ((rc = run_status_sim(wl, s, &os, e)) < 0)
		goto out;
	r->offered_rps = wl->process == WL_POISSON || wl->process == WL_CONSTANT || wl->process == WL_GAMMA
				 ? wl->rate : NAN;
	r->served_rps = os.served_rps;
	run_status_line(&os, r->status, sizeof(r->status));
out:
	sim_free(s);
	return rc;
}

/* Axis names in the order points vary (last fastest); the deployment
 * field table's axes (deploy/fields.h, by their axis place) go after ep. */
static const char *const axes_before[] = {"gpu", "engine", "dtype", "tp", "pp", "dp", "ep"};
static const char *const axes_after[] = {"rate", "concurrency", "seed"};

static void take_axis(struct grid *sorted, const struct grid *g, const char *name)
{
	size_t a;

	for (a = 0; a < g->nax; a++)
		if (strcmp(g->ax[a].name, name) == 0)
			sorted->ax[sorted->nax++] = g->ax[a];
}

/* The axes in that order (a stable grid whatever the flags' order). */
static void order_axes(struct grid *g)
{
	struct grid sorted;
	size_t k;
	int place;

	grid_init(&sorted);
	for (k = 0; k < sizeof(axes_before) / sizeof(axes_before[0]); k++)
		take_axis(&sorted, g, axes_before[k]);
	for (place = 1; place <= DEPLOY_MAX_FIELDS; place++)
		for (k = 0; k < deploy_table.n; k++)
			if (deploy_table.row[k].axis == place)
				take_axis(&sorted, g, deploy_table.row[k].name);
	for (k = 0; k < sizeof(axes_after) / sizeof(axes_after[0]); k++)
		take_axis(&sorted, g, axes_after[k]);
	*g = sorted;
}

int sweep_axis_add(struct grid *g, const struct deploy_table *t, size_t row, const char *flag, const char *arg,
		   struct err *e)
{
	const struct deploy_field *f = &t->row[row];
	const struct grid_axis *x;
	size_t k;
	int rc;

	if ((rc = grid_add_numbers(g, f->name, flag, arg, f->type == DEPLOY_INT, f->lo, f->hi, e)) < 0)
		return rc;
	x = &g->ax[g->nax - 1];
	for (k = 0; f->lo_open && k < x->n; k++)
		if (!(x->num[k] > f->lo))
			return err_set(e, SS_EUSAGE, "%s: %g out of range, expected above %g, up to %g", flag, x->num[k],
				       f->lo, f->hi);
	return 0;
}

void sweep_point_fields(const struct grid *g, size_t i, const struct deploy_table *t, void *base)
{
	size_t idx[GRID_MAX_AXES], a;
	int row;

	grid_point(g, i, idx);
	for (a = 0; a < g->nax; a++)
		if (!g->ax[a].text && (row = deploy_find(t, g->ax[a].name)) >= 0)
			deploy_set(t, (size_t)row, g->ax[a].num[idx[a]], base);
}

/* The point's flags and workload. */
static int apply_point(const struct sweep_plan *o, size_t i, struct scenflags *f, struct wl_spec *wl,
		       struct err *e)
{
	size_t idx[GRID_MAX_AXES], a;
	int rc;

	grid_point(&o->g, i, idx);
	sweep_point_fields(&o->g, i, &deploy_table, &f->k);
	for (a = 0; a < o->g.nax; a++) {
		const struct grid_axis *x = &o->g.ax[a];
		const char *n = x->name;
		double v = x->text ? 0 : x->num[idx[a]];

		if (strcmp(n, "gpu") == 0)
			f->gpu = x->str[idx[a]];
		else if (strcmp(n, "engine") == 0)
			f->engine = engine_find(x->str[idx[a]]);
		else if (strcmp(n, "dtype") == 0 && (rc = dtype_parse(x->str[idx[a]], &f->dtype, e)) < 0)
			return rc;
		else if (strcmp(n, "tp") == 0)
			f->par.tp = (int)v;
		else if (strcmp(n, "pp") == 0)
			f->par.pp = (int)v;
		else if (strcmp(n, "dp") == 0)
			f->par.dp = (int)v;
		else if (strcmp(n, "ep") == 0)
			f->par.ep = (int)v;
		else if (strcmp(n, "rate") == 0)
			wl->rate = v;
		else if (strcmp(n, "concurrency") == 0) {
			wl->process = WL_CONCURRENCY;
			wl->concurrency = (int64_t)v;
		}
		else if (strcmp(n, "seed") == 0)
			wl->seed = (uint64_t)v;
	}
	return 0;
}

int sweep_plan_point(void *vplan, size_t i, struct sbuf *out, struct err *e)
{
	const struct sweep_plan *p = vplan;
	struct scenflags f = p->sf;
	struct wl_spec wl = *p->wl;
	struct scenflags_ctx x;
	struct scenario sc;
	struct scenario_state st;
	struct sweep_result res;
	bool prepared = false;
	int rc;

	memset(&x, 0, sizeof(x));
	memset(&sc, 0, sizeof(sc));
	catalog_init(&x.env);
	if ((rc = apply_point(p, i, &f, &wl, e)) < 0)
		goto out;
	rc = scenflags_build(&f, &wl, &x, &sc, e);
	if (rc < 0 && !sc.model)
		goto out; /* flags that do not combine: the whole sweep's error */
	if (rc == 0 && (rc = scenario_start(&sc, x.env.data_dir, f.allow_invalid, x.notes, sizeof(x.notes), &st, e)) == 0)
		prepared = true;
	memset(&res, 0, sizeof(res));
	if (rc < 0) {
		/* a configuration servesim refuses is a result of the sweep */
		snprintf(res.status, sizeof(res.status), "refused: %.180s", e->msg);
		res.offered_rps = NAN;
		err_clear(e);
	} else if ((rc = sweep_simulate(&st, &wl, &res, e)) < 0) {
		goto out;
	}
	p->row(&sc, &wl, &res, p->fmt, out);
	rc = 0;
out:
	if (prepared)
		scenario_release(&st);
	scenflags_ctx_release(&x);
	return rc;
}

/* Unknown model or GPU names fail the sweep before any point runs. */
static int check_names(const struct scenflags *f, const struct grid_axis *gpus, struct err *e)
{
	struct catalog env;
	struct model_cfg *m = xcalloc(1, sizeof(*m));
	const struct gpu_spec *g;
	size_t i;
	int rc;

	catalog_init(&env);
	rc = catalog_load_model(&env, f->model || f->config ? f->model : "llama-3.1-8b", f->config, m, e);
	if (rc == 0 && f->model && f->config)
		rc = err_set(e, SS_EUSAGE, "give --model or --config, not both");
	for (i = 0; rc == 0 && gpus && i < gpus->n; i++)
		rc = catalog_find_gpu(&env, gpus->str[i], &g, e);
	if (rc == 0 && !gpus)
		rc = catalog_find_gpu(&env, f->gpu, &g, e);
	catalog_release(&env);
	free(m);
	return rc;
}

int sweep_plan_size(struct sweep_plan *p, size_t *n, struct err *e)
{
	order_axes(&p->g);
	return grid_size(&p->g, n, e);
}

int sweep_plan_axes_check(const struct sweep_plan *p, struct err *e)
{
	const struct grid_axis *x = grid_find(&p->g, "engine");
	const struct engine_type *en;
	enum dtype d;
	size_t i;
	int rc;

	if (grid_find(&p->g, "rate") && grid_find(&p->g, "concurrency"))
		return err_set(e, SS_EUSAGE, "give --rate (open loop) or --concurrency (closed loop), not both");
	for (i = 0; x && i < x->n; i++)
		if ((rc = engine_lookup(x->str[i], &en, e)) < 0)
			return rc;
	x = grid_find(&p->g, "dtype");
	for (i = 0; x && i < x->n; i++)
		if ((rc = dtype_parse(x->str[i], &d, e)) < 0)
			return rc;
	return 0;
}

int sweep_plan_run(struct sweep_plan *p, const struct ranks *rk, int jobs, size_t n,
		   void (*progress)(void *pctx, size_t done, size_t mine), void *pctx, struct sbuf *rows,
		   struct err *e)
{
	const struct parmap pm = {.n = n, .jobs = jobs, .run = sweep_plan_point, .ctx = p, .progress = progress, .pctx = pctx};

	return parmap_run(&pm, rk, rows, e);
}

int sweep_plan_check(const struct sweep_plan *p, struct err *e)
{
	const struct wl_spec *wl = p->wl;

	if (grid_find(&p->g, "rate") && wl->process != WL_POISSON && wl->process != WL_CONSTANT &&
	    wl->process != WL_GAMMA)
		return err_set(e, SS_EUSAGE, "--rate: the workload's arrivals are %s, not a rate (poisson, constant or gamma)",
			       wl_process_name(wl->process));
	return check_names(&p->sf, grid_find(&p->g, "gpu"), e);
}
