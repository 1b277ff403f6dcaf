/* spec.c - workload spec (JSON) parsing and validation.  Unknown keys are
 * errors; every message names the file, the JSON path and the bad value. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/argval.h"
#include "workload/curve.h"
#include "workload/workload.h"
#include "base/paths.h"
#include "base/yaml.h"

static const char *const proc_names[] = {"poisson", "constant", "gamma", "uniform_count",
					 "poisson_count", "concurrency", "trace"};

const char *wl_dist_kind_name(enum wl_dist_kind k)
{
	switch (k) {
	case WL_FIXED: return "fixed";
	case WL_UNIFORM: return "uniform";
	case WL_NORMAL: return "normal";
	case WL_LOGNORMAL: return "lognormal";
	case WL_EMPIRICAL: return "empirical";
	case WL_DATASET: return "dataset";
	}
	return "?";
}

const char *wl_process_name(enum wl_process p)
{
	return (unsigned)p < sizeof(proc_names) / sizeof(proc_names[0]) ? proc_names[p] : "?";
}

void wl_spec_defaults(struct wl_spec *s)
{
	memset(s, 0, sizeof(*s));
	s->seed = 42;
	s->process = WL_POISSON;
	s->rate = 1;
	s->cv = 1;
	s->prompt.kind = WL_FIXED;
	s->prompt.a = 512;
	s->prompt.min = 1;
	s->prompt.max = WL_MAX_TOKENS;
	s->output = s->prompt;
	s->output.a = 128;
	s->num_requests = 100;
	s->sess.turns = s->prompt;
	s->sess.turns.a = 1;
	s->sess.turns.max = WL_MAX_TURNS;
	s->sess.think_ms.kind = s->sess.tool.kind = WL_FIXED;
	s->sess.think_ms.max = WL_MAX_THINK_MS;
	s->sess.tool.max = WL_MAX_TOKENS;
}

static void wl_dist_free(struct wl_dist *d)
{
	free(d->values);
	free(d->cdf);
	d->values = d->cdf = NULL;
}

void wl_spec_release(struct wl_spec *s)
{
	free(s->prompt.values);
	free(s->prompt.cdf);
	free(s->output.values);
	free(s->output.cdf);
	s->prompt.values = s->prompt.cdf = s->output.values = s->output.cdf = NULL;
	wl_dist_free(&s->sess.turns);
	wl_dist_free(&s->sess.think_ms);
	wl_dist_free(&s->sess.tool);
	free(s->own_records);
	free(s->own_keys);
	s->own_records = NULL;
	s->own_keys = NULL;
}

/* What a distribution counts: its values' range (lo .. hi, in its own
 * units) and the factor from the JSON's units to them (1: integers given
 * as they are, token counts; 1000: seconds given, milliseconds kept). */
struct dist_rule {
	int64_t lo, hi;
	double scale;
};

static const struct dist_rule tokens_rule = {1, WL_MAX_TOKENS, 1};

/* An integer of the distribution's units from a JSON number (rule r);
 * false when out of range or, for integer units, fractional. */
static bool dist_value(const struct dist_rule *r, double x, int64_t *out)
{
	double v = x * r->scale;

	if (r->scale == 1 && x != floor(x))
		return false;
	if (!(v >= (double)r->lo - 0.5 && v <= (double)r->hi + 0.5))
		return false;
	*out = (int64_t)llround(v);
	return *out >= r->lo && *out <= r->hi;
}

static int parse_dist_rule(const struct json *o, const char *src, const char *key,
			   const struct dist_rule *u, struct wl_dist *d, struct err *e);

#define WL_DATASETS_MAX_BYTES ((size_t)1 << 20)

/* data/datasets.json, parsed (the caller frees it). */
static int datasets_load(struct json **root, char *path, size_t n, struct err *e)
{
	char dir[1024];

	paths_data_dir(dir, sizeof(dir));
	snprintf(path, n, "%s/datasets.json", dir);
	return json_parse_file_max(path, WL_DATASETS_MAX_BYTES, root, e);
}

static void datasets_names(const struct json *all, char *out, size_t n)
{
	const struct json *m;
	size_t off = 0;

	out[0] = '\0';
	for (m = json_first(all); m && off < n; m = json_next(m))
		off += (size_t)snprintf(out + off, n - off, "%s%s", off ? ", " : "", json_key(m));
}

int wl_datasets_list(char *out, size_t n, struct err *e)
{
	struct json *root;
	char path[1100];
	int rc = datasets_load(&root, path, sizeof(path), e);

	if (rc < 0)
		return rc;
	datasets_names(json_get(root, "datasets"), out, n);
	json_free(root);
	return 0;
}

/* {"dataset": NAME[, "min": A, "max": B]}: key's marginal of dataset NAME
 * (its quantile table and copula correlation) from data/datasets.json. */
static int parse_dataset(const struct json *o, const char *ctx, const char *key, struct wl_dist *d,
			 struct err *e)
{
	static const char *const keys[] = {"dataset", "min", "max", NULL};
	const struct json *all, *ds, *probs, *q, *x, *y;
	struct json *root = NULL;
	const char *name = NULL;
	char path[1100], names[400];
	double prev_p = -1, prev_v = 1, rho;
	size_t n, i;
	int rc;

