/* html.c - the self-contained HTML page of a result (--html FILE on
 * search, capacity, sweep and eval; `servesim report RESULT.json`): built
 * from the result's JSON, so a saved result gives the same page.  Inline
 * CSS, inline SVG charts (out_svg_*), tables sortable and filterable by a
 * little inline script, each row's resolved configuration behind it; no
 * external asset. */
#include "report/html.h"
#include "report/searchreport.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/afile.h"
#include "base/alloc.h"
#include "report/out.h"
#include "plan/autoscale.h"
#include "plan/pareto.h"
#include "base/sbuf.h"
#include "plan/sweep.h"
#include "report/sweepreport.h"
#include "base/version.h"

static const char css[] =
	"body{font-family:sans-serif;margin:24px;color:#222;max-width:1400px}"
	"h1{font-size:22px}h2{font-size:18px;margin-top:28px}"
	".meta{color:#666;font-size:13px}"
	"table{border-collapse:collapse;font-size:13px}"
	"td,th{border:1px solid #ddd;padding:3px 7px;text-align:left;vertical-align:top}"
	"td.n{text-align:right;font-variant-numeric:tabular-nums}"
	"th{background:#f3f3f3;position:sticky;top:0}"
	"table.data th{cursor:pointer;user-select:none}"
	"table.data th.asc:after{content:' \\25B2'}table.data th.desc:after{content:' \\25BC'}"
	"tr.row:hover{background:#f7f9ff}tr.row{cursor:pointer}"
	"tr.detail td{background:#fafafa}tr.detail pre{margin:0;font-size:12px;white-space:pre-wrap}"
	"input.filter{margin:6px 0;padding:4px;width:320px}"
	".count{color:#666;font-size:13px;margin-left:8px}"
	"figure{margin:10px 0;overflow-x:auto}"
	".bad{background:#fde0dc}.mid{background:#fff4d6}.good{background:#e3f5e1}";

/* Sorting (click a header; numbers as numbers, empty last), filtering
 * (rows whose text holds every word of the box), a row's configuration
 * shown on a click; the URL's #sort=COLUMN[:desc]&filter=TEXT applies on
 * load (what the browser test uses).  body gets data-ready when done. */
static const char script[] =
	"(function(){\n"
	"function val(tr,i){var c=tr.cells[i];if(!c)return'';var t=c.getAttribute('data-v');"
	"if(t===null)t=c.textContent;var n=parseFloat(t);return t!==''&&isFinite(n)&&/^[-+0-9.eE]+$/.test(t.trim())?n:t;}\n"
	"function pairs(tb){var r=[],rows=tb.rows;for(var i=0;i<rows.length;i++)if(rows[i].className.indexOf('row')==0)"
	"r.push([rows[i],rows[i].nextElementSibling&&rows[i].nextElementSibling.className=='detail'?rows[i].nextElementSibling:null]);return r;}\n"
	"function sort(t,i,desc){var tb=t.tBodies[0],p=pairs(tb);p.sort(function(a,b){var x=val(a[0],i),y=val(b[0],i);"
	"if(x===''&&y!=='')return 1;if(y===''&&x!=='')return -1;var c=(typeof x=='number'&&typeof y=='number')?x-y:String(x).localeCompare(String(y));"
	"return desc?-c:c;});p.forEach(function(q){tb.appendChild(q[0]);if(q[1])tb.appendChild(q[1]);});"
	"var hs=t.tHead.rows[0].cells;for(var k=0;k<hs.length;k++)hs[k].className=k==i?(desc?'desc':'asc'):'';}\n"
	"function filter(t,text){var w=text.toLowerCase().split(/\\s+/).filter(Boolean),n=0;pairs(t.tBodies[0]).forEach(function(q){"
	"var s=q[0].textContent.toLowerCase(),ok=w.every(function(x){return s.indexOf(x)>=0;});q[0].style.display=ok?'':'none';"
	"if(q[1]&&!ok)q[1].style.display='none';if(ok)n++;});var c=document.getElementById(t.id+'-count');if(c)c.textContent=n+' shown';"
	"t.setAttribute('data-shown',n);}\n"
	"var tables=document.querySelectorAll('table.data');\n"
	"tables.forEach(function(t){var hs=t.tHead.rows[0].cells;for(var i=0;i<hs.length;i++)(function(i){hs[i].addEventListener('click',function(){"
	"sort(t,i,hs[i].className=='asc');});})(i);\n"
	"var f=document.getElementById(t.id+'-filter');if(f)f.addEventListener('input',function(){filter(t,f.value);});\n"
	"pairs(t.tBodies[0]).forEach(function(q){if(q[1])q[0].addEventListener('click',function(){q[1].style.display=q[1].style.display=='none'?'':'none';});});\n"
	"filter(t,'');});\n"
	"var h={};location.hash.replace(/^#/,'').split('&').forEach(function(kv){var i=kv.indexOf('=');if(i>0)h[kv.slice(0,i)]=decodeURIComponent(kv.slice(i+1));});\n"
	"if(tables.length){var t=tables[0];if(h.filter!==undefined){var f=document.getElementById(t.id+'-filter');if(f)f.value=h.filter;filter(t,h.filter);}\n"
	"if(h.sort){var s=h.sort.split(':'),hs=t.tHead.rows[0].cells;for(var i=0;i<hs.length;i++)if(hs[i].getAttribute('data-key')==s[0])sort(t,i,s[1]=='desc');}}\n"
	"document.body.setAttribute('data-ready','1');})();\n";


