/* listreport.h - what data/ knows, as `servesim models` and `servesim gpus`
 * list it: text tables and JSON arrays (output module). */
#ifndef SERVESIM_REPORT_LISTREPORT_H
#define SERVESIM_REPORT_LISTREPORT_H
#include <stddef.h>
#include <stdio.h>

#include "deploy/catalog.h"
#include "hw/gpu.h"

/* The registry's models (catalog_model_rows): id, family, layers,
 * parameters total and active, HF name, aliases; unsupported ones say so
 * (JSON: the reason). */
void out_models_text(FILE *f, const struct catalog_model_row *r, size_t n);
void out_models_json(FILE *f, const struct catalog_model_row *r, size_t n);
/* The GPU database: peaks, memory, links, power and the kernel tables that
 * price each GPU (JSON: the collections found under data_dir/mfu/). */
void out_gpus_text(FILE *f, const struct gpu_db *db);
void out_gpus_json(FILE *f, const struct gpu_db *db, const char *data_dir);

#endif
