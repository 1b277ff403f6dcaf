/* tier1file.c - calibration files (calibration/tier1/NAME.json, written by
 * `servesim calibrate`): read, matched to a run's GPU and engine version,
 * and their "overheads" object, which run's JSON reuses. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/alloc.h"
#include "base/json.h"
#include "readers/tier1file.h"

void calib_overheads_json(struct jw *w, const struct overheads *ov)
{
	jw_obj(w, "overheads");
	jw_num(w, "step_us", ov->step_us);
	jw_num(w, "layer_us", ov->layer_us);
	jw_num(w, "request_us", ov->req_us);
	jw_num(w, "prefill_token_us", ov->prefill_token_us);
	jw_num(w, "api_ttft_ms", ov->api_ttft_ms);
	jw_num(w, "api_e2e_ms", ov->api_e2e_ms);
	jw_num(w, "stream_token_us", ov->stream_token_us);
	jw_num(w, "delivery_steps", ov->delivery_steps);
	jw_end_obj(w);
}

int calib_load(const char *path, struct calib_file *f, struct err *e)
{
	static const char *const okeys[] = {"step_us", "layer_us", "request_us", "prefill_token_us",
		"api_ttft_ms", "api_e2e_ms", "stream_token_us", "delivery_steps", NULL};
	struct json *j;
	const struct json *o;
	const char *s = NULL;
	int64_t tp = 1;
	bool b = false;
	int rc;

	memset(f, 0, sizeof(*f));
	snprintf(f->path, sizeof(f->path), "%s", path);
	if ((rc = json_parse_file(path, &j, e)) < 0)
		return rc;
	if ((rc = json_req_str(j, "model", path, &s, e)) < 0)
		goto out;
	snprintf(f->model, sizeof(f->model), "%s", s);
	if ((rc = json_req_str(j, "gpu", path, &s, e)) < 0)
		goto out;
	snprintf(f->gpu, sizeof(f->gpu), "%s", s);
	s = "wls";
	if ((rc = json_opt_str(j, "method", path, &s, e)) < 0)
		goto out;
	snprintf(f->method, sizeof(f->method), "%s", s);
	if ((rc = json_opt_int(j, "tp", path, 1, 4096, &tp, NULL, e)) < 0)
		goto out;
	f->tp = (int)tp;
	o = json_get(j, "engine");
	s = "unknown";
	if (o && (rc = json_opt_str(o, "version", path, &s, e)) < 0)
		goto out;
	snprintf(f->engine_version, sizeof(f->engine_version), "%s", s);
	if ((rc = json_opt_bool(j, "accepted", path, &b, e)) < 0)
		goto out;
	f->accepted = b;
	o = json_get(j, "overheads");
	if (!o) {
		rc = err_set(e, SS_EDATA, "%s: missing required key 'overheads'", path);
		goto out;
	}
	{
		char ctx[800];
		snprintf(ctx, sizeof(ctx), "%s: overheads", path);
		if ((rc = json_check_keys(o, okeys, ctx, e)) < 0 ||
		    (rc = json_req_num(o, "step_us", ctx, &f->ov.step_us, e)) < 0 ||
		    (rc = json_req_num(o, "layer_us", ctx, &f->ov.layer_us, e)) < 0 ||
		    (rc = json_req_num(o, "request_us", ctx, &f->ov.req_us, e)) < 0 ||
		    (rc = json_req_num(o, "prefill_token_us", ctx, &f->ov.prefill_token_us, e)) < 0 ||
		    (rc = json_req_num(o, "api_ttft_ms", ctx, &f->ov.api_ttft_ms, e)) < 0 ||
		    (rc = json_req_num(o, "api_e2e_ms", ctx, &f->ov.api_e2e_ms, e)) < 0 ||
		    (rc = json_req_num(o, "stream_token_us", ctx, &f->ov.stream_token_us, e)) < 0 ||
		    (rc = json_req_num(o, "delivery_steps", ctx, &f->ov.delivery_steps, e)) < 0)
			goto out;
		f->ov.given = OV_TIER1; /* the file's terms replace the engine's own */
	}
	o = json_get(j, "mape");
	if (o) {
		json_opt_num(o, "training_e2e", path, &f->train_e2e, NULL, e);
		json_opt_num(o, "validation_e2e", path, &f->val_e2e, NULL, e);
	}
	rc = 0;
out:
	json_free(j);
	return rc;
}

/* Distance between version strings "a.b.c": |difference| of the numeric
 * parts, weighted by position; unknown versions are far from everything. */
static double version_distance(const char *a, const char *b)
{
	double d = 0, w = 1e6;
	int i;

	if (strcmp(a, b) == 0)
		return 0;
	if (!strcmp(a, "unknown") || !strcmp(b, "unknown"))
		return 1e12;
	for (i = 0; i < 3; i++) {
		long x = strtol(a, (char **)&a, 10), y = strtol(b, (char **)&b, 10);
		d += w * (double)labs(x - y);
		w /= 1000;
		if (*a == '.')
			a++;
		if (*b == '.')
			b++;
	}
	return d;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int calib_find(const char *dir, const char *gpu, const char *version, struct calib_file *f,
	       bool *found, struct err *e)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, cap = 0, i;
	double best = INFINITY;
	int rc = 0;

	*found = false;
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);
		if (l > 5 && strcmp(de->d_name + l - 5, ".json") == 0) {
			XGROW(names, cap, n + 1);
			names[n++] = xstrdup(de->d_name);
		}
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_names);
	for (i = 0; i < n; i++) {
		struct calib_file c;
		char p[1200];
		double dist;
		snprintf(p, sizeof(p), "%s/%s", dir, names[i]);
		if (rc == 0 && (rc = calib_load(p, &c, e)) == 0 && strcasecmp(c.gpu, gpu) == 0 &&
		    c.accepted) {
			dist = version_distance(c.engine_version, version);
			if (dist < best) {
				best = dist;
				*f = c;
				*found = true;
			}
		}
		free(names[i]);
	}
	free(names);
	return rc;
}

bool calib_mismatch(const struct calib_file *f, const char *model, const char *gpu,
		    const char *engine_version, char *buf, size_t n)
{
	size_t used = 0;

	buf[0] = '\0';
	if (f->model[0] && model && strcmp(f->model, model) != 0)
		used += (size_t)snprintf(buf + used, n - used, "model %s (runs: %s)", f->model, model);
	if (used < n && f->gpu[0] && gpu && strcmp(f->gpu, gpu) != 0)
		used += (size_t)snprintf(buf + used, n - used, "%sGPU %s (runs: %s)", used ? ", " : "", f->gpu, gpu);
	if (used < n && f->engine_version[0] && engine_version && engine_version[0] &&
	    strcmp(engine_version, "unknown") != 0 && strcmp(f->engine_version, "unknown") != 0 &&
	    strcmp(f->engine_version, engine_version) != 0)
		used += (size_t)snprintf(buf + used, n - used, "%sengine version %s (runs: %s)", used ? ", " : "",
					 f->engine_version, engine_version);
	return used > 0;
}