/* A JSON value as a cell's text ("" for null). */
static void value_text(const struct json *v, char *buf, size_t n)
{
	buf[0] = '\0';
	if (!v)
		return;
	switch (json_type_of(v)) {
	case JSON_NUMBER: snprintf(buf, n, "%.6g", json_number(v)); break;
	case JSON_STRING: snprintf(buf, n, "%s", json_string(v)); break;
	case JSON_BOOL: snprintf(buf, n, "%s", json_bool(v) ? "yes" : "no"); break;
	case JSON_NULL: break;
	default: json_dims_text(v, buf, n); break;
	}
}

/* A value compactly as JSON text, for the configuration behind a row. */
static void json_text(FILE *f, const struct json *v, int depth)
{
	const struct json *m;
	char b[64];

	switch (json_type_of(v)) {
	case JSON_OBJECT:
	case JSON_ARRAY: {
		bool obj = json_type_of(v) == JSON_OBJECT, first = true;
		fputc(obj ? '{' : '[', f);
		for (m = json_first(v); m; m = json_next(m)) {
			fprintf(f, "%s\n%*s", first ? "" : ",", 2 * (depth + 1), "");
			first = false;
			if (obj) {
				json_print_string(f, json_key(m));
				fputs(": ", f);
			}
			json_text(f, m, depth + 1);
		}
		if (!first)
			fprintf(f, "\n%*s", 2 * depth, "");
		fputc(obj ? '}' : ']', f);
		break;
	}
	case JSON_STRING: json_print_string(f, json_string(v)); break;
	case JSON_NUMBER: snprintf(b, sizeof(b), "%.9g", json_number(v)); fputs(b, f); break;
	case JSON_BOOL: fputs(json_bool(v) ? "true" : "false", f); break;
	default: fputs("null", f); break;
	}
}

/* json_text, HTML-escaped, into a <pre>. */
static void pre_json(FILE *f, const struct json *v)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m)
		BUG("open_memstream");
	json_text(m, v, 0);
	fclose(m);
	fputs("<pre>", f);
	out_svg_esc(f, buf);
	fputs("</pre>", f);
	free(buf);
}

static void head(FILE *f, const char *title, const char *source)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>", f);
	out_svg_esc(f, title);
	fprintf(f, "</title>\n<style>%s</style></head>\n<body>\n<h1>", css);
	out_svg_esc(f, title);
	fprintf(f, "</h1>\n<p class=\"meta\">servesim %s", SERVESIM_VERSION);
	if (source) {
		fputs(", from ", f);
		out_svg_esc(f, source);
	}
	fputs("</p>\n", f);
}

static void tail(FILE *f)
{
	fprintf(f, "<script>\n%s</script>\n</body></html>\n", script);
}

/* A key / value table of an object's members (nested ones as JSON), but
 * those named in skip and those hide says so of (either may be NULL). */
