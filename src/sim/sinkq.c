/* sinkq.c - the sinks' consumer thread and its ring (sinkq.h).
 *
 * A fixed ring of SINKQ_SIZE words.  head counts the words the writer has
 * published, tail those the consumer has applied; each is written by one
 * side only, on a cache line of its own, with release stores read by
 * acquire loads.  The writer publishes an eighth of the ring at a time
 * (sinkq_w.lim), so in steady state it reads and writes no shared line
 * between publications; the consumer applies everything published, then
 * stores tail.
 *
 * Sleeping, as arrq.c's: a side that finds nothing to do (the consumer, an
 * empty ring, at once; the writer, a full ring, after a short spin) raises
 * its `waiting` flag and, under the mutex, loads the other side's index
 * again before it waits on its condition variable; the other side, after
 * moving its index, adds nothing to it (a read-modify-write) and loads the
 * flag, all seq_cst, and if it is raised takes and drops the mutex and
 * signals.  The consumer applies an eighth of the ring in far less time
 * than the step loop takes to write one, so it sleeps between
 * publications: one wake-up per SINKQ_SIZE / 8 words (about 2,300
 * requests of the chat bench, ~30 words each), and the writer waits only
 * when the consumer was not scheduled for seven eighths of a ring. */
#include "sim/sinkq.h"

#include <stdatomic.h>
#include <stdlib.h>

#include "base/alloc.h"
#include "sim/ringwake.h"

#define SINKQ_PUB (SINKQ_SIZE / 8)
/* reloads of tail before a writer that finds the ring full sleeps (the
 * consumer sleeps at once when it runs dry: the next publication is far) */
#define SINKQ_SPIN 512
#define SINKQ_LINE 64

struct sinkq {
	uint64_t *ring;
	struct wdist *gapd;
	struct sinkq_rep *reps;
	int nrep;
	void (*call)(void *ctx, unsigned kind, const void *p);
	void *ctx;
	double energy;
	int64_t *clen, *cpre; /* the consumer's copy of a step's chunks */
	size_t ccap;
	struct ringwake w; /* its thread, mutex and condition variables */
	char pad0[SINKQ_LINE];
	/* the writer's: words published, whether it sleeps for room */
	atomic_uint_fast64_t head;
	atomic_bool w_waiting;
	char pad1[SINKQ_LINE];
	/* the consumer's: words applied */
	atomic_uint_fast64_t tail;
	char pad2[SINKQ_LINE];
	/* whether the consumer sleeps for data; sinkq_stop's stop */
	atomic_bool c_waiting, stop;
	char pad3[SINKQ_LINE];
};

static inline double dbl(uint64_t u)
{
	double x;

	memcpy(&x, &u, sizeof(x));
	return x;
}

/* The records in [t, h): applied in order; the words past them. */
static uint64_t apply(struct sinkq *q, uint64_t t, uint64_t h)
{
	while (t != h) {
		const uint64_t *r = q->ring + (t & SINKQ_MASK);
		uint64_t w0 = r[0];
		switch ((enum sinkq_kind)(w0 & 0xff)) {
		case SINKQ_GAP:
			wdist_add(&q->gapd[(w0 >> 8) & 0xff], dbl(r[1]), w0 >> 16);
			t += 2;
			break;
		case SINKQ_JOULES:
			q->energy += dbl(r[1]);
			t += 2;
			break;
		case SINKQ_CALL:
			q->call(q->ctx, (unsigned)(w0 >> 8) & 0xff, r + 1);
			t += 1 + (w0 >> 16);
			break;
		case SINKQ_STEP: {
			const struct sinkq_rep *rp = &q->reps[(w0 >> 8) & 0xffffffff];
			struct step_desc d;
			int64_t i, n = (int64_t)(w0 >> 40);
			double f, b;
			memset(&d, 0, sizeof(d));
			d.ndecode = (int64_t)(r[2] & 0xffffffffu);
			d.nlogits = (int64_t)(r[2] >> 32);
			d.decode_ctx_sum = dbl(r[3]);
			d.moe_tokens = (int64_t)r[4];
			if ((size_t)n > q->ccap) {
				q->ccap = (size_t)n;
				q->clen = xreallocarray(q->clen, q->ccap, sizeof(*q->clen));
				q->cpre = xreallocarray(q->cpre, q->ccap, sizeof(*q->cpre));
			}
			for (i = 0; i < n; i++) {
				q->clen[i] = (int64_t)r[5 + 2 * i];
				q->cpre[i] = (int64_t)r[6 + 2 * i];
			}
			d.nchunks = n;
			d.chunk_len = q->clen;
			d.chunk_prefix = q->cpre;
			/* (step.c account_step's, in its order) */
			cost_step_work(rp->cost, &d, &f, &b);
			q->energy += rp->gpus * power_step_j(&rp->power, dbl(r[1]), f, rp->peak, b, rp->hbm_bw);
			t += 5 + 2 * (uint64_t)n;
			break;
		}
		default:
			abort(); /* (a record this file does not write) */
		}
	}
	return t;
}

