/* cvreport.c - `servesim eval --cv`: held-out against as-shipped medians per
 * group (text and JSON). */
#include <math.h>
#include <stdio.h>

#include "eval/cv.h"
#include "report/evalreport.h"
#include "base/json.h"

/* "12.3%" or "-" for a median no row gave */
static void pct(char *buf, size_t n, double v)
{
	if (isnan(v))
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%.1f%%", 100 * v);
}

/* held-out / as shipped, or "-" */
static void ratio(char *buf, size_t n, double out, double in)
{
	if (isnan(out) || isnan(in) || !(in > 0))
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%.2f", out / in);
}

static void text_line(FILE *f, const char *name, const struct cv_stat *in, const struct cv_stat *out,
		      const char *chosen)
{
	char a[16], b[16], c[16], d[16], r1[16], r2[16];

	pct(a, sizeof(a), in->ttft);
	pct(b, sizeof(b), out->ttft);
	pct(c, sizeof(c), in->itl);
	pct(d, sizeof(d), out->itl);
	ratio(r1, sizeof(r1), out->ttft, in->ttft);
	ratio(r2, sizeof(r2), out->itl, in->itl);
	fprintf(f, "  %-18s %5zu  %7s %8s %5s   %7s %8s %5s%s%s\n", name, in->rows, a, b, r1, c, d, r2,
		chosen[0] ? "   " : "", chosen);
}

void out_cv_text(FILE *f, const struct cv_result *r)
{
	size_t g;

	fprintf(f, "held-out accuracy: leave one %s out (engine host terms refitted on the others)\n",
		r->by == CV_FAMILY ? "model family" : cv_by_name(r->by));
	fprintf(f, "  median |err| of the means; 'shipped': the terms as servesim ships them, fitted on every row;\n"
		   "  'held out': each group predicted with the scale (0-2x) of each engine host row's fitted terms\n"
		   "  that fits the other groups best\n");
	fprintf(f, "  %-18s %5s  %16s %5s   %16s\n", "", "", "TTFT", "", "ITL");
	fprintf(f, "  %-18s %5s  %7s %8s %5s   %7s %8s %5s   %s\n", "group", "rows", "shipped", "held out", "x",
		"shipped", "held out", "x", "host-term scale chosen on the others");
	for (g = 0; g < r->ng; g++)
		text_line(f, r->g[g].name, &r->g[g].in, &r->g[g].out, r->g[g].chosen);
	text_line(f, "all", &r->in, &r->out, "");
	if (r->other)
		fprintf(f, "  %zu rows of groups past the first %d are in 'all' only (as shipped)\n", r->other,
			CV_MAX_GROUPS);
	if (r->unfitted)
		fprintf(f, "  %zu rows priced with no fitted host terms (given terms or a calibration file replace "
			   "them): the same in both columns\n",
			r->unfitted);
}

static void json_stat(struct jw *w, const char *key, const struct cv_stat *s)
{
	jw_obj(w, key);
	jw_num(w, "ttft_mean_ape_median", s->ttft);
	jw_num(w, "itl_mean_ape_median", s->itl);
	jw_end_obj(w);
}

void out_cv_json(FILE *f, const struct cv_result *r, const struct eval_pass *held, unsigned tier0_off)
{
	struct jw w;
	size_t g;

	jw_init(&w, f, true);
	jw_obj(&w, NULL);
	jw_obj(&w, "cv");
	jw_str(&w, "by", cv_by_name(r->by));
	jw_arr(&w, "groups");
	for (g = 0; g < r->ng; g++) {
		jw_obj(&w, NULL);
		jw_str(&w, "group", r->g[g].name);
		jw_int(&w, "rows", (int64_t)r->g[g].in.rows);
		json_stat(&w, "shipped", &r->g[g].in);
		json_stat(&w, "held_out", &r->g[g].out);
		jw_str(&w, "chosen", r->g[g].chosen);
		jw_end_obj(&w);
	}
	jw_end_arr(&w);
	jw_obj(&w, "all");
	jw_int(&w, "rows", (int64_t)r->in.rows);
	json_stat(&w, "shipped", &r->in);
	json_stat(&w, "held_out", &r->out);
	jw_end_obj(&w);
	jw_int(&w, "rows_other_groups", (int64_t)r->other);
	jw_int(&w, "rows_unfitted", (int64_t)r->unfitted);
	jw_end_obj(&w);
	out_eval_json_members(&w, held, tier0_off);
	jw_end_obj(&w);
	jw_finish(&w);
}
