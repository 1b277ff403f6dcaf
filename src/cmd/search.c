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
#include "report/html.h"
#include "cmds.h"
#include "progress.h"
#include "scenopts.h"
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

static const char search_usage[] =
	"usage: servesim search --slo LIST [--gpus GPU:N,...] [options]\n"
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
	"budget and space:\n"
	"  --gpus LIST               GPU:COUNT items, the most GPUs one instance may use\n"
	"                            (default h100:8), e.g. h100:8,h200:16; several types:\n"
	"                            each type's deployments, and P/D splits with the\n"
	"                            prefill workers on one type, the decode workers on\n"
	"                            another (as run --prefill-gpu), ranked together\n"
	"  --engines LIST            vllm,sglang (default both; --engine E: that one)\n"
	"  --tp LIST --pp LIST --dp LIST   layouts to try (default: TP 1,2,4,8 within a node;\n"
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
	"                            a list, e.g. 2048,8192,16384, compares them)\n"
	"  --speculative-tokens LIST MTP draft tokens, 0 = off (default 0,1 for a model with MTP\n"
	"                            modules, e.g. DeepSeek-V3; measured curve as servesim run)\n"
	"  --no-pd                   no P/D splits (default: XpYd with X + Y <= 4, workers of\n"
	"                            the same TP; mixed types within each type's count)\n"
	"  --pd-max-workers N        X + Y at most N\n"
	"SLO (as servesim capacity):\n"
	"  --slo LIST                e.g. ttft_p90_ms=1000,itl_mean_ms=50\n"
	"  --goodput-min F --seeds K --seed S\n"
	"workload:\n"
	"  --workload FILE           (default workloads/default.json, chat)\n"
	"  --num-requests N\n"
	"report:\n"
	"  --prices FILE             $/GPU-hour table (default data/prices.json)\n"
	"  --target-rate X           the fewest GPUs serving X req/s under the SLO\n"
	"  --rank throughput|energy  order: output tokens/s per GPU (default), or joules per\n"
	"                            output token at max_rate, fewest first (docs/energy.md;\n"
	"                            GPUs without a power figure last)\n"
	"  --top N                   launch lines for the N best (default 3)\n"
	"  --format text|json        (default text)\n"
	"  --csv FILE                every deployment, one row each (long format)\n"
	"  --svg FILE                the Pareto chart\n"
	"  --html FILE               one self-contained page: the Pareto chart and every\n"
	"                            deployment in a sortable, filterable table, each with its\n"
	"                            configuration and launch line (as `servesim report` makes\n"
	"                            from --format json)\n"
	"  --jobs N                  threads (default: the machine's cores); under mpirun,\n"
	"                            per rank\n"
	"\n";

struct search_opts {
	struct search_req q;       /* what to search */
	const char *csv, *svg, *html;
	int64_t top;
	enum out_format fmt;
};

