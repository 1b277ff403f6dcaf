/* waitq.c - the waiting queue: a ring of entries, an arrival's record made
 * only when it reaches the head, a preempted request back at the front, the
 * inbox of arrivals between receive intervals. */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "core.h"
#include "sim/reqpool.h"
#include "sim/waitq.h"

static void waitq_grow(struct replica *rp)
{
	/* a power of two: positions wrap with a mask */
	size_t ncap = rp->wcap ? rp->wcap * 2 : 64, i;
	struct wq_ent *n = xmalloc(xmul(ncap, sizeof(*n)));

	for (i = 0; i < rp->wlen; i++)
		n[i] = rp->wq[(rp->whead + i) & (rp->wcap - 1)];
	free(rp->wq);
	rp->wq = n;
	rp->wcap = ncap;
	rp->whead = 0;
}

static struct wq_ent *waitq_push_back(struct replica *rp)
{
	struct wq_ent *q;

	if (rp->wlen == rp->wcap)
		waitq_grow(rp);
	q = &rp->wq[(rp->whead + rp->wlen) & (rp->wcap - 1)];
	rp->wlen++;
	rank_load_moved(rp);
	return q;
}

void sched_enqueue(struct replica *rp, struct req *r)
{
	waitq_push_back(rp)->r = r;
}

void sched_arrive(struct replica *rp, const struct wl_req *w, int64_t id)
{
	struct wq_ent *q;

	if (rp->recv_gate && rp->busy) { /* not polled until the scheduler's next receive */
		XGROW(rp->inbox, rp->inbox_cap, rp->ninbox + 1);
		q = &rp->inbox[rp->ninbox++];
		rank_load_moved(rp);
	} else {
		q = waitq_push_back(rp);
	}

	q->r = NULL;
	q->id = id;
	q->a = *w;
}

void sched_receive(struct replica *rp)
{
	size_t i;

	for (i = 0; i < rp->ninbox; i++)
		*waitq_push_back(rp) = rp->inbox[i];
	rp->ninbox = 0;
	rank_load_moved(rp);
	rp->recv_ct = 0;
}

void waitq_push_front(struct replica *rp, struct req *r)
{
	if (rp->wlen == rp->wcap)
		waitq_grow(rp);
	rp->whead = (rp->whead + rp->wcap - 1) & (rp->wcap - 1);
	rp->wq[rp->whead].r = r;
	rp->wlen++;
	rank_load_moved(rp);
}

/* A record for waiting entry q of rp (one without a record). */
void waitq_req_fill(const struct sim *s, const struct replica *rp, const struct wq_ent *q, struct req *r)
{
	reqpool_set_arrival(r, &q->a, q->id);
	r->replica = (int)(rp - s->reps);
	r->sched_ns = -1;
	r->nshare = req_nshare(s, r);
}

struct req *waitq_req_of(struct sim *s, const struct replica *rp, const struct wq_ent *q)
{
	struct req *r = reqpool_req_get(s);

	waitq_req_fill(s, rp, q, r);
	return r;
}

