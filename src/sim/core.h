/* core.h - the simulator's private core: its records (requests, replicas,
 * the simulation), the step mechanics a scheduling policy works with (the
 * waiting queue, KV blocks, prefix hits, decoders, admission, preemption)
 * and the policy interface itself (struct sched_policy).
 *
 * The files around it, one concept each: engine.c (lifecycle, events,
 * arrivals and completions) with router.c, records.c and summary.c; step.c
 * (the step loop) with the mechanics it and the policies work with:
 * reqpool.c (request records, block-id arrays), waitq.c (the waiting
 * queue), runlist.c (the running list), prefix.c (block hashes, prefix
 * cache lookups), blocks.c (KV blocks), winblocks.c (a hybrid pool's
 * sliding-window blocks), decoders.c, admit.c (admission) and
 * abort.c.  engine.c drives the step loop through the sched_* functions and
 * hands it a struct sched_env for what it must ask back; the step loop never
 * names an engine.c function.  A policy (an engine's scheduler: src/engine/vllm.c,
 * sglang.c, trtllm.c) is called by the step loop through sim_cfg.policy and
 * calls the mechanics declared here; the simulator names no policy.  Only
 * src/sim/ and the policies include this header. */
#ifndef SERVESIM_SIM_CORE_H
#define SERVESIM_SIM_CORE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/alloc.h"
#include "sim/evq.h"
#include "sim/kvcache.h"
#include "sim/loadtree.h"
#include "sim/sim.h"
#include "base/loghist.h"
#include "hw/power.h"
#include "base/wdist.h"
#include "sim/sinkq.h"

struct cost_lora;
#include "stepmemo.h"


#define REQ_HOT_BYTES 72
/* A request's record.  Its first REQ_HOT_BYTES are what a step reads and
 * writes of each running request (finish_rank's and spec_walk's walks, a
 * scheduler's walk of the others): two cache lines of a record, which the
 * walks ask for some requests ahead (the records lie scattered over the
 * slabs: with thousands running, a walk reading four or five lines of
 * each missed the caches at every record). */
struct req {
	int64_t prompt, output;
	int64_t computed, generated, step_tokens;  /* valid unless `dec` (see below) */
	int64_t last_ns;
	int32_t nblocks, nhashed;
	int32_t nnamed;  /* blocks[0, nnamed) are named; the rest of the nblocks anonymous */
	int32_t dsteps;  /* decode steps (tokens per step = (output - 1) / dsteps) */
	int32_t ngaps;   /* the gaps it gave as an explicit request (tok_ns) */
	/* P/D, pd.first not at the hand-off: its first token waits for the
	 * decode worker's first step for it (pd_first); SIM_PD_FIRST_DECODE_STEP:
	 * it came with its second (pd_merged, below: one chunk fewer) */
	bool pd_first;
	bool done, scheduled;
	bool dec; /* a steady decoder (see dG0 below) */
	bool spath; /* a lazy verifier (specpath.h): dG0, dc0, dg0 its join's */
	/* (what admission, completion and the slower paths read) */
	int64_t id, arrival_ns, prefix_tokens, prefix_group, content_id;
	int64_t first_ns, sched_ns;
	int64_t prefix_hit_tokens;
	uint64_t last_hash;
	int32_t preempts;
	int32_t ne_blocks; /* blocks a policy reserves for it while it runs (TensorRT-LLM's no-evict) */
	bool pd_merged;    /* (see pd_first) */
	/* pooled token gaps (sim.h): its last chunk's client time once
	 * delivered (not kept while a decoder: the replica's tok_t is), and
	 * the gaps it gave as an explicit request */
	int64_t tok_ns;
	bool transferred;  /* P/D: its prompt's KV arrived from a prefill worker */
	bool gen_init;     /* P/D, sim_cfg.pd.gen_init_step: admitted to generation-init (admit.c) */
	int64_t xfer_ns;   /* P/D: KV transfer time */
	int32_t nshare;  /* leading blocks whose content others can share */
	int32_t *blocks;
	/* content-chain hashes of blocks [0, nchain), computed once as they
	 * are first needed and kept across preemptions (vLLM's
	 * request.block_hashes); NULL for a request without named blocks */
	uint64_t *chain;
	int32_t nchain, chain_cap;
	int stage, replica;
	int32_t turn;    /* sessions: its turn (wl_req.turn; 0: none) */
	const int64_t *keys; /* its prompt's block contents (wl_req.keys) */
	int32_t nkeys;
	int32_t lora;    /* its LoRA adapter (wl_req.lora; 0: the base model) */
	/* images (wl_req.images, image_id, image_new), and whether they were
	 * looked up in the encoder cache and encoded (sim/mm.c) since it was
	 * last admitted */
	int32_t images;
	bool mm_done;
	int64_t image_id;
	uint64_t image_new;
	bool inflight;   /* PP: in a batch still in the pipeline */
	bool first_pending, done_pending; /* delivery waits for the next step's end */
	/* live use (sim_abort): its client went away while it ran or was in
	 * transfer; it leaves at its engine's next step end (engine.c
	 * kv_arrive for a transfer) unless that step finishes it */
	bool aborting;
	uint8_t aclass;  /* its block-id array's size class + 1 (reqpool.c array_class), 0 before */
	uint64_t rseq;   /* position in running order (admission sequence) */
	/* running list, in admission order (vLLM's `running`) */
	struct req *prev, *next;
	/* steady decode ("decoder"): computed = dc0 + (G - dG0), generated =
	 * dg0 + (G - dG0) at replica step count G; grouped by class
	 * (dc0 - dG0) mod block_size, the steps at which it needs a block
	 * (dec, above) */
	/* a lean decoder: every block it will take is anonymous and every
	 * named one it holds is registered, so its blocks are only counted
	 * (cls_lean) and nblocks/nhashed are derived when it leaves; not on
	 * its class list */
	bool lean;
	int64_t dG0, dc0, dg0;
	/* a lazy verifier (spath; never a lazy decoder, whose fields these
	 * share): the blocks it holds at its end and the spec stream's state
	 * at its join (its path's draws follow from it); nblocks and nhashed
	 * stay its join's while it is one, heap_fin is its completion step */
	union {
		int32_t cls;
		int32_t sp_nb;
	};
	uint32_t epoch;  /* of its live heap entry; older entries are stale */
	bool heaped;     /* that entry is still in the heap, at step heap_fin */
	int64_t heap_fin;
	union {
		struct req *cprev;
		uint64_t sp_state;
	};
	struct req *cnext;
	int32_t dk_ix;   /* policy.decoder_keys: its slot in the replica's dk */
	int32_t nwin;    /* sliding-window blocks it holds (sim_cfg.kv_window, winblocks.h) */
	struct req *next_free;
};
_Static_assert(offsetof(struct req, dec) < REQ_HOT_BYTES, "a step's fields of a request in its first two lines");

/* A waiting request: its record (preempted, transferred, or looked at
 * already at the head of the queue), or, r NULL, only its arrival (request
 * id, the workload's record of it): a queued arrival costs 112 bytes, not
 * a whole record.  An entry with a record leaves id and a as they were. */
struct wq_ent {
	struct req *r;
	int64_t id;
	struct wl_req a;
};

/* The lazy verifiers' rarer terms of one step (specpath.h): the changes of
 * their count and context sum as it starts (joins, completions), and the
 * corrections of its steps that verify fewer than K drafts (near a
 * request's end): query tokens and decode_ctx_sum against K + 1 each,
 * steps without a draft. */
