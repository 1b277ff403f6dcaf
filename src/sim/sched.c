/* sched.c - the step loop and its mechanics (core.h): request records, the
 * waiting queue, block hashes and the prefix cache's lookups, KV blocks,
 * decoders, admission, preemption, token delivery.  Which requests a step
 * runs is the policy's (sim_cfg.policy: vLLM v1's walk, SGLang's batches,
 * in src/engine/); this file names none.
 *
 * Speed without changing the policies' outcome: requests in steady decode
 * ("decoders") are not walked.  Their progress is a function of the
 * replica's step count G; they are grouped by the residue of their context
 * modulo block_size, so a step touches only the group that crosses a block
 * boundary (about 1/16 of them), and a min-heap holds the step at which each
 * completes.  A policy walks them only when its outcome could differ from
 * "everyone gets everything" (sched_dec_leave makes one explicit again);
 * with split batches (SGLang's) the prefill batches do not advance them: G
 * counts the decode batches.  The golden tests pin the outputs of every
 * path to the literal algorithm's, and test_sim runs each engine with and
 * without decoders (sim.h, no_lazy_decoders) and compares the bytes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/simtime.h"
#include "core.h"

/* The step loop's stages (finish_rank, deliver, plan_step, start_single)
 * are large and called from a few places each: written into their callers,
 * a step saves their calls and register saves (GCC and Clang; elsewhere a
 * plain inline hint). */
#if defined(__GNUC__)
#define SCHED_STEP_INLINE inline __attribute__((always_inline))
#else
#define SCHED_STEP_INLINE inline
#endif

/* prefix lookups in flight at once: about a memory latency's worth of
 * hashing and probing (measured: `servesim eval` of the inference-perf
 * ground truth, 2 to 8 tried) */
#define SCHED_LOOKAHEAD 4
/* chain memo slots per replica (a power of two), the longest shareable
 * part kept and the blocks kept in all slots together: 4 MiB of hashes at
 * most.  Slots are direct-mapped: a workload of 100 distinct prompts
 * (inference-perf's shared_prefix) had a third of them colliding in 256
 * slots, each collision a whole prompt hashed again; in 4096 about 2 %. */
#define SCHED_CHAIN_MEMO 4096
/* the memo's first size (slots): it doubles while more than half of its
 * slots hold a chain, up to SCHED_CHAIN_MEMO, so that a rank that sees a
 * few prompts holds a few slots (4096 of them were 160 KB a rank) */
#define SCHED_CHAIN_MEMO_START 16
#define SCHED_CHAIN_MEMO_MAX 2048
#define SCHED_CHAIN_MEMO_BUDGET (512 * 1024)
/* a request's kept chain is an array of the longest a request can need,
 * reused from a per-replica stack (a malloc and a free per request cost
 * more than hashing a short prompt), while that is at most this many
 * blocks (32 KiB); past it (one-token pages) sized to the request */
#define SCHED_CHAIN_POOL_MAX 4096
/* steps ahead that a decoder's completion is kept in the replica's ring of
 * buckets (a power of two: 1024 steps covers the chat workloads' outputs)
 * rather than its heap: O(1) each instead of log(decoders) comparisons */
#define SCHED_FIN_RING 1024
/* the ring's first size: it doubles to cover the farthest completion
 * queued, up to SCHED_FIN_RING, so that a rank that sees a few short
 * requests (DP ranks of a large GPU budget) holds a few buckets only */
#define SCHED_FIN_RING_START 16

/* --- block-id arrays and the waiting queue --- */

/* The size class of r's block-id array: the blocks its prompt, output and
 * a step's speculative lookahead can fill (two spare), at most
 * max_blocks_per_req.  Sized for the request, not for max_model_len: a
 * chat request's array was 32 KiB for Llama-3.1's 131,072-token context,
 * mapped on its own in a search (src/cmd/search.c mallopt) and returned at
 * every probe's end, about 60,000 mmap/munmap pairs in the README's
 * Llama-3.1-70B search. */
static int ceil_log2(uint64_t v) /* v >= 2 */
{
	return 64 - __builtin_clzll(v - 1);
}

static int array_class(const struct sim *s, const struct req *r, int32_t *n)
{
	int64_t need = blocks_for(s, r->prompt + r->output + s->cfg.spec.k + 1) + 2;
	int64_t top = s->max_blocks_per_req > 16 ? s->max_blocks_per_req : 16;
	int c = need > 16 ? ceil_log2((uint64_t)need) - 4 : 0, ctop = ceil_log2((uint64_t)top) - 4;

	if (ctop > SCHED_ARRAY_CLASSES - 1)
		ctop = SCHED_ARRAY_CLASSES - 1;
	if (c >= ctop) { /* the largest class: the most a request may hold */
		*n = (int32_t)s->max_blocks_per_req;
		return ctop;
	}
	*n = 16 << c;
	return c;
}

static int32_t *array_get(struct sim *s, struct replica *rp, struct req *r)
{
	int32_t n;
	int c;

	if (r->aclass > 0 && rp->narrays[r->aclass - 1] > 0) /* (a retry at the head of the queue) */
		return rp->arrays[r->aclass - 1][--rp->narrays[r->aclass - 1]];
	c = array_class(s, r, &n);
	r->aclass = (uint8_t)(c + 1);
	if (rp->narrays[c] > 0)
		return rp->arrays[c][--rp->narrays[c]];
	return xmalloc(xmul((size_t)n, sizeof(int32_t)));
}

static void array_put(const struct sim *s, struct replica *rp, struct req *r, int32_t *a)
{
	int32_t n;
	int c = r->aclass > 0 ? r->aclass - 1 : array_class(s, r, &n);

	r->aclass = (uint8_t)(c + 1);
	XGROW(rp->arrays[c], rp->arrays_cap[c], rp->narrays[c] + 1);
	rp->arrays[c][rp->narrays[c]++] = a;
}

static struct req *req_get(struct sim *s)
{
	struct req *r;

	if (!s->free_reqs) {
		/* slabs of 32, 64, ... 1024 records: linking a slab touches all
		 * of it, and a short run should not fault in 1024 records
		 * (320 KiB) it never uses (start-up, issue 13) */
		size_t i, n = s->nslabs < 5 ? (size_t)32 << s->nslabs : 1024;
		struct req *slab = xcalloc(n, sizeof(*slab));
		XGROW(s->slabs, s->slabs_cap, s->nslabs + 1);
		s->slabs[s->nslabs++] = slab;
		for (i = 0; i < n; i++) {
			slab[i].next_free = s->free_reqs;
			s->free_reqs = &slab[i];
		}
	}
	r = s->free_reqs;
	s->free_reqs = r->next_free;
	{
		/* a heap entry of the record's last holder (rejected after a
		 * preemption) may still be queued: its epoch goes on counting */
		uint32_t epoch = r->epoch;
		memset(r, 0, sizeof(*r));
		r->epoch = epoch;
	}
	return r;
}

void sched_req_put(struct sim *s, struct req *r)
{
	r->next_free = s->free_reqs;
	s->free_reqs = r;
}

static void wq_grow(struct replica *rp)
{
	/* a power of two: positions wrap with a mask */
	size_t ncap = rp->wcap ? rp->wcap * 2 : 64, i;
	struct wq_ent *n = xmalloc(xmul(ncap, sizeof(*n)));

	for (i = 0; i < rp->wlen; i++)
		n[i] = rp->wq[(rp->whead + i) & (rp->wcap - 1)];
	free(rp->wq);
	rp->wq = n;
	rp->wcap = ncap;
	rp->whead = 0;
}

static struct wq_ent *wq_push_back(struct replica *rp)
{
	struct wq_ent *q;

	if (rp->wlen == rp->wcap)
		wq_grow(rp);
	q = &rp->wq[(rp->whead + rp->wlen) & (rp->wcap - 1)];
	rp->wlen++;
	return q;
}

void sched_enqueue(struct replica *rp, struct req *r)
{
	wq_push_back(rp)->r = r;
}

void sched_arrive(struct replica *rp, const struct wl_req *w, int64_t id)
{
	struct wq_ent *q;

	if (rp->recv_gate && rp->busy) { /* not polled until the scheduler's next receive */
		XGROW(rp->inbox, rp->inbox_cap, rp->ninbox + 1);
		q = &rp->inbox[rp->ninbox++];
	} else {
		q = wq_push_back(rp);
	}

	q->r = NULL;
	q->id = id;
	q->arrival_ns = w->arrival_ns;
	q->prompt = w->prompt_tokens;
	q->output = w->output_tokens;
	q->prefix_tokens = w->prefix_tokens;
	q->prefix_group = w->prefix_group;
	q->content_id = w->content_id;
	q->stage = w->stage;
	q->turn = w->turn;
	q->keys = w->keys;
	q->nkeys = w->nkeys;
	q->lora = w->lora;
	q->images = w->images;
	q->image_id = w->image_id;
	q->image_new = w->image_new;
}

void sched_receive(struct replica *rp)
{
	size_t i;

	for (i = 0; i < rp->ninbox; i++)
		*wq_push_back(rp) = rp->inbox[i];
	rp->ninbox = 0;
	rp->recv_ct = 0;
}

static void wq_push_front(struct replica *rp, struct req *r)
{
	if (rp->wlen == rp->wcap)
		wq_grow(rp);
	rp->whead = (rp->whead + rp->wcap - 1) & (rp->wcap - 1);
	rp->wq[rp->whead].r = r;
	rp->wlen++;
}

/* A record for waiting entry q of rp (one without a record). */
static struct req *req_of_ent(struct sim *s, const struct replica *rp, const struct wq_ent *q)
{
	struct req *r = req_get(s);

	r->id = q->id;
	r->arrival_ns = q->arrival_ns;
	r->prompt = q->prompt;
	r->output = q->output;
	r->prefix_tokens = q->prefix_tokens;
	r->prefix_group = q->prefix_group;
	r->content_id = q->content_id;
	r->stage = q->stage;
	r->turn = q->turn;
	r->keys = q->keys;
	r->nkeys = q->nkeys;
	r->lora = q->lora;
	r->images = q->images;
	r->image_id = q->image_id;
	r->image_new = q->image_new;
	r->replica = (int)(rp - s->reps);
	r->sched_ns = -1;
	r->nshare = req_nshare(s, r);
	return r;
}

/* The head of the waiting queue, its record made if it had none. */
static struct req *wq_front(struct sim *s, struct replica *rp)
{
	struct wq_ent *q = &rp->wq[rp->whead];

	if (!q->r)
		q->r = req_of_ent(s, rp, q);
	return q->r;
}

static void wq_pop_front(struct replica *rp)
{
	rp->whead = (rp->whead + 1) & (rp->wcap - 1);
	rp->wlen--;
}

/* --- block content hashes --- */

