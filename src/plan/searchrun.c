/* searchrun.c - `servesim search` as one library call (searchrun.h): the
 * base scenario per budget GPU and engine, prices, the kernel tables shared
 * by every deployment, the enumeration, every deployment simulated on
 * threads and MPI ranks, then the summary, the launch-line name and each
 * outcome's confidence. */
#define _GNU_SOURCE
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/pfor.h"
#include "base/paths.h"
#include "engine/registry.h"
#include "base/argval.h"
#include "cost/share.h"
#include "plan/searchrun.h"

/* Each probe allocates its KV cache (per-block arrays for every block
 * of the pool, of which a probe touches a part) and frees it when
 * done.  glibc raises its mmap threshold to the size of a freed mapped
 * chunk, after which such arrays come from the threads' arenas, fully
 * resident and kept between probes.  A fixed threshold of 32 KiB
 * (mallopt(3)) maps each one on its own: only the pages a probe writes
 * are resident and every probe gives them back.  DeepSeek-V3 on 16
 * H200 (README): peak RSS 151 -> 20 MB.  (Requests' block-id arrays,
 * once sized for max_model_len and mapped one by one here, are sized
 * for the request since: reqpool.c array_class.)  32 KiB mapped every
 * middle-sized array as well (request slabs, per-step and record
 * arrays): a third of the README 70B search's CPU went to mmap,
 * munmap and the page faults of fresh mappings.  1 MiB keeps those in
 * the arenas and maps the pools' per-block arrays, and a 64 MiB trim
 * threshold keeps the arenas' tops from being given back and faulted
 * in again at every probe: 70B search 0.91 -> 0.52 s CPU (one
 * thread), DeepSeek-V3 15.4 -> 11.7 s, peak RSS 35 -> 49 MB. */
void search_malloc_tuning(void)
{
	mallopt(M_MMAP_THRESHOLD, 1024 * 1024);
	mallopt(M_TRIM_THRESHOLD, 64 * 1024 * 1024);
}

void search_req_defaults(struct search_req *q)
{
	memset(q, 0, sizeof(*q));
	scenflags_defaults(&q->sf);
	cap_cfg_defaults(&q->cc);
	search_space_defaults(&q->sp);
	q->seeds = 1;
	q->jobs = pfor_default_threads();
	snprintf(q->gpu_names[0], sizeof(q->gpu_names[0]), "h100");
	q->gpu_count[0] = 8;
	q->ngpu = 1;
}

int search_parse_gpus(const char *arg, struct search_req *q, struct err *e)
{
	struct argval_items it;
	int rc;

	q->ngpu = 0;
	argval_items_start(&it, "--gpus", arg);
	while ((rc = argval_items_next(&it, e)) > 0) {
		char *tok = it.item, *colon = strchr(tok, ':');
		const char *end;
		long long n;
		if (q->ngpu == SEARCH_MAX_BUDGET)
			return err_set(e, SS_EUSAGE, "--gpus: at most 8 GPU types");
		if (!colon || colon == tok)
			return err_set(e, SS_EUSAGE, "--gpus: '%s' must be GPU:COUNT, e.g. h100:8", tok);
		*colon = '\0';
		if (!argval_lead_int(colon + 1, &n, &end) || *end || n < 1 || n > 4096)
			return err_set(e, SS_EUSAGE, "--gpus: count of %s must be 1 to 4096, got '%s'", tok,
				       colon + 1);
		if (colon - tok >= (ptrdiff_t)sizeof(q->gpu_names[0]))
			return err_set(e, SS_EUSAGE, "--gpus: GPU name '%.20s...' too long (at most %zu characters)", tok,
				       sizeof(q->gpu_names[0]) - 1);
		memcpy(q->gpu_names[q->ngpu], tok, (size_t)(colon - tok) + 1);
		q->gpu_count[q->ngpu++] = (int)n;
	}
	if (rc < 0)
		return rc;
	if (q->ngpu == 0)
		return err_set(e, SS_EUSAGE, "--gpus: empty list, expected e.g. h100:8,h200:16");
	return 0;
}

int search_parse_ints(const char *flag, const char *arg, int *v, size_t *n, int64_t lo, int64_t hi,
		      struct err *e)
{
	struct argval_items it;
	int rc;

