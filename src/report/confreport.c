/* confreport.c - the confidence lines and members of run, capacity and
 * search (confreport.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/confreport.h"

/* An error share as a percentage with two significant figures. */
static void pct(char *buf, size_t n, double v)
{
	v *= 100;
	snprintf(buf, n, v < 9.95 ? "%.1f %%" : "%.0f %%", v);
}

void out_confidence_text(FILE *f, const struct acc_confidence *c, const char *where)
{
	char cls[64];
	int k;

	acc_class_name(&c->cls, 0, cls, sizeof(cls));
	if (c->missing) {
		fprintf(f, "confidence %sunknown: no data/accuracy.json (make accuracy writes it); class %s\n",
			where ? where : "", cls);
		return;
	}
	fprintf(f, "confidence %s|predicted / measured - 1| of class %s on measured runs (data/accuracy.json, %s)\n",
		where ? where : "", cls, c->held_out ? "held-out residuals" : "in-sample residuals");
	for (k = 0; k < ACC_METRIC__N && !(c->a[k].evidence && c->a[k].widen90 * c->a[k].widen50 > 1); k++)
		;
	if (k < ACC_METRIC__N)
		fprintf(f, "  model family '%s' has no measured run in data/accuracy.json: its bands are widened by the factors that hold "
			   "50 %% (p50) and 90 %% (p90) of each family's rows when that family is left out\n",
			c->cls.model_family);
	for (k = 0; k < ACC_METRIC__N; k++) {
		const struct acc_answer *a = &c->a[k];
		char p50[16], p90[16];
		fprintf(f, "  |err| %-11s ", acc_metric_label((enum acc_metric)k));
		if (!a->evidence) {
			fprintf(f, "no evidence (no measured run of %s)\n", a->asked);
			continue;
		}
		pct(p50, sizeof(p50), a->p50);
		pct(p90, sizeof(p90), a->p90);
		fprintf(f, "p50 %s, p90 %s (%zu rows", p50, p90, a->rows);
		if (strcmp(a->cls, a->asked) != 0)
			fprintf(f, " of %s: the class has %zu", a->cls, a->own_rows);
		if (a->widen50 * a->widen90 > 1)
			fprintf(f, "; widened x%.2f, x%.2f", a->widen50, a->widen90);
		fprintf(f, ")\n");
	}
}

void out_confidence_json(struct jw *w, const struct acc_confidence *c)
{
	char cls[64];
	int k;

	acc_class_name(&c->cls, 0, cls, sizeof(cls));
	jw_obj(w, "confidence");
	for (k = 0; k < ACC_METRIC__N; k++) {
		const struct acc_answer *a = &c->a[k];
		if (!a->evidence) {
			jw_null(w, acc_metric_key((enum acc_metric)k));
			continue;
		}
		jw_obj(w, acc_metric_key((enum acc_metric)k));
		jw_num(w, "p50_abs_err", a->p50);
		jw_num(w, "p90_abs_err", a->p90);
		jw_int(w, "rows", (int64_t)a->rows);
		jw_str(w, "class", a->cls);
		if (a->widen50 * a->widen90 > 1) { /* the model's family has no rows */
			jw_obj(w, "widened");
			jw_str(w, "model_family", c->cls.model_family);
			jw_num(w, "p50_factor", a->widen50);
			jw_num(w, "p90_factor", a->widen90);
			jw_end_obj(w);
		}
		jw_end_obj(w);
	}
	jw_end_obj(w);
	jw_str(w, "confidence_class", cls);
	if (c->missing)
		jw_null(w, "confidence_residuals");
	else
		jw_str(w, "confidence_residuals", c->residuals);
}
