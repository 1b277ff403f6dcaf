/* test_plan.c - list and range flags, grid numbering, the parallel map
 * (threads give the bytes of a serial run, the lowest failing index wins),
 * the Pareto front, the price table, launch lines, the deployment
 * enumeration, sweep rows (null for empty sets) and one deployment
 * evaluated end to end. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "fixture.h"
#include "engine/registry.h"
#include "base/alloc.h"
#include "cost/cost.h"
#include "hw/gpu.h"
#include "plan/autoscale.h"
#include "plan/grid.h"
#include "engine/launch.h"
#include "model/model.h"
#include "plan/pareto.h"
#include "plan/parmap.h"
#include "plan/prices.h"
#include "plan/runjob.h"
#include "plan/search.h"
#include "plan/sweep.h"
#include "report/sweepreport.h"
#include "serve/servejob.h"
#include "sim/sim.h"
#include "workload/workload.h"

static struct model_registry reg;
static struct gpu_db db;
static char datadir[1024];

static void test_grid(void)
{
	static const struct {
		const char *arg, *msg;
	} bad[] = {
		{"1,x", "'x' is not a number"},
		{"1,,2", "an empty item in '1,,2'"},
		{",1", "an empty item in ',1'"},
		{"1,", "an empty item in '1,'"},
		{"10:40", "must be START:STOP:STEP"},
		{"10:40:0", "needs a STEP > 0"},
		{"40:10:2", "STOP < START"},
		{"1.5", "1.5 is not an integer"},
		{"1,2,1", "1 listed twice"},
		{"0", "out of range"},
	};
	struct grid g;
	struct err e;
	size_t n, idx[GRID_MAX_AXES], i;

	grid_init(&g);
	CHECK(grid_add_numbers(&g, "tp", "--tp", "1,2,4", true, 1, 4096, &e) == 0 && g.ax[0].n == 3, "--tp 1,2,4");
	CHECK(grid_add_numbers(&g, "rate", "--rate", "10:40:2", false, 1e-9, 1e9, &e) == 0 && g.ax[1].n == 16 &&
		      g.ax[1].num[15] == 40, "--rate 10:40:2: 16 values, 40 included");
	CHECK(grid_add_words(&g, "gpu", "--gpu", "h100,h200", &e) == 0 && g.ax[2].n == 2 &&
		      strcmp(g.ax[2].str[1], "h200") == 0, "--gpu h100,h200");
	CHECK(grid_add_numbers(&g, "tp", "--tp", "8", true, 1, 4096, &e) == -SS_EUSAGE, "an axis given twice");
	CHECK_STR_CONTAINS(e.msg, "--tp given twice", "twice");
	CHECK(grid_size(&g, &n, &e) == 0 && n == 96, "3 x 16 x 2 = 96 points (%zu)", n);
	grid_point(&g, 0, idx);
	CHECK(idx[0] == 0 && idx[1] == 0 && idx[2] == 0, "point 0");
	grid_point(&g, 1, idx);
	CHECK(idx[0] == 0 && idx[1] == 0 && idx[2] == 1, "point 1: last axis fastest");
	grid_point(&g, 95, idx);
	CHECK(idx[0] == 2 && idx[1] == 15 && idx[2] == 1, "point 95: the last of each axis");
	grid_release(&g);
	grid_init(&g);
	CHECK(grid_add_numbers(&g, "rate", "--rate", "0.1:0.3:0.1,5", false, 1e-9, 1e9, &e) == 0 &&
		      g.ax[0].n == 4 && g.ax[0].num[2] == 0.3 && g.ax[0].num[3] == 5,
	      "0.1:0.3:0.1 reaches 0.3 despite rounding, then 5");
	grid_release(&g);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		grid_init(&g);
		err_clear(&e);
		CHECK(grid_add_numbers(&g, "tp", "--tp", bad[i].arg, true, 1, 4096, &e) == -SS_EUSAGE && g.nax == 0,
		      "'%s' refused", bad[i].arg);
		CHECK_STR_CONTAINS(e.msg, bad[i].msg, bad[i].arg);
		grid_release(&g);
	}
}

/* A point: a few hundred bytes depending only on i; point 13 and 29 fail. */
static int pm_point(void *ctx, size_t i, struct sbuf *out, struct err *e)
{
	int *fail = ctx;
	size_t k;

	if (*fail && (i == 29 || i == 13))
		return err_set(e, SS_EDATA, "point %zu failed", i);
	for (k = 0; k < i % 7 + 1; k++)
		sb_printf(out, "%zu:%zu,", i, k * i);
	sb_putc(out, '\n');
	return 0;
}

static void test_parmap(void)
{
	struct ranks rk = {0, 1, false};
	struct parmap pm;
	struct sbuf a[40], b[40];
	struct err e;
	int fail = 0, jobs[] = {2, 3, 8}, rc;
	size_t i, j;

	memset(&pm, 0, sizeof(pm));
	pm.n = 40;
	pm.run = pm_point;
	pm.ctx = &fail;
	pm.jobs = 1;
	for (i = 0; i < 40; i++)
		sb_init(&a[i]);
	CHECK(parmap_run(&pm, &rk, a, &e) == 0, "serial map");
	for (j = 0; j < sizeof(jobs) / sizeof(jobs[0]); j++) {
		bool same = true;
		for (i = 0; i < 40; i++)
			sb_init(&b[i]);
		pm.jobs = jobs[j];
		CHECK(parmap_run(&pm, &rk, b, &e) == 0, "%d threads", jobs[j]);
		for (i = 0; i < 40; i++) {
			same = same && a[i].len == b[i].len && memcmp(a[i].buf, b[i].buf, a[i].len) == 0;
			sb_release(&b[i]);
		}
		CHECK(same, "%d threads: every point's bytes equal the serial run's", jobs[j]);
	}
	fail = 1;
	for (i = 0; i < 40; i++)
		sb_init(&b[i]);
	pm.jobs = 4;
	rc = parmap_run(&pm, &rk, b, &e);
	CHECK(rc == -SS_EDATA, "a failing point fails the map");
	CHECK_STR_CONTAINS(e.msg, "point 13 failed", "the lowest failing index is reported");
	for (i = 0; i < 40; i++) {
		sb_release(&a[i]);
		sb_release(&b[i]);
	}
	pm.n = 0;
	CHECK(parmap_run(&pm, &rk, NULL, &e) == 0, "an empty grid");
}

static void test_pareto(void)
{
	/* (tok/s/user, tok/s/GPU): 0 dominated by 1; 1, 2, 4 on the front; 3
	 * ties 2 on y with lower x; 5 invalid */
	double x[] = {10, 12, 30, 25, 50, NAN}, y[] = {900, 1000, 700, 700, 300, 5000};
	bool f[6];
	struct sbuf sb;
	const char *lab[] = {"a", "b<1>", "c", "d", "e", "f"};
	struct pareto_chart c = {"t", "x", "y", x, y, f, lab, 6};

	pareto_front(x, y, 6, f);
	CHECK(!f[0] && f[1] && f[2] && !f[3] && f[4] && !f[5], "front = {1, 2, 4}");
	sb_init(&sb);
	pareto_svg(&c, &sb);
	CHECK(strncmp(sb.buf, "<svg ", 5) == 0 && strstr(sb.buf, "</svg>\n") != NULL, "an SVG document");
	CHECK(strstr(sb.buf, "b&lt;1&gt;") != NULL, "labels escaped");
	CHECK(strstr(sb.buf, "<polyline") != NULL, "the front drawn as a line");
	sb_release(&sb);
}

