/* search.c - `servesim search`: the deployments of a model on a GPU budget
 * ranked by output tokens/s per GPU at their SLO capacity, the Pareto front
 * of tokens/s/GPU vs tokens/s/user, cost per million tokens, the GPUs a
 * target rate needs and launch lines; on threads and MPI ranks. */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "cmds.h"
#include "report/html.h"
#include "report/progress.h"
#include "engine/scenopts.h"
#include "eval/accuracy.h"
#include "base/afile.h"
#include "base/alloc.h"
#include "hw/mfucache.h"
#include "plan/parmap.h"
#include "base/paths.h"
#include "plan/prices.h"
#include "plan/search.h"
#include "plan/searchrun.h"
#include "report/searchreport.h"
#include "workload/workload.h"

struct search_opts {
	struct search_req q;       /* what to search */
	const char *csv, *svg, *html;
	int64_t top;
	enum out_format fmt;
};

enum { O_GPUS = 1, O_ENGINES, O_SPEC, O_RANK, O_GPU, O_ENGINE, O_DTYPE, O_EP };
#define O(m) offsetof(struct search_opts, m)
static const struct argtab_row flag_rows[] = {
	AT_TXT("usage: servesim search --slo LIST [--gpus GPU:N,...] [options]\n"
	       "\n"
	       "Enumerate the deployments of a model on a GPU budget (engine, TP, PP, DP, EP, weight\n"
	       "dtype, max_num_seqs, max_num_batched_tokens, MTP, P/D splits XpYd), prune those the\n"
	       "memory plan or the start-up checks refuse, find each one's SLO capacity (as servesim\n"
	       "capacity: the highest sustainable Poisson rate meeting every SLO, bisection to 1 %),\n"
	       "and rank them by output tokens/s per GPU at that rate (--rank energy: by joules\n"
	       "per output token).  Reports how many were\n"
	       "enumerated, pruned (and why) and simulated, the Pareto front of tokens/s/GPU vs\n"
	       "tokens/s/user (1000 / mean ITL), $/M output tokens from a price table, the GPUs a\n"
	       "target rate needs and the launch line (vllm serve or python -m\n"
	       "sglang.launch_server) of the best deployments.\n"
	       "\n"
	       "budget and space:\n"),
	{AT_O("--gpus", "LIST", O_GPUS, "GPU:COUNT items, the most GPUs one instance may use\n"
	      "(default h100:8), e.g. h100:8,h200:16; several types:\n"
	      "each type's deployments, and P/D splits with the\n"
	      "prefill workers on one type, the decode workers on\n"
	      "another (as run --prefill-gpu), ranked together")},
	{AT_O("--engines", "LIST", O_ENGINES, "vllm,sglang (default both; --engine E: that one)")},
	AT_TXT("  --tp LIST --pp LIST --dp LIST   layouts to try (default: TP 1,2,4,8 within a node;\n"
	       "                            PP across full nodes; DP powers of two with TP x DP within\n"
	       "                            the budget: replicas behind the router for a dense model,\n"
	       "                            attention DP for MoE; EP off and TP x DP for MoE)\n"
	       "  --replicas LIST           copies of each deployment behind the router, within the\n"
	       "                            budget (default 1, and for an MoE model 2, 4, ... of its\n"
	       "                            layouts without attention DP)\n"
	       "  --dtype LIST              weight dtypes (default bf16, and fp8 where the GPU has it);\n"
	       "                            the KV cache: the engine's default for each (run --kv-dtype)\n"
	       "                            unless --kv-dtype is given\n"
	       "  --max-num-seqs LIST       engine limits to try (default: the engine's)\n"
	       "  --max-num-batched-tokens LIST  (SGLang: chunked_prefill_size; default: the engine's;\n"
	       "                            a list, e.g. 2048,8192,16384, compares them)\n"),
	{AT_O("--speculative-tokens", "LIST", O_SPEC, "MTP draft tokens, 0 = off (default 0,1 for a model with MTP\n"
	      "modules, e.g. DeepSeek-V3; measured curve as servesim run)")},
	{AT_A("--num-speculative-tokens")},
	{AT_C("--no-pd", O(q.sp.pd), "no P/D splits (default: XpYd with X + Y <= 4, workers of\n"
	      "the same TP; mixed types within each type's count)")},
	{AT_I32V("--pd-max-workers", "N", O(q.sp.pd_max_workers), 2, 64, "X + Y at most N")},
	AT_TXT("SLO (as servesim capacity):\n"),
	{AT_F("--slo", "LIST", O(q.cc), cap_slo_arg, "e.g. ttft_p90_ms=1000,itl_mean_ms=50")},
	AT_TXT("  --goodput-min F --seeds K --seed S\n"),
	{AT_F("--goodput-min", "F", O(q.cc.goodput_min), cap_goodput_arg, NULL)},
	{AT_I("--seeds", "K", O(q.seeds), 1, CAP_MAX_SEEDS, NULL)},
	{AT_I("--seed", "S", O(q.seed), 0, INT64_MAX, NULL), .given = ARGTAB_GIVEN(struct search_opts, q.seed_given)},
	AT_TXT("workload:\n"),
	{AT_S("--workload", "FILE", O(q.workload), "(default workloads/default.json, chat)")},
	{AT_I("--num-requests", "N", O(q.nreq), 1, INT64_MAX, "")},
	AT_TXT("report:\n"),
	{AT_S("--prices", "FILE", O(q.prices), "$/GPU-hour table (default data/prices.json)")},
	{AT_N("--target-rate", "X", O(q.target), 0, true, "the fewest GPUs serving X req/s under the SLO")},
	{AT_O("--rank", "throughput|energy", O_RANK, "order: output tokens/s per GPU (default), or joules per\n"
	      "output token at max_rate, fewest first (docs/energy.md;\n"
	      "GPUs without a power figure last)")},
	{AT_I("--top", "N", O(top), 0, 100, "launch lines for the N best (default 3)")},
	{AT_W("--format", "text|json", O(fmt), "(default text)")},
	{AT_S("--csv", "FILE", O(csv), "every deployment, one row each (long format)")},
	{AT_S("--svg", "FILE", O(svg), "the Pareto chart")},
	{AT_S("--html", "FILE", O(html), "one self-contained page: the Pareto chart and every\n"
	      "deployment in a sortable, filterable table, each with its\n"
	      "configuration and launch line (as `servesim report` makes\n"
	      "from --format json)")},
	{AT_I("--jobs", "N", O(q.jobs), 1, PARMAP_MAX_JOBS, "threads, 1 to " PFOR_MAX_THREADS_TEXT " (default: the machine's cores);\n"
	      "under mpirun, per rank")},
	/* the space and the budget in the shared table's spellings */
	{AT_O("--gpu", "G", O_GPU, NULL)}, {AT_O("--engine", "E", O_ENGINE, NULL)},
	{AT_O("--dtype", "LIST", O_DTYPE, NULL)},
	{AT_TQ(&par_flags_list_tab, 0)},
	{AT_O0("--enable-expert-parallel", O_EP, NULL)}, {AT_O0("--enable-dp-attention", O_EP, NULL)},
	AT_TXT("\n"),
	{AT_T(&scenflags_tab, O(q.sf))},
};
static const struct argtab table = ARGTAB(flag_rows, 28);

