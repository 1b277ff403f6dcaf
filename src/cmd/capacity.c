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
#include "cmds.h"
#include "engine/scenopts.h"
#include "eval/accuracy.h"
#include "base/afile.h"
#include "plan/caprun.h"
#include "report/out.h"
#include "report/progress.h"
#include "workload/workload.h"

struct cap_opts {
	struct scenflags sf;
	struct cap_cfg cc;
	const char *workload, *curve, *svg, *html;
	int64_t nreq, seed, seeds;
	bool seed_given;
	enum out_format fmt;
};

#define O(m) offsetof(struct cap_opts, m)
static const struct argtab_row flag_rows[] = {
	AT_TXT("usage: servesim capacity --slo LIST [--goodput-min F] [options]\n"
	       "\n"
	       "The highest request rate (Poisson arrivals of the workload) that meets every SLO,\n"
	       "or with --concurrency-search the highest closed-loop concurrency.  An exponential\n"
	       "probe (x2 from --start) brackets it, bisection narrows it to 1 %.\n"
	       "With no workload: workloads/default.json (chat) on Llama-3.1-8B, one H100.\n"
	       "\n"
	       "SLO:\n"),
	{AT_F("--slo", "LIST", O(cc), cap_slo_arg, "METRIC_STAT_ms=LIMIT,...  METRIC ttft|itl|tpot|e2e|queue|itl_pooled,\n"
		"STAT mean|p50|p90|p95|p99, e.g. ttft_p90_ms=500,itl_mean_ms=30;\n"
		"itl_pooled: vLLM bench serve's ITL, every gap between streamed\n"
		"chunks pooled over the run (itl: per request, then over requests)")},
	{AT_F("--goodput-min", "F", O(cc.goodput_min), cap_goodput_arg, "also require this share (0..1] of the arrived requests to\n"
		"meet every threshold (vLLM's goodput, per request)")},
	AT_TXT("search:\n"),
	{AT_B("--concurrency-search", O(cc.concurrency), "search clients of a closed loop instead of a rate")},
	{AT_I("--seeds", "K", O(seeds), 1, CAP_MAX_SEEDS, "search once per seed (seed .. seed+K-1): band [low, high]\n"
		"and the median as the answer (default 1)")},
	{AT_I("--seed", "S", O(seed), 0, INT64_MAX, "first seed (default: the workload's)"),
	 .given = ARGTAB_GIVEN(struct cap_opts, seed_given)},
	{AT_N("--start", "X", O(cc.start), 0, true, "first probe, req/s or clients (default 1)")},
	AT_TXT("workload:\n"),
	{AT_S("--workload", "FILE", O(workload), "workload spec (JSON); its rate is what the search varies")},
	{AT_I("--num-requests", "N", O(nreq), 1, INT64_MAX, "override the spec's request count")},
	AT_TXT("output:\n"),
	{AT_W("--format", "text|json", O(fmt), "report format (default text)")},
	{AT_S("--curve", "FILE.csv", O(curve), "every probe: configuration columns, seed, offered, served,\n"
		"each SLO metric, goodput")},
	{AT_S("--svg", "FILE.svg", O(svg), "the probes of the first seed as a plot: each SLO metric as a\n"
		"share of its limit, goodput and served/offered over the\n"
		"offered rate, with the capacity and saturation marked")},
	{AT_S("--html", "FILE", O(html), "one self-contained page: the result, that chart, the\n"
		"resolved configuration and every probe in a sortable table\n"
		"(as `servesim report` makes from --format json)")},
	AT_TXT("\n"),
	{AT_T(&scenflags_tab, O(sf))},
	AT_TXT("\n"
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
	       "exit codes: 0 ok, 1 runtime error, 2 usage/config error, 3 bad input data\n"),
};
static const struct argtab table = ARGTAB(flag_rows, 28);

static int parse_cap(int argc, char **argv, struct cap_opts *o, struct err *e)
{
	const struct cli_spec spec = {"capacity", &table, o, ARGTAB_GIVEN(struct cap_opts, sf.k), true, NULL};
	int rc;

	memset(o, 0, sizeof(*o));
	scenflags_defaults(&o->sf);
	cap_cfg_defaults(&o->cc);
	o->seeds = 1;
	if ((rc = cli_parse(&spec, argc, argv, e)) != 0)
		return rc;
	if (o->cc.nslo == 0)
		return err_set(e, SS_EUSAGE,
			       "--slo is required, e.g. --slo ttft_p90_ms=500,itl_mean_ms=30");
	o->cc.nseeds = (int)o->seeds;
	return cap_cfg_check_start(&o->cc, e);
}

int cmd_capacity(int argc, char **argv, struct err *e)
{
	struct cap_opts o;
	struct cap_job j;
	struct out_config cfg;
	char tables[64];
	double t0 = progress_now();
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
	{
		const struct out_cap_files x = {&o.cc, &cfg, &j.res, j.pt ? &j.conf : NULL};
		const struct afile_job files[3] = {{o.curve, out_cap_curve_file, &x}, {o.svg, out_cap_svg_file, &x},
						   {o.html, out_cap_html_file, &x}};
		if ((rc = afile_write_all(files, 3, e)) < 0)
			goto out;
	}
	if (o.fmt == FMT_JSON)
		out_cap_json(stdout, &o.cc, &cfg, &j.res, j.pt ? &j.conf : NULL);
	else
		out_cap_text(stdout, &o.cc, &cfg, &j.res, j.pt ? &j.conf : NULL, j.x.notes);
	fprintf(stderr, "servesim capacity: %zu runs simulated in %.3f s wall\n", j.res.ncurve, progress_now() - t0);
	rc = 0;
out:
	cap_job_release(&j);
	return rc;
}