	*n = 0;
	argval_items_start(&it, flag, arg);
	while ((rc = argval_items_next(&it, e)) > 0) {
		int64_t x;
		if (*n == SEARCH_MAX_LIST)
			return err_set(e, SS_EUSAGE, "%s: at most %d values", flag, SEARCH_MAX_LIST);
		if ((rc = argval_int(flag, it.item, lo, hi, &x, e)) < 0)
			return rc;
		v[(*n)++] = (int)x;
	}
	if (rc < 0)
		return rc;
	if (*n == 0)
		return err_set(e, SS_EUSAGE, "%s: empty list, expected e.g. %s 1,2,4", flag, flag);
	return 0;
}

int search_parse_engines(const char *flag, const char *arg, struct search_space *sp, struct err *e)
{
	struct argval_items it;
	char names[128];
	size_t k;
	int rc;

	sp->nengine = 0;
	argval_items_start(&it, flag, arg);
	while ((rc = argval_items_next(&it, e)) > 0) {
		const char *tok = it.item;
		const struct engine_type *en = engine_find(tok);
		if (!en || !en->launch) {
			engine_names(names, sizeof(names), "and", true);
			return err_set(e, SS_EUSAGE, "%s: search knows the engines %s, got '%s'", flag, names, tok);
		}
		for (k = 0; k < sp->nengine; k++)
			if (sp->engine[k] == en)
				return err_set(e, SS_EUSAGE, "%s: '%s' given twice", flag, tok);
		if (sp->nengine == SEARCH_MAX_ENGINES)
			return err_set(e, SS_EUSAGE, "%s: at most %d engines", flag, SEARCH_MAX_ENGINES);
		sp->engine[sp->nengine++] = en;
	}
	if (rc < 0)
		return rc;
	if (sp->nengine == 0)
		return err_set(e, SS_EUSAGE, "%s: empty list, expected e.g. vllm,sglang", flag);
	return 0;
}

int search_parse_limits(const struct deploy_table *t, size_t row, const char *flag, const char *arg,
		       struct search_space *sp, struct err *e)
{
	bool mbt = row == DEPLOY_MAX_NUM_BATCHED_TOKENS;
	int m[SEARCH_MAX_LIST];
	size_t k, *n = mbt ? &sp->nmnbt : &sp->nmns;
	int rc = search_parse_ints(flag, arg, m, n, (int64_t)t->row[row].lo, (int64_t)t->row[row].hi, e);

	for (k = 0; rc == 0 && k < *n; k++)
		(mbt ? sp->mnbt : sp->mns)[k] = m[k];
	return rc;
}

int search_parse_dtypes(const char *arg, struct search_space *sp, struct err *e)
{
	struct argval_items it;
	int rc;

	sp->ndtype = 0;
	argval_items_start(&it, "--dtype", arg);
	while ((rc = argval_items_next(&it, e)) > 0) {
		if (sp->ndtype == SEARCH_MAX_LIST)
			return err_set(e, SS_EUSAGE, "--dtype: at most %d values", SEARCH_MAX_LIST);
		if ((rc = dtype_parse(it.item, &sp->dtype[sp->ndtype++], e)) < 0)
			return rc;
	}
	return rc;
}

/* Run g of alike deployments, their outcomes in order into out; the first
 * failure's status (the runs are consecutive, so the lowest failing run's
 * is the lowest failing deployment's, as one point a deployment had it). */
static int search_point(void *vctx, size_t g, struct sbuf *out, struct err *e)
{
	const struct search_ctx *c = vctx;
	struct cost_share *share = cost_share_new();
	struct search_outcome r;
	size_t i;
	int rc = 0;

	for (i = c->grp[g]; i < c->grp[g + 1] && rc == 0; i++)
		if ((rc = search_evaluate(&c->in, &c->d[i], search_usd_per_gpu_hour(c->budget, &c->d[i]), share, &r,
					  e)) == 0)
			sb_put(out, (const char *)&r, sizeof(r));
	cost_share_free(share);
	return rc;
}

/* Progress in deployments: run g's. */
static size_t search_point_units(void *vctx, size_t g)
{
	const struct search_ctx *c = vctx;

	return c->grp[g + 1] - c->grp[g];
}

/* The runs of alike deployments: r->grp[0 .. ngrp] their starts and end. */
static void group_alike(struct search_run *r)
{
	size_t i;

	r->grp = xcalloc(r->ndep + 1, sizeof(*r->grp));
	r->ngrp = 0;
	for (i = 0; i < r->ndep; i++)
		if (i == 0 || !search_alike(&r->dep[i - 1], &r->dep[i]))
			r->grp[r->ngrp++] = i;
	r->grp[r->ngrp] = r->ndep;
}

