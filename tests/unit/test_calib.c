/* test_calib.c - measured-data readers (GuideLLM in every schema era, OTel
 * spans), the GSL fits, and tier-1 known answers: planted coefficients are
 * recovered, a planted overfit is rejected. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "calib/calib.h"
#include "eval/experiment.h"
#include "calib/fit.h"
#include "eval/ablation.h"
#include "eval/pass.h"
#include "deploy/fields.h"
#include "readers/measured.h"
#include "base/paths.h"
#include "base/pcg32.h"
#include "engine/registry.h"

static char fx[1000];

static const char *fixture(const char *name)
{
	static char p[1100];
	snprintf(p, sizeof(p), "%s/%s", fx, name);
	return p;
}

static void test_guidellm(void)
{
	struct gt_requests g;
	struct err e = {.msg = ""};

	CHECK(guidellm_read(fixture("guidellm-v0.1.json"), &g, &e) == 0, "0.1 report parses (%s)", e.msg);
	CHECK(strcmp(g.era, "0.1") == 0 && g.n == 3 && g.nb == 2, "0.1: era, 3 results, 2 benchmarks (%s %zu %zu)",
	      g.era, g.n, g.nb);
	CHECK(strcmp(g.b[0].strategy, "synchronous") == 0 && g.b[1].rate == 4.0 && g.b[0].errored == 1,
	      "0.1: modes, rate, errors counted");
	CHECK_REL(g.r[0].ttft_ms, 50.0, 1e-9, "0.1: TTFT from first_token_time - start_time");
	CHECK_REL(g.r[0].e2e_ms, 500.0, 1e-9, "0.1: E2E from end_time - start_time");
	CHECK(g.r[0].prompt_tokens == 100 && g.r[0].output_tokens == 11 && g.r[0].arrival_s == 0, "0.1: tokens, relative arrival");
	gt_requests_release(&g);

	CHECK(guidellm_read(fixture("guidellm-v0.3.json"), &g, &e) == 0, "0.2-0.3 parses");
	CHECK(strcmp(g.era, "0.2-0.3") == 0 && g.n == 1 && strcmp(g.b[0].strategy, "synchronous") == 0,
	      "0.2-0.3: era %s, strategy from args", g.era);
	CHECK_REL(g.r[0].ttft_ms, 21.3, 1e-9, "0.2-0.3: TTFT field");
	CHECK_REL(g.r[0].e2e_ms, 689.1, 1e-9, "0.2-0.3: E2E from request_latency");
	gt_requests_release(&g);

	CHECK(guidellm_read(fixture("guidellm-v0.6.json"), &g, &e) == 0, "0.4-0.6 parses");
	CHECK(strcmp(g.era, "0.4-0.6") == 0 && g.n == 2 && g.b[0].rate == 2.5 && g.b[0].errored == 1,
	      "0.4-0.6: era, constant@2.5, errored counted");
	CHECK_REL(g.r[1].e2e_ms, 2000.0, 1e-9, "0.4-0.6: request_latency seconds -> ms");
	CHECK_REL(gt_stat(&g, 0, 2, -1), ((1000.0 - 100) / 40 + (2000.0 - 400) / 80) / 2, 1e-6,
		  "ITL recomputed as (E2E - TTFT)/(out - 1), mean of requests");
	gt_requests_release(&g);

	CHECK(guidellm_read(fixture("guidellm-v0.6.json.gz"), &g, &e) == 0 && g.n == 2, "gzip results stream");
	gt_requests_release(&g);
	CHECK(guidellm_read(fixture("guidellm-v0.6.yaml"), &g, &e) == 0 && g.n == 1 && g.r[0].output_tokens == 6,
	      "YAML results (%s)", e.msg);
	gt_requests_release(&g);

	CHECK(guidellm_read(fixture("guidellm-v0.7.json"), &g, &e) == 0, "0.7+ parses (%s)", e.msg);
	CHECK(strcmp(g.era, "0.7+") == 0 && g.r[0].prompt_tokens == 700 && g.r[0].output_tokens == 101,
	      "0.7+: tokens from input/output metrics");
	CHECK_REL(g.r[0].ttft_ms, 200.0, 1e-6, "0.7+: TTFT from info.timings");
	CHECK_REL(g.r[0].e2e_ms, 2000.0, 1e-6, "0.7+: E2E from info.timings");
	CHECK(strcmp(g.b[0].strategy, "concurrent") == 0 && g.b[0].rate == 4, "0.7+: concurrent, 4 streams");
	gt_requests_release(&g);

	err_clear(&e);
	CHECK(guidellm_read(fixture("guidellm-empty.json"), &g, &e) == -SS_EDATA &&
	      strstr(e.msg, "no successful requests"), "no successful requests: %s", e.msg);
	err_clear(&e);
	CHECK(guidellm_read(fixture("guidellm-trunc.json.gz"), &g, &e) == -SS_EDATA &&
	      (strstr(e.msg, "truncated") || strstr(e.msg, "unexpected end")), "truncated .gz: %s", e.msg);
	err_clear(&e);
	{
		const char *other = "{\"results\": [1, 2, 3]}";
		CHECK(guidellm_read_mem(other, strlen(other), "other.json", &g, &e) == -SS_EDATA &&
		      strstr(e.msg, "no 'benchmarks'"), "not GuideLLM: %s", e.msg);
	}
	err_clear(&e);
	{
		const char *bad = "{\"benchmarks\": [{\"requests\": {\"successful\": [{\"prompt_tokens\": 3,, }]}}]}";
		CHECK(guidellm_read_mem(bad, strlen(bad), "bad.json", &g, &e) == -SS_EDATA &&
		      strstr(e.msg, "bad.json:1:"), "malformed JSON with line:col: %s", e.msg);
	}
}

static void test_otel(void)
{
	struct gt_requests g;
	struct err e;

	CHECK(otel_read(fixture("traces.json"), &g, &e) == 0, "OTel spans parse (%s)", e.msg);
	CHECK(g.n == 2 && g.server_side && strcmp(g.era, "otel") == 0, "two llm_request spans, server side");
	CHECK(g.r[1].arrival_s == 2.0 && g.r[1].prompt_tokens == 2000 && g.r[0].output_tokens == 50,
	      "arrival from span start, usage attributes");
	CHECK_REL(g.r[0].ttft_ms, 250.0, 1e-9, "TTFT seconds -> ms");
	gt_requests_release(&g);
}

static void test_fits(void)
{
	/* y = 2 + 3x exactly: WLS recovers it */
	double X[10], y[5], c[2];
	struct err e;
	int i;

	for (i = 0; i < 5; i++) {
		X[2 * i] = 1;
		X[2 * i + 1] = i * 1.7;
		y[i] = 2 + 3 * i * 1.7;
	}
	CHECK(fit_wls(X, y, NULL, 5, 2, c, NULL, &e) == 0 && fabs(c[0] - 2) < 1e-9 && fabs(c[1] - 3) < 1e-9,
	      "wls exact line: %g %g", c[0], c[1]);
}

