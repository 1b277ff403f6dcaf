/* capacity.c - `servesim capacity`: the highest request rate (or closed-loop
 * concurrency) a deployment sustains under an SLO set, with a seed band, the
 * binding metric, the saturation rate and the probed curve. */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "report/html.h"
#include "cmds.h"
#include "scenopts.h"
#include "eval/accuracy.h"
#include "base/afile.h"
#include "plan/caprun.h"
#include "report/out.h"
#include "workload/workload.h"

static const char cap_usage[] =
	"usage: servesim capacity --slo LIST [--goodput-min F] [options]\n"
	"\n"
	"The highest request rate (Poisson arrivals of the workload) that meets every SLO,\n"
	"or with --concurrency-search the highest closed-loop concurrency.  An exponential\n"
	"probe (x2 from --start) brackets it, bisection narrows it to 1 %.\n"
	"With no workload: workloads/default.json (chat) on Llama-3.1-8B, one H100.\n"
	"\n"
	"SLO:\n"
	"  --slo LIST                METRIC_STAT_ms=LIMIT,...  METRIC ttft|itl|tpot|e2e|queue|itl_pooled,\n"
	"                            STAT mean|p50|p90|p95|p99, e.g. ttft_p90_ms=500,itl_mean_ms=30;\n"
	"                            itl_pooled: vLLM bench serve's ITL, every gap between streamed\n"
	"                            chunks pooled over the run (itl: per request, then over requests)\n"
	"  --goodput-min F           also require this share (0..1] of the arrived requests to\n"
	"                            meet every threshold (vLLM's goodput, per request)\n"
	"search:\n"
	"  --concurrency-search      search clients of a closed loop instead of a rate\n"
	"  --seeds K                 search once per seed (seed .. seed+K-1): band [low, high]\n"
	"                            and the median as the answer (default 1)\n"
	"  --seed S                  first seed (default: the workload's)\n"
	"  --start X                 first probe, req/s or clients (default 1)\n"
	"workload:\n"
	"  --workload FILE           workload spec (JSON); its rate is what the search varies\n"
	"  --num-requests N          override the spec's request count\n"
	"output:\n"
	"  --format text|json        report format (default text)\n"
	"  --curve FILE.csv          every probe: configuration columns, seed, offered, served,\n"
	"                            each SLO metric, goodput\n"
	"  --svg FILE.svg            the probes of the first seed as a plot: each SLO metric as a\n"
	"                            share of its limit, goodput and served/offered over the\n"
	"                            offered rate, with the capacity and saturation marked\n"
	"  --html FILE               one self-contained page: the result, that chart, the\n"
	"                            resolved configuration and every probe in a sortable table\n"
	"                            (as `servesim report` makes from --format json)\n"
	"\n";
static const char cap_usage2[] =
	"A rate counts only when it is sustainable: served rate (departures over the arrival\n"
	"window after a warm-up of 1/4 of it or two mean E2Es) >= 0.95 x the arrival rate\n"
	"in the same window, and queue delay growing by\n"
	"at most 0.05 s per second of arrivals; the lowest rate that breaks this is the\n"
	"saturation rate (first seed).  The binding metric is what fails at the lowest\n"
	"failing probe above the capacity (of the seed with the lowest answer): an SLO,\n"
	"goodput, or saturation.  An SLO unmet even at the lowest probe (1/64 req/s) is not\n"
	"an error: max_rate is null and the reason is given (exit 0).  The probes on either\n"
	"side of the answer must be long enough to judge: 40 arrivals after the warm-up, over\n"
	"at least four mean E2Es from the first arrival; else exit 2 names the request count\n"
	"that would do (--num-requests).\n"
	"exit codes: 0 ok, 1 runtime error, 2 usage/config error, 3 bad input data\n";

struct cap_opts {
	struct scenflags sf;
	struct cap_cfg cc;
	const char *workload, *curve, *svg, *html;
	int64_t nreq, seed, seeds;
	bool seed_given;
	enum out_format fmt;
};

