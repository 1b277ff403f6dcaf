/* scenario.h - everything one simulation needs, resolved into a ready sim:
 * memory plan (KV blocks), tier-0 cost model and engine configuration.  Used
 * by `servesim run`, `servesim eval` and the calibration fits. */
#ifndef SERVESIM_SCENARIO_H
#define SERVESIM_SCENARIO_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cost/cost.h"
#include "cost/memplan.h"
#include "deploy/fields.h"
#include "engine/sglang.h"
#include "sim/sim.h"

struct engine_type;

struct scenario {
	const struct model_cfg *model;
	const struct gpu_spec *gpu;
	struct parallel par;
	enum dtype wdt, kvdt;
	/* where kvdt came from when a rule chose it and it is not simply the
	 * weights' dtype (scenario_kv_auto's reason, "experiment kv_dtype"),
	 * for the run header; "" otherwise */
	char kvdt_src[120];
	/* max_num_batched_tokens, max_num_seqs, max_model_len, block_size,
	 * gpu_memory_utilization, total_kv_blocks (0: from the memory plan),
	 * prefix caching, ...: the field table's knobs, resolved */
	/* k.replicas: independent copies of the whole layout below (TP x PP x
	 * DP x EP, P/D pools included) behind the router k.router (its name;
	 * NULL: least-loaded, scenario_router; sim_cfg.replicas, .router) */
	struct deploy_knobs k;
	unsigned tier0_off;
	struct overheads ov;
	/* eval --cv: the engine host row's fitted terms (engine_host.fit)
	 * times host_scale when host_scaled, before ov applies */
	bool host_scaled;
	double host_scale;
	int64_t graph_max;            /* largest CUDA-graph capture size */
	const struct wl_spec *workload;
	const struct tier2 *tier2;    /* measured bandwidth per pattern, or NULL */
	const struct engine_type *engine; /* its rules, scheduler and kernel terms (engine/engine.h) */
	char engine_version[32];
	enum moe_dist moe_dist;
	int moe_format;               /* cost_cfg.moe_format */
	/* cost_cfg.moe_backend of the engine (P/D: the decode workers') and
	 * of the P/D prefill workers (each pool's own launch names one) */
	enum moe_backend moe_backend, prefill_moe_backend;
	struct mfu_cache *mfu_cache;  /* shared kernel tables, or NULL */
	/* the main cost model through this share (cost/share.h: a search's
	 * run of deployments priced alike, on one thread), or NULL */
	struct cost_share *cost_share;
	bool moe_wdt_given;           /* routed experts stored as moe_wdt */
	enum dtype moe_wdt;
	FILE *requests_out, *step_log;
	bool check_invariants;
	bool exact_percentiles;       /* sim_cfg.exact_percentiles */
	bool no_segments;             /* sim_cfg.no_segments */
	bool arrival_thread;          /* sim_cfg.arrival_thread */
	bool no_pooled_gaps;          /* sim_cfg.no_pooled_gaps */
	bool no_energy;               /* sim_cfg.no_energy */
	struct spec_cfg spec;         /* speculative decoding (k 0: off) */
	const struct model_cfg *draft_model; /* spec.method SPEC_DRAFT */
	/* P/D disaggregation (pd_prefill 0: off): pd_prefill prefill workers
	 * of layout prefill_par and pd_decode decode workers of layout par
	 * (dp > 1 in either: attention-DP ranks of an MoE engine); the same
	 * engine limits on both unless prefill_max_num_seqs /
	 * prefill_max_num_batched_tokens are set (0: the decode workers').
	 * Mixed GPU types (prefill_gpu): each pool on its own GPU's tables and
	 * memory, the KV over the slower side's inter-node link.
	 * pd_handoff_ms: each request's fixed hand-off time on top of the KV's
	 * link time when pd_handoff_given, else the engine's
	 * (scenario_pd_handoff_s) */
	int pd_prefill, pd_decode;
	struct parallel prefill_par;
	const struct gpu_spec *prefill_gpu; /* the prefill workers' GPU when not gpu's type (NULL: gpu) */
	int64_t prefill_max_num_seqs, prefill_max_num_batched_tokens;
	/* SGLang: the prefill workers' --mem-fraction-static (0: the prefill
	 * memory plan takes k.gpu_memory_utilization, as before) */
	double prefill_mem_fraction_static;
	double pd_handoff_ms;
	bool pd_handoff_given;
	/* SGLang (engine "sglang"): mem_fraction_static sizes the memory plan
	 * instead of gpu_memory_utilization (0: SGLang's rule, sglang.h);
	 * max_num_seqs is max_running_requests, from SGLang's rule over the KV
	 * pool when sglang_mrr_rule; the waiting-queue policy; overlap
	 * scheduling (on unless disable_overlap) hides the CPU overhead terms
	 * under the GPU time (cost_cfg.overlap_cpu); k.mem_fraction_static,
	 * k.disable_overlap, k.sglang_mixed_chunk (sim_cfg) and
	 * k.max_prefill_tokens (sim_cfg.max_prefill_tokens) */
	bool sglang_mrr_rule;
	enum sglang_policy sglang_policy;
	int sglang_recv_interval;     /* --scheduler-recv-interval (sim_cfg.recv_interval; 0: 1) */
	/* TensorRT-LLM's attention_dp_config with enable_balance: timeout_iters
	 * and batching_wait_iters (sim_cfg.adp_timeout_iters; 0: off) */
	int64_t trtllm_adp_timeout_iters, trtllm_adp_batching_wait_iters;
	/* TensorRT-LLM's batch_wait_timeout_iters and batch_wait_max_tokens_ratio
	 * (sim_cfg.batch_wait_iters, batch_wait_tokens; 0: off) */
	int64_t trtllm_batch_wait_iters;
	double trtllm_batch_wait_ratio;
	/* the benchmark client sent no warm-up requests, so the server starts
	 * cold (sim_cfg.cold_start_s from engine_type.cold_start_s) */
	bool cold_start;
	/* KV offload to host memory (sim_cfg.offload; engine_type.offload),
	 * in k.  vLLM: kv_offloading_gib > 0 (--kv-offloading-size, GiB over the TP
	 * ranks of an engine) with kv_offloading_backend (native: its
	 * OffloadingConnector; lmcache: LMCache's connector).  SGLang: hicache
	 * (--enable-hierarchical-cache) with hicache_ratio (host pool / device
	 * pool, 2 by default) or hicache_gb > 0 (--hicache-size, GB per rank,
	 * over the ratio). */
	enum kv_offload_backend { KV_OFFLOAD_NATIVE, KV_OFFLOAD_LMCACHE } kv_offloading_backend;
	/* LoRA (sim_cfg.lora; engine_type.lora), k.lora on (--enable-lora):
	 * lora_max adapters per step (vLLM --max-loras, SGLang
	 * --max-loras-per-batch), k.lora_rank (--max-lora-rank), lora_host
	 * adapters in host memory (vLLM --max-cpu-loras, SGLang
	 * --max-loaded-loras); 0: the engine's default */
	int64_t lora_max, lora_host;
	/* E/P/D (sim_cfg.epd): epd_encoders encoder workers of one GPU each
	 * ahead of the prefill (or aggregated) workers of each copy; 0: the
	 * engines encode their own images */
	int epd_encoders;
	/* EPLB (--enable-eplb; cost_cfg.eplb): the layout's redundant experts
	 * (par.ep_redundant) over the EP ranks, rebalanced every eplb_interval
	 * engine steps (0: the engine's, engine_type.eplb_interval);
	 * eplb_async: vLLM's use_async, the weight move beside the steps (not
	 * priced); eplb_set: the settings in the engine's flags, for the run
	 * header */
	bool eplb, eplb_async;
	int64_t eplb_interval;
	char eplb_set[200];
	/* the all-reduce + RMSNorm fusion (cost_cfg.ar_fused_bytes): all-reduces
	 * of at most this many bytes; 0: the engine's default
	 * (engine_type.ar_fused_bytes); < 0: none */
	double ar_fused_bytes;
};

