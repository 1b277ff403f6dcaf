/* test_sim.c - hand-worked vLLM v1 schedules, KV-cache accounting,
 * determinism, a preemption storm, memory planning and cost known answers. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <unistd.h>

#include "check.h"
#include "fixture.h"
#include "engine/registry.h"
#include "base/loghist.h"
#include "cost/comm.h"
#include "cost/cost.h"
#include "eval/experiment.h"
#include "sim/kvcache.h"
#include "cost/memplan.h"
#include "model/opgraph.h"
#include "engine/scenario.h"
#include "engine/sglang.h"
#include "sim/sim.h"
#include "sim/core.h" /* (struct sim_memo's counts) */
#include "sim/decoders.h"
#include "sim/evq.h"
#include "sim/loadtree.h"
#include "sim/reqpool.h"
#include "sim/runlist.h"
#include "sim/specpath.h"
#include "sim/waitq.h"
#include "sim/winblocks.h"
#include "base/decnum.h"
#include "hw/tier2.h"
#include "readers/mooncake.h"
#include "report/out.h"

static struct model_registry reg;
static struct gpu_db db;
static char datadir[1024];

static void load_model(const char *id, struct model_cfg *m)
{
	struct err e;
	if (registry_load_model(&reg, id, m, &e) < 0)
		printf("# %s\n", e.msg);
}

static const struct gpu_spec *gpu(const char *id)
{
	const struct gpu_spec *g = NULL;
	struct err e;
	gpu_find(&db, id, &g, &e);
	return g;
}

static int make_cost(struct cost_model *c, const struct model_cfg *m, int64_t mbt, int64_t mns,
		     unsigned off)
{
	struct cost_cfg cc;
	struct parallel p = {1, 1, 1, 1, 0, 0};
	struct err e;
	int rc;

	fixture_cost_cfg(&cc, mbt, mns, 512);
	cc.off = off;
	rc = cost_init(c, m, gpu("h100"), &p, &cc, datadir, &e);
	if (rc < 0)
		printf("# cost: %s\n", e.msg);
	return rc;
}

static void base_cfg(struct sim_cfg *sc, int64_t mbt, int64_t mns, int64_t blocks)
{
	memset(sc, 0, sizeof(*sc));
	sc->max_num_batched_tokens = mbt;
	sc->max_num_seqs = mns;
	sc->max_model_len = 8192;
	sc->block_size = 16;
	sc->total_kv_blocks = blocks;
	sc->prefix_caching = true;
	sc->dp = 1;
	sc->check_invariants = true;
	sc->policy = engine_default()->policy;
}

/* The scheduler of engine `name` (engine_type.policy). */
static const struct sched_policy *policy_of(const char *name)
{
	return engine_find(name)->policy;
}

/* A P/D configuration on top of base_cfg: `prefill` prefill ranks priced
 * by pc with their own KV blocks and limits, KV of kvb bytes a token over a
 * 1 GB/s link with 1 ms set-up. */
static void pd_cfg(struct sim_cfg *sc, int prefill, const struct cost_model *pc, int64_t blocks,
		   int64_t mbt, double kvb)
{
	sc->pd.prefill = prefill;
	sc->pd.prefill_cost = pc;
	sc->pd.prefill_kv_blocks = blocks;
	sc->pd.prefill_max_num_seqs = 64;
	sc->pd.prefill_max_num_batched_tokens = mbt;
	sc->pd.kv_bytes_per_token = kvb;
	sc->pd.link_bw = 1e9;
	sc->pd.alpha_s = 1e-3;
}

/* Write a trace CSV and point the spec at it. */
static void trace_spec(struct wl_spec *w, const char *rows)
{
	static int n;
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/servesim-test-trace-%d-%d.csv", (int)getpid(), n++);
	f = fopen(path, "w");
	fprintf(f, "arrival_s,prompt_tokens,output_tokens,prefix_group\n%s", rows);
	fclose(f);
	wl_spec_defaults(w);
	w->process = WL_TRACE;
	w->num_requests = 0;
	snprintf(w->trace, sizeof(w->trace), "%s", path);
	snprintf(w->source, sizeof(w->source), "%s", path);
}

/* The summary of run()'s last simulation (stage -1). */
static struct metric_set run_sum;

/* Poisson arrivals, prompts normal(300, 100), outputs uniform in [lo, hi]. */
static void poisson_spec(struct wl_spec *w, double rate, int64_t n, double lo, double hi, uint64_t seed)
{
	wl_spec_defaults(w);
	w->process = WL_POISSON;
	w->rate = rate;
	w->num_requests = n;
	w->prompt.kind = WL_NORMAL;
	w->prompt.a = 300;
	w->prompt.b = 100;
	w->output.kind = WL_UNIFORM;
	w->output.a = lo;
	w->output.b = hi;
	w->seed = seed;
}

/* The load the tests comparing a run on threads with one inline start
 * from: m priced on c at a budget of 2048 tokens and 64 sequences, 4,000
 * blocks, invariants unchecked; 12,000 Poisson requests at 40 req/s,
 * prompts lognormal (300, 200), outputs in [10, 200], seed 7. */
static void thread_load(struct cost_model *c, struct sim_cfg *sc, struct wl_spec *w, const struct model_cfg *m)
{
	make_cost(c, m, 2048, 64, 0);
	base_cfg(sc, 2048, 64, 4000);
	sc->check_invariants = false;
	poisson_spec(w, 40, 12000, 10, 200, 7);
	w->prompt.kind = WL_LOGNORMAL;
	w->prompt.b = 200;
}

/* The open loop the tests comparing two ways of running start from (kept
 * lists, lazy decoders, segments): m priced on c at a budget of 2048 tokens
 * and 64 sequences; 300 requests at 8 req/s into w (poisson_spec: outputs
 * in [10, 300], seed 5). */
static void open_loop(struct cost_model *c, struct wl_spec *w, const struct model_cfg *m)
{
	make_cost(c, m, 2048, 64, 0);
	poisson_spec(w, 8, 300, 10, 300, 5);
}

/* Poisson arrivals of fixed 512-token prompts and 64-token outputs (the
 * memo tests' requests: the same lengths at every rate). */
static void fixed_spec(struct wl_spec *w, double rate, int64_t n)
{
	poisson_spec(w, rate, n, 64, 64, 3);
	w->prompt.kind = WL_FIXED;
	w->prompt.a = 512;
	w->output.kind = WL_FIXED;
	w->output.a = 64;
}

/* A simulation of sc priced by c over w made into *s (the caller frees it)
 * and run to the end: 0, or the error's status. */
static int new_and_run(struct sim_cfg *sc, const struct cost_model *c, const struct wl_spec *w, struct sim **s,
		       struct err *e)
{
	int rc = sim_new(sc, c, w, s, e);

	return rc == 0 ? sim_run(*s, e) : rc;
}

/* Run to completion with step log lf (NULL: none) and per-request CSV
 * cf; the totals and the summary (run_sum) kept. */
static int run_to(struct sim_cfg *sc, const struct cost_model *c, const struct wl_spec *w, FILE *lf, FILE *cf,
		  struct sim_totals *tot)
{
	struct sim *s;
	struct err e;
	int rc;

	sc->step_log = lf;
	sc->requests_out = cf;
	rc = new_and_run(sc, c, w, &s, &e);
	if (rc < 0)
		printf("# sim: %s\n", e.msg);
	if (s) {
		*tot = *sim_totals(s);
		sim_summary(s, -1, &run_sum);
		sim_free(s);
	}
	return rc;
}

/* Run to completion, capturing the step log and per-request CSV. */
static int run(struct sim_cfg *sc, const struct cost_model *c, const struct wl_spec *w,
	       char **log, char **csv, struct sim_totals *tot)
{
	size_t ll = 0, cl = 0;
	FILE *lf = open_memstream(log, &ll), *cf = open_memstream(csv, &cl);
	int rc = run_to(sc, c, w, lf, cf, tot);

	fclose(lf);
	fclose(cf);
	return rc;
}

/* One simulation of a test: its cost model, configuration, workload,
 * totals, step log and per-request CSV (both written by trun_go). */
struct trun {
	struct cost_model c;
	struct sim_cfg sc;
	struct wl_spec w;
	struct sim_totals t;
	char *log, *csv;
};

/* r's bf16 cost model of m on one H100 and its base_cfg, both at a budget of
 * mbt tokens and mns sequences, `blocks` KV blocks; the trace rows into its
 * workload unless NULL (the caller sets r->w). */
static void trun_init(struct trun *r, const struct model_cfg *m, int64_t mbt, int64_t mns, int64_t blocks,
		      const char *trace)
{
	make_cost(&r->c, m, mbt, mns, 0);
	base_cfg(&r->sc, mbt, mns, blocks);
	if (trace)
		trace_spec(&r->w, trace);
}

/* Run r to completion (run()): 0, or the error's status. */
static int trun_go(struct trun *r)
{
	return run(&r->sc, &r->c, &r->w, &r->log, &r->csv, &r->t);
}

static void trun_release(struct trun *r)
{
	free(r->log);
	free(r->csv);
	cost_release(&r->c);
}

static int count(const char *hay, const char *needle)
{
	int n = 0;
	for (; (hay = strstr(hay, needle)); hay++)
		n++;
	return n;
}

static const char *line_n(const char *log, int n, char *buf, size_t len)
{
	const char *p = log;
	const char *nl;
	while (n-- > 0 && (p = strchr(p, '\n')))
		p++;
	if (!p) {
		buf[0] = '\0';
		return buf;
	}
	nl = strchr(p, '\n');
	snprintf(buf, len, "%.*s", (int)(nl ? nl - p : (long)strlen(p)), p);
	return buf;
}

/* Step n's line of the step log into buf, its time (its "t=" word) into
 * t[32]. */
static const char *step_at(const char *log, int n, char *buf, size_t len, char *t)
{
	const char *l = line_n(log, n, buf, len);

	sscanf(l, "step %*u t=%31s", t);
	return l;
}

/* Step n's line of the step log (copied into buf) holds text. */
static bool step_has(const char *log, int n, const char *text, char *buf, size_t len)
{
	return strstr(line_n(log, n, buf, len), text) != NULL;
}

static void test_chunking(const struct model_cfg *m)
{
	/* budget 64, one 2000-token prompt, 3 output tokens: 31 chunks of 64 and
	 * one of 16 (2000 = 31*64 + 16); the last chunk samples token 1, then two
	 * decode steps: 34 steps in all */
	struct trun r = {.log = NULL, .csv = NULL};
	char buf[256];

	trun_init(&r, m, 64, 32, 1000, "0.0,2000,3,\n");
	CHECK(trun_go(&r) == 0, "chunking run");
	CHECK(r.t.steps == 34, "34 steps (%llu)", (unsigned long long)r.t.steps);
	CHECK(count(r.log, " 0+64 ") == 31, "31 chunks of 64 (%d)", count(r.log, " 0+64 "));
	CHECK(strstr(line_n(r.log, 31, buf, sizeof(buf)), " 0+16 ") != NULL, "32nd step is the 16-token tail: %s", buf);
	CHECK(count(r.log, " 0+1 ") == 2, "then two decode steps");
	CHECK(r.t.completed == 1, "completed");
	trun_release(&r);
}

/* One SGLang run of a trace (budget: its chunk and the step budget, blocks
 * of 16 tokens, mixed chunks and --max-prefill-tokens as given): the step
 * log in *log (the caller frees it), 0 when the run succeeded. */
static int sglang_run_recv(const struct model_cfg *m, int64_t budget, int64_t blocks, bool mixed,
			   int64_t max_prefill, int recv_interval, const char *trace, char **log,
			   struct sim_totals *t)
{
	struct cost_model c;
	struct sim_cfg sc;
	struct wl_spec w;
	char *csv = NULL;
	int rc;

	make_cost(&c, m, budget, 64, 0);
	base_cfg(&sc, budget, 64, blocks);
	sc.policy = policy_of("sglang");
	sc.mixed_chunk = mixed;
	/* max_prefill > 0: SGLang's rule before 0.5.13 (a prompt past the
	 * batch's first waits whole unless it fits what is left); < 0: the cap
	 * -max_prefill under the rule since (it joins until the cap is spent) */
	sc.max_prefill_tokens = max_prefill < 0 ? -max_prefill : max_prefill;
	sc.max_prefill_whole = max_prefill > 0;
	sc.recv_interval = recv_interval;
	trace_spec(&w, trace);
	*log = NULL;
	rc = run(&sc, &c, &w, log, &csv, t);
	free(csv);
	cost_release(&c);
	return rc;
}

static int sglang_run(const struct model_cfg *m, int64_t budget, int64_t blocks, bool mixed,
		      int64_t max_prefill, const char *trace, char **log, struct sim_totals *t)
{
	return sglang_run_recv(m, budget, blocks, mixed, max_prefill, 0, trace, log, t);
}

/* The step (0-based line of the step log) whose batch holds text, -1 if none. */
static int step_holding(const char *log, const char *text)
{
	const char *p = strstr(log, text), *q;
	int k = 0;

	if (!p)
		return -1;
	for (q = log; q < p; q++)
		k += *q == '\n';
	return k;
}

/* --scheduler-recv-interval 4 (SchedulerRecvSkipper): two prompts at t = 0
 * reach an idle engine and are prefilled in step 0; the count then starts
 * at the threshold (an extend batch weighs 4), so step 1 polls (nobody
 * there) and resets it; decode batches weigh 1, so the next polls come
 * before steps 5, 9, 13...  A third prompt arriving while step 2 runs is
 * prefilled in step 3 without the interval, in step 5 with it, and its
 * TTFT grows by the two decode steps it waited. */
static void test_sglang_recv_interval(const struct model_cfg *m)
{
	static const char trace[] = "0.0,100,60,\n0.0,100,60,\n%.6f,50,5,\n";
	struct sim_totals t0, t4;
	char *log = NULL, tr[128];
	double step_s, ttft0;
	int k0, k4;

	/* the decode step's length from a first run (one prompt) */
	CHECK(sglang_run(m, 8192, 1000, false, 0, "0.0,100,60,\n0.0,100,60,\n", &log, &t0) == 0, "sglang run");
	{
		const char *l1 = strstr(log, "step 1 t="), *l2 = strstr(log, "step 2 t=");
		double a = l1 ? atof(l1 + 9) : 0, b = l2 ? atof(l2 + 9) : 0;
		step_s = b - a;
		snprintf(tr, sizeof(tr), trace, b + step_s / 2); /* in the middle of step 2 */
	}
	free(log);
	CHECK(step_s > 0, "decode step length %g s", step_s);
	CHECK(sglang_run(m, 8192, 1000, false, 0, tr, &log, &t0) == 0, "run without the interval");
	k0 = step_holding(log, " 2+50 ");
	ttft0 = run_sum.ttft_ms.mean;
	free(log);
	CHECK(sglang_run_recv(m, 8192, 1000, false, 0, 4, tr, &log, &t4) == 0, "run with --scheduler-recv-interval 4");
	k4 = step_holding(log, " 2+50 ");
	free(log);
	CHECK(k0 == 3, "without the interval the late prompt is prefilled in step 3 (%d)", k0);
	CHECK(k4 == 5, "with interval 4 it waits for the poll before step 5 (%d)", k4);
	CHECK(t4.completed == 3 && t0.completed == 3, "all complete (%llu, %llu)", (unsigned long long)t0.completed,
	      (unsigned long long)t4.completed);
	/* its TTFT: two more decode steps, over three requests' mean */
	CHECK(run_sum.ttft_ms.mean > ttft0 + 0.5 * step_s * 1e3 / 3 && run_sum.ttft_ms.mean < ttft0 + 3.5 * step_s * 1e3 / 3,
	      "mean TTFT %.3f ms, without the interval %.3f ms (decode step %.3f ms)", run_sum.ttft_ms.mean, ttft0,
	      step_s * 1e3);
}

static void test_sglang(const struct model_cfg *m)
{
	/* SGLang: 1000 blocks of 16 tokens = 16000; two 100-token prompts with
	 * 12000 output tokens each arrive together.  Each reserves min(12000,
	 * 4096) x 0.7 = 2867.2 -> 2868 future tokens (180 blocks) at admission;
	 * both fit (7 + 180 blocks each).  Steps are prefill-only or
	 * decode-only: step 0 prefills both, step 1 decodes both. */
	struct sim_totals t;
	char *log = NULL, buf[256];

	CHECK(sglang_run(m, 8192, 1000, false, 0, "0.0,100,30,\n0.0,100,30,\n0.001,5000,3,\n", &log, &t) == 0,
	      "sglang run");
	CHECK(step_has(log, 0, ": 0+100 1+100 |", buf, sizeof(buf)), "sglang step 0: both prefills: %s", buf);
	CHECK(step_has(log, 1, ": 2+5000 |", buf, sizeof(buf)),
	      "sglang step 1: the new prefill first, no decode: %s", buf);
	CHECK(step_has(log, 2, ": 0+1 1+1 2+1 |", buf, sizeof(buf)), "sglang step 2: decode only: %s", buf);
	CHECK(t.completed == 3, "sglang completed 3");
	free(log);
	/* --enable-mixed-chunk, budget 5001: step 0 prefills both short
	 * prompts; in step 1 the two decoders ride along with the new prefill,
	 * whose chunk is the budget less their two tokens (4999); step 2 the
	 * same with its last prompt token */
	CHECK(sglang_run(m, 5001, 1000, true, 0, "0.0,100,30,\n0.0,100,30,\n0.001,5000,3,\n", &log, &t) == 0,
	      "sglang mixed-chunk run");
	CHECK(step_has(log, 0, ": 0+100 1+100 |", buf, sizeof(buf)), "sglang mixed step 0: both prefills: %s", buf);
	CHECK(step_has(log, 1, ": 0+1 1+1 2+4999 |", buf, sizeof(buf)),
	      "sglang mixed step 1: decoders join the prefill, budget - 2: %s", buf);
	CHECK(step_has(log, 2, ": 0+1 1+1 2+1 |", buf, sizeof(buf)),
	      "sglang mixed step 2: the prompt's last token with the decoders: %s", buf);
	CHECK(t.completed == 3, "sglang mixed completed 3");
	free(log);
	/* --max-prefill-tokens 2524 under a chunk of 8192 (without the cap,
	 * step 1 takes 2+1024 3+3000 4+100): step 0 prefills the first two
	 * arrivals; in step 1 the 1024-token prompt leaves 1500, so the
	 * 3000-token one waits whole rather than being chunked; in step 2 it
	 * is first in its batch and runs whole although above the cap, and
	 * nothing joins it */
	CHECK(sglang_run(m, 8192, 1000, false, 2524,
			 "0.0,1024,3,\n0.0,1024,3,\n0.0,1024,3,\n0.0,3000,3,\n0.0,100,3,\n", &log, &t) == 0,
	      "sglang max-prefill run");
	CHECK(step_has(log, 0, ": 0+1024 1+1024 |", buf, sizeof(buf)),
	      "sglang max-prefill step 0: the first two prompts: %s", buf);
	CHECK(step_has(log, 1, " 2+1024 |", buf, sizeof(buf)) && strstr(buf, "wait 2"),
	      "sglang max-prefill step 1: 1024 + 3000 would overrun, 3000 waits whole: %s", buf);
	CHECK(step_has(log, 2, " 3+3000 |", buf, sizeof(buf)) && strstr(buf, "wait 1"),
	      "sglang max-prefill step 2: 3000 > 2524 first in its batch runs whole, alone: %s", buf);
	CHECK(t.completed == 5, "sglang max-prefill completed 5");
	free(log);
	/* the same cap under SGLang >= 0.5.13 (sgl-project/sglang#25741): in
	 * step 1 the 3000-token prompt joins whole (it fits the chunk budget)
	 * although 1500 of the cap are left, the cap is then spent and the
	 * 100-token prompt waits for step 2 */
	CHECK(sglang_run(m, 8192, 1000, false, -2524,
			 "0.0,1024,3,\n0.0,1024,3,\n0.0,1024,3,\n0.0,3000,3,\n0.0,100,3,\n", &log, &t) == 0,
	      "sglang max-prefill (0.5.13) run");
	CHECK(step_has(log, 0, ": 0+1024 1+1024 |", buf, sizeof(buf)),
	      "sglang max-prefill (0.5.13) step 0: the first two prompts: %s", buf);
	CHECK(step_has(log, 1, ": 2+1024 3+3000 |", buf, sizeof(buf)) && strstr(buf, "wait 1"),
	      "sglang max-prefill (0.5.13) step 1: the 3000-token prompt joins, the cap is spent: %s", buf);
	CHECK(step_has(log, 2, ": 4+100 |", buf, sizeof(buf)), "sglang max-prefill (0.5.13) step 2: the last prompt: %s",
	      buf);
	CHECK(t.completed == 5, "sglang max-prefill (0.5.13) completed 5");
	free(log);
	/* reservation: 80 blocks; a 100-token prompt with 1000 outputs is
	 * admitted when its prompt and all its outputs fit (1100 tokens, 69
	 * blocks); the second one needs 69 more beside the first's 7 and its
	 * reserved 62, and waits, although vLLM would admit it (7 blocks) */
	CHECK(sglang_run(m, 8192, 80, false, 0, "0.0,100,1000,\n0.0,100,1000,\n", &log, &t) == 0,
	      "sglang reservation run");
	CHECK(step_has(log, 0, ": 0+100 |", buf, sizeof(buf)) && strstr(buf, "wait 1"),
	      "sglang: the future-token reservation keeps the second request waiting: %s", buf);
	CHECK(t.completed == 2, "sglang: both complete (%zu)", (size_t)t.completed);
	free(log);
	/* batch_is_full: 150 blocks; A (100 + 2000 outputs: 2100 tokens, 132
	 * blocks) is admitted; B (100 + 300: 25 blocks) does not fit beside
	 * A's 7 + 125 in the same round.  From the next step A's future counts
	 * at the ratio (1999 x 0.7 -> 88 blocks), so B (25) would fit beside
	 * A's 8 + 88, but the stopped admission latched the batch as full:
	 * only decode batches run until A finishes (step 2000: its prefill
	 * gave the first token, 1999 decode steps the rest), then B runs */
	CHECK(sglang_run(m, 8192, 150, false, 0, "0.0,100,2000,\n0.0,100,300,\n", &log, &t) == 0,
	      "sglang batch_is_full run");
	CHECK(step_has(log, 0, ": 0+100 |", buf, sizeof(buf)) && strstr(buf, "wait 1"),
	      "sglang batch_is_full step 0: A alone: %s", buf);
	CHECK(step_has(log, 1, ": 0+1 |", buf, sizeof(buf)) && strstr(buf, "wait 1"),
	      "sglang batch_is_full step 1: decode, B not admitted although it would fit: %s", buf);
	CHECK(step_has(log, 1999, ": 0+1 |", buf, sizeof(buf)) && strstr(buf, "wait 1"),
	      "sglang batch_is_full step 1999: A's last decode: %s", buf);
	CHECK(step_has(log, 2000, ": 1+100 |", buf, sizeof(buf)),
	      "sglang batch_is_full step 2000: B once A finished: %s", buf);
	CHECK(t.completed == 2, "sglang batch_is_full: both complete (%zu)", (size_t)t.completed);
	free(log);
}

/* SGLang's schedule_conservativeness (sim_cfg.conservativeness: 0.3 under
 * attention DP) scales the new-token ratio the running requests' future
 * tokens are reserved at.  80 blocks of 16; A (100 + 1000 outputs: 69
 * blocks) runs alone; B (100 + 500: 38 blocks) arrives 50 ms later.  At
 * conservativeness 1 A's ~990 future tokens reserve 44 blocks at the ratio
 * ~0.7, 8 + 44 + 38 > 80: B waits, the batch latches full, and B is
 * prefilled only once A finished (step 1000); at 0.3 the ratio is ~0.21, 14
 * blocks, 8 + 14 + 38 <= 80: B is admitted at once. */
static int conserv_b_step(const struct model_cfg *m, double conservativeness)
{
	struct trun r = {.log = NULL, .csv = NULL};
	int k;

	trun_init(&r, m, 8192, 64, 80, "0.0,100,1000,\n0.05,100,500,\n");
	r.sc.policy = policy_of("sglang");
	r.sc.conservativeness = conservativeness;
	CHECK(trun_go(&r) == 0 && r.t.completed == 2, "sglang conservativeness %g run", conservativeness);
	k = r.log ? step_holding(r.log, " 1+100 ") : -1;
	trun_release(&r);
	return k;
}

static void test_sglang_conservativeness(const struct model_cfg *m)
{
	int k1 = conserv_b_step(m, 1.0), k03 = conserv_b_step(m, 0.3);

	CHECK(k1 >= 1000, "conservativeness 1: B prefilled once A finished, step %d", k1);
	CHECK(k03 > 0 && k03 < 20, "conservativeness 0.3: B admitted on arrival, step %d", k03);
}

/* SGLang's lpm: 2 groups x 5 prompts of a 1000-token system prompt + 10,
 * all queued at once, one running at a time (max_running_requests 1) and KV
 * for one prompt (70 blocks of 16): lpm runs each group's prompts back to
 * back, so 4 of each group's 5 find the 62 full prefix blocks (992 tokens)
 * cached, 8 x 992 = 7936 hit tokens; fcfs takes them in arrival order,
 * where the groups interleave and evict each other. */

static uint64_t lpm_hits(const struct model_cfg *m, bool lpm)
{
	struct trun r = {.log = NULL, .csv = NULL};

	trun_init(&r, m, 8192, 1, 70, NULL);
	r.sc.policy = policy_of("sglang");
	r.sc.lpm = lpm;
	fixture_sp_spec(&r.w, WL_CONSTANT, 100000, 10, 2, 5, 1000, 10, 2);
	CHECK(trun_go(&r) == 0 && r.t.completed == 10, "sglang %s run",
	      lpm ? "lpm" : "fcfs");
	trun_release(&r);
	return r.t.prefix_hit_tokens;
}

static void test_sglang_lpm(const struct model_cfg *m)
{
	uint64_t fcfs = lpm_hits(m, false), lpm = lpm_hits(m, true);

	CHECK(lpm == 7936, "sglang lpm: every group's followers hit its prefix (%llu hit tokens)",
	      (unsigned long long)lpm);
	CHECK(fcfs < lpm, "sglang fcfs: interleaved groups evict each other (%llu < %llu)",
	      (unsigned long long)fcfs, (unsigned long long)lpm);
}

/* SGLang's start-up defaults against hand-computed values (sglang.h rules;
 * GPU memory as data/gpus.json gives it in MiB). */
static void test_sglang_defaults(void)
{
	struct sglang_mem sm;

	/* H100 (81559 MiB), TP 1: chunk 8192, decode graphs up to 256;
	 * reserved 512 + 1.5 x 8192 + 1024 x 1 / 8 + 2 x 256 + 8 x 58 prefill
	 * sizes = 13904 MiB; (81559 - 13904) / 81559 = 0.82952 -> 0.830 */
	sglang_mem_fraction(gpu("h100"), 1, 1, 1, false, sglang_chunk_default(gpu("h100")), false, &sm);
	CHECK(sm.chunk == 8192 && sm.graph_max_bs == 256 && sm.prefill_graphs == 58 &&
	      fabs(sm.reserved_mib - 13904) < 1e-9 && fabs(sm.fraction - 0.830) < 1e-12 && !sm.floored,
	      "sglang h100 tp1: reserved %.1f MiB, mem_fraction_static %.3f", sm.reserved_mib, sm.fraction);
	/* H200 (143771 MiB), TP 8: 512 + 12288 + 1024 + 2 x 512 + 464 = 15312;
	 * 128459 / 143771 = 0.893497 -> 0.893 */
	sglang_mem_fraction(gpu("h200"), 8, 1, 1, false, 8192, false, &sm);
	CHECK(fabs(sm.reserved_mib - 15312) < 1e-9 && fabs(sm.fraction - 0.893) < 1e-12,
	      "sglang h200 tp8: reserved %.1f MiB, mem_fraction_static %.3f", sm.reserved_mib, sm.fraction);
	/* attention-DP 8 of an MLA model on H200 (SGLang tp_size 8): 512 +
	 * 12288 + 1024 + 2 x 512 + 3 x 512 x 8 + 1.5 x 512 x 8 + 1536 = 34816;
	 * 108955 / 143771 = 0.757837 -> 0.758 */
	sglang_mem_fraction(gpu("h200"), 8, 1, 8, true, 8192, true, &sm);
	CHECK(fabs(sm.reserved_mib - 34816) < 1e-9 && fabs(sm.fraction - 0.758) < 1e-12,
	      "sglang h200 dp-attention 8, MLA: reserved %.1f MiB, mem_fraction_static %.3f",
	      sm.reserved_mib, sm.fraction);
	/* L40S (46068 MiB, under 60 GiB: no 10 GiB floor): chunk 4096, graphs
	 * up to 32; 512 + 6144 + 128 + 64 + 8 x 50 = 7248; 38820 / 46068 =
	 * 0.842667 -> 0.843 */
	sglang_mem_fraction(gpu("l40s"), 1, 1, 1, false, sglang_chunk_default(gpu("l40s")), false, &sm);
	CHECK(sm.chunk == 4096 && fabs(sm.reserved_mib - 7248) < 1e-9 && fabs(sm.fraction - 0.843) < 1e-12,
	      "sglang l40s: chunk %lld, reserved %.1f MiB, mem_fraction_static %.3f", (long long)sm.chunk,
	      sm.reserved_mib, sm.fraction);
	/* max_running_requests = min(tokens / 2, min(max(tokens / ctx x 512,
	 * 2048), 4096)) */
	CHECK(sglang_max_running_requests(419019, 131072) == 2048, "sglang max_running_requests: pool floor 2048");
	CHECK(sglang_max_running_requests(100000, 4096) == 4096, "sglang max_running_requests: pool cap 4096");
	CHECK(sglang_max_running_requests(3000, 8192) == 1500, "sglang max_running_requests: half the tokens");
	CHECK(sglang_max_running_requests(1000000, 131072) == 3906, "sglang max_running_requests: tokens / ctx x 512");
	/* --kv-cache-dtype auto: the model's dtype, also under fp8 weights */
	CHECK(sglang_kv_dtype_default(NULL, gpu("h200"), DT_FP8) == DT_BF16 &&
	      sglang_kv_dtype_default(NULL, gpu("h200"), DT_BF16) == DT_BF16 &&
	      sglang_kv_dtype_default(NULL, gpu("h200"), DT_FP16) == DT_FP16 &&
	      sglang_kv_dtype_default(NULL, gpu("h200"), DT_INT4) == DT_BF16 &&
	      sglang_kv_dtype_default(NULL, gpu("b200"), DT_FP4) == DT_BF16,
	      "sglang kv dtype auto: bf16 under fp8 / int4 / fp4 weights, fp16 model fp16");
	{
		/* DeepSeek NSA: fp8 on Blackwell, bf16 on Hopper */
		struct model_cfg nsa;
		memset(&nsa, 0, sizeof(nsa));
		nsa.index_topk = 2048;
		CHECK(sglang_kv_dtype_default(&nsa, gpu("b200"), DT_FP8) == DT_FP8 &&
		      sglang_kv_dtype_default(&nsa, gpu("h200"), DT_FP8) == DT_BF16,
		      "sglang kv dtype auto, NSA: fp8 on b200, bf16 on h200");
	}
}

/* Overlap scheduling: the CPU terms (step_us + req_us x requests) hide
 * under the GPU time; the step lasts max(GPU, CPU) instead of the sum. */
static void test_overlap(const struct model_cfg *m)
{
	struct cost_model c;
	struct step_desc d;
	double t0, serial, hidden, exposed;

	make_cost(&c, m, 8192, 64, 0);
	memset(&d, 0, sizeof(d));
	d.ndecode = d.nlogits = 32;
	d.decode_ctx_sum = 32 * 1000.0;
	t0 = cost_step_s(&c, &d);
	c.cfg.ov.step_us = 1.0;
	serial = cost_step_s(&c, &d);
	c.cfg.overlap_cpu = true;
	hidden = cost_step_s(&c, &d);
	c.cfg.ov.step_us = 1e5; /* 100 ms of CPU: longer than the GPU's step */
	exposed = cost_step_s(&c, &d);
	CHECK(fabs(serial - t0 - 1e-6) < 1e-12, "overlap off: 1 us of CPU adds to the step");
	CHECK(fabs(hidden - t0) < 1e-12, "overlap on: 1 us of CPU hides under %.3f ms of GPU", t0 * 1e3);
	CHECK(fabs(exposed - 0.1) < 1e-12, "overlap on: 100 ms of CPU is the step (%.6f s)", exposed);
	cost_release(&c);
}

static void test_max_seqs_and_decode_first(const struct model_cfg *m)
{
	/* 3 requests at t=0, max_num_seqs 2, budget 100, prompts 40, output 3:
	 * step 0 admits 0 (40) and 1 (40), not 2 (seq cap); step 1 decodes 0 and
	 * 1 first; request 2 waits until a slot frees */
	struct trun r = {.log = NULL, .csv = NULL};
	char buf[256];

	trun_init(&r, m, 100, 2, 1000, "0.0,40,3,\n0.0,40,3,\n0.0,40,3,\n");
	CHECK(trun_go(&r) == 0, "max_num_seqs run");
	CHECK(step_has(r.log, 0, ": 0+40 1+40 |", buf, sizeof(buf)), "step 0: two admissions, cap 2: %s", buf);
	CHECK(step_has(r.log, 1, ": 0+1 1+1 |", buf, sizeof(buf)) && strstr(buf, "wait 1"),
	      "step 1: decodes first, 1 waiting: %s", buf);
	CHECK(step_has(r.log, 3, ": 2+40 |", buf, sizeof(buf)), "request 2 admitted when a slot frees: %s", buf);
	trun_release(&r);

	/* decode-first with a token budget: 0 and 1 decoding, 2 arrives; budget
	 * 10 leaves 8 tokens for its prefill chunk after the two decodes */
	trun_init(&r, m, 10, 8, 1000, "0.0,5,50,\n0.0,5,50,\n0.05,30,2,\n");
	CHECK(trun_go(&r) == 0, "decode-first run");
	CHECK(strstr(r.log, ": 0+1 1+1 2+8 |") != NULL, "running decodes before the new prefill chunk (2+8)");
	trun_release(&r);
}

