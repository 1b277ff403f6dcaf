/* evaluate.c - simulate an experiment and compare it with its measurements.
 *
 * A stage is "overloaded" when its queue grows without bound: measured (fewer
 * than 90 % of the stage's requests completed, or a mean TTFT above 5 s) or
 * predicted (the same test on the simulation).  Such rows are summarised
 * apart: a steady-state model cannot be judged on a queue that depends on
 * how long the run lasted. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "engine/registry.h"
#include "base/alloc.h"
#include "eval/experiment.h"
#include "cost/memplan.h"
#include "base/pfor.h"
#include "engine/scenario.h"
#include "sim/sim.h"

static bool overloaded(double completed, double rate, double duration, double ttft_mean)
{
	return completed < 0.9 * rate * duration || ttft_mean > 5000.0;
}

void experiment_scenario(const struct experiment *x, const struct model_cfg *m,
			 const struct gpu_spec *g, const struct eval_opts *o, struct scenario *sc)
{
	/* the experiment's engine (experiment_load refuses an unknown one) */
	const struct engine_type *en = engine_find(x->engine);

	if (!en)
		en = engine_default();
	scenario_defaults(sc, en, m, g, &x->wl);
	sc->par = (struct parallel){x->tp, x->pp, x->dp, x->ep, x->ep_redundant, 0};
	sc->wdt = x->dtype;
	/* an fp4 label on a GPU without fp4 tensor cores (aiconfigurator's
	 * "nvfp4" on gpt-oss H100/H200 rows) cannot be what ran: the engine ran
	 * the checkpoint as stored (gpt-oss: MXFP4 experts as W4A16, the rest
	 * bf16), which is what the cost model does with bf16 here */
	bool fp4_label = x->dtype == DT_FP4 && !(g->peak_flops[DT_FP4] > 0);
	if (fp4_label)
		sc->wdt = DT_BF16;
	/* the KV cache: as the experiment names it, else the engine's default
	 * for these weights (vLLM's and SGLang's kv_cache_dtype "auto": an fp8
	 * checkpoint served without --kv-cache-dtype keeps a bf16 cache) */
	if (x->kv_dtype_given) {
		sc->kvdt = x->kv_dtype;
		snprintf(sc->kvdt_src, sizeof(sc->kvdt_src), "the experiment's kv_dtype");
	} else if (strcmp(x->format, "aic-silicon") == 0 && !x->kv_engine_auto) {
		/* aiconfigurator's silicon rows: the deployment's KV dtype came
		 * from aiconfigurator's own config, which the CSV does not record;
		 * they keep the row's precision (eval/silicon/HARNESS.md) */
		sc->kvdt = sc->wdt;
	} else {
		sc->kvdt = scenario_kv_auto(m, g, en, sc->wdt, sc->kvdt_src, sizeof(sc->kvdt_src));
	}
	/* the limits as the experiment gives them; an engine that may leave
	 * them to its rules (ENGINE_KNOB_RULE_LIMITS) keeps its defaults'
	 * where it does not (SGLang: chunked_prefill_size by GPU memory,
	 * max_running_requests from the KV pool) */
	if (x->k.max_num_batched_tokens > 0)
		sc->k.max_num_batched_tokens = x->k.max_num_batched_tokens;
	if (x->k.max_num_seqs > 0) {
		sc->k.max_num_seqs = x->k.max_num_seqs;
		sc->sglang_mrr_rule = false;
	}
	/* settings only some engines take (experiment_load refuses them for
	 * the others): SGLang's --max-prefill-tokens and --enable-mixed-chunk */
	sc->k.max_prefill_tokens = x->k.max_prefill_tokens;
	sc->k.sglang_mixed_chunk = x->k.sglang_mixed_chunk;
	sc->sglang_recv_interval = (int)x->k.recv_interval;
	sc->trtllm_adp_timeout_iters = x->adp_timeout_iters;
	sc->trtllm_adp_batching_wait_iters = x->adp_batching_wait_iters;
	sc->trtllm_batch_wait_iters = x->batch_wait_iters;
	sc->trtllm_batch_wait_ratio = x->batch_wait_ratio;
	sc->cold_start = x->cold_start;
	sc->moe_backend = sc->prefill_moe_backend = x->moe_backend;
	sc->ar_fused_bytes = x->ar_fused_bytes;
	if (x->k.mem_fraction_static > 0)
		sc->k.mem_fraction_static = x->k.mem_fraction_static;
	if (x->pd_prefill > 0) {
		sc->pd_prefill = x->pd_prefill;
		sc->pd_decode = x->pd_decode;
		sc->prefill_par = (struct parallel){x->prefill_tp, x->pp, x->prefill_dp > 1 ? x->prefill_dp : 1,
						    x->prefill_ep, x->prefill_ep_redundant, 0};
		sc->prefill_max_num_seqs = x->prefill_max_num_seqs;
		sc->prefill_max_num_batched_tokens = x->prefill_max_num_batched_tokens;
		sc->prefill_moe_backend = x->prefill_moe_backend;
		sc->prefill_mem_fraction_static = x->prefill_mem_fraction_static;
	}
	if (x->spec_tokens > 0) {
		/* multi-token prediction (silicon P/D rows, aic_pools_apply): the
		 * measured acceptance curve for the workload's prompts */
		sc->spec.k = x->spec_tokens;
		sc->spec.method = SPEC_MTP;
		(void)spec_default_rates(&sc->spec, wl_prompt_kind(&x->wl) == WL_PROMPTS_RANDOM);
	}
	if (x->k.replicas > 1) {
		sc->k.replicas = x->k.replicas;
		/* an experiment's default, docs/formats.md */
		sc->k.router = router_name(router_kind_of(x->k.router, ROUTER_ROUND_ROBIN));
	}
	sc->k.max_model_len = x->k.max_model_len;
	sc->k.block_size = x->k.block_size;
	sc->k.total_kv_blocks = x->k.total_kv_blocks;
	sc->no_pooled_gaps = true; /* eval and calibrate compare no pooled ITL */
	sc->no_energy = true;      /* nor energy */
	sc->k.gpu_memory_utilization = x->k.gpu_memory_utilization;
	sc->k.prefix_caching = x->k.prefix_caching;
	sc->k.no_deep_gemm = x->k.no_deep_gemm;
	sc->k.sglang_dp_lm_head = x->k.sglang_dp_lm_head;
	sc->k.moe_dense_tp_size = x->k.moe_dense_tp_size;
	sc->tier0_off = o->tier0_off;
	sc->ov = o->ov;
	sc->host_scaled = o->host_scaled;
	sc->host_scale = o->host_scale;
	sc->tier2 = o->tier2;
	sc->mfu_cache = o->cache;
	/* the kernel collection nearest the engine version that was measured */
	if (strcmp(x->engine_version, "unknown") != 0)
		snprintf(sc->engine_version, sizeof(sc->engine_version), "%s", x->engine_version);
	{
		/* the routed experts' format the source names ("... moe=fp8" in
		 * the silicon reader's precision strings) */
		const char *q = strstr(x->precision, "moe=");
		enum moe_fmt f;
		char buf[16];
		size_t n;
		if (q) {
			q += 4;
			n = strcspn(q, " ");
			if (n > 0 && n < sizeof(buf)) {
				memcpy(buf, q, n);
				buf[n] = '\0';
				if (moe_fmt_parse(buf, &f, NULL) == 0 &&
				    !(fp4_label && (f == MOE_FP4 || f == MOE_MXFP4)))
					sc->moe_format = (int)f + 1;
			}
		}
	}
	if (x->kind == EXP_REQUESTS && x->meas.server_side) {
		/* engine-side timings (OTel spans): no client terms */
		sc->ov.api_ttft_ms = sc->ov.api_e2e_ms = sc->ov.stream_token_us = 0;
		sc->ov.delivery_steps = 0;
		sc->ov.given |= OV_API_TTFT | OV_API_E2E | OV_STREAM | OV_DELIVERY;
	}
}