struct spath_rare {
	int64_t dC, cctx;
	int32_t dn, ctok, nq1, pad;
};

/* A run: SPATH_RUN verifying steps of K + 1 tokens each (SPATH_RUN1 where
 * K = 1) drawn with one 32-bit draw (specpath.c): the joint outcome of
 * their accepted counts (at most (3 + 1)^4 = 2^8 = SPATH_CELLS of them)
 * through an alias table of SPATH_CELLS cells: cell i = u >> 24 keeps its
 * own outcome when its low 24 bits are below the cell's cut (of 2^24), its
 * alias's otherwise; thr = i x 2^24 + cut (mod 2^32: a full cell, cut 2^24,
 * is its own alias, so whatever u < thr says it keeps i) makes the test
 * u < thr. */
#define SPATH_RUN 4
#define SPATH_RUN1 8
#define SPATH_RUN_MAX 8
#define SPATH_CELLS 256
struct spath_cell {
	uint32_t thr, alias;
};
/* One outcome of a run: its accepted counts as the uint16 lanes of the
 * ring's slots, four a word (acc[0] slots 0-3, acc[1] 4-7: memcpy of
 * uint16_t[4], added as a word: each lane stays in [0, 2^16),
 * spath_applies, so no carry crosses), the context's advance over the
 * whole run (adv) and before its steps 1.. (p[j - 1] = j + the counts
 * before step j). */
struct spath_tuple {
	uint64_t acc[SPATH_RUN_MAX / 4];
	int32_t adv, p[SPATH_RUN_MAX - 1];
};

/* Where a run grows a block: by the tokens lim = (nb + 1) x bs - ce left
 * below the next block's end as it starts (ce: its first step's context
 * plus K + 1 plus bs - 1, nb the blocks held), for lim in [-K, bs - 1]
 * (li = lim + K, SPATH_XW at most): the low 4 bits 0 none, 1 + j at its
 * step j, the rest the next run's li (lim + bs if it crossed, less the
 * run's advance: again in [-K, bs - 1]).  With blocks of at least a run's
 * steps x (K + 1) tokens a run crosses at most one block's end. */
#define SPATH_XW 72

/* A run's outcome as runs_add takes it, one load from its draw u: pick[2 i
 * + (u >= cell[i].thr)] for cell i = u >> 24 is the outcome
 * spath_run_draw returns (the cell's own, or its alias), with its counts'
 * words (tup's acc), its advance, its row of the crossings (its index x
 * xw) and its index (32 bytes: the index a shift). */
struct spath_pick {
	uint64_t acc[SPATH_RUN_MAX / 4];
	int32_t adv;
	uint32_t xrow, oi, pad;
};

/* The accepted count's thresholds on a 32-bit draw (specpath.c):
 * a = #{j < k : u < ge[j]}, ge[j] = P(a >= j + 1) x 2^32; the runs'
 * tables for steps of rk drafts (rk 0: no runs: more than 3 thresholds),
 * rl steps a run (SPATH_RUN1 where rk = 1, else SPATH_RUN), and the
 * crossings' (xw 0: none, blocks too small or too large), the ring's need
 * word of each crossing (nadd, added at slot noff of the run's), and the
 * outcomes by draw (pick). */
struct spath_draws {
	uint64_t ge[SPEC_MAX_TOKENS];
	int k, rk, rl, xw;
	struct spath_cell cell[SPATH_CELLS];
	struct spath_tuple tup[SPATH_CELLS];
	uint64_t nadd[SPATH_RUN_MAX + 1];
	uint8_t noff[SPATH_RUN_MAX + 1];
	uint16_t cross[SPATH_CELLS * SPATH_XW];
	struct spath_pick pick[2 * SPATH_CELLS];
};

struct fin_entry {
	int64_t fin_G;   /* replica step count at which the decoder completes */
	uint64_t rseq;   /* running-order tie-break */
	uint32_t epoch;
	struct req *r;
};

/* The most joins a step's end has its ring buckets fetched for (step.c
 * join_note). */
#define SCHED_JOIN_NOTES 4

/* Size classes of the block-id arrays: 16 << c ids, c < this (2^24 tokens
 * in one-token pages is the most a request can hold: WL_MAX_TOKENS). */
#define SCHED_ARRAY_CLASSES 22

