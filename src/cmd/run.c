/* run.c - `servesim run`: simulate a workload on a model / GPU / parallelism
 * / engine configuration and report what a client would measure. */
#define _GNU_SOURCE
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "cmds.h"
#include "servesim/afile.h"
#include "servesim/alloc.h"
#include "servesim/cost.h"
#include "servesim/json.h"
#include "servesim/memplan.h"
#include "servesim/scenario.h"
#include "servesim/tier2.h"
#include "servesim/sim.h"
#include "servesim/version.h"
#include "servesim/workload.h"

static const char run_usage[] =
	"usage: servesim run [--workload FILE] [--model M | --config PATH] [options]\n"
	"\n"
	"Simulates every request of a workload through vLLM-style serving replicas and\n"
	"reports TTFT, ITL, TPOT, E2E, queueing and throughput, overall and per stage.\n"
	"With no arguments: workloads/default.json on Llama-3.1-8B, one H100.\n"
	"\n"
	"model and hardware:\n"
	"  --model M                 registry id or HF name (default llama-3.1-8b)\n"
	"  --config PATH             an HF config.json instead\n"
	"  --gpu G                   GPU (default h100)\n"
	CLI_PARALLEL_HELP
	"                            (dense models: --dp runs N replicas behind the router)\n"
	"  --pp N                    pipeline stages (--pipeline-parallel-size, --pp-size)\n"
	"  --router rr|lo            DP router: round-robin or least-outstanding (default lo)\n"
	"  --dtype bf16|fp8|fp4|int4 weights and GEMMs (default bf16; fp4 needs a Blackwell GPU;\n"
	"                            int4 = weight-only W4A16)\n"
	"  --moe-dtype D             routed experts' weights when they differ from --dtype\n"
	"  --moe-format F            routed experts' format: bf16, fp8 (per-tensor scales),\n"
	"                            fp8_block, fp4 (NVFP4), mxfp4 or int4 (default: as the\n"
	"                            checkpoint stores them, else --dtype)\n"
	"  --kv-dtype bf16|fp8       KV cache (default: --dtype)\n"
	"kernels:\n"
	"  --engine vllm|sglang|trtllm  whose measured kernel tables price the step (default vllm)\n"
	"  --engine-version V        the collected version nearest V (default: the newest)\n"
	"  --moe-distribution D      expert routing imbalance of the MoE tables: power_law_1.01\n"
	"                            (default), balanced or power_law_1.2\n"
	"engine (vLLM v1 defaults):\n"
	"  --max-num-batched-tokens N --max-num-seqs N  (8192 and 1024 on a GPU with\n"
	"                            >= 70 GiB other than A100, else 2048 and 256)\n"
	"  --max-model-len N (the model's max_position_embeddings)\n"
	"  --block-size N (16)  --gpu-memory-utilization F (0.9)\n"
	"  --long-prefill-token-threshold N (0 = off)\n"
	"  --total-kv-blocks N       KV blocks per replica, as vLLM logs them (default: from memory)\n"
	"  --no-prefix-caching\n"
	"  --allow-invalid           simulate a configuration vLLM/SGLang would refuse to start\n"
	"                            (KV cache below max_model_len, max_model_len above the\n"
	"                            model's maximum, a dtype the GPU lacks, EP other than\n"
	"                            1 or TP x DP), with a warning; refused with exit 2 otherwise\n"
	"speculative decoding (vLLM V1 spec decode / MTP):\n"
	"  --speculative-tokens K    draft tokens verified per step (--num-speculative-tokens)\n"
	"  --speculative-method mtp|eagle|ngram|draft:MODEL  (default mtp)\n"
	"  --acceptance-rate A | A1,...,AK  per-position acceptance (one rate: geometric;\n"
	"                            default for mtp 0.85, DeepSeek-V3 report)\n"
	"P/D disaggregation:\n"
	"  --disaggregate XpYd       X prefill workers hand each prompt's KV to Y decode\n"
	"                            workers (each worker one engine of --tp/--pp/--ep)\n"
	"  --prefill-tp N --prefill-ep N  the prefill workers' layout (default: the same)\n"
	"workload:\n";
/* (split: ISO C caps a string literal at 4095 characters) */
static const char run_usage2[] =
	"engine (--engine sglang: SGLang's scheduler and its defaults, README):\n"
	"  --chunked-prefill-size N  prefill tokens per step (SGLang's rule by GPU memory)\n"
	"  --mem-fraction-static F   weights + KV pool as a share of GPU memory (SGLang's rule)\n"
	"  --max-running-requests N  (SGLang's rule from the KV pool; --max-num-seqs alike)\n"
	"  --schedule-policy fcfs|lpm  waiting-queue order (default fcfs)\n"
	"  --disable-overlap-schedule  the CPU overhead terms add to each step (default:\n"
	"                            overlapped with the GPU's previous batch)\n"
	"  --page-size N (1)  --context-length N  --disable-radix-cache\n"
	"  --workload FILE           workload spec (JSON), see README\n"
	"  --rate R --num-requests N --prompt-tokens MEAN[:STD] --output-tokens MEAN[:STD]\n"
	"                            a Poisson workload from flags (normal lengths when STD given)\n"
	"  --seed S                  override the spec's seed\n"
	"  --max-requests N          allow a workload of more than N requests (default 20000000)\n"
	"model:\n"
	"  --tier0-off LIST          switch corrections off, e.g. H2 or H1,H4 (ablation)\n"
	"  --overhead-step-us X --overhead-layer-us X --overhead-request-us X\n"
	"  --api-ttft-ms X --stream-token-us X --delivery-steps X\n"
	"                            override the H2 overhead terms (defaults: README)\n"
	"  --tier2 FILE|none         tier-2 hardware file (default: calibration/tier2/<gpu>.json\n"
	"                            when it exists)\n"
	"output:\n"
	"  --format text|json|csv    summary format (default text)\n"
	"  --requests-out FILE.csv   one row per request, written atomically\n"
	"  --progress                progress on stderr\n"
	"  --exact-percentiles       exact percentiles past 1,000,000 completed requests\n"
	"                            (else from a log histogram, relative error <= 0.1 %)\n"
	"  --step-log FILE           one line per engine step: scheduled id+tokens, queues, KV\n"
	"\n"
	"Metrics are client-side: TTFT = first token - arrival + API term; ITL =\n"
	"(E2E - TTFT)/(output - 1) (vLLM's TPOT); TPOT = E2E / output tokens (GuideLLM >= 0.4);\n"
	"percentiles interpolate linearly between order statistics.\n"
	"exit codes: 0 ok, 1 runtime error, 2 usage/config error, 3 bad input data\n";

struct run_opts {
	const char *model, *config, *gpu, *workload, *requests_out, *tier0_off;
	struct parallel par;
	struct cli_par_flags pf;
	enum router_kind router;
	enum dtype dtype, kvdtype;
	bool kv_given;
	int64_t mbt, mns, mml, block, lpt, kv_blocks;
	bool block_given;
	double util;
	bool no_prefix, progress, check_inv, allow_invalid;
	bool exact;                 /* --exact-percentiles */
	bool no_segments;           /* --no-decode-segments (tests: step by step) */
	int64_t spec_k;
	const char *spec_method, *spec_rates;
	int pd_prefill, pd_decode;
	int64_t prefill_tp, prefill_ep;
	double rate;
	int64_t nreq, max_requests;
	double p_mean, p_std, o_mean, o_std;
	bool wl_flags;
	int64_t seed;
	bool seed_given;
	enum out_format fmt;
	struct overheads ov;
	const char *step_log, *tier2;
	const char *engine, *engine_version;
	/* SGLang's settings (0 / NULL: its rules) */
	double mem_frac;
	const char *sg_policy;
	bool no_overlap, util_given;
	bool moe_dtype_given;
	enum dtype moe_dtype;
	enum moe_dist moe_dist;
	int moe_format;
};

