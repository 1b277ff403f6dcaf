/* test_capacity.c - SLO parsing, goodput counting, the capacity search
 * against a brute-force rate grid, the seed band and the unmet case. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fixture.h"
#include "engine/registry.h"
#include "plan/capacity.h"
#include "plan/search.h"
#include "hw/gpu.h"
#include "model/model.h"
#include "workload/workload.h"

static struct model_registry reg;
static struct gpu_db db;
static char datadir[1024];

static void test_parse(void)
{
	static const struct {
		const char *arg, *msg;
	} bad[] = {
		{"foo_p90_ms=5", "unknown metric 'foo'"},
		{"ttft_p42_ms=5", "unknown statistic 'p42'"},
		{"ttft_p90=5", "must end in _ms"},
		{"ttft_p90_ms", "must be METRIC_STAT_ms=LIMIT"},
		{"ttft_p90_ms=-3", "must be a number of ms > 0, got '-3'"},
		{"ttft_p90_ms=5x", "got '5x'"},
		{"ttft_p90_ms=5,ttft_p90_ms=6", "ttft_p90_ms given twice"},
		{"", "empty list"},
	};
	struct cap_cfg c;
	struct err e;
	char n[32];
	size_t i;

	cap_cfg_defaults(&c);
	CHECK(cap_slo_parse("ttft_p90_ms=500,itl_mean_ms=30,e2e_p99_ms=12.5", &c, &e) == 0 &&
		      c.nslo == 3, "three SLOs parse");
	CHECK(c.slo[0].metric == CAP_TTFT && c.slo[0].stat == CAP_P90 && c.slo[0].limit_ms == 500,
	      "ttft_p90_ms=500");
	CHECK(c.slo[2].metric == CAP_E2E && c.slo[2].stat == CAP_P99 && c.slo[2].limit_ms == 12.5,
	      "e2e_p99_ms=12.5");
	cap_slo_name(&c.slo[1], n, sizeof(n));
	CHECK(strcmp(n, "itl_mean_ms") == 0, "name round-trips: %s", n);
	cap_cfg_defaults(&c);
	CHECK(cap_slo_parse("itl_pooled_p99_ms=40,itl_p90_ms=30", &c, &e) == 0 && c.nslo == 2 &&
		      c.slo[0].metric == CAP_ITL_POOLED && c.slo[0].stat == CAP_P99 &&
		      c.slo[1].metric == CAP_ITL && c.slo[1].stat == CAP_P90,
	      "itl_pooled_p99_ms and itl_p90_ms parse as two metrics");
	cap_slo_name(&c.slo[0], n, sizeof(n));
	CHECK(strcmp(n, "itl_pooled_p99_ms") == 0, "pooled name round-trips: %s", n);
	cap_cfg_defaults(&c);
	err_clear(&e);
	CHECK(cap_slo_parse("itl_pooled_ms=40", &c, &e) == -SS_EUSAGE, "itl_pooled without a statistic refused");
	CHECK_STR_CONTAINS(e.msg, "unknown statistic 'pooled'", "itl_pooled_ms");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cap_cfg_defaults(&c);
		err_clear(&e);
		CHECK(cap_slo_parse(bad[i].arg, &c, &e) == -SS_EUSAGE, "'%s' refused", bad[i].arg);
		CHECK_STR_CONTAINS(e.msg, bad[i].msg, bad[i].arg);
	}
}

/* Llama-3.1-8B on one H100, chat lengths, 300 requests: a run takes a few
 * ms, so the brute-force grid stays cheap. */
static int setup(struct model_cfg *m, struct wl_spec *wl, struct scenario *sc,
		 struct scenario_state *st)
{
	const struct gpu_spec *g;
	struct err e;