struct replica {
	/* (records on whole cache lines, so that the step's fields below
	 * take the same few lines in every replica: engine.c allocates them
	 * aligned) */
	_Alignas(64) struct kvc kv;
	/* sim_cfg.cold_start_s: the last step priced held a prefill chunk;
	 * the one-time stall is behind it */
	bool cold_last_prefill, cold_paid;
	/* the JIT cache keys of aiter's Triton GEMM met (cost_tbs_jit_key;
	 * NULL: its cost model compiles nothing at run time), their count,
	 * and whether the client's warm-up has been marked */
	uint8_t *jit_seen;
	struct req *run_head, *run_tail;   /* running list */
	size_t nrun;
	/* the least-loaded router's mark of this rank (sim.ltree): set when
	 * nrun, wlen or ninbox moves (rank_load_moved); NULL: no tree */
	uint64_t *ldirty, lbit;
	/* changed (counted up) whenever a request joins or leaves the
	 * running list: a policy's copy of the list in running order is good
	 * while it holds the value it was taken at (sglang.c collect_running) */
	uint64_t run_ver;
	int64_t ne_reserved;               /* sum of the running ne_blocks */
	struct wq_ent *wq;                 /* waiting: ring-buffer deque */
	size_t whead, wlen, wcap;
	/* sim_cfg.recv_interval > 1: arrivals the scheduler has not polled
	 * yet (in arrival order), and the poll counter (sglang.c) */
	struct wq_ent *inbox;
	size_t ninbox, inbox_cap;
	int64_t recv_ct;
	bool recv_gate;                    /* recv_interval > 1 */
	/* the policy's group_gate: new context requests held this step, and
	 * (on the group's first rank) its counters of steps held */
	bool adp_hold;
	struct req **sched;                /* explicit requests scheduled this step */
	size_t nsched, sched_cap;
	struct req **others;               /* running requests that are not decoders */
	size_t nothers, others_cap;
	int64_t *chunk_len, *chunk_prefix;
	size_t chunk_cap;                  /* their room (>= 1) */
	bool busy, kick_pending, fallback;
	int32_t naborting;                 /* its running requests marked aborting */
	bool active;                       /* lockstep: has a real step (else dummy) */
	/* lockstep: its step that ended was finished as decode_steps does,
	 * decoders alone (step.c finish_step), so its plan may be too */
	bool quick;
	/* lockstep: its planned step is priced only if it is the slowest of
	 * its kind in the group step (step.c group_top) */
	bool top;
	int8_t top_kind;                   /* its kind there */
	const struct cost_model *cost;     /* its pool's cost model */
	int64_t mbt, mns;                  /* its pool's engine limits */
	bool prefill_only;                 /* P/D prefill worker */
	/* pipeline parallelism (vLLM V1's batch queue): up to pp batches in
	 * flight; a new one may enter when the first stage is free */
	int pp, npipe;
	bool ahead_valid, ahead_used;
	uint64_t ahead_ver;                /* run_ver as finish_rank returned (SGLang's use) */
	/* the policy scheduled every one of the others in running order,
	 * then its admissions (sched and others the same list) */
	bool sched_others;
	int64_t step_dur_ns;
	/* its decode-only steps' prices, and with attention DP their parts
	 * without the group's MoE layers (cost_step_local_s): its pool's
	 * memos (struct sim's memo), one
	 * per cost model, so that ranks and replicas with the same batch
	 * share one price and the memory does not grow with them */
	struct stepmemo *prices;
	/* where its last lookup in the first two went: the same decoders a
	 * step later take the next slot (stepmemo_get); NULL with
	 * speculative decoding, whose accepted drafts move a lane by a drawn
	 * number of slots (the cursor's upkeep cost more than it saved) */
	struct stepmemo_lane lanes[2], *lane_price;
	/* its GPUs' power model (board_w 0: no figure) and GPU count (tp x pp
	 * of its cost model): the energy of its steps (account_step), metered
	 * when it has a figure and the caller reads it (sim_cfg.no_energy) */
	struct power_model power;
	double gpus;
	bool metered;
	/* lazy decoders */
	int64_t G;                         /* steps completed */
	/* may its steady decoders be lazy (the policy's lazy, no speculative
	 * decoding, no PP, sim_cfg.no_lazy_decoders off); set at start-up */
	bool lazy;
	/* may it take steps in segments at all (no speculative decoding, no
	 * PP, sim_cfg.no_segments and check_invariants off: step.c
	 * steady_decode's fixed part); set at start-up */
	bool seg_ok;
	void *pstate;                      /* the policy's own state (replica_init) */
	int64_t ndec, dec_base_sum;        /* count, sum of (dc0 - dG0) */
	struct req **cls_head;             /* [block_size] */
	int64_t *cls_count;                /* decoders per class, lean ones included */
	int64_t *cls_lean;                 /* lean decoders per class */
	struct fin_entry *heap;
	size_t nheap, heap_cap;
	/* completions due within SCHED_FIN_RING steps (decoders.c), by step
	 * count modulo the ring (grown to the farthest one queued); later
	 * ones wait in the heap */
	struct fin_bucket {
		struct fin_entry *e;
		uint32_t n, cap; /* (16 bytes: four buckets a line, none across two) */
	} *ring;
	uint32_t ring_mask;                /* its size - 1 (decoders.c ring_grow) */
	/* the completion steps of the requests of the step queued that will
	 * join the decoders as it ends (step.c join_note): their ring buckets
	 * fetched into the cache before the step's end pushes to them */
	int64_t join_fin[SCHED_JOIN_NOTES];
	int njoin_fin;
	uint64_t next_rseq;
	uint64_t dec_max_rseq;             /* upper bound of decoders' rseq */
	struct req **done;                 /* completions of the step being finished */
	size_t done_cap;
	/* client delivery (H2): tokens of the last finished step reach the
	 * client a fraction of the next step later */
	struct req **pend;
	size_t npend, pend_cap;
	int64_t pend_t0;                   /* end of the step that produced them */
	/* TensorRT-LLM's overlap scheduler (cost eager_s > 0): the host time
	 * spent launching the running step (eager_s when it holds prefill
	 * chunks, else 0: a CUDA-graph replay), and that of the step whose
	 * tokens are pending with its duration */
	double step_host_s, pend_host_s;
	int64_t pend_dur_ns;
	/* pooled token gaps (sim.h, engine.c's sim_summary): the last
	 * finished step's chunks are not delivered yet (tok_open); tok_t is
	 * the client time of the decoders' last delivered step.  A step's decoders
	 * each saw one gap of the same length: counted by stage (dstage's
	 * lazy, from its dec, the decoders by stage); the explicit requests'
	 * chunks wait in gapq for their delivery time */
	bool tok_open;
	bool no_gaps;                      /* sim_cfg.no_pooled_gaps: gapq stays empty */
	/* the decoders make a token in every step, or, with a policy of
	 * split_batches (SGLang's), in its decode batches only: dec_run says
	 * whether they do in the step planned (then finishing), pend_dec
	 * whether they did in the step whose tokens are pending; tok_t is then
	 * the client time of the last delivered step in which they did
	 * (without split batches: of the last step) */
	bool dec_run, pend_dec;
	int64_t tok_t;
	int dec_stage_hi;                  /* stages below it may have decoders */
	struct gap_ent {
		struct req *r;
		int64_t id;                /* r is still that request (records are reused) */
		int32_t k;                 /* tokens in the chunk */
		uint8_t kind;              /* enum gap_kind (below) */
	} *gapq;
	size_t ngapq, gapq_cap;
	/* speculative decoding: the decoding requests that draft after the
	 * step and their contexts, summed; the others (plan_ahead, below)
	 * that grow blocks, in order (both counts set at every step) */
	int64_t spec_n;                    /* decoding requests that draft after the step */
	double spec_ctx;                   /* their contexts, summed */
	struct req **growers;              /* those of them that grow blocks, in order */
	size_t ngrowers, growers_cap;
	/* images (sim_cfg.mm; sim/mm.c): the images the step being planned
	 * encodes (first: a step reads it, the rest only runs with images),
	 * the encoder cache (the image numbers it holds, each with its last
	 * use, at most cap), the encoder budget of a step (tokens), and the
	 * encoder's seconds for n images in one call (enc_s[n], n <= enc_n;
	 * NAN until priced) */
	struct mm_rep {
		int32_t pending;
		int64_t *ids, *used;
		size_t n, cap;
		int64_t clock, budget;
		double *enc_s;
		size_t enc_n;
	} mm;
	/* (the fields above are those a step reads or writes, most of them
	 * at every step, then the lazy verifiers' (their count, idem), the stages' counts
	 * (stage 0's at every step); below them, what only some
	 * configurations or some requests touch: at DP 64 a rank's step end
	 * runs with its record out of the first-level cache, and the fewer
	 * lines its step's fields span, the fewer it misses:
	 * docs/performance.md, "chat5") */
	/* lazy verifiers (specpath.h): may they join (set at start-up), how
	 * many run, their count and summed contexts at the next step, and
	 * per coming step (rings by step count, sp_mask + 1 slots, grown to
	 * the farthest completion) the drafts they accept and the blocks they
	 * grow (apart, 16 bits a slot: a join adds a run's four counts as a
	 * word, its blocks as another) and the rarer terms; sp_K sums their output - dg0 + dc0 (less sp_C: their tokens
	 * left, SGLang's reservation); sp_hold: SGLang made them explicit once,
	 * none joins again (sglang.c) */
	bool spath_on, sp_hold;
	int64_t nspath, sp_n, sp_C, sp_K;
	uint16_t *sp_acc, *sp_need;
	struct spath_rare *sp_rare;
	uint32_t sp_mask;
	/* the decoders by stage (dec) and their gaps counted by stage (lazy;
	 * above: tok_open), side by side: a step reads stage 0's two, one line */
	struct dec_stage_n {
		int32_t dec, lazy;
	} dstage[256];
	/* (moved out of the step's lines, docs/performance.md "dp64c": what
	 * only some configurations touch) KV offload (sim_cfg.offload): the
	 * host tier below kv (kv.lower: set exactly when host.total > 0, which
	 * the step reads there), the blocks loaded from it for the step being
	 * planned, and host.stored when the last step was priced */
	struct kvc host;
	int64_t host_loads;
	uint64_t host_stored_seen;
	/* aiter's JIT keys (jit_seen above): their count, and whether the
	 * client's warm-up has been marked */
	int64_t jit_nkeys;
	bool jit_warmed;
	/* the policy's group_gate (adp_hold above): on the group's first
	 * rank its counters of steps held; sim_cfg.batch_wait_iters: steps
	 * that held contexts */
	int64_t adp_wait, adp_batch;
	int64_t bw_count;
	/* cost_local_rise_range of its last decode-only step's cost model
	 * and decoders, cost_draft_rise_range of its last drafting's (c NULL:
	 * none yet) */
	struct sched_rise {
		const struct cost_model *c;
		int64_t n;
		double lo, hi;
	} rise, drise;
	/* pipeline parallelism (pp, npipe above): the batches in flight */
	struct pp_batch {
		struct req **reqs;
		size_t n, cap;
		bool used;
	} *pipe;
	/* with speculative decoding: the drafting's prices (sim_memo.draft);
	 * attention DP: the MoE part's memo and lane (lanes[1]), and its next
	 * lookups in moe_memo and drafts, located (and fetched) as the
	 * group's ranks are planned, before they are priced (step.c
	 * group_memo_ahead) */
	struct stepmemo *moe_memo, *drafts;
	struct stepmemo_lane *lane_moe;
	struct stepmemo_at at_moe, at_draft;
	/* LoRA (sim_cfg.lora; sim/lora.c): running requests per adapter id
	 * (run[0 .. cap)), the distinct adapters they hold (as the limit
	 * counts them) and those other than the base model, each adapter's last use while in a GPU slot / in host
	 * memory (0: not there) and the counts there, the load seconds of the
	 * step being planned, whether its admissions skipped a request for the
	 * limit, the targeted projections of its layout and the seconds one
	 * adapter takes host -> GPU and disk -> host */
	struct lora_rep {
		int32_t *run;
		int64_t *gpu_t, *cpu_t;
		size_t cap;
		int32_t distinct, adapters, ngpu;
		int64_t ncpu, stamp;
		double pending_s, gpu_s, disk_s;
		bool limited;
		struct cost_lora *proj;
	} lora;
	/* free block-id arrays by size class (reqpool.c reqpool_ids_get: class c
	 * holds 16 << c ids, the last max_blocks_per_req) */
	int32_t **arrays[SCHED_ARRAY_CLASSES];
	size_t narrays[SCHED_ARRAY_CLASSES], arrays_cap[SCHED_ARRAY_CLASSES];
	uint64_t **chains;                 /* free hash-chain arrays (prefix.c, prefix_chain_grow) */
	size_t nchains, chains_cap;
	struct step_desc desc;             /* lockstep: this rank's step */
	/* speculative decoding: the next step's plan of rp->others, summed by
	 * finish_rank as it walks them (step.c, plan_ahead), so that the
	 * policy and plan_step need not walk them again; valid from
	 * finish_rank to the next plan_step, used (ahead_used) when the
	 * policy scheduled every one of them in order with its chunk_of */
	struct plan_ahead {
		int64_t n;                 /* the others summed, rp->others[0, n) */
		int64_t tokens, need;      /* chunk_of's tokens, blocks to grow */
		int64_t ctx, spec_ctx;     /* decode_ctx_sum's and spec_ctx's parts */
	} ahead;
	/* policy.decoder_keys: each decoder's output - dg0 + dG0 (its tokens
	 * left are that - G), unordered, so that a reservation of the running
	 * requests' future tokens reads a dense array rather than every
	 * running record */
	struct dk_ent {
		int64_t k;
		struct req *r;
	} *dk;
	size_t ndk, dk_cap;
	int64_t dk_sum;                    /* of their k */
	/* the buckets' first arrays (decoders.c bucket_slot): carved from
	 * chunks freed with the replica, and those outgrown kept for the next
	 * new bucket, rather than a malloc and a free each (1,024 buckets a
	 * rank: 65,536 of each at DP 64) */
	struct fin_pool {
		void **chunks;
		size_t nchunks, chunks_cap;
		struct fin_entry *next;    /* the last chunk's unused arrays */
		size_t left;
		struct fin_entry **spare;  /* outgrown first arrays */
		size_t nspare, spare_cap;
	} fin_pool;
	/* the prefix hits of the waiting request memo_r, whose admission
	 * failed: blocks memo_blk[0, memo_h) (watched in kv), memo_e0[i] of
	 * the first i of them evictable; valid while kv's watch says nothing
	 * changed (prefix.c, prefix_lookup) */
	struct req *memo_r;
	int32_t memo_h, memo_hw;           /* hits; positions watched */
	int32_t *memo_blk, *memo_e0;       /* [memo_cap], [memo_cap + 1] */
	int64_t memo_cap;
	uint64_t memo_reg;                 /* kv.registered when taken */
	/* the shareable part of recent requests' block-hash chains, by
	 * content (prefix.c, prefix_chain_grow): a repeated prompt is hashed once;
	 * hint[b] is the cached block a lookup last found holding block b
	 * (or -1), checked against its hash before use (prefix_lookup) */
	struct chain_memo {
		int64_t content_id, prefix_group, prefix_tokens;
		uint64_t *chain;           /* [n]: blocks [0, n) */
		int32_t *hint;             /* [n] */
		int32_t n, cap;
	} *cmemo;                          /* [cmemo_mask + 1] or NULL */
	uint32_t cmemo_mask;               /* slots - 1 (prefix.c cmemo_grow) */
	uint32_t cmemo_used;               /* slots holding a chain */
	int64_t cmemo_blocks;              /* capacity of their chains, in all */
	/* its decode steps' work for the energy meter, kept (meter_step; last:
	 * the other fields' offsets as before) */
	struct cost_work_dec meter_w;
};

