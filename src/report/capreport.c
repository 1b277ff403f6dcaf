/* capreport.c - the report of `servesim capacity`: text, JSON, the probe
 * curve as CSV (configuration columns per probe) and as an SVG plot. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "base/alloc.h"
#include "plan/capacity.h"
#include "report/confreport.h"
#include "report/out.h"
#include "report/html.h"
#include "base/version.h"

static const char *unit(const struct cap_cfg *c)
{
	return c->concurrency ? "clients" : "req/s";
}

void out_cap_text(FILE *f, const struct cap_cfg *c, const struct out_config *cfg,
		  const struct cap_result *r, const struct acc_confidence *conf, const char *notes)
{
	const struct scenario *sc = cfg->sc;
	const struct wl_spec *wl = cfg->wl;
	char slos[512], b[32];
	size_t i, j;

	cap_slo_text(c, slos, sizeof(slos));
	cap_binding_name(c, r->binding, b, sizeof(b));
	fprintf(f, "capacity   %s on %s, tp %d pp %d dp %d ep %d, %s, engine %s, max_num_seqs %lld, max_num_batched_tokens %lld\n",
	       sc->model->id, sc->gpu->id, sc->par.tp, sc->par.pp, sc->par.dp, sc->par.ep,
	       dtype_name(sc->wdt), sc->engine->name, (long long)sc->k.max_num_seqs,
	       (long long)sc->k.max_num_batched_tokens);
	if (sc->k.replicas > 1)
		fprintf(f, "replicas   %d copies of it behind a %s router, %d GPUs in all; each probe runs %d x the workload's requests\n",
			(int)sc->k.replicas, router_name(scenario_router(sc)), scenario_gpus(sc), (int)sc->k.replicas);
	fprintf(f, "workload   %s (%s, %lld requests), ", wl->source,
	       c->concurrency ? "closed loop" : wl_process_name(wl->process), (long long)wl->num_requests);
	if (c->nseeds > 1)
		fprintf(f, "seeds %llu..%llu\n", (unsigned long long)c->seed,
		       (unsigned long long)(c->seed + (uint64_t)c->nseeds - 1));
	else
		fprintf(f, "seed %llu\n", (unsigned long long)c->seed);
	fprintf(f, "slo        %s\n", slos);
	if (cfg->calibration)
		fprintf(f, "tier 1     %s applied\n", cfg->calibration);
	for (const char *n = notes; n && *n;) {
		const char *nl = strchr(n, '\n');
		int len = nl ? (int)(nl - n) : (int)strlen(n);
		fprintf(f, "warning    %.*s\n", len, n);
		n = nl ? nl + 1 : n + len;
	}
	if (!r->found) {
		fprintf(f, "max %s   none: %s\n", c->concurrency ? "conc" : "rate", r->reason);
	} else {
		fprintf(f, "max %s   %.4g %s", c->concurrency ? "conc" : "rate", r->max_rate, unit(c));
		if (c->nseeds > 1)
			fprintf(f, "  (band %.4g .. %.4g over %d seeds, median)", r->band_lo, r->band_hi, c->nseeds);
		fprintf(f, "\n");
		if (r->unbounded)
			fprintf(f, "note       %s\n", r->reason);
		if (r->binding >= 0)
			fprintf(f, "binding    %s (%s)\n", b,
		       r->binding == CAP_FAIL_SATURATED(c)
			       ? "every SLO holds but throughput stops following the offered rate first"
			       : "the SLO that fails first above the capacity");
		if (!c->concurrency) {
			if (isnan(r->saturation_rate))
				fprintf(f, "saturation none up to %g req/s\n", c->max_probe);
			else
				fprintf(f, "saturation %.4g req/s (served < 0.95 x offered or queue delay growing)\n",
				       r->saturation_rate);
		}
	}
	if (conf) {
		fputc('\n', f);
		out_confidence_text(f, conf, "at the answer, ");
	}
	fprintf(f, "\nprobes (seed %llu)\n  %8s %8s", (unsigned long long)c->seed,
	       c->concurrency ? "clients" : "offered", "served");
	for (j = 0; j < c->nslo; j++) {
		char nm[32];
		cap_slo_name(&c->slo[j], nm, sizeof(nm));
		fprintf(f, " %13s", nm);
	}
	fprintf(f, " %8s  %s\n", "goodput", "verdict");
	for (i = 0; i < r->ncurve; i++) {
		const struct cap_point *p = &r->curve[i];
		if (p->seed != c->seed)
			continue;
		fprintf(f, "  %8.4g %8.3f", p->offered, p->served);
		for (j = 0; j < c->nslo; j++)
			fprintf(f, " %13.2f", p->value[j]);
		fprintf(f, " %8.4f  %s%s\n", p->goodput, p->pass ? "meets" : "fails",
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

void out_cap_json(FILE *f, const struct cap_cfg *c, const struct out_config *cfg,
		  const struct cap_result *r, const struct acc_confidence *conf)
{
	struct jw w;
	char b[32];
	size_t i, j;

	jw_init(&w, f, true);
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
	cap_binding_name(c, r->binding, b, sizeof(b));
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
	jw_obj(&w, "summary");
	if (conf) {
		out_confidence_json(&w, conf);
	} else {
		jw_null(&w, "confidence");
		jw_null(&w, "confidence_class");
		jw_null(&w, "confidence_residuals");
	}
	jw_end_obj(&w);
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
	/* every probe, as --curve writes them (the HTML report charts them) */
	jw_arr(&w, "curve");
	for (i = 0; i < r->ncurve; i++) {
		const struct cap_point *p = &r->curve[i];
		jw_obj(&w, NULL);
		jw_int(&w, "seed", (int64_t)p->seed);
		jw_num(&w, c->concurrency ? "clients" : "offered", p->offered);
		jw_num_or_null(&w, "served", p->served);
		for (j = 0; j < c->nslo; j++) {
			char nm[32];
			cap_slo_name(&c->slo[j], nm, sizeof(nm));
			jw_num_or_null(&w, nm, p->value[j]);
		}
		jw_num_or_null(&w, "goodput", p->goodput);
		jw_bool(&w, "meets_slo", p->pass);
		jw_bool(&w, "saturated", p->saturated);
		jw_end_obj(&w);
	}
	jw_end_arr(&w);
	jw_end_obj(&w);
	jw_finish(&w);
}

