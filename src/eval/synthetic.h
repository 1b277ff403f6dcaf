/* synthetic.h - the simulator-internal experiments that measure three of the
 * tier-0 corrections on the cost model alone (TAM H4-H6), each printed as a
 * markdown table with its acceptance criterion. */
#ifndef SERVESIM_SYNTHETIC_H
#define SERVESIM_SYNTHETIC_H
#include <stdbool.h>
#include <stdio.h>

#include "base/err.h"
#include "hw/gpu.h"
#include "model/model.h"

struct synth_result {
	double figure;   /* H4: difference at the crossover; H5: difference at 50/50;
			  * H6: share of >=5 % jumps removed by interpolation */
	bool pass;       /* 002's Part A criterion: H4 >= 10 % at the crossover;
			  * H5 >= 15 % at 50/50 and additive monotonic; H6 >= 80 % removed */
};

/* which: "h4", "h5" or "h6". Tables go to out. */
int synth_run(const char *which, const struct model_cfg *m, const struct gpu_spec *g,
	      const char *data_dir, FILE *out, struct synth_result *r, struct err *e);

/* The same on a model and a GPU named as the catalog names them
 * (registry id, HF name or config path; GPU id or alias): eval --synthetic. */
int synth_run_named(const char *which, const char *model, const char *gpu, FILE *out, struct synth_result *r,
		    struct err *e);

#endif