static void kv_table(FILE *f, const struct json *o, const char *const *skip, bool (*hide)(const char *key))
{
	const struct json *m;
	char b[600];
	size_t k;

	fputs("<table class=\"kv\">\n", f);
	for (m = json_first(o); m; m = json_next(m)) {
		bool sk = false;
		for (k = 0; skip && skip[k]; k++)
			sk |= strcmp(skip[k], json_key(m)) == 0;
		if (sk || (hide && hide(json_key(m))))
			continue;
		fputs("<tr><th>", f);
		out_svg_esc(f, json_key(m));
		fputs("</th><td>", f);
		if (json_type_of(m) == JSON_OBJECT || json_type_of(m) == JSON_ARRAY) {
			pre_json(f, m);
		} else {
			value_text(m, b, sizeof(b));
			out_svg_esc(f, b);
		}
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

/* The columns of a data table: key (a member of each row, "a.b" for a
 * nested one) and heading. */
struct col {
	const char *key, *head;
};

static const struct json *path_get(const struct json *o, const char *key)
{
	char part[96];
	const char *dot;

	while ((dot = strchr(key, '.'))) {
		snprintf(part, sizeof(part), "%.*s", (int)(dot - key), key);
		if (!(o = json_get(o, part)))
			return NULL;
		key = dot + 1;
	}
	return json_get(o, key);
}

/* A sortable, filterable table of rows (an array of objects): the given
 * columns, then each row's whole object behind it. */
static void data_table(FILE *f, const char *id, const struct json *rows, const struct col *cols, size_t nc,
		       const char *what)
{
	const struct json *r;
	char b[600];
	size_t i, n = json_size(rows);

	fprintf(f, "<div><input class=\"filter\" id=\"%s-filter\" placeholder=\"filter %s (words, e.g. h100 fp8)\">"
		   "<span class=\"count\" id=\"%s-count\"></span></div>\n",
		id, what, id);
	fprintf(f, "<table class=\"data\" id=\"%s\" data-rows=\"%zu\">\n<thead><tr>", id, n);
	for (i = 0; i < nc; i++) {
		fprintf(f, "<th data-key=\"%s\">", cols[i].key);
		out_svg_esc(f, cols[i].head);
		fputs("</th>", f);
	}
	fputs("</tr></thead>\n<tbody>\n", f);
	for (r = json_first(rows); r; r = json_next(r)) {
		fputs("<tr class=\"row\">", f);
		for (i = 0; i < nc; i++) {
			const struct json *v = path_get(r, cols[i].key);
			value_text(v, b, sizeof(b));
			fprintf(f, "<td%s>", v && json_type_of(v) == JSON_NUMBER ? " class=\"n\"" : "");
			out_svg_esc(f, b);
			fputs("</td>", f);
		}
		fprintf(f, "</tr>\n<tr class=\"detail\" style=\"display:none\"><td colspan=\"%zu\">", nc);
		pre_json(f, r);
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
}

static double num(const struct json *o, const char *key)
{
	const struct json *v = path_get(o, key);
	return v && json_type_of(v) == JSON_NUMBER ? json_number(v) : NAN;
}

static const char *str(const struct json *o, const char *key, const char *dflt)
{
	const struct json *v = path_get(o, key);
	return v && json_type_of(v) == JSON_STRING ? json_string(v) : dflt;
}

/* --- search --- */

static void page_search(FILE *f, const struct json *res)
{
	static const struct col cols[] = {
		{"rank", "rank"}, {"pareto", "Pareto"}, {"gpu", "GPU"}, {"prefill_gpu", "prefill GPU"}, {"gpus", "GPUs"},
		{"engine", "engine"},
		{"tp", "tp"}, {"pp", "pp"}, {"dp", "dp"}, {"ep", "ep"}, {"pd_prefill", "P"}, {"pd_decode", "D"},
		{"weights", "weights"}, {"kv_dtype", "KV"}, {"max_num_seqs", "max_num_seqs"},
		{"max_num_batched_tokens", "max_num_batched_tokens"}, {"speculative_tokens", "MTP"},
		{"max_rate", "max rate (req/s)"}, {"tok_s_per_gpu", "tok/s/GPU"}, {"tok_s_per_user", "tok/s/user"},
		{"ttft_p90_ms", "TTFT p90 ms"}, {"itl_mean_ms", "ITL mean ms"},
		{"usd_per_m_output_tokens", "$/M tokens"}, {"binding_metric", "binding"}, {"status", "status"},
		{"reason", "reason"}};
	const struct json *rk = json_get(res, "ranking"), *r;
	size_t n = json_size(rk), i = 0;
	double *x = xcalloc(n ? n : 1, sizeof(*x)), *y = xcalloc(n ? n : 1, sizeof(*y));
	bool *front = xcalloc(n ? n : 1, sizeof(*front));
	char **lab = xcalloc(n ? n : 1, sizeof(*lab));
	struct pareto_chart c;
	struct sbuf svg;
	char title[200];

	fputs("<h2>Search</h2>\n", f);
	kv_table(f, json_get(res, "config"), NULL, NULL);
	{
		static const char *const skip[] = {"config", "ranking", "servesim_version", NULL};
		kv_table(f, res, skip, NULL);
	}
	for (r = json_first(rk); r; r = json_next(r), i++) {
		const struct json *p = json_get(r, "pareto");
		x[i] = num(r, "tok_s_per_user");
		y[i] = num(r, "tok_s_per_gpu");
		front[i] = p && json_type_of(p) == JSON_BOOL && json_bool(p);
		lab[i] = xmalloc(96);
		snprintf(lab[i], 96, "#%g %s tp%g dp%g %s", num(r, "rank"), str(r, "engine", ""), num(r, "tp"),
			 num(r, "dp"), str(r, "weights", ""));
	}
	snprintf(title, sizeof(title), "%s: output tokens/s/GPU vs tokens/s/user at SLO capacity",
		 str(res, "config.model", "search"));
	c = (struct pareto_chart){title, "tokens/s/user (1000 / mean ITL)", "output tokens/s per GPU", x, y, front,
				  (const char *const *)lab, n};
	sb_init(&svg);
	pareto_svg(&c, &svg);
	fputs("<h2>Pareto front</h2>\n<figure id=\"chart-pareto\">", f);
	fwrite(svg.buf, 1, svg.len, f);
	fputs("</figure>\n<h2>Deployments</h2>\n<p class=\"meta\">Click a row for its whole configuration and launch line.</p>\n",
	      f);
	data_table(f, "rows", rk, cols, sizeof(cols) / sizeof(cols[0]), "deployments");
	sb_release(&svg);
	for (i = 0; i < n; i++)
		free(lab[i]);
	free(lab);
	free(x);
	free(y);
	free(front);
}

/* --- capacity --- */

#define CAP_SERIES_MAX 16 /* the SLOs, goodput, served / offered */

static void page_capacity(FILE *f, const struct json *res)
{
	const struct json *curve = json_get(res, "curve"), *slo = json_get(res, "search_settings.slo"), *m, *p;
	const char *xk = json_get(json_first(curve), "clients") ? "clients" : "offered";
	size_t n = json_size(curve), ns = 0, k;
	double seed = num(res, "search_settings.seed");
	struct out_svg_series ser[CAP_SERIES_MAX];
	struct out_svg_vline vl[2];
	struct out_svg_plot pl;
	double *x = xcalloc(n ? n : 1, sizeof(*x)), *y = xcalloc(n * CAP_SERIES_MAX + 1, sizeof(*y));
	char names[CAP_SERIES_MAX][64], l0[64], l1[64];
	struct col cols[CAP_SERIES_MAX + 4];
	size_t nc = 0, np = 0;

	fputs("<h2>Capacity</h2>\n", f);
	{
		static const char *const skip[] = {"config", "curve", NULL};
		kv_table(f, res, skip, NULL);
	}
	/* the first seed's probes: each SLO metric over its limit (clipped at
	 * 2), goodput, served / offered */
	for (m = json_first(slo); m && ns + 2 < CAP_SERIES_MAX; m = json_next(m))
		snprintf(names[ns++], sizeof(names[0]), "%s / %g", json_key(m), json_number(m));
	for (p = json_first(curve); p; p = json_next(p)) {
		if (num(p, "seed") != seed)
			continue;
		x[np] = num(p, xk);
		for (k = 0, m = json_first(slo); m && k < ns; m = json_next(m), k++)
			y[k * n + np] = fmin(num(p, json_key(m)) / json_number(m), 2.0);
		y[ns * n + np] = num(p, "goodput");
		y[(ns + 1) * n + np] = x[np] > 0 ? num(p, "served") / x[np] : NAN;
		np++;
	}
	snprintf(names[ns], sizeof(names[0]), "goodput");
	snprintf(names[ns + 1], sizeof(names[0]), "served / offered");
	for (k = 0; k < ns + 2; k++)
		ser[k] = (struct out_svg_series){names[k], x, y + k * n, np, OUT_SVG_LINES, NULL};
	memset(&pl, 0, sizeof(pl));
	pl.title = "probes of the first seed";
	pl.xlabel = strcmp(xk, "clients") == 0 ? "clients" : "offered rate (req/s)";
	pl.ylabel = "SLO metric / limit (clipped at 2); goodput; served / offered";
	pl.series = ser;
	pl.nseries = ns + 2;
	pl.hline_y = 1;
	pl.hline_label = "SLO limit";
	if ((p = json_get(res, "per_seed")) && json_size(p) > 0 && json_type_of(json_at(p, 0)) == JSON_NUMBER) {
		/* the first seed's capacity, on its probes */
		snprintf(l0, sizeof(l0), "capacity %.4g", json_number(json_at(p, 0)));
		vl[pl.nvlines].label = l0;
		vl[pl.nvlines++].x = json_number(json_at(p, 0));
		if (isfinite(num(res, "saturation_rate"))) {
			snprintf(l1, sizeof(l1), "saturation %.4g", num(res, "saturation_rate"));
			vl[pl.nvlines].label = l1;
			vl[pl.nvlines++].x = num(res, "saturation_rate");
		}
	}
	pl.vlines = vl;
	fputs("<figure id=\"chart-capacity\">", f);
	out_svg_plot(f, &pl);
	fputs("</figure>\n<h2>Resolved configuration</h2>\n", f);
	kv_table(f, json_get(res, "config"), NULL, NULL);
	fputs("<h2>Probes</h2>\n", f);
	cols[nc++] = (struct col){"seed", "seed"};
	cols[nc++] = (struct col){xk, xk};
	cols[nc++] = (struct col){"served", "served"};
	for (m = json_first(slo); m && nc + 3 < CAP_SERIES_MAX + 4; m = json_next(m))
		cols[nc++] = (struct col){json_key(m), json_key(m)};
	cols[nc++] = (struct col){"goodput", "goodput"};
	cols[nc++] = (struct col){"meets_slo", "meets SLO"};
	cols[nc++] = (struct col){"saturated", "saturated"};
	data_table(f, "rows", curve, cols, nc, "probes");
	free(x);
	free(y);
}

/* --- sweep --- */

static void page_sweep(FILE *f, const struct json *rows)
{
	static const struct col cols[] = {
		{"model", "model"}, {"gpu", "GPU"}, {"engine", "engine"}, {"dtype", "dtype"}, {"tp", "tp"},
		{"pp", "pp"}, {"dp", "dp"}, {"ep", "ep"}, {"max_num_seqs", "max_num_seqs"},
		{"max_num_batched_tokens", "max_num_batched_tokens"}, {"rate", "rate"},
		{"concurrency", "concurrency"}, {"seed", "seed"}, {"status", "status"},
		{"served_rps", "served req/s"}, {"output_tok_s", "output tok/s"}, {"ttft_p90_ms", "TTFT p90 ms"},
		{"itl_mean_ms", "ITL mean ms"}, {"e2e_p90_ms", "E2E p90 ms"}};
	const char *xkey;
	char title[120];

	fprintf(f, "<h2>Sweep</h2>\n<p>%zu points.</p>\n", json_size(rows));
	if (sweep_chart_axis(rows, &xkey, NULL) == 0) {
		snprintf(title, sizeof(title), "each metric against %s", xkey);
		fputs("<figure id=\"chart-sweep\">", f);
		out_sweep_svg(f, rows, xkey, title);
		fputs("</figure>\n", f);
	}
	fputs("<h2>Points</h2>\n<p class=\"meta\">Click a row for every column of the point.</p>\n", f);
	data_table(f, "rows", rows, cols, sizeof(cols) / sizeof(cols[0]), "points");
}

/* --- eval --- */

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
	if (!n)
		return NAN;
	qsort(v, n, sizeof(*v), cmp_dbl);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* "MODEL on GPU": the group a row is in */
static void group_key(const struct json *r, char *buf, size_t n)
{
	snprintf(buf, n, "%s on %s", str(r, "model", "?"), str(r, "gpu", "?"));
}

/* The error by model x GPU: median APE of the steady rows, per metric,
 * coloured (green under 10 %, amber under 25 %, red above). */
static void error_grid(FILE *f, const struct json *rows, const char *const *metrics, size_t nm)
{
	size_t n = json_size(rows), ng = 0, g, k, c;
	char (*groups)[200] = xcalloc(n ? n : 1, sizeof(*groups));
	double *v = xcalloc(n ? n : 1, sizeof(*v));
	const struct json *r;

	for (r = json_first(rows); r; r = json_next(r)) {
		char key[200];
		group_key(r, key, sizeof(key));
		for (g = 0; g < ng && strcmp(groups[g], key) != 0; g++)
			;
		if (g == ng)
			snprintf(groups[ng++], sizeof(groups[0]), "%s", key);
	}
	fputs("<table class=\"grid\" id=\"error-grid\"><thead><tr><th>model on GPU</th><th>rows</th>", f);
	for (k = 0; k < nm; k++)
		fprintf(f, "<th>%s median APE</th>", metrics[k]);
	fputs("</tr></thead><tbody>\n", f);
	for (g = 0; g < ng; g++) {
		size_t cnt = 0;
		for (r = json_first(rows); r; r = json_next(r)) {
			char key[200];
			group_key(r, key, sizeof(key));
			cnt += strcmp(key, groups[g]) == 0;
		}
		fputs("<tr><td>", f);
		out_svg_esc(f, groups[g]);
		fprintf(f, "</td><td class=\"n\">%zu</td>", cnt);
		for (k = 0; k < nm; k++) {
			char path[96];
			double med;
			snprintf(path, sizeof(path), "metrics.%s.ape", metrics[k]);
			c = 0;
			for (r = json_first(rows); r; r = json_next(r)) {
				char key[200];
				const struct json *o = json_get(r, "overloaded");
				group_key(r, key, sizeof(key));
				if (strcmp(key, groups[g]) == 0 && !(o && json_bool(o)) && isfinite(num(r, path)))
					v[c++] = num(r, path);
			}
			med = median(v, c);
			if (isnan(med))
				fputs("<td class=\"n\">-</td>", f);
			else
				fprintf(f, "<td class=\"n %s\">%.1f %%</td>",
					med < 0.10 ? "good" : med < 0.25 ? "mid" : "bad", 100 * med);
		}
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
	free(groups);
	free(v);
}

static void page_eval(FILE *f, const struct json *res)
{
	static const char *const metrics[] = {"ttft_mean_ms", "itl_mean_ms", "e2e_mean_ms"};
	static const char *const titles[] = {"TTFT mean (ms)", "ITL mean (ms)", "E2E mean (ms)"};
	static const struct col cols[] = {
		{"experiment", "experiment"}, {"stage", "stage"}, {"benchmark", "benchmark"}, {"model", "model"},
		{"gpu", "GPU"}, {"config", "configuration"}, {"workload", "workload"}, {"overloaded", "overloaded"},
		{"metrics.ttft_mean_ms.measured", "TTFT meas"}, {"metrics.ttft_mean_ms.predicted", "TTFT pred"},
		{"metrics.ttft_mean_ms.ape", "TTFT APE"}, {"metrics.itl_mean_ms.measured", "ITL meas"},
		{"metrics.itl_mean_ms.predicted", "ITL pred"}, {"metrics.itl_mean_ms.ape", "ITL APE"},
		{"metrics.e2e_mean_ms.measured", "E2E meas"}, {"metrics.e2e_mean_ms.predicted", "E2E pred"},
		{"metrics.e2e_mean_ms.ape", "E2E APE"}};
	const struct json *rows = json_get(res, "rows"), *r;
	size_t n = json_size(rows), k;

	fputs("<h2>Evaluation</h2>\n", f);
	{
		static const char *const skip[] = {"rows", "by_model", "by_workload", "tables", "summary", NULL};
		const struct json *m;
		kv_table(f, res, skip, NULL);
		fputs("<h2>Summary over the steady rows</h2>\n<table class=\"summary\"><thead><tr><th>metric</th>"
		      "<th>median APE</th><th>mean APE</th><th>rows</th></tr></thead><tbody>\n", f);
		for (m = json_first(json_get(res, "summary")); m; m = json_next(m)) {
			fputs("<tr><td>", f);
			out_svg_esc(f, json_key(m));
			fprintf(f, "</td><td class=\"n\">%.1f %%</td><td class=\"n\">%.1f %%</td><td class=\"n\">%.0f</td></tr>\n",
				100 * num(m, "median_ape"), 100 * num(m, "mean_ape"), num(m, "rows"));
		}
		fputs("</tbody></table>\n", f);
	}
	fputs("<h2>Error by model and GPU</h2>\n", f);
	error_grid(f, rows, metrics, 3);
	fputs("<h2>Predicted against measured</h2>\n", f);
	for (k = 0; k < 3; k++) {
		double *sx = xcalloc(n ? n : 1, sizeof(double)), *sy = xcalloc(n ? n : 1, sizeof(double));
		double *ox = xcalloc(n ? n : 1, sizeof(double)), *oy = xcalloc(n ? n : 1, sizeof(double));
		size_t ns = 0, no = 0;
		char mp[96], pp[96], title[120];
		snprintf(mp, sizeof(mp), "metrics.%s.measured", metrics[k]);
		snprintf(pp, sizeof(pp), "metrics.%s.predicted", metrics[k]);
		for (r = json_first(rows); r; r = json_next(r)) {
			const struct json *o = json_get(r, "overloaded");
			double a = num(r, mp), b = num(r, pp);
			if (!isfinite(a) || !isfinite(b))
				continue;
			if (o && json_bool(o)) {
				ox[no] = a;
				oy[no++] = b;
			} else {
				sx[ns] = a;
				sy[ns++] = b;
			}
		}
		snprintf(title, sizeof(title), "%s: predicted vs measured", titles[k]);
		fprintf(f, "<figure id=\"chart-%s\" style=\"display:inline-block\">", metrics[k]);
		out_svg_pred_meas(f, title, sx, sy, ns, ox, oy, no, 460, 400);
		fputs("</figure>\n", f);
		free(sx);
		free(sy);
		free(ox);
		free(oy);
	}
	fputs("<h2>Rows</h2>\n<p class=\"meta\">APE = |predicted - measured| / measured. Click a row for every metric.</p>\n", f);
	data_table(f, "rows", rows, cols, sizeof(cols) / sizeof(cols[0]), "rows");
}

/* --- run --- */

/* The distributions of a run's summary (and of each stage): the key's
 * prefix and the row's heading; their statistics. */
static const struct col run_dists[] = {
	{"ttft", "TTFT"}, {"itl", "ITL (per request)"}, {"tpot", "TPOT"}, {"e2e", "E2E"}, {"queue", "queue"},
	{"itl_pooled", "ITL pooled (vLLM's)"}};
static const char *const run_stats[] = {"mean", "std", "p50", "p90", "p95", "p99", "max"};
#define RUN_NSTATS (sizeof(run_stats) / sizeof(run_stats[0]))

/* Is key one of the percentile table's cells (DIST_STAT_ms)? */
static bool run_dist_key(const char *key)
{
	size_t i, k, n;

	for (i = 0; i < sizeof(run_dists) / sizeof(run_dists[0]); i++) {
		n = strlen(run_dists[i].key);
		if (strncmp(key, run_dists[i].key, n) != 0 || key[n] != '_')
			continue;
		for (k = 0; k < RUN_NSTATS; k++) {
			size_t m = strlen(run_stats[k]);
			if (strncmp(key + n + 1, run_stats[k], m) == 0 && strcmp(key + n + 1 + m, "_ms") == 0)
				return true;
		}
	}
	return false;
}

/* The percentile table of a summary: one row a distribution it holds, its
 * statistics in ms (each cell's key in data-key). */
static void run_percentiles(FILE *f, const struct json *sum)
{
	char key[64], b[64];
	size_t i, k;

	fputs("<table class=\"kv\" id=\"percentiles\">\n<thead><tr><th>ms</th>", f);
	for (k = 0; k < RUN_NSTATS; k++)
		fprintf(f, "<th>%s</th>", run_stats[k]);
	fputs("</tr></thead>\n<tbody>\n", f);
	for (i = 0; i < sizeof(run_dists) / sizeof(run_dists[0]); i++) {
		snprintf(key, sizeof(key), "%s_mean_ms", run_dists[i].key);
		if (!json_get(sum, key))
			continue;
		fprintf(f, "<tr data-metric=\"%s\"><th>%s</th>", run_dists[i].key, run_dists[i].head);
		for (k = 0; k < RUN_NSTATS; k++) {
			snprintf(key, sizeof(key), "%s_%s_ms", run_dists[i].key, run_stats[k]);
			value_text(json_get(sum, key), b, sizeof(b));
			fprintf(f, "<td class=\"n\" data-key=\"%s\">%s</td>", key, b);
		}
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
}

static int int_of(const struct json *o, const char *key)
{
	double v = num(o, key);
	return isfinite(v) && fabs(v) < 1e9 ? (int)v : 0;
}

/* An autoscaling run's chart (the one run --svg draws) and intervals,
 * from its JSON. */
static void run_autoscale(FILE *f, const struct json *res)
{
	static const struct col cols[] = {
		{"start_s", "start s"}, {"end_s", "end s"}, {"arrivals", "arrivals"}, {"completed", "completed"},
		{"ttft_p90_ms", "TTFT p90 ms"}, {"itl_mean_ms", "ITL mean ms"}, {"utilization", "use"},
		{"desired", "replicas asked"}};
	const struct json *pts = json_get(res, "autoscale"), *ivs = json_get(res, "autoscale_intervals"), *p;
	struct autoscale_cfg c;
	struct autoscale_result r;
	size_t i = 0;

	memset(&c, 0, sizeof(c));
	memset(&r, 0, sizeof(r));
	c.max = int_of(res, "autoscale_config.max_replicas");
	c.slo_ttft_ms = num(res, "summary.slo_ttft_ms");
	r.duration_s = num(res, "summary.duration_s");
	r.npts = json_size(pts);
	r.pts = xcalloc(r.npts + 1, sizeof(*r.pts));
	for (p = json_first(pts); p; p = json_next(p), i++)
		r.pts[i] = (struct autoscale_point){num(p, "time_s"), int_of(p, "replicas"), int_of(p, "provisioned")};
	r.niv = json_size(ivs);
	r.iv = xcalloc(r.niv + 1, sizeof(*r.iv));
	for (i = 0, p = json_first(ivs); p; p = json_next(p), i++) {
		r.iv[i].start_s = num(p, "start_s");
		r.iv[i].end_s = num(p, "end_s");
		r.iv[i].ttft_p90_ms = num(p, "ttft_p90_ms");
	}
	fputs("<h2>Autoscaling</h2>\n", f);
	kv_table(f, json_get(res, "autoscale_config"), NULL, NULL);
	fputs("<figure id=\"chart-autoscale\">", f);
	out_autoscale_svg(f, &c, &r);
	fputs("</figure>\n<h2>Intervals</h2>\n<p class=\"meta\">Click a row for every figure of the interval.</p>\n", f);
	data_table(f, "rows", ivs, cols, sizeof(cols) / sizeof(cols[0]), "intervals");
	free(r.pts);
	free(r.iv);
}

static void page_run(FILE *f, const struct json *res)
{
	static const struct col cols[] = {
		{"index", "stage"}, {"completed", "completed"}, {"throughput_rps", "req/s"},
		{"output_tokens_per_s", "output tok/s"}, {"ttft_mean_ms", "TTFT mean ms"},
		{"ttft_p90_ms", "TTFT p90 ms"}, {"itl_mean_ms", "ITL mean ms"}, {"e2e_p90_ms", "E2E p90 ms"}};
	const struct json *sum = json_get(res, "summary"), *stages = json_get(res, "stages");

	static const char *const head_keys[] = {
		"arrived", "completed", "rejected", "throughput_rps", "output_tokens_per_s", "duration_s", "gpu_hours",
		"cost_usd", "slo_attainment", "peak_replicas", NULL};
	const struct json *m;
	size_t k;
	char b[64];

	fputs("<h2>Run</h2>\n<p id=\"status\">", f);
	out_svg_esc(f, str(res, "status_line", str(res, "status", "")));
	fputs("</p>\n<table class=\"kv\" id=\"headline\">\n", f);
	for (k = 0; head_keys[k]; k++)
		if ((m = json_get(sum, head_keys[k]))) {
			value_text(m, b, sizeof(b));
			fprintf(f, "<tr><th>%s</th><td class=\"n\" data-key=\"%s\">", head_keys[k], head_keys[k]);
			out_svg_esc(f, b);
			fputs("</td></tr>\n", f);
		}
	fputs("</table>\n<h2>Latency</h2>\n", f);
	run_percentiles(f, sum);
	fputs("<p class=\"meta\">Client side. ITL: ", f);
	out_svg_esc(f, str(sum, "itl_definition", "-"));
	fputs("; TPOT: ", f);
	out_svg_esc(f, str(sum, "tpot_definition", "-"));
	fputs("; ITL pooled: ", f);
	out_svg_esc(f, str(sum, "itl_pooled_definition", "-"));
	fputs(".</p>\n", f);
	if (json_get(res, "autoscale_intervals"))
		run_autoscale(f, res);
	if (json_size(stages) > 1) {
		fputs("<h2>Stages</h2>\n", f);
		data_table(f, "stages", stages, cols, sizeof(cols) / sizeof(cols[0]), "stages");
	}
	fputs("<h2>Summary</h2>\n", f);
	kv_table(f, sum, NULL, run_dist_key);
	fputs("<h2>Resolved configuration</h2>\n", f);
	kv_table(f, json_get(res, "config"), NULL, NULL);
}

const char *html_kind(const struct json *res)
{
	if (json_type_of(res) == JSON_ARRAY)
		return json_size(res) && json_get(json_first(res), "status") ? "sweep" : NULL;
	if (json_type_of(res) != JSON_OBJECT)
		return NULL;
	if (json_get(res, "ranking"))
		return "search";
	if (json_get(res, "max_rate") && json_get(res, "search_settings"))
		return "capacity";
	if (json_get(res, "rows") && json_get(res, "summary"))
		return "eval";
	if (json_get(res, "summary") && json_get(res, "status_line") && json_get(res, "config"))
		return "run";
	return NULL;
}

int html_page(FILE *f, const struct json *res, const char *source, struct err *e)
{
	const char *k = html_kind(res);
	char title[200];

	if (!k)
		return err_set(e, SS_EDATA,
			       "%s: not a servesim result (expected the JSON of run, search, capacity or eval --format json, or sweep's JSONL rows)",
			       source ? source : "result");
	if (strcmp(k, "capacity") == 0 && !json_get(res, "curve"))
		return err_set(e, SS_EDATA, "%s: a capacity result without its 'curve' (written by an older servesim): rerun capacity --format json",
			       source ? source : "result");
	if (strcmp(k, "search") == 0)
		snprintf(title, sizeof(title), "servesim search: %s", str(res, "config.model", "?"));
	else if (strcmp(k, "capacity") == 0)
		snprintf(title, sizeof(title), "servesim capacity: %s on %s", str(res, "config.model", "?"),
			 str(res, "config.gpu", "?"));
	else if (strcmp(k, "sweep") == 0)
		snprintf(title, sizeof(title), "servesim sweep: %s", str(json_first(res), "model", "?"));
	else if (strcmp(k, "run") == 0)
		snprintf(title, sizeof(title), "servesim run: %s on %s", str(res, "config.model", "?"),
			 str(res, "config.gpu", "?"));
	else
		snprintf(title, sizeof(title), "servesim eval: %zu rows", json_size(json_get(res, "rows")));
	head(f, title, source);
	if (strcmp(k, "search") == 0)
		page_search(f, res);
	else if (strcmp(k, "capacity") == 0)
		page_capacity(f, res);
	else if (strcmp(k, "sweep") == 0)
		page_sweep(f, res);
	else if (strcmp(k, "run") == 0)
		page_run(f, res);
	else
		page_eval(f, res);
	tail(f);
	return 0;
}

/* The first line of JSONL text that is not a JSON value: its error as the
 * file's line and column (that line parsed again after as many newlines as
 * come before it, which JSON reads as blanks: once, so the search stays
 * linear in the text), or, when every line parses alone, e's error (the
 * rows together) with source before it. */
static int jsonl_where(const char *text, size_t len, const char *source, struct err *e)
{
	size_t i, b, nl = 0;
	struct err le;

	for (i = 0, b = 0; i <= len; i++) {
		if (i < len && text[i] != '\n')
			continue;
		if (i > b) {
			struct json *v = NULL;
			int rc;
			err_clear(&le);
			rc = json_parse(text + b, i - b, source, &v, &le);
			json_free(v);
			if (rc < 0) {
				char *buf = xmalloc(nl + (i - b));
				memset(buf, '\n', nl);
				memcpy(buf + nl, text + b, i - b);
				err_clear(&le);
				rc = json_parse(buf, nl + (i - b), source, &v, &le);
				free(buf);
				json_free(v);
				*e = le;
				return rc < 0 ? rc : -SS_EDATA;
			}
		}
		nl++;
		b = i + 1;
	}
	err_prefix(e, "%s", source);
	return -e->code;
}

int html_result_parse(const char *text, size_t len, const char *source, struct json **out, struct err *e)
{
	struct sbuf *lines;
	size_t n = 0, cap = 0, i, a, b;
	enum sweep_fmt f;
	struct err pe;
	int rc;

	/* one JSON document: search, capacity or eval --format json */
	err_clear(&pe);
	if (json_parse(text, len, source, out, &pe) == 0)
		return 0;
	for (a = 0; a < len && (text[a] == ' ' || text[a] == '\n' || text[a] == '\t' || text[a] == '\r'); a++)
		;
	if (a < len && text[a] == '{') {
		/* sweep --format jsonl: one object per line; a first line that
		 * is not a whole object is a JSON document (run, search, ...
		 * print several lines) that does not parse: where it breaks
		 * (a truncated file: its end), not a JSONL complaint */
		size_t z = a;
		while (z < len && text[z] != '\n')
			z++;
		while (z > a && (text[z - 1] == ' ' || text[z - 1] == '\t' || text[z - 1] == '\r'))
			z--;
		if (text[z - 1] != '}') {
			*e = pe;
			return -pe.code;
		}
		f = SWEEP_JSONL;
	} else if (len - a >= 17 && strncmp(text + a, "servesim_version,", 17) == 0)
		f = SWEEP_CSV;   /* sweep's CSV, header first */
	else if (a < len && text[a] == '[') {
		*e = pe; /* a JSON document that does not parse: where it breaks */
		return -pe.code;
	} else {
		return err_set(e, SS_EDATA,
			       "%s: not a servesim result (expected the JSON of run, search, capacity or eval --format json, or sweep's rows as JSONL or CSV)",
			       source);
	}
	lines = NULL;
	for (i = a, b = a; i <= len; i++) {
		if (i < len && text[i] != '\n')
			continue;
		if (i > b && !(f == SWEEP_CSV && b == a)) { /* CSV: the header goes */
			XGROW(lines, cap, n + 1);
			sb_init(&lines[n]);
			sb_put(&lines[n++], text + b, i - b);
		}
		b = i + 1;
	}
	if (f == SWEEP_JSONL && n == 1) {
		/* one line: one JSON document that does not parse (whose
		 * line and column are the file's) */
		sb_release(&lines[0]);
		free(lines);
		*e = pe;
		return -pe.code;
	}
	rc = sweep_rows_json(lines, n, f, out, e);
	if (rc < 0 && f == SWEEP_JSONL)
		rc = jsonl_where(text, len, source, e);
	else if (rc < 0)
		err_prefix(e, "%s", source);
	for (i = 0; i < n; i++)
		sb_release(&lines[i]);
	free(lines);
	return rc;
}

int html_write(const char *path, const struct json *res, const char *source, struct err *e)
{
	struct afile af;
	int rc;

	if ((rc = afile_open(&af, path, e)) < 0)
		return rc;
	if ((rc = html_page(af.f, res, source, e)) < 0) {
		afile_abort(&af);
		return rc;
	}
	return afile_commit(&af, e);
}

FILE *html_capture_open(struct html_capture *h)
{
	h->buf = NULL;
	h->len = 0;
	if (!(h->f = open_memstream(&h->buf, &h->len)))
		BUG("open_memstream");
	return h->f;
}

int html_capture_page(struct html_capture *h, FILE *f, struct err *e)
{
	struct json *res;
	int rc;

	fclose(h->f);
	if ((rc = json_parse(h->buf, h->len, "result", &res, e)) == 0) {
		rc = html_page(f, res, NULL, e);
		json_free(res);
	}
	free(h->buf);
	return rc;
}

int html_search_file(FILE *f, const void *R, struct err *e)
{
	struct html_capture h;

	search_report_json(html_capture_open(&h), R);
	return html_capture_page(&h, f, e);
}

/* The files of --out, --svg (out_sweep_svg) and --html (html.h):
 * afile_job writers of a struct sweep_files. */
struct sweep_files {
	const struct sbuf *all;
	struct json *js;
	const char *xkey;
	char title[200];
};

static int write_rows(FILE *f, const void *ctx, struct err *e)
{
	const struct sbuf *all = ((const struct sweep_files *)ctx)->all;

	(void)e;
	fwrite(all->buf ? all->buf : "", 1, all->len, f);
	return 0;
}

static int write_svg(FILE *f, const void *ctx, struct err *e)
{
	const struct sweep_files *x = ctx;

	(void)e;
	out_sweep_svg(f, x->js, x->xkey, x->title);
	return 0;
}

static int write_html(FILE *f, const void *ctx, struct err *e)
{
	return html_page(f, ((const struct sweep_files *)ctx)->js, NULL, e);
}

int html_sweep_outputs(const struct sbuf *rows, size_t n, enum sweep_fmt f, const char *out, const char *svg,
		       const char *html, const char *model, struct err *e)
{
	struct sbuf all;
	struct sweep_files x = {&all, NULL, NULL, ""};
	const struct afile_job files[3] = {{out, write_rows, &x}, {svg, write_svg, &x}, {html, write_html, &x}};
	struct sweep_row *tmpl = xcalloc(1, sizeof(*tmpl));
	size_t i;
	int rc;

	sb_init(&all);
	sweep_row_template(tmpl);
	sweep_row_header(tmpl, f, &all);
	free(tmpl);
	for (i = 0; i < n; i++)
		sb_put(&all, rows[i].buf, rows[i].len);
	if ((svg || html) && (rc = sweep_rows_json(rows, n, f, &x.js, e)) < 0)
		goto out;
	if (svg && (rc = sweep_chart_axis(x.js, &x.xkey, e)) < 0)
		goto out;
	snprintf(x.title, sizeof(x.title), "sweep: %zu points of %s", n, model ? model : "llama-3.1-8b");
	if ((rc = afile_write_all(files, 3, e)) == 0 && !out)
		fwrite(all.buf ? all.buf : "", 1, all.len, stdout);
out:
	json_free(x.js);
	sb_release(&all);
	return rc;
}