static int parse_len(const char *flag, const char *arg, double *mean, double *std, struct err *e)
{
	char buf[64], *colon;
	int rc;

	snprintf(buf, sizeof(buf), "%s", arg);
	colon = strchr(buf, ':');
	*std = 0;
	if (colon) {
		*colon = '\0';
		if ((rc = cli_double(flag, colon + 1, 0, false, std, e)) < 0)
			return rc;
	}
	return cli_double(flag, buf, 1, false, mean, e);
}

static int parse_run(int argc, char **argv, struct run_opts *o, struct err *e)
{
	enum { O_MODEL = 256, O_CONFIG, O_GPU, O_ROUTER, O_DTYPE, O_KVD,
	       O_MBT, O_MNS, O_MML, O_BS, O_UTIL, O_LPT, O_KVB, O_NOPC, O_WL, O_RATE, O_NREQ,
	       O_PT, O_OT, O_SEED, O_OFF, O_FMT, O_ROUT, O_PROG, O_CHECK, O_SLOG, O_T2, O_ALLOW,
	       O_SPK, O_SPM, O_SPA, O_PD, O_PTP, O_PEP,
	       O_ENGINE, O_ENGINE_VER, O_MOE_DT, O_MOE_DIST, O_MOE_SCALES, O_MAXREQ,
	       O_EXACT, O_MFS, O_SGPOL, O_NOOVL,
	       O_NOSEG };
	static const struct option lo[] = {
		{"model", required_argument, 0, O_MODEL}, {"config", required_argument, 0, O_CONFIG},
		{"gpu", required_argument, 0, O_GPU}, CLI_PARALLEL_OPTIONS, CLI_PP_OPTIONS,
		{"router", required_argument, 0, O_ROUTER},
		{"dtype", required_argument, 0, O_DTYPE}, {"kv-dtype", required_argument, 0, O_KVD},
		{"max-num-batched-tokens", required_argument, 0, O_MBT},
		{"max-num-seqs", required_argument, 0, O_MNS},
		{"max-model-len", required_argument, 0, O_MML},
		{"block-size", required_argument, 0, O_BS},
		{"gpu-memory-utilization", required_argument, 0, O_UTIL},
		{"long-prefill-token-threshold", required_argument, 0, O_LPT},
		{"total-kv-blocks", required_argument, 0, O_KVB},
		{"no-prefix-caching", no_argument, 0, O_NOPC},
		{"workload", required_argument, 0, O_WL}, {"rate", required_argument, 0, O_RATE},
		{"num-requests", required_argument, 0, O_NREQ},
		{"prompt-tokens", required_argument, 0, O_PT},
		{"output-tokens", required_argument, 0, O_OT}, {"seed", required_argument, 0, O_SEED},
		{"tier0-off", required_argument, 0, O_OFF}, {"format", required_argument, 0, O_FMT},
		{"requests-out", required_argument, 0, O_ROUT}, {"progress", no_argument, 0, O_PROG},
		{"check-invariants", no_argument, 0, O_CHECK}, {"help", no_argument, 0, 'h'},
		{"exact-percentiles", no_argument, 0, O_EXACT},
		{"no-decode-segments", no_argument, 0, O_NOSEG},
		CLI_OVERHEAD_OPTIONS,
		{"step-log", required_argument, 0, O_SLOG},
		{"tier2", required_argument, 0, O_T2},
		{"engine", required_argument, 0, O_ENGINE},
		{"engine-version", required_argument, 0, O_ENGINE_VER},
		{"moe-dtype", required_argument, 0, O_MOE_DT},
		{"moe-distribution", required_argument, 0, O_MOE_DIST},
		{"moe-format", required_argument, 0, O_MOE_SCALES},
		{"allow-invalid", no_argument, 0, O_ALLOW},
		{"speculative-tokens", required_argument, 0, O_SPK},
		{"num-speculative-tokens", required_argument, 0, O_SPK},
		{"speculative-method", required_argument, 0, O_SPM},
		{"acceptance-rate", required_argument, 0, O_SPA},
		{"disaggregate", required_argument, 0, O_PD},
		{"prefill-tp", required_argument, 0, O_PTP},
		{"prefill-ep", required_argument, 0, O_PEP},
		{"max-requests", required_argument, 0, O_MAXREQ},
		/* SGLang's names */
		{"chunked-prefill-size", required_argument, 0, O_MBT},
		{"max-running-requests", required_argument, 0, O_MNS},
		{"context-length", required_argument, 0, O_MML},
		{"page-size", required_argument, 0, O_BS},
		{"disable-radix-cache", no_argument, 0, O_NOPC},
		{"mem-fraction-static", required_argument, 0, O_MFS},
		{"schedule-policy", required_argument, 0, O_SGPOL},
		{"disable-overlap-schedule", no_argument, 0, O_NOOVL},
		{0, 0, 0, 0}};
	int c, rc = 0;

	memset(o, 0, sizeof(*o));
	o->gpu = "h100";
	o->par = (struct parallel){1, 1, 1, 1};
	o->router = ROUTER_LEAST_OUTSTANDING;
	o->dtype = o->kvdtype = DT_BF16;
	o->block = 16;
	o->util = 0.9;
	cost_default_overheads(&o->ov);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'h': fputs(run_usage, stdout); fputs(run_usage2, stdout); return 1;
		case O_MODEL: o->model = optarg; break;
		case O_CONFIG: o->config = optarg; break;
		case O_GPU: o->gpu = optarg; break;
		case O_ROUTER:
			if (strcmp(optarg, "rr") == 0 || strcmp(optarg, "round-robin") == 0)
				o->router = ROUTER_ROUND_ROBIN;
			else if (strcmp(optarg, "lo") == 0 || strcmp(optarg, "least-outstanding") == 0)
				o->router = ROUTER_LEAST_OUTSTANDING;
			else
				rc = err_set(e, SS_EUSAGE, "--router must be rr or lo, got '%s'", optarg);
			break;
		case O_DTYPE: rc = dtype_parse(optarg, &o->dtype, e); break;
		case O_KVD: rc = dtype_parse(optarg, &o->kvdtype, e); o->kv_given = true; break;
		case O_MBT: rc = cli_int("--max-num-batched-tokens", optarg, 1, 1 << 20, &o->mbt, e); break;
		case O_MNS: rc = cli_int("--max-num-seqs", optarg, 1, 1 << 16, &o->mns, e); break;
		case O_MML: rc = cli_int("--max-model-len", optarg, 1, 1 << 24, &o->mml, e); break;
		case O_BS: rc = cli_int("--block-size", optarg, 1, 1024, &o->block, e); o->block_given = true; break;
		case O_UTIL: rc = cli_double("--gpu-memory-utilization", optarg, 0, true, &o->util, e);
			if (rc == 0 && o->util > 1)
				rc = err_set(e, SS_EUSAGE, "--gpu-memory-utilization must be in (0, 1], got %g", o->util);
			o->util_given = true;
			break;
		case O_MFS: rc = cli_double("--mem-fraction-static", optarg, 0, true, &o->mem_frac, e);
			if (rc == 0 && o->mem_frac > 1)
				rc = err_set(e, SS_EUSAGE, "--mem-fraction-static must be in (0, 1], got %g", o->mem_frac);
			break;
		case O_SGPOL: {
			enum sglang_policy pol;
			rc = sglang_policy_parse(optarg, &pol, e);
			o->sg_policy = optarg;
			break;
		}
		case O_NOOVL: o->no_overlap = true; break;
		case O_LPT: rc = cli_int("--long-prefill-token-threshold", optarg, 0, 1 << 24, &o->lpt, e); break;
		case O_KVB: rc = cli_int("--total-kv-blocks", optarg, 1, 1 << 28, &o->kv_blocks, e); break;
		case O_NOPC: o->no_prefix = true; break;
		case O_WL: o->workload = optarg; break;
		case O_RATE: rc = cli_double("--rate", optarg, 0, true, &o->rate, e); o->wl_flags = true; break;
		case O_NREQ: rc = cli_int("--num-requests", optarg, 1, INT64_MAX, &o->nreq, e); o->wl_flags = true; break;
		case O_PT: rc = parse_len("--prompt-tokens", optarg, &o->p_mean, &o->p_std, e); o->wl_flags = true; break;
		case O_OT: rc = parse_len("--output-tokens", optarg, &o->o_mean, &o->o_std, e); o->wl_flags = true; break;
		case O_SEED: rc = cli_int("--seed", optarg, 0, INT64_MAX, &o->seed, e); o->seed_given = true; break;
		case O_OFF: o->tier0_off = optarg; break;
		case O_FMT: rc = cli_format(optarg, true, &o->fmt, e); break;
		case O_ROUT: o->requests_out = optarg; break;
		case O_PROG: o->progress = true; break;
		case O_CHECK: o->check_inv = true; break;
		case O_EXACT: o->exact = true; break;
		case O_NOSEG: o->no_segments = true; break;
		case O_SLOG: o->step_log = optarg; break;
		case O_T2: o->tier2 = optarg; break;
		case O_ENGINE: o->engine = optarg; rc = mfu_engine_check(optarg, e); break;
		case O_ENGINE_VER: o->engine_version = optarg; break;
		case O_MOE_DT: rc = dtype_parse(optarg, &o->moe_dtype, e); o->moe_dtype_given = true; break;
		case O_MOE_DIST: rc = moe_dist_parse(optarg, &o->moe_dist, e); break;
		case O_MOE_SCALES: {
			enum moe_fmt f;
			if ((rc = moe_fmt_parse(optarg, &f, e)) == 0)
				o->moe_format = (int)f + 1;
			break;
		}
		case O_ALLOW: o->allow_invalid = true; break;
		case O_SPK: rc = cli_int("--speculative-tokens", optarg, 1, SPEC_MAX_TOKENS, &o->spec_k, e); break;
		case O_SPM: o->spec_method = optarg; break;
		case O_SPA: o->spec_rates = optarg; break;
		case O_PD: {
			char tail;
			if (sscanf(optarg, "%dp%dd%c", &o->pd_prefill, &o->pd_decode, &tail) != 2 ||
			    o->pd_prefill < 1 || o->pd_decode < 1 || o->pd_prefill > 1024 || o->pd_decode > 1024)
				rc = err_set(e, SS_EUSAGE,
					     "--disaggregate must be XpYd (X prefill and Y decode workers, 1 to 1024 each), got '%s'",
					     optarg);
			break;
		}
		case O_PTP: rc = cli_int("--prefill-tp", optarg, 1, 4096, &o->prefill_tp, e); break;
		case O_PEP: rc = cli_int("--prefill-ep", optarg, 1, 4096, &o->prefill_ep, e); break;
		case O_MAXREQ: rc = cli_int("--max-requests", optarg, 1, INT64_MAX, &o->max_requests, e); break;
		default:
			if ((rc = cli_shape_option(c, optarg, NULL, &o->par, &o->pf, e)) != 0)
				break;
			if ((rc = cli_overhead_option(c, optarg, &o->ov, e)) == 0)
				return cli_bad_option("run", argv[optind - 1], e);
			if (rc > 0)
				rc = 0;
		}
		if (rc < 0)
			return rc;
	}
	if (optind < argc)
		return err_set(e, SS_EUSAGE, "run: unexpected argument '%s'", argv[optind]);
	if (o->model && o->config)
		return err_set(e, SS_EUSAGE, "run: give --model or --config, not both");
	if (o->workload && o->wl_flags)
		return err_set(e, SS_EUSAGE,
			       "run: --workload and --rate/--num-requests/--prompt-tokens/--output-tokens exclude each other");
	if ((o->prefill_tp || o->prefill_ep) && !o->pd_prefill)
		return err_set(e, SS_EUSAGE, "run: --prefill-tp and --prefill-ep need --disaggregate XpYd");
	if ((o->spec_method || o->spec_rates) && !o->spec_k)
		return err_set(e, SS_EUSAGE,
			       "run: --speculative-method and --acceptance-rate need --speculative-tokens K");
	{
		bool sg = o->engine && strcmp(o->engine, "sglang") == 0;
		if (!sg && (o->mem_frac > 0 || o->sg_policy || o->no_overlap))
			return err_set(e, SS_EUSAGE,
				       "run: --mem-fraction-static, --schedule-policy and --disable-overlap-schedule are SGLang's: give --engine sglang");
		if (sg && o->util_given)
			return err_set(e, SS_EUSAGE,
				       "run: --engine sglang sizes its memory with --mem-fraction-static, not --gpu-memory-utilization");
	}
	if (!o->model && !o->config)
		o->model = "llama-3.1-8b";
	if (!o->kv_given)
		o->kvdtype = o->dtype;
	return 0;
}

