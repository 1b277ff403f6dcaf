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
#include "base/jfield.h"
#include "base/json.h"
#include "readers/tier1file.h"

/* The overhead terms a calibration file holds, in the order it writes
 * them: the one list its writer and its reader go by. */
#define OV_TERM(key, field) {key, offsetof(struct overheads, field)}
static const struct {
	const char *key;
	size_t off;
} ov_terms[] = {OV_TERM("step_us", step_us), OV_TERM("layer_us", layer_us), OV_TERM("request_us", req_us),
		OV_TERM("prefill_token_us", prefill_token_us), OV_TERM("api_ttft_ms", api_ttft_ms),
		OV_TERM("api_e2e_ms", api_e2e_ms), OV_TERM("stream_token_us", stream_token_us),
		OV_TERM("delivery_steps", delivery_steps)};
#define NOV_TERMS (sizeof(ov_terms) / sizeof(ov_terms[0]))

void calib_overheads_json(struct jw *w, const struct overheads *ov)
{
	size_t i;

	jw_obj(w, "overheads");
	for (i = 0; i < NOV_TERMS; i++)
		jw_num(w, ov_terms[i].key, *(const double *)((const char *)ov + ov_terms[i].off));
	jw_end_obj(w);
}

/* "overheads": every term required, no other key */
static int read_overheads(const struct json *o, const char *path, struct overheads *ov, struct err *e)
{
	const char *keys[NOV_TERMS + 1];
	char ctx[800];
	size_t i;
	int rc;

	for (i = 0; i < NOV_TERMS; i++)
		keys[i] = ov_terms[i].key;
	keys[NOV_TERMS] = NULL;
	snprintf(ctx, sizeof(ctx), "%s: overheads", path);
	if ((rc = json_check_keys(o, keys, ctx, e)) < 0)
		return rc;
	for (i = 0; i < NOV_TERMS; i++)
		if ((rc = json_req_num(o, ov_terms[i].key, ctx, (double *)((char *)ov + ov_terms[i].off), e)) < 0)
			return rc;
	ov->given = OV_TIER1; /* the file's terms replace the engine's own */
	return 0;
}

int calib_load(const char *path, struct calib_file *f, struct err *e)
{
	struct json *j;
	const struct json *o;
	bool b = false;
	int rc;

	memset(f, 0, sizeof(*f));
	snprintf(f->path, sizeof(f->path), "%s", path);
	snprintf(f->method, sizeof(f->method), "wls");
	snprintf(f->engine_version, sizeof(f->engine_version), "unknown");
	f->tp = 1;
	if ((rc = json_parse_file(path, &j, e)) < 0)
		return rc;
	if ((rc = jf_str(j, "model", path, f->model, sizeof(f->model), true, e)) < 0 ||
	    (rc = jf_str(j, "gpu", path, f->gpu, sizeof(f->gpu), true, e)) < 0 ||
	    (rc = jf_str(j, "method", path, f->method, sizeof(f->method), false, e)) < 0 ||
	    (rc = jf_int(j, "tp", path, 1, 4096, &f->tp, e)) < 0)
		goto out;
	o = json_get(j, "engine");
	if (o && (rc = jf_str(o, "version", path, f->engine_version, sizeof(f->engine_version), false, e)) < 0)
		goto out;
	if ((rc = json_opt_bool(j, "accepted", path, &b, e)) < 0)
		goto out;
	f->accepted = b;
	if ((rc = jf_req(j, "overheads", path, &o, e)) < 0 || (rc = read_overheads(o, path, &f->ov, e)) < 0)
		goto out;
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
