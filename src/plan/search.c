/* search.c - enumerate deployments, evaluate one (prune or SLO capacity),
 * rank.  The evaluation builds the deployment's scenario from the budget
 * GPU's base scenario (the user's engine, limits and overheads) and runs
 * the same checks `servesim run` does before it simulates. */
#include "plan/search.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "engine/registry.h"
#include "base/alloc.h"
#include "plan/pareto.h"
#include "plan/sweep.h"

/* Fewest requests of the coarse capacity search (below that the Poisson
 * noise of a run moves the answer by more than 5 %). */
#define SEARCH_COARSE_MIN 250
/* The coarse search's first probe, times the search's start (a power of
 * two of it: its doubling and halving probe rates of the lattice a search
 * from the start probes).  From 1 req/s its passing probes at 1, 2 and 4
 * req/s, each request alone in the engine for hundreds of steps, were 13 %
 * of the README DeepSeek-V3 search's probe CPU and 15 % of the Llama-3.1-70B
 * one's; started here it reaches the bracket a search from 1 req/s reaches
 * (the same doubling from 8 up, the same halving from 8 down) whenever the
 * rates below a power of two that meets the SLOs meet them too: they run at
 * half its load or less.  Measured: 8 against 4 and 16, the same CPU within
 * 2 %; 64, as slow as 1 (overloaded probes that are not cut short). */
#define SEARCH_COARSE_START 8

/* SEARCH_FINE_FACTOR and SEARCH_COARSE_TOL (search.h): the fine search's
 * bracket step from the coarse answer, and the coarse search's precision.
 * The coarse pass's answer (a quarter of the requests) lies at 0.81-2.0x the
 * fine one on the README DeepSeek-V3 search (84 deployments; 10 % / 50 % /
 * 90 %: 0.87 / 0.93 / 1.06x): shorter runs queue less, so it reads high.  A
 * step of 2 from there spent about five of the fine pass's nine probes per
 * deployment closing a bracket far wider than that error.  A step of 1.08
 * brackets half of them in one step and most in two (beyond, the bracket
 * widens by 1.08 a step), and three halvings of an 8 % bracket reach the 1 %
 * that four were needed for from 15 % (1.15 measured 6 % more CPU, 1.04 no
 * less); a coarse answer to 10 % is then as good a start as one to 5 %.  The
 * fine pass still bisects to the caller's 1 %, so the answer is the same
 * rule's; the bracket's lattice differs, and near the knee, where pass /
 * fail is not monotone in the rate, that moves an answer within its seed
 * band (docs/commands/search.md). */

void search_space_defaults(struct search_space *sp)
{
	memset(sp, 0, sizeof(*sp));
	{
		/* the engines servesim writes launch lines for */
		const struct engine_type *en;
		size_t i;
		sp->nengine = 0;
		for (i = 0; (en = engine_at(i)) != NULL && sp->nengine < SEARCH_MAX_ENGINES; i++)
			if (en->launch)
				sp->engine[sp->nengine++] = en;
	}
	sp->pd = true;
	sp->pd_max_workers = 4;
}

const char *search_prune_name(enum search_prune p)
{
	switch (p) {
	case SEARCH_PRUNE_WEIGHTS: return "weights exceed the memory";
	case SEARCH_PRUNE_KV: return "KV cache too small";
	case SEARCH_PRUNE_VENDORS: return "P/D pools on two vendors' GPUs";
	case SEARCH_PRUNE_OTHER: return "other start-up checks";
	default: return "none";
	}
}

/* memplan.c and scenario.c's start-up messages: "... does not fit:
 * weights need ...", "... KV cache ..." / "... max seq len ...";
 * startup.c's "... between GPUs of two vendors ...". */