	if (strcmp(key, "prompt_tokens") != 0 && strcmp(key, "output_tokens") != 0)
		return err_set(e, SS_EDATA, "%s: a 'dataset' gives prompt_tokens and output_tokens only", ctx);
	if ((rc = json_check_keys(o, keys, ctx, e)) < 0 || (rc = json_req_str(o, "dataset", ctx, &name, e)) < 0)
		return rc;
	memset(d, 0, sizeof(*d));
	d->min = 1;
	d->max = WL_MAX_TOKENS;
	if ((rc = json_opt_int(o, "min", ctx, 1, WL_MAX_TOKENS, &d->min, NULL, e)) < 0 ||
	    (rc = json_opt_int(o, "max", ctx, 1, WL_MAX_TOKENS, &d->max, NULL, e)) < 0)
		return rc;
	if (d->max < d->min)
		return err_set(e, SS_EDATA, "%s: 'max' (%lld) must be >= 'min' (%lld)", ctx, (long long)d->max,
			       (long long)d->min);
	if ((rc = datasets_load(&root, path, sizeof(path), e)) < 0)
		return rc;
	all = json_get(root, "datasets");
	probs = json_get(root, "probs");
	if (!(ds = json_get(all, name))) {
		datasets_names(all, names, sizeof(names));
		rc = err_set(e, SS_EDATA, "%s: 'dataset' must be one of %s (%s), got '%.40s'", ctx, names, path, name);
		goto out;
	}
	q = json_get(json_get(ds, key), "quantiles");
	x = json_get(json_get(ds, key), "mean");
	y = json_get(ds, "rho");
	n = q ? json_size(q) : 0;
	rho = y ? json_number(y) : NAN;
	if (!probs || n < 2 || json_size(probs) != n || !x || !(rho >= -1 && rho <= 1)) {
		rc = err_set(e, SS_EDATA, "%s: datasets.%s.%s: expected 'quantiles' at each of 'probs', 'mean' and "
			     "'rho' in [-1, 1]", path, name, key);
		goto out;
	}
	d->kind = WL_DATASET;
	d->values = xcalloc(n, sizeof(double));
	d->cdf = xcalloc(n, sizeof(double));
	d->nvalues = n;
	d->a = json_number(x);
	d->rho = rho;
	snprintf(d->dataset, sizeof(d->dataset), "%s", name);
	for (i = 0; i < n; i++) {
		double p = json_number(json_at(probs, i)), v = json_number(json_at(q, i));
		if (!(p > prev_p && p >= 0 && p <= 1) || !(v >= prev_v && v <= (double)WL_MAX_TOKENS) ||
		    (i == 0 && p != 0) || (i + 1 == n && p != 1)) {
			rc = err_set(e, SS_EDATA, "%s: datasets.%s.%s: 'probs' must rise from 0 to 1 and the quantiles "
				     "from 1 to %lld, got %g at %g", path, name, key, (long long)WL_MAX_TOKENS, v, p);
			goto out;
		}
		d->cdf[i] = prev_p = p;
		d->values[i] = prev_v = v;
	}
	rc = 0;
out:
	json_free(root);
	return rc;
}

static int parse_dist(const struct json *o, const char *src, const char *key, struct wl_dist *d,
		      struct err *e)
{
	return parse_dist_rule(o, src, key, &tokens_rule, d, e);
}

