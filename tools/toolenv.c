/* toolenv.c - what the check tools share.  See toolenv.h. */
#include <stdio.h>
#include <string.h>

#include "toolenv.h"

#include "engine/registry.h"

int tool_load_gpu(const char *tool, const char *data_dir, const char *gpu, struct gpu_db *db,
		  const struct gpu_spec **g)
{
	char path[1200];
	struct err e;

	snprintf(path, sizeof(path), "%s/gpus.json", data_dir);
	if (gpu_db_load(db, path, &e) < 0 || gpu_find(db, gpu, g, &e) < 0) {
		fprintf(stderr, "%s: %s\n", tool, e.msg);
		return -1;
	}
	return 0;
}

int tool_load_model(const char *tool, const char *data_dir, const char *model, struct model_registry *reg,
		    struct model_cfg *m)
{
	char path[1200];
	struct err e;

	snprintf(path, sizeof(path), "%s/models", data_dir);
	if (registry_load(reg, path, &e) < 0 || registry_load_model(reg, model, m, &e) < 0) {
		fprintf(stderr, "%s: %s\n", tool, e.msg);
		return -1;
	}
	return 0;
}

int tool_cost_cfg(struct cost_cfg *cc, const char *engine, enum dtype wdt, enum dtype kvdt)
{
	const struct engine_type *en;
	struct err e;

	memset(cc, 0, sizeof(*cc));
	if (engine_lookup(engine, &en, &e) < 0) {
		fprintf(stderr, "%s\n", e.msg);
		return -1;
	}
	cc->wdt = wdt;
	cc->kvdt = kvdt;
	cost_default_overheads(&cc->ov);
	cc->max_tokens = 8192;
	cc->max_seqs = 1024;
	cc->engine = en->cost;
	return 0;
}

int tool_models_load(struct tool_models *t, const char *tool, const char *data_dir, const char *model,
		     const char *gpu)
{
	t->n = 0;
	if (tool_load_model(tool, data_dir, model, &t->reg, &t->base) < 0 ||
	    tool_load_gpu(tool, data_dir, gpu, &t->db, &t->g) < 0)
		return -1;
	return 0;
}

struct tool_heads *tool_models_find(struct tool_models *t, int heads)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (t->ph[i].heads == heads)
			return &t->ph[i];
	return NULL;
}

void tool_models_release(struct tool_models *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		cost_release(&t->ph[i].c);
	registry_release(&t->reg);
	gpu_db_release(&t->db);
}
