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
#include "engine/scenopts.h"
#include "plan/wlflags.h"
#include "eval/accuracy.h"
#include "base/afile.h"
#include "base/alloc.h"
#include "report/bdreport.h"
#include "plan/autoscale.h"
#include "plan/runjob.h"
#include "plan/gsweep.h"
#include "base/loghist.h"
#include "report/out.h"
#include "report/outfmt.h"
#include "report/progress.h"
#include "engine/scenario.h"
#include "sim/sim.h"
#include "workload/workload.h"

struct run_opts {
	struct scenflags sf;
	struct wl_source wf;
	const char *requests_out, *step_log;
	bool progress, check_inv, exact;
	bool no_segments;           /* --no-decode-segments (tests: step by step) */
	bool no_arrival_thread;     /* --no-arrival-thread (tests: arrivals drawn inline) */
	struct scenflags_run ex;    /* P/D and speculative decoding */
	const char *decode_gpu;     /* --decode-gpu (P/D: --gpu's other name) */
	enum out_format fmt;
	double goodput[3];  /* --goodput ttft, tpot, e2el limits in ms (NAN: none) */
	struct bd_step bd;           /* --breakdown: the step priced (batch 0: none) */
	/* --autoscale (as.max 0: none), its storage bandwidth (GB/s), --prices, --svg;
	 * as_flag: one of the flags that need --autoscale given */
	struct autoscale_cfg as;
	double storage_gb_s;
	const char *prices, *svg;
	bool as_flag;
};

static void help_pool(FILE *f)
{
	scenopts_help_group(DEPLOY_G_POOL, f);
}

static void help_engine(FILE *f)
{
	scenopts_help_group(DEPLOY_G_ENGINE, f);
}

