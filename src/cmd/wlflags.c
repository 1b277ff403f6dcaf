/* wlflags.c - run's workload flags applied to a workload spec: a file's
 * fields overridden, GuideLLM's rate types, flag-defined lengths. */
#define _GNU_SOURCE
#include "wlflags.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "readers/mooncake.h"
#include "readers/readers.h"

void wlflags_defaults(struct wlflags *f)
{
	memset(f, 0, sizeof(*f));
}

static void note_flag(struct wlflags *f, const char *flag)
{
	size_t len = strlen(f->given), fl = strlen(flag);
	const char *p;

	for (p = f->given; (p = strstr(p, flag)) != NULL; p += fl)
		if (p[fl] == '\0' || p[fl] == ',')
			return; /* given twice: named once */
	snprintf(f->given + len, sizeof(f->given) - len, "%s%s", len ? ", " : "", flag);
}

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

int wlflags_option(int code, const char *arg, struct wlflags *f, struct err *e)
{
	int rc = 0;

	switch (code) {
	case WLF: f->workload = arg; return 1;
	case WLF + 1:
		rc = cli_double("--rate", arg, 0, true, &f->rate, e);
		f->rate_given = true;
		note_flag(f, "--rate");
		break;
	case WLF + 2:
		rc = cli_int("--num-requests", arg, 1, INT64_MAX, &f->nreq, e);
		f->nreq_given = true;
		note_flag(f, "--num-requests");
		break;
	case WLF + 3:
		rc = parse_len("--prompt-tokens", arg, &f->p_mean, &f->p_std, e);
		f->len_given = true;
		note_flag(f, "--prompt-tokens");
		break;
	case WLF + 4:
		rc = parse_len("--output-tokens", arg, &f->o_mean, &f->o_std, e);
		f->len_given = true;
		note_flag(f, "--output-tokens");
		break;
	case WLF + 5:
		rc = cli_int("--seed", arg, 0, INT64_MAX, &f->seed, e);
		f->seed_given = true;
		note_flag(f, "--seed");
		break;
	case WLF + 6:
		rc = cli_int("--concurrency", arg, 1, WL_MAX_CONCURRENCY, &f->concurrency, e);
		f->conc_given = true;
		note_flag(f, "--concurrency");
		break;
	case WLF + 7:
		rc = cli_double("--duration", arg, 0, true, &f->duration_s, e);
		f->dur_given = true;
		note_flag(f, "--duration");
		break;
	case WLF + 8: {
		static const struct { const char *name; enum wlf_rate_type t; } rt[] = {
			{"synchronous", WLF_RT_SYNC}, {"throughput", WLF_RT_THROUGHPUT},
			{"concurrent", WLF_RT_CONCURRENT}, {"constant", WLF_RT_CONSTANT},
			{"poisson", WLF_RT_POISSON}, {"sweep", WLF_RT_SWEEP}};
		size_t i;
		for (i = 0; i < sizeof(rt) / sizeof(rt[0]); i++)
			if (strcmp(arg, rt[i].name) == 0)
				break;
		if (i == sizeof(rt) / sizeof(rt[0]))
			return err_set(e, SS_EUSAGE,
				       "--rate-type must be synchronous, throughput, concurrent, constant, poisson or sweep, got '%s'",
				       arg);
		f->rate_type = rt[i].t;
		note_flag(f, "--rate-type");
		return 1;
	}
	case WLF + 10: {
		char names[160];
		if (!(f->harness = wl_harness_canonical(arg, names, sizeof(names))))
			return err_set(e, SS_EUSAGE, "--harness must be one of %s, got '%s'", names, arg);
		note_flag(f, "--harness");
		return 1;
	}
	case WLF + 11:
		if (wl_prompt_kind_parse(arg, "", &f->prompt_kind, NULL) < 0)
			return err_set(e, SS_EUSAGE, "--prompt-kind must be chat or random, got '%s'", arg);
		note_flag(f, "--prompt-kind");
		return 1;
	case WLF + 9:
		if (strcmp(arg, "lognormal") == 0)
			f->dist = WL_LOGNORMAL;
		else if (strcmp(arg, "normal") == 0)
			f->dist = WL_NORMAL;
		else if (strcmp(arg, "fixed") == 0)
			f->dist = WL_FIXED;
		else
			return err_set(e, SS_EUSAGE, "--dist must be lognormal, normal or fixed, got '%s'", arg);
		f->dist_given = true;
		note_flag(f, "--dist");
		return 1;
	default:
		return 0;
	}
	return rc < 0 ? rc : 1;
}

