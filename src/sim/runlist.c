/* runlist.c - the running list: the replica's running requests in admission
 * order, and a request's leaving it for good. */
#include "base/alloc.h"
#include "core.h"
#include "sim/runlist.h"

void runlist_append(struct replica *rp, struct req *r)
{
	r->prev = rp->run_tail;
	r->next = NULL;
	if (rp->run_tail)
		rp->run_tail->next = r;
	else
		rp->run_head = r;
	rp->run_tail = r;
	r->rseq = rp->next_rseq++;
	rp->nrun++; /* (from the waiting queue: the load the same, runlist.h) */
	rp->run_ver++;
	rp->ne_reserved += r->ne_blocks;
}

void runlist_remove(struct replica *rp, struct req *r)
{
	if (r->prev)
		r->prev->next = r->next;
	else
		rp->run_head = r->next;
	if (r->next)
		r->next->prev = r->prev;
	else
		rp->run_tail = r->prev;
	r->prev = r->next = NULL;
	rp->nrun--;
	rank_load_moved(rp);
	rp->run_ver++;
	rp->ne_reserved -= r->ne_blocks;
	r->ne_blocks = 0;
}
