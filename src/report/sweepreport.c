/* sweepreport.c - the long-format row of a sweep point (sweep.h): built as
 * named columns first, so that CSV and JSONL carry the same keys and an
 * empty statistic is null in both (never 0), then rendered. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "engine/registry.h"
#include "base/alloc.h"
#include "base/json.h"
#include "report/out.h"
#include "plan/sweep.h"
#include "report/sweepreport.h"
#include "base/version.h"

int sweep_fmt_parse(const char *s, enum sweep_fmt *f, struct err *e)
{
	if (strcmp(s, "csv") == 0)
		*f = SWEEP_CSV;
	else if (strcmp(s, "jsonl") == 0)
		*f = SWEEP_JSONL;
	else
		return err_set(e, SS_EUSAGE, "--format must be csv or jsonl, got '%s'", s);
	return 0;
}

void sweep_row_init(struct sweep_row *r)
{
	memset(r, 0, sizeof(*r));
}

static struct sweep_col *add(struct sweep_row *r, const char *key)
{
	struct sweep_col *c;

	if (r->n == SWEEP_MAX_COLS)
		BUG("sweep_row: too many columns");
	c = &r->col[r->n++];
	snprintf(c->key, sizeof(c->key), "%s", key);
	return c;
}

void sweep_row_str(struct sweep_row *r, const char *key, const char *v)
{
	struct sweep_col *c = add(r, key);
	c->kind = SWC_STR;
	snprintf(c->s, sizeof(c->s), "%s", v);
}

void sweep_row_int(struct sweep_row *r, const char *key, int64_t v)
{
	struct sweep_col *c = add(r, key);
	c->kind = SWC_INT;
	c->i = v;
}

void sweep_row_num(struct sweep_row *r, const char *key, double v)
{
	struct sweep_col *c = add(r, key);
	c->kind = isfinite(v) ? SWC_NUM : SWC_NULL;
	c->x = v;
}

void sweep_row_null(struct sweep_row *r, const char *key)
{
	add(r, key)->kind = SWC_NULL;
}

static void row_dist(struct sweep_row *r, const char *pfx, const struct wl_dist *d)
{
	char k[40];

	snprintf(k, sizeof(k), "%s_dist", pfx);
	sweep_row_str(r, k, wl_dist_kind_name(d->kind));
	snprintf(k, sizeof(k), "%s_a", pfx);
	sweep_row_num(r, k, d->kind == WL_EMPIRICAL ? NAN : d->a);
	snprintf(k, sizeof(k), "%s_b", pfx);
	sweep_row_num(r, k, d->kind == WL_EMPIRICAL || d->kind == WL_FIXED || d->kind == WL_DATASET ? NAN : d->b);
	snprintf(k, sizeof(k), "%s_min", pfx);
	sweep_row_int(r, k, d->min);
	snprintf(k, sizeof(k), "%s_max", pfx);
	sweep_row_int(r, k, d->max);
}

void sweep_row_scenario(struct sweep_row *r, const struct scenario *sc, const struct wl_spec *wl)
{
	sweep_row_str(r, "servesim_version", SERVESIM_VERSION);
	sweep_row_str(r, "model", sc->model->id);
	sweep_row_str(r, "gpu", sc->gpu->id);
	sweep_row_str(r, "engine", sc->engine->name);
	sweep_row_str(r, "engine_version", sc->engine_version);
	sweep_row_int(r, "tp", sc->par.tp);
	sweep_row_int(r, "pp", sc->par.pp);
	sweep_row_int(r, "dp", sc->par.dp);
	sweep_row_int(r, "ep", sc->par.ep);
	sweep_row_int(r, "pd_prefill", sc->pd_prefill);
	sweep_row_int(r, "pd_decode", sc->pd_decode);
	sweep_row_int(r, "replicas", sc->k.replicas > 1 ? sc->k.replicas : 1);
	sweep_row_str(r, "dtype", dtype_name(sc->wdt));
	sweep_row_str(r, "kv_dtype", dtype_name(sc->kvdt));
	sweep_row_int(r, "max_num_seqs", sc->k.max_num_seqs);
	sweep_row_int(r, "max_num_batched_tokens", sc->k.max_num_batched_tokens);
	sweep_row_int(r, "max_model_len", sc->k.max_model_len);
	sweep_row_int(r, "block_size", sc->k.block_size);
	sweep_row_int(r, "long_prefill_token_threshold", sc->k.long_prefill_token_threshold);
	sweep_row_int(r, "total_kv_blocks_given", sc->k.total_kv_blocks);
	sweep_row_num(r, "gpu_memory_utilization", sc->k.gpu_memory_utilization);
	sweep_row_int(r, "prefix_caching", sc->k.prefix_caching);
	sweep_row_str(r, "router", out_router_key(scenario_router(sc)));
	sweep_row_int(r, "tier0_off_mask", (int64_t)sc->tier0_off);
	sweep_row_int(r, "tier2", sc->tier2 != NULL);
	sweep_row_num(r, "overhead_step_us", sc->ov.step_us);
	sweep_row_num(r, "overhead_layer_us", sc->ov.layer_us);
	sweep_row_num(r, "overhead_request_us", sc->ov.req_us);
	sweep_row_num(r, "api_ttft_ms", sc->ov.api_ttft_ms);
	sweep_row_num(r, "stream_token_us", sc->ov.stream_token_us);
	sweep_row_num(r, "delivery_steps", sc->ov.delivery_steps);
	sweep_row_str(r, "workload", wl->source);
	sweep_row_str(r, "process", wl_process_name(wl->process));
	sweep_row_num(r, "rate", wl->process == WL_CONCURRENCY ? NAN : wl->rate);
	sweep_row_int(r, "concurrency", wl->concurrency);
	sweep_row_int(r, "num_requests", wl->num_requests);
	row_dist(r, "prompt", &wl->prompt);
	row_dist(r, "output", &wl->output);
	sweep_row_int(r, "seed", (int64_t)wl->seed);
}

static void row_stat(struct sweep_row *r, const char *name, const struct dist_summary *d, bool any)
{
	char k[40];

	any = any && d->n > 0;
	snprintf(k, sizeof(k), "%s_mean_ms", name);
	sweep_row_num(r, k, any ? d->mean : NAN);
	snprintf(k, sizeof(k), "%s_p50_ms", name);
	sweep_row_num(r, k, any ? d->p50 : NAN);
	snprintf(k, sizeof(k), "%s_p90_ms", name);
	sweep_row_num(r, k, any ? d->p90 : NAN);
	snprintf(k, sizeof(k), "%s_p99_ms", name);
	sweep_row_num(r, k, any ? d->p99 : NAN);
}

void sweep_row_result(struct sweep_row *r, const struct sweep_result *res)
{
	bool any = res->completed > 0;

	sweep_row_str(r, "status", res->status);
	sweep_row_int(r, "arrived", (int64_t)res->arrived);
	sweep_row_int(r, "completed", (int64_t)res->completed);
	sweep_row_int(r, "rejected", (int64_t)res->rejected);
	sweep_row_int(r, "preemptions", (int64_t)res->preemptions);
	sweep_row_num(r, "duration_s", res->duration_s);
	sweep_row_num(r, "offered_rps", res->offered_rps);
	sweep_row_num(r, "served_rps", any ? res->served_rps : NAN);
	sweep_row_num(r, "request_throughput_rps", any ? res->m.throughput_rps : NAN);
	sweep_row_num(r, "output_tok_s", any ? res->m.output_tok_s : NAN);
	sweep_row_num(r, "total_tok_s", any ? res->m.output_tok_s + res->m.input_tok_s : NAN);
	row_stat(r, "ttft", &res->m.ttft_ms, any);
	row_stat(r, "itl", &res->m.itl_ms, any);
	row_stat(r, "tpot", &res->m.tpot_ms, any);
	row_stat(r, "e2e", &res->m.e2e_ms, any);
	row_stat(r, "queue", &res->m.queue_ms, any);
}

void sweep_row_template(struct sweep_row *r)
{
	struct model_cfg *m = xcalloc(1, sizeof(*m));
	struct gpu_spec g;
	struct wl_spec wl;
	struct scenario sc;
	struct sweep_result res;

	memset(&g, 0, sizeof(g));
	memset(&wl, 0, sizeof(wl));
	memset(&res, 0, sizeof(res));
	scenario_defaults(&sc, engine_default(), m, &g, &wl);
	sweep_row_init(r);
	sweep_row_scenario(r, &sc, &wl);
	sweep_row_result(r, &res);
	free(m);
}

static void csv_field(struct sbuf *o, const char *s)
{
	if (strpbrk(s, ",\"\n\r") == NULL) {
		sb_puts(o, s);
		return;
	}
	sb_putc(o, '"');
	for (; *s; s++) {
		if (*s == '"')
			sb_putc(o, '"');
		sb_putc(o, *s);
	}
	sb_putc(o, '"');
}

static void jsonl_string(struct sbuf *o, const char *s)
{
	sb_putc(o, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			sb_printf(o, "\\%c", c);
		else if (c < 0x20)
			sb_printf(o, "\\u%04x", c);
		else
			sb_putc(o, (char)c);
	}
	sb_putc(o, '"');
}

void sweep_row_header(const struct sweep_row *r, enum sweep_fmt f, struct sbuf *out)
{
	size_t i;

	if (f != SWEEP_CSV)
		return;
	for (i = 0; i < r->n; i++) {
		if (i)
			sb_putc(out, ',');
		csv_field(out, r->col[i].key);
	}
	sb_putc(out, '\n');
}

void sweep_row_render(const struct sweep_row *r, enum sweep_fmt f, struct sbuf *out)
{
	size_t i;

	if (f == SWEEP_JSONL)
		sb_putc(out, '{');
	for (i = 0; i < r->n; i++) {
		const struct sweep_col *c = &r->col[i];
		if (i)
			sb_puts(out, f == SWEEP_JSONL ? ", " : ",");
		if (f == SWEEP_JSONL) {
			jsonl_string(out, c->key);
			sb_puts(out, ": ");
		}
		switch (c->kind) {
		case SWC_NULL:
			if (f == SWEEP_JSONL)
				sb_puts(out, "null");
			break;
		case SWC_INT: sb_printf(out, "%lld", (long long)c->i); break;
		case SWC_NUM: sb_printf(out, "%.9g", c->x); break;
		case SWC_STR:
			if (f == SWEEP_JSONL)
				jsonl_string(out, c->s);
			else
				csv_field(out, c->s);
			break;
		}
	}
	sb_puts(out, f == SWEEP_JSONL ? "}\n" : "\n");
}

/* --- the rows as JSON, and their charts (sweep --svg, --html) --- */