enum { O_PD = 1, O_GOOD, O_BD, O_AS, O_ASP };
#define O(m) offsetof(struct run_opts, m)
#define AS_GIVEN .given = ARGTAB_GIVEN(struct run_opts, as_flag)
static const struct argtab_row flag_rows[] = {
	AT_TXT("usage: servesim run [--workload FILE] [--model M | --config PATH] [options]\n"
	       "\n"
	       "Simulates every request of a workload through vLLM-style serving replicas and\n"
	       "reports TTFT, ITL, TPOT, E2E, queueing and throughput, overall and per stage.\n"
	       "With no arguments: workloads/default.json on Llama-3.1-8B, one H100.\n"
	       "\n"
	       "model and hardware:\n"
	       "  --model M                 registry id or HF name (default llama-3.1-8b), or a\n"
	       "                            local config.json or model folder, as vLLM's --model\n"
	       "  --config PATH             an HF config.json (or its folder) instead\n"
	       "  --gpu G                   GPU (default h100)\n"
	       "  --tp N --dp N --ep N      tensor, data and expert parallelism (default 1 each);\n"
	       "                            vLLM's --tensor-parallel-size, --data-parallel-size,\n"
	       "                            --enable-expert-parallel (EP = TP x DP) and SGLang's\n"
	       "                            --tp-size, --dp-size, --ep-size, --enable-dp-attention\n"
	       "                            (--tp-size then counts all GPUs: attention TP = tp/dp)\n"
	       "                            are accepted.  For an MoE model DP ranks run attention\n"
	       "                            on their own batches and share the MoE layers; without\n"
	       "                            EP the experts are TP-sharded over the TP x DP GPUs\n"
	       "                            (dense models: --dp runs N replicas behind the router)\n"
	       "  --pp N                    pipeline stages (--pipeline-parallel-size, --pp-size)\n"),
	{AT_TQ(&scenflags_tab, O(sf))},
	AT_SEC(help_pool),
	AT_TXT("  --dtype bf16|fp8|fp4|int4 weights and GEMMs (default bf16; fp4 needs a Blackwell GPU;\n"
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
	       "  --moe-backend B           the routed experts' kernels as TensorRT-LLM's moe_config.backend\n"
	       "                            names them: TRTLLM (trtllm-gen), DEEPGEMM, CUTLASS, CUTEDSL or\n"
	       "                            WIDEEP; vLLM's: DEEPGEMM or TRITON (VLLM_MOE_USE_DEEP_GEMM=1 / 0)\n"
	       "                            (default: the tables' fastest kernel per shape; P/D:\n"
	       "                            both pools unless --prefill-moe-backend)\n"
	       "engine (vLLM v1 defaults; SGLang's spellings taken too):\n"),
	AT_SEC(help_engine),
	AT_TXT("  --allow-invalid           simulate what the engine refuses to start (a KV cache below\n"
	       "                            max_model_len, a length, dtype, block size, token budget,\n"
	       "                            EP or MTP it rejects), with a warning; else exit 2\n"
	       "speculative decoding (vLLM V1 spec decode / MTP):\n"),
	{AT_I("--speculative-tokens", "K", O(ex.spec_k), 1, SPEC_MAX_TOKENS,
	      "draft tokens verified per step (--num-speculative-tokens)")},
	{AT_A("--num-speculative-tokens")},
	{AT_S("--speculative-method", "mtp|eagle|ngram|draft:MODEL", O(ex.spec_method), " (default mtp)")},
	{AT_S("--acceptance-rate", "A | A1,...,AK", O(ex.spec_rates), " per-position acceptance (one rate: geometric;\n"
	      "default mtp/eagle: measured curves, data/specdec)")},
	AT_TXT("P/D disaggregation:\n"),
	{AT_O("--disaggregate", "XpYd", O_PD, "X prefill workers hand each prompt's KV to Y decode\n"
	      "workers (each worker one engine of --tp/--pp/--dp/--ep;\n"
	      "--dp > 1: an MoE engine of dp attention-DP ranks)")},
	AT_TXT("  --disaggregate XeYpZd | Xe1pd  X encoder workers (one GPU each) encode the\n"
	       "                            workload's images and hand the embeddings to the\n"
	       "                            prefill workers, or to the aggregated engine (E/P/D)\n"
	       "  --prefill-tp N --prefill-ep N --prefill-dp N  the prefill workers' layout\n"
	       "                            (default: the same)\n"
	       "  --prefill-moe-backend B   the prefill workers' MoE backend (default --moe-backend's)\n"
	       "  --prefill-gpu G --decode-gpu G  each pool's GPU type (default --gpu for both;\n"
	       "                            --decode-gpu is --gpu): own kernel tables and memory, the\n"
	       "                            KV over the slower GPU's inter-node link\n"),
	{AT_I("--prefill-tp", "N", O(ex.prefill_tp), 1, 4096, NULL)},
	{AT_I("--prefill-ep", "N", O(ex.prefill_ep), 1, 4096, NULL)},
	{AT_I("--prefill-dp", "N", O(ex.prefill_dp), 1, 4096, NULL)},
	{AT_S("--prefill-gpu", "G", O(ex.prefill_gpu), NULL)},
	{AT_S("--prefill-moe-backend", "B", O(ex.prefill_moe_backend), NULL)},
	{AT_S("--decode-gpu", "G", O(decode_gpu), NULL)},
	{AT_N("--kv-handoff-ms", "X", O(ex.handoff_ms), 0, false, "each request's fixed hand-off time besides the KV's\n"
	      "link time (default by engine: vllm 245, sglang 210,\n"
	      "trtllm 29; fitted on measured P/D runs)"), .given = ARGTAB_GIVEN(struct run_opts, ex.handoff_given)},
	AT_TXT("workload:\n"),
	{AT_T(&wl_flags_tab, O(wf))},
	{AT_I("--max-requests", "N", O(wf.max_requests), 1, INT64_MAX, "allow a workload of more than N requests (default 20000000)")},
	AT_TXT("model:\n"
	       "  --tier0-off LIST          switch corrections off, e.g. H2 or H1,H4 (ablation)\n"
	       "  --overhead-step-us X --overhead-layer-us X --overhead-request-us X\n"
	       "  --api-ttft-ms X --api-prompt-us X --stream-token-us X --delivery-steps X --eager-op-us X\n"
	       "  --api-loop-ms X --jit-compile-ms X\n"
	       "                            override the engine's host terms (its own by version\n"
	       "                            otherwise: docs/engines.md)\n"
	       "  --tier2 FILE|none         tier-2 hardware file (default: calibration/tier2/<gpu>.json\n"
	       "                            when it exists)\n"
	       "  --calibration FILE|none   tier-1 file (default: the accepted file in calibration/tier1/\n"
	       "                            for the GPU and engine version, unless overhead flags are\n"
	       "                            given); a file marked rejected is not applied (a warning\n"
	       "                            says so) unless --force-calibration\n"),
	AT_SEC(scenopts_help_sglang),
	AT_SEC(scenopts_help_offload),
	AT_TXT("autoscaling (docs/autoscale.md):\n"),
	{AT_O("--autoscale", "MIN:MAX", O_AS, "the pool's serving replicas follow a policy between MIN and\n"
	      "MAX (instead of --replicas; not with --disaggregate)")},
	{AT_O("--autoscale-policy", "P", O_ASP, "utilization (default: Kubernetes HPA's rule on KV / batch\n"
	      "slots) or slo (Dynamo's SLA planner; needs --slo-*)"), AS_GIVEN},
	{AT_N("--autoscale-target", "F", O(as.target), 0, true, "utilization: target use of KV / batch slots (0.7)"), AS_GIVEN},
	{AT_N("--autoscale-interval-s", "S", O(as.interval_s), 0, true, "a decision every S seconds (60)"), AS_GIVEN},
	{AT_N("--autoscale-storage-gb-s", "X", O(storage_gb_s), 0, true, " weights load at X GB/s on a scale-up (2)"),
	 AS_GIVEN},
	{AT_N("--autoscale-warmup-s", "S", O(as.warmup_s), 0, false, "warm-up after loading, before serving (30)"), AS_GIVEN},
	{AT_N("--autoscale-grace-s", "S", O(as.grace_s), 0, false,
	      "scale down to the highest recommendation of the last S s (300)"), AS_GIVEN},
	AT_TXT("  --slo-ttft-ms X --slo-itl-ms X  per-request SLOs: summary.slo_attainment, the slo policy\n"),
	{AT_N("--slo-ttft-ms", "X", O(as.slo_ttft_ms), 0, true, NULL), AS_GIVEN},
	{AT_N("--slo-itl-ms", "X", O(as.slo_itl_ms), 0, true, NULL), AS_GIVEN},
	{AT_S("--prices", "FILE", O(prices), "$/GPU-hour table (default data/prices.json)"), AS_GIVEN},
	{AT_S("--svg", "FILE", O(svg), "chart of serving replicas and p90 TTFT per interval"), AS_GIVEN},
	AT_TXT("output:\n"),
	{AT_WA("--format", "F", "text|json|csv|vllm-bench", O(fmt), "text (default), json, csv (configuration columns on every\n"
	      "row) or vllm-bench (vLLM's benchmark result keys)")},
	{AT_O("--goodput", "'ttft:MS tpot:MS e2el:MS'", O_GOOD, " vLLM's goodput: requests per s meeting every\n"
	      "limit given (tpot = (E2E - TTFT)/(output - 1))")},
	{AT_S("--requests-out", "FILE.csv", O(requests_out), "one row per request, written atomically")},
	{AT_B("--progress", O(progress), "progress on stderr")},
	{AT_B("--exact-percentiles", O(exact), "exact percentiles past 1,000,000 completed requests\n"
	      "(else from a log histogram, relative error <= 0.1 %)")},
	{AT_S("--step-log", "FILE", O(step_log), "one line per engine step: scheduled id+tokens, queues, KV")},
	{AT_O("--breakdown", "decode:B:C | prefill:B:L[:P]", O_BD, " instead of simulating, price one engine\n"
	      "step component by component: B requests (over all DP\n"
	      "ranks) decoding one token after C cached tokens each, or\n"
	      "B prompts of L new tokens after P cached; each layer\n"
	      "kind's operators (attention, GEMMs, MoE, communication,\n"
	      "other) and the host terms, as the simulator prices them\n"
	      "(text or json)")},
	AT_TXT("checks (the tests run these; the results are the same, only slower):\n"),
	{AT_B("--check-invariants", O(check_inv), "after every event: the clock, the event queue, each KV\n"
	      "cache and running list, and arrived = completed + in flight\n"
	      "+ rejected + aborted; a broken one stops the run (exit 1)")},
	{AT_B("--no-decode-segments", O(no_segments), "price decode step by step, not in planned segments")},
	{AT_B("--no-arrival-thread", O(no_arrival_thread), "draw arrivals inline, not on a second thread")},
	AT_TXT("\n"
	       "Metrics are client-side: TTFT = first token - arrival + API term; ITL =\n"
	       "(E2E - TTFT)/(output - 1) (vLLM's TPOT); ITL pooled = every token gap pooled (vLLM's\n"
	       "ITL); TPOT = E2E / output tokens (GuideLLM >= 0.4); percentiles interpolate linearly\n"
	       "between order statistics; std is the population standard deviation.  The status line\n"
	       "says ok, overloaded (served < 0.95 x offered and queueing growing) or no completions.\n"
	       "exit codes: 0 ok, 1 runtime error, 2 usage/config error, 3 bad input data\n"),
};
static const struct argtab table = ARGTAB(flag_rows, 28);