/* Step-price memos (sim.h sim_memo): per cost model, [1] the P/D
 * prefill workers', [0] every other rank's. */
struct sim_memo {
	/* decode-only step prices (stepmemo.h); [.][1] an attention-DP
	 * rank's part without the MoE layers (step.c rank_cost) */
	struct stepmemo step[2][2];
	/* speculative decoding: the drafting that follows a step (spec.c
	 * spec_draft_s, a pure function of the cost model, the spec settings,
	 * the drafting requests and their summed contexts), by those two, the
	 * same key as a decode step's: the draft pass cost as much as the
	 * verification step's own part and missed as often (step.c
	 * rank_cost) */
	struct stepmemo draft[2];
	/* attention DP: the price of an idle rank's dummy step by the group's
	 * MoE tokens (its only variable; made at first use, step.c
	 * idle_cost) */
	struct dmemo idle[2];
	/* speculative decoding's joint-run tables (specpath.c, ~66 KB and
	 * ~165,000 instructions to make), a pure function of spath_key: made
	 * by the first sim and read by the ones after it (NULL: none yet) */
	struct spath_draws *spath;
	struct spath_key {
		int k, nrates;
		double rate[SPEC_MAX_TOKENS];
		int64_t kq, bs;
	} spath_key;
};

struct sim {
	struct sim_cfg cfg;
	const struct sched_env *env;
	const struct cost_model *cost;
	const struct wl_spec *wl;
	struct wl_gen *gen;
	struct evq q;
	int64_t now;
	struct replica *reps;
	int nrep;
	struct req *free_reqs;
	struct req **slabs;
	size_t nslabs, slabs_cap;
	/* one long simulation in the process (sim_new: sim_cfg.arrival_thread
	 * and enough requests): its heap on huge pages (alloc.h xheap_huge),
	 * and the large arrays its other threads allocate advised too */
	bool huge;
	/* the next open-loop arrival (has_next): an event kept beside the
	 * queue rather than in it, with the sequence number its push would
	 * have taken (engine.c, sim_step), so that it orders as it would */
	struct wl_req next;
	uint64_t next_seq;
	bool has_next, closed;
	/* the arrivals' producer thread (sim_cfg.arrival_thread), which owns
	 * gen once started (arrq.h), or NULL; arrq_ok: start it at sim_run */
	struct arrq *arrq;
	bool arrq_ok;
	/* the pooled gaps' and the energy meter's consumer thread, started
	 * with arrq (sinkq.h): while sinkq is not NULL the step loop appends
	 * to sinkw what it would add to gapd and tot.energy_dyn_j */
	struct sinkq *sinkq;
	struct sinkq_w sinkw;
	/* the energy meter's MoE share of the last group's MoE tokens, kept
	 * for its ranks (cost_work_of; zeroed with the sim: none) */
	struct cost_work_moe meter_moe;
	uint64_t sink_words; /* words its consumers applied, in all (tests) */
	/* the records (records.c: completions kept, arrivals for the
	 * sustainability test) go to sinkq too: nobody reads a row as it is
	 * kept (no requests_out, on_request, kept client times, sessions) */
	bool sink_recs, sink_recs_used; /* (used: they went there at some time; tests) */
	/* routing (engine.c): ranks per replica (pd.prefill + dp); the
	 * round-robin counters, of the replicas and, [replicas], of the ranks
	 * inside each; the kv-aware router's tie draws (stream 12) and the
	 * arrival's content chain it looks up (grown to the longest) */
	int per, nreplicas;
	/* enough ranks (SIM_PREFETCH_RANKS) that a rank's records leave the
	 * cache between two of its steps: what a step end reads is fetched
	 * ahead (step.c step_end_prefetch); the sequence number of the
	 * queued step end last fetched as the next event (engine.c sim_step:
	 * not again while it stays next, as across arrivals) */
	bool step_prefetch;
	uint64_t prefetched_seq;
	struct epd *epd;   /* E/P/D: the encoder pools (sim/epd.c), or NULL */
	struct apiq *apiq; /* the API server's intake (sim/apiq.c), or NULL */
	/* autoscaling (sim_set_routable): arrivals go to the nroute replicas
	 * route_ix lists (NULL: to every one, nroute = nreplicas) */
	int nroute;
	int *route_ix;
	/* the share of the pool's GPU time its GPUs were held (autoscaling;
	 * 0: all of it): what the idle draw of the energy summary counts */
	double provisioned_share;
	uint64_t rr;
	uint64_t *rr_in;
	uint64_t *rr_dec; /* P/D: each deployment's next decode worker (router_decode_rank) */
	/* the least-loaded router's tree over the ranks (sim/loadtree.h;
	 * ltree.n 0: none, the router scans) */
	struct loadtree ltree;
	struct pcg32 route_rng;
	struct pcg32 room_rng;   /* P/D prefill ranks drawn at random (sim_cfg.pd.prefill_rank_random) */
	uint64_t *route_chain;
	size_t route_chain_cap;
	int32_t max_blocks_per_req;
	/* log2(block_size) + 1 when block_size is a power of two, else 0
	 * (set by sched_replica_init): block arithmetic by shifts and masks */
	int bs_log2p1;
	/* its step-price memos: own_memo, or the caller's (sim_cfg.memo) */
	struct sim_memo *memo, own_memo;
	/* (from here to agg, and arr_s to flow_off, the records' fields: the
	 * sinks' consumer writes them while sink_recs; on lines of their own) */
	char rec_pad0[64];
	float *ttft, *itl, *tpot, *e2e, *queue;
	uint8_t *stage;
	int32_t *rec_id; /* request id, -1 past INT32_MAX (sim_per_request) */
	size_t nrec, cap_rec;
	/* the requests the workload is expected to bring (0: not known): the
	 * record and arrival arrays take room for them at their first use,
	 * rather than doubling from 4,096 on the consumer's thread (each
	 * doubling copied the arrays and unmapped the old ones while the
	 * step loop waited on the full sink ring) */
	size_t rec_hint;
	/* past LOGHIST_EXACT_MAX completions (unless cfg.exact_percentiles)
	 * the five arrays above are folded into histograms, [stage * 5 +
	 * metric], and later completions go there only; else NULL */
	struct loghist *hist;
	/* per-stage sums for throughput (stage index capped at 255 like
	 * stage[]): 25 bytes per completed request in all */
	struct stage_agg {
		int64_t completed, first_arr_ns, last_done_ns;
		double in_tok, out_tok;
		double gap_ms, gaps;   /* sum(E2E - TTFT), sum(output - 1) */
		int64_t last_arr_ns;
		/* engine-side, summed over the completed requests (ms): waiting
		 * (arrival to first scheduled) and running (first scheduled to
		 * last token); metric_set's load terms */
		double wait_ms, run_ms;
	} agg[256];
	char rec_pad1[64];
	struct sim_totals tot;
	int nstages;
	/* summaries already computed, [stage + 1] (0: all), valid while
	 * tot.events is sum_events: each metric sorted once */
	struct metric_set *sum;
	bool *sum_ok;
	size_t nsum;
	uint64_t sum_events;
	/* pooled token gaps by stage (capped at 255 like stage[]), every
	 * chunk after a request's first: sim.h's itl_pooled_ms */
	struct wdist *gapd;
	struct pcg32 spec_rng;             /* acceptance draws (stream 11) */
	struct spec_draws spec_draws;      /* cfg.spec's acceptance as thresholds */
	/* the same as one draw's (specpath.c): its memo's, or own_spath
	 * where the memo holds another key's */
	const struct spath_draws *spath_draws;
	struct spath_draws *own_spath;
	struct req **xfer;                 /* P/D: requests in transfer, by event slot */
	size_t nxfer, xfer_cap;
	int32_t *xfer_free;                /* free slots */
	size_t nxfer_free, xfer_free_cap;
	/* sim_keep_client_times: each record's first- and last-token times
	 * after arrival (ns) and output tokens (sim_reprice_api); NULL once
	 * the records are folded into histograms */
	int64_t *raw_first, *raw_last, *raw_out;
	bool keep_raw;
	/* sessions: the turns released and not arrived yet, by event slot
	 * (EV_TURN), and the free slots; the completed turns' figures by turn
	 * index (SIM_TURN_ROWS rows, the last for it and every later turn;
	 * NULL before the first) */
	struct wl_req *later;
	size_t nlater, later_cap;
	int32_t *later_free;
	size_t nlater_free, later_free_cap;
	struct turn_agg {
		struct loghist ttft;
		uint64_t completed;
		double prompt, hit;
	} *turns;
	char rec_pad2[64];
	/* the sustainability test's data (sim.h sim_flow_kind; flow.c): each
	 * arrival's time (s) by request id (narr of cap_arr) while kept, then the
	 * per-stage sketches (WL_MAX_STAGES of them; NULL before); flow_off:
	 * nothing to judge, nothing kept */
	double *arr_s;
	size_t narr, cap_arr;
	/* beside arr_s where flow_byid: each request's client-side TTFT and
	 * E2E (ms, as the records keep them; NAN until it completes) by
	 * request id, set as it is kept (on the sinks' consumer where records
	 * go there), so that the test reads them in arrival order without a
	 * pass of its own over the records (sim_flow_values) */
	float *arr_ttft, *arr_e2e;
	bool flow_byid;
	struct sim_flow *flow;
	bool flow_off;
};

