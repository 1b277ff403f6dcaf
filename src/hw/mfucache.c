/* mfucache.c - kernel tables shared by the cost models of one process.
 *
 * Why an entry per fused-MoE distribution: a cost model keeps pointers
 * into the MoE curves it picked, and adding another distribution's curves
 * to a shared table would move them (realloc) under a model pricing on
 * another thread.  Entries are never changed once made, so the tables they
 * hand out stay valid and read-only; the mutex only guards the list. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "hw/mfucache.h"

struct entry {
	char gpu[48], engine[16], version[32], data_dir[600];
	bool nearest;
	int moe;              /* the MoE distribution loaded, or -1 (none) */
	struct mfu_tables t;
};

/* Module tables by path (DSA's, DeepSeek-V4's): one list per kind. */
struct path_entry {
	char path[1000];
	void *t;
};

struct path_list {
	struct path_entry *a;
	size_t n, cap;
};

/* Other tables by key (mfu_cache_obj), with what frees each. */
struct obj_entry {
	char key[1000];
	void *t;
	void (*drop)(void *obj);
};

struct mfu_cache {
	pthread_mutex_t lock;
	struct entry **e;
	size_t n, cap;
	struct path_list dsa, csa, moe; /* moe: by "path|gpu|distribution" */
	struct obj_entry *obj;
	size_t nobj, capobj;
};

struct mfu_cache *mfu_cache_new(void)
{
	struct mfu_cache *c = xcalloc(1, sizeof(struct mfu_cache));

	if (pthread_mutex_init(&c->lock, NULL) != 0)
		BUG("pthread_mutex_init");
	return c;
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
	for (i = 0; i < c->dsa.n; i++)
		dsatab_free(c->dsa.a[i].t);
	free(c->dsa.a);
	for (i = 0; i < c->csa.n; i++)
		csatab_free(c->csa.a[i].t);
	free(c->csa.a);
	for (i = 0; i < c->moe.n; i++)
		moetab_free(c->moe.a[i].t);
	free(c->moe.a);
	for (i = 0; i < c->nobj; i++)
		c->obj[i].drop(c->obj[i].t);
	free(c->obj);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

int mfu_cache_get(struct mfu_cache *c, const char *data_dir, const struct gpu_spec *g,
		  const char *engine, const char *fallback, const char *version, bool nearest, bool want_moe,
		  enum moe_dist moe_dist, const struct mfu_tables **out, struct err *e)
{
	struct entry *en = NULL;
	int moe = want_moe ? (int)moe_dist : -1;
	size_t i;
	int rc = 0;

	if (!engine)
		engine = "";
	if (!version)
		version = "";
	pthread_mutex_lock(&c->lock);
	for (i = 0; i < c->n; i++) {
		struct entry *x = c->e[i];
		if (strcmp(x->gpu, g->id) == 0 && strcmp(x->engine, engine) == 0 &&
		    strcmp(x->version, version) == 0 && strcmp(x->data_dir, data_dir) == 0 &&
		    x->nearest == nearest && x->moe == moe) {
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
		en->moe = moe;
		if ((rc = mfu_load(&en->t, data_dir, g, engine, fallback, version, e)) < 0) {
			free(en);
			goto out;
		}
		en->t.nearest = nearest;
		if (want_moe && (rc = mfu_load_moe(&en->t, g, moe_dist, e)) < 0) {
			mfu_release(&en->t);
			free(en);
			goto out;
		}
		XGROW(c->e, c->cap, c->n + 1);
		c->e[c->n++] = en;
	}
	*out = &en->t;
out:
	pthread_mutex_unlock(&c->lock);
	return rc;
}

static void *path_find(const struct path_list *l, const char *path)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (strcmp(l->a[i].path, path) == 0)
			return l->a[i].t;
	return NULL;
}

static void path_add(struct path_list *l, const char *path, void *t)
{
	XGROW(l->a, l->cap, l->n + 1);
	snprintf(l->a[l->n].path, sizeof(l->a[0].path), "%s", path);
	l->a[l->n++].t = t;
}

int mfu_cache_dsatab(struct mfu_cache *c, const char *path, const struct dsatab **out, struct err *e)
{
	struct dsatab *t;
	int rc = 0;

	pthread_mutex_lock(&c->lock);
	if (!(t = path_find(&c->dsa, path)) && (rc = dsatab_load(path, &t, e)) == 0)
		path_add(&c->dsa, path, t);
	if (rc == 0)
		*out = t;
	pthread_mutex_unlock(&c->lock);
	return rc;
}

int mfu_cache_csatab(struct mfu_cache *c, const char *path, const struct csatab **out, struct err *e)
{
	struct csatab *t;
	int rc = 0;

	pthread_mutex_lock(&c->lock);
	if (!(t = path_find(&c->csa, path)) && (rc = csatab_load(path, &t, e)) == 0)
		path_add(&c->csa, path, t);
	if (rc == 0)
		*out = t;
	pthread_mutex_unlock(&c->lock);
	return rc;
}

int mfu_cache_moetab(struct mfu_cache *c, const char *path, const struct gpu_spec *g, enum moe_dist d,
		     const struct moetab **out, struct err *e)
{
	struct moetab *t = NULL;
	char key[1000];
	int rc = 0;

	snprintf(key, sizeof(key), "%.900s|%.48s|%d", path, g->id, (int)d);
	pthread_mutex_lock(&c->lock);
	if (!(t = path_find(&c->moe, key))) {
		if ((rc = moetab_load_dist(path, g, d, &t, e)) == 0)
			path_add(&c->moe, key, t);
		else
			moetab_free(t);
	}
	if (rc == 0)
		*out = t;
	pthread_mutex_unlock(&c->lock);
	return rc;
}

int mfu_cache_obj(struct mfu_cache *c, const char *key, const char *data_dir,
		  int (*load)(const char *data_dir, void **obj, struct err *e), void (*drop)(void *obj),
		  const void **out, struct err *e)
{
	char k[1000];
	void *t = NULL;
	size_t i;
	int rc = 0;

	snprintf(k, sizeof(k), "%.300s|%.600s", key, data_dir);
	pthread_mutex_lock(&c->lock);
	for (i = 0; i < c->nobj && !t; i++)
		if (strcmp(c->obj[i].key, k) == 0)
			t = c->obj[i].t;
	if (!t && (rc = load(data_dir, &t, e)) == 0) {
		XGROW(c->obj, c->capobj, c->nobj + 1);
		snprintf(c->obj[c->nobj].key, sizeof(c->obj[0].key), "%s", k);
		c->obj[c->nobj].t = t;
		c->obj[c->nobj++].drop = drop;
	}
	if (rc == 0)
		*out = t;
	pthread_mutex_unlock(&c->lock);
	return rc;
}
