/* search.c - enumerate deployments, evaluate one (prune or SLO capacity),
 * rank.  The evaluation builds the deployment's scenario from the budget
 * GPU's base scenario (the user's engine, limits and overheads) and runs
 * the same checks `servesim run` does before it simulates. */
#include "servesim/search.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "servesim/alloc.h"
#include "servesim/sweep.h"

/* Fewest requests of the coarse capacity search (below that the Poisson
 * noise of a run moves the answer by more than the 5 % it aims at). */
#define SEARCH_COARSE_MIN 250

void search_space_defaults(struct search_space *sp)
{
	memset(sp, 0, sizeof(*sp));
	sp->pd = true;
	sp->pd_max_workers = 4;
}

static void push(struct search_deploy **out, size_t *n, size_t *cap, const struct search_deploy *d)
{
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		*out = xreallocarray(*out, *cap, sizeof(**out));
	}
	(*out)[(*n)++] = *d;
}

/* Powers of two up to hi. */
static size_t pow2(int *v, int hi)
{
	size_t n = 0;
	int x;

	for (x = 1; x <= hi && n < SEARCH_MAX_LIST; x *= 2)
		v[n++] = x;
	return n;
}

void search_enumerate(const struct model_cfg *m, const struct search_gpu *budget, size_t nb,
		      const struct search_space *sp, struct search_deploy **out, size_t *n)
{
	size_t cap = 0, b, it, ip, id, ie, iw, im;
	bool moe = m->n_experts > 0;

	*out = NULL;
	*n = 0;
	for (b = 0; b < nb; b++) {
		const struct gpu_spec *g = budget[b].gpu;
		int C = budget[b].count, tps[SEARCH_MAX_LIST], pps[SEARCH_MAX_LIST], dps[SEARCH_MAX_LIST];
		/* TP stays inside one node's NVLink (8 GPUs on HGX boards): vLLM's
		 * guidance is TP within a node, PP across nodes */
		int node = g->gpus_per_node > 0 ? g->gpus_per_node : 8;
		size_t ntp, npp, ndp, ndt, nmns;
		enum dtype dts[SEARCH_MAX_LIST];
		int64_t mnss[SEARCH_MAX_LIST];
		bool pp_default = sp->npp == 0;

		if (sp->ntp) {
			ntp = sp->ntp;
			memcpy(tps, sp->tp, ntp * sizeof(int));
		} else {
			ntp = pow2(tps, C < node ? C : node);
		}
		if (sp->npp) {
			npp = sp->npp;
			memcpy(pps, sp->pp, npp * sizeof(int));
		} else {
			npp = pow2(pps, C);
		}
		if (sp->ndp) {
			ndp = sp->ndp;
			memcpy(dps, sp->dp, ndp * sizeof(int));
		} else {
			ndp = moe ? pow2(dps, C) : 1;
			dps[0] = 1;
		}
		if (sp->ndtype) {
			ndt = sp->ndtype;
			memcpy(dts, sp->dtype, ndt * sizeof(*dts));
		} else {
			ndt = 0;
			dts[ndt++] = DT_BF16;
			if (g->peak_flops[DT_FP8] > 0)
				dts[ndt++] = DT_FP8;
		}
		if (sp->nmns) {
			nmns = sp->nmns;
			memcpy(mnss, sp->mns, nmns * sizeof(int64_t));
		} else {
			nmns = 1;
			mnss[0] = 0;
		}
		for (iw = 0; iw < ndt; iw++)
			for (it = 0; it < ntp; it++)
				for (ip = 0; ip < npp; ip++)
					for (id = 0; id < ndp; id++)
						for (ie = 0; ie < (moe ? 2u : 1u); ie++)
							for (im = 0; im < nmns; im++) {
								struct search_deploy d;
								int tp = tps[it], pp = pps[ip], dp = dps[id];
								memset(&d, 0, sizeof(d));
								if ((int64_t)tp * pp * dp > C)
									continue;
								/* by default PP only across full nodes */
								if (pp_default && pp > 1 && tp != (C < node ? C : node))
									continue;
								if (ie == 1 && tp * dp == 1)
									continue;
								d.gpu = (int)b;
								d.par = (struct parallel){.tp = tp, .pp = pp, .dp = dp, .ep = ie ? tp * dp : 1};
								d.wdt = dts[iw];
								d.max_num_seqs = mnss[im];
								d.gpus = tp * pp * dp;
								push(out, n, &cap, &d);
							}
		/* P/D: X prefill and Y decode workers of TP t each (EP over the
		 * worker's GPUs for an MoE model) */
		if (!sp->pd)
			continue;
		for (iw = 0; iw < ndt; iw++)
			for (it = 0; it < ntp; it++)
				for (int w = 2; w <= sp->pd_max_workers; w++)
					for (int x = 1; x < w; x++)
						for (im = 0; im < nmns; im++) {
							struct search_deploy d;
							int tp = tps[it];
							memset(&d, 0, sizeof(d));
							if ((int64_t)w * tp > C)
								continue;
							d.gpu = (int)b;
							d.par = (struct parallel){.tp = tp, .pp = 1, .dp = 1, .ep = moe ? tp : 1};
							d.wdt = dts[iw];
							d.max_num_seqs = mnss[im];
							d.pd_prefill = x;
							d.pd_decode = w - x;
							d.gpus = w * tp;
							push(out, n, &cap, &d);
						}
	}
}

