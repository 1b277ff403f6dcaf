/* experiment.c - reader of servesim's ground-truth experiment format. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "servesim/eval.h"

const char *ev_metric_name(enum ev_metric m)
{
	static const char *n[EM__COUNT] = {"ttft_mean_ms", "ttft_p90_ms", "itl_mean_ms",
					   "e2e_mean_ms", "e2e_p90_ms", "throughput_rps"};
	return (unsigned)m < EM__COUNT ? n[m] : "?";
}

static int copy_str(const struct json *o, const char *key, const char *ctx, char *dst, size_t n,
		    bool req, struct err *e)
{
	const char *s = NULL;
	int rc = req ? json_req_str(o, key, ctx, &s, e) : json_opt_str(o, key, ctx, &s, e);

	if (rc < 0)
		return rc;
	if (s)
		snprintf(dst, n, "%s", s);
	return 0;
}

static int stat_field(const struct json *st, const char *obj, const char *key, const char *ctx,
		      double *out, struct err *e)
{
	const struct json *o = json_get(st, obj);
	static const char *const keys[] = {"mean", "p50", "p90", "p99", "reported_mean", NULL};
	char c2[800];
	bool pres = false;
	int rc;

	*out = NAN;
	if (!o)
		return 0;
	snprintf(c2, sizeof(c2), "%s.%s", ctx, obj);
	if ((rc = json_check_keys(o, keys, c2, e)) < 0)
		return rc;
	if ((rc = json_opt_num(o, key, c2, out, &pres, e)) < 0)
		return rc;
	if (pres && !(*out >= 0))
		return err_set(e, SS_EDATA, "%s: '%s' must be >= 0, got %g", c2, key, *out);
	if (!pres)
		*out = NAN;
	return 0;
}

static int parse_engine(const struct json *o, const char *ctx, struct experiment *x, struct err *e)
{
	static const char *const keys[] = {"name", "version", "max_num_batched_tokens", "max_num_seqs",
		"max_model_len", "block_size", "gpu_memory_utilization", "total_kv_blocks",
		"enable_prefix_caching", NULL};
	char c2[800];
	bool pres;
	int rc;

	snprintf(c2, sizeof(c2), "%s: engine", ctx);
	if ((rc = json_check_keys(o, keys, c2, e)) < 0)
		return rc;
	if ((rc = copy_str(o, "version", c2, x->engine_version, sizeof(x->engine_version), false, e)) < 0)
		return rc;
	if ((rc = json_req_int(o, "max_num_batched_tokens", c2, 1, 1 << 24, &x->max_num_batched_tokens, e)) < 0 ||
	    (rc = json_req_int(o, "max_num_seqs", c2, 1, 1 << 20, &x->max_num_seqs, e)) < 0 ||
	    (rc = json_req_int(o, "max_model_len", c2, 1, 1 << 24, &x->max_model_len, e)) < 0)
		return rc;
	x->block_size = 16;
	if ((rc = json_opt_int(o, "block_size", c2, 1, 1024, &x->block_size, &pres, e)) < 0)
		return rc;
	x->gpu_memory_utilization = 0.9;
	if ((rc = json_opt_num(o, "gpu_memory_utilization", c2, &x->gpu_memory_utilization, &pres, e)) < 0)
		return rc;
	if (!(x->gpu_memory_utilization > 0 && x->gpu_memory_utilization <= 1))
		return err_set(e, SS_EDATA, "%s: 'gpu_memory_utilization' must be in (0, 1], got %g", c2,
			       x->gpu_memory_utilization);
	if ((rc = json_opt_int(o, "total_kv_blocks", c2, 1, 1 << 28, &x->total_kv_blocks, &pres, e)) < 0)
		return rc;
	x->prefix_caching = true;
	return json_opt_bool(o, "enable_prefix_caching", c2, &x->prefix_caching, e);
}

static int parse_measured(const struct json *o, const char *ctx, struct experiment *x,
			  struct err *e)
{
	static const char *const keys[] = {"kind", "stages", "file", NULL};
	static const char *const skeys[] = {"index", "rate", "duration_s", "completed",
					    "achieved_rate", "ttft_ms", "itl_ms", "e2e_ms", NULL};
	char c2[800];
	const char *kind = NULL;
	const struct json *arr, *st;
	size_t i = 0;
	int rc;

	snprintf(c2, sizeof(c2), "%s: measured", ctx);
	if ((rc = json_check_keys(o, keys, c2, e)) < 0 || (rc = json_req_str(o, "kind", c2, &kind, e)) < 0)
		return rc;
	if (strcmp(kind, "stages") != 0)
		return err_set(e, SS_EDATA, "%s: 'kind' \"%s\" is not supported yet (expected \"stages\")", c2, kind);
	arr = json_get(o, "stages");
	if (!arr || json_type_of(arr) != JSON_ARRAY || json_size(arr) == 0 || json_size(arr) > WL_MAX_STAGES)
		return err_set(e, SS_EDATA, "%s: 'stages' must be an array of 1..%d stages", c2, WL_MAX_STAGES);
	for (st = json_first(arr); st; st = json_next(st), i++) {
		struct measured_stage *m = &x->stages[i];
		char c3[900];
		int64_t idx;
		snprintf(c3, sizeof(c3), "%s.stages[%zu]", c2, i);
		if ((rc = json_check_keys(st, skeys, c3, e)) < 0 ||
		    (rc = json_req_int(st, "index", c3, 0, WL_MAX_STAGES - 1, &idx, e)) < 0 ||
		    (rc = json_req_num(st, "rate", c3, &m->rate, e)) < 0 ||
		    (rc = json_req_num(st, "duration_s", c3, &m->duration_s, e)) < 0 ||
		    (rc = json_req_int(st, "completed", c3, 0, INT64_MAX, &m->completed, e)) < 0)
			return rc;
		if (!(m->duration_s > 0))
			return err_set(e, SS_EDATA, "%s: 'duration_s' must be > 0, got %g", c3, m->duration_s);
		m->index = (int)idx;
		if ((rc = stat_field(st, "ttft_ms", "mean", c3, &m->v[EM_TTFT_MEAN], e)) < 0 ||
		    (rc = stat_field(st, "ttft_ms", "p90", c3, &m->v[EM_TTFT_P90], e)) < 0 ||
		    (rc = stat_field(st, "itl_ms", "mean", c3, &m->v[EM_ITL_MEAN], e)) < 0 ||
		    (rc = stat_field(st, "e2e_ms", "mean", c3, &m->v[EM_E2E_MEAN], e)) < 0 ||
		    (rc = stat_field(st, "e2e_ms", "p90", c3, &m->v[EM_E2E_P90], e)) < 0)
			return rc;
		m->v[EM_THROUGHPUT] = (double)m->completed / m->duration_s;
	}
	x->nstages = i;
	return 0;
}

int experiment_load(const char *path, struct experiment *x, struct err *e)
{
	static const char *const keys[] = {"name", "source", "model", "gpu", "tp", "pp", "dp", "ep",
		"dtype", "engine", "workload", "measured", NULL};
	struct json *root = NULL;
	const struct json *o;
	const char *dt = "bf16";
	int64_t v;
	bool pres;
	int rc;

	memset(x, 0, sizeof(*x));
	wl_spec_defaults(&x->wl);
	snprintf(x->path, sizeof(x->path), "%s", path);
	if ((rc = json_parse_file(path, &root, e)) < 0)
		return rc;
	if ((rc = json_check_keys(root, keys, path, e)) < 0 ||
	    (rc = copy_str(root, "name", path, x->name, sizeof(x->name), true, e)) < 0 ||
	    (rc = copy_str(root, "source", path, x->source, sizeof(x->source), false, e)) < 0 ||
	    (rc = copy_str(root, "model", path, x->model, sizeof(x->model), true, e)) < 0 ||
	    (rc = copy_str(root, "gpu", path, x->gpu, sizeof(x->gpu), true, e)) < 0)
		goto out;
	x->tp = x->pp = x->dp = x->ep = 1;
	if ((rc = json_req_int(root, "tp", path, 1, 4096, &v, e)) < 0)
		goto out;
	x->tp = (int)v;
	if ((rc = json_opt_int(root, "pp", path, 1, 4096, &v, &pres, e)) < 0)
		goto out;
	if (pres)
		x->pp = (int)v;
	if ((rc = json_opt_int(root, "dp", path, 1, 4096, &v, &pres, e)) < 0)
		goto out;
	if (pres)
		x->dp = (int)v;
	if ((rc = json_opt_int(root, "ep", path, 1, 4096, &v, &pres, e)) < 0)
		goto out;
	if (pres)
		x->ep = (int)v;
	if ((rc = json_opt_str(root, "dtype", path, &dt, e)) < 0)
		goto out;
	if ((rc = dtype_parse(dt, &x->dtype, e)) < 0) {
		rc = err_set(e, SS_EDATA, "%s: 'dtype' must be bf16, fp16, fp8 or fp4, got \"%s\"", path, dt);
		goto out;
	}
	o = json_get(root, "engine");
	if (!o) {
		rc = err_set(e, SS_EDATA, "%s: missing required key 'engine'", path);
		goto out;
	}
	if ((rc = parse_engine(o, path, x, e)) < 0)
		goto out;
	o = json_get(root, "workload");
	if (!o) {
		rc = err_set(e, SS_EDATA, "%s: missing required key 'workload'", path);
		goto out;
	}
	{
		char c2[800];
		snprintf(c2, sizeof(c2), "%s: workload", path);
		if ((rc = wl_spec_from_json(o, c2, &x->wl, e)) < 0)
			goto out;
		snprintf(x->wl.source, sizeof(x->wl.source), "%s", x->name);
	}
	o = json_get(root, "measured");
	if (!o) {
		rc = err_set(e, SS_EDATA, "%s: missing required key 'measured'", path);
		goto out;
	}
	rc = parse_measured(o, path, x, e);
out:
	json_free(root);
	return rc;
}

void experiment_release(struct experiment *x)
{
	wl_spec_release(&x->wl);
}