/* Each request of benchmark b against its own prediction (request ids are
 * the replay's arrival order, as in tier 1): the APE of TTFT, TPOT =
 * (E2E - TTFT) / (output - 1) and E2E, mean and variance (Welford). */
static void per_request(const struct experiment *x, const double *tt, const double *ee, int b,
			struct eval_row *r)
{
	double n[EV_REQ__N] = {0}, mean[EV_REQ__N] = {0}, m2[EV_REQ__N] = {0};
	size_t i;
	int k;

	for (i = 0; i < x->meas.n; i++) {
		const struct gt_request *q = &x->meas.r[i];
		double meas[EV_REQ__N], pred[EV_REQ__N];
		if (q->stage != b || isnan(tt[i]) || isnan(ee[i]))
			continue;
		meas[EV_REQ_TTFT] = q->ttft_ms;
		pred[EV_REQ_TTFT] = tt[i];
		meas[EV_REQ_E2E] = q->e2e_ms;
		pred[EV_REQ_E2E] = ee[i];
		meas[EV_REQ_TPOT] = q->output_tokens > 1 ? (q->e2e_ms - q->ttft_ms) / (double)(q->output_tokens - 1) : NAN;
		pred[EV_REQ_TPOT] = q->output_tokens > 1 ? (ee[i] - tt[i]) / (double)(q->output_tokens - 1) : NAN;
		for (k = 0; k < EV_REQ__N; k++) {
			double a, d;
			if (!(meas[k] > 0) || isnan(pred[k]))
				continue;
			a = fabs(pred[k] - meas[k]) / meas[k];
			n[k]++;
			d = a - mean[k];
			mean[k] += d / n[k];
			m2[k] += d * (a - mean[k]);
		}
	}
	r->nreq = (int64_t)n[EV_REQ_E2E];
	for (k = 0; k < EV_REQ__N; k++) {
		r->req_ape_mean[k] = n[k] > 0 ? mean[k] : NAN;
		r->req_ape_var[k] = n[k] > 1 ? m2[k] / (n[k] - 1) : NAN;
	}
}