static int rosen(const double *x, double *f, void *ctx)
{
	(void)ctx;
	f[0] = 10 * (x[1] - x[0] * x[0]);
	f[1] = 1 - x[0];
	return 0;
}

static int rosen_batch(const double *xs, size_t k, double *fs, void *ctx)
{
	size_t q;

	for (q = 0; q < k; q++)
		rosen(&xs[2 * q], &fs[2 * q], ctx);
	return 0;
}

static void test_nls(void)
{
	double x[2] = {-1.2, 1}, xb[2] = {-1.2, 1}, cost = 0, costb = 1;
	struct err e;
	int it = 0, itb = -1;

	CHECK(fit_nls(rosen, NULL, 2, 2, x, 1e-6, 200, &cost, &it, &e) == 0 && fabs(x[0] - 1) < 1e-4 &&
	      fabs(x[1] - 1) < 1e-4, "nls: Rosenbrock minimum (1, 1) from (-1.2, 1): %g %g in %d iterations",
	      x[0], x[1], it);
	/* the batched Jacobian is GSL's forward differences bit for bit */
	CHECK(fit_nls_batched(rosen, rosen_batch, NULL, 2, 2, xb, 1e-6, 200, &costb, &itb, &e) == 0 &&
		      memcmp(x, xb, sizeof(x)) == 0 && memcmp(&cost, &costb, sizeof(cost)) == 0 && it == itb,
	      "nls batched: the same fit bit for bit (%.17g %.17g in %d iterations)", xb[0], xb[1], itb);
}

