/* abort.h - aborts (abort.c); private to src/sim/. */
#ifndef SERVESIM_SIM_ABORT_H
#define SERVESIM_SIM_ABORT_H
#include <stddef.h>

#include "sim/core.h"

/* An aborted request's release, and the requests marked aborting joined
 * to the step's completions (see abort.c). */
void abort_release(struct sim *s, struct replica *rp, struct req *r);
size_t abort_due(struct replica *rp, size_t ndone);

#endif
