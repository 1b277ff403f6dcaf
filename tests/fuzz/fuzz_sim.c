/* fuzz_sim.c - libFuzzer harness for the simulator itself (issue 30): the
 * input's bytes choose a deployment and a workload (model, GPU, engine,
 * TP/PP/DP/EP, P/D, MTP, engine limits, KV blocks down to a storm,
 * prefix sharing, arrival process, lengths), which go through the same
 * start-up checks as `servesim run` (a refusal ends the input) and are then
 * simulated with the simulator's invariants checked after every event.  An
 * invariant broken, a runtime error, a request not accounted for (arrived
 * != completed + rejected), a negative, NaN or infinite figure where the
 * run has one, or a rerun that differs aborts: libFuzzer reports it.
 *
 * Speed (10 M inputs is the campaign's target): the data (models, GPUs,
 * kernel tables) is read once; a deployment's start-up (its cost model and
 * memory plan, scenario_prepare) is kept for later inputs that choose the
 * same deployment, as `capacity` keeps one across its probes (FUZZ_KEEP of
 * them, oldest replaced); the workload is bounded (up to 16 requests of
 * short prompts and outputs, engine limits of at most 2,048 tokens and 64
 * sequences), so that an input runs in about a millisecond under ASan. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/paths.h"
#include "engine/registry.h"
#include "engine/scenario.h"
#include "hw/gpu.h"
#include "hw/mfucache.h"
#include "model/model.h"
#include "base/alloc.h"
#include "plan/sweep.h"
#include "sim/spec.h"
#include "workload/workload.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct model_registry reg;
static struct gpu_db db;
static struct model_cfg models[6];
static const char *const model_ids[6] = {"llama-3.1-8b", "qwen3-8b",     "qwen3-30b-a3b",
					 "mixtral-8x7b", "gpt-oss-20b", "deepseek-v2-lite"};
static const char *const gpu_ids[4] = {"h100", "h200", "b200", "a100"};
static const char *const engine_ids[3] = {"vllm", "sglang", "trtllm"};
static struct mfu_cache *cache;
static char datadir[1024];
static bool ready;
static struct wl_spec prep_wl; /* the start-ups' workload (start) */

static void setup(void)
{
	char dir[1200], path[1200];
	struct err e;
	size_t i;

	paths_data_dir(datadir, sizeof(datadir));
	snprintf(dir, sizeof(dir), "%s/models", datadir);
	snprintf(path, sizeof(path), "%s/gpus.json", datadir);
	if (registry_load(&reg, dir, &e) < 0 || gpu_db_load(&db, path, &e) < 0) {
		fprintf(stderr, "fuzz_sim: %s\n", e.msg);
		abort();
	}
	for (i = 0; i < 6; i++)
		if (registry_load_model(&reg, model_ids[i], &models[i], &e) < 0) {
			fprintf(stderr, "fuzz_sim: %s\n", e.msg);
			abort();
		}
	cache = mfu_cache_new();
	wl_spec_defaults(&prep_wl);
	prep_wl.num_requests = 1;
	prep_wl.rate = 1;
	snprintf(prep_wl.source, sizeof(prep_wl.source), "fuzz");
	ready = true;
}

/* The input as a stream of choices; 0 once it runs out. */
struct bytes {
	const uint8_t *p;
	size_t n;
};

static unsigned take(struct bytes *b, unsigned bound)
{
	unsigned v;

	if (b->n == 0 || bound == 0)
		return 0;
	v = b->p[0];
	b->p++, b->n--;
	return v % bound;
}

static void dist(struct bytes *b, struct wl_dist *d, int64_t max)
{
	static const enum wl_dist_kind kinds[4] = {WL_FIXED, WL_UNIFORM, WL_NORMAL, WL_LOGNORMAL};
	d->kind = kinds[take(b, 4)];
	d->a = 1 + take(b, 64) * (1 + take(b, 4));
	d->b = d->kind == WL_UNIFORM ? d->a + take(b, 64) : take(b, 64);
	d->min = 1;
	d->max = max;
}

/* A deployment as the input chose it: every choice scenario_prepare's
 * result depends on, so that equal keys give equal start-ups.  Each is one
 * of a few values (the parallel layout, the engine limits and the KV pool
 * one byte each), so that the inputs libFuzzer makes from one another
 * mostly find their deployment kept. */
struct key {
	uint8_t model, gpu, engine, layout, ep, limits, kv, caching, pd, spec, mixed;
};

/* A deployment's start-up: refused (rc < 0, at which check), or ready. */
struct kept {
	struct key k;
	struct scenario sc;
	struct scenario_state st;
	bool prepared;
	int rc;
};

#define FUZZ_KEEP 64
static struct kept *keep[FUZZ_KEEP];
static size_t nkeep, next_out;

/* tp, pp, dp; within one node */
static const int layouts[8][3] = {{1, 1, 1}, {2, 1, 1}, {4, 1, 1}, {8, 1, 1},
				  {1, 2, 1}, {2, 2, 2}, {1, 1, 4}, {2, 1, 4}};
