/* apiq.c - the API server's intake on one event loop (overheads.api_loop_ms).
 *
 * An engine whose HTTP front end runs every request's own work (request
 * validation, chat template) on one asyncio event loop and then suspends it
 * for tokenisation off the loop (vLLM: OpenAIServing._preprocess_chat,
 * AsyncMicrobatchTokenizer's one-thread executor) takes a burst of requests
 * in whole: asyncio runs every callback that is ready when a loop iteration
 * starts before any that becomes ready during it, so the handlers of
 * requests that arrived together all run their part before the first of
 * them is tokenised and handed to the engine.  Here that part is a =
 * api_loop_ms of the loop's time per request: the arrivals of one instant
 * form a batch the loop takes when it is free, and a batch of k reaches the
 * engine together, (k - 1) x a after the loop took it, the loop busy for
 * k x a; arrivals while it is busy wait for its next batch.  The client's
 * TTFT still adds the whole API time (api_ttft_ms, records_client_times),
 * of which a is part: a lone request reaches the engine at once as before,
 * the same bits.
 *
 * The first request of a batch goes in at once (it opens the batch before
 * the others of its instant are known); the rest are held in `held` until
 * EV_API_CLOSE at that instant fixes when they pass (EV_API_PASS), and the
 * arrivals while the loop is busy in `wait` until it takes them
 * (EV_API_TAKE). */
#include <math.h>
#include <stdlib.h>

#include "base/alloc.h"
#include "core.h"

struct apiq_item {
	struct wl_req w;
	int64_t id;
};

struct apiq_list {
	struct apiq_item *v;
	size_t n, cap;
};

struct apiq {
	int64_t a_ns;        /* the loop's time per request */
	int64_t open_ns;     /* the instant of the batch still taking arrivals; -1: none */
	int64_t free_ns;     /* the loop is busy until then */
	bool close_pending, take_pending;
	struct apiq_list held; /* the open batch past its first request */
	struct apiq_list pass; /* a closed batch waiting for its EV_API_PASS */
	struct apiq_list wait; /* arrived while the loop was busy */
	size_t pass_i, wait_i; /* how far apiq_pass / apiq_take have gone */
};

void apiq_init(struct sim *s)
{
	double a_ms = s->cost->cfg.ov.api_loop_ms;

	/* none where the loop is not modelled: no such term, H2 off, live use
	 * (requests come one by one), several serving copies or P/D and E/P/D
	 * front ends (each its own server) */
	if ((s->cost->cfg.off & COST_H2) || s->cfg.live || !(a_ms > 0) ||
	    s->nreplicas > 1 || s->cfg.pd.prefill > 0 || s->cfg.epd.encoders > 0)
		return;
	s->apiq = xcalloc(1, sizeof(*s->apiq));
	/* several API servers (sim_cfg.api_servers) take the arrivals in
	 * turn: their loops together pass one each a_ms / servers */
	s->apiq->a_ns = llround(a_ms * 1e6 / (s->cfg.api_servers > 1 ? s->cfg.api_servers : 1));
	s->apiq->open_ns = -1;
}

void apiq_release(struct sim *s)
{
	if (!s->apiq)
		return;
	free(s->apiq->held.v);
	free(s->apiq->pass.v);
	free(s->apiq->wait.v);
	free(s->apiq);
	s->apiq = NULL;
}

static void put(struct apiq_list *l, const struct wl_req *w, int64_t id)
{
	XGROW(l->v, l->cap, l->n + 1);
	l->v[l->n].w = *w;
	l->v[l->n].id = id;
	l->n++;
}

/* Request w (id) taken by a free loop at this instant: the first of the
 * instant opens the batch and goes in (true: the caller lets it in); the
 * others join it (false). */
static bool take_one(struct sim *s, const struct wl_req *w, int64_t id)
{
	struct apiq *q = s->apiq;

	if (q->open_ns != s->now) {
		q->open_ns = s->now;
		q->free_ns = s->now + q->a_ns;
		return true;
	}
	put(&q->held, w, id);
	q->free_ns += q->a_ns;
	if (!q->close_pending) {
		q->close_pending = true;
		evq_push(&s->q, s->now, EV_API_CLOSE, 0);
	}
	return false;
}

/* The next item of l from *i (true, copied to w and id; false at the end,
 * l emptied). */
static bool next_item(struct apiq_list *l, size_t *i, struct wl_req *w, int64_t *id)
{
	if (*i < l->n) {
		*w = l->v[*i].w;
		*id = l->v[(*i)++].id;
		return true;
	}
	l->n = *i = 0;
	return false;
}

bool apiq_arrive(struct sim *s, const struct wl_req *w, int64_t id)
{
	struct apiq *q = s->apiq;

	if (!q)
		return false;
	if (q->open_ns == s->now || (!q->take_pending && s->now >= q->free_ns))
		return !take_one(s, w, id);
	put(&q->wait, w, id);
	if (!q->take_pending) {
		q->take_pending = true;
		evq_push(&s->q, q->free_ns, EV_API_TAKE, 0);
	}
	return true;
}

void apiq_close(struct sim *s)
{
	struct apiq *q = s->apiq;
	struct apiq_list t;

	q->close_pending = false;
	q->open_ns = -1;
	if (q->held.n == 0)
		return;
	/* (the previous batch passed before this one opened: free_ns) */
	t = q->pass;
	q->pass = q->held;
	q->held = t;
	q->held.n = 0;
	evq_push(&s->q, q->free_ns - q->a_ns, EV_API_PASS, 0);
}

bool apiq_pass(struct sim *s, struct wl_req *w, int64_t *id)
{
	struct apiq *q = s->apiq;

	return next_item(&q->pass, &q->pass_i, w, id);
}

bool apiq_take(struct sim *s, struct wl_req *w, int64_t *id)
{
	struct apiq *q = s->apiq;

	q->take_pending = false;
	/* (take_one puts nothing in wait: arrivals during the takes are
	 * events of their own) */
	while (next_item(&q->wait, &q->wait_i, w, id))
		if (take_one(s, w, *id))
			return true;
	return false;
}

uint64_t apiq_live(const struct sim *s)
{
	const struct apiq *q = s->apiq;

	return q ? (uint64_t)(q->held.n + q->pass.n - q->pass_i + q->wait.n - q->wait_i) : 0;
}