static int parse_dist_rule(const struct json *o, const char *src, const char *key,
			   const struct dist_rule *u, struct wl_dist *d, struct err *e)
{
	static const char *const keys[] = {"dist", "value", "min", "max", "mean", "stdev", "values",
					   "weights", NULL};
	char ctx[700];
	const char *kind = NULL;
	int64_t v;
	bool p1 = false, p2 = false;
	int rc;

	snprintf(ctx, sizeof(ctx), "%s: %s", src, key);
	if (json_type_of(o) == JSON_NUMBER) { /* shorthand: a fixed length */
		double x = json_number(o);
		if (!dist_value(u, x, &v)) {
			if (u->scale == 1)
				return err_set(e, SS_EDATA, "%s: must be an integer in [%lld, %lld], got %g", ctx,
					       (long long)u->lo, (long long)u->hi, x);
			return err_set(e, SS_EDATA, "%s: must be in [%.10g, %.10g], got %g", ctx,
				       (double)u->lo / u->scale, (double)u->hi / u->scale, x);
		}
		memset(d, 0, sizeof(*d));
		d->kind = WL_FIXED;
		d->a = (double)v;
		d->min = u->lo;
		d->max = u->hi;
		return 0;
	}
	if (json_type_of(o) == JSON_OBJECT && json_get(o, "dataset"))
		return u == &tokens_rule ? parse_dataset(o, ctx, key, d, e)
					 : err_set(e, SS_EDATA, "%s: a 'dataset' gives token lengths only", ctx);
	if ((rc = json_check_keys(o, keys, ctx, e)) < 0)
		return rc;
	if ((rc = json_req_str(o, "dist", ctx, &kind, e)) < 0)
		return rc;
	memset(d, 0, sizeof(*d));
	d->min = u->lo;
	d->max = u->hi;
	if (u->scale == 1) {
		if ((rc = json_opt_int(o, "min", ctx, u->lo, u->hi, &d->min, &p1, e)) < 0 ||
		    (rc = json_opt_int(o, "max", ctx, u->lo, u->hi, &d->max, &p2, e)) < 0)
			return rc;
	} else {
		static const char *const mk[2] = {"min", "max"};
		int64_t *mv[2] = {&d->min, &d->max};
		bool *mp[2] = {&p1, &p2};
		for (int k = 0; k < 2; k++) {
			double x;
			if ((rc = json_opt_num(o, mk[k], ctx, &x, mp[k], e)) < 0)
				return rc;
			if (*mp[k] && !dist_value(u, x, mv[k]))
				return err_set(e, SS_EDATA, "%s: '%s' must be in [%.10g, %.10g], got %g", ctx, mk[k],
					       (double)u->lo / u->scale, (double)u->hi / u->scale, x);
		}
	}
	if (d->max < d->min)
		return err_set(e, SS_EDATA, "%s: 'max' (%lld) must be >= 'min' (%lld)", ctx,
			       (long long)d->max, (long long)d->min);
	if (strcmp(kind, "fixed") == 0) {
		d->kind = WL_FIXED;
		if (u->scale == 1) {
			if ((rc = json_req_int(o, "value", ctx, u->lo, u->hi, &v, e)) < 0)
				return rc;
		} else {
			double x;
			if ((rc = json_req_num(o, "value", ctx, &x, e)) < 0)
				return rc;
			if (!dist_value(u, x, &v))
				return err_set(e, SS_EDATA, "%s: 'value' must be in [%.10g, %.10g], got %g", ctx,
					       (double)u->lo / u->scale, (double)u->hi / u->scale, x);
		}
		d->a = (double)v;
	} else if (strcmp(kind, "uniform") == 0) {
		d->kind = WL_UNIFORM;
		if (!p1 || !p2)
			return err_set(e, SS_EDATA, "%s: uniform needs 'min' and 'max'", ctx);
		d->a = (double)d->min;
		d->b = (double)d->max;
	} else if (strcmp(kind, "normal") == 0 || strcmp(kind, "lognormal") == 0) {
		d->kind = kind[0] == 'n' ? WL_NORMAL : WL_LOGNORMAL;
		if ((rc = json_req_num(o, "mean", ctx, &d->a, e)) < 0)
			return rc;
		if ((rc = json_req_num(o, "stdev", ctx, &d->b, e)) < 0)
			return rc;
		if (!(d->a > 0 && d->a * u->scale <= (double)u->hi))
			return err_set(e, SS_EDATA, "%s: 'mean' must be in (0, %.10g], got %g", ctx,
				       (double)u->hi / u->scale, d->a);
		if (!(d->b >= 0 && d->b * u->scale <= (double)u->hi))
			return err_set(e, SS_EDATA, "%s: 'stdev' must be in [0, %.10g], got %g", ctx,
				       (double)u->hi / u->scale, d->b);
		d->a *= u->scale;
		d->b *= u->scale;
	} else if (strcmp(kind, "empirical") == 0) {
		const struct json *vs = json_get(o, "values"), *ws = json_get(o, "weights"), *x;
		size_t n, i = 0;
		double tot = 0;
		d->kind = WL_EMPIRICAL;
		if (!vs || json_type_of(vs) != JSON_ARRAY || (n = json_size(vs)) == 0)
			return err_set(e, SS_EDATA, "%s: empirical needs a non-empty 'values' array", ctx);
		if (ws && (json_type_of(ws) != JSON_ARRAY || json_size(ws) != n))
			return err_set(e, SS_EDATA, "%s: 'weights' must be an array as long as 'values'", ctx);
		d->values = xcalloc(n, sizeof(double));
		d->cdf = xcalloc(n, sizeof(double));
		d->nvalues = n;
		for (x = json_first(vs); x; x = json_next(x), i++) {
			double val = json_number(x), w = ws ? json_number(json_at(ws, i)) : 1.0;
			if (json_type_of(x) != JSON_NUMBER || !dist_value(u, val, &v)) {
				if (u->scale == 1)
					return err_set(e, SS_EDATA, "%s: 'values[%zu]' must be an integer in [%lld, %lld], got %g",
						       ctx, i, (long long)u->lo, (long long)u->hi, val);
				return err_set(e, SS_EDATA, "%s: 'values[%zu]' must be in [%.10g, %.10g], got %g", ctx, i,
					       (double)u->lo / u->scale, (double)u->hi / u->scale, val);
			}
			if (!(w >= 0 && w <= 1e300))
				return err_set(e, SS_EDATA, "%s: 'weights[%zu]' must be a finite number >= 0, got %g",
					       ctx, i, w);
			d->values[i] = (double)v;
			tot += w;
			d->cdf[i] = tot;
		}
		if (!(tot > 0))
			return err_set(e, SS_EDATA, "%s: 'weights' must not all be 0", ctx);
		for (i = 0; i < n; i++)
			d->cdf[i] /= tot;
	} else {
		return err_set(e, SS_EDATA,
			       "%s: 'dist' must be fixed, uniform, normal, lognormal or empirical, got \"%s\"",
			       ctx, kind);
	}
	return 0;
}

static int parse_arrival(const struct json *o, const char *src, struct wl_spec *s, struct err *e)
{
	static const char *const keys[] = {"process", "rate", "cv", "concurrency", "file", NULL};
	char ctx[700];
	const char *proc = NULL, *file = NULL;
	size_t i;
	bool pres;
	int rc, found = 0;

	snprintf(ctx, sizeof(ctx), "%s: arrival", src);
	if ((rc = json_check_keys(o, keys, ctx, e)) < 0)
		return rc;
	if ((rc = json_req_str(o, "process", ctx, &proc, e)) < 0)
		return rc;
	for (i = 0; i < sizeof(proc_names) / sizeof(proc_names[0]); i++)
		if (strcmp(proc, proc_names[i]) == 0) {
			s->process = (enum wl_process)i;
			found = 1;
		}
	if (!found)
		return err_set(e, SS_EDATA,
			       "%s: 'process' must be poisson, constant, gamma, uniform_count, poisson_count, concurrency or trace, got \"%s\"",
			       ctx, proc);
	if ((rc = json_opt_num(o, "rate", ctx, &s->rate, &pres, e)) < 0)
		return rc;
	if (pres && !(s->rate >= WL_MIN_RATE && s->rate <= WL_MAX_RATE))
		return err_set(e, SS_EDATA, "%s: 'rate' must be in [%g, %g] requests/s, got %g", ctx,
			       WL_MIN_RATE, WL_MAX_RATE, s->rate);
	if ((rc = json_opt_num(o, "cv", ctx, &s->cv, &pres, e)) < 0)
		return rc;
	if (pres && !(s->cv >= WL_MIN_CV && s->cv <= WL_MAX_CV))
		return err_set(e, SS_EDATA, "%s: 'cv' must be in [%g, %g], got %g", ctx, WL_MIN_CV,
			       WL_MAX_CV, s->cv);
	if ((rc = json_opt_int(o, "concurrency", ctx, 1, WL_MAX_CONCURRENCY, &s->concurrency, &pres, e)) < 0)
		return rc;
	if (s->process == WL_CONCURRENCY && !pres)
		return err_set(e, SS_EDATA, "%s: process concurrency needs 'concurrency'", ctx);
	if ((rc = json_opt_str(o, "file", ctx, &file, e)) < 0)
		return rc;
	if (s->process == WL_TRACE) {
		if (!file)
			return err_set(e, SS_EDATA, "%s: process trace needs 'file'", ctx);
		snprintf(s->trace, sizeof(s->trace), "%s", file);
	}
	return 0;
}

