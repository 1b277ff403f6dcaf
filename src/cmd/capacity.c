/* capacity.c - `servesim capacity`: the highest request rate (or closed-loop
 * concurrency) a deployment sustains under an SLO set, with a seed band, the
 * binding metric, the saturation rate and the probed curve. */
#define _GNU_SOURCE
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "cmds.h"
#include "scenflags.h"
#include "servesim/afile.h"
#include "servesim/capacity.h"
#include "servesim/json.h"
#include "servesim/alloc.h"
#include "servesim/out.h"
#include "servesim/tier2.h"
#include "servesim/version.h"
#include "servesim/workload.h"

static const char cap_usage[] =
	"usage: servesim capacity --slo LIST [--goodput-min F] [options]\n"
	"\n"
	"The highest request rate (Poisson arrivals of the workload) that meets every SLO,\n"
	"or with --concurrency-search the highest closed-loop concurrency.  An exponential\n"
	"probe (x2 from --start) brackets it, bisection narrows it to 1 %.\n"
	"With no workload: workloads/default.json (chat) on Llama-3.1-8B, one H100.\n"
	"\n"
	"SLO:\n"
	"  --slo LIST                METRIC_STAT_ms=LIMIT,...  METRIC ttft|itl|tpot|e2e|queue,\n"
	"                            STAT mean|p50|p90|p95|p99, e.g. ttft_p90_ms=500,itl_mean_ms=30\n"
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
	"\n";
static const char cap_usage2[] =
	"A rate counts only when it is sustainable: served rate (departures over the arrival\n"
	"window after a warm-up of 1/4 of it or two mean E2Es) >= 0.95 x the arrival rate\n"
	"in the same window, and queue delay growing by\n"
	"at most 0.05 s per second of arrivals; the lowest rate that breaks this is the\n"
	"saturation rate (first seed).  The binding metric is what fails at the lowest\n"
	"failing probe above the capacity (of the seed with the lowest answer): an SLO,\n"
	"goodput, or saturation.  An SLO unmet even at the lowest probe (1/64 req/s) is not\n"
	"an error: max_rate is null and the reason is given (exit 0).\n"
	"exit codes: 0 ok, 1 runtime error, 2 usage/config error, 3 bad input data\n";

struct cap_opts {
	struct scenflags sf;
	struct cap_cfg cc;
	const char *workload, *curve, *svg;
	int64_t nreq, seed, seeds;
	bool seed_given;
	enum out_format fmt;
};