static int write_tmp(const char *text, char *path, size_t n)
{
	FILE *f;
	int fd;

	snprintf(path, n, "/tmp/servesim_prices_XXXXXX");
	if ((fd = mkstemp(path)) < 0 || !(f = fdopen(fd, "w")))
		return -1;
	fputs(text, f);
	fclose(f);
	return 0;
}

static void test_prices(void)
{
	static const struct {
		const char *text, *msg;
	} bad[] = {
		{"{\"gpus\": {\"h100\": {\"usd_per_gpu_hour\": -1}}}", "gpus.h100.usd_per_gpu_hour must be > 0"},
		{"{\"gpus\": {\"h100\": {\"usd\": 2}}}", "usd"},
		{"{\"currency\": \"EUR\", \"gpus\": {}}", "'currency' must be \"USD\""},
		{"{\"gpu\": {}}", "gpu"},
		{"[1]", "expected a JSON object"},
	};
	struct prices t;
	struct err e;
	char path[1200];
	size_t i;

	snprintf(path, sizeof(path), "%s/prices.json", datadir);
	CHECK(prices_load(path, &t, &e) == 0 && t.n >= 3, "data/prices.json loads (%zu prices)", t.n);
	for (i = 0; i < t.n; i++)
		CHECK(t.p[i].usd_per_gpu_hour > 0 && t.p[i].source[0], "%s: $%.2f with a source", t.p[i].gpu,
		      t.p[i].usd_per_gpu_hour);
	{
		double usd = 0;
		CHECK(prices_find(&t, &db, "h100-sxm", &usd, &e) == 0 && usd == 3.00 &&
			      prices_find(&t, &db, "h800", &usd, &e) == 0 && isnan(usd),
		      "prices_find: h100-sxm $3.00 (by id), none for h800");
	}
	prices_release(&t);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (write_tmp(bad[i].text, path, sizeof(path)) < 0) {
			CHECK(0, "temp file");
			continue;
		}
		err_clear(&e);
		CHECK(prices_load(path, &t, &e) == -SS_EDATA, "bad table %zu refused", i);
		CHECK_STR_CONTAINS(e.msg, bad[i].msg, "message");
		unlink(path);
	}
}

/* The launch line of engine `name` for in, into sb (emptied first). */
static void launch(const char *name, const struct launch_in *in, struct sbuf *sb)
{
	sb_reset(sb);
	engine_find(name)->launch(in, sb);
}

static void test_launch(void)
{
	struct launch_in in = {"deepseek-ai/DeepSeek-V3", "fp8", {.tp = 4, .pp = 1, .dp = 2, .ep = 8},
			       DT_FP8, DT_FP8, 256, 0, 0, 0, 0, true, false, 0, 0, false, false, false};
	struct sbuf sb;

	sb_init(&sb);
	launch("vllm", &in, &sb);
	CHECK(strcmp(sb.buf, "vllm serve deepseek-ai/DeepSeek-V3 --tensor-parallel-size 4 --data-parallel-size 2 "
			     "--enable-expert-parallel --kv-cache-dtype fp8 --max-num-seqs 256\n") == 0,
	      "vLLM, attention DP + EP, fp8 checkpoint: %s", sb.buf);
	launch("sglang", &in, &sb);
	CHECK(strcmp(sb.buf, "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp 8 --dp-size 2 "
			     "--enable-dp-attention --ep-size 8 --kv-cache-dtype fp8_e4m3 --max-running-requests 512\n") == 0,
	      "SGLang: --tp counts all GPUs with DP attention, --max-running-requests all ranks' 256 (SGLang divides "
	      "it by the DP size): %s", sb.buf);
	/* MTP and a prefill chunk: vLLM's --speculative-config, SGLang's
	 * EAGLE-style MTP flags (K steps, top-k 1, K + 1 draft tokens) */
	in.spec_k = 1;
	in.max_num_batched_tokens = 2048;
	launch("vllm", &in, &sb);
	CHECK(strstr(sb.buf, " --max-num-batched-tokens 2048 --speculative-config "
			     "'{\"method\":\"mtp\",\"num_speculative_tokens\":1}'\n") != NULL,
	      "vLLM MTP and max-num-batched-tokens: %s", sb.buf);
	launch("sglang", &in, &sb);
	CHECK(strstr(sb.buf, " --chunked-prefill-size 2048 --speculative-algorithm EAGLE --speculative-num-steps 1 "
			     "--speculative-eagle-topk 1 --speculative-num-draft-tokens 2\n") != NULL,
	      "SGLang MTP and chunked-prefill-size: %s", sb.buf);
	/* EPLB in each engine's spelling (interval 0: the engine's default, left out) */
	in.eplb = true;
	in.eplb_redundant = 32;
	launch("vllm", &in, &sb);
	CHECK(strstr(sb.buf, " --enable-expert-parallel --enable-eplb --eplb-config '{\"num_redundant_experts\":32}'") !=
		      NULL, "vLLM EPLB: %s", sb.buf);
	in.eplb_interval = 500;
	launch("sglang", &in, &sb);
	CHECK(strstr(sb.buf, " --ep-size 8 --enable-eplb --ep-num-redundant-experts 32 "
			     "--eplb-rebalance-num-iterations 500") != NULL, "SGLang EPLB: %s", sb.buf);
	/* engine flags as given: SGLang's attention-DP layout (only with DP
	 * attention), vLLM without DeepGEMM (its environment switch) */
	in.dp_lm_head = true;
	in.moe_dense_tp1 = true;
	in.no_deep_gemm = true;
	launch("sglang", &in, &sb);
	CHECK(strstr(sb.buf, " --enable-dp-attention --enable-dp-lm-head --moe-dense-tp-size 1 --ep-size 8") != NULL,
	      "SGLang --enable-dp-lm-head and --moe-dense-tp-size 1 with DP attention: %s", sb.buf);
	launch("vllm", &in, &sb);
	CHECK(strncmp(sb.buf, "VLLM_USE_DEEP_GEMM=0 vllm serve ", 32) == 0, "vLLM --no-deep-gemm: %s", sb.buf);
	/* dense replicas: --data-parallel-size / --dp-size, no DP attention */
	in = (struct launch_in){"meta-llama/Llama-3.1-8B-Instruct", "", {.tp = 1, .pp = 1, .dp = 4, .ep = 1},
				DT_BF16, DT_BF16, 1024, 8192, 0, 0, 0, false, false, 0, 0, false, false, false};
	in.dp_lm_head = true; /* (no DP attention: no flag) */
	launch("vllm", &in, &sb);
	CHECK(strcmp(sb.buf, "vllm serve meta-llama/Llama-3.1-8B-Instruct --tensor-parallel-size 1 "
			     "--data-parallel-size 4 --max-num-seqs 1024 --max-num-batched-tokens 8192\n") == 0,
	      "vLLM dense DP replicas: %s", sb.buf);
	launch("sglang", &in, &sb);
	CHECK(strcmp(sb.buf, "python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --tp 1 "
			     "--dp-size 4 --max-running-requests 1024 --chunked-prefill-size 8192\n") == 0,
	      "SGLang dense DP replicas: %s", sb.buf);
	in = (struct launch_in){"meta-llama/Llama-3.1-70B-Instruct", "", {.tp = 2, .pp = 1, .dp = 1, .ep = 1},
				DT_FP8, DT_BF16, 1024, 0, 0, 1, 2, false, false, 0, 0, false, false, false};
	launch("vllm", &in, &sb);
	CHECK(strstr(sb.buf, "--quantization fp8") && strstr(sb.buf, "NixlConnector") &&
		      strstr(sb.buf, "# 2 decode instances:"),
	      "vLLM P/D: online fp8, a KV connector, 2 decode instances");
	launch("sglang", &in, &sb);
	CHECK(strstr(sb.buf, "--disaggregation-mode prefill") && strstr(sb.buf, "--disaggregation-mode decode") &&
		      strstr(sb.buf, "sglang_router.launch_router --pd-disaggregation"),
	      "SGLang P/D: prefill and decode servers and the router");
	sb_release(&sb);
}