static void test_tier1_kat(void)
{
	/* planted: E2E residual = 0.4 ms/output + 0.012 ms/prompt + 7.5 ms,
	 * TTFT residual = 3.25 ms + 0.0215 ms/prompt, on 120 requests in 4
	 * benchmarks with tiny multiplicative noise */
	struct calib_set s;
	struct tier1_result r;
	struct overheads base;
	struct pcg32 rng;
	struct err e;
	int i;

	memset(&s, 0, sizeof(s));
	s.n = s.cap = 120;
	s.u = calloc(s.n, sizeof(*s.u));
	pcg32_seed(&rng, 5, 5);
	for (i = 0; i < 120; i++) {
		struct calib_unit *u = &s.u[i];
		double noise = 1 + 1e-4 * (pcg32_double(&rng) - 0.5);
		u->prompt = 100 + pcg32_bounded(&rng, 3000);
		u->output = 10 + pcg32_bounded(&rng, 500);
		u->e2e_pred = 20 * u->output + 0.1 * u->prompt;
		u->ttft_pred = 0.1 * u->prompt + 15;
		u->e2e_meas = (u->e2e_pred + 0.4 * u->output + 0.012 * u->prompt + 7.5) * noise;
		u->ttft_meas = (u->ttft_pred + 3.25 + 0.0215 * u->prompt) * noise;
		u->group = i % 4;
	}
	cost_default_overheads(&base);
	CHECK(tier1_fit(&s, 42, &base, &r, &e) == 0, "tier-1 fit runs");
	CHECK_REL(r.coef.a_ms_per_output_token, 0.4, 0.01, "a recovered within 1%");
	CHECK_REL(r.coef.b_ms_per_prompt_token, 0.012, 0.01, "b recovered within 1%");
	CHECK_REL(r.coef.d_ms, 7.5, 0.01, "d recovered within 1%");
	CHECK_REL(r.coef.ttft_d0_ms, 3.25, 0.01, "d0 recovered within 1%");
	CHECK_REL(r.coef.ttft_b0_ms_per_prompt_token, 0.0215, 0.01, "b0 recovered within 1%");
	CHECK(r.accepted && r.val_e2e < 0.001, "accepted, validation MAPE %.4f%%", 100 * r.val_e2e);
	CHECK(fabs(r.ov.step_us - 400) < 4 && fabs(r.ov.api_ttft_ms - (base.api_ttft_ms + 3.25)) < 0.05,
	      "mapped: step +400 us, API TTFT +3.25 ms");
	free(s.u);

	/* planted overfit: 4 units with noisy residuals, 3 coefficients: the
	 * fit matches its training points, held-out points miss widely */
	memset(&s, 0, sizeof(s));
	s.n = s.cap = 4;
	s.u = calloc(s.n, sizeof(*s.u));
	for (i = 0; i < 4; i++) {
		struct calib_unit *u = &s.u[i];
		u->prompt = 500 + 100 * i;
		u->output = 100 + 37 * ((i * 7) % 4);
		u->e2e_pred = 1000;
		u->ttft_pred = 100;
		u->e2e_meas = 1000 * (i % 2 ? 1.6 : 0.7);
		u->ttft_meas = 100 * (i % 2 ? 0.6 : 1.5);
		u->group = i;
	}
	CHECK(tier1_fit(&s, 42, &base, &r, &e) == 0, "overfit case runs");
	CHECK(!r.accepted && strstr(r.reason, "overfitting"), "planted overfit rejected: %s", r.reason);
	CHECK(r.ov.step_us == base.step_us && r.ov.api_ttft_ms == base.api_ttft_ms,
	      "rejected fit falls back to tier-0 overheads");
	free(s.u);
}

