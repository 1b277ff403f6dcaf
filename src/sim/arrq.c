/* arrq.c - the arrival stream's producer thread and its ring (arrq.h).
 *
 * A fixed ring of ARRQ_SIZE requests.  head counts the requests the
 * producer has put, tail those the consumer has taken; each is written by
 * one side only, on a cache line of its own, with release stores read by
 * acquire loads (a slot is written before head passes it and read before
 * tail passes it).  Each side keeps its last sight of the other's index and
 * reloads it only when that sight says full (producer) or empty
 * (consumer), so in steady state neither side reads the other's line.
 *
 * Sleeping.  A side that finds the ring empty (the consumer, after a
 * short spin) or full (the producer, at once: it is ahead) raises its
 * `waiting` flag and, under the mutex, loads the other side's index again
 * before it waits on its condition variable.  The other side, after
 * moving its index, adds nothing to it (a read-modify-write) and loads
 * that flag.  All four are seq_cst, so they fall in one total order: if
 * the sleeper's load comes after the read-modify-write it sees the index
 * moved, else the mover's load comes after the raised flag and sees it,
 * takes and drops the mutex (which the sleeper holds from raising its flag
 * to its wait: the sleeper then waits) and signals.  (No standalone
 * fences: ThreadSanitizer follows read-modify-writes.)  The
 * producer looks every ARRQ_BATCH puts and whenever it stops; the consumer
 * every ARRQ_SIZE / 2 takes, which a full ring's sleeping producer is
 * sure to see come (it slept with ARRQ_SIZE requests ahead), so it wakes
 * with half the ring free: one wake-up per ARRQ_SIZE / 2 requests, not a
 * system call per request.  On one core the same holds, only slower: the
 * producer fills the ring whenever it runs. */
#include "sim/arrq.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "base/alloc.h"
#include "sim/ringwake.h"

/* requests the ring holds (a power of two): 4,096 x sizeof(struct
 * wl_req) = 384 KiB, within one core's L2 */
#define ARRQ_SIZE ((uint64_t)4096)
#define ARRQ_MASK (ARRQ_SIZE - 1)
/* the producer looks for a sleeping consumer every ARRQ_BATCH puts */
#define ARRQ_BATCH ((uint64_t)32)
/* reloads of head an empty ring's consumer spins through before it sleeps */
#define ARRQ_SPIN 512
#define ARRQ_LINE 64

struct arrq {
	struct wl_gen *g;
	struct wl_req *ring;
	struct ringwake w; /* its thread, mutex and condition variables */
	char pad0[ARRQ_LINE];
	/* the producer's: requests put, its sight of tail, whether it sleeps
	 * for room, and the stream's end (done: end_rc and err are set) */
	atomic_uint_fast64_t head;
	uint64_t p_tail;
	atomic_bool prod_waiting, done;
	int end_rc;
	struct err err;
	char pad1[ARRQ_LINE];
	/* the consumer's: requests taken, its sight of head */
	atomic_uint_fast64_t tail;
	uint64_t c_tail, c_head;
	char pad2[ARRQ_LINE];
	/* seldom written, read by the producer at every put (stop) and every
	 * ARRQ_BATCH puts: on a line of their own, not tail's, which moves at
	 * every take: whether the consumer sleeps for data, arrq_free's stop */
	atomic_bool cons_waiting, stop;
	char pad3[ARRQ_LINE];
};

/* The producer at h puts with the ring full: sleeps until there is room
 * (true) or arrq_free stops it (false). */
static bool wait_room(struct arrq *q, uint64_t h)
{
	bool room;

	ringwake_if(&q->w, &q->head, &q->cons_waiting, &q->w.data);
	pthread_mutex_lock(&q->w.m);
	atomic_store_explicit(&q->prod_waiting, true, memory_order_seq_cst);
	for (;;) {
		q->p_tail = atomic_load_explicit(&q->tail, memory_order_seq_cst);
		room = h - q->p_tail < ARRQ_SIZE;
		if (room || atomic_load_explicit(&q->stop, memory_order_relaxed))
			break;
		pthread_cond_wait(&q->w.room, &q->w.m);
	}
	atomic_store_explicit(&q->prod_waiting, false, memory_order_relaxed);
	pthread_mutex_unlock(&q->w.m);
	return room;
}