/* One CSV line (RFC 4180 quoting) as a JSON object with the template's
 * keys: an empty field null, a finite number as it is, anything else a
 * string. */
static void csv_line_json(const char *line, size_t len, const struct sweep_row *t, FILE *o)
{
	char *field = xmalloc(len + 1);
	size_t i = 0, col = 0, n;
	bool q;

	fputc('{', o);
	while (col < t->n) {
		n = 0;
		q = false;
		for (; i < len && line[i] != '\n'; i++) {
			char c = line[i];
			if (q) {
				if (c == '"' && i + 1 < len && line[i + 1] == '"')
					field[n++] = line[++i];
				else if (c == '"')
					q = false;
				else
					field[n++] = c;
			} else if (c == '"') {
				q = true;
			} else if (c == ',') {
				break;
			} else {
				field[n++] = c;
			}
		}
		field[n] = '\0';
		if (col)
			fputc(',', o);
		json_print_string(o, t->col[col].key);
		fputc(':', o);
		if (n == 0) {
			fputs("null", o);
		} else {
			char *end;
			double v = strtod(field, &end);
			if (*end == '\0' && isfinite(v))
				fputs(field, o);
			else
				json_print_string(o, field);
		}
		col++;
		if (i < len && line[i] == ',')
			i++;
	}
	fputc('}', o);
	free(field);
}

