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
#include "scenopts.h"
#include "wlflags.h"
#include "eval/accuracy.h"
#include "base/afile.h"
#include "base/alloc.h"
#include "report/bdreport.h"
#include "plan/autoscale.h"
#include "plan/runjob.h"
#include "plan/gsweep.h"
#include "base/loghist.h"
#include "report/out.h"
#include "engine/scenario.h"
#include "sim/sim.h"
#include "workload/workload.h"

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
	;
/* (then the pool's lines of the deployment field table) */
static const char run_usage0[] =
	"  --dtype bf16|fp8|fp4|int4 weights and GEMMs (default bf16; fp4 needs a Blackwell GPU;\n"
	"                            int4 = weight-only W4A16)\n"
	"  --moe-dtype D             routed experts' weights when they differ from --dtype\n"
	"  --moe-format F            routed experts' format: bf16, fp8 (per-tensor scales),\n"
	"                            fp8_block, fp4 (NVFP4), mxfp4 or int4 (default: as the\n"
	"                            checkpoint stores them, else --dtype)\n"
	"  --kv-dtype bf16|fp8       KV cache (default: the engine's, docs/kernels.md)\n"
	"kernels:\n"
	"  --engine vllm|sglang|trtllm  whose measured kernel tables price the step (default vllm)\n"
	"  --engine-version V        the collected version nearest V (default: the newest)\n"
	"  --moe-distribution D      expert routing imbalance of the MoE tables: power_law_1.01\n"
	"                            (default), balanced or power_law_1.2\n"
	"engine (vLLM v1 defaults; SGLang's spellings taken too):\n";
/* (then the deployment field table's lines, cli_help_fields) */
static const char run_usage1[] =
	"  --allow-invalid           simulate what the engine refuses to start (a KV cache below\n"
	"                            max_model_len, a length, dtype, block size, token budget,\n"
	"                            EP or MTP it rejects), with a warning; else exit 2\n"
	"speculative decoding (vLLM V1 spec decode / MTP):\n"
	"  --speculative-tokens K    draft tokens verified per step (--num-speculative-tokens)\n"
	"  --speculative-method mtp|eagle|ngram|draft:MODEL  (default mtp)\n"
	"  --acceptance-rate A | A1,...,AK  per-position acceptance (one rate: geometric;\n"
	"                            default mtp/eagle: measured curves, data/specdec)\n"
	;
/* (split: ISO C caps a string literal at 4095 characters) */
static const char run_usage2[] =
	"P/D disaggregation:\n"
	"  --disaggregate XpYd       X prefill workers hand each prompt's KV to Y decode\n"
	"                            workers (each worker one engine of --tp/--pp/--dp/--ep;\n"
	"                            --dp > 1: an MoE engine of dp attention-DP ranks)\n"
	"  --disaggregate XeYpZd | Xe1pd  X encoder workers (one GPU each) encode the\n"
	"                            workload's images and hand the embeddings to the\n"
	"                            prefill workers, or to the aggregated engine (E/P/D)\n"
	"  --prefill-tp N --prefill-ep N --prefill-dp N  the prefill workers' layout\n"
	"                            (default: the same)\n"
	"  --prefill-gpu G --decode-gpu G  each pool's GPU type (default --gpu for both;\n"
	"                            --decode-gpu is --gpu): own kernel tables and memory, the\n"
	"                            KV over the slower GPU's inter-node link\n"
	"  --kv-handoff-ms X         each request's fixed hand-off time besides the KV's\n"
	"                            link time (default by engine: vllm 267, sglang 229,\n"
	"                            trtllm 0.01; fitted on measured P/D runs)\n"
	"workload:\n"
	WLFLAGS_HELP
	"  --max-requests N          allow a workload of more than N requests (default 20000000)\n"
	"model:\n"
	"  --tier0-off LIST          switch corrections off, e.g. H2 or H1,H4 (ablation)\n"
	"  --overhead-step-us X --overhead-layer-us X --overhead-request-us X\n"
	"  --api-ttft-ms X --api-prompt-us X --stream-token-us X --delivery-steps X --eager-op-us X\n"
	"                            override the engine's host terms (its own by version\n"
	"                            otherwise: docs/engines.md)\n"
	"  --tier2 FILE|none         tier-2 hardware file (default: calibration/tier2/<gpu>.json\n"
	"                            when it exists)\n"
	"  --calibration FILE|none   tier-1 file (default: the accepted file in calibration/tier1/\n"
	"                            for the GPU and engine version, unless overhead flags are\n"
	"                            given); a file marked rejected is not applied (a warning\n"
	"                            says so) unless --force-calibration\n"
	;
