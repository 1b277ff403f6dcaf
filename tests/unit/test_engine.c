/* test_engine.c - the engine registry (lookup, lists, the settings only some
 * engines take) and an engine added from this one file: a toy engine with
 * its own defaults, start-up rule, KV dtype rule and kernel terms runs a
 * small simulation through the same path every engine takes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "engine/engine.h"
#include "engine/registry.h"
#include "servesim/cost.h"
#include "servesim/gpu.h"
#include "servesim/model.h"
#include "servesim/paths.h"
#include "servesim/scenario.h"
#include "servesim/workload.h"

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

/* vLLM's kernel tables, one eager launch floor of its own */
static const struct cost_engine toy_cost = {
	.name = "toy",
	.fallback = "vllm",
	.lin = {13.57e-6, 2.398e-6, 5.154e-12, 1.054e-14, 19.35, 6.38e-6, 0.8298},
	.eager_op_s = 20e-6,
};

static const struct engine_type toy_engine = {
	.name = "toy",
	.title = "Toy",
	.defaults = toy_defaults,
	.kv_auto = toy_kv_auto,
	.ep_refused = toy_ep_refused,
	.pd_handoff_s = 1e-3,
	.cost = &toy_cost,
	.no_chunk = true,
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
	wl.process = WL_POISSON;
	wl.rate = 4;
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
	CHECK(st.cost.cfg.engine == &toy_cost && st.cost.eager_s > 0 && st.sc.no_chunk && !st.sc.no_evict,
	      "toy: its kernel terms and scheduler settings reach the cost model and the simulation");
	CHECK(strcmp(st.cost.tabs->engine, "vllm") == 0, "toy: vLLM's kernel tables lent (%s)", st.cost.tabs->engine);
	CHECK(sim_run(st.sim, &e) == 0 && sim_totals(st.sim)->completed == 60,
	      "toy: the simulation runs every request to completion");
	{
		struct metric_set ms;
		sim_summary(st.sim, -1, &ms);
		CHECK(ms.completed == 60 && ms.ttft_ms.mean > 0 && isfinite(ms.itl_ms.mean), "toy: TTFT %.1f ms, ITL %.2f ms",
		      ms.ttft_ms.mean, ms.itl_ms.mean);
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
