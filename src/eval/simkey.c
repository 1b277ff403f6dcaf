/* simkey.c - the same simulation once (simkey.h): the key of what an
 * experiment's simulation is a function of, and the outcomes kept by key. */
#include "eval/simkey.h"

#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/mix64.h"

/* n bytes at p into both hashes (their length first: "ab" then "" differs
 * from "a" then "b") */
static void hash_bytes(struct eval_simkey *k, const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t w;
	size_t i;

	k->h[0] = mix64(k->h[0] ^ (uint64_t)n);
	k->h[1] = mix64(k->h[1] + (uint64_t)n * 0x9e3779b97f4a7c15ULL);
	for (i = 0; i + 8 <= n; i += 8) {
		memcpy(&w, b + i, 8);
		k->h[0] = mix64(k->h[0] ^ w);
		k->h[1] = mix64((k->h[1] + w) * 0xff51afd7ed558ccdULL);
	}
	if (i < n) {
		w = 0;
		memcpy(&w, b + i, n - i);
		k->h[0] = mix64(k->h[0] ^ w);
		k->h[1] = mix64((k->h[1] + w) * 0xff51afd7ed558ccdULL);
	}
}

static void hash_str(struct eval_simkey *k, const char *s)
{
	if (s)
		hash_bytes(k, s, strlen(s) + 1);
	else
		hash_bytes(k, "", 0);
}

bool eval_simkey_of(const struct eval_job *j, struct eval_simkey *k)
{
	const struct experiment *x = j->x;
	struct experiment *y;

	/* rows that read only eval_outcome, from inputs that are bytes (a
	 * replay's or a trace's records are not; a trace file is read by
	 * name, its content not in the key) */
	if (x->kind != EXP_CLOSED || x->warmup_requests > 0 || x->replay || x->meas.r || x->wl.records ||
	    x->wl.own_records || x->wl.own_keys || x->wl.draws || x->trace_file[0] || x->wl.trace[0])
		return false;
	k->h[0] = 0x243f6a8885a308d3ULL;
	k->h[1] = 0x13198a2e03707344ULL;
	y = xmalloc(sizeof(*y));
	memcpy(y, x, sizeof(*y));
	/* what only the rows read */
	memset(y->name, 0, sizeof(y->name));
	memset(y->source, 0, sizeof(y->source));
	memset(y->path, 0, sizeof(y->path));
	memset(y->stages, 0, sizeof(y->stages));
	y->nstages = 0;
	memset(y->warning, 0, sizeof(y->warning));
	/* (the workload's name for messages: a run that fails is not taken) */
	memset(y->wl.source, 0, sizeof(y->wl.source));
	/* the knobs' strings by content */
	hash_str(k, y->k.router);
	hash_str(k, y->k.schedule_policy);
	hash_str(k, y->k.kv_offloading_backend);
	hash_str(k, y->k.eplb_config);
	y->k.router = y->k.schedule_policy = y->k.kv_offloading_backend = y->k.eplb_config = NULL;
	hash_bytes(k, y, sizeof(*y));
	free(y);
	hash_bytes(k, j->m, sizeof(*j->m));
	hash_bytes(k, &j->g, sizeof(j->g));
	hash_bytes(k, &j->o, sizeof(j->o));
	return true;
}

void eval_simcache_init(struct eval_simcache *c)
{
	memset(c, 0, sizeof(*c));
}

void eval_simcache_release(struct eval_simcache *c)
{
	free(c->e);
	memset(c, 0, sizeof(*c));
}

/* The slot of k in the open-addressed table (cap a power of two, never
 * full): its entry, or the empty slot it would take.  An empty slot's key
 * is all zeros; a key of all zeros is never kept (eval_simcache_add). */
static struct eval_simcache_ent *slot_of(const struct eval_simcache *c, const struct eval_simkey *k)
{
	size_t i = (size_t)k->h[0] & (c->cap - 1);

	for (;; i = (i + 1) & (c->cap - 1)) {
		struct eval_simcache_ent *e = &c->e[i];
		if ((e->k.h[0] == k->h[0] && e->k.h[1] == k->h[1]) || (e->k.h[0] == 0 && e->k.h[1] == 0))
			return e;
	}
}

const struct eval_outcome *eval_simcache_find(const struct eval_simcache *c, const struct eval_simkey *k)
{
	const struct eval_simcache_ent *e;

	if (c->cap == 0 || (k->h[0] == 0 && k->h[1] == 0))
		return NULL;
	e = slot_of(c, k);
	return e->k.h[0] == 0 && e->k.h[1] == 0 ? NULL : &e->oc;
}

void eval_simcache_add(struct eval_simcache *c, const struct eval_simkey *k, const struct eval_outcome *oc)
{
	struct eval_simcache_ent *e;

	if (k->h[0] == 0 && k->h[1] == 0)
		return;
	if (2 * (c->n + 1) > c->cap) { /* at most half full */
		struct eval_simcache old = *c;
		size_t i;
		c->cap = old.cap ? 2 * old.cap : 64;
		c->e = xcalloc(c->cap, sizeof(*c->e));
		c->n = 0;
		for (i = 0; i < old.cap; i++)
			if (old.e[i].k.h[0] != 0 || old.e[i].k.h[1] != 0) {
				*slot_of(c, &old.e[i].k) = old.e[i];
				c->n++;
			}
		free(old.e);
	}
	e = slot_of(c, k);
	if (e->k.h[0] == 0 && e->k.h[1] == 0) {
		e->k = *k;
		e->oc = *oc;
		c->n++;
	}
}