static int parse_cap(int argc, char **argv, struct cap_opts *o, struct err *e)
{
	enum { O_SLO = 256, O_GOOD, O_CONC, O_SEEDS, O_SEED, O_START, O_WL, O_NREQ, O_FMT, O_CURVE, O_SVG };
	static const struct option lo[] = {
		SCENFLAGS_OPTIONS,
		{"slo", required_argument, 0, O_SLO}, {"goodput-min", required_argument, 0, O_GOOD},
		{"concurrency-search", no_argument, 0, O_CONC},
		{"seeds", required_argument, 0, O_SEEDS}, {"seed", required_argument, 0, O_SEED},
		{"start", required_argument, 0, O_START}, {"workload", required_argument, 0, O_WL},
		{"num-requests", required_argument, 0, O_NREQ},
		{"format", required_argument, 0, O_FMT}, {"curve", required_argument, 0, O_CURVE},
		{"svg", required_argument, 0, O_SVG},
		{"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
	int c, rc = 0;

	memset(o, 0, sizeof(*o));
	scenflags_defaults(&o->sf);
	cap_cfg_defaults(&o->cc);
	o->seeds = 1;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'h': fputs(cap_usage, stdout); fputs(cap_usage2, stdout); return 1;
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
	if (o->cc.concurrency && o->cc.start < 1)
		return err_set(e, SS_EUSAGE, "--start must be >= 1 client with --concurrency-search, got %g",
			       o->cc.start);
	if (o->cc.concurrency)
		o->cc.start = floor(o->cc.start);
	o->cc.nseeds = (int)o->seeds;
	return 0;
}

static double wall_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static const char *unit(const struct cap_cfg *c)
{
	return c->concurrency ? "clients" : "req/s";
}

static void slo_list(const struct cap_cfg *c, char *buf, size_t n)
{
	size_t i, len = 0;

	buf[0] = '\0';
	for (i = 0; i < c->nslo && len + 1 < n; i++) {
		char nm[32];
		cap_slo_name(&c->slo[i], nm, sizeof(nm));
		len += (size_t)snprintf(buf + len, n - len, "%s%s <= %g", i ? ", " : "", nm,
					c->slo[i].limit_ms);
	}
	if (c->goodput_min > 0 && len + 1 < n)
		snprintf(buf + len, n - len, "%sgoodput >= %g", len ? ", " : "", c->goodput_min);
}

static void binding_name(const struct cap_cfg *c, int b, char *buf, size_t n)
{
	if (b >= 0 && b < (int)c->nslo)
		cap_slo_name(&c->slo[b], buf, n);
	else if (b == CAP_FAIL_GOODPUT(c))
		snprintf(buf, n, "goodput");
	else if (b == CAP_FAIL_SATURATED(c))
		snprintf(buf, n, "saturation");
	else
		snprintf(buf, n, "none");
}

static void print_text(const struct cap_opts *o, const struct scenario *sc, const struct wl_spec *wl,
		       const struct cap_result *r, const char *notes)
{
	const struct cap_cfg *c = &o->cc;
	char slos[512], b[32];
	size_t i, j;

	slo_list(c, slos, sizeof(slos));
	binding_name(c, r->binding, b, sizeof(b));
	printf("capacity   %s on %s, tp %d pp %d dp %d ep %d, %s, engine %s, max_num_seqs %lld, max_num_batched_tokens %lld\n",
	       sc->model->id, sc->gpu->id, sc->par.tp, sc->par.pp, sc->par.dp, sc->par.ep,
	       dtype_name(sc->wdt), sc->engine, (long long)sc->max_num_seqs,
	       (long long)sc->max_num_batched_tokens);
	printf("workload   %s (%s, %lld requests), ", wl->source,
	       c->concurrency ? "closed loop" : wl_process_name(wl->process), (long long)wl->num_requests);
	if (c->nseeds > 1)
		printf("seeds %llu..%llu\n", (unsigned long long)c->seed,
		       (unsigned long long)(c->seed + (uint64_t)c->nseeds - 1));
	else
		printf("seed %llu\n", (unsigned long long)c->seed);
	printf("slo        %s\n", slos);
	for (const char *n = notes; n && *n;) {
		const char *nl = strchr(n, '\n');
		int len = nl ? (int)(nl - n) : (int)strlen(n);
		printf("warning    %.*s\n", len, n);
		n = nl ? nl + 1 : n + len;
	}
	if (!r->found) {
		printf("max %s   none: %s\n", c->concurrency ? "conc" : "rate", r->reason);
	} else {
		printf("max %s   %.4g %s", c->concurrency ? "conc" : "rate", r->max_rate, unit(c));
		if (c->nseeds > 1)
			printf("  (band %.4g .. %.4g over %d seeds, median)", r->band_lo, r->band_hi, c->nseeds);
		printf("\n");
		if (r->unbounded)
			printf("note       %s\n", r->reason);
		if (r->binding >= 0)
			printf("binding    %s (%s)\n", b,
		       r->binding == CAP_FAIL_SATURATED(c)
			       ? "every SLO holds but throughput stops following the offered rate first"
			       : "the SLO that fails first above the capacity");
		if (!c->concurrency) {
			if (isnan(r->saturation_rate))
				printf("saturation none up to %g req/s\n", c->max_probe);
			else
				printf("saturation %.4g req/s (served < 0.95 x offered or queue delay growing)\n",
				       r->saturation_rate);
		}
	}
	printf("\nprobes (seed %llu)\n  %8s %8s", (unsigned long long)c->seed,
	       c->concurrency ? "clients" : "offered", "served");
	for (j = 0; j < c->nslo; j++) {
		char nm[32];
		cap_slo_name(&c->slo[j], nm, sizeof(nm));
		printf(" %13s", nm);
	}
	printf(" %8s  %s\n", "goodput", "verdict");
	for (i = 0; i < r->ncurve; i++) {
		const struct cap_point *p = &r->curve[i];
		if (p->seed != c->seed)
			continue;
		printf("  %8.4g %8.3f", p->offered, p->served);
		for (j = 0; j < c->nslo; j++)
			printf(" %13.2f", p->value[j]);
		printf(" %8.4f  %s%s\n", p->goodput, p->pass ? "meets" : "fails",
		       p->saturated ? ", saturated" : "");
	}
}

static void jw_num_or_null(struct jw *w, const char *k, double v)
{
	if (isnan(v))
		jw_null(w, k);
	else
		jw_num(w, k, v);
}

static void print_json(const struct cap_opts *o, const struct out_config *cfg, const struct cap_result *r)
{
	const struct cap_cfg *c = &o->cc;
	struct jw w;
	char b[32];
	size_t i, j;

	jw_init(&w, stdout, true);
	jw_obj(&w, NULL);
	jw_str(&w, "servesim_version", SERVESIM_VERSION);
	jw_str(&w, "search", c->concurrency ? "concurrency" : "rate");
	jw_str(&w, "unit", unit(c));
	jw_num_or_null(&w, "max_rate", r->found ? r->max_rate : NAN);
	jw_arr(&w, "band");
	jw_num_or_null(&w, NULL, r->found ? r->band_lo : NAN);
	jw_num_or_null(&w, NULL, r->found ? r->band_hi : NAN);
	jw_end_arr(&w);
	jw_arr(&w, "per_seed");
	for (i = 0; r->found && i < (size_t)c->nseeds; i++)
		jw_num(&w, NULL, r->per_seed[i]);
	jw_end_arr(&w);
	binding_name(c, r->binding, b, sizeof(b));
	if (r->binding < 0)
		jw_null(&w, "binding_metric");
	else
		jw_str(&w, "binding_metric", b);
	jw_num_or_null(&w, "saturation_rate", r->found ? r->saturation_rate : NAN);
	jw_bool(&w, "unbounded", r->unbounded);
	if (r->reason[0])
		jw_str(&w, "reason", r->reason);
	else
		jw_null(&w, "reason");
	out_config_json(&w, cfg);
	jw_obj(&w, "search_settings");
	jw_str(&w, "process", c->concurrency ? "concurrency" : wl_process_name(cfg->wl->process));
	jw_int(&w, "seed", (int64_t)c->seed);
	jw_int(&w, "seeds", c->nseeds);
	jw_num(&w, "rel_tol", c->rel_tol);
	jw_obj(&w, "slo");
	for (j = 0; j < c->nslo; j++) {
		char nm[32];
		cap_slo_name(&c->slo[j], nm, sizeof(nm));
		jw_num(&w, nm, c->slo[j].limit_ms);
	}
	jw_end_obj(&w);
	jw_num_or_null(&w, "goodput_min", c->goodput_min > 0 ? c->goodput_min : NAN);
	jw_end_obj(&w);
	jw_int(&w, "probes", (int64_t)r->ncurve);
	jw_end_obj(&w);
	jw_finish(&w);
}

static int write_curve(const char *path, const struct cap_cfg *c, const struct out_config *cfg,
		       const struct cap_result *r, struct err *e)
{
	struct out_config pc;
	struct wl_spec w;
	struct afile af;
	size_t i, j;
	int rc;

	if ((rc = afile_open(&af, path, e)) < 0)
		return rc;
	w = *cfg->wl;
	pc = *cfg;
	pc.wl = &w;
	out_config_csv_header(af.f);
	fprintf(af.f, ",%s,served_rps", c->concurrency ? "clients" : "offered_rps");
	for (j = 0; j < c->nslo; j++) {
		char nm[32];
		cap_slo_name(&c->slo[j], nm, sizeof(nm));
		fprintf(af.f, ",%s", nm);
	}
	fprintf(af.f, ",goodput,arrived,completed,queue_growth_s_per_s,meets_slo,saturated\n");
	for (i = 0; i < r->ncurve; i++) {
		const struct cap_point *p = &r->curve[i];
		/* the configuration columns describe this probe */
		w.seed = p->seed;
		if (c->concurrency) {
			w.process = WL_CONCURRENCY;
			w.concurrency = (int64_t)p->offered;
		} else {
			w.rate = p->offered;
		}
		out_config_csv_row(af.f, &pc);
		fprintf(af.f, ",%.6g,%.6g", p->offered, p->served);
		for (j = 0; j < c->nslo; j++) {
			if (isnan(p->value[j]))
				fprintf(af.f, ",");
			else
				fprintf(af.f, ",%.6g", p->value[j]);
		}
		fprintf(af.f, ",%.6g,%zu,%zu,%.6g,%d,%d\n", p->goodput, p->arrived, p->completed,
			p->queue_growth, p->pass, p->saturated);
	}
	return afile_commit(&af, e);
}

/* The first seed's probes: each SLO metric over its limit, goodput and
 * served/offered against the offered rate (or clients). */
static int write_svg(const char *path, const struct cap_cfg *c, const struct out_config *cfg,
		     const struct cap_result *r, struct err *e)
{
	struct out_svg_series ser[CAP_MAX_SLOS + 2];
	struct out_svg_vline vl[2];
	struct out_svg_plot pl;
	char names[CAP_MAX_SLOS][48], title[256], l0[64], l1[64];
	double *x = xmalloc(xmul(r->ncurve + 1, sizeof(double)));
	double *y = xmalloc(xmul((r->ncurve + 1) * (c->nslo + 2), sizeof(double)));
	size_t i, j, n = 0, ns = c->nslo + 2;
	struct afile af;
	int rc;

	for (i = 0; i < r->ncurve; i++) {
		const struct cap_point *p = &r->curve[i];
		if (p->seed != c->seed)
			continue;
		x[n] = p->offered;
		for (j = 0; j < c->nslo; j++)
			y[j * (r->ncurve + 1) + n] = fmin(p->value[j] / c->slo[j].limit_ms, 2.0);
		y[c->nslo * (r->ncurve + 1) + n] = p->goodput;
		y[(c->nslo + 1) * (r->ncurve + 1) + n] = p->offered > 0 ? p->served / p->offered : NAN;
		n++;
	}
	for (j = 0; j < ns; j++) {
		ser[j].x = x;
		ser[j].y = y + j * (r->ncurve + 1);
		ser[j].n = n;
		if (j < c->nslo) {
			cap_slo_name(&c->slo[j], names[j], 32);
			snprintf(names[j] + strlen(names[j]), sizeof(names[j]) - strlen(names[j]), " / %g",
				 c->slo[j].limit_ms);
			ser[j].name = names[j];
		} else {
			ser[j].name = j == c->nslo ? "goodput" : "served / offered";
		}
	}
	memset(&pl, 0, sizeof(pl));
	snprintf(title, sizeof(title), "capacity: %s on %s x%d (tp %d pp %d dp %d), seed %llu", cfg->sc->model->id,
		 cfg->sc->gpu->id, cfg->sc->par.tp * cfg->sc->par.pp * cfg->sc->par.dp, cfg->sc->par.tp,
		 cfg->sc->par.pp, cfg->sc->par.dp, (unsigned long long)c->seed);
	pl.title = title;
	pl.xlabel = c->concurrency ? "clients" : "offered rate (req/s)";
	pl.ylabel = "SLO metric / limit (clipped at 2); goodput; served / offered";
	pl.series = ser;
	pl.nseries = ns;
	pl.hline_y = 1;
	pl.hline_label = "SLO limit";
	if (r->found) {
		snprintf(l0, sizeof(l0), "capacity %.4g", r->per_seed[0]);
		vl[pl.nvlines].label = l0;
		vl[pl.nvlines++].x = r->per_seed[0];
		if (!isnan(r->saturation_rate)) {
			snprintf(l1, sizeof(l1), "saturation %.4g", r->saturation_rate);
			vl[pl.nvlines].label = l1;
			vl[pl.nvlines++].x = r->saturation_rate;
		}
	}
	pl.vlines = vl;
	if ((rc = afile_open(&af, path, e)) == 0) {
		out_svg_plot(af.f, &pl);
		rc = afile_commit(&af, e);
	}
	free(x);
	free(y);
	return rc;
}

int cmd_capacity(int argc, char **argv, struct err *e)
{
	struct cap_opts o;
	struct scenflags_ctx x;
	struct wl_spec wl;
	struct scenario sc;
	struct scenario_state st;
	struct cap_result res;
	struct out_config cfg;
	char tables[64];
	bool prepared = false, have_res = false;
	double t0 = wall_s();
	int rc = parse_cap(argc, argv, &o, e);

	if (rc != 0)
		return rc > 0 ? 0 : rc;
	memset(&x, 0, sizeof(x));
	cli_env_init(&x.env);
	wl_spec_defaults(&wl);
	if (o.workload) {
		if ((rc = wl_spec_load(o.workload, &wl, e)) < 0)
			goto out;
	} else {
		char path[1200];
		snprintf(path, sizeof(path), "%s/../workloads/default.json", x.env.data_dir);
		if ((rc = wl_spec_load(path, &wl, e)) < 0)
			goto out;
		snprintf(wl.source, sizeof(wl.source), "workloads/default.json");
	}
	if (o.nreq)
		wl.num_requests = o.nreq;
	o.cc.seed = o.seed_given ? (uint64_t)o.seed : wl.seed;
	if (o.cc.concurrency && wl.num_requests == 0)
		wl.num_requests = 1000;
	{
		const char *in[3] = {o.workload, o.sf.config, o.sf.calibration};
		if ((o.curve && (rc = afile_check(o.curve, in, 3, e)) < 0) ||
		    (o.svg && (rc = afile_check(o.svg, in, 3, e)) < 0))
			goto out;
	}
	if ((rc = scenflags_build(&o.sf, &wl, &x, &sc, e)) < 0)
		goto out;
	if ((rc = scenario_prepare(&sc, x.env.data_dir, &st, e)) < 0)
		goto out;
	prepared = true;
	if ((rc = scenario_check_capacity(&sc, &st, o.sf.allow_invalid, x.notes, sizeof(x.notes), e)) < 0)
		goto out;
	if (x.notes[0] && o.fmt != FMT_TEXT)
		fprintf(stderr, "servesim capacity: %s\n", x.notes);
	if ((rc = cap_search(&st, &wl, &o.cc, &res, e)) < 0)
		goto out;
	have_res = true;
	scenflags_out_config(&o.sf, &x, &sc, &st, &wl, tables, sizeof(tables), &cfg);
	if (o.curve && (rc = write_curve(o.curve, &o.cc, &cfg, &res, e)) < 0)
		goto out;
	if (o.svg && (rc = write_svg(o.svg, &o.cc, &cfg, &res, e)) < 0)
		goto out;
	if (o.fmt == FMT_JSON)
		print_json(&o, &cfg, &res);
	else
		print_text(&o, &sc, &wl, &res, x.notes);
	fprintf(stderr, "servesim capacity: %zu runs simulated in %.3f s wall\n", res.ncurve, wall_s() - t0);
	rc = 0;
out:
	if (have_res)
		cap_result_release(&res);
	if (prepared)
		scenario_release(&st);
	wl_spec_release(&wl);
	scenflags_ctx_release(&x);
	return rc;
}