/* eval groups rows by workload: the file's label, else a description */
static void test_workload_label(void)
{
	static struct experiment x;
	struct gt_request rq[2] = {{0, 3000, 30, 1, 2, 0}, {1, 1000, 50, 1, 2, 0}};
	char b[64];

	memset(&x, 0, sizeof(x));
	wl_spec_defaults(&x.wl);
	x.wl.sp_groups = 10;
	x.wl.sp_system = 100;
	x.wl.sp_question = 466;
	x.wl.sp_output = 247;
	experiment_workload(&x, b, sizeof(b));
	CHECK(strcmp(b, "shared-prefix 100+466->247") == 0, "shared-prefix label (%s)", b);
	x.kind = EXP_REQUESTS;
	x.meas.r = rq;
	x.meas.n = 2;
	experiment_workload(&x, b, sizeof(b));
	CHECK(strcmp(b, "replay ~2000->~40") == 0, "replay label from the mean lengths (%s)", b);
	snprintf(x.workload_name, sizeof(x.workload_name), "codegen");
	experiment_workload(&x, b, sizeof(b));
	CHECK(strcmp(b, "codegen") == 0, "workload_name wins (%s)", b);
	memset(&x, 0, sizeof(x));
	wl_spec_defaults(&x.wl);
	x.wl.prompt.kind = WL_UNIFORM;
	x.wl.prompt.a = 100;
	x.wl.prompt.b = 300;
	x.wl.output.kind = WL_FIXED;
	x.wl.output.a = 64;
	experiment_workload(&x, b, sizeof(b));
	CHECK(strcmp(b, "prompt ~200 out ~64") == 0, "synthetic label (%s)", b);
}

/* The n rows of aiconfigurator fixture `name`, each loaded as an experiment
 * and judged by row(t, i, load's status, x, why skipped); first the checks
 * that the table opens and holds n rows (`count`, in words). */
static void each_row(const char *name, size_t n, const char *count,
		     void (*row)(const struct exp_table *t, size_t i, int rc, const struct experiment *x,
				 const char *why))
{
	static struct experiment x;
	static struct exp_table t;
	char why[256];
	struct err e;
	size_t i;

	if (exp_table_open(fixture(name), NULL, &t, &e) < 0) {
		CHECK(0, "%s opens: %s", name, e.msg);
		return;
	}
	CHECK(t.aic.n == n, "%s rows (%zu)", count, t.aic.n);
	for (i = 0; i < n && i < t.aic.n; i++) {
		int rc = exp_table_load(&t, i, NULL, NULL, &x, why, sizeof(why), &e);
		row(&t, i, rc, &x, why);
		experiment_release(&x);
	}
	exp_table_release(&t);
}

static void sglang_template_row(const struct exp_table *t, size_t i, int rc, const struct experiment *x,
				const char *why)
{
	static const char *const id[3] = {"v051", "v056", "novers"};
	static const bool mixed[3] = {false, true, true};
	static const int64_t mpt[3] = {0, 2048 + 1500, 2048 + 1500};

	(void)t;
	(void)why;
	CHECK(rc == 1 && strstr(x->name, id[i]) && x->k.sglang_mixed_chunk == mixed[i] && x->k.max_prefill_tokens == mpt[i],
	      "%s: mixed chunk %d (want %d), max_prefill_tokens %lld (want %lld)", id[i], x->k.sglang_mixed_chunk,
	      mixed[i], (long long)x->k.max_prefill_tokens, (long long)mpt[i]);
}