/* A row of x, zeroed, naming the experiment, its model, GPU, configuration
 * and workload: the label and the figures are the caller's. */
static void row_start(struct eval_row *r, const struct experiment *x)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->experiment, sizeof(r->experiment), "%s", x->name);
	snprintf(r->model, sizeof(r->model), "%s", x->model);
	snprintf(r->gpu, sizeof(r->gpu), "%s", x->gpu);
	experiment_config_text(x, r->config, sizeof(r->config));
	experiment_workload(x, r->workload, sizeof(r->workload));
}

/* The predicted figures as the simulation summed them up in p. */
static void row_pred(struct eval_row *r, const struct metric_set *p)
{
	r->pred[EM_TTFT_MEAN] = p->ttft_ms.mean;
	r->pred[EM_TTFT_P90] = p->ttft_ms.p90;
	r->pred[EM_ITL_MEAN] = p->itl_ms.mean;
	r->pred[EM_E2E_MEAN] = p->e2e_ms.mean;
	r->pred[EM_E2E_P90] = p->e2e_ms.p90;
	r->pred[EM_THROUGHPUT] = p->throughput_rps;
}

/* r's accuracy class, its stage simulated as p (r->overloaded set). */
static void row_class(const struct experiment *x, const struct model_cfg *m, const struct gpu_spec *g,
		      const struct metric_set *p, struct eval_row *r)
{
	acc_class_of(x->engine, x->pd_prefill > 0, m, g, p->running_per_rank, p->queue_share, r->overloaded,
		     &r->cls);
	r->running_per_rank = p->running_per_rank;
	r->queue_share = p->queue_share;
}

