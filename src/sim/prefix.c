/* prefix.c - block content hashes: each request's kept chain of block
 * hashes, memoised per content (a repeated prompt is hashed once).  The
 * prefix cache is looked up with them at admission (admit.c). */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/mix64.h"
#include "core.h"
#include "sim/prefix.h"

/* chain memo slots per replica (a power of two), the longest shareable
 * part kept and the blocks kept in all slots together: 4 MiB of hashes at
 * most.  Slots are direct-mapped: a workload of 100 distinct prompts
 * (inference-perf's shared_prefix) had a third of them colliding in 256
 * slots, each collision a whole prompt hashed again; in 4096 about 2 %. */
#define SCHED_CHAIN_MEMO 4096

/* the memo's first size (slots): it doubles while more than 1 /
 * CMEMO_LOAD of its slots hold a chain, up to SCHED_CHAIN_MEMO, so that a
 * rank that sees a few prompts holds a few slots (4096 of them were 160 KB
 * a rank) */
#define SCHED_CHAIN_MEMO_START 16

/* At most half full, the direct-mapped slots still collided: 100 prompts
 * (inference-perf's shared_prefix, 10 groups of 10) stopped the memo at
 * 256 slots, where two prompts sharing a slot evict each other's chain
 * and hints at every turn: 2,189 of the roleplay run's 7,200 admissions
 * hashed their prompt again and looked up every block instead of
 * checking the hints.  An eighth: 1,024 slots for them (48 KiB), and
 * admission (sched_admit, inclusive) 23.7 -> 19.1 M instructions in that
 * run (2026-12-01, seg); a sixteenth measured no more */
#define CMEMO_LOAD 8

#define SCHED_CHAIN_MEMO_MAX 2048

#define SCHED_CHAIN_MEMO_BUDGET (512 * 1024)

/* a request's kept chain is an array of the longest a request can need,
 * reused from a per-replica stack (a malloc and a free per request cost
 * more than hashing a short prompt), while that is at most this many
 * blocks (32 KiB); past it (one-token pages) sized to the request */
#define SCHED_CHAIN_POOL_MAX 4096

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
struct chain_memo *prefix_chain_memo(const struct sim *s, const struct req *r)
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
void prefix_chain_grow(const struct sim *s, struct req *r, int64_t b)
{
	int64_t bs = s->cfg.block_size;
	uint64_t key = 0;
	int region = -1;
	struct chain_memo *cm;

	if (r->nchain == 0) {
		struct replica *rp = &s->reps[r->replica];
		/* (only here: no other slot is held while it moves them) */
		if (rp->cmemo && CMEMO_LOAD * rp->cmemo_used > rp->cmemo_mask + 1 && rp->cmemo_mask + 1 < SCHED_CHAIN_MEMO)
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

/* The request leaves the scheduler for good: drop its kept chain (a
 * pool-sized one back to rp's stack). */
void prefix_chain_drop(const struct sim *s, struct replica *rp, struct req *r)
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