static void note_line(char *buf, size_t n, const char *line)
{
	size_t len = strlen(buf);

	if (len + 1 < n)
		snprintf(buf + len, n - len, "%s%s", len ? "\n" : "", line);
}

static void flags_workload(const struct run_opts *o, struct wl_spec *w)
{
	wl_spec_defaults(w);
	snprintf(w->source, sizeof(w->source), "flags");
	w->process = WL_POISSON;
	w->rate = o->rate > 0 ? o->rate : 10;
	w->num_requests = o->nreq > 0 ? o->nreq : 1000;
	if (o->p_mean > 0) {
		w->prompt.kind = o->p_std > 0 ? WL_NORMAL : WL_FIXED;
		w->prompt.a = o->p_mean;
		w->prompt.b = o->p_std;
	}
	if (o->o_mean > 0) {
		w->output.kind = o->o_std > 0 ? WL_NORMAL : WL_FIXED;
		w->output.a = o->o_mean;
		w->output.b = o->o_std;
	}
}

static const char *dist_desc(const struct wl_dist *d, char *buf, size_t n)
{
	switch (d->kind) {
	case WL_FIXED: snprintf(buf, n, "%g", d->a); break;
	case WL_UNIFORM: snprintf(buf, n, "uniform[%g, %g]", d->a, d->b); break;
	case WL_NORMAL: snprintf(buf, n, "normal(%g, %g)", d->a, d->b); break;
	case WL_LOGNORMAL: snprintf(buf, n, "lognormal(mean %g, sd %g)", d->a, d->b); break;
	case WL_EMPIRICAL: snprintf(buf, n, "empirical(%zu values)", d->nvalues); break;
	}
	return buf;
}

static void jw_dist(struct jw *w, const char *key, const struct dist_summary *d)
{
	jw_obj(w, key);
	jw_num(w, "mean", d->mean);
	jw_num(w, "p50", d->p50);
	jw_num(w, "p90", d->p90);
	jw_num(w, "p95", d->p95);
	jw_num(w, "p99", d->p99);
	jw_num(w, "max", d->max);
	jw_end_obj(w);
}

static void jw_metrics(struct jw *w, const struct metric_set *m)
{
	jw_int(w, "completed", (int64_t)m->completed);
	jw_num(w, "throughput_rps", m->throughput_rps);
	jw_num(w, "input_tokens_per_s", m->input_tok_s);
	jw_num(w, "output_tokens_per_s", m->output_tok_s);
	jw_dist(w, "ttft_ms", &m->ttft_ms);
	jw_dist(w, "itl_ms", &m->itl_ms);
	jw_dist(w, "tpot_ms", &m->tpot_ms);
	jw_dist(w, "e2e_ms", &m->e2e_ms);
	jw_dist(w, "queue_ms", &m->queue_ms);
}

