/* search.c - `servesim search`: the deployments of a model on a GPU budget
 * ranked by output tokens/s per GPU at their SLO capacity, the Pareto front
 * of tokens/s/GPU vs tokens/s/user, cost per million tokens, the GPUs a
 * target rate needs and launch lines; on threads and MPI ranks. */
#define _GNU_SOURCE
#include <getopt.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "cmds.h"
#include "progress.h"
#include "scenflags.h"
#include "engine/registry.h"
#include "eval/accuracy.h"
#include "base/afile.h"
#include "base/alloc.h"
#include "hw/mfucache.h"
#include "plan/parmap.h"
#include "base/paths.h"
#include "plan/prices.h"
#include "plan/search.h"
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
	"                            (default h100:8), e.g. h100:8,h200:16\n"
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
	"                            the same TP)\n"
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
	struct scenflags sf;
	struct cap_cfg cc;
	struct search_space sp;
	char gpu_names[8][48];
	int gpu_count[8];
	size_t ngpu;
	bool engines_given;
	const char *workload, *prices, *csv, *svg, *html;
	int64_t nreq, seed, seeds, jobs, top;
	bool seed_given;
	double target;
	enum search_rank_by rank_by;
	enum out_format fmt;
};

static int parse_gpus(const char *arg, struct search_opts *o, struct err *e)
{
	char buf[512], *save = NULL, *tok;

	if (strlen(arg) >= sizeof(buf))
		return err_set(e, SS_EUSAGE, "--gpus: list too long");
	snprintf(buf, sizeof(buf), "%s", arg);
	o->ngpu = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(tok, ':'), *end;
		long n;
		if (o->ngpu == 8)
			return err_set(e, SS_EUSAGE, "--gpus: at most 8 GPU types");
		if (!colon || colon == tok)
			return err_set(e, SS_EUSAGE, "--gpus: '%s' must be GPU:COUNT, e.g. h100:8", tok);
		*colon = '\0';
		n = strtol(colon + 1, &end, 10);
		if (end == colon + 1 || *end || n < 1 || n > 4096)
			return err_set(e, SS_EUSAGE, "--gpus: count of %s must be 1 to 4096, got '%s'", tok,
				       colon + 1);
		snprintf(o->gpu_names[o->ngpu], sizeof(o->gpu_names[0]), "%s", tok);
		o->gpu_count[o->ngpu++] = (int)n;
	}
	if (o->ngpu == 0)
		return err_set(e, SS_EUSAGE, "--gpus: empty list, expected e.g. h100:8,h200:16");
	return 0;
}

/* "1,2,4" into ints in [lo, hi]. */
static int parse_ints(const char *flag, const char *arg, int *v, size_t *n, int64_t lo, int64_t hi,
		      struct err *e)
{
	char buf[256], *save = NULL, *tok;

	if (strlen(arg) >= sizeof(buf))
		return err_set(e, SS_EUSAGE, "%s: list too long", flag);
	snprintf(buf, sizeof(buf), "%s", arg);
	*n = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int64_t x;
		int rc;
		if (*n == SEARCH_MAX_LIST)
			return err_set(e, SS_EUSAGE, "%s: at most %d values", flag, SEARCH_MAX_LIST);
		if ((rc = cli_int(flag, tok, lo, hi, &x, e)) < 0)
			return rc;
		v[(*n)++] = (int)x;
	}
	if (*n == 0)
		return err_set(e, SS_EUSAGE, "%s: empty list, expected e.g. %s 1,2,4", flag, flag);
	return 0;
}

