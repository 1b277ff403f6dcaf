/* GPU board power and the energy of engine steps.
 *
 * A GPU draws its idle power whenever it is powered, and above it a part
 * that grows with how busy the step keeps its tensor cores and its HBM:
 *
 *   P = idle + (board - idle) x min(1, u_compute + POWER_MEM_WEIGHT x u_hbm)
 *
 * u_compute = the step's FLOPs / (dtype peak x step time), u_hbm = its
 * bytes / (HBM bandwidth x step time), per GPU (cost_step_work).  board
 * and idle are each GPU's (gpus.json board_power_w, idle_power_w); where no
 * idle figure is published, idle = POWER_IDLE_FRAC x board.  Sources and
 * the check against published measurements: docs/energy.md. */
#ifndef SERVESIM_HW_POWER_H
#define SERVESIM_HW_POWER_H

#include <stdbool.h>

#include "hw/gpu.h"

/* idle over board power of an H200 SXM measured at rest (80.3 W of 700 W,
 * docs/energy.md), for GPUs without their own idle figure */
#define POWER_IDLE_FRAC 0.115
/* the weight of HBM activity against tensor-core activity: an H100 SXM
 * decoding at batch 1 (HBM near its achievable 0.8 of peak, tensor cores
 * nearly idle) draws 300 W (ML.ENERGY benchmark v3.0), so
 * (300 - 80.5) / (700 - 80.5) / 0.8 = 0.44 */
#define POWER_MEM_WEIGHT 0.44

struct power_model {
	double board_w, idle_w; /* board_w 0: no figure, no energy */
};

/* g's power model; false (pm zeroed) when g has no board power figure. */
bool power_model_of(const struct gpu_spec *g, struct power_model *pm);

/* Joules one GPU draws above idle during a step of t seconds that does
 * flops at peak FLOP/s and moves bytes at bw bytes/s (inline: the energy
 * meter's, at every metered step). */
static inline double power_step_j(const struct power_model *pm, double t, double flops, double peak,
				  double bytes, double bw)
{
	double busy = 0; /* seconds of full activity */

	if (!(t > 0) || !(pm->board_w > 0))
		return 0;
	if (peak > 0)
		busy += flops / peak;
	if (bw > 0)
		busy += POWER_MEM_WEIGHT * bytes / bw;
	if (busy > t)
		busy = t;
	return (pm->board_w - pm->idle_w) * busy;
}

#endif