static void print_dist_row(const char *name, const struct dist_summary *d)
{
	printf("  %-6s %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f\n", name, d->mean, d->p50, d->p90, d->p95,
	       d->p99, d->max);
}

static void print_metric_table(const struct metric_set *m)
{
	printf("  %-6s %9s %9s %9s %9s %9s %9s\n", "ms", "mean", "p50", "p90", "p95", "p99", "max");
	print_dist_row("TTFT", &m->ttft_ms);
	print_dist_row("ITL", &m->itl_ms);
	print_dist_row("TPOT", &m->tpot_ms);
	print_dist_row("E2E", &m->e2e_ms);
	print_dist_row("queue", &m->queue_ms);
}

struct run_ctx {
	const struct run_opts *o;
	const struct model_cfg *m;
	const struct gpu_spec *g;
	const struct cost_model *cost;
	const struct wl_spec *wl;
	const struct sim_cfg *sc;
	const struct memplan *mp;
	bool kv_from_memory;
	const char *notes;
	const struct parallel *prefill_par;
	bool pd_nvlink;
	const struct sglang_mem *sg_mem;     /* SGLang: its memory rule's terms */
	double mem_fraction_static;         /* SGLang: the fraction used */
};

static double hit_rate(const struct sim_totals *t)
{
	return t->prefix_lookup_tokens ? (double)t->prefix_hit_tokens / (double)t->prefix_lookup_tokens : 0;
}

static uint64_t rejected_total(const struct sim_totals *t)
{
	uint64_t n = 0;
	int k;
	for (k = 0; k < REJ__COUNT; k++)
		n += t->rejected[k];
	return n;
}

/* Attention-DP + EP header: the ranks, where the experts live, and the
 * weights one GPU holds (routed experts apart from the replicated rest). */
static void print_dp_attention(const struct run_ctx *c)
{
	const struct parallel *p = &c->o->par;
	const struct model_cfg *m = c->m;
	struct param_counts pc;
	double wb = dtype_bytes(c->o->dtype), experts, total = c->mp->weight_bytes;
	int ngpu = p->tp * p->dp * p->pp;

	model_params(m, &pc);
	/* routed experts per GPU: E/ep experts (ep 1: all), split
	 * tp*dp/ep ways, on ceil(L/pp) layers of the heaviest stage */
	experts = pc.experts / (double)(p->ep > 1 ? p->ep : 1) /
		  ((double)(p->tp * p->dp) / (p->ep > 1 ? p->ep : 1)) *
		  ceil((double)m->layers / p->pp) / (double)m->layers * wb;
	printf("hardware   %d x %s: attention DP %d (TP %d, PP %d per rank), MoE layers shared by the ranks in lockstep, ",
	       ngpu, c->g->id, p->dp, p->tp, p->pp);
	if (p->ep > 1)
		printf("EP %d (%lld of %lld experts per GPU)\n", p->ep,
		       (long long)(m->n_experts / p->ep), (long long)m->n_experts);
	else
		printf("experts TP-sharded %d ways (no expert parallelism)\n", p->tp * p->dp);
	printf("weights    %.1f GB per GPU = routed experts %.1f GB + attention, dense layers, shared experts and embeddings %.1f GB, replicated on every DP rank (%s)\n",
	       total / 1e9, experts / 1e9, (total - experts) / 1e9, dtype_name(c->o->dtype));
}

/* Where the GPUs sit and which links the collectives cross; with EP, the
 * dispatch + combine of one MoE layer at 128 tokens per rank (DeepEP's
 * low-latency test size) here and as it would be on one NVLink domain. */
static void print_placement(const struct run_ctx *c)
{
	const struct comm_place *pl = &c->cost->place;
	const struct parallel *p = &c->o->par;
	char buf[256];

	comm_place_describe(pl, buf, sizeof(buf));
	printf("placement  %s; TP %s", buf, pl->tp_cross ? "across nodes (all-reduce on the inter-node link)" : "within NVLink");
	if (p->pp > 1)
		printf(", PP sends %s", pl->pp_cross ? "on the inter-node link" : "on NVLink");
	if (p->ep > 1 && c->m->n_experts > 0) {
		struct comm_place one = *pl;
		double tok = 128.0 * (double)c->m->top_k * (double)c->m->hidden;
		double pd = tok * dtype_bytes(c->o->dtype), pc = tok * 2.0;
		double here = comm_a2a_s(&c->cost->comm, c->g, pl, COMM_A2A_LOW_LATENCY, false, p->ep, pd) +
			      comm_a2a_s(&c->cost->comm, c->g, pl, COMM_A2A_LOW_LATENCY, true, p->ep, pc);
		double there;
		one.ep_cross = false;
		one.ep_domains = 1;
		there = comm_a2a_s(&c->cost->comm, c->g, &one, COMM_A2A_LOW_LATENCY, false, p->ep, pd) +
			comm_a2a_s(&c->cost->comm, c->g, &one, COMM_A2A_LOW_LATENCY, true, p->ep, pc);
		if (pl->ep_cross)
			printf("; EP %d spans %d NVLink domains: all-to-all on the inter-node link, dispatch + combine %.0f us per MoE layer at 128 tokens per rank (%.0f us on one NVLink domain, +%.0f us)",
			       p->ep, pl->ep_domains, here * 1e6, there * 1e6, (here - there) * 1e6);
		else
			printf("; EP %d within one NVLink domain: dispatch + combine %.0f us per MoE layer at 128 tokens per rank",
			       p->ep, here * 1e6);
	}
	else if (c->sc->lockstep && c->m->n_experts > 0)
		printf("; experts TP-sharded over %d GPU%s in %d NVLink domain%s: all-gather and reduce-scatter of the ranks' tokens around them%s",
		       p->tp * p->dp, p->tp * p->dp > 1 ? "s" : "", pl->ep_domains,
		       pl->ep_domains > 1 ? "s" : "", pl->ep_domains > 1 ? " on the inter-node link" : " on NVLink");
	printf("\n");
}

/* SGLang: each default with the rule behind it (sglang.h). */
static void print_sglang_defaults(const struct run_ctx *c)
{
	const struct run_opts *o = c->o;
	const struct sglang_mem *sm = c->sg_mem;

	if (!o->mbt)
		printf("defaults   chunked_prefill_size %lld: SGLang's rule by GPU memory (2048 under 35 GiB, 4096 under 60 GiB, 8192 under 160 GiB, else 16384)\n",
		       (long long)c->sc->max_num_batched_tokens);
	if (o->mem_frac <= 0 && c->kv_from_memory)
		printf("defaults   mem_fraction_static %.3f: SGLang's rule, (%.0f MiB - %.0f MiB reserved) / %.0f MiB; reserved = 512 + 1.5 x max(chunk %lld, 2048) + 1024 x TP x PP / 8 + CUDA graphs %.0f (decode batch up to %lld, %s)%s\n",
		       sm->fraction, sm->gpu_mib, sm->reserved_mib, sm->gpu_mib, (long long)sm->chunk,
		       sm->graph_mib, (long long)sm->graph_max_bs,
		       c->m->attn == ATTN_MLA ? "MLA prefill graphs 1536" : "8 per prefill graph size",
		       sm->floored ? ", raised to the 10240 MiB floor of a GPU above 60 GiB" : "");
	if (!o->mns)
		printf("defaults   max_running_requests %lld: SGLang's rule, min(KV tokens / 2, min(max(KV tokens / context_length x 512, 2048), 4096))%s\n",
		       (long long)c->sc->max_num_seqs,
		       c->kv_from_memory && c->mp->state_bytes > 0 && c->sc->max_num_seqs == c->mp->state_seqs
			       ? ", capped at the sequences whose per-sequence state fits" : "");
	if (!o->sg_policy || !o->no_overlap)
		printf("defaults   %s%s%s\n",
		       o->sg_policy ? "" : "schedule policy fcfs (SGLang's default; lpm orders the waiting queue by cached prefix)",
		       !o->sg_policy && !o->no_overlap ? "; " : "",
		       o->no_overlap ? "" : "overlap scheduling on: the CPU overhead terms (--overhead-step-us, --overhead-request-us) hide under the GPU's batch");
	if (!o->mml)
		printf("defaults   context_length: the model's max_position_embeddings\n");
}

