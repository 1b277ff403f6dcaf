/* asreport.c - the autoscaling replay's report: text lines, JSON keys and
 * arrays, and the SVG of replicas and latency over time. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/out.h"
#include "base/alloc.h"
#include "base/json.h"
#include "plan/autoscale.h"

static void jnum(struct jw *w, const char *k, double v)
{
	if (isnan(v))
		jw_null(w, k);
	else
		jw_num(w, k, v);
}

/* "ttft <= 500 ms, itl <= 50 ms" (the SLOs given) into buf. */
static void slo_words(const struct autoscale_cfg *c, char *buf, size_t n)
{
	if (!isnan(c->slo_ttft_ms) && !isnan(c->slo_itl_ms))
		snprintf(buf, n, "TTFT <= %g ms and ITL <= %g ms", c->slo_ttft_ms, c->slo_itl_ms);
	else if (!isnan(c->slo_ttft_ms))
		snprintf(buf, n, "TTFT <= %g ms", c->slo_ttft_ms);
	else
		snprintf(buf, n, "ITL <= %g ms", c->slo_itl_ms);
}

static void fmt_ms(char *buf, size_t n, double v)
{
	if (isnan(v))
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%.1f", v);
}

void out_autoscale_text(FILE *f, const struct autoscale_cfg *c, const struct autoscale_result *r)
{
	char slo[96];
	size_t i;

	fprintf(f, "\nautoscale  policy %s", autoscale_policy_name(c->policy));
	if (c->policy == AS_UTILIZATION)
		fprintf(f, " (target %.2f of KV / batch slots)", c->target);
	fprintf(f, ", %d to %d replicas of %d GPU%s, a decision every %g s; scale-up after %.1f s loading + %g s warm-up; "
		   "scale-down window %g s\n", c->min, c->max, c->gpus_per_replica, c->gpus_per_replica > 1 ? "s" : "",
		c->interval_s, c->load_s, c->warmup_s, c->grace_s);
	fprintf(f, "autoscale  serving replicas %d at start, peak %d; %llu added, %llu removed\n", c->min, r->peak,
		(unsigned long long)r->scale_ups, (unsigned long long)r->scale_downs);
	fprintf(f, "gpu-hours  %.3f over %.1f s (a fixed pool of %d: %.3f)", r->gpu_hours, r->duration_s, c->max,
		r->gpu_hours_fixed);
	if (!isnan(r->cost_usd))
		fprintf(f, "; $%.2f at $%.2f/GPU-hour (fixed pool: $%.2f)", r->cost_usd, c->usd_per_gpu_hour,
			r->cost_usd_fixed);
	else
		fprintf(f, "; no price for the GPU in the price table");
	fputc('\n', f);
	if (!isnan(r->slo_attainment)) {
		slo_words(c, slo, sizeof(slo));
		fprintf(f, "slo        %.1f%% of requests met %s (%llu)\n", 100 * r->slo_attainment, slo,
			(unsigned long long)r->slo_met);
	}
	fprintf(f, "  %9s %9s %9s %9s %12s %12s %6s %8s\n", "start_s", "arrivals", "completed", "replicas",
		"TTFT p90 ms", "ITL mean ms", "use", "desired");
	for (i = 0; i < r->niv; i++) {
		const struct autoscale_interval *v = &r->iv[i];
		char a[24], b[24];
		int reps = 0;
		size_t k;
		for (k = 0; k < r->npts && r->pts[k].time_s <= v->start_s; k++)
			reps = r->pts[k].replicas;
		fmt_ms(a, sizeof(a), v->ttft_p90_ms);
		fmt_ms(b, sizeof(b), v->itl_mean_ms);
		fprintf(f, "  %9.1f %9llu %9llu %9d %12s %12s %6.2f %8d\n", v->start_s, (unsigned long long)v->arrivals,
			(unsigned long long)v->completed, reps, a, b, v->utilization, v->desired);
	}
}

void out_autoscale_summary_json(struct jw *w, const struct autoscale_cfg *c, const struct autoscale_result *r)
{
	jw_num(w, "gpu_hours", r->gpu_hours);
	jw_num(w, "gpu_hours_fixed_pool", r->gpu_hours_fixed);
	jnum(w, "usd_per_gpu_hour", c->usd_per_gpu_hour);
	jnum(w, "cost_usd", r->cost_usd);
	jnum(w, "cost_usd_fixed_pool", r->cost_usd_fixed);
	jnum(w, "slo_attainment", r->slo_attainment);
	jnum(w, "slo_ttft_ms", c->slo_ttft_ms);
	jnum(w, "slo_itl_ms", c->slo_itl_ms);
	jw_int(w, "peak_replicas", r->peak);
	jw_int(w, "scale_ups", (int64_t)r->scale_ups);
	jw_int(w, "scale_downs", (int64_t)r->scale_downs);
}

