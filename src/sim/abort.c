/* abort.c - aborts (live use: sim_abort): a request leaves the waiting queue
 * or inbox at once, or is marked to leave at its step's end, and is released
 * without reaching the client. */
#include <string.h>

#include "base/alloc.h"
#include "core.h"
#include "sim/abort.h"
#include "sim/admit.h"
#include "sim/blocks.h"
#include "sim/prefix.h"
#include "sim/waitq.h"

/* r, out of rp's lists and blocks, is aborted: nothing of it reaches the
 * client any more (its first token pending, the chunks of its last step). */
void abort_release(struct sim *s, struct replica *rp, struct req *r)
{
	size_t i, j;

	for (i = j = 0; i < rp->npend; i++)
		if (rp->pend[i] != r)
			rp->pend[j++] = rp->pend[i];
	rp->npend = j;
	for (i = 0; i < rp->ngapq; i++)
		if (rp->gapq[i].r == r)
			rp->gapq[i].id = -1; /* skipped (gaps_deliver: ids are >= 0) */
	if (r->aborting) {
		r->aborting = false;
		rp->naborting--;
	}
	prefix_chain_drop(s, rp, r);
	s->env->abort(s, r);
}

/* The requests of rp marked aborting join the step's completions (ndone
 * of them in rp->done; the new count is returned), as vLLM handles aborts
 * after the step's outputs: one the step finished completes, one in
 * another pipeline batch (PP) waits for that batch's end. */
size_t abort_due(struct replica *rp, size_t ndone)
{
	int32_t left = rp->naborting;
	struct req *r;

	for (r = rp->run_head; r && left > 0; r = r->next) {
		if (!r->aborting)
			continue;
		left--;
		if (r->inflight)
			continue;
		if (r->done) {
			/* finished by the step: it completes (a P/D prefill
			 * worker's hand-off is aborted instead) */
			if (!(rp->prefill_only && r->generated < r->output)) {
				r->aborting = false;
				rp->naborting--;
			}
			continue;
		}
		r->done = true;
		XGROW(rp->done, rp->done_cap, ndone + 1);
		rp->done[ndone++] = r;
	}
	return ndone;
}

int sched_abort(struct sim *s, int ri, int64_t id)
{
	struct replica *rp = &s->reps[ri];
	struct req *r;
	size_t i, mask = rp->wcap - 1;

	for (i = 0; i < rp->wlen; i++) {
		struct wq_ent *q = &rp->wq[(rp->whead + i) & mask];
		if ((q->r ? q->r->id : q->id) != id)
			continue;
		r = q->r ? q->r : waitq_req_of(s, rp, q);
		for (; i + 1 < rp->wlen; i++)
			rp->wq[(rp->whead + i) & mask] = rp->wq[(rp->whead + i + 1) & mask];
		rp->wlen--;
		rank_load_moved(rp);
		if (rp->memo_r == r)
			admit_memo_drop(rp);
		blocks_free(s, rp, r); /* (a waiting request holds none) */
		abort_release(s, rp, r);
		return 1;
	}
	for (i = 0; i < rp->ninbox; i++) {
		if (rp->inbox[i].id != id)
			continue;
		r = waitq_req_of(s, rp, &rp->inbox[i]);
		memmove(&rp->inbox[i], &rp->inbox[i + 1], (rp->ninbox - i - 1) * sizeof(*rp->inbox));
		rp->ninbox--;
		rank_load_moved(rp);
		abort_release(s, rp, r);
		return 1;
	}
	for (r = rp->run_head; r; r = r->next) {
		if (r->id != id)
			continue;
		if (r->dec) /* (live use keeps every request explicit) */
			sched_dec_leave(s, rp, r);
		if (rp->busy || rp->npipe > 0) {
			if (!r->aborting) {
				r->aborting = true;
				rp->naborting++;
			}
			return 2;
		}
		blocks_leave(s, rp, r); /* no step holds it */
		abort_release(s, rp, r);
		return 1;
	}
	return 0;
}