static void print_text(const struct run_ctx *c, struct sim *s)
{
	const struct sim_totals *t = sim_totals(s);
	const struct run_opts *o = c->o;
	struct metric_set all;
	char b1[64], b2[64];
	int st, ns = sim_nstages(s);

	printf("model      %s (%s), %s weights, %s KV cache", c->m->id, c->m->source,
	       dtype_name(c->cost->cfg.wdt), dtype_name(o->kvdtype));
	if (c->cost->cfg.wdt != o->dtype || (c->m->n_experts > 0 && c->cost->moe_wdt != c->cost->cfg.wdt))
		printf(" (as stored in the checkpoint, %s; routed experts %s)", c->m->q.method[0] ? c->m->q.method : "quantized",
		       dtype_name(c->cost->moe_wdt));
	printf("\n");
	if (c->sc->pd.prefill > 0) {
		printf("hardware   P/D %dp%dd: %d prefill worker%s x %d %s (TP %d, PP %d, EP %d) + %d decode worker%s x %d (TP %d, PP %d, EP %d)\n",
		       c->sc->pd.prefill, c->sc->dp, c->sc->pd.prefill, c->sc->pd.prefill > 1 ? "s" : "",
		       c->prefill_par->tp * c->prefill_par->pp, c->g->id, c->prefill_par->tp,
		       c->prefill_par->pp, c->prefill_par->ep, c->sc->dp, c->sc->dp > 1 ? "s" : "",
		       o->par.tp * o->par.pp, o->par.tp, o->par.pp, o->par.ep);
		printf("kv handoff prompt KV %.1f kB per token over %s, %.0f GB/s per prefill worker (%s), + 10 us; decode admits a request when its KV lands, which is when its first token reaches the client\n",
		       c->sc->pd.kv_bytes_per_token / 1e3, c->pd_nvlink ? "NVLink (both pools in one NVLink domain)" : "the inter-node link",
		       c->sc->pd.link_bw / 1e9, "all its GPUs at 0.7 of the link");
		printf("prefill kv %lld blocks (%lld tokens) per prefill worker, from memory\n",
		       (long long)c->sc->pd.prefill_kv_blocks,
		       (long long)(c->sc->pd.prefill_kv_blocks * c->sc->block_size));
	} else if (c->sc->lockstep)
		print_dp_attention(c);
	else
		printf("hardware   %d replica%s x %d %s (TP %d, PP %d%s)\n", o->par.dp, o->par.dp > 1 ? "s" : "",
		       o->par.tp * o->par.pp, c->g->id, o->par.tp, o->par.pp,
		       o->par.dp > 1 ? (o->router == ROUTER_ROUND_ROBIN ? ", round-robin router" : ", least-outstanding router") : "");
	if (c->sc->lockstep || c->cost->place.nodes > 1)
		print_placement(c);
	if (c->sc->sglang)
		printf("engine     SGLang scheduling: chunked_prefill_size %lld, max_running_requests %lld, context_length %lld, page size %lld, radix cache %s, schedule policy %s, overlap scheduling %s; prefill and decode in separate steps, new prefills first; admission reserves the running requests' future tokens at the new-token ratio 0.7, decaying to 0.098 over 600 decode steps\n",
		       (long long)c->sc->max_num_batched_tokens, (long long)c->sc->max_num_seqs,
		       (long long)c->sc->max_model_len, (long long)c->sc->block_size,
		       c->sc->prefix_caching ? "on" : "off",
		       c->sc->sglang_lpm ? "lpm" : "fcfs", c->cost->cfg.overlap_cpu ? "on" : "off");
	else
		printf("engine     vLLM v1 scheduling: max_num_batched_tokens %lld, max_num_seqs %lld, max_model_len %lld, block %lld, prefix caching %s, chunked prefill on\n",
		       (long long)c->sc->max_num_batched_tokens, (long long)c->sc->max_num_seqs,
		       (long long)c->sc->max_model_len, (long long)c->sc->block_size,
		       c->sc->prefix_caching ? "on" : "off");
	if (c->sc->sglang)
		print_sglang_defaults(c);
	else if (!c->sc->sglang && (!o->mbt || !o->mns || !o->mml))
		printf("defaults   %s%s%s\n",
		       !o->mbt || !o->mns ? "max_num_batched_tokens/max_num_seqs: " : "",
		       !o->mbt || !o->mns ? scenario_limits_rule(c->g) : "",
		       o->mml ? "" : (!o->mbt || !o->mns ? "; max_model_len: the model's max_position_embeddings"
							: "max_model_len: the model's max_position_embeddings"));
	if (c->kv_from_memory && c->sc->sglang)
		printf("kv cache   %lld tokens (pages of %lld) per %s, from memory: %.2f GiB x mem_fraction_static %.3f - %.2f GiB weights = %.2f GiB (activations and CUDA graphs live outside the static pool)\n",
		       (long long)(c->sc->total_kv_blocks * c->sc->block_size), (long long)c->sc->block_size,
		       c->sc->lockstep ? "DP rank" : "replica", c->mp->mem_bytes / 1073741824.0,
		       c->mem_fraction_static, c->mp->weight_bytes / 1073741824.0,
		       c->mp->kv_bytes / 1073741824.0);
	else if (c->kv_from_memory)
		printf("kv cache   %lld blocks (%lld tokens) per %s, from memory: %.2f GiB x %.2f - %.2f GiB weights - %.2f GiB activations - %.2f GiB reserve = %.2f GiB\n",
		       (long long)c->sc->total_kv_blocks, (long long)(c->sc->total_kv_blocks * c->sc->block_size),
		       c->sc->lockstep ? "DP rank" : "replica",
		       c->mp->mem_bytes / 1073741824.0, o->util, c->mp->weight_bytes / 1073741824.0,
		       c->mp->activation_bytes / 1073741824.0, c->mp->reserve_bytes / 1073741824.0,
		       c->mp->kv_bytes / 1073741824.0);
	if (c->kv_from_memory && c->mp->state_bytes > 0)
		printf("           of which %.2f GiB per-sequence state (window KV, recurrent state: %.1f MiB each) for %lld sequences\n",
		       c->mp->state_bytes / 1073741824.0, c->mp->state_bytes_per_seq / 1048576.0,
		       (long long)c->mp->state_seqs);
	if (!c->kv_from_memory)
		printf("kv cache   %lld blocks (%lld tokens) per %s, from --total-kv-blocks\n",
		       (long long)c->sc->total_kv_blocks, (long long)(c->sc->total_kv_blocks * c->sc->block_size),
		       c->sc->lockstep ? "DP rank" : "replica");
	printf("workload   %s: %s", c->wl->source, wl_process_name(c->wl->process));
	if (c->wl->process == WL_CONCURRENCY)
		printf(" x %lld clients", (long long)c->wl->concurrency);
	else if (c->wl->nstages == 0 && c->wl->process != WL_TRACE)
		printf(" %g req/s", c->wl->rate);
	if (c->wl->nstages)
		printf(", %zu stages", c->wl->nstages);
	if (c->wl->sp_groups)
		printf(", shared prefix %lld groups x %lld prompts (%lld + %lld tokens), output %lld",
		       (long long)c->wl->sp_groups, (long long)c->wl->sp_prompts,
		       (long long)c->wl->sp_system, (long long)c->wl->sp_question,
		       (long long)c->wl->sp_output);
	else if (c->wl->process != WL_TRACE)
		printf(", prompt %s%s, output %s", dist_desc(&c->wl->prompt, b1, sizeof(b1)),
		       c->wl->prefix_tokens ? " + shared prefix" : "",
		       dist_desc(&c->wl->output, b2, sizeof(b2)));
	printf(", seed %llu\n", (unsigned long long)c->wl->seed);
	if (c->sc->spec.k > 0) {
		const struct spec_cfg *sp = &c->sc->spec;
		int i;
		printf("speculate  %s, %d draft tokens verified per step (width %d), acceptance ",
		       sp->method == SPEC_DRAFT ? o->spec_method : spec_method_name(sp->method), sp->k,
		       sp->k + 1);
		for (i = 0; i < sp->nrates; i++)
			printf("%s%g", i ? "," : "", sp->rate[i]);
		printf("%s; draft cost: %s\n", sp->nrates == 1 ? " per position (geometric)" : " by position",
		       sp->method == SPEC_NGRAM ? "none (CPU n-gram lookup)" :
		       sp->method == SPEC_DRAFT ? "K decode steps of the draft model" :
		       "K passes of one decoder layer + LM head");
	}
	if (c->cost->cfg.tier2)
		printf("tier 2     %s: bandwidth efficiency weights %.2f, paged KV %.2f, mixed %.2f\n",
		       c->cost->cfg.tier2->path, c->cost->cfg.tier2->bw_eff_weights,
		       c->cost->cfg.tier2->bw_eff_kv, c->cost->cfg.tier2->bw_eff_mixed);
	printf("tier 0     kernel tables %s%s%s; corrections off: %s; overheads %g us/step + %g us/layer + %g us/request; client TTFT +%g ms\n",
	       c->cost->tabs->engine[0] ? c->cost->tabs->engine : c->cost->tabs->dir[0] ? c->cost->tabs->dir : "none (defaults)",
	       c->cost->tabs->engine[0] ? " " : "", c->cost->tabs->version,
	       o->tier0_off && *o->tier0_off ? o->tier0_off : "none", c->cost->cfg.ov.step_us,
	       c->cost->cfg.ov.layer_us, c->cost->cfg.ov.req_us, c->cost->cfg.ov.api_ttft_ms);
	{
		int k;
		for (k = 0; k < COST_SRC__COUNT; k++)
			if (c->cost->src[k][0])
				printf("  %-17s %s\n", cost_src_name((enum cost_src)k), c->cost->src[k]);
	}
	if (c->cost->tabs->warning[0])
		printf("warning    %s\n", c->cost->tabs->warning);
	for (const char *n = c->notes; n && *n;) {
		const char *nl = strchr(n, '\n');
		int len = nl ? (int)(nl - n) : (int)strlen(n);
		printf("warning    %.*s\n", len, n);
		n = nl ? nl + 1 : n + len;
	}
	sim_summary(s, -1, &all);
	printf("\nresults (client side; ITL = (E2E - TTFT)/(output - 1), vLLM's TPOT; TPOT = E2E/output, GuideLLM >= 0.4)\n");
	if (ns > 1) {
		printf("  %-6s %9s %9s %10s %10s %10s %10s\n", "stage", "completed", "req/s", "in tok/s",
		       "out tok/s", "TTFT p50", "E2E mean");
		for (st = 0; st < ns; st++) {
			struct metric_set m;
			sim_summary(s, st, &m);
			printf("  %-6d %9zu %9.2f %10.0f %10.0f %10.2f %10.2f\n", st, m.completed,
			       m.throughput_rps, m.input_tok_s, m.output_tok_s, m.ttft_ms.p50, m.e2e_ms.mean);
		}
		for (st = 0; st < ns; st++) {
			struct metric_set m;
			sim_summary(s, st, &m);
			printf("stage %d\n", st);
			print_metric_table(&m);
		}
		printf("all stages\n");
	}
	print_metric_table(&all);
	printf("  throughput %.2f req/s, %.0f input tok/s, %.0f output tok/s\n", all.throughput_rps,
	       all.input_tok_s, all.output_tok_s);
	printf("\nrequests   arrived %llu, completed %llu, rejected %llu (too long %llu, KV capacity %llu), preemptions %llu\n",
	       (unsigned long long)t->arrived, (unsigned long long)t->completed,
	       (unsigned long long)rejected_total(t), (unsigned long long)t->rejected[REJ_TOO_LONG],
	       (unsigned long long)t->rejected[REJ_KV_CAPACITY], (unsigned long long)t->preemptions);
	if (c->sc->pd.prefill > 0)
		printf("kv handoff %llu transfers, mean %.3f ms\n", (unsigned long long)t->pd_transfers,
		       t->pd_transfers ? (double)t->pd_transfer_ns * 1e-6 / (double)t->pd_transfers : 0.0);
	if (c->sc->spec.k > 0)
		printf("speculate  %llu verification steps, %llu of %llu draft tokens accepted (%.1f%%), %.2f tokens per verification step\n",
		       (unsigned long long)t->spec_verify, (unsigned long long)t->spec_accepted,
		       (unsigned long long)t->spec_drafted,
		       t->spec_drafted ? 100.0 * (double)t->spec_accepted / (double)t->spec_drafted : 0.0,
		       t->spec_verify ? 1.0 + (double)t->spec_accepted / (double)t->spec_verify : 0.0);
	printf("engine     %llu steps, prefix-cache hit rate %.1f%%, KV utilisation mean %.1f%% max %.1f%%, simulated %.3f s\n",
	       (unsigned long long)t->steps, 100 * hit_rate(t),
	       t->steps ? 100 * t->kv_util_sum_steps / (double)t->steps : 0, 100 * t->kv_util_max,
	       (double)t->duration_ns * 1e-9);
}

