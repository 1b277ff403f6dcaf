/* bench.c - simulator throughput and memory (`make bench`): figures, not
 * pass/fail.  One scenario per process so peak RSS is per scenario.
 *   usage: bench SCENARIO [N [step] [inline]]   (chat | dp64 | 70b | storm |
 *   longctx; N requests; `step`: without step segments, as
 *   --no-decode-segments; `inline`: the arrivals drawn on the simulation's
 *   thread, as --no-arrival-thread)
 * longctx: the long-context overload of issue 13 (Llama-3.1-8B/H100,
 * 32768-token prompts, 1000-token outputs, Poisson 0.5 req/s, vLLM's
 * defaults for an 80 GB GPU: 8192 batched tokens, 1024 sequences, the
 * model's 131072-token context); `servesim run --rate 0.5 --prompt-tokens
 * 32768 --output-tokens 1000 --num-requests N` runs the same.
 * dp64: the chat load on each of 64 data-parallel replicas behind the
 * least-loaded router (issue 31: its cost per request against chat's). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "engine/registry.h"
#include "cost/cost.h"
#include "cost/memplan.h"
#include "model/model.h"
#include "base/paths.h"
#include "sim/sim.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	const char *sc_name = argc > 1 ? argv[1] : "chat";
	int64_t n = argc > 2 ? atoll(argv[2]) : 1000000;
	char data[1024], dir[1200], path[1200];
	struct model_registry reg;
	struct gpu_db db;
	const struct gpu_spec *g;
	struct model_cfg m;
	struct cost_model c;
	struct cost_cfg cc;
	struct wl_spec w;
	struct sim_cfg sc;
	struct memplan mp;
	struct parallel p = {1, 1, 1, 1, 0, 0};
	struct sim *s;
	struct err e;
	struct rusage ru;
	const char *model = "llama-3.1-8b";
	double t0, t1, tokens;
	int64_t blocks = 0, mbt = 8192, mns = 256, mml = 8192;
	int dp = 1;
	bool inline_arrivals = false;

	paths_data_dir(data, sizeof(data));
	snprintf(dir, sizeof(dir), "%s/models", data);
	snprintf(path, sizeof(path), "%s/gpus.json", data);
	if (registry_load(&reg, dir, &e) < 0 || gpu_db_load(&db, path, &e) < 0 ||
	    gpu_find(&db, "h100", &g, &e) < 0)
		goto fail;
	wl_spec_defaults(&w);
	w.process = WL_POISSON;
	w.num_requests = n;
	w.prompt.kind = WL_LOGNORMAL;
	w.prompt.a = 600;
	w.prompt.b = 300;
	w.prompt.min = 16;
	w.prompt.max = 4096;
	w.output.kind = WL_LOGNORMAL;
	w.output.a = 250;
	w.output.b = 120;
	w.output.min = 8;
	w.output.max = 1024;
	w.rate = 30;
	if (strcmp(sc_name, "dp64") == 0) {
		dp = 64;
		w.rate = 30.0 * dp;
	} else if (strcmp(sc_name, "70b") == 0) {
		model = "llama-2-70b";
		p.tp = 4;
		w.rate = 12;
	} else if (strcmp(sc_name, "storm") == 0) {
		blocks = 400; /* 6400 tokens of KV for a 30 req/s chat load */
		w.rate = 5;
	} else if (strcmp(sc_name, "longctx") == 0) {
		w.prompt.kind = w.output.kind = WL_FIXED;
		w.prompt.a = 32768;
		w.prompt.max = 32768;
		w.output.a = 1000;
		w.rate = 0.5;
		mns = 1024;
		mml = 131072;
	}
	if (registry_load_model(&reg, model, &m, &e) < 0)
		goto fail;
	memset(&cc, 0, sizeof(cc));
	cc.wdt = cc.kvdt = DT_BF16;
	cost_default_overheads(&cc.ov);
	cc.max_tokens = mbt;
	cc.max_seqs = mns;
	cc.graph_max = 512;
	cc.engine = engine_default()->cost;
	if (cost_init(&c, &m, g, &p, &cc, data, &e) < 0)
		goto fail;
	if (memplan_compute(&m, g, &p, DT_BF16, DT_BF16, 0.9, 16, mbt, mns, &mp, &e) < 0)
		goto fail;
	memset(&sc, 0, sizeof(sc));
	sc.max_num_batched_tokens = mbt;
	sc.max_num_seqs = mns;
	sc.max_model_len = mml;
	sc.block_size = 16;
	sc.total_kv_blocks = blocks ? blocks : mp.blocks;
	sc.prefix_caching = true;
	sc.dp = dp;
	sc.router = ROUTER_LEAST_OUTSTANDING; /* (run's default) */
	sc.policy = engine_default()->policy;
	for (int k = 3; k < argc; k++) {
		sc.no_segments |= strcmp(argv[k], "step") == 0;
		inline_arrivals |= strcmp(argv[k], "inline") == 0;
	}
	/* as servesim run: the arrivals drawn ahead on a second thread */
	sc.arrival_thread = !inline_arrivals;
	t0 = now_s();
	if (sim_new(&sc, &c, &w, &s, &e) < 0 || sim_run(s, &e) < 0)
		goto fail;
	t1 = now_s();
	{
		const struct sim_totals *t = sim_totals(s);
		struct metric_set ms;
		sim_summary(s, -1, &ms);
		tokens = ms.input_tokens + ms.output_tokens;
		getrusage(RUSAGE_SELF, &ru);
		/* CPU seconds too (the whole process, start-up included): on a
		 * shared host wall time says more about the neighbours */
		printf("%-6s %8lld req  %7.3f s wall %7.3f s cpu  %10.0f req/s  %10.0f steps/s  %6.1f ns/token  "
		       "peak RSS %6.1f MB  (sim %.0f s, %llu steps, %llu preemptions, E2E mean %.0f ms)\n",
		       sc_name, (long long)n, t1 - t0,
		       (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
			       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6,
		       (double)t->completed / (t1 - t0),
		       (double)t->steps / (t1 - t0), (t1 - t0) * 1e9 / tokens, ru.ru_maxrss / 1024.0,
		       (double)t->duration_ns * 1e-9, (unsigned long long)t->steps,
		       (unsigned long long)t->preemptions, ms.e2e_ms.mean);
	}
	sim_free(s);
	cost_release(&c);
	return 0;
fail:
	fprintf(stderr, "bench: %s\n", e.msg);
	return 1;
}