static enum search_prune prune_kind(const char *msg)
{
	if (strstr(msg, "does not fit: weights"))
		return SEARCH_PRUNE_WEIGHTS;
	if (strstr(msg, "KV cache") || strstr(msg, "max seq len") || strstr(msg, "KV pool"))
		return SEARCH_PRUNE_KV;
	if (strstr(msg, "between GPUs of two vendors"))
		return SEARCH_PRUNE_VENDORS;
	return SEARCH_PRUNE_OTHER;
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

/* The axes after the layout, innermost: max_num_seqs, then
 * max_num_batched_tokens, then MTP. */
struct tail_axes {
	int64_t mns[SEARCH_MAX_LIST], mnbt[SEARCH_MAX_LIST + 2];
	int spec[SEARCH_MAX_LIST];
	size_t nmns, nmnbt, nspec;
};

static void push_tail(struct search_deploy **out, size_t *n, size_t *cap, struct search_deploy d,
		      const struct tail_axes *t)
{
	size_t im, ib, is;

	for (im = 0; im < t->nmns; im++)
		for (ib = 0; ib < t->nmnbt; ib++)
			for (is = 0; is < t->nspec; is++) {
				d.max_num_seqs = t->mns[im];
				d.max_num_batched_tokens = t->mnbt[ib];
				d.spec_k = t->spec[is];
				push(out, n, cap, &d);
			}
}

/* d (its gpus set: one copy's) as each replica count of sp within C GPUs
 * (search_space.replicas; `more`: the default's further counts apply). */
static void push_replicas(struct search_deploy **out, size_t *n, size_t *cap, struct search_deploy d,
			  const struct tail_axes *t, const struct search_space *sp, int C, bool more)
{
	int one = d.gpus, r;
	size_t i;

	for (i = 0; i < sp->nreplicas; i++)
		if ((int64_t)sp->replicas[i] * one <= C) {
			d.replicas = sp->replicas[i];
			d.gpus = d.replicas * one;
			push_tail(out, n, cap, d, t);
		}
	if (sp->nreplicas)
		return;
	d.replicas = 1;
	push_tail(out, n, cap, d, t);
	for (r = 2; more && (int64_t)r * one <= C; r *= 2) {
		d.replicas = r;
		d.gpus = r * one;
		push_tail(out, n, cap, d, t);
	}
}

/* TP sizes to try: the list given, else powers of two up to hi. */
static size_t tp_list(const struct search_space *sp, int hi, int *tps)
{
	if (sp->ntp) {
		memcpy(tps, sp->tp, sp->ntp * sizeof(int));
		return sp->ntp;
	}
	return pow2(tps, hi);
}

/* Weight dtypes to try: the list given, else bf16 and fp8 where the GPUs
 * (g, and the prefill workers' pg) all have fp8 tensor cores and the
 * model's weights narrow to it. */
static size_t dtype_list(const struct search_space *sp, const struct model_cfg *m, const struct gpu_spec *g,
			 const struct gpu_spec *pg, enum dtype *dts)
{
	size_t n = 0;

	if (sp->ndtype) {
		memcpy(dts, sp->dtype, sp->ndtype * sizeof(*dts));
		return sp->ndtype;
	}
	dts[n++] = DT_BF16;
	if (g->peak_flops[DT_FP8] > 0 && pg->peak_flops[DT_FP8] > 0 && model_fp8_narrows(m))
		dts[n++] = DT_FP8;
	return n;
}

/* P/D: X prefill workers on budget GPU pb (at most Cp GPUs) and Y decode
 * workers on db (Cd) of TP t each (EP over the worker's GPUs for an MoE
 * model), X + Y <= pd_max_workers.  One GPU type (pb == db): the X + Y
 * workers share its count. */
static void push_pd(struct search_deploy **out, size_t *n, size_t *cap, const struct search_space *sp,
		    const struct tail_axes *t, bool moe, int eng, int pb, int db, int Cp, int Cd, const int *tps,
		    size_t ntp, const enum dtype *dts, size_t ndt)
{
	size_t iw, it;

	for (iw = 0; iw < ndt; iw++)
		for (it = 0; it < ntp; it++)
			for (int w = 2; w <= sp->pd_max_workers; w++)
				for (int x = 1; x < w; x++) {
					struct search_deploy d;
					int tp = tps[it], C = Cd;
					memset(&d, 0, sizeof(d));
					if (pb == db && (int64_t)w * tp > C)
						continue;
					if (pb != db) {
						/* copies within both counts */
						int rp = Cp / (x * tp), rd = Cd / ((w - x) * tp);
						if (rp < 1 || rd < 1)
							continue;
						C = (rp < rd ? rp : rd) * w * tp;
					}
					d.gpu = db;
					d.pgpu = pb;
					d.engine = eng;
					d.par = (struct parallel){.tp = tp, .pp = 1, .dp = 1, .ep = moe ? tp : 1};
					d.wdt = dts[iw];
					d.pd_prefill = x;
					d.pd_decode = w - x;
					d.gpus = w * tp;
					push_replicas(out, n, cap, d, t, sp, C, false);
				}
}

void search_enumerate(const struct model_cfg *m, const struct search_gpu *budget, size_t nb,
		      const struct search_space *sp, struct search_deploy **out,
		      size_t *n)
{
	size_t cap = 0, b, eng, it, ip, id, ie, iw;
	bool moe = m->n_experts > 0;
	struct tail_axes t;

	*out = NULL;
	*n = 0;
	memset(&t, 0, sizeof(t));
	if (sp->nmns) {
		t.nmns = sp->nmns;
		memcpy(t.mns, sp->mns, t.nmns * sizeof(int64_t));
	} else {
		t.nmns = 1;
	}
	if (sp->nspec) {
		t.nspec = sp->nspec;
		memcpy(t.spec, sp->spec_k, t.nspec * sizeof(int));
	} else {
		t.nspec = 1;
		if (m->mtp_layers > 0)
			t.spec[t.nspec++] = SEARCH_MTP_TOKENS;
	}
	for (b = 0; b < nb; b++)
		for (eng = 0; eng < sp->nengine; eng++) {
		const struct gpu_spec *g = budget[b].gpu;
		int C = budget[b].count, tps[SEARCH_MAX_LIST], pps[SEARCH_MAX_LIST], dps[SEARCH_MAX_LIST];
		/* TP stays inside one node's NVLink (8 GPUs on HGX boards): vLLM's
		 * guidance is TP within a node, PP across nodes */
		int node = g->gpus_per_node > 0 ? g->gpus_per_node : 8;
		size_t ntp, npp, ndp, ndt;
		enum dtype dts[SEARCH_MAX_LIST];
		bool pp_default = sp->npp == 0;

		if (sp->nmnbt) {
			t.nmnbt = sp->nmnbt;
			memcpy(t.mnbt, sp->mnbt, t.nmnbt * sizeof(int64_t));
		} else {
			/* the engine's default only: each alternative would
			 * multiply the search (--max-num-batched-tokens LIST) */
			t.nmnbt = 1;
			t.mnbt[0] = 0;
		}
		ntp = tp_list(sp, C < node ? C : node, tps);
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
			ndp = pow2(dps, C);
		}
		ndt = dtype_list(sp, m, g, g, dts);
		for (iw = 0; iw < ndt; iw++)
			for (it = 0; it < ntp; it++)
				for (ip = 0; ip < npp; ip++)
					for (id = 0; id < ndp; id++)
						for (ie = 0; ie < (moe ? 2u : 1u); ie++) {
							struct search_deploy d;
							int tp = tps[it], pp = pps[ip], dp = dps[id];
							memset(&d, 0, sizeof(d));
							if ((int64_t)tp * pp * dp > C)
								continue;
							/* by default PP only across full nodes */
							if (pp_default && pp > 1 && tp != (C < node ? C : node))
								continue;
							/* dense replicas: DP x TP, no PP beside them by default */
							if (!moe && pp_default && dp > 1 && pp > 1)
								continue;
							if (ie == 1 && tp * dp == 1)
								continue;
							d.gpu = d.pgpu = (int)b;
							d.engine = (int)eng;
							d.par = (struct parallel){.tp = tp, .pp = pp, .dp = dp, .ep = ie ? tp * dp : 1};
							d.wdt = dts[iw];
							d.gpus = tp * pp * dp;
							push_replicas(out, n, &cap, d, &t, sp, C, moe && dp == 1);
						}
		/* P/D: X prefill and Y decode workers of TP t each (EP over the
		 * worker's GPUs for an MoE model) */
		if (!sp->pd)
			continue;
		push_pd(out, n, &cap, sp, &t, moe, (int)eng, (int)b, (int)b, C, C, tps, ntp, dts, ndt);
	}
	/* mixed P/D: prefill on budget GPU pb, decode on db, TP within both
	 * types' nodes and counts, the weight dtypes both run */
	if (!sp->pd)
		return;
	for (size_t db = 0; db < nb; db++)
		for (size_t pb = 0; pb < nb; pb++)
			for (eng = 0; eng < sp->nengine; eng++) {
				const struct gpu_spec *gd = budget[db].gpu, *gp = budget[pb].gpu;
				int Cd = budget[db].count, Cp = budget[pb].count, tps[SEARCH_MAX_LIST];
				int nd = gd->gpus_per_node > 0 ? gd->gpus_per_node : 8;
				int np = gp->gpus_per_node > 0 ? gp->gpus_per_node : 8;
				int lim = Cd < Cp ? Cd : Cp;
				enum dtype dts[SEARCH_MAX_LIST];
				size_t ntp, ndt;

				if (pb == db)
					continue;
				lim = lim < nd ? lim : nd;
				ntp = tp_list(sp, lim < np ? lim : np, tps);
				ndt = dtype_list(sp, m, gd, gp, dts);
				push_pd(out, n, &cap, sp, &t, moe, (int)eng, (int)pb, (int)db, Cp, Cd, tps, ntp, dts, ndt);
			}
}