static void trtllm_recipe_row(const struct exp_table *t, size_t i, int rc, const struct experiment *x,
			      const char *why)
{
	static const char *const id[5] = {"llama70_b200_1k1k", "llama70_b200_1k8k", "dsr1_b200_1k1k_c64_tp8_jan14",
					  "dsr1_b200_1k1k_c64_tp8_feb03", "gptoss_b200"};
	static const int64_t mbt[5] = {16384, 16384, 1152, 8192, 20000}, iters[5] = {20, 0, 0, 40, 0};
	static const double ratio[5] = {0.9, 0, 0, 0.8, 0};

	(void)t;
	(void)why;
	CHECK(rc == 1 && strstr(x->name, id[i]) && x->k.max_num_batched_tokens == mbt[i] &&
		      x->batch_wait_iters == iters[i] && x->batch_wait_ratio == ratio[i],
	      "%s: max_num_tokens %lld (want %lld), batch wait %lld / %g (want %lld / %g)", id[i],
	      (long long)x->k.max_num_batched_tokens, (long long)mbt[i], (long long)x->batch_wait_iters,
	      x->batch_wait_ratio, (long long)iters[i], ratio[i]);
}

static void sglang_cold_row(const struct exp_table *t, size_t i, int rc, const struct experiment *x,
			    const char *why)
{
	static const char *const id[5] = {"dsr1_fp8_1k1k_nov18", "dsr1_fp8_1k8k_nov18", "dsr1_fp4_1k1k_nov10",
					  "dsr1_fp4_8k1k_nov02", "dsr1_fp8_1k1k_mar25"};
	static const int64_t nreq[5] = {400, 160, 80, 400, 80};
	static const bool cold[5] = {true, true, true, true, false};
	static const int ep[5] = {1, 1, 8, 8, 1};

	(void)t;
	(void)why;
	CHECK(rc == 1 && strstr(x->name, id[i]) && x->cold_start == cold[i] && x->wl.num_requests == nreq[i] &&
		      x->stages[0].completed == nreq[i] && x->ep == ep[i],
	      "%s: cold start %d (want %d), %lld requests, %lld measured (want %lld), EP %d (want %d)", id[i],
	      x->cold_start, cold[i], (long long)x->wl.num_requests, (long long)x->stages[0].completed,
	      (long long)nreq[i], x->ep, ep[i]);
}

static void glm5_fp4_row(const struct exp_table *t, size_t i, int rc, const struct experiment *x, const char *why)
{
	static const char *const ckpt[2] = {"nvidia/GLM-5-NVFP4", ""};
	static const bool kv_given[2] = {true, false};

	(void)t;
	CHECK(rc == 1 && strcmp(x->checkpoint, ckpt[i]) == 0 && x->kv_dtype_given == kv_given[i] &&
		      (!kv_given[i] || x->kv_dtype == DT_FP8) && strcmp(x->model, "zhipuai/GLM-5") == 0,
	      "%s: checkpoint '%s' (want '%s'), KV %s given %d%s%s", t->aic.r[i].id, x->checkpoint, ckpt[i],
	      dtype_name(x->kv_dtype), x->kv_dtype_given, rc == 1 ? "" : ", not loaded: ", rc == 1 ? "" : why);
}

static void dynamo_image_row(const struct exp_table *t, size_t i, int rc, const struct experiment *x,
			     const char *why)
{
	static const char *const want[7] = {"1.3.0rc11", "1.2.0rc6.post1", "1.2.0rc6.post1", "1.2.0rc6.post1",
					    "0.5.1-rc0.pre3", "1.2.0rc6.post1", "1.2.0rc6.post2"};

	CHECK(rc == 1 && strcmp(x->engine_version, want[i]) == 0, "%s (image %s): engine version %s (want %s)%s%s",
	      t->aic.r[i].id, t->aic.r[i].dynamo_image[0] ? t->aic.r[i].dynamo_image : "not Dynamo's", x->engine_version,
	      want[i], rc == 1 ? "" : ", not loaded: ", rc == 1 ? "" : why);
}

/* SGLang silicon rows: aiconfigurator's generator wrote --max-prefill-tokens
 * ISL + 1500 and --enable-mixed-chunk only from its 0.5.6.post2 templates on;
 * rows of the first templates (0.5.1.post1 ...) ran SGLang's defaults
 * (experiment.c, aic_sglang_bare). */