/* The default space narrowed to the layouts: one engine at its default
 * prefill chunk. */
static void space_layouts(struct search_space *sp)
{
	search_space_defaults(sp);
	sp->nengine = 1;
	sp->nmnbt = 1;
	sp->mnbt[0] = 0;
}

/* Two GPU types: each type's deployments, then the mixed P/D splits. */
static void test_enumerate_mixed(const struct model_cfg *dense)
{
	const struct gpu_spec *h200 = NULL, *b200 = NULL;
	struct search_space sp;
	struct search_gpu b[2];
	struct search_deploy *d;
	size_t n, i, nmix = 0;
	bool ok = true;
	struct err e;

	if (gpu_find(&db, "h200", &h200, &e) < 0 || gpu_find(&db, "b200", &b200, &e) < 0) {
		CHECK(0, "set-up: %s", e.msg);
		return;
	}
	space_layouts(&sp);
	sp.ntp = 1;
	sp.tp[0] = 4;
	sp.ndtype = 1;
	sp.dtype[0] = DT_FP8;
	b[0] = (struct search_gpu){h200, 8, 4.0};
	b[1] = (struct search_gpu){b200, 4, 5.25};
	search_enumerate(dense, b, 2, &sp, &d, &n);
	/* TP 4: H200 x 8: DP 1, 2 and 1p1d (3); B200 x 4: DP 1 (1); prefill
	 * on H200 (X x 4 <= 8), decode on B200 (Y x 4 <= 4): 1p1d, 2p1d;
	 * prefill on B200 (X = 1), decode on H200 (Y <= 2): 1p1d, 1p2d */
	CHECK(n == 8, "Llama-3.1-70B TP 4 on 8 H200 + 4 B200: 8 deployments, 4 of them mixed (%zu)", n);
	for (i = 0; i < n; i++) {
		bool mixed = search_mixed(&d[i]);
		nmix += mixed;
		ok = ok && (mixed ? i >= 4 : i < 4 && d[i].pgpu == d[i].gpu);
		if (mixed)
			ok = ok && d[i].pd_prefill * 4 <= b[d[i].pgpu].count && d[i].pd_decode * 4 <= b[d[i].gpu].count &&
			     d[i].gpus == (d[i].pd_prefill + d[i].pd_decode) * 4;
	}
	CHECK(ok && nmix == 4, "mixed splits last, each side within its type's count (%zu)", nmix);
	/* by decode GPU: B200 prefill / H200 decode first, then the reverse */
	CHECK(n == 8 && d[4].pgpu == 1 && d[4].gpu == 0 && d[7].pgpu == 0 && d[7].gpu == 1 && d[7].pd_prefill == 2 &&
		      d[7].pd_decode == 1 && fabs(search_usd_per_gpu_hour(b, &d[7]) - (4.0 * 8 + 5.25 * 4) / 12) < 1e-12 &&
		      fabs(search_usd_per_gpu_hour(b, &d[4]) - (5.25 * 4 + 4.0 * 4) / 8) < 1e-12 &&
		      search_usd_per_gpu_hour(b, &d[0]) == 4.0,
	      "2p1d H200 prefill + B200 decode: $%.4f per GPU-hour, each side at its price",
	      n == 8 ? search_usd_per_gpu_hour(b, &d[7]) : 0.0);
	free(d);
	/* --replicas 1,2: copies of a mixed split within both counts */
	b[1].count = 8;
	sp.nreplicas = 2;
	sp.replicas[0] = 1;
	sp.replicas[1] = 2;
	sp.pd_max_workers = 2;
	search_enumerate(dense, b, 2, &sp, &d, &n);
	for (i = 0, nmix = 0; i < n; i++)
		nmix += search_mixed(&d[i]) && d[i].replicas == 2 && d[i].gpus == 16;
	CHECK(nmix == 2, "1p1d TP 4 mixed both ways, 2 replicas each within 8 + 8 GPUs (%zu)", nmix);
	free(d);
}

