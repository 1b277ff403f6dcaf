/* servesim.h - servesim's public API: the one header a program built on
 * the library includes (src/main.c; with -Iinclude -Isrc).  It brings in
 * errors and exit statuses, the version, result files written atomically,
 * the models and GPUs, the workload, a deployment (engine/scenario.h) and
 * its simulation (sim/sim.h), capacity, search and sweep, evaluation
 * against ground truth, tier-1 calibration and the accuracy bands.  Every
 * other header is private to the library and lies beside its .c under
 * src/. */
#ifndef SERVESIM_H
#define SERVESIM_H

#include "base/afile.h"
#include "base/err.h"
#include "base/version.h"
#include "calib/calib.h"
#include "engine/scenario.h"
#include "eval/accuracy.h"
#include "eval/experiment.h"
#include "hw/gpu.h"
#include "model/model.h"
#include "plan/capacity.h"
#include "plan/search.h"
#include "plan/sweep.h"
#include "sim/sim.h"
#include "workload/workload.h"

#endif
