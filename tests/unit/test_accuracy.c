/* test_accuracy.c - accuracy classes and bands (eval/accuracy.h): model
 * kinds of registry models, the load thresholds, class names, bands against
 * hand-computed percentiles, the fall-back to a coarser class, no evidence
 * without rows, the split check, the file written and read back, bad files
 * refused, and the shipped data/accuracy.json: its format, a band or null
 * for every metric of every class, and the split coverage near 90 %. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fixture.h"
#include "engine/registry.h"
#include "eval/accuracy.h"

static struct model_registry reg;
static struct gpu_db db;
static char datadir[1024];

static void test_kinds(void)
{
	static const struct {
		const char *model;
		enum acc_kind kind;
	} want[] = {
		{"llama-3.1-8b", ACC_DENSE}, {"qwen3-30b-a3b", ACC_MOE}, {"deepseek-v3", ACC_MLA},
		{"deepseek-v3.2", ACC_DSA}, {"deepseek-v4-flash", ACC_DSA}, {"qwen3-next-80b-a3b", ACC_HYBRID},
	};
	struct model_cfg *m = calloc(1, sizeof(*m));
	struct err e;
	size_t i;

	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		int rc = registry_load_model(&reg, want[i].model, m, &e);
		CHECK(rc == 0 && acc_model_kind(m) == want[i].kind, "%s is %s (got %s)", want[i].model,
		      acc_kind_name(want[i].kind), rc == 0 ? acc_kind_name(acc_model_kind(m)) : e.msg);
	}
	free(m);
}

static void test_load(void)
{
	CHECK(acc_load_of(5.9, 0.01, false) == ACC_LIGHT, "5.9 running per rank, 1 %% queueing: light");
	CHECK(acc_load_of(6.0, 0.01, false) == ACC_LOADED, "6 running per rank: loaded");
	CHECK(acc_load_of(2.385, 0.2, false) == ACC_SATURATED, "a fifth of the time queued: saturated");
	CHECK(acc_load_of(2.385, 0.0, true) == ACC_SATURATED, "overloaded: saturated");
	CHECK(acc_load_of(NAN, NAN, false) == ACC_LOADED, "no completions, not overloaded: loaded");
}

static struct acc_resid row(const char *engine, enum acc_kind k, const char *fam, enum acc_load l, double ttft,
			    double itl, int half)
{
	struct acc_resid r;
	struct err e;

	memset(&r, 0, sizeof(r));
	if (acc_class_parse(engine, acc_kind_name(k), fam, acc_load_name(l), "test", &r.cls, &e) < 0)
		printf("# %s\n", e.msg);
	r.err[ACC_TTFT] = ttft;
	r.err[ACC_ITL] = itl;
	r.err[ACC_E2E] = NAN;
	r.err[ACC_THROUGHPUT] = NAN;
	r.half = half;
	return r;
}

/* 12 vllm/dense/hopper/loaded rows with TTFT errors 0.0125 x (1..12) and
 * 3 vllm/dense/hopper/light rows, 1 vllm/moe/hopper/light row. */
static size_t sample(struct acc_resid *r)
{
	size_t n = 0;
	int i;

	for (i = 1; i <= 12; i++)
		r[n++] = row("vllm", ACC_DENSE, "hopper", ACC_LOADED, 0.0125 * i, 0.05 + 0.001 * i, i % 2);
	r[n++] = row("vllm", ACC_DENSE, "hopper", ACC_LIGHT, 0.9, 0.2385, 0);
	r[n++] = row("vllm", ACC_DENSE, "hopper", ACC_LIGHT, 0.7, NAN, 1);
	r[n++] = row("vllm", ACC_DENSE, "hopper", ACC_LIGHT, 0.8, NAN, 0);
	r[n++] = row("vllm", ACC_MOE, "hopper", ACC_LIGHT, 0.31, 0.041, 1);
	return n;
}