/* Per-request experiments: one row per benchmark, measured summaries from
 * the recorded requests, predicted from the replay.  Throughput on both
 * sides = completed / (last completion - first arrival) of the benchmark. */
static int compare_requests(const struct experiment *x, const struct model_cfg *m, const struct gpu_spec *g,
			    struct sim *sim, struct eval_row *rows, size_t cap, size_t *nrows)
{
	double *tt = xmalloc(xmul(x->meas.n ? x->meas.n : 1, sizeof(double)));
	double *ee = xmalloc(xmul(x->meas.n ? x->meas.n : 1, sizeof(double)));
	size_t b;
	int k;

	sim_per_request(sim, tt, ee, x->meas.n);
	for (b = 0; b < x->meas.nb && *nrows < cap; b++) {
		const struct gt_bench *gb = &x->meas.b[b];
		struct eval_row *r = &rows[(*nrows)++];
		struct metric_set p;
		double span = gb->end_s - gb->start_s;
		row_start(r, x);
		if (gb->rate > 0)
			snprintf(r->label, sizeof(r->label), "%s@%.3g", gb->strategy, gb->rate);
		else
			snprintf(r->label, sizeof(r->label), "%s", gb->strategy);
		r->stage = (int)b;
		sim_summary_core(sim, (int)b, &p);
		r->meas[EM_TTFT_MEAN] = gt_stat(&x->meas, (int)b, 0, -1);
		r->meas[EM_TTFT_P90] = gt_stat(&x->meas, (int)b, 0, 0.9);
		r->meas[EM_ITL_MEAN] = gt_stat(&x->meas, (int)b, 2, -1);
		r->meas[EM_E2E_MEAN] = gt_stat(&x->meas, (int)b, 1, -1);
		r->meas[EM_E2E_P90] = gt_stat(&x->meas, (int)b, 1, 0.9);
		r->meas[EM_THROUGHPUT] = span > 0 ? (double)gb->completed / span : NAN;
		row_pred(r, &p);
		for (k = 0; k < EM__COUNT; k++)
			r->ape[k] = isnan(r->meas[k]) || !(r->meas[k] > 0) || p.completed == 0
					    ? NAN
					    : fabs(r->pred[k] - r->meas[k]) / r->meas[k];
		r->overloaded = false; /* replayed arrivals: no unbounded stage */
		row_class(x, m, g, &p, r);
		per_request(x, tt, ee, (int)b, r);
	}
	free(tt);
	free(ee);
	return 0;
}

/* Experiments regenerated from a benchmark's parameters (EXP_CLOSED:
 * aiconfigurator silicon rows, bench serve runs): one row comparing the
 * recorded aggregates with the same statistics over the simulated requests
 * (after the first warmup_requests in issue order).  TPOT per request =
 * (E2E - TTFT)/(output - 1), as vLLM, SGLang and genai-perf compute it. */
