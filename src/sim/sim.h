/* sim.h - discrete-event simulation of LLM serving replicas.
 *
 * One replica = one engine (TP x PP GPUs) with its own scheduler and paged KV
 * cache; --dp replicas share one clock behind a router.  The scheduler is the
 * engine's (sim_cfg.policy; src/engine/): vLLM v1's, say, schedules running
 * requests first (a decode gets 1 token, an unfinished prefill its next
 * chunk), then waiting requests in FCFS order while max_num_seqs and the
 * max_num_batched_tokens budget allow; KV blocks are allocated as tokens are
 * scheduled; when allocation fails the most recently admitted running request
 * is preempted (blocks freed, back to the front of the queue, recomputed
 * later); no admissions in a step that preempted.  Requests that can never
 * run are rejected with a reason: arrived = completed + running + waiting +
 * rejected (+ aborted, in live use) at every instant. */
#ifndef SERVESIM_SIM_H
#define SERVESIM_SIM_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Where a P/D request's first token reaches the client.  After the decode
 * worker took it, a wait for a decode slot is TTFT:
 * - SIM_PD_FIRST_HANDOFF: from the prefill worker, at the hand-off;
 * - SIM_PD_FIRST_DECODE_STEP: with the decode worker's first step for it,
 *   in one chunk with the token that step makes (vLLM, SGLang);
 * - SIM_PD_FIRST_DECODE_LAUNCH: as the decode worker launches its first step
 *   for it, the token that step makes following at its end (TensorRT-LLM). */
enum sim_pd_first { SIM_PD_FIRST_HANDOFF, SIM_PD_FIRST_DECODE_STEP, SIM_PD_FIRST_DECODE_LAUNCH };

#include "cost/cost.h"
#include "base/err.h"
#include "sim/spec.h"
#include "base/loghist.h"
#include "base/stats.h"
#include "base/tline.h"
#include "workload/workload.h"

struct sched_policy;

/* How an arrival finds its engine: round-robin, least-loaded (fewest
 * running + waiting requests, the lowest index among equals) or kv-aware
 * (llm-d's precise prefix-cache scorer with its load scorers: engine.c,
 * route_score).  Every router works at two levels: it picks a replica
 * (sim_cfg.replicas), then an engine rank inside it. */
enum router_kind { ROUTER_ROUND_ROBIN, ROUTER_LEAST_OUTSTANDING, ROUTER_KV_AWARE };

/* A router's canonical name ("round-robin", "least-loaded", "kv-aware"),
 * and the router a name or alias (rr, lo, least-outstanding, kv) the
 * deployment field table took names (deploy/fields.c's router row checks
 * the spelling; NULL: none, the caller's default). */
const char *router_name(enum router_kind k);
enum router_kind router_kind_of(const char *name, enum router_kind none);

/* One request's row of the per-request CSV (sim_requests_csv_header), as
 * numbers: what sim_cfg.on_request gets. */
struct sim_req_row {
	int64_t id;              /* the request's id (arrival order from 0; sim_submit's) */
	int64_t arrival_ns;
	bool completed;          /* status "completed" (else rejected or aborted, the times 0) */
	bool aborted;            /* status "aborted" (live use: sim_abort); output_tokens
				  * then holds the tokens it generated before it left */
	double queue_ms, ttft_ms, itl_ms, tpot_ms, e2e_ms; /* itl_ms 0 when it has none */
	int64_t prompt_tokens, output_tokens;
};

/* The fewest requests for which sim_cfg.arrival_thread starts a thread
 * (its start and join cost about 0.1 ms: 300 requests' worth). */
#ifndef SIM_ARRIVAL_THREAD_MIN /* (tests/bench/same.sh's forced-thread check builds it with 1) */
#define SIM_ARRIVAL_THREAD_MIN 10000
#endif

/* The most replicas (sim_cfg.replicas), and engine ranks in all. */
#define SIM_MAX_REPLICAS 1024
#define SIM_MAX_RANKS 65536

