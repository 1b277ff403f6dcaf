/* accuracy.c - accuracy classes, the bands of data/accuracy.json (built from
 * eval's per-row residuals, read back, looked up) and the split check that
 * the bands hold on rows they were not built from.  See accuracy.h. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "engine/engine.h"
#include "eval/accuracy.h"
#include "base/alloc.h"
#include "base/fnv1a.h"
#include "base/stats.h"

static const char *const kind_names[ACC_KIND__N] = {"dense", "moe", "mla", "dsa", "hybrid"};
static const char *const load_names[ACC_LOAD__N] = {"light", "loaded", "saturated"};
static const char *const metric_keys[ACC_METRIC__N + 1] = {"ttft_mean_ms", "itl_mean_ms", "e2e_mean_ms",
							   "throughput_rps", NULL};
static const char *const metric_labels[ACC_METRIC__N] = {"TTFT mean", "ITL mean", "E2E mean",
							 "throughput"};

/* The fixed descriptions accuracy.json carries (what a reader needs to use
 * it without this header). */
#define ACC_WHAT \
	"servesim's expected error per accuracy class (engine/model kind/GPU family/load, " \
	"src/eval/accuracy.h): p50 and p90 of |predicted / measured - 1| over the rows of the " \
	"shipped ground truth in that class; a star stands for any value of that part"
#define ACC_LOAD_FMT \
	"of the simulation: saturated when overloaded or when the requests spend >= %g of their " \
	"arrival-to-last-token time waiting to be scheduled; else light when < %g requests run per " \
	"engine rank on average (Little's law over the completed requests); else loaded"
#define ACC_COVERAGE_TEXT \
	"rows split in two halves by a hash of their source and name; bands built from one half, the " \
	"share of the other half's errors within their class's p90 band counted, both ways"
#define ACC_WIDEN_TEXT \
	"a model family without rows here gets its class's p50 and p90 widened by these factors: " \
	"with each family left out in turn, its rows' errors over their p50 and p90 bands built " \
	"from the other families' rows, pooled; p50_factor the median and p90_factor the 90th " \
	"percentile of those ratios (never below 1); within_p90: the share of each family's rows " \
	"within their widened p90 band when the factor comes from the other families' ratios alone"
#define ACC_FAMILY_TEXT \
	"leave one model family out (the model id up to its first '-'): bands built from the other " \
	"families' rows, the share of the family's errors within their class's p90 band counted, " \
	"family by family; rows whose class has no rows left are not counted"

const char *acc_kind_name(enum acc_kind k)
{
	return k >= 0 && k < ACC_KIND__N ? kind_names[k] : "?";
}

const char *acc_load_name(enum acc_load l)
{
	return l >= 0 && l < ACC_LOAD__N ? load_names[l] : "?";
}

const char *acc_metric_key(enum acc_metric k)
{
	return k >= 0 && k < ACC_METRIC__N ? metric_keys[k] : "?";
}

const char *acc_metric_label(enum acc_metric k)
{
	return k >= 0 && k < ACC_METRIC__N ? metric_labels[k] : "?";
}

enum acc_kind acc_model_kind(const struct model_cfg *m)
{
	if (m->n_mixer[LM_LINEAR] > 0)
		return ACC_HYBRID;
	if (m->index_topk > 0 || m->attn == ATTN_CSA)
		return ACC_DSA;
	if (m->attn == ATTN_MLA)
		return ACC_MLA;
	if (m->n_experts > 0)
		return ACC_MOE;
	return ACC_DENSE;
}

enum acc_load acc_load_of(double running_per_rank, double queue_share, bool overloaded)
{
	if (overloaded || queue_share >= ACC_SATURATED_QUEUE)
		return ACC_SATURATED;
	if (running_per_rank < ACC_LIGHT_RUNNING)
		return ACC_LIGHT;
	return ACC_LOADED; /* (also when nothing completed: NAN compares false) */
}

void acc_class_of(const char *engine, bool pd, const struct model_cfg *m, const struct gpu_spec *g,
		  double running_per_rank, double queue_share, bool overloaded, struct acc_class *out)
{
	memset(out, 0, sizeof(*out));
	snprintf(out->engine, sizeof(out->engine), "%s%s", engine && engine[0] ? engine : "vllm",
		 pd ? "-pd" : "");
	out->kind = acc_model_kind(m);
	snprintf(out->family, sizeof(out->family), "%s", g->family[0] ? g->family : "other");
	out->load = acc_load_of(running_per_rank, queue_share, overloaded);
	acc_model_family(m->id, out->model_family, sizeof(out->model_family));
}

void acc_model_family(const char *model_id, char *buf, size_t n)
{
	snprintf(buf, n, "%.*s", (int)strcspn(model_id, "-"), model_id);
}

void acc_class_name(const struct acc_class *c, int level, char *buf, size_t n)
{
	snprintf(buf, n, "%s/%s/%s/%s", c->engine, level >= 3 ? "*" : acc_kind_name(c->kind),
		 level >= 2 ? "*" : c->family, level >= 1 ? "*" : acc_load_name(c->load));
}

static int name_index(const char *const *names, int n, const char *s)
{
	int i;

	for (i = 0; i < n; i++)
		if (strcmp(names[i], s) == 0)
			return i;
	return -1;
}

