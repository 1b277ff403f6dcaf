/* overrides.c - a workload spec's fields overridden as benchmark clients
 * set them (overrides.h): GuideLLM's rate types and flag-defined lengths. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "workload/overrides.h"

int wl_rate_type_parse(const char *flag, const char *arg, enum wl_rate_type *out, struct err *e)
{
	static const struct { const char *name; enum wl_rate_type t; } rt[] = {
		{"synchronous", WL_RT_SYNC}, {"throughput", WL_RT_THROUGHPUT},
		{"concurrent", WL_RT_CONCURRENT}, {"constant", WL_RT_CONSTANT},
		{"poisson", WL_RT_POISSON}, {"sweep", WL_RT_SWEEP}};
	size_t i;

	for (i = 0; i < sizeof(rt) / sizeof(rt[0]); i++)
		if (strcmp(arg, rt[i].name) == 0) {
			*out = rt[i].t;
			return 0;
		}
	return err_set(e, SS_EUSAGE, "%s must be synchronous, throughput, concurrent, constant, poisson or sweep, got '%s'",
		       flag, arg);
}

void wl_overrides_base(struct wl_spec *wl)
{
	wl_spec_defaults(wl);
	snprintf(wl->source, sizeof(wl->source), "flags");
	wl->rate = 10;
	wl->num_requests = 1000;
}

static int set_len(const struct wl_overrides *f, const char *flag, double mean, double std,
		   struct wl_dist *d, struct err *e)
{
	enum wl_dist_kind k = f->dist_given ? f->dist : std > 0 ? WL_NORMAL : WL_FIXED;

	if (mean <= 0)
		return 0;
	/* the flag's own bound, named as the flag (wl_spec_validate would name
	 * the workload file, or "flags") */
	if (!(mean <= (double)WL_MAX_TOKENS))
		return err_set(e, SS_EUSAGE, "%s must be in [1, %lld] tokens, got %g", flag, (long long)WL_MAX_TOKENS,
			       mean);
	if (!(std <= (double)WL_MAX_TOKENS))
		return err_set(e, SS_EUSAGE, "%s: the standard deviation must be in [0, %lld] tokens, got %g", flag,
			       (long long)WL_MAX_TOKENS, std);
	if (k != WL_FIXED && !(std > 0))
		return err_set(e, SS_EUSAGE, "%s %g: --dist %s needs MEAN:STD, e.g. %s %g:%g", flag, mean,
			       k == WL_LOGNORMAL ? "lognormal" : "normal", flag, mean, mean / 2);
	/* the flag replaces the workload's distribution of this length whole,
	 * its clamps too: a file's max of 4,096 under --prompt-tokens 5000
	 * cut every prompt to 4,096 while the header said 5000 */
	d->kind = k;
	d->a = mean;
	d->b = k == WL_FIXED ? 0 : std;
	d->min = 1;
	d->max = WL_MAX_TOKENS;
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

int wl_overrides_apply(const struct wl_overrides *f, const char *src, const char *nonempty, struct wl_spec *wl,
		       struct err *e)
{
	int rc;

	if (wl->process == WL_TRACE && (f->rate_given || f->conc_given || f->rate_type != WL_RT_NONE || f->len_given))
		return err_set(e, SS_EUSAGE,
			       "%s replays a trace: its arrivals and lengths are recorded, so --rate, --concurrency, --rate-type and length flags do not apply",
			       src);
	/* a flag out of the workload's bounds is refused as the flag */
	if (f->rate_given && f->rate_type != WL_RT_SWEEP && f->rate_type != WL_RT_CONCURRENT &&
	    !(f->rate >= WL_MIN_RATE && f->rate <= WL_MAX_RATE))
		return err_set(e, SS_EUSAGE, "--rate must be in [%g, %g] requests/s, got %g", WL_MIN_RATE, WL_MAX_RATE,
			       f->rate);
	if (f->dur_given && !(f->duration_s > 0 && f->duration_s <= WL_MAX_TIME_S))
		return err_set(e, SS_EUSAGE, "--duration must be in (0, %g] s, got %g", WL_MAX_TIME_S, f->duration_s);
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
	if (f->rate_type == WL_RT_SWEEP) { /* --rate counts benchmarks: the caller runs them */
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
	case WL_RT_NONE:
	case WL_RT_SWEEP: /* returned above */
		break;
	case WL_RT_SYNC: /* GuideLLM synchronous: one request at a time */
		drop_stages(wl);
		wl->process = WL_CONCURRENCY;
		wl->concurrency = 1;
		break;
	case WL_RT_THROUGHPUT: /* GuideLLM throughput: every request sent at once */
		drop_stages(wl);
		if (wl->num_requests <= 0)
			return err_set(e, SS_EUSAGE,
				       "--rate-type throughput sends every request at once: give --num-requests N");
		wl->process = WL_CONCURRENCY;
		wl->concurrency = wl->num_requests;
		break;
	case WL_RT_CONCURRENT: /* GuideLLM concurrent: --rate is the stream count */
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
	case WL_RT_CONSTANT:
	case WL_RT_POISSON:
		drop_stages(wl);
		if (f->conc_given)
			return err_set(e, SS_EUSAGE, "--rate-type %s is open loop: give --rate, not --concurrency",
				       f->rate_type == WL_RT_CONSTANT ? "constant" : "poisson");
		if (wl->process == WL_CONCURRENCY && !f->rate_given)
			return err_set(e, SS_EUSAGE, "--rate-type %s: %s is a closed loop; give --rate R",
				       f->rate_type == WL_RT_CONSTANT ? "constant" : "poisson", src);
		wl->process = f->rate_type == WL_RT_CONSTANT ? WL_CONSTANT : WL_POISSON;
		break;
	}
	if (f->dist_given && !f->len_given)
		return err_set(e, SS_EUSAGE, "--dist shapes flag-defined lengths: give --prompt-tokens and/or --output-tokens");
	if ((rc = wl_spec_validate(wl, src, e)) < 0)
		return rc;
	return wl_spec_check_nonempty(wl, nonempty, e);
}