struct sim_cfg {
	int64_t max_num_batched_tokens;
	int64_t max_num_seqs;
	int64_t max_model_len;
	int64_t block_size;
	int64_t long_prefill_token_threshold; /* 0 = none */
	int64_t total_kv_blocks;              /* per replica */
	/* a sliding-window KV group whose blocks come from the same pool
	 * (vLLM's hybrid KV cache manager; tokens 0: none, the windows' KV
	 * reserved elsewhere or not modelled): each running request also
	 * holds `groups` blocks per pool block of its last `tokens` tokens,
	 * taken as its chunks are and freed as they leave the window
	 * (sim/winblocks.h) */
	struct {
		int64_t tokens;
		int32_t groups;
	} kv_window;
	bool prefix_caching;
	/* the scheduler: how each step's batch is picked and waiting
	 * requests admitted (an engine's: engine_type.policy, src/engine/;
	 * vLLM v1's walk, SGLang's prefill and decode batches, TensorRT-LLM's
	 * no-evict admission of whole prompts); required */
	const struct sched_policy *policy;
	/* a policy's settings (SGLang's flags; others ignore them): lpm
	 * orders the waiting queue by the longest cached prefix before
	 * admitting (stable, so FCFS among equals; fcfs for a round with more
	 * than SGLANG_LPM_MAX_QUEUE waiting, and without prefix caching);
	 * mixed_chunk: a prefill batch also decodes one token of every running
	 * request, whose count comes off the prefill budget
	 * (--enable-mixed-chunk); max_prefill_tokens (0: none): the prompt
	 * tokens one prefill batch takes besides max_num_batched_tokens
	 * (--max-prefill-tokens: no prompt joins once it is spent); with
	 * max_prefill_whole, past the batch's first request a prompt joins
	 * only while it is shorter than what is left, and waits whole rather
	 * than being chunked to fit */
	bool lpm, mixed_chunk, max_prefill_whole;
	int64_t max_prefill_tokens;
	/* SGLang's --scheduler-recv-interval N (0 or 1: every step): while a
	 * replica runs steps, arrivals wait in its inbox until the scheduler
	 * next polls the tokenizer, every N decode batches or after any other
	 * batch (SchedulerRecvSkipper); an idle replica polls at once */
	int recv_interval;
#define SIM_MAX_RECV_INTERVAL 100000
	/* SGLang's schedule_conservativeness as its scheduler ends up with it
	 * on the decode (or aggregated) ranks and on a P/D prefill worker's
	 * ranks: the new-token ratio's start and floor scale with it
	 * (engine_type.dp_conservativeness under attention DP); 0: 1 */
	double conservativeness, prefill_conservativeness;
	/* A cold server (a client that sent no warm-up requests): the first
	 * prefill step of each replica that directly follows another prefill
	 * step (no decode step between: a burst of prompts larger than one
	 * prefill batch, as the first wave of a closed loop) lasts
	 * cold_start_s longer, once (engine_type.cold_start_s; 0: warm) */
	double cold_start_s;
	/* the warm-up of a vllm-bench client (InferenceX's benchmark_serving
	 * --num-warmups 2C under its max-concurrency C): C copies of the first
	 * request's prompt at once, twice, before the measured phase; the
	 * prefill sizes it met are no JIT compile (cost_tbs_jit_key) there
	 * after; 0: no such warm-up */
	int64_t jit_warm_clients;
	/* TensorRT-LLM's attention-DP context balance (attention_dp_config
	 * enable_balance, timeout_iters, batching_wait_iters; adp_timeout_iters
	 * 0: off): a lockstep group holds its new context requests back while
	 * not every rank has one, up to adp_timeout_iters steps, unless some
	 * rank has no generation work; when every rank has one and every rank
	 * is generating, it batches them for adp_batching_wait_iters more steps
	 * (the engine's rule: src/engine/trtllm.c) */
	int64_t adp_timeout_iters, adp_batching_wait_iters;
	/* TensorRT-LLM's batch waiting (batch_wait_timeout_iters,
	 * batch_wait_max_tokens_ratio x max_num_tokens; both 0: off), without
	 * attention DP: while generation requests run, new context requests
	 * wait until the step's context and generation tokens reach
	 * batch_wait_tokens or batch_wait_iters steps have held them (the
	 * engine's rule: src/engine/trtllm.c) */
	int64_t batch_wait_iters;
	double batch_wait_tokens;
	int dp;
	/* independent copies of the whole layout (pd.prefill + dp engine
	 * ranks each, stepping and caching on their own), all on one clock
	 * behind the router; 0 or 1: one.  Replica k holds ranks [k x per,
	 * (k + 1) x per), per = pd.prefill + dp, its prefill workers first */
	int replicas;
	/* the API servers that share a replica's arrivals, each with its own
	 * event loop (sim/apiq.c: the loop's time per request over them); 0 or
	 * 1: one */
	int api_servers;
	/* attention-DP: the dp ranks step together (every step lasts as long
	 * as the slowest rank's; a rank with nothing to run runs a dummy
	 * one-token step, as vLLM's DP engines do) and the cost model sees the
	 * MoE tokens of all ranks (step_desc.moe_tokens); with P/D, the ranks
	 * of each worker (pd.prefill_group, pd.decode_group) */
	bool lockstep;
	enum router_kind router;
	bool check_invariants;                /* after every event (tests) */
	/* step segments off (--no-decode-segments): by default a replica's
	 * consecutive steps are run back to back, each planned and priced as
	 * alone, for as long as each one's end comes before every other event
	 * (no arrival, transfer or other replica in between), without a trip
	 * through the event queue; the output is byte-identical either way */
	bool no_segments;
	/* lazy decoders off (tests): by default a request in steady decode
	 * is advanced by its replica's step count and walked only when a
	 * block, its completion or a preemption needs it (step.c); off, every
	 * running request is walked at every step, as the literal algorithm
	 * does; the output is byte-identical either way, except with
	 * speculative decoding where lazy verifiers apply (specpath.h: their
	 * acceptance draws come in another order, the outputs move as with
	 * another seed) */
	bool no_lazy_decoders;
	/* step-price memos off (tests): by default a decode-only step that
	 * repeats one priced before (its counts, summed contexts and, with
	 * attention DP, the group's MoE tokens) takes the kept price
	 * (stepmemo.h), and an attention-DP group step prices only the
	 * slowest of its decode-only ranks where nothing else reads their
	 * prices (step.c group_top); off, every step is priced;
	 * byte-identical either way */
	bool no_step_memo;
	/* step-price memos kept across simulations (sim_memo_new): NULL, the
	 * simulation's own (see sim_memo) */
	struct sim_memo *memo;
	bool exact_percentiles;               /* keep every value past LOGHIST_EXACT_MAX */
	/* the caller reads no pooled-ITL distribution (eval, calibrate): the
	 * gaps are not collected and metric_set.itl_pooled_ms stays empty (n
	 * 0); itl_pooled_mean_ms and token_gaps are computed as always */
	bool no_pooled_gaps;
	/* the caller reads no energy figure (eval, calibrate): the steps'
	 * FLOPs, bytes and power are not computed and metric_set's energy
	 * figures stay NAN, as for a GPU without a power figure */
	bool no_energy;
	/* the open-loop arrival stream drawn ahead on a thread of its own
	 * (sim/arrq.h) from sim_run's start, where it pays: at least
	 * SIM_ARRIVAL_THREAD_MIN requests expected (a trace file, whose length
	 * is known only as it is read: always), no closed loop, no sessions,
	 * no draws shared with other generators (wl_draws).  A caller that
	 * runs one simulation in the process sets it (servesim run, the
	 * bench); the eval, search and capacity workers, whose threads use
	 * the cores already, leave it off.  Byte-identical either way. */
	bool arrival_thread;
	size_t exact_max;                     /* that count (0: LOGHIST_EXACT_MAX; tests) */
	FILE *requests_out;                   /* per-request CSV rows, or NULL */
	/* called with each requests_out row's values as numbers, whether or
	 * not the rows are written (the capacity search reads them so), or
	 * NULL */
	void (*on_request)(void *ctx, const struct sim_req_row *row);
	void *on_request_ctx;
	/* or NULL; once *stop is true (on_request sets it when the rows seen
	 * already decide what the caller wants: a failing capacity probe)
	 * sim_run returns 0 after the event in progress, the run cut short:
	 * its summaries and totals cover only the events run */
	const bool *stop;
	FILE *step_log;                       /* one line per step (tests, --step-log), or NULL */
	/* live use (servesim serve): no workload is generated; requests
	 * arrive by sim_submit and time moves by sim_advance.  on_chunk, if
	 * set, is called with each chunk of output tokens as it reaches the
	 * client: the request's id, the engine-side time (the client-side API
	 * terms are the caller's to add), the chunk's tokens and whether it is
	 * the last.  Live runs walk every running request at every step
	 * (no_lazy_decoders, no_segments: set by sim_new) and collect gaps. */
	bool live;
	void (*on_chunk)(void *ctx, int64_t id, int64_t t_ns, int64_t tokens, bool last);
	void *on_chunk_ctx;
	struct spec_cfg spec;                 /* speculative decoding (spec.k 0: off) */
	/* P/D disaggregation: pd.prefill prefill workers (replicas 0 ..
	 * pd.prefill-1) run each prompt and its first token, then hand the KV
	 * to one of the dp decode workers (the replicas after them): the
	 * transfer takes alpha_s + prompt x kv_bytes_per_token / link_bw and
	 * the decode worker admits the request when it lands.  Its first
	 * token reaches the client as pd.first says (enum sim_pd_first).  pd.prefill 0: aggregated serving.
	 * Attention-DP workers (lockstep): each prefill worker is
	 * pd.prefill_group consecutive replicas and each decode worker
	 * pd.decode_group, stepping together as the dp ranks of one engine
	 * (pd.prefill and dp then count ranks; 0 or 1: one engine a worker). */
	struct sim_pd {
		int prefill;
		int prefill_group, decode_group;
		const struct cost_model *prefill_cost;
		int64_t prefill_kv_blocks, prefill_max_num_seqs, prefill_max_num_batched_tokens;
		double kv_bytes_per_token, link_bw, alpha_s;
		enum sim_pd_first first;
		/* a busy decode worker's iteration admits handed-off requests
		 * to generation-init and runs its step without them: they
		 * join the next (TensorRT-LLM; sim/admit.c, gen_init_mark) */
		bool gen_init_step;
		/* how a prompt finds its rank inside an attention-DP prefill
		 * worker (prefill_group above 1): false, the router picks among
		 * all the pool's prefill ranks; true, the router picks the
		 * worker and the rank is a uniform draw from its group
		 * (engine_type.pd_prefill_rank_random: SGLang) */
		bool prefill_rank_random;
	} pd;
	/* KV offload (host_blocks 0: off): each replica's prefix cache has a
	 * host tier of host_blocks blocks below it (kvcache.h, kvc.lower): a
	 * cached block evicted from the GPU is written there (LRU there too),
	 * and an admission whose prefix lookup stops in the GPU goes on in the
	 * host, whose consecutive hits are loaded back into GPU blocks instead
	 * of being computed.  A block moves in block_s seconds each way (its
	 * bytes on one GPU over that GPU's host link; the GPUs of an engine
	 * move their shards at once).  How the transfers meet the step
	 * (overlap): OFFLOAD_ASYNC, the loads run beside the step's compute
	 * and the stores are hidden (a step lasts max(compute, loads));
	 * OFFLOAD_LAYERWISE, a layer's load overlaps the previous layer's
	 * compute, stores hidden (max(compute, loads) + min(compute, loads) /
	 * layers); OFFLOAD_SYNC, loads before the forward and stores after it,
	 * both on the step (compute + loads + stores).  The engines' reasons
	 * are in src/engine/ (engine_type.offload). */
	struct sim_offload {
		int64_t host_blocks;
		double block_s;
		enum offload_overlap { OFFLOAD_ASYNC, OFFLOAD_LAYERWISE, OFFLOAD_SYNC } overlap;
		int layers;
	} offload;
	/* LoRA (max_loras 0: off; sim/lora.c): a request runs with its
	 * adapter (wl_req.lora; 0: the base model).  A step batches at most
	 * max_loras distinct adapters (the base model one of them when
	 * base_counts): a waiting request whose adapter would exceed it is
	 * skipped and the next one tried, and stays at the head of the queue
	 * (vLLM's and SGLang's schedulers).  Each replica holds max_loras
	 * adapters in GPU slots and cpu_slots in host memory (0: every
	 * adapter, loaded there at start-up: no disk reads), both LRU: a request admitted with an adapter not in a GPU
	 * slot has it copied there from host memory (its bytes on one GPU at
	 * host_link_eff of the GPU's host link), and first read from disk
	 * (the whole adapter at disk_bw) when host memory lacks it too; the
	 * loads hold the step that admits it.  Every adapter has rank `rank`;
	 * the LoRA kernels add cost_lora_step_s at each step's tokens and
	 * its running adapters (cost/lora.h). */
	struct sim_lora {
		int max_loras, rank;
		bool base_counts;
		int64_t cpu_slots;
		double host_link_eff, disk_bw, dtype_bytes;
	} lora;
	/* Images (image_tokens 0: off; sim/mm.c): each image of a request
	 * (wl_req.images) adds image_tokens to its prompt, after its shared
	 * prefix, and is encoded by the model's image encoder (patches
	 * patches, cost/vision.h) in the step that admits the request, before
	 * the language model's forward (vLLM's and SGLang's schedulers run a
	 * request's encoder inputs in the step whose prefill chunk first
	 * covers them; its images start its own tokens).  A step encodes at
	 * most max(max_num_batched_tokens, image_tokens) image tokens (vLLM's
	 * encoder compute budget, its engine's own limit on a P/D worker; a
	 * request whose images would pass it waits for the next step, unless
	 * the step encodes nothing yet).  Each replica keeps an encoder cache
	 * of as many tokens (vLLM's encoder_cache_size; LRU by image): an image
	 * it still holds (the same image number) is not encoded again. */
	struct sim_mm {
		int64_t image_tokens, patches;
		struct vis_windows win; /* Qwen2.5-VL's windowed blocks (n 0: none) */
	} mm;
	/* E/P/D (encoders 0: off; sim/epd.c): each deployment copy has
	 * `encoders` encoder workers (one GPU each, priced on cost) ahead of
	 * its prefill (or aggregated) workers.  A request with images is
	 * routed when it arrives and queued there first (FIFO); a free worker
	 * encodes the queued requests' images whose tokens fit its budget
	 * (max(max_num_batched_tokens, one image), at least one request) in
	 * one call, skipping those its own encoder cache holds; each request's
	 * embeddings then move to its replica in alpha_s + its image tokens x
	 * emb_bytes_per_token / link_bw, where it is queued with its images
	 * encoded (the language-model workers encode nothing). */
	struct sim_epd {
		int encoders;
		const struct cost_model *cost;
		double link_bw, alpha_s, emb_bytes_per_token;
	} epd;
};