static void test_enumerate(void)
{
	struct model_cfg *dense = xcalloc(1, sizeof(*dense)), *moe = xcalloc(1, sizeof(*moe));
	const struct gpu_spec *h100 = NULL, *h200 = NULL;
	struct search_space sp;
	struct search_gpu b[1];
	struct search_deploy *d;
	size_t n, i, k, npd = 0, ndp = 0;
	bool ok = true;
	struct err e;

	if (registry_load_model(&reg, "llama-3.1-70b", dense, &e) < 0 ||
	    registry_load_model(&reg, "deepseek-v3", moe, &e) < 0 || gpu_find(&db, "h100", &h100, &e) < 0 ||
	    gpu_find(&db, "h200", &h200, &e) < 0) {
		CHECK(0, "set-up: %s", e.msg);
		free(dense);
		free(moe);
		return;
	}
	/* one engine, its default prefill chunk, no MTP: the layouts alone */
	space_layouts(&sp);
	b[0] = (struct search_gpu){h100, 8, 3};
	search_enumerate(dense, b, 1, &sp, &d, &n);
	/* dense on 8: dtype {bf16, fp8} x (TP, DP) with TP x DP <= 8: TP 1
	 * DP 1,2,4,8, TP 2 DP 1,2,4, TP 4 DP 1,2, TP 8 = 10 (PP 1, EP 1),
	 * plus P/D: TP 1 with X+Y in 2..4 (6 splits), TP 2 (6), TP 4 (1) = 13
	 * per dtype; 46 in all */
	CHECK(n == 46, "Llama-3.1-70B on 8 H100: 46 deployments (%zu)", n);
	for (i = 0; i < n; i++) {
		ok = ok && d[i].gpus <= 8 && d[i].par.ep == 1 && d[i].par.pp == 1 &&
		     d[i].gpus == (d[i].pd_prefill ? (d[i].pd_prefill + d[i].pd_decode) * d[i].par.tp
						  : d[i].par.tp * d[i].par.dp);
		npd += d[i].pd_prefill > 0;
		ndp += d[i].par.dp > 1;
	}
	CHECK(ok, "dense: EP 1, PP 1 within one node, DP x TP <= 8 GPUs");
	CHECK(npd == 26, "26 P/D splits (%zu)", npd);
	CHECK(ndp == 12, "12 with DP replicas (%zu)", ndp);
	free(d);
	/* the default space: both engines, each at its default prefill chunk */
	search_space_defaults(&sp);
	search_enumerate(dense, b, 1, &sp, &d, &n);
	CHECK(n == 46 * 2, "default space: 46 layouts x 2 engines (%zu)", n);
	CHECK(n >= 2 && d[0].engine == 0 && d[0].max_num_batched_tokens == 0 && d[n - 1].engine == 1 &&
		      d[0].spec_k == 0,
	      "order: engine outermost after the GPU, the engine's chunk, no MTP on a model without it");
	free(d);
	/* a list of prefill chunks multiplies the space, innermost but MTP */
	sp.nmnbt = 3;
	sp.mnbt[0] = 2048;
	sp.mnbt[1] = 8192;
	sp.mnbt[2] = 16384;
	search_enumerate(dense, b, 1, &sp, &d, &n);
	CHECK(n == 46 * 2 * 3 && d[0].max_num_batched_tokens == 2048 && d[1].max_num_batched_tokens == 8192 &&
		      d[2].max_num_batched_tokens == 16384,
	      "--max-num-batched-tokens 2048,8192,16384: 46 x 2 x 3 in that order (%zu)", n);
	free(d);
	space_layouts(&sp);
	sp.nspec = 1;
	sp.spec_k[0] = 0;
	sp.pd = false;
	b[0] = (struct search_gpu){h200, 16, 4};
	search_enumerate(moe, b, 1, &sp, &d, &n);
	/* MoE on 16, no P/D: (TP, DP) with TP x DP <= 16 and TP <= 8: TP1 DP
	 * 1..16 (5), TP2 1..8 (4), TP4 1..4 (3), TP8 1..2 (2), + TP8 PP2 (1)
	 * = 15; EP off or TP x DP (not for 1 GPU): 29; and replicas of the
	 * layouts without DP within 16 GPUs: TP1 x 2, 4, 8, 16 (4), TP2 EP
	 * off/2 x 2, 4, 8 (6), TP4 x 2 EPs x 2, 4 (4), TP8 PP1 x 2 EPs x 2
	 * (2): 45; one dtype: the checkpoint is block fp8 throughout, so
	 * --dtype fp8 would load the same weights and list every deployment
	 * twice */
	CHECK(n == 45, "DeepSeek-V3 on 16 H200 without P/D: 45 deployments (16 of them replicas), bf16 only (%zu)", n);
	ok = true;
	for (i = 0, k = 0; i < n; i++) {
		ok = ok && (d[i].replicas == 1 || (d[i].par.dp == 1 && d[i].pd_prefill == 0 && i > 0 &&
						  d[i - 1].par.tp == d[i].par.tp && d[i - 1].par.ep == d[i].par.ep));
		k += d[i].replicas > 1;
	}
	CHECK(ok && k == 16, "replicas only of MoE layouts without attention DP, each after its single copy (%zu)", k);
	ok = true;
	for (i = 0; i < n; i++)
		ok = ok && d[i].wdt == DT_BF16;
	CHECK(ok, "an fp8 checkpoint: no separate fp8 deployments");
	ok = true;
	for (i = 0; i < n; i++)
		ok = ok && d[i].gpus == d[i].replicas * d[i].par.tp * d[i].par.pp * d[i].par.dp && d[i].gpus <= 16 &&
		     (d[i].par.ep == 1 || d[i].par.ep == d[i].par.tp * d[i].par.dp) &&
		     (d[i].par.pp == 1 || d[i].par.tp == 8);
	CHECK(ok, "MoE: GPUs = replicas x TP x PP x DP <= 16, EP off or TP x DP, PP only at TP 8");
	free(d);
	/* DeepSeek-V3 has an MTP module: MTP off and on by default */
	sp.nspec = 0;
	search_enumerate(moe, b, 1, &sp, &d, &n);
	CHECK(n == 90 && d[0].spec_k == 0 && d[1].spec_k == SEARCH_MTP_TOKENS,
	      "MTP off and K = %d for a model with num_nextn_predict_layers (%zu)", SEARCH_MTP_TOKENS, n);
	free(d);
	sp.nspec = 1;
	sp.ntp = 1;
	sp.tp[0] = 8;
	sp.ndp = 1;
	sp.dp[0] = 1;
	sp.nmns = 2;
	sp.mns[0] = 64;
	sp.mns[1] = 256;
	sp.ndtype = 1;
	sp.dtype[0] = DT_FP8;
	search_enumerate(moe, b, 1, &sp, &d, &n);
	/* TP 8: PP 1 (one copy or 2 replicas), PP 2; EP off, 8; x 2
	 * max_num_seqs */
	CHECK(n == 12 && d[0].max_num_seqs == 64 && d[1].max_num_seqs == 256 && d[0].wdt == DT_FP8,
	      "lists narrow the space: TP 8, fp8, max_num_seqs 64,256 (%zu)", n);
	free(d);
	/* --replicas LIST: those counts only, within the budget */
	sp.nmns = 1;
	sp.mns[0] = 0;
	sp.nreplicas = 2;
	sp.replicas[0] = 1;
	sp.replicas[1] = 4;
	search_enumerate(moe, b, 1, &sp, &d, &n);
	CHECK(n == 4 && d[0].replicas == 1 && d[0].gpus == 8 && d[1].replicas == 1 && d[2].replicas == 1 &&
		      d[2].par.pp == 2 && d[3].replicas == 1,
	      "--replicas 1,4 on 16 GPUs: 4 x 8 GPUs does not fit, one copy of each (%zu)", n);
	free(d);
	test_enumerate_mixed(dense);
	free(dense);
	free(moe);
}

static void test_rows(void)
{
	struct sweep_row *r = xcalloc(1, sizeof(*r));
	struct sweep_result res;
	struct sbuf sb;

	sweep_row_init(r);
	sweep_row_str(r, "a", "x,\"y\"");
	sweep_row_int(r, "b", -3);
	sweep_row_num(r, "c", 2.5);
	sweep_row_num(r, "d", NAN);
	sb_init(&sb);
	sweep_row_header(r, SWEEP_CSV, &sb);
	sweep_row_render(r, SWEEP_CSV, &sb);
	CHECK(strcmp(sb.buf, "a,b,c,d\n\"x,\"\"y\"\"\",-3,2.5,\n") == 0, "CSV quoting, empty for NAN: %s", sb.buf);
	sb_reset(&sb);
	sweep_row_header(r, SWEEP_JSONL, &sb);
	sweep_row_render(r, SWEEP_JSONL, &sb);
	CHECK(strcmp(sb.buf, "{\"a\": \"x,\\\"y\\\"\", \"b\": -3, \"c\": 2.5, \"d\": null}\n") == 0,
	      "JSONL, null for NAN: %s", sb.buf);
	/* no completions: every latency statistic null, never 0 */
	memset(&res, 0, sizeof(res));
	snprintf(res.status, sizeof(res.status), "no completions");
	sweep_row_init(r);
	sweep_row_result(r, &res);
	sb_reset(&sb);
	sweep_row_render(r, SWEEP_JSONL, &sb);
	CHECK(strstr(sb.buf, "\"ttft_p90_ms\": null") && strstr(sb.buf, "\"itl_mean_ms\": null") &&
		      strstr(sb.buf, "\"output_tok_s\": null"),
	      "empty set: null statistics");
	sweep_row_template(r);
	CHECK(r->n > 60, "the template row has every column (%zu)", r->n);
	sb_release(&sb);
	free(r);
}

