/* catalog.h - what a deployment is chosen from: the shipped model registry
 * and GPU database under the data folder, each loaded once, on first use. */
#ifndef SERVESIM_DEPLOY_CATALOG_H
#define SERVESIM_DEPLOY_CATALOG_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "hw/gpu.h"
#include "model/model.h"
#include "workload/workload.h"

struct catalog {
	char data_dir[1024];
	struct model_registry reg;
	struct gpu_db gpus;
	bool reg_loaded, gpus_loaded;
};

/* The data folder (paths_data_dir); nothing loaded yet. */
void catalog_init(struct catalog *c);
void catalog_release(struct catalog *c);
/* data/models (registry_load) and data/gpus.json (gpu_db_load), once. */
int catalog_load_registry(struct catalog *c, struct err *e);
int catalog_load_gpus(struct catalog *c, struct err *e);
/* A model from config_path (an HF config.json) when given, else by
 * registry name or alias; SS_EUSAGE when neither is given. */
int catalog_load_model(struct catalog *c, const char *name, const char *config_path,
		       struct model_cfg *m, struct err *e);
/* A GPU by id or alias (gpu_find). */
int catalog_find_gpu(struct catalog *c, const char *name, const struct gpu_spec **g, struct err *e);
/* A comma list of GPU names (the first 255 characters) into gs, *n of
 * them; SS_EUSAGE naming flag when there are more than cap or none, else
 * catalog_find_gpu's errors. */
int catalog_find_gpus(struct catalog *c, const char *flag, const char *list, const struct gpu_spec **gs,
		      size_t cap, size_t *n, struct err *e);
/* The workload spec at path, or (path NULL) the shipped default,
 * workloads/default.json (chat), recorded under that name. */
int catalog_load_workload(const struct catalog *c, const char *path, struct wl_spec *wl, struct err *e);

/* One registry entry as `servesim models` lists it: its configuration
 * loaded and its parameters counted, or why it could not be (ok false: an
 * architecture servesim does not support, the message in error). */
struct catalog_model_row {
	const struct model_entry *me;  /* into c->reg */
	bool ok;
	char model_type[48];
	int64_t layers;
	struct param_counts pc;
	char error[1024];
};
/* Every registry entry in index order (the registry loaded first); *rows
 * is the caller's to free(). */
int catalog_model_rows(struct catalog *c, struct catalog_model_row **rows, size_t *n, struct err *e);

#endif
