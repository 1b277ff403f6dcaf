/* registry.c - data/models/index.json: short ids, HF names and aliases
 * mapped to config files; unknown names answered with close matches. */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/alloc.h"
#include "model/model.h"
#include "base/paths.h"

static int copy_field(char *dst, size_t n, const char *src, const char *ctx, const char *key,
		      struct err *e)
{
	if (strlen(src) >= n)
		return err_set(e, SS_EDATA, "%s: '%s' longer than %zu characters", ctx, key, n - 1);
	memcpy(dst, src, strlen(src) + 1);
	return 0;
}

static int parse_entry(const struct json *o, const char *src, size_t idx, void *slot, struct err *e)
{
	struct model_entry *me = slot;
	static const char *const keys[] = {"id", "hf", "file", "aliases", NULL};
	char ctx[1024];
	const char *s = NULL;
	const struct json *al;
	int rc;

	snprintf(ctx, sizeof(ctx), "%s: models[%zu]", src, idx);
	memset(me, 0, sizeof(*me));
	if ((rc = json_check_keys(o, keys, ctx, e)) < 0)
		return rc;
	if ((rc = json_req_str(o, "id", ctx, &s, e)) < 0 ||
	    (rc = copy_field(me->id, sizeof(me->id), s, ctx, "id", e)) < 0)
		return rc;
	if ((rc = json_req_str(o, "file", ctx, &s, e)) < 0 ||
	    (rc = copy_field(me->file, sizeof(me->file), s, ctx, "file", e)) < 0)
		return rc;
	s = "";
	if ((rc = json_opt_str(o, "hf", ctx, &s, e)) < 0 ||
	    (rc = copy_field(me->hf, sizeof(me->hf), s, ctx, "hf", e)) < 0)
		return rc;
	al = json_get(o, "aliases");
	if (al) {
		const struct json *a;
		if (json_type_of(al) != JSON_ARRAY || json_size(al) > 4)
			return err_set(e, SS_EDATA, "%s: 'aliases' must be an array of at most 4 strings",
				       ctx);
		for (a = json_first(al); a; a = json_next(a)) {
			if (json_type_of(a) != JSON_STRING)
				return err_set(e, SS_EDATA, "%s: 'aliases' must hold strings", ctx);
			if ((rc = copy_field(me->aliases[me->naliases++], sizeof(me->aliases[0]),
					     json_string(a), ctx, "aliases", e)) < 0)
				return rc;
		}
	}
	return 0;
}

int registry_load(struct model_registry *r, const char *dir, struct err *e)
{
	static const char *const top_keys[] = {"models", NULL};
	char path[700];
	void *v;
	int rc;

	memset(r, 0, sizeof(*r));
	snprintf(r->dir, sizeof(r->dir), "%s", dir);
	snprintf(path, sizeof(path), "%s/index.json", dir);
	rc = json_load_records(path, top_keys, false, sizeof(*r->entries), parse_entry, &v, &r->n, e);
	if (rc == 0)
		r->entries = v;
	return rc;
}

void registry_release(struct model_registry *r)
{
	free(r->entries);
	r->entries = NULL;
	r->n = 0;
}

/* A name reduced for loose matching of Hugging Face ids: the part after the
 * organisation ("zhipuai/GLM-5" and "zai-org/GLM-5" alike), without a
 * trailing -Instruct, -Base, -it, -Chat or -hf (base and instruct
 * checkpoints share one architecture). */
static void loose_name(const char *s, char *out, size_t n)
{
	static const char *const suffix[] = {"-instruct", "-base", "-it", "-chat", "-hf"};
	const char *slash = strrchr(s, '/');
	size_t len, k;

	snprintf(out, n, "%s", slash ? slash + 1 : s);
	len = strlen(out);
	for (k = 0; k < sizeof(suffix) / sizeof(suffix[0]); k++) {
		size_t sl = strlen(suffix[k]);
		if (len > sl && strcasecmp(out + len - sl, suffix[k]) == 0) {
			out[len - sl] = '\0';
			break;
		}
	}
}

static bool entry_names(const struct model_entry *me, const char *name, bool loose)
{
	char a[160], b[160];
	const char *names[6];
	int k, nn = 0;

	names[nn++] = me->id;
	if (me->hf[0])
		names[nn++] = me->hf;
	for (k = 0; k < me->naliases; k++)
		names[nn++] = me->aliases[k];
	if (loose)
		loose_name(name, a, sizeof(a));
	for (k = 0; k < nn; k++) {
		if (!loose) {
			if (strcasecmp(names[k], name) == 0)
				return true;
			continue;
		}
		loose_name(names[k], b, sizeof(b));
		if (a[0] && strcasecmp(a, b) == 0)
			return true;
	}
	return false;
}

const struct model_entry *registry_find(const struct model_registry *r, const char *name)
{
	size_t i;
	int pass;

	/* exact id, HF name or alias first; then the loose HF-id match */
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < r->n; i++)
			if (entry_names(&r->entries[i], name, pass == 1))
				return &r->entries[i];
	return NULL;
}

int registry_load_model(const struct model_registry *r, const char *name, struct model_cfg *m,
			struct err *e)
{
	const struct model_entry *me = registry_find(r, name);
	char path[800], sugg[400] = "";
	size_t i, off = 0;
	int nsugg = 0;

	if (me) {
		int rc;
		snprintf(path, sizeof(path), "%s/%s", r->dir, me->file);
		rc = model_load_file(path, me->id, m, e);
		/* shown to users: the shipped location, independent of the checkout */
		if (rc == 0) {
			snprintf(m->source, sizeof(m->source), "data/models/%s", me->file);
		} else if (e && strncmp(e->msg, r->dir, strlen(r->dir)) == 0) {
			char rest[sizeof(e->msg)];
			snprintf(rest, sizeof(rest), "%s", e->msg + strlen(r->dir));
			err_set(e, e->code, "data/models%.1000s", rest);
		}
		return rc;
	}
	/* close ids: small edit distance or a substring either way */
	for (i = 0; i < r->n && nsugg < 4; i++) {
		const char *id = r->entries[i].id;
		int d = paths_edit_distance(name, id);
		int lim = (int)strlen(name) / 3 + 1;
		if (d <= lim || strcasestr(id, name) || strcasestr(name, id)) {
			off += (size_t)snprintf(sugg + off, sizeof(sugg) - off, "%s%s",
						nsugg ? ", " : "", id);
			nsugg++;
		}
	}
	if (nsugg)
		return err_set(e, SS_EUSAGE,
			       "unknown model '%s' (did you mean: %s?); 'servesim models' lists all, --config PATH loads any config.json",
			       name, sugg);
	return err_set(e, SS_EUSAGE,
		       "unknown model '%s'; 'servesim models' lists all, --config PATH loads any config.json",
		       name);
}
