/* share.c - the tables of cost models built alike, filled once (share.h). */
#include "cost/share.h"

#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "cost/cost.h"

/* What cost_init builds a model's tables from. */
struct cost_key {
	const struct model_cfg *m;
	const struct gpu_spec *g;
	struct parallel p;
	struct cost_cfg cfg; /* the host terms cleared (share.h) */
	char *data_dir;      /* NULL for none */
};

struct cost_master {
	struct cost_model model; /* the first model built through the share, whole */
	struct cost_key key;
	int copies;              /* models reading its tables, that one included */
	bool current;            /* its share's last model */
};

struct cost_share {
	struct cost_master *cur;
};

static void key_of(struct cost_key *k, const struct model_cfg *m, const struct gpu_spec *g, const struct parallel *p,
		   const struct cost_cfg *cfg, const char *data_dir)
{
	memset(k, 0, sizeof(*k));
	k->m = m;
	k->g = g;
	memcpy(&k->p, p, sizeof(k->p));
	memcpy(&k->cfg, cfg, sizeof(k->cfg)); /* (the caller's padding too: see share.h) */
	memset(&k->cfg.ov, 0, sizeof(k->cfg.ov));
	k->cfg.overlap_cpu = false;
	k->cfg.host_src = NULL;
	k->data_dir = data_dir ? xstrdup(data_dir) : NULL;
}

static bool key_equal(const struct cost_key *a, const struct cost_key *b)
{
	return a->m == b->m && a->g == b->g && memcmp(&a->p, &b->p, sizeof(a->p)) == 0 &&
	       memcmp(&a->cfg, &b->cfg, sizeof(a->cfg)) == 0 &&
	       (a->data_dir && b->data_dir ? strcmp(a->data_dir, b->data_dir) == 0 : a->data_dir == b->data_dir);
}

static void master_free(struct cost_master *ms)
{
	cost_release(&ms->model);
	free(ms->key.data_dir);
	free(ms);
}

/* The share moves on from ms: it goes now, or with its last model. */
static void master_leave(struct cost_master *ms)
{
	ms->current = false;
	if (ms->copies == 0)
		master_free(ms);
}

struct cost_share *cost_share_new(void)
{
	return xcalloc(1, sizeof(struct cost_share));
}

void cost_share_free(struct cost_share *sh)
{
	if (!sh)
		return;
	if (sh->cur)
		master_leave(sh->cur);
	free(sh);
}

int cost_share_init(struct cost_share *sh, struct cost_model *c, const struct model_cfg *m,
		    const struct gpu_spec *g, const struct parallel *p, const struct cost_cfg *cfg,
		    const char *data_dir, struct err *e)
{
	struct cost_master *ms;
	struct cost_key k;
	int rc;

	if ((rc = cost_init(c, m, g, p, cfg, data_dir, e)) < 0 || !sh)
		return rc;
	/* a model with kernel tables of its own (no cache, tier 2's) keeps its
	 * tables too: a filled entry may point into them */
	if (!cfg->cache || (cfg->tier2 && cfg->tier2->tables[0]))
		return 0;
	key_of(&k, m, g, p, cfg, data_dir);
	if (sh->cur && key_equal(&sh->cur->key, &k)) {
		free(k.data_dir);
		ms = sh->cur;
		cost_tables_adopt(c, &ms->model);
		c->own_rest = true;
	} else {
		ms = xcalloc(1, sizeof(*ms));
		ms->model = *c; /* (whole: c reads its parts from here on, as others read its tables) */
		ms->key = k;
		ms->current = true;
		if (sh->cur)
			master_leave(sh->cur);
		sh->cur = ms;
		c->own_rest = false;
	}
	c->master = ms;
	ms->copies++;
	return 0;
}

void cost_share_release(struct cost_model *c)
{
	struct cost_master *ms = c->master;

	if (!ms) {
		cost_release(c);
		return;
	}
	if (c->own_rest)
		cost_release_rest(c);
	memset(c, 0, sizeof(*c));
	if (--ms->copies == 0 && !ms->current)
		master_free(ms);
}
