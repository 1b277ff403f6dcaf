/* evq.c - binary min-heap of events. */
#include <stdlib.h>

#include "servesim/alloc.h"
#include "servesim/evq.h"

static int before(const struct event *a, const struct event *b)
{
	return a->t_ns < b->t_ns || (a->t_ns == b->t_ns && a->seq < b->seq);
}

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

void evq_push(struct evq *q, int64_t t_ns, enum ev_kind kind, int32_t replica)
{
	size_t i;
	struct event ev;

	XGROW(q->h, q->cap, q->n + 1);
	ev.t_ns = t_ns;
	ev.seq = q->next_seq++;
	ev.kind = kind;
	ev.replica = replica;
	i = q->n++;
	while (i > 0) {
		size_t p = (i - 1) / 2;
		if (!before(&ev, &q->h[p]))
			break;
		q->h[i] = q->h[p];
		i = p;
	}
	q->h[i] = ev;
}

int evq_pop(struct evq *q, struct event *out)
{
	struct event last;
	size_t i = 0;

	if (q->n == 0)
		return 0;
	*out = q->h[0];
	last = q->h[--q->n];
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		const struct event *best = &last;
		if (l < q->n && before(&q->h[l], best)) {
			m = l;
			best = &q->h[l];
		}
		if (r < q->n && before(&q->h[r], best))
			m = r;
		if (m == i)
			break;
		q->h[i] = q->h[m];
		i = m;
	}
	if (q->n > 0)
		q->h[i] = last;
	return 1;
}

int evq_check(const struct evq *q)
{
	size_t i;

	for (i = 1; i < q->n; i++)
		if (before(&q->h[i], &q->h[(i - 1) / 2]))
			return 0;
	return 1;
}