static int parse_search(int argc, char **argv, struct search_opts *o, struct err *e)
{
	enum { O_SLO = 256, O_GOOD, O_SEEDS, O_SEED, O_WL, O_NREQ, O_FMT, O_GPUS, O_NOPD, O_PDMAX,
	       O_PRICES, O_TARGET, O_TOP, O_CSV, O_SVG, O_JOBS, O_ENGINES, O_SPEC, O_HTML, O_RANK };
	static const struct option own[] = {
		SCENFLAGS_OPTIONS,
		{"slo", required_argument, 0, O_SLO}, {"goodput-min", required_argument, 0, O_GOOD},
		{"seeds", required_argument, 0, O_SEEDS}, {"seed", required_argument, 0, O_SEED},
		{"workload", required_argument, 0, O_WL}, {"num-requests", required_argument, 0, O_NREQ},
		{"format", required_argument, 0, O_FMT}, {"gpus", required_argument, 0, O_GPUS},
		{"no-pd", no_argument, 0, O_NOPD}, {"pd-max-workers", required_argument, 0, O_PDMAX},
		{"prices", required_argument, 0, O_PRICES}, {"target-rate", required_argument, 0, O_TARGET},
		{"top", required_argument, 0, O_TOP}, {"csv", required_argument, 0, O_CSV},
		{"svg", required_argument, 0, O_SVG}, {"jobs", required_argument, 0, O_JOBS},
		{"html", required_argument, 0, O_HTML}, {"rank", required_argument, 0, O_RANK},
		{"engines", required_argument, 0, O_ENGINES},
		{"speculative-tokens", required_argument, 0, O_SPEC},
		{"num-speculative-tokens", required_argument, 0, O_SPEC},
		{"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
	struct option lo[CLI_MAX_OPTIONS];
	int c, rc, row;
	int64_t v;

	cli_options(own, &deploy_table, lo, CLI_MAX_OPTIONS);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		rc = 0;
		switch (c) {
		case 'h': fputs(search_usage, stdout); scenopts_help(stdout); return 1;
		case O_SLO: rc = cap_slo_parse(optarg, &o->q.cc, e); break;
		case O_GOOD:
			rc = cli_double("--goodput-min", optarg, 0, true, &o->q.cc.goodput_min, e);
			if (rc == 0 && o->q.cc.goodput_min > 1)
				rc = err_set(e, SS_EUSAGE, "--goodput-min must be in (0, 1], got %g", o->q.cc.goodput_min);
			break;
		case O_SEEDS: rc = cli_int("--seeds", optarg, 1, CAP_MAX_SEEDS, &o->q.seeds, e); break;
		case O_SEED: rc = cli_int("--seed", optarg, 0, INT64_MAX, &o->q.seed, e); o->q.seed_given = true; break;
		case O_WL: o->q.workload = optarg; break;
		case O_NREQ: rc = cli_int("--num-requests", optarg, 1, INT64_MAX, &o->q.nreq, e); break;
		case O_FMT: rc = cli_format(optarg, false, &o->fmt, e); break;
		case O_GPUS: rc = search_parse_gpus(optarg, &o->q, e); break;
		case O_NOPD: o->q.sp.pd = false; break;
		case O_PDMAX:
			rc = cli_int("--pd-max-workers", optarg, 2, 64, &v, e);
			o->q.sp.pd_max_workers = (int)v;
			break;
		case O_PRICES: o->q.prices = optarg; break;
		case O_TARGET: rc = cli_double("--target-rate", optarg, 0, true, &o->q.target, e); break;
		case O_TOP: rc = cli_int("--top", optarg, 0, 100, &o->top, e); break;
		case O_CSV: o->csv = optarg; break;
		case O_SVG: o->svg = optarg; break;
		case O_HTML: o->html = optarg; break;
		case O_RANK: rc = search_rank_parse(optarg, &o->q.rank_by, e); break;
		case O_JOBS: rc = cli_int("--jobs", optarg, 1, PARMAP_MAX_JOBS, &o->q.jobs, e); break;
		case SCF + 2:
			return err_set(e, SS_EUSAGE, "give the GPU budget as --gpus %s:COUNT", optarg);
		case O_ENGINES: case SCF + 16:
			if (o->q.engines_given)
				return err_set(e, SS_EUSAGE, "give the engines once (--engines LIST or --engine E)");
			o->q.engines_given = true;
			rc = search_parse_engines(c == O_ENGINES ? "--engines" : "--engine", optarg, &o->q.sp, e);
			break;
		case O_SPEC:
			rc = search_parse_ints("--speculative-tokens", optarg, o->q.sp.spec_k, &o->q.sp.nspec, 0,
					       SPEC_MAX_TOKENS, e);
			break;
		case SCF + 4: rc = search_parse_dtypes(optarg, &o->q.sp, e); break;
		case CLI_PAR: rc = search_parse_ints("--tp", optarg, o->q.sp.tp, &o->q.sp.ntp, 1, 4096, e); break;
		case CLI_PAR + 1: rc = search_parse_ints("--dp", optarg, o->q.sp.dp, &o->q.sp.ndp, 1, 4096, e); break;
		case CLI_PAR + 8: rc = search_parse_ints("--pp", optarg, o->q.sp.pp, &o->q.sp.npp, 1, 4096, e); break;
		case CLI_PAR + 2: case CLI_PAR + 6: case CLI_PAR + 7:
			return err_set(e, SS_EUSAGE, "EP is searched (off and TP x DP); %s is not an option here",
				       argv[optind - 1]);
		case '?': case ':': return cli_bad_option("search", argv[optind - 1], e);
		default:
			if ((row = cli_deploy_row(&deploy_table, c)) == DEPLOY_REPLICAS)
				rc = search_parse_ints("--replicas", optarg, o->q.sp.replicas, &o->q.sp.nreplicas, 1,
						SIM_MAX_REPLICAS, e);
			else if (row == DEPLOY_MAX_NUM_BATCHED_TOKENS || row == DEPLOY_MAX_NUM_SEQS)
				rc = search_parse_limits(&deploy_table, (size_t)row, cli_deploy_flag(&deploy_table, c), optarg,
						 &o->q.sp, e);
			else if ((rc = scenflags_option(c, optarg, &o->q.sf, e)) == 0)
				return cli_bad_option("search", argv[optind - 1], e);
		}
		if (rc < 0)
			return rc;
	}
	if (optind < argc)
		return err_set(e, SS_EUSAGE, "unexpected argument '%s'", argv[optind]);
	if (o->q.cc.nslo == 0)
		return err_set(e, SS_EUSAGE, "--slo is required, e.g. --slo ttft_p90_ms=1000,itl_mean_ms=50");
	o->q.cc.nseeds = (int)o->q.seeds;
	return 0;
}

/* --csv, --svg and --html, all or none. */
static int write_files(const struct search_opts *o, const struct search_report *R, struct err *e)
{
	struct afile_set g;
	struct html_capture h;
	struct sbuf b;
	FILE *f;
	int rc;

	afile_set_init(&g);
	sb_init(&b);
	if ((rc = afile_set_open(&g, o->csv, &f, e)) < 0)
		goto out;
	if (f) {
		search_report_csv(R, &b);
		fwrite(b.buf ? b.buf : "", 1, b.len, f);
		sb_reset(&b);
	}
	if ((rc = afile_set_open(&g, o->svg, &f, e)) < 0)
		goto out;
	if (f) {
		search_report_svg(R, &b);
		fwrite(b.buf ? b.buf : "", 1, b.len, f);
	}
	if ((rc = afile_set_open(&g, o->html, &f, e)) < 0)
		goto out;
	if (f) {
		/* the page is built from the JSON result, as `servesim report` builds it */
		search_report_json(html_capture_open(&h), R);
		if ((rc = html_capture_page(&h, f, e)) < 0) {
			afile_set_abort(&g);
			goto out;
		}
	}
	rc = afile_set_commit(&g, e);
out:
	sb_release(&b);
	return rc;
}

int cmd_search(int argc, char **argv, struct err *e)
{
	struct search_opts o;
	struct ranks rk;
	struct search_run *r = xcalloc(1, sizeof(*r));
	struct progress_bar pg;
	struct search_report R;
	bool joined = false, ran = false;
	double t0 = cli_wall_s();
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
	if ((rc = write_files(&o, &R, e)) < 0)
		goto out;
	if (o.fmt == FMT_JSON)
		search_report_json(stdout, &R);
	else
		search_report_text(stdout, &R);
	fprintf(stderr, "servesim search: %zu deployments, %zu runs simulated in %.2f s wall\n", r->nres, r->S.runs,
		cli_wall_s() - t0);
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