double search_usd_per_gpu_hour(const struct search_gpu *budget, const struct search_deploy *d)
{
	int pg;

	if (!search_mixed(d))
		return budget[d->gpu].usd_per_gpu_hour;
	/* one copy's prefill GPUs at their price, the rest at the decode GPU's */
	pg = d->pd_prefill * d->par.tp * d->par.pp * d->par.dp;
	pg *= d->replicas > 1 ? d->replicas : 1;
	return (budget[d->pgpu].usd_per_gpu_hour * pg + budget[d->gpu].usd_per_gpu_hour * (d->gpus - pg)) / d->gpus;
}

int search_capacity(const struct scenario_state *st, const struct wl_spec *wl, const struct cap_cfg *cc,
		    bool want_saturation, struct cap_result *res, size_t *probes, struct err *e)
{
	struct cap_cfg fine = *cc;
	struct sim_memo *memo;
	int rc = 0;

	/* failing probes stop once decided; the saturation search only for a
	 * caller that reads it */
	fine.early_stop = true;
	fine.no_saturation = !want_saturation;
	fine.energy = true; /* the operating point's J/token and tok/s/W, from its probe */
	/* both passes' probes price with one set of memos: the coarse pass's
	 * requests are the first of the fine pass's */
	memo = sim_memo_new();
	fine.memo = memo;
	if (wl->num_requests >= 2 * SEARCH_COARSE_MIN) {
		struct cap_cfg coarse = fine;
		struct wl_spec wc = *wl;
		coarse.rel_tol = SEARCH_COARSE_TOL;
		coarse.nseeds = 1;
		coarse.allow_short = true;   /* it only finds where to start */
		coarse.no_saturation = true; /* nor what saturates */
		coarse.energy = false;       /* nor its energy */
		coarse.start = cc->start * SEARCH_COARSE_START;
		wc.num_requests = wl->num_requests / 4 > SEARCH_COARSE_MIN ? wl->num_requests / 4 : SEARCH_COARSE_MIN;
		if ((rc = cap_search(st, &wc, &coarse, res, e)) < 0)
			goto out;
		*probes += res->nsim;
		if (res->found && !res->unbounded) {
			fine.start = res->max_rate;
			fine.factor = SEARCH_FINE_FACTOR;
		}
		cap_result_release(res);
	}
	if ((rc = cap_search(st, wl, &fine, res, e)) == 0)
		*probes += res->nsim;
out:
	sim_memo_free(memo);
	return rc;
}

