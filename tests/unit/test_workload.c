/* test_workload.c - arrival processes and length distributions with their
 * real semantics (inference-perf and GuideLLM), spec validation. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fixture.h"
#include "base/pcg32.h"
#include "workload/workload.h"

static int64_t drain(struct wl_spec *w, int64_t *times, size_t cap, struct wl_req *last)
{
	struct wl_gen *g;
	struct err e;
	struct wl_req r;
	int64_t n = 0;

	if (wl_gen_new(w, &g, &e) < 0)
		return -1;
	while (wl_gen_next(g, 0, &r, &e) > 0) {
		if ((size_t)n < cap)
			times[n] = r.arrival_ns;
		*last = r;
		n++;
	}
	wl_gen_free(g);
	return n;
}

/* Up to max requests of w's generator: their prompt and output lengths into
 * pp[] and oo[]; how many (0 when it does not start). */
static int64_t draw_lengths(const struct wl_spec *w, int64_t *pp, int64_t *oo, int64_t max)
{
	struct wl_gen *g;
	struct err e;
	struct wl_req r;
	int64_t n = 0;

	if (wl_gen_new(w, &g, &e) < 0)
		return 0;
	while (n < max && wl_gen_next(g, 0, &r, &e) > 0) {
		pp[n] = r.prompt_tokens;
		oo[n++] = r.output_tokens;
	}
	wl_gen_free(g);
	return n;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

static int parse(const char *txt, struct wl_spec *w, struct err *e)
{
	struct json *j;
	int rc;

	err_clear(e);
	if ((rc = json_parse(txt, strlen(txt), "w.json", &j, e)) < 0)
		return rc;
	rc = wl_spec_from_json(j, "w.json", w, e);
	json_free(j);
	return rc;
}

/* wl_draws: generators sharing draws give the requests generators of
 * their own give, field for field: poisson, gamma and constant arrivals,
 * lognormal and dataset (joint) lengths, at rates and request counts in
 * any order (a shorter run first, a longer one extending the draws, one
 * reading them and drawing past them), and a generator paused while
 * others extend the draws going on as if alone; another seed's spec draws
 * its own. */
static void test_draws(void)
{
	static const struct {
		enum wl_process p;
		bool dataset;
	} cases[] = {{WL_POISSON, false}, {WL_GAMMA, false}, {WL_CONSTANT, false}, {WL_POISSON, true}};
	static const struct {
		double rate;
		int64_t n;
	} runs[] = {{4, 100}, {30, 300}, {2, 700}, {9, 700}, {30, 130}};
	size_t c, k;
	struct err e;

	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct wl_draws *d;
		struct wl_gen *paused = NULL;
		struct wl_spec ps, base;
		if (cases[c].dataset && parse("{\"arrival\": {\"process\": \"poisson\", \"rate\": 1}, \"num_requests\": 10, "
					      "\"prompt_tokens\": {\"dataset\": \"sharegpt\"}, "
					      "\"output_tokens\": {\"dataset\": \"sharegpt\"}}", &base, &e) < 0) {
			CHECK(0, "dataset spec: %s", e.msg);
			continue;
		}
		d = wl_draws_new();
		int64_t pi = 0;
		bool same = true;
		for (k = 0; k <= sizeof(runs) / sizeof(runs[0]); k++) {
			struct wl_spec a, b;
			struct wl_gen *ga = NULL, *gb = NULL;
			struct wl_req ra, rb;
			/* the last run: another seed with the same draws */
			bool other = k == sizeof(runs) / sizeof(runs[0]);
			int64_t i;
			if (cases[c].dataset) {
				a = base;
				a.rate = other ? 5 : runs[k].rate;
				a.num_requests = other ? 200 : runs[k].n;
				a.seed = other ? 8 : 7;
			} else {
				fixture_wl(&a, cases[c].p, other ? 5 : runs[k].rate, other ? 200 : runs[k].n, other ? 8 : 7);
				a.cv = 2;
				a.prompt = (struct wl_dist){.kind = WL_LOGNORMAL, .a = 600, .b = 300, .min = 16, .max = 4096};
				a.output = (struct wl_dist){.kind = WL_LOGNORMAL, .a = 250, .b = 120, .min = 8, .max = 1024};
			}
			b = a;
			b.draws = d;
			if (wl_gen_new(&a, &ga, &e) < 0 || wl_gen_new(&b, &gb, &e) < 0) {
				CHECK(0, "generators: %s", e.msg);
				wl_gen_free(ga);
				break;
			}
			for (i = 0;; i++) {
				int na = wl_gen_next(ga, 0, &ra, &e), nb = wl_gen_next(gb, 0, &rb, &e);
				if (na != nb || memcmp(&ra, &rb, sizeof(ra)) != 0) {
					same = false;
					break;
				}
				if (na <= 0)
					break;
				/* the second run pauses a third generator half way */
				if (k == 1 && i == 150) {
					ps = b;
					if (wl_gen_new(&ps, &paused, &e) < 0)
						break;
					for (pi = 0; pi < 150; pi++)
						wl_gen_next(paused, 0, &ra, &e);
				}
			}
			wl_gen_free(ga);
			wl_gen_free(gb);
		}
		if (paused) {
			/* on to its end after the later runs drew further */
			struct wl_spec a = ps;
			struct wl_gen *ga = NULL;
			struct wl_req ra, rb;
			a.draws = NULL;
			if (wl_gen_new(&a, &ga, &e) == 0) {
				int64_t i;
				for (i = 0; i < pi; i++)
					wl_gen_next(ga, 0, &ra, &e);
				for (;;) {
					int na = wl_gen_next(ga, 0, &ra, &e), nb = wl_gen_next(paused, 0, &rb, &e);
					if (na != nb || memcmp(&ra, &rb, sizeof(ra)) != 0)
						same = false;
					if (na <= 0 || nb <= 0)
						break;
				}
				wl_gen_free(ga);
			}
			wl_gen_free(paused);
		}
		CHECK(same && paused, "%s%s: the same requests with shared draws", wl_process_name(cases[c].p),
		      cases[c].dataset ? ", dataset lengths" : "");
		wl_draws_free(d);
		if (cases[c].dataset)
			wl_spec_release(&base);
	}
}