static int parse_shared_prefix(const struct json *o, const char *src, struct wl_spec *s,
			       struct err *e)
{
	static const char *const keys[] = {"num_groups", "num_prompts_per_group", "system_prompt_len",
					   "question_len", "output_len", NULL};
	char ctx[700];
	int rc;

	snprintf(ctx, sizeof(ctx), "%s: shared_prefix", src);
	if ((rc = json_check_keys(o, keys, ctx, e)) < 0)
		return rc;
	if ((rc = json_req_int(o, "num_groups", ctx, 1, 1 << 20, &s->sp_groups, e)) < 0 ||
	    (rc = json_req_int(o, "num_prompts_per_group", ctx, 1, 1 << 20, &s->sp_prompts, e)) < 0 ||
	    (rc = json_req_int(o, "system_prompt_len", ctx, 0, 1 << 24, &s->sp_system, e)) < 0 ||
	    (rc = json_req_int(o, "question_len", ctx, 1, 1 << 24, &s->sp_question, e)) < 0 ||
	    (rc = json_req_int(o, "output_len", ctx, 1, 1 << 24, &s->sp_output, e)) < 0)
		return rc;
	if (s->sp_groups * s->sp_prompts > WL_MAX_TOKENS)
		return err_set(e, SS_EDATA, "%s: num_groups x num_prompts_per_group must be <= %lld, got %lld",
			       ctx, (long long)WL_MAX_TOKENS, (long long)(s->sp_groups * s->sp_prompts));
	if (s->sp_system + s->sp_question > WL_MAX_TOKENS)
		return err_set(e, SS_EDATA, "%s: system_prompt_len + question_len must be <= %lld, got %lld",
			       ctx, (long long)WL_MAX_TOKENS, (long long)(s->sp_system + s->sp_question));
	return 0;
}

/* "sessions": {"count": N, "turns": T, "think_time_s": S, "tool_tokens": K},
 * each of turns, think_time_s and tool_tokens a number or a distribution
 * in the syntax of prompt_tokens (think_time_s in seconds). */
static int parse_sessions(const struct json *o, const char *src, struct wl_spec *s, struct err *e)
{
	static const char *const keys[] = {"count", "turns", "think_time_s", "tool_tokens", NULL};
	static const struct dist_rule turns_rule = {1, WL_MAX_TURNS, 1};
	static const struct dist_rule think_rule = {0, WL_MAX_THINK_MS, 1000};
	static const struct dist_rule tool_rule = {0, WL_MAX_TOKENS, 1};
	char ctx[700];
	const struct json *x;
	int rc;

	snprintf(ctx, sizeof(ctx), "%s: sessions", src);
	if ((rc = json_check_keys(o, keys, ctx, e)) < 0)
		return rc;
	if ((rc = json_req_int(o, "count", ctx, 1, WL_MAX_SESSIONS, &s->sess.count, e)) < 0)
		return rc;
	if (!(x = json_get(o, "turns")))
		return err_set(e, SS_EDATA, "%s: missing required key 'turns'", ctx);
	if ((rc = parse_dist_rule(x, ctx, "turns", &turns_rule, &s->sess.turns, e)) < 0)
		return rc;
	if ((x = json_get(o, "think_time_s")) &&
	    (rc = parse_dist_rule(x, ctx, "think_time_s", &think_rule, &s->sess.think_ms, e)) < 0)
		return rc;
	if ((x = json_get(o, "tool_tokens")) &&
	    (rc = parse_dist_rule(x, ctx, "tool_tokens", &tool_rule, &s->sess.tool, e)) < 0)
		return rc;
	return 0;
}

/* "lora": {"adapters": K, "distribution": "zipf:S" | "uniform"} (default
 * uniform); S in (0, 100]. */
static int parse_lora(const struct json *o, const char *src, struct wl_spec *s, struct err *e)
{
	static const char *const keys[] = {"adapters", "distribution", NULL};
	const char *d = NULL;
	char ctx[700];
	int rc;

	snprintf(ctx, sizeof(ctx), "%s: lora", src);
	if ((rc = json_check_keys(o, keys, ctx, e)) < 0)
		return rc;
	if ((rc = json_req_int(o, "adapters", ctx, 1, WL_MAX_ADAPTERS, &s->lora.adapters, e)) < 0)
		return rc;
	if ((rc = json_opt_str(o, "distribution", ctx, &d, e)) < 0)
		return rc;
	s->lora.zipf_s = 0;
	if (!d || strcmp(d, "uniform") == 0)
		return 0;
	if (strncmp(d, "zipf:", 5) == 0) {
		const char *end;
		double z;
		if (argval_lead_num(d + 5, &z, &end) && *end == '\0' && z > 0 && z <= 100) {
			s->lora.zipf_s = z;
			return 0;
		}
	}
	return err_set(e, SS_EDATA, "%s: 'distribution' must be uniform or zipf:S with S in (0, 100], got '%.40s'",
		       ctx, d);
}

/* "images": {"count": N or a distribution (default 1), "resolution": [W, H],
 * "repeat_fraction": F (default 0)}. */