/* What the scheduler asks of the engine, through the table engine.c
 * passes down in struct sim (the scheduler never names an engine.c
 * function: calls run one way, engine -> scheduler). */
struct sched_env {
	/* r can never run: count it, report it, release it */
	void (*reject)(struct sim *s, struct req *r, enum reject_reason why);
	/* r's last token reached its client at t_ns: record and release it;
	 * a closed-loop client then sends its next request unless `next` is
	 * false (an earlier error).  Returns <0 on error. */
	int (*complete)(struct sim *s, struct req *r, int64_t t_ns, bool next, struct err *e);
	/* P/D: r finished its prefill on a prefill worker; its KV travels to
	 * the decode pool (an EV_KV_ARRIVE after the transfer time) */
	void (*handoff)(struct sim *s, struct req *r);
	/* live use: r's client went away; r holds no blocks and is in no
	 * list: count it, report it, release it */
	void (*abort)(struct sim *s, struct req *r);
};

/* --- the scheduling policy --- */

/* One waiting request's admission as sched_admit tries it: its chunk this
 * step (n tokens, chunk_of of the budget left), its prefix hits (cached
 * blocks, evictable of them unreferenced), what is left of the batch's
 * prompt-token cap (INT64_MAX: none) and the policy's state for the round
 * (sched_admit's ctx). */
