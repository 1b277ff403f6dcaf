/* runlist.h - the running list (runlist.c); private to src/sim/. */
#ifndef SERVESIM_SIM_RUNLIST_H
#define SERVESIM_SIM_RUNLIST_H
#include "sim/core.h"

/* r joins the end of rp's running list (admission order), or leaves it.
 * An append takes r from the front of rp's waiting queue
 * (waitq_pop_admitted, just before): the rank's load, what the
 * least-loaded router reads, is unchanged, so neither marks it. */
void runlist_append(struct replica *rp, struct req *r);
void runlist_remove(struct replica *rp, struct req *r);

#endif