int main(void)
{
	static int64_t t[40000];
	struct wl_spec w;
	struct wl_req last;
	struct err e;
	int64_t n, i;
	int mono = 1, in_stage = 1;

	/* GuideLLM constant: exact 1/rate spacing */
	wl_spec_defaults(&w);
	w.process = WL_CONSTANT;
	w.rate = 4;
	w.num_requests = 10;
	n = drain(&w, t, 40000, &last);
	CHECK(n == 10 && t[0] == 0 && t[1] == 250000000 && t[9] == 2250000000LL, "constant: exact 250 ms spacing");

	/* inference-perf constant: floor(rate x duration) sorted uniform points per stage */
	wl_spec_defaults(&w);
	w.process = WL_UNIFORM_COUNT;
	w.num_requests = 0;
	w.nstages = 2;
	w.stages[0] = (struct wl_stage){8, 600};
	w.stages[1] = (struct wl_stage){20.5, 100};
	n = drain(&w, t, 40000, &last);
	CHECK(n == 4800 + 2050, "uniform_count: 4800 + floor(20.5 x 100) = %lld", (long long)n);
	for (i = 1; i < n; i++)
		mono &= t[i] >= t[i - 1];
	for (i = 0; i < 4800; i++)
		in_stage &= t[i] < 600000000000LL;
	for (i = 4800; i < n; i++)
		in_stage &= t[i] >= 600000000000LL && t[i] < 700000000000LL;
	CHECK(mono && in_stage, "sorted, each stage's points inside the stage");
	CHECK(last.stage == 1, "stage tag of the last request");
	{
		/* conditioned on the count, the points are uniform: mean near the middle */
		double s = 0;
		for (i = 0; i < 4800; i++)
			s += (double)t[i] * 1e-9;
		CHECK(fabs(s / 4800 - 300) < 10, "uniform points: mean %.1f s ~ 300 s", s / 4800);
	}
	/* poisson: mean gap 1/rate */
	wl_spec_defaults(&w);
	w.process = WL_POISSON;
	w.rate = 50;
	w.num_requests = 20000;
	n = drain(&w, t, 40000, &last);
	CHECK_REL((double)t[n - 1] * 1e-9 / (double)n, 1.0 / 50, 0.03, "poisson mean gap");
	/* inference-perf poisson: a Poisson count per second */
	wl_spec_defaults(&w);
	w.process = WL_POISSON_COUNT;
	w.num_requests = 0;
	w.nstages = 1;
	w.stages[0] = (struct wl_stage){30, 200};
	n = drain(&w, t, 40000, &last);
	CHECK_REL((double)n, 6000, 0.05, "poisson_count: about rate x duration arrivals");
	/* gamma with cv 3: bursty but mean rate kept */
	wl_spec_defaults(&w);
	w.process = WL_GAMMA;
	w.rate = 10;
	w.cv = 3;
	w.num_requests = 20000;
	n = drain(&w, t, 40000, &last);
	CHECK_REL((double)t[n - 1] * 1e-9 / (double)n, 0.1, 0.08, "gamma mean gap");
	/* lengths */
	{
		struct wl_dist d = {WL_NORMAL, 100, 50, 60, 130, NULL, NULL, 0, 0, 0, "", 0};
		struct pcg32 r;
		int64_t lo = 1000, hi = 0, x;
		pcg32_seed(&r, 1, 2);
		for (i = 0; i < 10000; i++) {
			x = wl_dist_sample(&d, &r);
			if (x < lo) lo = x;
			if (x > hi) hi = x;
		}
		CHECK(lo == 60 && hi == 130, "normal clipped to [60, 130]: [%lld, %lld]", (long long)lo, (long long)hi);
		d.kind = WL_LOGNORMAL;
		d.min = 1;
		d.max = 100000;
		wl_dist_prepare(&d);
		{
			double s = 0;
			for (i = 0; i < 50000; i++)
				s += (double)wl_dist_sample(&d, &r);
			CHECK_REL(s / 50000, 100, 0.03, "lognormal keeps the requested mean");
		}
		/* the single-precision first try (gen.c, lognormal_round) gives
		 * the double-precision formula's integers from the same draws */
		{
			static const double ab[4][2] = {{600, 300}, {250, 120}, {5, 2}, {30000, 100}};
			struct pcg32 a, b;
			long bad = 0, ndraw = 0;
			int k;
			for (k = 0; k < 4; k++) {
				d.a = ab[k][0];
				d.b = ab[k][1];
				d.min = 0;
				d.max = WL_MAX_TOKENS;
				wl_dist_prepare(&d);
				pcg32_seed(&a, 77, 2);
				pcg32_seed(&b, 77, 2);
				for (i = 0; i < 250000; i++, ndraw++) {
					double u1 = pcg32_double(&b), u2 = pcg32_double(&b), ref;
					u1 = u1 > 0 ? u1 : 0x1p-53;
					ref = floor(exp(d.ln_mu + d.ln_sigma * (sqrt(-2.0 * log(u1)) *
										cos(2.0 * M_PI * u2))) + 0.5);
					bad += (double)wl_dist_sample(&d, &a) != ref;
				}
			}
			CHECK(bad == 0, "lognormal: the double-precision integers, %ld of %ld differ", bad, ndraw);
		}
	}
	/* shared_prefix: whole prompts repeat every G x M requests */
	fixture_sp_spec(&w, WL_CONSTANT, 100, 40, 4, 5, 100, 447, 248);
	{
		struct wl_gen *g;
		struct wl_req r[40];
		int seen[20] = {0}, ok = 1;
		wl_gen_new(&w, &g, &e);
		for (i = 0; i < 40; i++)
			wl_gen_next(g, 0, &r[i], &e);
		wl_gen_free(g);
		for (i = 0; i < 20; i++)
			seen[r[i].content_id]++;
		for (i = 0; i < 20; i++)
			ok &= seen[i] == 1 && r[i].content_id == r[i + 20].content_id;
		CHECK(ok, "each of the 20 prompts once per cycle, same order next cycle");
		CHECK(r[0].prompt_tokens == 547 && r[0].output_tokens == 248 && r[0].prefix_tokens == 100 &&
		      r[0].prefix_group == r[0].content_id / 5, "shared_prefix lengths and group");
	}
	/* spec validation messages */
	CHECK(parse("{\"arrival\": {\"process\": \"poisson\", \"rate\": -3}, \"num_requests\": 5}", &w, &e) ==
	      -SS_EDATA && strstr(e.msg, "w.json: arrival: 'rate' must be in [1e-06, 1e+09] requests/s, got -3"), "negative rate: %s", e.msg);
	CHECK(parse("{\"arrival\": {\"process\": \"poisson\", \"rate\": 3}, \"num_requests\": 5, \"colour\": 1}", &w, &e) ==
	      -SS_EDATA && strstr(e.msg, "unknown key 'colour'"), "unknown key: %s", e.msg);
	CHECK(parse("{\"arrival\": {\"process\": \"burst\"}, \"num_requests\": 5}", &w, &e) == -SS_EDATA &&
	      strstr(e.msg, "'process' must be"), "unknown process: %s", e.msg);
	CHECK(parse("{\"arrival\": {\"process\": \"poisson\", \"rate\": 3}}", &w, &e) < 0 &&
	      strstr(e.msg, "needs an end"), "unbounded workload: %s", e.msg);
	CHECK(parse("{\"arrival\": {\"process\": \"poisson\", \"rate\": 3}, \"num_requests\": 5,"
		    " \"prompt_tokens\": {\"dist\": \"normal\", \"mean\": 10, \"stdev\": 2, \"min\": 20, \"max\": 5}}", &w, &e) ==
	      -SS_EDATA && strstr(e.msg, "'max' (5) must be >= 'min' (20)"), "min/max: %s", e.msg);
	CHECK(parse("{\"seed\": 3, \"arrival\": {\"process\": \"uniform_count\"}, \"stages\": [{\"rate\": 8, \"duration_s\": 600}],"
		    " \"shared_prefix\": {\"num_groups\": 10, \"num_prompts_per_group\": 10, \"system_prompt_len\": 100,"
		    " \"question_len\": 447, \"output_len\": 248}}", &w, &e) == 0 && w.sp_groups == 10 && w.nstages == 1,
	      "inference-perf style spec parses");
	wl_spec_release(&w);

	/* prompt kind (speculative decoding's acceptance): given, or from the
	 * harness (aiperf, vllm-bench and sglang-bench send random tokens) */
	CHECK(parse("{\"arrival\": {\"process\": \"poisson\", \"rate\": 3}, \"num_requests\": 5,"
		    " \"harness\": \"vllm-bench\"}", &w, &e) == 0 && wl_prompt_kind(&w) == WL_PROMPTS_RANDOM,
	      "vllm-bench without prompt_kind: random prompts");
	wl_spec_release(&w);
	CHECK(parse("{\"arrival\": {\"process\": \"poisson\", \"rate\": 3}, \"num_requests\": 5,"
		    " \"harness\": \"aiperf\", \"prompt_kind\": \"chat\"}", &w, &e) == 0 &&
	      wl_prompt_kind(&w) == WL_PROMPTS_CHAT, "aiperf with prompt_kind chat: chat");
	wl_spec_release(&w);
	CHECK(parse("{\"arrival\": {\"process\": \"poisson\", \"rate\": 3}, \"num_requests\": 5}", &w, &e) == 0 &&
	      wl_prompt_kind(&w) == WL_PROMPTS_CHAT, "no harness: chat prompts");
	wl_spec_release(&w);
	CHECK(parse("{\"arrival\": {\"process\": \"poisson\", \"rate\": 3}, \"num_requests\": 5,"
		    " \"prompt_kind\": \"text\"}", &w, &e) == -SS_EDATA &&
	      strstr(e.msg, "w.json: 'prompt_kind' must be chat or random, got 'text'"), "bad prompt_kind: %s", e.msg);
	wl_spec_release(&w);

	/* a closed loop ended by its duration only: the request ceiling holds
	 * as requests are issued (issue 15) */
	wl_spec_defaults(&w);
	w.process = WL_CONCURRENCY;
	w.concurrency = 2;
	w.num_requests = 0;
	w.duration_s = 1e6;
	w.max_requests = 3;
	{
		struct wl_gen *g = NULL;
		struct wl_req r;
		int rc, ok;
		err_clear(&e);
		rc = wl_gen_new(&w, &g, &e);
		ok = rc == 0;
		for (i = 0; ok && i < 3; i++)
			ok = wl_gen_next(g, i * 1000, &r, &e) == 1;
		rc = ok ? wl_gen_next(g, 5000000000LL, &r, &e) : 0;
		CHECK(ok && rc == -SS_EUSAGE && strstr(e.msg, "has issued 3 requests by 5 s of its 1e+06 s"),
		      "closed loop: the 4th request past max_requests 3 is refused: %s", e.msg);
		if (g)
			wl_gen_free(g);
	}
	{
		/* sessions: think time in seconds kept in ms; the turns after the
		 * first carry the context and arrive a think time after the last
		 * one ended */
		struct wl_gen *g;
		struct wl_req r0, r1, r2;
		int k = parse("{\"arrival\": {\"process\": \"constant\", \"rate\": 2}, \"prompt_tokens\": 300, "
			      "\"output_tokens\": 50, \"sessions\": {\"count\": 3, \"turns\": 2, \"think_time_s\": 2.5, "
			      "\"tool_tokens\": 40}}", &w, &e);
		CHECK(k == 0 && w.sess.count == 3 && w.sess.think_ms.a == 2500 && w.sess.tool.a == 40 &&
		      w.sess.turns.a == 2, "sessions parsed (think 2.5 s = 2500 ms): %s", k ? e.msg : "");
		k = wl_gen_new(&w, &g, &e);
		n = 0;
		while (k == 0 && wl_gen_next(g, 0, &r0, &e) > 0)
			n++;
		CHECK(n == 3 && r0.turn == 1 && r0.prefix_group == WL_SESSION_GROUP0 + 2 && r0.prefix_tokens == 350 &&
		      r0.arrival_ns == 1000000000LL, "3 sessions start, each a first turn of its own group");
		CHECK(k == 0 && wl_gen_next_turn(g, &r0, 7000000000LL, &r1) == 1 && r1.turn == 2 &&
		      r1.prompt_tokens == 350 + 40 + 300 && r1.output_tokens == 50 && r1.prefix_group == r0.prefix_group &&
		      r1.prefix_tokens == 740 && r1.arrival_ns == 9500000000LL,
		      "turn 2: 350 carried + 40 tool + 300 new tokens, 2.5 s after turn 1 ended (%lld tokens at %lld ns)",
		      (long long)r1.prompt_tokens, (long long)r1.arrival_ns);
		CHECK(k == 0 && wl_gen_next_turn(g, &r1, 12000000000LL, &r2) == 0, "the session ends after 2 turns");
		if (k == 0)
			wl_gen_free(g);
		wl_spec_release(&w);
		k = parse("{\"arrival\": {\"process\": \"poisson\", \"rate\": 2}, \"sessions\": {\"count\": 3, "
			  "\"turns\": 2, \"think_time_s\": {\"dist\": \"uniform\", \"min\": 0.5, \"max\": 1.5}}}", &w, &e);
		CHECK(k == 0 && w.sess.think_ms.kind == WL_UNIFORM && w.sess.think_ms.min == 500 &&
		      w.sess.think_ms.max == 1500, "think time uniform in [0.5, 1.5] s = [500, 1500] ms");
		wl_spec_release(&w);
	}
	{
		/* dataset-shaped lengths: 20000 draws against the figures of the
		 * files they were fitted to (data/datasets.json; sharegpt: prompt
		 * mean 2340.03, median 1730, output mean 438.71, median 415) */
		static int64_t pp[20000], oo[20000];
		double sp = 0, so = 0, lp = 0, lo = 0, cov = 0, vp = 0, vo = 0;
		int k = parse("{\"arrival\": {\"process\": \"poisson\", \"rate\": 10}, \"num_requests\": 20000, "
			      "\"prompt_tokens\": {\"dataset\": \"sharegpt\"}, \"output_tokens\": {\"dataset\": \"sharegpt\"}}",
			      &w, &e);
		CHECK(k == 0 && w.prompt.kind == WL_DATASET && w.prompt.a == 2340.03 && w.output.a == 438.71,
		      "dataset sharegpt parsed: %s", k ? e.msg : "");
		n = k == 0 ? draw_lengths(&w, pp, oo, 20000) : 0;
		for (i = 0; i < n; i++) {
			sp += (double)pp[i];
			so += (double)oo[i];
		}
		CHECK(n == 20000 && fabs(sp / 20000 / 2340.03 - 1) < 0.03 && fabs(so / 20000 / 438.71 - 1) < 0.03,
		      "sharegpt sample means %.1f, %.1f within 3 %% of 2340.03, 438.71", sp / 20000, so / 20000);
		qsort(pp, 20000, sizeof(int64_t), cmp_i64);
		qsort(oo, 20000, sizeof(int64_t), cmp_i64);
		CHECK(fabs((double)pp[10000] / 1730 - 1) < 0.03 && fabs((double)oo[10000] / 415 - 1) < 0.03,
		      "sharegpt sample medians %lld, %lld within 3 %% of 1730, 415", (long long)pp[10000],
		      (long long)oo[10000]);
		wl_spec_release(&w);
		/* arXiv summarisation: longer articles get shorter abstracts in
		 * the file (copula rho -0.2069): the draws' log lengths follow */
		k = parse("{\"arrival\": {\"process\": \"poisson\", \"rate\": 10}, \"num_requests\": 20000, "
			  "\"prompt_tokens\": {\"dataset\": \"arxiv-summarization\"}, "
			  "\"output_tokens\": {\"dataset\": \"arxiv-summarization\"}}", &w, &e);
		n = k == 0 ? draw_lengths(&w, pp, oo, 20000) : 0;
		for (i = 0; i < n; i++) {
			lp += log((double)pp[i]);
			lo += log((double)oo[i]);
		}
		for (i = 0; i < n; i++) {
			double a = log((double)pp[i]) - lp / (double)n, b = log((double)oo[i]) - lo / (double)n;
			cov += a * b;
			vp += a * a;
			vo += b * b;
		}
		CHECK(n == 20000 && cov / sqrt(vp * vo) < -0.1 && cov / sqrt(vp * vo) > -0.3,
		      "arxiv-summarization: correlation of log lengths %.3f, negative as the copula's -0.2069",
		      n ? cov / sqrt(vp * vo) : 0);
		wl_spec_release(&w);
		/* the long-context set (Mooncake's conversation trace, its first
		 * 5,000 requests): prompt p50 7748 and p90 28964.8, output p50 356
		 * in data/datasets.json; the draws' order statistics land on them */
		k = parse("{\"arrival\": {\"process\": \"poisson\", \"rate\": 10}, \"num_requests\": 20000, "
			  "\"prompt_tokens\": {\"dataset\": \"mooncake-conversation\"}, "
			  "\"output_tokens\": {\"dataset\": \"mooncake-conversation\"}}", &w, &e);
		n = k == 0 ? draw_lengths(&w, pp, oo, 20000) : 0;
		qsort(pp, n, sizeof(int64_t), cmp_i64);
		qsort(oo, n, sizeof(int64_t), cmp_i64);
		CHECK(n == 20000 && fabs((double)pp[10000] / 7748 - 1) < 0.03 && fabs((double)pp[18000] / 28964.8 - 1) < 0.03 &&
		      fabs((double)oo[10000] / 356 - 1) < 0.03,
		      "mooncake-conversation prompt p50 %lld, p90 %lld, output p50 %lld within 3 %% of 7748, 28965, 356",
		      n ? (long long)pp[10000] : 0, n ? (long long)pp[18000] : 0, n ? (long long)oo[10000] : 0);
		wl_spec_release(&w);
		k = parse("{\"arrival\": {\"process\": \"poisson\", \"rate\": 10}, \"num_requests\": 5, "
			  "\"prompt_tokens\": {\"dataset\": \"sharegtp\"}}", &w, &e);
		CHECK(k < 0 && strstr(e.msg, "w.json: prompt_tokens: 'dataset' must be one of sharegpt,") &&
		      strstr(e.msg, "got 'sharegtp'"), "an unknown dataset is refused, naming the known: %s", e.msg);
		wl_spec_release(&w);
	}
	{
		/* images: a count uniform over 0..2 (mean 1) and repeat_fraction
		 * 0.25: a quarter of the images (all but the very first may
		 * repeat) are the image sent just before them, the rest new,
		 * numbered in order */
		struct wl_gen *g;
		struct wl_req r;
		int64_t nreq = 0, imgs = 0, rep = 0, prev = -1, bad = 0, k;
		k = parse("{\"arrival\": {\"process\": \"poisson\", \"rate\": 10}, \"num_requests\": 100000, "
			  "\"images\": {\"count\": {\"dist\": \"uniform\", \"min\": 0, \"max\": 2}, "
			  "\"resolution\": [640, 480], \"repeat_fraction\": 0.25}}", &w, &e);
		if (k == 0 && wl_gen_new(&w, &g, &e) == 0) {
			while (wl_gen_next(g, 0, &r, &e) > 0) {
				for (int32_t j = 0; j < r.images; j++) {
					int64_t id = wl_image_id(r.image_id, r.image_new, j);
					bool is_new = (r.image_new >> j) & 1;
					bad += is_new ? id != prev + 1 : id != prev;
					rep += !is_new;
					prev = id;
				}
				imgs += r.images;
				nreq++;
			}
			wl_gen_free(g);
		}
		CHECK(k == 0 && nreq == 100000 && w.images.width == 640 && w.images.height == 480 && bad == 0 &&
			      fabs((double)imgs / (double)nreq - 1.0) < 0.01 && fabs((double)rep / (double)imgs - 0.25) < 0.005,
		      "images: %.4f per request (hand: 1), %.4f of them repeats (hand: 0.25), numbered in order",
		      (double)imgs / (double)(nreq ? nreq : 1), (double)rep / (double)(imgs ? imgs : 1));
		wl_spec_release(&w);
	}
	{
		/* LoRA adapters: zipf:1.1 over 16 gives adapter k a share of
		 * k^-1.1 / sum_{j<=16} j^-1.1: 0.3301 for the first, 0.1540 for
		 * the second; uniform 1/16 each */
		struct wl_gen *g;
		struct wl_req r;
		int64_t cnt[18] = {0}, nd = 0, k;
		bool in = true;
		k = parse("{\"arrival\": {\"process\": \"poisson\", \"rate\": 10}, \"num_requests\": 200000, "
			  "\"lora\": {\"adapters\": 16, \"distribution\": \"zipf:1.1\"}}", &w, &e);
		if (k == 0 && wl_gen_new(&w, &g, &e) == 0) {
			while (wl_gen_next(g, 0, &r, &e) > 0) {
				in &= r.lora >= 1 && r.lora <= 16;
				cnt[r.lora >= 0 && r.lora <= 17 ? r.lora : 17]++;
				nd++;
			}
			wl_gen_free(g);
		}
		CHECK(nd == 200000 && in && fabs((double)cnt[1] / 200000 - 0.3301) < 0.005 &&
			      fabs((double)cnt[2] / 200000 - 0.1540) < 0.004,
		      "lora zipf:1.1 over 16 adapters: shares %.4f, %.4f (hand: 0.3301, 0.1540)", (double)cnt[1] / 200000,
		      (double)cnt[2] / 200000);
		wl_spec_release(&w);
		memset(cnt, 0, sizeof(cnt));
		nd = 0;
		k = parse("{\"arrival\": {\"process\": \"poisson\", \"rate\": 10}, \"num_requests\": 200000, "
			  "\"lora\": {\"adapters\": 16}}", &w, &e);
		if (k == 0 && wl_gen_new(&w, &g, &e) == 0) {
			while (wl_gen_next(g, 0, &r, &e) > 0) {
				cnt[r.lora >= 0 && r.lora <= 17 ? r.lora : 17]++;
				nd++;
			}
			wl_gen_free(g);
		}
		CHECK(nd == 200000 && cnt[0] == 0 && cnt[17] == 0 && fabs((double)cnt[1] / 200000 - 0.0625) < 0.002 &&
			      fabs((double)cnt[16] / 200000 - 0.0625) < 0.002,
		      "lora uniform over 16 adapters: shares %.4f, %.4f (hand: 0.0625)", (double)cnt[1] / 200000,
		      (double)cnt[16] / 200000);
		wl_spec_release(&w);
		k = parse("{\"arrival\": {\"process\": \"poisson\", \"rate\": 10}, \"num_requests\": 5, "
			  "\"lora\": {\"adapters\": 4, \"distribution\": \"zipf:0\"}}", &w, &e);
		CHECK(k < 0 && strstr(e.msg, "w.json: lora: 'distribution' must be uniform or zipf:S with S in (0, 100], got 'zipf:0'"),
		      "a zipf exponent of 0 is refused: %s", e.msg);
		wl_spec_release(&w);
	}
	/* rate curve: a constant process on a ramp from 0 to 2 req/s over 10 s
	 * has integral t^2/10, so arrival k comes at sqrt(10 k) s while k < 10 */
	wl_spec_defaults(&w);
	w.process = WL_CONSTANT;
	w.num_requests = 0;
	w.ncurve = 2;
	w.curve_t[0] = 0;
	w.curve_rate[0] = 0;
	w.curve_t[1] = 10;
	w.curve_rate[1] = 2;
	CHECK(wl_spec_validate(&w, "w", &e) == 0, "rate curve alone is a valid spec (%s)", e.msg);
	n = drain(&w, t, 40000, &last);
	CHECK(n == 10 && t[0] == 0 && llabs(t[1] - 3162277660LL) <= 1 && llabs(t[4] - 6324555320LL) <= 1 && llabs(t[9] - 9486832981LL) <= 1,
	      "curve, constant: %lld arrivals at sqrt(10 k) s (t4 %lld ns, t9 %lld ns)", (long long)n, (long long)t[4],
	      (long long)t[9]);
	CHECK_REL(wl_spec_expected_requests(&w), 10, 1e-12, "curve: expected requests = its integral");
	/* poisson on a triangle 0 -> 20 -> 0 req/s over 200 s: 2000 expected,
	 * 250 of them in [0, 50] s (integral of 0.2 t) */
	fixture_curve(&w, 3, (const double[]){0, 100, 200}, (const double[]){0, 20, 0});
	n = drain(&w, t, 40000, &last);
	{
		int64_t early = 0;
		mono = 1;
		for (i = 0; i < n; i++) {
			early += t[i] < 50000000000LL;
			mono &= i == 0 || t[i] >= t[i - 1];
		}
		CHECK(n > 2000 - 180 && n < 2000 + 180 && early > 250 - 64 && early < 250 + 64 && mono &&
			      t[n - 1] < 200000000000LL,
		      "curve, poisson: %lld arrivals (2000 +- 4 sd), %lld in the first 50 s (250 +- 4 sd), in order, "
		      "within 200 s", (long long)n, (long long)early);
	}
	CHECK(parse("{\"arrival\": {\"process\": \"poisson\"}, \"rate_curve\": [[0, 1], [60, 3]]}", &w, &e) == 0 &&
		      w.ncurve == 2 && w.curve_rate[1] == 3,
	      "rate_curve parses (%s)", e.msg);
	CHECK(parse("{\"arrival\": {\"process\": \"poisson\"}, \"rate_curve\": [[5, 1], [60, 3]]}", &w, &e) < 0 &&
		      strstr(e.msg, "the first at t_s 0"),
	      "rate_curve must start at 0: %s", e.msg);
	CHECK(parse("{\"arrival\": {\"process\": \"poisson\"}, \"rate_curve\": [[0, 1], [60, 3], [60, 2]]}", &w, &e) < 0 &&
		      strstr(e.msg, "rate_curve[2]: t_s must be above"),
	      "rate_curve times must increase: %s", e.msg);
	CHECK(parse("{\"arrival\": {\"process\": \"poisson\"}, \"stages\": [{\"rate\": 1, \"duration_s\": 5}], "
		    "\"rate_curve\": [[0, 1], [60, 3]]}", &w, &e) < 0 && strstr(e.msg, "exclude each other"),
	      "rate_curve and stages exclude each other: %s", e.msg);
	CHECK(parse("{\"arrival\": {\"process\": \"poisson\"}, \"rate_curve\": [[0, 0], [60, 0]]}", &w, &e) < 0 &&
		      strstr(e.msg, "0 everywhere"),
	      "rate_curve of zeros is refused: %s", e.msg);
	test_draws();
	return check_done();
}