struct admit_try {
	int64_t n, rem_input;
	int32_t hits, evictable;
	void *ctx;
};

/* A policy's verdict on one admission: admitted (its blocks grown by
 * *grow), waiting whole at the head of the queue (the round's admissions
 * stop), or no room (they stop; a request that nothing running can ever
 * make room for is rejected). */
enum admit_verdict { ADMIT_GO, ADMIT_WAIT, ADMIT_FULL };

/* A scheduler: how an engine picks each step's batch and whom it admits,
 * over the mechanics below.  Each engine's file holds its own
 * (src/engine/<name>.c); sim_cfg.policy names the one a simulation runs. */
struct sched_policy {
	/* plan replica rp's next step: the requests it runs put in rp->sched
	 * (sched_push) with their blocks, preemptions and admissions done;
	 * with split_batches, rp->dec_run says whether the decoders run */
	void (*schedule)(struct sim *s, struct replica *rp);
	/* admit waiting request r (sched_admit) or not, as the engine does */
	enum admit_verdict (*admit)(struct sim *s, struct replica *rp, struct req *r, const struct admit_try *t,
				    int32_t *grow);
	/* prefill and decode batches apart: the decoders advance only in the
	 * steps that set rp->dec_run */
	bool split_batches;
	/* a step of decoders alone (nothing explicit running, nobody waiting)
	 * gives each decoder its token and the class crossing a block
	 * boundary its blocks, as schedule would: the step loop may run such
	 * steps back to back without asking it (sim.h no_segments) */
	bool decode_segments;
	/* a policy without decode_segments whose schedule, on such a step,
	 * does besides only bookkeeping of its own (NULL: none): steady_ok,
	 * whether its schedule would do nothing else for replica rp now (and
	 * for as long as no event or arrival comes: a segment tests it once);
	 * steady_step, that bookkeeping, once a step, after the crossing
	 * class has taken its blocks.  The step loop then runs such steps as
	 * decode_segments' */
	bool (*steady_ok)(const struct sim *s, const struct replica *rp);
	void (*steady_step)(struct sim *s, struct replica *rp);
	/* keep rp->dk (each decoder's finish step count), for a reservation
	 * of the running requests' future tokens */
	bool decoder_keys;
	/* may steady decoders be lazy under this configuration (NULL: yes;
	 * speculative decoding, PP and no_lazy_decoders keep every request
	 * explicit whatever the policy) */
	bool (*lazy)(const struct sim_cfg *cfg);
	/* before each step of an attention-DP group [lo, hi) that steps in
	 * lockstep: may its ranks admit new requests (rp->adp_hold; NULL:
	 * always) */
	void (*group_gate)(struct sim *s, int lo, int hi);
	/* its per-replica state (rp->pstate), set up and released (NULL: none) */
	void (*replica_init)(struct sim *s, struct replica *rp);
	void (*replica_release)(struct replica *rp);
	/* the invariant checker's test of that state (sched_check; NULL:
	 * none): false and why when it is inconsistent */
	bool (*check)(const struct sim *s, const struct replica *rp, char *why, size_t n);
};

/* The step loop's stages and the mechanics' hot helpers (step.c, the
 * headers beside the mechanics' files) are large and called from a few
 * places each: written into their callers, a step saves their calls and
 * register saves (GCC and Clang; elsewhere a plain inline hint). */
#if defined(__GNUC__)
#define SCHED_STEP_INLINE inline __attribute__((always_inline))
#else
#define SCHED_STEP_INLINE inline
#endif

/* Rank rp's load (nrun + wlen + ninbox, what the least-loaded router
 * compares) moved: its leaf in the router's tree is set at the next choice
 * (router.c).  Called by every update of the three counts: the running
 * list (runlist.c), the waiting queue and inbox (waitq.c, waitq.h) and
 * aborts (abort.c). */
static inline void rank_load_moved(struct replica *rp)
{
	if (rp->ldirty)
		loadtree_mark(rp->ldirty, rp->lbit);
}

/* Ask the caches for the first `bytes` of request record r, a line (64
 * bytes) at a time: REQ_HOT_BYTES, the fields a step walks, a walk some
 * requests before it reaches r; sizeof(struct req), every line, ahead of a
 * step's end (step.c step_end_prefetch).  Every line the bytes touch:
 * records are 8-byte aligned (400 bytes in a slab), so most span one line
 * more than bytes / 64, and a prefetch of r + 64 k for k < bytes / 64
 * left the last one out -- for a whole record the line of `heaped`,
 * `heap_fin` and `epoch`, which dec_join reads and writes as a step ends
 * (at DP 64 a fifth of sched_finish_step's samples).  Always written into
 * its caller: a function that only prefetches has no effect GCC sees,
 * and it drops the call (a plain static inline one left no prefetch in
 * the binary). */
static SCHED_STEP_INLINE void req_prefetch(const struct req *r, size_t bytes)
{
	const char *p = (const char *)((uintptr_t)r & ~(uintptr_t)63), *end = (const char *)r + bytes;

	for (; p < end; p += 64)
		__builtin_prefetch(p);
}
/* How many requests ahead a walk asks for one (req_prefetch). */
#define REQ_PREFETCH_AHEAD 8

/* --- the mechanics a policy works with (blocks.c, prefix.c, decoders.c, admit.c) --- */

/* Full blocks in `tokens` tokens (tokens >= 0): a shift when the block
 * size is a power of two (a division costs tens of cycles; these run for
 * every request at every step). */
static inline int64_t full_blocks(const struct sim *s, int64_t tokens)
{
	if (s->bs_log2p1 > 0 && tokens >= 0)
		return tokens >> (s->bs_log2p1 - 1);
	return tokens / s->cfg.block_size;
}

static inline int32_t blocks_for(const struct sim *s, int64_t tokens)
{
	return (int32_t)full_blocks(s, tokens + s->cfg.block_size - 1);
}

/* The residue class of v modulo block_size (non-negative). */
static inline int32_t cls_of(const struct sim *s, int64_t v)
{
	int64_t bs = s->cfg.block_size;

	if (s->bs_log2p1 > 0) /* two's complement: the non-negative residue */
		return (int32_t)(v & (bs - 1));
	return (int32_t)(((v % bs) + bs) % bs);
}

static inline int64_t req_num_tokens(const struct req *r)
{
	return r->prompt + r->generated;
}