/* vLLM's start-up messages run to several sentences: keep the first. */
static void first_sentence(char *s)
{
	char *p = strstr(s, ". ");

	if (p)
		*p = '\0';
}

int search_evaluate(const struct search_in *in, const struct search_deploy *d, double usd_per_gpu_hour,
		    struct search_outcome *out, struct err *e)
{
	struct scenario sc = in->base[d->gpu];
	struct scenario_state st;
	struct cap_result res;
	struct sweep_result at;
	struct wl_spec w;
	struct cap_cfg fine;
	char notes[2048] = "";
	bool prepared = false, have_res = false;
	int rc;

	memset(out, 0, sizeof(*out));
	out->d = *d;
	out->max_rate = out->saturation_rate = NAN;
	out->usd_per_mtok = NAN;
	out->binding = -1;
	sc.par = d->par;
	sc.wdt = d->wdt;
	if (in->kv_follows_dtype)
		sc.kvdt = d->wdt;
	if (d->max_num_seqs > 0)
		sc.max_num_seqs = d->max_num_seqs;
	if (d->pd_prefill > 0) {
		sc.pd_prefill = d->pd_prefill;
		sc.pd_decode = d->pd_decode;
		sc.prefill_par = d->par;
	}
	out->max_num_seqs = sc.max_num_seqs;
	out->max_num_batched_tokens = sc.max_num_batched_tokens;
	out->kvdt = sc.kvdt;
	rc = scenario_check_config(&sc, in->allow_invalid, notes, sizeof(notes), e);
	if (rc == 0 && (rc = scenario_prepare(&sc, in->data_dir, &st, e)) == 0) {
		prepared = true;
		rc = scenario_check_capacity(&sc, &st, in->allow_invalid, notes, sizeof(notes), e);
	}
	if (rc < 0) {
		/* refused at start-up: the deployment does not exist */
		out->status = SEARCH_PRUNED;
		snprintf(out->reason, sizeof(out->reason), "%.300s", e->msg);
		first_sentence(out->reason);
		err_clear(e);
		rc = 0;
		goto out;
	}
	out->kv_blocks = st.mp.blocks;
	/* the simulation scenario_prepare built is `run`'s; every probe below
	 * makes its own, and this one's KV cache (all the blocks of every
	 * replica) would stay resident beside theirs */
	sim_free(st.sim);
	st.sim = NULL;
	/* coarse, then fine: a search on a quarter of the requests (at least
	 * SEARCH_COARSE_MIN) to 5 % finds where the answer lies; the search on
	 * the whole workload starts there instead of at 1 req/s, which skips
	 * the long low-rate runs of the doubling probe */
	fine = *in->cc;
	if (in->wl->num_requests >= 2 * SEARCH_COARSE_MIN) {
		struct cap_cfg coarse = *in->cc;
		struct wl_spec wc = *in->wl;
		coarse.rel_tol = 0.05;
		coarse.nseeds = 1;
		wc.num_requests = in->wl->num_requests / 4 > SEARCH_COARSE_MIN ? in->wl->num_requests / 4
										  : SEARCH_COARSE_MIN;
		if ((rc = cap_search(&st, &wc, &coarse, &res, e)) < 0)
			goto out;
		out->probes += res.ncurve;
		if (res.found && !res.unbounded)
			fine.start = res.max_rate;
		cap_result_release(&res);
	}
	if ((rc = cap_search(&st, in->wl, &fine, &res, e)) < 0)
		goto out;
	have_res = true;
	out->probes += res.ncurve;
	out->binding = res.binding;
	cap_binding_name(in->cc, res.binding, out->binding_name, sizeof(out->binding_name));
	if (!res.found) {
		out->status = SEARCH_NO_RATE;
		snprintf(out->reason, sizeof(out->reason), "%.250s", res.reason);
		goto out;
	}
	out->status = SEARCH_OK;
	out->max_rate = res.max_rate;
	out->saturation_rate = res.saturation_rate;
	/* the operating point: one run at the capacity, first seed */
	w = *in->wl;
	w.rate = res.max_rate;
	w.seed = in->cc->seed;
	if ((rc = sweep_simulate(&st, &w, &at, e)) < 0)
		goto out;
	out->probes++;
	if (at.completed > 0) {
		double out_per_req = at.m.output_tokens / (double)at.completed;
		out->out_tok_s = res.max_rate * out_per_req;
		out->tok_s_gpu = out->out_tok_s / d->gpus;
		out->tok_s_user = at.m.itl_ms.n > 0 && at.m.itl_ms.mean > 0 ? 1000.0 / at.m.itl_ms.mean : NAN;
		out->ttft_p90_ms = at.m.ttft_ms.p90;
		out->itl_mean_ms = at.m.itl_ms.n > 0 ? at.m.itl_ms.mean : NAN;
		out->e2e_p90_ms = at.m.e2e_ms.p90;
		if (isfinite(usd_per_gpu_hour) && out->out_tok_s > 0)
			out->usd_per_mtok = usd_per_gpu_hour * d->gpus / (out->out_tok_s * 3600) * 1e6;
	} else {
		out->tok_s_user = out->ttft_p90_ms = out->itl_mean_ms = out->e2e_p90_ms = NAN;
	}
out:
	if (have_res)
		cap_result_release(&res);
	if (prepared)
		scenario_release(&st);
	return rc;
}

void search_rank(const struct search_outcome *o, size_t n, size_t *order)
{
	size_t i, j;

	for (i = 0; i < n; i++)
		order[i] = i;
	/* insertion sort: stable, and no comparator state outside the call */
	for (i = 1; i < n; i++) {
		size_t v = order[i];
		for (j = i; j > 0; j--) {
			const struct search_outcome *x = &o[v], *y = &o[order[j - 1]];
			bool xo = x->status == SEARCH_OK, yo = y->status == SEARCH_OK, before;
			if (xo != yo)
				before = xo;
			else if (xo && x->tok_s_gpu != y->tok_s_gpu)
				before = x->tok_s_gpu > y->tok_s_gpu;
			else if (xo && x->d.gpus != y->d.gpus)
				before = x->d.gpus < y->d.gpus;
			else
				before = v < order[j - 1];
			if (!before)
				break;
			order[j] = order[j - 1];
		}
		order[j] = v;
	}
}

int64_t search_gpus_for_rate(const struct search_outcome *o, double target_rps)
{
	if (o->status != SEARCH_OK || !(o->max_rate > 0))
		return -1;
	return (int64_t)ceil(target_rps / o->max_rate - 1e-9) * o->d.gpus;
}