int sweep_rows_json(const struct sbuf *rows, size_t n, enum sweep_fmt f, struct json **out, struct err *e)
{
	struct sweep_row *t = NULL;
	char *buf = NULL;
	size_t len = 0, i;
	FILE *o = open_memstream(&buf, &len);
	int rc;

	if (!o)
		BUG("open_memstream");
	if (f == SWEEP_CSV) {
		t = xcalloc(1, sizeof(*t));
		sweep_row_template(t);
	}
	fputc('[', o);
	for (i = 0; i < n; i++) {
		size_t l = rows[i].len;
		if (i)
			fputc(',', o);
		while (l && rows[i].buf[l - 1] == '\n')
			l--;
		if (t)
			csv_line_json(rows[i].buf, l, t, o);
		else
			fwrite(rows[i].buf, 1, l, o);
	}
	fputs("]\n", o);
	fclose(o);
	rc = json_parse(buf, len, "sweep rows", out, e);
	free(buf);
	free(t);
	return rc;
}

/* The list axes of a sweep, in the order its points vary (last fastest). */
static const char *const axis_keys[] = {"gpu", "engine", "dtype", "tp", "pp", "dp", "ep", "max_num_seqs",
					"max_num_batched_tokens", "rate", "concurrency", "seed"};
#define NAXES (sizeof(axis_keys) / sizeof(axis_keys[0]))