static int set_len(const struct wlflags *f, const char *flag, double mean, double std,
		   struct wl_dist *d, struct err *e)
{
	enum wl_dist_kind k = f->dist_given ? f->dist : std > 0 ? WL_NORMAL : WL_FIXED;

	if (mean <= 0)
		return 0;
	if (k != WL_FIXED && !(std > 0))
		return err_set(e, SS_EUSAGE, "%s %g: --dist %s needs MEAN:STD, e.g. %s %g:%g", flag, mean,
			       k == WL_LOGNORMAL ? "lognormal" : "normal", flag, mean, mean / 2);
	d->kind = k;
	d->a = mean;
	d->b = k == WL_FIXED ? 0 : std;
	return 0;
}

/* Stages or a rate curve dropped by a single-rate flag keep their total
 * time as the workload's end when nothing else ends it. */
static void drop_stages(struct wl_spec *wl)
{
	double total = wl->ncurve ? wl->curve_t[wl->ncurve - 1] : 0;
	size_t i;

	if (wl->nstages == 0 && wl->ncurve == 0)
		return;
	for (i = 0; i < wl->nstages; i++)
		total += wl->stages[i].duration_s;
	wl->nstages = wl->ncurve = 0;
	if (wl->num_requests == 0 && wl->duration_s == 0)
		wl->duration_s = total;
}