int acc_class_parse(const char *engine, const char *kind, const char *family, const char *load,
		    const char *ctx, struct acc_class *out, struct err *e)
{
	int k = name_index(kind_names, ACC_KIND__N, kind), l = name_index(load_names, ACC_LOAD__N, load);

	memset(out, 0, sizeof(*out));
	if (!engine[0] || strlen(engine) >= sizeof(out->engine) || strchr(engine, '/'))
		return err_set(e, SS_EDATA, "%s: 'engine' must be an engine name, got '%s'", ctx, engine);
	if (k < 0)
		return err_set(e, SS_EDATA, "%s: 'model_kind' must be dense, moe, mla, dsa or hybrid, got '%s'",
			       ctx, kind);
	if (!family[0] || strlen(family) >= sizeof(out->family) || strchr(family, '/'))
		return err_set(e, SS_EDATA, "%s: 'gpu_family' must be a GPU family, got '%s'", ctx, family);
	if (l < 0)
		return err_set(e, SS_EDATA, "%s: 'load' must be light, loaded or saturated, got '%s'", ctx, load);
	snprintf(out->engine, sizeof(out->engine), "%s", engine);
	out->kind = (enum acc_kind)k;
	snprintf(out->family, sizeof(out->family), "%s", family);
	out->load = (enum acc_load)l;
	return 0;
}

/* --- residuals ------------------------------------------------------------ */

static const char *str_or(const struct json *o, const char *key, const char *dflt)
{
	const struct json *v = json_get(o, key);

	return v && json_type_of(v) == JSON_STRING ? json_string(v) : dflt;
}

static int row_class(const struct json *row, const char *ctx, struct acc_class *c, struct err *e)
{
	const struct json *cl = json_get(row, "class");
	const char *part[4] = {"engine", "model_kind", "gpu_family", "load"};
	const char *v[4];
	int i;

	if (!cl || json_type_of(cl) != JSON_OBJECT)
		return err_set(e, SS_EDATA, "%s: no 'class' object (eval's JSON from an older servesim?)", ctx);
	for (i = 0; i < 4; i++) {
		const struct json *s = json_get(cl, part[i]);
		if (!s || json_type_of(s) != JSON_STRING)
			return err_set(e, SS_EDATA, "%s: class: '%s' must be a string", ctx, part[i]);
		v[i] = json_string(s);
	}
	return acc_class_parse(v[0], v[1], v[2], v[3], ctx, c, e);
}

int acc_resid_from_eval(const struct json *doc, const char *source, const char *ctx,
			struct acc_resid **r, size_t *n, size_t *cap, struct err *e)
{
	const struct json *rows = json_get(doc, "rows"), *row;
	size_t i = 0;
	int rc, k;

	if (!rows || json_type_of(rows) != JSON_ARRAY)
		return err_set(e, SS_EDATA, "%s: no 'rows' array: not `servesim eval --format json` output", ctx);
	for (row = json_first(rows); row; row = json_next(row), i++) {
		const struct json *mets = json_get(row, "metrics"), *st = json_get(row, "stage");
		struct acc_resid *x;
		char where[700], stage[32];
		uint64_t h;
		snprintf(where, sizeof(where), "%s: rows[%zu]", ctx, i);
		if (json_type_of(row) != JSON_OBJECT || !mets || json_type_of(mets) != JSON_OBJECT)
			return err_set(e, SS_EDATA, "%s: expected an object with 'metrics'", where);
		XGROW(*r, *cap, *n + 1);
		x = &(*r)[*n];
		memset(x, 0, sizeof(*x));
		if ((rc = row_class(row, where, &x->cls, e)) < 0)
			return rc;
		for (k = 0; k < ACC_METRIC__N; k++) {
			const struct json *m = json_get(mets, metric_keys[k]), *me, *pr;
			x->err[k] = NAN;
			if (!m || json_type_of(m) != JSON_OBJECT)
				continue;
			me = json_get(m, "measured");
			pr = json_get(m, "predicted");
			if (me && pr && json_type_of(me) == JSON_NUMBER && json_type_of(pr) == JSON_NUMBER &&
			    json_number(me) > 0 && isfinite(json_number(pr)))
				x->err[k] = fabs(json_number(pr) / json_number(me) - 1.0);
		}
		snprintf(stage, sizeof(stage), "%lld", st ? json_ll(st, -1) : -1LL);
		/* the row's half depends on its name only */
		h = fnv1a64(FNV1A64_BASIS, source);
		h = fnv1a64(fnv1a64(h, "\n"), str_or(row, "experiment", ""));
		h = fnv1a64(fnv1a64(h, "\n"), str_or(row, "benchmark", ""));
		h = fnv1a64(fnv1a64(h, "\n"), stage);
		x->half = (int)(h >> 63);
		acc_model_family(str_or(row, "model", ""), x->family, sizeof(x->family));
		(*n)++;
	}
	return 0;
}

/* --- bands ---------------------------------------------------------------- */

struct obs {
	char cls[64];
	int k;
	double err;
};

