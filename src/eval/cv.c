/* cv.c - leave-one-group-out refits of the engine host terms (cv.h). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "eval/cv.h"

const double cv_scales[CV_NSCALES] = {1.0, 0.75, 1.25, 0.5, 1.5, 2.0, 0.0};

static const char *const by_names[] = {"model", "gpu", "engine"};

int cv_by_parse(const char *s, enum cv_by *out, struct err *e)
{
	size_t k;

	for (k = 0; k < sizeof(by_names) / sizeof(by_names[0]); k++)
		if (strcmp(s, by_names[k]) == 0) {
			*out = (enum cv_by)k;
			return 0;
		}
	return err_set(e, SS_EUSAGE, "--cv: '%s' is not a grouping (expected model, gpu or engine)", s);
}

const char *cv_by_name(enum cv_by by)
{
	return by_names[by];
}

/* The model id's words (split at '-' or '_') before the first holding a
 * digit; a first word with a digit is cut before it ("qwen3" -> "qwen"). */
static void family_of(const char *model, char *buf, size_t n)
{
	const char *id = strrchr(model, '/') ? strrchr(model, '/') + 1 : model, *w = id;
	size_t o = 0;

	buf[0] = '\0';
	while (*w) {
		size_t len = strcspn(w, "-_"), j, d = len;
		for (j = 0; j < len; j++)
			if (isdigit((unsigned char)w[j])) {
				d = j;
				break;
			}
		if (d < len && w != id)
			break;
		if (w != id && o + 1 < n)
			buf[o++] = '-';
		for (j = 0; j < d && o + 1 < n; j++)
			buf[o++] = (char)tolower((unsigned char)w[j]);
		buf[o] = '\0';
		if (d < len || !w[len])
			break;
		w += len + 1;
	}
	if (o == 0)
		snprintf(buf, n, "%s", id);
}

void cv_group_of(const struct eval_row *r, enum cv_by by, char *buf, size_t n)
{
	switch (by) {
	case CV_FAMILY: family_of(r->model, buf, n); return;
	case CV_GPU: snprintf(buf, n, "%s", r->gpu); return;
	case CV_ENGINE: snprintf(buf, n, "%s", r->cls.engine); return;
	}
	snprintf(buf, n, "?");
}

/* A row's |err| of metric k in pass p, NAN when it does not count (not
 * measured, or overloaded there: eval's medians leave those out). */
static double ape_of(const struct cv_pass *p, size_t i, enum ev_metric k)
{
	const struct eval_row *r = &p->rows[i];

	return r->overloaded ? NAN : r->ape[k];
}

/* Medians over the rows i with sel[i], each taken from pass pick[i] (pick
 * NULL: all from pass one). */
static struct cv_stat stat_of(const struct cv_pass *passes, const unsigned char *sel, const int *pick,
			      int one, size_t n, double *tmp_t, double *tmp_i)
{
	struct cv_stat s = {NAN, NAN, 0};
	size_t i, nt = 0, ni = 0;

	for (i = 0; i < n; i++) {
		double a;
		if (!sel[i])
			continue;
		s.rows++;
		if (!isnan(a = ape_of(&passes[pick ? pick[i] : one], i, EM_TTFT_MEAN)))
			tmp_t[nt++] = a;
		if (!isnan(a = ape_of(&passes[pick ? pick[i] : one], i, EM_ITL_MEAN)))
			tmp_i[ni++] = a;
	}
	s.ttft = eval_median(tmp_t, nt);
	s.itl = eval_median(tmp_i, ni);
	return s;
}

struct fit_key {
	char engine[24];
	int row;
};

void cv_result_release(struct cv_result *r)
{
	free(r->held_pass);
	r->held_pass = NULL;
	r->n = 0;
}