/* A decoding request (its last token sampled, not yet in the KV cache). */
static inline bool decoding(const struct req *r)
{
	return r->generated > 0 && r->computed + 1 == req_num_tokens(r);
}

/* The tokens r gets this step within budget: what is left of its prompt
 * (chunked prefill, at most long_prefill_token_threshold), its decode token,
 * or with speculative decoding the last token and up to K drafts (fewer near
 * the end of the output), as vLLM schedules spec tokens. */
static inline int64_t chunk_of(const struct sim *s, const struct req *r, int64_t budget)
{
	int64_t n = req_num_tokens(r) - r->computed;

	if (s->cfg.spec.k > 0 && decoding(r)) {
		int64_t left = r->output - r->generated - 1;
		n = 1 + (left < s->cfg.spec.k ? left : s->cfg.spec.k);
	}
	if (n > budget)
		n = budget;
	if (s->cfg.long_prefill_token_threshold > 0 && n > s->cfg.long_prefill_token_threshold)
		n = s->cfg.long_prefill_token_threshold;
	return n;
}

/* r runs n tokens in the step being planned. */
static inline void sched_push(struct replica *rp, struct req *r, int64_t n)
{
	XGROW(rp->sched, rp->sched_cap, rp->nsched + 1);
	r->step_tokens = n;
	r->scheduled = true;
	rp->sched[rp->nsched++] = r;
}

/* A plan made ahead (plan_ahead) scheduled whole: list[0, n) in order,
 * each with the step_tokens its plan kept, as the step's only requests.
 * req.scheduled is read by SGLang's policy within a schedule and by the
 * step log alone: without a log the list is copied and no record touched
 * (the step's end clears the flag as it walks them). */
static inline void sched_take_all(const struct sim *s, struct replica *rp, struct req *const *list, size_t n)
{
	size_t j;

	XGROW(rp->sched, rp->sched_cap, n);
	if (s->cfg.step_log)
		for (j = 0; j < n; j++)
			list[j]->scheduled = true;
	if (n > 0) /* (sched may be NULL then) */
		memcpy(rp->sched, list, n * sizeof(*rp->sched));
	rp->nsched = n;
}

/* r joins the explicit running requests (rp->others), in running order. */
static inline void sched_others_push(struct replica *rp, struct req *r)
{
	XGROW(rp->others, rp->others_cap, rp->nothers + 1);
	rp->others[rp->nothers++] = r;
}

/* The blocks of r that get their content hash as they fill: [0, this)
 * (prefix.c's hashing rules: the shareable part, and for a preempted owner
 * those keyed by content that others hold too). */
static inline int64_t hashed_end(const struct sim *s, const struct req *r)
{
	int64_t u = r->nshare, q;

	if (r->preempts == 0)
		return u;
	q = full_blocks(s, r->prompt);
	if (q > u)
		u = q;
	if (r->prefix_group >= 0 && full_blocks(s, r->prefix_tokens) > u)
		u = full_blocks(s, r->prefix_tokens);
	return u;
}

/* Does block b of r get its content hash when full, or stay private? */
static inline bool gets_hash(const struct sim *s, const struct req *r, int64_t b)
{
	return b < r->nshare || (r->preempts > 0 && b < hashed_end(s, r));
}

/* How many of n blocks r takes next are named (the leading ones; the rest
 * are anonymous): sched_take_blocks's rule, which a policy that takes
 * several decoders' blocks together also asks. */
static inline int32_t named_take(const struct sim *s, const struct req *r, int32_t n)
{
	int32_t k;

	if (n <= 0 || r->nnamed != r->nblocks || !s->cfg.prefix_caching)
		return 0;
	/* gets_hash holds up to hashed_end (past the block count, an int32_t,
	 * only for a preempted request) */
	k = r->preempts > 0 ? (int32_t)(hashed_end(s, r) - r->nblocks) : r->nshare - r->nblocks;
	return k < 0 ? 0 : k > n ? n : k;
}

/* The leading full blocks of r whose content others can share: inside a
 * repeated prompt, inside its keyed blocks (wl_req.keys), or else inside
 * its group prefix. */
static inline int32_t req_nshare(const struct sim *s, const struct req *r)
{
	if (r->content_id >= 0)
		return (int32_t)(r->prompt / s->cfg.block_size);
	if (r->keys) {
		int64_t k = (int64_t)r->nkeys * s->wl->key_tokens;
		return (int32_t)((k < r->prompt ? k : r->prompt) / s->cfg.block_size);
	}
	if (r->prefix_group >= 0)
		return (int32_t)(r->prefix_tokens / s->cfg.block_size);
	return 0;
}

/* Can another request ever hold the same content as block b of r?  Only
 * blocks inside a shared group prefix or a repeated prompt can. */
static inline bool block_shareable(const struct req *r, int64_t b)
{
	return b < r->nshare;
}

/* Hash of block b of r given the previous block's hash (the chain makes a
 * block's key depend on everything before it, as vLLM's block hashes do). */
uint64_t sched_block_hash(const struct sim *s, const struct req *r, int64_t b, uint64_t prev);
/* Take n more blocks for r: named while their content can be looked up and
 * all earlier ones are named, anonymous (only counted) from there on. */
void sched_take_blocks(struct sim *s, struct replica *rp, struct req *r, int32_t n);
/* sched_take_blocks when need blocks are free (true), else nothing. */
bool sched_grow_blocks(struct sim *s, struct replica *rp, struct req *r, int32_t need);
/* The decoders of class cls cross a block boundary at this step: the named
 * blocks taken one by one, the anonymous ones counted (how many) for one
 * kvc_alloc_anon by the caller; sched_take_crossing allocates them too. */
int32_t sched_crossing_blocks(struct sim *s, struct replica *rp, int32_t cls);
void sched_take_crossing(struct sim *s, struct replica *rp, int32_t cls);
/* The fields waiting entry q's record gets (waitq.c), written into r: a
 * policy looks at a compact arrival (no record yet) through a cleared
 * stack record so filled. */
void waitq_req_fill(const struct sim *s, const struct replica *rp, const struct wq_ent *q, struct req *r);
/* Turn decoder r back into an explicit request at the current step count. */
void sched_dec_leave(const struct sim *s, struct replica *rp, struct req *r);
/* Preempt running request r: its blocks freed (its private ones published
 * for its own return), back to the front of the queue, recomputed later. */
void sched_preempt(struct sim *s, struct replica *rp, struct req *r);
/* Admit waiting requests in queue order while max_num_seqs, the token
 * budget and rem_input (a prompt-token cap of the batch; INT64_MAX: none)
 * allow and the policy's admit says so: each one's prefix hits looked up,
 * its first chunk scheduled, its blocks grown.  ctx goes to admit (its
 * state for the round).  True when it stopped for want of KV. */
bool sched_admit(struct sim *s, struct replica *rp, int64_t budget, int64_t rem_input, void *ctx);

/* --- LoRA (sim/lora.c; sim_cfg.lora) --- */

/* Set up and release replica rp's adapter state (after its cost model). */
void lora_replica_init(struct sim *s, struct replica *rp);
void lora_replica_release(struct replica *rp);
/* May a request of adapter id join rp's batch under the limit? */
bool lora_fits(const struct sim *s, const struct replica *rp, int32_t id);
/* A request of adapter id starts / stops running on rp: the first one
 * brings the adapter into a GPU slot (its load onto the step planned). */