static int obs_cmp(const void *a, const void *b)
{
	const struct obs *x = a, *y = b;
	int c = strcmp(x->cls, y->cls);

	if (c)
		return c;
	if (x->k != y->k)
		return x->k < y->k ? -1 : 1;
	return x->err < y->err ? -1 : x->err > y->err;
}

static double obs_order(const void *ctx, uint64_t i)
{
	return ((const struct obs *)ctx)[i].err;
}

void acc_build(const struct acc_resid *r, size_t n, size_t min_rows, struct acc_table *t)
{
	struct obs *o = xmalloc(xmul(n ? n : 1, ACC_LEVELS * ACC_METRIC__N * sizeof(*o)));
	size_t no = 0, i, j;
	int lv, k;

	memset(t, 0, sizeof(*t));
	t->min_rows = min_rows;
	t->nrows = n;
	for (k = 0; k < ACC_METRIC__N; k++)
		t->coverage[k] = t->widen[k][0] = t->widen[k][1] = t->widened_coverage[k] = NAN;
	for (i = 0; i < n; i++)
		for (lv = 0; lv < ACC_LEVELS; lv++)
			for (k = 0; k < ACC_METRIC__N; k++) {
				if (isnan(r[i].err[k]))
					continue;
				acc_class_name(&r[i].cls, lv, o[no].cls, sizeof(o[no].cls));
				o[no].k = k;
				o[no].err = r[i].err[k];
				no++;
			}
	qsort(o, no, sizeof(*o), obs_cmp);
	for (i = 0; i < no; i = j) {
		struct acc_entry *en;
		struct acc_band *b;
		for (j = i; j < no && strcmp(o[j].cls, o[i].cls) == 0 && o[j].k == o[i].k; j++)
			;
		if (t->n == 0 || strcmp(t->e[t->n - 1].cls, o[i].cls) != 0) {
			t->e = xreallocarray(t->e, t->n + 1, sizeof(*t->e));
			en = &t->e[t->n++];
			memset(en, 0, sizeof(*en));
			snprintf(en->cls, sizeof(en->cls), "%s", o[i].cls);
			for (k = 0; k < ACC_METRIC__N; k++)
				en->b[k].p50 = en->b[k].p90 = NAN;
		}
		b = &t->e[t->n - 1].b[o[i].k];
		b->rows = j - i;
		b->p50 = stats_percentile_order(j - i, 0.5, o[j - 1].err, obs_order, &o[i]);
		b->p90 = stats_percentile_order(j - i, 0.9, o[j - 1].err, obs_order, &o[i]);
	}
	free(o);
}

void acc_table_release(struct acc_table *t)
{
	free(t->e);
	memset(t, 0, sizeof(*t));
}

static int entry_cmp(const void *key, const void *el)
{
	return strcmp(key, ((const struct acc_entry *)el)->cls);
}

static const struct acc_entry *entry_find(const struct acc_table *t, const char *cls)
{
	return t->n ? bsearch(cls, t->e, t->n, sizeof(*t->e), entry_cmp) : NULL;
}

static bool family_listed(const struct acc_table *t, const char *family)
{
	size_t i;

	for (i = 0; i < t->nfam; i++)
		if (strcmp(t->fam[i], family) == 0)
			return true;
	return false;
}

void acc_lookup(const struct acc_table *t, const struct acc_class *c, enum acc_metric k,
		struct acc_answer *a)
{
	const struct acc_entry *en;
	int lv;

	memset(a, 0, sizeof(*a));
	a->p50 = a->p90 = NAN;
	a->widen50 = a->widen90 = 1;
	acc_class_name(c, 0, a->asked, sizeof(a->asked));
	snprintf(a->cls, sizeof(a->cls), "%s", a->asked);
	en = entry_find(t, a->asked);
	if (!en || en->b[k].rows == 0)
		return; /* no evidence: never a band from elsewhere */
	a->own_rows = en->b[k].rows;
	for (lv = 1; lv < ACC_LEVELS && en->b[k].rows < t->min_rows; lv++) {
		char name[64];
		const struct acc_entry *up;
		acc_class_name(c, lv, name, sizeof(name));
		up = entry_find(t, name);
		if (up && up->b[k].rows > 0) /* (a coarser class holds its rows: never NULL) */
			en = up;
	}
	a->evidence = true;
	a->p50 = en->b[k].p50;
	a->p90 = en->b[k].p90;
	a->rows = en->b[k].rows;
	snprintf(a->cls, sizeof(a->cls), "%s", en->cls);
	if (c->model_family[0] && t->nfam > 0 && !family_listed(t, c->model_family)) {
		if (isfinite(t->widen[k][0]))
			a->widen50 = t->widen[k][0];
		if (isfinite(t->widen[k][1]))
			a->widen90 = t->widen[k][1];
		a->p50 *= a->widen50;
		a->p90 *= a->widen90;
		if (a->p50 > a->p90) /* (a band stays p50 <= p90) */
			a->p50 = a->p90;
	}
}

/* The error of a checked row over its band, q = err / band (an error of 0
 * inside a band of 0; any other error outside it: HUGE_VAL), with the
 * fold the row is in: the widening's sample. */
struct ratio {
	double q[2]; /* over the p50 and the p90 band */
	int fold;
};
struct ratios {
	struct ratio *v[ACC_METRIC__N];
	size_t n[ACC_METRIC__N], cap[ACC_METRIC__N];
};