enum reject_reason { REJ_TOO_LONG, REJ_KV_CAPACITY, REJ__COUNT };

struct metric_set {
	struct dist_summary ttft_ms, itl_ms, tpot_ms, e2e_ms, queue_ms;
	size_t completed;
	double input_tokens, output_tokens;
	double first_arrival_s, last_done_s;
	double last_arrival_s;     /* of the completed requests */
	double throughput_rps, input_tok_s, output_tok_s;
	/* vLLM's ITL (`vllm bench serve`): every gap between consecutive
	 * streamed chunks of a request, pooled over all requests.  A chunk is
	 * what one engine step gives a request: one token, or with
	 * speculative decoding the accepted drafts and the bonus token
	 * together (vLLM's client appends one ITL entry per chunk received).
	 * A gap is the client-side time between the chunks' deliveries; the
	 * client-side terms of E2E go with the gaps (stream_token_us per token
	 * of the chunk; api_e2e_ms and the first token's stream_token_us with
	 * the last gap), so a request's gaps sum to its E2E - TTFT.
	 * The mean is sum(E2E - TTFT) / sum(chunks - 1) over the completed
	 * requests (NAN when none has two chunks); itl_pooled_ms holds the
	 * whole distribution (its mean, summed over the gaps, agrees within
	 * rounding; reports print itl_pooled_mean_ms), exact while the run has at most
	 * WDIST_EXACT_MAX distinct gap lengths, else within WDIST_REL_ERR
	 * (wdist.h, itl_pooled_exact).  Gaps are taken as chunks reach the
	 * client: a request rejected after it ran (preempted, then too long
	 * for an empty KV cache) keeps the gaps it had. */
	double itl_pooled_mean_ms;
	size_t token_gaps;         /* sum(chunks - 1): sum(output - 1) without speculative decoding */
	struct dist_summary itl_pooled_ms;
	bool itl_pooled_exact;
	/* How loaded the engine was (the load of an accuracy class,
	 * eval/accuracy.h), from the completed requests' engine-side times:
	 * running_per_rank, the mean number of requests running (first
	 * scheduled to last token delivered: up to a step past the step that
	 * made it) per engine rank (replica, attention-DP rank or P/D worker
	 * rank) over [first arrival, last completion] (Little's law: their
	 * summed running time over that span, over the ranks); queue_share,
	 * the share of their summed arrival-to-last-token time spent waiting
	 * to be scheduled.  NAN without completions. */
	double running_per_rank, queue_share;
	/* Energy (hw/power.h) over [first arrival, last completion]: the GPUs'
	 * idle draw over the span plus what the steps drew above it (all of
	 * the run's steps); joules, the mean power per GPU and joules per output
	 * token.  NAN without a power figure for the GPU, without completions,
	 * and for one stage of several (energy is not split by stage). */
	double energy_j, avg_power_w_per_gpu, energy_j_per_output_token;
};