/* One deployment end to end: Llama-3.1-8B TP 1 on an H100 meets a loose
 * SLO; the same scenario on 1 GPU with bf16 Llama-3.1-70B is pruned. */
static void test_evaluate(void)
{
	struct model_cfg *m = xcalloc(1, sizeof(*m)), *big = xcalloc(1, sizeof(*big));
	const struct gpu_spec *g;
	struct wl_spec wl;
	struct scenario base[1];
	struct cap_cfg cc;
	struct search_in in;
	struct search_deploy d;
	struct search_outcome o, o2;
	struct err e;

	if (registry_load_model(&reg, "llama-3.1-8b", m, &e) < 0 ||
	    registry_load_model(&reg, "llama-3.1-70b", big, &e) < 0 || gpu_find(&db, "h100", &g, &e) < 0) {
		CHECK(0, "set-up: %s", e.msg);
		free(m);
		free(big);
		return;
	}
	fixture_wl(&wl, WL_POISSON, 1, 300, 7);
	wl.prompt = (struct wl_dist){.kind = WL_LOGNORMAL, .a = 600, .b = 300, .min = 16, .max = 4096};
	wl.output = (struct wl_dist){.kind = WL_LOGNORMAL, .a = 250, .b = 120, .min = 8, .max = 1024};
	scenario_defaults(&base[0], engine_default(), m, g, &wl);
	cap_cfg_defaults(&cc);
	cc.seed = 7;
	CHECK(cap_slo_parse("ttft_p90_ms=500,itl_mean_ms=30", &cc, &e) == 0, "slo");
	memset(&in, 0, sizeof(in));
	in.base = base;
	in.data_dir = datadir;
	in.wl = &wl;
	in.cc = &cc;
	in.kv_follows_dtype = true;
	in.nengine = 1;
	memset(&d, 0, sizeof(d));
	d.par = (struct parallel){.tp = 1, .pp = 1, .dp = 1, .ep = 1};
	d.wdt = DT_BF16;
	d.gpus = 1;
	CHECK(search_evaluate(&in, &d, 3.0, NULL, &o, &e) == 0 && o.status == SEARCH_OK, "8B TP 1 ranked");
	CHECK(o.max_rate > 10 && o.max_rate < 60, "capacity %.4g req/s", o.max_rate);
	CHECK_REL(o.tok_s_gpu, o.out_tok_s, 1e-12, "tokens/s/GPU = tokens/s on one GPU");
	CHECK(o.tok_s_user > 1000.0 / 30 && o.itl_mean_ms <= 30, "tokens/s/user %.1f = 1000 / ITL %.2f ms",
	      o.tok_s_user, o.itl_mean_ms);
	CHECK_REL(o.usd_per_mtok, 3.0 / (o.out_tok_s * 3600) * 1e6, 1e-12, "$/M tokens from $3/GPU-hour");
	CHECK(search_gpus_for_rate(&o, 2.5 * o.max_rate) == 3, "2.5 x capacity needs 3 GPUs");
	CHECK(search_evaluate(&in, &d, 3.0, NULL, &o2, &e) == 0 && memcmp(&o, &o2, sizeof(o)) == 0,
	      "evaluation is a pure function (same record bytes)");
	/* two replicas behind the router: a higher rate over two GPUs (less
	 * than twice in a 300-request run, whose warm-up hides part of it) */
	d.par.dp = 2;
	d.gpus = 2;
	CHECK(search_evaluate(&in, &d, 3.0, NULL, &o2, &e) == 0 && o2.status == SEARCH_OK, "8B DP 2 ranked");
	CHECK(o2.max_rate > 1.15 * o.max_rate && o2.max_rate < 2.4 * o.max_rate, "DP 2: %.4g req/s vs %.4g",
	      o2.max_rate, o.max_rate);
	CHECK_REL(o2.tok_s_gpu, o2.out_tok_s / 2, 1e-12, "tokens/s/GPU over both replicas' GPUs");
	/* --replicas 2 of TP 1 (the same engines as DP 2 of a dense model),
	 * probed with twice the requests (cap_probe_requests), so each replica
	 * sees the 1,000 one copy does: about twice one copy's capacity, at
	 * least 2 x (1 - 5 %) (the 1 % bisections and the runs' noise), at most
	 * 2 x (1 + 15 %): the least-loaded router hands each replica arrivals
	 * smoother than Poisson, which lowers the TTFT p90 at a given rate
	 * (300 requests are too few to judge either) */
	wl.num_requests = 1000;
	d.par.dp = 1;
	d.gpus = 1;
	{
		struct search_outcome one, two;
		int rc = search_evaluate(&in, &d, 3.0, NULL, &one, &e);
		d.replicas = 2;
		d.gpus = 2;
		if (rc == 0)
			rc = search_evaluate(&in, &d, 3.0, NULL, &two, &e);
		CHECK(rc == 0 && one.status == SEARCH_OK && two.status == SEARCH_OK, "8B one copy and 2 replicas ranked (%s)",
		      rc < 0 ? e.msg : "");
		CHECK(two.max_rate >= 1.9 * one.max_rate && two.max_rate <= 2.3 * one.max_rate,
		      "2 replicas: about twice one copy's capacity (%.4g vs %.4g req/s)", two.max_rate, one.max_rate);
		CHECK_REL(two.tok_s_gpu, two.out_tok_s / 2, 1e-12, "tokens/s/GPU over both replicas' GPUs");
	}
	wl.num_requests = 300;
	d.replicas = 1;
	d.gpus = 1;
	scenario_defaults(&base[0], engine_default(), big, g, &wl);
	CHECK(search_evaluate(&in, &d, NAN, NULL, &o, &e) == 0 && o.status == SEARCH_PRUNED, "70B bf16 on 1 GPU pruned");
	CHECK_STR_CONTAINS(o.reason, "does not fit", "reason");
	CHECK(o.prune == SEARCH_PRUNE_WEIGHTS, "pruned for the weights (%s)", search_prune_name(o.prune));
	{
		/* its replicas are pruned alike: dropped without a --replicas list */
		struct search_outcome r[3] = {o, o, o2};
		struct search_space sp;
		search_space_defaults(&sp);
		r[1].d.replicas = 2;
		CHECK(search_drop_pruned_copies(r, 3, &sp) == 2 && r[1].status == SEARCH_OK,
		      "pruned replicas of a pruned copy dropped, the rest kept in order");
		sp.nreplicas = 1;
		sp.replicas[0] = 2;
		CHECK(search_drop_pruned_copies(r, 2, &sp) == 2, "kept when --replicas lists them");
	}
	free(m);
	free(big);
}

/* The search's summary: counts by status, ranking, Pareto front, and for a
 * target rate the deployment needing the fewest GPUs, the cheapest per hour
 * on a tie (a pricier GPU type loses with as many GPUs); prices matched to
 * the budget by GPU id or alias. */