static double band_ratio(double err, double band)
{
	return band > 0 ? err / band : err > 0 ? HUGE_VAL : 0;
}

/* acc_coverage_fold, and each checked row's ratios into rs (NULL: none). */
static void fold_check(const struct acc_resid *r, size_t n, const int *fold, int f, size_t min_rows, size_t *within,
		       size_t *rows, struct ratios *rs)
{
	struct acc_resid *rest = xmalloc(xmul(n ? n : 1, sizeof(*rest)));
	struct acc_table b;
	size_t i, m;
	int k;

	for (i = m = 0; i < n; i++)
		if (fold[i] != f)
			rest[m++] = r[i];
	acc_build(rest, m, min_rows, &b);
	for (i = 0; i < n; i++) {
		if (fold[i] != f)
			continue;
		for (k = 0; k < ACC_METRIC__N; k++) {
			struct acc_answer a;
			if (isnan(r[i].err[k]))
				continue;
			acc_lookup(&b, &r[i].cls, (enum acc_metric)k, &a);
			if (!a.evidence)
				continue;
			rows[k]++;
			within[k] += r[i].err[k] <= a.p90;
			if (!rs)
				continue;
			XGROW(rs->v[k], rs->cap[k], rs->n[k] + 1);
			rs->v[k][rs->n[k]++] = (struct ratio){{band_ratio(r[i].err[k], a.p50), band_ratio(r[i].err[k], a.p90)}, f};
		}
	}
	acc_table_release(&b);
	free(rest);
}

void acc_coverage_fold(const struct acc_resid *r, size_t n, const int *fold, int f, size_t min_rows,
		       size_t *within, size_t *rows)
{
	fold_check(r, n, fold, f, min_rows, within, rows, NULL);
}

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The p-quantile of the ratios over band b (0: p50, 1: p90) not of fold
 * `skip` (-1: all), never below 1; NAN when there are none. */
static double widen_factor(const struct ratio *v, size_t n, int b, int skip, double p)
{
	double *x = xmalloc((n ? n : 1) * sizeof(*x)), q = NAN;
	size_t i, m = 0, at;

	for (i = 0; i < n; i++)
		if (v[i].fold != skip)
			x[m++] = v[i].q[b];
	qsort(x, m, sizeof(*x), dbl_cmp);
	/* order statistic ceil(p m): the smallest factor that leaves at most
	 * (1 - p) of the rows outside (a HUGE_VAL stays outside) */
	at = (size_t)ceil(p * (double)m);
	if (m)
		q = x[at ? at - 1 : 0];
	free(x);
	return isnan(q) ? q : q < 1 ? 1 : q;
}

int acc_family_folds(const struct acc_resid *r, size_t n, int *fold)
{
	size_t i, j;
	int nfam = 0;

	for (i = 0; i < n; i++) {
		for (j = 0; j < i && strcmp(r[j].family, r[i].family) != 0; j++)
			;
		fold[i] = j < i ? fold[j] : nfam++;
	}
	return nfam;
}

void acc_coverage(const struct acc_resid *r, size_t n, size_t min_rows, struct acc_table *t)
{
	int *fold = xmalloc(xmul(n ? n : 1, sizeof(*fold)));
	size_t within[ACC_METRIC__N] = {0}, fwithin[ACC_METRIC__N] = {0}, i;
	struct ratios rs;
	int k, f, nfam;

	memset(&rs, 0, sizeof(rs));

	memset(t->coverage_rows, 0, sizeof(t->coverage_rows));
	memset(t->family_coverage_rows, 0, sizeof(t->family_coverage_rows));
	for (i = 0; i < n; i++) /* bands from one half, checked on the other */
		fold[i] = r[i].half;
	for (f = 0; f < 2; f++)
		acc_coverage_fold(r, n, fold, f, min_rows, within, t->coverage_rows);
	nfam = acc_family_folds(r, n, fold);
	t->families = nfam >= 2 ? (size_t)nfam : 0;
	t->nfam = 0;
	for (f = 0; f < nfam && t->nfam < ACC_MAX_FAMILIES; f++) { /* named ones, first seen first */
		size_t rows = 0, first = n;
		for (i = 0; i < n; i++)
			if (fold[i] == f) {
				first = first < i ? first : i;
				rows++;
			}
		if (first < n && r[first].family[0]) {
			snprintf(t->fam[t->nfam], sizeof(t->fam[0]), "%s", r[first].family);
			t->fam_rows[t->nfam++] = rows;
		}
	}
	for (f = 0; t->families && f < nfam; f++)
		fold_check(r, n, fold, f, min_rows, fwithin, t->family_coverage_rows, &rs);
	for (k = 0; k < ACC_METRIC__N; k++) {
		size_t j, ok = 0, checked = 0;
		t->coverage[k] = t->coverage_rows[k] ? (double)within[k] / (double)t->coverage_rows[k] : NAN;
		t->family_coverage[k] = t->family_coverage_rows[k]
						? (double)fwithin[k] / (double)t->family_coverage_rows[k]
						: NAN;
		t->widen[k][0] = widen_factor(rs.v[k], rs.n[k], 0, -1, 0.5);
		t->widen[k][1] = widen_factor(rs.v[k], rs.n[k], 1, -1, 0.9);
		/* each family against a factor from the other families' rows */
		for (f = 0; f < nfam; f++) {
			double w = widen_factor(rs.v[k], rs.n[k], 1, f, 0.9);
			for (j = 0; j < rs.n[k] && !isnan(w); j++)
				if (rs.v[k][j].fold == f) {
					checked++;
					ok += rs.v[k][j].q[1] <= w;
				}
		}
		t->widened_coverage[k] = checked ? (double)ok / (double)checked : NAN;
		t->widened_coverage_rows[k] = checked;
		free(rs.v[k]);
	}
	free(fold);
}

