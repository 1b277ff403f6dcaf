/* evq.h - binary heap of events ordered by (time, insertion sequence), so
 * equal-time events pop in the order they were pushed: same input and seed,
 * same order, byte-identical output. */
#ifndef SERVESIM_EVQ_H
#define SERVESIM_EVQ_H
#include <stddef.h>
#include <stdint.h>

enum ev_kind { EV_ARRIVAL, EV_STEP_END, EV_KICK, EV_KV_ARRIVE, EV_STAGE_FREE };

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
void evq_push(struct evq *q, int64_t t_ns, enum ev_kind kind, int32_t replica);
/* Pop the earliest event; returns 0 when empty. */
int evq_pop(struct evq *q, struct event *out);
static inline size_t evq_size(const struct evq *q) { return q->n; }
/* Time of the earliest event (the queue must not be empty). */
static inline int64_t evq_top_ns(const struct evq *q) { return q->h[0].t_ns; }
/* 1 if the heap property holds (tests). */
int evq_check(const struct evq *q);

#endif