/* (then scenopts_help_sglang and scenopts_help_offload) */
static const char run_usage3[] =
	"autoscaling (docs/autoscale.md):\n"
	"  --autoscale MIN:MAX       the pool's serving replicas follow a policy between MIN and\n"
	"                            MAX (instead of --replicas; not with --disaggregate)\n"
	"  --autoscale-policy P      utilization (default: Kubernetes HPA's rule on KV / batch\n"
	"                            slots) or slo (Dynamo's SLA planner; needs --slo-*)\n"
	"  --autoscale-target F      utilization: target use of KV / batch slots (0.7)\n"
	"  --autoscale-interval-s S  a decision every S seconds (60)\n"
	"  --autoscale-storage-gb-s X  weights load at X GB/s on a scale-up (2)\n"
	"  --autoscale-warmup-s S    warm-up after loading, before serving (30)\n"
	"  --autoscale-grace-s S     scale down to the highest recommendation of the last S s (300)\n"
	"  --slo-ttft-ms X --slo-itl-ms X  per-request SLOs: summary.slo_attainment, the slo policy\n"
	"  --prices FILE             $/GPU-hour table (default data/prices.json)\n"
	"  --svg FILE                chart of serving replicas and p90 TTFT per interval\n"
	"output:\n"
	"  --format F                text (default), json, csv (configuration columns on every\n"
	"                            row) or vllm-bench (vLLM's benchmark result keys)\n"
	"  --goodput 'ttft:MS tpot:MS e2el:MS'  vLLM's goodput: requests per s meeting every\n"
	"                            limit given (tpot = (E2E - TTFT)/(output - 1))\n"
	"  --requests-out FILE.csv   one row per request, written atomically\n"
	"  --progress                progress on stderr\n"
	"  --exact-percentiles       exact percentiles past 1,000,000 completed requests\n"
	"                            (else from a log histogram, relative error <= 0.1 %)\n"
	"  --step-log FILE           one line per engine step: scheduled id+tokens, queues, KV\n"
	"  --breakdown decode:B:C | prefill:B:L[:P]  instead of simulating, price one engine\n"
	"                            step component by component: B requests (over all DP\n"
	"                            ranks) decoding one token after C cached tokens each, or\n"
	"                            B prompts of L new tokens after P cached; each layer\n"
	"                            kind's operators (attention, GEMMs, MoE, communication,\n"
	"                            other) and the host terms, as the simulator prices them\n"
	"                            (text or json)\n"
	"\n"
	"Metrics are client-side: TTFT = first token - arrival + API term; ITL =\n"
	"(E2E - TTFT)/(output - 1) (vLLM's TPOT); ITL pooled = every token gap pooled (vLLM's\n"
	"ITL); TPOT = E2E / output tokens (GuideLLM >= 0.4); percentiles interpolate linearly\n"
	"between order statistics; std is the population standard deviation.  The status line\n"
	"says ok, overloaded (served < 0.95 x offered and queueing growing) or no completions.\n"
	"exit codes: 0 ok, 1 runtime error, 2 usage/config error, 3 bad input data\n";

struct run_opts {
	struct scenflags sf;
	struct wl_source wf;
	const char *requests_out, *step_log;
	bool progress, check_inv, exact;
	bool no_segments;           /* --no-decode-segments (tests: step by step) */
	struct scenflags_run ex;    /* P/D and speculative decoding */
	const char *decode_gpu;     /* --decode-gpu (P/D: --gpu's other name) */
	int64_t max_requests;
	enum out_format fmt;
	double goodput[3];  /* --goodput ttft, tpot, e2el limits in ms (NAN: none) */
	struct bd_step bd;           /* --breakdown: the step priced (batch 0: none) */
	/* --autoscale (as.max 0: none), its storage bandwidth (GB/s), --prices, --svg */
	struct autoscale_cfg as;
	double storage_gb_s;
	const char *prices, *svg;
};