struct sim_totals {
	uint64_t arrived, completed, rejected[REJ__COUNT], preemptions, steps;
	uint64_t aborted;          /* live use: requests whose client went away (sim_abort) */
	uint64_t prefix_lookup_tokens, prefix_hit_tokens;
	/* speculative decoding: verification steps of requests, drafts
	 * offered and accepted in them */
	uint64_t spec_verify, spec_drafted, spec_accepted;
	uint64_t pd_transfers;     /* P/D: KV hand-offs, and their summed time */
	int64_t pd_transfer_ns;
	/* KV offload (sim_cfg.offload): prompt tokens found in the host tier
	 * on first admission (prefix_hit_tokens counts them too), blocks
	 * loaded from it and written to it, and the seconds the transfers
	 * added to steps, summed over replicas */
	uint64_t host_hit_tokens, host_loaded_blocks, host_stored_blocks;
	double offload_exposed_s;
	/* LoRA (sim_cfg.lora): adapters copied into GPU slots, of them those
	 * first read from disk, steps in which a waiting request was skipped
	 * for the adapter limit, and the seconds the loads and the LoRA
	 * kernels added to steps, summed over replicas */
	uint64_t lora_gpu_loads, lora_disk_loads, lora_limited_steps;
	double lora_load_s, lora_kernel_s;
	/* images (sim_cfg.mm): images admitted (with each admission after a
	 * preemption), of them those encoded and those the encoder cache held,
	 * and the seconds the encoder added to steps, summed over replicas */
	uint64_t mm_images, mm_encoded, mm_cache_hits;
	double mm_encoder_s;
	/* E/P/D: embedding hand-offs to the language-model workers, and their
	 * summed time */
	uint64_t epd_transfers;
	int64_t epd_transfer_ns;
	double kv_util_sum_steps;  /* sum over steps of used/total (for the mean) */
	/* joules the GPUs drew above idle in the steps (hw/power.h); NAN when
	 * a replica's GPU has no power figure.  Summed on the sinks' thread
	 * while sim_run runs one (sim/sinkq.h): a tick reads the value at its
	 * start; whole when sim_run returns */
	double energy_dyn_j;
	double kv_util_max;
	int64_t duration_ns;       /* last event time */
	uint64_t events;
};

