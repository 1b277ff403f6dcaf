/* mfucache.c - kernel tables shared by the cost models of one process. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "servesim/alloc.h"
#include "servesim/mfucache.h"

struct entry {
	char gpu[48], engine[16], version[32], data_dir[600];
	bool nearest;
	struct mfu_tables t;
};

struct mfu_cache {
	struct entry **e;
	size_t n, cap;
};

struct mfu_cache *mfu_cache_new(void)
{
	return xcalloc(1, sizeof(struct mfu_cache));
}

void mfu_cache_free(struct mfu_cache *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->n; i++) {
		mfu_release(&c->e[i]->t);
		free(c->e[i]);
	}
	free(c->e);
	free(c);
}

int mfu_cache_get(struct mfu_cache *c, const char *data_dir, const struct gpu_spec *g,
		  const char *engine, const char *version, bool nearest, bool want_moe,
		  enum moe_dist moe_dist, const struct mfu_tables **out, struct err *e)
{
	struct entry *en = NULL;
	size_t i;
	int rc;

	if (!engine)
		engine = "";
	if (!version)
		version = "";
	for (i = 0; i < c->n; i++) {
		struct entry *x = c->e[i];
		if (strcmp(x->gpu, g->id) == 0 && strcmp(x->engine, engine) == 0 &&
		    strcmp(x->version, version) == 0 && strcmp(x->data_dir, data_dir) == 0 &&
		    x->nearest == nearest) {
			en = x;
			break;
		}
	}
	if (!en) {
		en = xcalloc(1, sizeof(*en));
		snprintf(en->gpu, sizeof(en->gpu), "%s", g->id);
		snprintf(en->engine, sizeof(en->engine), "%s", engine);
		snprintf(en->version, sizeof(en->version), "%s", version);
		snprintf(en->data_dir, sizeof(en->data_dir), "%s", data_dir);
		en->nearest = nearest;
		if ((rc = mfu_load(&en->t, data_dir, g, engine, version, e)) < 0) {
			free(en);
			return rc;
		}
		en->t.nearest = nearest;
		XGROW(c->e, c->cap, c->n + 1);
		c->e[c->n++] = en;
	}
	if (want_moe && (rc = mfu_load_moe(&en->t, g, moe_dist, e)) < 0)
		return rc;
	*out = &en->t;
	return 0;
}