/* max_num_seqs, max_num_batched_tokens: the per-token-count tables are
 * sized by them */
static const int limits[6][2] = {{64, 2048}, {16, 512}, {4, 256}, {1, 16}, {64, 64}, {8, 2048}};
/* KV blocks given, down to a preemption storm (the memory plan's own count
 * reaches tens of millions of one-token pages: its own tests) */
static const int64_t kv_blocks[6] = {2, 9, 40, 300, 3000, 60000};

static void choose(struct bytes *b, struct key *k)
{
	memset(k, 0, sizeof(*k));
	k->model = (uint8_t)take(b, 6);
	k->gpu = (uint8_t)take(b, 4);
	k->engine = (uint8_t)take(b, 3);
	k->layout = (uint8_t)take(b, 8);
	k->ep = (uint8_t)take(b, 2);
	k->limits = (uint8_t)take(b, 6);
	k->kv = (uint8_t)take(b, 6);
	k->caching = (uint8_t)take(b, 4) != 0;
	k->pd = (uint8_t)take(b, 6);
	k->spec = (uint8_t)take(b, 8);
	k->mixed = (uint8_t)take(b, 2); /* SGLang's --enable-mixed-chunk */
}

/* Build and start k's deployment into x (the checks `servesim run` makes,
 * then scenario_prepare); x->rc < 0 when refused. */
static void start(const struct key *k, struct kept *x)
{
	struct scenario *sc = &x->sc;
	const struct model_cfg *m = &models[k->model];
	const struct gpu_spec *g;
	char notes[2048] = "";
	struct err e;

	x->k = *k;
	if (gpu_find(&db, gpu_ids[k->gpu], &g, &e) < 0)
		abort();
	/* the start-up's own workload (scenario_prepare's simulation, freed
	 * below): each input then simulates its own */
	scenario_defaults(sc, engine_find(engine_ids[k->engine]), m, g, &prep_wl);
	sc->par.tp = layouts[k->layout][0];
	sc->par.pp = layouts[k->layout][1];
	sc->par.dp = layouts[k->layout][2];
	if (m->n_experts > 0 && k->ep)
		sc->par.ep = sc->par.tp * sc->par.dp;
	sc->k.max_num_seqs = limits[k->limits][0];
	sc->k.max_num_batched_tokens = limits[k->limits][1];
	sc->k.total_kv_blocks = kv_blocks[k->kv];
	sc->k.prefix_caching = k->caching;
	sc->k.sglang_mixed_chunk = k->mixed != 0 && strcmp(engine_ids[k->engine], "sglang") == 0;
	if (k->pd < 2) { /* P/D: 1 or 2 prefill workers, one decode */
		sc->pd_prefill = 1 + k->pd;
		sc->pd_decode = 1;
		sc->prefill_par = sc->par;
	}
	sc->check_invariants = true;
	sc->mfu_cache = cache;
	if ((x->rc = scenario_check_config(sc, false, notes, sizeof(notes), &e)) < 0)
		return;
	if (k->spec < 2) { /* MTP-style drafts at measured acceptance */
		sc->spec.k = 1 + k->spec;
		sc->spec.method = SPEC_EAGLE;
		if ((x->rc = spec_default_rates(&sc->spec, false)) < 0 ||
		    (x->rc = scenario_check_spec(sc, false, notes, sizeof(notes), &e)) < 0)
			return;
	}
	if ((x->rc = scenario_prepare(sc, datadir, &x->st, &e)) < 0)
		return; /* does not fit: refused, as run refuses it */
	x->prepared = true;
	/* every input makes its own simulation (sweep_simulate) */
	sim_free(x->st.sim);
	x->st.sim = NULL;
	x->rc = scenario_check_capacity(sc, &x->st, false, notes, sizeof(notes), &e);
}

static const struct kept *find(const struct key *k)
{
	struct kept *x;
	size_t i;

	for (i = 0; i < nkeep; i++)
		if (memcmp(&keep[i]->k, k, sizeof(*k)) == 0)
			return keep[i];
	if (nkeep < FUZZ_KEEP) {
		x = keep[nkeep++] = xcalloc(1, sizeof(*x));
	} else {
		x = keep[next_out];
		next_out = (next_out + 1) % FUZZ_KEEP;
		if (x->prepared)
			scenario_release(&x->st);
		memset(x, 0, sizeof(*x));
	}
	start(k, x);
	return x;
}

/* A figure of the run that must be a number >= 0 (NaN allowed where the
 * run has none of it: no completions, no second token). */
static void figure(const char *what, double v, bool nan_ok)
{
	if ((isnan(v) && nan_ok) || (v >= 0 && isfinite(v)))
		return;
	fprintf(stderr, "fuzz_sim: %s is %g\n", what, v);
	abort();
}