static void test_summary(void)
{
	struct search_outcome r[4];
	struct search_gpu budget[2];
	struct search_summary s;
	struct price pr[2] = {{"H100-SXM", 3.0, ""}, {"a100", 1.25, ""}};
	struct prices t = {"p.json", "", pr, 2};
	const struct gpu_spec *h100, *a100, *g;
	struct err e;
	size_t i;

	CHECK(gpu_find(&db, "h100", &h100, &e) == 0 && gpu_find(&db, "a100", &a100, &e) == 0, "GPUs");
	/* GPUs as result files write them (eval's experiments, silicon rows) */
	CHECK(gpu_find(&db, "H100_80GB", &g, &e) < 0 && gpu_find_result_name(&db, "H100_80GB", &g, &e) == 0 &&
	      g == h100, "result name H100_80GB is %s", g->id);
	CHECK(gpu_find_result_name(&db, "h900_sxm", &g, &e) == -SS_EUSAGE, "h900_sxm unknown");
	CHECK_STR_CONTAINS(e.msg, "unknown gpu 'h900_sxm'", "the name as given");
	budget[0] = (struct search_gpu){h100, 8, 0};
	budget[1] = (struct search_gpu){a100, 8, 0};
	CHECK(search_price_budget(&t, &db, budget, 2, &e) == 0 && budget[0].usd_per_gpu_hour == 3.0 &&
	      budget[1].usd_per_gpu_hour == 1.25, "prices by alias: h100 $%.2f, a100 $%.2f",
	      budget[0].usd_per_gpu_hour, budget[1].usd_per_gpu_hour);
	t.n = 1;
	CHECK(search_price_budget(&t, &db, budget, 2, &e) == 0 && isnan(budget[1].usd_per_gpu_hour),
	      "a GPU the table does not price: NAN");
	snprintf(pr[0].gpu, sizeof(pr[0].gpu), "h900");
	CHECK(search_price_budget(&t, &db, budget, 2, &e) == -SS_EDATA, "unknown GPU in the table refused");
	CHECK_STR_CONTAINS(e.msg, "p.json: gpus.h900", "message");
	budget[0].usd_per_gpu_hour = 3.0;
	budget[1].usd_per_gpu_hour = 1.25;

	memset(r, 0, sizeof(r));
	for (i = 0; i < 4; i++) {
		r[i].status = SEARCH_OK;
		r[i].probes = 5;
	}
	/* 0: H100, 2 GPUs, 10 req/s, fastest per GPU */
	r[0].d.gpu = 0, r[0].d.gpus = 2, r[0].max_rate = 10, r[0].tok_s_gpu = 900, r[0].tok_s_user = 50;
	/* 1: A100, 2 GPUs, 10 req/s: as many GPUs for 25 req/s, cheaper */
	r[1].d.gpu = 1, r[1].d.gpus = 2, r[1].max_rate = 10, r[1].tok_s_gpu = 500, r[1].tok_s_user = 60;
	/* 2: pruned; 3: no rate */
	r[2].status = SEARCH_PRUNED, r[2].prune = SEARCH_PRUNE_KV, r[2].probes = 0;
	r[3].status = SEARCH_NO_RATE;
	search_summarize(r, 4, budget, 25, SEARCH_RANK_THROUGHPUT, &s);
	CHECK(s.nok == 2 && s.npruned == 1 && s.nnorate == 1 && s.pruned_by[SEARCH_PRUNE_KV] == 1 && s.runs == 15,
	      "counts: %zu ok, %zu pruned, %zu no rate, %zu runs", s.nok, s.npruned, s.nnorate, s.runs);
	CHECK(s.order[0] == 0 && s.order[1] == 1, "ranked by tokens/s/GPU");
	CHECK(s.front[0] && s.front[1] && !s.front[2] && !s.front[3], "both OK ones on the front");
	CHECK(s.best_target == 1, "25 req/s: 6 GPUs either way, the A100s cheaper (best %d)", s.best_target);
	search_summary_release(&s);
	r[1].max_rate = 8; /* now 8 A100s against 6 H100s */
	search_summarize(r, 4, budget, 25, SEARCH_RANK_THROUGHPUT, &s);
	CHECK(s.best_target == 0, "fewer GPUs first, whatever they cost (best %d)", s.best_target);
	search_summary_release(&s);
	search_summarize(r, 4, budget, 0, SEARCH_RANK_THROUGHPUT, &s);
	CHECK(s.best_target == -1, "no target: none");
	search_summary_release(&s);
	/* by energy: fewest joules per output token first, whatever the
	 * throughput; one without an energy figure after those with one */
	r[0].j_per_tok = 0.30, r[1].j_per_tok = 0.20;
	search_summarize(r, 4, budget, 0, SEARCH_RANK_ENERGY, &s);
	CHECK(s.order[0] == 1 && s.order[1] == 0, "ranked by J/token: 0.20 before 0.30");
	search_summary_release(&s);
	r[1].j_per_tok = NAN;
	search_summarize(r, 4, budget, 0, SEARCH_RANK_ENERGY, &s);
	CHECK(s.order[0] == 0 && s.order[1] == 1, "no energy figure: after those with one");
	search_summary_release(&s);
	{
		enum search_rank_by by;
		CHECK(search_rank_parse("energy", &by, &e) == 0 && by == SEARCH_RANK_ENERGY, "--rank energy");
		CHECK(search_rank_parse("watts", &by, &e) == -SS_EUSAGE, "--rank watts refused");
		CHECK_STR_CONTAINS(e.msg, "--rank: expected throughput or energy, got 'watts'", "message");
	}
}

/* --- autoscaling replay (plan/autoscale.c): replicas rise with the load
 * and fall after it, the scale-up delay, GPU-hours below the fixed pool's,
 * no request lost while replicas drain, the SLO attainment, determinism
 * and the refused configurations --- */

static struct cost_model cm;
static struct sim_cfg scfg;
static struct wl_spec wl;

/* Llama-2-7B bf16 on one H100 per replica, 4 replicas at most, 64
 * sequences and 2048 tokens a step, 4000 KV blocks of 16 tokens. */
static int as_setup(void)
{
	static struct model_cfg m; /* the cost model keeps a pointer to it */
	struct cost_cfg cc;
	struct parallel p = {1, 1, 1, 1, 0, 0};
	const struct gpu_spec *g;
	struct err e;

	if (registry_load_model(&reg, "llama-2-7b", &m, &e) < 0 || gpu_find(&db, "h100", &g, &e) < 0)
		goto fail;
	fixture_cost_cfg(&cc, 2048, 64, 512);
	if (cost_init(&cm, &m, g, &p, &cc, datadir, &e) < 0)
		goto fail;
	memset(&scfg, 0, sizeof(scfg));
	scfg.max_num_batched_tokens = 2048;
	scfg.max_num_seqs = 64;
	scfg.max_model_len = 8192;
	scfg.block_size = 16;
	scfg.total_kv_blocks = 4000;
	scfg.prefix_caching = true;
	scfg.dp = 1;
	scfg.replicas = 4;
	scfg.check_invariants = true; /* arrived = completed + in flight + rejected after every event */
	scfg.policy = engine_default()->policy;
	scfg.router = ROUTER_LEAST_OUTSTANDING;
	/* Poisson arrivals from 2 req/s up to 60 over 200 s, held 200 s, down
	 * to 2 over 200 s */
	fixture_curve(&wl, 4, (const double[]){0, 200, 400, 600}, (const double[]){2, 60, 60, 2});
	wl.prompt.kind = WL_NORMAL;
	wl.prompt.a = 400;
	wl.prompt.b = 100;
	wl.output.kind = WL_UNIFORM;
	wl.output.a = 100;
	wl.output.b = 300;
	return 0;
fail:
	printf("# setup: %s\n", e.msg);
	return -1;
}