static int parse_images(const struct json *o, const char *src, struct wl_spec *s, struct err *e)
{
	static const char *const keys[] = {"count", "resolution", "repeat_fraction", NULL};
	static const struct dist_rule count_rule = {0, WL_MAX_IMAGES, 1};
	const struct json *x, *r;
	char ctx[700];
	bool pres;
	int rc;

	snprintf(ctx, sizeof(ctx), "%s: images", src);
	if ((rc = json_check_keys(o, keys, ctx, e)) < 0)
		return rc;
	s->images.on = true;
	memset(&s->images.count, 0, sizeof(s->images.count));
	s->images.count.kind = WL_FIXED;
	s->images.count.a = 1;
	s->images.count.max = WL_MAX_IMAGES;
	if ((x = json_get(o, "count")) &&
	    (rc = parse_dist_rule(x, ctx, "count", &count_rule, &s->images.count, e)) < 0)
		return rc;
	r = json_get(o, "resolution");
	if (!r)
		return err_set(e, SS_EDATA, "%s: missing required key 'resolution' ([width, height] in pixels)", ctx);
	if (json_type_of(r) != JSON_ARRAY || json_size(r) != 2 || json_type_of(json_at(r, 0)) != JSON_NUMBER ||
	    json_type_of(json_at(r, 1)) != JSON_NUMBER)
		return err_set(e, SS_EDATA, "%s: 'resolution' must be [width, height] in pixels", ctx);
	for (int k = 0; k < 2; k++) {
		double v = json_number(json_at(r, (size_t)k));
		if (!(v >= 1 && v <= (double)WL_MAX_IMAGE_SIDE) || v != floor(v))
			return err_set(e, SS_EDATA, "%s: 'resolution'[%d] (%s) must be an integer in [1, %lld] pixels, got %g",
				       ctx, k, k ? "height" : "width", (long long)WL_MAX_IMAGE_SIDE, v);
		*(k ? &s->images.height : &s->images.width) = (int64_t)v;
	}
	if ((rc = json_opt_num(o, "repeat_fraction", ctx, &s->images.repeat, &pres, e)) < 0)
		return rc;
	if (pres && !(s->images.repeat >= 0 && s->images.repeat <= 1))
		return err_set(e, SS_EDATA, "%s: 'repeat_fraction' must be in [0, 1], got %g", ctx, s->images.repeat);
	return 0;
}

/* The benchmark clients servesim knows, canonical name first then its
 * aliases.  aiperf is genai-perf's successor with the same flags: the
 * harness of aiconfigurator's silicon rows (eval/silicon/HARNESS.md). */
static const char *const harnesses[][3] = {
	{"aiperf", "genai-perf", NULL},
	{"vllm-bench", "vllm-bench-serve", NULL},
	{"sglang-bench", "sglang-bench-serving", NULL},
	{"guidellm", NULL, NULL},
	{"inference-perf", NULL, NULL},
};

const char *wl_harness_canonical(const char *name, char *list, size_t n)
{
	size_t i, k, len = 0;
	const char *hit = NULL;

	for (i = 0; i < sizeof(harnesses) / sizeof(harnesses[0]); i++) {
		for (k = 0; k < 3 && harnesses[i][k]; k++)
			if (name && strcmp(name, harnesses[i][k]) == 0)
				hit = harnesses[i][0];
		if (list && len < n) {
			int w = snprintf(list + len, n - len, "%s%s", i ? ", " : "", harnesses[i][0]);
			if (w > 0)
				len += (size_t)w;
		}
	}
	return hit;
}

const char *wl_prompt_kind_name(enum wl_prompt_kind k)
{
	switch (k) {
	case WL_PROMPTS_CHAT: return "chat";
	case WL_PROMPTS_RANDOM: return "random";
	default: return "unset";
	}
}

int wl_prompt_kind_parse(const char *name, const char *src, enum wl_prompt_kind *out, struct err *e)
{
	if (strcmp(name, "chat") == 0)
		*out = WL_PROMPTS_CHAT;
	else if (strcmp(name, "random") == 0)
		*out = WL_PROMPTS_RANDOM;
	else
		return err_set(e, SS_EUSAGE, "%s: 'prompt_kind' must be chat or random, got '%.40s'", src, name);
	return 0;
}

/* aiperf (genai-perf), vllm bench serve and sglang.bench_serving send
 * synthetic prompts unless told otherwise (their random / synthetic
 * datasets); GuideLLM and inference-perf are run on text datasets. */
enum wl_prompt_kind wl_prompt_kind(const struct wl_spec *s)
{
	if (s->prompt_kind != WL_PROMPTS_UNSET)
		return s->prompt_kind;
	if (strcmp(s->harness, "aiperf") == 0 || strcmp(s->harness, "vllm-bench") == 0 ||
	    strcmp(s->harness, "sglang-bench") == 0)
		return WL_PROMPTS_RANDOM;
	return WL_PROMPTS_CHAT;
}

/* "rate_curve": [[t_s, rate], ...] (checked with the rest of the spec by
 * check_curve). */
static int parse_curve(const struct json *o, const char *src, struct wl_spec *s, struct err *e)
{
	const struct json *p;
	size_t i = 0;

	if (json_type_of(o) != JSON_ARRAY || json_size(o) < 2 || json_size(o) > WL_MAX_CURVE)
		return err_set(e, SS_EDATA, "%s: 'rate_curve' must be an array of 2..%d [t_s, rate] points", src,
			       WL_MAX_CURVE);
	for (p = json_first(o); p; p = json_next(p), i++) {
		if (json_type_of(p) != JSON_ARRAY || json_size(p) != 2 ||
		    json_type_of(json_at(p, 0)) != JSON_NUMBER || json_type_of(json_at(p, 1)) != JSON_NUMBER)
			return err_set(e, SS_EDATA, "%s: rate_curve[%zu] must be a pair [t_s, rate] of numbers", src, i);
		s->curve_t[i] = json_number(json_at(p, 0));
		s->curve_rate[i] = json_number(json_at(p, 1));
	}
	s->ncurve = i;
	return 0;
}

/* A rate curve: 2.. points from t = 0 on, times increasing up to
 * WL_MAX_TIME_S, rates in [0, WL_MAX_RATE] with some above 0, not with
 * stages, an arrival process with a rate. */