/* vLLM's start-up messages run to several sentences: keep the first. */
static void first_sentence(char *s)
{
	char *p = strstr(s, ". ");

	if (p)
		*p = '\0';
}

bool search_alike(const struct search_deploy *a, const struct search_deploy *b)
{
	struct search_deploy x = *a;

	x.spec_k = b->spec_k;
	return memcmp(&x, b, sizeof(x)) == 0;
}

int search_evaluate(const struct search_in *in, const struct search_deploy *d, double usd_per_gpu_hour,
		    struct cost_share *share, struct search_outcome *out, struct err *e)
{
	struct scenario sc = in->base[(size_t)d->gpu * in->nengine + (size_t)d->engine];
	struct scenario_state st;
	struct cap_result res;
	struct sweep_result at;
	const struct cap_point *op;
	struct wl_spec w;
	size_t i;
	char notes[2048] = "";
	bool prepared = false, have_res = false;
	int rc, red;

	memset(out, 0, sizeof(*out));
	out->d = *d;
	out->max_rate = out->saturation_rate = NAN;
	out->usd_per_mtok = out->j_per_tok = out->tok_s_per_w = NAN;
	out->binding = -1;
	/* EPLB's redundant experts are the layout's (resolve_eplb sets them
	 * on the base); a candidate's layout keeps them where it has EP */
	red = sc.par.ep_redundant;
	sc.par = d->par;
	sc.par.ep_redundant = sc.eplb && sc.par.ep > 1 ? red : 0;
	sc.wdt = d->wdt;
	sc.k.replicas = d->replicas > 1 ? d->replicas : 1;
	sc.cost_share = share;
	if (in->kv_follows_dtype) /* the engine's default for these weights */
		sc.kvdt = scenario_kv_auto(sc.model, sc.gpu, sc.engine, d->wdt, sc.kvdt_src, sizeof(sc.kvdt_src));
	if (d->max_num_seqs > 0) {
		sc.k.max_num_seqs = d->max_num_seqs;
		sc.sglang_mrr_rule = false;
	}
	if (d->max_num_batched_tokens > 0)
		sc.k.max_num_batched_tokens = d->max_num_batched_tokens;
	if (d->spec_k > 0) {
		/* MTP at the acceptance `run` takes by default: the measured
		 * per-position curve (spec_default_rates), for the workload's
		 * prompts */
		memset(&sc.spec, 0, sizeof(sc.spec));
		sc.spec.method = SPEC_MTP;
		sc.spec.k = d->spec_k;
		if (spec_default_rates(&sc.spec, sc.workload && wl_prompt_kind(sc.workload) == WL_PROMPTS_RANDOM) < 0)
			BUG("no measured MTP acceptance curve");
	}
	if (d->pd_prefill > 0) {
		sc.pd_prefill = d->pd_prefill;
		sc.pd_decode = d->pd_decode;
		sc.prefill_par = sc.par; /* the same layout, EPLB slots included */
		/* the prefill workers on another budget GPU: its type's tables
		 * and memory, as run --prefill-gpu (the tables are the cache's
		 * already: each budget GPU's base scenario loaded them) */
		if (search_mixed(d))
			sc.prefill_gpu = in->base[(size_t)d->pgpu * in->nengine + (size_t)d->engine].gpu;
	}
	out->max_num_seqs = sc.k.max_num_seqs;
	out->max_num_batched_tokens = sc.k.max_num_batched_tokens;
	out->kvdt = sc.kvdt;
	rc = scenario_check_config(&sc, in->allow_invalid, notes, sizeof(notes), e);
	if (rc == 0)
		rc = scenario_check_pd(&sc, in->allow_invalid, notes, sizeof(notes), e);
	if (rc == 0 && (rc = scenario_start(&sc, in->data_dir, in->allow_invalid, notes, sizeof(notes), &st, e)) == 0)
		prepared = true;
	if (rc < 0) {
		/* refused at start-up: the deployment does not exist */
		out->status = SEARCH_PRUNED;
		out->prune = prune_kind(e->msg);
		snprintf(out->reason, sizeof(out->reason), "%.300s", e->msg);
		first_sentence(out->reason);
		err_clear(e);
		rc = 0;
		goto out;
	}
	out->kv_blocks = st.mp.blocks;
	/* as the memory plan left it (an engine's rule over the KV pool) */
	if (st.max_running_requests > 0)
		out->max_num_seqs = st.max_running_requests;
	/* the simulation scenario_prepare built is `run`'s; every probe below
	 * makes its own, and this one's KV cache (all the blocks of every
	 * replica) would stay resident beside theirs */
	sim_free(st.sim);
	st.sim = NULL;
	if ((rc = search_capacity(&st, in->wl, in->cc, in->want_saturation, &res, &out->probes, e)) < 0) {
		err_prefix(e, "%s%s%s x%d, %s, tp %d pp %d dp %d ep %d%s%s", sc.prefill_gpu ? sc.prefill_gpu->id : "",
			   sc.prefill_gpu ? "/" : "", sc.gpu->id, d->gpus, sc.engine->name,
			   d->par.tp, d->par.pp, d->par.dp, d->par.ep, d->pd_prefill > 0 ? ", P/D" : "",
			   sc.k.replicas > 1 ? ", replicas" : "");
		goto out;
	}
	have_res = true;
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
	/* the operating point: the run at the capacity, first seed; the probe
	 * there when the search made it (one seed: always), the same run */
	op = NULL;
	for (i = 0; i < res.ncurve && !op; i++)
		if (res.curve[i].seed == in->cc->seed && res.curve[i].offered == res.max_rate && !res.curve[i].cut)
			op = &res.curve[i];
	if (op) {
		memset(&at, 0, sizeof(at));
		at.completed = op->completed;
		at.m.output_tokens = op->output_tokens;
		at.m.ttft_ms.p90 = op->ttft_p90_ms;
		at.m.e2e_ms.p90 = op->e2e_p90_ms;
		at.m.itl_ms.mean = op->itl_mean_ms;
		at.m.itl_ms.n = op->itl_n;
		at.m.running_per_rank = op->running_per_rank;
		at.m.queue_share = op->queue_share;
		at.m.energy_j_per_output_token = op->energy_j_per_output_token;
	} else {
		w = *in->wl;
		w.rate = res.max_rate;
		w.seed = in->cc->seed;
		w.num_requests = cap_probe_requests(&st, w.num_requests); /* as the probes ran it */
		if ((rc = sweep_simulate(&st, &w, &at, e)) < 0)
			goto out;
		out->probes++;
	}
	if (at.completed > 0) {
		double out_per_req = at.m.output_tokens / (double)at.completed;
		out->out_tok_s = res.max_rate * out_per_req;
		out->tok_s_gpu = out->out_tok_s / d->gpus;
		out->tok_s_user = at.m.itl_ms.n > 0 && at.m.itl_ms.mean > 0 ? 1000.0 / at.m.itl_ms.mean : NAN;
		out->ttft_p90_ms = at.m.ttft_ms.p90;
		out->itl_mean_ms = at.m.itl_ms.n > 0 ? at.m.itl_ms.mean : NAN;
		out->e2e_p90_ms = at.m.e2e_ms.p90;
		out->running_per_rank = at.m.running_per_rank;
		out->queue_share = at.m.queue_share;
		if (isfinite(usd_per_gpu_hour) && out->out_tok_s > 0)
			out->usd_per_mtok = usd_per_gpu_hour * d->gpus / (out->out_tok_s * 3600) * 1e6;
		/* tokens/s per watt = tokens per joule, over the same run */
		out->j_per_tok = at.m.energy_j_per_output_token;
		if (out->j_per_tok > 0)
			out->tok_s_per_w = 1.0 / out->j_per_tok;
	} else {
		out->tok_s_user = out->ttft_p90_ms = out->itl_mean_ms = out->e2e_p90_ms = NAN;
		out->running_per_rank = out->queue_share = NAN;
	}
out:
	if (have_res)
		cap_result_release(&res);
	if (prepared)
		scenario_release(&st);
	return rc;
}

