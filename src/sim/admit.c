/* admit.c - admission: waiting requests taken in queue order (LoRA-aware
 * head) while the seat, token and KV limits and the policy's admit allow,
 * each one's prefix hits looked up in the device cache and the host tier
 * (with the memo of the queue head's hits, so that a head that cannot be
 * admitted is not looked up again at every step) and its first chunk
 * scheduled. */
#include "base/alloc.h"
#include "core.h"
#include "sim/admit.h"
#include "sim/prefix.h"
#include "sim/reqpool.h"
#include "sim/runlist.h"
#include "sim/waitq.h"
#include "sim/winblocks.h"

/* prefix lookups in flight at once: about a memory latency's worth of
 * hashing and probing (measured: `servesim eval` of the inference-perf
 * ground truth, 2 to 8 tried) */
#define SCHED_LOOKAHEAD 4

/* Forget the memo of a waiting request's prefix hits (unwatch its blocks). */
void admit_memo_drop(struct replica *rp)
{
	int32_t b;

	for (b = 0; b < rp->memo_hw; b++)
		kvc_unwatch(&rp->kv, rp->memo_blk[b], b);
	rp->memo_r = NULL;
	rp->memo_h = rp->memo_hw = 0;
}

/* r's admission failed with `hits` prefix hits in memo_blk: watch them, so
 * that the next try learns in O(1) whether they still stand. */