static int compare_closed(const struct experiment *x, const struct model_cfg *m, const struct gpu_spec *g,
			  struct sim *sim, const struct metric_set *whole, struct eval_row *rows, size_t cap,
			  size_t *nrows)
{
	struct eval_row *r;
	struct metric_set p;
	int k;

	if (*nrows >= cap)
		return 0;
	r = &rows[(*nrows)++];
	row_start(r, x);
	if (x->wl.process == WL_CONCURRENCY)
		snprintf(r->label, sizeof(r->label), "c%lld", (long long)x->wl.concurrency);
	else
		snprintf(r->label, sizeof(r->label), "%s@%.3g", wl_process_name(x->wl.process), x->wl.rate);
	for (k = 0; k < EM__COUNT; k++) {
		r->meas[k] = x->stages[0].v[k];
		r->pred[k] = NAN;
	}
	/* the whole run's summary: sim's, or as another run of the same
	 * simulation summed it up (eval_experiment_from; no warm-up) */
	if (sim)
		sim_summary_core(sim, -1, &p);
	else
		p = *whole;
	if (x->warmup_requests > 0) {
		/* means over the requests after the warm-up, by request id */
		size_t n = (size_t)x->wl.num_requests, i, cnt = 0;
		double *tt = xmalloc(xmul(n, sizeof(double))), *ee = xmalloc(xmul(n, sizeof(double)));
		double st = 0, se = 0, si = 0, osl = x->wl.output.a;
		sim_per_request(sim, tt, ee, n);
		for (i = (size_t)x->warmup_requests; i < n; i++) {
			if (isnan(tt[i]) || isnan(ee[i]))
				continue;
			st += tt[i];
			se += ee[i];
			si += osl > 1 ? (ee[i] - tt[i]) / (osl - 1) : 0;
			cnt++;
		}
		free(tt);
		free(ee);
		if (cnt) {
			r->pred[EM_TTFT_MEAN] = st / (double)cnt;
			r->pred[EM_ITL_MEAN] = si / (double)cnt;
			r->pred[EM_E2E_MEAN] = se / (double)cnt;
		}
	} else if (p.completed) {
		row_pred(r, &p);
	}
	for (k = 0; k < EM__COUNT; k++)
		r->ape[k] = isnan(r->meas[k]) || !(r->meas[k] > 0) || isnan(r->pred[k])
				    ? NAN
				    : fabs(r->pred[k] - r->meas[k]) / r->meas[k];
	/* every request is eventually served: nothing grows without bound */
	r->overloaded = p.completed == 0;
	row_class(x, m, g, &p, r);
	return 0;
}

/* r->no_pred when r has no prediction (neither a TTFT nor an E2E mean):
 * what the simulation completed of what arrived and why the rest was
 * rejected, so that a '-' in the table says why. */
static void row_no_pred(struct eval_row *r, const struct sim_totals *t, int64_t max_model_len, int64_t warmup)
{
	size_t n = sizeof(r->no_pred), l;

	r->no_pred[0] = '\0';
	if (!isnan(r->pred[EM_TTFT_MEAN]) || !isnan(r->pred[EM_E2E_MEAN]))
		return;
	snprintf(r->no_pred, n, "the simulation completed %llu of %llu requests",
		 (unsigned long long)t->completed, (unsigned long long)t->arrived);
	l = strlen(r->no_pred);
	if (t->completed > 0 && warmup > 0)
		snprintf(r->no_pred + l, n - l, ", none after the %lld warm-up requests", (long long)warmup);
	else if (t->completed > 0)
		snprintf(r->no_pred + l, n - l, ", none in this stage");
	l = strlen(r->no_pred);
	if (t->rejected[REJ_TOO_LONG])
		snprintf(r->no_pred + l, n - l, "; %llu rejected as longer than max_model_len %lld",
			 (unsigned long long)t->rejected[REJ_TOO_LONG], (long long)max_model_len);
	l = strlen(r->no_pred);
	if (t->rejected[REJ_KV_CAPACITY])
		snprintf(r->no_pred + l, n - l, "; %llu rejected as needing more KV than the cache holds",
			 (unsigned long long)t->rejected[REJ_KV_CAPACITY]);
}

/* The engine host row whose fitted terms priced sc (eval_row.host_row; the
 * first of the rows sharing its fit, engine_host_fit): -1 when it has none
 * or the given terms replace all it fitted. */
static void rows_fit_group(const struct scenario *sc, struct eval_row *rows, size_t n)
{
	const struct engine_host *h =
		sc->engine ? engine_host_for(sc->engine, sc->engine_version, sc->pd_prefill > 0, sc->spec.k > 0,
					     sc->workload ? sc->workload->harness : NULL)
			   : NULL;
	int row = h && (h->fit & ~sc->ov.given) ? (int)(engine_host_fit(sc->engine, h) - sc->engine->host) : -1;
	size_t i;

	for (i = 0; i < n; i++) {
		rows[i].host_engine = row >= 0 ? sc->engine->name : NULL;
		rows[i].host_row = row;
	}
}

