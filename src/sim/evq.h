/* evq.h - binary heap of events ordered by (time, insertion sequence), so
 * equal-time events pop in the order they were pushed: same input and seed,
 * same order, byte-identical output. */
#ifndef SERVESIM_EVQ_H
#define SERVESIM_EVQ_H
#include <stddef.h>
#include <stdint.h>

#include "base/heap.h"

/* EV_TURN: a session's next turn arrives (replica: its slot in sim.later) */
/* EV_ENC_DONE: an encoder worker finished its batch (replica: the worker);
 * EV_EMB_ARRIVE: a request's image embeddings landed (replica: its slot);
 * both E/P/D (sim/epd.c) */
/* EV_API_CLOSE, EV_API_TAKE, EV_API_PASS: the API server's intake closes
 * the batch of this instant, takes the arrivals that waited, lets a closed
 * batch reach the engine (sim/apiq.c) */
enum ev_kind {
	EV_ARRIVAL, EV_STEP_END, EV_KICK, EV_KV_ARRIVE, EV_STAGE_FREE, EV_TURN, EV_ENC_DONE, EV_EMB_ARRIVE,
	EV_API_CLOSE, EV_API_TAKE, EV_API_PASS
};

struct event {
	int64_t t_ns;
	uint64_t seq;
	enum ev_kind kind;
	int32_t replica;
};

struct evq {
	struct event *h;
	size_t n, cap;
	uint64_t next_seq;
};

void evq_init(struct evq *q, size_t cap);
void evq_release(struct evq *q);
/* Room for one more event (push's slow path). */
void evq_grow(struct evq *q);

/* push and pop are inline: the event loop runs them once or twice per
 * simulated request, on a heap of a few entries */
static inline int evq_before(const struct event *a, const struct event *b)
{
	/* (one 128-bit comparison of (time, seq), the time's sign bit
	 * flipped so that unsigned order is signed order: a flag, no
	 * branch, so that the pop's sift picks a child by arithmetic,
	 * base/heap.h; || and && compiled to a branch a level, which
	 * mispredicted half the time) */
	__extension__ typedef unsigned __int128 evq_key;
	const uint64_t sign = (uint64_t)1 << 63;
	evq_key ka = (evq_key)((uint64_t)a->t_ns ^ sign) << 64 | a->seq;
	evq_key kb = (evq_key)((uint64_t)b->t_ns ^ sign) << 64 | b->seq;

	return ka < kb;
}

HEAP_SIFT_DEFINE(evq, struct event, evq_before)

static inline void evq_push(struct evq *q, int64_t t_ns, enum ev_kind kind, int32_t replica)
{
	struct event ev;

	if (q->n + 1 > q->cap)
		evq_grow(q);
	ev.t_ns = t_ns;
	ev.seq = q->next_seq++;
	ev.kind = kind;
	ev.replica = replica;
	evq_sift_up(q->h, q->n++, ev);
}

/* Pop the earliest event; returns 0 when empty. */
static inline int evq_pop(struct evq *q, struct event *out)
{
	if (q->n == 0)
		return 0;
	*out = q->h[0];
	q->n--;
	evq_sift_down(q->h, q->n);
	return 1;
}
static inline size_t evq_size(const struct evq *q) { return q->n; }
/* Time of the earliest event (the queue must not be empty). */
static inline int64_t evq_top_ns(const struct evq *q) { return q->h[0].t_ns; }
/* 1 if the heap property holds (tests). */
int evq_check(const struct evq *q);

#endif