static void test_bands(void)
{
	struct acc_resid r[32];
	struct acc_table t;
	struct acc_answer a;
	struct acc_class c;
	struct err e;
	size_t n = sample(r);

	acc_build(r, n, 10, &t);
	/* loaded: TTFT 0.0125 .. 0.15; p50 at position 5.5 = (0.075 + 0.0875)/2,
	 * p90 at 9.9 = 0.125 + 0.9 x 0.0125 */
	acc_class_parse("vllm", "dense", "hopper", "loaded", "test", &c, &e);
	acc_lookup(&t, &c, ACC_TTFT, &a);
	CHECK(a.evidence && a.rows == 12 && strcmp(a.cls, "vllm/dense/hopper/loaded") == 0,
	      "loaded: its own band (12 rows, %s)", a.cls);
	CHECK_REL(a.p50, 0.08125, 1e-12, "loaded TTFT p50");
	CHECK_REL(a.p90, 0.13625, 1e-12, "loaded TTFT p90");
	/* light: 3 TTFT rows < 10: falls back to the class of any load (15
	 * rows: the 12 above and 0.7, 0.8, 0.9) */
	acc_class_parse("vllm", "dense", "hopper", "light", "test", &c, &e);
	acc_lookup(&t, &c, ACC_TTFT, &a);
	CHECK(a.evidence && a.rows == 15 && a.own_rows == 3 && strcmp(a.cls, "vllm/dense/hopper/*") == 0 &&
		      strcmp(a.asked, "vllm/dense/hopper/light") == 0,
	      "light, 3 rows: the coarser class named (%s, %zu rows)", a.cls, a.rows);
	CHECK_REL(a.p90, 0.7 + 0.6 * (0.8 - 0.7), 1e-12, "fallback p90: position 12.6 of 15 sorted");
	/* light ITL: one row (0.2385); the coarser classes have 13 and 14 */
	acc_lookup(&t, &c, ACC_ITL, &a);
	CHECK(a.evidence && a.rows == 13 && a.own_rows == 1, "light ITL: 1 row, falls back to 13");
	/* a class without rows: no evidence, whatever its neighbours hold */
	acc_class_parse("vllm", "dense", "hopper", "saturated", "test", &c, &e);
	acc_lookup(&t, &c, ACC_TTFT, &a);
	CHECK(!a.evidence && isnan(a.p90) && a.rows == 0, "saturated: no rows, no evidence");
	acc_class_parse("sglang", "dense", "hopper", "loaded", "test", &c, &e);
	acc_lookup(&t, &c, ACC_TTFT, &a);
	CHECK(!a.evidence, "another engine: no evidence");
	acc_class_parse("vllm", "dense", "hopper", "loaded", "test", &c, &e);
	acc_lookup(&t, &c, ACC_E2E, &a);
	CHECK(!a.evidence, "a metric the class has no rows of: no evidence");
	/* one moe row: fewer than 10 up to the engine's class (16 rows) */
	acc_class_parse("vllm", "moe", "hopper", "light", "test", &c, &e);
	acc_lookup(&t, &c, ACC_TTFT, &a);
	CHECK(a.evidence && a.rows == 16 && strcmp(a.cls, "vllm/*/*/*") == 0, "moe, 1 row: the engine's band (%s)",
	      a.cls);
	acc_table_release(&t);
	CHECK(acc_class_parse("vllm", "sparse", "hopper", "loaded", "x", &c, &e) == -SS_EDATA &&
		      strstr(e.msg, "model_kind"),
	      "unknown model kind refused: %s", e.msg);
	CHECK(acc_class_parse("vllm", "dense", "hopper", "busy", "x", &c, &e) == -SS_EDATA, "unknown load refused");
}