/* Whether x's rows read of its simulation only what eval_outcome holds. */
static bool outcome_enough(const struct experiment *x)
{
	return x->kind == EXP_CLOSED && x->warmup_requests <= 0;
}

int eval_experiment_keep(const struct experiment *x, const struct model_cfg *m, const struct gpu_spec *g,
			 const struct eval_opts *o, const char *data_dir, struct eval_row *rows, size_t cap,
			 size_t *nrows, struct err *e, struct eval_outcome *oc, bool *kept)
{
	struct scenario sc;
	struct scenario_state st;
	size_t i, first = *nrows;
	int rc, k;

	*kept = false;
	experiment_scenario(x, m, g, o, &sc);
	if ((rc = scenario_prepare(&sc, data_dir, &st, e)) < 0) {
		err_prefix(e, "%s", x->name);
		return rc;
	}
	if ((rc = sim_run(st.sim, e)) < 0) {
		scenario_release(&st);
		return rc;
	}
	if (x->kind == EXP_REQUESTS || x->kind == EXP_CLOSED) {
		struct metric_set whole;
		/* (summed up once: what eval_experiment_from's rows read) */
		if (outcome_enough(x))
			sim_summary_core(st.sim, -1, &whole);
		rc = x->kind == EXP_CLOSED ? compare_closed(x, m, g, outcome_enough(x) ? NULL : st.sim, &whole,
							    rows, cap, nrows)
					   : compare_requests(x, m, g, st.sim, rows, cap, nrows);
		rows_fit_group(&sc, rows + first, *nrows - first);
		for (i = first; i < *nrows; i++)
			row_no_pred(&rows[i], sim_totals(st.sim), st.sc.max_model_len, x->warmup_requests);
		if (rc == 0 && oc && outcome_enough(x)) {
			oc->p = whole;
			oc->t = *sim_totals(st.sim);
			oc->max_model_len = st.sc.max_model_len;
			*kept = true;
		}
		scenario_release(&st);
		return rc;
	}
	for (i = 0; i < x->nstages; i++) {
		const struct measured_stage *ms = &x->stages[i];
		struct eval_row *r;
		struct metric_set p;
		if (*nrows >= cap)
			break;
		r = &rows[(*nrows)++];
		row_start(r, x);
		for (k = 0; k < EV_REQ__N; k++)
			r->req_ape_mean[k] = r->req_ape_var[k] = NAN;
		r->stage = ms->index;
		sim_summary_core(st.sim, ms->index, &p);
		row_pred(r, &p);
		/* a trace replay's throughput is the benchmark's: completed over
		 * first arrival to last completion (aiperf's "Request
		 * Throughput"), the simulated one likewise */
		r->pred[EM_THROUGHPUT] = x->trace_file[0] ? p.throughput_rps : (double)p.completed / ms->duration_s;
		for (k = 0; k < EM__COUNT; k++) {
			r->meas[k] = ms->v[k];
			r->ape[k] = isnan(r->meas[k]) || !(r->meas[k] > 0) || p.completed == 0
					    ? NAN
					    : fabs(r->pred[k] - r->meas[k]) / r->meas[k];
		}
		r->overloaded = overloaded((double)ms->completed, ms->rate, ms->duration_s,
					   ms->v[EM_TTFT_MEAN]) ||
				overloaded((double)p.completed, ms->rate, ms->duration_s, p.ttft_ms.mean);
		row_class(x, m, g, &p, r);
	}
	rows_fit_group(&sc, rows + first, *nrows - first);
	for (i = first; i < *nrows; i++)
		row_no_pred(&rows[i], sim_totals(st.sim), st.sc.max_model_len, 0);
	scenario_release(&st);
	return 0;
}