static int parse_run(int argc, char **argv, struct run_opts *o, struct err *e)
{
	enum { O_FMT = 256, O_ROUT, O_PROG, O_CHECK, O_SLOG, O_SPK, O_SPM, O_SPA, O_PD, O_PTP, O_PEP, O_PDP, O_PHO,
	       O_MAXREQ, O_EXACT, O_GOOD, O_NOSEG, O_BD, O_AS, O_ASP, O_AST, O_ASI, O_ASB, O_ASW, O_ASG, O_SLOT,
	       O_SLOI, O_PRICES, O_SVG, O_PGPU, O_DGPU };
	static const struct option own[] = {
		SCENFLAGS_OPTIONS, WLFLAGS_OPTIONS,
		{"format", required_argument, 0, O_FMT},
		{"requests-out", required_argument, 0, O_ROUT}, {"progress", no_argument, 0, O_PROG},
		{"check-invariants", no_argument, 0, O_CHECK}, {"help", no_argument, 0, 'h'},
		{"exact-percentiles", no_argument, 0, O_EXACT},
		{"no-decode-segments", no_argument, 0, O_NOSEG},
		{"step-log", required_argument, 0, O_SLOG},
		{"speculative-tokens", required_argument, 0, O_SPK},
		{"num-speculative-tokens", required_argument, 0, O_SPK},
		{"speculative-method", required_argument, 0, O_SPM},
		{"acceptance-rate", required_argument, 0, O_SPA},
		{"disaggregate", required_argument, 0, O_PD},
		{"prefill-tp", required_argument, 0, O_PTP},
		{"prefill-ep", required_argument, 0, O_PEP},
		{"prefill-dp", required_argument, 0, O_PDP},
		{"kv-handoff-ms", required_argument, 0, O_PHO},
		{"prefill-gpu", required_argument, 0, O_PGPU},
		{"decode-gpu", required_argument, 0, O_DGPU},
		{"max-requests", required_argument, 0, O_MAXREQ},
		{"goodput", required_argument, 0, O_GOOD},
		{"breakdown", required_argument, 0, O_BD},
		{"autoscale", required_argument, 0, O_AS},
		{"autoscale-policy", required_argument, 0, O_ASP},
		{"autoscale-target", required_argument, 0, O_AST},
		{"autoscale-interval-s", required_argument, 0, O_ASI},
		{"autoscale-storage-gb-s", required_argument, 0, O_ASB},
		{"autoscale-warmup-s", required_argument, 0, O_ASW},
		{"autoscale-grace-s", required_argument, 0, O_ASG},
		{"slo-ttft-ms", required_argument, 0, O_SLOT},
		{"slo-itl-ms", required_argument, 0, O_SLOI},
		{"prices", required_argument, 0, O_PRICES},
		{"svg", required_argument, 0, O_SVG},
		{0, 0, 0, 0}};
	struct option lo[CLI_MAX_OPTIONS];
	bool as_flag = false;
	int c, rc = 0;

	memset(o, 0, sizeof(*o));
	o->goodput[0] = o->goodput[1] = o->goodput[2] = NAN;
	autoscale_cfg_defaults(&o->as);
	o->storage_gb_s = AS_DEFAULT_STORAGE_GB_S;
	scenflags_defaults(&o->sf);
	wlflags_defaults(&o->wf);
	cli_options(own, &deploy_table, lo, CLI_MAX_OPTIONS);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(run_usage, stdout);
			cli_help_fields(&deploy_table, DEPLOY_G_POOL, stdout);
			fputs(run_usage0, stdout);
			cli_help_fields(&deploy_table, DEPLOY_G_ENGINE, stdout);
			fputs(run_usage1, stdout);
			fputs(run_usage2, stdout);
			scenopts_help_sglang(stdout);
			scenopts_help_offload(stdout);
			fputs(run_usage3, stdout);
			return 1;
		case O_FMT:
			if (strcmp(optarg, "vllm-bench") == 0)
				o->fmt = FMT_VLLM_BENCH;
			else if ((rc = cli_format(optarg, true, &o->fmt, e)) < 0)
				err_set(e, SS_EUSAGE, "--format must be text, json, csv or vllm-bench, got '%s'", optarg);
			break;
		case O_ROUT: o->requests_out = optarg; break;
		case O_PROG: o->progress = true; break;
		case O_CHECK: o->check_inv = true; break;
		case O_EXACT: o->exact = true; break;
		case O_NOSEG: o->no_segments = true; break;
		case O_SLOG: o->step_log = optarg; break;
		case O_SPK: rc = cli_int("--speculative-tokens", optarg, 1, SPEC_MAX_TOKENS, &o->ex.spec_k, e); break;
		case O_SPM: o->ex.spec_method = optarg; break;
		case O_SPA: o->ex.spec_rates = optarg; break;
		case O_PD: rc = scenflags_run_parse_pd(optarg, &o->ex, e); break;
		case O_PTP: rc = cli_int("--prefill-tp", optarg, 1, 4096, &o->ex.prefill_tp, e); break;
		case O_PEP: rc = cli_int("--prefill-ep", optarg, 1, 4096, &o->ex.prefill_ep, e); break;
		case O_PDP: rc = cli_int("--prefill-dp", optarg, 1, 4096, &o->ex.prefill_dp, e); break;
		case O_PHO:
			rc = cli_double("--kv-handoff-ms", optarg, 0, false, &o->ex.handoff_ms, e);
			o->ex.handoff_given = true;
			break;
		case O_PGPU: o->ex.prefill_gpu = optarg; break;
		case O_DGPU: o->decode_gpu = optarg; break;
		case O_MAXREQ: rc = cli_int("--max-requests", optarg, 1, INT64_MAX, &o->max_requests, e); break;
		case O_GOOD: rc = sim_goodput_parse(optarg, o->goodput, e); break;
		case O_BD: rc = scenflags_breakdown_parse(optarg, &o->bd, e); break;
		case O_AS: rc = autoscale_range_parse(optarg, &o->as, e); break;
		case O_ASP: rc = autoscale_policy_parse(optarg, &o->as.policy, e); as_flag = true; break;
		case O_AST: rc = cli_double("--autoscale-target", optarg, 0, true, &o->as.target, e); as_flag = true; break;
		case O_ASI: rc = cli_double("--autoscale-interval-s", optarg, 0, true, &o->as.interval_s, e); as_flag = true; break;
		case O_ASB: rc = cli_double("--autoscale-storage-gb-s", optarg, 0, true, &o->storage_gb_s, e); as_flag = true; break;
		case O_ASW: rc = cli_double("--autoscale-warmup-s", optarg, 0, false, &o->as.warmup_s, e); as_flag = true; break;
		case O_ASG: rc = cli_double("--autoscale-grace-s", optarg, 0, false, &o->as.grace_s, e); as_flag = true; break;
		case O_SLOT: rc = cli_double("--slo-ttft-ms", optarg, 0, true, &o->as.slo_ttft_ms, e); as_flag = true; break;
		case O_SLOI: rc = cli_double("--slo-itl-ms", optarg, 0, true, &o->as.slo_itl_ms, e); as_flag = true; break;
		case O_PRICES: o->prices = optarg; as_flag = true; break;
		case O_SVG: o->svg = optarg; as_flag = true; break;
		case '?': case ':': return cli_bad_option("run", argv[optind - 1], e);
		default:
			if ((rc = wlflags_option(c, optarg, &o->wf, e)) == 0 &&
			    (rc = scenflags_option(c, optarg, &o->sf, e)) == 0)
				return cli_bad_option("run", argv[optind - 1], e);
		}
		if (rc < 0)
			return rc;
		rc = 0;
	}
	if (optind < argc)
		return err_set(e, SS_EUSAGE, "unexpected argument '%s'", argv[optind]);
	if (o->sf.model && o->sf.config)
		return err_set(e, SS_EUSAGE, "give --model or --config, not both");
	if ((o->ex.prefill_tp || o->ex.prefill_ep || o->ex.prefill_dp || o->ex.handoff_given || o->ex.prefill_gpu ||
	     o->decode_gpu) && !o->ex.pd_prefill)
		return err_set(e, SS_EUSAGE, "--prefill-tp, --prefill-ep, --prefill-dp, --prefill-gpu, --decode-gpu and --kv-handoff-ms need --disaggregate XpYd");
	if (o->decode_gpu && o->sf.gpu_given)
		return err_set(e, SS_EUSAGE, "--decode-gpu names the decode workers' GPU, as --gpu does: give one of them");
	if (o->decode_gpu) /* the decode workers' GPU is the deployment's (--gpu) */
		o->sf.gpu = o->decode_gpu;
	if (o->wf.ov.rate_type == WL_RT_SWEEP &&
	    (o->requests_out || o->step_log || o->fmt == FMT_VLLM_BENCH || !isnan(o->goodput[0]) ||
	     !isnan(o->goodput[1]) || !isnan(o->goodput[2])))
		return err_set(e, SS_EUSAGE,
			       "--rate-type sweep reports one row per benchmark: --requests-out, --step-log, --goodput and --format vllm-bench apply to one run");
	if (o->bd.batch && (o->wf.ov.rate_type == WL_RT_SWEEP || o->requests_out || o->step_log ||
			    (o->fmt != FMT_TEXT && o->fmt != FMT_JSON)))
		return err_set(e, SS_EUSAGE,
			       "--breakdown prices one step instead of simulating: not with --rate-type sweep, --requests-out, --step-log or --format csv/vllm-bench");
	if (as_flag && !o->as.max)
		return err_set(e, SS_EUSAGE, "--autoscale-*, --slo-ttft-ms, --slo-itl-ms, --prices and --svg need "
			       "--autoscale MIN:MAX");
	if (o->as.max && (o->sf.k.replicas != 1 || o->ex.pd_prefill || o->bd.batch || o->wf.ov.rate_type == WL_RT_SWEEP ||
			  o->fmt == FMT_CSV || o->fmt == FMT_VLLM_BENCH))
		return err_set(e, SS_EUSAGE, "--autoscale MIN:MAX sets the replicas: not with --replicas, "
			       "--disaggregate, --breakdown, --rate-type sweep or --format csv/vllm-bench");
	if (o->as.policy == AS_SLO && isnan(o->as.slo_ttft_ms) && isnan(o->as.slo_itl_ms))
		return err_set(e, SS_EUSAGE, "--autoscale-policy slo needs an SLO: --slo-ttft-ms and/or --slo-itl-ms");
	if ((o->ex.spec_method || o->ex.spec_rates) && !o->ex.spec_k)
		return err_set(e, SS_EUSAGE,
			       "--speculative-method and --acceptance-rate need --speculative-tokens K");
	return 0;
}

