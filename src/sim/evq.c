/* evq.c - binary min-heap of events (push and pop: evq.h). */
#include <stdio.h>
#include <stdlib.h>

#include "base/alloc.h"
#include "sim/evq.h"

void evq_init(struct evq *q, size_t cap)
{
	q->cap = cap ? cap : 16;
	q->h = xmalloc(xmul(q->cap, sizeof(*q->h)));
	q->n = 0;
	q->next_seq = 0;
}

void evq_release(struct evq *q)
{
	free(q->h);
	q->h = NULL;
	q->n = q->cap = 0;
}

/* (every kind fits the packing's four bits) */
_Static_assert(EV_API_PASS < 16, "enum ev_kind: more kinds than struct evq_ent holds");

void evq_overflow(const struct evq *q, int32_t replica)
{
	if (q->next_seq >= EVQ_SEQ_LIM)
		fprintf(stderr, "servesim: event queue: more than %llu events in one simulation\n",
			(unsigned long long)EVQ_SEQ_LIM);
	else
		fprintf(stderr, "servesim: event queue: replica or slot %ld outside [0, %lu)\n", (long)replica,
			(unsigned long)EVQ_REPLICA_LIM);
	abort();
}

void evq_grow(struct evq *q)
{
	XGROW(q->h, q->cap, q->n + 1);
}

int evq_check(const struct evq *q)
{
	size_t i;

	for (i = 1; i < q->n; i++)
		if (evq_before(&q->h[i], &q->h[(i - 1) / 2]))
			return 0;
	return 1;
}