static int own(void *base, int c, const char *arg, const char *spelled, struct err *e)
{
	struct search_opts *o = base;
	int rc, row;

	switch (c) {
	case O_GPUS: rc = search_parse_gpus(arg, &o->q, e); break;
	case O_RANK: rc = search_rank_parse(arg, &o->q.rank_by, e); break;
	case O_GPU: return err_set(e, SS_EUSAGE, "give the GPU budget as --gpus %s:COUNT", arg);
	case O_ENGINES: case O_ENGINE:
		if (o->q.engines_given)
			return err_set(e, SS_EUSAGE, "give the engines once (--engines LIST or --engine E)");
		o->q.engines_given = true;
		rc = search_parse_engines(c == O_ENGINES ? "--engines" : "--engine", arg, &o->q.sp, e);
		break;
	case O_SPEC:
		rc = search_parse_ints("--speculative-tokens", arg, o->q.sp.spec_k, &o->q.sp.nspec, 0, SPEC_MAX_TOKENS, e);
		break;
	case O_DTYPE: rc = search_parse_dtypes(arg, &o->q.sp, e); break;
	case PAR_LIST_TP: rc = search_parse_ints("--tp", arg, o->q.sp.tp, &o->q.sp.ntp, 1, 4096, e); break;
	case PAR_LIST_DP: rc = search_parse_ints("--dp", arg, o->q.sp.dp, &o->q.sp.ndp, 1, 4096, e); break;
	case PAR_LIST_PP: rc = search_parse_ints("--pp", arg, o->q.sp.pp, &o->q.sp.npp, 1, 4096, e); break;
	case O_EP: case PAR_LIST_EP: return err_set(e, SS_EUSAGE, "EP is searched (off and TP x DP); %s is not an option here", spelled);
	default:
		if ((row = deploy_option_row(&deploy_table, c)) == DEPLOY_REPLICAS)
			rc = search_parse_ints("--replicas", arg, o->q.sp.replicas, &o->q.sp.nreplicas, 1, SIM_MAX_REPLICAS,
					       e);
		else if (row == DEPLOY_MAX_NUM_BATCHED_TOKENS || row == DEPLOY_MAX_NUM_SEQS)
			rc = search_parse_limits(&deploy_table, (size_t)row, deploy_option_flag(&deploy_table, c), arg,
						 &o->q.sp, e);
		else
			return 0; /* (the table's flags into the knobs) */
	}
	return rc < 0 ? rc : 1;
}

