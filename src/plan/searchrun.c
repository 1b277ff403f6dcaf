/* searchrun.c - `servesim search` as one library call (searchrun.h): the
 * base scenario per budget GPU and engine, prices, the kernel tables shared
 * by every deployment, the enumeration, every deployment simulated on
 * threads and MPI ranks, then the summary, the launch-line name and each
 * outcome's confidence. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/paths.h"
#include "engine/registry.h"
#include "plan/searchrun.h"

static int search_point(void *vctx, size_t i, struct sbuf *out, struct err *e)
{
	const struct search_ctx *c = vctx;
	struct search_outcome r;
	int rc = search_evaluate(&c->in, &c->d[i], search_usd_per_gpu_hour(c->budget, &c->d[i]), &r, e);

	if (rc == 0)
		sb_put(out, (const char *)&r, sizeof(r));
	return rc;
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
	r->bufs = xcalloc(r->ndep, sizeof(*r->bufs));
	for (i = 0; i < r->ndep; i++)
		sb_init(&r->bufs[i]);
	memset(&pm, 0, sizeof(pm));
	pm.n = r->ndep;
	pm.jobs = (int)q->jobs;
	pm.run = search_point;
	pm.ctx = &r->ctx;
	pm.progress = progress;
	pm.pctx = pctx;
	rc = parmap_run(&pm, rk, r->bufs, e);
	if (rc < 0 || rk->rank != 0)
		goto out;
	r->res = xcalloc(r->ndep, sizeof(*r->res));
	for (i = 0; i < r->ndep; i++) {
		if (r->bufs[i].len != sizeof(r->res[i]))
			BUG("search: result record of the wrong size");
		memcpy(&r->res[i], r->bufs[i].buf, sizeof(r->res[i]));
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
		for (i = 0; i < r->ndep; i++)
			sb_release(&r->bufs[i]);
	free(r->bufs);
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