/* Does member key take two or more values over the rows? */
static bool varies(const struct json *rows, const char *key, bool *numeric)
{
	const struct json *r, *first = NULL;

	*numeric = true;
	for (r = json_first(rows); r; r = json_next(r)) {
		const struct json *v = json_get(r, key);
		if (!v || json_type_of(v) == JSON_NULL)
			continue;
		if (json_type_of(v) != JSON_NUMBER)
			*numeric = false;
		if (!first) {
			first = v;
		} else if (json_type_of(v) != json_type_of(first) ||
			   (json_type_of(v) == JSON_NUMBER ? json_number(v) != json_number(first)
							   : strcmp(json_string(v), json_string(first)) != 0)) {
			return true;
		}
	}
	return false;
}

int sweep_chart_axis(const struct json *rows, const char **xkey, struct err *e)
{
	size_t a;
	bool num;

	for (a = NAXES; a-- > 0;)
		if (varies(rows, axis_keys[a], &num) && num) {
			*xkey = axis_keys[a];
			return 0;
		}
	return err_set(e, SS_EUSAGE,
		       "--svg charts each metric against a swept numeric axis: give one with two or more values (--rate 5:30:5, --tp 1,2,4, --max-num-seqs ...)");
}

/* "tp=2 dtype=fp8": row r's values of the varying axes other than xkey */
static void series_label(const struct json *rows, const struct json *r, const char *xkey, char *buf, size_t n)
{
	size_t a, used = 0;
	bool num;

	buf[0] = '\0';
	for (a = 0; a < NAXES && used + 1 < n; a++) {
		const struct json *v;
		if (strcmp(axis_keys[a], xkey) == 0 || !varies(rows, axis_keys[a], &num))
			continue;
		v = json_get(r, axis_keys[a]);
		if (v && json_type_of(v) == JSON_NUMBER)
			snprintf(buf + used, n - used, "%s%s=%g", used ? " " : "", axis_keys[a], json_number(v));
		else
			snprintf(buf + used, n - used, "%s%s=%s", used ? " " : "", axis_keys[a],
				 v && json_type_of(v) == JSON_STRING ? json_string(v) : "-");
		used = strlen(buf);
	}
	if (!buf[0])
		snprintf(buf, n, "all points");
}