int eval_cv(const struct cv_pass *passes, size_t np, enum cv_by by, struct cv_result *out,
	    struct err *e)
{
	size_t n = np ? passes[0].n : 0, i, p, g;
	int *gid = xcalloc(n ? n : 1, sizeof(int)), *kid = xcalloc(n ? n : 1, sizeof(int));
	int *base = xcalloc(n ? n : 1, sizeof(int));
	unsigned char *sel = xcalloc(n ? n : 1, 1);
	double *tt = xmalloc(xmul(n ? n : 1, sizeof(double))), *ti = xmalloc(xmul(n ? n : 1, sizeof(double)));
	struct fit_key keys[CV_MAX_FITS];
	size_t nk = 0, k;
	int ip1 = -1, ip0 = -1, rc = 0;

	memset(out, 0, sizeof(*out));
	out->by = by;
	for (p = 0; p < np; p++) {
		if (passes[p].scale == 1.0)
			ip1 = (int)p;
		if (passes[p].scale == 0.0)
			ip0 = (int)p;
		if (passes[p].n != n) {
			rc = err_set(e, SS_ERUNTIME, "eval --cv: the pass at scale %g has %zu rows, the first %zu",
				     passes[p].scale, passes[p].n, n);
			goto done;
		}
		for (i = 0; i < n; i++)
			if (strcmp(passes[p].rows[i].experiment, passes[0].rows[i].experiment) != 0 ||
			    passes[p].rows[i].stage != passes[0].rows[i].stage) {
				rc = err_set(e, SS_ERUNTIME,
					     "eval --cv: row %zu is %s in the pass at scale %g, %s in the first", i,
					     passes[p].rows[i].experiment, passes[p].scale, passes[0].rows[i].experiment);
				goto done;
			}
	}
	if (ip1 < 0) {
		rc = err_set(e, SS_ERUNTIME, "eval --cv: no pass at scale 1 (the terms as shipped)");
		goto done;
	}
	/* the groups and the fitted host rows, in the order rows meet them */
	for (i = 0; i < n; i++) {
		const struct eval_row *r = &passes[ip1].rows[i];
		char name[48];
		base[i] = ip1;
		cv_group_of(r, by, name, sizeof(name));
		for (g = 0; g < out->ng && strcmp(out->g[g].name, name) != 0; g++)
			;
		if (g == out->ng && out->ng < CV_MAX_GROUPS)
			snprintf(out->g[out->ng++].name, sizeof(out->g[0].name), "%s", name);
		gid[i] = g < out->ng ? (int)g : -1;
		if (g == out->ng)
			out->other++;
		kid[i] = -1;
		if (r->host_row < 0) {
			out->unfitted++;
			continue;
		}
		for (k = 0; k < nk; k++)
			if (keys[k].row == r->host_row && strcmp(keys[k].engine, r->host_engine) == 0)
				break;
		if (k == nk && nk < CV_MAX_FITS) {
			snprintf(keys[nk].engine, sizeof(keys[0].engine), "%s", r->host_engine);
			keys[nk++].row = r->host_row;
		}
		kid[i] = k < nk ? (int)k : -1;
	}
	/* every row's held-out prediction: the pass its fit key's refit on the
	 * other groups chose */
	for (g = 0; g < out->ng; g++) {
		struct cv_group *G = &out->g[g];
		for (k = 0; k < nk; k++) {
			size_t in_g = 0, train = 0;
			int best = ip0 >= 0 ? ip0 : ip1;
			double best_obj = INFINITY;
			for (i = 0; i < n; i++) {
				in_g += gid[i] == (int)g && kid[i] == (int)k;
				sel[i] = gid[i] != (int)g && kid[i] == (int)k;
				train += sel[i];
			}
			if (in_g == 0)
				continue;
			for (p = 0; train && p < np; p++) {
				struct cv_stat s = stat_of(passes, sel, NULL, (int)p, n, tt, ti);
				double obj;
				if (isnan(s.itl) && isnan(s.ttft))
					continue;
				obj = (isnan(s.itl) ? 0 : s.itl) + 0.5 * (isnan(s.ttft) ? 0 : s.ttft);
				if (obj < best_obj) {
					best_obj = obj;
					best = (int)p;
				}
			}
			for (i = 0; i < n; i++)
				if (gid[i] == (int)g && kid[i] == (int)k)
					base[i] = best; /* held out: kept in base[] until all are chosen */
			{
				size_t o = strlen(G->chosen);
				snprintf(G->chosen + o, sizeof(G->chosen) - o, "%s%s#%d x%g%s", o ? ", " : "",
					 keys[k].engine, keys[k].row, passes[best].scale, train ? "" : " (none to fit)");
			}
		}
	}
	/* base[] now holds each row's held-out pass */
	for (g = 0; g < out->ng; g++) {
		for (i = 0; i < n; i++)
			sel[i] = gid[i] == (int)g;
		out->g[g].in = stat_of(passes, sel, NULL, ip1, n, tt, ti);
		out->g[g].out = stat_of(passes, sel, base, 0, n, tt, ti);
	}
	for (i = 0; i < n; i++)
		sel[i] = 1;
	out->in = stat_of(passes, sel, NULL, ip1, n, tt, ti);
	out->out = stat_of(passes, sel, base, 0, n, tt, ti);
	out->held_pass = base;
	out->n = n;
	base = NULL;
done:
	free(gid);
	free(kid);
	free(base);
	free(sel);
	free(tt);
	free(ti);
	return rc;
}