/* --- the file ------------------------------------------------------------- */

/* A coverage block: its method, (families > 0) how many families, and per
 * metric the share within the p90 band (null when NAN) and the rows. */
static void coverage_json(struct jw *w, const char *key, const char *method, size_t families, const double *cov,
			  const size_t *rows)
{
	int k;

	jw_obj(w, key);
	jw_str(w, "method", method);
	if (families)
		jw_int(w, "families", (int64_t)families);
	for (k = 0; k < ACC_METRIC__N; k++) {
		jw_obj(w, metric_keys[k]);
		jw_num(w, "within_p90", cov[k]);
		jw_int(w, "rows", (int64_t)rows[k]);
		jw_end_obj(w);
	}
	jw_end_obj(w);
}

void acc_table_json(FILE *f, const struct acc_table *t)
{
	char load[400];
	struct jw w;
	size_t i;
	int k;

	jw_init(&w, f, true);
	jw_obj(&w, NULL);
	jw_str(&w, "what", ACC_WHAT);
	jw_str(&w, "residuals", t->residuals);
	jw_bool(&w, "held_out", t->held_out);
	snprintf(load, sizeof(load), ACC_LOAD_FMT, ACC_SATURATED_QUEUE, ACC_LIGHT_RUNNING);
	jw_str(&w, "load", load);
	jw_int(&w, "min_rows", (int64_t)t->min_rows);
	jw_int(&w, "rows", (int64_t)t->nrows);
	jw_arr(&w, "sources");
	for (i = 0; i < t->nsource; i++) {
		jw_obj(&w, NULL);
		jw_str(&w, "path", t->source[i]);
		jw_int(&w, "rows", (int64_t)t->source_rows[i]);
		jw_end_obj(&w);
	}
	jw_end_arr(&w);
	coverage_json(&w, "coverage", ACC_COVERAGE_TEXT, 0, t->coverage, t->coverage_rows);
	if (t->families)
		coverage_json(&w, "coverage_family_out", ACC_FAMILY_TEXT, t->families, t->family_coverage,
			      t->family_coverage_rows);
	if (t->nfam) {
		jw_obj(&w, "families");
		for (i = 0; i < t->nfam; i++)
			jw_int(&w, t->fam[i], (int64_t)t->fam_rows[i]);
		jw_end_obj(&w);
	}
	if (t->families) {
		jw_obj(&w, "unseen_family");
		jw_str(&w, "method", ACC_WIDEN_TEXT);
		for (k = 0; k < ACC_METRIC__N; k++) {
			jw_obj(&w, metric_keys[k]);
			jw_num(&w, "p50_factor", t->widen[k][0]);
			jw_num(&w, "p90_factor", t->widen[k][1]);
			jw_num(&w, "within_p90", t->widened_coverage[k]);
			jw_int(&w, "rows", (int64_t)t->widened_coverage_rows[k]);
			jw_end_obj(&w);
		}
		jw_end_obj(&w);
	}
	jw_obj(&w, "classes");
	for (i = 0; i < t->n; i++) {
		const struct acc_entry *en = &t->e[i];
		jw_obj(&w, en->cls);
		for (k = 0; k < ACC_METRIC__N; k++) {
			if (en->b[k].rows == 0) {
				jw_null(&w, metric_keys[k]);
				continue;
			}
			jw_obj(&w, metric_keys[k]);
			jw_num(&w, "p50_abs_err", en->b[k].p50);
			jw_num(&w, "p90_abs_err", en->b[k].p90);
			jw_int(&w, "rows", (int64_t)en->b[k].rows);
			jw_end_obj(&w);
		}
		jw_end_obj(&w);
	}
	jw_end_obj(&w);
	jw_end_obj(&w);
	jw_finish(&w);
}

static int read_band(const struct json *v, const char *ctx, struct acc_band *b, struct err *e)
{
	static const char *const keys[] = {"p50_abs_err", "p90_abs_err", "rows", NULL};
	int64_t rows;
	int rc;

	b->p50 = b->p90 = NAN;
	b->rows = 0;
	if (json_type_of(v) == JSON_NULL)
		return 0;
	if (json_type_of(v) != JSON_OBJECT)
		return err_set(e, SS_EDATA, "%s: expected an object or null", ctx);
	if ((rc = json_check_keys(v, keys, ctx, e)) < 0 || (rc = json_req_num(v, "p50_abs_err", ctx, &b->p50, e)) < 0 ||
	    (rc = json_req_num(v, "p90_abs_err", ctx, &b->p90, e)) < 0 ||
	    (rc = json_req_int(v, "rows", ctx, 1, INT64_C(1) << 40, &rows, e)) < 0)
		return rc;
	if (!(b->p50 >= 0) || !(b->p90 >= b->p50))
		return err_set(e, SS_EDATA, "%s: expected 0 <= p50_abs_err <= p90_abs_err, got %g and %g", ctx, b->p50,
			       b->p90);
	b->rows = (size_t)rows;
	return 0;
}