static int own(void *base, int c, const char *arg, const char *spelled, struct err *e)
{
	struct run_opts *o = base;
	int rc;

	(void)spelled;
	switch (c) {
	case O_PD: rc = scenflags_run_parse_pd(arg, &o->ex, e); break;
	case O_GOOD: rc = sim_goodput_parse(arg, o->goodput, e); break;
	case O_BD: rc = scenflags_breakdown_parse(arg, &o->bd, e); break;
	case O_AS: rc = autoscale_range_parse(arg, &o->as, e); break;
	case O_ASP: rc = autoscale_policy_parse(arg, &o->as.policy, e); break;
	default: return 0;
	}
	return rc < 0 ? rc : 1;
}

static int parse_run(int argc, char **argv, struct run_opts *o, struct err *e)
{
	const struct cli_spec spec = {"run", &table, o, ARGTAB_GIVEN(struct run_opts, sf.k), true, own};
	int rc;

	memset(o, 0, sizeof(*o));
	o->goodput[0] = o->goodput[1] = o->goodput[2] = NAN;
	autoscale_cfg_defaults(&o->as);
	o->storage_gb_s = AS_DEFAULT_STORAGE_GB_S;
	scenflags_defaults(&o->sf);
	if ((rc = cli_parse(&spec, argc, argv, e)) != 0)
		return rc;
	if ((rc = scenflags_run_check(&o->sf, &o->ex, o->decode_gpu, e)) < 0)
		return rc;
	if (o->wf.ov.rate_type == WL_RT_SWEEP &&
	    (o->requests_out || o->step_log || o->fmt == FMT_VLLM_BENCH || !isnan(o->goodput[0]) ||
	     !isnan(o->goodput[1]) || !isnan(o->goodput[2])))
		return err_set(e, SS_EUSAGE,
			       "--rate-type sweep reports one row per benchmark: --requests-out, --step-log, --goodput and --format vllm-bench apply to one run");
	if (o->bd.batch && (o->wf.ov.rate_type == WL_RT_SWEEP || o->requests_out || o->step_log ||
			    (o->fmt != FMT_TEXT && o->fmt != FMT_JSON)))
		return err_set(e, SS_EUSAGE,
			       "--breakdown prices one step instead of simulating: not with --rate-type sweep, --requests-out, --step-log or --format csv/vllm-bench");
	if ((rc = autoscale_cfg_check(&o->as, o->as_flag, e)) < 0)
		return rc;
	if (o->as.max && (o->sf.k.replicas != 1 || o->ex.pd_prefill || o->bd.batch || o->wf.ov.rate_type == WL_RT_SWEEP ||
			  o->fmt == FMT_CSV || o->fmt == FMT_VLLM_BENCH))
		return err_set(e, SS_EUSAGE, "--autoscale MIN:MAX sets the replicas: not with --replicas, "
			       "--disaggregate, --breakdown, --rate-type sweep or --format csv/vllm-bench");
	return 0;
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
		struct bd_limits lim;
		out_breakdown_of(c, o->bd.prefill, o->bd.batch, local, o->bd.len, o->bd.ctx, &bd, &r);
		scenflags_breakdown_limits(st, &o->bd, &lim);
		r.max_model_len = lim.max_model_len;
		r.max_seqs = lim.max_seqs;
		r.kv_blocks = lim.kv_blocks;
		r.block_size = lim.block_size;
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
	double t0 = progress_now();
	char tables[64];
	struct out_run rep;
	struct acc_confidence conf;
	struct autoscale_result asr;
	int rc = parse_run(argc, argv, &o, e);

	if (rc != 0)
		return rc > 0 ? 0 : rc;
	memset(&asr, 0, sizeof(asr));
	spec = (struct run_spec){&o.sf, &o.wf, &o.ex, o.requests_out, o.step_log, o.svg,
				 o.check_inv, o.exact, o.no_segments, o.no_arrival_thread, o.as.max};
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
	} else {
		struct progress_line pl;
		progress_line_init(&pl, o.progress, t0);
		rc = run_job_simulate(&j, progress_line_update, &pl, e);
		progress_line_done(&pl);
		if (rc < 0)
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
		fprintf(stderr, "servesim run: %llu request%s simulated in %.3f s wall\n",
			(unsigned long long)sim_totals(j.st.sim)->arrived,
			out_plural((long long)sim_totals(j.st.sim)->arrived), progress_now() - t0);
	rc = 0;
out:
	run_job_release(&j);
	autoscale_result_release(&asr);
	return rc;
}