static void test_coverage(void)
{
	struct acc_resid r[64];
	struct acc_table t;
	size_t n = 0;
	int i;

	/* one class, 40 rows: errors 0.01 .. 0.40 alternating halves; half 0
	 * holds the odd hundredths (0.01, 0.03 .. 0.39: p90 at position 17.1
	 * = 0.352), half 1 the even ones (0.02 .. 0.40: p90 0.362).  Half 1's
	 * rows within 0.352: 0.02 .. 0.34 (17 of 20); half 0's within 0.362:
	 * 0.01 .. 0.35 (18 of 20): 35 of 40 */
	for (i = 1; i <= 40; i++)
		r[n++] = row("trtllm", ACC_MLA, "blackwell", ACC_LOADED, 0.01 * i, NAN, (i + 1) % 2);
	acc_build(r, n, 10, &t);
	acc_coverage(r, n, 10, &t);
	CHECK(t.coverage_rows[ACC_TTFT] == 40, "coverage: 40 rows checked");
	CHECK_REL(t.coverage[ACC_TTFT], 35.0 / 40.0, 1e-12, "coverage: 35 of 40 within the other half's p90");
	CHECK(isnan(t.coverage[ACC_ITL]) && t.coverage_rows[ACC_ITL] == 0, "coverage without rows: NAN, 0");
	CHECK(t.families == 0, "one model family: no family-out check");
	acc_table_release(&t);

	/* family-out: family "a" (errors 0.01 .. 0.20) and "b" (0.21 .. 0.40)
	 * in one class, "c" alone in another.  Without a, b's p90 is 0.381
	 * and all 20 of a's rows lie within; without b, a's p90 is 0.181 and
	 * none of b's do; c's class has no rows left: not counted.  20 of 40 */
	n = 0;
	for (i = 1; i <= 40; i++) {
		r[n] = row("vllm", ACC_DENSE, "hopper", ACC_LOADED, 0.01 * i, NAN, i % 2);
		snprintf(r[n++].family, sizeof(r[0].family), "%s", i <= 20 ? "a" : "b");
	}
	for (i = 0; i < 12; i++) {
		r[n] = row("sglang", ACC_MOE, "blackwell", ACC_LIGHT, 5.0, NAN, i % 2);
		snprintf(r[n++].family, sizeof(r[0].family), "c");
	}
	acc_build(r, n, 10, &t);
	acc_coverage(r, n, 10, &t);
	CHECK(t.families == 3, "three families (got %zu)", t.families);
	CHECK(t.family_coverage_rows[ACC_TTFT] == 40, "family-out: 40 rows with evidence (got %zu)",
	      t.family_coverage_rows[ACC_TTFT]);
	CHECK_REL(t.family_coverage[ACC_TTFT], 0.5, 1e-12, "family-out: 20 of 40 within the other families' p90");
	/* the widening: a's ratios over b's bands (p50 0.305, p90 0.381) are
	 * at most 0.20 / 0.305 and 0.20 / 0.381; b's over a's (0.105, 0.181)
	 * 0.21 / 0.105 .. 0.40 / 0.105 and 0.21 / 0.181 .. 0.40 / 0.181.
	 * Pooled (40): the median ratio is a's largest p50 ratio (< 1: factor
	 * 1), the 36th smallest p90 ratio b's 16th, 0.36 / 0.181.  Each family
	 * against the other's factor: b's ratios give a 0.38 / 0.181 (all 20
	 * within), a's give b 1 (none of 20): 20 of 40 */
	CHECK(t.nfam == 3 && !strcmp(t.fam[0], "a") && !strcmp(t.fam[2], "c") && t.fam_rows[1] == 20 &&
		      t.fam_rows[2] == 12,
	      "families listed in first-seen order with their rows");
	CHECK_REL(t.widen[ACC_TTFT][0], 1.0, 1e-12, "p50 factor never below 1");
	CHECK_REL(t.widen[ACC_TTFT][1], 0.36 / 0.181, 1e-9, "p90 factor: the pooled ratios' 0.9 quantile");
	CHECK(t.widened_coverage_rows[ACC_TTFT] == 40, "widened check: 40 rows");
	CHECK_REL(t.widened_coverage[ACC_TTFT], 0.5, 1e-12, "widened check: 20 of 40");
	CHECK(isnan(t.widen[ACC_ITL][1]) && t.widened_coverage_rows[ACC_ITL] == 0, "no ITL rows: no factor");
	{
		struct acc_class c;
		struct acc_answer a, seen;
		struct err e;
		acc_class_parse("vllm", "dense", "hopper", "loaded", "test", &c, &e);
		snprintf(c.model_family, sizeof(c.model_family), "a");
		acc_lookup(&t, &c, ACC_TTFT, &seen);
		snprintf(c.model_family, sizeof(c.model_family), "mistral");
		acc_lookup(&t, &c, ACC_TTFT, &a);
		CHECK(seen.widen50 == 1 && seen.widen90 == 1, "a family with rows: not widened");
		CHECK_REL(a.p90, seen.p90 * 0.36 / 0.181, 1e-9, "an unseen family's p90 widened");
		CHECK(a.p50 == seen.p50 && a.widen50 == 1 && a.widen90 > 1.98, "p50 factor 1 leaves p50 alone");
		c.model_family[0] = '\0';
		acc_lookup(&t, &c, ACC_TTFT, &a);
		CHECK(a.p90 == seen.p90, "no model family known: not widened");
	}
	acc_table_release(&t);
}