static int check_curve(const struct wl_spec *s, const char *src, struct err *e)
{
	size_t i;

	if (s->nstages)
		return err_set(e, SS_EUSAGE, "%s: 'rate_curve' and 'stages' exclude each other", src);
	if (s->process != WL_POISSON && s->process != WL_GAMMA && s->process != WL_CONSTANT)
		return err_set(e, SS_EUSAGE, "%s: 'rate_curve' needs poisson, gamma or constant arrivals, got %s", src,
			       wl_process_name(s->process));
	if (s->ncurve < 2 || s->ncurve > WL_MAX_CURVE || s->curve_t[0] != 0)
		return err_set(e, SS_EUSAGE, "%s: 'rate_curve' needs 2..%d points, the first at t_s 0, got %zu from %g s",
			       src, WL_MAX_CURVE, s->ncurve, s->ncurve ? s->curve_t[0] : 0.0);
	for (i = 0; i < s->ncurve; i++) {
		if (!(s->curve_rate[i] >= 0 && s->curve_rate[i] <= WL_MAX_RATE))
			return err_set(e, SS_EUSAGE, "%s: rate_curve[%zu]: rate must be in [0, %g] requests/s, got %g",
				       src, i, WL_MAX_RATE, s->curve_rate[i]);
		if (i > 0 && !(s->curve_t[i] > s->curve_t[i - 1] && s->curve_t[i] <= WL_MAX_TIME_S))
			return err_set(e, SS_EUSAGE, "%s: rate_curve[%zu]: t_s must be above the previous point's "
				       "(%g) and at most %g s, got %g", src, i, s->curve_t[i - 1], WL_MAX_TIME_S,
				       s->curve_t[i]);
	}
	if (!(wl_curve_integral(s, s->curve_t[s->ncurve - 1]) > 0))
		return err_set(e, SS_EUSAGE, "%s: 'rate_curve' is 0 everywhere: no request would arrive", src);
	return 0;
}

int wl_spec_from_json(const struct json *root, const char *src, struct wl_spec *s,
		      struct err *e)
{
	static const char *const keys[] = {"seed", "arrival", "stages", "num_requests", "duration_s",
		"prompt_tokens", "output_tokens", "prefix_tokens", "shared_prefix", "name",
		"description", "harness", "prompt_kind", "sessions", "lora", "images", "rate_curve", NULL};
	const struct json *o;
	int64_t seed = 42;
	bool pres;
	int rc;

	wl_spec_defaults(s);
	snprintf(s->source, sizeof(s->source), "%s", src);
	if ((rc = json_check_keys(root, keys, src, e)) < 0)
		return rc;
	if ((rc = json_opt_int(root, "seed", src, 0, INT64_MAX, &seed, &pres, e)) < 0)
		return rc;
	s->seed = (uint64_t)seed;
	o = json_get(root, "arrival");
	if (!o)
		return err_set(e, SS_EDATA, "%s: missing required key 'arrival'", src);
	if ((rc = parse_arrival(o, src, s, e)) < 0)
		return rc;
	s->num_requests = 0;
	if ((rc = json_opt_int(root, "num_requests", src, 1, INT64_MAX, &s->num_requests, &pres, e)) < 0)
		return rc;
	if ((rc = json_opt_num(root, "duration_s", src, &s->duration_s, &pres, e)) < 0)
		return rc;
	if (pres && !(s->duration_s > 0 && s->duration_s <= WL_MAX_TIME_S))
		return err_set(e, SS_EDATA, "%s: 'duration_s' must be in (0, %g] s, got %g", src,
			       WL_MAX_TIME_S, s->duration_s);
	o = json_get(root, "stages");
	if (o) {
		const struct json *st;
		size_t i = 0;
		if (json_type_of(o) != JSON_ARRAY || json_size(o) == 0 || json_size(o) > WL_MAX_STAGES)
			return err_set(e, SS_EDATA, "%s: 'stages' must be an array of 1..%d stages", src,
				       WL_MAX_STAGES);
		for (st = json_first(o); st; st = json_next(st), i++) {
			static const char *const sk[] = {"rate", "duration_s", "concurrency", NULL};
			char ctx[700];
			double conc = 0;
			snprintf(ctx, sizeof(ctx), "%s: stages[%zu]", src, i);
			if ((rc = json_check_keys(st, sk, ctx, e)) < 0)
				return rc;
			if ((rc = json_opt_num(st, "rate", ctx, &s->stages[i].rate, &pres, e)) < 0)
				return rc;
			if (!pres && (rc = json_req_num(st, "concurrency", ctx, &conc, e)) < 0)
				return rc;
			if (!pres)
				s->stages[i].rate = conc;
			if (!(s->stages[i].rate >= WL_MIN_RATE && s->stages[i].rate <= WL_MAX_RATE))
				return err_set(e, SS_EDATA, "%s: 'rate' must be in [%g, %g], got %g", ctx,
					       WL_MIN_RATE, WL_MAX_RATE, s->stages[i].rate);
			if ((rc = json_req_num(st, "duration_s", ctx, &s->stages[i].duration_s, e)) < 0)
				return rc;
			if (!(s->stages[i].duration_s > 0 && s->stages[i].duration_s <= WL_MAX_TIME_S))
				return err_set(e, SS_EDATA, "%s: 'duration_s' must be in (0, %g] s, got %g", ctx,
					       WL_MAX_TIME_S, s->stages[i].duration_s);
		}
		s->nstages = i;
	}
	o = json_get(root, "rate_curve");
	if (o && (rc = parse_curve(o, src, s, e)) < 0)
		return rc;
	o = json_get(root, "shared_prefix");
	if (o && (rc = parse_shared_prefix(o, src, s, e)) < 0)
		return rc;
	o = json_get(root, "sessions");
	if (o && (rc = parse_sessions(o, src, s, e)) < 0)
		return rc;
	if (o && json_get(root, "num_requests"))
		return err_set(e, SS_EDATA, "%s: 'num_requests' and 'sessions' exclude each other: "
			       "'sessions.count' says how many sessions start", src);
	o = json_get(root, "lora");
	if (o && (rc = parse_lora(o, src, s, e)) < 0)
		return rc;
	o = json_get(root, "images");
	if (o && (rc = parse_images(o, src, s, e)) < 0)
		return rc;
	o = json_get(root, "prompt_tokens");
	if (o && (rc = parse_dist(o, src, "prompt_tokens", &s->prompt, e)) < 0)
		return rc;
	o = json_get(root, "output_tokens");
	if (o && (rc = parse_dist(o, src, "output_tokens", &s->output, e)) < 0)
		return rc;
	if ((rc = json_opt_int(root, "prefix_tokens", src, 0, 1 << 24, &s->prefix_tokens, &pres, e)) < 0)
		return rc;
	{
		const char *h = NULL, *canon;
		char names[160];
		if ((rc = json_opt_str(root, "harness", src, &h, e)) < 0)
			return rc;
		if (h) {
			if (!(canon = wl_harness_canonical(h, names, sizeof(names))))
				return err_set(e, SS_EDATA, "%s: 'harness' must be one of %s, got '%.40s'", src,
					       names, h);
			snprintf(s->harness, sizeof(s->harness), "%s", canon);
		}
	}
	{
		const char *k = NULL;
		if ((rc = json_opt_str(root, "prompt_kind", src, &k, e)) < 0)
			return rc;
		if (k && wl_prompt_kind_parse(k, src, &s->prompt_kind, e) < 0)
			return -SS_EDATA;
	}
	return wl_spec_validate(s, src, e) < 0 ? -SS_EDATA : 0;
}