int eval_experiment(const struct experiment *x, const struct model_cfg *m,
		    const struct gpu_spec *g, const struct eval_opts *o, const char *data_dir,
		    struct eval_row *rows, size_t cap, size_t *nrows, struct err *e)
{
	bool kept;

	return eval_experiment_keep(x, m, g, o, data_dir, rows, cap, nrows, e, NULL, &kept);
}

void eval_experiment_from(const struct experiment *x, const struct model_cfg *m, const struct gpu_spec *g,
			  const struct eval_opts *o, const struct eval_outcome *oc, struct eval_row *rows,
			  size_t cap, size_t *nrows)
{
	struct scenario sc;
	size_t i, first = *nrows;

	/* (the scenario for the host row its terms came from: no tables) */
	experiment_scenario(x, m, g, o, &sc);
	(void)compare_closed(x, m, g, NULL, &oc->p, rows, cap, nrows);
	rows_fit_group(&sc, rows + first, *nrows - first);
	for (i = first; i < *nrows; i++)
		row_no_pred(&rows[i], &oc->t, oc->max_model_len, x->warmup_requests);
}

/* The most rows eval_experiment can append for x. */
size_t eval_rows_bound(const struct experiment *x)
{
	switch (x->kind) {
	case EXP_REQUESTS: return x->meas.nb;
	case EXP_CLOSED: return 1;
	case EXP_STAGES: break;
	}
	return x->nstages;
}

/* A job and its weight (job_weight), sorted heaviest first. */
struct job_order {
	double w;
	size_t i;
};

struct job_ctx {
	struct eval_job *jobs;
	const char *data_dir;
	const struct job_order *order; /* pfor's index i runs job order[i].i (NULL: job i) */
};

static void job_run(void *arg, size_t i)
{
	const struct job_ctx *q = arg;
	struct eval_job *j = &q->jobs[q->order ? q->order[i].i : i];
	size_t cap = eval_rows_bound(j->x);

	/* (a job taking an earlier job's outcome waits for it: eval_run_jobs) */
	if (j->from != 0 && j->from != EVAL_FROM_OC)
		return;
	j->rows = xcalloc(cap ? cap : 1, sizeof(*j->rows));
	j->nrows = 0;
	err_clear(&j->e);
	j->kept = false;
	if (j->from == EVAL_FROM_OC) {
		j->rc = 0;
		eval_experiment_from(j->x, j->m, j->g, &j->o, &j->oc, j->rows, cap, &j->nrows);
		return;
	}
	j->rc = eval_experiment_keep(j->x, j->m, j->g, &j->o, q->data_dir, j->rows, cap, &j->nrows, &j->e,
				     j->keep ? &j->oc : NULL, &j->kept);
}

/* A job's expected simulation work, to order the jobs by: its requests
 * (an experiment that counts none: first), each weighing 1 + its mean
 * output tokens / 64 (its admission and completion, then its share of
 * the decode steps it is in).  A rough guess (the silicon P/D rows'
 * 8192-token outputs cost ~3x a request of their 1024-token ones, the
 * weight says ~8x) that only orders the jobs: a wrong one costs idle
 * threads, never a different result. */
static double job_weight(const struct eval_job *j)
{
	const struct wl_spec *w = &j->x->wl;
	double out = wl_dist_mean(&w->output);

	if (j->from != 0) /* (an earlier job's outcome: no simulation of its own here) */
		return 0;
	if (w->num_requests <= 0)
		return HUGE_VAL;
	return (double)w->num_requests * (1 + (out > 0 ? out : 0) / 64);
}