static void test_roundtrip(void)
{
	struct acc_resid r[32];
	struct acc_table t, u;
	struct acc_class c;
	struct acc_answer a, b;
	char path[] = "/tmp/servesim-accuracy-XXXXXX";
	struct err e = {.msg = ""};
	size_t n = sample(r);
	int fd = mkstemp(path), k;
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

	if (!f) {
		CHECK(0, "temporary file");
		return;
	}
	acc_build(r, n, 10, &t);
	acc_coverage(r, n, 10, &t);
	snprintf(t.residuals, sizeof(t.residuals), "test rows");
	t.families = 3; /* as the family-out check writes it */
	for (k = 0; k < ACC_METRIC__N; k++) {
		t.family_coverage[k] = k == ACC_THROUGHPUT ? NAN : 0.25 * k;
		t.family_coverage_rows[k] = k == ACC_THROUGHPUT ? 0 : (size_t)(10 + k);
	}
	t.nsource = 1;
	snprintf(t.source[0], sizeof(t.source[0]), "tests");
	t.source_rows[0] = n;
	t.nfam = 2; /* and the widening, as acc_coverage makes it with families */
	snprintf(t.fam[0], sizeof(t.fam[0]), "llama");
	snprintf(t.fam[1], sizeof(t.fam[1]), "qwen3");
	t.fam_rows[0] = 9;
	t.fam_rows[1] = 7;
	t.widen[ACC_TTFT][0] = 1.25;
	t.widen[ACC_TTFT][1] = 1.5;
	t.widened_coverage[ACC_TTFT] = 0.875;
	t.widened_coverage_rows[ACC_TTFT] = 16;
	acc_table_json(f, &t);
	fclose(f);
	CHECK(acc_table_load(path, &u, &e) == 0, "written file reads back (%s)", e.msg);
	CHECK(u.n == t.n && u.min_rows == 10 && u.nrows == n && !u.held_out && strcmp(u.residuals, "test rows") == 0,
	      "header fields read back");
	CHECK(u.families == 3 && u.family_coverage_rows[ACC_E2E] == 12 && u.family_coverage[ACC_E2E] == 0.5 &&
		      isnan(u.family_coverage[ACC_THROUGHPUT]) && u.family_coverage_rows[ACC_THROUGHPUT] == 0,
	      "family-out coverage reads back");
	CHECK(u.nfam == 2 && !strcmp(u.fam[1], "qwen3") && u.fam_rows[0] == 9 && u.widen[ACC_TTFT][0] == 1.25 &&
		      u.widen[ACC_TTFT][1] == 1.5 && u.widened_coverage[ACC_TTFT] == 0.875 &&
		      u.widened_coverage_rows[ACC_TTFT] == 16 && isnan(u.widen[ACC_ITL][1]) &&
		      isnan(u.widened_coverage[ACC_ITL]),
	      "families and the widening read back (null factors as NAN)");
	acc_class_parse("vllm", "dense", "hopper", "light", "test", &c, &e);
	snprintf(c.model_family, sizeof(c.model_family), "gemma"); /* widened the same from either */
	for (k = 0; k < ACC_METRIC__N; k++) {
		acc_lookup(&t, &c, (enum acc_metric)k, &a);
		acc_lookup(&u, &c, (enum acc_metric)k, &b);
		CHECK(a.evidence == b.evidence && a.rows == b.rows && strcmp(a.cls, b.cls) == 0 &&
			      (!a.evidence || (fabs(a.p90 - b.p90) <= 1e-8 * a.p90 && fabs(a.p50 - b.p50) <= 1e-8 * a.p50)),
		      "%s: the same answer from the file", acc_metric_key((enum acc_metric)k));
	}
	acc_table_release(&u);
	acc_table_release(&t);
	remove(path);
}

static void bad_file(const char *text, const char *needle, const char *what)
{
	char path[] = "/tmp/servesim-accuracy-bad-XXXXXX";
	struct acc_table t;
	struct err e;
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

	if (!f) {
		CHECK(0, "temporary file");
		return;
	}
	fputs(text, f);
	fclose(f);
	err_clear(&e);
	CHECK(acc_table_load(path, &t, &e) == -SS_EDATA && strstr(e.msg, needle), "%s refused: %s", what, e.msg);
	remove(path);
}