	if (registry_load_model(&reg, "llama-3.1-8b", m, &e) < 0 || gpu_find(&db, "h100", &g, &e) < 0) {
		printf("# %s\n", e.msg);
		return -1;
	}
	wl_spec_defaults(wl);
	snprintf(wl->source, sizeof(wl->source), "test");
	wl->seed = 7;
	wl->process = WL_POISSON;
	wl->rate = 1;
	wl->num_requests = 300;
	wl->prompt = (struct wl_dist){.kind = WL_LOGNORMAL, .a = 600, .b = 300, .min = 16, .max = 4096};
	wl->output = (struct wl_dist){.kind = WL_LOGNORMAL, .a = 250, .b = 120, .min = 8, .max = 1024};
	scenario_defaults(sc, engine_default(), m, g, wl);
	if (scenario_prepare(sc, datadir, st, &e) < 0) {
		printf("# %s\n", e.msg);
		return -1;
	}
	return 0;
}

/* The default search configuration under the SLOs of `slo` (a check). */
static void slo_cfg(struct cap_cfg *c, const char *slo)
{
	struct err e;

	cap_cfg_defaults(c);
	CHECK(cap_slo_parse(slo, c, &e) == 0, "slo");
}

static void test_goodput(const struct scenario_state *st, const struct wl_spec *wl)
{
	struct cap_cfg c;
	struct cap_point p, q;
	struct sim *s;
	struct err e;
	struct wl_spec w = *wl;
	double *ttft, *e2e;
	size_t i, n = (size_t)wl->num_requests, good = 0;

	/* limits between the rounded per-request values (4 decimals) */
	slo_cfg(&c, "ttft_p50_ms=60.00005,e2e_p90_ms=3000.00005");
	CHECK(cap_probe(st, wl, &c, 20, 7, &p, &e) == 0, "probe at 20 req/s");
	/* count by hand from the simulator's own per-request values */
	w.rate = 20;
	ttft = calloc(n, sizeof(*ttft));
	e2e = calloc(n, sizeof(*e2e));
	CHECK(sim_new(&st->sc, &st->cost, &w, &s, &e) == 0 && sim_run(s, &e) == 0, "reference run");
	sim_per_request(s, ttft, e2e, n);
	for (i = 0; i < n; i++)
		good += !isnan(ttft[i]) && ttft[i] <= 60.00005 && e2e[i] <= 3000.00005;
	sim_free(s);
	free(ttft);
	free(e2e);
	CHECK(p.arrived == n, "arrived %zu", p.arrived);
	CHECK(good > 0 && good < n, "the limits split the requests (%zu good)", good);
	CHECK(fabs(p.goodput - (double)good / (double)n) < 1e-12, "goodput %.6f = %zu/%zu", p.goodput,
	      good, n);
	/* a goodput floor above the measured share fails the point */
	c.goodput_min = p.goodput + 0.01;
	CHECK(cap_probe(st, wl, &c, 20, 7, &q, &e) == 0, "probe with a goodput floor");
	CHECK(q.goodput == p.goodput && !q.pass && q.fail >= 0,
	      "goodput floor %.4f above %.4f fails (fail code %d)", c.goodput_min, q.goodput, q.fail);
}

/* The search against every rate of a 0.25 req/s grid (same seed).  The SLO
 * binds at ~14 req/s, well below saturation (~33): near the knee a
 * 300-request run's pass/fail is not monotone in the rate, and no search
 * that probes fewer points than the grid can promise the grid's answer. */
static void test_grid(const struct scenario_state *st, const struct wl_spec *wl)
{
	struct cap_cfg c;
	struct cap_result r;
	struct cap_point p;
	struct err e;
	double x, last_pass = 0, first_fail = NAN;

	slo_cfg(&c, "ttft_p90_ms=80,itl_mean_ms=9");
	c.seed = 7;
	CHECK(cap_search(st, wl, &c, &r, &e) == 0, "search");
	for (x = 0.25; x <= 60; x += 0.25) {
		if (cap_probe(st, wl, &c, x, 7, &p, &e) < 0)
			break;
		if (!p.pass) {
			first_fail = x;
			break;
		}
		last_pass = x;
	}
	CHECK(r.found && !isnan(first_fail), "search found %.4f, grid: last pass %.2f, first fail %.2f",
	      r.max_rate, last_pass, first_fail);
	/* the answer lies in the grid's bracket, within the 1 % bisection */
	CHECK(r.max_rate >= last_pass * (1 - c.rel_tol) && r.max_rate <= first_fail,
	      "search %.4f in [%.2f - 1 %%, %.2f]", r.max_rate, last_pass, first_fail);
	CHECK(r.binding >= 0, "binding metric named (%d)", r.binding);
	CHECK(!isnan(r.saturation_rate) && r.saturation_rate >= r.max_rate,
	      "saturation %.3f at or above the capacity", r.saturation_rate);
	/* the onset is at or below every rate above the capacity that a probe
	 * already found saturated */
	for (size_t i = 0; i < r.ncurve; i++) {
		const struct cap_point *q = &r.curve[i];
		if (q->seed == c.seed && !q->cut && q->saturated && q->offered > r.max_rate)
			CHECK(r.saturation_rate <= q->offered, "saturation %.4f at or below the saturated probe %.4f",
			      r.saturation_rate, q->offered);
	}
	cap_result_release(&r);
}

