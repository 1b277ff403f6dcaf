/* admit.h - admission (admit.c); private to src/sim/. */
#ifndef SERVESIM_SIM_ADMIT_H
#define SERVESIM_SIM_ADMIT_H
#include "sim/core.h"

/* The admission memo of the queue head's hits dropped (its request left). */
void admit_memo_drop(struct replica *rp);

#endif