static void *producer(void *arg)
{
	struct arrq *q = arg;
	uint64_t h = 0;
	int rc = 0;

	while (!atomic_load_explicit(&q->stop, memory_order_relaxed)) {
		if (h - q->p_tail == ARRQ_SIZE && !wait_room(q, h))
			break;
		/* (the slot is free: tail is past it) */
		if ((rc = wl_gen_next(q->g, 0, &q->ring[h & ARRQ_MASK], &q->err)) <= 0)
			break;
		atomic_store_explicit(&q->head, ++h, memory_order_release);
		if (h % ARRQ_BATCH == 0)
			ringwake_if(&q->w, &q->head, &q->cons_waiting, &q->w.data);
	}
	q->end_rc = rc < 0 ? rc : 0;
	atomic_store_explicit(&q->done, true, memory_order_seq_cst);
	ringwake_if(&q->w, &q->head, &q->cons_waiting, &q->w.data);
	return NULL;
}

struct arrq *arrq_start(struct wl_gen *g)
{
	struct arrq *q = xcalloc(1, sizeof(*q));

	q->g = g;
	q->ring = xmalloc(xmul(ARRQ_SIZE, sizeof(*q->ring)));
	atomic_init(&q->head, 0);
	atomic_init(&q->tail, 0);
	atomic_init(&q->prod_waiting, false);
	atomic_init(&q->done, false);
	atomic_init(&q->cons_waiting, false);
	atomic_init(&q->stop, false);
	if (ringwake_start(&q->w, producer, q) < 0)
		goto fail;
	return q;
fail:
	free(q->ring);
	free(q);
	return NULL;
}

/* The consumer at t finds its sight of head says empty: true once a
 * request is there (c_head past t), false when the stream has ended. */
static bool wait_data(struct arrq *q, uint64_t t)
{
	int k;

	if (atomic_load_explicit(&q->done, memory_order_acquire))
		return (q->c_head = atomic_load_explicit(&q->head, memory_order_acquire)) != t;
	for (k = 0; k < ARRQ_SPIN; k++) {
		if ((q->c_head = atomic_load_explicit(&q->head, memory_order_acquire)) != t)
			return true;
		ringwake_relax();
	}
	ringwake_if(&q->w, &q->tail, &q->prod_waiting, &q->w.room);
	pthread_mutex_lock(&q->w.m);
	atomic_store_explicit(&q->cons_waiting, true, memory_order_seq_cst);
	for (;;) {
		if ((q->c_head = atomic_load_explicit(&q->head, memory_order_seq_cst)) != t)
			break;
		/* (done after head, and head again after done: the last
		 * requests are put before done) */
		if (atomic_load_explicit(&q->done, memory_order_seq_cst)) {
			q->c_head = atomic_load_explicit(&q->head, memory_order_acquire);
			break;
		}
		pthread_cond_wait(&q->w.data, &q->w.m);
	}
	atomic_store_explicit(&q->cons_waiting, false, memory_order_relaxed);
	pthread_mutex_unlock(&q->w.m);
	return q->c_head != t;
}

int arrq_next(struct arrq *q, struct wl_req *out, struct err *e)
{
	uint64_t t = q->c_tail;

	if (t == q->c_head && !wait_data(q, t)) {
		if (q->end_rc < 0 && e)
			*e = q->err;
		return q->end_rc;
	}
	*out = q->ring[t & ARRQ_MASK];
	q->c_tail = ++t;
	atomic_store_explicit(&q->tail, t, memory_order_release);
	/* the next request's lines (two: 96 bytes a slot), if put: written
	 * on the producer's core, their loads above were cache misses (at
	 * DP 64 of the chat load 4 % of the step loop's samples); the next
	 * take is an event or more away.  A hint: nothing read changes. */
	if (t != q->c_head) {
		const char *n = (const char *)&q->ring[t & ARRQ_MASK];
		__builtin_prefetch(n);
		__builtin_prefetch(n + sizeof(*q->ring) - 1);
	}
	if (t % (ARRQ_SIZE / 2) == 0)
		ringwake_if(&q->w, &q->tail, &q->prod_waiting, &q->w.room);
	return 1;
}

void arrq_free(struct arrq *q)
{
	if (!q)
		return;
	atomic_store_explicit(&q->stop, true, memory_order_relaxed);
	ringwake_join(&q->w, &q->w.room);
	free(q->ring);
	free(q);
}