static int check_dist(const struct wl_dist *d, const char *src, const char *name, struct err *e)
{
	double top = (double)WL_MAX_TOKENS;

	if (d->min < 1 || d->max > WL_MAX_TOKENS || d->max < d->min)
		return err_set(e, SS_EUSAGE, "%s: %s: min/max must lie in [1, %lld], got %lld..%lld", src,
			       name, (long long)WL_MAX_TOKENS, (long long)d->min, (long long)d->max);
	if (!(d->a >= 0 && d->a <= top))
		return err_set(e, SS_EUSAGE, "%s: %s must be in [1, %lld] tokens, got %g", src, name,
			       (long long)WL_MAX_TOKENS, d->a);
	if (!(d->b >= 0 && d->b <= top))
		return err_set(e, SS_EUSAGE, "%s: %s: the spread must be in [0, %lld] tokens, got %g", src,
			       name, (long long)WL_MAX_TOKENS, d->b);
	return 0;
}

static int check_sessions(const struct wl_spec *s, const char *src, struct err *e)
{
	const struct wl_sessions *ss = &s->sess;

	if (s->process == WL_CONCURRENCY || s->process == WL_TRACE)
		return err_set(e, SS_EUSAGE, "%s: 'sessions' need an open-loop arrival process (the one "
			       "that starts sessions), got %s", src, wl_process_name(s->process));
	if (s->sp_groups > 0 || s->prefix_tokens > 0)
		return err_set(e, SS_EUSAGE, "%s: 'sessions' carry their own context; give no "
			       "'shared_prefix' or 'prefix_tokens' with them", src);
	if (s->num_requests > 0)
		return err_set(e, SS_EUSAGE, "%s: 'num_requests' and 'sessions' exclude each other: "
			       "'sessions.count' says how many sessions start", src);
	if (ss->count > WL_MAX_SESSIONS)
		return err_set(e, SS_EUSAGE, "%s: 'sessions.count' must be in [1, %lld], got %lld", src,
			       (long long)WL_MAX_SESSIONS, (long long)ss->count);
	if (ss->turns.min < 1 || ss->turns.max > WL_MAX_TURNS || ss->turns.max < ss->turns.min ||
	    !(ss->turns.a >= 0 && ss->turns.a <= WL_MAX_TURNS))
		return err_set(e, SS_EUSAGE, "%s: 'sessions.turns' must lie in [1, %d], got %g (%lld..%lld)",
			       src, WL_MAX_TURNS, ss->turns.a, (long long)ss->turns.min, (long long)ss->turns.max);
	if (ss->think_ms.min < 0 || ss->think_ms.max > WL_MAX_THINK_MS || ss->think_ms.max < ss->think_ms.min)
		return err_set(e, SS_EUSAGE, "%s: 'sessions.think_time_s' must lie in [0, %g] s", src,
			       (double)WL_MAX_THINK_MS * 1e-3);
	if (ss->tool.min < 0 || ss->tool.max > WL_MAX_TOKENS || ss->tool.max < ss->tool.min)
		return err_set(e, SS_EUSAGE, "%s: 'sessions.tool_tokens' must lie in [0, %lld]", src,
			       (long long)WL_MAX_TOKENS);
	return 0;
}

double wl_dist_mean(const struct wl_dist *d)
{
	double sum = 0;
	size_t i;

	switch (d->kind) {
	case WL_UNIFORM: return (d->a + d->b) / 2;
	case WL_EMPIRICAL:
		for (i = 0; i < d->nvalues; i++)
			sum += d->values[i];
		return d->nvalues ? sum / (double)d->nvalues : 0;
	case WL_FIXED: case WL_NORMAL: case WL_LOGNORMAL: case WL_DATASET: break;
	}
	return d->a;
}

double wl_spec_expected_requests(const struct wl_spec *s)
{
	double n = 0;
	size_t i;

	if (s->process == WL_TRACE || s->process == WL_CONCURRENCY)
		return s->num_requests > 0 ? (double)s->num_requests : -1;
	if (s->sess.count > 0) /* every session's turns (within its arrivals' span) */
		return (double)s->sess.count * wl_dist_mean(&s->sess.turns);
	if (s->ncurve)
		n = wl_curve_integral(s, s->duration_s > 0 ? s->duration_s : INFINITY);
	else if (s->nstages)
		for (i = 0; i < s->nstages; i++)
			n += s->stages[i].rate * s->stages[i].duration_s;
	else if (s->duration_s > 0)
		n = s->rate * s->duration_s;
	else
		n = INFINITY;
	if (s->num_requests > 0 && (double)s->num_requests < n)
		n = (double)s->num_requests;
	return n;
}