struct scenario_state {
	struct cost_model cost;
	struct memplan mp;
	bool kv_from_memory;
	struct sim_cfg sc;
	struct sim *sim;
	struct cost_model draft_cost; /* the draft model's, when one is used */
	bool has_draft;
	struct cost_model prefill_cost; /* P/D: the prefill workers' */
	struct memplan prefill_mp;
	bool has_prefill;
	bool pd_nvlink;               /* P/D: both pools in one NVLink domain */
	/* SGLang: what its mem_fraction_static rule reserved, and the
	 * fraction and max_running_requests the plan used */
	struct sglang_mem sg_mem;
	double mem_fraction_static;
	int64_t max_running_requests;
	/* KV offload: the engine's words on its host tier ("" when off) */
	char offload_words[640];
	/* LoRA: what the run header says of it ("" when off) */
	char lora_words[1200];
	/* EPLB: what the run header says of it ("" when off) */
	char eplb_words[1400];
	/* images: the token rule, the encoder's time and its cache ("" when
	 * the workload sends none) */
	char mm_words[1000];
	/* E/P/D: the encoder workers' cost model (one GPU), and the header's
	 * words on the pool */
	struct cost_model enc_cost;
	bool has_enc;
	char epd_words[600];
};
/* E/P/D: each request's fixed hand-off from the encoder pool to a
 * language-model worker besides the embeddings' link time: the proxy's
 * second request (vLLM's disagg_epd_proxy sends to the encoder, waits, then
 * to the prefill instance).  1 ms, an assumption: no published measurement
 * at hand. */