/* Saturation binding (SLOs too loose to bind): the saturation rate reported
 * is at or below every rate above the capacity that a probe of the search
 * already found saturated (it was a doubled-rate bisection that could land
 * above one), and no rate is probed twice over for it. */
static void test_saturation_bracket(const struct scenario_state *st, const struct wl_spec *wl)
{
	struct cap_cfg c;
	struct cap_result r;
	struct err e;
	struct wl_spec w = *wl;
	int seen = 0;

	w.num_requests = 800; /* long enough to judge a probe at ~35 req/s */
	slo_cfg(&c, "ttft_p90_ms=1000000,itl_mean_ms=100000");
	for (uint64_t seed = 1; seed <= 4; seed++) {
		c.seed = seed;
		if (cap_search(st, &w, &c, &r, &e) < 0) {
			CHECK(0, "search seed %llu: %s", (unsigned long long)seed, e.msg);
			continue;
		}
		for (size_t i = 0; i < r.ncurve; i++) {
			const struct cap_point *q = &r.curve[i];
			if (q->seed == seed && !q->cut && q->saturated && q->offered > r.max_rate) {
				seen++;
				CHECK(r.saturation_rate <= q->offered,
				      "seed %llu: saturation %.4f at or below the saturated probe %.4f",
				      (unsigned long long)seed, r.saturation_rate, q->offered);
			}
		}
		cap_result_release(&r);
	}
	CHECK(seen > 0, "saturated probes above the capacity (%d)", seen);
}

/* The pooled ITL as an SLO: a whole-run percentile of every chunk gap, so it
 * binds a probe but leaves the per-request goodput alone. */
static void test_pooled_slo(const struct scenario_state *st, const struct wl_spec *wl)
{
	struct cap_cfg c;
	struct cap_point p;
	struct err e;

	slo_cfg(&c, "itl_pooled_p99_ms=1000");
	CHECK(cap_probe(st, wl, &c, 1, 7, &p, &e) == 0, "probe: %s", e.msg);
	CHECK(isfinite(p.value[0]) && p.value[0] > 0 && p.value[0] < 1000 && p.pass,
	      "pooled ITL p99 %.3f ms within 1000 ms: pass", p.value[0]);
	CHECK(p.goodput == 1, "goodput %.3f: every request good", p.goodput);
	slo_cfg(&c, "itl_pooled_p99_ms=0.001");
	CHECK(cap_probe(st, wl, &c, 1, 7, &p, &e) == 0, "probe: %s", e.msg);
	CHECK(!p.pass && p.fail == 0, "pooled ITL p99 %.3f ms above 0.001 ms binds (fail %d)", p.value[0],
	      p.fail);
	CHECK(p.goodput == 1, "goodput %.3f: the pooled SLO is not judged per request", p.goodput);
}

