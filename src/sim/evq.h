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

/* An event as popped. */
struct event {
	int64_t t_ns;
	uint64_t seq;
	enum ev_kind kind;
	int32_t replica;
};

/* An event as the heap holds it: 16 bytes, its order in its two words --
 * the time with its sign bit flipped (so that unsigned order is signed
 * order) and seq << EVQ_SEQ_SHIFT | kind << EVQ_KIND_SHIFT | replica --
 * so that (time, seq) order (seq is unique) is one 128-bit comparison of
 * the words as stored, and a move one 16-byte copy: half the bytes a
 * level of the pop's sift moved, and no flip of the sign at each
 * comparison (DP 64's 64 queued step ends: docs/performance.md, "chat5").
 * The pops and the heap's layout are those of (time, seq) compared as
 * before. */
struct evq_ent {
	uint64_t t; /* t_ns ^ 2^63 */
	uint64_t k; /* seq << 28 | kind << 24 | replica */
};

#define EVQ_KIND_SHIFT 24
#define EVQ_SEQ_SHIFT 28
/* the limits of the packing: a replica (or event slot: sim/engine.c's
 * slot_take, at most the events queued at once) below 2^24, a
 * simulation's events below 2^36 (~69 G); past them evq_push aborts, as
 * running out of memory does (base/alloc.c) */
#define EVQ_REPLICA_LIM ((uint32_t)1 << EVQ_KIND_SHIFT)
#define EVQ_SEQ_LIM ((uint64_t)1 << (64 - EVQ_SEQ_SHIFT))

struct evq {
	struct evq_ent *h;
	size_t n, cap;
	uint64_t next_seq;
};

void evq_init(struct evq *q, size_t cap);
void evq_release(struct evq *q);
/* Room for one more event (push's slow path). */
void evq_grow(struct evq *q);
/* An event past the packing's limits (above): a message, then abort(). */
void evq_overflow(const struct evq *q, int32_t replica) __attribute__((noreturn));

/* push and pop are inline: the event loop runs them once or twice per
 * simulated request, on a heap of a few entries */
static inline int evq_before(const struct evq_ent *a, const struct evq_ent *b)
{
	/* (one 128-bit comparison: a flag, no branch, so that the pop's
	 * sift picks a child by arithmetic, base/heap.h; || and && compiled
	 * to a branch a level, which mispredicted half the time) */
	__extension__ typedef unsigned __int128 evq_key;
	evq_key ka = (evq_key)a->t << 64 | a->k;
	evq_key kb = (evq_key)b->t << 64 | b->k;

	return ka < kb;
}

HEAP_SIFT_DEFINE(evq, struct evq_ent, evq_before)

static inline void evq_push(struct evq *q, int64_t t_ns, enum ev_kind kind, int32_t replica)
{
	struct evq_ent ev;

	if (q->n + 1 > q->cap)
		evq_grow(q);
	if (((q->next_seq >> (64 - EVQ_SEQ_SHIFT)) | ((uint32_t)replica >> EVQ_KIND_SHIFT)) != 0)
		evq_overflow(q, replica);
	ev.t = (uint64_t)t_ns ^ ((uint64_t)1 << 63);
	ev.k = q->next_seq++ << EVQ_SEQ_SHIFT | (uint64_t)kind << EVQ_KIND_SHIFT | (uint32_t)replica;
	evq_sift_up(q->h, q->n++, ev);
}

/* The queued event at the top (the queue must not be empty): its time,
 * push sequence number, kind and replica. */
static inline int64_t evq_top_ns(const struct evq *q) { return (int64_t)(q->h[0].t ^ ((uint64_t)1 << 63)); }
static inline uint64_t evq_top_seq(const struct evq *q) { return q->h[0].k >> EVQ_SEQ_SHIFT; }
static inline enum ev_kind evq_top_kind(const struct evq *q)
{
	return (enum ev_kind)((q->h[0].k >> EVQ_KIND_SHIFT) & 0xf);
}
static inline int32_t evq_top_replica(const struct evq *q) { return (int32_t)(q->h[0].k & (EVQ_REPLICA_LIM - 1)); }

/* Pop the earliest event; returns 0 when empty. */
static inline int evq_pop(struct evq *q, struct event *out)
{
	if (q->n == 0)
		return 0;
	out->t_ns = evq_top_ns(q);
	out->seq = evq_top_seq(q);
	out->kind = evq_top_kind(q);
	out->replica = evq_top_replica(q);
	q->n--;
	evq_sift_down(q->h, q->n);
	return 1;
}
static inline size_t evq_size(const struct evq *q) { return q->n; }
/* 1 if the heap property holds (tests). */
int evq_check(const struct evq *q);

#endif