static void test_preemption(const struct model_cfg *m)
{
	/* 6 blocks of 16 tokens.  Two requests of 32 prompt tokens (2 blocks
	 * each) and 40 output tokens: they grow until the cache is full, then
	 * the most recently admitted (request 1) is preempted, request 0 goes on */
	struct trun r = {.log = NULL, .csv = NULL};
	const char *first;

	trun_init(&r, m, 256, 8, 6, NULL);
	r.sc.prefix_caching = false;
	trace_spec(&r.w, "0.0,32,40,\n0.0,32,40,\n");
	CHECK(trun_go(&r) == 0, "preemption run");
	first = strstr(r.log, "preempt ");
	CHECK(first && strncmp(first, "preempt 1 ", 10) == 0, "the newest request (1) is preempted first");
	CHECK(r.t.preemptions >= 1 && r.t.completed == 2, "both complete after %llu preemption(s)",
	      (unsigned long long)r.t.preemptions);
	CHECK(strstr(r.csv, "\n1,0,0,0.000000,32,40,0,") != NULL || count(r.csv, ",completed,") == 2,
	      "per-request rows written");
	trun_release(&r);
}

/* TensorRT-LLM's GUARANTEED_NO_EVICT (no_evict): the same two requests as
 * test_preemption (32 + 40 tokens = 5 blocks each, 6 blocks in all): the
 * second starts only once the first has finished and released its
 * reservation, and nothing is preempted; a request whose whole lifetime
 * needs more than the cache is refused as KV capacity. */
static void test_no_evict(const struct model_cfg *m)
{
	struct trun r = {.log = NULL, .csv = NULL};
	const char *r1;
	double q1 = -1;

	trun_init(&r, m, 256, 8, 6, NULL);
	r.sc.prefix_caching = false;
	r.sc.policy = policy_of("trtllm"); /* its no-evict admission (its prompts fit the budget whole) */
	trace_spec(&r.w, "0.0,32,40,\n0.0,32,40,\n");
	CHECK(trun_go(&r) == 0, "no-evict run");
	CHECK(r.t.preemptions == 0 && r.t.completed == 2, "both complete, %llu preemptions (want 0)",
	      (unsigned long long)r.t.preemptions);
	CHECK(strstr(r.log, "run 2 ") == NULL, "never two running at once");
	r1 = strstr(r.csv, "\n1,0,0,0.000000,32,40,0,0,completed,");
	CHECK(r1 && sscanf(r1 + strlen("\n1,0,0,0.000000,32,40,0,0,completed,"), "%lf", &q1) == 1 && q1 > 0,
	      "request 1 queued until request 0 finished (queue %.3f ms)", q1);
	free(r.log);
	free(r.csv);
	r.log = r.csv = NULL;
	trace_spec(&r.w, "0.0,32,80,\n");
	CHECK(trun_go(&r) == 0 && r.t.completed == 0 && r.t.rejected[REJ_KV_CAPACITY] == 1,
	      "a lifetime larger than the cache is refused (completed %llu)", (unsigned long long)r.t.completed);
	trun_release(&r);
}

static void test_prefix_cache(const struct model_cfg *m)
{
	/* shared_prefix with 1 group x 1 prompt: every request has the same
	 * 100 + 60 = 160-token prompt (10 full blocks); from the second request on,
	 * the lookup hits all but the last block (at most prompt - 1 tokens) */
	struct trun r = {.log = NULL, .csv = NULL};

	trun_init(&r, m, 512, 16, 200, NULL);
	fixture_sp_spec(&r.w, WL_CONSTANT, 2, 5, 1, 1, 100, 60, 4);
	CHECK(trun_go(&r) == 0, "prefix run");
	CHECK(r.t.prefix_lookup_tokens == 5 * 160, "lookups over 5 prompts");
	CHECK(r.t.prefix_hit_tokens == 4 * 144, "hits: 4 requests x 9 blocks x 16 = %llu",
	      (unsigned long long)r.t.prefix_hit_tokens);
	CHECK(strstr(r.log, " 1+16 ") != NULL, "a hit request computes only its last 16 tokens");
	trun_release(&r);
	/* off: no hits */
	make_cost(&r.c, m, 512, 16, 0);
	r.sc.prefix_caching = false;
	CHECK(trun_go(&r) == 0 && r.t.prefix_hit_tokens == 0, "no hits with caching off");
	trun_release(&r);
}

static void test_rejections(const struct model_cfg *m)
{
	struct trun r = {.log = NULL, .csv = NULL};

	trun_init(&r, m, 256, 8, 10, NULL);
	r.sc.max_model_len = 300;
	/* 200+200 > max_model_len; 150+20 needs 11 blocks > 10 */
	trace_spec(&r.w, "0.0,200,200,\n0.1,150,20,\n0.2,20,5,\n");
	CHECK(trun_go(&r) == 0, "rejection run");
	CHECK(r.t.rejected[REJ_TOO_LONG] == 1 && r.t.rejected[REJ_KV_CAPACITY] == 1 && r.t.completed == 1,
	      "one too long, one beyond KV capacity, one completed");
	CHECK(strstr(r.csv, "rejected:too_long") && strstr(r.csv, "rejected:kv_capacity"),
	      "rejections are reported, not dropped");
	trun_release(&r);
}

static void test_determinism_and_storm(const struct model_cfg *m)
{
	struct cost_model c;
	struct sim_cfg sc;
	struct wl_spec w;
	struct sim_totals t1, t2, t3;
	char *l1 = NULL, *c1 = NULL, *l2 = NULL, *c2 = NULL, *l3 = NULL, *c3 = NULL;

	make_cost(&c, m, 512, 64, 0);
	base_cfg(&sc, 512, 64, 2000);
	poisson_spec(&w, 30, 300, 10, 200, 11);
	run(&sc, &c, &w, &l1, &c1, &t1);
	run(&sc, &c, &w, &l2, &c2, &t2);
	CHECK(strcmp(c1, c2) == 0 && strcmp(l1, l2) == 0, "same seed: byte-identical CSV and step log");
	w.seed = 12;
	run(&sc, &c, &w, &l3, &c3, &t3);
	CHECK(strcmp(c1, c3) != 0, "different seed: different draws");
	free(l1); free(c1); free(l2); free(c2); free(l3); free(c3);
	/* storm: 40 blocks for 300 requests of ~300+100 tokens, invariants
	 * checked after every event */
	base_cfg(&sc, 512, 64, 40);
	w.seed = 11;
	CHECK(run(&sc, &c, &w, &l1, &c1, &t1) == 0, "preemption storm finishes");
	CHECK(t1.completed + t1.rejected[REJ_KV_CAPACITY] + t1.rejected[REJ_TOO_LONG] == 300,
	      "storm conserves requests: %llu completed + %llu rejected",
	      (unsigned long long)t1.completed,
	      (unsigned long long)(t1.rejected[0] + t1.rejected[1]));
	CHECK(t1.preemptions > 100, "storm preempts a lot (%llu)", (unsigned long long)t1.preemptions);
	free(l1); free(c1);
	cost_release(&c);
}

/* One run of sc (arrivals drawn inline, or ahead on a thread: thread)
 * over w: its status, message, CSV, step log, totals and summary. */
struct arun {
	int rc;
	struct err e;
	char *log, *csv;
	struct sim_totals t;
	struct metric_set ms;
	bool threaded;
	uint64_t sink_words;
};

static void arun_go(struct sim_cfg *sc, const struct cost_model *c, const struct wl_spec *w, bool thread,
		    struct arun *r)
{
	size_t ll = 0, cl = 0;
	FILE *lf = open_memstream(&r->log, &ll), *cf = open_memstream(&r->csv, &cl);
	struct sim *s = NULL;

	memset(&r->e, 0, sizeof(r->e));
	sc->step_log = lf;
	sc->requests_out = cf;
	sc->arrival_thread = thread;
	r->rc = sim_new(sc, c, w, &s, &r->e);
	if (r->rc == 0)
		r->rc = sim_run(s, &r->e);
	r->threaded = s && s->arrq;
	r->sink_words = s ? s->sink_words : 0;
	if (s) {
		r->t = *sim_totals(s);
		sim_summary(s, -1, &r->ms);
		sim_free(s);
	}
	fclose(lf);
	fclose(cf);
	sc->step_log = sc->requests_out = NULL;
	sc->arrival_thread = false;
}

static bool arun_same(const struct arun *a, const struct arun *b)
{
	return a->rc == b->rc && a->e.code == b->e.code && strcmp(a->e.msg, b->e.msg) == 0 &&
	       strcmp(a->log, b->log) == 0 && strcmp(a->csv, b->csv) == 0 &&
	       memcmp(&a->t, &b->t, sizeof(a->t)) == 0 && a->ms.e2e_ms.mean == b->ms.e2e_ms.mean &&
	       a->ms.ttft_ms.p99 == b->ms.ttft_ms.p99 &&
	       memcmp(&a->ms.itl_pooled_ms, &b->ms.itl_pooled_ms, sizeof(a->ms.itl_pooled_ms)) == 0 &&
	       memcmp(&a->ms.energy_j, &b->ms.energy_j, sizeof(a->ms.energy_j)) == 0;
}

static void arun_free(struct arun *r)
{
	free(r->log);
	free(r->csv);
}

/* on_request: stop (sim_cfg.stop) after the 100th row. */
static bool arr_stop;
static int arr_rows;
static void stop_rows(void *ctx, const struct sim_req_row *row)
{
	(void)ctx;
	(void)row;
	arr_stop = ++arr_rows >= 100;
}

/* sim_cfg.arrival_thread: the open-loop stream drawn ahead on a producer
 * thread (sim/arrq.h) gives the simulation the requests drawing them
 * inline gives, byte for byte (CSV, step log, totals, summary), with the
 * streams of LoRA adapters and images too; a trace's bad line fails the
 * run at the same request with the same status and message; a run cut
 * short (sim_cfg.stop) frees a producer that waits on a full ring; a
 * stream below SIM_ARRIVAL_THREAD_MIN, a closed loop and sessions keep
 * drawing inline. */
static void test_arrival_thread(const struct model_cfg *m)
{
	struct cost_model c;
	struct sim_cfg sc;
	struct wl_spec w;
	struct arun a, b;
	struct sim *s;
	struct err e;
	char *rows;
	size_t n, cap = 64 * 6000;
	int k;

	thread_load(&c, &sc, &w, m);
	w.lora.adapters = 8;
	w.lora.zipf_s = 1.1;
	sc.lora.max_loras = 4;
	sc.lora.rank = 16;
	sc.lora.dtype_bytes = 2;
	arun_go(&sc, &c, &w, false, &a);
	arun_go(&sc, &c, &w, true, &b);
	CHECK(a.rc == 0 && !a.threaded && b.threaded, "12,000 Poisson requests: drawn on a thread when asked (%d, %d)",
	      a.threaded, b.threaded);
	CHECK(arun_same(&a, &b) && a.t.completed == 12000,
	      "arrival thread: the same CSV, step log, totals and summary as inline (%llu completed)",
	      (unsigned long long)b.t.completed);
	CHECK(a.sink_words == 0 && b.sink_words > 100000 && isfinite(b.ms.energy_j) && b.ms.itl_pooled_ms.n > 0,
	      "with it the pooled gaps and the energy through the sinks' ring (%llu words, %.0f J), the same bits",
	      (unsigned long long)b.sink_words, b.ms.energy_j);
	arun_free(&a);
	arun_free(&b);
	memset(&sc.lora, 0, sizeof(sc.lora));

	/* a trace whose line 5,001 fails: the same error either way */
	rows = malloc(cap);
	for (n = 0, k = 0; k < 6000; k++)
		n += (size_t)snprintf(rows + n, cap - n, "%.3f,%d,%d,\n", k * 0.02, k == 4999 ? 0 : 100 + k % 50,
				      20 + k % 7);
	trace_spec(&w, rows);
	free(rows);
	arun_go(&sc, &c, &w, false, &a);
	arun_go(&sc, &c, &w, true, &b);
	CHECK(a.rc == -SS_EDATA && b.threaded && arun_same(&a, &b),
	      "a trace's bad line: the same status and message, after the same requests (%d: %s)", b.rc, b.e.msg);
	CHECK_STR_CONTAINS(b.e.msg, ":5001: 'prompt_tokens'", "the bad line named");
	arun_free(&a);
	arun_free(&b);
	unlink(w.trace);

	/* a short trace (a file: drawn on a thread whatever its length) */
	trace_spec(&w, "0.0,100,20,\n0.5,200,30,1\n0.5,300,10,1\n2.0,50,5,\n");
	arun_go(&sc, &c, &w, false, &a);
	arun_go(&sc, &c, &w, true, &b);
	CHECK(b.rc == 0 && b.threaded && arun_same(&a, &b) && b.t.completed == 4,
	      "a four-line trace: the same on a thread (%llu completed)", (unsigned long long)b.t.completed);
	arun_free(&a);
	arun_free(&b);
	unlink(w.trace);

	/* cut short with the producer asleep on a full ring */
	poisson_spec(&w, 40, 200000, 10, 200, 7);
	sc.arrival_thread = true;
	sc.on_request = stop_rows;
	sc.stop = &arr_stop;
	s = NULL;
	CHECK(sim_new(&sc, &c, &w, &s, &e) == 0 && sim_run(s, &e) == 0 && s->arrq && arr_rows >= 100 &&
	      s->tot.arrived < 200000, "a run cut short after 100 rows (%llu arrived): its producer stopped",
	      (unsigned long long)s->tot.arrived);
	sim_free(s);
	sc.on_request = NULL;
	sc.stop = NULL;

	/* not where it does not pay or would not give the same requests */
	poisson_spec(&w, 40, SIM_ARRIVAL_THREAD_MIN - 1, 10, 200, 7);
	s = NULL;
	CHECK(sim_new(&sc, &c, &w, &s, &e) == 0 && sim_run(s, &e) == 0 && !s->arrq,
	      "%d requests: drawn inline", SIM_ARRIVAL_THREAD_MIN - 1);
	sim_free(s);
	wl_spec_defaults(&w);
	w.process = WL_POISSON;
	w.rate = 40;
	w.num_requests = 0;
	w.sess.count = 10000;
	w.sess.turns.a = 2;
	w.sess.think_ms.a = 100;
	w.prompt.a = 100;
	w.output.a = 10;
	s = NULL;
	CHECK(sim_new(&sc, &c, &w, &s, &e) == 0 && sim_run(s, &e) == 0 && !s->arrq,
	      "sessions: drawn inline (%llu arrived)", s ? (unsigned long long)s->tot.arrived : 0ULL);
	sim_free(s);
	wl_spec_defaults(&w);
	w.process = WL_CONCURRENCY;
	w.concurrency = 8;
	w.num_requests = 20000;
	w.prompt.kind = w.output.kind = WL_FIXED;
	w.prompt.a = 100;
	w.output.a = 10;
	s = NULL;
	CHECK(sim_new(&sc, &c, &w, &s, &e) == 0 && sim_run(s, &e) == 0 && !s->arrq,
	      "a closed loop: drawn inline (%llu completed)", s ? (unsigned long long)s->tot.completed : 0ULL);
	sim_free(s);
	sc.arrival_thread = false;
	cost_release(&c);
}

/* One run's summary, per-request values and sustainability data, with
 * its records kept inline or through the sinks' ring (no CSV, no step log:
 * records_keep then writes to the ring). */
struct srun {
	struct metric_set ms;
	float *ttft, *e2e;
	double *arr;
	size_t narr;
	int kind;
	struct sim_flow fl;
	bool used, ok;
};

static void srun_go(struct sim_cfg *sc, const struct cost_model *c, const struct wl_spec *w, bool thread,
		    struct srun *r)
{
	struct sim *s = NULL;
	struct err e;
	const double *a;
	const struct sim_flow *f;

	memset(r, 0, sizeof(*r));
	sc->arrival_thread = thread;
	r->ok = sim_new(sc, c, w, &s, &e) == 0 && sim_run(s, &e) == 0;
	if (r->ok) {
		r->used = s->sink_recs_used;
		sim_summary(s, -1, &r->ms);
		r->ttft = calloc(20000, sizeof(float));
		r->e2e = calloc(20000, sizeof(float));
		sim_per_request_f(s, r->ttft, r->e2e, 20000);
		r->kind = (int)sim_flow_kind(s);
		a = sim_arrivals(s, &r->narr);
		if (r->narr) {
			r->arr = malloc(r->narr * sizeof(double));
			memcpy(r->arr, a, r->narr * sizeof(double));
		}
		if ((f = sim_flow(s, 0)) != NULL)
			r->fl = *f;
	}
	sim_free(s);
	sc->arrival_thread = false;
}

static bool srun_same(const struct srun *a, const struct srun *b)
{
	const struct dist_summary *da[] = {&a->ms.ttft_ms, &a->ms.itl_ms, &a->ms.tpot_ms, &a->ms.e2e_ms,
					   &a->ms.queue_ms, &a->ms.itl_pooled_ms};
	const struct dist_summary *dsb[] = {&b->ms.ttft_ms, &b->ms.itl_ms, &b->ms.tpot_ms, &b->ms.e2e_ms,
					   &b->ms.queue_ms, &b->ms.itl_pooled_ms};
	bool same = a->ok && b->ok && a->kind == b->kind && a->narr == b->narr &&
		    (a->narr == 0 || memcmp(a->arr, b->arr, a->narr * sizeof(double)) == 0) &&
		    memcmp(a->ttft, b->ttft, 20000 * sizeof(float)) == 0 &&
		    memcmp(a->e2e, b->e2e, 20000 * sizeof(float)) == 0;
	size_t k;

	for (k = 0; k < sizeof(da) / sizeof(da[0]); k++)
		same &= memcmp(da[k], dsb[k], sizeof(*da[k])) == 0;
	same &= a->ms.completed == b->ms.completed && a->ms.throughput_rps == b->ms.throughput_rps &&
		memcmp(&a->ms.energy_j, &b->ms.energy_j, sizeof(double)) == 0 &&
		memcmp(&a->ms.queue_share, &b->ms.queue_share, sizeof(double)) == 0 &&
		memcmp(&a->ms.running_per_rank, &b->ms.running_per_rank, sizeof(double)) == 0 &&
		a->ms.itl_pooled_mean_ms == b->ms.itl_pooled_mean_ms && a->ms.output_tok_s == b->ms.output_tok_s;
	same &= a->fl.arrived == b->fl.arrived && a->fl.completed == b->fl.completed &&
		a->fl.first_s == b->fl.first_s && a->fl.last_s == b->fl.last_s && a->fl.e2e_s == b->fl.e2e_s &&
		a->fl.sx == b->fl.sx && a->fl.sy == b->fl.sy && a->fl.sxx == b->fl.sxx && a->fl.sxy == b->fl.sxy;
	return same;
}

static void srun_free(struct srun *r)
{
	free(r->ttft);
	free(r->e2e);
	free(r->arr);
}

/* The records through the sinks' ring (records.c records_sink): with no
 * CSV, step log or row callback the completions and arrivals are kept on
 * the consumer's thread, and the summary, per-request values and
 * sustainability data are those kept inline, bit for bit, with the
 * records kept exactly and folded into histograms and sketches past
 * sim_cfg.exact_max. */
static void test_sink_records(const struct model_cfg *m)
{
	struct cost_model c;
	struct sim_cfg sc;
	struct wl_spec w;
	struct srun a, b;

	thread_load(&c, &sc, &w, m);
	srun_go(&sc, &c, &w, false, &a);
	srun_go(&sc, &c, &w, true, &b);
	CHECK(!a.used && b.used && a.kind == SIM_FLOW_EXACT && srun_same(&a, &b),
	      "records through the sinks' ring: the same summary, per-request values and arrivals (%zu)", b.narr);
	srun_free(&a);
	srun_free(&b);
	sc.exact_max = 3000;
	srun_go(&sc, &c, &w, false, &a);
	srun_go(&sc, &c, &w, true, &b);
	CHECK(b.used && a.kind == SIM_FLOW_SKETCH && srun_same(&a, &b) && b.fl.completed > 0,
	      "and folded into histograms and sketches past 3,000 records on the consumer: the same (%llu completions sketched)",
	      (unsigned long long)b.fl.completed);
	srun_free(&a);
	srun_free(&b);
	cost_release(&c);
}

/* sim/sinkq.h: gap adds and step energies through the ring (wrapping it
 * several times, records that straddle its end, steps whose chunks pass
 * SINKQ_REC_MAX and go as joules) come out with the bits of the same adds
 * made inline: the distributions past WDIST_EXACT_MAX distinct values
 * (bucketed, whose sums depend on their order) and the energy sum. */
static void test_sinkq(const struct model_cfg *m)
{
	struct cost_model c;
	struct wdist *in = calloc(256, sizeof(*in)), *th = calloc(256, sizeof(*th));
	struct sinkq_rep rep;
	struct sinkq_w w;
	struct sinkq *q;
	struct pcg32 rng;
	int64_t len[600], pre[600];
	double e_in = 0, e_th;
	uint64_t words;
	cpu_set_t one, was;
	bool same = true, joules = false, sketched = false, pinned;
	int i, k;

	make_cost(&c, m, 2048, 64, 0);
	memset(&rep, 0, sizeof(rep));
	rep.cost = &c;
	power_model_of(c.g, &rep.power);
	rep.gpus = 2;
	rep.peak = c.peak;
	rep.hbm_bw = c.g->hbm_bw;
	for (k = 0; k < 256; k++) {
		wdist_init(&in[k]);
		wdist_init(&th[k]);
	}
	pcg32_seed(&rng, 31, 7);
	/* (on one CPU, so that the writer outruns the consumer and finds the
	 * ring full, where the scheduler lets it) */
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	pinned = sched_getaffinity(0, sizeof(was), &was) == 0 && sched_setaffinity(0, sizeof(one), &one) == 0;
	q = sinkq_start(th, 0.0, &rep, 1, NULL, NULL, &w);
	CHECK(q != NULL, "sinkq: a consumer started");
	if (!q)
		return;
	for (i = 0; i < 200000; i++) {
		int st = (int)pcg32_bounded(&rng, 2);
		double x = 1 + pcg32_double(&rng) * 100, t, f, b, j;
		uint64_t n = 1 + pcg32_bounded(&rng, 40);
		struct step_desc d;
		wdist_add(&in[st], x, n);
		sinkq_gap(&w, st, x, n);
		memset(&d, 0, sizeof(d));
		d.ndecode = pcg32_bounded(&rng, 64);
		d.decode_ctx_sum = (double)d.ndecode * (100 + pcg32_bounded(&rng, 4000));
		d.nchunks = i % 5000 == 77 ? 600 : pcg32_bounded(&rng, 4) == 0 ? 1 + pcg32_bounded(&rng, 3) : 0;
		for (k = 0; k < d.nchunks; k++) {
			len[k] = 1 + pcg32_bounded(&rng, 700);
			pre[k] = pcg32_bounded(&rng, 3000);
		}
		d.chunk_len = len;
		d.chunk_prefix = pre;
		d.nlogits = d.ndecode + (d.nchunks > 0); /* (carried in the record: the LM head's work) */
		t = 0.005 + pcg32_double(&rng) * 0.05;
		cost_step_work(&c, &d, &f, &b);
		j = rep.gpus * power_step_j(&rep.power, t, f, rep.peak, b, rep.hbm_bw);
		e_in += j;
		if (!sinkq_step(&w, 0, &c, t, &d)) {
			joules = true;
			sinkq_joules(&w, j);
		}
	}
	words = w.head;
	e_th = sinkq_stop(q, &w);
	if (pinned)
		sched_setaffinity(0, sizeof(was), &was);
	for (k = 0; k < 256; k++) {
		struct dist_summary a, b;
		wdist_summarise(&in[k], &a);
		wdist_summarise(&th[k], &b);
		same &= memcmp(&a, &b, sizeof(a)) == 0 && wdist_exact(&in[k]) == wdist_exact(&th[k]);
		sketched |= !wdist_exact(&in[k]);
		wdist_release(&in[k]);
		wdist_release(&th[k]);
	}
	CHECK(same && sketched && words > 2 * SINKQ_SIZE,
	      "sinkq: 200,000 gap adds (bucketed past %u values; %llu words, the ring %llu), the same distributions bit for bit",
	      WDIST_EXACT_MAX, (unsigned long long)words, (unsigned long long)SINKQ_SIZE);
	CHECK(memcmp(&e_in, &e_th, sizeof(e_in)) == 0 && joules && e_in > 0,
	      "sinkq: 200,000 step energies (some as joules), the same sum bit for bit (%.17g J; the ring full %llu times)",
	      e_th, (unsigned long long)w.waits);
	free(in);
	free(th);
	cost_release(&c);
}

/* The hash table starts small and doubles as blocks register: every
 * lookup finds its block whatever the size, evictions (backward-shift
 * deletions) keep it so, and the accounting holds. */
static void test_kvcache_grow(void)
{
	enum { N = 20000 };
	struct kvc k;
	char why[200] = "";
	int32_t *b = malloc(N * sizeof(*b));
	uint32_t cap0;
	size_t i, miss = 0;

	kvc_init(&k, N, true);
	cap0 = k.tmask + 1;
	for (i = 0; i < N; i++) {
		b[i] = kvc_alloc_named(&k);
		kvc_register(&k, b[i], 0x9e3779b97f4a7c15ULL * (i + 1));
	}
	for (i = 0; i < N; i++)
		miss += kvc_lookup(&k, 0x9e3779b97f4a7c15ULL * (i + 1)) != b[i];
	CHECK(cap0 <= 1024 && k.tmask + 1 >= 4u * N && miss == 0 && kvc_check(&k, why, sizeof(why)),
	      "table grown from %u to %u slots for %d blocks: every lookup finds its block (%zu miss; %s)",
	      cap0, k.tmask + 1, N, miss, why);
	for (i = 0; i < N; i++) /* freed, then half evicted by new allocations */
		kvc_put(&k, b[i]);
	kvc_alloc_anon(&k, N / 2);
	for (i = 0, miss = 0; i < N; i++)
		miss += kvc_lookup(&k, 0x9e3779b97f4a7c15ULL * (i + 1)) != (i < N / 2 ? -1 : b[i]);
	CHECK(miss == 0 && k.tcount == N / 2 && kvc_check(&k, why, sizeof(why)),
	      "after evicting the oldest half the other half is still found (%zu wrong; %s)", miss, why);
	kvc_release(&k);
	free(b);
}

/* Three named blocks of k into *a, *b, *c, registered with the hashes
 * hash, hash + 1, hash + 2. */
static void named3(struct kvc *k, uint64_t hash, int32_t *a, int32_t *b, int32_t *c)
{
	*a = kvc_alloc_named(k);
	*b = kvc_alloc_named(k);
	*c = kvc_alloc_named(k);
	kvc_register(k, *a, hash);
	kvc_register(k, *b, hash + 1);
	kvc_register(k, *c, hash + 2);
}

static void test_kvcache(void)
{
	struct kvc k;
	char why[200] = "";
	int32_t a, b;

	kvc_init(&k, 4, true);
	a = kvc_alloc_named(&k);
	b = kvc_alloc_named(&k);
	kvc_register(&k, a, 111);
	CHECK(kvc_lookup(&k, 111) == a && kvc_lookup(&k, 222) == -1, "register and lookup");
	kvc_put(&k, a);
	CHECK(kvc_available(&k) == 3 && k.nevict == 1, "freed cached block is evictable");
	kvc_acquire(&k, a);
	CHECK(k.nevict == 0 && kvc_used(&k) == 2, "a hit takes it back");
	kvc_put(&k, a);
	/* two anonymous blocks freed as one batch after a */
	kvc_alloc_anon(&k, 1);
	kvc_alloc_anon(&k, 1); /* uses the last free blocks, nothing evicted */
	CHECK(kvc_lookup(&k, 111) == a && k.evictions == 0, "free blocks used before evicting");
	kvc_put_anon(&k, 2, 0);
	CHECK(k.nevict == 3 && kvc_check(&k, why, sizeof(why)), "batch of 2 on the LRU (%s)", why);
	kvc_alloc_anon(&k, 1); /* evicts the oldest: a */
	CHECK(kvc_lookup(&k, 111) == -1 && k.evictions == 1, "LRU order: the named block freed first goes first");
	kvc_alloc_named(&k); /* then one of the batch */
	CHECK(k.evictions == 2 && k.nevict == 1, "then the anonymous batch");
	CHECK(kvc_check(&k, why, sizeof(why)), "accounting consistent (%s)", why);
	kvc_put(&k, b);
	CHECK(k.nfree == 1 && kvc_check(&k, why, sizeof(why)), "unregistered block goes back to the free pool");
	kvc_release(&k);
	/* caching off: nothing lingers */
	kvc_init(&k, 2, false);
	kvc_alloc_anon(&k, 1);
	kvc_put_anon(&k, 1, 0);
	CHECK(k.nfree == 2 && k.nevict == 0, "caching off: freed blocks are simply free");
	kvc_release(&k);
	/* watched blocks (the scheduler's memo of a waiting request's hits):
	 * a chain of three cached blocks, freed tail first */
	{
		int32_t c0, c1, c2;
		uint64_t reg0;
		kvc_init(&k, 4, true);
		named3(&k, 10, &c0, &c1, &c2);
		CHECK(k.registered == 3, "three registrations counted");
		kvc_put(&k, c2);
		kvc_put(&k, c1);
		kvc_put(&k, c0);
		kvc_watch(&k, c0, 0);
		kvc_watch(&k, c1, 1);
		kvc_watch(&k, c2, 2);
		k.watch_cut = INT32_MAX;
		k.watch_touched = false;
		reg0 = k.registered;
		kvc_alloc_anon(&k, 1); /* the free block: nothing evicted */
		CHECK(k.watch_cut == INT32_MAX && !k.watch_touched, "no eviction: the watch says nothing");
		kvc_alloc_anon(&k, 1); /* evicts the oldest: c2, position 2 */
		CHECK(k.watch_cut == 2 && k.watch[c2] == -1 && !k.watch_touched,
		      "evicting the chain's tail cuts the watch at position 2 and unwatches it");
		k.watch_cut = INT32_MAX;
		kvc_acquire(&k, c0);
		CHECK(k.watch_touched, "a watched block taken by a hit touches the watch");
		k.watch_touched = false;
		kvc_put(&k, c0);
		CHECK(k.watch_touched, "and so does its release");
		kvc_unwatch(&k, c0, 0);
		kvc_unwatch(&k, c1, 0); /* not at that position: kept */
		CHECK(k.watch[c0] == -1 && k.watch[c1] == 1, "unwatch only at the watched position");
		kvc_register(&k, kvc_alloc_named(&k), 13);
		CHECK(k.registered == reg0 + 1 && kvc_check(&k, why, sizeof(why)),
		      "a new registration is counted (%s)", why);
		kvc_release(&k);
	}
}

/* KV offload: a GPU pool of 3 blocks over a host tier of 2.  Blocks the
 * GPU evicts are written to the host (new content counted in `stored`,
 * content it holds already only made its newest), anonymous ones as a
 * batch that takes room; the host evicts its oldest when full. */
static void test_kvcache_host(void)
{
	struct kvc g, h;
	char why[200] = "";
	int32_t a, b, c;

	kvc_init(&g, 3, true);
	kvc_init(&h, 2, true);
	g.lower = &h;
	named3(&g, 21, &a, &b, &c);
	kvc_put(&g, a);
	kvc_put(&g, b);
	kvc_put(&g, c); /* LRU: 21, 22, 23 */
	kvc_alloc_anon(&g, 1); /* evicts 21: written to the host */
	CHECK(kvc_lookup(&g, 21) == -1 && kvc_lookup(&h, 21) >= 0 && h.stored == 1,
	      "a block the GPU evicts is written to the host");
	kvc_alloc_anon(&g, 1); /* 22 too */
	CHECK(kvc_lookup(&h, 22) >= 0 && h.stored == 2 && kvc_check(&h, why, sizeof(why)),
	      "the host holds both (%s)", why);
	kvc_touch(&h, kvc_lookup(&h, 21)); /* a hit on 21: 22 is now the host's oldest */
	kvc_put_anon(&g, 2, 0); /* the GPU's LRU: 23, then a batch of 2 */
	kvc_alloc_named(&g); /* evicts 23: the host is full, 22 goes */
	CHECK(kvc_lookup(&h, 23) >= 0 && kvc_lookup(&h, 22) == -1 && kvc_lookup(&h, 21) >= 0 && h.stored == 3,
	      "the host evicts its least recently used block (22, not the touched 21)");
	kvc_alloc_anon(&g, 2); /* evicts the anonymous batch of 2: it fills the host */
	CHECK(kvc_lookup(&h, 21) == -1 && kvc_lookup(&h, 23) == -1 && h.stored == 5 && h.nevict == 2,
	      "an anonymous batch takes the host's room (nothing can look it up)");
	CHECK(kvc_check(&g, why, sizeof(why)) && kvc_check(&h, why, sizeof(why)), "both tiers consistent (%s)", why);
	kvc_spill(&h, 99);
	kvc_spill(&h, 99);
	CHECK(h.stored == 6, "content the host holds is not written twice");
	kvc_release(&g);
	kvc_release(&h);
}