void lora_run_add(struct sim *s, struct replica *rp, int32_t id);
void lora_run_drop(struct sim *s, struct replica *rp, int32_t id);
/* A step of t seconds of d's tokens with rp's LoRA kernels and the loads
 * its admissions took. */
double lora_step_s(struct sim *s, struct replica *rp, const struct step_desc *d, double t);

/* --- images (sim/mm.c; sim_cfg.mm) --- */

/* An encoder cache and budget for an engine of max_num_batched_tokens mbt
 * (a replica's, an encoder worker's); released with mm_cache_release. */
void mm_cache_init(struct mm_rep *M, int64_t mbt, int64_t image_tokens);
void mm_cache_release(struct mm_rep *M);
/* Images of a request the cache lacks (one repeated in it counted once). */
int32_t mm_misses(const struct mm_rep *M, int32_t images, int64_t image_id, uint64_t image_new);
/* A request's images looked up and the missing ones cached (LRU), counted
 * in the totals: how many must be encoded. */
int32_t mm_take(struct sim *s, struct mm_rep *M, int32_t images, int64_t image_id, uint64_t image_new);
/* Seconds c's encoder takes for `images` images in one call (memoised in
 * M), added to the totals. */
double mm_encode_s(struct sim *s, struct mm_rep *M, const struct cost_model *c, int32_t images);

void mm_replica_init(struct sim *s, struct replica *rp);
void mm_replica_release(struct replica *rp);
/* May r's images not in rp's encoder cache be encoded in the step being
 * planned (within the encoder budget; always when it encodes none yet)? */
bool mm_fits(const struct sim *s, const struct replica *rp, const struct req *r);
/* r is admitted: its images looked up in the encoder cache, the ones it
 * lacks encoded in the step being planned (and cached). */
void mm_admit(struct sim *s, struct replica *rp, struct req *r);
/* A step of t seconds with the encoder's time for the images it encodes. */
double mm_step_s(struct sim *s, struct replica *rp, double t);

/* --- E/P/D (sim/epd.c; sim_cfg.epd) --- */

/* The encoder pools of every deployment copy (after the replicas). */
void epd_init(struct sim *s);
void epd_release(struct sim *s);
/* Arrival w (request id, routed to replica ri, its image tokens in its
 * prompt) queued at its copy's encoder pool. */
void epd_arrive(struct sim *s, const struct wl_req *w, int64_t id, int ri);
/* EV_ENC_DONE of encoder worker `worker`: its batch's embeddings leave. */
void epd_encoded(struct sim *s, int worker);
/* EV_EMB_ARRIVE of slot: the request that landed, for the caller to queue
 * on replica *ri. */
void epd_landed(struct sim *s, int32_t slot, struct wl_req *w, int64_t *id, int *ri);
/* Requests in the encoder pools (queued, encoding, in transfer). */
uint64_t epd_live(const struct sim *s);

/* --- the API server's intake (sim/apiq.c; overheads.api_loop_ms) --- */

/* Its state when the host terms (api_loop_ms > 0), H2 and the deployment
 * call for it (one serving copy, no P/D, not live), else s->apiq stays
 * NULL. */
void apiq_init(struct sim *s);
void apiq_release(struct sim *s);
/* Arrival w (request id, admitted) held by the intake: true; false when
 * it goes in at once (no intake, or the first of its instant on a free
 * loop: the caller lets it in). */
bool apiq_arrive(struct sim *s, const struct wl_req *w, int64_t id);
/* EV_API_CLOSE. */
void apiq_close(struct sim *s);
/* EV_API_TAKE and EV_API_PASS: the next request that goes in now (true,
 * copied to w and id; the caller lets it in, then calls again), false when
 * there is none left.  The intake never lets a request in itself, so that
 * engine.c alone calls into the intake. */
bool apiq_take(struct sim *s, struct wl_req *w, int64_t *id);
bool apiq_pass(struct sim *s, struct wl_req *w, int64_t *id);
/* Requests in the intake (held or waiting). */
uint64_t apiq_live(const struct sim *s);

/* --- what engine.c calls (step.c, waitq.c, abort.c, reqpool.c) --- */

void sched_start_step(struct sim *s, int ri);
int sched_finish_step(struct sim *s, int ri, struct err *e);
/* The event after this one ends replica ri's step: what it reads is
 * fetched into the cache (a hint; sim.step_prefetch). */
void sched_step_end_next(const struct sim *s, int ri);
/* the least ranks for sim.step_prefetch: with fewer, their records stay
 * in the cache (one replica: chat's 130 running records, 49 KB) */
#define SIM_PREFETCH_RANKS 8
/* the heap made ready on huge pages for one long simulation (sim_new,
 * alloc.h xheap_huge): what 1 M chat requests at DP 64 fill, with room */
#define SIM_HUGE_HEAP ((size_t)64 << 20)
/* A large array of s (n bytes) advised for huge pages where s is the
 * process's one long simulation (sim.huge; alloc.h xadvise_huge). */
static inline void sim_advise_huge(const struct sim *s, void *p, size_t n)
{
	if (s->huge)
		xadvise_huge(p, n);
}
/* xreallocarray of s's that is advised as sim_advise_huge advises (an
 * array of s's records or arrivals grown). */
static inline void *sim_regrow(const struct sim *s, void *p, size_t count, size_t size)
{
	void *q = xreallocarray(p, count, size);

	sim_advise_huge(s, q, count * size);
	return q;
}
/* PP: the first stage of replica ri took its batch and is free again. */
void sched_stage_free(struct sim *s, int ri);
/* A replica's scheduler state, once its limits, KV cache, cost model and
 * pipeline depth (pp) are set; released with sched_replica_release. */
void sched_replica_init(struct sim *s, struct replica *rp);
/* Consistency of replica ri's running requests between events (tests):
 * the decoders counted (and, with decoder_keys, each in its dk slot) and, unless the
 * list is rebuilt after the step (fallback), `others` the explicit ones in
 * running order; false with the reason in why. */
bool sched_check(const struct sim *s, int ri, char *why, size_t n);
void sched_replica_release(const struct sim *s, struct replica *rp);
/* Queue a transferred request (P/D) at the back of rp's waiting queue. */
void sched_enqueue(struct replica *rp, struct req *r);
/* Queue a new arrival, request id `id`, at the back of rp's waiting queue;
 * its record is made when it reaches the head. */
void sched_arrive(struct replica *rp, const struct wl_req *w, int64_t id);
/* The inbox's arrivals (sim_cfg.recv_interval) to the back of the waiting
 * queue, in arrival order. */
void sched_receive(struct replica *rp);
/* The sustainability test's data (flow.c): an arrival (every admission,
 * in id order), request id's completion with its client-side TTFT and
 * E2E (ms; before the record is kept), the switch from arrival times to sketches (before the
 * records are folded), nothing more to keep (turns arriving after
 * completions), and the release. */
void flow_arrive(struct sim *s, int stage, int64_t arrival_ns);
void flow_complete(struct sim *s, int64_t id, int stage, int64_t arrival_ns, double ttft_ms, double e2e_ms);
void flow_fold(struct sim *s);
void flow_stop(struct sim *s);

/* Live use (sim_abort): request id leaves replica ri's waiting queue or
 * inbox at once (1), or, running there, is marked to leave at the end of
 * the replica's step in progress (2); 0 when ri does not hold it. */
int sched_abort(struct sim *s, int ri, int64_t id);

/* Request records: from a slab pool (sched_req_put returns one). */
void sched_req_put(struct sim *s, struct req *r);

#endif