int search_run(struct search_req *q, struct ranks *rk, void (*progress)(void *pctx, size_t done, size_t mine),
	       void *pctx, struct search_run *r, struct err *e)
{
	struct parmap pm;
	size_t i;
	int rc;

	memset(r, 0, sizeof(*r));
	wl_spec_defaults(&r->wl);
	memset(&r->prices, 0, sizeof(r->prices));
	memset(&r->acc, 0, sizeof(r->acc));
	/* the workload and one base scenario per budget GPU and engine */
	for (i = 0; i < q->ngpu * q->sp.nengine; i++) {
		struct scenflags f = q->sf;
		size_t gi = i / q->sp.nengine;
		memset(&r->x[i], 0, sizeof(r->x[i]));
		catalog_init(&r->x[i].env);
		r->nx++;
		if (i == 0) {
			if ((rc = catalog_load_workload(&r->x[0].env, q->workload, &r->wl, e)) < 0)
				goto out;
			if (q->nreq)
				r->wl.num_requests = q->nreq;
			q->cc.seed = q->seed_given ? (uint64_t)q->seed : r->wl.seed;
		}
		f.gpu = q->gpu_names[gi];
		if (i % q->sp.nengine == 0) {
			const struct gpu_spec *g;
			if ((rc = catalog_find_gpu(&r->x[i].env, f.gpu, &g, e)) < 0) {
				err_prefix(e, "--gpus");
				goto out;
			}
		}
		f.engine = q->sp.engine[i % q->sp.nengine];
		f.allow_invalid = true; /* the deployments are checked one by one */
		if ((rc = scenflags_build(&f, &r->wl, &r->x[i], &r->base[i], e)) < 0)
			goto out;
		r->x[i].notes[0] = '\0';
		if (i % q->sp.nengine)
			continue;
		r->budget[gi].gpu = r->x[i].gpu;
		r->budget[gi].count = q->gpu_count[gi];
		for (size_t j = 0; j < gi; j++)
			if (r->budget[j].gpu == r->budget[gi].gpu || strcmp(r->budget[j].gpu->id, r->budget[gi].gpu->id) == 0) {
				rc = err_set(e, SS_EUSAGE, "--gpus: %s given twice", r->budget[gi].gpu->id);
				goto out;
			}
	}
	for (i = 0; i < q->sp.nspec; i++)
		if (q->sp.spec_k[i] > 0 && r->x[0].model->mtp_layers == 0) {
			rc = err_set(e, SS_EUSAGE,
				     "--speculative-tokens %d: %s has no MTP module (num_nextn_predict_layers), search offers MTP only",
				     q->sp.spec_k[i], r->x[0].model->id);
			goto out;
		}
	if (r->wl.process != WL_POISSON && r->wl.process != WL_CONSTANT && r->wl.process != WL_GAMMA) {
		rc = err_set(e, SS_EUSAGE, "the workload's arrivals must be poisson, constant or gamma (a rate to search), got %s",
			     wl_process_name(r->wl.process));
		goto out;
	}
	{
		char path[1200];
		const char *pp = q->prices;
		if (!pp) {
			snprintf(path, sizeof(path), "%s/prices.json", r->x[0].env.data_dir);
			pp = path;
		}
		if ((rc = prices_load(pp, &r->prices, e)) < 0)
			goto out;
		r->have_prices = true;
		if (!q->prices)
			snprintf(r->prices.path, sizeof(r->prices.path), "data/prices.json");
		if ((rc = catalog_load_gpus(&r->x[0].env, e)) < 0 ||
		    (rc = search_price_budget(&r->prices, &r->x[0].env.gpus, r->budget, q->ngpu, e)) < 0)
			goto out;
	}
	/* the kernel tables of each budget GPU, parsed once and shared read-only
	 * by every deployment's cost model (filled here, before the threads:
	 * mfucache.h) */
	r->cache = mfu_cache_new();
	for (i = 0; i < q->ngpu * q->sp.nengine; i++) {
		const struct mfu_tables *t;
		if (r->base[i].tier2 && r->base[i].tier2->tables[0])
			continue;
		const struct cost_engine *ce = r->base[i].engine->cost;
		if ((rc = mfu_cache_get(r->cache, r->x[0].env.data_dir, r->base[i].gpu, ce->name, ce->fallback,
					r->base[i].engine_version,
					(r->base[i].tier0_off & COST_H6) != 0, r->x[0].model->n_experts > 0,
					r->base[i].moe_dist, &t, e)) < 0)
			goto out;
		r->base[i].mfu_cache = r->cache;
	}
	search_enumerate(r->x[0].model, r->budget, q->ngpu, &q->sp, &r->dep, &r->ndep);
	if (r->ndep == 0) {
		rc = err_set(e, SS_EUSAGE, "no deployment fits the budget and the lists given");
		goto out;
	}
	memset(&r->ctx, 0, sizeof(r->ctx));
	r->ctx.in.base = r->base;
	r->ctx.in.nengine = q->sp.nengine;
	r->ctx.in.data_dir = r->x[0].env.data_dir;
	r->ctx.in.wl = &r->wl;
	r->ctx.in.cc = &q->cc;
	r->ctx.in.kv_follows_dtype = !q->sf.kv_given;
	r->ctx.in.allow_invalid = q->sf.allow_invalid;
	r->ctx.in.want_saturation = q->want_saturation;
	r->ctx.d = r->dep;
	r->ctx.budget = r->budget;
	group_alike(r);
	r->ctx.grp = r->grp;
	r->bufs = xcalloc(r->ngrp, sizeof(*r->bufs));
	for (i = 0; i < r->ngrp; i++)
		sb_init(&r->bufs[i]);
	memset(&pm, 0, sizeof(pm));
	pm.n = r->ngrp;
	pm.jobs = (int)q->jobs;
	pm.run = search_point;
	pm.units = search_point_units;
	pm.ctx = &r->ctx;
	pm.progress = progress;
	pm.pctx = pctx;
	rc = parmap_run(&pm, rk, r->bufs, e);
	if (rc < 0 || rk->rank != 0)
		goto out;
	r->res = xcalloc(r->ndep, sizeof(*r->res));
	for (i = 0; i < r->ngrp; i++) {
		size_t n = r->grp[i + 1] - r->grp[i];
		if (r->bufs[i].len != n * sizeof(*r->res))
			BUG("search: result records of the wrong size");
		memcpy(&r->res[r->grp[i]], r->bufs[i].buf, n * sizeof(*r->res));
	}
	r->nres = search_drop_pruned_copies(r->res, r->ndep, &q->sp);
	search_summarize(r->res, r->nres, r->budget, q->target, q->rank_by, &r->S);
	r->summarized = true;
	{
		const struct model_entry *me = NULL;
		if (!q->sf.config && catalog_load_registry(&r->x[0].env, e) == 0)
			me = registry_find(&r->x[0].env.reg, r->x[0].model->id);
		/* a config.json names a checkpoint folder: what vllm serve
		 * and --model-path take is that folder, not the file */
		if (q->sf.config)
			paths_dir(q->sf.config, r->config_dir, sizeof(r->config_dir));
		r->hf = me && me->hf[0] ? me->hf : q->sf.config ? r->config_dir : r->x[0].model->id;
		err_clear(e);
	}
	/* each ranked deployment's confidence: its class at its operating point */
	if ((rc = acc_table_find(r->x[0].env.data_dir, &r->acc, &r->have_acc, e)) < 0)
		goto out;
	r->conf = xcalloc(r->nres, sizeof(*r->conf));
	for (i = 0; i < r->nres; i++) {
		struct acc_class cls;
		acc_class_of(q->sp.engine[r->res[i].d.engine]->name, r->res[i].d.pd_prefill > 0, r->x[0].model,
			     r->budget[r->res[i].d.gpu].gpu, r->res[i].running_per_rank, r->res[i].queue_share, false, &cls);
		acc_confidence_of(r->have_acc ? &r->acc : NULL, &cls, &r->conf[i]);
	}
	rc = 0;
out:
	return rc;
}

void search_run_release(struct search_run *r)
{
	size_t i;

	if (r->bufs)
		for (i = 0; i < r->ngrp; i++)
			sb_release(&r->bufs[i]);
	free(r->bufs);
	free(r->grp);
	free(r->res);
	if (r->summarized)
		search_summary_release(&r->S);
	free(r->conf);
	acc_table_release(&r->acc);
	free(r->dep);
	mfu_cache_free(r->cache);
	if (r->have_prices)
		prices_release(&r->prices);
	wl_spec_release(&r->wl);
	for (i = 0; i < r->nx; i++)
		scenflags_ctx_release(&r->x[i]);
}