static int read_classes(const struct json *cl, const char *path, struct acc_table *t, struct err *e)
{
	const struct json *c;
	char ctx[800];
	size_t nctx;
	int rc, k;

	if (!cl || json_type_of(cl) != JSON_OBJECT)
		return err_set(e, SS_EDATA, "%s: 'classes' must be an object", path);
	for (c = json_first(cl); c; c = json_next(c)) {
		struct acc_entry *en;
		const char *name = json_key(c);
		bool any = false;
		snprintf(ctx, sizeof(ctx), "%s: classes.%s", path, name);
		if (strlen(name) >= sizeof(en->cls) || json_type_of(c) != JSON_OBJECT)
			return err_set(e, SS_EDATA, "%s: expected a class name under 64 bytes holding an object", ctx);
		if ((rc = json_check_keys(c, metric_keys, ctx, e)) < 0)
			return rc;
		if (t->n && strcmp(t->e[t->n - 1].cls, name) >= 0)
			return err_set(e, SS_EDATA, "%s: classes must be sorted by name ('make accuracy' writes them so)", ctx);
		t->e = xreallocarray(t->e, t->n + 1, sizeof(*t->e));
		en = &t->e[t->n++];
		memset(en, 0, sizeof(*en));
		memcpy(en->cls, name, strlen(name) + 1); /* under 64 bytes: checked above */
		nctx = strlen(ctx);
		for (k = 0; k < ACC_METRIC__N; k++) {
			const struct json *v = json_get(c, metric_keys[k]);
			char mctx[900]; /* ctx (< 800 bytes), a dot and a metric key: what
					 * snprintf's "%s.%s" writes, without its cost (a
					 * tenth of reading the table) */
			size_t nk = strlen(metric_keys[k]);
			memcpy(mctx, ctx, nctx);
			mctx[nctx] = '.';
			memcpy(mctx + nctx + 1, metric_keys[k], nk + 1);
			if (!v)
				return err_set(e, SS_EDATA, "%s: missing (null when the class has no such rows)", mctx);
			if ((rc = read_band(v, mctx, &en->b[k], e)) < 0)
				return rc;
			any |= en->b[k].rows > 0;
		}
		if (!any)
			return err_set(e, SS_EDATA, "%s: a class without rows is left out, not written", ctx);
	}
	return 0;
}

/* A coverage block (coverage_json's) named key into cov and rows;
 * families (NULL: none expected) its family count. */
static int read_coverage(const struct json *cv, const char *path, const char *key, double *cov, size_t *rows,
			 size_t *families, struct err *e)
{
	static const char *const keys[] = {"method", "ttft_mean_ms", "itl_mean_ms", "e2e_mean_ms",
					   "throughput_rps", NULL};
	static const char *const fkeys[] = {"method", "families", "ttft_mean_ms", "itl_mean_ms", "e2e_mean_ms",
					    "throughput_rps", NULL};
	static const char *const mkeys[] = {"within_p90", "rows", NULL};
	char ctx[800];
	const char *s;
	int64_t v;
	int rc, k;

	snprintf(ctx, sizeof(ctx), "%s: %s", path, key);
	if (!cv || json_type_of(cv) != JSON_OBJECT)
		return err_set(e, SS_EDATA, "%s: must be an object", ctx);
	if ((rc = json_check_keys(cv, families ? fkeys : keys, ctx, e)) < 0 ||
	    (rc = json_req_str(cv, "method", ctx, &s, e)) < 0)
		return rc;
	if (families) {
		if ((rc = json_req_int(cv, "families", ctx, 2, 1 << 20, &v, e)) < 0)
			return rc;
		*families = (size_t)v;
	}
	for (k = 0; k < ACC_METRIC__N; k++) {
		const struct json *m = json_get(cv, metric_keys[k]), *w;
		char mctx[900];
		snprintf(mctx, sizeof(mctx), "%s.%s", ctx, metric_keys[k]);
		if (!m || json_type_of(m) != JSON_OBJECT)
			return err_set(e, SS_EDATA, "%s: must be an object", mctx);
		if ((rc = json_check_keys(m, mkeys, mctx, e)) < 0 ||
		    (rc = json_req_int(m, "rows", mctx, 0, INT64_C(1) << 40, &v, e)) < 0)
			return rc;
		rows[k] = (size_t)v;
		cov[k] = NAN;
		w = json_get(m, "within_p90");
		if (w && json_type_of(w) == JSON_NULL && v == 0)
			continue;
		if ((rc = json_req_num(m, "within_p90", mctx, &cov[k], e)) < 0)
			return rc;
		if (!(cov[k] >= 0 && cov[k] <= 1))
			return err_set(e, SS_EDATA, "%s: 'within_p90' must be a share in [0, 1], got %g", mctx, cov[k]);
	}
	return 0;
}

