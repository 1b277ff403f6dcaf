/* engterms.c - an engine's kernel collections (engterms.h). */
#include <string.h>

#include "cost/engterms.h"

const char *cost_engine_tables(const struct cost_engine *ce, const struct gpu_spec *g)
{
	return ce->rocm && strcmp(g->vendor, "amd") == 0 ? ce->rocm : ce->name;
}