static void prefix_memo_keep(struct replica *rp, struct req *r, int32_t hits)
{
	int32_t b;

	if (rp->memo_r == r)
		return; /* still the kept one */
	admit_memo_drop(rp);
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
static void prefix_admit_defer(const struct sim *s, struct replica *rp, struct req *r, int32_t hits)
{
	reqpool_ids_put(s, rp, r, r->blocks);
	r->blocks = NULL;
	r->computed = 0;
	if (!r->transferred && r->nchain > 0)
		prefix_memo_keep(rp, r, hits);
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
		int32_t blk = kvc_lookup(&rp->kv, prefix_chain_at(s, r, n));
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
		admit_memo_drop(rp);
	/* the table misses the caches: start SCHED_LOOKAHEAD lookups early
	 * (hashing up to that many blocks past the first miss, which the
	 * kept chain would compute later anyway) */
	if (maxb > 0) /* what the lookups below can reach, in one go */
		prefix_chain_at(s, r, (r->preempts > 0 || r->nshare + SCHED_LOOKAHEAD > maxb
					? maxb : r->nshare + SCHED_LOOKAHEAD) - 1);
	/* the blocks the last lookup of the same content found, where they
	 * still hold it: the blocks a lookup would find */
	cm = prefix_chain_memo(s, r);
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
		kvc_prefetch(&rp->kv, prefix_chain_at(s, r, b));
	for (b = b0; b < maxb; b++) {
		int32_t blk;
		if (b + SCHED_LOOKAHEAD < maxb)
			kvc_prefetch(&rp->kv, prefix_chain_at(s, r, b + SCHED_LOOKAHEAD));
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
static int32_t prefix_host_lookup(const struct sim *s, struct replica *rp, struct req *r, int32_t hits)
{
	int64_t maxb = full_blocks(s, req_num_tokens(r) - 1), b;

	if (r->preempts == 0 && maxb > r->nshare)
		maxb = r->nshare;
	for (b = hits; b < maxb; b++)
		if (kvc_lookup(&rp->host, prefix_chain_at(s, r, b)) < 0)
			break;
	return (int32_t)(b - hits);
}

/* KV offload: r was admitted with n blocks from the host tier after its
 * `hits` GPU hits: they become the host's newest (its tail block first,
 * so that the host, like the GPU, evicts a prefix from its end) and are
 * loaded in the step being planned. */
static void prefix_host_take(const struct sim *s, struct replica *rp, struct req *r, int32_t hits, int32_t n)
{
	int32_t b;

	for (b = hits + n - 1; b >= hits; b--)
		kvc_touch(&rp->host, kvc_lookup(&rp->host, prefix_chain_at(s, r, b)));
	rp->host_loads += n;
}

/* LoRA: the adapter of waiting entry q. */
static int32_t wq_lora(const struct wq_ent *q)
{
	return q->r ? q->r->lora : q->a.lora;
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

/* P/D on TensorRT-LLM (sim_cfg.pd.gen_init_step): the first n waiting
 * requests whose KV came from a prefill worker, as one iteration of
 * PyExecutor's loop admits them to generation-init.  The loop checks
 * finished KV receptions before it schedules, schedules the new
 * generation-only requests that fit and only then starts pulling their KV
 * (_prepare_disagg_gen_init: request_and_receive_async, receiver-driven),
 * and runs its step for the others; a request joins a step at the
 * iteration after the one that admitted it (NVIDIA/TensorRT-LLM
 * tensorrt_llm/_torch/pyexecutor/py_executor.py, _executor_loop and
 * _executor_loop_overlap: _check_disagg_gen_transfer_status, _schedule,
 * _prepare_disagg_gen_init; eval/silicon/HARNESS.md, "pdx").  An idle
 * worker's loop spins: there the next iteration follows at once. */
static void gen_init_mark(struct replica *rp, int64_t n)
{
	size_t j;

	for (j = 0; j < rp->wlen && n > 0; j++) {
		struct req *q = rp->wq[(rp->whead + j) & (rp->wcap - 1)].r;
		if (!q || !q->transferred)
			break;
		if (!q->gen_init) {
			q->gen_init = true;
			n--;
		}
	}
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
		r = waitq_front(s, rp);
		if (rp->adp_hold && !r->transferred)
			break; /* the policy's group_gate holds new contexts this step */
		if (r->images > 0 && !r->transferred && !r->mm_done && s->cfg.mm.image_tokens > 0 &&
		    s->cfg.epd.encoders == 0 && !mm_fits(s, rp, r))
			break; /* its images wait for the next step's encoder budget */
		if (r->transferred && !r->gen_init && s->cfg.pd.gen_init_step &&
		    rp->nrun > 0) {
			/* TensorRT-LLM: a busy worker's iteration admits the
			 * requests that fit to generation-init (their KV pull
			 * starts) and runs its step without them; they join
			 * the next (gen_init_mark) */
			gen_init_mark(rp, (int64_t)rp->mns - (int64_t)rp->nrun);
			break;
		}
		bool first = r->sched_ns < 0 && r->preempts == 0;
		struct admit_try t;
		enum admit_verdict v;
		int32_t grow = 0, host = 0;
		uint64_t last;
		r->blocks = reqpool_ids_get(s, rp, r);
		if (r->transferred) { /* P/D: the prompt's KV came with it */
			t.hits = t.evictable = 0;
			last = 0;
			r->computed = r->prompt;
			first = false;
		} else {
			t.hits = prefix_lookup(s, rp, r, &t.evictable, &last);
			/* the host tier's hits count as computed: the policy
			 * sizes the blocks they are loaded into with the chunk's */
			if (rp->kv.lower && (r->preempts > 0 || block_shareable(r, 0)))
				host = prefix_host_lookup(s, rp, r, t.hits);
			r->computed = (int64_t)(t.hits + host) * s->cfg.block_size;
		}
		t.n = chunk_of(s, r, budget);
		t.rem_input = rem_input;
		t.ctx = ctx;
		v = admit(s, rp, r, &t, &grow);
		if (v == ADMIT_WAIT) { /* it waits whole at the head of the queue */
			prefix_admit_defer(s, rp, r, t.hits);
			break;
		}
		if (v == ADMIT_FULL) {
			r->ne_blocks = 0;
			reqpool_ids_put(s, rp, r, r->blocks);
			r->blocks = NULL;
			r->computed = 0;
			if (rp->nrun == 0 && rp->nsched == 0) {
				/* nothing running will ever free memory for it */
				if (rp->memo_r == r)
					admit_memo_drop(rp);
				waitq_pop_front(rp);
				prefix_chain_drop(s, rp, r);
				s->env->reject(s, r, REJ_KV_CAPACITY);
				continue;
			}
			if (!r->transferred && r->nchain > 0)
				prefix_memo_keep(rp, r, t.hits);
			return true;
		}
		if (rp->memo_r == r)
			admit_memo_drop(rp);
		if (t.hits > 0) {
			memcpy(r->blocks, rp->memo_blk, (size_t)t.hits * sizeof(int32_t));
			kvc_acquire_n(&rp->kv, r->blocks, t.hits);
		}
		r->nblocks = r->nhashed = r->nnamed = t.hits;
		r->last_hash = last;
		if (host > 0)
			prefix_host_take(s, rp, r, t.hits, host);
		sched_grow_blocks(s, rp, r, grow);
		if (s->cfg.kv_window.tokens > 0) /* the policy counted them in its verdict */
			winblk_take(s, rp, r, winblk_need(s, r, t.n));
		if (first) {
			r->prefix_hit_tokens = r->computed;
			s->tot.prefix_lookup_tokens += (uint64_t)r->prompt;
			s->tot.prefix_hit_tokens += (uint64_t)r->computed;
			s->tot.host_hit_tokens += (uint64_t)host * (uint64_t)s->cfg.block_size;
		}
		s->tot.host_loaded_blocks += (uint64_t)host;
		waitq_pop_admitted(rp);
		if (r->sched_ns < 0)
			r->sched_ns = s->now;
		runlist_append(rp, r);
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
