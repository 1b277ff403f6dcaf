/* tier1file.h - calibration files (calibration/tier1/NAME.json): the tier-1
 * overhead terms `servesim calibrate` fitted, read back for run and eval. */
#ifndef SERVESIM_READERS_TIER1FILE_H
#define SERVESIM_READERS_TIER1FILE_H
#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "cost/cost.h"

/* Calibration files (calibration/tier1/NAME.json). */
struct calib_file {
	char path[700];
	char model[128], gpu[48], engine_version[32], method[16];
	int tp;
	bool accepted;
	struct overheads ov;
	double train_e2e, val_e2e;
};
int calib_load(const char *path, struct calib_file *f, struct err *e);
/* "overheads": {step_us, layer_us, request_us, prefill_token_us,
 * api_ttft_ms, api_e2e_ms, stream_token_us, delivery_steps} into the open
 * object of w: the calibration file's keys, which run's JSON reuses. */
struct jw;
void calib_overheads_json(struct jw *w, const struct overheads *ov);
/* A file fitted on another model, GPU or engine version than x: the
 * differences in buf, true; false when it matches (or the file does not
 * say). */
bool calib_mismatch(const struct calib_file *f, const char *model, const char *gpu,
		    const char *engine_version, char *buf, size_t n);
/* The file in dir best matching gpu and engine version (exact version, else
 * the closest); *found false when none matches the GPU. */
int calib_find(const char *dir, const char *gpu, const char *version, struct calib_file *f,
	       bool *found, struct err *e);

#endif