static void test_band(const struct scenario_state *st, const struct wl_spec *wl)
{
	struct cap_cfg c, one;
	struct cap_result r, s;
	struct err e;
	double lo = INFINITY, hi = -INFINITY;
	int k;

	slo_cfg(&c, "ttft_p90_ms=80,itl_mean_ms=9");
	c.seed = 7;
	c.nseeds = 3;
	CHECK(cap_search(st, wl, &c, &r, &e) == 0 && r.found, "search over 3 seeds");
	for (k = 0; k < 3; k++) {
		lo = fmin(lo, r.per_seed[k]);
		hi = fmax(hi, r.per_seed[k]);
		one = c;
		one.nseeds = 1;
		one.seed = 7 + (uint64_t)k;
		if (cap_search(st, wl, &one, &s, &e) == 0) {
			CHECK(fabs(s.max_rate - r.per_seed[k]) <= 0.02 * s.max_rate,
			      "seed %d: band member %.4f = its own search %.4f (2 %%)", 7 + k, r.per_seed[k],
			      s.max_rate);
			cap_result_release(&s);
		}
	}
	CHECK(r.band_lo == lo && r.band_hi == hi, "band [%.4f, %.4f]", r.band_lo, r.band_hi);
	CHECK(r.max_rate >= lo && r.max_rate <= hi, "median %.4f inside the band", r.max_rate);
	cap_result_release(&r);
}

static void test_unmet(const struct scenario_state *st, const struct wl_spec *wl)
{
	struct cap_cfg c;
	struct cap_result r;
	struct err e;

	slo_cfg(&c, "ttft_p90_ms=1");
	CHECK(cap_search(st, wl, &c, &r, &e) == 0, "an unmet SLO is not an error");
	CHECK(!r.found && isnan(r.max_rate) && r.binding == 0, "max_rate NAN, binding ttft_p90_ms");
	CHECK_STR_CONTAINS(r.reason, "ttft_p90_ms unmet even at the lowest probed rate", "reason");
	cap_result_release(&r);
}

static bool same_num(double a, double b)
{
	return a == b || (isnan(a) && isnan(b));
}

/* cap_cfg.early_stop: failing probes cut short, the same decisions and
 * answer as the whole runs (every probe's pass, the bracket's binding, the
 * saturation rate), for percentile, mean and goodput SLOs and several
 * seeds; some probe is cut, so the test would see a cut that decided
 * wrongly. */
static void test_early_stop(const struct scenario_state *st, const struct wl_spec *wl)
{
	static const char *const slos[] = {"ttft_p90_ms=80,itl_mean_ms=9", "e2e_p99_ms=9000",
					   "itl_p50_ms=8,tpot_mean_ms=10", "ttft_p95_ms=60"};
	size_t k, i, j, ncut = 0;
	struct err e;

	for (k = 0; k < sizeof(slos) / sizeof(slos[0]) + 1; k++) {
		struct cap_cfg c, ce;
		struct cap_result r, q;
		bool same = true;
		cap_cfg_defaults(&c);
		c.seed = 7;
		c.nseeds = k == 0 ? 2 : 1;
		c.allow_short = true;
		if (k == sizeof(slos) / sizeof(slos[0])) {
			CHECK(cap_slo_parse("ttft_p99_ms=100000", &c, &e) == 0, "slo");
			c.goodput_min = 0.97;
			CHECK(cap_slo_parse("ttft_p50_ms=200", &c, &e) == 0, "slo");
		} else {
			CHECK(cap_slo_parse(slos[k], &c, &e) == 0, "slo %s", slos[k]);
		}
		ce = c;
		ce.early_stop = true;
		if (cap_search(st, wl, &c, &r, &e) < 0 || cap_search(st, wl, &ce, &q, &e) < 0) {
			CHECK(0, "searches: %s", e.msg);
			continue;
		}
		CHECK(r.found == q.found && same_num(r.max_rate, q.max_rate) && r.binding == q.binding &&
			      same_num(r.band_lo, q.band_lo) && same_num(r.band_hi, q.band_hi) &&
			      same_num(r.saturation_rate, q.saturation_rate) && strcmp(r.reason, q.reason) == 0,
		      "case %zu: early stop %.4f binding %d saturation %.4f = whole runs %.4f, %d, %.4f", k,
		      q.max_rate, q.binding, q.saturation_rate, r.max_rate, r.binding, r.saturation_rate);
		CHECK(r.ncurve == q.ncurve && q.nsim >= q.ncurve, "case %zu: the same %zu probes (%zu)", k,
		      r.ncurve, q.ncurve);
		for (i = 0; i < q.ncurve; i++) {
			const struct cap_point *a = &q.curve[i], *b = NULL;
			for (j = 0; j < r.ncurve; j++)
				if (r.curve[j].seed == a->seed && r.curve[j].offered == a->offered)
					b = &r.curve[j];
			if (!b || a->pass != b->pass || (a->cut && b->pass))
				same = false;
			ncut += a->cut;
		}
		CHECK(same, "case %zu: every probe decided as its whole run", k);
		cap_result_release(&r);
		cap_result_release(&q);
	}
	CHECK(ncut > 0, "some probes cut short (%zu)", ncut);
}