/* "vllm,sglang": the engines whose launch lines servesim writes. */
static int parse_engines(const char *flag, const char *arg, struct search_space *sp, struct err *e)
{
	char buf[128], names[128], *save = NULL, *tok;
	size_t k;

	if (strlen(arg) >= sizeof(buf))
		return err_set(e, SS_EUSAGE, "%s: list too long", flag);
	snprintf(buf, sizeof(buf), "%s", arg);
	sp->nengine = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		const struct engine_type *en = engine_find(tok);
		if (!en || !en->launch) {
			engine_names(names, sizeof(names), "and", true);
			return err_set(e, SS_EUSAGE, "%s: search knows the engines %s, got '%s'", flag, names, tok);
		}
		for (k = 0; k < sp->nengine; k++)
			if (sp->engine[k] == en)
				return err_set(e, SS_EUSAGE, "%s: '%s' given twice", flag, tok);
		if (sp->nengine == SEARCH_MAX_ENGINES)
			return err_set(e, SS_EUSAGE, "%s: at most %d engines", flag, SEARCH_MAX_ENGINES);
		sp->engine[sp->nengine++] = en;
	}
	if (sp->nengine == 0)
		return err_set(e, SS_EUSAGE, "%s: empty list, expected e.g. vllm,sglang", flag);
	return 0;
}

static int parse_search(int argc, char **argv, struct search_opts *o, struct err *e)
{
	enum { O_SLO = 256, O_GOOD, O_SEEDS, O_SEED, O_WL, O_NREQ, O_FMT, O_GPUS, O_NOPD, O_PDMAX,
	       O_PRICES, O_TARGET, O_TOP, O_CSV, O_SVG, O_JOBS, O_ENGINES, O_SPEC, O_HTML, O_RANK };
	static const struct option lo[] = {
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
	int c, rc;
	int64_t v;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		rc = 0;
		switch (c) {
		case 'h': fputs(search_usage, stdout); fputs(SCENFLAGS_HELP, stdout); return 1;
		case O_SLO: rc = cap_slo_parse(optarg, &o->cc, e); break;
		case O_GOOD:
			rc = cli_double("--goodput-min", optarg, 0, true, &o->cc.goodput_min, e);
			if (rc == 0 && o->cc.goodput_min > 1)
				rc = err_set(e, SS_EUSAGE, "--goodput-min must be in (0, 1], got %g", o->cc.goodput_min);
			break;
		case O_SEEDS: rc = cli_int("--seeds", optarg, 1, CAP_MAX_SEEDS, &o->seeds, e); break;
		case O_SEED: rc = cli_int("--seed", optarg, 0, INT64_MAX, &o->seed, e); o->seed_given = true; break;
		case O_WL: o->workload = optarg; break;
		case O_NREQ: rc = cli_int("--num-requests", optarg, 1, INT64_MAX, &o->nreq, e); break;
		case O_FMT: rc = cli_format(optarg, false, &o->fmt, e); break;
		case O_GPUS: rc = parse_gpus(optarg, o, e); break;
		case O_NOPD: o->sp.pd = false; break;
		case O_PDMAX:
			rc = cli_int("--pd-max-workers", optarg, 2, 64, &v, e);
			o->sp.pd_max_workers = (int)v;
			break;
		case O_PRICES: o->prices = optarg; break;
		case O_TARGET: rc = cli_double("--target-rate", optarg, 0, true, &o->target, e); break;
		case O_TOP: rc = cli_int("--top", optarg, 0, 100, &o->top, e); break;
		case O_CSV: o->csv = optarg; break;
		case O_SVG: o->svg = optarg; break;
		case O_HTML: o->html = optarg; break;
		case O_RANK: rc = search_rank_parse(optarg, &o->rank_by, e); break;
		case O_JOBS: rc = cli_int("--jobs", optarg, 1, PARMAP_MAX_JOBS, &o->jobs, e); break;
		case SCF + 2:
			return err_set(e, SS_EUSAGE, "give the GPU budget as --gpus %s:COUNT", optarg);
		case O_ENGINES: case SCF + 16:
			if (o->engines_given)
				return err_set(e, SS_EUSAGE, "give the engines once (--engines LIST or --engine E)");
			o->engines_given = true;
			rc = parse_engines(c == O_ENGINES ? "--engines" : "--engine", optarg, &o->sp, e);
			break;
		case O_SPEC: {
			int k[SEARCH_MAX_LIST];
			size_t j;
			rc = parse_ints("--speculative-tokens", optarg, k, &o->sp.nspec, 0, SPEC_MAX_TOKENS, e);
			for (j = 0; rc == 0 && j < o->sp.nspec; j++)
				o->sp.spec_k[j] = k[j];
			break;
		}
		case SCF + 6: {
			int m[SEARCH_MAX_LIST];
			size_t k;
			rc = parse_ints("--max-num-batched-tokens", optarg, m, &o->sp.nmnbt, 1, 1 << 20, e);
			for (k = 0; rc == 0 && k < o->sp.nmnbt; k++)
				o->sp.mnbt[k] = m[k];
			break;
		}
		case SCF + 4: {
			char buf[128], *save = NULL, *tok;
			snprintf(buf, sizeof(buf), "%s", optarg);
			o->sp.ndtype = 0;
			for (tok = strtok_r(buf, ",", &save); tok && rc == 0; tok = strtok_r(NULL, ",", &save)) {
				if (o->sp.ndtype == SEARCH_MAX_LIST)
					rc = err_set(e, SS_EUSAGE, "--dtype: at most %d values", SEARCH_MAX_LIST);
				else
					rc = dtype_parse(tok, &o->sp.dtype[o->sp.ndtype++], e);
			}
			break;
		}
		case SCF + 7: {
			int m[SEARCH_MAX_LIST];
			size_t k;
			rc = parse_ints("--max-num-seqs", optarg, m, &o->sp.nmns, 1, 1 << 16, e);
			for (k = 0; rc == 0 && k < o->sp.nmns; k++)
				o->sp.mns[k] = m[k];
			break;
		}
		case SCF + 27:
			rc = parse_ints("--replicas", optarg, o->sp.replicas, &o->sp.nreplicas, 1, SIM_MAX_REPLICAS, e);
			break;
		case CLI_PAR: rc = parse_ints("--tp", optarg, o->sp.tp, &o->sp.ntp, 1, 4096, e); break;
		case CLI_PAR + 1: rc = parse_ints("--dp", optarg, o->sp.dp, &o->sp.ndp, 1, 4096, e); break;
		case CLI_PAR + 8: rc = parse_ints("--pp", optarg, o->sp.pp, &o->sp.npp, 1, 4096, e); break;
		case CLI_PAR + 2: case CLI_PAR + 6: case CLI_PAR + 7:
			return err_set(e, SS_EUSAGE, "EP is searched (off and TP x DP); %s is not an option here",
				       argv[optind - 1]);
		case '?': case ':': return cli_bad_option("search", argv[optind - 1], e);
		default:
			if ((rc = scenflags_option(c, optarg, &o->sf, e)) == 0)
				return cli_bad_option("search", argv[optind - 1], e);
		}
		if (rc < 0)
			return rc;
	}
	if (optind < argc)
		return err_set(e, SS_EUSAGE, "unexpected argument '%s'", argv[optind]);
	if (o->cc.nslo == 0)
		return err_set(e, SS_EUSAGE, "--slo is required, e.g. --slo ttft_p90_ms=1000,itl_mean_ms=50");
	o->cc.nseeds = (int)o->seeds;
	return 0;
}