#define HEAD \
	"{\"what\": \"x\", \"residuals\": \"x\", \"held_out\": false, \"load\": \"x\", \"min_rows\": 10, " \
	"\"rows\": 5, \"sources\": [], \"coverage\": {\"method\": \"x\", " \
	"\"ttft_mean_ms\": {\"within_p90\": 0.9, \"rows\": 5}, \"itl_mean_ms\": {\"within_p90\": null, \"rows\": 0}, " \
	"\"e2e_mean_ms\": {\"within_p90\": null, \"rows\": 0}, \"throughput_rps\": {\"within_p90\": null, \"rows\": 0}}, "
#define BAND "{\"p50_abs_err\": 0.1, \"p90_abs_err\": 0.2, \"rows\": 5}"

static void test_bad_files(void)
{
	bad_file(HEAD "\"classes\": {\"vllm/dense/hopper/loaded\": {\"ttft_mean_ms\": null, \"itl_mean_ms\": null, "
		      "\"e2e_mean_ms\": null, \"throughput_rps\": null}}}",
		 "without rows", "a class without rows");
	bad_file(HEAD "\"classes\": {\"vllm/dense/hopper/loaded\": {\"ttft_mean_ms\": " BAND
		      ", \"itl_mean_ms\": null, \"e2e_mean_ms\": null}}}",
		 "classes.vllm/dense/hopper/loaded.throughput_rps: missing", "a metric left out");
	bad_file(HEAD "\"classes\": {\"vllm/dense/hopper/loaded\": {\"ttft_mean_ms\": "
		      "{\"p50_abs_err\": 0.3, \"p90_abs_err\": 0.2, \"rows\": 5}, \"itl_mean_ms\": null, "
		      "\"e2e_mean_ms\": null, \"throughput_rps\": null}}}",
		 "classes.vllm/dense/hopper/loaded.ttft_mean_ms: expected 0 <= p50_abs_err <= p90_abs_err", "p50 above p90");
	bad_file(HEAD "\"classes\": {\"vllm/dense/hopper/loaded\": {\"ttft_mean_ms\": "
		      "{\"p50_abs_err\": 0.1, \"p90_abs_err\": 0.2, \"rows\": 0}, \"itl_mean_ms\": null, "
		      "\"e2e_mean_ms\": null, \"throughput_rps\": null}}}",
		 "rows", "a band of 0 rows");
	bad_file(HEAD "\"classes\": {\"vllm/dense/hopper/loaded\": {\"ttft_mean_ms\": " BAND
		      ", \"itl_mean_ms\": null, \"e2e_mean_ms\": null, \"throughput_rps\": null}, "
		      "\"sglang/dense/hopper/loaded\": {\"ttft_mean_ms\": " BAND
		      ", \"itl_mean_ms\": null, \"e2e_mean_ms\": null, \"throughput_rps\": null}}}",
		 "sorted", "classes out of order");
	bad_file(HEAD "\"classes\": {}, \"extra\": 1}", "extra", "an unknown key");
	bad_file(HEAD "\"families\": {\"llama\": 0}, \"classes\": {}}", "row count", "a family of 0 rows");
	bad_file(HEAD "\"unseen_family\": {\"method\": \"x\", \"ttft_mean_ms\": {\"p50_factor\": 0.5, "
		      "\"p90_factor\": 1.2, \"within_p90\": 0.9, \"rows\": 3}}, \"classes\": {}}",
		 "p50_factor", "a widening factor below 1");
}

/* The shipped file: it parses (every class has rows for some metric, each
 * metric a band or null), its sources add up, and its bands held on the
 * half of the rows they were not built from (about 90 % within the p90). */