int wl_spec_validate(const struct wl_spec *s, const char *src, struct err *e)
{
	bool open = s->process != WL_CONCURRENCY && s->process != WL_TRACE;
	double total = 0;
	size_t i;
	int rc;

	if (s->process == WL_TRACE)
		return 0;
	if ((rc = check_dist(&s->prompt, src, "prompt_tokens", e)) < 0 ||
	    (rc = check_dist(&s->output, src, "output_tokens", e)) < 0)
		return rc;
	if (s->ncurve && (rc = check_curve(s, src, e)) < 0)
		return rc;
	if (open && s->nstages == 0 && s->ncurve == 0 && !(s->rate >= WL_MIN_RATE && s->rate <= WL_MAX_RATE))
		return err_set(e, SS_EUSAGE, "%s: 'arrival.rate' must be in [%g, %g] requests/s, got %g",
			       src, WL_MIN_RATE, WL_MAX_RATE, s->rate);
	if (s->process == WL_GAMMA && !(s->cv >= WL_MIN_CV && s->cv <= WL_MAX_CV))
		return err_set(e, SS_EUSAGE, "%s: 'arrival.cv' must be in [%g, %g], got %g", src,
			       WL_MIN_CV, WL_MAX_CV, s->cv);
	if (!(s->duration_s >= 0 && s->duration_s <= WL_MAX_TIME_S))
		return err_set(e, SS_EUSAGE, "%s: 'duration_s' must be in (0, %g] s, got %g", src,
			       WL_MAX_TIME_S, s->duration_s);
	for (i = 0; i < s->nstages; i++)
		total += s->stages[i].duration_s;
	if (!(total <= WL_MAX_TIME_S))
		return err_set(e, SS_EUSAGE, "%s: the stages last %g s in all, more than %g s", src, total,
			       WL_MAX_TIME_S);
	for (i = 0; i < s->nstages; i++)
		if (!(s->stages[i].rate >= WL_MIN_RATE && s->stages[i].rate <= WL_MAX_RATE) ||
		    !(s->stages[i].duration_s > 0 && s->stages[i].duration_s <= WL_MAX_TIME_S))
			return err_set(e, SS_EUSAGE, "%s: stages[%zu]: rate must be in [%g, %g] and duration_s "
				       "in (0, %g], got %g and %g", src, i, WL_MIN_RATE, WL_MAX_RATE,
				       WL_MAX_TIME_S, s->stages[i].rate, s->stages[i].duration_s);
	if (s->prefix_tokens < 0 || s->prefix_tokens > WL_MAX_TOKENS)
		return err_set(e, SS_EUSAGE, "%s: 'prefix_tokens' must be in [0, %lld], got %lld", src,
			       (long long)WL_MAX_TOKENS, (long long)s->prefix_tokens);
	if (s->sess.count > 0 && (rc = check_sessions(s, src, e)) < 0)
		return rc;
	if (s->images.on &&
	    (s->images.width < 1 || s->images.width > WL_MAX_IMAGE_SIDE || s->images.height < 1 ||
	     s->images.height > WL_MAX_IMAGE_SIDE || !(s->images.repeat >= 0 && s->images.repeat <= 1) ||
	     s->images.count.min < 0 || s->images.count.max > WL_MAX_IMAGES))
		return err_set(e, SS_EUSAGE, "%s: 'images' needs a resolution of 1..%lld pixels a side, a "
			       "repeat_fraction in [0, 1] and a count in [0, %d], got %lldx%lld, %g, %lld..%lld", src,
			       (long long)WL_MAX_IMAGE_SIDE, WL_MAX_IMAGES, (long long)s->images.width,
			       (long long)s->images.height, s->images.repeat, (long long)s->images.count.min,
			       (long long)s->images.count.max);
	if (s->num_requests == 0 && s->duration_s == 0 && s->nstages == 0 && s->ncurve == 0 && s->sess.count == 0)
		return err_set(e, SS_EUSAGE,
			       "%s: give 'num_requests', 'duration_s', 'stages' or 'rate_curve' (the workload needs an end)",
			       src);
	if ((s->process == WL_UNIFORM_COUNT || s->process == WL_POISSON_COUNT) && s->nstages == 0 &&
	    s->duration_s == 0)
		return err_set(e, SS_EUSAGE, "%s: process %s needs 'stages' or 'duration_s'", src,
			       wl_process_name(s->process));
	if (open && s->nstages == 0 && s->ncurve == 0 && !(s->rate > 0))
		return err_set(e, SS_EUSAGE, "%s: 'arrival.rate' must be > 0, got %g", src, s->rate);
	return 0;
}

int64_t wl_spec_max_requests(const struct wl_spec *s)
{
	return s->max_requests > 0 ? s->max_requests : WL_DEFAULT_MAX_REQUESTS;
}

int wl_spec_check_size(const struct wl_spec *s, const char *src, struct err *e)
{
	int64_t max = wl_spec_max_requests(s);
	double n = wl_spec_expected_requests(s);

	if (n > (double)max)
		return err_set(e, SS_EUSAGE, "%s: the workload would generate %.4g requests (rate x duration "
			       "or num_requests), more than the limit of %lld; lower the rate or the duration, "
			       "or raise the limit with --max-requests", src, n, (long long)max);
	return 0;
}

int wl_spec_load(const char *path, struct wl_spec *s, struct err *e)
{
	struct json *root;
	int rc = yaml_or_json_parse_file(path, WL_MAX_SPEC_BYTES, &root, e);

	if (rc < 0) {
		wl_spec_defaults(s);
		return rc;
	}
	rc = wl_spec_from_json(root, path, s, e);
	json_free(root);
	return rc;
}

int wl_image_size_parse(const char *flag, const char *arg, int64_t *w, int64_t *h, struct err *e)
{
	long long v[2] = {0, 0};

	if (!argval_pattern(arg, "#x#", v, 2) || v[0] < 1 || v[1] < 1 || v[0] > WL_MAX_IMAGE_SIDE ||
	    v[1] > WL_MAX_IMAGE_SIDE)
		return err_set(e, SS_EUSAGE, "%s must be WxH in pixels, 1 to %lld a side, got '%s'", flag,
			       (long long)WL_MAX_IMAGE_SIDE, arg);
	*w = v[0];
	*h = v[1];
	return 0;
}
