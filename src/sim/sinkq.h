/* sinkq.h - the step loop's write-only sinks, applied on a thread of their own.
 *
 * Two things the step loop writes and only the summary reads: the pooled
 * token gaps (wdist_add into sim.gapd, decoders.h dec_gaps_deliver) and the
 * energy meter (cost_step_work and power_step_j summed into
 * tot.energy_dyn_j, step.c account_step).  With a consumer thread the step
 * loop only appends their inputs as records to a bounded single-producer/
 * single-consumer ring of 64-bit words, and the consumer applies them in
 * the order written: the same wdist_add calls with the same arguments in
 * the same order, and the same joules summed in the same order, so the
 * same bits (a bucketed wdist's sums and the energy are floating-point
 * sums whose bits depend on their order).  The consumer owns the gap
 * distributions and the energy sum from sinkq_start to sinkq_stop, which
 * applies what is left, joins the thread and hands them back.
 *
 * engine.c starts it with the arrivals' producer (sim_cfg.arrival_thread,
 * sim_run) and stops it before sim_run returns, so nothing outside the run
 * sees a sink half applied. */
#ifndef SERVESIM_SIM_SINKQ_H
#define SERVESIM_SIM_SINKQ_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "base/wdist.h"
#include "cost/cost.h"
#include "hw/power.h"

/* the ring's words (a power of two): 524,288 x 8 B = 4 MiB (about 19,000
 * requests of the chat bench: the step loop goes on while the consumer is
 * descheduled for some milliseconds on a busy machine), and
 * SINKQ_REC_MAX more past its end, so that a record is written and read
 * in one piece where it wraps (the words past the end stand for the
 * ring's first ones: nobody else writes those before the record is
 * applied) */
#define SINKQ_SIZE ((uint64_t)1 << 19)
#define SINKQ_MASK (SINKQ_SIZE - 1)
/* the longest record (words): a step with more prefill chunks than fit
 * passes its joules, computed on the writer's thread */
#define SINKQ_REC_MAX ((uint64_t)1024)

enum sinkq_kind { SINKQ_GAP = 1, SINKQ_STEP = 2, SINKQ_JOULES = 3, SINKQ_CALL = 4 };

/* What the energy of replica ri's steps reads (step.c account_step):
 * copied at the start, so that the consumer reads no line the step loop
 * writes. */
struct sinkq_rep {
	const struct cost_model *cost;
	struct power_model power;
	double gpus, peak, hbm_bw;
};

/* The writer's side (the simulation's thread): records are written at
 * head; at lim (an eighth of the ring past the last publication, or where
 * the ring is full) sinkq_room publishes them, wakes the consumer if it
 * sleeps and waits while the ring is full. */
struct sinkq_w {
	uint64_t *ring;
	uint64_t head, lim;
	struct sinkq *q;
	uint64_t waits; /* times it found the ring full (kept by sinkq_stop) */
};

/* Starts the consumer on gapd[256] and the energy sum energy_j (NAN:
 * none), with reps[nrep] (copied), and call(ctx, kind, p) for the
 * caller's own records (sinkq_call_at; call may be NULL if none is written);
 * w is the writer's handle.  NULL when no thread could be started: the
 * caller then applies the sinks itself. */
struct sinkq *sinkq_start(struct wdist *gapd, double energy_j, const struct sinkq_rep *reps, int nrep,
			  void (*call)(void *ctx, unsigned kind, const void *p), void *ctx, struct sinkq_w *w);
/* Publishes the records written, and returns once need more words fit. */
void sinkq_room(struct sinkq_w *w, uint64_t need);
/* Applies every record written, stops and joins the consumer, frees q and
 * returns the energy sum; gapd is the caller's again. */
double sinkq_stop(struct sinkq *q, struct sinkq_w *w);

static inline uint64_t sinkq_bits(double x)
{
	uint64_t u;

	memcpy(&u, &x, sizeof(u));
	return u;
}

/* wdist_add(&gapd[st], x, n), in its turn (st < 256, n < 2^48). */
static inline void sinkq_gap(struct sinkq_w *w, int st, double x, uint64_t n)
{
	uint64_t h = w->head, *r;

	if (h + 2 > w->lim) {
		sinkq_room(w, 2);
		h = w->head;
	}
	r = w->ring + (h & SINKQ_MASK);
	r[0] = SINKQ_GAP | (uint64_t)st << 8 | n << 16;
	r[1] = sinkq_bits(x);
	w->head = h + 2;
}

/* The energy of step d of t seconds on replica ri (whose cost model is c),
 * in its turn: false (nothing written) when its chunks do not fit a
 * record. */
static inline bool sinkq_step(struct sinkq_w *w, int ri, const struct cost_model *c, double t,
			      const struct step_desc *d)
{
	uint64_t h = w->head, need = 5 + 2 * (uint64_t)d->nchunks, *r;
	int64_t i;

	if (need > SINKQ_REC_MAX || (uint64_t)d->ndecode > UINT32_MAX || (uint64_t)d->nlogits > UINT32_MAX)
		return false; /* (metered by the caller) */
	if (h + need > w->lim) {
		sinkq_room(w, need);
		h = w->head;
	}
	r = w->ring + (h & SINKQ_MASK);
	r[0] = SINKQ_STEP | (uint64_t)ri << 8 | (uint64_t)d->nchunks << 40;
	r[1] = sinkq_bits(t);
	r[2] = (uint64_t)d->ndecode | (uint64_t)d->nlogits << 32;
	r[3] = sinkq_bits(d->decode_ctx_sum);
	r[4] = (uint64_t)d->moe_tokens;
	for (i = 0; i < d->nchunks; i++) {
		r[5 + 2 * i] = (uint64_t)d->chunk_len[i];
		r[6 + 2 * i] = (uint64_t)d->chunk_prefix[i];
	}
	/* the tables cost_step_work reads filled here, before the record is
	 * published */
	cost_step_work_need(c, d);
	w->head = h + need;
	return true;
}

/* call(ctx, kind, p) in its turn, p the record's `bytes` (a multiple of 8
 * up to (SINKQ_REC_MAX - 1) x 8; kind < 256) that this returns, 8-byte
 * aligned, for the caller to write in place before its next sinkq_ call
 * (records are published only by sinkq_room and sinkq_stop).  Written in
 * place, field by field: a record built on the stack and copied in by
 * 16-byte loads across its 8-byte stores stalled on store-to-load
 * forwarding (records_keep, once a completion). */
static inline void *sinkq_call_at(struct sinkq_w *w, unsigned kind, size_t bytes)
{
	uint64_t h = w->head, n = bytes / 8, *r;

	if (h + 1 + n > w->lim) {
		sinkq_room(w, 1 + n);
		h = w->head;
	}
	r = w->ring + (h & SINKQ_MASK);
	r[0] = SINKQ_CALL | (uint64_t)kind << 8 | n << 16;
	w->head = h + 1 + n;
	return r + 1;
}

/* j joules added to the energy sum, in its turn. */
static inline void sinkq_joules(struct sinkq_w *w, double j)
{
	uint64_t h = w->head, *r;

	if (h + 2 > w->lim) {
		sinkq_room(w, 2);
		h = w->head;
	}
	r = w->ring + (h & SINKQ_MASK);
	r[0] = SINKQ_JOULES;
	r[1] = sinkq_bits(j);
	w->head = h + 2;
}

#endif