/* search_capacity's coarse pass starts at 8 x the start: the same
 * answer, binding and operating point as the passes search ran before
 * (coarse from 1 req/s on a quarter of the requests, then the fine pass
 * from its answer, stepping by SEARCH_FINE_FACTOR), with fewer simulations
 * (those at 1, 2 and 4 req/s). */
static void test_search_passes(const struct scenario_state *st, const struct wl_spec *wl)
{
	struct cap_cfg c, coarse, fine;
	struct cap_result r0, r1, r;
	struct wl_spec w = *wl, wc;
	const struct cap_point *a, *b;
	size_t probes = 0;
	struct err e;

	slo_cfg(&c, "ttft_p90_ms=500,itl_mean_ms=30");
	c.seed = 7;
	w.num_requests = 1000;
	wc = w;
	wc.num_requests = 250;
	coarse = c;
	coarse.rel_tol = SEARCH_COARSE_TOL;
	coarse.allow_short = true;
	coarse.no_saturation = true;
	coarse.early_stop = true;
	if (cap_search(st, &wc, &coarse, &r0, &e) < 0) {
		CHECK(0, "coarse pass from 1 req/s: %s", e.msg);
		return;
	}
	fine = c;
	fine.early_stop = true;
	fine.no_saturation = true;
	fine.energy = true;
	fine.start = r0.max_rate;
	fine.factor = SEARCH_FINE_FACTOR;
	CHECK(r0.found && r0.max_rate > 8, "the coarse answer %.4g req/s lies above 8 req/s", r0.max_rate);
	if (cap_search(st, &w, &fine, &r1, &e) < 0 || search_capacity(st, &w, &c, false, &r, &probes, &e) < 0) {
		CHECK(0, "searches: %s", e.msg);
		cap_result_release(&r0);
		return;
	}
	a = cap_answer_point(&c, &r1);
	b = cap_answer_point(&c, &r);
	CHECK(r.found && r.max_rate == r1.max_rate && r.binding == r1.binding && a && b &&
		      a->ttft_p90_ms == b->ttft_p90_ms && a->itl_mean_ms == b->itl_mean_ms,
	      "the same answer %.4g req/s (binding %d) as from 1 req/s: %.4g (%d)", r.max_rate, r.binding,
	      r1.max_rate, r1.binding);
	CHECK(probes + 3 <= r0.nsim + r1.nsim, "%zu simulations, 3 fewer than %zu + %zu", probes, r0.nsim, r1.nsim);
	cap_result_release(&r0);
	cap_result_release(&r1);
	cap_result_release(&r);
}

int main(void)
{
	struct model_cfg m;
	struct wl_spec wl;
	struct scenario sc;
	struct scenario_state st;

	if (fixture_load(datadir, sizeof(datadir), &reg, &db) < 0)
		return 1;
	test_parse();
	if (setup(&m, &wl, &sc, &st) == 0) {
		test_goodput(&st, &wl);
		test_grid(&st, &wl);
		test_saturation_bracket(&st, &wl);
		test_band(&st, &wl);
		test_pooled_slo(&st, &wl);
		test_unmet(&st, &wl);
		test_early_stop(&st, &wl);
		test_search_passes(&st, &wl);
		scenario_release(&st);
	} else {
		CHECK(0, "scenario set-up");
	}
	registry_release(&reg);
	gpu_db_release(&db);
	return check_done();
}