size_t search_drop_pruned_copies(struct search_outcome *o, size_t n, const struct search_space *sp)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		if (sp->nreplicas || o[i].d.replicas <= 1 || o[i].status != SEARCH_PRUNED)
			o[k++] = o[i];
	return k;
}

int search_rank_parse(const char *s, enum search_rank_by *by, struct err *e)
{
	if (strcmp(s, "throughput") == 0)
		*by = SEARCH_RANK_THROUGHPUT;
	else if (strcmp(s, "energy") == 0)
		*by = SEARCH_RANK_ENERGY;
	else
		return err_set(e, SS_EUSAGE, "--rank: expected throughput or energy, got '%s'", s);
	return 0;
}

/* Does x rank before y by energy (both OK)?  -1 / 1, 0: a tie. */
static int energy_cmp(const struct search_outcome *x, const struct search_outcome *y)
{
	bool xe = !isnan(x->j_per_tok), ye = !isnan(y->j_per_tok);

	if (xe != ye)
		return xe ? -1 : 1;
	if (xe && x->j_per_tok != y->j_per_tok)
		return x->j_per_tok < y->j_per_tok ? -1 : 1;
	return 0;
}

void search_rank(const struct search_outcome *o, size_t n, enum search_rank_by by, size_t *order)
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
			int ec = xo && yo && by == SEARCH_RANK_ENERGY ? energy_cmp(x, y) : 0;
			if (xo != yo)
				before = xo;
			else if (ec != 0)
				before = ec < 0;
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

