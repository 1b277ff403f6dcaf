/* tier2.h - tier-2 hardware characterisation of one GPU
 * (calibration/tier2/<gpu>.json, produced by calibration/bench/ on the GPU):
 * measured achievable HBM bandwidth per access pattern, replacing the single
 * default efficiency, and optionally a folder of measured kernel tables. */
#ifndef SERVESIM_TIER2_H
#define SERVESIM_TIER2_H
#include <stdbool.h>

#include "base/err.h"

struct tier2 {
	char path[700];
	char gpu[48];
	double bw_eff_weights;  /* sequential weight streaming (GEMMs) */
	double bw_eff_kv;       /* scattered paged-KV gather (attention) */
	double bw_eff_mixed;    /* everything else (activations, norms) */
	char tables[600];       /* measured kernel tables folder, or "" */
};

int tier2_load(const char *path, struct tier2 *t, struct err *e);
/* calibration/tier2/<gpu_id>.json under root if it exists: *found. */
int tier2_find(const char *root, const char *gpu_id, struct tier2 *t, bool *found, struct err *e);

#endif
