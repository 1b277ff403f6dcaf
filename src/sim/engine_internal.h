/* engine_internal.h - the engine's private records, shared by engine.c
 * (lifecycle, events, admission, metrics) and sched.c (the scheduler). */
#ifndef SERVESIM_SIM_ENGINE_INTERNAL_H
#define SERVESIM_SIM_ENGINE_INTERNAL_H
#include <stdbool.h>
#include <stdint.h>

#include "servesim/evq.h"
#include "servesim/kvcache.h"
#include "servesim/sim.h"


struct req {
	int64_t id, arrival_ns, prompt, output, prefix_tokens, prefix_group, content_id;
	int64_t computed, generated, step_tokens;  /* valid unless `dec` (see below) */
	int64_t first_ns, last_ns, sched_ns;
	int64_t prefix_hit_tokens;
	uint64_t last_hash;
	int32_t nblocks, nhashed, preempts;
	int32_t dsteps;  /* decode steps (tokens per step = (output - 1) / dsteps) */
	bool transferred;  /* P/D: its prompt's KV arrived from a prefill worker */
	int64_t xfer_ns;   /* P/D: KV transfer time */
	int32_t nshare;  /* leading blocks whose content others can share */
	int32_t nnamed;  /* blocks[0, nnamed) are named; the rest of the nblocks anonymous */
	int32_t *blocks;
	int stage, replica;
	bool done, scheduled;
	bool inflight;   /* PP: in a batch still in the pipeline */
	bool first_pending, done_pending; /* delivery waits for the next step's end */
	uint64_t rseq;   /* position in running order (admission sequence) */
	/* running list, in admission order (vLLM's `running`) */
	struct req *prev, *next;
	/* steady decode ("decoder"): computed = dc0 + (G - dG0), generated =
	 * dg0 + (G - dG0) at replica step count G; grouped by class
	 * (dc0 - dG0) mod block_size, the steps at which it needs a block */
	bool dec;
	int64_t dG0, dc0, dg0;
	int32_t cls;
	uint32_t epoch;
	struct req *cprev, *cnext;
	struct req *next_free;
};

struct fin_entry {
	int64_t fin_G;   /* replica step count at which the decoder completes */
	uint64_t rseq;   /* running-order tie-break */
	uint32_t epoch;
	struct req *r;
};

struct replica {
	struct kvc kv;
	struct req *run_head, *run_tail;   /* running list */
	size_t nrun;
	struct req **wq;                   /* waiting: ring-buffer deque */
	size_t whead, wlen, wcap;
	struct req **sched;                /* explicit requests scheduled this step */
	size_t nsched, sched_cap;
	struct req **others;               /* running requests that are not decoders */
	size_t nothers, others_cap;
	int64_t *chunk_len, *chunk_prefix;
	int32_t **arrays;                  /* free block-id arrays */
	size_t narrays, arrays_cap;
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
	/* lazy decoders */
	int64_t G;                         /* steps completed */
	double sg_ratio;                   /* SGLang: the current new-token ratio */
	int64_t ndec, dec_base_sum;        /* count, sum of (dc0 - dG0) */
	struct req **cls_head;             /* [block_size] */
	int64_t *cls_count;
	struct fin_entry *heap;
	size_t nheap, heap_cap;
	uint64_t next_rseq;
	uint64_t dec_max_rseq;             /* upper bound of decoders' rseq */
	struct req **done;                 /* completions of the step being finished */
	size_t done_cap;
	/* client delivery (H2): tokens of the last finished step reach the
	 * client a fraction of the next step later */
	struct req **pend;
	size_t npend, pend_cap;
	int64_t pend_t0;                   /* end of the step that produced them */
};

struct sim {
	struct sim_cfg cfg;
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
	struct wl_req next;
	bool has_next, closed;
	uint64_t rr;
	int32_t max_blocks_per_req;
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
	} agg[256];
	struct sim_totals tot;
	int nstages;
	struct pcg32 spec_rng;             /* acceptance draws (stream 11) */
	struct req **xfer;                 /* P/D: requests in transfer, by event slot */
	size_t nxfer, xfer_cap;
	int32_t *xfer_free;                /* free slots */
	size_t nxfer_free, xfer_free_cap;
};

/* engine.c services used by the scheduler */
void eng_req_put(struct sim *s, struct req *r);
int32_t *eng_array_get(struct sim *s, struct replica *rp);
void eng_array_put(struct replica *rp, int32_t *a);
void eng_wq_push_front(struct replica *rp, struct req *r);
struct req *eng_wq_front(const struct replica *rp);
void eng_wq_pop_front(struct replica *rp);
void eng_reject(struct sim *s, struct req *r, enum reject_reason why);
void eng_record(struct sim *s, const struct req *r);
int eng_next_closed(struct sim *s, int64_t t_ns, struct err *e);
/* P/D: r finished its prefill on a prefill worker; its KV travels to the
 * decode pool (an EV_KV_ARRIVE after the transfer time). */
void eng_handoff(struct sim *s, struct req *r);
uint64_t eng_block_hash(const struct sim *s, const struct req *r, int64_t b, uint64_t prev);
bool eng_block_shareable(const struct sim *s, const struct req *r, int64_t b);

/* sched.c */
void sched_start_step(struct sim *s, int ri);
int sched_finish_step(struct sim *s, int ri, struct err *e);
/* PP: the first stage of replica ri took its batch and is free again. */
void sched_stage_free(struct sim *s, int ri);
void sched_replica_init(struct sim *s, struct replica *rp);
void sched_replica_release(struct replica *rp);

static inline int64_t req_num_tokens(const struct req *r)
{
	return r->prompt + r->generated;
}

#endif
