/* sched.h - the simulator's private records (requests, replicas, the
 * simulation) and the scheduler's interface: engine.c (lifecycle, events,
 * admission, metrics) drives sched.c (the scheduler and the step) through
 * the sched_* functions and hands it a struct sched_env for what it must
 * ask back; sched.c never names an engine.c function. */
#ifndef SERVESIM_SIM_SCHED_H
#define SERVESIM_SIM_SCHED_H
#include <stdbool.h>
#include <stdint.h>

#include "servesim/evq.h"
#include "servesim/kvcache.h"
#include "servesim/sim.h"
#include "servesim/wdist.h"
#include "stepmemo.h"


struct req {
	int64_t id, arrival_ns, prompt, output, prefix_tokens, prefix_group, content_id;
	int64_t computed, generated, step_tokens;  /* valid unless `dec` (see below) */
	int64_t first_ns, last_ns, sched_ns;
	int64_t prefix_hit_tokens;
	uint64_t last_hash;
	int32_t nblocks, nhashed, preempts;
	int32_t ne_blocks; /* GUARANTEED_NO_EVICT: blocks reserved while running */
	int32_t dsteps;  /* decode steps (tokens per step = (output - 1) / dsteps) */
	/* pooled token gaps (sim.h): its last chunk's client time once
	 * delivered (not kept while a decoder: the replica's tok_t is), and
	 * the gaps it gave as an explicit request */
	int64_t tok_ns;
	int32_t ngaps;
	bool transferred;  /* P/D: its prompt's KV arrived from a prefill worker */
	int64_t xfer_ns;   /* P/D: KV transfer time */
	int32_t nshare;  /* leading blocks whose content others can share */
	int32_t nnamed;  /* blocks[0, nnamed) are named; the rest of the nblocks anonymous */
	int32_t *blocks;
	/* content-chain hashes of blocks [0, nchain), computed once as they
	 * are first needed and kept across preemptions (vLLM's
	 * request.block_hashes); NULL for a request without named blocks */
	uint64_t *chain;
	int32_t nchain, chain_cap;
	int stage, replica;
	bool done, scheduled;
	bool inflight;   /* PP: in a batch still in the pipeline */
	bool first_pending, done_pending; /* delivery waits for the next step's end */
	uint8_t aclass;  /* its block-id array's size class + 1 (sched.c array_class), 0 before */
	uint64_t rseq;   /* position in running order (admission sequence) */
	/* running list, in admission order (vLLM's `running`) */
	struct req *prev, *next;
	/* steady decode ("decoder"): computed = dc0 + (G - dG0), generated =
	 * dg0 + (G - dG0) at replica step count G; grouped by class
	 * (dc0 - dG0) mod block_size, the steps at which it needs a block */
	bool dec;
	/* a lean decoder: every block it will take is anonymous and every
	 * named one it holds is registered, so its blocks are only counted
	 * (cls_lean) and nblocks/nhashed are derived when it leaves; not on
	 * its class list */
	bool lean;
	int64_t dG0, dc0, dg0;
	int32_t cls;
	uint32_t epoch;  /* of its live heap entry; older entries are stale */
	bool heaped;     /* that entry is still in the heap, at step heap_fin */
	int64_t heap_fin;
	struct req *cprev, *cnext;
	int32_t dk_ix;   /* SGLang decoder: its slot in the replica's dk */
	struct req *next_free;
};

/* A waiting request: its record (preempted, transferred, or looked at
 * already at the head of the queue), or, r NULL, only what its arrival
 * says: a queued arrival costs 64 bytes, not a whole record. */
struct wq_ent {
	struct req *r;
	int64_t id, arrival_ns, prompt, output, prefix_tokens, prefix_group, content_id;
	int stage;
};

struct fin_entry {
	int64_t fin_G;   /* replica step count at which the decoder completes */
	uint64_t rseq;   /* running-order tie-break */
	uint32_t epoch;
	struct req *r;
};

/* Size classes of the block-id arrays: 16 << c ids, c < this (2^24 tokens
 * in one-token pages is the most a request can hold: WL_MAX_TOKENS). */
