/* evq.c - binary min-heap of events (push and pop: evq.h). */
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