/* vLLM's hybrid pool (winblocks.h): a request's sliding-window blocks are
 * taken with its chunk and freed once they leave the window.  Window 128,
 * blocks of 16 (gpt-oss): a 2000-token chunk takes 125 window blocks; once
 * computed, the blocks before token 2000 - 128 + 1 = 1873 (117 of them)
 * go back and 8 stay; its first decode takes one more (9); at 2015
 * computed the window starts at 1888, block 118: one freed (8 held). */
static void test_winblocks(const struct model_cfg *m)
{
	static struct sim s;
	static struct replica rp;
	struct req q;
	struct trun r = {.log = NULL, .csv = NULL};

	memset(&s, 0, sizeof(s));
	memset(&rp, 0, sizeof(rp));
	memset(&q, 0, sizeof(q));
	s.cfg.block_size = 16;
	s.cfg.kv_window.tokens = 128;
	s.cfg.kv_window.groups = 1;
	kvc_init(&rp.kv, 300, false);
	CHECK(winblk_skipped(&s, 127) == 0 && winblk_skipped(&s, 143) == 1 && winblk_skipped(&s, 2000) == 117,
	      "skipped blocks at 127 / 143 / 2000 computed: 0 / 1 / 117 (got %lld %lld %lld)",
	      (long long)winblk_skipped(&s, 127), (long long)winblk_skipped(&s, 143),
	      (long long)winblk_skipped(&s, 2000));
	CHECK(winblk_need(&s, &q, 2000) == 125, "a 2000-token first chunk takes 125 window blocks (%d)",
	      winblk_need(&s, &q, 2000));
	winblk_take(&s, &rp, &q, winblk_need(&s, &q, 2000));
	CHECK(kvc_available(&rp.kv) == 175 && q.nwin == 125, "125 held, 175 free (%d)", kvc_available(&rp.kv));
	q.computed = 2000;
	winblk_skip(&s, &rp, &q);
	CHECK(q.nwin == 8 && kvc_available(&rp.kv) == 292, "once computed, 117 leave the window: 8 held, 292 free (%d, %d)",
	      q.nwin, kvc_available(&rp.kv));
	CHECK(winblk_need(&s, &q, 1) == 1, "its first decode step takes one (block 125)");
	winblk_take(&s, &rp, &q, 1);
	q.computed = 2015;
	winblk_skip(&s, &rp, &q);
	CHECK(q.nwin == 8 && winblk_need(&s, &q, 1) == 0, "at 2015 computed block 117 leaves: 8 held, none to take (%d)",
	      q.nwin);
	s.cfg.kv_window.groups = 2;
	CHECK(winblk_target(&s, &q, 1) == 16, "two sliding groups: twice the blocks (%d)", winblk_target(&s, &q, 1));
	winblk_free(&s, &rp, &q);
	CHECK(q.nwin == 0 && kvc_available(&rp.kv) == 300, "all back to the pool (%d free)", kvc_available(&rp.kv));
	kvc_release(&rp.kv);

	/* a run: 64 prompt + 40 output tokens, window 32, 10 blocks.  Its full
	 * group ends at 7 blocks, its window holds at most 3 once decoding: it
	 * fits; kept whole (7 + 7) it would not.  Two sliding groups need more. */
	trun_init(&r, m, 256, 8, 10, "0.0,64,40,\n");
	r.sc.prefix_caching = false;
	r.sc.kv_window.tokens = 32;
	r.sc.kv_window.groups = 1;
	CHECK(trun_go(&r) == 0 && r.t.completed == 1 && r.t.preemptions == 0,
	      "window 32 in a 10-block pool: completes, no preemption (%llu completed, %llu preemptions)",
	      (unsigned long long)r.t.completed, (unsigned long long)r.t.preemptions);
	free(r.log);
	free(r.csv);
	r.log = r.csv = NULL;
	r.sc.kv_window.groups = 2;
	CHECK(trun_go(&r) == 0 && r.t.completed == 0 && r.t.rejected[REJ_KV_CAPACITY] == 1,
	      "two sliding groups: its first chunk's 4 + 2 x 4 blocks do not fit 10, refused (%llu completed)",
	      (unsigned long long)r.t.completed);
	free(r.log);
	free(r.csv);
	r.log = r.csv = NULL;
	r.sc.total_kv_blocks = 12; /* admitted; at 96 computed 7 + 2 x 3 do not fit: preempted */
	CHECK(trun_go(&r) == 0 && r.t.preemptions >= 1 && r.t.rejected[REJ_KV_CAPACITY] == 1,
	      "two sliding groups in 12 blocks: preempted (%llu), then refused: its recompute never fits",
	      (unsigned long long)r.t.preemptions);
	trun_release(&r);
}

static void test_memplan(void)
{
	/* vLLM 0.11 logs (eval ground truth): CodeLlama-34B TP1 on H100 */
	struct model_cfg m;
	struct memplan mp;
	struct parallel p = {1, 1, 1, 1, 0, 0};
	struct err e;

	load_model("codellama-34b", &m);
	memplan_compute(&m, gpu("h100"), &p, DT_BF16, DT_BF16, 0.9, 16, 64, 32, &mp, &e);
	CHECK_REL((double)mp.blocks, 2790, 0.005, "CodeLlama-34B blocks at budget 64 / 32 seqs vs vLLM log 2790");
	memplan_compute(&m, gpu("h100"), &p, DT_BF16, DT_BF16, 0.9, 16, 4096, 256, &mp, &e);
	CHECK_REL((double)mp.blocks, 2537, 0.005, "CodeLlama-34B blocks at budget 4096 / 256 seqs vs vLLM log 2537");
	load_model("llama-2-70b", &m);
	err_clear(&e);
	CHECK(memplan_compute(&m, gpu("h100"), &p, DT_BF16, DT_BF16, 0.9, 16, 2048, 128, &mp, &e) == -SS_EUSAGE &&
	      strstr(e.msg, "does not fit") && strstr(e.msg, "138.0 GB"), "70B at TP1 does not fit: %s", e.msg);
	/* SGLang's static pool is mem_fraction_static of the memory free before
	 * the weights load: 1.2 GiB in use on one GPU, 2.3 GiB on more
	 * (sglang.h, from SGLang's "Load weight begin. avail mem" lines) */
	CHECK(sglang_preload_bytes(1) == 1.2 * 1073741824.0 && sglang_preload_bytes(4) == 2.3 * 1073741824.0,
	      "sglang memory in use before the weights load: one GPU 1.2 GiB, more 2.3 GiB");
	{
		/* Qwen3-235B-A22B-FP8, TP 4 on H100, --mem-fraction-static 0.93:
		 * KV = (79.65 - 2.30) GiB x 0.93 - weights; SGLang logged 367,404
		 * tokens (vllm-project/vllm issue 21348, eval/memory: not fitted) */
		struct parallel p4 = {4, 1, 1, 1, 0, 0};
		double want;

		load_model("qwen3-235b-a22b", &m);
		err_clear(&e);
		CHECK(memplan_compute_static(&m, gpu("h100"), &p4, DT_FP8, DT_BF16, sglang_preload_bytes(4), 0.93, 1,
					     1024, &mp, &e) == 0,
		      "qwen3-235b tp4 static plan (%s)", e.msg);
		want = (gpu("h100")->mem_bytes - 2.3 * 1073741824.0) * 0.93 - mp.weight_bytes;
		CHECK(fabs(mp.kv_bytes - want) <= 1e-9 * want,
		      "static pool: (mem - preload) x 0.93 - weights = %.3f GiB", mp.kv_bytes / 1073741824.0);
		CHECK(fabs(mp.blocks / 367404.0 - 1) < 0.05, "qwen3-235b tp4 tokens %lld within 5%% of SGLang's 367404",
		      (long long)mp.blocks);
	}
	{
		/* vLLM's plan for gpt-oss-120b, TP 1 on H100, 0.9, budget 8192,
		 * 1024 sequences (vllmmem.c).  A block: 18 full layers x 8 KV
		 * heads x (64 + 64) x 2 bytes x 16 tokens = 589,824 bytes; the
		 * hybrid pool reserves no window KV per sequence.  The forward
		 * pass's term: 8192 x (3 + 4) x 2880 x 2 + 1024 x 201,088 x 4 =
		 * 1,153,957,888 bytes; the sampler's: 1024 x 201,088 x 14 =
		 * 2,882,797,568, 1,728,839,680 more off the KV memory. */
		double kv0;
		int64_t blocks0;

		load_model("gpt-oss-120b", &m);
		err_clear(&e);
		CHECK(memplan_compute(&m, gpu("h100"), &p, DT_BF16, DT_BF16, 0.9, 16, 8192, 1024, &mp, &e) == 0,
		      "gpt-oss-120b memplan (%s)", e.msg);
		CHECK(mp.block_bytes == 589824.0 && mp.state_bytes > 0, "block 589,824 bytes (%.0f), window KV reserved",
		      mp.block_bytes);
		CHECK(mp.activation_bytes == 1153957888.0, "forward pass 1,153,957,888 bytes (%.0f)", mp.activation_bytes);
		kv0 = mp.kv_bytes;
		blocks0 = mp.blocks;
		memplan_share_windows(&mp, 1);
		CHECK(mp.state_bytes == 0 && mp.blocks == (int64_t)floor(kv0 / 589824.0) && mp.blocks > blocks0,
		      "hybrid pool: every byte in blocks, %lld (was %lld)", (long long)mp.blocks, (long long)blocks0);
		CHECK(memplan_profile_peak(&mp, 1024.0 * 201088.0 * 14.0, &e) == 0 &&
		      mp.activation_bytes == 2882797568.0 && mp.kv_bytes == kv0 - 1728839680.0 &&
		      mp.blocks == (int64_t)floor((kv0 - 1728839680.0) / 589824.0) && mp.forward_bytes == 1153957888.0,
		      "sampler peak: activations 2,882,797,568, %lld blocks", (long long)mp.blocks);
		/* a smaller sampler run leaves the plan as it was */
		load_model("codellama-34b", &m);
		memplan_compute(&m, gpu("h100"), &p, DT_BF16, DT_BF16, 0.9, 16, 64, 32, &mp, &e);
		blocks0 = mp.blocks;
		CHECK(memplan_profile_peak(&mp, 32.0 * 32000.0 * 14.0, &e) == 0 && mp.blocks == blocks0 &&
		      mp.sampler_bytes == 0, "CodeLlama-34B: the forward pass's peak stays (%lld blocks)",
		      (long long)mp.blocks);
	}
}

static void test_cost_kat(const struct model_cfg *m)
{
	/* Llama-2-7B decode, batch 1, 100-token context, H100: memory-bound.
	 * Weights 6.7384e9 x 2 B = 13.477 GB over 3.35e12 x 0.8 B/s = 5.029 ms;
	 * default overheads 0 + 32 x 5 + 0 us = 0.160 ms. */
	struct cost_model c;
	struct step_desc d;
	int64_t len = 4096, pre = 0;
	double t, want_w = 6738415616.0 * 2 / (3.35e12 * 0.8);

	make_cost(&c, m, 8192, 256, 0);
	memset(&d, 0, sizeof(d));
	d.ndecode = 1;
	d.decode_ctx_sum = 100;
	d.nlogits = 1;
	t = cost_step_s(&c, &d);
	CHECK(t > want_w + 0.000160 && t < (want_w + 0.000160) * 1.10,
	      "decode B=1: %.3f ms within 10%% above weights/(BW x 0.8) + overheads = %.3f ms", t * 1e3,
	      (want_w + 0.000160) * 1e3);
	/* 4096-token prefill: compute-bound: the time exceeds FLOPs at peak by
	 * the MFU factor, and the bytes term is far below it */
	memset(&d, 0, sizeof(d));
	d.nchunks = 1;
	d.chunk_len = &len;
	d.chunk_prefix = &pre;
	d.nlogits = 1;
	t = cost_step_s(&c, &d) - cost_overhead_s(&c, 1, len);
	{
		double flops = 2 * 6476005376.0 * 4096 + 4 * 32 * 4096 * (4096.0 * 4097 / 2) + 2 * 4096 * 32000.0;
		double tmin = flops / 989.4e12, tbytes = 13.477e9 / (3.35e12 * 0.8);
		CHECK(t > tmin && t < tmin / 0.5, "prefill 4096: %.2f ms between FLOPs/peak %.2f ms and FLOPs/(0.5 peak)",
		      t * 1e3, tmin * 1e3);
		CHECK(t > 5 * tbytes, "prefill 4096 is compute-bound (%.2f ms >> weights %.2f ms)", t * 1e3, tbytes * 1e3);
	}
	/* H2 off removes exactly the overhead */
	{
		struct cost_model c2;
		memset(&d, 0, sizeof(d));
		d.ndecode = 3;
		d.decode_ctx_sum = 900;
		d.nlogits = 3;
		make_cost(&c2, m, 8192, 256, COST_H2);
		CHECK(fabs(cost_step_s(&c, &d) - cost_step_s(&c2, &d) - (32 * 5) * 1e-6) < 1e-12,
		      "H2 off removes the 32 x 5 us layer term");
		cost_release(&c2);
	}
	/* tier 2: paged-KV reads at 0.5 instead of 0.8 of the HBM bandwidth make
	 * a memory-bound decode attention 0.8/0.5 = 1.6x slower */
	{
		struct cost_model c2;
		struct cost_cfg cc;
		struct parallel p = {1, 1, 1, 1, 0, 0};
		struct tier2 t2;
		char path[1200];
		struct err e2;
		double base_attn, t2_attn;
		snprintf(path, sizeof(path), "%.900s/../tests/unit/fixtures/tier2-test.json", datadir);
		CHECK(tier2_load(path, &t2, &e2) == 0 && t2.bw_eff_kv == 0.5, "tier-2 file loads");
		fixture_cost_cfg(&cc, 8192, 256, 0);
		cc.tier2 = &t2;
		cost_init(&c2, m, gpu("h100"), &p, &cc, datadir, &e2);
		base_attn = cost_attn_decode_s(&c, 64, 64 * 4096.0);
		t2_attn = cost_attn_decode_s(&c2, 64, 64 * 4096.0);
		CHECK_REL(t2_attn / base_attn, 0.8 / 0.5, 0.02, "tier 2: KV-bound decode attention scales with its efficiency");
		cost_release(&c2);
	}
	/* CUDA-graph padding: 9 decode requests run as 16 */
	CHECK(cost_graph_pad(&c, 9) == 16 && cost_graph_pad(&c, 3) == 4 && cost_graph_pad(&c, 513) == 513,
	      "graph padding 9->16, 3->4, 513 unpadded");
	cost_release(&c);
}

/* Attention-DP (issue 11): Mixtral with DP 2 x EP 2.  The MoE part of a
 * rank's step follows the tokens of all ranks; experts are split over the
 * ranks; the ranks step in lockstep (a request routed to an idle rank
 * starts with the next group step, on the same clock as the busy rank). */
static void test_dp_attention(void)
{
	struct trun r = {.log = NULL, .csv = NULL};
	struct model_cfg m;
	struct cost_cfg cc;
	struct parallel p = {1, 1, 2, 2, 0, 0}, one = {1, 1, 1, 1, 0, 0};
	struct step_desc d;
	struct err e;
	int64_t len = 200, pre = 0;
	double t_own, t_2x, t_8x, w1, w2;
	char buf[256], t_r0[32] = "", t_r1[32] = "";
	const char *l;

	load_model("mixtral-8x7b", &m);
	w1 = model_weight_bytes_per_gpu(&m, &one, 2);
	w2 = model_weight_bytes_per_gpu(&m, &p, 2);
	{
		struct param_counts pc;
		model_params(&m, &pc);
		CHECK_REL(w1 - w2, pc.experts / 2 * 2, 1e-9, "EP 2 over DP 2: each GPU holds half the experts");
	}
	fixture_cost_cfg(&cc, 2048, 64, 512);
	CHECK(cost_init(&r.c, &m, gpu("h100"), &p, &cc, datadir, &e) == 0 && r.c.dp_attn, "DP 2 MoE cost model is attention-DP");
	memset(&d, 0, sizeof(d));
	d.nchunks = 1;
	d.chunk_len = &len;
	d.chunk_prefix = &pre;
	d.nlogits = 1;
	t_own = cost_step_s(&r.c, &d);
	d.moe_tokens = 2 * len;
	t_2x = cost_step_s(&r.c, &d);
	d.moe_tokens = 8 * len;
	t_8x = cost_step_s(&r.c, &d);
	CHECK(t_own == t_2x, "moe_tokens 0 means every rank runs the same tokens (%.6g = %.6g)", t_own, t_2x);
	CHECK(t_8x > t_2x, "more tokens on the other ranks make the shared MoE part dearer (%.4f > %.4f ms)",
	      t_8x * 1e3, t_2x * 1e3);
	/* lockstep: request 0 on rank 0 at t=0, request 1 (least outstanding:
	 * rank 1) arrives during rank 0's first step */
	base_cfg(&r.sc, 2048, 64, 1000);
	r.sc.dp = 2;
	r.sc.lockstep = true;
	trace_spec(&r.w, "0,200,3,-1\n0.0001,200,3,-1\n");
	CHECK(trun_go(&r) == 0 && r.t.completed == 2, "lockstep run completes both");
	l = step_at(r.log, 1, buf, sizeof(buf), t_r0);
	CHECK(strstr(l, " r0: 0+1 ") != NULL, "then rank 0's first decode: %s", l);
	l = step_at(r.log, 2, buf, sizeof(buf), t_r1);
	CHECK(strstr(l, " r1: 1+200 ") != NULL && strcmp(t_r0, t_r1) == 0,
	      "rank 1's prefill starts with it, in the same group step (t=%s, t=%s)", t_r0, t_r1);
	free(r.log);
	free(r.csv);
	wl_spec_release(&r.w);
	/* P/D with attention-DP workers: one prefill worker of 2 ranks
	 * (replicas 0-1) and two decode workers of 2 ranks (2-3, 4-5); the
	 * ranks of a worker step together, the workers apart */
	base_cfg(&r.sc, 2048, 64, 1000);
	r.sc.dp = 4;
	r.sc.lockstep = true;
	pd_cfg(&r.sc, 2, &r.c, 1000, 2048, 1e5);
	r.sc.pd.prefill_group = 2;
	r.sc.pd.decode_group = 2;
	trace_spec(&r.w, "0,200,3,-1\n0,300,3,-1\n");
	CHECK(trun_go(&r) == 0 && r.t.completed == 2 && r.t.pd_transfers == 2,
	      "P/D attention-DP run completes both (invariants checked)");
	l = step_at(r.log, 0, buf, sizeof(buf), t_r0);
	CHECK(strstr(l, " r0: 0+200 ") != NULL, "prefill rank 0 takes request 0: %s", l);
	l = step_at(r.log, 1, buf, sizeof(buf), t_r1);
	CHECK(strstr(l, " r1: 1+300 ") != NULL && strcmp(t_r0, t_r1) == 0,
	      "prefill rank 1 takes request 1 in the same group step (t=%s, t=%s)", t_r0, t_r1);
	/* the decode workers in turn (router_decode_rank: a P/D frontend's
	 * round-robin, its own count), each request on its worker's
	 * least-loaded rank: request 0 on rank 2 (the first decode worker),
	 * request 1 on rank 4 (the second), and the two workers step apart */
	l = step_at(r.log, 2, buf, sizeof(buf), t_r0);
	l = step_at(r.log, 3, buf, sizeof(buf), t_r1);
	CHECK(strstr(r.log, " r3:") == NULL && strstr(r.log, " r5:") == NULL &&
		      strstr(line_n(r.log, 2, buf, sizeof(buf)), " r2: 0+1 ") &&
		      strstr(line_n(r.log, 3, buf, sizeof(buf)), " r4: 1+1 ") && strcmp(t_r0, t_r1) != 0,
	      "request 0 decodes on the first decode worker's rank 2, request 1 on the second's rank 4, the workers "
	      "apart (t=%s, t=%s)", t_r0, t_r1);
	/* SGLang's P/D prefill ranks (sim_cfg.pd.prefill_rank_random): eight
	 * prompts at once on one prefill worker of 2 ranks.  The router alone
	 * alternates them (ids 0, 2, 4, 6 on rank 0); drawn at random, as the
	 * bootstrap room decides, rank 0 takes another set */
	wl_spec_release(&r.w);
	free(r.log);
	free(r.csv);
	r.log = r.csv = NULL;
	{
		char got[2][64];
		int rnd;
		for (rnd = 0; rnd < 2; rnd++) {
			const char *q;
			int n, tok;
			base_cfg(&r.sc, 2048, 64, 1000);
			r.sc.dp = 2;
			r.sc.lockstep = true;
			pd_cfg(&r.sc, 2, &r.c, 1000, 4096, 1e5);
			r.sc.pd.prefill_group = 2;
			r.sc.pd.prefill_rank_random = rnd;
			trace_spec(&r.w, "0,200,3,-1\n0,200,3,-1\n0,200,3,-1\n0,200,3,-1\n"
					 "0,200,3,-1\n0,200,3,-1\n0,200,3,-1\n0,200,3,-1\n");
			CHECK(trun_go(&r) == 0 && r.t.completed == 8 && r.t.pd_transfers == 8,
			      "P/D prefill ranks %s: all eight complete (invariants checked)", rnd ? "drawn" : "routed");
			/* the prompts (id+200) of rank 0's steps, in order */
			got[rnd][0] = '\0';
			for (q = r.log ? strstr(r.log, " r0: ") : NULL; q; q = strstr(q + 1, " r0: ")) {
				const char *e0 = strchr(q, '|');
				const char *k;
				for (k = q + 5; e0 && k < e0; k++)
					if ((k == q + 5 || k[-1] == ' ') && sscanf(k, "%d+%d", &n, &tok) == 2 && tok == 200)
						snprintf(got[rnd] + strlen(got[rnd]), sizeof(got[rnd]) - strlen(got[rnd]), "%d ", n);
			}
			free(r.log);
			free(r.csv);
			r.log = r.csv = NULL;
			wl_spec_release(&r.w);
		}
		CHECK(strcmp(got[0], "0 2 4 6 ") == 0, "routed: rank 0 prefills 0 2 4 6, got %s", got[0]);
		CHECK(strcmp(got[1], got[0]) != 0 && strlen(got[1]) > 0,
		      "drawn (seed 42): rank 0 prefills %s, another set than the router's", got[1]);
	}
	trun_release(&r);
}

/* A bad data/comm/nccl.csv is an error naming its file and line. */
static void test_comm_nccl_bad(void)
{
	static const char *const bad[][2] = {
		{"gpu,op,gpus,bytes,latency_us\nh200_sxm,all_reduce,8,1024,10\n", "nccl.csv:2: 'op' must be"},
		{"gpu,op,gpus,bytes,latency_us\nh200_sxm,all_gather,8,2048,10\nh200_sxm,all_gather,8,1024,9\n",
		 "nccl.csv:3: bytes must grow"},
		{"gpu,op,gpus,bytes,latency_us\nh200_sxm,all_gather,1,1024,10\n", "nccl.csv:2: gpus must be"},
		{"gpu,op,gpus,bytes,latency_us\nh200_sxm,all_gather,8,1024,10\nh200_sxm,all_gather,4,1024,9\n"
		 "h200_sxm,all_gather,8,2048,11\n",
		 "nccl.csv:4: the rows of series (h200_sxm, all_gather, 8) must be together"},
	};
	char dir[] = "/tmp/servesim-test-nccl-XXXXXX", path[256], cmd[2400];
	struct comm_table *t = calloc(1, sizeof(*t));
	size_t i;

	if (!t || !mkdtemp(dir)) {
		CHECK(0, "mkdtemp");
		free(t);
		return;
	}
	snprintf(cmd, sizeof(cmd), "mkdir -p %s/comm && cp %s/comm/deepep.csv %s/comm/", dir, datadir, dir);
	CHECK(system(cmd) == 0, "scratch data dir with deepep.csv");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct err e;
		FILE *f;
		int rc;
		snprintf(path, sizeof(path), "%s/comm/nccl.csv", dir);
		f = fopen(path, "w");
		if (f) {
			fputs(bad[i][0], f);
			fclose(f);
		}
		err_clear(&e);
		rc = comm_table_load(dir, t, &e);
		CHECK(rc == -SS_EDATA && strstr(e.msg, bad[i][1]) != NULL, "bad nccl.csv %zu: %s", i, e.msg);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", dir);
	free(t);
}

/* NCCL's measured series (data/comm/nccl.csv, from aiconfigurator's H200
 * nccl_perf.csv, NCCL 2.29.2): SGLang's attention-DP decode gather of 128
 * tokens x 7168 x bf16 = 1,835,008 bytes over 8 GPUs lies between the
 * 1,048,576- and 2,097,152-byte points, all_gather 16.96 / 24.28 us and
 * reduce_scatter 14.41 / 19.71 us, interpolated in log-log. */
/* comm_nccl_s by a scan of every row (the lookup before the series index):
 * the last row of the series at or under `bytes`, the first over it. */
static double nccl_scan_s(const struct comm_table *t, const char *gpu, enum comm_coll op, int n, double bytes)
{
	const struct comm_nccl_row *lo = NULL, *hi = NULL, *first = NULL, *last = NULL;
	int i;

	for (i = 0; i < t->nn; i++) {
		const struct comm_nccl_row *r = &t->nccl[i];
		if (r->op != op || r->gpus != n || strcmp(r->gpu, gpu) != 0)
			continue;
		if (!first)
			first = r;
		last = r;
		if (r->bytes <= bytes)
			lo = r;
		else if (!hi)
			hi = r;
	}
	if (!first)
		return -1;
	if (!lo)
		return first->us * 1e-6;
	if (!hi)
		return last->us * 1e-6 * bytes / last->bytes;
	return exp(log(lo->us) + (log(hi->us) - log(lo->us)) * (log(bytes) - log(lo->bytes)) /
					 (log(hi->bytes) - log(lo->bytes))) *
	       1e-6;
}

/* The series lookup gives the scan's value, bit for bit, at every row's
 * bytes, between rows, below the first and past the last of each series. */
static void test_comm_nccl_series(const struct comm_table *t)
{
	int i, bad = 0, n = 0;

	for (i = 0; i < t->nn; i++) {
		const struct comm_nccl_row *r = &t->nccl[i];
		double xs[] = {r->bytes, r->bytes * 0.999, r->bytes * 1.37, r->bytes * 0.5, r->bytes * 3.0};
		size_t k;
		for (k = 0; k < sizeof(xs) / sizeof(xs[0]); k++, n++)
			bad += comm_nccl_s(t, r->gpu, r->op, r->gpus, xs[k]) != nccl_scan_s(t, r->gpu, r->op, r->gpus, xs[k]);
	}
	CHECK(bad == 0 && n >= 1500, "series lookup = scan of every row on %d lookups (%d differ)", n, bad);
	CHECK(t->ns >= 15, "nccl series indexed (%d)", t->ns);
}

static void test_comm_nccl(const struct comm_table *t, const struct gpu_spec *h, const struct comm_place *one)
{
	const struct gpu_spec *h800 = gpu("h800"), *gb = gpu("gb200");
	double b = 128.0 * 7168 * 2, f = log(b / 1048576.0) / log(2.0);
	double ag = exp(log(16.96) + (log(24.28) - log(16.96)) * f) * 1e-6;
	double rs = exp(log(14.41) + (log(19.71) - log(14.41)) * f) * 1e-6;
	struct comm_place pl;

	CHECK(t->nn >= 300, "nccl table loads (%d rows)", t->nn);
	CHECK_REL(comm_nccl_s(t, "h200_sxm", COMM_ALL_GATHER, 8, b), ag, 1e-12, "h200 all_gather of 1.835 MB over 8");
	CHECK_REL(comm_dp_gather_s(t, h, one, 8, b), ag + rs, 1e-12, "DP gather = all_gather + reduce_scatter");
	CHECK(comm_dp_gather_s(NULL, h, one, 8, b) < 0.7 * (ag + rs),
	      "the ring model (%.2f us) under 0.7 x NCCL's %.2f us here", comm_dp_gather_s(NULL, h, one, 8, b) * 1e6,
	      (ag + rs) * 1e6);
	CHECK_REL(comm_nccl_s(t, "h200_sxm", COMM_ALL_GATHER, 8, 100), 12.19e-6, 1e-12,
		  "below the smallest message: its latency (512 bytes, 12.19 us)");
	CHECK_REL(comm_nccl_s(t, "h200_sxm", COMM_REDUCE_SCATTER, 8, 2.0 * 536870912), 2.0 * 1393.35e-6, 1e-12,
		  "past the largest message: in proportion to the bytes");
	CHECK(comm_nccl_s(t, "h200_sxm", COMM_ALL_GATHER, 16, b) < 0 && comm_nccl_s(t, "gb200", COMM_ALL_GATHER, 8, b) < 0,
	      "no series for 16 GPUs or for gb200");
	comm_place(h800, &(struct parallel){1, 1, 8, 1, 0, 0}, &pl);
	CHECK_REL(comm_dp_gather_s(t, h800, &pl, 8, b), comm_dp_gather_s(NULL, h800, &pl, 8, b), 1e-15,
		  "h800 borrows h100's tables, not its NVLink: the ring");
	comm_place(gb, &(struct parallel){1, 1, 8, 1, 0, 0}, &pl);
	CHECK_REL(comm_all_gather_s(t, gb, &pl, 8, b), comm_all_gather_s(NULL, gb, &pl, 8, b), 1e-15,
		  "gb200 has no series: the ring");
	comm_place(h, &(struct parallel){1, 1, 16, 1, 0, 0}, &pl);
	CHECK_REL(comm_dp_gather_s(t, h, &pl, 16, b), comm_dp_gather_s(NULL, h, &pl, 16, b), 1e-15,
		  "DP 16 over two nodes: the inter-node ring");
	test_comm_nccl_bad();
}

/* Placement and collectives (comm.c): vLLM's rank order over 8-GPU NVLink
 * domains; an EP group over two nodes pays the inter-node link. */
static void test_comm(void)
{
	const struct gpu_spec *h = gpu("h200"), *gb = gpu("gb200");
	struct comm_place pl, one;
	struct comm_table t;
	struct parallel p;
	struct err e;
	double pay = 128.0 * 8 * 7168, a_one, a_two;

	CHECK(h->gpus_per_node == 8 && h->nvlink_domain == 8 && h->internode_bw == 50e9,
	      "h200 defaults: 8 per node, NVLink domain 8, 400 Gb/s = 50 GB/s inter-node");
	CHECK(gb->nvlink_domain == 72 && gb->gpus_per_node == 4, "gb200: NVL72 domain over 4-GPU trays");
	CHECK(comm_table_load(datadir, &t, &e) == 0 && t.n >= 20, "deepep table loads (%d rows)", t.n);
	p = (struct parallel){8, 1, 2, 16, 0, 0};
	comm_place(h, &p, &pl);
	CHECK(pl.nodes == 2 && !pl.tp_cross && pl.ep_cross && pl.ep_domains == 2,
	      "TP 8 x DP 2 x EP 16: 2 nodes, TP inside one, EP across 2 domains");
	p = (struct parallel){8, 1, 1, 8, 0, 0};
	comm_place(h, &p, &one);
	CHECK(one.nodes == 1 && !one.ep_cross, "TP 8 EP 8: one node");
	a_one = comm_a2a_s(&t, h, &one, COMM_A2A_LOW_LATENCY, false, 8, pay);
	a_two = comm_a2a_s(&t, h, &pl, COMM_A2A_LOW_LATENCY, false, 16, pay);
	CHECK(a_two > 1.5 * a_one, "EP 16 dispatch over two nodes %.0f us > 1.5 x one node %.0f us",
	      a_two * 1e6, a_one * 1e6);
	/* low-latency fit for h200 (data/comm/deepep.csv): 10.56 us + bytes / 301.2 GB/s */
	CHECK_REL(a_one, 10.56e-6 + pay / 301.2e9, 1e-9, "one-node LL dispatch from the h200 fit");
	comm_place(gb, &(struct parallel){4, 1, 4, 16, 0, 0}, &pl);
	CHECK(pl.nodes == 4 && !pl.ep_cross, "gb200: EP 16 over 4 trays stays in the NVL72 domain");
	p = (struct parallel){8, 2, 1, 1, 0, 0};
	comm_place(h, &p, &pl);
	CHECK(pl.pp_cross && comm_send_s(&pl, 1e6) > comm_send_s(&one, 1e6),
	      "PP 2 x TP 8: the stage boundary crosses nodes and the send is slower");
	test_comm_nccl(&t, h, &one);
	test_comm_nccl_series(&t);
}

/* Speculative decoding (issue 11): one request, prompt 100, output 41,
 * K = 4 EAGLE drafts.  Acceptance 1: 40 tokens after the first in 8
 * verification steps, (K+1) = 5 x fewer than 40 plain decode steps.
 * Acceptance 0: one token per step, each step priced as the width-5
 * verification plus the drafting that follows it. */
