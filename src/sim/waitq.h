/* waitq.h - the waiting queue (waitq.c): its head read and popped inline
 * (every admission try); private to src/sim/. */
#ifndef SERVESIM_SIM_WAITQ_H
#define SERVESIM_SIM_WAITQ_H
#include "sim/core.h"

/* r queued at the front (a preemption's return). */
void waitq_push_front(struct replica *rp, struct req *r);
/* The request of an entry, its record made on first sight. */
struct req *waitq_req_of(struct sim *s, const struct replica *rp, const struct wq_ent *q);

/* The head of the waiting queue, its record made if it had none. */
static inline struct req *waitq_front(struct sim *s, struct replica *rp)
{
	struct wq_ent *q = &rp->wq[rp->whead];

	if (!q->r)
		q->r = waitq_req_of(s, rp, q);
	return q->r;
}

/* The front leaves for the running list (runlist_append, next): the
 * rank's load (running + waiting + inbox) stays, so the router's mark is
 * not set (a mark it would read and find the load the same).  A queue
 * left empty starts again at slot 0: the same order, and the next arrival
 * writes the slot the last one used, not the next of the ring's (at DP 64
 * of the chat load the arrivals' slots cycled through 64 rings of 64
 * slots of 112 bytes, a cold line each: docs/performance.md, "dp64c"). */
static inline void waitq_pop_admitted(struct replica *rp)
{
	rp->whead = --rp->wlen == 0 ? 0 : (rp->whead + 1) & (rp->wcap - 1);
}

/* The front leaves the rank (rejected, moved): its load falls. */
static inline void waitq_pop_front(struct replica *rp)
{
	waitq_pop_admitted(rp);
	rank_load_moved(rp);
}

#endif