static void print_json(const struct run_ctx *c, struct sim *s)
{
	const struct sim_totals *t = sim_totals(s);
	const struct run_opts *o = c->o;
	struct metric_set all;
	struct jw w;
	int st, ns = sim_nstages(s);

	sim_summary(s, -1, &all);
	jw_init(&w, stdout, true);
	jw_obj(&w, NULL);
	jw_str(&w, "servesim_version", SERVESIM_VERSION);
	jw_obj(&w, "config");
	jw_str(&w, "model", c->m->id);
	jw_str(&w, "gpu", c->g->id);
	jw_int(&w, "tp", o->par.tp);
	jw_int(&w, "pp", o->par.pp);
	jw_int(&w, "dp", o->par.dp);
	jw_int(&w, "ep", o->par.ep);
	jw_str(&w, "dtype", dtype_name(o->dtype));
	jw_str(&w, "kv_dtype", dtype_name(o->kvdtype));
	jw_int(&w, "max_num_batched_tokens", c->sc->max_num_batched_tokens);
	jw_int(&w, "max_num_seqs", c->sc->max_num_seqs);
	jw_int(&w, "max_model_len", c->sc->max_model_len);
	jw_int(&w, "block_size", c->sc->block_size);
	jw_int(&w, "total_kv_blocks", c->sc->total_kv_blocks);
	jw_str(&w, "kv_blocks_source", c->kv_from_memory ? "memory" : "flag");
	jw_bool(&w, "prefix_caching", c->sc->prefix_caching);
	if (c->sc->sglang) {
		jw_str(&w, "engine", "sglang");
		if (c->kv_from_memory)
			jw_num(&w, "mem_fraction_static", c->mem_fraction_static);
		jw_int(&w, "max_running_requests", c->sc->max_num_seqs);
		jw_str(&w, "schedule_policy", c->sc->sglang_lpm ? "lpm" : "fcfs");
		jw_bool(&w, "overlap_schedule", c->cost->cfg.overlap_cpu);
	}
	jw_str(&w, "workload", c->wl->source);
	jw_int(&w, "seed", (int64_t)c->wl->seed);
	jw_str(&w, "tier0_off", o->tier0_off ? o->tier0_off : "");
	if (c->sc->pd.prefill > 0) {
		jw_int(&w, "prefill_workers", c->sc->pd.prefill);
		jw_int(&w, "decode_workers", c->sc->dp);
		jw_int(&w, "prefill_tp", c->prefill_par->tp);
		jw_int(&w, "prefill_ep", c->prefill_par->ep);
		jw_int(&w, "prefill_total_kv_blocks", c->sc->pd.prefill_kv_blocks);
		jw_num(&w, "kv_link_bytes_per_s", c->sc->pd.link_bw);
	}
	jw_end_obj(&w);
	jw_obj(&w, "summary");
	jw_int(&w, "arrived", (int64_t)t->arrived);
	jw_int(&w, "rejected", (int64_t)rejected_total(t));
	jw_int(&w, "rejected_too_long", (int64_t)t->rejected[REJ_TOO_LONG]);
	jw_int(&w, "rejected_kv_capacity", (int64_t)t->rejected[REJ_KV_CAPACITY]);
	jw_int(&w, "preemptions", (int64_t)t->preemptions);
	jw_num(&w, "duration_s", (double)t->duration_ns * 1e-9);
	jw_int(&w, "steps", (int64_t)t->steps);
	jw_num(&w, "prefix_cache_hit_rate", hit_rate(t));
	jw_num(&w, "kv_util_mean", t->steps ? t->kv_util_sum_steps / (double)t->steps : 0);
	jw_num(&w, "kv_util_max", t->kv_util_max);
	jw_str(&w, "itl_definition", "(e2e - ttft) / (output_tokens - 1)");
	jw_str(&w, "tpot_definition", "e2e / output_tokens (GuideLLM >= 0.4)");
	jw_metrics(&w, &all);
	if (c->sc->pd.prefill > 0) {
		jw_int(&w, "kv_transfers", (int64_t)t->pd_transfers);
		jw_num(&w, "kv_transfer_ms_mean",
		       t->pd_transfers ? (double)t->pd_transfer_ns * 1e-6 / (double)t->pd_transfers : 0.0);
	}
	if (c->sc->spec.k > 0) {
		jw_obj(&w, "speculative");
		jw_str(&w, "method", c->sc->spec.method == SPEC_DRAFT ? o->spec_method
								  : spec_method_name(c->sc->spec.method));
		jw_int(&w, "num_speculative_tokens", c->sc->spec.k);
		jw_arr(&w, "acceptance_rate");
		for (st = 0; st < c->sc->spec.nrates; st++)
			jw_num(&w, NULL, c->sc->spec.rate[st]);
		jw_end_arr(&w);
		jw_int(&w, "verification_steps", (int64_t)t->spec_verify);
		jw_int(&w, "draft_tokens", (int64_t)t->spec_drafted);
		jw_int(&w, "accepted_tokens", (int64_t)t->spec_accepted);
		jw_end_obj(&w);
	}
	jw_end_obj(&w);
	jw_arr(&w, "stages");
	for (st = 0; st < ns; st++) {
		struct metric_set m;
		sim_summary(s, st, &m);
		jw_obj(&w, NULL);
		jw_int(&w, "index", st);
		if (c->wl->nstages) {
			jw_num(&w, "rate", c->wl->stages[st].rate);
			jw_num(&w, "duration_s", c->wl->stages[st].duration_s);
		}
		jw_metrics(&w, &m);
		jw_end_obj(&w);
	}
	jw_end_arr(&w);
	jw_end_obj(&w);
	jw_finish(&w);
}