static void test_spec(const struct model_cfg *m)
{
	struct cost_model c;
	struct sim_cfg sc;
	struct wl_spec w;
	struct sim_totals t;
	struct step_desc d;
	char *log = NULL, *csv = NULL, buf[256];
	double dur = -1, want;

	make_cost(&c, m, 8192, 64, 0);
	base_cfg(&sc, 8192, 64, 1000);
	sc.spec.method = SPEC_EAGLE;
	sc.spec.k = 4;
	sc.spec.nrates = 1;
	sc.spec.rate[0] = 1;
	trace_spec(&w, "0,100,41,-1\n");
	CHECK(run(&sc, &c, &w, &log, &csv, &t) == 0 && t.completed == 1, "spec run completes");
	CHECK(t.spec_verify == 8 && t.steps == 9 && t.spec_accepted == 32,
	      "acceptance 1: 8 verification steps of 5 tokens after the prefill (%llu steps, %llu verify)",
	      (unsigned long long)t.steps, (unsigned long long)t.spec_verify);
	CHECK(strstr(csv, ",5.0000\n") != NULL, "per-request CSV: 5 tokens per step");
	free(log);
	free(csv);
	wl_spec_release(&w);
	sc.spec.rate[0] = 0;
	trace_spec(&w, "0,100,41,-1\n");
	CHECK(run(&sc, &c, &w, &log, &csv, &t) == 0 && t.steps == 41 && t.spec_verify == 39 &&
	      t.spec_accepted == 0,
	      "acceptance 0: 40 decode steps as without speculation (the last has no draft to verify)");
	sscanf(line_n(log, 1, buf, sizeof(buf)), "%*[^=]=%*f %*[^=]=%lf", &dur);
	memset(&d, 0, sizeof(d));
	d.ndecode = 5;
	d.decode_ctx_sum = 101 + 102 + 103 + 104 + 105;
	d.nlogits = 5;
	want = cost_step_s(&c, &d) + spec_draft_s(&sc.spec, &c, 1, 105);
	CHECK(fabs(dur - want) < 1e-6, "first decode step = verify at width 5 + 4 drafts: %.6f = %.6f s (%s)",
	      dur, want, buf);
	free(log);
	free(csv);
	wl_spec_release(&w);
	cost_release(&c);
}

/* The acceptance draws as integer thresholds (spec_draws): the same
 * answers and the same stream position as the reference test,
 * pcg32_double(r) < p draft by draft, over 200,000 calls of 1-4 drafts at
 * rates round, odd, at the ends of (0, 1) and at 0 and 1. */
static int spec_accepted_ref(const struct spec_cfg *sp, int k, struct pcg32 *r)
{
	int a;

	for (a = 0; a < k; a++) {
		double p = sp->rate[sp->nrates > 1 ? a : 0];
		if (p >= 1)
			continue;
		if (p <= 0 || pcg32_double(r) >= p)
			break;
	}
	return a;
}

static void test_spec_draws(void)
{
	static const double rates[][4] = {
		{0.5, 0.5, 0.5, 0.5},          {0.7002, 0.41, 0.3, 0.2874}, {0x1p-60, 1 - 0x1p-53, 0.123456789, 0.999},
		{1, 0.85, 0, 0.5},             {0.95, 1, 1, 0.01},          {0x1p-27, 0x1p-26 + 0x1p-53, 0.75, 0x1.8p-1},
	};
	struct spec_cfg sp;
	struct spec_draws dr;
	struct pcg32 a, b;
	size_t i, j, bad = 0, n = 0;

	memset(&sp, 0, sizeof(sp));
	pcg32_seed(&a, 42, 11);
	b = a;
	for (i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		sp.k = 4;
		sp.nrates = i == 0 ? 1 : 4;
		memcpy(sp.rate, rates[i], sizeof(rates[i]));
		spec_draws_init(&sp, a.inc, &dr);
		for (j = 0; j < 200000 / (sizeof(rates) / sizeof(rates[0])); j++, n++) {
			int k = 1 + (int)(j % 4);
			if (spec_accepted(&dr, k, &a) != spec_accepted_ref(&sp, k, &b) || a.state != b.state)
				bad++;
		}
	}
	CHECK(bad == 0, "acceptance thresholds: %zu of %zu calls differ from pcg32_double(r) < p", bad, n);
	/* thresholds whose high 27 bits tie with the draws' (the low 26
	 * decide; once in 2^27 at random): each position's has the high bits
	 * of the draw it takes if the earlier ones are accepted, low bits
	 * within 2 of the draw's */
	bad = n = 0;
	for (j = 0; j < 20000; j++, n++) {
		int k = 1 + (int)(j % 4), p, want;
		uint64_t thr[4];
		struct pcg32 c = b;
		for (p = 0; p < k; p++) {
			uint64_t hi = pcg32_next(&c) >> 5, lo = pcg32_next(&c) >> 6;
			thr[p] = dr.thr[p] = (hi << 26) | ((lo + (j * 7 + (size_t)p) % 5 - 2) & ((1u << 26) - 1));
		}
		c = b;
		for (want = 0; want < k; want++) { /* X = pcg32_double's 53 bits < thr */
			uint64_t hi = pcg32_next(&c) >> 5, lo = pcg32_next(&c) >> 6;
			if (((hi << 26) | lo) >= thr[want])
				break;
		}
		if (spec_accepted(&dr, k, &a) != want)
			bad++;
		b = c;
		if (a.state != b.state)
			bad++;
	}
	CHECK(bad == 0, "acceptance thresholds tying in the high bits: %zu of %zu calls differ", bad, n);
}

/* Lazy verifiers (sim/specpath.h): one 32-bit draw a verifying step
 * against the accepted count's thresholds, P(a >= j) = rate_1 x ... x
 * rate_j, truncated at the drafts offered, has spec_accepted's
 * distribution: 400,000 draws per rate set over 1..k drafts offered, every
 * count's frequency within 5 standard errors of its probability (a count
 * of probability 0 or 1 never or always drawn); the thresholds of rate 0.5
 * are 2^31 and 2^30. */
static void test_spath_draws(void)
{
	static const double rates[][4] = {
		{0.8, 0.6, 0.4, 0}, {0.7, 0.7, 0.7, 0.7}, {1, 0.5, 0, 0}, {0.3, 0, 0, 0}, {1, 1, 1, 0}, {0.95, 0.9, 0.85, 0.8},
	};
	static const int ks[] = {3, 4, 2, 2, 3, 4};
	struct spec_cfg sp;
	struct spath_draws d;
	struct pcg32 r;
	size_t i, bad = 0, bins = 0;
	double zmax = 0;

	memset(&sp, 0, sizeof(sp));
	sp.k = 2;
	sp.nrates = 1;
	sp.rate[0] = 0.5;
	spath_draws_init(&sp, sp.k, 16, &d);
	CHECK(d.k == 2 && d.ge[0] == (uint64_t)1 << 31 && d.ge[1] == (uint64_t)1 << 30,
	      "rate 0.5, 2 drafts: thresholds 2^31, 2^30 (%llu, %llu)", (unsigned long long)d.ge[0],
	      (unsigned long long)d.ge[1]);
	pcg32_seed(&r, 77, 11);
	for (i = 0; i < sizeof(ks) / sizeof(ks[0]); i++) {
		int k = ks[i], kq;
		sp.k = k;
		sp.nrates = k;
		memcpy(sp.rate, rates[i], sizeof(rates[i]));
		spath_draws_init(&sp, sp.k, 16, &d);
		for (kq = 1; kq <= k; kq++) {
			uint64_t cnt[SPEC_MAX_TOKENS + 1] = {0};
			double ge[SPEC_MAX_TOKENS + 2], p = 1;
			const size_t n = 400000 / (size_t)k;
			size_t j;
			int a;
			for (j = 0; j < n; j++)
				cnt[spath_draw(&d, &r.state, r.inc, kq)]++;
			ge[0] = 1;
			for (a = 1; a <= kq; a++) {
				p *= rates[i][a - 1];
				ge[a] = p;
			}
			ge[kq + 1] = 0;
			for (a = 0; a <= kq; a++) {
				double pa = ge[a] - ge[a + 1], e = (double)n * pa, sd = sqrt((double)n * pa * (1 - pa));
				bins++;
				if (pa <= 0 || pa >= 1) {
					bad += (double)cnt[a] != e;
					continue;
				}
				if (fabs((double)cnt[a] - e) / sd > zmax)
					zmax = fabs((double)cnt[a] - e) / sd;
			}
		}
	}
	CHECK(bad == 0 && zmax < 5, "one draw a step: %zu counts' frequencies within 5 standard errors (largest %.2f), "
	      "%zu impossible or sure counts wrong", bins, zmax, bad);
}

/* Wilson-Hilferty: a chi-square of df degrees as a standard normal z. */
static double chi2_z(double x2, double df)
{
	double v = 2 / (9 * df);

	return (cbrt(x2 / df) - (1 - v)) / sqrt(v);
}

/* Lazy verifiers' runs (sim/specpath.h, spath_run_draw): one 32-bit draw
 * for a run of verifying steps (eight with one draft, four with 2 or 3)
 * through an alias table of their joint outcome.  (1) The tables: each
 * outcome's weight (cells kept plus aliased, on 2^32) is the product of
 * its steps' one-draw probabilities within 2^-24 of 2^-32 (what rounding
 * may cost), and they sum to 2^32.  (2) 10 M run draws against 10 M x 8
 * (x 4) draws of the step-by-step sampler (spath_draw): the two samples'
 * outcome counts agree (chi-square, two samples, |z| < 5 by
 * Wilson-Hilferty), as do the runs' accepted sums (the context's advance).
 * For K = 1, 2, 3 drafts. */
static void test_spath_runs(void)
{
	static const double rates[3][3] = {{0.62, 0, 0}, {0.8, 0.55, 0}, {0.85, 0.6, 0.4}};
	const size_t N = 10000000;
	int k;

	for (k = 1; k <= 3; k++) {
		struct spec_cfg sp;
		struct spath_draws *d = calloc(1, sizeof(*d));
		struct pcg32 r1, r2;
		uint64_t *c1 = calloc(SPATH_CELLS, sizeof(uint64_t)), *c2 = calloc(SPATH_CELLS, sizeof(uint64_t));
		uint64_t s1[16] = {0}, s2[16] = {0}, wsum = 0, w1[4];
		double maxoff = 0, x2 = 0, xs = 0;
		int nout = 1, no = k + 1, o, j, df = -1, dfs = -1, rl;
		size_t badc = 0;
		size_t i;

		memset(&sp, 0, sizeof(sp));
		sp.k = k;
		sp.nrates = k;
		memcpy(sp.rate, rates[k - 1], sizeof(rates[k - 1]));
		spath_draws_init(&sp, k, 32, d);
		rl = d->rl;
		for (j = 0; j < rl; j++)
			nout *= no;
		for (j = 0; j <= k; j++)
			w1[j] = (j == 0 ? (uint64_t)1 << 32 : d->ge[j - 1]) - (j == k ? 0 : d->ge[j]);
		for (o = 0; o < nout; o++) {
			uint64_t w = 0;
			double pr = 1;
			int c, x = o;
			for (c = 0; c < SPATH_CELLS; c++) {
				/* (the cell's cut on 2^24: thr less its base, mod 2^32) */
				uint64_t cut = (uint32_t)(d->cell[c].thr - ((uint32_t)c << 24));
				if ((int)c == o)
					w += cut;
				if ((int)d->cell[c].alias == o && (int)c != o)
					w += ((uint64_t)1 << 24) - cut;
			}
			for (j = 0; j < rl; j++, x /= no)
				pr *= (double)w1[x % no] * 0x1p-32;
			wsum += w;
			if (fabs((double)w - pr * 0x1p32) > maxoff)
				maxoff = fabs((double)w - pr * 0x1p32);
		}
		CHECK(d->rk == k && rl == (k == 1 ? 8 : 4) && wsum == (uint64_t)1 << 32 && maxoff <= 256,
		      "runs of %d steps of %d drafts: %d outcomes' alias weights sum to 2^32 (%llu), each within %.0f x "
		      "2^-32 of its product (<= 256)", rl, k, nout, (unsigned long long)wsum, maxoff);
		{
			/* runs_add's picks: at each cell's edges (its cut, the
			 * cell's ends) the outcome spath_run_draw's test gives */
			size_t badp = 0, np = 0;
			int c, h;
			for (c = 0; c < SPATH_CELLS; c++) {
				uint32_t cut = d->cell[c].thr - ((uint32_t)c << 24);
				uint32_t lows[4] = {0, cut > 0 ? cut - 1 : 0, cut < (1u << 24) ? cut : 0, (1u << 24) - 1};
				for (h = 0; h < 4; h++) {
					uint32_t u = (uint32_t)c << 24 | lows[h], oi = u < d->cell[c].thr ? (uint32_t)c
													  : d->cell[c].alias;
					const struct spath_pick *p = &d->pick[2 * c + (u >= d->cell[c].thr)];
					np++;
					badp += p->oi != oi || p->adv != d->tup[oi].adv ||
						memcmp(p->acc, d->tup[oi].acc, sizeof(p->acc)) != 0 ||
						p->xrow != oi * (uint32_t)d->xw;
				}
			}
			CHECK(badp == 0, "runs of %d drafts: the picks give the alias test's outcome, its counts, advance "
			      "and crossing row (%zu of %zu wrong)", k, badp, np);
		}
		pcg32_seed(&r1, 91, 11);
		pcg32_seed(&r2, 92, 11);
		for (i = 0; i < N; i++) {
			uint32_t oi = spath_run_draw(d, &r1.state, r1.inc);
			int x = 0, m = 1, sum = 0, aa[SPATH_RUN_MAX];
			c1[oi]++;
			s1[d->tup[oi].adv - rl]++;
			for (j = 0; j < rl; j++, m *= no) {
				aa[j] = (int)spath_draw(d, &r2.state, r2.inc, k);
				x += aa[j] * m;
				sum += aa[j];
			}
			for (j = 0; j < rl; j++)
				badc += spath_run_count(&d->tup[x], j) != aa[j];
			c2[x]++;
			s2[sum]++;
		}
		for (o = 0; o < nout; o++)
			if (c1[o] + c2[o] > 0) {
				double dd = (double)c1[o] - (double)c2[o];
				x2 += dd * dd / (double)(c1[o] + c2[o]);
				df++;
			}
		for (o = 0; o < 16; o++)
			if (s1[o] + s2[o] > 0) {
				double dd = (double)s1[o] - (double)s2[o];
				xs += dd * dd / (double)(s1[o] + s2[o]);
				dfs++;
			}
		CHECK(badc == 0 && df > 0 && fabs(chi2_z(x2, df)) < 5 && (dfs <= 0 || fabs(chi2_z(xs, dfs)) < 5),
		      "10 M runs of %d drafts against %d M single draws: outcomes chi-square %.1f on %d df (z %.2f), "
		      "sums %.1f on %d df (z %.2f); %zu outcome lanes unlike their index", k, 10 * rl, x2, df,
		      chi2_z(x2, df), xs, dfs, dfs > 0 ? chi2_z(xs, dfs) : 0.0, badc);
		free(c1);
		free(c2);
		free(d);
	}
}

/* A verifier's path as spath_join draws it (runs where they fit, single
 * steps before a run's slot and near the end) against the same path drawn
 * step by step (spath_draw each step, the last steps' drafts truncated to
 * the tokens left): for 200,000 joins of 1,000 tokens left on a replica at
 * step 1,001 (not a run's slot), the completion step's distribution agrees
 * (two-sample Kolmogorov-Smirnov, D below the 0.1 % level's critical
 * value); and each join undone at once (spath_leave, which walks the path
 * step by step) leaves every ring slot 0: the join's runs add exactly the
 * step-by-step walk's terms.  K = 3 (runs of 4) with blocks of 32; K = 1
 * (runs of 8) with blocks of 32, of 16 (a run's most tokens: the crossing
 * table's edge) and of 1 (SGLang's page: no table, crossings step by
 * step inside each run). */
static void spath_paths_case(int k, const double *rates, int64_t bs)
{
	enum { NP = 200000, LEFT = 1000 };
	struct sim *s = calloc(1, sizeof(*s));
	struct replica *rp = calloc(1, sizeof(*rp));
	struct req *r = calloc(1, sizeof(*r));
	struct pcg32 ref;
	uint32_t *h1 = calloc(LEFT + 1, sizeof(uint32_t)), *h2 = calloc(LEFT + 1, sizeof(uint32_t));
	double dmax = 0, f1 = 0, f2 = 0;
	size_t i, nonzero = 0;
	int64_t j;

	s->cfg.spec.method = SPEC_MTP;
	s->cfg.spec.k = k;
	s->cfg.spec.nrates = k;
	for (j = 0; j < k; j++)
		s->cfg.spec.rate[j] = rates[j];
	s->cfg.block_size = bs;
	for (s->bs_log2p1 = 1; ((int64_t)1 << (s->bs_log2p1 - 1)) < bs; s->bs_log2p1++)
		;
	pcg32_seed(&s->spec_rng, 5, 11);
	s->own_spath = xmalloc(sizeof(*s->own_spath));
	spath_draws_init(&s->cfg.spec, spath_cap(s) - 1, bs, s->own_spath);
	s->spath_draws = s->own_spath;
	pcg32_seed(&ref, 6, 11);
	rp->G = 1001;
	for (i = 0; i < NP; i++) {
		int64_t c = 1500, steps = 0;
		memset(r, 0, sizeof(*r));
		r->computed = 1500 + (int64_t)(i % 7);
		r->generated = 1 + (int64_t)(i % 7);
		r->output = r->generated + LEFT;
		r->nblocks = blocks_for(s, r->computed + 1);
		r->rseq = i;
		spath_join(s, rp, r);
		h1[r->heap_fin - rp->G]++;
		spath_leave(s, rp, r);
		for (; c < 1500 + LEFT; steps++) {
			int64_t q = 1500 + LEFT - c < k + 1 ? 1500 + LEFT - c : k + 1;
			c += 1 + (q > 1 ? spath_draw(s->spath_draws, &ref.state, ref.inc, q - 1) : 0);
		}
		h2[steps]++;
	}
	for (j = 0; j <= (int64_t)rp->sp_mask; j++)
		nonzero += rp->sp_acc[j] != 0 || rp->sp_need[j] != 0 || rp->sp_rare[j].dn != 0 || rp->sp_rare[j].dC != 0 ||
			   rp->sp_rare[j].ctok != 0 || rp->sp_rare[j].cctx != 0 || rp->sp_rare[j].nq1 != 0;
	CHECK(nonzero == 0 && rp->sp_n == 0 && rp->nspath == 0,
	      "K %d (runs of %d), blocks of %lld: %d joins each undone at once: %zu of %u ring slots not 0 (want 0)", k,
	      s->spath_draws->rl, (long long)bs, NP, nonzero, rp->sp_mask + 1);
	for (j = 0; j <= LEFT; j++) {
		f1 += h1[j] / (double)NP;
		f2 += h2[j] / (double)NP;
		if (fabs(f1 - f2) > dmax)
			dmax = fabs(f1 - f2);
	}
	/* two samples of NP: D_crit(0.001) = 1.95 sqrt(2 / NP) */
	CHECK(dmax < 1.95 * sqrt(2.0 / NP), "K %d, blocks of %lld: completion steps of %d paths of %d tokens, runs "
	      "against step by step: KS D %.5f (critical %.5f)", k, (long long)bs, NP, LEFT, dmax,
	      1.95 * sqrt(2.0 / NP));
	free(rp->heap);
	dec_ring_release(rp);
	spath_release(rp);
	free(h1);
	free(h2);
	free(r);
	free(rp);
	free(s->own_spath);
	free(s);
}

static void test_spath_paths(void)
{
	static const double r3[3] = {0.85, 0.6, 0.4}, r1[1] = {0.7};

	spath_paths_case(3, r3, 32);
	spath_paths_case(1, r1, 32);
	spath_paths_case(1, r1, 16);
	spath_paths_case(1, r1, 1);
}

/* One run of sc without a step log (lazy verifiers need none), its totals,
 * summary and per-request CSV. */
static int spath_run1(struct sim_cfg *sc, const struct cost_model *c, const struct wl_spec *w,
		      struct sim_totals *t, struct metric_set *ms, char **csv)
{
	size_t cl = 0;
	FILE *cf = open_memstream(csv, &cl);
	struct sim *s = NULL;
	struct err e;
	int rc;

	sc->step_log = NULL;
	sc->requests_out = cf;
	rc = new_and_run(sc, c, w, &s, &e);
	if (rc < 0)
		printf("# sim: %s\n", e.msg);
	if (s) {
		*t = *sim_totals(s);
		sim_summary(s, -1, ms);
		sim_free(s);
	}
	fclose(cf);
	sc->requests_out = NULL;
	return rc;
}

/* Lazy verifiers against the explicit walk (sim_cfg.no_lazy_decoders):
 * MTP with 3 drafts at 0.8 / 0.6 / 0.4, pooled gaps only counted (eval's
 * and the probes' runs), vLLM's and TensorRT-LLM's schedulers, on an open
 * loop, a KV cache tight enough to preempt (vLLM: the lazy verifiers
 * made explicit for its literal walk), SGLang's split batches (made explicit
 * for a retraction or an exact reservation) and P/D with attention-DP workers of 2
 * ranks stepping together.  The draws come in another order,
 * so the bytes differ (the lazy path ran); over 12 seeds each, the means
 * of TTFT, ITL, E2E, accepted drafts per verification and steps agree
 * within 4 standard errors of their difference, every run completes, and
 * the lazy runs pass the invariant checks after every event. */
static void test_spath_sims(const struct model_cfg *m)
{
	static const char *const pols[3] = {"vllm", "trtllm", "sglang"}, *const scen[3] = {"open loop", "tight KV", "P/D"};
	enum { SEEDS = 12, MET = 5 };
	struct cost_model c;
	struct sim_cfg sc;
	struct wl_spec w;
	int pi, k, seed, mi;

	make_cost(&c, m, 2048, 64, 0);
	for (pi = 0; pi < 3; pi++)
		for (k = 0; k < 3; k++) {
			double x[2][MET][SEEDS];
			bool differ = false, ok = true, worst_set = false;
			uint64_t preempt = 0;
			double zmax = 0;
			int worst = 0;
			for (seed = 0; seed < SEEDS; seed++) {
				int lazy;
				char *csv[2] = {NULL, NULL};
				for (lazy = 0; lazy < 2; lazy++) {
					struct sim_totals t;
					struct metric_set ms;
					base_cfg(&sc, 2048, 64, k == 1 ? 300 : 4000);
					sc.policy = policy_of(pols[pi]);
					sc.spec.method = SPEC_MTP;
					sc.spec.k = 3;
					sc.spec.nrates = 3;
					sc.spec.rate[0] = 0.8;
					sc.spec.rate[1] = 0.6;
					sc.spec.rate[2] = 0.4;
					sc.no_pooled_gaps = true;
					if (k == 2) {
						sc.dp = 4;
						sc.lockstep = true;
						pd_cfg(&sc, 2, &c, 1000, 2048, 1e5);
						sc.pd.prefill_group = 2;
						sc.pd.decode_group = 2;
					}
					sc.no_lazy_decoders = !lazy;
					sc.check_invariants = lazy;
					poisson_spec(&w, 8, 300, 10, 300, 100 + (uint64_t)seed);
					memset(&t, 0, sizeof(t));
					memset(&ms, 0, sizeof(ms));
					ok = spath_run1(&sc, &c, &w, &t, &ms, &csv[lazy]) == 0 && t.completed == 300 && ok;
					if (lazy)
						preempt += t.preemptions;
					x[lazy][0][seed] = ms.ttft_ms.mean;
					x[lazy][1][seed] = ms.itl_ms.mean;
					x[lazy][2][seed] = ms.e2e_ms.mean;
					x[lazy][3][seed] = t.spec_verify ? (double)t.spec_accepted / (double)t.spec_verify : 0;
					x[lazy][4][seed] = (double)t.steps;
					wl_spec_release(&w);
				}
				differ = differ || (csv[0] && csv[1] && strcmp(csv[0], csv[1]) != 0);
				free(csv[0]);
				free(csv[1]);
			}
			for (mi = 0; mi < MET; mi++) {
				double mu[2], v[2], z;
				int l;
				for (l = 0; l < 2; l++) {
					mu[l] = v[l] = 0;
					for (seed = 0; seed < SEEDS; seed++)
						mu[l] += x[l][mi][seed] / SEEDS;
					for (seed = 0; seed < SEEDS; seed++)
						v[l] += (x[l][mi][seed] - mu[l]) * (x[l][mi][seed] - mu[l]) / (SEEDS - 1);
				}
				z = fabs(mu[1] - mu[0]) / (sqrt((v[0] + v[1]) / SEEDS) + 1e-12 * fabs(mu[0]) + 1e-300);
				if (!worst_set || z > zmax) {
					zmax = z;
					worst = mi;
					worst_set = true;
				}
			}
			CHECK(ok && differ && zmax < 4 && (k != 1 || pi != 0 || preempt > 0),
			      "lazy verifiers, %s, %s: every run completes, the draws differ from the walk's, the means "
			      "agree over %d seeds (largest difference %.2f standard errors, metric %d; %llu preemptions)",
			      pols[pi], scen[k], SEEDS, zmax, worst, (unsigned long long)preempt);
		}
	cost_release(&c);
}

/* Default acceptance (issue 26): the measured per-position curves.  Text
 * prompts: MTP's fitted curve gives AL 1.84 at one draft and 3.01 at three
 * (measured 2.49-3.39; the former flat 0.85 gave 3.18); random-token
 * prompts: the measured DeepSeek-V4-Flash curve, unconditional 0.700 /
 * 0.287 at two drafts (AL 1.99).  EAGLE-3 on random prompts keeps its text
 * curve and says so; ngram has no curve. */
static void test_spec_defaults(void)
{
	struct spec_cfg sp;

	memset(&sp, 0, sizeof(sp));
	sp.method = SPEC_MTP;
	sp.k = 1;
	CHECK(spec_default_rates(&sp, false) == 0 && sp.nrates == 1, "mtp text curve, 1 draft");
	CHECK_REL(spec_mean_accepted_len(&sp), 1.842, 1e-9, "mtp text AL at 1 draft");
	sp.k = 3;
	CHECK(spec_default_rates(&sp, false) == 0 && sp.nrates == 3 && sp.rate[1] < sp.rate[0] &&
	      sp.rate[2] < sp.rate[1], "mtp text curve falls with the position: %.3f %.3f %.3f", sp.rate[0],
	      sp.rate[1], sp.rate[2]);
	CHECK(fabs(spec_mean_accepted_len(&sp) - 3.01) < 0.005, "mtp text AL at 3 drafts %.3f (measured 2.49-3.39)",
	      spec_mean_accepted_len(&sp));
	sp.k = 2;
	CHECK(spec_default_rates(&sp, true) == 0 && strstr(sp.src, "random-token") != NULL &&
	      strstr(sp.src, "stands in") == NULL, "mtp random-prompt curve: %s", sp.src);
	CHECK(fabs(sp.rate[0] - 0.700) < 1e-9 && fabs(sp.rate[0] * sp.rate[1] - 0.2874) < 0.001,
	      "random prompts, unconditional acceptance %.3f / %.4f (measured 0.7002 / 0.2874)", sp.rate[0],
	      sp.rate[0] * sp.rate[1]);
	CHECK(fabs(spec_mean_accepted_len(&sp) - 1.99) < 0.005, "mtp random AL at 2 drafts %.3f (measured 1.99)",
	      spec_mean_accepted_len(&sp));
	sp.method = SPEC_EAGLE;
	CHECK(spec_default_rates(&sp, true) == 0 && strstr(sp.src, "text curve stands in") != NULL &&
	      fabs(sp.rate[0] - 0.795) < 1e-9, "eagle on random prompts: the text curve, said so");
	sp.method = SPEC_NGRAM;
	CHECK(spec_default_rates(&sp, false) == -1, "ngram: no measured curve");
}

/* P/D disaggregation: one prefill and one decode worker; the prompt's KV
 * (1000 tokens x 1 MB over 1 GB/s + 1 ms = 1.001 s) travels between them and
 * the first token reaches the client when it lands. */
static void test_pd(const struct model_cfg *m)
{
	struct trun r = {.log = NULL, .csv = NULL};
	double ttft = 0;
	const char *row;

	trun_init(&r, m, 8192, 64, 1000, NULL);
	pd_cfg(&r.sc, 1, &r.c, 500, 8192, 1e6);
	trace_spec(&r.w, "0,1000,5,-1\n0.5,1000,5,-1\n");
	CHECK(trun_go(&r) == 0 && r.t.completed == 2 && r.t.pd_transfers == 2,
	      "P/D run: both requests prefilled, handed over and completed (invariants checked)");
	CHECK(r.t.pd_transfer_ns == 2 * 1001000000LL, "transfer 1 ms + 1000 x 1 MB / 1 GB/s = 1.001 s each");
	row = r.csv; /* request 0 completes first */
	CHECK(sscanf(row, "0,1,0,%*f,%*d,%*d,%*d,%*d,completed,%*f,%lf", &ttft) == 1 && ttft > 1001.0,
	      "request 0 decoded on worker 1 with TTFT %.1f ms > the 1001 ms transfer", ttft);
	CHECK(strstr(r.log, "r0: 0+1000 ") != NULL && strstr(r.log, "r1: 0+1 ") != NULL,
	      "prefill on replica 0, decode on replica 1");
	wl_spec_release(&r.w);
	trun_release(&r);
}

/* The TTFT and ITL (ms) of requests 0 and 1 from the first rows lines of
 * a run's per-request CSV. */
static void csv_ttft_itl(const char *csv, int rows, double ttft[2], double itl[2])
{
	const char *row;
	int i;

	for (row = csv, i = 0; row && *row && i < rows; i++) {
		int id = -1;
		double a, b;
		if (sscanf(row, "%d,1,0,%*f,%*d,%*d,%*d,%*d,completed,%*f,%lf,%lf", &id, &a, &b) == 3 && id >= 0 &&
		    id < 2) {
			ttft[id] = a;
			itl[id] = b;
		}
		row = strchr(row, '\n');
		row = row ? row + 1 : NULL;
	}
}

/* P/D: where the client's first token comes from (issue 26, mechanism 4).
 * Two requests, prefilled together, land together at one decode worker
 * that runs one at a time (max_num_seqs 1), 4 decode steps each.  vLLM and
 * SGLang (SIM_PD_FIRST_DECODE_STEP): the first token comes with the decode
 * worker's first step for the request, so request 1's wait for the slot is
 * TTFT, not ITL: its ITL is no more than request 0's, its TTFT later by
 * request 0's steps.  TensorRT-LLM (SIM_PD_FIRST_DECODE_LAUNCH): the same
 * wait, but the first token leaves as that step is launched, a step before
 * the other rule's.  At the hand-off (SIM_PD_FIRST_HANDOFF): both TTFTs
 * equal and the wait in request 1's gaps. */
static void pd_two_waiting(const struct model_cfg *m, enum sim_pd_first first, double ttft[2], double itl[2], int *steps)
{
	struct trun r = {.log = NULL, .csv = NULL};
	const char *row;

	make_cost(&r.c, m, 8192, 64, 0);
	base_cfg(&r.sc, 8192, 1, 1000);
	pd_cfg(&r.sc, 1, &r.c, 500, 8192, 1e6);
	r.sc.pd.first = first;
	trace_spec(&r.w, "0,1000,5,-1\n0,1000,5,-1\n");
	CHECK(trun_go(&r) == 0 && r.t.completed == 2 && r.t.pd_transfers == 2,
	      "P/D, one decode slot, first token rule %d: both complete", (int)first);
	for (*steps = 0, row = r.log; (row = strstr(row, " r1: ")) != NULL; row++)
		(*steps)++;
	csv_ttft_itl(r.csv, 2, ttft, itl);
	wl_spec_release(&r.w);
	trun_release(&r);
}

static void test_pd_first_token(const struct model_cfg *m)
{
	double ttft[2] = {0, 0}, itl[2] = {0, 0}, ttft_step[2], itl_step[2];
	int steps = 0;

	pd_two_waiting(m, SIM_PD_FIRST_DECODE_STEP, ttft, itl, &steps);
	CHECK(steps == 8, "4 decode steps for each request's 4 tokens after the prefill's: %d steps", steps);
	CHECK(itl[0] > 0 && itl[1] <= itl[0] * 1.01,
	      "first token on decode: request 1's ITL %.3f ms is no more than request 0's %.3f, the wait not in it",
	      itl[1], itl[0]);
	CHECK(ttft[1] > ttft[0] + 3 * itl[0], "first token on decode: request 1's TTFT %.3f ms holds the wait "
	      "behind request 0 (TTFT %.3f, ITL %.3f)", ttft[1], ttft[0], itl[0]);
	memcpy(ttft_step, ttft, sizeof(ttft));
	memcpy(itl_step, itl, sizeof(itl));
	pd_two_waiting(m, SIM_PD_FIRST_DECODE_LAUNCH, ttft, itl, &steps);
	CHECK(steps == 8 && itl[0] > 0 && itl[1] <= itl[0] * 1.01 && ttft[1] > ttft[0] + 3 * itl[0],
	      "first token at the decode step's launch: the wait in request 1's TTFT %.3f ms (request 0 %.3f), not "
	      "its ITL %.3f (request 0 %.3f)", ttft[1], ttft[0], itl[1], itl[0]);
	CHECK(ttft[0] < ttft_step[0] - 0.5 * itl_step[0] && ttft[1] < ttft_step[1] - 0.5 * itl_step[0],
	      "first token at the launch, a decode step before the step's end: TTFT %.3f / %.3f ms against %.3f / "
	      "%.3f", ttft[0], ttft[1], ttft_step[0], ttft_step[1]);
	pd_two_waiting(m, SIM_PD_FIRST_HANDOFF, ttft, itl, &steps);
	CHECK(steps == 8 && ttft[1] == ttft[0] && itl[1] > 1.5 * itl[0],
	      "first token at the hand-off: equal TTFTs %.3f / %.3f ms, the wait in request 1's ITL %.3f against %.3f",
	      ttft[0], ttft[1], itl[1], itl[0]);
}