struct sim;

/* Step-price memos that outlive a simulation (stepmemo.h): a simulation
 * given a set (sim_cfg.memo) takes the prices the ones before it kept,
 * bit for bit what it would compute, and keeps its own for the ones
 * after; a capacity search's probes (the same requests at other rates,
 * the same steps at low load) share one.  Every simulation given a set
 * must price with the same cost models (sim_new's and the P/D prefill
 * workers'), one at a time (a set is not for two threads at once), with
 * no_step_memo off (with it, a simulation uses none).  Heap-owned. */
struct sim_memo *sim_memo_new(void);
void sim_memo_free(struct sim_memo *m);

int sim_new(const struct sim_cfg *cfg, const struct cost_model *cost, const struct wl_spec *wl,
	    struct sim **out, struct err *e);
void sim_free(struct sim *s);
/* Process one event; returns 1 while events remain, 0 when done, <0 on error. */
int sim_step(struct sim *s, struct err *e);
int sim_run(struct sim *s, struct err *e);
/* sim_step until the end (0) or an error (<0), calling tick(ctx, s) after
 * each event that leaves the event count a multiple of 65,536 (a progress
 * line); sim_run's loop, without its stop flag. */
int sim_run_ticking(struct sim *s, void (*tick)(void *ctx, const struct sim *s), void *ctx, struct err *e);
const struct sim_totals *sim_totals(const struct sim *s);
int64_t sim_now_ns(const struct sim *s);
/* Summaries of completed requests: stage -1 = all.  Exact percentiles up
 * to LOGHIST_EXACT_MAX completions or with cfg.exact_percentiles; past
 * it, from log-bucketed histograms within LOGHIST_REL_ERR (loghist.h). */