#define SCENARIO_EC_HANDOFF_S 1e-3

/* The defaults every engine starts from, vLLM v1's: max_num_batched_tokens
 * 8192 and max_num_seqs 1024 on a GPU with >= 70 GiB other than A100, else
 * 2048 and 256 (vLLM's EngineArgs defaults for the OpenAI API server); block
 * 16, 0.9 utilisation, prefix caching on, CUDA graphs up to 512,
 * max_model_len the model's max_position_embeddings (32768 when absent),
 * default overheads; then engine en's own (engine_type.defaults). */
void scenario_defaults(struct scenario *sc, const struct engine_type *en, const struct model_cfg *m,
		       const struct gpu_spec *g, const struct wl_spec *wl);
/* The KV-cache dtype engine en runs with when none is given, for weights
 * in wdt (--dtype) on GPU g (may be NULL): fp8 for DeepSeek-V4 (every
 * engine's only or default format for it), else the engine's rule
 * (engine_type.kv_auto).  why (n bytes) says which rule chose it, "" when
 * the result is wdt for no other reason than that (the header has nothing
 * to add). */
enum dtype scenario_kv_auto(const struct model_cfg *m, const struct gpu_spec *g, const struct engine_type *en,
			    enum dtype wdt, char *why, size_t n);
/* kv_cache_dtype "auto" as vLLM and SGLang take it: fp8 when the checkpoint
 * declares an fp8 KV cache (m->q.kv_fp8), else the activation dtype: wdt
 * when it is bf16 or fp16, else bf16 (an fp8/fp4/int4 checkpoint computes
 * in bf16); why as scenario_kv_auto's. */
enum dtype scenario_kv_model(const struct model_cfg *m, enum dtype wdt, char *why, size_t n);
/* True where vLLM picks its large-GPU defaults; the rule in words. */
bool scenario_big_gpu(const struct gpu_spec *g);
const char *scenario_limits_rule(const struct gpu_spec *g);
/* Attention-DP: an MoE model with dp > 1 (DP ranks share the MoE layers and
 * step in lockstep); dense models keep DP as replicas behind the router. */
bool scenario_dp_attention(const struct model_cfg *m, const struct parallel *p);
/* Layout p with the weights s's engine splits over its attention-DP ranks
 * (parallel.dp_shard from engine_type.dp_shard; 0 without attention DP):
 * what the memory plan and the cost model are given. */
struct parallel scenario_layout(const struct scenario *s, const struct parallel *p);
/* The tokens one rank of layout p budgets per prefill batch when the engine
 * is given (or defaults to) chunk: chunk / dp for an engine that splits its
 * chunk over attention-DP ranks (engine_type.chunk_split_dp, SGLang), at
 * least 1; chunk otherwise (0 stays 0). */
int64_t scenario_rank_chunk(const struct scenario *sc, const struct parallel *p, int64_t chunk);
/* A rank's max_num_seqs on layout p: a given limit divided over the
 * attention-DP ranks (engine_type.seqs_split_dp, SGLang), at least 1; mns
 * otherwise (0 stays 0). */
int64_t scenario_rank_seqs(const struct scenario *sc, const struct parallel *p, int64_t mns);
/* The scheduler's conservativeness on the ranks of layout p: the engine's
 * scale under attention DP (engine_type.dp_conservativeness), else 1. */