static void csv_metrics_row(const char *stage, const struct metric_set *m)
{
	const struct dist_summary *d[5] = {&m->ttft_ms, &m->itl_ms, &m->tpot_ms, &m->e2e_ms, &m->queue_ms};
	int i;

	printf("%s,%zu,%.6g,%.6g,%.6g", stage, m->completed, m->throughput_rps, m->input_tok_s,
	       m->output_tok_s);
	for (i = 0; i < 5; i++)
		printf(",%.6g,%.6g,%.6g,%.6g,%.6g,%.6g", d[i]->mean, d[i]->p50, d[i]->p90, d[i]->p95,
		       d[i]->p99, d[i]->max);
	printf("\n");
}

static void print_csv(struct sim *s)
{
	static const char *const names[] = {"ttft_ms", "itl_ms", "tpot_ms", "e2e_ms", "queue_ms"};
	static const char *const stats[] = {"mean", "p50", "p90", "p95", "p99", "max"};
	struct metric_set m;
	char buf[16];
	int i, j, st;

	printf("stage,completed,throughput_rps,input_tokens_per_s,output_tokens_per_s");
	for (i = 0; i < 5; i++)
		for (j = 0; j < 6; j++)
			printf(",%s_%s", names[i], stats[j]);
	printf("\n");
	for (st = 0; st < sim_nstages(s); st++) {
		sim_summary(s, st, &m);
		snprintf(buf, sizeof(buf), "%d", st);
		csv_metrics_row(buf, &m);
	}
	sim_summary(s, -1, &m);
	csv_metrics_row("all", &m);
}

