/* test_engine.c - the engine registry (lookup, lists, the settings only some
 * engines take) and an engine added from this one file: a toy engine with
 * its own defaults, start-up rule, KV dtype rule, kernel terms and
 * scheduler (static batching over sim/core.h's mechanics) runs a small
 * simulation through the same path every engine takes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "engine/engine.h"
#include "engine/registry.h"
#include "cost/cost.h"
#include "hw/gpu.h"
#include "model/model.h"
#include "base/paths.h"
#include "engine/scenario.h"
#include "workload/workload.h"
#include "sim/core.h"

static struct model_registry reg;
static struct gpu_db db;
static char datadir[1024];

static void test_registry(void)
{
	const struct engine_type *en;
	char names[128];
	struct err e;
	size_t i;

	CHECK(engine_find(NULL) == engine_default() && engine_find("") == engine_default(),
	      "no name: the default engine");
	CHECK(strcmp(engine_default()->name, "vllm") == 0, "the default engine is vLLM");
	for (i = 0; (en = engine_at(i)) != NULL; i++)
		CHECK(engine_find(en->name) == en && en->cost && en->kv_auto && en->title,
		      "%s: found by name, with kernel terms, a KV rule and a title", en->name);
	CHECK(i == 3, "three engines registered (%zu)", i);
	CHECK(engine_lookup("tgi", &en, &e) < 0 && e.code == SS_EUSAGE &&
		      strcmp(e.msg, "unknown engine 'tgi' (expected vllm, sglang or trtllm)") == 0,
	      "an unknown engine is refused with the list: %s", e.msg);
	engine_names(names, sizeof(names), "and", true);
	CHECK(strcmp(names, "vllm and sglang") == 0, "engines with launch lines: %s", names);
	CHECK(engine_owner(ENGINE_KNOB_MEM_FRACTION) == engine_find("sglang"), "SGLang takes --mem-fraction-static");
	CHECK(engine_check_knobs(engine_find("vllm"), ENGINE_KNOB_SCHEDULE_POLICY, false, &e) < 0 &&
		      strcmp(e.msg, "--mem-fraction-static, --schedule-policy and --disable-overlap-schedule are "
				    "SGLang's: give --engine sglang") == 0,
	      "an SGLang flag on vLLM is refused: %s", e.msg);
	CHECK(engine_check_knobs(engine_find("sglang"), 0, true, &e) < 0 &&
		      strstr(e.msg, "sizes its memory with --mem-fraction-static") != NULL,
	      "--gpu-memory-utilization on SGLang is refused: %s", e.msg);
	CHECK(engine_check_knobs(engine_find("sglang"), ENGINE_KNOB_MEM_FRACTION | ENGINE_KNOB_NO_OVERLAP, false,
				 &e) == 0,
	      "SGLang takes its own flags");
}

/* --- a toy engine, from this file alone --- */

static void toy_defaults(struct scenario *sc)
{
	sc->max_num_batched_tokens = 1024; /* its own limits */
	sc->max_num_seqs = 32;
	sc->block_size = 32;
}

static enum dtype toy_kv_auto(const struct model_cfg *m, const struct gpu_spec *g, enum dtype wdt, char *why,
			      size_t n)
{
	(void)m;
	(void)g;
	(void)wdt;
	snprintf(why, n, "the toy engine's fp8 cache");
	return DT_FP8;
}

static bool toy_ep_refused(const struct scenario *sc, char *msg, size_t n)
{
	if (sc->par.ep == 1)
		return false;
	snprintf(msg, n, "the toy engine runs no expert parallelism (ep %d)", sc->par.ep);
	return true;
}

/* Static batching: every running request gets its next chunk or token;
 * waiting requests are admitted only once the whole batch has drained, each
 * with the KV of its whole lifetime reserved, so that no block is ever
 * missing (nothing is preempted). */
static void toy_schedule(struct sim *s, struct replica *rp)
{
	int64_t budget = rp->mbt;
	struct req *r;

	for (r = rp->run_head; r && budget > 0; r = r->next) {
		int64_t n = chunk_of(s, r, budget);
		if (!sched_grow_blocks(s, rp, r, blocks_for(s, r->computed + n) - r->nblocks))
			break;
		sched_push(rp, r, n);
		budget -= n;
	}
	if (rp->nrun == 0)
		sched_admit(s, rp, budget, INT64_MAX, NULL);
}

static enum admit_verdict toy_admit(struct sim *s, struct replica *rp, struct req *r, const struct admit_try *t,
				    int32_t *grow)
{
	r->ne_blocks = blocks_for(s, r->prompt + r->output);
	if (rp->ne_reserved + r->ne_blocks > rp->kv.total)
		return ADMIT_FULL;
	*grow = blocks_for(s, r->computed + t->n) - t->hits;
	return ADMIT_GO;
}

/* every request walked at every step: no lazy decoders */
static bool toy_lazy(const struct sim_cfg *cfg)
{
	(void)cfg;
	return false;
}

static const struct sched_policy toy_policy = {
	.schedule = toy_schedule,
	.admit = toy_admit,
	.lazy = toy_lazy,
};

