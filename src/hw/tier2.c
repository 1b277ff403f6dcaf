/* tier2.c - tier-2 hardware files (see tier2.h). */
#include <stdio.h>
#include <string.h>

#include "base/json.h"
#include "base/paths.h"
#include "hw/tier2.h"

static int eff(const struct json *o, const char *key, const char *ctx, double *out, struct err *e)
{
	int rc = json_req_num(o, key, ctx, out, e);

	if (rc < 0)
		return rc;
	if (!(*out > 0 && *out <= 1))
		return err_set(e, SS_EDATA, "%s: '%s' must be in (0, 1], got %g", ctx, key, *out);
	return 0;
}

int tier2_load(const char *path, struct tier2 *t, struct err *e)
{
	static const char *const keys[] = {"tier", "gpu", "source", "measured", "bw_eff",
		"mfu_tables", "servesim_version", NULL};
	static const char *const bkeys[] = {"weights_sequential", "kv_paged_gather", "mixed", NULL};
	struct json *j;
	const struct json *b;
	const char *s = NULL;
	char ctx[800];
	int rc;

	memset(t, 0, sizeof(*t));
	snprintf(t->path, sizeof(t->path), "%s", path);
	if ((rc = json_parse_file(path, &j, e)) < 0)
		return rc;
	if ((rc = json_check_keys(j, keys, path, e)) < 0 || (rc = json_req_str(j, "gpu", path, &s, e)) < 0)
		goto out;
	snprintf(t->gpu, sizeof(t->gpu), "%s", s);
	b = json_get(j, "bw_eff");
	snprintf(ctx, sizeof(ctx), "%s: bw_eff", path);
	if (!b) {
		rc = err_set(e, SS_EDATA, "%s: missing required key 'bw_eff'", path);
		goto out;
	}
	if ((rc = json_check_keys(b, bkeys, ctx, e)) < 0 ||
	    (rc = eff(b, "weights_sequential", ctx, &t->bw_eff_weights, e)) < 0 ||
	    (rc = eff(b, "kv_paged_gather", ctx, &t->bw_eff_kv, e)) < 0 ||
	    (rc = eff(b, "mixed", ctx, &t->bw_eff_mixed, e)) < 0)
		goto out;
	s = NULL;
	if ((rc = json_opt_str(j, "mfu_tables", path, &s, e)) < 0)
		goto out;
	if (s)
		snprintf(t->tables, sizeof(t->tables), "%s", s);
	rc = 0;
out:
	json_free(j);
	return rc;
}

int tier2_find(const char *root, const char *gpu_id, struct tier2 *t, bool *found, struct err *e)
{
	char p[1200];

	*found = false;
	snprintf(p, sizeof(p), "%s/calibration/tier2/%s.json", root, gpu_id);
	if (!paths_exists(p))
		return 0;
	*found = true;
	return tier2_load(p, t, e);
}