struct search_ctx {
	struct search_in in;
	const struct search_deploy *d;
	const struct search_gpu *budget;
};

static int search_point(void *vctx, size_t i, struct sbuf *out, struct err *e)
{
	const struct search_ctx *c = vctx;
	struct search_outcome r;
	int rc = search_evaluate(&c->in, &c->d[i], c->budget[c->d[i].gpu].usd_per_gpu_hour, &r, e);

	if (rc == 0)
		sb_put(out, (const char *)&r, sizeof(r));
	return rc;
}

static int write_file(const char *path, const struct sbuf *b, struct err *e)
{
	struct afile af;
	int rc;

	if ((rc = afile_open(&af, path, e)) < 0)
		return rc;
	fwrite(b->buf ? b->buf : "", 1, b->len, af.f);
	return afile_commit(&af, e);
}

static double wall_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int cmd_search(int argc, char **argv, struct err *e)
{
	struct search_opts o;
	struct ranks rk;
	struct wl_spec wl;
	struct scenflags_ctx x[8 * SEARCH_MAX_ENGINES];
	struct scenario base[8 * SEARCH_MAX_ENGINES];
	struct search_gpu budget[8];
	struct prices prices;
	struct search_deploy *dep = NULL;
	struct search_outcome *res = NULL;
	struct mfu_cache *cache = NULL;
	struct sbuf *bufs = NULL;
	size_t ndep = 0, nres = 0, i;
	bool joined = false, have_prices = false, summarized = false;
	struct search_summary S;
	struct search_ctx ctx;
	struct parmap pm;
	struct progress pg;
	struct search_report R;
	char config_dir[4096];
	struct acc_table acc;
	struct acc_confidence *conf = NULL;
	bool have_acc = false;
	double t0 = wall_s();
	int rc;
	size_t nx = 0;

	/* Each probe allocates its KV cache (per-block arrays for every block
	 * of the pool, of which a probe touches a part) and frees it when
	 * done.  glibc raises its mmap threshold to the size of a freed mapped
	 * chunk, after which such arrays come from the threads' arenas, fully
	 * resident and kept between probes.  A fixed threshold of 32 KiB
	 * (mallopt(3)) maps each one on its own: only the pages a probe writes
	 * are resident and every probe gives them back.  DeepSeek-V3 on 16
	 * H200 (README): peak RSS 151 -> 20 MB.  (Requests' block-id arrays,
	 * once sized for max_model_len and mapped one by one here, are sized
	 * for the request since: sched.c array_class.)  32 KiB mapped every
	 * middle-sized array as well (request slabs, per-step and record
	 * arrays): a third of the README 70B search's CPU went to mmap,
	 * munmap and the page faults of fresh mappings.  1 MiB keeps those in
	 * the arenas and maps the pools' per-block arrays, and a 64 MiB trim
	 * threshold keeps the arenas' tops from being given back and faulted
	 * in again at every probe: 70B search 0.91 -> 0.52 s CPU (one
	 * thread), DeepSeek-V3 15.4 -> 11.7 s, peak RSS 35 -> 49 MB. */
	mallopt(M_MMAP_THRESHOLD, 1024 * 1024);
	mallopt(M_TRIM_THRESHOLD, 64 * 1024 * 1024);
	memset(&o, 0, sizeof(o));
	scenflags_defaults(&o.sf);
	cap_cfg_defaults(&o.cc);
	search_space_defaults(&o.sp);
	o.seeds = 1;
	o.jobs = sysconf(_SC_NPROCESSORS_ONLN) > 0 ? sysconf(_SC_NPROCESSORS_ONLN) : 1;
	if (o.jobs > PARMAP_MAX_JOBS)
		o.jobs = PARMAP_MAX_JOBS;
	o.top = 3;
	snprintf(o.gpu_names[0], sizeof(o.gpu_names[0]), "h100");
	o.gpu_count[0] = 8;
	o.ngpu = 1;
	wl_spec_defaults(&wl);
	memset(&prices, 0, sizeof(prices));
	memset(&acc, 0, sizeof(acc));
	if ((rc = ranks_init(&rk, &argc, &argv, e)) < 0)
		goto out;
	joined = true;
	if ((rc = parse_search(argc, argv, &o, e)) != 0) {
		rc = rc > 0 ? 0 : rc;
		goto out;
	}
	{
		const char *in[3] = {o.workload, o.sf.config, o.prices};
		const struct afile_out outs[2] = {{"--csv", o.csv, NULL}, {"--svg", o.svg, NULL}};
		if ((rc = afile_check_outputs(outs, 2, in, 3, 0, e)) < 0)
			goto out;
		if (o.html && (rc = afile_check(o.html, in, 3, e)) < 0)
			goto out;
	}
	/* the workload and one base scenario per budget GPU and engine */
	for (i = 0; i < o.ngpu * o.sp.nengine; i++) {
		struct scenflags f = o.sf;
		size_t gi = i / o.sp.nengine;
		memset(&x[i], 0, sizeof(x[i]));
		catalog_init(&x[i].env);
		nx++;
		if (i == 0) {
			if (o.workload) {
				if ((rc = wl_spec_load(o.workload, &wl, e)) < 0)
					goto out;
			} else {
				char path[1200];
				snprintf(path, sizeof(path), "%s/../workloads/default.json", x[0].env.data_dir);
				if ((rc = wl_spec_load(path, &wl, e)) < 0)
					goto out;
				snprintf(wl.source, sizeof(wl.source), "workloads/default.json");
			}
			if (o.nreq)
				wl.num_requests = o.nreq;
			o.cc.seed = o.seed_given ? (uint64_t)o.seed : wl.seed;
		}
		f.gpu = o.gpu_names[gi];
		f.engine = o.sp.engine[i % o.sp.nengine];
		f.allow_invalid = true; /* the deployments are checked one by one */
		if ((rc = scenflags_build(&f, &wl, &x[i], &base[i], e)) < 0)
			goto out;
		x[i].notes[0] = '\0';
		if (i % o.sp.nengine)
			continue;
		budget[gi].gpu = x[i].gpu;
		budget[gi].count = o.gpu_count[gi];
		for (size_t j = 0; j < gi; j++)
			if (budget[j].gpu == budget[gi].gpu || strcmp(budget[j].gpu->id, budget[gi].gpu->id) == 0) {
				rc = err_set(e, SS_EUSAGE, "--gpus: %s given twice", budget[gi].gpu->id);
				goto out;
			}
	}
	for (i = 0; i < o.sp.nspec; i++)
		if (o.sp.spec_k[i] > 0 && x[0].model->mtp_layers == 0) {
			rc = err_set(e, SS_EUSAGE,
				     "--speculative-tokens %d: %s has no MTP module (num_nextn_predict_layers), search offers MTP only",
				     o.sp.spec_k[i], x[0].model->id);
			goto out;
		}
	if (wl.process != WL_POISSON && wl.process != WL_CONSTANT && wl.process != WL_GAMMA) {
		rc = err_set(e, SS_EUSAGE, "the workload's arrivals must be poisson, constant or gamma (a rate to search), got %s",
			     wl_process_name(wl.process));
		goto out;
	}
	{
		char path[1200];
		const char *pp = o.prices;
		if (!pp) {
			snprintf(path, sizeof(path), "%s/prices.json", x[0].env.data_dir);
			pp = path;
		}
		if ((rc = prices_load(pp, &prices, e)) < 0)
			goto out;
		have_prices = true;
		if (!o.prices)
			snprintf(prices.path, sizeof(prices.path), "data/prices.json");
		if ((rc = catalog_load_gpus(&x[0].env, e)) < 0 ||
		    (rc = search_price_budget(&prices, &x[0].env.gpus, budget, o.ngpu, e)) < 0)
			goto out;
	}
	/* the kernel tables of each budget GPU, parsed once and shared read-only
	 * by every deployment's cost model (filled here, before the threads:
	 * mfucache.h) */
	cache = mfu_cache_new();
	for (i = 0; i < o.ngpu * o.sp.nengine; i++) {
		const struct mfu_tables *t;
		if (base[i].tier2 && base[i].tier2->tables[0])
			continue;
		const struct cost_engine *ce = base[i].engine->cost;
		if ((rc = mfu_cache_get(cache, x[0].env.data_dir, base[i].gpu, ce->name, ce->fallback,
					base[i].engine_version,
					(base[i].tier0_off & COST_H6) != 0, x[0].model->n_experts > 0,
					base[i].moe_dist, &t, e)) < 0)
			goto out;
		base[i].mfu_cache = cache;
	}
	search_enumerate(x[0].model, budget, o.ngpu, &o.sp, &dep, &ndep);
	if (ndep == 0) {
		rc = err_set(e, SS_EUSAGE, "no deployment fits the budget and the lists given");
		goto out;
	}
	memset(&ctx, 0, sizeof(ctx));
	ctx.in.base = base;
	ctx.in.nengine = o.sp.nengine;
	ctx.in.data_dir = x[0].env.data_dir;
	ctx.in.wl = &wl;
	ctx.in.cc = &o.cc;
	ctx.in.kv_follows_dtype = !o.sf.kv_given;
	ctx.in.allow_invalid = o.sf.allow_invalid;
	ctx.in.want_saturation = o.fmt == FMT_JSON || o.csv || o.html;
	ctx.d = dep;
	ctx.budget = budget;
	bufs = xcalloc(ndep, sizeof(*bufs));
	for (i = 0; i < ndep; i++)
		sb_init(&bufs[i]);
	progress_init(&pg, "search", "deployments", rk.rank == 0);
	memset(&pm, 0, sizeof(pm));
	pm.n = ndep;
	pm.jobs = (int)o.jobs;
	pm.run = search_point;
	pm.ctx = &ctx;
	pm.progress = progress_update;
	pm.pctx = &pg;
	rc = parmap_run(&pm, &rk, bufs, e);
	progress_done(&pg);
	if (rc < 0 || rk.rank != 0)
		goto out;
	res = xcalloc(ndep, sizeof(*res));
	memset(&R, 0, sizeof(R));
	for (i = 0; i < ndep; i++) {
		if (bufs[i].len != sizeof(res[i]))
			BUG("search: result record of the wrong size");
		memcpy(&res[i], bufs[i].buf, sizeof(res[i]));
	}
	nres = search_drop_pruned_copies(res, ndep, &o.sp);
	search_summarize(res, nres, budget, o.target, o.rank_by, &S);
	summarized = true;
	R.s = &S;
	R.cc = &o.cc;
	R.sp = &o.sp;
	R.target = o.target;
	R.top = o.top;
	R.model = x[0].model;
	{
		const struct model_entry *me = NULL;
		if (!o.sf.config && catalog_load_registry(&x[0].env, e) == 0)
			me = registry_find(&x[0].env.reg, x[0].model->id);
		/* a config.json names a checkpoint folder: what vllm serve
		 * and --model-path take is that folder, not the file */
		if (o.sf.config)
			paths_dir(o.sf.config, config_dir, sizeof(config_dir));
		R.hf = me && me->hf[0] ? me->hf : o.sf.config ? config_dir : x[0].model->id;
		err_clear(e);
	}
	R.wl = &wl;
	R.budget = budget;
	R.nb = o.ngpu;
	R.r = res;
	R.n = nres;
	R.prices = have_prices ? &prices : NULL;
	/* each ranked deployment's confidence: its class at its operating point */
	if ((rc = acc_table_find(x[0].env.data_dir, &acc, &have_acc, e)) < 0)
		goto out;
	conf = xcalloc(nres, sizeof(*conf));
	for (i = 0; i < nres; i++) {
		struct acc_class cls;
		acc_class_of(o.sp.engine[res[i].d.engine]->name, res[i].d.pd_prefill > 0, x[0].model,
			     budget[res[i].d.gpu].gpu, res[i].running_per_rank, res[i].queue_share, false, &cls);
		acc_confidence_of(have_acc ? &acc : NULL, &cls, &conf[i]);
	}
	R.conf = conf;
	if (o.csv) {
		struct sbuf b;
		sb_init(&b);
		search_report_csv(&R, &b);
		rc = write_file(o.csv, &b, e);
		sb_release(&b);
		if (rc < 0)
			goto out;
	}
	if (o.svg) {
		struct sbuf b;
		sb_init(&b);
		search_report_svg(&R, &b);
		rc = write_file(o.svg, &b, e);
		sb_release(&b);
		if (rc < 0)
			goto out;
	}
	if (o.html) {
		/* the page is built from the JSON result, as `servesim report` builds it */
		struct cli_html h;
		search_report_json(cli_html_open(&h), &R);
		if ((rc = cli_html_close(&h, o.html, e)) < 0)
			goto out;
	}
	if (o.fmt == FMT_JSON)
		search_report_json(stdout, &R);
	else
		search_report_text(stdout, &R);
	fprintf(stderr, "servesim search: %zu deployments, %zu runs simulated in %.2f s wall\n", nres, S.runs,
		wall_s() - t0);
	rc = 0;
out:
	if (bufs)
		for (i = 0; i < ndep; i++)
			sb_release(&bufs[i]);
	free(bufs);
	free(res);
	if (summarized)
		search_summary_release(&S);
	free(conf);
	acc_table_release(&acc);
	free(dep);
	mfu_cache_free(cache);
	if (have_prices)
		prices_release(&prices);
	wl_spec_release(&wl);
	for (i = 0; i < nx; i++)
		scenflags_ctx_release(&x[i]);
	if (joined) {
		if (rk.rank != 0)
			rc = 0;
		ranks_finalize(&rk);
	}
	return rc;
}