void out_cap_curve_csv(FILE *f, const struct cap_cfg *c, const struct out_config *cfg,
		       const struct cap_result *r)
{
	struct out_config pc;
	struct wl_spec w;
	size_t i, j;

	w = *cfg->wl;
	pc = *cfg;
	pc.wl = &w;
	out_config_csv_header(f);
	fprintf(f, ",%s,served_rps", c->concurrency ? "clients" : "offered_rps");
	for (j = 0; j < c->nslo; j++) {
		char nm[32];
		cap_slo_name(&c->slo[j], nm, sizeof(nm));
		fprintf(f, ",%s", nm);
	}
	fprintf(f, ",goodput,arrived,completed,queue_growth_s_per_s,meets_slo,saturated\n");
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
		out_config_csv_row(f, &pc);
		fprintf(f, ",%.6g,%.6g", p->offered, p->served);
		for (j = 0; j < c->nslo; j++) {
			if (isnan(p->value[j]))
				fprintf(f, ",");
			else
				fprintf(f, ",%.6g", p->value[j]);
		}
		fprintf(f, ",%.6g,%zu,%zu,%.6g,%d,%d\n", p->goodput, p->arrived, p->completed,
			p->queue_growth, p->pass, p->saturated);
	}
}

/* The first seed's probes: each SLO metric over its limit, goodput and
 * served/offered against the offered rate (or clients). */
void out_cap_svg(FILE *f, const struct cap_cfg *c, const struct out_config *cfg,
		 const struct cap_result *r)
{
	struct out_svg_series ser[CAP_MAX_SLOS + 2];
	struct out_svg_vline vl[2];
	struct out_svg_plot pl;
	char names[CAP_MAX_SLOS][48], title[256], l0[64], l1[64];
	double *x = xmalloc(xmul(r->ncurve + 1, sizeof(double)));
	double *y = xmalloc(xmul((r->ncurve + 1) * (c->nslo + 2), sizeof(double)));
	size_t i, j, n = 0, ns = c->nslo + 2;

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
	memset(ser, 0, sizeof(ser));
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
	snprintf(title, sizeof(title), "capacity: %s on %s x%d (tp %d pp %d dp %d%s), seed %llu", cfg->sc->model->id,
		 cfg->sc->gpu->id, scenario_gpus(cfg->sc), cfg->sc->par.tp, cfg->sc->par.pp, cfg->sc->par.dp,
		 cfg->sc->k.replicas > 1 ? ", replicas" : "", (unsigned long long)c->seed);
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
	out_svg_plot(f, &pl);
	free(x);
	free(y);
}


int out_cap_curve_file(FILE *f, const void *ctx, struct err *e)
{
	const struct out_cap_files *x = ctx;

	(void)e;
	out_cap_curve_csv(f, x->c, x->cfg, x->r);
	return 0;
}

int out_cap_svg_file(FILE *f, const void *ctx, struct err *e)
{
	const struct out_cap_files *x = ctx;

	(void)e;
	out_cap_svg(f, x->c, x->cfg, x->r);
	return 0;
}

int out_cap_html_file(FILE *f, const void *ctx, struct err *e)
{
	const struct out_cap_files *x = ctx;
	struct html_capture h;

	out_cap_json(html_capture_open(&h), x->c, x->cfg, x->r, x->conf);
	return html_capture_page(&h, f, e);
}
