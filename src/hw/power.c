/* GPU board power and the energy of engine steps (power.h). */
#include "hw/power.h"

#include <string.h>

bool power_model_of(const struct gpu_spec *g, struct power_model *pm)
{
	memset(pm, 0, sizeof(*pm));
	if (!(g->board_power_w > 0))
		return false;
	pm->board_w = g->board_power_w;
	pm->idle_w = g->idle_power_w > 0 ? g->idle_power_w : POWER_IDLE_FRAC * g->board_power_w;
	return true;
}