static double wall_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int cmd_run(int argc, char **argv, struct err *e)
{
	struct run_opts o;
	struct cli_env env;
	struct model_cfg *m = NULL;
	const struct gpu_spec *g;
	struct wl_spec wl;
	struct scenario sc;
	struct scenario_state st;
	struct tier2 t2;
	struct afile af, slog_af;
	bool af_open = false, progress, prepared = false;
	FILE *slog = NULL;
	double t0 = wall_s(), next_prog;
	char notes[4096] = "";
	struct model_cfg *draft = NULL;
	struct run_ctx ctx;
	struct sim *s;
	int rc = parse_run(argc, argv, &o, e);

	if (rc != 0)
		return rc > 0 ? 0 : rc;
	cli_env_init(&env);
	wl_spec_defaults(&wl);
	memset(&af, 0, sizeof(af));
	m = xcalloc(1, sizeof(*m));
	if ((rc = cli_load_model(&env, o.model, o.config, m, e)) < 0)
		goto out;
	if ((rc = cli_find_gpu(&env, o.gpu, &g, e)) < 0)
		goto out;
	if ((rc = cli_parallel_resolve(&o.pf, m, &o.par, e)) < 0)
		goto out;
	/* workload */
	if (o.workload) {
		if ((rc = wl_spec_load(o.workload, &wl, e)) < 0)
			goto out;
	} else if (o.wl_flags) {
		flags_workload(&o, &wl);
	} else {
		char path[1200];
		snprintf(path, sizeof(path), "%s/../workloads/default.json", env.data_dir);
		if ((rc = wl_spec_load(path, &wl, e)) < 0)
			goto out;
		snprintf(wl.source, sizeof(wl.source), "workloads/default.json");
	}
	if (o.seed_given)
		wl.seed = (uint64_t)o.seed;
	wl.max_requests = o.max_requests;
	scenario_defaults(&sc, m, g, &wl);
	sc.par = o.par;
	sc.wdt = o.dtype;
	sc.kvdt = o.kvdtype;
	if (o.mbt)
		sc.max_num_batched_tokens = o.mbt;
	if (o.mns)
		sc.max_num_seqs = o.mns;
	if (o.mml)
		sc.max_model_len = o.mml;
	sc.block_size = o.block;
	sc.long_prefill_token_threshold = o.lpt;
	sc.total_kv_blocks = o.kv_blocks;
	sc.gpu_memory_utilization = o.util;
	sc.prefix_caching = !o.no_prefix;
	sc.router = o.router;
	sc.ov = o.ov;
	sc.check_invariants = o.check_inv;
	sc.exact_percentiles = o.exact;
	sc.no_segments = o.no_segments;
	snprintf(sc.engine, sizeof(sc.engine), "%s", o.engine ? o.engine : "vllm");
	if (strcmp(sc.engine, "sglang") == 0) {
		/* SGLang's defaults: chunked_prefill_size by GPU memory, radix
		 * cache pages of one token */
		if (!o.mbt)
			sc.max_num_batched_tokens = scenario_sglang_chunk(g);
		if (!o.block_given)
			sc.block_size = 1;
		sc.mem_fraction_static = o.mem_frac;
		sc.sglang_mrr_rule = !o.mns;
		if (o.sg_policy && (rc = sglang_policy_parse(o.sg_policy, &sc.sglang_policy, e)) < 0)
			goto out;
		sc.disable_overlap = o.no_overlap;
	}
	snprintf(sc.engine_version, sizeof(sc.engine_version), "%s", o.engine_version ? o.engine_version : "");
	sc.moe_dist = o.moe_dist;
	sc.moe_format = o.moe_format;
	sc.moe_wdt_given = o.moe_dtype_given;
	sc.moe_wdt = o.moe_dtype;
	if ((rc = cost_parse_off(o.tier0_off, &sc.tier0_off, e)) < 0)
		goto out;
	if (o.tier2 && strcmp(o.tier2, "none") != 0) {
		if ((rc = tier2_load(o.tier2, &t2, e)) < 0)
			goto out;
		sc.tier2 = &t2;
	} else if (!o.tier2) {
		char root[1100];
		bool found;
		snprintf(root, sizeof(root), "%s/..", env.data_dir);
		if ((rc = tier2_find(root, g->id, &t2, &found, e)) < 0)
			goto out;
		if (found)
			sc.tier2 = &t2;
	}
	{
		const char *in[4] = {o.workload, o.config, o.tier2, wl.trace[0] ? wl.trace : NULL};
		if ((o.requests_out && (rc = afile_check(o.requests_out, in, 4, e)) < 0) ||
		    (o.step_log && (rc = afile_check(o.step_log, in, 4, e)) < 0))
			goto out;
	}
	if (o.requests_out) {
		if ((rc = afile_open(&af, o.requests_out, e)) < 0)
			goto out;
		af_open = true;
		fprintf(af.f, "id,replica,stage,arrival_s,prompt_tokens,output_tokens,cached_tokens,preemptions,status,queue_ms,ttft_ms,itl_ms,tpot_ms,e2e_ms%s%s\n",
			o.spec_k > 0 ? ",tokens_per_step" : "", o.pd_prefill > 0 ? ",kv_transfer_ms" : "");
		sc.requests_out = af.f;
	}
	if (o.step_log) {
		if ((rc = afile_open(&slog_af, o.step_log, e)) < 0)
			goto out;
		slog = slog_af.f;
		sc.step_log = slog;
	}
	if (o.pd_prefill > 0) {
		sc.pd_prefill = o.pd_prefill;
		sc.pd_decode = o.pd_decode;
		sc.prefill_par = sc.par;
		if (o.prefill_tp)
			sc.prefill_par.tp = (int)o.prefill_tp;
		if (o.prefill_ep)
			sc.prefill_par.ep = (int)o.prefill_ep;
		else if (sc.par.ep > 1) /* EP over the worker's GPUs */
			sc.prefill_par.ep = sc.prefill_par.tp;
	}
	if (o.spec_k > 0) {
		char dname[128] = "";
		sc.spec.k = (int)o.spec_k;
		sc.spec.method = SPEC_MTP;
		if (o.spec_method &&
		    (rc = spec_parse_method(o.spec_method, &sc.spec.method, dname, sizeof(dname), e)) < 0)
			goto out;
		if (o.spec_rates) {
			if ((rc = spec_parse_rates(o.spec_rates, &sc.spec, e)) < 0)
				goto out;
		} else if (sc.spec.method == SPEC_MTP) {
			/* DeepSeek-V3 technical report (arXiv 2412.19437, sec. 5.4.3):
			 * the MTP second token is accepted 85-90 % of the time */
			sc.spec.rate[0] = 0.85;
			sc.spec.nrates = 1;
		} else {
			rc = err_set(e, SS_EUSAGE, "run: --speculative-method %s needs --acceptance-rate",
				     o.spec_method);
			goto out;
		}
		if (sc.spec.method == SPEC_MTP && m->mtp_layers == 0)
			note_line(notes, sizeof(notes), "the model's config has no MTP module (num_nextn_predict_layers); an MTP layer is priced as one more decoder layer anyway");
		if (sc.spec.method == SPEC_DRAFT) {
			draft = xcalloc(1, sizeof(*draft));
			if ((rc = cli_load_model(&env, dname, NULL, draft, e)) < 0) {
				err_prefix(e, "--speculative-method draft:%s", dname);
				goto out;
			}
			sc.draft_model = draft;
		}
	}
	if ((rc = scenario_check_config(&sc, o.allow_invalid, notes, sizeof(notes), e)) < 0)
		goto out;
	if ((rc = scenario_prepare(&sc, env.data_dir, &st, e)) < 0)
		goto out;
	prepared = true;
	if ((rc = scenario_check_capacity(&sc, &st, o.allow_invalid, notes, sizeof(notes), e)) < 0)
		goto out;
	if (notes[0] && o.fmt != FMT_TEXT)
		fprintf(stderr, "servesim run: %s\n", notes);
	s = st.sim;
	/* a progress line on a terminal once the run has taken a second
	 * (--progress: always, one line per update when not a terminal) */
	progress = isatty(STDERR_FILENO);
	next_prog = t0 + (o.progress ? 0.5 : 1.0);
	for (;;) {
		rc = sim_step(s, e);
		if (rc <= 0)
			break;
		if ((o.progress || progress) && (sim_totals(s)->events & 0xffff) == 0) {
			double now = wall_s();
			if (now >= next_prog) {
				const struct sim_totals *t = sim_totals(s);
				fprintf(stderr, "%ssimulated %.1f s, %llu arrived, %llu completed%s",
					progress ? "\r" : "", (double)sim_now_ns(s) * 1e-9,
					(unsigned long long)t->arrived, (unsigned long long)t->completed,
					progress ? "" : "\n");
				next_prog = now + 0.5;
			}
		}
	}
	if (progress && wall_s() > t0 + 1.0)
		fputc('\n', stderr);
	if (rc < 0)
		goto out;
	if (af_open) {
		af_open = false;
		if ((rc = afile_commit(&af, e)) < 0)
			goto out;
	}
	if (slog) {
		slog = NULL;
		if ((rc = afile_commit(&slog_af, e)) < 0)
			goto out;
	}
	ctx.o = &o;
	ctx.m = m;
	ctx.g = g;
	ctx.cost = &st.cost;
	ctx.wl = &wl;
	ctx.sc = &st.sc;
	ctx.mp = &st.mp;
	ctx.kv_from_memory = st.kv_from_memory;
	ctx.notes = notes;
	ctx.prefill_par = &sc.prefill_par;
	ctx.pd_nvlink = st.pd_nvlink;
	ctx.sg_mem = &st.sg_mem;
	ctx.mem_fraction_static = st.mem_fraction_static;
	if (o.fmt == FMT_JSON)
		print_json(&ctx, s);
	else if (o.fmt == FMT_CSV)
		print_csv(s);
	else
		print_text(&ctx, s);
	if (o.progress || o.fmt == FMT_TEXT)
		fprintf(stderr, "servesim run: %llu requests simulated in %.3f s wall\n",
			(unsigned long long)sim_totals(s)->arrived, wall_s() - t0);
	rc = 0;
out:
	if (af_open)
		afile_abort(&af);
	if (prepared)
		scenario_release(&st);
	if (slog)
		afile_abort(&slog_af);
	wl_spec_release(&wl);
	free(m);
	free(draft);
	cli_env_release(&env);
	return rc;
}