static int job_order_cmp(const void *a, const void *b)
{
	const struct job_order *x = a, *y = b;

	if (x->w != y->w)
		return x->w > y->w ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

void eval_run_jobs(struct eval_job *jobs, size_t n, int threads, const char *data_dir)
{
	struct job_ctx q = { jobs, data_dir, NULL };
	struct job_order *order = NULL;
	size_t i;

	/* the heaviest first, so that a thread that runs out of jobs waits
	 * only for light ones (longest processing time first): a chunk of
	 * the silicon table holds rows of 10 ms and of 0.8 s */
	if (threads > 1 && n > 1) {
		order = xmalloc(xmul(n, sizeof(*order)));
		for (i = 0; i < n; i++) {
			order[i].w = job_weight(&jobs[i]);
			order[i].i = i;
		}
		qsort(order, n, sizeof(*order), job_order_cmp);
		q.order = order;
	}
	pfor_run(n, threads, job_run, &q);
	free(order);
	q.order = NULL; /* (the jobs below by their own index) */
	/* the jobs whose simulation an earlier one ran: its outcome, or their
	 * own run where it kept none (its run failed: theirs says why in
	 * their own words) */
	for (i = 0; i < n; i++) {
		struct eval_job *j = &jobs[i];
		const struct eval_job *lead;
		if (j->from == 0 || j->from == EVAL_FROM_OC)
			continue;
		lead = &jobs[j->from - 1];
		j->from = lead->kept ? EVAL_FROM_OC : 0;
		if (lead->kept)
			j->oc = lead->oc;
		job_run(&q, i);
	}
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

double eval_median(double *v, size_t n)
{
	if (n == 0)
		return NAN;
	qsort(v, n, sizeof(double), cmp_d);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void eval_ape_stats(const struct eval_row *rows, size_t n, enum ev_metric k, bool over,
		    const char *model, const char *workload, double *median, double *mean,
		    size_t *count)
{
	double *v = xmalloc(xmul(n ? n : 1, sizeof(double))), s = 0;
	size_t i, c = 0;

	for (i = 0; i < n; i++) {
		if (rows[i].overloaded != over || isnan(rows[i].ape[k]))
			continue;
		if (model && strcmp(model, rows[i].model) != 0)
			continue;
		if (workload && strcmp(workload, rows[i].workload) != 0)
			continue;
		v[c++] = rows[i].ape[k];
		s += rows[i].ape[k];
	}
	*count = c;
	*mean = c ? s / (double)c : NAN;
	*median = eval_median(v, c);
	free(v);
}

void experiment_config_text(const struct experiment *x, char *buf, size_t n)
{
	char lay[96];

	if (x->pd_prefill)
		snprintf(lay, sizeof(lay), "%dp%dd prefill tp %d ep %d, decode tp %d ep %d", x->pd_prefill,
			 x->pd_decode, x->prefill_tp, x->prefill_ep, x->tp, x->ep);
	else
		snprintf(lay, sizeof(lay), "tp %d pp %d dp %d ep %d", x->tp, x->pp, x->dp, x->ep);
	if (x->k.replicas > 1) {
		size_t l = strlen(lay);
		snprintf(lay + l, sizeof(lay) - l, " x%d replicas %s", (int)x->k.replicas,
			 router_name(router_kind_of(x->k.router, ROUTER_ROUND_ROBIN)));
	}
	char mbt[24] = "engine default", mns[24] = "engine default";

	if (x->k.max_num_batched_tokens > 0)
		snprintf(mbt, sizeof(mbt), "%lld", (long long)x->k.max_num_batched_tokens);
	if (x->k.max_num_seqs > 0)
		snprintf(mns, sizeof(mns), "%lld", (long long)x->k.max_num_seqs);
	char mtp[24] = "";

	if (x->spec_tokens > 0)
		snprintf(mtp, sizeof(mtp), ", mtp %d", x->spec_tokens);
	snprintf(buf, n, "%s %s, %s, %s%s%s, mnbt %s, mns %s%s", x->engine[0] ? x->engine : "vllm",
		 x->engine_version[0] ? x->engine_version : "-", lay, dtype_name(x->dtype),
		 x->kv_dtype_given ? " / KV " : "", x->kv_dtype_given ? dtype_name(x->kv_dtype) : "", mbt, mns, mtp);
}