/* The consumer at t with nothing left to apply: true once *h is past t,
 * false when stopped with everything applied. */
static bool wait_data(struct sinkq *q, uint64_t t, uint64_t *h)
{
	pthread_mutex_lock(&q->w.m);
	atomic_store_explicit(&q->c_waiting, true, memory_order_seq_cst);
	for (;;) {
		if ((*h = atomic_load_explicit(&q->head, memory_order_seq_cst)) != t)
			break;
		/* (stop after head, and head again after stop: the writer
		 * publishes its last records before it stops) */
		if (atomic_load_explicit(&q->stop, memory_order_seq_cst)) {
			*h = atomic_load_explicit(&q->head, memory_order_acquire);
			break;
		}
		pthread_cond_wait(&q->w.data, &q->w.m);
	}
	atomic_store_explicit(&q->c_waiting, false, memory_order_relaxed);
	pthread_mutex_unlock(&q->w.m);
	return *h != t;
}

static void *consumer(void *arg)
{
	struct sinkq *q = arg;
	uint64_t t = 0, h = 0;

	/* the ring's pages mapped here, not by the writer's first pass over
	 * them (a thousand page faults on the step loop's thread) */
	xprefault(q->ring, (SINKQ_SIZE + SINKQ_REC_MAX) * sizeof(*q->ring));
	for (;;) {
		if (t == h) {
			atomic_store_explicit(&q->tail, t, memory_order_release);
			ringwake_if(&q->w, &q->tail, &q->w_waiting, &q->w.room);
			if (!wait_data(q, t, &h))
				break;
		}
		t = apply(q, t, h);
	}
	return NULL;
}

struct sinkq *sinkq_start(struct wdist *gapd, double energy_j, const struct sinkq_rep *reps, int nrep,
			  void (*call)(void *ctx, unsigned kind, const void *p), void *ctx, struct sinkq_w *w)
{
	struct sinkq *q = xcalloc(1, sizeof(*q));

	q->ring = xmalloc(xmul(SINKQ_SIZE + SINKQ_REC_MAX, sizeof(*q->ring)));
	q->gapd = gapd;
	q->energy = energy_j;
	q->nrep = nrep;
	q->call = call;
	q->ctx = ctx;
	q->reps = xmalloc(xmul((size_t)(nrep > 0 ? nrep : 1), sizeof(*q->reps)));
	if (nrep > 0)
		memcpy(q->reps, reps, (size_t)nrep * sizeof(*reps));
	atomic_init(&q->head, 0);
	atomic_init(&q->tail, 0);
	atomic_init(&q->w_waiting, false);
	atomic_init(&q->c_waiting, false);
	atomic_init(&q->stop, false);
	if (ringwake_start(&q->w, consumer, q) < 0)
		goto fail;
	w->ring = q->ring;
	w->head = 0;
	w->lim = SINKQ_PUB;
	w->q = q;
	w->waits = 0;
	return q;
fail:
	free(q->reps);
	free(q->ring);
	free(q);
	return NULL;
}

/* The writer needs words up to end: waits until the consumer has applied
 * enough; returns its sight of tail. */
static uint64_t wait_room(struct sinkq *q, uint64_t end)
{
	uint64_t t;
	int k;

	for (k = 0; k < SINKQ_SPIN; k++) {
		if (end - (t = atomic_load_explicit(&q->tail, memory_order_acquire)) <= SINKQ_SIZE)
			return t;
		ringwake_relax();
	}
	pthread_mutex_lock(&q->w.m);
	atomic_store_explicit(&q->w_waiting, true, memory_order_seq_cst);
	while (end - (t = atomic_load_explicit(&q->tail, memory_order_seq_cst)) > SINKQ_SIZE)
		pthread_cond_wait(&q->w.room, &q->w.m);
	atomic_store_explicit(&q->w_waiting, false, memory_order_relaxed);
	pthread_mutex_unlock(&q->w.m);
	return t;
}

void sinkq_room(struct sinkq_w *w, uint64_t need)
{
	struct sinkq *q = w->q;
	uint64_t t, lim;

	atomic_store_explicit(&q->head, w->head, memory_order_release);
	ringwake_if(&q->w, &q->head, &q->c_waiting, &q->w.data);
	t = atomic_load_explicit(&q->tail, memory_order_acquire);
	if (w->head + need - t > SINKQ_SIZE) {
		w->waits++;
		t = wait_room(q, w->head + need);
	}
	lim = w->head + SINKQ_PUB;
	w->lim = lim < t + SINKQ_SIZE ? lim : t + SINKQ_SIZE;
}

double sinkq_stop(struct sinkq *q, struct sinkq_w *w)
{
	double energy;

	atomic_store_explicit(&q->head, w->head, memory_order_release);
	atomic_store_explicit(&q->stop, true, memory_order_seq_cst);
	ringwake_join(&q->w, &q->w.data);
	energy = q->energy;
	free(q->clen);
	free(q->cpre);
	free(q->reps);
	free(q->ring);
	free(q);
	w->ring = NULL;
	w->head = w->lim = 0;
	w->q = NULL;
	return energy;
}