static void base_as(struct autoscale_cfg *c)
{
	memset(c, 0, sizeof(*c));
	c->min = 1;
	c->max = 4;
	c->policy = AS_UTILIZATION;
	c->target = 0.7;
	c->interval_s = 20;
	c->load_s = 10;
	c->warmup_s = 20;
	c->grace_s = 60;
	c->slo_ttft_ms = c->slo_itl_ms = NAN;
	c->gpus_per_replica = 1;
	c->usd_per_gpu_hour = 3;
	c->cost = &cm;
	c->max_num_batched_tokens = scfg.max_num_batched_tokens;
	c->max_num_seqs = scfg.max_num_seqs;
	c->kv_tokens = scfg.total_kv_blocks * scfg.block_size;
}

/* One replay; its totals in *tot.  <0 on failure (printed). */
static int replay(const struct autoscale_cfg *c, struct autoscale_result *r, struct sim_totals *tot)
{
	struct sim *s;
	struct err e;
	int rc = sim_new(&scfg, &cm, &wl, &s, &e);

	memset(r, 0, sizeof(*r));
	if (rc == 0 && (rc = autoscale_run(s, c, r, &e)) == 0)
		*tot = *sim_totals(s);
	if (rc < 0)
		printf("# replay: %s\n", e.msg);
	sim_free(s);
	return rc;
}

/* The serving replicas at time t. */
static int serving_at(const struct autoscale_result *r, double t)
{
	int n = 0;
	size_t i;

	for (i = 0; i < r->npts && r->pts[i].time_s <= t; i++)
		n = r->pts[i].replicas;
	return n;
}

static void test_as_utilization(void)
{
	struct autoscale_cfg c;
	struct autoscale_result r, r2;
	struct sim_totals t, t2;
	bool delay_ok, same;
	size_t i, k;

	base_as(&c);
	CHECK(replay(&c, &r, &t) == 0, "utilization replay runs");
	CHECK(t.arrived > 10000 && t.arrived == t.completed + t.rejected[REJ_TOO_LONG] + t.rejected[REJ_KV_CAPACITY],
	      "every one of %llu requests completed or rejected (%llu completed) while replicas drained",
	      (unsigned long long)t.arrived, (unsigned long long)t.completed);
	CHECK(serving_at(&r, 10) == 1 && r.peak == 4 && serving_at(&r, 390) >= 3,
	      "replicas rise with the load: 1 at 10 s, %d at 390 s, peak %d", serving_at(&r, 390), r.peak);
	CHECK(r.npts > 0 && r.pts[r.npts - 1].replicas == 1 && r.pts[r.npts - 1].provisioned == 1 &&
		      r.scale_downs >= 3,
	      "and fall after it: %d serving, %d provisioned at the end, %llu removed",
	      r.npts ? r.pts[r.npts - 1].replicas : -1, r.npts ? r.pts[r.npts - 1].provisioned : -1,
	      (unsigned long long)r.scale_downs);
	CHECK(r.gpu_hours < 0.8 * r.gpu_hours_fixed && r.gpu_hours > r.duration_s / 3600,
	      "GPU-hours %.4f below the fixed 4-replica pool's %.4f, above one replica's %.4f", r.gpu_hours,
	      r.gpu_hours_fixed, r.duration_s / 3600);
	CHECK_REL(r.cost_usd, 3 * r.gpu_hours, 1e-12, "cost = GPU-hours x price");
	CHECK(isnan(r.slo_attainment), "no SLO given: attainment NAN");
	/* the first scale-up (from stopped replicas) is decided at an interval's
	 * end and serves load_s + warmup_s later; provisioned rises first */
	for (i = 0; i < r.npts && r.pts[i].provisioned == 1; i++)
		;
	for (k = 0; k < r.npts && r.pts[k].replicas == 1; k++)
		;
	delay_ok = i < r.npts && k < r.npts && fmod(r.pts[i].time_s, 20) == 0 &&
		   fabs(r.pts[k].time_s - r.pts[i].time_s - 30) < 1e-9;
	CHECK(delay_ok, "the first scale-up, decided at %.0f s, serves at %.0f s: 10 s loading + 20 s warm-up later",
	      i < r.npts ? r.pts[i].time_s : -1.0, k < r.npts ? r.pts[k].time_s : -1.0);
	CHECK(replay(&c, &r2, &t2) == 0, "second replay runs");
	same = r.npts == r2.npts && t.completed == t2.completed && r.gpu_hours == r2.gpu_hours;
	for (i = 0; same && i < r.npts; i++)
		same = r.pts[i].time_s == r2.pts[i].time_s && r.pts[i].replicas == r2.pts[i].replicas;
	CHECK(same, "the same replay twice: the same replicas over time and GPU-hours");
	autoscale_result_release(&r);
	autoscale_result_release(&r2);
}

/* Stages instead of a curve: 4 req/s, 50 req/s, 4 req/s, 200 s each. */
static void test_as_stages(void)
{
	struct autoscale_cfg c;
	struct autoscale_result r;
	struct sim_totals t;
	struct wl_spec keep = wl;

	wl.ncurve = 0;
	wl.nstages = 3;
	wl.stages[0] = (struct wl_stage){4, 200};
	wl.stages[1] = (struct wl_stage){50, 200};
	wl.stages[2] = (struct wl_stage){4, 200};
	base_as(&c);
	CHECK(replay(&c, &r, &t) == 0 && t.arrived == t.completed && serving_at(&r, 150) == 1 &&
		      serving_at(&r, 390) >= 2 && r.pts[r.npts - 1].replicas == 1,
	      "stages: 1 replica at 150 s, %d at 390 s (the 50 req/s stage), %d at the end; all %llu completed",
	      serving_at(&r, 390), r.npts ? r.pts[r.npts - 1].replicas : -1, (unsigned long long)t.completed);
	autoscale_result_release(&r);
	wl = keep;
}

static void test_as_slo(void)
{
	struct autoscale_cfg c;
	struct autoscale_result r;
	struct sim_totals t;

	base_as(&c);
	c.policy = AS_SLO;
	c.slo_ttft_ms = 1000;
	c.slo_itl_ms = 40;
	CHECK(replay(&c, &r, &t) == 0, "slo replay runs");
	CHECK(r.peak >= 2 && r.pts[r.npts - 1].replicas < r.peak && r.gpu_hours < r.gpu_hours_fixed,
	      "slo: replicas rise to %d and fall to %d; %.4f GPU-hours (fixed %.4f)", r.peak,
	      r.pts[r.npts - 1].replicas, r.gpu_hours, r.gpu_hours_fixed);
	CHECK(r.slo_attainment >= 0.9 && r.slo_attainment <= 1 && r.slo_met <= t.completed,
	      "slo: %.3f of requests met TTFT <= 1 s and ITL <= 40 ms", r.slo_attainment);
	autoscale_result_release(&r);
	/* the fixed minimum: one replica all along is what min = max = 1 gives */
	base_as(&c);
	c.max = 1;
	c.slo_ttft_ms = 1e9;
	CHECK(replay(&c, &r, &t) == 0 && r.npts == 1 && r.scale_ups == 0 &&
		      fabs(r.gpu_hours - r.duration_s / 3600) < 1e-12 && r.slo_attainment == 1,
	      "1:1 is a fixed replica: %.4f GPU-hours over %.1f s, attainment %.3f of a limit nobody misses",
	      r.gpu_hours, r.duration_s, r.slo_attainment);
	autoscale_result_release(&r);
}