/* Step the simulation; a progress line on a terminal once the run has
 * taken a second (--progress: always, one line per update when not a
 * terminal). */
static int run_sim(struct sim *s, bool always, double t0, struct err *e)
{
	bool tty = isatty(STDERR_FILENO);
	double next_prog = t0 + (always ? 0.5 : 1.0);
	int rc;

	for (;;) {
		rc = sim_step(s, e);
		if (rc <= 0)
			break;
		if ((always || tty) && (sim_totals(s)->events & 0xffff) == 0) {
			double now = cli_wall_s();
			if (now >= next_prog) {
				const struct sim_totals *t = sim_totals(s);
				fprintf(stderr, "%ssimulated %.1f s, %llu arrived, %llu completed%s",
					tty ? "\r" : "", (double)sim_now_ns(s) * 1e-9,
					(unsigned long long)t->arrived, (unsigned long long)t->completed,
					tty ? "" : "\n");
				next_prog = now + 0.5;
			}
		}
	}
	if (tty && cli_wall_s() > t0 + 1.0)
		fputc('\n', stderr);
	return rc;
}

/* --breakdown: one step of the requested shape priced component by
 * component on the prepared cost model (P/D: a prefill step on the prefill
 * workers'), instead of a simulation. */
static int run_breakdown(const struct run_opts *o, const struct scenflags_ctx *x, const struct scenario *sc,
			 const struct scenario_state *st, const struct wl_spec *wl, struct err *e)
{
	const struct cost_model *c;
	struct cost_breakdown bd;
	struct out_breakdown r;
	char tables[64];
	int64_t local;
	int rc;

	if ((rc = scenflags_breakdown(st, &o->bd, &c, &local, &bd, e)) == 0) {
		out_breakdown_of(c, o->bd.prefill, o->bd.batch, local, o->bd.len, o->bd.ctx, &bd, &r);
		out_config_of(&o->sf, x, sc, st, wl, tables, sizeof(tables), &r.cfg);
		if (o->fmt == FMT_JSON)
			out_breakdown_json(stdout, &r);
		else
			out_breakdown_text(stdout, &r);
	}
	cost_breakdown_release(&bd);
	return rc;
}