static void test_shipped(void)
{
	struct acc_table t;
	struct err e;
	bool found;
	size_t i, sum = 0, nfull = 0;
	int k;

	if (acc_table_find(datadir, &t, &found, &e) < 0 || !found) {
		CHECK(0, "data/accuracy.json: %s", found ? e.msg : "missing (make accuracy)");
		return;
	}
	CHECK(t.min_rows == ACC_MIN_ROWS, "min_rows %zu as accuracy.h's %d", t.min_rows, ACC_MIN_ROWS);
	for (i = 0; i < t.nsource; i++)
		sum += t.source_rows[i];
	CHECK(t.nsource >= 4 && sum == t.nrows, "%zu sources, %zu rows in all", t.nsource, t.nrows);
	for (i = 0; i < t.n; i++)
		nfull += strchr(t.e[i].cls, '*') == NULL;
	CHECK(nfull >= 20, "%zu classes with ground truth (of %zu entries)", nfull, t.n);
	for (k = 0; k < ACC_METRIC__N; k++) {
		if (t.coverage_rows[k] < 100)
			continue;
		CHECK(t.coverage[k] >= 0.8 && t.coverage[k] <= 0.97,
		      "%s: %.3f of %zu held-out rows within their class's p90 band (about 0.9)",
		      acc_metric_key((enum acc_metric)k), t.coverage[k], t.coverage_rows[k]);
	}
	/* a family without rows: the widened bands hold on the families left
	 * out (factors from the others) about as the class bands do on rows */
	CHECK(t.nfam >= 2, "%zu model families listed", t.nfam);
	for (k = 0; k < ACC_METRIC__N; k++) {
		if (t.widened_coverage_rows[k] < 100)
			continue;
		CHECK(t.widen[k][1] >= 1 && t.widened_coverage[k] >= 0.85 && t.widened_coverage[k] <= 0.97,
		      "%s: x%.3f, %.3f of %zu left-out families' rows within the widened p90 band (about 0.9)",
		      acc_metric_key((enum acc_metric)k), t.widen[k][1], t.widened_coverage[k],
		      t.widened_coverage_rows[k]);
	}
	acc_table_release(&t);
}

/* The load terms of real runs: a closed loop of 4 clients keeps about 4
 * requests running and none waiting (light); 400 requests arriving at
 * once on an engine of max_num_seqs 16 mostly wait (saturated); a
 * Poisson stream the engine keeps up with runs many at once (loaded). */
static void load_run(const char *what, enum wl_process proc, double rate, int64_t conc, int64_t n, int64_t mns,
		     double run_lo, double run_hi, double q_lo, double q_hi, enum acc_load want)
{
	const struct gpu_spec *g;
	struct model_cfg *m = calloc(1, sizeof(*m));
	struct wl_spec wl;
	struct scenario sc;
	struct scenario_state st;
	struct metric_set all;
	struct acc_class c;
	struct err e;

	if (registry_load_model(&reg, "llama-3.1-8b", m, &e) < 0 || gpu_find(&db, "h100", &g, &e) < 0) {
		CHECK(0, "%s: set-up: %s", what, e.msg);
		free(m);
		return;
	}
	fixture_wl(&wl, proc, rate, n, 11);
	wl.concurrency = conc;
	wl.prompt = (struct wl_dist){.kind = WL_FIXED, .a = 1024, .min = 1, .max = 1024};
	wl.output = (struct wl_dist){.kind = WL_FIXED, .a = 128, .min = 1, .max = 128};
	scenario_defaults(&sc, engine_default(), m, g, &wl);
	sc.k.max_num_seqs = mns;
	if (scenario_prepare(&sc, datadir, &st, &e) < 0 || sim_run(st.sim, &e) < 0) {
		CHECK(0, "%s: %s", what, e.msg);
	} else {
		sim_summary(st.sim, -1, &all);
		acc_class_of_scenario(&sc, all.running_per_rank, all.queue_share, false, &c);
		CHECK(all.running_per_rank >= run_lo && all.running_per_rank <= run_hi && all.queue_share >= q_lo &&
			      all.queue_share <= q_hi && c.load == want,
		      "%s: %.3f running per rank, queue share %.3f: %s", what, all.running_per_rank, all.queue_share,
		      acc_load_name(c.load));
		scenario_release(&st);
	}
	free(m);
}

static void test_load_terms(void)
{
	load_run("closed loop of 4", WL_CONCURRENCY, 0, 4, 80, 256, 3.5, 4.0001, 0, 0.01, ACC_LIGHT);
	/* up to 16 running, each counted until its last token reaches the
	 * client: one step more, here often a long step of admitted prompts
	 * (the step log of `run --max-num-seqs 16` shows run 16 throughout;
	 * 17.6 counted) */
	load_run("400 at once, 16 slots", WL_POISSON, 1e6, 0, 400, 16, 15, 16 * 1.15, 0.8, 1, ACC_SATURATED);
	load_run("poisson 40 req/s", WL_POISSON, 40, 0, 400, 256, 6, 256, 0, 0.2, ACC_LOADED);
}

int main(void)
{
	if (fixture_load(datadir, sizeof(datadir), &reg, &db) < 0)
		return 1;
	test_kinds();
	test_load();
	test_load_terms();
	test_bands();
	test_coverage();
	test_roundtrip();
	test_bad_files();
	test_shipped();
	gpu_db_release(&db);
	registry_release(&reg);
	return check_done();
}