static void test_as_refused(void)
{
	struct autoscale_cfg c;
	struct autoscale_result r;
	struct sim *s;
	struct err e;

	base_as(&c);
	c.max = 5;
	CHECK(sim_new(&scfg, &cm, &wl, &s, &e) == 0 && autoscale_run(s, &c, &r, &e) == -SS_EUSAGE &&
		      strstr(e.msg, "MAX <= 4"),
	      "more replicas than the simulation holds refused: %s", e.msg);
	sim_free(s);
	base_as(&c);
	c.policy = AS_SLO;
	CHECK(sim_new(&scfg, &cm, &wl, &s, &e) == 0 && autoscale_run(s, &c, &r, &e) == -SS_EUSAGE &&
		      strstr(e.msg, "needs an SLO"),
	      "slo policy without an SLO refused: %s", e.msg);
	sim_free(s);
	CHECK(autoscale_policy_parse("util", &c.policy, &e) == 0 && c.policy == AS_UTILIZATION &&
		      autoscale_policy_parse("hpa", &c.policy, &e) == -SS_EUSAGE,
	      "policy names: %s", e.msg);
}

/* What the commands' set-up left src/cmd/ for (issue 27): sweep's axis
 * rules, run's deployment flags taken together, run_job_simulate's ticks
 * and serve's deployment with its served name. */
static void count_tick(void *ctx, const struct sim *s)
{
	(void)s;
	++*(int *)ctx;
}

static void test_jobs(void)
{
	struct sweep_plan p;
	struct scenflags sf;
	struct scenflags_run ex;
	struct wl_source wf;
	struct run_spec rs;
	struct run_job j;
	struct serve_job sj;
	struct serve_cfg cfg;
	struct err e;
	int ticks = 0, rc;

	memset(&p, 0, sizeof(p));
	grid_init(&p.g);
	CHECK(grid_add_words(&p.g, "dtype", "--dtype", "fp8,bf16", &e) == 0 && sweep_plan_axes_check(&p, &e) == 0,
	      "sweep: known dtypes pass");
	CHECK(grid_add_words(&p.g, "engine", "--engine", "vllm,xx", &e) == 0 && sweep_plan_axes_check(&p, &e) < 0 &&
		      strstr(e.msg, "unknown engine 'xx'"),
	      "sweep: an unknown engine fails before any point: '%s'", e.msg);
	grid_release(&p.g);
	grid_init(&p.g);
	grid_add_numbers(&p.g, "rate", "--rate", "1,2", false, 1e-9, 1e9, &e);
	grid_add_numbers(&p.g, "concurrency", "--concurrency", "3", true, 1, 1 << 20, &e);
	CHECK(sweep_plan_axes_check(&p, &e) < 0 && strstr(e.msg, "not both"), "sweep: rate and concurrency: '%s'", e.msg);
	grid_release(&p.g);

	scenflags_defaults(&sf);
	memset(&ex, 0, sizeof(ex));
	ex.prefill_tp = 2;
	CHECK(scenflags_run_check(&sf, &ex, NULL, &e) < 0 && strstr(e.msg, "need --disaggregate"),
	      "run: a prefill layout without P/D: '%s'", e.msg);
	ex.pd_prefill = ex.pd_decode = 1;
	CHECK(scenflags_run_check(&sf, &ex, "h200", &e) == 0 && strcmp(sf.gpu, "h200") == 0,
	      "run: --decode-gpu is the deployment's GPU");
	sf.gpu_given = true;
	CHECK(scenflags_run_check(&sf, &ex, "h200", &e) < 0 && strstr(e.msg, "give one of them"),
	      "run: --decode-gpu with --gpu: '%s'", e.msg);

	scenflags_defaults(&sf);
	memset(&ex, 0, sizeof(ex));
	memset(&wf, 0, sizeof(wf));
	wf.ov.nreq = 40;
	wf.ov.nreq_given = true;
	wf.ov.rate = 4;
	wf.ov.rate_given = true;
	rs = (struct run_spec){&sf, &wf, &ex, NULL, NULL, NULL, false, false, false, false, 0};
	rc = run_job_prepare(&rs, &j, &e);
	CHECK(rc == 0, "run job prepared: %s", rc ? e.msg : "");
	if (rc == 0) {
		const struct sim_totals *t;
		rc = run_job_simulate(&j, count_tick, &ticks, &e);
		t = sim_totals(j.st.sim);
		CHECK(rc == 0 && t->arrived == 40 && t->completed == 40 && ticks <= (int)(t->events >> 16),
		      "run job simulated to its end: %llu of 40 completed, %d ticks in %llu events",
		      (unsigned long long)t->completed, ticks, (unsigned long long)t->events);
	}
	run_job_release(&j);

	/* audit31: --max-requests raises the limit the flags' checks apply
	 * (it was set only after them: the message that names the flag as the
	 * way out was given whatever its value); prepared, not simulated */
	scenflags_defaults(&sf);
	memset(&wf, 0, sizeof(wf));
	wf.ov.nreq = 30000000;
	wf.ov.nreq_given = true;
	rc = run_job_prepare(&rs, &j, &e);
	CHECK(rc < 0 && strstr(e.msg, "more than the limit of 20000000"), "run: 3e7 requests past the default "
	      "limit: '%s'", rc ? e.msg : "");
	run_job_release(&j);
	scenflags_defaults(&sf);
	wf.max_requests = 40000000;
	rc = run_job_prepare(&rs, &j, &e);
	CHECK(rc == 0 && j.wl.max_requests == 40000000, "run: --max-requests 4e7 admits 3e7 requests: %s",
	      rc ? e.msg : "");
	run_job_release(&j);

	scenflags_defaults(&sf);
	memset(&cfg, 0, sizeof(cfg));
	cfg.speed = 2;
	rc = serve_job_prepare(&sf, &cfg, &sj, &e);
	CHECK(rc == 0 && cfg.model_name && strcmp(cfg.model_name, "meta-llama/Llama-3.1-8B-Instruct") == 0 &&
		      strstr(sj.what, "on h100-sxm (TP 1 PP 1 DP 1), engine vllm, 2 x real time"),
	      "serve: the HF name served, '%s'", sj.what);
	serve_job_release(&sj);
}

int main(void)
{
	if (fixture_load(datadir, sizeof(datadir), &reg, &db) < 0)
		return 1;
	test_grid();
	test_parmap();
	test_pareto();
	test_prices();
	test_launch();
	test_enumerate();
	test_rows();
	test_evaluate();
	test_summary();
	test_jobs();
	CHECK(as_setup() == 0, "autoscaling: Llama-2-7B on H100 replicas set up");
	if (check_failed == 0) {
		test_as_utilization();
		test_as_stages();
		test_as_slo();
		test_as_refused();
		cost_release(&cm);
	}
	registry_release(&reg);
	gpu_db_release(&db);
	return check_done();
}