/* P/D, TensorRT-LLM's generation-init iteration (sim_cfg.pd.gen_init_step):
 * a decode worker of two slots busy with request 0 (200 tokens) takes
 * request 1 (handed off at ~0.05 s) one iteration later with it than
 * without: request 1's TTFT one decode step longer, request 0 unmoved. */
static void pd_busy_join(const struct model_cfg *m, bool gen_init, double ttft[2], double itl[2])
{
	struct trun r = {.log = NULL, .csv = NULL};

	make_cost(&r.c, m, 8192, 64, 0);
	base_cfg(&r.sc, 8192, 2, 1000);
	pd_cfg(&r.sc, 1, &r.c, 500, 8192, 1e6);
	r.sc.pd.first = SIM_PD_FIRST_DECODE_LAUNCH;
	r.sc.pd.gen_init_step = gen_init;
	trace_spec(&r.w, "0,1000,200,-1\n0.05,1000,5,-1\n");
	CHECK(trun_go(&r) == 0 && r.t.completed == 2, "P/D, a busy decode worker, generation-init %d: both complete",
	      (int)gen_init);
	csv_ttft_itl(r.csv, 3, ttft, itl);
	wl_spec_release(&r.w);
	trun_release(&r);
}

static void test_pd_gen_init(const struct model_cfg *m)
{
	double ttft[2] = {0, 0}, itl[2] = {0, 0}, ttft_gi[2] = {0, 0}, itl_gi[2] = {0, 0};

	pd_busy_join(m, false, ttft, itl);
	pd_busy_join(m, true, ttft_gi, itl_gi);
	CHECK(itl[0] > 0 && ttft_gi[0] == ttft[0],
	      "generation-init: request 0, alone when it joins, keeps its TTFT (%.3f / %.3f ms)", ttft_gi[0], ttft[0]);
	CHECK(ttft_gi[1] > ttft[1] + 0.5 * itl[0] && ttft_gi[1] < ttft[1] + 2.5 * itl[0],
	      "generation-init: request 1 joins the busy worker one step later, TTFT %.3f against %.3f ms (a step "
	      "~%.3f ms)", ttft_gi[1], ttft[1], itl[0]);
}

/* The 1-based step-log line holding needle (its row count before it),
 * -1 when no line does. */
static int log_line_of(const char *log, const char *needle)
{
	const char *hit = log ? strstr(log, needle) : NULL, *row;
	int line = -1, n;

	for (row = log, n = 0; hit && row && row < hit; n++) {
		row = strchr(row, '\n');
		row = row ? row + 1 : NULL;
		if (row && row > hit)
			break;
		line = n;
	}
	return hit ? line + 1 : -1;
}

/* TensorRT-LLM's attention-DP context balance (trtllm_group_gate): two
 * ranks stepping together, each generating (requests 0 and 1, 60 tokens);
 * request 2 arrives alone at 5 ms.  The log line (one per rank and step)
 * where its prefill runs: with `timeout` 0 (off) the next step takes it;
 * with the balance on, the group holds it while the other rank has no
 * context, until the counter of held steps reaches `timeout`.  `pair`: a
 * fourth request arrives with it, one for each rank, and both go at once. */
static int adp_prefill_line(const struct model_cfg *m, int64_t timeout, bool pair)
{
	struct trun r = {.log = NULL, .csv = NULL};
	int line;

	trun_init(&r, m, 2048, 64, 1000, NULL);
	r.sc.dp = 2;
	r.sc.lockstep = true;
	r.sc.policy = policy_of("trtllm");
	r.sc.adp_timeout_iters = timeout;
	trace_spec(&r.w, pair ? "0,200,60,-1\n0,200,60,-1\n0.005,200,3,-1\n0.005,200,3,-1\n"
			    : "0,200,60,-1\n0,200,60,-1\n0.005,200,3,-1\n");
	CHECK(trun_go(&r) == 0 && r.t.completed == (pair ? 4 : 3),
	      "attention-DP balance %lld%s: every request completes", (long long)timeout, pair ? ", a pair" : "");
	line = log_line_of(r.log, " 2+200 ");
	wl_spec_release(&r.w);
	trun_release(&r);
	return line;
}

static void test_trtllm_adp_balance(const struct model_cfg *m)
{
	int off = adp_prefill_line(m, 0, false), on = adp_prefill_line(m, 20, false);
	int pair_off = adp_prefill_line(m, 0, true), pair_on = adp_prefill_line(m, 20, true);

	CHECK(off > 0 && on > off + 2 * 5,
	      "a lone context waits for the balance's timeout: its prefill on log line %d, not %d (2 lines a step)",
	      on, off);
	CHECK(on <= off + 2 * 21, "and no longer than the 20 steps of the timeout: line %d against %d", on, off);
	CHECK(pair_off > 0 && pair_on == pair_off,
	      "a context on every rank goes at once: line %d with the balance, %d without", pair_on, pair_off);
}

/* TensorRT-LLM's batch waiting (trtllm_batch_wait): one engine generating
 * request 0 (60 tokens); request 1 (200-token prompt) arrives alone at 5 ms.
 * The step-log line (one per step) where its prefill runs: with `iters` 0
 * (off) the next step takes it; with batch_wait_timeout_iters `iters` and a
 * token threshold above the step's 201 tokens the engine holds it `iters`
 * steps; with a threshold it reaches (`tokens` <= 201) it goes at once. */
static int bw_prefill_line(const struct model_cfg *m, int64_t iters, double tokens)
{
	struct trun r = {.log = NULL, .csv = NULL};
	int line;

	trun_init(&r, m, 2048, 64, 1000, NULL);
	r.sc.policy = policy_of("trtllm");
	r.sc.batch_wait_iters = iters;
	r.sc.batch_wait_tokens = tokens;
	trace_spec(&r.w, "0,200,60,-1\n0.005,200,3,-1\n");
	CHECK(trun_go(&r) == 0 && r.t.completed == 2,
	      "batch waiting %lld / %.0f tokens: every request completes", (long long)iters, tokens);
	line = log_line_of(r.log, " 1+200 ");
	wl_spec_release(&r.w);
	trun_release(&r);
	return line;
}

/* The step log of a P/D pair under TensorRT-LLM with batch waiting of
 * `iters` (threshold out of reach): request 1's hand-off reaches the decode
 * worker while request 0 generates there. */
static char *bw_pd_log(const struct model_cfg *m, int64_t iters)
{
	struct trun r = {.log = NULL, .csv = NULL};
	char *log;

	trun_init(&r, m, 2048, 64, 1000, "0,200,60,-1\n0.005,200,3,-1\n");
	pd_cfg(&r.sc, 1, &r.c, 1000, 2048, 1e5);
	r.sc.policy = policy_of("trtllm");
	r.sc.batch_wait_iters = iters;
	r.sc.batch_wait_tokens = 1e9;
	CHECK(trun_go(&r) == 0 && r.t.completed == 2, "P/D batch waiting %lld: every request completes",
	      (long long)iters);
	log = r.log;
	r.log = NULL;
	wl_spec_release(&r.w);
	trun_release(&r);
	return log;
}

static void test_trtllm_batch_wait(const struct model_cfg *m)
{
	int off = bw_prefill_line(m, 0, 0), on = bw_prefill_line(m, 8, 1e9), full = bw_prefill_line(m, 8, 150);
	char *pd_off = bw_pd_log(m, 0), *pd_on = bw_pd_log(m, 8);

	/* a hand-off is a generation request, not a context: the decode
	 * worker never holds it (its waiting entry has no arrival fields) */
	CHECK(pd_off && pd_on && strcmp(pd_off, pd_on) == 0,
	      "P/D: a decode worker does not hold a hand-off for batch waiting (step logs equal)");
	free(pd_off);
	free(pd_on);

	CHECK(off > 0 && on == off + 8,
	      "a context beside generation waits batch_wait_timeout_iters 8 steps: its prefill on log line %d, "
	      "not %d", on, off);
	CHECK(full == off, "and goes at once when the step's tokens reach the threshold: line %d against %d", full,
	      off);
}

/* A cold server (sim_cfg.cold_start_s): three 64-token prompts at once
 * with a 64-token budget take three prefill steps in a row; the second,
 * the first to follow another prefill step, lasts 0.5 s longer, the first
 * and third as when warm, and nothing else moves. */
static void cold_steps(const struct model_cfg *m, double cold, double dur[4])
{
	struct trun r = {.log = NULL, .csv = NULL};
	char buf[256];
	int i;

	trun_init(&r, m, 64, 64, 1000, NULL);
	r.sc.cold_start_s = cold;
	trace_spec(&r.w, "0,64,3,-1\n0,64,3,-1\n0,64,3,-1\n");
	CHECK(trun_go(&r) == 0 && r.t.completed == 3, "cold-start run completes (%g s)", cold);
	for (i = 0; i < 4; i++) {
		dur[i] = -1;
		if (line_n(r.log, i, buf, sizeof(buf)))
			sscanf(buf, "step %*u t=%*f %*[^=]=%lf", &dur[i]);
	}
	wl_spec_release(&r.w);
	trun_release(&r);
}

static void test_cold_start(const struct model_cfg *m)
{
	double warm[4], cold[4];

	cold_steps(m, 0, warm);
	cold_steps(m, 0.5, cold);
	CHECK(warm[0] > 0 && fabs(cold[0] - warm[0]) < 1e-9, "cold start: the first prefill step as warm (%.6f, %.6f)",
	      cold[0], warm[0]);
	CHECK(warm[1] > 0 && fabs(cold[1] - warm[1] - 0.5) < 1e-6,
	      "the second prefill step in a row pays 0.5 s once: %.6f against %.6f warm", cold[1], warm[1]);
	CHECK(warm[2] > 0 && fabs(cold[2] - warm[2]) < 1e-9 && fabs(cold[3] - warm[3]) < 1e-9,
	      "and the later steps do not: %.6f %.6f against %.6f %.6f", cold[2], cold[3], warm[2], warm[3]);
}

/* The API server's loop (overheads.api_loop_ms, sim/apiq.c): three
 * prompts at once and a fourth 120 ms later, the loop 50 ms a request.
 * The first reaches the engine at once, the other two of its instant
 * together after the loop's 2 x 50 ms for them (100 ms), and the fourth,
 * arriving while the loop is busy (until 150 ms), when it is free; without
 * the term the first instant's prompts share the first step. */
static void api_loop_run(const struct model_cfg *m, double loop_ms, int servers, char **log)
{
	struct trun r = {.log = NULL, .csv = NULL};

	trun_init(&r, m, 1000, 64, 1000, "0,64,3,-1\n0,64,3,-1\n0,64,3,-1\n0.12,64,3,-1\n");
	r.c.cfg.ov.api_loop_ms = loop_ms;
	r.sc.api_servers = servers;
	r.sc.check_invariants = true;
	CHECK(trun_go(&r) == 0 && r.t.completed == 4, "API loop %g ms: the run completes all four", loop_ms);
	*log = r.log;
	r.log = NULL;
	wl_spec_release(&r.w);
	trun_release(&r);
}

static double line_t(const char *log, const char *needle, char *buf, size_t n)
{
	int i;
	double t = -1;

	for (i = 0; line_n(log, i, buf, n)[0]; i++)
		if (strstr(buf, needle)) {
			sscanf(buf, "step %*u t=%lf", &t);
			return t;
		}
	return -1;
}

static void test_api_loop(const struct model_cfg *m)
{
	char *off, *on, buf[512];
	double t1, t3;

	api_loop_run(m, 0, 1, &off);
	api_loop_run(m, 50, 1, &on);
	CHECK(strstr(line_n(off, 0, buf, sizeof(buf)), "0+64 1+64") != NULL,
	      "no API loop: the prompts of t = 0 share the first step: %s", buf);
	CHECK(strstr(line_n(on, 0, buf, sizeof(buf)), "0+64 |") != NULL,
	      "API loop: the first prompt reaches the engine at once, alone: %s", buf);
	t1 = line_t(on, " 1+64", buf, sizeof(buf));
	CHECK(t1 >= 0.1 - 1e-9 && strstr(buf, " 2+64") != NULL,
	      "the other two of its instant together, after the loop's 100 ms for them: t=%.6f %s", t1, buf);
	t3 = line_t(on, " 3+64", buf, sizeof(buf));
	CHECK(t3 >= 0.15 - 1e-9 && strstr(buf, " 1+64") == NULL,
	      "the fourth (t = 0.12 s, the loop busy until 0.15 s) after it, on its own: t=%.6f %s", t3, buf);
	free(on);
	/* two API servers (vLLM >= 0.16 at DP 2, sim_cfg.api_servers): their
	 * loops pass the instant's two others in 2 x 25 ms, free at 75 ms, so
	 * the fourth (t = 0.12 s) goes in at once */
	api_loop_run(m, 50, 2, &on);
	t1 = line_t(on, " 1+64", buf, sizeof(buf));
	CHECK(t1 >= 0.05 - 1e-9 && t1 < 0.1 - 1e-9 && strstr(buf, " 2+64") != NULL,
	      "two API servers: the other two after 50 ms, not 100: t=%.6f %s", t1, buf);
	t3 = line_t(on, " 3+64", buf, sizeof(buf));
	CHECK(t3 >= 0.12 - 1e-9 && t3 < 0.15 - 1e-9, "and the fourth when it arrives (loops free): t=%.6f", t3);
	free(off);
	free(on);
}

/* Pipeline parallelism, vLLM V1 style: with PP 2 and a 64-token budget,
 * request 0's prefill fills the first batch; request 1's enters the
 * pipeline when the first stage frees, half the first batch's time later,
 * while batch 1 is still in the second stage. */
static void test_pp(const struct model_cfg *m)
{
	struct trun r = {.log = NULL, .csv = NULL};
	struct cost_cfg cc;
	struct parallel p = {1, 2, 1, 1, 0, 0};
	struct err e;
	char buf[256];
	double t0 = -1, d0 = -1, t1 = -1;

	fixture_cost_cfg(&cc, 64, 64, 512);
	CHECK(cost_init(&r.c, m, gpu("h100"), &p, &cc, datadir, &e) == 0, "PP 2 cost model");
	base_cfg(&r.sc, 64, 64, 1000);
	trace_spec(&r.w, "0,64,3,-1\n0,64,3,-1\n");
	CHECK(trun_go(&r) == 0 && r.t.completed == 2, "PP run completes both");
	sscanf(line_n(r.log, 0, buf, sizeof(buf)), "step %*u t=%lf %*[^=]=%lf", &t0, &d0);
	CHECK(strstr(buf, "r0: 0+64 ") != NULL, "batch 1: request 0's prompt: %s", buf);
	sscanf(line_n(r.log, 1, buf, sizeof(buf)), "step %*u t=%lf", &t1);
	CHECK(strstr(buf, " 1+64 ") != NULL && fabs(t1 - (t0 + d0 / 2)) < 2e-6,
	      "batch 2 (request 1) enters at half batch 1's time: t=%.6f, want %.6f", t1, t0 + d0 / 2);
	wl_spec_release(&r.w);
	trun_release(&r);
}

/* The step mechanics, one file each around core.h: a request record from
 * the pool comes back cleared and is the next one given after it is put
 * back (reqpool.c); a block-id array is reused within its size class; the
 * waiting queue gives its front first (waitq.c); the running list keeps
 * admission order (runlist.c). */
static void test_mechanics(const struct model_cfg *m)
{
	struct req *a, *b, *x;
	int32_t *ia, *ib;
	struct cost_model c;
	struct replica *rp;
	struct sim_cfg sc;
	struct sim *s = NULL;
	struct wl_spec w;
	struct err e;

	make_cost(&c, m, 512, 64, 0);
	base_cfg(&sc, 512, 64, 4000);
	poisson_spec(&w, 20, 100, 10, 200, 5);
	if (sim_new(&sc, &c, &w, &s, &e) < 0) {
		CHECK(0, "mechanics: sim_new: %s", e.msg);
		cost_release(&c);
		return;
	}
	rp = &s->reps[0];
	a = reqpool_req_get(s);
	b = reqpool_req_get(s);
	a->prompt = 100;
	a->output = 20;
	b->prompt = 3000;
	b->output = 10;
	ia = reqpool_ids_get(s, rp, a);
	ib = reqpool_ids_get(s, rp, b);
	CHECK(a != b && ia != ib && a->aclass > 0 && b->aclass > a->aclass,
	      "mechanics: two records, their arrays in classes %d < %d", a->aclass, b->aclass);
	reqpool_ids_put(s, rp, a, ia);
	sched_req_put(s, a);
	x = reqpool_req_get(s);
	CHECK(x == a && x->prompt == 0 && x->aclass == 0, "mechanics: the record put back is given next, cleared");
	x->prompt = 90;
	x->output = 25;
	CHECK(reqpool_ids_get(s, rp, x) == ia, "mechanics: a block-id array reused within its size class");
	reqpool_ids_put(s, rp, x, ia);
	reqpool_ids_put(s, rp, b, ib);
	waitq_push_front(rp, x);
	waitq_push_front(rp, b);
	CHECK(rp->wlen == 2 && waitq_front(s, rp) == b, "mechanics: the waiting queue's front is the last pushed in front");
	waitq_pop_front(rp);
	CHECK(rp->wlen == 1 && waitq_front(s, rp) == x, "mechanics: then the one behind it");
	waitq_pop_front(rp);
	runlist_append(rp, x);
	runlist_append(rp, b);
	CHECK(rp->run_head == x && rp->run_tail == b && rp->nrun == 2 && x->rseq < b->rseq,
	      "mechanics: the running list in admission order");
	runlist_remove(rp, x);
	CHECK(rp->run_head == b && rp->run_tail == b && rp->nrun == 1, "mechanics: one removed, the other kept");
	runlist_remove(rp, b);
	sched_req_put(s, x);
	sched_req_put(s, b);
	sim_free(s);
	cost_release(&c);
}

/* Past the exact count the summaries come from histograms within
 * LOGHIST_REL_ERR of the exact ones (exact_max lowered to 700 here). */
static void test_hist_percentiles(const struct model_cfg *m)
{
	struct cost_model c;
	struct sim_cfg sc;
	struct wl_spec w;
	struct metric_set ex, hi;
	struct sim *s1 = NULL, *s2 = NULL;
	struct err e;
	double tt[3], ee[3];
	const struct dist_summary *a[5] = {&ex.ttft_ms, &ex.itl_ms, &ex.tpot_ms, &ex.e2e_ms, &ex.queue_ms};
	const struct dist_summary *b[5] = {&hi.ttft_ms, &hi.itl_ms, &hi.tpot_ms, &hi.e2e_ms, &hi.queue_ms};
	double worst = 0;
	int k, ok = 1;

	make_cost(&c, m, 512, 64, 0);
	base_cfg(&sc, 512, 64, 4000);
	sc.check_invariants = false;
	poisson_spec(&w, 20, 3000, 10, 200, 5);
	sc.exact_max = 700;
	sc.exact_percentiles = true;
	ok &= new_and_run(&sc, &c, &w, &s1, &e) == 0;
	sc.exact_percentiles = false;
	ok &= new_and_run(&sc, &c, &w, &s2, &e) == 0;
	CHECK(ok, "histogram run and exact run finish");
	if (ok) {
		sim_summary(s1, -1, &ex);
		sim_summary(s2, -1, &hi);
		for (k = 0; k < 5; k++) {
			double r[4] = {a[k]->p50, a[k]->p90, a[k]->p95, a[k]->p99};
			double q[4] = {b[k]->p50, b[k]->p90, b[k]->p95, b[k]->p99};
			int j;
			ok &= a[k]->n == b[k]->n && a[k]->max == b[k]->max &&
			      fabs(a[k]->mean - b[k]->mean) <= 1e-9 * fabs(a[k]->mean);
			for (j = 0; j < 4; j++)
				if (r[j] != 0)
					worst = fmax(worst, fabs(q[j] - r[j]) / fabs(r[j]));
		}
		CHECK(ok && ex.completed == hi.completed && ex.completed == 3000 &&
			      worst <= LOGHIST_REL_ERR,
		      "3000 requests past an exact count of 700: same n, mean, max; percentiles within %.2e (<= %g)",
		      worst, LOGHIST_REL_ERR);
		sim_per_request(s2, tt, ee, 3);
		CHECK(isnan(tt[0]) && isnan(ee[2]), "per-request values not kept past the exact count");
		sim_per_request(s1, tt, ee, 3);
		CHECK(!isnan(tt[0]) && !isnan(ee[2]), "--exact-percentiles keeps them");
	}
	sim_free(s1);
	sim_free(s2);
	cost_release(&c);
}

/* rel(a, b): |a - b| / |b| (0 when both are 0, NAN-safe: 1 when one is) */
static double rel_diff(double a, double b)
{
	if (isnan(a) || isnan(b))
		return isnan(a) && isnan(b) ? 0 : 1;
	return a == b ? 0 : fabs(a - b) / fabs(b);
}

/* Past the kept records the run's status comes from per-stage sketches
 * (sim.h sim_flow): the same verdict and stage as the exact test, its
 * rates within the tlines' boundary buckets, its queue growth from the
 * same sums (exact_max lowered to 700 here). */
static void test_status_sketch(const struct model_cfg *m)
{
	static const struct {
		const char *what;
		double rate, rate2; /* rate2: a second stage (0: none) */
	} cases[] = {{"served", 20, 0}, {"overloaded", 150, 0}, {"overloaded in stage 1", 10, 150}};
	struct cost_model c;
	struct sim_cfg sc;
	size_t k;

	make_cost(&c, m, 512, 64, 0);
	base_cfg(&sc, 512, 64, 4000);
	sc.check_invariants = false;
	sc.exact_max = 700;
	for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct run_status ex, sk;
		struct sim *s1 = NULL, *s2 = NULL;
		struct wl_spec w;
		struct err e;
		int ok = 1;
		char l1[200], l2[200];
		poisson_spec(&w, cases[k].rate, cases[k].rate2 > 0 ? 0 : 20000, 10, 200, 3);
		if (cases[k].rate2 > 0) {
			w.nstages = 2;
			w.stages[0].rate = cases[k].rate;
			w.stages[0].duration_s = 1000;
			w.stages[1].rate = cases[k].rate2;
			w.stages[1].duration_s = 100;
		}
		sc.exact_percentiles = true;
		ok &= new_and_run(&sc, &c, &w, &s1, &e) == 0;
		sc.exact_percentiles = false;
		ok &= new_and_run(&sc, &c, &w, &s2, &e) == 0;
		CHECK(ok && sim_flow_kind(s1) == SIM_FLOW_EXACT && sim_flow_kind(s2) == SIM_FLOW_SKETCH,
		      "%s: exact and sketched runs finish", cases[k].what);
		if (ok && run_status_sim(&w, s1, &ex, &e) == 0 && run_status_sim(&w, s2, &sk, &e) == 0) {
			run_status_line(&ex, l1, sizeof(l1));
			run_status_line(&sk, l2, sizeof(l2));
			CHECK(ex.kind == sk.kind && ex.stage == sk.stage && !isnan(sk.offered_rps) &&
				      rel_diff(sk.offered_rps, ex.offered_rps) < 2e-3 &&
				      rel_diff(sk.served_rps, ex.served_rps) < 2e-3 &&
				      rel_diff(sk.queue_growth_s, ex.queue_growth_s) < 1e-6,
			      "%s, %llu requests: sketched '%s' (offered %.9g, served %.9g req/s, queue %.9g s), "
			      "exact '%s' (%.9g, %.9g req/s, %.9g s)",
			      cases[k].what, (unsigned long long)sim_totals(s2)->arrived, l2, sk.offered_rps,
			      sk.served_rps, sk.queue_growth_s, l1, ex.offered_rps, ex.served_rps, ex.queue_growth_s);
			CHECK(ex.kind == (k == 0 ? RUN_OK : RUN_OVERLOADED) && ex.stage == (k == 2 ? 1 : -1),
			      "%s: the exact test says so", cases[k].what);
		}
		sim_free(s1);
		sim_free(s2);
	}
	cost_release(&c);
}

/* The pooled token gaps hold together: one gap per chunk after a
 * request's first (token_gaps), and they sum to sum(E2E - TTFT). */
static void pooled_consistent(const char *what, const struct metric_set *m)
{
	const struct dist_summary *d = &m->itl_pooled_ms;

	CHECK(d->n == m->token_gaps && d->n > 0 && m->itl_pooled_exact &&
		      fabs(d->mean - m->itl_pooled_mean_ms) <= 1e-9 * m->itl_pooled_mean_ms &&
		      d->p50 <= d->p90 && d->p90 <= d->p99 && d->p99 <= d->max,
	      "%s: pooled ITL over %zu gaps (token_gaps %zu), mean %.9g = sum(e2e - ttft)/gaps %.9g, "
	      "p50 %.4f p99 %.4f max %.4f ms", what, d->n, m->token_gaps, d->mean, m->itl_pooled_mean_ms,
	      d->p50, d->p99, d->max);
}