static void test_aic_sglang_templates(void)
{
	CHECK(engine_version_value("0.5.1.post1") < engine_version_value("0.5.6") &&
	      engine_version_value("0.5.6.post2") >= engine_version_value("0.5.6") &&
	      engine_version_value("0.5.10.post1") > engine_version_value("0.5.9") && engine_version_value("") < 0,
	      "engine versions order numerically (0.5.1.post1 < 0.5.6 <= 0.5.6.post2, 0.5.10 > 0.5.9, \"\" unknown)");
	each_row("aic-sglang-templates.csv", 3, "three", sglang_template_row);
}

/* InferenceX's TensorRT-LLM launch recipes (ix_trtllm_limits): the
 * scripts' max_num_tokens (Llama-3.1-70B 16384, gpt-oss 20000, DeepSeek-R1
 * round64(C + ISL + 64) with a floor of 8192 from 2026-01-21) and batch
 * waiting (Llama-3.1-70B 1k/1k below TP 8: 20 iterations, 0.9; DeepSeek-R1
 * fp8 B200 1k/1k from 64 clients, from 2026-01-29: 40, 0.8). */
static void test_aic_trtllm_recipes(void)
{
	each_row("aic-trtllm-recipes.csv", 5, "five", trtllm_recipe_row);
}

/* InferenceX rows measured before its client's warm-up (d053ae24e,
 * 2026-01-21) start from a cold server (experiment.cold_start), with the
 * B200 runner's prompt counts: 50 C (20 C at OSL 8192) for the fp8
 * checkpoint and the fp4 one named until 2025-11-03, 10 C otherwise; the
 * SGLang fp4 rows that record EP 1 ran EP = TP (--enable-ep-moe). */
static void test_aic_sglang_cold(void)
{
	each_row("aic-sglang-cold.csv", 5, "five", sglang_cold_row);
}

/* TensorRT-LLM rows measured in Dynamo's runtime images record Dynamo's
 * release (or aiconfigurator's own version) as backend_version; the kernel
 * collection goes by the TensorRT-LLM the image ships (experiment.c,
 * dynamo_trtllm_version: aiconfigurator's backend_version_matrix.yaml):
 * 1.1.0-dev.2 -> 1.3.0rc11, 0.8.1.postN and 0.8.1 -> 1.2.0rc6.post1; 0.5.1
 * is not in the matrix and keeps its version; an image of TensorRT-LLM's
 * own (release:1.2.0rc6.post2) keeps it. */
/* The GLM-5 fp4 TensorRT-LLM P/D rows ran nvidia/GLM-5-NVFP4 with an fp8
 * KV cache (srt-slurm's GB200 NVFP4 STP recipes, HARNESS.md "ckptffn"): the
 * row keeps its model and prices that checkpoint; its fp8 rows keep the
 * model file and their precision's cache. */
static void test_aic_glm5_fp4(void)
{
	each_row("aic-glm5-fp4.csv", 2, "two", glm5_fp4_row);
}

static void test_aic_dynamo_images(void)
{
	each_row("aic-dynamo-images.csv", 7, "seven", dynamo_image_row);
}

/* Reasons rows share: figures become N, a flag's value and advice stay. */
static void test_skip_reason(void)
{
	char b[80];

	skip_reason_norm("--ep 8 given but llama-3.1-8b is a dense model (use --ep 1)", b, sizeof(b));
	CHECK(strcmp(b, "--ep 8 given but llama-3.1-8b is a dense model (use --ep 1)") == 0,
	      "a flag's value and the advice stay (%s)", b);
	skip_reason_norm("weights need 141.1 GB per GPU but h100-sxm offers 85.5 GB x 0.90", b, sizeof(b));
	CHECK(strcmp(b, "weights need N GB per GPU but h100-sxm offers N GB x N") == 0, "figures become N (%s)", b);
	skip_reason_norm("3 heads not divisible by --tp 2", b, 8);
	CHECK(strcmp(b, "N heads") == 0, "truncated to the buffer (%s)", b);
}

/* 002's ablation (eval/ablation.h): each H pass switches off its own
 * correction alone, keeping the rest of the options; the InferSim pass runs
 * tier 0 in full with its step and TTFT terms forced and no per-layer or
 * per-request term. */
