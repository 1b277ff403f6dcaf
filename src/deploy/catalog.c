/* catalog.c - the shipped model registry and GPU database, loaded lazily:
 * a command that needs only GPUs never parses the model index. */
#include <stdio.h>
#include <string.h>

#include "deploy/catalog.h"
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

int catalog_load_model(struct catalog *c, const char *name, const char *config_path,
		       struct model_cfg *m, struct err *e)
{
	int rc;

	if (config_path)
		return model_load_file(config_path, NULL, m, e);
	if (!name)
		return err_set(e, SS_EUSAGE, "a model is required: give MODEL or --config PATH");
	if ((rc = catalog_load_registry(c, e)) < 0)
		return rc;
	return registry_load_model(&c->reg, name, m, e);
}

int catalog_find_gpu(struct catalog *c, const char *name, const struct gpu_spec **g, struct err *e)
{
	int rc = catalog_load_gpus(c, e);

	if (rc < 0)
		return rc;
	return gpu_find(&c->gpus, name, g, e);
}