/* Step durations (s) of a step log, in order. */
static size_t log_durs(const char *log, double *dur, size_t cap)
{
	const char *p;
	size_t n = 0;

	for (p = log; (p = strstr(p, "dur=")) && n < cap; p += 4)
		dur[n++] = strtod(p + 4, NULL);
	return n;
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Percentile p of sorted x[0..n) (stats.h's definition). */
static double pct(const double *x, size_t n, double p)
{
	double pos = p * (double)(n - 1);
	size_t lo = (size_t)pos;

	return lo + 1 >= n ? x[n - 1] : x[lo] + (pos - (double)lo) * (x[lo + 1] - x[lo]);
}

/* The summary against gaps worked out apart (ms); the log prints times to
 * 1 us, hence the tolerance. */
static void pooled_vs(const char *what, const struct metric_set *m, double *g, size_t n)
{
	const struct dist_summary *d = &m->itl_pooled_ms;
	double mean = 0, sd = 0, tol = 2e-3;
	size_t i;

	qsort(g, n, sizeof(*g), cmp_dbl);
	for (i = 0; i < n; i++)
		mean += g[i] / (double)n;
	for (i = 0; i < n; i++)
		sd += (g[i] - mean) * (g[i] - mean) / (double)n;
	sd = sqrt(sd);
	CHECK(n > 0 && d->n == n && m->token_gaps == n && fabs(d->mean - mean) < tol && fabs(d->std - sd) < tol &&
		      fabs(d->p50 - pct(g, n, 0.5)) < tol && fabs(d->p90 - pct(g, n, 0.9)) < tol &&
		      fabs(d->p95 - pct(g, n, 0.95)) < tol && fabs(d->p99 - pct(g, n, 0.99)) < tol &&
		      fabs(d->max - g[n - 1]) < tol,
	      "%s: %zu gaps (want %zu): mean %.4f/%.4f std %.4f/%.4f p50 %.4f/%.4f p90 %.4f/%.4f "
	      "p99 %.4f/%.4f max %.4f/%.4f ms", what, d->n, n, d->mean, mean, d->std, sd, d->p50,
	      pct(g, n, 0.5), d->p90, pct(g, n, 0.9), d->p99, pct(g, n, 0.99), d->max, g[n - 1]);
}

/* vLLM's ITL pooled over requests (sim.h): two requests arriving
 * together, prompts of 100, 4 and 6 output tokens.  Step 1 prefills both
 * (their first tokens), steps 2-4 decode both, steps 5-6 the second.
 * Client side off (H2): a token reaches the client when its step ends,
 * so the gaps are the step durations d: {d2,d2,d3,d3,d4,d4,d5,d6}.  With
 * H2 a step's tokens reach the client when the next step ends (and the
 * last step's at once): chunk times end(G) + d(G+1), end(6), so the gaps
 * are {d3,d3,d4,d4,d5,d5,d6,0}. */
static void test_pooled_itl_hand(const struct model_cfg *m)
{
	struct trun r = {.log = NULL, .csv = NULL};
	double d[16], g[8];
	size_t nd;
	int h2;

	for (h2 = 0; h2 < 2; h2++) {
		make_cost(&r.c, m, 2048, 64, h2 ? 0 : COST_H2);
		base_cfg(&r.sc, 2048, 64, 1000);
		trace_spec(&r.w, "0.0,100,4,\n0.0,100,6,\n");
		CHECK(trun_go(&r) == 0 && r.t.completed == 2, "pooled ITL run (H2 %s)",
		      h2 ? "on" : "off");
		nd = log_durs(r.log, d, 16);
		CHECK(nd == 6, "6 steps (%zu)", nd);
		if (nd == 6) {
			/* d[0] is step 1 */
			double off[8] = {d[1], d[1], d[2], d[2], d[3], d[3], d[4], d[5]};
			double on[8] = {d[2], d[2], d[3], d[3], d[4], d[4], d[5], 0};
			size_t i;
			for (i = 0; i < 8; i++)
				g[i] = 1e3 * (h2 ? on[i] : off[i]);
			pooled_vs(h2 ? "2 requests, H2 on" : "2 requests, H2 off", &run_sum, g, 8);
		}
		free(r.log);
		free(r.csv);
		r.log = r.csv = NULL;
		wl_spec_release(&r.w);
		cost_release(&r.c);
	}
}

/* The pooled gaps against a replay of the step log (H2 off, no prefix
 * caching, so the log says every token computed): a request makes a chunk
 * when its computed tokens reach prompt + generated; a preemption
 * recomputes from 0.  Chunked prefills, decoders, a preemption storm. */
static void test_pooled_itl_replay(const struct model_cfg *m)
{
	struct trun r = {.log = NULL, .csv = NULL};
	char *line, *save = NULL;
	int64_t prompt[400] = {0}, comp[400] = {0}, gen[400] = {0};
	double last[400], *g = NULL;
	size_t ng = 0, cap = 0;
	int mode;

	for (mode = 0; mode < 2; mode++) {
		make_cost(&r.c, m, 512, 64, COST_H2);
		base_cfg(&r.sc, 512, 64, mode ? 60 : 4000);
		r.sc.prefix_caching = false;
		poisson_spec(&r.w, 8, 300, 2, 200, 7);
		CHECK(trun_go(&r) == 0 && r.t.completed == 300 && (mode == 0 || r.t.preemptions > 0),
		      "replay run %d: %llu preemptions", mode, (unsigned long long)r.t.preemptions);
		/* id, replica, stage, arrival_s, prompt, ... */
		for (line = strtok_r(r.csv, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			long long id, p;
			if (sscanf(line, "%lld,%*d,%*d,%*f,%lld", &id, &p) == 2 && id >= 0 && id < 400)
				prompt[id] = p;
		}
		memset(comp, 0, sizeof(comp));
		memset(gen, 0, sizeof(gen));
		ng = 0;
		save = NULL;
		for (line = strtok_r(r.log, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			double t0, dur, end;
			char *p = strstr(line, "dur="), *q;
			long long id;
			if (sscanf(line, "preempt %lld", &id) == 1) {
				comp[id] = 0;
				continue;
			}
			if (!p || sscanf(line, "step %*u t=%lf", &t0) != 1)
				continue;
			dur = strtod(p + 4, NULL);
			end = (t0 + dur) * 1e3;
			q = strchr(line, ':') + 1;
			for (;;) {
				long long n;
				int used;
				if (sscanf(q, " %lld+%lld%n", &id, &n, &used) != 2)
					break;
				q += used;
				comp[id] += n;
				if (comp[id] < prompt[id] + gen[id])
					continue;
				if (gen[id]++ > 0) {
					if (ng == cap) {
						cap = cap ? 2 * cap : 4096;
						g = realloc(g, cap * sizeof(*g));
					}
					g[ng++] = end - last[id];
				}
				last[id] = end;
			}
		}
		pooled_vs(mode ? "replay, preemption storm" : "replay, chunked prefill", &run_sum, g, ng);
		free(r.log);
		free(r.csv);
		r.log = r.csv = NULL;
		wl_spec_release(&r.w);
		cost_release(&r.c);
	}
	free(g);
}

/* Runs sc with *off set, then cleared (that run checking the engine's
 * invariants after every event when `check`), and checks that both give
 * the same bytes: step log, per-request CSV, totals and pooled gaps. */
static void same_both_ways(const char *what, const char *mode, struct sim_cfg *sc, bool *off, bool check,
			   const struct cost_model *c, const struct wl_spec *w)
{
	char *l1 = NULL, *c1 = NULL, *l2 = NULL, *c2 = NULL;
	struct sim_totals t1, t2;
	struct metric_set m1;
	int r1, r2;

	sc->check_invariants = false;
	*off = true;
	r1 = run(sc, c, w, &l1, &c1, &t1);
	m1 = run_sum;
	*off = false;
	sc->check_invariants = check;
	r2 = run(sc, c, w, &l2, &c2, &t2);
	sc->check_invariants = false;
	pooled_consistent(what, &run_sum);
	CHECK(r1 == 0 && r2 == 0 && t1.completed > 0 && strcmp(l1, l2) == 0 && strcmp(c1, c2) == 0 &&
		      memcmp(&t1, &t2, sizeof(t1)) == 0 &&
		      memcmp(&m1.itl_pooled_ms, &run_sum.itl_pooled_ms, sizeof(m1.itl_pooled_ms)) == 0 &&
		      m1.itl_pooled_mean_ms == run_sum.itl_pooled_mean_ms,
	      "%s: %s on and off byte-identical (%llu steps, %llu events, %llu preemptions, %zu log bytes)", what,
	      mode, (unsigned long long)t1.steps, (unsigned long long)t1.events,
	      (unsigned long long)t1.preemptions, strlen(l1));
	free(l1); free(c1); free(l2); free(c2);
}

/* Step segments (sim.h, no_segments): running a replica's steps back to
 * back without the event queue (and steady-decode steps without the
 * general walks: step.c's decode_steps) gives the same bytes as step by
 * step, on open and closed loops, prefix caching with shared prefixes, a
 * preemption storm, speculative decoding, PP, DP, attention-DP lockstep,
 * P/D and SGLang. */
static void seg_compare(const char *what, struct sim_cfg *sc, const struct cost_model *c,
			const struct wl_spec *w)
{
	same_both_ways(what, "segments", sc, &sc->no_segments, false, c, w);
}

/* Lazy decoders (sim.h, no_lazy_decoders): advancing steady decoders by
 * the step count gives the same bytes as walking every running request at
 * every step; the lazy run checks the engine's invariants (sched_check's
 * lists) after every event. */
static void lazy_compare(const char *what, struct sim_cfg *sc, const struct cost_model *c,
			 const struct wl_spec *w)
{
	same_both_ways(what, "lazy decoders", sc, &sc->no_lazy_decoders, true, c, w);
}

/* SGLang without lazy decoders (no_lazy_decoders, speculative decoding,
 * --enable-mixed-chunk) keeps its lists of the running requests from step
 * to step while nobody joins or leaves and nobody is mid-prefill
 * (sglang.c sg_collect): the checked run tests after every event that the
 * kept lists are what a walk of the running list finds (sglang_check), and
 * gives the bytes of the unchecked run; open loop and one-token pages
 * with retractions. */
static void test_sglang_kept_lists(const struct model_cfg *m)
{
	struct cost_model c;
	struct sim_cfg sc;
	struct wl_spec w;
	int k, tight, gaps;

	open_loop(&c, &w, m);
	for (k = 0; k < 3; k++)
		for (tight = 0; tight < 2; tight++) {
			char *l1 = NULL, *c1 = NULL, *l2 = NULL, *c2 = NULL;
			struct sim_totals t1, t2;
			int r1, r2;
			base_cfg(&sc, 2048, 64, tight ? 60 * 16 : 4000);
			if (tight)
				sc.block_size = 1;
			sc.policy = policy_of("sglang");
			if (k == 0) {
				sc.no_lazy_decoders = true;
			} else if (k == 1) {
				sc.spec.method = SPEC_MTP;
				sc.spec.k = 1;
				sc.spec.nrates = 1;
				sc.spec.rate[0] = 0.8;
			} else { /* (the lazy decoders' run: test_lazy_decoders) */
				sc.mixed_chunk = true;
				sc.no_lazy_decoders = true;
			}
			r1 = run(&sc, &c, &w, &l1, &c1, &t1);
			sc.check_invariants = false;
			r2 = run(&sc, &c, &w, &l2, &c2, &t2);
			CHECK(r1 == 0 && r2 == 0 && t1.completed == 300 && strcmp(l1, l2) == 0 && strcmp(c1, c2) == 0 &&
				      memcmp(&t1, &t2, sizeof(t1)) == 0 && (!tight || t1.preemptions > 0),
			      "SGLang %s%s: kept running lists checked at every event, the same bytes (%llu steps, %llu preemptions)",
			      k == 0 ? "without lazy decoders" : k == 1 ? "MTP" : "mixed chunk",
			      tight ? ", one-token pages, retractions" : "", (unsigned long long)t1.steps,
			      (unsigned long long)t1.preemptions);
			free(l1); free(c1); free(l2); free(c2);
			if (k != 1)
				continue;
			/* MTP's decode batches from the plan summed at the last
			 * step's end (step.c sg_ahead_applies, sglang.c
			 * sg_decode_ahead; off with no_segments) where pooled
			 * gaps are only counted (finish_rank's verifying walk,
			 * spec_walk, sums it), and with pooled gaps kept (the
			 * general body, no plan) */
			for (gaps = 0; gaps < 2; gaps++) {
				char *l3 = NULL, *c3 = NULL, *l4 = NULL, *c4 = NULL;
				struct sim_totals t3, t4;
				int r3, r4;
				sc.no_pooled_gaps = gaps == 1;
				sc.no_segments = false;
				r3 = run(&sc, &c, &w, &l3, &c3, &t3);
				sc.no_segments = true;
				r4 = run(&sc, &c, &w, &l4, &c4, &t4);
				sc.no_segments = false;
				sc.no_pooled_gaps = false;
				CHECK(r3 == 0 && r4 == 0 && t3.completed == 300 && strcmp(l3, l4) == 0 &&
					      strcmp(c3, c4) == 0 && memcmp(&t3, &t4, sizeof(t3)) == 0,
				      "SGLang MTP%s, pooled gaps %s: planned ahead and walked, the same bytes (%llu steps)",
				      tight ? ", one-token pages, retractions" : "", gaps ? "counted" : "kept",
				      (unsigned long long)t3.steps);
				free(l3); free(c3); free(l4); free(c4);
			}
		}
	wl_spec_release(&w);
	cost_release(&c);
}

/* An attention-DP rank's decode step priced in two parts (cost.h,
 * cost_step_local_s and cost_step_join_s, what step.c's memo keeps and
 * what it adds; the join with its MoE part priced apart, as step.c prices
 * it once per group step) is cost_step_s bit for bit: MLA (DeepSeek-V3) and GQA
 * (Mixtral) models, PP 1 and 2, sampled sequences below and at the
 * decoders, the group's MoE tokens inside and past the MoE table, with and
 * without overlap scheduling; steps with a prefill chunk, without MoE
 * tokens or under H4 are not split. */
static void test_step_split(void)
{
	static const char *const models[2] = {"deepseek-v3", "mixtral-8x7b"};
	struct parallel par[2] = {{1, 1, 4, 4, 0, 0}, {1, 2, 4, 4, 0, 0}};
	static const int64_t nd[] = {1, 3, 17, 64}, moe[] = {4, 37, 1000, 300001};
	struct model_cfg m;
	struct cost_model c;
	struct cost_cfg cc;
	struct step_desc d;
	struct err e;
	int64_t len = 300, pre = 0;
	size_t im, ip, i, j, k, n = 0, same = 0;

	for (im = 0; im < 2; im++) {
		load_model(models[im], &m);
		for (ip = 0; ip < 4; ip++) {
			fixture_cost_cfg(&cc, 2048, 64, 512);
			cc.overlap_cpu = ip >= 2;
			if (cost_init(&c, &m, gpu("h200"), &par[ip % 2], &cc, datadir, &e) < 0) {
				CHECK(0, "%s attention-DP cost model: %s", models[im], e.msg);
				continue;
			}
			for (i = 0; i < sizeof(nd) / sizeof(nd[0]); i++)
				for (j = 0; j < sizeof(moe) / sizeof(moe[0]); j++)
					for (k = 0; k < 2; k++) {
						double t, l;
						memset(&d, 0, sizeof(d));
						d.ndecode = nd[i];
						d.nlogits = k ? nd[i] : (nd[i] + 1) / 2;
						d.decode_ctx_sum = 1234.0 * (double)nd[i] + 17;
						d.moe_tokens = moe[j] + nd[i];
						n++;
						if (!cost_step_splits(&c, &d))
							continue;
						t = cost_step_s(&c, &d);
						l = cost_step_local_s(&c, &d);
						same += memcmp(&t, &(double){cost_step_join_s(&c, &d, l)}, sizeof(t)) == 0 &&
							memcmp(&t,
							       &(double){cost_step_join_moe_s(
								       &c, &d, l,
								       cost_step_moe_s(&c, d.moe_tokens, d.moe_extend))},
							       sizeof(t)) == 0;
					}
			memset(&d, 0, sizeof(d));
			d.ndecode = 3;
			d.nlogits = 3;
			d.decode_ctx_sum = 999;
			if (ip == 0) {
				bool no_moe = !cost_step_splits(&c, &d), chunk, h4;
				d.moe_tokens = 8;
				d.nchunks = 1;
				d.chunk_len = &len;
				d.chunk_prefix = &pre;
				chunk = !cost_step_splits(&c, &d);
				d.nchunks = 0;
				c.cfg.off |= COST_H4;
				h4 = !cost_step_splits(&c, &d);
				CHECK(no_moe && chunk && h4,
				      "%s: a step without MoE tokens, with a prefill chunk or under H4 is not split",
				      models[im]);
			}
			cost_release(&c);
		}
	}
	CHECK(n == 2 * 4 * 32 && same == n, "attention-DP decode steps priced in two parts: %zu of %zu bit for bit",
	      same, n);
}

/* A decode-only step of more tokens than max_seqs (MTP's verifying steps:
 * K + 1 tokens a request) takes cost.c's fast local path up to max_m: its
 * own part is the general path's sum bit for bit (cost_attn_decode_s over
 * the decode grid's column, the absorb term at max_seqs, the head linear
 * in n, the GEMMs at the padded count), and the draft layer's pair
 * (cost_draft_pair_s) is cost_step_pair_s and cost_overhead_s bit for bit,
 * with and without overlap scheduling, below and past max_seqs. */
static void test_step_local_wide(void)
{
	static const int64_t nd[] = {1, 17, 64, 65, 100, 129, 512, 513, 1000, 2048};
	struct parallel par = {1, 1, 4, 4, 0, 0};
	struct model_cfg m;
	struct cost_model c;
	struct cost_cfg cc;
	struct step_desc d;
	struct err e;
	size_t i, n = 0, same = 0, dn = 0, dsame = 0;
	int ov;

	load_model("deepseek-v3", &m);
	for (ov = 0; ov < 2; ov++) {
		fixture_cost_cfg(&cc, 2048, 64, 512);
		cc.overlap_cpu = ov == 1;
		if (cost_init(&c, &m, gpu("h200"), &par, &cc, datadir, &e) < 0) {
			CHECK(0, "deepseek-v3 attention-DP cost model: %s", e.msg);
			continue;
		}
		for (i = 0; i < sizeof(nd) / sizeof(nd[0]); i++) {
			double L = (double)m.layers, ctx = 1234.0 * (double)nd[i] + 17, l, want, attn = 0, t2, ovs, p, p2;
			int64_t ms = c.cfg.max_seqs, na = nd[i] <= ms ? nd[i] : ms;
			memset(&d, 0, sizeof(d));
			d.ndecode = d.nlogits = nd[i];
			d.decode_ctx_sum = ctx;
			d.moe_tokens = 4 * nd[i];
			l = cost_step_local_s(&c, &d);
			if (nd[i] > ms) {
				/* components_local_x's general path (pp 1: no sends) */
				attn += cost_attn_decode_s(&c, nd[i], ctx);
				attn += c.absorb_s[na] / L;
				attn += c.mla_module_s * (double)m.n_mixer[LM_FULL] / L;
				want = cost_tok_s(&c, cost_graph_pad(&c, nd[i])) + L * attn +
				       c.head_s[ms] * (double)nd[i] / (double)ms + 0.0;
				n++;
				same += memcmp(&l, &want, sizeof(l)) == 0;
			}
			memset(&d, 0, sizeof(d));
			d.ndecode = nd[i];
			d.decode_ctx_sum = ctx;
			p = cost_step_pair_s(&c, &d, nd[i], &p2);
			want = cost_draft_pair_s(&c, nd[i], ctx, &t2, &ovs);
			dn++;
			dsame += memcmp(&p, &want, sizeof(p)) == 0 && memcmp(&p2, &t2, sizeof(p)) == 0 &&
				 memcmp(&ovs, &(double){cost_overhead_s(&c, nd[i], 0)}, sizeof(ovs)) == 0;
		}
		cost_release(&c);
	}
	CHECK(n == 2 * 7 && same == n, "decode-only steps past max_seqs: fast local part %zu of %zu bit for bit", same, n);
	CHECK(dn == 2 * 10 && dsame == dn, "draft layer pairs: cost_draft_pair_s %zu of %zu bit for bit", dsame, dn);
}

/* Step-price memos (sim.h, no_step_memo): a repeated decode-only step
 * takes its kept price, bit for bit the price it would be given again:
 * fixed lengths (steps repeat), attention-DP lockstep (each rank's own
 * part kept, whatever the group's MoE tokens: one memo for the group's
 * ranks), DP replicas and one engine. */
static void test_step_memo(void)
{
	struct cost_model c;
	struct cost_cfg cc;
	struct parallel dpa = {1, 1, 4, 4, 0, 0}, one = {1, 1, 1, 1, 0, 0};
	struct model_cfg moe;
	struct sim_cfg sc;
	struct wl_spec w;
	struct err e;
	int k;

	fixed_spec(&w, 6, 400);
	fixture_cost_cfg(&cc, 2048, 64, 512);
	for (k = 0; k < 4; k++) {
		/* (k 3: an MLA model's attention-DP group) */
		load_model(k == 3 ? "deepseek-v3" : "mixtral-8x7b", &moe);
		if (cost_init(&c, &moe, gpu(k == 3 ? "h200" : "h100"), k == 2 ? &one : &dpa, &cc, datadir, &e) < 0) {
			CHECK(0, "MoE cost model: %s", e.msg);
			continue;
		}
		base_cfg(&sc, 2048, 64, 4000);
		sc.dp = k == 2 ? 1 : 4;
		sc.lockstep = k != 1;
		same_both_ways(k == 0 ? "attention-DP 4 lockstep" : k == 1 ? "DP 4 replicas" : k == 2 ? "one MoE engine"
			       : "MLA attention-DP 4 lockstep", "step memos", &sc, &sc.no_step_memo, false, &c, &w);
		cost_release(&c);
	}
}

/* The memo tests' configuration (base_cfg at a budget of 2048 tokens and 64
 * sequences, 4000 blocks): one engine, or (dp4) an attention-DP 4 lockstep
 * group; 300 requests of fixed_spec at rate_a into *wa, at rate_b into *wb. */
static void memo_cfg(struct sim_cfg *sc, bool dp4, struct wl_spec *wa, double rate_a, struct wl_spec *wb,
		     double rate_b)
{
	fixed_spec(wa, rate_a, 300);
	fixed_spec(wb, rate_b, 300);
	base_cfg(sc, 2048, 64, 4000);
	sc->dp = dp4 ? 4 : 1;
	sc->lockstep = dp4;
}

/* sc priced by c run over wa without a memo, then with memo mm over wb
 * (filling it), then with mm again over wa: whether the two runs over wa
 * gave the same step log, CSV and totals; *before = *counter before the
 * last run, *t0 = the first run's totals. */
static bool memo_kept_same(struct sim_cfg *sc, const struct cost_model *c, const struct wl_spec *wa,
			   const struct wl_spec *wb, struct sim_memo *mm, const uint64_t *counter, uint64_t *before,
			   struct sim_totals *t0)
{
	char *l[3] = {NULL, NULL, NULL}, *cs[3] = {NULL, NULL, NULL};
	struct sim_totals t[3];
	bool same;
	int i;

	sc->memo = NULL;
	run(sc, c, wa, &l[0], &cs[0], &t[0]);
	sc->memo = mm;
	run(sc, c, wb, &l[1], &cs[1], &t[1]);
	*before = *counter;
	run(sc, c, wa, &l[2], &cs[2], &t[2]);
	same = strcmp(l[0], l[2]) == 0 && strcmp(cs[0], cs[2]) == 0 && memcmp(&t[0], &t[2], sizeof(t[0])) == 0;
	*t0 = t[0];
	for (i = 0; i < 3; i++) {
		free(l[i]);
		free(cs[i]);
	}
	return same;
}

/* The drafting's memo (sim_memo.draft): MTP's draft pass priced once per
 * (drafting requests, summed contexts), bit for bit the price it would be
 * given again: one engine and an MLA attention-DP 4 lockstep group, each
 * with its own memos and with memos kept from a run at another rate (whose
 * drafts must hit). */
static void test_draft_memo(void)
{
	struct cost_model c;
	struct cost_cfg cc;
	struct parallel dpa = {1, 1, 4, 4, 0, 0}, one = {8, 1, 1, 1, 0, 0};
	struct model_cfg ds;
	struct sim_cfg sc;
	struct wl_spec w, w2;
	struct sim_totals t0;
	struct sim_memo *mm;
	struct err e;
	bool same;
	int k;

	load_model("deepseek-v3", &ds);
	fixture_cost_cfg(&cc, 2048, 64, 512);
	for (k = 0; k < 2; k++) {
		uint64_t hits0;
		if (cost_init(&c, &ds, gpu("h200"), k ? &dpa : &one, &cc, datadir, &e) < 0) {
			CHECK(0, "DeepSeek-V3 cost model: %s", e.msg);
			continue;
		}
		memo_cfg(&sc, k == 1, &w, 6, &w2, 3);
		sc.spec.method = SPEC_MTP;
		sc.spec.k = 1;
		sc.spec.nrates = 1;
		sc.spec.rate[0] = 0.8;
		same_both_ways(k ? "MTP, MLA attention-DP 4 lockstep" : "MTP, one engine", "step and draft memos", &sc,
			       &sc.no_step_memo, false, &c, &w);
		mm = sim_memo_new();
		same = memo_kept_same(&sc, &c, &w, &w2, mm, &mm->draft[0].hits, &hits0, &t0);
		CHECK(t0.completed == 300 && t0.spec_verify > 0 && same && mm->draft[0].hits > hits0 && hits0 > 0,
		      "%s: drafts priced from memos kept across runs, the same bytes (%llu of %llu draft lookups hit)",
		      k ? "MTP, MLA attention-DP 4 lockstep" : "MTP, one engine",
		      (unsigned long long)mm->draft[0].hits, (unsigned long long)mm->draft[0].lookups);
		sc.memo = NULL;
		sim_memo_free(mm);
		wl_spec_release(&w);
		wl_spec_release(&w2);
		cost_release(&c);
	}
}

/* run() without a step log (a step log reads every rank's price, so
 * step.c's group_top prices every rank where one is written). */
static int run_quiet(struct sim_cfg *sc, const struct cost_model *c, const struct wl_spec *w, char **csv,
		     struct sim_totals *tot)
{
	size_t cl = 0;
	FILE *cf = open_memstream(csv, &cl);
	int rc = run_to(sc, c, w, NULL, cf, tot);

	fclose(cf);
	return rc;
}

/* An attention-DP group step's slowest rank (step.c group_top): without a
 * step log or energy meter (eval's runs), the ranks whose price rises with their summed
 * contexts (cost_local_rise_range, cost_draft_rise_range) are priced only where
 * the sums are the largest of their kind; the same bytes as every rank
 * priced (no_step_memo): an MLA attention-DP 4 group, with MTP, and P/D
 * attention-DP workers.  The decode row's rise starts below the
 * workloads' mean contexts (512-576 tokens: the path is taken). */
static void test_group_top(void)
{
	struct cost_model c;
	struct cost_cfg cc;
	struct parallel dpa = {1, 1, 4, 4, 0, 0};
	struct model_cfg ds;
	struct sim_cfg sc;
	struct wl_spec w;
	struct err e;
	double lo, hi, dlo, dhi;
	int k;

	load_model("deepseek-v3", &ds);
	fixture_cost_cfg(&cc, 2048, 64, 512);
	if (cost_init(&c, &ds, gpu("h200"), &dpa, &cc, datadir, &e) < 0) {
		CHECK(0, "DeepSeek-V3 cost model: %s", e.msg);
		return;
	}
	{
		/* the meter's decode steps: the parts kept (cost_work_of) give
		 * cost_step_work's bits, whatever was kept before */
		static const int64_t ns[] = {1, 3, 16, 64, 300, 3000};
		struct cost_work_dec wd = {0};
		struct cost_work_moe wm = {0};
		int bad = 0, n = 0, a, l, g, x;
		for (a = 0; a < 6; a++)
			for (l = 0; l < 2; l++)
				for (g = 0; g < 4; g++)
					for (x = 0; x < 3; x++) {
						static const int64_t gs[] = {0, 5, 5000, 100000};
						struct step_desc d;
						double f1, b1, f2, b2;
						memset(&d, 0, sizeof(d));
						d.ndecode = ns[a];
						d.nlogits = l ? ns[a] : 0;
						d.moe_tokens = gs[g] ? gs[g] + ns[a] : 0;
						d.decode_ctx_sum = (double)ns[a] * (x == 0 ? 512.0 : x == 1 ? 1001.375 : 7.0) + x;
						cost_step_work(&c, &d, &f1, &b1);
						cost_work_of(&wd, &wm, &c, &d, &f2, &b2);
						bad += memcmp(&f1, &f2, sizeof(f1)) != 0 || memcmp(&b1, &b2, sizeof(b1)) != 0;
						n++;
					}
		CHECK(bad == 0, "DeepSeek-V3 attention-DP 4: the meter's kept parts give cost_step_work's bits (%d of %d steps differ)",
		      bad, n);
	}
	cost_local_rise_range(&c, 16, &lo, &hi);
	cost_draft_rise_range(&c, 16, &dlo, &dhi);
	CHECK(lo <= 16 * 512.0 && hi > 16 * 576.0 && dlo <= 16 * 512.0 && dhi > 16 * 576.0,
	      "DeepSeek-V3 on H200, 16 decoders: price rises from summed contexts %.0f, the draft's from %.0f", lo, dlo);
	for (k = 0; k < 8; k++) {
		static const char *const what[4] = {"MLA attention-DP 4 lockstep", "MTP, MLA attention-DP 4 lockstep",
						    "P/D attention-DP workers", "P/D attention-DP workers, MTP"};
		const bool metered = k >= 4;
		char *c1 = NULL, *c2 = NULL;
		struct sim_totals t1, t2;
		struct metric_set m1;
		int r1, r2;
		fixed_spec(&w, 30, 300);
		base_cfg(&sc, 2048, 64, 4000);
		sc.check_invariants = false;
		/* eval's, unmetered, and metered (search's operating point: every
		 * rank priced and metered, its decode steps' work from the parts
		 * kept, cost_work_of) */
		sc.no_energy = !metered;
		sc.dp = 4;
		sc.lockstep = true;
		if (k % 4 >= 2) { /* 2 prefill ranks of one worker, 1 decode worker of 2 ranks */
			pd_cfg(&sc, 2, &c, 3000, 2048, 1e5);
			sc.pd.prefill_group = 2;
			sc.pd.decode_group = 2;
		}
		if (k % 2) {
			sc.spec.method = SPEC_MTP;
			sc.spec.k = 1;
			sc.spec.nrates = 1;
			sc.spec.rate[0] = 0.8;
		}
		sc.no_step_memo = true;
		r1 = run_quiet(&sc, &c, &w, &c1, &t1);
		m1 = run_sum;
		sc.no_step_memo = false;
		r2 = run_quiet(&sc, &c, &w, &c2, &t2);
		CHECK(r1 == 0 && r2 == 0 && t1.completed == 300 && strcmp(c1, c2) == 0 &&
			      memcmp(&t1, &t2, sizeof(t1)) == 0 && m1.e2e_ms.mean == run_sum.e2e_ms.mean &&
			      m1.itl_ms.mean == run_sum.itl_ms.mean &&
			      (metered ? t1.energy_dyn_j > 0 && m1.energy_j == run_sum.energy_j : isnan(t1.energy_dyn_j)),
		      "%s%s: %s, the same bytes as every rank priced (%llu steps%s)", what[k % 4],
		      metered ? ", metered" : "", metered ? "the step memos" : "the slowest ranks priced alone",
		      (unsigned long long)t1.steps, metered ? ", the same joules" : "");
		free(c1);
		free(c2);
		wl_spec_release(&w);
	}
	cost_release(&c);
}

/* A replica's lane cursor (stepmemo_lane): the slot stepmemo_get reads
 * from where the lane's last lookup went is the slot stepmemo_slot finds
 * from the key alone, for runs of the same decoders a step apart, jumps,
 * changed decoder counts and key words, sums off the lanes (fractional,
 * past 2^53) and a cursor of another table. */
static void test_stepmemo_lanes(void)
{
	struct stepmemo m, other;
	struct stepmemo_lane ln, ln2;
	struct dmemo_ent *slot;
	double v, ctx = 1000;
	int64_t n = 7;
	size_t i, same = 0, next = 0, cases = 0;

	stepmemo_init(&m);
	stepmemo_init(&other);
	memset(&ln, 0, sizeof(ln));
	memset(&ln2, 0, sizeof(ln2));
	/* the trial: one key looked up again and again (hits), then the lanes */
	for (i = 0; i < 5000; i++)
		if (!stepmemo_get(&m, &ln, stepmemo_key(1, 1), 1, 5, &v, &slot))
			stepmemo_put(slot, stepmemo_key(1, 1), 5, 0.25);
	CHECK(m.lanes && !m.off, "the memo takes the lanes after its trial");
	for (i = 0; i < 3000; i++) {
		uint64_t k0;
		bool lane_next;
		double x;
		if (i % 97 == 0)
			n = 1 + (int64_t)(i % 13); /* other decoders */
		if (i % 41 == 0)
			ctx += 3 * (double)n + 1; /* a jump */
		else if (i % 293 == 0)
			ctx = 0x1p53 - 2 * (double)n; /* the lanes' end: past it next */
		else if (ctx >= 0x1p53)
			ctx = 1000; /* back */
		else
			ctx += (double)n; /* the same decoders a step later */
		x = i % 53 == 0 ? ctx + 0.5 : ctx; /* off the lanes */
		k0 = stepmemo_key(n, i % 211 == 0 ? n + 1 : n);
		lane_next = ln.e == m.d.e && ln.k0 == k0 && ln.ndecode == n && x == ln.ctx_sum + (double)n;
		cases++;
		next += lane_next;
		/* nothing kept there: the slot comes back */
		same += !stepmemo_get(&m, &ln, k0, n, x, &v, &slot) && slot == stepmemo_slot(&m, k0, n, x);
	}
	/* a cursor that last went through another memo's table starts anew */
	for (i = 0; i < 5000; i++)
		if (!stepmemo_get(&other, &ln2, stepmemo_key(1, 1), 1, 5, &v, &slot))
			stepmemo_put(slot, stepmemo_key(1, 1), 5, 0.25);
	stepmemo_get(&other, &ln2, stepmemo_key(3, 3), 3, 300, &v, &slot);
	cases++;
	same += !stepmemo_get(&m, &ln2, stepmemo_key(3, 3), 3, 303, &v, &slot) &&
		slot == stepmemo_slot(&m, stepmemo_key(3, 3), 3, 303);
	CHECK(same == cases && next > cases / 2,
	      "stepmemo lanes: the cursor's slot is the key's (%zu of %zu, %zu from the lane's last slot)", same, cases,
	      next);
	stepmemo_release(&m);
	stepmemo_release(&other);
}

/* Step-price memos kept across simulations (sim.h, sim_memo): a run given
 * the set an earlier run at another rate filled takes its prices (hits on
 * its first steps, which its own memo cannot have) and gives the same
 * bytes as the run with its own; a dense engine and an attention-DP
 * lockstep group (the MoE memo and the idle ranks' memo). */
static void test_memo_across_runs(const struct model_cfg *m)
{
	struct cost_model c;
	struct cost_cfg cc;
	struct parallel dpa = {1, 1, 4, 4, 0, 0};
	struct model_cfg moe;
	struct sim_cfg sc;
	struct wl_spec w1, w2;
	struct sim_totals t0;
	struct sim_memo *mm;
	struct err e;
	bool same;
	int k;

	fixture_cost_cfg(&cc, 2048, 64, 512);
	load_model("mixtral-8x7b", &moe);
	for (k = 0; k < 2; k++) {
		struct stepmemo *sm;
		uint64_t hits0;
		if (k == 0)
			make_cost(&c, m, 2048, 64, 0);
		else if (cost_init(&c, &moe, gpu("h100"), &dpa, &cc, datadir, &e) < 0) {
			CHECK(0, "MoE cost model: %s", e.msg);
			continue;
		}
		/* the same requests (seed, lengths) at 3 and 6 req/s */
		memo_cfg(&sc, k == 1, &w1, 3, &w2, 6);
		mm = sim_memo_new();
		sm = &mm->step[0][k];
		same = memo_kept_same(&sc, &c, &w2, &w1, mm, &sm->hits, &hits0, &t0);
		CHECK(t0.completed == 300 && same && sm->lookups > 0 && sm->hits > hits0,
		      "%s: a run given another rate's memos gives its own memos' bytes (%llu of %llu lookups hit "
		      "over both runs)", k ? "attention-DP 4 lockstep" : "one engine",
		      (unsigned long long)sm->hits, (unsigned long long)sm->lookups);
		sim_memo_free(mm);
		wl_spec_release(&w1);
		wl_spec_release(&w2);
		cost_release(&c);
	}
}

/* Mixtral-8x7B (into *moe) on H100s at attention-DP 2 x EP 2 into *c, bf16
 * at a budget of 2048 tokens and 64 sequences, CUDA graphs to 512: 0, or -1
 * after a failed check named `what`. */
static int mixtral_dp2(struct model_cfg *moe, struct cost_model *c, const char *what)
{
	struct parallel dpa = {1, 1, 2, 2, 0, 0};
	struct cost_cfg cc;
	struct err e;

	fixture_cost_cfg(&cc, 2048, 64, 512);
	load_model("mixtral-8x7b", moe);
	if (cost_init(c, moe, gpu("h100"), &dpa, &cc, datadir, &e) < 0) {
		CHECK(0, "%s: %s", what, e.msg);
		return -1;
	}
	return 0;
}

static void test_lazy_decoders(const struct model_cfg *m)
{
	struct cost_model c, cmoe;
	struct model_cfg moe;
	struct sim_cfg sc;
	struct wl_spec w;
	int sg;

	open_loop(&c, &w, m);
	for (sg = 0; sg < 2; sg++) {
		char what[96];
/* each case under SGLang once more with --enable-mixed-chunk, whose prefill
 * batches carry the decoders (sglang.c: sg_decode_fast's ride-along, or every
 * decoder made explicit when one lacks a block) */
#define LAZY(name)                                                                              \
	do {                                                                                    \
		sc.policy = policy_of(sg ? "sglang" : "vllm");                                  \
		snprintf(what, sizeof(what), "%s, %s", sg ? "SGLang" : "vLLM", name);          \
		lazy_compare(what, &sc, &c, &w);                                                \
		if (sg) {                                                                       \
			sc.mixed_chunk = true;                                                  \
			snprintf(what, sizeof(what), "SGLang --enable-mixed-chunk, %s", name);  \
			lazy_compare(what, &sc, &c, &w);                                        \
			sc.mixed_chunk = false;                                                 \
		}                                                                               \
	} while (0)
		base_cfg(&sc, 2048, 64, 4000);
		LAZY("open loop");
		base_cfg(&sc, 512, 64, 60);
		LAZY("preemption storm");
		base_cfg(&sc, 2048, 64, 60 * 16);
		sc.block_size = 1;
		LAZY("one-token pages, retractions");
		base_cfg(&sc, 2048, 64, 4000);
		sc.prefix_caching = false;
		LAZY("no prefix caching");
		base_cfg(&sc, 2048, 8, 4000);
		LAZY("8 running at most");
		base_cfg(&sc, 2048, 64, 4000);
		sc.dp = 2;
		LAZY("DP 2");
		base_cfg(&sc, 2048, 64, 4000);
		pd_cfg(&sc, 1, &c, 3000, 2048, 1e5);
		LAZY("P/D 1p1d");
		fixture_sp(&w, 4, 5, 200, 100, 150); /* 4 x 5 prompts, 200 + 100 tokens in, 150 out */
		base_cfg(&sc, 2048, 64, 120);
		LAZY("shared prefixes, tight KV");
		base_cfg(&sc, 2048, 64, 120);
		sc.lpm = sg;
		LAZY("shared prefixes, tight KV, lpm");
		w.sp_groups = 0;
		w.process = WL_CONCURRENCY;
		w.concurrency = 12;
		w.num_requests = 200;
		base_cfg(&sc, 512, 64, 80);
		LAZY("closed loop, preemptions");
		w.process = WL_POISSON;
		w.num_requests = 300;
		base_cfg(&sc, 2048, 64, 4000);
		sc.max_prefill_tokens = sg ? 700 : 0;
		LAZY("max prefill tokens");
		if (sg) { /* the recv interval counts decode batches, not mixed ones */
			base_cfg(&sc, 2048, 64, 4000);
			sc.recv_interval = 4;
			LAZY("recv interval 4");
			base_cfg(&sc, 2048, 64, 4000);
			sc.max_prefill_tokens = 700;
			sc.max_prefill_whole = true;
			LAZY("max prefill tokens, whole prompts");
		}
	}
	/* attention-DP lockstep (Mixtral, DP 2 x EP 2) */
	if (mixtral_dp2(&moe, &cmoe, "DP 2 MoE cost model") == 0) {
		for (sg = 0; sg < 2; sg++) {
			base_cfg(&sc, 2048, 64, 300);
			sc.dp = 2;
			sc.lockstep = true;
			sc.policy = policy_of(sg ? "sglang" : "vllm");
			lazy_compare(sg ? "SGLang, attention-DP lockstep, tight KV" : "vLLM, attention-DP lockstep, tight KV",
				     &sc, &cmoe, &w);
		}
		cost_release(&cmoe);
	}
#undef LAZY
	cost_release(&c);
}

/* sim_cfg.on_request gets each per-request CSV row's values: rounded as
 * printed (decnum_round), they are the numbers the row reads back as. */
struct rows_seen {
	struct sim_req_row r[400];
	size_t n;
};

static void keep_row(void *ctx, const struct sim_req_row *row)
{
	struct rows_seen *k = ctx;
	if (k->n < sizeof(k->r) / sizeof(k->r[0]))
		k->r[k->n] = *row;
	k->n++;
}

static void test_on_request(const struct model_cfg *m)
{
	struct cost_model c;
	struct sim_cfg sc;
	struct sim_totals t;
	struct wl_spec w;
	struct rows_seen *k = calloc(1, sizeof(*k));
	char *log = NULL, *csv = NULL, *line, *save = NULL;
	size_t i = 0, bad = 0;

	make_cost(&c, m, 2048, 64, 0);
	poisson_spec(&w, 20, 300, 10, 600, 7);
	base_cfg(&sc, 2048, 64, 200); /* tight: rejections and preemptions too */
	sc.on_request = keep_row;
	sc.on_request_ctx = k;
	CHECK(run(&sc, &c, &w, &log, &csv, &t) == 0, "on_request: run");
	for (line = strtok_r(csv, "\n", &save); line; line = strtok_r(NULL, "\n", &save), i++) {
		char *f[16], *s2 = NULL, *tok;
		size_t nf = 0;
		const struct sim_req_row *r = &k->r[i];
		for (tok = strtok_r(line, ",", &s2); tok && nf < 16; tok = strtok_r(NULL, ",", &s2))
			f[nf++] = tok;
		if (i >= k->n || nf < 14 || r->completed != (strcmp(f[8], "completed") == 0) ||
		    decnum_round((double)r->arrival_ns * 1e-9, 6) != strtod(f[3], NULL) ||
		    decnum_round(r->queue_ms, 4) != strtod(f[9], NULL) ||
		    decnum_round(r->ttft_ms, 4) != strtod(f[10], NULL) ||
		    decnum_round(r->itl_ms, 4) != strtod(f[11], NULL) ||
		    decnum_round(r->tpot_ms, 4) != strtod(f[12], NULL) ||
		    decnum_round(r->e2e_ms, 4) != strtod(f[13], NULL))
			bad++;
	}
	CHECK(i == k->n && i == 300 && bad == 0,
	      "on_request: one call per CSV row (%zu rows, %zu calls), values as the rows read back (%zu differ)",
	      i, k->n, bad);
	free(log);
	free(csv);
	free(k);
	cost_release(&c);
}

/* --- live use (sim_submit, sim_advance, on_chunk) --- */

struct live_seen {
	struct rows_seen rows;
	int64_t tokens[400], chunks[400], lasts[400], first_ns[400], last_ns[400];
	bool out_of_order;
};

static void live_row(void *ctx, const struct sim_req_row *row)
{
	keep_row(&((struct live_seen *)ctx)->rows, row);
}

static void live_chunk(void *ctx, int64_t id, int64_t t_ns, int64_t tokens, bool last)
{
	struct live_seen *k = ctx;

	if (id < 0 || id >= 400)
		return;
	if (k->chunks[id] == 0)
		k->first_ns[id] = t_ns;
	else if (t_ns < k->last_ns[id] || k->lasts[id])
		k->out_of_order = true; /* a chunk before the previous one, or after the last */
	k->last_ns[id] = t_ns;
	k->chunks[id]++;
	k->tokens[id] += tokens;
	k->lasts[id] += last;
}

/* The workload w run whole (sim_run) and fed request by request to a live
 * simulation at the same arrival times: the same rows (id, arrival, every
 * latency), and the chunks add up: each completed request's tokens, one
 * last chunk, the first chunk at its TTFT and the last at its E2E less the
 * client-side terms. */
static void live_compare(const char *what, struct sim_cfg *sc, const struct cost_model *c,
			 const struct wl_spec *w)
{
	struct rows_seen *a = calloc(1, sizeof(*a));
	struct live_seen *b = calloc(1, sizeof(*b));
	int64_t out[400] = {0};
	struct sim_cfg lc = *sc;
	struct sim *s = NULL;
	struct wl_gen *g = NULL;
	struct wl_req q;
	struct err e;
	size_t i, rows_differ = 0, chunks_differ = 0;
	const struct overheads *ov = &c->cfg.ov;
	int rc;

	sc->on_request = keep_row;
	sc->on_request_ctx = a;
	rc = new_and_run(sc, c, w, &s, &e);
	sim_free(s);
	s = NULL;
	lc.live = true;
	lc.on_request = live_row;
	lc.on_request_ctx = b;
	lc.on_chunk = live_chunk;
	lc.on_chunk_ctx = b;
	if (rc == 0 && (rc = sim_new(&lc, c, w, &s, &e)) == 0 && (rc = wl_gen_new(w, &g, &e)) == 0)
		while ((rc = wl_gen_next(g, 0, &q, &e)) > 0) {
			int64_t id;
			enum reject_reason why;
			if ((rc = sim_advance(s, q.arrival_ns, &e)) < 0 ||
			    (rc = sim_submit(s, q.prompt_tokens, q.output_tokens, &id, &why, &e)) < 0)
				break;
			if (id < 400)
				out[id] = q.output_tokens;
		}
	if (rc == 0)
		rc = sim_advance(s, INT64_MAX, &e);
	if (rc < 0)
		printf("# %s: %s\n", what, e.msg);
	for (i = 0; i < a->n && i < b->rows.n && i < 400; i++) {
		const struct sim_req_row *x = &a->r[i], *y = &b->rows.r[i];
		int64_t id = y->id;
		if (x->id != y->id || x->arrival_ns != y->arrival_ns || x->completed != y->completed ||
		    x->ttft_ms != y->ttft_ms || x->itl_ms != y->itl_ms || x->e2e_ms != y->e2e_ms ||
		    x->queue_ms != y->queue_ms)
			rows_differ++;
		if (y->completed &&
		    (b->tokens[id] != out[id] || b->lasts[id] != 1 ||
		     fabs((double)(b->first_ns[id] - y->arrival_ns) * 1e-6 + ov->api_ttft_ms - y->ttft_ms) > 1e-3 ||
		     fabs((double)(b->last_ns[id] - y->arrival_ns) * 1e-6 + ov->api_ttft_ms + ov->api_e2e_ms +
			  ov->stream_token_us * 1e-3 * (double)out[id] - y->e2e_ms) > 1e-3))
			chunks_differ++;
	}
	CHECK(rc == 0 && a->n == b->rows.n && a->n > 0 && rows_differ == 0,
	      "%s: live run (sim_submit at each arrival) gives the whole run's %zu rows (%zu differ)", what, a->n,
	      rows_differ);
	CHECK(chunks_differ == 0 && !b->out_of_order,
	      "%s: each completed request's chunks add up to its output, one last, at its TTFT and E2E (%zu differ)",
	      what, chunks_differ);
	wl_gen_free(g);
	sim_free(s);
	free(a);
	free(b);
}

/* A live feed of w (sc made live, rows and chunks into k): before request
 * j is submitted, request j - ABORT_LAG is aborted when abort[j - ABORT_LAG]
 * is set (sim_abort's answers counted in ans[0..2]); out[j] > 0 replaces
 * request j's output length.  The totals in *t.  0 or <0. */
#define ABORT_LAG 3
static int live_feed(const struct sim_cfg *sc, const struct cost_model *c, const struct wl_spec *w,
		     struct live_seen *k, const bool *abort, const int64_t *out, int ans[3], struct sim_totals *t,
		     struct err *e)
{
	struct sim_cfg lc = *sc;
	struct sim *s = NULL;
	struct wl_gen *g = NULL;
	struct wl_req q;
	int64_t j = 0, id;
	enum reject_reason why;
	int rc;

	lc.live = true;
	lc.on_request = live_row;
	lc.on_request_ctx = k;
	lc.on_chunk = live_chunk;
	lc.on_chunk_ctx = k;
	if ((rc = sim_new(&lc, c, w, &s, e)) == 0 && (rc = wl_gen_new(w, &g, e)) == 0)
		while ((rc = wl_gen_next(g, 0, &q, e)) > 0) {
			if ((rc = sim_advance(s, q.arrival_ns, e)) < 0)
				break;
			if (j >= ABORT_LAG && j - ABORT_LAG < 400 && abort[j - ABORT_LAG]) {
				if ((rc = sim_abort(s, j - ABORT_LAG, e)) < 0)
					break;
				ans[rc]++;
			}
			if ((rc = sim_submit(s, q.prompt_tokens, j < 400 && out[j] > 0 ? out[j] : q.output_tokens, &id,
					     &why, e)) < 0)
				break;
			j++;
		}
	if (rc == 0)
		rc = sim_advance(s, INT64_MAX, e);
	if (rc == 0)
		*t = *sim_totals(s);
	wl_gen_free(g);
	sim_free(s);
	return rc;
}

/* Client disconnects (sim_abort).  Run A: every fifth request aborted
 * ABORT_LAG arrivals after its own (waiting, prefilling or decoding by
 * then), the invariants checked after every event (base_cfg): each abort
 * that found its request is reported once as aborted, with fewer tokens
 * than asked, arrived = completed + rejected + aborted at the end, no
 * chunk of it marked last.  Run B, where exact: each aborted request that
 * had generated tokens submitted with that many and left to complete, the
 * others aborted as in A: every request A did not abort has A's row, bit
 * for bit (an abort frees what a completion at that step would; exact for
 * a scheduler that does not read output lengths, as vLLM's).  Returns
 * how many aborts found their request waiting (it left at once). */
static int live_abort_compare(const char *what, const struct sim_cfg *sc, const struct cost_model *c,
			       const struct wl_spec *w, bool exact)
{
	struct live_seen *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	bool abort_a[400] = {false}, abort_b[400] = {false}, aborted[400] = {false};
	int64_t none[400] = {0}, out_b[400] = {0}, asked[400] = {0};
	const struct sim_req_row *row_a[400] = {NULL}, *row_b[400] = {NULL};
	int ans_a[3] = {0}, ans_b[3] = {0};
	struct sim_totals ta, tb;
	struct err e;
	size_t i, nab = 0, bad = 0, differ = 0, same = 0;
	int rc;

	for (i = 0; i < 400; i++)
		abort_a[i] = i % 5 == 0;
	rc = live_feed(sc, c, w, a, abort_a, none, ans_a, &ta, &e);
	if (rc < 0)
		printf("# %s: %s\n", what, e.msg);
	{
		/* the lengths asked: a run that aborts nothing */
		struct live_seen *z = calloc(1, sizeof(*z));
		bool no[400] = {false};
		int az[3] = {0};
		struct sim_totals tz;
		if (live_feed(sc, c, w, z, no, none, az, &tz, &e) == 0)
			for (i = 0; i < z->rows.n && i < 400; i++)
				if (z->rows.r[i].id >= 0 && z->rows.r[i].id < 400)
					asked[z->rows.r[i].id] = z->rows.r[i].output_tokens;
		free(z);
	}
	for (i = 0; i < a->rows.n && i < 400; i++) {
		const struct sim_req_row *r = &a->rows.r[i];
		if (r->id < 0 || r->id >= 400)
			continue;
		row_a[r->id] = r;
		if (!r->aborted)
			continue;
		nab++;
		aborted[r->id] = true;
		if (!abort_a[r->id] || r->completed || r->output_tokens >= asked[r->id] || a->lasts[r->id] != 0 ||
		    a->tokens[r->id] > r->output_tokens)
			bad++;
		if (r->output_tokens > 0)
			out_b[r->id] = r->output_tokens;
		else
			abort_b[r->id] = true;
	}
	CHECK(rc == 0 && ans_a[2] > 0 && nab == (size_t)(ans_a[1] + ans_a[2]) && ta.aborted == nab &&
	      bad == 0 && ta.arrived == ta.completed + ta.rejected[REJ_TOO_LONG] + ta.rejected[REJ_KV_CAPACITY] + ta.aborted,
	      "%s: %zu aborts reported once each (%d at once, %d at a step end, %d already done), with fewer tokens "
	      "than asked and no last chunk (%zu not), arrived %llu = completed %llu + rejected + aborted %llu",
	      what, nab, ans_a[1], ans_a[2], ans_a[0], bad, (unsigned long long)ta.arrived,
	      (unsigned long long)ta.completed, (unsigned long long)ta.aborted);
	if (exact) {
		rc = live_feed(sc, c, w, b, abort_b, out_b, ans_b, &tb, &e);
		if (rc < 0)
			printf("# %s: %s\n", what, e.msg);
		for (i = 0; i < b->rows.n && i < 400; i++)
			if (b->rows.r[i].id >= 0 && b->rows.r[i].id < 400)
				row_b[b->rows.r[i].id] = &b->rows.r[i];
		for (i = 0; i < 400; i++) {
			const struct sim_req_row *x = row_a[i], *y = row_b[i];
			if (!x || aborted[i])
				continue;
			if (!y || x->completed != y->completed || x->ttft_ms != y->ttft_ms || x->itl_ms != y->itl_ms ||
			    x->e2e_ms != y->e2e_ms || x->queue_ms != y->queue_ms)
				differ++;
			else
				same++;
		}
		CHECK(rc == 0 && differ == 0 && same > 0,
		      "%s: the others' rows (%zu) as in a run where each aborted request asked for the tokens it got "
		      "(%zu differ)", what, same, differ);
	}
	free(a);
	free(b);
	return ans_a[1];
}

static void test_live(const struct model_cfg *m)
{
	struct cost_model c;
	struct sim_cfg sc;
	struct wl_spec w;
	struct sim *s = NULL;
	struct err e;
	int64_t id = -1;
	enum reject_reason why = REJ__COUNT;
	int now = 0;

	make_cost(&c, m, 2048, 64, 0);
	poisson_spec(&w, 20, 300, 10, 600, 7);
	base_cfg(&sc, 2048, 64, 200); /* tight: rejections and preemptions too */
	live_compare("live vLLM, tight cache", &sc, &c, &w);
	base_cfg(&sc, 2048, 64, 2000);
	sc.policy = policy_of("sglang");
	live_compare("live SGLang", &sc, &c, &w);
	base_cfg(&sc, 2048, 64, 2000);
	sc.spec.k = 2;
	sc.spec.nrates = 1;
	sc.spec.rate[0] = 0.8;
	live_compare("live speculative decoding (chunks of several tokens)", &sc, &c, &w);
	base_cfg(&sc, 2048, 64, 2000);
	pd_cfg(&sc, 1, &c, 1000, 2048, 1e5);
	sc.dp = 1;
	live_compare("live P/D (the first token when the KV lands)", &sc, &c, &w);
	base_cfg(&sc, 2048, 64, 200);
	now += live_abort_compare("abort, vLLM, tight cache", &sc, &c, &w, true);
	base_cfg(&sc, 2048, 64, 2000);
	now += live_abort_compare("abort, vLLM", &sc, &c, &w, true);
	base_cfg(&sc, 512, 64, 600);
	now += live_abort_compare("abort, vLLM, preemptions", &sc, &c, &w, true);
	base_cfg(&sc, 2048, 64, 2000);
	pd_cfg(&sc, 1, &c, 1000, 2048, 1e5);
	now += live_abort_compare("abort, vLLM P/D", &sc, &c, &w, true);
	base_cfg(&sc, 2048, 64, 300);
	sc.policy = policy_of("sglang");
	now += live_abort_compare("abort, SGLang (reads output lengths: conservation only)", &sc, &c, &w, false);
	base_cfg(&sc, 2048, 64, 300);
	sc.recv_interval = 4;
	sc.policy = policy_of("sglang");
	now += live_abort_compare("abort, SGLang with an inbox", &sc, &c, &w, false);
	{
		struct cost_model cpp;
		struct cost_cfg cc;
		struct parallel pp2 = {1, 2, 1, 1, 0, 0};
		fixture_cost_cfg(&cc, 2048, 64, 512);
		if (cost_init(&cpp, m, gpu("h100"), &pp2, &cc, datadir, &e) == 0) {
			base_cfg(&sc, 2048, 64, 2000);
			now += live_abort_compare("abort, vLLM PP 2 (batches in flight)", &sc, &cpp, &w, true);
			cost_release(&cpp);
		} else {
			CHECK(0, "PP 2 cost model: %s", e.msg);
		}
	}
	CHECK(now > 0, "abort: %d aborts found their request waiting and removed it at once", now);
	base_cfg(&sc, 2048, 64, 2000);
	sc.live = true;
	CHECK(sim_new(&sc, &c, &w, &s, &e) == 0 && sim_submit(s, 8000, 500, &id, &why, &e) == 0 &&
	      why == REJ_TOO_LONG && id == 0 && sim_next_event_ns(s) == INT64_MAX,
	      "live: prompt + output past max_model_len rejected at once, nothing queued");
	CHECK(sim_submit(s, 0, 5, &id, &why, &e) < 0 && e.code == SS_EUSAGE, "live: 0 prompt tokens refused");
	sim_free(s);
	s = NULL;
	sc.live = false;
	CHECK(sim_new(&sc, &c, &w, &s, &e) == 0 && sim_submit(s, 10, 5, &id, &why, &e) < 0,
	      "sim_submit refused on a simulation that is not live");
	sim_free(s);
	cost_release(&c);
}

static void test_segments(const struct model_cfg *m)
{
	struct cost_model c, cpp, cmoe;
	struct cost_cfg cc;
	struct parallel pp2 = {1, 2, 1, 1, 0, 0};
	struct model_cfg moe;
	struct sim_cfg sc;
	struct wl_spec w;
	struct err e;
	int k;

	open_loop(&c, &w, m);
	base_cfg(&sc, 2048, 64, 4000);
	seg_compare("open loop", &sc, &c, &w);
	base_cfg(&sc, 512, 64, 60);
	seg_compare("preemption storm", &sc, &c, &w);
	base_cfg(&sc, 2048, 64, 4000);
	sc.prefix_caching = false;
	seg_compare("no prefix caching", &sc, &c, &w);
	base_cfg(&sc, 2048, 64, 4000);
	sc.policy = policy_of("sglang");
	seg_compare("SGLang", &sc, &c, &w);
	/* one-token pages (the decoders' blocks taken as one batch) and a
	 * cache too small for the batch (retractions between them), the
	 * cache's invariants checked at every step */
	base_cfg(&sc, 2048, 64, 60 * 16);
	sc.block_size = 1;
	sc.policy = policy_of("sglang");
	seg_compare("SGLang, one-token pages, retractions", &sc, &c, &w);
	{
		char *l = NULL, *cs = NULL;
		struct sim_totals t;
		int rc;
		sc.check_invariants = true;
		rc = run(&sc, &c, &w, &l, &cs, &t);
		CHECK(rc == 0 && t.preemptions > 0,
		      "SGLang, one-token pages, retractions: the cache's invariants hold at every step (%llu retractions)",
		      (unsigned long long)t.preemptions);
		free(l);
		free(cs);
	}
	base_cfg(&sc, 2048, 64, 4000);
	sc.spec.method = SPEC_EAGLE;
	sc.spec.k = 3;
	sc.spec.nrates = 1;
	sc.spec.rate[0] = 0.7;
	seg_compare("speculative decoding", &sc, &c, &w);
	base_cfg(&sc, 2048, 64, 4000);
	sc.dp = 2;
	seg_compare("DP 2", &sc, &c, &w);
	base_cfg(&sc, 2048, 64, 4000);
	pd_cfg(&sc, 1, &c, 3000, 2048, 1e5);
	seg_compare("P/D 1p1d", &sc, &c, &w);
	/* shared prefixes (inference-perf generator) under a tight cache */
	fixture_sp(&w, 4, 5, 200, 100, 150); /* 4 x 5 prompts, 200 + 100 tokens in, 150 out */
	base_cfg(&sc, 2048, 64, 120);
	seg_compare("shared prefixes, tight KV", &sc, &c, &w);
	w.sp_groups = 0;
	/* closed loop: 12 clients */
	w.process = WL_CONCURRENCY;
	w.concurrency = 12;
	w.num_requests = 200;
	base_cfg(&sc, 2048, 64, 4000);
	seg_compare("closed loop", &sc, &c, &w);
	base_cfg(&sc, 512, 64, 80);
	seg_compare("closed loop, preemptions", &sc, &c, &w);
	/* more clients than max_num_seqs: someone waits through the
	 * running decoders' steps (step.c steady_decode) */
	base_cfg(&sc, 2048, 5, 4000);
	seg_compare("closed loop, waiting at max_num_seqs", &sc, &c, &w);
	w.process = WL_POISSON;
	w.num_requests = 300;
	/* PP 2 */
	fixture_cost_cfg(&cc, 2048, 64, 512);
	if (cost_init(&cpp, m, gpu("h100"), &pp2, &cc, datadir, &e) == 0) {
		base_cfg(&sc, 2048, 64, 4000);
		seg_compare("PP 2", &sc, &cpp, &w);
		cost_release(&cpp);
	} else {
		CHECK(0, "PP 2 cost model: %s", e.msg);
	}
	/* attention-DP lockstep (Mixtral, DP 2 x EP 2) */
	if (mixtral_dp2(&moe, &cmoe, "DP 2 MoE cost model") == 0) {
		base_cfg(&sc, 2048, 64, 4000);
		sc.dp = 2;
		sc.lockstep = true;
		seg_compare("attention-DP lockstep", &sc, &cmoe, &w);
		/* every rank decoding for long runs (the group's decode
		 * segments), then under a cache too small (crossings that
		 * miss their blocks, preemptions) */
		w.process = WL_CONCURRENCY;
		w.concurrency = 24;
		w.num_requests = 240;
		for (k = 0; k < 2; k++) {
			base_cfg(&sc, k ? 512 : 2048, 64, k ? 90 : 4000);
			sc.dp = 2;
			sc.lockstep = true;
			seg_compare(k ? "attention-DP lockstep, closed loop, preemptions" : "attention-DP lockstep, closed loop",
				    &sc, &cmoe, &w);
		}
		/* ranks that wait at max_num_seqs, steps in which some ranks
		 * decode alone and others not (step.c finish_step's quick
		 * ranks): vLLM's, TensorRT-LLM's (its context balance) and
		 * SGLang's schedulers */
		for (k = 0; k < 3; k++) {
			static const char *const pol[3] = {"vllm", "trtllm", "sglang"};
			char what[96];
			base_cfg(&sc, 2048, 7, 4000);
			sc.dp = 2;
			sc.lockstep = true;
			sc.policy = policy_of(pol[k]);
			if (k == 1) {
				sc.adp_timeout_iters = 3;
				sc.adp_batching_wait_iters = 1;
			}
			snprintf(what, sizeof(what), "attention-DP lockstep, closed loop, %s, waiting at max_num_seqs",
				 pol[k]);
			seg_compare(what, &sc, &cmoe, &w);
		}
		w.process = WL_POISSON;
		w.num_requests = 300;
		/* P/D: 2 prefill ranks of one worker, 2 decode workers of 2 ranks */
		base_cfg(&sc, 2048, 64, 4000);
		sc.dp = 4;
		sc.lockstep = true;
		pd_cfg(&sc, 2, &cmoe, 3000, 2048, 1e5);
		sc.pd.prefill_group = 2;
		sc.pd.decode_group = 2;
		seg_compare("P/D attention-DP workers", &sc, &cmoe, &w);
		sc.policy = policy_of("sglang");
		seg_compare("P/D attention-DP workers, SGLang", &sc, &cmoe, &w);
		cost_release(&cmoe);
	}
	cost_release(&c);
}

struct tick_log {
	int n;
	uint64_t last;
};

static void count_tick(void *ctx, const struct sim *s)
{
	struct tick_log *t = ctx;

	t->n++;
	t->last = sim_totals(s)->events;
}

/* sim_run_ticking (`run`'s loop, its progress line's ticks) runs as
 * sim_step's loop: the same totals, the same ticks at the same counts. */
static void test_run_ticking(const struct model_cfg *m)
{
	struct cost_model c;
	struct sim_cfg sc;
	struct wl_spec w;
	struct sim *sa = NULL, *sb = NULL;
	struct tick_log ta = {0, 0}, tb = {0, 0};
	struct err e;
	int rc = 1;

	make_cost(&c, m, 2048, 64, 0);
	base_cfg(&sc, 2048, 64, 4000);
	poisson_spec(&w, 8, 10000, 10, 300, 5);
	if (sim_new(&sc, &c, &w, &sa, &e) == 0 && sim_new(&sc, &c, &w, &sb, &e) == 0) {
		while ((rc = sim_step(sa, &e)) > 0)
			if ((sim_totals(sa)->events & 0xffff) == 0)
				count_tick(&ta, sa);
		CHECK(rc == 0 && sim_run_ticking(sb, count_tick, &tb, &e) == 0 && ta.n > 0 && ta.n == tb.n &&
		      ta.last == tb.last && sim_totals(sa)->events == sim_totals(sb)->events &&
		      sim_totals(sa)->completed == sim_totals(sb)->completed && sim_totals(sa)->completed == 10000 &&
		      sim_now_ns(sa) == sim_now_ns(sb),
		      "sim_run_ticking = sim_step's loop: %d ticks (want %d), %llu events", tb.n, ta.n,
		      (unsigned long long)sim_totals(sb)->events);
	} else {
		CHECK(0, "two runs set up: %s", e.msg);
	}
	sim_free(sa);
	sim_free(sb);
	cost_release(&c);
}

/* sim_reprice_api: a run at API terms (9, 0) ms repriced to (3.7, 12.3)
 * reads bit for bit as a run at (3.7, 12.3): summaries and per-request
 * times; refused without kept times and with pooled gaps collected. */
static void test_reprice_api(const struct model_cfg *m)
{
	struct cost_model ca, cb;
	struct sim_cfg sc;
	struct wl_spec w;
	struct sim *sa = NULL, *sb = NULL;
	struct metric_set pa, pb;
	struct err e;
	double tta[300], eea[300], ttb[300], eeb[300];
	const struct dist_summary *da[4], *dbb[4];
	bool same = true;
	int k;

	make_cost(&ca, m, 512, 64, 0);
	make_cost(&cb, m, 512, 64, 0);
	ca.cfg.ov.api_ttft_ms = 9;
	ca.cfg.ov.api_e2e_ms = 0;
	cb.cfg.ov.api_ttft_ms = 3.7;
	cb.cfg.ov.api_e2e_ms = 12.3;
	base_cfg(&sc, 512, 64, 400);
	sc.no_pooled_gaps = true;
	poisson_spec(&w, 20, 300, 10, 200, 5);
	CHECK(sim_new(&sc, &ca, &w, &sa, &e) == 0 && sim_new(&sc, &cb, &w, &sb, &e) == 0, "two runs set up");
	if (!sa || !sb)
		goto out;
	sim_keep_client_times(sa);
	CHECK(sim_run(sa, &e) == 0 && sim_run(sb, &e) == 0, "both run");
	CHECK(!sim_reprice_api(sb, 3.7, 12.3), "no kept times: refused");
	sim_summary(sa, -1, &pa); /* a cached summary goes stale */
	CHECK(sim_reprice_api(sa, 3.7, 12.3), "kept times: repriced");
	sim_summary(sa, -1, &pa);
	sim_summary(sb, -1, &pb);
	da[0] = &pa.ttft_ms, da[1] = &pa.itl_ms, da[2] = &pa.tpot_ms, da[3] = &pa.e2e_ms;
	dbb[0] = &pb.ttft_ms, dbb[1] = &pb.itl_ms, dbb[2] = &pb.tpot_ms, dbb[3] = &pb.e2e_ms;
	for (k = 0; k < 4; k++)
		same = same && memcmp(da[k], dbb[k], sizeof(*da[k])) == 0;
	CHECK(same && pa.completed == pb.completed && pa.completed > 0 &&
	      memcmp(&pa.itl_pooled_mean_ms, &pb.itl_pooled_mean_ms, sizeof(double)) == 0,
	      "repriced summary = the other run's (%zu requests)", pa.completed);
	sim_per_request(sa, tta, eea, 300);
	sim_per_request(sb, ttb, eeb, 300);
	CHECK(memcmp(tta, ttb, sizeof(tta)) == 0 && memcmp(eea, eeb, sizeof(eea)) == 0,
	      "repriced per-request TTFT and E2E = the other run's");
	sim_free(sa);
	sa = NULL;
	sc.no_pooled_gaps = false;
	if (sim_new(&sc, &ca, &w, &sa, &e) == 0) {
		sim_keep_client_times(sa);
		sim_run(sa, &e);
		CHECK(!sim_reprice_api(sa, 3.7, 12.3), "pooled gaps collected: refused");
	}
out:
	sim_free(sa);
	sim_free(sb);
	cost_release(&ca);
	cost_release(&cb);
}

/* KV-cache dtype when none is given: vLLM's and SGLang's kv_cache_dtype
 * "auto" (the activation dtype, or fp8 where a ModelOpt checkpoint declares
 * it), trtllm's unchanged rule (the weights' dtype); an experiment's
 * kv_dtype wins. */
static void test_kv_auto(const struct model_cfg *m)
{
	struct model_cfg *glm = malloc(sizeof(*glm));
	char why[120];
	struct experiment *x = calloc(1, sizeof(*x));
	struct eval_opts o;
	struct scenario sc;

	CHECK(scenario_kv_auto(m, NULL, engine_find("vllm"), DT_FP8, why, sizeof(why)) == DT_BF16 && strstr(why, "activation dtype"),
	      "vllm fp8 weights: bf16 KV (%s)", why);
	CHECK(scenario_kv_auto(m, NULL, engine_find("sglang"), DT_FP4, why, sizeof(why)) == DT_BF16, "sglang fp4 weights: bf16 KV");
	CHECK(scenario_kv_auto(m, NULL, engine_find("vllm"), DT_INT4, why, sizeof(why)) == DT_BF16, "vllm int4 weights: bf16 KV");
	CHECK(scenario_kv_auto(m, NULL, engine_find("vllm"), DT_BF16, why, sizeof(why)) == DT_BF16 && !why[0],
	      "vllm bf16: bf16 KV, nothing to say");
	CHECK(scenario_kv_auto(m, NULL, engine_find("vllm"), DT_FP16, why, sizeof(why)) == DT_FP16 && !why[0], "vllm fp16: fp16 KV");
	CHECK(scenario_kv_auto(m, NULL, engine_find("trtllm"), DT_FP8, why, sizeof(why)) == DT_FP8 && !why[0],
	      "trtllm fp8: the weights' dtype, as before");
	load_model("glm-5.1", glm);
	CHECK(scenario_kv_auto(glm, NULL, engine_find("sglang"), DT_BF16, why, sizeof(why)) == DT_FP8 &&
	      strstr(why, "kv_cache_scheme"), "glm-5.1 NVFP4 (modelopt, fp8 KV declared): fp8 KV (%s)", why);
	/* experiments: dtype fp8 on a bf16-registry model, as the public
	 * Qwen3-235B-FP8 points */
	memset(&o, 0, sizeof(o));
	cost_default_overheads(&o.ov);
	wl_spec_defaults(&x->wl);
	x->tp = x->pp = x->dp = x->ep = 1;
	x->dtype = DT_FP8;
	snprintf(x->engine, sizeof(x->engine), "vllm");
	experiment_scenario(x, m, gpu("h100"), &o, &sc);
	CHECK(sc.wdt == DT_FP8 && sc.kvdt == DT_BF16 && sc.kvdt_src[0], "experiment fp8, no kv_dtype: bf16 KV");
	x->kv_dtype_given = true;
	x->kv_dtype = DT_FP8;
	experiment_scenario(x, m, gpu("h100"), &o, &sc);
	CHECK(sc.kvdt == DT_FP8 && strstr(sc.kvdt_src, "kv_dtype"), "experiment kv_dtype fp8 wins (%s)", sc.kvdt_src);
	x->kv_dtype_given = false;
	snprintf(x->engine, sizeof(x->engine), "trtllm");
	experiment_scenario(x, m, gpu("h100"), &o, &sc);
	CHECK(sc.kvdt == DT_FP8, "trtllm experiment fp8: fp8 KV as before");
	free(x);
	free(glm);
}

/* Energy (hw/power.h, sim.h metric_set): on one H100 (700 W board, 80.5 W
 * idle) the run's energy is the idle draw over its span plus what the steps
 * drew above it, so the mean power lies between idle and board power; the
 * steps' part is what account_step summed (sim_totals); per output token it
 * falls as the load rises (weights read once per step serve more tokens). */
static void test_energy(const struct model_cfg *m)
{
	struct cost_model c;
	struct sim_cfg sc;
	struct wl_spec w;
	struct sim_totals t;
	struct metric_set lo, hi;
	char *l = NULL, *cs = NULL;
	double span;

	if (make_cost(&c, m, 2048, 256, 0) < 0)
		return;
	base_cfg(&sc, 2048, 256, 20000);
	poisson_spec(&w, 1, 200, 100, 300, 3);
	run(&sc, &c, &w, &l, &cs, &t);
	free(l);
	free(cs);
	lo = run_sum;
	span = lo.last_done_s - lo.first_arrival_s;
	CHECK(lo.completed == 200 && t.energy_dyn_j > 0, "light load: 200 completed, steps drew %.1f J above idle",
	      t.energy_dyn_j);
	CHECK_REL(lo.energy_j, 80.5 * span + t.energy_dyn_j, 1e-12, "energy = idle x span + the steps' part");
	CHECK_REL(lo.avg_power_w_per_gpu, lo.energy_j / span, 1e-12, "mean power per GPU over the span");
	CHECK_REL(lo.energy_j_per_output_token, lo.energy_j / lo.output_tokens, 1e-12, "joules per output token");
	CHECK(lo.avg_power_w_per_gpu > 80.5 && lo.avg_power_w_per_gpu < 700, "light load: %.0f W between idle and board",
	      lo.avg_power_w_per_gpu);
	poisson_spec(&w, 40, 2000, 100, 300, 3);
	run(&sc, &c, &w, &l, &cs, &t);
	free(l);
	free(cs);
	hi = run_sum;
	CHECK(hi.avg_power_w_per_gpu > lo.avg_power_w_per_gpu && hi.avg_power_w_per_gpu < 700,
	      "loaded: more power per GPU (%.0f W > %.0f W), below the board's", hi.avg_power_w_per_gpu,
	      lo.avg_power_w_per_gpu);
	CHECK(hi.energy_j_per_output_token < 0.5 * lo.energy_j_per_output_token,
	      "loaded: under half the joules per output token (%.3f against %.3f)", hi.energy_j_per_output_token,
	      lo.energy_j_per_output_token);
	cost_release(&c);
}

/* Replicas behind the router (sim_cfg.replicas).  A burst of 2,000
 * requests at t = 0 (prompts normal(300, 100), outputs uniform 100..300)
 * on llama-2-7b, 400 KV blocks a replica: one replica drains it at its
 * saturated rate; two replicas, each sent half by the least-loaded router,
 * drain it in half the time, so the throughput over [first arrival, last
 * completion] doubles up to the last requests' tail (the hand-checked
 * tolerance: 2 x (1 +- 5 %)). */
static double burst_tok_s(const struct model_cfg *m, int replicas, enum router_kind router)
{
	struct trun r = {.log = NULL, .csv = NULL};

	trun_init(&r, m, 2048, 256, 400, NULL);
	r.sc.replicas = replicas;
	r.sc.router = router;
	poisson_spec(&r.w, 1e7, 2000, 100, 300, 7);
	CHECK(trun_go(&r) == 0 && r.t.completed == 2000,
	      "%d replica%s (%s router): every request completes, invariants checked", replicas,
	      replicas > 1 ? "s" : "", router_name(router));
	trun_release(&r);
	return run_sum.output_tok_s;
}

/* Inference-perf's shared prefix on 4 replicas of 600 KV blocks: 24
 * groups of 4 prompts, a 1,024-token system prompt (64 blocks), 64-token
 * questions, 16-token outputs, 1,200 requests at 40 req/s.  One replica
 * holds about six groups' prompts (6 x (64 + 4 x 4) = 480 blocks and the
 * running requests'); round-robin sends every group to every replica,
 * where they evict each other's prefixes; kv-aware sends a group back
 * where its prefix is cached.  What kv-aware can reach, by hand: every
 * request after its group's first hits its group prefix at least, 1,024
 * of its 1,087 lookup tokens: (1,200 - 24) / 1,200 x 1,024 / 1,087 =
 * 0.923; at most every request but its group's first hits all it looks up
 * (1,176 / 1,200 = 0.98); the repeated prompts land in between. */
static double shared_hit_rate(const struct model_cfg *m, enum router_kind router, struct metric_set *sum)
{
	struct trun r = {.log = NULL, .csv = NULL};

	trun_init(&r, m, 2048, 256, 600, NULL);
	r.sc.replicas = 4;
	r.sc.router = router;
	fixture_sp_spec(&r.w, WL_POISSON, 40, 1200, 24, 4, 1024, 64, 16);
	r.w.seed = 3;
	CHECK(trun_go(&r) == 0 && r.t.completed == 1200, "shared prefix on 4 replicas, %s router",
	      router_name(router));
	*sum = run_sum;
	trun_release(&r);
	return r.t.prefix_lookup_tokens ? (double)r.t.prefix_hit_tokens / (double)r.t.prefix_lookup_tokens : 0;
}

static void test_replicas(const struct model_cfg *m)
{
	struct trun r = {.log = NULL, .csv = NULL};
	double one = burst_tok_s(m, 1, ROUTER_LEAST_OUTSTANDING), two = burst_tok_s(m, 2, ROUTER_LEAST_OUTSTANDING);
	double rr, kv;
	struct metric_set srr, skv;
	struct err e;

	CHECK_REL(two / one, 2.0, 0.05, "two replicas serve twice one replica's saturated output tok/s");
	CHECK_REL(burst_tok_s(m, 2, ROUTER_ROUND_ROBIN) / one, 2.0, 0.05, "and so with round-robin");
	rr = shared_hit_rate(m, ROUTER_ROUND_ROBIN, &srr);
	kv = shared_hit_rate(m, ROUTER_KV_AWARE, &skv);
	CHECK(kv >= 0.923 - 0.01 && kv <= 0.98, "kv-aware: hit rate %.3f between the hand-computed 0.923 and 0.98", kv);
	CHECK(kv > rr + 0.2, "kv-aware raises the prefix-cache hit rate over round-robin (%.3f > %.3f + 0.2)", kv, rr);
	CHECK(skv.ttft_ms.mean < srr.ttft_ms.mean, "and lowers mean TTFT (%.2f < %.2f ms)", skv.ttft_ms.mean,
	      srr.ttft_ms.mean);
	/* attention-DP replicas: each replica's ranks step together, the
	 * replicas apart.  Two replicas of 2 lockstep ranks, round-robin: the
	 * requests at t = 0 and t = 0.0001 go to replicas 0 and 1 (ranks 0 and
	 * 2); no rank of replica 1 runs in replica 0's first step */
	trun_init(&r, m, 2048, 64, 1000, NULL);
	r.sc.dp = 2;
	r.sc.lockstep = true;
	r.sc.replicas = 2;
	trace_spec(&r.w, "0,200,3,-1\n0.0001,200,3,-1\n");
	CHECK(trun_go(&r) == 0 && r.t.completed == 2, "2 replicas of 2 lockstep ranks complete both");
	CHECK(strstr(r.log, " r0: 0+200") != NULL && strstr(r.log, " r2: 1+200") != NULL && strstr(r.log, " r1:") == NULL &&
		      strstr(r.log, " r3:") == NULL,
	      "request 0 on replica 0's rank 0, request 1 on replica 1's rank 2 (ranks 1 and 3 only run dummy steps)");
	wl_spec_release(&r.w);
	trun_release(&r);
	base_cfg(&r.sc, 2048, 64, 1000);
	r.sc.replicas = SIM_MAX_REPLICAS + 1;
	poisson_spec(&r.w, 1, 1, 100, 100, 1);
	CHECK(sim_new(&r.sc, &r.c, &r.w, NULL, &e) == -SS_EUSAGE, "too many replicas refused: %s", e.msg);
	CHECK(router_kind_of("kv", ROUTER_ROUND_ROBIN) == ROUTER_KV_AWARE &&
		      router_kind_of("least-outstanding", ROUTER_ROUND_ROBIN) == ROUTER_LEAST_OUTSTANDING,
	      "router aliases kv and least-outstanding");
	CHECK(router_kind_of(NULL, ROUTER_KV_AWARE) == ROUTER_KV_AWARE,
	      "no name: the caller's router (an unknown one is the field table's refusal, test_deploy)");
}

/* One session on an idle engine, worked by hand: 500-token prompts, 100
 * output tokens, 1 s think time, 16-token blocks. */
static void session_spec(struct wl_spec *w, int64_t turns)
{
	wl_spec_defaults(w);
	w->process = WL_CONSTANT;
	w->rate = 1;
	w->num_requests = 0;
	w->sess.count = 1;
	w->sess.turns.a = (double)turns;
	w->sess.think_ms.a = 1000;
	w->prompt.a = 500;
	w->output.a = 100;
}

/* TTFT (ms, client side) of one request of `prompt` tokens alone. */
static double lone_ttft(const struct model_cfg *m, int64_t prompt)
{
	struct trun r = {.log = NULL, .csv = NULL};
	char row[64];

	trun_init(&r, m, 2048, 16, 400, NULL);
	snprintf(row, sizeof(row), "0.0,%lld,100,\n", (long long)prompt);
	trace_spec(&r.w, row);
	trun_go(&r);
	trun_release(&r);
	return run_sum.ttft_ms.mean;
}

/* Sessions behind the router: 40 sessions of 3 turns (160-token prompts,
 * 32-token outputs, 1 s think time) starting 4 a second (Poisson: with
 * evenly spaced starts round-robin's alternation locks onto the sessions'
 * rhythm), on 2 replicas
 * of 2,000 blocks (nothing evicted).  A turn's KV holds its prompt and
 * output but the last token: turn 1 leaves 191 tokens, 11 full blocks
 * (176 tokens); turn 2 (192 carried + 160 = 352 tokens) leaves 383, 23
 * blocks (368); turn 3 is 544 tokens.  Sent back where its context is,
 * a session hits 176 + 368 of its 1,056 prompt tokens: 0.5152.  Sent
 * round-robin, a turn lands on the replica of the turn before about half
 * the time, and turn 3 finds turn 1's 11 blocks where turn 2 went
 * elsewhere: about (176 / 2 + 368 / 2 + 176 / 4) / 1,056 = 0.299. */
static double session_hit_rate(const struct model_cfg *m, enum router_kind router)
{
	struct trun r = {.log = NULL, .csv = NULL};

	trun_init(&r, m, 2048, 64, 2000, NULL);
	r.sc.replicas = 2;
	r.sc.router = router;
	session_spec(&r.w, 3);
	r.w.process = WL_POISSON;
	r.w.seed = 5;
	r.w.rate = 4;
	r.w.sess.count = 40;
	r.w.prompt.a = 160;
	r.w.output.a = 32;
	CHECK(trun_go(&r) == 0 && r.t.completed == 120,
	      "40 sessions of 3 turns on 2 replicas, %s router: 120 requests complete", router_name(router));
	trun_release(&r);
	return r.t.prefix_lookup_tokens ? (double)r.t.prefix_hit_tokens / (double)r.t.prefix_lookup_tokens : 0;
}

static void test_session_routing(const struct model_cfg *m)
{
	double kv = session_hit_rate(m, ROUTER_KV_AWARE), rr = session_hit_rate(m, ROUTER_ROUND_ROBIN);

	CHECK(kv > 0.5152 - 0.02 && kv < 0.5152 + 1e-9,
	      "sessions, kv-aware: hit rate %.4f (hand: 0.5152, every later turn where its context is)", kv);
	CHECK(rr > 0.2 && rr < 0.4 && kv > rr + 0.15,
	      "sessions: kv-aware raises the hit rate over round-robin, %.4f against %.4f (hand: about 0.299)", kv, rr);
}

static void test_sessions(const struct model_cfg *m)
{
	struct trun r = {.log = NULL, .csv = NULL};
	struct sim_turn_stats ts[SIM_TURN_ROWS];
	struct sim *s = NULL;
	struct err e;
	char l1[256], l2[256];
	double a0, a1, e2e0, ttft1, ttft2, t508, t1100;
	size_t n = 0;

	/* turn 1: 500 prompt tokens, 100 out; its KV holds 599 tokens (the
	 * last output token is never computed): 37 full blocks (592 tokens),
	 * registered under the session's content.  Turn 2: 600 carried + 500
	 * new = 1100 tokens, of which the 37 blocks hit: 592 cached tokens */
	trun_init(&r, m, 2048, 16, 400, NULL);
	session_spec(&r.w, 2);
	CHECK(trun_go(&r) == 0, "session run");
	CHECK(r.t.arrived == 2 && r.t.completed == 2, "one session of 2 turns: 2 requests (got %llu)",
	      (unsigned long long)r.t.arrived);
	CHECK(r.t.prefix_lookup_tokens == 500 + 1100, "turn 2's prompt carries turn 1's 600 tokens: lookups %llu",
	      (unsigned long long)r.t.prefix_lookup_tokens);
	CHECK(r.t.prefix_hit_tokens == 592, "turn 2 hits turn 1's 37 full blocks: %llu tokens",
	      (unsigned long long)r.t.prefix_hit_tokens);
	line_n(r.csv, 0, l1, sizeof(l1));
	line_n(r.csv, 1, l2, sizeof(l2));
	/* id,replica,stage,arrival_s,prompt,output,cached,preempt,status,queue,ttft,itl,tpot,e2e */
	CHECK(sscanf(l1, "%*d,%*d,%*d,%lf,%*d,%*d,%*d,%*d,completed,%*f,%lf,%*f,%*f,%lf", &a0, &ttft1, &e2e0) == 3 &&
	      sscanf(l2, "%*d,%*d,%*d,%lf,1100,100,592,%*d,completed,%*f,%lf", &a1, &ttft2) == 2,
	      "the turns' rows: '%s' / '%s'", l1, l2);
	CHECK(a1 - a0 > 1.0 && a1 - a0 < 1.0 + e2e0 * 1e-3,
	      "turn 2 arrives 1 s after turn 1 ended: %.6f s after it began (E2E %.3f ms)", a1 - a0, e2e0);
	/* the cached 592 tokens are not computed again: turn 2 costs less than
	 * 1100 fresh tokens and more than the 508 it computes alone (its
	 * attention reads the 592 cached ones) */
	t508 = lone_ttft(m, 508);
	t1100 = lone_ttft(m, 1100);
	CHECK(ttft2 < t1100 && ttft2 > t508, "turn 2 TTFT %.3f ms lies between 508 fresh tokens' %.3f and 1100's %.3f",
	      ttft2, t508, t1100);
	free(r.log);
	free(r.csv);
	/* per-turn figures (run() left its closed streams in sc) */
	r.sc.step_log = r.sc.requests_out = NULL;
	if (new_and_run(&r.sc, &r.c, &r.w, &s, &e) == 0)
		n = sim_turn_stats(s, ts, SIM_TURN_ROWS);
	CHECK(n == 2 && ts[0].turn == 1 && ts[1].turn == 2 && ts[1].completed == 1 &&
	      fabs(ts[1].prefix_hit_rate - 592.0 / 1100) < 1e-12 && ts[0].prefix_hit_rate == 0,
	      "turn rows: %zu, turn 2 hit rate %.4f (592/1100)", n, n > 1 ? ts[1].prefix_hit_rate : -1);
	CHECK(n == 2 && fabs(ts[1].ttft_ms.mean - ttft2) < 1e-3 * ttft2, "turn 2's TTFT row %.4f ms = its request's %.4f",
	      n == 2 ? ts[1].ttft_ms.mean : -1, ttft2);
	sim_free(s);
	/* prefix caching off: no hits, turn 2 computes all 1100 tokens */
	r.sc.prefix_caching = false;
	CHECK(trun_go(&r) == 0 && r.t.prefix_hit_tokens == 0, "caching off: no hits");
	free(r.log);
	free(r.csv);
	r.sc.prefix_caching = true;
	/* a turn too long for max_model_len is rejected and ends its session:
	 * turns of 600, 1200, 1800 tokens with room for 1200 */
	r.sc.max_model_len = 1200;
	session_spec(&r.w, 5);
	CHECK(trun_go(&r) == 0 && r.t.arrived == 3 && r.t.completed == 2 &&
	      r.t.rejected[REJ_TOO_LONG] == 1, "turn 3 too long: rejected, no turn 4 (%llu arrived)",
	      (unsigned long long)r.t.arrived);
	trun_release(&r);
}

/* A Mooncake trace worked by hand: 16-token blocks, 512-token keyed
 * blocks, each request alone on the engine (1 s apart). */
static void test_mooncake(const struct model_cfg *m)
{
	static const char trace[] =
		"{\"timestamp\": 0, \"input_length\": 1024, \"output_length\": 10, \"hash_ids\": [1, 2]}\n"
		"{\"timestamp\": 1000, \"input_length\": 1536, \"output_length\": 10, \"hash_ids\": [1, 2, 3]}\n"
		"{\"timestamp\": 2000, \"input_length\": 1024, \"output_length\": 10, \"hash_ids\": [1, 4]}\n"
		"{\"timestamp\": 3000, \"input_length\": 600, \"output_length\": 10, \"hash_ids\": [5, 6]}\n";
	struct cost_model c;
	struct sim_cfg sc;
	struct wl_spec w;
	struct sim_totals t;
	struct err e;
	char path[128], *log = NULL, *csv = NULL;
	FILE *f;
	int rc;

	snprintf(path, sizeof(path), "/tmp/servesim-test-trace-%d-mc.jsonl", (int)getpid());
	f = fopen(path, "w");
	fputs(trace, f);
	fclose(f);
	wl_spec_defaults(&w);
	rc = mooncake_read(path, &w, &e);
	CHECK(rc == 0 && w.nrecords == 4 && w.key_tokens == 512 && w.records[1].nkeys == 3 &&
	      w.records[1].keys[2] == 3 && w.records[3].arrival_ns == 3000000000LL,
	      "4 requests read, ids as block keys, ms as arrivals: %s", rc ? e.msg : "");
	make_cost(&c, m, 2048, 16, 0);
	base_cfg(&sc, 2048, 16, 400);
	/* request 2 finds request 1's two keyed blocks (1024 tokens, 64 of
	 * ours), request 3 its first (512); request 4 shares nothing */
	CHECK(rc == 0 && run(&sc, &c, &w, &log, &csv, &t) == 0 && t.arrived == 4 && t.completed == 4,
	      "the trace replays: 4 arrived, 4 completed");
	CHECK(t.prefix_lookup_tokens == 1024 + 1536 + 1024 + 600 && t.prefix_hit_tokens == 1024 + 512,
	      "hits on shared hash ids: %llu of %llu tokens (want 1536 of 4184)",
	      (unsigned long long)t.prefix_hit_tokens, (unsigned long long)t.prefix_lookup_tokens);
	free(log);
	free(csv);
	/* the slice a benchmark replays: the first 3 requests at 4x
	 * (timestamps / 4: 0, 250, 500 ms), the rest not replayed */
	rc = mooncake_slice(&w, 3, 4.0, "t", &e);
	CHECK(rc == 0 && w.nrecords == 3 && w.records[1].arrival_ns == 250000000LL &&
	      w.records[2].arrival_ns == 500000000LL && w.records[2].keys[1] == 4,
	      "first 3 requests at 4x: arrivals 0, 250, 500 ms, keys kept: %s", rc ? e.msg : "");
	CHECK(mooncake_slice(&w, 4, 1, "t", &e) == -SS_EDATA && strstr(e.msg, "'requests' must be in [0, 3]"),
	      "more requests than the slice holds refused: %s", e.msg);
	CHECK(mooncake_slice(&w, 0, 0, "t", &e) == -SS_EDATA && strstr(e.msg, "'speedup' must be in (0, 1e6], got 0"),
	      "speedup 0 refused: %s", e.msg);
	/* a bad line names file, line and field */
	f = fopen(path, "w");
	fputs("{\"timestamp\": 0, \"input_length\": 100, \"output_length\": 10, \"hash_ids\": [1, 2]}\n", f);
	fclose(f);
	rc = mooncake_read(path, &w, &e);
	CHECK(rc == -SS_EDATA && strstr(e.msg, ":1: 'hash_ids' must be an array of at most 1 ids"),
	      "too many hash ids refused: %s", e.msg);
	wl_spec_release(&w);
	cost_release(&c);
	remove(path);
}

/* kv-aware routing on a keyed (Mooncake) trace: the router hashes an
 * arrival's blocks as the scheduler does, keys included, so a request goes
 * where its keyed blocks are cached.  Two families of 1,024-token prompts
 * (keys [1, 2] and [7, 8]) alternate, each request alone (1 s apart), on 2
 * replicas: every request after each family's first hits 63 of its 64
 * blocks (a hit covers all but the last token), 4 x 1,008 of 6,144 tokens. */
static void test_mooncake_kv_routing(const struct model_cfg *m)
{
	static const char row[] = "{\"timestamp\": %d, \"input_length\": 1024, \"output_length\": 10, "
				  "\"hash_ids\": [%d, %d]}\n";
	struct cost_model c;
	struct sim_cfg sc;
	struct wl_spec w;
	struct sim_totals t;
	struct err e;
	char path[128], *log = NULL, *csv = NULL;
	FILE *f;
	int i, rc;

	snprintf(path, sizeof(path), "/tmp/servesim-test-trace-%d-mckv.jsonl", (int)getpid());
	f = fopen(path, "w");
	for (i = 0; i < 6; i++)
		fprintf(f, row, 1000 * i, i % 2 ? 7 : 1, i % 2 ? 8 : 2);
	fclose(f);
	wl_spec_defaults(&w);
	rc = mooncake_read(path, &w, &e);
	make_cost(&c, m, 2048, 16, 0);
	base_cfg(&sc, 2048, 16, 400);
	sc.replicas = 2;
	sc.router = ROUTER_KV_AWARE;
	CHECK(rc == 0 && run(&sc, &c, &w, &log, &csv, &t) == 0 && t.completed == 6 &&
		      t.prefix_hit_tokens == 4 * 1008,
	      "kv-aware on a keyed trace: each request routed to its keys' blocks, %llu of %llu tokens hit "
	      "(want 4032 of 6144)",
	      (unsigned long long)t.prefix_hit_tokens, (unsigned long long)t.prefix_lookup_tokens);
	free(log);
	free(csv);
	wl_spec_release(&w);
	cost_release(&c);
	remove(path);
}

/* The least-loaded router's tree (sim/loadtree.c) answers as the scan it
 * replaced: the first rank of least load in a range, over many ties,
 * ranges that do not align with its nodes and a rank count that is not a
 * power of two; marks come back once each. */
static void test_loadtree(void)
{
	struct loadtree t;
	uint64_t load[37] = {0}, *word, bit;
	struct pcg32 g;
	int i, k, bad = 0, nq = 0, r, seen = 0;

	pcg32_seed(&g, 7, 1);
	loadtree_init(&t, 37);
	CHECK(loadtree_min(&t, 0, 37) == 0 && loadtree_min(&t, 5, 6) == 5 && loadtree_min(&t, 36, 37) == 36,
	      "loadtree: all loads 0, the first rank of a range wins");
	for (k = 0; k < 20000; k++) {
		int lo, hi, want = -1;
		r = (int)pcg32_bounded(&g, 37);
		load[r] = pcg32_bounded(&g, 4); /* few values: ties everywhere */
		if (k % 7 == 0) /* a load far above the rank's bits */
			load[r] += (uint64_t)1 << 40;
		loadtree_set(&t, r, load[r]);
		lo = (int)pcg32_bounded(&g, 37);
		hi = lo + 1 + (int)pcg32_bounded(&g, (uint32_t)(37 - lo));
		if (k % 5 == 0) { /* the whole range (read at the root) */
			lo = 0;
			hi = 37;
		}
		for (i = lo; i < hi; i++)
			if (want < 0 || load[i] < load[want])
				want = i;
		bad += loadtree_min(&t, lo, hi) != want;
		nq++;
	}
	CHECK(bad == 0, "loadtree: %d of %d random ranges pick the scan's rank", nq - bad, nq);
	loadtree_mark_at(&t, 3, &word, &bit);
	loadtree_mark(word, bit);
	loadtree_mark(word, bit);
	loadtree_mark_at(&t, 36, &word, &bit);
	loadtree_mark(word, bit);
	while ((r = loadtree_take_marked(&t)) >= 0)
		seen = seen * 100 + r + 1;
	CHECK(seen == 437, "loadtree: marked ranks 3 and 36 come back once each, in order (got %d)", seen);
	loadtree_mark_at(&t, 5, &word, &bit);
	loadtree_mark(word, bit);
	loadtree_mark_at(&t, 36, &word, &bit);
	loadtree_mark(word, bit);
	CHECK(loadtree_take_word(&t, 0) == ((uint64_t)1 << 5 | (uint64_t)1 << 36) && loadtree_take_word(&t, 0) == 0 &&
	      loadtree_take_marked(&t) < 0, "loadtree: a word's marks come back once, as a word");
	loadtree_release(&t);
}

/* The least-loaded router's loads kept by level (loadtree_init_levels):
 * the same answers as the scan, over every rank (the least level's first
 * rank) and over shorter ranges (scanned), for one word of ranks and three
 * (130: levels of several words), with loads that move by one as a
 * router's do and by hundreds (the levels grown, the least level moving
 * down and up past empty ones). */
static void test_loadtree_levels(void)
{
	static const int ns[] = {37, 64, 130};
	uint64_t load[130];
	struct loadtree t;
	struct pcg32 g;
	size_t j;
	int i, k, r, bad = 0, nq = 0, full = 0;

	pcg32_seed(&g, 11, 1);
	for (j = 0; j < sizeof(ns) / sizeof(ns[0]); j++) {
		int n = ns[j];
		memset(load, 0, sizeof(load));
		loadtree_init_levels(&t, n);
		bad += loadtree_min(&t, 0, n) != 0 || loadtree_min(&t, n - 1, n) != n - 1;
		for (k = 0; k < 20000; k++) {
			int lo, hi, want = -1;
			r = (int)pcg32_bounded(&g, (uint32_t)n);
			if (k % 3 == 0) /* the least rank takes an arrival */
				r = loadtree_min(&t, 0, n);
			if (k % 97 == 0)
				load[r] += 100 + pcg32_bounded(&g, 400);
			else if (k % 2 == 0 || load[r] == 0)
				load[r]++;
			else
				load[r]--;
			loadtree_set(&t, r, load[r]);
			lo = (int)pcg32_bounded(&g, (uint32_t)n);
			hi = lo + 1 + (int)pcg32_bounded(&g, (uint32_t)(n - lo));
			if (k % 2 == 0) { /* every rank: the router's case */
				lo = 0;
				hi = n;
				full++;
			}
			for (i = lo; i < hi; i++)
				if (want < 0 || load[i] < load[want])
					want = i;
			bad += loadtree_min(&t, lo, hi) != want;
			nq++;
		}
		loadtree_release(&t);
	}
	CHECK(bad == 0, "loadtree levels: %d of %d choices (%d over every rank) pick the scan's rank", nq - bad, nq, full);
	/* an overloaded run's queues: past 1 MiB of levels the ranks move to
	 * the tree, the choices the same before and after */
	memset(load, 0, sizeof(load));
	loadtree_init_levels(&t, 64);
	bad = 0;
	for (k = 0; k < 4000; k++) {
		int want = 0;
		r = k % 5 == 0 ? loadtree_min(&t, 0, 64) : (int)pcg32_bounded(&g, 64);
		load[r] += 1 + pcg32_bounded(&g, 3000);
		loadtree_set(&t, r, load[r]);
		for (i = 1; i < 64; i++)
			if (load[i] < load[want])
				want = i;
		bad += loadtree_min(&t, 0, 64) != want;
	}
	CHECK(bad == 0 && t.win && !t.lvl && load[loadtree_min(&t, 0, 64)] > 0,
	      "loadtree levels past 1 MiB: on the tree (%s), %d of 4000 choices pick the scan's rank", t.win ? "yes" : "no",
	      4000 - bad);
	loadtree_release(&t);
}

/* A replica's decoder completions (sim/decoders.c, dec_fin_queue: each a new
 * epoch of its request, noted on it): queued in its ring of
 * step buckets (grown 16 -> 1024 while they come) or its heap, each comes
 * back at its step exactly once; buckets that take more than their first
 * array (a line, from the replica's pool) move to their own and give it
 * back for the next new bucket; the pool's chunks grow to 64 arrays. */
static void test_fin_ring(void)
{
	struct replica *rp = calloc(1, sizeof(*rp));
	struct req *rq = calloc(3000, sizeof(*rq));
	static int64_t due[4096];
	struct pcg32 g;
	int64_t k, n = 0, first = 0, bad = 0, got = 0, touched = 0;
	size_t i, handed;

	pcg32_seed(&g, 11, 3);
	for (k = 0; k < 3000; k++) {
		/* short first (the ring grows by doubling), a few per
		 * step, some steps with many, some past the ring (heap) */
		int64_t d = 1 + (int64_t)pcg32_bounded(&g, k < 500 ? 40 : k % 97 == 0 ? 1500 : 900);
		if (k % 50 == 0)
			d = 7; /* step 7 takes 60 completions */
		rq[k].rseq = (uint64_t)k;
		rq[k].epoch = (uint32_t)(k % 5);
		due[d]++;
		dec_fin_queue(rp, &rq[k], d);
		/* queued as its live entry: a new epoch, its step noted */
		bad += rq[k].epoch != (uint32_t)(k % 5) + 1 || !rq[k].heaped || rq[k].heap_fin != d;
	}
	for (rp->G = 1; rp->G < 4096; rp->G++) {
		int64_t c = 0;
		struct fin_bucket *b = &rp->ring[rp->G & rp->ring_mask];
		for (i = 0; i < b->n; i++) {
			c++;
			bad += b->e[i].fin_G != rp->G || b->e[i].r != &rq[b->e[i].rseq] ||
			       b->e[i].epoch != b->e[i].r->epoch;
		}
		b->n = 0;
		while (rp->nheap > 0 && rp->heap[0].fin_G <= rp->G) {
			bad += rp->heap[0].fin_G != rp->G || rp->heap[0].r != &rq[rp->heap[0].rseq] ||
			       rp->heap[0].epoch != rp->heap[0].r->epoch;
			dec_heap_pop(rp);
			c++;
		}
		bad += c != due[rp->G];
		got += c;
		touched += due[rp->G] > 0 && rp->G < 1024;
	}
	for (i = 0; i <= rp->ring_mask; i++) {
		n += rp->ring[i].cap > 2;
		first += rp->ring[i].cap == 2;
	}
	CHECK(bad == 0 && got == 3000, "fin ring: 3000 completions each back at its step (%lld, %lld wrong)",
	      (long long)got, (long long)bad);
	/* every first array handed out is a bucket's or spare, none twice
	 * (chunks of 4, 8, 16, 32, then 64 arrays) */
	handed = rp->fin_pool.nchunks <= 4 ? ((size_t)4 << rp->fin_pool.nchunks) - 4
					    : 60 + (rp->fin_pool.nchunks - 4) * 64;
	CHECK(rp->ring_mask == 1023 && n > 0 && first + (int64_t)rp->fin_pool.nspare == (int64_t)(handed - rp->fin_pool.left),
	      "fin ring: 1024 buckets, %lld on arrays of their own, %lld on the pool's, %zu spare", (long long)n,
	      (long long)first, rp->fin_pool.nspare);
	CHECK(handed < (size_t)touched + 64, "fin ring: %zu pool chunks for %lld buckets used",
	      rp->fin_pool.nchunks, (long long)touched);
	free(rp->heap);
	dec_ring_release(rp);
	free(rp);
	free(rq);
}

/* The event queue (sim/evq.h, base/heap.h's bottom-up sift) pops by
 * (time, push order) over pushes and pops interleaved, many at equal
 * times, and keeps its heap order after each. */
static void test_evq_order(void)
{
	struct evq q;
	struct event ev = {0};
	struct pcg32 g;
	int64_t last_t = -1;
	uint64_t last_seq = 0;
	int k, bad = 0, heap_bad = 0, pops = 0;

	pcg32_seed(&g, 5, 2);
	evq_init(&q, 4);
	for (k = 0; k < 20000; k++) {
		if (evq_size(&q) == 0 || pcg32_bounded(&g, 5) < 3) {
			/* never before the last pop: a queue's clock runs forward */
			int64_t t = (last_t < 0 ? 0 : last_t) + (int64_t)pcg32_bounded(&g, 6);
			evq_push(&q, t, EV_STEP_END, (int32_t)(k % 64));
		} else {
			bad += !evq_pop(&q, &ev);
			bad += ev.t_ns < last_t || (ev.t_ns == last_t && ev.seq < last_seq);
			last_t = ev.t_ns;
			last_seq = ev.seq;
			pops++;
		}
		heap_bad += !evq_check(&q);
	}
	CHECK(bad == 0 && heap_bad == 0 && pops > 5000,
	      "evq: %d pops in (time, push) order (%d out of order, %d heap faults)", pops, bad, heap_bad);
	evq_release(&q);
}

int main(void)
{
	struct model_cfg m;

	if (fixture_load(datadir, sizeof(datadir), &reg, &db) < 0)
		return 1;
	load_model("llama-2-7b", &m);
	test_kvcache();
	test_kvcache_host();
	test_kvcache_grow();
	test_kv_auto(&m);
	test_chunking(&m);
	test_energy(&m);
	test_max_seqs_and_decode_first(&m);
	test_sglang(&m);
	test_sglang_recv_interval(&m);
	test_sglang_lpm(&m);
	test_sglang_conservativeness(&m);
	test_sglang_defaults();
	test_overlap(&m);
	test_preemption(&m);
	test_winblocks(&m);
	test_no_evict(&m);
	test_prefix_cache(&m);
	test_rejections(&m);
	test_determinism_and_storm(&m);
	test_arrival_thread(&m);
	test_sinkq(&m);
	test_sink_records(&m);
	test_memplan();
	test_cost_kat(&m);
	test_dp_attention();
	test_comm();
	test_spec(&m);
	test_spec_draws();
	test_spath_draws();
	test_spath_runs();
	test_spath_paths();
	test_spath_sims(&m);
	test_spec_defaults();
	test_pd(&m);
	test_pd_first_token(&m);
	test_pd_gen_init(&m);
	test_trtllm_adp_balance(&m);
	test_trtllm_batch_wait(&m);
	test_cold_start(&m);
	test_api_loop(&m);
	test_pp(&m);
	test_hist_percentiles(&m);
	test_mechanics(&m);
	test_status_sketch(&m);
	test_pooled_itl_hand(&m);
	test_pooled_itl_replay(&m);
	test_segments(&m);
	test_lazy_decoders(&m);
	test_sglang_kept_lists(&m);
	test_stepmemo_lanes();
	test_memo_across_runs(&m);
	test_step_split();
	test_step_local_wide();
	test_step_memo();
	test_draft_memo();
	test_group_top();
	test_on_request(&m);
	test_live(&m);
	test_reprice_api(&m);
	test_run_ticking(&m);
	test_replicas(&m);
	test_loadtree();
	test_loadtree_levels();
	test_fin_ring();
	test_evq_order();
	test_sessions(&m);
	test_session_routing(&m);
	test_mooncake(&m);
	test_mooncake_kv_routing(&m);
	registry_release(&reg);
	gpu_db_release(&db);
	system("rm -f /tmp/servesim-test-trace-*.csv");
	return check_done();
}