int search_price_budget(const struct prices *p, const struct gpu_db *db, struct search_gpu *budget, size_t nb,
			struct err *e)
{
	size_t i;
	int rc;

	for (i = 0; i < nb; i++)
		if ((rc = prices_find(p, db, budget[i].gpu->id, &budget[i].usd_per_gpu_hour, e)) < 0)
			return rc;
	return 0;
}

void search_summarize(const struct search_outcome *r, size_t n, const struct search_gpu *budget,
		      double target_rps, enum search_rank_by by, struct search_summary *s)
{
	double *px = xcalloc(n ? n : 1, sizeof(double)), *py = xcalloc(n ? n : 1, sizeof(double));
	size_t i;

	memset(s, 0, sizeof(*s));
	s->order = xcalloc(n ? n : 1, sizeof(*s->order));
	s->front = xcalloc(n ? n : 1, sizeof(*s->front));
	for (i = 0; i < n; i++) {
		s->nok += r[i].status == SEARCH_OK;
		s->npruned += r[i].status == SEARCH_PRUNED;
		s->nnorate += r[i].status == SEARCH_NO_RATE;
		if (r[i].status == SEARCH_PRUNED)
			s->pruned_by[r[i].prune]++;
		s->runs += r[i].probes;
	}
	search_rank(r, n, by, s->order);
	s->rank_by = by;
	for (i = 0; i < n; i++) {
		px[i] = r[i].status == SEARCH_OK ? r[i].tok_s_user : NAN;
		py[i] = r[i].status == SEARCH_OK ? r[i].tok_s_gpu : NAN;
	}
	pareto_front(px, py, n, s->front);
	free(px);
	free(py);
	s->best_target = -1;
	if (target_rps > 0) {
		int64_t best = -1;
		double best_cost = INFINITY;
		for (i = 0; i < s->nok; i++) {
			const struct search_outcome *o = &r[s->order[i]];
			int64_t g = search_gpus_for_rate(o, target_rps);
			double cost = g * search_usd_per_gpu_hour(budget, &o->d);
			if (best < 0 || g < best || (g == best && cost < best_cost)) {
				best = g;
				best_cost = cost;
				s->best_target = (int)s->order[i];
			}
		}
	}
}

void search_summary_release(struct search_summary *s)
{
	free(s->order);
	free(s->front);
	memset(s, 0, sizeof(*s));
}