static int parse_cap(int argc, char **argv, struct cap_opts *o, struct err *e)
{
	enum { O_SLO = 256, O_GOOD, O_CONC, O_SEEDS, O_SEED, O_START, O_WL, O_NREQ, O_FMT, O_CURVE, O_SVG, O_HTML };
	static const struct option own[] = {
		SCENFLAGS_OPTIONS,
		{"slo", required_argument, 0, O_SLO}, {"goodput-min", required_argument, 0, O_GOOD},
		{"concurrency-search", no_argument, 0, O_CONC},
		{"seeds", required_argument, 0, O_SEEDS}, {"seed", required_argument, 0, O_SEED},
		{"start", required_argument, 0, O_START}, {"workload", required_argument, 0, O_WL},
		{"num-requests", required_argument, 0, O_NREQ},
		{"format", required_argument, 0, O_FMT}, {"curve", required_argument, 0, O_CURVE},
		{"svg", required_argument, 0, O_SVG}, {"html", required_argument, 0, O_HTML},
		{"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
	struct option lo[CLI_MAX_OPTIONS];
	int c, rc = 0;

	memset(o, 0, sizeof(*o));
	scenflags_defaults(&o->sf);
	cap_cfg_defaults(&o->cc);
	o->seeds = 1;
	cli_options(own, &deploy_table, lo, CLI_MAX_OPTIONS);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'h': fputs(cap_usage, stdout); scenopts_help(stdout); fputs("\n", stdout);
			fputs(cap_usage2, stdout); return 1;
		case O_SLO: rc = cap_slo_parse(optarg, &o->cc, e); break;
		case O_GOOD:
			rc = cli_double("--goodput-min", optarg, 0, true, &o->cc.goodput_min, e);
			if (rc == 0 && o->cc.goodput_min > 1)
				rc = err_set(e, SS_EUSAGE, "--goodput-min must be in (0, 1], got %g",
					     o->cc.goodput_min);
			break;
		case O_CONC: o->cc.concurrency = true; break;
		case O_SEEDS: rc = cli_int("--seeds", optarg, 1, CAP_MAX_SEEDS, &o->seeds, e); break;
		case O_SEED: rc = cli_int("--seed", optarg, 0, INT64_MAX, &o->seed, e); o->seed_given = true; break;
		case O_START: rc = cli_double("--start", optarg, 0, true, &o->cc.start, e); break;
		case O_WL: o->workload = optarg; break;
		case O_NREQ: rc = cli_int("--num-requests", optarg, 1, INT64_MAX, &o->nreq, e); break;
		case O_FMT: rc = cli_format(optarg, false, &o->fmt, e); break;
		case O_CURVE: o->curve = optarg; break;
		case O_SVG: o->svg = optarg; break;
		case O_HTML: o->html = optarg; break;
		case '?': case ':': return cli_bad_option("capacity", argv[optind - 1], e);
		default:
			if ((rc = scenflags_option(c, optarg, &o->sf, e)) == 0)
				return cli_bad_option("capacity", argv[optind - 1], e);
		}
		if (rc < 0)
			return rc;
		rc = 0;
	}
	if (optind < argc)
		return err_set(e, SS_EUSAGE, "unexpected argument '%s'", argv[optind]);
	if (o->cc.nslo == 0)
		return err_set(e, SS_EUSAGE,
			       "--slo is required, e.g. --slo ttft_p90_ms=500,itl_mean_ms=30");
	o->cc.nseeds = (int)o->seeds;
	return cap_cfg_check_start(&o->cc, e);
}

/* --curve, --svg and --html, written through the output module, all or
 * none (a failing --svg left the curve written; the page came after). */
static int write_files(const struct cap_opts *o, const struct out_config *cfg, const struct cap_result *r,
		       const struct acc_confidence *conf, struct err *e)
{
	struct afile_set g;
	struct html_capture h;
	FILE *f;
	int rc;

	afile_set_init(&g);
	if ((rc = afile_set_open(&g, o->curve, &f, e)) < 0)
		return rc;
	if (f)
		out_cap_curve_csv(f, &o->cc, cfg, r);
	if ((rc = afile_set_open(&g, o->svg, &f, e)) < 0)
		return rc;
	if (f)
		out_cap_svg(f, &o->cc, cfg, r);
	if ((rc = afile_set_open(&g, o->html, &f, e)) < 0)
		return rc;
	if (f) {
		/* the page is built from the JSON result, as `servesim report` builds it */
		out_cap_json(html_capture_open(&h), &o->cc, cfg, r, conf);
		if ((rc = html_capture_page(&h, f, e)) < 0) {
			afile_set_abort(&g);
			return rc;
		}
	}
	return afile_set_commit(&g, e);
}

int cmd_capacity(int argc, char **argv, struct err *e)
{
	struct cap_opts o;
	struct cap_job j;
	struct out_config cfg;
	char tables[64];
	double t0 = cli_wall_s();
	int rc = parse_cap(argc, argv, &o, e);

	if (rc != 0)
		return rc > 0 ? 0 : rc;
	{
		const char *in[3] = {o.workload, o.sf.config, o.sf.calibration};
		const struct afile_out outs[3] = {{"--curve", o.curve, NULL}, {"--svg", o.svg, NULL},
						  {"--html", o.html, NULL}};
		if ((rc = afile_check_outputs(outs, 3, in, 3, 0, e)) < 0)
			return rc;
	}
	rc = cap_job_run(&o.sf, o.workload, o.nreq, o.seed_given, o.seed, &o.cc, &j, e);
	if (j.prepared && j.x.notes[0] && o.fmt != FMT_TEXT)
		fprintf(stderr, "servesim capacity: %s\n", j.x.notes);
	if (rc < 0)
		goto out;
	out_config_of(&o.sf, &j.x, &j.sc, &j.st, &j.wl, tables, sizeof(tables), &cfg);
	if ((rc = write_files(&o, &cfg, &j.res, j.pt ? &j.conf : NULL, e)) < 0)
		goto out;
	if (o.fmt == FMT_JSON)
		out_cap_json(stdout, &o.cc, &cfg, &j.res, j.pt ? &j.conf : NULL);
	else
		out_cap_text(stdout, &o.cc, &cfg, &j.res, j.pt ? &j.conf : NULL, j.x.notes);
	fprintf(stderr, "servesim capacity: %zu runs simulated in %.3f s wall\n", j.res.ncurve, cli_wall_s() - t0);
	rc = 0;
out:
	cap_job_release(&j);
	return rc;
}
