/* catalog.c - the shipped model registry and GPU database, loaded lazily:
 * a command that needs only GPUs never parses the model index. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/argval.h"
#include "deploy/catalog.h"
#include "base/alloc.h"
#include "base/paths.h"

void catalog_init(struct catalog *c)
{
	memset(c, 0, sizeof(*c));
	paths_data_dir(c->data_dir, sizeof(c->data_dir));
}

void catalog_release(struct catalog *c)
{
	if (c->reg_loaded)
		registry_release(&c->reg);
	if (c->gpus_loaded)
		gpu_db_release(&c->gpus);
	c->reg_loaded = c->gpus_loaded = false;
}

int catalog_load_registry(struct catalog *c, struct err *e)
{
	char dir[1100];
	int rc;

	if (c->reg_loaded)
		return 0;
	snprintf(dir, sizeof(dir), "%s/models", c->data_dir);
	if ((rc = registry_load(&c->reg, dir, e)) < 0)
		return rc;
	c->reg_loaded = true;
	return 0;
}

int catalog_load_gpus(struct catalog *c, struct err *e)
{
	char path[1100];
	int rc;

	if (c->gpus_loaded)
		return 0;
	snprintf(path, sizeof(path), "%s/gpus.json", c->data_dir);
	if ((rc = gpu_db_load(&c->gpus, path, e)) < 0)
		return rc;
	c->gpus_loaded = true;
	return 0;
}

/* A model's Hugging Face config.json at path, or in the folder path names
 * (as vLLM's --model takes a local model folder), whose name is then the
 * model's id. */
static int load_config_at(const char *path, struct model_cfg *m, struct err *e)
{
	struct stat st;
	char file[1100], id[256];
	size_t len = strlen(path), start;

	if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
		return model_load_file(path, NULL, m, e);
	while (len > 1 && path[len - 1] == '/') /* "models/llama/" is llama */
		len--;
	snprintf(file, sizeof(file), "%.*s/config.json", (int)len, path);
	if (!paths_exists(file))
		return err_set(e, SS_EUSAGE, "%s: a folder without config.json (a model folder holds the model's "
			       "Hugging Face config.json)", path);
	for (start = len; start > 0 && path[start - 1] != '/'; start--)
		;
	snprintf(id, sizeof(id), "%.*s", (int)(len - start), path + start);
	return model_load_file(file, id, m, e);
}

int catalog_load_model(struct catalog *c, const char *name, const char *config_path,
		       struct model_cfg *m, struct err *e)
{
	int rc;

	if (config_path)
		return load_config_at(config_path, m, e);
	if (!name)
		return err_set(e, SS_EUSAGE, "a model is required: give MODEL or --config PATH");
	if ((rc = catalog_load_registry(c, e)) < 0)
		return rc;
	/* a name the registry does not know that is a file or folder here:
	 * its config, as vLLM's --model reads a local path */
	if (!registry_find(&c->reg, name) && paths_exists(name))
		return load_config_at(name, m, e);
	return registry_load_model(&c->reg, name, m, e);
}

int catalog_find_gpu(struct catalog *c, const char *name, const struct gpu_spec **g, struct err *e)
{
	int rc = catalog_load_gpus(c, e);

	if (rc < 0)
		return rc;
	return gpu_find(&c->gpus, name, g, e);
}

int catalog_find_gpus(struct catalog *c, const char *flag, const char *list, const struct gpu_spec **gs,
		      size_t cap, size_t *n, struct err *e)
{
	struct argval_items it;
	size_t i;
	int rc;

	*n = 0;
	argval_items_start(&it, flag, list);
	while ((rc = argval_items_next(&it, e)) > 0) {
		if (*n == cap)
			return err_set(e, SS_EUSAGE, "%s: at most %zu GPUs", flag, cap);
		if ((rc = catalog_find_gpu(c, it.item, &gs[*n], e)) < 0)
			return rc;
		for (i = 0; i < *n; i++)
			if (gs[i] == gs[*n])
				return err_set(e, SS_EUSAGE, "%s: %s given twice ('%s')", flag, gs[*n]->id, it.item);
		(*n)++;
	}
	if (rc < 0)
		return rc;
	return *n ? 0 : err_set(e, SS_EUSAGE, "%s: give at least one GPU", flag);
}

int catalog_load_workload(const struct catalog *c, const char *path, struct wl_spec *wl, struct err *e)
{
	char def[1200];
	int rc;

	if (path)
		return wl_spec_load(path, wl, e);
	snprintf(def, sizeof(def), "%s/../workloads/default.json", c->data_dir);
	if ((rc = wl_spec_load(def, wl, e)) < 0)
		return rc;
	snprintf(wl->source, sizeof(wl->source), "workloads/default.json");
	return 0;
}

int catalog_model_rows(struct catalog *c, struct catalog_model_row **rows, size_t *n, struct err *e)
{
	struct model_cfg *m;
	struct catalog_model_row *r;
	size_t i;
	int rc;

	*rows = NULL;
	*n = 0;
	if ((rc = catalog_load_registry(c, e)) < 0)
		return rc;
	m = xcalloc(1, sizeof(*m));
	r = xcalloc(c->reg.n ? c->reg.n : 1, sizeof(*r));
	for (i = 0; i < c->reg.n; i++) {
		char path[1400];
		struct err le;

		err_clear(&le);
		r[i].me = &c->reg.entries[i];
		snprintf(path, sizeof(path), "%s/%s", c->reg.dir, r[i].me->file);
		r[i].ok = model_load_file(path, r[i].me->id, m, &le) == 0;
		if (r[i].ok) {
			model_params(m, &r[i].pc);
			snprintf(r[i].model_type, sizeof(r[i].model_type), "%s", m->model_type);
			r[i].layers = m->layers;
		} else {
			snprintf(r[i].error, sizeof(r[i].error), "%s", le.msg);
		}
	}
	free(m);
	*rows = r;
	*n = c->reg.n;
	return 0;
}