void sim_summary(struct sim *s, int stage, struct metric_set *out);
/* sim_summary, with job(ctx) run beside it: on the summary's second thread
 * (a run on the arrivals' thread with many records), before that thread's
 * distributions, else on this one after the summary; returns once both
 * are done.  job may read the records (sim_per_request_f) and the flow
 * (sim_arrivals), which the summary does not change; NULL: none. */
void sim_summary_beside(struct sim *s, int stage, struct metric_set *out, void (*job)(void *ctx), void *ctx);
/* sim_summary without its TPOT and queue-time distributions (left zero;
 * everything else the same values), computed afresh unless a whole
 * summary is kept: what eval compares, with two sorts in five fewer. */
void sim_summary_core(struct sim *s, int stage, struct metric_set *out);
int sim_nstages(const struct sim *s);
const char *reject_reason_name(enum reject_reason r);
/* Per-request client-side TTFT and E2E (ms) by request id (arrival order,
 * 0 .. n-1); NAN for requests not completed (rejected, still running) and
 * for all once the run went past LOGHIST_EXACT_MAX completions without
 * cfg.exact_percentiles. */
void sim_per_request(const struct sim *s, double *ttft_ms, double *e2e_ms, size_t n);
/* The same in floats (the values are kept as floats: the same numbers). */
void sim_per_request_f(const struct sim *s, float *ttft_ms, float *e2e_ms, size_t n);
/* Per-request ITL, (E2E - TTFT)/(output - 1) in ms, by request id, on the
 * same terms (NAN also for a completed request of one output token). */