/* "families": {family: rows, ...} in the file's order. */
static int read_families(const struct json *fm, const char *path, struct acc_table *t, struct err *e)
{
	const struct json *x;
	char ctx[800];

	if (json_type_of(fm) != JSON_OBJECT || json_size(fm) > ACC_MAX_FAMILIES)
		return err_set(e, SS_EDATA, "%s: 'families' must be an object of at most %d model families", path,
			       ACC_MAX_FAMILIES);
	for (x = json_first(fm); x; x = json_next(x)) {
		const char *name = json_key(x);
		double v = json_type_of(x) == JSON_NUMBER ? json_number(x) : -1;
		snprintf(ctx, sizeof(ctx), "%s: families.%s", path, name);
		if (!*name || strlen(name) >= sizeof(t->fam[0]) || !(v >= 1 && v == floor(v)))
			return err_set(e, SS_EDATA, "%s: expected a family name under 24 bytes with a row count >= 1",
				       ctx);
		snprintf(t->fam[t->nfam], sizeof(t->fam[0]), "%s", name);
		t->fam_rows[t->nfam++] = (size_t)v;
	}
	return 0;
}

/* A factor or share that is null when it was not made. */
static int read_opt_num(const struct json *m, const char *key, const char *ctx, double lo, double *v,
			struct err *e)
{
	const struct json *x = json_get(m, key);
	int rc;

	*v = NAN;
	if (x && json_type_of(x) == JSON_NULL)
		return 0;
	if ((rc = json_req_num(m, key, ctx, v, e)) < 0)
		return rc;
	if (!(*v >= lo) || (lo == 0 && *v > 1))
		return err_set(e, SS_EDATA, "%s: '%s' must be %s, got %g", ctx, key,
			       lo == 0 ? "a share in [0, 1]" : ">= 1", *v);
	return 0;
}

static int read_unseen(const struct json *u, const char *path, struct acc_table *t, struct err *e)
{
	static const char *const keys[] = {"method", "ttft_mean_ms", "itl_mean_ms", "e2e_mean_ms",
					   "throughput_rps", NULL};
	static const char *const mkeys[] = {"p50_factor", "p90_factor", "within_p90", "rows", NULL};
	char ctx[900];
	const char *s;
	int64_t v;
	int rc, k;

	snprintf(ctx, sizeof(ctx), "%s: unseen_family", path);
	if (json_type_of(u) != JSON_OBJECT)
		return err_set(e, SS_EDATA, "%s: must be an object", ctx);
	if ((rc = json_check_keys(u, keys, ctx, e)) < 0 || (rc = json_req_str(u, "method", ctx, &s, e)) < 0)
		return rc;
	for (k = 0; k < ACC_METRIC__N; k++) {
		const struct json *m = json_get(u, metric_keys[k]);
		char mctx[1000];
		snprintf(mctx, sizeof(mctx), "%s.%s", ctx, metric_keys[k]);
		if (!m || json_type_of(m) != JSON_OBJECT)
			return err_set(e, SS_EDATA, "%s: must be an object", mctx);
		if ((rc = json_check_keys(m, mkeys, mctx, e)) < 0 ||
		    (rc = read_opt_num(m, "p50_factor", mctx, 1, &t->widen[k][0], e)) < 0 ||
		    (rc = read_opt_num(m, "p90_factor", mctx, 1, &t->widen[k][1], e)) < 0 ||
		    (rc = read_opt_num(m, "within_p90", mctx, 0, &t->widened_coverage[k], e)) < 0 ||
		    (rc = json_req_int(m, "rows", mctx, 0, INT64_C(1) << 40, &v, e)) < 0)
			return rc;
		t->widened_coverage_rows[k] = (size_t)v;
	}
	return 0;
}

static int read_sources(const struct json *src, const char *path, struct acc_table *t, struct err *e)
{
	static const char *const keys[] = {"path", "rows", NULL};
	const struct json *s;
	char ctx[800];
	int rc;

	if (!src || json_type_of(src) != JSON_ARRAY || json_size(src) > ACC_MAX_SOURCES)
		return err_set(e, SS_EDATA, "%s: 'sources' must be an array of at most %d objects", path,
			       ACC_MAX_SOURCES);
	for (s = json_first(src); s; s = json_next(s)) {
		const char *p;
		int64_t rows;
		snprintf(ctx, sizeof(ctx), "%s: sources[%zu]", path, t->nsource);
		if (json_type_of(s) != JSON_OBJECT)
			return err_set(e, SS_EDATA, "%s: must be an object", ctx);
		if ((rc = json_check_keys(s, keys, ctx, e)) < 0 || (rc = json_req_str(s, "path", ctx, &p, e)) < 0 ||
		    (rc = json_req_int(s, "rows", ctx, 0, INT64_C(1) << 40, &rows, e)) < 0)
			return rc;
		snprintf(t->source[t->nsource], sizeof(t->source[0]), "%s", p);
		t->source_rows[t->nsource++] = (size_t)rows;
	}
	return 0;
}