/* GuideLLM's sweep: k benchmarks of the prepared scenario, one report. */
static int run_gsweep(const struct run_opts *o, const struct scenflags_ctx *x, const struct scenario *sc,
		      const struct scenario_state *st, const struct wl_spec *wl, const char *origin,
		      struct err *e)
{
	int k = o->wf.ov.rate_given ? (int)o->wf.ov.rate : 10, rc;
	struct gsweep_point *p = xcalloc((size_t)k, sizeof(*p));
	struct out_run rep;
	char tables[64];

	if ((rc = gsweep_run(st, wl, k, p, e)) == 0) {
		out_run_of(&o->sf, o->ex.spec_method, x, sc, st, wl, origin, tables, sizeof(tables), &rep);
		if (o->fmt == FMT_JSON)
			out_gsweep_json(stdout, &rep, p, k);
		else if (o->fmt == FMT_CSV)
			out_gsweep_csv(stdout, &rep, p, k);
		else
			out_gsweep_text(stdout, &rep, p, k);
	}
	free(p);
	return rc;
}

int cmd_run(int argc, char **argv, struct err *e)
{
	struct run_opts o;
	struct run_spec spec;
	struct run_job j;
	double t0 = cli_wall_s();
	char tables[64];
	struct out_run rep;
	struct acc_confidence conf;
	struct autoscale_result asr;
	int rc = parse_run(argc, argv, &o, e);

	if (rc != 0)
		return rc > 0 ? 0 : rc;
	memset(&asr, 0, sizeof(asr));
	spec = (struct run_spec){&o.sf, &o.wf, &o.ex, o.max_requests, o.requests_out, o.step_log, o.svg,
				 o.check_inv, o.exact, o.no_segments, o.as.max};
	rc = run_job_prepare(&spec, &j, e);
	if (j.prepared && j.x.notes[0] && o.fmt != FMT_TEXT)
		fprintf(stderr, "servesim run: %s\n", j.x.notes);
	if (rc < 0)
		goto out;
	if (o.bd.batch) {
		rc = run_breakdown(&o, &j.x, &j.sc, &j.st, &j.wl, e);
		goto out;
	}
	if (o.wf.ov.rate_type == WL_RT_SWEEP) {
		rc = run_gsweep(&o, &j.x, &j.sc, &j.st, &j.wl, j.origin, e);
		goto out;
	}
	if (o.as.max) {
		if ((rc = autoscale_prepare(&o.as, &j.sc, &j.st, o.storage_gb_s, o.prices, &j.x.env, e)) < 0 ||
		    (rc = autoscale_run(j.st.sim, &o.as, &asr, e)) < 0)
			goto out;
	} else if ((rc = run_sim(j.st.sim, o.progress, t0, e)) < 0) {
		goto out;
	}
	if (o.svg) {
		struct afile svg_af;
		if ((rc = afile_open(&svg_af, o.svg, e)) < 0)
			goto out;
		out_autoscale_svg(svg_af.f, &o.as, &asr);
		if ((rc = afile_commit(&svg_af, e)) < 0)
			goto out;
	}
	if ((rc = run_job_commit(&j, e)) < 0)
		goto out;
	out_run_of(&o.sf, o.ex.spec_method, &j.x, &j.sc, &j.st, &j.wl, j.origin, tables, sizeof(tables), &rep);
	if ((rc = out_run_status(&rep, &j.wl, j.st.sim, o.goodput, e)) < 0)
		goto out;
	if ((rc = acc_confidence_sim(j.x.env.data_dir, &j.sc, j.st.sim, rep.status.kind == RUN_OVERLOADED, &conf, e)) < 0)
		goto out;
	rep.conf = &conf;
	if (o.as.max) {
		rep.as_cfg = &o.as;
		rep.as = &asr;
	}
	switch (o.fmt) {
	case FMT_JSON: out_run_json(stdout, &rep); break;
	case FMT_CSV: out_run_csv(stdout, &rep); break;
	case FMT_VLLM_BENCH: out_run_vllm_bench(stdout, &rep); break;
	default: out_run_text(stdout, &rep);
	}
	if (o.progress || o.fmt == FMT_TEXT)
		fprintf(stderr, "servesim run: %llu requests simulated in %.3f s wall\n",
			(unsigned long long)sim_totals(j.st.sim)->arrived, cli_wall_s() - t0);
	rc = 0;
out:
	run_job_release(&j);
	autoscale_result_release(&asr);
	return rc;
}