void out_autoscale_json(struct jw *w, const struct autoscale_cfg *c, const struct autoscale_result *r)
{
	size_t i;

	jw_obj(w, "autoscale_config");
	jw_str(w, "policy", autoscale_policy_name(c->policy));
	jw_int(w, "min_replicas", c->min);
	jw_int(w, "max_replicas", c->max);
	jw_int(w, "gpus_per_replica", c->gpus_per_replica);
	if (c->policy == AS_UTILIZATION)
		jw_num(w, "target_utilization", c->target);
	jw_num(w, "interval_s", c->interval_s);
	jw_num(w, "load_s", c->load_s);
	jw_num(w, "warmup_s", c->warmup_s);
	jw_num(w, "grace_s", c->grace_s);
	jw_end_obj(w);
	jw_arr(w, "autoscale");
	for (i = 0; i < r->npts; i++) {
		jw_obj(w, NULL);
		jw_num(w, "time_s", r->pts[i].time_s);
		jw_int(w, "replicas", r->pts[i].replicas);
		jw_int(w, "provisioned", r->pts[i].provisioned);
		jw_end_obj(w);
	}
	jw_end_arr(w);
	jw_arr(w, "autoscale_intervals");
	for (i = 0; i < r->niv; i++) {
		const struct autoscale_interval *v = &r->iv[i];
		jw_obj(w, NULL);
		jw_num(w, "start_s", v->start_s);
		jw_num(w, "end_s", v->end_s);
		jw_int(w, "arrivals", (int64_t)v->arrivals);
		jw_int(w, "completed", (int64_t)v->completed);
		jnum(w, "ttft_p90_ms", v->ttft_p90_ms);
		jnum(w, "itl_mean_ms", v->itl_mean_ms);
		jw_num(w, "utilization", v->utilization);
		jw_int(w, "desired", v->desired);
		jw_end_obj(w);
	}
	jw_end_arr(w);
}

/* One of the chart's two panels, 760 x 320, over [0, xmax] s. */
static void panel(struct out_svg_plot *p, const char *title, const char *xlabel, const char *ylabel,
		  const struct out_svg_series *ser, size_t n, double xmax)
{
	memset(p, 0, sizeof(*p));
	p->title = title;
	p->xlabel = xlabel;
	p->ylabel = ylabel;
	p->series = ser;
	p->nseries = n;
	p->xmax = xmax;
	p->width = 760;
	p->height = 320;
}

void out_autoscale_svg(FILE *f, const struct autoscale_cfg *c, const struct autoscale_result *r)
{
	size_t n = 2 * r->npts + 1, i, k = 0;
	double *x = xcalloc(n, sizeof(double)), *ys = xcalloc(n, sizeof(double)), *yp = xcalloc(n, sizeof(double));
	double *tx = xcalloc(r->niv + 1, sizeof(double)), *ty = xcalloc(r->niv + 1, sizeof(double));
	double xmax = r->duration_s > 0 ? r->duration_s : 1;
	struct out_svg_series rs[2], ls[1];
	struct out_svg_plot p1, p2;
	char hl[64];

	/* replicas as steps: each change drawn as a vertical edge */
	for (i = 0; i < r->npts; i++) {
		if (i > 0) {
			x[k] = r->pts[i].time_s;
			ys[k] = r->pts[i - 1].replicas;
			yp[k++] = r->pts[i - 1].provisioned;
		}
		x[k] = r->pts[i].time_s;
		ys[k] = r->pts[i].replicas;
		yp[k++] = r->pts[i].provisioned;
	}
	if (r->npts > 0) {
		x[k] = xmax;
		ys[k] = r->pts[r->npts - 1].replicas;
		yp[k++] = r->pts[r->npts - 1].provisioned;
	}
	rs[0] = (struct out_svg_series){"provisioned (GPUs held)", x, yp, k, OUT_SVG_CURVE, NULL};
	rs[1] = (struct out_svg_series){"serving", x, ys, k, OUT_SVG_CURVE, NULL};
	panel(&p1, "autoscaling: replicas over time", "time (s)", "replicas", rs, 2, xmax);
	p1.ymin = 0;
	p1.ymax = c->max + 1;
	for (i = 0; i < r->niv; i++) {
		tx[i] = r->iv[i].end_s;
		ty[i] = r->iv[i].ttft_p90_ms;
	}
	ls[0] = (struct out_svg_series){"TTFT p90 per interval", tx, ty, r->niv, OUT_SVG_LINES, NULL};
	panel(&p2, "latency: p90 TTFT of the requests completed in each interval", "time (s, interval end)",
	      "TTFT p90 (ms)", ls, 1, xmax);
	if (!isnan(c->slo_ttft_ms)) {
		snprintf(hl, sizeof(hl), "TTFT SLO %g ms", c->slo_ttft_ms);
		p2.hline_y = c->slo_ttft_ms;
		p2.hline_label = hl;
	}
	out_svg_begin(f, 760, 640);
	out_svg_panel(f, &p1, 0, 0);
	out_svg_panel(f, &p2, 0, 320);
	out_svg_end(f);
	free(x);
	free(ys);
	free(yp);
	free(tx);
	free(ty);
}
