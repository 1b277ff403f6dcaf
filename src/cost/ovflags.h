/* ovflags.h - the engine host terms (struct overheads) as a shared flag
 * table (argtab.h) of run, eval and the commands that simulate: each flag
 * a term in its unit, >= 0, marking its OV_* bit in overheads.given. */
#ifndef SERVESIM_COST_OVFLAGS_H
#define SERVESIM_COST_OVFLAGS_H
#include "base/argtab.h"
#include "cost/costmodel.h"

extern const struct argtab ov_flags_tab;

#endif