int acc_table_load(const char *path, struct acc_table *t, struct err *e)
{
	static const char *const keys[] = {"what", "residuals", "held_out", "load", "min_rows", "rows",
					   "sources", "coverage", "coverage_family_out", "families", "unseen_family",
					   "classes", NULL};
	struct json *doc = NULL;
	const char *s;
	int64_t v;
	int rc, k;

	memset(t, 0, sizeof(*t));
	for (k = 0; k < ACC_METRIC__N; k++) /* absent: not made */
		t->widen[k][0] = t->widen[k][1] = t->widened_coverage[k] = NAN;
	if ((rc = json_parse_file(path, &doc, e)) < 0)
		return rc;
	if (json_type_of(doc) != JSON_OBJECT) {
		rc = err_set(e, SS_EDATA, "%s: expected an object", path);
		goto out;
	}
	if ((rc = json_check_keys(doc, keys, path, e)) < 0 || (rc = json_req_str(doc, "what", path, &s, e)) < 0 ||
	    (rc = json_req_str(doc, "load", path, &s, e)) < 0 ||
	    (rc = json_req_str(doc, "residuals", path, &s, e)) < 0)
		goto out;
	snprintf(t->residuals, sizeof(t->residuals), "%s", s);
	if ((rc = json_opt_bool(doc, "held_out", path, &t->held_out, e)) < 0 ||
	    (rc = json_req_int(doc, "min_rows", path, 1, 1 << 20, &v, e)) < 0)
		goto out;
	t->min_rows = (size_t)v;
	if ((rc = json_req_int(doc, "rows", path, 0, INT64_C(1) << 40, &v, e)) < 0)
		goto out;
	t->nrows = (size_t)v;
	if ((rc = read_sources(json_get(doc, "sources"), path, t, e)) < 0 ||
	    (rc = read_coverage(json_get(doc, "coverage"), path, "coverage", t->coverage, t->coverage_rows, NULL,
				e)) < 0 ||
	    (json_get(doc, "coverage_family_out") && /* optional: absent with fewer than two families */
	     (rc = read_coverage(json_get(doc, "coverage_family_out"), path, "coverage_family_out",
				 t->family_coverage, t->family_coverage_rows, &t->families, e)) < 0) ||
	    (json_get(doc, "families") && (rc = read_families(json_get(doc, "families"), path, t, e)) < 0) ||
	    (json_get(doc, "unseen_family") && (rc = read_unseen(json_get(doc, "unseen_family"), path, t, e)) < 0) ||
	    (rc = read_classes(json_get(doc, "classes"), path, t, e)) < 0)
		goto out;
out:
	json_free(doc);
	if (rc < 0)
		acc_table_release(t);
	return rc;
}

int acc_table_find(const char *data_dir, struct acc_table *t, bool *found, struct err *e)
{
	char path[1024];
	struct stat sb;

	memset(t, 0, sizeof(*t));
	*found = false;
	snprintf(path, sizeof(path), "%s/accuracy.json", data_dir);
	if (stat(path, &sb) != 0 && errno == ENOENT)
		return 0;
	*found = true;
	return acc_table_load(path, t, e);
}

void acc_confidence_of(const struct acc_table *t, const struct acc_class *c, struct acc_confidence *out)
{
	int k;

	memset(out, 0, sizeof(*out));
	out->cls = *c;
	out->missing = t == NULL;
	out->held_out = t && t->held_out;
	if (t)
		snprintf(out->residuals, sizeof(out->residuals), "%s", t->residuals);
	for (k = 0; k < ACC_METRIC__N; k++) {
		if (t) {
			acc_lookup(t, c, (enum acc_metric)k, &out->a[k]);
		} else {
			memset(&out->a[k], 0, sizeof(out->a[k]));
			out->a[k].p50 = out->a[k].p90 = NAN;
			acc_class_name(c, 0, out->a[k].asked, sizeof(out->a[k].asked));
			acc_class_name(c, 0, out->a[k].cls, sizeof(out->a[k].cls));
		}
	}
}

void acc_class_of_scenario(const struct scenario *sc, double running_per_rank, double queue_share,
			   bool overloaded, struct acc_class *out)
{
	acc_class_of(sc->engine ? sc->engine->name : "", sc->pd_prefill > 0, sc->model, sc->gpu, running_per_rank, queue_share, overloaded,
		     out);
}

int acc_confidence_find(const char *data_dir, const struct acc_class *c, struct acc_confidence *out,
			struct err *e)
{
	struct acc_table t;
	bool found;
	int rc = acc_table_find(data_dir, &t, &found, e);

	if (rc < 0)
		return rc;
	acc_confidence_of(found ? &t : NULL, c, out);
	acc_table_release(&t);
	return 0;
}

int acc_confidence_at(const char *data_dir, const struct scenario *sc, double running_per_rank,
		      double queue_share, bool overloaded, struct acc_confidence *out, struct err *e)
{
	struct acc_class c;

	acc_class_of_scenario(sc, running_per_rank, queue_share, overloaded, &c);
	return acc_confidence_find(data_dir, &c, out, e);
}

int acc_confidence_sim(const char *data_dir, const struct scenario *sc, struct sim *s, bool overloaded,
		       struct acc_confidence *out, struct err *e)
{
	struct metric_set all;

	sim_summary(s, -1, &all);
	return acc_confidence_at(data_dir, sc, all.running_per_rank, all.queue_share, overloaded, out, e);
}