#define SCHED_ARRAY_CLASSES 22

struct replica {
	struct kvc kv;
	struct req *run_head, *run_tail;   /* running list */
	size_t nrun;
	int64_t ne_reserved;               /* sum of the running ne_blocks */
	struct wq_ent *wq;                 /* waiting: ring-buffer deque */
	size_t whead, wlen, wcap;
	struct req **sched;                /* explicit requests scheduled this step */
	size_t nsched, sched_cap;
	struct req **others;               /* running requests that are not decoders */
	size_t nothers, others_cap;
	int64_t *chunk_len, *chunk_prefix;
	/* free block-id arrays by size class (sched.c array_get: class c
	 * holds 16 << c ids, the last max_blocks_per_req) */
	int32_t **arrays[SCHED_ARRAY_CLASSES];
	size_t narrays[SCHED_ARRAY_CLASSES], arrays_cap[SCHED_ARRAY_CLASSES];
	uint64_t **chains;                 /* free hash-chain arrays (sched.c, chain_grow) */
	size_t nchains, chains_cap;
	bool busy, kick_pending, fallback;
	bool active;                       /* lockstep: has a real step (else dummy) */
	const struct cost_model *cost;     /* its pool's cost model */
	int64_t mbt, mns;                  /* its pool's engine limits */
	bool prefill_only;                 /* P/D prefill worker */
	/* pipeline parallelism (vLLM V1's batch queue): up to pp batches in
	 * flight; a new one may enter when the first stage is free */
	int pp, npipe;
	struct pp_batch {
		struct req **reqs;
		size_t n, cap;
		bool used;
	} *pipe;
	struct step_desc desc;             /* lockstep: this rank's step */
	int64_t spec_n;                    /* decoding requests that draft after the step */
	double spec_ctx;                   /* their contexts, summed */
	int64_t step_dur_ns;
	struct stepmemo prices;            /* its decode-only steps' prices */
	/* lazy decoders */
	int64_t G;                         /* steps completed */
	double sg_ratio;                   /* SGLang: the current new-token ratio */
	/* SGLang's batch_is_full: set (to the running count, > 0) when an
	 * admission stopped for KV or max_running_requests; no new prefill is
	 * tried until fewer requests run (one finished or was retracted) */
	size_t sg_full_at;
	int64_t ndec, dec_base_sum;        /* count, sum of (dc0 - dG0) */
	/* SGLang: each decoder's output - dg0 + dG0 (its tokens left are
	 * that - G), unordered, so that the admission's reservation reads a
	 * dense array rather than every running record (sched.c) */
	struct dk_ent {
		int64_t k;
		struct req *r;
	} *dk;
	size_t ndk, dk_cap;
	int64_t dk_sum;                    /* of their k */
	struct req **cls_head;             /* [block_size] */
	int64_t *cls_count;                /* decoders per class, lean ones included */
	int64_t *cls_lean;                 /* lean decoders per class */
	struct fin_entry *heap;
	size_t nheap, heap_cap;
	/* completions due within SCHED_FIN_RING steps (sched.c), by step
	 * count modulo the ring; later ones wait in the heap */
	struct fin_bucket {
		struct fin_entry *e;
		size_t n, cap;
	} *ring;
	uint64_t next_rseq;
	uint64_t dec_max_rseq;             /* upper bound of decoders' rseq */
	/* the prefix hits of the waiting request memo_r, whose admission
	 * failed: blocks memo_blk[0, memo_h) (watched in kv), memo_e0[i] of
	 * the first i of them evictable; valid while kv's watch says nothing
	 * changed (sched.c, prefix_lookup) */
	struct req *memo_r;
	int32_t memo_h, memo_hw;           /* hits; positions watched */
	int32_t *memo_blk, *memo_e0;
	uint64_t memo_reg;                 /* kv.registered when taken */
	/* the shareable part of recent requests' block-hash chains, by
	 * content (sched.c, chain_grow): a repeated prompt is hashed once;
	 * hint[b] is the cached block a lookup last found holding block b
	 * (or -1), checked against its hash before use (prefix_lookup) */
	struct chain_memo {
		int64_t content_id, prefix_group, prefix_tokens;
		uint64_t *chain;           /* [n]: blocks [0, n) */
		int32_t *hint;             /* [n] */
		int32_t n, cap;
	} *cmemo;                          /* [SCHED_CHAIN_MEMO] or NULL */
	int64_t cmemo_blocks;              /* capacity of their chains, in all */
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
	 * each saw one gap of the same length: counted by stage (lazy_n,
	 * from dec_stage, the decoders by stage); the explicit requests'
	 * chunks wait in gapq for their delivery time */
	bool tok_open;
	bool no_gaps;                      /* sim_cfg.no_pooled_gaps: gapq stays empty */
	/* the decoders make a token in every vLLM step but only in SGLang's
	 * decode batches: dec_run says whether they do in the step planned
	 * (then finishing), pend_dec whether they did in the step whose
	 * tokens are pending; tok_t is then the client time of the last
	 * delivered step in which they did (with vLLM: of the last step) */
	bool dec_run, pend_dec;
	int64_t tok_t;
	int32_t dec_stage[256], lazy_n[256];
	int dec_stage_hi;                  /* stages below it may have decoders */
	struct gap_ent {
		struct req *r;
		int64_t id;                /* r is still that request (records are reused) */
		int32_t k;                 /* tokens in the chunk */
		uint8_t kind;              /* enum gap_kind (sched.c) */
	} *gapq;
	size_t ngapq, gapq_cap;
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
	/* the next open-loop arrival (has_next): an event kept beside the
	 * queue rather than in it, with the sequence number its push would
	 * have taken (engine.c, sim_step), so that it orders as it would */
	struct wl_req next;
	uint64_t next_seq;
	bool has_next, closed;
	uint64_t rr;
	int32_t max_blocks_per_req;
	/* log2(block_size) + 1 when block_size is a power of two, else 0
	 * (set by sched_replica_init): block arithmetic by shifts and masks */
	int bs_log2p1;
	float *ttft, *itl, *tpot, *e2e, *queue;
	uint8_t *stage;
	int32_t *rec_id; /* request id, -1 past INT32_MAX (sim_per_request) */
	size_t nrec, cap_rec;
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
	struct req **xfer;                 /* P/D: requests in transfer, by event slot */
	size_t nxfer, xfer_cap;
	int32_t *xfer_free;                /* free slots */
	size_t nxfer_free, xfer_free_cap;
	/* sim_keep_client_times: each record's first- and last-token times
	 * after arrival (ns) and output tokens (sim_reprice_api); NULL once
	 * the records are folded into histograms */
	int64_t *raw_first, *raw_last, *raw_out;
	bool keep_raw;
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
};

/* sched.c */
void sched_start_step(struct sim *s, int ri);
int sched_finish_step(struct sim *s, int ri, struct err *e);
/* PP: the first stage of replica ri took its batch and is free again. */
void sched_stage_free(struct sim *s, int ri);
void sched_replica_init(struct sim *s, struct replica *rp);
/* Consistency of replica ri's running requests between events (tests):
 * the decoders counted (and, SGLang, each in its dk slot) and, unless the
 * list is rebuilt after the step (fallback), `others` the explicit ones in
 * running order; false with the reason in why. */
bool sched_check(const struct sim *s, int ri, char *why, size_t n);
void sched_replica_release(struct replica *rp);
/* Queue a transferred request (P/D) at the back of rp's waiting queue. */
void sched_enqueue(struct replica *rp, struct req *r);
/* Queue a new arrival, request id `id`, at the back of rp's waiting queue;
 * its record is made when it reaches the head. */
void sched_arrive(struct replica *rp, const struct wl_req *w, int64_t id);
/* Request records: from a slab pool (sched_req_put returns one). */
void sched_req_put(struct sim *s, struct req *r);

static inline int64_t req_num_tokens(const struct req *r)
{
	return r->prompt + r->generated;
}

#endif