static uint64_t mix64(uint64_t x)
{
	/* splitmix64 finaliser */
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

/* Hash of block b of r given the previous block's hash: the chain makes a
 * block's key depend on everything before it, as vLLM's block hashes do. */
/* The key of block b of a request with keyed blocks (wl_req.keys): its
 * last token's keyed block's, inside the prompt and the keys; its own
 * beyond (a block straddling two keyed blocks takes the second's key, so
 * it is shared only with requests that agree on both). */
static uint64_t keyed_block_key(const struct sim *s, const struct req *r, int64_t b)
{
	int64_t last = (b + 1) * s->cfg.block_size - 1, j = last / s->wl->key_tokens;

	if (last < r->prompt && j < r->nkeys)
		return mix64(0x4b00000000000000ULL ^ (uint64_t)r->keys[j]);
	return mix64(0x4f00000000000000ULL ^ (uint64_t)r->id);
}

uint64_t sched_block_hash(const struct sim *s, const struct req *r, int64_t b, uint64_t prev)
{
	int64_t end = (b + 1) * s->cfg.block_size;
	uint64_t key;

	if (r->keys)
		key = keyed_block_key(s, r, b);
	else if (end <= r->prefix_tokens && r->prefix_group >= 0)
		key = mix64(0x4700000000000000ULL ^ (uint64_t)r->prefix_group);
	else if (end <= r->prompt)
		key = mix64(0x4300000000000000ULL ^ (uint64_t)r->content_id);
	else
		key = mix64(0x4f00000000000000ULL ^ (uint64_t)r->id);
	key = mix64(prev * 0x9e3779b97f4a7c15ULL + key + (uint64_t)b);
	return key ? key : 1;
}

/* The chain's first nshare blocks are a function of (content_id,
 * prefix_group, prefix_tokens) alone (block_hash: inside the shareable part
 * a block's key is its group's or its prompt's): the memo slot that may
 * hold them for r, or NULL when r has no shareable part or too long a one. */
static uint64_t cmemo_hash(int64_t content_id, int64_t prefix_group, int64_t prefix_tokens)
{
	return mix64((uint64_t)content_id * 0x9e3779b97f4a7c15ULL ^ (uint64_t)prefix_group * 31u ^
		     (uint64_t)prefix_tokens);
}

/* Double rp's chain memo.  The memo only saves hashing (a slot's chain
 * is checked against the request's content before use, its hints against
 * the cache), so a chain whose new slot is taken is dropped. */
static void cmemo_grow(struct replica *rp)
{
	size_t n = (size_t)rp->cmemo_mask + 1, i;
	struct chain_memo *t = xcalloc(2 * n, sizeof(*t));

	rp->cmemo_used = 0;
	for (i = 0; i < n; i++) {
		struct chain_memo *c = &rp->cmemo[i], *d;
		if (c->cap == 0)
			continue;
		d = &t[cmemo_hash(c->content_id, c->prefix_group, c->prefix_tokens) & (2 * n - 1)];
		if (d->cap == 0) {
			*d = *c;
			rp->cmemo_used += d->n > 0;
		} else {
			rp->cmemo_blocks -= c->cap;
			free(c->chain);
			free(c->hint);
		}
	}
	free(rp->cmemo);
	rp->cmemo = t;
	rp->cmemo_mask = (uint32_t)(2 * n - 1);
}

static struct chain_memo *chain_memo_slot(const struct sim *s, const struct req *r)
{
	struct replica *rp = &s->reps[r->replica];

	if (r->nshare <= 0 || r->nshare > SCHED_CHAIN_MEMO_MAX || r->keys)
		return NULL; /* (keyed blocks: a chain per request) */
	if (!rp->cmemo) {
		rp->cmemo = xcalloc(SCHED_CHAIN_MEMO_START, sizeof(*rp->cmemo));
		rp->cmemo_mask = SCHED_CHAIN_MEMO_START - 1;
	}
	return &rp->cmemo[cmemo_hash(r->content_id, r->prefix_group, r->prefix_tokens) & rp->cmemo_mask];
}

/* The memo slot holding r's shareable part, or NULL. */
static struct chain_memo *chain_memo_of(const struct sim *s, const struct req *r)
{
	struct chain_memo *cm = chain_memo_slot(s, r);

	return cm && cm->n > 0 && cm->content_id == r->content_id && cm->prefix_group == r->prefix_group &&
			       cm->prefix_tokens == r->prefix_tokens
		       ? cm
		       : NULL;
}

/* Extend r's kept chain through block b: block_hash's values, each
 * region's key (group prefix, prompt, own tokens) mixed once per call
 * rather than once per block; a new chain starts from the memo of its
 * content, or fills its shareable part and leaves it there. */
static void chain_grow(const struct sim *s, struct req *r, int64_t b)
{
	int64_t bs = s->cfg.block_size;
	uint64_t key = 0;
	int region = -1;
	struct chain_memo *cm;

	if (r->nchain == 0) {
		struct replica *rp = &s->reps[r->replica];
		/* (only here: no other slot is held while it moves them) */
		if (rp->cmemo && 2 * rp->cmemo_used > rp->cmemo_mask + 1 && rp->cmemo_mask + 1 < SCHED_CHAIN_MEMO)
			cmemo_grow(rp);
	}
	cm = r->nchain == 0 ? chain_memo_slot(s, r) : NULL;

	if (cm && cm->n > 0 && cm->content_id == r->content_id && cm->prefix_group == r->prefix_group &&
	    cm->prefix_tokens == r->prefix_tokens) {
		int32_t n = cm->n < r->nshare ? cm->n : r->nshare;
		if (b < n - 1)
			b = n - 1;
	} else if (cm && b < r->nshare - 1) {
		b = r->nshare - 1; /* the whole shareable part, for the memo */
	}
	if (r->chain_cap == 0 && s->max_blocks_per_req <= SCHED_CHAIN_POOL_MAX) {
		struct replica *rp = &s->reps[r->replica];
		r->chain = rp->nchains > 0 ? rp->chains[--rp->nchains]
					   : xmalloc(xmul((size_t)s->max_blocks_per_req, sizeof(uint64_t)));
		r->chain_cap = s->max_blocks_per_req;
	}
	if (b >= r->chain_cap) {
		/* first: every block the request can fill, so one allocation
		 * usually does */
		size_t cap = r->chain_cap ? (size_t)r->chain_cap * 2
					  : (size_t)blocks_for(s, r->prompt + r->output);
		if (cap <= (size_t)b)
			cap = (size_t)b + 1;
		if (cap > (size_t)s->max_blocks_per_req)
			cap = (size_t)s->max_blocks_per_req;
		r->chain = xreallocarray(r->chain, cap, sizeof(uint64_t));
		r->chain_cap = (int32_t)cap;
	}
	if (cm && cm->n > 0 && cm->content_id == r->content_id && cm->prefix_group == r->prefix_group &&
	    cm->prefix_tokens == r->prefix_tokens) {
		r->nchain = cm->n < r->nshare ? cm->n : r->nshare;
		memcpy(r->chain, cm->chain, (size_t)r->nchain * sizeof(uint64_t));
		cm = NULL;
	}
	{
		/* locals: a store through chain (uint64_t) may alias the
		 * request's int64_t fields, which the loop would reload */
		uint64_t *ch = r->chain, prev = r->nchain > 0 ? r->chain[r->nchain - 1] : 0;
		int64_t i, pt = r->prefix_group >= 0 ? r->prefix_tokens : -1, pr = r->prompt;
		for (i = r->nchain; i <= b; i++) {
			int64_t end = (i + 1) * bs;
			int rg = end <= pt ? 0 : end <= pr ? 1 : 2;
			uint64_t h;
			if (r->keys) {
				key = keyed_block_key(s, r, i);
			} else if (rg != region) {
				region = rg;
				key = rg == 0	? mix64(0x4700000000000000ULL ^ (uint64_t)r->prefix_group)
				      : rg == 1 ? mix64(0x4300000000000000ULL ^ (uint64_t)r->content_id)
						: mix64(0x4f00000000000000ULL ^ (uint64_t)r->id);
			}
			h = mix64(prev * 0x9e3779b97f4a7c15ULL + key + (uint64_t)i);
			prev = ch[i] = h ? h : 1;
		}
		if (r->nchain <= b)
			r->nchain = (int32_t)b + 1;
	}
	if (cm && cm->cap < r->nshare) {
		struct replica *rp = &s->reps[r->replica];
		if (rp->cmemo_blocks - cm->cap + r->nshare > SCHED_CHAIN_MEMO_BUDGET) {
			cm = NULL; /* the memo is full: not kept */
		} else {
			rp->cmemo_blocks += r->nshare - cm->cap;
			cm->chain = xreallocarray(cm->chain, (size_t)r->nshare, sizeof(uint64_t));
			cm->hint = xreallocarray(cm->hint, (size_t)r->nshare, sizeof(int32_t));
			cm->cap = r->nshare;
		}
	}
	if (cm) {
		s->reps[r->replica].cmemo_used += cm->n == 0;
		memcpy(cm->chain, r->chain, (size_t)r->nshare * sizeof(uint64_t));
		memset(cm->hint, 0xff, (size_t)r->nshare * sizeof(int32_t)); /* -1: none yet */
		cm->n = r->nshare;
		cm->content_id = r->content_id;
		cm->prefix_group = r->prefix_group;
		cm->prefix_tokens = r->prefix_tokens;
	}
}

/* Hash of block b of r from its kept chain, extended as needed. */
static inline uint64_t chain_at(const struct sim *s, struct req *r, int64_t b)
{
	if (b < r->nchain)
		return r->chain[b];
	if (b == r->nchain && b > 0 && b < r->chain_cap) {
		/* the next block of a started chain (a decoder's block just
		 * filled): block_hash's value, as chain_grow's loop computes it */
		r->chain[b] = sched_block_hash(s, r, b, r->chain[b - 1]);
		r->nchain++;
		return r->chain[b];
	}
	chain_grow(s, r, b);
	return r->chain[b];
}

/* The request leaves the scheduler for good: drop its kept chain (a
 * pool-sized one back to rp's stack). */
static void chain_drop(const struct sim *s, struct replica *rp, struct req *r)
{
	if (r->chain && r->chain_cap == s->max_blocks_per_req && s->max_blocks_per_req <= SCHED_CHAIN_POOL_MAX) {
		XGROW(rp->chains, rp->chains_cap, rp->nchains + 1);
		rp->chains[rp->nchains++] = r->chain;
	} else {
		free(r->chain);
	}
	r->chain = NULL;
	r->nchain = r->chain_cap = 0;
}

/* --- running list --- */

static void run_append(struct replica *rp, struct req *r)
{
	r->prev = rp->run_tail;
	r->next = NULL;
	if (rp->run_tail)
		rp->run_tail->next = r;
	else
		rp->run_head = r;
	rp->run_tail = r;
	r->rseq = rp->next_rseq++;
	rp->nrun++;
	rp->ne_reserved += r->ne_blocks;
}

static void run_remove(struct replica *rp, struct req *r)
{
	if (r->prev)
		r->prev->next = r->next;
	else
		rp->run_head = r->next;
	if (r->next)
		r->next->prev = r->prev;
	else
		rp->run_tail = r->prev;
	r->prev = r->next = NULL;
	rp->nrun--;
	rp->ne_reserved -= r->ne_blocks;
	r->ne_blocks = 0;
}


/* --- decoders --- */

static bool fin_before(const struct fin_entry *a, const struct fin_entry *b)
{
	return a->fin_G < b->fin_G || (a->fin_G == b->fin_G && a->rseq < b->rseq);
}

static void heap_push(struct replica *rp, struct fin_entry e)
{
	size_t i;

	XGROW(rp->heap, rp->heap_cap, rp->nheap + 1);
	i = rp->nheap++;
	while (i > 0 && fin_before(&e, &rp->heap[(i - 1) / 2])) {
		rp->heap[i] = rp->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	rp->heap[i] = e;
}

static void heap_pop(struct replica *rp)
{
	struct fin_entry last = rp->heap[--rp->nheap];
	size_t i = 0;

	for (;;) {
		size_t l = 2 * i + 1, m = i;
		const struct fin_entry *best = &last;
		if (l < rp->nheap && fin_before(&rp->heap[l], best)) {
			m = l;
			best = &rp->heap[l];
		}
		if (l + 1 < rp->nheap && fin_before(&rp->heap[l + 1], best))
			m = l + 1;
		if (m == i)
			break;
		rp->heap[i] = rp->heap[m];
		i = m;
	}
	if (rp->nheap > 0)
		rp->heap[i] = last;
}

/* Queue decoder completion e (fin_G > G): in the ring when it is due
 * within SCHED_FIN_RING steps, else in the heap.  The order in which one
 * step's completions are found does not matter: finish_rank sorts them
 * by running order, and their gaps are the same value. */
/* Double rp's ring until it covers completions d steps ahead (d <
 * SCHED_FIN_RING).  Every queued entry is due within the old size n of
 * G, so bucket j's entries go to j or j + n of the new ring, still one
 * due step per bucket. */
static void ring_grow(struct replica *rp, int64_t d)
{
	size_t n = rp->ring ? (size_t)rp->ring_mask + 1 : 0, j, k, m;

	if (!rp->ring) {
		for (m = SCHED_FIN_RING_START; (int64_t)m <= d; m *= 2)
			;
		rp->ring = xcalloc(m, sizeof(*rp->ring));
		rp->ring_mask = (uint32_t)(m - 1);
		return;
	}
	while ((int64_t)n <= d) {
		struct fin_bucket *r = xcalloc(2 * n, sizeof(*r));
		for (j = 0; j < n; j++) {
			struct fin_bucket *b = &rp->ring[j], *hi = &r[j + n];
			for (k = m = 0; k < b->n; k++) {
				if (b->e[k].fin_G & (int64_t)n) {
					XGROW(hi->e, hi->cap, hi->n + 1);
					hi->e[hi->n++] = b->e[k];
				} else {
					b->e[m++] = b->e[k];
				}
			}
			b->n = m;
			r[j] = *b;
		}
		free(rp->ring);
		rp->ring = r;
		n *= 2;
		rp->ring_mask = (uint32_t)(n - 1);
	}
}

static void fin_push(struct replica *rp, struct fin_entry e)
{
	struct fin_bucket *b;
	int64_t d = e.fin_G - rp->G;

	if (d >= SCHED_FIN_RING) {
		heap_push(rp, e);
		return;
	}
	if (!rp->ring || d > rp->ring_mask)
		ring_grow(rp, d);
	b = &rp->ring[e.fin_G & rp->ring_mask];
	XGROW(b->e, b->cap, b->n + 1);
	b->e[b->n++] = e;
}

/* --- pooled token gaps (vLLM's ITL, sim.h) --- */

/* What a chunk's delivery does: only note its time (a first chunk, or a
 * decoder turned explicit whose gap its step counted), or also add the
 * gap since the request's previous chunk (the last one carrying the
 * client-side terms after the last token). */
enum gap_kind { GAP_NONE, GAP_MID, GAP_LAST };

static int stage_ix(const struct req *r)
{
	return r->stage > 255 ? 255 : r->stage;
}

static SCHED_STEP_INLINE void gap_push(struct replica *rp, struct req *r, enum gap_kind kind, int64_t k)
{
	struct gap_ent *g;

	if (rp->no_gaps) { /* sim_cfg.no_pooled_gaps: only counted */
		r->ngaps += kind != GAP_NONE;
		return;
	}
	XGROW(rp->gapq, rp->gapq_cap, rp->ngapq + 1);
	g = &rp->gapq[rp->ngapq++];
	g->r = r;
	g->id = r->id;
	g->k = (int32_t)k;
	g->kind = (uint8_t)kind;
	if (kind != GAP_NONE)
		r->ngaps++;
}

/* The last finished step's chunks reach the client at t: the gaps. */
static SCHED_STEP_INLINE void gaps_deliver(struct sim *s, struct replica *rp, int64_t t, const bool sg)
{
	const struct overheads *ov = &s->cost->cfg.ov; /* as engine.c's record() */
	bool h2;
	double stream, tail, v, run_x = 0;
	uint64_t run_n = 0;
	size_t i;
	int st, run_st = 0;

	if (s->cfg.no_pooled_gaps) { /* nobody reads them (sim.h) */
		rp->ngapq = 0;
		if (!sg || rp->pend_dec)
			rp->tok_t = t;
		return;
	}
	h2 = !(s->cost->cfg.off & COST_H2);
	stream = h2 ? ov->stream_token_us * 1e-3 : 0;
	tail = h2 ? ov->api_e2e_ms + stream : 0;
	v = (double)(t - rp->tok_t) * 1e-6 + stream;
	/* the others (a record reused since, a rejected request's, is
	 * skipped); runs of one value in one stage are added at once (the
	 * explicit requests of an SGLang decode batch mostly share the step's
	 * gap: one add instead of one per request; an exact distribution
	 * comes out the same, a bucketed one's sum up to rounding, as the
	 * decoders' weighted adds) */
	for (i = 0; i < rp->ngapq; i++) {
		const struct gap_ent *g = &rp->gapq[i];
		struct req *r = g->r;
		double x;
		if (r->id != g->id)
			continue;
		if (s->cfg.on_chunk && g->k > 0) /* live use (sim.h) */
			s->cfg.on_chunk(s->cfg.on_chunk_ctx, r->id, t, g->k,
					g->kind == GAP_LAST || (g->kind == GAP_NONE && r->generated >= r->output));
		if (g->kind != GAP_NONE) {
			x = (double)(t - r->tok_ns) * 1e-6 + stream * (double)g->k +
			    (g->kind == GAP_LAST ? tail : 0);
			st = stage_ix(r);
			if (x == v && st < rp->dec_stage_hi) { /* as the decoders' */
				rp->lazy_n[st]++;
			} else if (run_n > 0 && x == run_x && st == run_st) {
				run_n++;
			} else {
				if (run_n > 0)
					wdist_add(&s->gapd[run_st], run_x, run_n);
				run_x = x;
				run_st = st;
				run_n = 1;
			}
		}
		r->tok_ns = t;
	}
	if (run_n > 0)
		wdist_add(&s->gapd[run_st], run_x, run_n);
	/* the decoders' one-token chunks */
	for (st = 0; st < rp->dec_stage_hi; st++)
		if (rp->lazy_n[st] > 0) {
			wdist_add(&s->gapd[st], v, (uint64_t)rp->lazy_n[st]);
			rp->lazy_n[st] = 0;
		}
	rp->ngapq = 0;
	if (!sg || rp->pend_dec)
		rp->tok_t = t;
}

static SCHED_STEP_INLINE void dec_join(struct sim *s, struct replica *rp, struct req *r)
{
	struct fin_entry fe;

	r->dec = true;
	r->dG0 = rp->G;
	r->dc0 = r->computed;
	r->dg0 = r->generated;
	if (s->cfg.policy->decoder_keys) {
		XGROW(rp->dk, rp->dk_cap, rp->ndk + 1);
		r->dk_ix = (int32_t)rp->ndk;
		rp->dk[rp->ndk].k = r->output - r->dg0 + r->dG0;
		rp->dk_sum += rp->dk[rp->ndk].k;
		rp->dk[rp->ndk++].r = r;
	}
	r->cls = cls_of(s, r->dc0 - r->dG0);
	r->cprev = r->cnext = NULL;
	r->lean = (r->nnamed < r->nblocks || !s->cfg.prefix_caching || !gets_hash(s, r, r->nblocks)) &&
		  r->nnamed <= r->nhashed && r->nblocks == blocks_for(s, r->computed) &&
		  r->nhashed == full_blocks(s, r->computed);
	if (r->lean) {
		rp->cls_lean[r->cls]++;
	} else {
		r->cnext = rp->cls_head[r->cls];
		if (r->cnext)
			r->cnext->cprev = r;
		rp->cls_head[r->cls] = r;
	}
	rp->cls_count[r->cls]++;
	rp->ndec++;
	rp->dec_stage[stage_ix(r)]++;
	if (stage_ix(r) >= rp->dec_stage_hi)
		rp->dec_stage_hi = stage_ix(r) + 1;
	rp->dec_base_sum += r->dc0 - r->dG0;
	if (r->rseq > rp->dec_max_rseq || rp->ndec == 1)
		rp->dec_max_rseq = r->rseq;
	fe.fin_G = r->dG0 + (r->output - r->dg0);
	/* back from an explicit spell that scheduled it at every step: its
	 * entry still holds the right step, so keep it (an overloaded replica
	 * walks every step and would otherwise push one entry per decoder per
	 * step) */
	if (r->heaped && r->heap_fin == fe.fin_G)
		return;
	r->epoch++;
	r->heaped = true;
	r->heap_fin = fe.fin_G;
	fe.rseq = r->rseq;
	fe.epoch = r->epoch;
	fe.r = r;
	fin_push(rp, fe);
}

/* Turn a decoder back into an explicit request at the current step count
 * (between steps: a lean one holds exactly the blocks of its context). */
void sched_dec_leave(const struct sim *s, struct replica *rp, struct req *r)
{
	int64_t steps = rp->G - r->dG0;

	r->computed = r->dc0 + steps;
	r->generated = r->dg0 + steps;
	if (r->lean) {
		r->nblocks = blocks_for(s, r->computed);
		r->nhashed = (int32_t)full_blocks(s, r->computed);
		rp->cls_lean[r->cls]--;
		r->lean = false;
	} else {
		if (r->cprev)
			r->cprev->cnext = r->cnext;
		else
			rp->cls_head[r->cls] = r->cnext;
		if (r->cnext)
			r->cnext->cprev = r->cprev;
		r->cprev = r->cnext = NULL;
	}
	rp->cls_count[r->cls]--;
	rp->ndec--;
	rp->dec_stage[stage_ix(r)]--;
	/* its last chunk was counted with the decoders; its delivery time
	 * is its next gap's start: the pending step's (always with vLLM),
	 * else (SGLang, a prefill batch since) delivered already, at tok_t */
	if (r->generated < r->output) {
		if (rp->pend_dec)
			gap_push(rp, r, GAP_NONE, 0);
		else
			r->tok_ns = rp->tok_t;
	}
	rp->dec_base_sum -= r->dc0 - r->dG0;
	r->dec = false; /* its heap entry is skipped while it is explicit */
	if (s->cfg.policy->decoder_keys) { /* its dk slot takes the last one */
		rp->dk_sum -= rp->dk[r->dk_ix].k;
		rp->dk[r->dk_ix] = rp->dk[--rp->ndk];
		rp->dk[r->dk_ix].r->dk_ix = r->dk_ix;
	}
}

/* --- blocks --- */


void sched_take_blocks(struct sim *s, struct replica *rp, struct req *r, int32_t n)
{
	int32_t k = named_take(s, r, n);

	if (k > 0) {
		kvc_alloc_named_n(&rp->kv, &r->blocks[r->nblocks], k);
		r->nblocks += k;
		r->nnamed += k;
		n -= k;
	}
	if (n > 0) {
		kvc_alloc_anon(&rp->kv, n);
		r->nblocks += n;
	}
}

static SCHED_STEP_INLINE void register_full(struct sim *s, struct replica *rp, struct req *r, int64_t computed)
{
	int64_t full = full_blocks(s, computed);

	int32_t named = full < r->nnamed ? (int32_t)full : r->nnamed;

	if (full > r->nblocks)
		full = r->nblocks;
	/* anonymous blocks have nothing to register */
	for (; r->nhashed < named; r->nhashed++) {
		uint64_t h = chain_at(s, r, r->nhashed);
		kvc_register(&rp->kv, r->blocks[r->nhashed], h);
		r->last_hash = h;
	}
	if (r->nhashed < full)
		r->nhashed = (int32_t)full;
}

static void free_blocks(const struct sim *s, struct replica *rp, struct req *r)
{
	int32_t full = r->nhashed > r->nnamed ? r->nhashed - r->nnamed : 0;

	/* reverse order, as vLLM frees: a request's tail blocks are evicted
	 * first.  The anonymous blocks are the tail, so they go first, as one
	 * batch; those past the full ones were never cached and are free */
	kvc_put_anon(&rp->kv, full, r->nblocks - r->nnamed - full);
	kvc_put_rev(&rp->kv, r->blocks, r->nnamed);
	r->nblocks = r->nhashed = r->nnamed = 0;
	r->last_hash = 0;
	if (r->blocks)
		array_put(s, rp, r, r->blocks);
	r->blocks = NULL;
}

/* A preempted request may look its own blocks up when it comes back: give
 * its private blocks their real hashes before they are freed. */
static void publish_private(struct sim *s, struct replica *rp, struct req *r)
{
	if (!s->cfg.prefix_caching)
		return;
	if (r->nnamed < r->nhashed) {
		/* the chain through the last one (the values chain_at gives
		 * block by block), then names and registrations in one call */
		(void)chain_at(s, r, r->nhashed - 1);
		kvc_publish_anon(&rp->kv, &r->blocks[r->nnamed], &r->chain[r->nnamed],
				 r->nhashed - r->nnamed);
		r->nnamed = r->nhashed;
	}
}

void sched_preempt(struct sim *s, struct replica *rp, struct req *r)
{
	if (s->cfg.step_log)
		fprintf(s->cfg.step_log, "preempt %lld at t=%.6f\n", (long long)r->id,
			(double)s->now * 1e-9);
	run_remove(rp, r);
	if (s->cfg.lora.max_loras > 0)
		lora_run_drop(s, rp, r->lora);
	publish_private(s, rp, r);
	free_blocks(s, rp, r);
	r->computed = 0;
	r->transferred = false; /* its KV is gone: recomputed here */
	r->mm_done = false;     /* its images' embeddings freed with it (vLLM) */
	r->preempts++;
	s->tot.preemptions++;
	wq_push_front(rp, r);
}

bool sched_grow_blocks(struct sim *s, struct replica *rp, struct req *r, int32_t need)
{
	if (need <= 0)
		return true;
	if (need > kvc_available(&rp->kv))
		return false;
	sched_take_blocks(s, rp, r, need);
	return true;
}

/* Forget the memo of a waiting request's prefix hits (unwatch its blocks). */
static void memo_drop(struct replica *rp)
{
	int32_t b;

	for (b = 0; b < rp->memo_hw; b++)
		kvc_unwatch(&rp->kv, rp->memo_blk[b], b);
	rp->memo_r = NULL;
	rp->memo_h = rp->memo_hw = 0;
}

/* r's admission failed with `hits` prefix hits in memo_blk: watch them, so
 * that the next try learns in O(1) whether they still stand. */
static void memo_keep(struct replica *rp, struct req *r, int32_t hits)
{
	int32_t b;

	if (rp->memo_r == r)
		return; /* still the kept one */
	memo_drop(rp);
	rp->memo_r = r;
	rp->memo_h = rp->memo_hw = hits;
	rp->memo_e0[0] = 0;
	for (b = 0; b < hits; b++) {
		kvc_watch(&rp->kv, rp->memo_blk[b], b);
		rp->memo_e0[b + 1] = rp->memo_e0[b] + (kvc_ref(&rp->kv, rp->memo_blk[b]) == 0);
	}
	rp->kv.watch_cut = INT32_MAX;
	rp->kv.watch_touched = false;
	rp->memo_reg = rp->kv.registered;
}

/* r waits at the head of the queue (its admission stops this step):
 * its block array goes back and its prefix hits are kept in the memo. */
static void admit_defer(const struct sim *s, struct replica *rp, struct req *r, int32_t hits)
{
	array_put(s, rp, r, r->blocks);
	r->blocks = NULL;
	r->computed = 0;
	if (!r->transferred && r->nchain > 0)
		memo_keep(rp, r, hits);
}

/* Does the memo of r's hits still hold (after cutting it where one of its
 * blocks was evicted)?  Its blocks keep their content and their reference
 * counts unless kv says otherwise, and the block after them can only be
 * registered by another request inside the shareable part.  MEMO_STALE:
 * look everything up again; MEMO_HOLDS: the hits are memo_h; MEMO_PREFIX:
 * the first memo_h hits hold, blocks registered since may extend them. */
enum memo_state { MEMO_STALE, MEMO_HOLDS, MEMO_PREFIX };

static enum memo_state memo_valid(const struct sim *s, struct replica *rp, const struct req *r,
				  int64_t maxb)
{
	int64_t lim = r->nshare < maxb ? r->nshare : maxb;

	if (rp->memo_r != r || rp->kv.watch_touched)
		return MEMO_STALE;
	if (rp->kv.watch_cut < rp->memo_h)
		rp->memo_h = rp->kv.watch_cut;
	rp->kv.watch_cut = INT32_MAX;
	(void)s;
	return rp->memo_h >= lim || rp->memo_reg == rp->kv.registered ? MEMO_HOLDS : MEMO_PREFIX;
}

/* MEMO_PREFIX: look up the blocks after the memo's memo_h hits, which still
 * stand (same blocks, same reference counts), watching each new hit as
 * memo_keep would; a full lookup would find the same blocks. */
static void memo_extend(struct sim *s, struct replica *rp, struct req *r, int64_t maxb)
{
	int32_t b, n = rp->memo_h;

	for (b = n; b < rp->memo_hw; b++) /* positions past a cut */
		kvc_unwatch(&rp->kv, rp->memo_blk[b], b);
	for (; n < maxb; n++) {
		int32_t blk = kvc_lookup(&rp->kv, chain_at(s, r, n));
		if (blk < 0)
			break;
		rp->memo_blk[n] = blk;
		kvc_watch(&rp->kv, blk, n);
		rp->memo_e0[n + 1] = rp->memo_e0[n] + (kvc_ref(&rp->kv, blk) == 0);
	}
	rp->memo_h = rp->memo_hw = n;
	rp->memo_reg = rp->kv.registered;
}

/* Prefix-cache lookup on admission: the leading full blocks whose content
 * is cached (at most num_tokens - 1 tokens, so at least one token is
 * computed), into rp->memo_blk.  Only looks: references are taken once
 * admission succeeds, so a failed admission leaves the LRU order untouched
 * (vLLM v1 likewise).  A request whose admission failed keeps its hits in
 * the memo: its retries cost O(1) until the cache changes under them. */
static int32_t prefix_lookup(struct sim *s, struct replica *rp, struct req *r, int32_t *evictable,
			     uint64_t *last)
{
	int64_t maxb = full_blocks(s, req_num_tokens(r) - 1), b, b0, nh;
	int32_t n = 0;
	enum memo_state st;
	struct chain_memo *cm;

	*evictable = 0;
	*last = 0;
	if (!s->cfg.prefix_caching || (r->preempts == 0 && !block_shareable(r, 0)))
		return 0;
	if (!rp->memo_blk || rp->memo_cap < maxb) {
		/* grown to the longest lookup yet (sized for the longest
		 * request, they were 64 KB a rank at 128 Ki tokens of context) */
		int64_t cap = rp->memo_cap * 2 > maxb ? rp->memo_cap * 2 : maxb;
		cap = cap < 16 ? 16 : cap > s->max_blocks_per_req ? s->max_blocks_per_req : cap;
		rp->memo_blk = xreallocarray(rp->memo_blk, (size_t)cap, sizeof(int32_t));
		rp->memo_e0 = xreallocarray(rp->memo_e0, (size_t)cap + 1, sizeof(int32_t));
		rp->memo_cap = cap;
	}
	st = memo_valid(s, rp, r, maxb);
	if (st == MEMO_PREFIX)
		memo_extend(s, rp, r, maxb);
	if (st != MEMO_STALE) {
		n = rp->memo_h;
		*evictable = rp->memo_e0[n];
		*last = n > 0 ? r->chain[n - 1] : 0;
		return n;
	}
	if (rp->memo_r)
		memo_drop(rp);
	/* the table misses the caches: start SCHED_LOOKAHEAD lookups early
	 * (hashing up to that many blocks past the first miss, which the
	 * kept chain would compute later anyway) */
	if (maxb > 0) /* what the lookups below can reach, in one go */
		chain_at(s, r, (r->preempts > 0 || r->nshare + SCHED_LOOKAHEAD > maxb
					? maxb : r->nshare + SCHED_LOOKAHEAD) - 1);
	/* the blocks the last lookup of the same content found, where they
	 * still hold it: the blocks a lookup would find */
	cm = chain_memo_of(s, r);
	nh = cm ? (cm->n < maxb ? cm->n : maxb) : 0;
	{
		/* locals: the int32_t stores may alias the fields they come from */
		const int32_t *hint = nh > 0 ? cm->hint : NULL;
		const uint64_t *ch = r->chain;
		const struct kvc *kv = &rp->kv;
		int32_t *mb = rp->memo_blk, ev = 0;
		for (b = 0; b < nh; b++) {
			int32_t blk = hint[b];
			if (blk < 0 || !kvc_holds(kv, blk, ch[b]))
				break;
			mb[b] = blk;
			ev += kvc_ref(kv, blk) == 0;
		}
		n = (int32_t)b;
		*evictable = ev;
	}
	for (b0 = b; b < maxb && b < b0 + SCHED_LOOKAHEAD; b++)
		kvc_prefetch(&rp->kv, chain_at(s, r, b));
	for (b = b0; b < maxb; b++) {
		int32_t blk;
		if (b + SCHED_LOOKAHEAD < maxb)
			kvc_prefetch(&rp->kv, chain_at(s, r, b + SCHED_LOOKAHEAD));
		blk = kvc_lookup(&rp->kv, r->chain[b]);
		if (blk < 0)
			break;
		if (b < nh)
			cm->hint[b] = blk;
		rp->memo_blk[n++] = blk;
		*evictable += kvc_ref(&rp->kv, blk) == 0;
	}
	*last = n > 0 ? r->chain[n - 1] : 0;
	return n;
}

/* KV offload: how many blocks after r's `hits` GPU hits the host tier
 * holds, consecutively (as far as the GPU lookup may reach: the shareable
 * part, or for a preempted request every block it hashed).  A block that
 * is back in the GPU after a miss before it is not looked for there: the
 * host's run ends at the first block it lacks. */
static int32_t host_lookup(const struct sim *s, struct replica *rp, struct req *r, int32_t hits)
{
	int64_t maxb = full_blocks(s, req_num_tokens(r) - 1), b;

	if (r->preempts == 0 && maxb > r->nshare)
		maxb = r->nshare;
	for (b = hits; b < maxb; b++)
		if (kvc_lookup(&rp->host, chain_at(s, r, b)) < 0)
			break;
	return (int32_t)(b - hits);
}

/* KV offload: r was admitted with n blocks from the host tier after its
 * `hits` GPU hits: they become the host's newest (its tail block first,
 * so that the host, like the GPU, evicts a prefix from its end) and are
 * loaded in the step being planned. */
static void host_take(const struct sim *s, struct replica *rp, struct req *r, int32_t hits, int32_t n)
{
	int32_t b;

	for (b = hits + n - 1; b >= hits; b--)
		kvc_touch(&rp->host, kvc_lookup(&rp->host, chain_at(s, r, b)));
	rp->host_loads += n;
}

/* LoRA: the adapter of waiting entry q. */
static int32_t wq_lora(const struct wq_ent *q)
{
	return q->r ? q->r->lora : q->lora;
}

/* LoRA: the first waiting request whose adapter fits the step's limit
 * moved to the head of the queue, those before it skipped (they keep
 * their order behind it, as the engines' skipped requests go back to the
 * front); false when none fits. */
static bool lora_head(struct sim *s, struct replica *rp)
{
	size_t mask = rp->wcap - 1, j;
	struct wq_ent moved;

	if (lora_fits(s, rp, wq_lora(&rp->wq[rp->whead]))) 
		return true;
	rp->lora.limited = true;
	for (j = 1; j < rp->wlen; j++)
		if (lora_fits(s, rp, wq_lora(&rp->wq[(rp->whead + j) & mask])))
			break;
	if (j == rp->wlen)
		return false;
	moved = rp->wq[(rp->whead + j) & mask];
	for (; j > 0; j--)
		rp->wq[(rp->whead + j) & mask] = rp->wq[(rp->whead + j - 1) & mask];
	rp->wq[rp->whead] = moved;
	return true;
}

/* Waiting requests in queue order while max_num_seqs, the budget and
 * rem_input allow, each as the policy's admit judges it (core.h); with
 * LoRA, those whose adapter the step cannot batch skipped. */
bool sched_admit(struct sim *s, struct replica *rp, int64_t budget, int64_t rem_input, void *ctx)
{
	enum admit_verdict (*admit)(struct sim *, struct replica *, struct req *, const struct admit_try *,
				    int32_t *) = s->cfg.policy->admit;

	while (rp->wlen > 0 && (int64_t)rp->nrun < rp->mns && budget > 0 && rem_input > 0) {
		struct req *r;
		if (s->cfg.lora.max_loras > 0 && !lora_head(s, rp))
			break;
		r = wq_front(s, rp);
		if (rp->adp_hold && !r->transferred)
			break; /* the policy's group_gate holds new contexts this step */
		if (r->images > 0 && !r->transferred && !r->mm_done && s->cfg.mm.image_tokens > 0 &&
		    s->cfg.epd.encoders == 0 && !mm_fits(s, rp, r))
			break; /* its images wait for the next step's encoder budget */
		bool first = r->sched_ns < 0 && r->preempts == 0;
		struct admit_try t;
		enum admit_verdict v;
		int32_t grow = 0, host = 0;
		uint64_t last;
		r->blocks = array_get(s, rp, r);
		if (r->transferred) { /* P/D: the prompt's KV came with it */
			t.hits = t.evictable = 0;
			last = 0;
			r->computed = r->prompt;
			first = false;
		} else {
			t.hits = prefix_lookup(s, rp, r, &t.evictable, &last);
			/* the host tier's hits count as computed: the policy
			 * sizes the blocks they are loaded into with the chunk's */
			if (rp->host.total > 0 && (r->preempts > 0 || block_shareable(r, 0)))
				host = host_lookup(s, rp, r, t.hits);
			r->computed = (int64_t)(t.hits + host) * s->cfg.block_size;
		}
		t.n = chunk_of(s, r, budget);
		t.rem_input = rem_input;
		t.ctx = ctx;
		v = admit(s, rp, r, &t, &grow);
		if (v == ADMIT_WAIT) { /* it waits whole at the head of the queue */
			admit_defer(s, rp, r, t.hits);
			break;
		}
		if (v == ADMIT_FULL) {
			r->ne_blocks = 0;
			array_put(s, rp, r, r->blocks);
			r->blocks = NULL;
			r->computed = 0;
			if (rp->nrun == 0 && rp->nsched == 0) {
				/* nothing running will ever free memory for it */
				if (rp->memo_r == r)
					memo_drop(rp);
				wq_pop_front(rp);
				chain_drop(s, rp, r);
				s->env->reject(s, r, REJ_KV_CAPACITY);
				continue;
			}
			if (!r->transferred && r->nchain > 0)
				memo_keep(rp, r, t.hits);
			return true;
		}
		if (rp->memo_r == r)
			memo_drop(rp);
		if (t.hits > 0) {
			memcpy(r->blocks, rp->memo_blk, (size_t)t.hits * sizeof(int32_t));
			kvc_acquire_n(&rp->kv, r->blocks, t.hits);
		}
		r->nblocks = r->nhashed = r->nnamed = t.hits;
		r->last_hash = last;
		if (host > 0)
			host_take(s, rp, r, t.hits, host);
		sched_grow_blocks(s, rp, r, grow);
		if (first) {
			r->prefix_hit_tokens = r->computed;
			s->tot.prefix_lookup_tokens += (uint64_t)r->prompt;
			s->tot.prefix_hit_tokens += (uint64_t)r->computed;
			s->tot.host_hit_tokens += (uint64_t)host * (uint64_t)s->cfg.block_size;
		}
		s->tot.host_loaded_blocks += (uint64_t)host;
		wq_pop_front(rp);
		if (r->sched_ns < 0)
			r->sched_ns = s->now;
		run_append(rp, r);
		if (s->cfg.lora.max_loras > 0)
			lora_run_add(s, rp, r->lora);
		if (r->images > 0 && !r->transferred && !r->mm_done && s->cfg.mm.image_tokens > 0 &&
		    s->cfg.epd.encoders == 0)
			mm_admit(s, rp, r);
		sched_others_push(rp, r);
		sched_push(rp, r, t.n);
		budget -= t.n;
		if (rem_input < INT64_MAX)
			rem_input -= t.n;
	}
	return false;
}

/* The decoders of class cls cross a block boundary at this step: the
 * named blocks are taken one by one, the anonymous ones counted (the lean
 * decoders' only counted) for one kvc_alloc_anon by the caller: how many. */
static SCHED_STEP_INLINE int32_t crossing_blocks(struct sim *s, struct replica *rp, int32_t cls)
{
	int32_t anon = (int32_t)rp->cls_lean[cls];
	struct req *r;

	for (r = rp->cls_head[cls]; r; r = r->cnext) {
		if (r->nnamed < r->nblocks || !s->cfg.prefix_caching || !gets_hash(s, r, r->nblocks)) {
			r->nblocks++;
			anon++;
		} else {
			sched_take_blocks(s, rp, r, 1);
		}
	}
	return anon;
}

/* crossing_blocks, the anonymous ones allocated in bulk (a policy's step,
 * decode_steps). */
static SCHED_STEP_INLINE void take_crossing(struct sim *s, struct replica *rp, int32_t cls)
{
	int32_t anon = crossing_blocks(s, rp, cls);

	if (anon)
		kvc_alloc_anon(&rp->kv, anon);
}

int32_t sched_crossing_blocks(struct sim *s, struct replica *rp, int32_t cls)
{
	return crossing_blocks(s, rp, cls);
}

void sched_take_crossing(struct sim *s, struct replica *rp, int32_t cls)
{
	take_crossing(s, rp, cls);
}

static void step_log_line(struct sim *s, struct replica *rp, int ri, double t)
{
	const struct req *r;

	fprintf(s->cfg.step_log, "step %llu t=%.6f r%d:", (unsigned long long)s->tot.steps,
		(double)s->now * 1e-9, ri);
	for (r = rp->run_head; r; r = r->next) {
		if (r->dec && rp->dec_run)
			fprintf(s->cfg.step_log, " %lld+1", (long long)r->id);
		else if (r->scheduled && !r->inflight) /* PP: this batch's only */
			fprintf(s->cfg.step_log, " %lld+%lld", (long long)r->id, (long long)r->step_tokens);
	}
	fprintf(s->cfg.step_log, " | run %zu wait %zu kv %d/%d dur=%.6f\n", rp->nrun, rp->wlen,
		kvc_used(&rp->kv), rp->kv.total, t);
}

/* The decoders' part of a step's description: computed + 1 summed =
 * sum(dc0 - dG0) + ndec (G + 1). */
static SCHED_STEP_INLINE void describe_decoders(const struct replica *rp, struct step_desc *d)
{
	d->ndecode += rp->ndec;
	d->decode_ctx_sum += (double)(rp->dec_base_sum + rp->ndec * (rp->G + 1));
	d->nlogits += rp->ndec;
}

/* Every decoder made a one-token chunk, a step after its last one: their
 * gaps (one per decoder, by stage) and the step count. */
static SCHED_STEP_INLINE void decoders_stepped(struct replica *rp)
{
	if (!rp->no_gaps) { /* (usually one stage: no memcpy call) */
		if (rp->dec_stage_hi == 1)
			rp->lazy_n[0] = rp->dec_stage[0];
		else
			memcpy(rp->lazy_n, rp->dec_stage, (size_t)rp->dec_stage_hi * sizeof(rp->lazy_n[0]));
	}
	rp->G++;
}

/* The decoders of class cls whose newest block just filled: its content
 * registered (a lean one's is anonymous: only counted). */
static SCHED_STEP_INLINE void register_filled(struct sim *s, struct replica *rp, int32_t cls)
{
	struct req *r;

	for (r = rp->cls_head[cls]; r; r = r->cnext) {
		int64_t computed = r->dc0 + rp->G - r->dG0;
		if (r->nnamed <= r->nhashed) /* anonymous tail: nothing to register */
			r->nhashed = (int32_t)full_blocks(s, computed);
		else
			register_full(s, rp, r, computed);
	}
}

/* An empty description of replica rp's next step (no drafts after it yet). */
static SCHED_STEP_INLINE void desc_start(struct replica *rp, struct step_desc *d)
{
	memset(d, 0, sizeof(*d));
	d->chunk_len = rp->chunk_len;
	d->chunk_prefix = rp->chunk_prefix;
	rp->spec_n = 0;
	rp->spec_ctx = 0;
}

/* Schedule replica ri's next step and describe it for the cost model;
 * false when it has nothing to run. */
static SCHED_STEP_INLINE bool plan_step(struct sim *s, int ri, struct step_desc *d, const bool sg)
{
	struct replica *rp = &s->reps[ri];
	size_t i;

	rp->nsched = 0;
	rp->ahead_used = rp->sched_others = false;
	s->cfg.policy->schedule(s, rp);
	rp->ahead_valid = false;
	if (rp->nsched == 0 && rp->ndec == 0)
		return false;
	if (rp->nsched > rp->chunk_cap) { /* a chunk per scheduled request at most */
		rp->chunk_cap = rp->nsched > 2 * rp->chunk_cap ? rp->nsched : 2 * rp->chunk_cap;
		rp->chunk_len = xreallocarray(rp->chunk_len, rp->chunk_cap, sizeof(int64_t));
		rp->chunk_prefix = xreallocarray(rp->chunk_prefix, rp->chunk_cap, sizeof(int64_t));
	}
	desc_start(rp, d);
	i = 0;
	if (rp->ahead_used) { /* the others, every one a decoder (plan_ahead) */
		rp->spec_n = rp->ahead.n;
		rp->spec_ctx = (double)rp->ahead.spec_ctx;
		d->decode_ctx_sum = (double)rp->ahead.ctx;
		d->ndecode = d->nlogits = rp->ahead.tokens;
		i = (size_t)rp->ahead.n;
	}
	for (; i < rp->nsched; i++) {
		const struct req *r = rp->sched[i];
		bool samples = r->computed + r->step_tokens == req_num_tokens(r), dec = decoding(r);
		if (s->cfg.spec.k > 0 && dec) {
			/* drafts for the next step follow this one */
			rp->spec_n++;
			rp->spec_ctx += (double)(r->computed + r->step_tokens);
		}
		if (r->step_tokens > 1 && dec) {
			/* verification: K+1 query tokens through the decode
			 * kernels (GEMM rows, decode attention over the context
			 * up to each position, the LM head on every position) */
			int64_t q = r->step_tokens;
			/* sum of computed + 1 + i, i < q, in one add: the
			 * same value as q adds, every partial sum an integer
			 * below 2^53 */
			d->decode_ctx_sum += (double)(q * (r->computed + 1) + q * (q - 1) / 2);
			d->ndecode += r->step_tokens;
			d->nlogits += r->step_tokens;
			continue;
		}
		if (r->step_tokens == 1 && samples && r->generated > 0) {
			d->ndecode++;
			d->decode_ctx_sum += (double)(r->computed + 1);
		} else {
			rp->chunk_len[d->nchunks] = r->step_tokens;
			rp->chunk_prefix[d->nchunks] = r->computed;
			d->nchunks++;
		}
		d->nlogits += samples;
	}
	if (!sg || rp->dec_run)
		describe_decoders(rp, d);
	return true;
}

/* KV offload: a step of t seconds of compute with the host tier's
 * transfers since the last step priced (the loads its admissions took,
 * the blocks the GPU's evictions wrote), met as sim_cfg.offload.overlap
 * says (sim.h); the transfers' totals. */
static double offload_step_s(struct sim *s, struct replica *rp, double t)
{
	const struct sim_offload *o = &s->cfg.offload;
	double load = (double)rp->host_loads * o->block_s, u;
	uint64_t stored = rp->host.stored - rp->host_stored_seen;

	rp->host_stored_seen = rp->host.stored;
	rp->host_loads = 0;
	s->tot.host_stored_blocks += stored;
	switch (o->overlap) {
	case OFFLOAD_ASYNC:
		u = t > load ? t : load;
		break;
	case OFFLOAD_LAYERWISE:
		u = (t > load ? t : load) + (t < load ? t : load) / (o->layers > 0 ? o->layers : 1);
		break;
	case OFFLOAD_SYNC:
	default:
		u = t + load + (double)stored * o->block_s;
		break;
	}
	s->tot.offload_exposed_s += u - t;
	return u;
}

/* sim_cfg.cold_start_s: the one-time stall of a cold server's first
 * prefill step right after another prefill step, else 0. */
static double cold_start_stall_s(struct sim *s, struct replica *rp, const struct step_desc *d)
{
	bool pre = d->nchunks > 0, stall = pre && rp->cold_last_prefill;

	rp->cold_last_prefill = pre;
	if (!stall)
		return 0;
	rp->cold_paid = true;
	return s->cfg.cold_start_s;
}

/* Price replica ri's planned step: the forward pass plus the drafting that
 * follows it with speculative decoding, and the host tier's transfers
 * with KV offload. */
static SCHED_STEP_INLINE double rank_cost(struct sim *s, struct replica *rp, const struct step_desc *d)
{
	double t;

	if (d->nchunks == 0 && d->moe_tokens == 0) { /* decode only: it may repeat one priced before */
		struct dmemo_ent *slot;
		uint64_t k0 = stepmemo_key(d->ndecode, d->nlogits);
		if (!stepmemo_get(rp->prices, k0, d->ndecode, d->decode_ctx_sum, &t, &slot)) {
			t = cost_step_s(rp->cost, d);
			stepmemo_put(slot, k0, d->decode_ctx_sum, t);
		}
	} else if (cost_step_splits(rp->cost, d)) {
		/* an attention-DP rank's decode step: its own part may repeat
		 * one priced before (whatever the group's MoE tokens: the
		 * part kept does not depend on them), the MoE layers are a
		 * table lookup */
		struct dmemo_ent *slot;
		uint64_t k0 = stepmemo_key(d->ndecode, d->nlogits);
		double l;
		if (!stepmemo_get(rp->moe_memo, k0, d->ndecode, d->decode_ctx_sum, &l, &slot)) {
			l = cost_step_local_s(rp->cost, d);
			stepmemo_put(slot, k0, d->decode_ctx_sum, l);
		}
		t = cost_step_join_s(rp->cost, d, l);
	} else {
		t = cost_step_s(rp->cost, d);
	}

	if (rp->spec_n > 0) {
		/* the drafting: a pure function of its requests and their
		 * summed contexts, kept as a decode step's price is */
		struct dmemo_ent *slot;
		uint64_t k0 = stepmemo_key(rp->spec_n, 0);
		double dr;
		if (!stepmemo_get(rp->drafts, k0, rp->spec_n, rp->spec_ctx, &dr, &slot)) {
			dr = spec_draft_s(&s->cfg.spec, rp->cost, rp->spec_n, rp->spec_ctx);
			stepmemo_put(slot, k0, rp->spec_ctx, dr);
		}
		t += dr;
	}
	if (s->cfg.cold_start_s > 0 && !rp->cold_paid)
		t += cold_start_stall_s(s, rp, d);
	if (rp->host.total > 0)
		t = offload_step_s(s, rp, t);
	if (s->cfg.lora.max_loras > 0)
		t = lora_step_s(s, rp, d, t);
	if (rp->mm.pending > 0)
		t = mm_step_s(s, rp, t);
	return t;
}

/* Statistics, energy and step log of step d of t seconds on replica ri. */
static inline void account_step(struct sim *s, int ri, double t, const struct step_desc *d)
{
	struct replica *rp = &s->reps[ri];
	double used;

	if (rp->metered) {
		double f, b;
		cost_step_work(rp->cost, d, &f, &b);
		s->tot.energy_dyn_j += rp->gpus * power_step_j(&rp->power, t, f, rp->cost->peak, b,
							       rp->cost->g->hbm_bw);
	}
	if (s->cfg.step_log)
		step_log_line(s, rp, ri, t);
	used = (double)kvc_used(&rp->kv) / (double)rp->kv.total;
	s->tot.kv_util_sum_steps += used;
	if (used > s->tot.kv_util_max)
		s->tot.kv_util_max = used;
	s->tot.steps++;
}

static int64_t step_tokens(const struct step_desc *d)
{
	int64_t n = d->ndecode, i;

	for (i = 0; i < d->nchunks; i++)
		n += d->chunk_len[i];
	return n;
}

/* The attention-DP ranks that step together with rank ri, [*lo, *hi):
 * every rank of its replica (sim_cfg.replicas) when aggregated; with P/D,
 * the ranks of ri's worker (pd.prefill_group ranks per prefill worker,
 * pd.decode_group per decode worker).  A group of one steps alone. */
static void lock_group(const struct sim *s, int ri, int *lo, int *hi)
{
	int g, base = ri - ri % s->per, j = ri - base;

	if (!s->cfg.lockstep) {
		*lo = ri;
		*hi = ri + 1;
		return;
	}
	if (s->cfg.pd.prefill <= 0) {
		*lo = base;
		*hi = base + s->per;
		return;
	}
	if (j < s->cfg.pd.prefill) {
		g = s->cfg.pd.prefill_group > 1 ? s->cfg.pd.prefill_group : 1;
		*lo = base + j - j % g;
	} else {
		g = s->cfg.pd.decode_group > 1 ? s->cfg.pd.decode_group : 1;
		*lo = base + s->cfg.pd.prefill + (j - s->cfg.pd.prefill) / g * g;
	}
	*hi = *lo + g;
}

/* The price of rank rp's dummy step (group_start: rp->desc, whose only
 * variable is the group's MoE tokens): kept by them, since an idle rank's
 * step repeats within a group step and across steps (cost_step_s is a pure
 * function of the cost model and the step). */
static double idle_cost(struct sim *s, const struct replica *rp)
{
	struct dmemo *m = &s->memo->idle[rp->prefill_only];
	uint64_t k0 = (uint64_t)rp->desc.moe_tokens;
	struct dmemo_ent *x;
	double t;

	if (s->cfg.no_step_memo || k0 == 0)
		return cost_step_s(rp->cost, &rp->desc);
	if (!m->e)
		dmemo_init(m, 10);
	x = dmemo_slot(m, k0, 0);
	if (dmemo_holds(x, k0, 0))
		return x->v;
	t = cost_step_s(rp->cost, &rp->desc);
	dmemo_keep(x, k0, 0, t);
	return t;
}

/* Attention-DP: every rank of the group [lo, hi) plans its step; the MoE
 * layers see the tokens of all its ranks, a rank with nothing to run runs
 * a one-token dummy step (vLLM's DP engines execute dummy batches so the
 * collectives line up), and all end together when the slowest rank does.
 * One event, named by rank lo, ends the step (the caller's: false when no
 * rank has anything to run). */
static bool group_start(struct sim *s, int lo, int hi)
{
	int64_t moe = 0;
	double tmax = 0;
	bool any = false;
	int i;

	if (s->cfg.policy->group_gate)
		s->cfg.policy->group_gate(s, lo, hi);
	for (i = lo; i < hi; i++) {
		struct replica *rp = &s->reps[i];
		rp->active = plan_step(s, i, &rp->desc, s->cfg.policy->split_batches);
		any |= rp->active;
		moe += rp->active ? step_tokens(&rp->desc) : 1;
		/* a decode step's own part (rank_cost) has its key before the
		 * group's MoE tokens are known: its slot is fetched while the
		 * other ranks plan */
		if (rp->active && rp->desc.nchunks == 0)
			stepmemo_prefetch(rp->moe_memo, stepmemo_key(rp->desc.ndecode, rp->desc.nlogits),
					  rp->desc.ndecode, rp->desc.decode_ctx_sum);
	}
	if (!any) {
		for (i = lo; i < hi; i++)
			s->reps[i].busy = false;
		return false;
	}
	for (i = lo; i < hi; i++) {
		struct replica *rp = &s->reps[i];
		double t;
		if (!rp->active) { /* dummy step: one token, no KV, no sampling */
			memset(&rp->desc, 0, sizeof(rp->desc));
			rp->chunk_len[0] = 1;
			rp->chunk_prefix[0] = 0;
			rp->desc.chunk_len = rp->chunk_len;
			rp->desc.chunk_prefix = rp->chunk_prefix;
			rp->desc.nchunks = 1;
			if (rp->cost->eager_s > 0) {
				/* TensorRT-LLM pads an idle attention-DP rank with
				 * a dummy generation request unless some rank holds a
				 * context (PyExecutor._pad_attention_dp_dummy_request,
				 * is_gen = not has_context_request): a CUDA-graph
				 * decode step, not an eager one (a rank with a
				 * context makes the group's step eager anyway) */
				rp->desc.nchunks = 0;
				rp->desc.ndecode = 1;
				rp->desc.decode_ctx_sum = 1;
			}
		}
		rp->desc.moe_tokens = moe;
		t = rp->active ? rank_cost(s, rp, &rp->desc) : idle_cost(s, rp);
		if (rp->active)
			account_step(s, i, t, &rp->desc);
		rp->step_host_s = rp->active && rp->desc.nchunks > 0 ? rp->cost->eager_s : 0;
		if (t > tmax)
			tmax = t;
	}
	for (i = lo; i < hi; i++) {
		s->reps[i].busy = true;
		s->reps[i].step_dur_ns = simtime_round(tmax * 1e9);
	}
	return true;
}

/* PP: launch the planned batch into the pipeline when a slot and the
 * first stage are free.  The batch takes the whole step time t (every
 * stage in turn, the sends between them); the first stage takes the next
 * batch after t / pp (stages priced as equal shares). */
static void pp_start(struct sim *s, int ri)
{
	struct replica *rp = &s->reps[ri];
	struct pp_batch *b = NULL;
	struct step_desc d;
	double t;
	int k;
	size_t i;

	if (rp->npipe >= rp->pp) {
		rp->busy = false; /* a batch end restarts it */
		return;
	}
	if (!plan_step(s, ri, &d, s->cfg.policy->split_batches)) {
		rp->busy = false;
		return;
	}
	for (k = 0; k < rp->pp; k++)
		if (!rp->pipe[k].used) {
			b = &rp->pipe[k];
			break;
		}
	t = rank_cost(s, rp, &d);
	account_step(s, ri, t, &d);
	b->used = true;
	XGROW(b->reqs, b->cap, rp->nsched);
	for (i = 0; i < rp->nsched; i++) {
		b->reqs[i] = rp->sched[i];
		rp->sched[i]->inflight = true;
	}
	b->n = rp->nsched;
	rp->nsched = 0;
	rp->npipe++;
	rp->busy = true;
	rp->step_dur_ns = simtime_round(t * 1e9);
	rp->step_host_s = d.nchunks > 0 ? rp->cost->eager_s : 0;
	/* the event names the batch: (k + 1) x nrep + ri */
	evq_push(&s->q, s->now + rp->step_dur_ns, EV_STEP_END, (k + 1) * s->nrep + ri);
	evq_push(&s->q, s->now + simtime_round(t / rp->pp * 1e9), EV_STAGE_FREE, ri);
}

void sched_stage_free(struct sim *s, int ri)
{
	struct replica *rp = &s->reps[ri];

	rp->busy = false;
	sched_start_step(s, ri);
}

/* Replica ri runs a step of t seconds, host_s of them launching it
 * (start_single, decode_steps): accounted, its duration set. */
static SCHED_STEP_INLINE void step_started(struct sim *s, int ri, double t, double host_s,
					    const struct step_desc *d)
{
	struct replica *rp = &s->reps[ri];

	account_step(s, ri, t, d);
	rp->busy = true;
	rp->step_dur_ns = simtime_round(t * 1e9);
	rp->step_host_s = host_s;
}

/* Plan, price and account replica ri's next step (no PP, no lockstep);
 * false when it has nothing to run.  Its end is the caller's. */
static SCHED_STEP_INLINE bool start_single(struct sim *s, int ri, const bool sg)
{
	struct replica *rp = &s->reps[ri];
	struct step_desc d;
	double t;

	if (!plan_step(s, ri, &d, sg)) {
		rp->busy = false;
		return false;
	}
	t = rank_cost(s, rp, &d);
	step_started(s, ri, t, d.nchunks > 0 ? rp->cost->eager_s : 0, &d);
	return true;
}

void sched_start_step(struct sim *s, int ri)
{
	struct replica *rp = &s->reps[ri];

	if (s->cfg.lockstep) {
		int lo, hi;
		lock_group(s, ri, &lo, &hi);
		if (hi - lo > 1) {
			if (group_start(s, lo, hi))
				evq_push(&s->q, s->now + s->reps[lo].step_dur_ns, EV_STEP_END, lo);
			return;
		}
	}
	if (rp->pp > 1) {
		pp_start(s, ri);
		return;
	}
	if (start_single(s, ri, s->cfg.policy->split_batches))
		evq_push(&s->q, s->now + rp->step_dur_ns, EV_STEP_END, ri);
}

/* Step segments (sim.h, no_segments): may the step ending at t_end end
 * here and now, without its event?  Only when it would be the next event
 * popped: every queued event, and the next arrival, is later (one at the
 * same time was queued first, so it would go first).  The clock and the event count then move
 * as the queue would have moved them.  Not with the per-event invariant
 * checker, which runs between events. */
static bool segment_goes_on(struct sim *s, int64_t t_end)
{
	if (s->cfg.no_segments || s->cfg.check_invariants ||
	    (evq_size(&s->q) > 0 && evq_top_ns(&s->q) <= t_end) ||
	    (s->has_next && s->next.arrival_ns <= t_end)) /* (engine.c's arrival) */
		return false;
	s->now = t_end;
	s->tot.events++;
	s->tot.duration_ns = t_end;
	return true;
}

static void pend_push(struct replica *rp, struct req *r)
{
	XGROW(rp->pend, rp->pend_cap, rp->npend + 1);
	rp->pend[rp->npend++] = r;
}

/* When the last finished step's tokens reach the clients (now, at the end
 * of the step that followed it): at the step's end plus `delivery_steps`
 * (0..1) of the following step (H2; vLLM's output processing overlaps the
 * next step). */
static SCHED_STEP_INLINE int64_t delivery_time(const struct sim *s, const struct replica *rp)
{
	double f = (rp->cost->cfg.off & COST_H2) ? 0 : rp->cost->cfg.ov.delivery_steps;
	int64_t t;

	if (f > 1)
		f = 1;
	t = rp->pend_t0 + simtime_round(f * (double)(s->now - rp->pend_t0));
	if (rp->cost->eager_s > 0) {
		/* TensorRT-LLM's overlap scheduler hands a step's tokens out
		 * once the host has launched the next step and the step's GPU
		 * work is done: the host starts launching step N+1 when it has
		 * launched step N, so N's tokens leave at N's end plus what of
		 * N+1's launch time N's GPU time past its own launch did not
		 * hide (tensorrt_llm PyExecutor._executor_loop_overlap:
		 * _forward_step of the new batch, then _update_requests and
		 * _handle_responses of the previous one).  A CUDA-graph step
		 * launches at once; an eager one takes eager_s. */
		double slack = (double)rp->pend_dur_ns * 1e-9 - rp->pend_host_s, x;
		int64_t tx;
		x = rp->step_host_s - (slack > 0 ? slack : 0);
		tx = rp->pend_t0 + simtime_round(x > 0 ? x * 1e9 : 0);
		if (tx < t)
			t = tx;
	}
	return t;
}

/* Hand the last finished step's tokens to the clients at delivery_time.
 * Completed requests are recorded then, and a closed-loop client sends its
 * next request. */
static SCHED_STEP_INLINE int deliver(struct sim *s, struct replica *rp, struct err *e, const bool sg)
{
	int64_t t;
	size_t i;
	int rc = 0;

	if (!rp->tok_open)
		return 0; /* (nothing pending either) */
	rp->tok_open = false;
	if (rp->no_gaps && rp->npend == 0) {
		/* no record waits for the time, and without pooled gaps the
		 * decoders' delivery time (tok_t) is never read */
		rp->ngapq = 0;
		return 0;
	}
	t = delivery_time(s, rp);
	gaps_deliver(s, rp, t, sg);
	for (i = 0; i < rp->npend; i++) {
		struct req *r = rp->pend[i];
		if (r->first_pending) {
			r->first_ns = t;
			r->first_pending = false;
		}
		if (r->done_pending) {
			int rc1;
			r->last_ns = t;
			rc1 = s->env->complete(s, r, t, rc == 0, e);
			if (rc == 0)
				rc = rc1;
		}
	}
	rp->npend = 0;
	return rc;
}

/* The step that just ended (now) is the one whose tokens are pending; its
 * decoders made a token in it (stepped: every vLLM step, SGLang's decode
 * batches). */
static SCHED_STEP_INLINE void step_pending(const struct sim *s, struct replica *rp, bool stepped)
{
	rp->pend_t0 = s->now;
	rp->pend_host_s = rp->step_host_s;
	rp->pend_dur_ns = rp->step_dur_ns;
	rp->tok_open = true;
	rp->pend_dec = stepped;
}

/* Completion entry fe came due: its decoder, unless the entry is stale or
 * the request explicit, is done (added to rp->done at ndone; the new
 * count is returned). */
static SCHED_STEP_INLINE size_t fin_due(struct sim *s, struct replica *rp, const struct fin_entry *fe, size_t ndone)
{
	struct req *r = fe->r;

	if (r->epoch != fe->epoch)
		return ndone; /* stale */
	r->heaped = false;
	if (!r->dec)
		return ndone; /* explicit: it completes (or not) on its own */
	sched_dec_leave(s, rp, r);
	/* its last chunk: a gap of its own (the terms after the last token) */
	rp->lazy_n[stage_ix(r)]--;
	r->tok_ns = rp->tok_t;
	gap_push(rp, r, GAP_LAST, 1);
	r->last_ns = s->now;
	r->done = true;
	XGROW(rp->done, rp->done_cap, ndone + 1);
	rp->done[ndone++] = r;
	return ndone;
}

/* --- aborts (live use: sim_abort) --- */

/* Running request r leaves rp's running list, its adapter slot and its KV
 * blocks (a completion's, a hand-off's or an abort's). */
static void leave_running(struct sim *s, struct replica *rp, struct req *r)
{
	run_remove(rp, r);
	if (s->cfg.lora.max_loras > 0)
		lora_run_drop(s, rp, r->lora);
	free_blocks(s, rp, r);
}

/* r, out of rp's lists and blocks, is aborted: nothing of it reaches the
 * client any more (its first token pending, the chunks of its last step). */
static void abort_release(struct sim *s, struct replica *rp, struct req *r)
{
	size_t i, j;

	for (i = j = 0; i < rp->npend; i++)
		if (rp->pend[i] != r)
			rp->pend[j++] = rp->pend[i];
	rp->npend = j;
	for (i = 0; i < rp->ngapq; i++)
		if (rp->gapq[i].r == r)
			rp->gapq[i].id = -1; /* skipped (gaps_deliver: ids are >= 0) */
	if (r->aborting) {
		r->aborting = false;
		rp->naborting--;
	}
	chain_drop(s, rp, r);
	s->env->abort(s, r);
}

/* The requests of rp marked aborting join the step's completions (ndone
 * of them in rp->done; the new count is returned), as vLLM handles aborts
 * after the step's outputs: one the step finished completes, one in
 * another pipeline batch (PP) waits for that batch's end. */
static size_t abort_due(struct replica *rp, size_t ndone)
{
	int32_t left = rp->naborting;
	struct req *r;

	for (r = rp->run_head; r && left > 0; r = r->next) {
		if (!r->aborting)
			continue;
		left--;
		if (r->inflight)
			continue;
		if (r->done) {
			/* finished by the step: it completes (a P/D prefill
			 * worker's hand-off is aborted instead) */
			if (!(rp->prefill_only && r->generated < r->output)) {
				r->aborting = false;
				rp->naborting--;
			}
			continue;
		}
		r->done = true;
		XGROW(rp->done, rp->done_cap, ndone + 1);
		rp->done[ndone++] = r;
	}
	return ndone;
}

int sched_abort(struct sim *s, int ri, int64_t id)
{
	struct replica *rp = &s->reps[ri];
	struct req *r;
	size_t i, mask = rp->wcap - 1;

	for (i = 0; i < rp->wlen; i++) {
		struct wq_ent *q = &rp->wq[(rp->whead + i) & mask];
		if ((q->r ? q->r->id : q->id) != id)
			continue;
		r = q->r ? q->r : req_of_ent(s, rp, q);
		for (; i + 1 < rp->wlen; i++)
			rp->wq[(rp->whead + i) & mask] = rp->wq[(rp->whead + i + 1) & mask];
		rp->wlen--;
		if (rp->memo_r == r)
			memo_drop(rp);
		free_blocks(s, rp, r); /* (a waiting request holds none) */
		abort_release(s, rp, r);
		return 1;
	}
	for (i = 0; i < rp->ninbox; i++) {
		if (rp->inbox[i].id != id)
			continue;
		r = req_of_ent(s, rp, &rp->inbox[i]);
		memmove(&rp->inbox[i], &rp->inbox[i + 1], (rp->ninbox - i - 1) * sizeof(*rp->inbox));
		rp->ninbox--;
		abort_release(s, rp, r);
		return 1;
	}
	for (r = rp->run_head; r; r = r->next) {
		if (r->id != id)
			continue;
		if (r->dec) /* (live use keeps every request explicit) */
			sched_dec_leave(s, rp, r);
		if (rp->busy || rp->npipe > 0) {
			if (!r->aborting) {
				r->aborting = true;
				rp->naborting++;
			}
			return 2;
		}
		leave_running(s, rp, r); /* no step holds it */
		abort_release(s, rp, r);
		return 1;
	}
	return 0;
}

static int cmp_rseq(const void *a, const void *b)
{
	const struct req *x = *(struct req *const *)a, *y = *(struct req *const *)b;
	return x->rseq < y->rseq ? -1 : x->rseq > y->rseq;
}

/* --- the next step's plan, summed as a step ends (speculative decoding) ---
 *
 * With speculative decoding every running request stays explicit, and a
 * step of decoders alone walks them four times: finish_rank, the policy's
 * schedule (schedule_fast: the tokens and blocks the others ask for, then
 * each one's blocks and place in the step) and plan_step's description.
 * When every request of the step that ended is still a decoder, in
 * running order, finish_rank sums what the next plan reads of each one
 * (chunk_of's tokens, blocks_for's growth, its terms of decode_ctx_sum and
 * spec_ctx) as it walks them; schedule_fast then takes its sums for its
 * first walk and, when it schedules all of them, plan_step for their part
 * of the description.  The sums are integers, exact in int64_t; the
 * description's doubles are added integers below 2^53 in any order, so
 * they come out bit for bit the same (test_sim's segment comparisons run
 * it against no_segments, which keeps every walk). */
static SCHED_STEP_INLINE bool plan_ahead_applies(const struct sim *s, const struct replica *rp)
{
	return s->cfg.spec.k > 0 && s->cfg.policy->decode_segments && !s->cfg.no_segments && rp->sched_others &&
	       rp->nsched == rp->nothers && rp->ndec == 0 && !rp->lazy && !rp->fallback && rp->pp == 1 &&
	       !rp->prefill_only && rp->naborting == 0;
}

static SCHED_STEP_INLINE void grower_push(struct replica *rp, struct req *r)
{
	XGROW(rp->growers, rp->growers_cap, rp->ngrowers + 1);
	rp->growers[rp->ngrowers++] = r;
}

/* Request r, a decoder staying running, takes n tokens at the next step
 * and needs `need` more blocks for them: its part of the next plan, its
 * chunk_of kept in step_tokens for the policy (plan_ahead_add and
 * spec_walk's copy of it). */
static SCHED_STEP_INLINE void plan_ahead_sum(struct replica *rp, struct req *r, int64_t n, int64_t need,
					    struct plan_ahead *pa)
{
	r->step_tokens = n;
	pa->tokens += n;
	pa->need += need;
	if (need > 0)
		grower_push(rp, r);
	/* plan_step's terms: q (computed + 1) + q (q - 1) / 2 and computed +
	 * q (q (q - 1) >= 0 for any integer q: the shift is the division) */
	pa->ctx += n * (r->computed + 1) + (n * (n - 1) >> 1);
	pa->spec_ctx += r->computed + n;
	pa->n++;
}

/* Request r stays running after the step: add its part of the next plan,
 * its chunk_of kept in step_tokens for the policy (false when it is not a
 * decoder).  (step_tokens is read only while a request is scheduled, and
 * sched_push sets it.) */
static SCHED_STEP_INLINE bool plan_ahead_add(const struct sim *s, struct replica *rp, struct req *r,
					    struct plan_ahead *pa)
{
	int64_t n, need;

	if (!decoding(r))
		return false;
	n = chunk_of(s, r, INT64_MAX);
	need = blocks_for(s, r->computed + n) - r->nblocks;
	plan_ahead_sum(rp, r, n, need, pa);
	return true;
}

/* finish_rank's walk over the requests of the step from sched[i0] that
 * are decoders verifying drafts, where plan_ahead applies, pooled gaps are
 * only counted and blocks hold a power of two tokens: its body for them
 * alone (a draw, the accepted tokens, the blocks that filled, a counted
 * gap, then done or its part of the next plan as plan_ahead_add), the
 * acceptance totals added once.  Returns where it stopped: the first
 * other request (finish_rank's walk takes it, then this one goes on); ndone
 * as there. */
static SCHED_STEP_INLINE size_t spec_walk(struct sim *s, struct replica *rp, size_t i0, size_t *ndone,
					  struct plan_ahead *pa)
{
	const int64_t now = s->now, K = s->cfg.spec.k, lpt = s->cfg.long_prefill_token_threshold;
	const int sh = s->bs_log2p1 - 1;
	const int64_t bm = ((int64_t)1 << sh) - 1;
	uint64_t drafted = 0, accepted = 0;
	size_t i;

	for (i = i0; i < rp->nsched; i++) {
		struct req *r = rp->sched[i];
		int64_t q = r->step_tokens, c, g, n;
		int32_t full;
		int a;
		if (q < 2 || r->pd_first || !decoding(r))
			break;
		a = spec_accepted(&s->spec_draws, (int)q - 1, &s->spec_rng);
		drafted += (uint64_t)(q - 1);
		accepted += (uint64_t)a;
		r->scheduled = false;
		r->dsteps++;
		r->computed = c = r->computed + 1 + a;
		r->generated = g = r->generated + 1 + a;
		/* register_full: anonymous blocks are only counted */
		if (r->nnamed <= r->nhashed) {
			full = (int32_t)(c >> sh);
			if (full > r->nblocks)
				full = r->nblocks;
			if (r->nhashed < full)
				r->nhashed = full;
		} else {
			register_full(s, rp, r, c);
		}
		r->ngaps++; /* gap_push: a middle or last gap, counted */
		r->last_ns = now;
		if (g >= r->output) {
			r->done = true;
			XGROW(rp->done, rp->done_cap, *ndone + 1);
			rp->done[(*ndone)++] = r;
			continue;
		}
		/* plan_ahead_add: chunk_of and blocks_for of a decoder */
		n = r->output - g - 1;
		n = 1 + (n < K ? n : K);
		if (lpt > 0 && n > lpt)
			n = lpt;
		plan_ahead_sum(rp, r, n, (int32_t)((c + n + bm) >> sh) - r->nblocks, pa);
	}
	s->tot.spec_verify += i - i0;
	s->tot.spec_drafted += drafted;
	s->tot.spec_accepted += accepted;
	return i;
}

/* End replica ri's step: tokens, completions, block bookkeeping. */
static SCHED_STEP_INLINE int finish_rank(struct sim *s, int ri, struct err *e, const bool sg)
{
	struct replica *rp = &s->reps[ri];
	struct req *r;
	size_t i, j, ndone = 0;
	int32_t cls;
	int rc;
	bool joined = false; /* a request of rp->others became a decoder */
	/* its decoders made a token (SGLang: unless it was a prefill batch) */
	const bool stepped = !sg || rp->dec_run;
	/* the next step's plan of the others, summed as they are walked
	 * (plan_ahead: every one an explicit decoder, in running order) */
	struct plan_ahead pa = {0, 0, 0, 0, 0};
	bool ahead = plan_ahead_applies(s, rp), walk;

	/* the previous step's tokens reach the client now */
	if ((rc = deliver(s, rp, e, sg)) < 0)
		return rc;
	step_pending(s, rp, stepped);
	if (stepped)
		decoders_stepped(rp);
	rp->ngrowers = 0;
	walk = ahead && rp->no_gaps && s->bs_log2p1 > 0;
	for (i = 0; i < rp->nsched; i++) {
		int64_t gen0;
		bool dec;
		/* the draft verifiers up to the next other request (while
		 * plan_ahead holds), then that one below */
		if (walk && ahead && (i = spec_walk(s, rp, i, &ndone, &pa)) >= rp->nsched)
			break;
		r = rp->sched[i];
		gen0 = r->generated;
		r->scheduled = false;
		if (decoding(r)) {
			r->dsteps++;
			dec = true;
		} else {
			dec = false;
		}
		if (r->step_tokens > 1 && dec) {
			/* verification: the drafts' accepted prefix and a bonus token */
			int k = (int)r->step_tokens - 1, a = spec_accepted(&s->spec_draws, k, &s->spec_rng);
			s->tot.spec_verify++;
			s->tot.spec_drafted += (uint64_t)k;
			s->tot.spec_accepted += (uint64_t)a;
			r->computed += 1 + a;
			r->generated += a;
		} else {
			r->computed += r->step_tokens;
		}
		register_full(s, rp, r, r->computed);
		if (r->computed < req_num_tokens(r)) {
			ahead = false;
			continue; /* a prefill chunk: no token yet */
		}
		r->generated++;
		if (rp->prefill_only && r->generated < r->output) {
			/* P/D: the prefill worker is done with it; the KV
			 * travels to the decode pool */
			r->done = true; /* out of this worker's lists */
			XGROW(rp->done, rp->done_cap, ndone + 1);
			rp->done[ndone++] = r;
			continue;
		}
		if (r->pd_first && s->cfg.pd.first == SIM_PD_FIRST_DECODE_LAUNCH) {
			/* P/D: the prefill's token left as this step was
			 * launched; this step's token follows it */
			r->pd_first = false;
			r->first_ns = s->now - rp->step_dur_ns;
		}
		gap_push(rp, r, gen0 == 0 || r->pd_first ? GAP_NONE : r->generated >= r->output ? GAP_LAST : GAP_MID,
			 r->generated - gen0);
		if (r->generated == 1 || r->pd_first) {
			/* (P/D: the prefill's token comes with this one) */
			r->pd_merged = r->pd_first;
			r->pd_first = false;
			r->first_ns = s->now;
			r->first_pending = true;
			pend_push(rp, r);
		}
		r->last_ns = s->now;
		if (r->generated >= r->output) {
			r->done = true;
			XGROW(rp->done, rp->done_cap, ndone + 1);
			rp->done[ndone++] = r;
		} else if (rp->lazy && (!sg || stepped)) {
			/* speculative and pipelined requests stay explicit; with
			 * split batches a request joins after a decode batch, so
			 * that its last token is the decoders' */
			dec_join(s, rp, r);
			joined = true;
		}
		if (ahead && !r->done)
			ahead = plan_ahead_add(s, rp, r, &pa);
	}
	/* (with ndone: the others below lose the done ones, in order) */
	ahead = ahead && !joined;
	cls = cls_of(s, -rp->G);
	if (stepped)
		register_filled(s, rp, cls);
	/* decoders that produced their last token: this step's ring bucket
	 * (every entry there is due now: it was queued less than a ring's
	 * length of steps ago), then the heap's */
	if (rp->ring && stepped) {
		struct fin_bucket *b = &rp->ring[rp->G & rp->ring_mask];
		for (i = 0; i < b->n; i++)
			ndone = fin_due(s, rp, &b->e[i], ndone);
		b->n = 0;
	}
	while (stepped && rp->nheap > 0 && rp->heap[0].fin_G <= rp->G) {
		struct fin_entry fe = rp->heap[0];
		heap_pop(rp);
		ndone = fin_due(s, rp, &fe, ndone);
	}
	if (rp->ndec == 0)
		rp->dec_max_rseq = 0;
	if (rp->naborting > 0)
		ndone = abort_due(rp, ndone);
	/* the others: explicit running requests, in running order (a
	 * split-batch scheduler reads them only with lazy decoders) */
	if (rp->fallback) {
		rp->nothers = 0;
		if (!sg || rp->lazy)
			for (r = rp->run_head; r; r = r->next)
				if (!r->dec && !r->done)
					sched_others_push(rp, r);
	} else if (ndone > 0 || joined) {
		/* (a request leaves the list only as a decoder or done, and
		 * only here: dec_join and the completions above) */
		for (i = j = 0; i < rp->nothers; i++)
			if (!rp->others[i]->dec && !rp->others[i]->done)
				rp->others[j++] = rp->others[i];
		rp->nothers = j;
	}
	rp->nsched = 0;
	rp->ahead = pa;
	rp->ahead_valid = ahead;
	/* completions in running order (record order, closed-loop order) */
	if (ndone > 16) {
		qsort(rp->done, ndone, sizeof(*rp->done), cmp_rseq);
	} else { /* usually 2 or 3: an insertion sort, without qsort's calls (rseq values are distinct) */
		for (i = 1; i < ndone; i++) {
			struct req *x = rp->done[i];
			j = i;
			for (; j > 0 && rp->done[j - 1]->rseq > x->rseq; j--)
				rp->done[j] = rp->done[j - 1];
			rp->done[j] = x;
		}
	}
	for (i = 0; i < ndone; i++) {
		r = rp->done[i];
		leave_running(s, rp, r); /* the engine is done with it; the client not yet */
		if (r->aborting) {
			abort_release(s, rp, r);
			continue;
		}
		if (rp->prefill_only && r->generated < r->output) {
			s->env->handoff(s, r);
			continue;
		}
		chain_drop(s, rp, r);
		s->tot.completed++;
		if (!r->first_pending)
			pend_push(rp, r);
		r->done_pending = true;
	}
	return 0;
}

/* Step segments of steady decode.  Replica ri's step has just ended
 * (now) inside a segment (segment_goes_on).  While it and the step after
 * it hold decoders alone (nothing explicit scheduled or running, nobody
 * waiting, no tokens of a first or last chunk or explicit gaps pending), no
 * decoder completes at the next step count and the crossing class finds its
 * blocks, finish_rank's and start_single's work reduces to what is done
 * here, in their order: deliver the previous step's tokens (the decoders'
 * gaps), count the step, register the blocks that filled, take the crossing
 * decoders' new blocks (the policy's step: decode_segments), describe, price and account the next
 * step; then the segment goes on or that step's end is queued.  The general
 * path runs from the first step where a condition fails.  Returns 1 when the
 * last step's end was queued (nothing left to do), 0 when a step has ended
 * now and the general path takes it (whether or not steps were run here).
 * Called where decode_steps_apply holds (the conditions that stay true from
 * step to step here). */
static SCHED_STEP_INLINE bool decode_steps_apply(const struct sim *s, const struct replica *rp)
{
	/* the conditions that fail most often first (a prefill chunk or an
	 * arrival in most steps of a busy replica): one or two tests then */
	return rp->nsched == 0 && rp->wlen == 0 && rp->npend == 0 && rp->nothers == 0 && rp->ndec > 0 &&
	       !rp->fallback && rp->ngapq == 0 && rp->tok_open && rp->ndec <= rp->mbt && rp->dec_run &&
	       rp->pp == 1 && !s->cfg.no_segments && !s->cfg.check_invariants && s->cfg.policy->decode_segments &&
	       s->cfg.spec.k == 0;
}

/* Whether replica rp's next step (count g1) may be one of decode_steps':
 * no decoder completes at it and the class crossing a block boundary finds
 * its blocks. */
static SCHED_STEP_INLINE bool decode_step_clear(const struct sim *s, const struct replica *rp, int64_t g1)
{
	int32_t cls = cls_of(s, -g1);
	const struct fin_bucket *b = rp->ring ? &rp->ring[g1 & rp->ring_mask] : NULL;

	return !((b && b->n > 0) || (rp->nheap > 0 && rp->heap[0].fin_G <= g1) ||
		 rp->cls_count[cls] > kvc_available(&rp->kv));
}

static int decode_steps(struct sim *s, int ri)
{
	struct replica *rp = &s->reps[ri];

	for (;;) {
		int64_t g1 = rp->G + 1, t, t_end;
		int32_t cls = cls_of(s, -g1);
		struct step_desc d;
		if (!decode_step_clear(s, rp, g1))
			return 0;
		/* finish_rank: the previous step's tokens (as deliver: their
		 * time only for the pooled gaps), then this one's */
		if (!rp->no_gaps) {
			t = delivery_time(s, rp);
			gaps_deliver(s, rp, t, false);
		}
		step_pending(s, rp, true);
		decoders_stepped(rp);
		register_filled(s, rp, cls);
		take_crossing(s, rp, cls); /* the policy's (decode_segments) */
		/* plan_step's description, rank_cost, account_step, start_single */
		desc_start(rp, &d);
		describe_decoders(rp, &d);
		step_started(s, ri, rank_cost(s, rp, &d), 0, &d);
		t_end = s->now + rp->step_dur_ns;
		if (!segment_goes_on(s, t_end)) {
			evq_push(&s->q, t_end, EV_STEP_END, ri);
			return 1;
		}
	}
}

/* decode_steps for an attention-DP group [lo, hi) stepping together
 * (lock_group): while every rank holds decoders alone (decode_steps_apply
 * for each) and none of them completes or misses a block at the next step,
 * finish_rank's work for each rank in turn, then group_start's (each rank's
 * plan, the MoE tokens of all, each rank priced and accounted in rank
 * order, the slowest rank's time for all), as decode_steps reduces them
 * for one rank.  Returns 1 when the last step's end was queued, 0 when a
 * step has ended now and the general path takes it. */
static int group_decode_steps(struct sim *s, int lo, int hi)
{
	int i;

	for (i = lo; i < hi; i++)
		if (!decode_steps_apply(s, &s->reps[i]))
			return 0;
	for (;;) {
		int64_t moe = 0, t_end;
		double tmax = 0;
		for (i = lo; i < hi; i++)
			if (!decode_step_clear(s, &s->reps[i], s->reps[i].G + 1))
				return 0;
		for (i = lo; i < hi; i++) { /* finish_rank */
			struct replica *rp = &s->reps[i];
			if (!rp->no_gaps)
				gaps_deliver(s, rp, delivery_time(s, rp), false);
			step_pending(s, rp, true);
			decoders_stepped(rp);
			register_filled(s, rp, cls_of(s, -rp->G));
		}
		if (s->cfg.policy->group_gate) /* (nobody waits: its counters) */
			s->cfg.policy->group_gate(s, lo, hi);
		for (i = lo; i < hi; i++) { /* group_start: the plans */
			struct replica *rp = &s->reps[i];
			take_crossing(s, rp, cls_of(s, -rp->G)); /* the policy's (decode_segments) */
			desc_start(rp, &rp->desc);
			describe_decoders(rp, &rp->desc);
			rp->active = true;
			moe += rp->desc.ndecode;
		}
		for (i = lo; i < hi; i++) { /* their prices */
			struct replica *rp = &s->reps[i];
			double t;
			rp->desc.moe_tokens = moe;
			t = rank_cost(s, rp, &rp->desc);
			account_step(s, i, t, &rp->desc);
			rp->step_host_s = 0;
			if (t > tmax)
				tmax = t;
		}
		for (i = lo; i < hi; i++) {
			s->reps[i].busy = true;
			s->reps[i].step_dur_ns = simtime_round(tmax * 1e9);
		}
		t_end = s->now + s->reps[lo].step_dur_ns;
		if (!segment_goes_on(s, t_end)) {
			evq_push(&s->q, t_end, EV_STEP_END, lo);
			return 1;
		}
	}
}

/* sched_finish_step's body for one engine's scheduler (sg: SGLang's), so
 * that vLLM's step loop does not test for SGLang's batches. */
static SCHED_STEP_INLINE int finish_step(struct sim *s, int ri, struct err *e, const bool sg)
{
	int i, rc, lo, hi;

	if (ri >= s->nrep) { /* PP: batch k of replica ri % nrep left the pipeline */
		struct replica *rp = &s->reps[ri % s->nrep];
		struct pp_batch *b = &rp->pipe[ri / s->nrep - 1];
		bool was_busy = rp->busy;
		size_t j;
		ri %= s->nrep;
		for (j = 0; j < b->n; j++) {
			rp->sched[j] = b->reqs[j];
			b->reqs[j]->inflight = false;
		}
		rp->nsched = b->n;
		b->used = false;
		b->n = 0;
		rp->npipe--;
		if ((rc = finish_rank(s, ri, e, sg)) < 0)
			return rc;
		if (!was_busy)
			sched_start_step(s, ri);
		return rp->busy || rp->npipe > 0 ? 0 : deliver(s, rp, e, sg);
	}
	lock_group(s, ri, &lo, &hi);
	if (hi - lo == 1) {
		for (;;) {
			struct replica *rp = &s->reps[ri];
			int64_t t_end;
			if (!sg && decode_steps_apply(s, rp) && decode_steps(s, ri))
				return 0;
			if ((rc = finish_rank(s, ri, e, sg)) < 0)
				return rc;
			/* an engine with nothing to do hands its outputs over at once */
			if (!start_single(s, ri, sg))
				return deliver(s, rp, e, sg);
			t_end = s->now + rp->step_dur_ns;
			if (!segment_goes_on(s, t_end)) {
				evq_push(&s->q, t_end, EV_STEP_END, ri);
				return 0;
			}
		}
	}
	for (;;) {
		int64_t t_end;
		if (!sg && group_decode_steps(s, lo, hi))
			return 0;
		for (i = lo; i < hi; i++)
			if ((rc = finish_rank(s, i, e, sg)) < 0)
				return rc;
		if (!group_start(s, lo, hi)) {
			for (i = lo; i < hi; i++)
				if ((rc = deliver(s, &s->reps[i], e, sg)) < 0)
					return rc;
			return 0;
		}
		t_end = s->now + s->reps[lo].step_dur_ns;
		if (!segment_goes_on(s, t_end)) {
			evq_push(&s->q, t_end, EV_STEP_END, lo);
			return 0;
		}
	}
}

int sched_finish_step(struct sim *s, int ri, struct err *e)
{
	return s->cfg.policy->split_batches ? finish_step(s, ri, e, true) : finish_step(s, ri, e, false);
}

bool sched_check(const struct sim *s, int ri, char *why, size_t n)
{
	const struct replica *rp = &s->reps[ri];
	const struct req *r;
	size_t i = 0;
	int64_t ndec = 0;

	for (r = rp->run_head; r; r = r->next) {
		if (r->dec) {
			ndec++;
			if (s->cfg.policy->decoder_keys && ((size_t)r->dk_ix >= rp->ndk || rp->dk[r->dk_ix].r != r ||
					      rp->dk[r->dk_ix].k != r->output - r->dg0 + r->dG0)) {
				snprintf(why, n, "decoder %lld: dk slot %d does not hold it", (long long)r->id,
					 r->dk_ix);
				return false;
			}
		} else if (!rp->fallback && (i >= rp->nothers || rp->others[i++] != r)) {
			snprintf(why, n, "explicit request %lld: not others[%zu] (%zu others)", (long long)r->id,
				 i > 0 ? i - 1 : 0, rp->nothers);
			return false;
		}
	}
	if (ndec != rp->ndec || (s->cfg.policy->decoder_keys && (size_t)ndec != rp->ndk) ||
	    (!rp->fallback && i != rp->nothers)) {
		snprintf(why, n, "%lld decoders running, ndec %lld, %zu dk entries; %zu of %zu others matched",
			 (long long)ndec, (long long)rp->ndec, rp->ndk, i, rp->nothers);
		return false;
	}
	return true;
}

void sched_replica_init(struct sim *s, struct replica *rp)
{
	if (s->cfg.block_size > 0 && (s->cfg.block_size & (s->cfg.block_size - 1)) == 0) {
		int k = 0;
		while ((1LL << k) < s->cfg.block_size)
			k++;
		s->bs_log2p1 = k + 1;
	}
	rp->recv_gate = s->cfg.recv_interval > 1;
	rp->cls_head = xcalloc((size_t)s->cfg.block_size, sizeof(*rp->cls_head));
	rp->cls_count = xcalloc((size_t)s->cfg.block_size, sizeof(*rp->cls_count));
	rp->cls_lean = xcalloc((size_t)s->cfg.block_size, sizeof(*rp->cls_lean));
	rp->no_gaps = s->cfg.no_pooled_gaps;
	rp->dec_run = rp->pend_dec = true; /* a split-batch policy sets dec_run each step */
	rp->lazy = s->cfg.spec.k == 0 && rp->pp == 1 && !s->cfg.no_lazy_decoders &&
		   (!s->cfg.policy->lazy || s->cfg.policy->lazy(&s->cfg));
	rp->prices = &s->memo->step[rp->prefill_only][0];
	rp->moe_memo = &s->memo->step[rp->prefill_only][1];
	rp->drafts = &s->memo->draft[rp->prefill_only];
	power_model_of(rp->cost->g, &rp->power);
	rp->gpus = (double)rp->cost->p.tp * (double)rp->cost->p.pp;
	rp->metered = rp->power.board_w > 0 && !s->cfg.no_energy;
	if (!rp->metered)
		s->tot.energy_dyn_j = NAN;
	if (s->cfg.lora.max_loras > 0)
		lora_replica_init(s, rp);
	if (s->cfg.mm.image_tokens > 0 && s->cfg.epd.encoders == 0)
		mm_replica_init(s, rp);
	if (s->cfg.policy->replica_init)
		s->cfg.policy->replica_init(s, rp);
}

void sched_replica_release(const struct sim *s, struct replica *rp)
{
	struct req *r;
	size_t i;
	int c;

	for (r = rp->run_head; r; r = r->next) {
		free(r->blocks);
		free(r->chain);
	}
	for (i = 0; i < rp->wlen; i++) {
		struct req *w = rp->wq[(rp->whead + i) & (rp->wcap - 1)].r;
		if (w) {
			free(w->blocks);
			free(w->chain);
		}
	}
	lora_replica_release(rp);
	mm_replica_release(rp);
	free(rp->memo_blk);
	free(rp->memo_e0);
	if (rp->cmemo)
		for (i = 0; i <= rp->cmemo_mask; i++)
		{
			free(rp->cmemo[i].chain);
			free(rp->cmemo[i].hint);
		}
	free(rp->cmemo);
	free(rp->wq);
	free(rp->inbox);
	for (c = 0; c < SCHED_ARRAY_CLASSES; c++) {
		for (i = 0; i < rp->narrays[c]; i++)
			free(rp->arrays[c][i]);
		free(rp->arrays[c]);
	}
	for (i = 0; i < rp->nchains; i++)
		free(rp->chains[i]);
	free(rp->chains);
	free(rp->cls_head);
	free(rp->cls_count);
	free(rp->cls_lean);
	free(rp->heap);
	if (rp->ring)
		for (i = 0; i <= rp->ring_mask; i++)
			free(rp->ring[i].e);
	free(rp->ring);
	free(rp->others);
	free(rp->growers);
	free(rp->dk);
	free(rp->sched);
	free(rp->done);
	free(rp->pend);
	free(rp->gapq);
	if (s->cfg.policy->replica_release)
		s->cfg.policy->replica_release(rp);
}