int wlflags_build(const struct wlflags *f, const struct catalog *cat, struct wl_spec *wl, char *origin,
		  size_t norigin, struct err *e)
{
	const char *src;
	bool replace = !f->workload && f->len_given;
	int rc;

	origin[0] = '\0';
	if (f->workload) {
		/* (standard input is read once: a spec) */
		const struct reader *r = strcmp(f->workload, "-") ? reader_of_file(f->workload, NULL, 0) : NULL;
		if ((rc = r && r->id == RD_MOONCAKE ? mooncake_read(f->workload, wl, e)
						    : wl_spec_load(f->workload, wl, e)) < 0)
			return rc;
	} else if (replace) {
		wl_spec_defaults(wl);
		snprintf(wl->source, sizeof(wl->source), "flags");
		wl->rate = 10;
		wl->num_requests = 1000;
		snprintf(origin, norigin, "flags (%s) replace workloads/default.json", f->given);
	} else if ((rc = catalog_load_workload(cat, NULL, wl, e)) < 0) {
		return rc;
	}
	src = f->workload ? f->workload : wl->source;
	if (!replace && f->given[0])
		snprintf(origin, norigin, "%s overridden by %s", src, f->given);
	if (wl->process == WL_TRACE && (f->rate_given || f->conc_given || f->rate_type || f->len_given))
		return err_set(e, SS_EUSAGE,
			       "%s replays a trace: its arrivals and lengths are recorded, so --rate, --concurrency, --rate-type and length flags do not apply",
			       src);
	if (f->nreq_given)
		wl->num_requests = f->nreq;
	if (f->dur_given) {
		wl->duration_s = f->duration_s;
		if (!f->nreq_given)
			wl->num_requests = 0; /* the duration ends it, as GuideLLM's --max-seconds */
	}
	if (f->seed_given)
		wl->seed = (uint64_t)f->seed;
	if (f->harness)
		snprintf(wl->harness, sizeof(wl->harness), "%s", f->harness);
	if (f->prompt_kind != WL_PROMPTS_UNSET)
		wl->prompt_kind = f->prompt_kind;
	if ((rc = set_len(f, "--prompt-tokens", f->p_mean, f->p_std, &wl->prompt, e)) < 0 ||
	    (rc = set_len(f, "--output-tokens", f->o_mean, f->o_std, &wl->output, e)) < 0)
		return rc;
	if (f->rate_type == WLF_RT_SWEEP) { /* --rate counts benchmarks: the caller runs them */
		drop_stages(wl);
		if (f->conc_given)
			return err_set(e, SS_EUSAGE, "--rate-type sweep picks its own concurrency and rates: drop --concurrency");
		if (wl->process == WL_CONCURRENCY || wl->process == WL_TRACE)
			wl->process = WL_POISSON;
		if (f->rate_given && (f->rate != floor(f->rate) || f->rate < 3 || f->rate > 64))
			return err_set(e, SS_EUSAGE,
				       "--rate-type sweep takes --rate as the number of benchmarks, a whole number from 3 to 64, got %g",
				       f->rate);
		if (wl->num_requests <= 0)
			return err_set(e, SS_EUSAGE,
				       "--rate-type sweep runs every benchmark on the same requests: give --num-requests N");
		return wl_spec_validate(wl, src, e);
	}
	if (f->rate_given) {
		drop_stages(wl);
		wl->rate = f->rate;
		if (wl->process == WL_CONCURRENCY)
			wl->process = WL_POISSON;
	}
	if (f->conc_given) {
		drop_stages(wl);
		wl->process = WL_CONCURRENCY;
		wl->concurrency = f->concurrency;
	}
	switch (f->rate_type) {
	case WLF_RT_NONE:
	case WLF_RT_SWEEP: /* returned above */
		break;
	case WLF_RT_SYNC: /* GuideLLM synchronous: one request at a time */
		drop_stages(wl);
		wl->process = WL_CONCURRENCY;
		wl->concurrency = 1;
		break;
	case WLF_RT_THROUGHPUT: /* GuideLLM throughput: every request sent at once */
		drop_stages(wl);
		if (wl->num_requests <= 0)
			return err_set(e, SS_EUSAGE,
				       "--rate-type throughput sends every request at once: give --num-requests N");
		wl->process = WL_CONCURRENCY;
		wl->concurrency = wl->num_requests;
		break;
	case WLF_RT_CONCURRENT: /* GuideLLM concurrent: --rate is the stream count */
		drop_stages(wl);
		if (!f->conc_given && !f->rate_given)
			return err_set(e, SS_EUSAGE, "--rate-type concurrent needs --concurrency N (or --rate N streams)");
		if (!f->conc_given) {
			if (f->rate != (double)(int64_t)f->rate || f->rate > WL_MAX_CONCURRENCY)
				return err_set(e, SS_EUSAGE,
					       "--rate-type concurrent takes --rate as a whole number of streams, got %g",
					       f->rate);
			wl->concurrency = (int64_t)f->rate;
		}
		wl->process = WL_CONCURRENCY;
		break;
	case WLF_RT_CONSTANT:
	case WLF_RT_POISSON:
		drop_stages(wl);
		if (f->conc_given)
			return err_set(e, SS_EUSAGE, "--rate-type %s is open loop: give --rate, not --concurrency",
				       f->rate_type == WLF_RT_CONSTANT ? "constant" : "poisson");
		if (wl->process == WL_CONCURRENCY && !f->rate_given)
			return err_set(e, SS_EUSAGE, "--rate-type %s: %s is a closed loop; give --rate R",
				       f->rate_type == WLF_RT_CONSTANT ? "constant" : "poisson", src);
		wl->process = f->rate_type == WLF_RT_CONSTANT ? WL_CONSTANT : WL_POISSON;
		break;
	}
	if (f->dist_given && !f->len_given)
		return err_set(e, SS_EUSAGE, "--dist shapes flag-defined lengths: give --prompt-tokens and/or --output-tokens");
	if ((rc = wl_spec_validate(wl, src, e)) < 0)
		return rc;
	return wl_spec_check_nonempty(wl, f->dur_given ? "--duration" : src, e);
}
