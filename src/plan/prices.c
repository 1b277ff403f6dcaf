/* prices.c - the $/GPU-hour table, read strictly (unknown keys, missing or
 * non-positive prices are bad input naming the field). */
#include "plan/prices.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/json.h"
#include "hw/gpu.h"

static int from_json(const struct json *root, const char *path, struct prices *t, struct err *e);

int prices_load(const char *path, struct prices *t, struct err *e)
{
	struct json *root = NULL;
	int rc;

	memset(t, 0, sizeof(*t));
	if ((rc = json_parse_file(path, &root, e)) < 0)
		return rc;
	rc = from_json(root, path, t, e);
	json_free(root);
	return rc;
}

int prices_parse(const char *text, size_t len, const char *source, struct prices *t, struct err *e)
{
	struct json *root = NULL;
	int rc;

	memset(t, 0, sizeof(*t));
	if ((rc = json_parse(text, len, source, &root, e)) < 0)
		return rc;
	rc = from_json(root, source, t, e);
	json_free(root);
	return rc;
}

static int from_json(const struct json *root, const char *path, struct prices *t, struct err *e)
{
	static const char *const top_keys[] = {"currency", "unit", "retrieved", "note", "gpus", NULL};
	static const char *const gpu_keys[] = {"usd_per_gpu_hour", "source", "note", NULL};
	const struct json *gpus, *it;
	const char *s = NULL;
	char ctx[700];
	int rc = -SS_EDATA;

	snprintf(t->path, sizeof(t->path), "%s", path);
	if (json_type_of(root) != JSON_OBJECT) {
		err_set(e, SS_EDATA, "%s: expected a JSON object with 'gpus'", path);
		goto out;
	}
	snprintf(ctx, sizeof(ctx), "%s", path);
	if ((rc = json_check_keys(root, top_keys, ctx, e)) < 0)
		goto out;
	if ((rc = json_opt_str(root, "currency", ctx, &s, e)) < 0)
		goto out;
	if (s && strcmp(s, "USD") != 0) {
		rc = err_set(e, SS_EDATA, "%s: 'currency' must be \"USD\", got \"%s\"", path, s);
		goto out;
	}
	s = NULL;
	if ((rc = json_opt_str(root, "retrieved", ctx, &s, e)) < 0)
		goto out;
	snprintf(t->retrieved, sizeof(t->retrieved), "%s", s ? s : "");
	gpus = json_get(root, "gpus");
	if (!gpus || json_type_of(gpus) != JSON_OBJECT) {
		rc = err_set(e, SS_EDATA, "%s: 'gpus' must be an object of GPU id -> {\"usd_per_gpu_hour\": X}",
			     path);
		goto out;
	}
	t->p = xcalloc(json_size(gpus) ? json_size(gpus) : 1, sizeof(*t->p));
	for (it = json_first(gpus); it; it = json_next(it)) {
		struct price *p = &t->p[t->n];
		double v;
		snprintf(ctx, sizeof(ctx), "%s: gpus.%s", path, json_key(it));
		if (json_type_of(it) != JSON_OBJECT) {
			rc = err_set(e, SS_EDATA, "%s: expected an object {\"usd_per_gpu_hour\": X}", ctx);
			goto out;
		}
		if ((rc = json_check_keys(it, gpu_keys, ctx, e)) < 0 ||
		    (rc = json_req_num(it, "usd_per_gpu_hour", ctx, &v, e)) < 0)
			goto out;
		if (!(v > 0) || v > 1e4) {
			rc = err_set(e, SS_EDATA, "%s.usd_per_gpu_hour must be > 0 and <= 10000, got %g", ctx, v);
			goto out;
		}
		s = NULL;
		if ((rc = json_opt_str(it, "source", ctx, &s, e)) < 0)
			goto out;
		snprintf(p->gpu, sizeof(p->gpu), "%s", json_key(it));
		snprintf(p->source, sizeof(p->source), "%s", s ? s : "");
		p->usd_per_gpu_hour = v;
		t->n++;
	}
	rc = 0;
out:
	if (rc < 0)
		prices_release(t);
	return rc;
}

void prices_release(struct prices *t)
{
	free(t->p);
	t->p = NULL;
	t->n = 0;
}

int prices_find(const struct prices *t, const struct gpu_db *db, const char *gpu_id, double *usd, struct err *e)
{
	size_t k;

	*usd = NAN;
	for (k = 0; k < t->n; k++) {
		const struct gpu_spec *g;
		struct err pe;
		err_clear(&pe);
		if (gpu_find(db, t->p[k].gpu, &g, &pe) < 0)
			return err_set(e, SS_EDATA, "%s: gpus.%s: not a GPU of data/gpus.json", t->path, t->p[k].gpu);
		if (strcmp(g->id, gpu_id) == 0)
			*usd = t->p[k].usd_per_gpu_hour;
	}
	return 0;
}