static void toy_words(const struct sim_cfg *c, bool overlap, char *out, size_t n)
{
	(void)overlap;
	snprintf(out, n, "static batches of up to %lld requests", (long long)c->max_num_seqs);
}

/* vLLM's kernel tables, one eager launch floor of its own */
static const struct cost_engine toy_cost = {
	.name = "toy",
	.fallback = "vllm",
	.lin = {13.57e-6, 2.398e-6, 5.154e-12, 1.054e-14, 19.35, 6.38e-6, 0.8298},
};

static const struct engine_host toy_host[] = {
	{"", NULL, {.layer_us = 5.0, .api_ttft_ms = 9.0, .delivery_steps = 1.0, .eager_op_us = 20.0}, false, "toy"},
};

static const struct engine_type toy_engine = {
	.name = "toy",
	.title = "Toy",
	.defaults = toy_defaults,
	.kv_auto = toy_kv_auto,
	.ep_refused = toy_ep_refused,
	.pd_handoff_s = 1e-3,
	.cost = &toy_cost,
	.host = toy_host,
	.nhost = 1,
	.policy = &toy_policy,
	.sched_words = toy_words,
};

static void test_toy_engine(void)
{
	const struct gpu_spec *g;
	struct model_cfg *m = calloc(1, sizeof(*m));
	struct scenario sc;
	struct scenario_state st;
	struct wl_spec wl;
	struct err e;
	char notes[1024] = "", why[128];

	if (registry_load_model(&reg, "llama-3.1-8b", m, &e) < 0 || gpu_find(&db, "h100", &g, &e) < 0) {
		CHECK(0, "toy: load: %s", e.msg);
		free(m);
		return;
	}
	memset(&wl, 0, sizeof(wl));
	snprintf(wl.source, sizeof(wl.source), "test");
	wl.seed = 3;
	wl.process = WL_CONSTANT;
	wl.rate = 1000;
	wl.num_requests = 60;
	wl.prompt = (struct wl_dist){.kind = WL_FIXED, .a = 700, .min = 700, .max = 700};
	wl.output = (struct wl_dist){.kind = WL_FIXED, .a = 40, .min = 40, .max = 40};
	scenario_defaults(&sc, &toy_engine, m, g, &wl);
	CHECK(sc.engine == &toy_engine && sc.max_num_batched_tokens == 1024 && sc.block_size == 32,
	      "toy: its defaults over the common ones");
	CHECK(scenario_kv_auto(m, g, &toy_engine, DT_BF16, why, sizeof(why)) == DT_FP8 &&
		      strcmp(why, "the toy engine's fp8 cache") == 0,
	      "toy: its KV dtype rule");
	sc.par.ep = 2;
	CHECK(scenario_check_config(&sc, true, notes, sizeof(notes), &e) == 0 &&
		      strstr(notes, "the toy engine runs no expert parallelism (ep 2)") != NULL,
	      "toy: its start-up rule in its words: %s", notes);
	sc.par.ep = 1;
	if (scenario_prepare(&sc, datadir, &st, &e) < 0) {
		CHECK(0, "toy: prepare: %s", e.msg);
		free(m);
		return;
	}
	CHECK(st.cost.cfg.engine == &toy_cost && st.cost.eager_s > 0 && st.sc.policy == &toy_policy,
	      "toy: its kernel terms and its scheduler reach the cost model and the simulation");
	CHECK(strcmp(st.cost.tabs->engine, "vllm") == 0, "toy: vLLM's kernel tables lent (%s)", st.cost.tabs->engine);
	CHECK(sim_run(st.sim, &e) == 0 && sim_totals(st.sim)->completed == 60,
	      "toy: the simulation runs every request to completion");
	{
		/* request 0 runs alone (the others arrive 1 ms apart, after its
		 * batch started); the next 32 wait for it to finish */
		double ttft[60], e2e[60];
		struct metric_set ms;
		sim_summary(st.sim, -1, &ms);
		sim_per_request(st.sim, ttft, e2e, 60);
		CHECK(ms.completed == 60 && isfinite(ms.itl_ms.mean), "toy: TTFT mean %.1f ms, ITL %.2f ms",
		      ms.ttft_ms.mean, ms.itl_ms.mean);
		CHECK(ttft[1] + 1.0 > e2e[0] && ttft[32] + 32.0 > e2e[0] && ttft[33] + 33.0 > e2e[1] + 1.0,
		      "toy: static batches: request 1 starts after request 0 ends (TTFT %.1f ms, request 0's E2E %.1f ms), "
		      "request 33 after request 1's batch", ttft[1], e2e[0]);
	}
	scenario_release(&st);
	free(m);
}

int main(void)
{
	char dir[1200], path[1200];
	struct err e;

	paths_data_dir(datadir, sizeof(datadir));
	snprintf(dir, sizeof(dir), "%s/models", datadir);
	snprintf(path, sizeof(path), "%s/gpus.json", datadir);
	if (registry_load(&reg, dir, &e) < 0 || gpu_db_load(&db, path, &e) < 0) {
		printf("# %s\n", e.msg);
		return 1;
	}
	test_registry();
	test_toy_engine();
	registry_release(&reg);
	gpu_db_release(&db);
	return check_done();
}