void sim_per_request_itl(const struct sim *s, double *itl_ms, size_t n);
/* vLLM's goodput: *good = the completed requests within every limit
 * (lim_ms: TTFT, TPOT, E2E; NAN: no limit; a one-token request has TPOT
 * 0, as vLLM counts it), *per_s = their number per second from the first
 * arrival to the last completion (0 for an empty run).  SS_EUSAGE when the
 * run kept no per-request values (sim_per_request). */
int sim_goodput(struct sim *s, const double lim_ms[3], size_t *good, double *per_s, struct err *e);
/* vLLM's --goodput text, "ttft:500 tpot:50 e2el:2000" (spaces or commas),
 * into lim_ms (ttft, tpot, e2el; a metric not named is left as it was);
 * SS_EUSAGE naming the bad item. */
int sim_goodput_parse(const char *arg, double lim_ms[3], struct err *e);
/* Keep each completion's engine-side times (24 bytes a record, until they
 * are folded past LOGHIST_EXACT_MAX), for sim_reprice_api; before the
 * first sim_step. */
void sim_keep_client_times(struct sim *s);
/* The client-side API terms (overheads api_ttft_ms, api_e2e_ms) move no
 * step: after a run with sim_keep_client_times, its completions' TTFT,
 * ITL, TPOT and E2E (records, summaries, sim_per_request) become what a
 * run with these two terms instead would have recorded, bit for bit.
 * false (nothing changed) when the run kept no times (past
 * LOGHIST_EXACT_MAX, or without sim_keep_client_times) or went past
 * SIM_FLOW_KEEP_MAX arrivals (its sketch holds the old terms), collects pooled gaps
 * or wrote per-request CSV rows: those hold the old terms. */
bool sim_reprice_api(struct sim *s, double api_ttft_ms, double api_e2e_ms);
/* What a run's sustainability test (report/summary.c: run_status_sim)
 * reads of it.  SIM_FLOW_EXACT: every arrival's time by request id
 * (sim_arrivals) beside the kept per-request values (sim_per_request),
 * 8 bytes a request while the records are kept (LOGHIST_EXACT_MAX
 * completions, or cfg.exact_percentiles) and at most SIM_FLOW_KEEP_MAX
 * arrivals.  SIM_FLOW_SKETCH, past them: per stage, its arrivals' count and
 * span, sums over its completions and the arrival and completion times on
 * two tlines (tline.h), in memory that does not grow with the requests.
 * SIM_FLOW_NONE: nothing to judge (live use, a closed loop, a trace, or
 * session turns arriving after completions). */
enum sim_flow_kind { SIM_FLOW_NONE, SIM_FLOW_EXACT, SIM_FLOW_SKETCH };
#define SIM_FLOW_KEEP_MAX (4 * (size_t)LOGHIST_EXACT_MAX)
struct sim_flow {
	uint64_t arrived, completed;
	double first_s, last_s;      /* the stage's first and last arrival */
	/* over its completions, in completion order: E2E (s), and for the
	 * least-squares slope of TTFT on arrival, x = arrival - first (s) and
	 * y = TTFT (s) */
	double e2e_s, sx, sy, sxx, sxy;
	/* arrivals, and completions (arrival + E2E), in seconds */
	struct tline arr, done;
};
enum sim_flow_kind sim_flow_kind(const struct sim *s);
/* SIM_FLOW_EXACT: every arrival's time (seconds) by request id, *n of
 * them (the run's arrivals); NULL and 0 under another kind.  The sim's. */
const double *sim_arrivals(const struct sim *s, size_t *n);
/* SIM_FLOW_EXACT where the run kept them beside the arrivals (a run on the
 * sinks' thread, sim_cfg.arrival_thread, expecting at most
 * LOGHIST_EXACT_MAX requests): each request's client-side TTFT and E2E
 * (ms) by request id, sim_per_request_f's values for sim_arrivals' *n
 * requests; false (both NULL) otherwise.  The sim's. */
bool sim_flow_values(const struct sim *s, const float **ttft_ms, const float **e2e_ms);
/* Frees what sim_flow_values reads (its reader is done; a later test
 * gathers the same values from the records).  Touches nothing
 * sim_summary reads, so it may run beside it (sim_summary_beside). */
