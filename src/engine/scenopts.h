/* scenopts.h - the model / hardware / engine / cost flags (struct
 * scenflags, engine/scenflags.h) as one shared flag table (argtab.h) of
 * run, capacity, search, sweep and serve: the same names, ranges and
 * messages everywhere.  The deployment field table's flags come beside it
 * (deploy/fields.h).  A command that takes one of these flags otherwise
 * (sweep's lists, search's space) gives its own row of that spelling
 * above the included table. */
#ifndef SERVESIM_ENGINE_SCENOPTS_H
#define SERVESIM_ENGINE_SCENOPTS_H
#include <stdio.h>

#include "base/argtab.h"
#include "engine/scenflags.h"

/* Its help (capacity, search, sweep, serve include it with AT_T; run's
 * own help says more): the model and hardware flags, the deployment field
 * table's lines, SGLang's own flags and the offload, LoRA and EPLB
 * sections. */
extern const struct argtab scenflags_tab;

/* The help's sections of SGLang's own flags, and of KV offload, LoRA and
 * EPLB (run's help prints them too): the field table's lines and the
 * flags outside it; scenopts_help_group: one group's lines of the field
 * table. */
void scenopts_help_sglang(FILE *f);
void scenopts_help_offload(FILE *f);
void scenopts_help_group(enum deploy_group g, FILE *f);
#endif