void out_sweep_svg(FILE *out, const struct json *rows, const char *xkey, const char *title)
{
	static const char *const key[6] = {"ttft_p90_ms", "itl_mean_ms", "e2e_p90_ms", "queue_mean_ms",
					   "output_tok_s", "served_rps"};
	static const char *const name[6] = {"TTFT p90 (ms)", "ITL mean (ms)", "E2E p90 (ms)",
					    "queueing mean (ms)", "output tokens/s", "served req/s"};
	const double PW = 600, PH = 380;
	size_t n = json_size(rows), ns = 0, i, s, m, *cnt;
	double *x = xcalloc(n ? n : 1, sizeof(*x)), *y = xcalloc(xmul(n ? n : 1, 6), sizeof(*y));
	char (*label)[160] = xcalloc(n ? n : 1, sizeof(*label));
	size_t *of = xcalloc(n ? n : 1, sizeof(*of));
	struct out_svg_series *ser = xcalloc(n ? n : 1, sizeof(*ser));
	const struct json *r;

	/* each row joins the series of its label, in the order labels appear;
	 * a series' points are its rows in order (the swept axis varies
	 * fastest, so they come sorted) */
	cnt = xcalloc(n ? n : 1, sizeof(*cnt));
	for (i = 0, r = json_first(rows); r; r = json_next(r), i++) {
		char l[160];
		series_label(rows, r, xkey, l, sizeof(l));
		for (s = 0; s < ns && strcmp(label[s], l) != 0; s++)
			;
		if (s == ns)
			snprintf(label[ns++], sizeof(label[0]), "%s", l);
		of[i] = s;
		cnt[s]++;
	}
	/* series s occupies [start, start + cnt[s]) of x and each metric's y */
	{
		size_t *start = xcalloc(ns ? ns : 1, sizeof(*start)), *fill = xcalloc(ns ? ns : 1, sizeof(*fill));
		for (s = 1; s < ns; s++)
			start[s] = start[s - 1] + cnt[s - 1];
		for (i = 0, r = json_first(rows); r; r = json_next(r), i++) {
			size_t k = start[of[i]] + fill[of[i]]++;
			const struct json *v = json_get(r, xkey);
			x[k] = v && json_type_of(v) == JSON_NUMBER ? json_number(v) : NAN;
			for (m = 0; m < 6; m++) {
				v = json_get(r, key[m]);
				y[m * n + k] = v && json_type_of(v) == JSON_NUMBER ? json_number(v) : NAN;
			}
		}
		out_svg_begin(out, 2 * PW, 3 * PH + 30);
		fprintf(out, "<text x=\"20\" y=\"22\" font-size=\"16\">");
		out_svg_esc(out, title);
		fprintf(out, "</text>\n");
		for (m = 0; m < 6; m++) {
			struct out_svg_plot pl;
			for (s = 0; s < ns; s++)
				ser[s] = (struct out_svg_series){label[s], x + start[s], y + m * n + start[s], cnt[s],
								OUT_SVG_LINES, NULL};
			memset(&pl, 0, sizeof(pl));
			pl.title = name[m];
			pl.xlabel = xkey;
			pl.ylabel = name[m];
			pl.series = ser;
			pl.nseries = ns;
			pl.width = PW;
			pl.height = PH;
			out_svg_panel(out, &pl, (double)(m % 2) * PW, 30 + (double)(m / 2) * PH);
		}
		out_svg_end(out);
		free(start);
		free(fill);
	}
	free(x);
	free(y);
	free(label);
	free(of);
	free(cnt);
	free(ser);
}

void sweep_point_row(const struct scenario *sc, const struct wl_spec *wl, const struct sweep_result *res,
		     enum sweep_fmt f, struct sbuf *out)
{
	struct sweep_row *row = xcalloc(1, sizeof(*row));

	sweep_row_init(row);
	sweep_row_scenario(row, sc, wl);
	sweep_row_result(row, res);
	sweep_row_render(row, f, out);
	free(row);
}