static int parse_search(int argc, char **argv, struct search_opts *o, struct err *e)
{
	const struct cli_spec spec = {"search", &table, o, ARGTAB_GIVEN(struct search_opts, q.sf.k), true, own};
	int rc;

	if ((rc = cli_parse(&spec, argc, argv, e)) != 0)
		return rc;
	if (o->q.cc.nslo == 0)
		return err_set(e, SS_EUSAGE, "--slo is required, e.g. --slo ttft_p90_ms=1000,itl_mean_ms=50");
	o->q.cc.nseeds = (int)o->q.seeds;
	return 0;
}

int cmd_search(int argc, char **argv, struct err *e)
{
	struct search_opts o;
	struct ranks rk;
	struct search_run *r = xcalloc(1, sizeof(*r));
	struct progress_bar pg;
	struct search_report R;
	bool joined = false, ran = false;
	double t0 = progress_now();
	int rc;

	search_malloc_tuning();
	memset(&o, 0, sizeof(o));
	search_req_defaults(&o.q);
	o.top = 3;
	if ((rc = ranks_init(&rk, &argc, &argv, e)) < 0)
		goto out;
	joined = true;
	if ((rc = parse_search(argc, argv, &o, e)) != 0) {
		rc = rc > 0 ? 0 : rc;
		goto out;
	}
	{
		const char *in[3] = {o.q.workload, o.q.sf.config, o.q.prices};
		const struct afile_out outs[2] = {{"--csv", o.csv, NULL}, {"--svg", o.svg, NULL}};
		if ((rc = afile_check_outputs(outs, 2, in, 3, 0, e)) < 0)
			goto out;
		if (o.html && (rc = afile_check(o.html, in, 3, e)) < 0)
			goto out;
	}
	o.q.want_saturation = o.fmt == FMT_JSON || o.csv || o.html;
	progress_init(&pg, "search", "deployments", rk.rank == 0);
	rc = search_run(&o.q, &rk, progress_update, &pg, r, e);
	ran = true;
	progress_done(&pg);
	if (rc < 0 || rk.rank != 0)
		goto out;
	search_report_of(r, &o.q, o.top, &R);
	{
		const struct afile_job files[3] = {{o.csv, search_report_csv, &R}, {o.svg, search_report_svg, &R},
						   {o.html, html_search_file, &R}};
		if ((rc = afile_write_all(files, 3, e)) < 0)
			goto out;
	}
	if (o.fmt == FMT_JSON)
		search_report_json(stdout, &R);
	else
		search_report_text(stdout, &R);
	fprintf(stderr, "servesim search: %zu deployments, %zu runs simulated in %.2f s wall\n", r->nres, r->S.runs,
		progress_now() - t0);
	rc = 0;
out:
	if (ran)
		search_run_release(r);
	free(r);
	if (joined) {
		if (rk.rank != 0)
			rc = 0;
		ranks_finalize(&rk);
	}
	return rc;
}