double scenario_conservativeness(const struct scenario *sc, const struct parallel *p);
int scenario_prepare(const struct scenario *sc, const char *data_dir, struct scenario_state *st,
		     struct err *e);
/* The achieved share of a host link's bandwidth for KV blocks: 50 GB/s
 * one way of PCIe 5.0 x16's 64 on an H100 with 2 MB blocks (vLLM's KV
 * offloading blog, 2026-01-08: cudaMemcpyAsync, one direction at a time). */
#define SCENARIO_HOST_LINK_EFF (50.0 / 64.0)
/* KV offload: a host tier of host_bytes_per_gpu on each GPU of an engine
 * (each GPU keeps its own shard of a block there), or of `blocks` blocks
 * when that is > 0, into o: its blocks, the
 * seconds a block takes each way over the GPU's host link at
 * SCENARIO_HOST_LINK_EFF, the layers of a pipeline stage; SS_EUSAGE naming
 * `flag` when it holds no block or too many.  Per-GPU block bytes into
 * *block_bytes. */
int scenario_offload_tier(const struct scenario *sc, double host_bytes_per_gpu, double blocks, const char *flag,
			  struct sim_offload *o, double *block_bytes, struct err *e);
/* LoRA: the achieved share of the host link for an adapter's copy into a
 * GPU slot (as KV blocks', SCENARIO_HOST_LINK_EFF), and the disk read
 * bandwidth of an adapter file not in host memory: 2 GB/s, an assumption
 * (an NVMe drive's sequential read is 3 to 7 GB/s; safetensors parsing and
 * the engines' Python-side setup take their share; no published
 * per-adapter load time at hand). */
#define SCENARIO_LORA_DISK_BW 2e9
/* LoRA weights' bytes per parameter: bf16 (the engines' lora dtype "auto":
 * the model's activation dtype) */
#define SCENARIO_LORA_DTYPE_BYTES 2.0
/* Is KV offload asked for (either engine's flags)? */
/* P/D: the inter-node link the KV crosses, per GPU: the slower of the two
 * pools' GPUs (one type: its own). */
double scenario_pd_net_bw(const struct scenario *sc);
bool scenario_offload_on(const struct scenario *sc);
void scenario_release(struct scenario_state *st);
/* The router's kind: k.router's, least-loaded when none is named (run's
 * default; an experiment names its own, round-robin). */
enum router_kind scenario_router(const struct scenario *sc);
/* GPUs of one replica (both pools with P/D), and of all replicas. */
int scenario_gpus_per_replica(const struct scenario *sc);
int scenario_gpus(const struct scenario *sc);

/* Start-up checks that mirror vLLM's and SGLang's, in their wording:
 * before scenario_prepare, the configuration (weights in a dtype the GPU
 * has no tensor cores for: fp8 on Ampere becomes a W8A16 note, anything else
 * is refused; max_model_len above max_position_embeddings; EP other than 1
 * or TP x DP); after it, the KV capacity (one request of max_model_len must
 * fit, per DP rank; skipped when the block count was given).  A refusal is
 * SS_EUSAGE; with allow it becomes a warning line in notes instead.  Notes
 * (newline-separated, appended) also carry what is modelled differently. */
int scenario_check_config(const struct scenario *sc, bool allow, char *notes, size_t nnotes,
			  struct err *e);
/* Speculative decoding the engines refuse (MTP on a model without MTP
 * modules), as scenario_check_config; once sc->spec is set. */
int scenario_check_spec(const struct scenario *sc, bool allow, char *notes, size_t nn, struct err *e);
/* P/D on two GPU types the engines refuse (weights in a dtype the prefill
 * workers' GPU has no tensor cores for), as scenario_check_config; once
 * sc->prefill_gpu is set. */
int scenario_check_pd(const struct scenario *sc, bool allow, char *notes, size_t nn, struct err *e);
int scenario_check_capacity(const struct scenario *sc, const struct scenario_state *st,
			    bool allow, char *notes, size_t nnotes, struct err *e);
/* scenario_prepare, then scenario_check_capacity: what every run does
 * before it simulates.  st holds a prepared state (scenario_release) only
 * on 0: a refused check releases it again. */
int scenario_start(const struct scenario *sc, const char *data_dir, bool allow, char *notes, size_t nnotes,
		   struct scenario_state *st, struct err *e);

#endif