/* A held-out figure needs a group left out and another to refit on: one
 * group alone would be predicted with its terms off, which is not what
 * --cv reports (the rows of an engine nobody else measured are; they sit
 * beside other groups). */
static int cv_groups_check(const struct eval_pass *p, enum cv_by by, struct err *e)
{
	static const char *const what[] = {"model family", "GPU", "engine"};
	static const char *const whats[] = {"model families", "GPUs", "engines"};
	char first[48], name[48];
	size_t i;

	for (i = 0; i < p->nrows; i++) {
		cv_group_of(&p->rows[i], by, i ? name : first, sizeof(name));
		if (i && strcmp(name, first) != 0)
			return 0;
	}
	if (p->nrows == 0)
		return 0;
	return err_set(e, SS_EUSAGE,
		       "--cv %s: every row evaluated is of one %s ('%s'): leaving it out leaves no row to refit the "
		       "engine host terms on; give rows of two %s or more (or drop --cv)",
		       cv_by_name(by), what[by], first, whats[by]);
}

int cv_run(const struct eval_inputs *in, const struct eval_opts *eo, const char *calibration, enum cv_by by,
	   struct cv_run *run, struct err *e)
{
	struct cv_pass cp[CV_NSCALES];
	int k, rc;

	memset(run, 0, sizeof(*run));
	for (k = 0; k < CV_NSCALES; k++) {
		struct eval_opts o = *eo;
		o.host_scaled = true;
		o.host_scale = cv_scales[k];
		if ((rc = eval_pass_run(in, &o, calibration, &run->pass[k], e)) < 0)
			return rc;
		cp[k] = (struct cv_pass){cv_scales[k], run->pass[k].rows, run->pass[k].nrows};
		/* every pass fails the same inputs: none evaluated, nothing to refit */
		if (k == 0 && !eval_pass_any(&run->pass[0]))
			return 0;
		if (k == 0 && (rc = cv_groups_check(&run->pass[0], by, e)) < 0)
			return rc;
	}
	if ((rc = eval_cv(cp, CV_NSCALES, by, &run->r, e)) < 0)
		return rc;
	run->done = true;
	return 0;
}

void cv_run_held(const struct cv_run *run, struct eval_pass *held)
{
	const struct cv_result *r = &run->r;
	size_t i;

	*held = run->pass[0];
	held->rows = xmalloc(xmul(r->n ? r->n : 1, sizeof(*held->rows)));
	held->cap = r->n;
	for (i = 0; i < r->n; i++)
		held->rows[i] = run->pass[r->held_pass[i]].rows[i];
}

void cv_run_release(struct cv_run *run)
{
	int k;

	for (k = 0; k < CV_NSCALES; k++)
		eval_pass_release(&run->pass[k]);
	cv_result_release(&run->r);
}