void sim_flow_values_drop(struct sim *s);
/* SIM_FLOW_SKETCH: stage's (0 .. WL_MAX_STAGES-1) figures, NULL when it
 * had no arrival (and under another kind). */
const struct sim_flow *sim_flow(const struct sim *s, int stage);
/* The header line of cfg.requests_out's rows (one per request, written
 * as it completes or is rejected): spec and pd add the speculative-decoding
 * and P/D columns, as cfg.spec.k > 0 and cfg.pd.prefill > 0 do to the rows. */
void sim_requests_csv_header(FILE *f, bool spec, bool pd);
/* Running and waiting counts summed over replicas (tests, serve's metrics). */
void sim_queue_counts(const struct sim *s, uint64_t *running, uint64_t *waiting);
/* The share of KV blocks in use, over every replica (0..1). */
double sim_kv_usage(const struct sim *s);

/* --- autoscaling (plan/autoscale.h) --- */

/* Arrivals go to the n replicas ix lists (ascending indices below
 * cfg.replicas) from now on; the others take none but run what they hold
 * to the end.  n 0 (or ix NULL): every replica again. */
void sim_set_routable(struct sim *s, const int *ix, int n);
/* Replicas in the pool (cfg.replicas, at least 1). */
int sim_nreplicas(const struct sim *s);
/* What replica i holds now, summed over its engine ranks: requests running
 * and waiting, KV blocks in use and in all, its max_num_seqs. */
struct sim_replica_load {
	uint64_t running, waiting;
	double kv_used, kv_total;
	int64_t max_seqs;
};
void sim_replica_load(const struct sim *s, int replica, struct sim_replica_load *out);
/* The share (0, 1] of the pool's GPU time its GPUs were held: the energy
 * summary's idle draw and power per GPU count that share of the GPUs. */
void sim_set_provisioned_share(struct sim *s, double share);
/* Set cfg.on_request after sim_new (before the first sim_step). */
void sim_on_request(struct sim *s, void (*fn)(void *ctx, const struct sim_req_row *row), void *ctx);

/* Sessions (wl_spec.sess): the completed requests' figures by turn index,
 * rows 1 .. SIM_TURN_ROWS, the last holding that turn and every later one
 * (rows with no completion are skipped).  TTFT client side, its
 * percentiles within LOGHIST_REL_ERR (loghist.h); prefix_hit_rate: cached
 * prompt tokens over prompt tokens at first admission. */
#define SIM_TURN_ROWS 32
struct sim_turn_stats {
	int turn;
	bool and_later;            /* the last row: turns >= turn */
	size_t completed;
	double prompt_tokens_mean, prefix_hit_rate;
	struct dist_summary ttft_ms;
};
/* Rows into out (at most max); how many. */
size_t sim_turn_stats(const struct sim *s, struct sim_turn_stats *out, size_t max);

/* --- live use (cfg.live) --- */

/* Time of the next event (INT64_MAX when nothing is pending). */
int64_t sim_next_event_ns(const struct sim *s);
/* Process every event up to t_ns, then move the clock to t_ns (never
 * back: a t_ns before now only processes what is due; INT64_MAX runs every
 * pending event and leaves the clock at the last).  0 or <0. */
int sim_advance(struct sim *s, int64_t t_ns, struct err *e);
/* A request of prompt_tokens and output_tokens arrives now: its id in *id
 * (arrival order).  Returns 1 when it was admitted, 0 when it was rejected
 * at once (*why: longer than max_model_len, or more KV than the cache
 * holds; cfg.on_request has seen it), <0 on error (SS_EUSAGE: not a live
 * simulation, or a count out of range). */
int sim_submit(struct sim *s, int64_t prompt_tokens, int64_t output_tokens, int64_t *id,
	       enum reject_reason *why, struct err *e);
/* Request id's client went away, as vLLM's abort_request: a waiting
 * request (queued, or preempted) leaves at once; a running one leaves at
 * the end of its engine's step in progress (vLLM handles aborts between
 * steps), unless that step finishes it (it then completes), its KV blocks
 * freed and that step's tokens never delivered; one in a P/D transfer
 * leaves when its KV lands.  It is counted in sim_totals.aborted and
 * reported (cfg.on_request, the CSV rows) with status "aborted" and the
 * tokens it generated as its output: arrived = completed + running +
 * waiting + rejected + aborted holds throughout.  Returns 1 when it left
 * now, 2 when it leaves at that step end, 0 when the simulation no longer
 * holds it (completed, rejected, aborted, or no such id), <0 on error
 * (SS_EUSAGE: not a live simulation). */
int sim_abort(struct sim *s, int64_t id, struct err *e);

#endif