static void test_ablation_design(void)
{
	struct eval_opts base;
	struct abl_design d;
	struct model_cfg m;
	int h;

	memset(&base, 0, sizeof(base));
	cost_default_overheads(&base.ov);
	base.tier0_off = COST_H3;
	base.ov.layer_us = 2.385;
	abl_design(&base, &d);
	CHECK(d.full.tier0_off == COST_H3 && d.full.ov.layer_us == 2.385, "ablation: the full pass is the options given");
	for (h = 0; h < ABL_NOFF; h++)
		CHECK(d.off[h].tier0_off == (1u << h) && d.off[h].ov.layer_us == 2.385 &&
		      d.off[h].ov.given == base.ov.given,
		      "ablation: pass H%d switches H%d alone off (tier0_off %#x)", h + 1, h + 1, d.off[h].tier0_off);
	CHECK(d.off[1].tier0_off == COST_H2 && d.off[5].tier0_off == COST_H6, "ablation: H2 and H6 bits");
	CHECK(d.infersim.tier0_off == 0 && d.infersim.ov.step_us == 5000 && d.infersim.ov.api_ttft_ms == 30 &&
	      d.infersim.ov.layer_us == 0 && d.infersim.ov.req_us == 0,
	      "ablation: InferSim pass 5 ms/step, 30 ms TTFT, no layer or request terms");
	CHECK((d.infersim.ov.given & (OV_STEP | OV_LAYER | OV_REQ | OV_API_TTFT)) ==
	      (OV_STEP | OV_LAYER | OV_REQ | OV_API_TTFT), "ablation: InferSim terms marked given");
	memset(&m, 0, sizeof(m));
	m.heads = 48;
	m.kv_heads = 8;
	CHECK(abl_model_gqa(&m), "ablation: 48 query / 8 KV heads is GQA");
	m.kv_heads = 48;
	CHECK(!abl_model_gqa(&m), "ablation: 48 / 48 is multi-head");
}

/* The knobs of bare results files (--model M, no limits given) are the
 * deployment field table's defaults (block 16, gpu_memory_utilization 0.9,
 * prefix caching on, replicas 1, ...) with the documented limits 8192, 256,
 * 4096 (exp_settings_tab's help): one home for the shared defaults. */
static void test_bare_defaults(void)
{
	struct exp_settings s = {0};
	struct experiment *b = calloc(1, sizeof(*b));
	struct deploy_knobs def;
	struct err e;
	bool have = false, same = true;
	size_t i;
	int rc;

	s.model = "llama-3.1-8b";
	err_clear(&e);
	rc = exp_settings_base(&s, "h100", b, &have, &e);
	deploy_defaults(&deploy_table, &def);
	for (i = 0; i < deploy_table.n; i++)
		if (i != DEPLOY_MAX_NUM_BATCHED_TOKENS && i != DEPLOY_MAX_NUM_SEQS && i != DEPLOY_MAX_MODEL_LEN &&
		    deploy_table.row[i].type != DEPLOY_STR)
			same = same && deploy_get(&deploy_table, i, &b->k) == deploy_get(&deploy_table, i, &def);
	CHECK(rc == 0 && have && same && b->k.block_size == 16 && b->k.gpu_memory_utilization == 0.9 &&
		      b->k.prefix_caching && b->k.replicas == 1,
	      "bare results: every other knob at the field table's default (rc %d: %s)", rc, e.msg);
	CHECK(b->k.max_num_batched_tokens == 8192 && b->k.max_num_seqs == 256 && b->k.max_model_len == 4096,
	      "bare results: the documented limits 8192, 256, 4096");
	free(b);
}

int main(void)
{
	char data[1024];

	paths_data_dir(data, sizeof(data));
	snprintf(fx, sizeof(fx), "%.900s/../tests/unit/fixtures", data);
	test_guidellm();
	test_otel();
	test_fits();
	test_nls();
	test_tier1_kat();
	test_workload_label();
	test_skip_reason();
	test_aic_sglang_templates();
	test_aic_trtllm_recipes();
	test_aic_sglang_cold();
	test_aic_glm5_fp4();
	test_aic_dynamo_images();
	test_ablation_design();
	test_bare_defaults();
	return check_done();
}