static void dist_figures(const char *what, const struct dist_summary *d)
{
	const double v[7] = {d->mean, d->p50, d->p90, d->p95, d->p99, d->max, d->std};
	size_t i;

	for (i = 0; i < 7; i++)
		figure(what, v[i], d->n == 0);
	/* (interpolated between order statistics: within rounding) */
	if (d->n > 0 && !(d->p50 <= d->p90 * (1 + 1e-9) && d->p90 <= d->p99 * (1 + 1e-9) &&
			  d->p99 <= d->max * (1 + 1e-9))) {
		fprintf(stderr, "fuzz_sim: %s percentiles out of order\n", what);
		abort();
	}
}

static void check(const struct sweep_result *r)
{
	const struct metric_set *m = &r->m;

	if (r->arrived != r->completed + r->rejected || m->completed != r->completed) {
		fprintf(stderr, "fuzz_sim: requests not accounted for (arrived %llu, completed %llu/%zu, rejected %llu)\n",
			(unsigned long long)r->arrived, (unsigned long long)r->completed, m->completed,
			(unsigned long long)r->rejected);
		abort();
	}
	dist_figures("ttft_ms", &m->ttft_ms);
	dist_figures("itl_ms", &m->itl_ms);
	dist_figures("tpot_ms", &m->tpot_ms);
	dist_figures("e2e_ms", &m->e2e_ms);
	dist_figures("queue_ms", &m->queue_ms);
	figure("duration_s", r->duration_s, false);
	figure("throughput_rps", m->throughput_rps, r->completed == 0);
	figure("output_tok_s", m->output_tok_s, r->completed == 0);
	figure("input_tokens", m->input_tokens, false);
	figure("output_tokens", m->output_tokens, false);
	figure("running_per_rank", m->running_per_rank, true);
	figure("queue_share", m->queue_share, true);
	if (r->completed > 0 && m->ttft_ms.max > m->e2e_ms.max) {
		fprintf(stderr, "fuzz_sim: TTFT %g ms past E2E %g ms\n", m->ttft_ms.max, m->e2e_ms.max);
		abort();
	}
}

/* The figures a rerun must give bit for bit. */
static bool same(const struct sweep_result *a, const struct sweep_result *b)
{
	const double x[8] = {a->duration_s, a->m.ttft_ms.mean, a->m.ttft_ms.p99, a->m.e2e_ms.mean,
			     a->m.e2e_ms.max,  a->m.itl_ms.mean,  a->m.queue_ms.p90, a->m.output_tokens};
	const double y[8] = {b->duration_s, b->m.ttft_ms.mean, b->m.ttft_ms.p99, b->m.e2e_ms.mean,
			     b->m.e2e_ms.max,  b->m.itl_ms.mean,  b->m.queue_ms.p90, b->m.output_tokens};

	return a->arrived == b->arrived && a->completed == b->completed && a->rejected == b->rejected &&
	       a->preemptions == b->preemptions && memcmp(x, y, sizeof(x)) == 0 &&
	       strcmp(a->status, b->status) == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bytes b = {data, size};
	struct key k;
	const struct kept *x;
	struct wl_spec w;
	struct sweep_result r, r2;
	struct err e;
	bool again;

	if (!ready)
		setup();
	choose(&b, &k);
	wl_spec_defaults(&w);
	w.seed = take(&b, 256);
	w.num_requests = 1 + take(&b, 16);
	switch (take(&b, 4)) {
	case 0:
		w.process = WL_CONCURRENCY;
		w.concurrency = 1 + take(&b, 16);
		break;
	case 1:
		w.process = WL_CONSTANT;
		w.rate = 1 + take(&b, 100);
		break;
	case 2:
		w.process = WL_GAMMA;
		w.rate = 1 + take(&b, 100);
		w.cv = 0.5 + take(&b, 8);
		break;
	default:
		w.process = WL_POISSON;
		w.rate = 1 + take(&b, 200);
		break;
	}
	dist(&b, &w.prompt, 1024);
	dist(&b, &w.output, 128);
	if (take(&b, 4) == 0) { /* inference-perf's shared prefixes */
		w.sp_groups = 1 + take(&b, 4);
		w.sp_prompts = 1 + take(&b, 8);
		w.sp_system = 16 + take(&b, 64) * 4;
		w.sp_question = 1 + take(&b, 128);
		w.sp_output = 1 + take(&b, 64);
	}
	/* a rerun (determinism) for one input in four */
	again = take(&b, 4) == 0;
	snprintf(w.source, sizeof(w.source), "fuzz");
	if (wl_spec_validate(&w, "fuzz", &e) < 0)
		return 0;
	if ((x = find(&k))->rc < 0)
		return 0;
	if (sweep_simulate(&x->st, &w, &r, &e) < 0) {
		fprintf(stderr, "fuzz_sim: %s\n", e.msg);
		abort();
	}
	check(&r);
	if (again && (sweep_simulate(&x->st, &w, &r2, &e) < 0 || !same(&r, &r2))) {
		fprintf(stderr, "fuzz_sim: a rerun differs\n");
		abort();
	}
	return 0;
}
