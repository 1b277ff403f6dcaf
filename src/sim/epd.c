/* epd.c - an encoder pool ahead of the language-model workers (E/P/D
 * disaggregation; sim.h, sim_cfg.epd).
 *
 * vLLM's disaggregated encoder (docs.vllm.ai features/disagg_encoder,
 * examples/disaggregated/disaggregated_encoder: the XeYpZd proxy) sends a
 * request with images to an encoder instance first (--ec-transfer-config
 * ec_role ec_producer: it runs only the vision encoder, TP 1), which writes
 * the embeddings to its encoder-cache connector (ECExampleConnector over
 * shared storage, ECMooncakeConnector over RDMA); the proxy then sends the
 * request to a prefill (or prefill-decode) instance (ec_consumer), which
 * loads them instead of encoding.  Here: each deployment copy holds
 * `encoders` workers and one FIFO queue; a free worker takes queued
 * requests in order while their images the worker's cache lacks fit its
 * budget (one request at least), encodes them in one call, and hands each
 * request's embeddings on: alpha_s plus their bytes over the link, then the
 * request is queued on the replica chosen when it arrived. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "core.h"

struct epd_item {
	struct wl_req w;
	int64_t id;
	int ri;
	int32_t next_free;
};

struct epd_worker {
	struct mm_rep mm;
	bool busy;
	int32_t *batch;
	size_t nbatch, batch_cap;
};

struct epd {
	int per, copies;
	struct epd_worker *w;
	/* each copy's queue: slots in arrival order from head */
	struct epd_q {
		int32_t *slot;
		size_t head, n, cap;
	} *q;
	struct epd_item *items;     /* queued, encoding or in transfer */
	size_t nitems, items_cap;
	int32_t free_item;          /* -1: none */
	uint64_t live;
};

void epd_init(struct sim *s)
{
	struct epd *p = xcalloc(1, sizeof(*p));
	int i;

	p->per = s->cfg.epd.encoders;
	p->copies = s->nreplicas > 0 ? s->nreplicas : 1;
	p->w = xcalloc((size_t)(p->per * p->copies), sizeof(*p->w));
	p->q = xcalloc((size_t)p->copies, sizeof(*p->q));
	for (i = 0; i < p->per * p->copies; i++)
		mm_cache_init(&p->w[i].mm, s->cfg.max_num_batched_tokens, s->cfg.mm.image_tokens);
	p->free_item = -1;
	s->epd = p;
}

void epd_release(struct sim *s)
{
	struct epd *p = s->epd;
	int i;

	if (!p)
		return;
	for (i = 0; i < p->per * p->copies; i++) {
		mm_cache_release(&p->w[i].mm);
		free(p->w[i].batch);
	}
	for (i = 0; i < p->copies; i++)
		free(p->q[i].slot);
	free(p->w);
	free(p->q);
	free(p->items);
	free(p);
	s->epd = NULL;
}

uint64_t epd_live(const struct sim *s)
{
	return s->epd ? s->epd->live : 0;
}

/* Copy k's free workers take what its queue holds. */
static void kick(struct sim *s, int k)
{
	struct epd *p = s->epd;
	struct epd_q *q = &p->q[k];
	int i;

	for (i = k * p->per; i < (k + 1) * p->per && q->n > 0; i++) {
		struct epd_worker *W = &p->w[i];
		int32_t enc = 0;
		if (W->busy)
			continue;
		W->nbatch = 0;
		while (q->n > 0) {
			struct epd_item *it = &p->items[q->slot[q->head]];
			int32_t miss = mm_misses(&W->mm, it->w.images, it->w.image_id, it->w.image_new);
			if (W->nbatch > 0 && (int64_t)(enc + miss) * s->cfg.mm.image_tokens > W->mm.budget)
				break;
			enc += mm_take(s, &W->mm, it->w.images, it->w.image_id, it->w.image_new);
			XGROW(W->batch, W->batch_cap, W->nbatch + 1);
			W->batch[W->nbatch++] = q->slot[q->head];
			q->head++;
			q->n--;
		}
		W->busy = true;
		evq_push(&s->q, s->now + (int64_t)llround(mm_encode_s(s, &W->mm, s->cfg.epd.cost, enc) * 1e9),
			 EV_ENC_DONE, i);
	}
	if (q->n == 0)
		q->head = 0;
}

void epd_arrive(struct sim *s, const struct wl_req *w, int64_t id, int ri)
{
	struct epd *p = s->epd;
	int k = ri / s->per;
	struct epd_q *q = &p->q[k];
	int32_t slot;

	if (p->free_item >= 0) {
		slot = p->free_item;
		p->free_item = p->items[slot].next_free;
	} else {
		XGROW(p->items, p->items_cap, p->nitems + 1);
		slot = (int32_t)p->nitems++;
	}
	p->items[slot].w = *w;
	p->items[slot].id = id;
	p->items[slot].ri = ri;
	if (q->head > 0 && q->head + q->n == q->cap) { /* room at the front: move the queue there */
		memmove(q->slot, q->slot + q->head, q->n * sizeof(int32_t));
		q->head = 0;
	}
	XGROW(q->slot, q->cap, q->head + q->n + 1);
	q->slot[q->head + q->n++] = slot;
	p->live++;
	kick(s, k);
}

void epd_encoded(struct sim *s, int worker)
{
	struct epd *p = s->epd;
	struct epd_worker *W = &p->w[worker];
	size_t j;

	for (j = 0; j < W->nbatch; j++) {
		const struct epd_item *it = &p->items[W->batch[j]];
		double bytes = (double)it->w.images * (double)s->cfg.mm.image_tokens * s->cfg.epd.emb_bytes_per_token;
		int64_t ns = (int64_t)llround((s->cfg.epd.alpha_s + bytes / s->cfg.epd.link_bw) * 1e9);
		s->tot.epd_transfers++;
		s->tot.epd_transfer_ns += ns;
		evq_push(&s->q, s->now + ns, EV_EMB_ARRIVE, W->batch[j]);
	}
	W->nbatch = 0;
	W->busy = false;
	kick(s, worker / p->per);
}

void epd_landed(struct sim *s, int32_t slot, struct wl_req *w, int64_t *id, int *ri)
{
	struct epd *p = s->epd;
	struct epd_item *it = &p->items[slot];

	*w = it->w;
	*id = it->id;
	*ri = it->ri;
	it->next_free = p->free_item;
	p->free_item = slot;
	p->live--;
}
