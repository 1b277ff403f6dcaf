/* engine.h - an inference engine as servesim models it: its name and the
 * settings it takes, its defaults from the GPU and model, its start-up rules
 * in its own words, its KV-cache dtype rule, its memory plan, its scheduler,
 * the terms fitted on its kernels and its launch line.
 *
 * One file per engine fills one const struct engine_type (vllm.c, sglang.c,
 * trtllm.c); registry.h finds them by name.  A new engine is one such file and
 * one line in registry.c.  Nothing outside src/engine/ names an engine: code
 * asks the type (its settings, hooks and terms) instead. */
#ifndef SERVESIM_ENGINE_ENGINE_H
#define SERVESIM_ENGINE_ENGINE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "hw/gpu.h"
#include "cost/cost.h"
#include "model/model.h"
#include "sim/sim.h"

struct scenario;
struct scenario_state;
struct sched_policy;
struct sim_cfg;
struct sim_offload;
struct sim_lora;
struct cost_engine;
struct launch_in;
struct sbuf;

/* Settings only some engines take (engine_type.knobs).  An engine without
 * the bit refuses the setting (engine_check_knobs). */
enum engine_knob {
	ENGINE_KNOB_MEM_FRACTION = 1 << 0,    /* --mem-fraction-static sizes its memory */
	ENGINE_KNOB_SCHEDULE_POLICY = 1 << 1, /* --schedule-policy fcfs|lpm */
	ENGINE_KNOB_NO_OVERLAP = 1 << 2,      /* --disable-overlap-schedule */
	ENGINE_KNOB_MAX_PREFILL = 1 << 3,     /* --max-prefill-tokens */
	ENGINE_KNOB_MIXED_CHUNK = 1 << 4,     /* --enable-mixed-chunk */
	/* max_num_batched_tokens and max_num_seqs may be left to its rules
	 * (experiment.json may omit them) */
	ENGINE_KNOB_RULE_LIMITS = 1 << 5,
	/* KV offload to host memory in vLLM's flags (--kv-offloading-size,
	 * --kv-offloading-backend) or SGLang's (--enable-hierarchical-cache,
	 * --hicache-ratio, --hicache-size): engine_check_offload */
	ENGINE_KNOB_KV_OFFLOAD = 1 << 6,
	ENGINE_KNOB_HICACHE = 1 << 7,
	/* LoRA adapters (--enable-lora, --max-lora-rank) with vLLM's limits
	 * (--max-loras, --max-cpu-loras) or SGLang's (--max-loras-per-batch,
	 * --max-loaded-loras): engine_check_lora */
	ENGINE_KNOB_LORA_VLLM = 1 << 8,
	ENGINE_KNOB_LORA_SGLANG = 1 << 9,
	ENGINE_KNOB_RECV_INTERVAL = 1 << 10,   /* --scheduler-recv-interval N */
	/* EPLB (--enable-eplb) with vLLM's settings (--eplb-config JSON, the
	 * older --num-redundant-experts) or SGLang's
	 * (--ep-num-redundant-experts, --eplb-rebalance-num-iterations) */
	ENGINE_KNOB_EPLB_VLLM = 1 << 11,
	ENGINE_KNOB_EPLB_SGLANG = 1 << 12,
	ENGINE_KNOB_NO_DEEP_GEMM = 1 << 13,   /* --no-deep-gemm (vLLM without DeepGEMM) */
	ENGINE_KNOB_DP_LM_HEAD = 1 << 14,     /* --enable-dp-lm-head */
	ENGINE_KNOB_MOE_DENSE_TP = 1 << 15,   /* --moe-dense-tp-size 1 */
};

/* An engine's host-side terms from one version on: the CPU work of a step
 * and of each request in it, the client-side API terms and, for an engine
 * that launches prefill steps eagerly, the host time per operator of such a
 * step (struct overheads), and whether its scheduler overlaps the step's CPU
 * work with the GPU's previous batch.  Fitted on the engine's own measured
 * runs (src says on which); a deployment's given terms (flags, a calibration
 * file) replace them field by field (cost_overheads_apply). */
struct engine_host {
	const char *from;      /* the row holds from this version on; "" = any */
	/* under these benchmark clients only (wl_spec.harness names, comma
	 * separated); NULL = any */
	const char *harness;
	struct overheads ov;
	bool overlap;          /* the step's CPU work overlaps the GPU (cost_cfg.overlap_cpu) */
	const char *src;       /* what the terms were fitted on, for the run header */
	/* the terms of ov fitted on measured runs (OV_* bits): what `eval --cv`
	 * refits (scenario.host_scale scales them) */
	unsigned fit;
	/* fitted on aggregated deployments only: a P/D deployment's workers
	 * take the next row that holds for them */
	bool agg_only;
	/* holds under speculative decoding only (the host time of the
	 * engine's speculative worker); a deployment with drafts takes the
	 * first such row that holds for it, else the next general one */
	bool spec;
};

struct engine_type {
	/* --engine's value, experiment.json's engine.name, the prefix of its
	 * kernel collections (data/mfu/<gpu>/<name>-<version>/) */
	const char *name;
	const char *title;          /* as its documentation writes it ("vLLM") */
	unsigned knobs;             /* enum engine_knob bits */
	/* its defaults over scenario_defaults' (the settings a deployment
	 * leaves to the engine), from sc->model and sc->gpu; NULL: none */
	void (*defaults)(struct scenario *sc);
	/* the KV-cache dtype it runs with when none is given, for weights of
	 * dtype wdt on GPU g (may be NULL); why (n bytes) names the rule when
	 * it is not simply wdt ("" otherwise).  scenario_kv_auto applies the
	 * rules every engine shares first. */
	enum dtype (*kv_auto)(const struct model_cfg *m, const struct gpu_spec *g, enum dtype wdt, char *why,
			      size_t n);
	/* start-up: an expert-parallel layout it refuses, as it words the
	 * refusal (msg, n bytes); NULL: EP 1 or TP x DP (scenario_check_config) */
	bool (*ep_refused)(const struct scenario *sc, char *msg, size_t n);
	/* start-up: the first other setting it refuses to start with (block
	 * size, batch limits, KV-cache dtype), as it words the refusal (msg, n
	 * bytes); NULL: none beyond the shared checks */
	bool (*start_refused)(const struct scenario *sc, char *msg, size_t n);
	/* its memory plan for one replica of layout rep into st->mp (and what
	 * it reports of it); NULL: gpu_memory_utilization of the GPU's memory
	 * (memplan_compute) */
	int (*plan_memory)(const struct scenario *sc, const struct parallel *rep, struct scenario_state *st,
			   struct err *e);
	/* max_num_seqs by its rule when sc->sglang_mrr_rule leaves them to it
	 * (after the memory plan); NULL: sc->max_num_seqs */
	int64_t (*max_running)(const struct scenario *sc, const struct scenario_state *st);
	/* its host terms by version, newest first (engine_host_for); the
	 * overlap scheduling they say applies unless sc->disable_overlap */
	const struct engine_host *host;
	size_t nhost;
	/* P/D: each request's fixed hand-off beyond the KV's link time, s */
	double pd_handoff_s;
	/* P/D: where the client's first token comes from (sim/sim.h,
	 * enum sim_pd_first; 0: the prefill worker, at the hand-off) */
	enum sim_pd_first pd_first;
	/* P/D: a busy decode worker takes one iteration to admit a handed-off
	 * request before it runs it (sim_cfg.pd.gen_init_step) */
	bool pd_gen_init_step;
	/* P/D: an attention-DP prefill worker puts a request on a random rank
	 * of its own (sim_cfg.pd.prefill_rank_random) rather than the router
	 * choosing among every prefill rank of the pool */
	bool pd_prefill_rank_random;
	/* with attention DP its chunked-prefill budget is the engine's, not a
	 * rank's: each rank schedules the given (or default) chunk divided by
	 * the DP size (scenario_rank_chunk) */
	bool chunk_split_dp;
	/* attention DP on an MoE model: the weights it splits over all tp x
	 * dp GPUs rather than keeping whole on each DP rank (enum par_dp_shard
	 * bits for sc's version, into parallel.dp_shard for the memory plan and
	 * the cost model: scenario_layout); NULL: none (each rank holds its
	 * dense FFNs, shared experts and LM head whole at TP tp) */
	unsigned (*dp_shard)(const struct scenario *sc);
	/* with attention DP a given max_num_seqs (SGLang's
	 * --max-running-requests) is the engine's, not a rank's: each rank
	 * admits it divided by the DP size (scenario_rank_seqs); a limit by
	 * the engine's own rule (max_running) stays a rank's */
	bool seqs_split_dp;
	/* with attention DP its scheduler's conservativeness (the new-token
	 * ratio's scale, sim_cfg.conservativeness) is this times the given
	 * one; 0: unchanged */
	double dp_conservativeness;
	/* its overlap scheduler is off under speculative decoding (the host
	 * terms' CPU part no longer hides under the GPU's batch) */
	bool spec_no_overlap;
	/* a cold server (scenario.cold_start: the client sent no warm-up):
	 * the one-time stall of its first prefill step right after another
	 * (sim_cfg.cold_start_s), s; 0: none known */
	double cold_start_s;
	/* EPLB: engine steps between two rebalances when none is given (0: it
	 * has no EPLB servesim models) */
	int64_t eplb_interval;
	/* the first release whose one serve command starts an API server per
	 * DP rank (sim_cfg.api_servers: the arrivals' intake shared by dp
	 * event loops); NULL: one API server whatever the DP size */
	const char *api_servers_dp_from;
	/* the prompt tokens one prefill batch takes when no
	 * --max-prefill-tokens is given (sim_cfg.max_prefill_tokens; 0: no
	 * cap), and the first release from which a prompt past the batch's
	 * first that is longer than what is left of it still joins (chunked to
	 * the chunked-prefill budget) rather than waiting whole
	 * (sim_cfg.max_prefill_whole; NULL: always whole); an unknown version
	 * is taken as the newest */
	int64_t max_prefill_default;
	const char *max_prefill_fill_from;
	/* its kernel collections and the terms fitted on its kernels */
	const struct cost_engine *cost;
	/* its scheduler (sim/core.h: how each step's batch is picked and whom
	 * it admits; sim_cfg.policy) and the run header's sentence on it */
	const struct sched_policy *policy;
	void (*sched_words)(const struct sim_cfg *cfg, bool overlap, char *out, size_t n);
	/* its ROCm build on an AMD GPU g (gpu_spec.vendor "amd"), for the run
	 * header: the kernels it calls and the defaults that differ from its
	 * CUDA build (n bytes); NULL: it has no ROCm build */
	void (*rocm_words)(const struct gpu_spec *g, char *out, size_t n);
	/* the command lines that start a deployment on it (search's launch
	 * lines); NULL: servesim writes none */
	void (*launch)(const struct launch_in *in, struct sbuf *out);
	/* KV offload to host memory, when sc asks for it (scenario.h's
	 * offload settings in its flags' terms): the host tier, sized by
	 * scenario_offload_tier, and how its transfers meet the step (o), with
	 * its words on them for the run header (n bytes); NULL: it offloads
	 * nothing (its flags are refused before) */
	int (*offload)(const struct scenario *sc, const struct scenario_state *st, struct sim_offload *o,
		       char *words, size_t n, struct err *e);
	/* LoRA, when sc->lora: its limits with its defaults for those sc
	 * leaves at 0 and its start-up checks on them (SS_EUSAGE in its
	 * words), into o (max_loras, rank, cpu_slots, base_counts; the
	 * transfer terms are scenario_prepare's), and the settings in its
	 * flags' words for the run header (n bytes); NULL: no LoRA (its
	 * flags are refused before) */
	int (*lora)(const struct scenario *sc, struct sim_lora *o, char *words, size_t n, struct err *e);
	/* the TP all-reduces it fuses with the next RMSNorm by default on sc's
	 * deployment (cost_cfg.ar_fused_bytes): up to this many bytes, 0 none;
	 * NULL: it fuses none.  A deployment's own setting
	 * (scenario.ar_fused_bytes) replaces it */
	double (*ar_fused_bytes)(const struct scenario *sc);
	/* why MXFP4 routed experts run its Marlin W4A16 kernel on sc's GPU and
	 * version (cost_cfg.mxfp4_marlin), or NULL where they run its MXFP4
	 * kernel (the one its collections time); NULL hook: the latter always */
	const char *(*mxfp4_marlin)(const struct scenario *sc);
	/* which of aiter's gfx942 configs of its Triton block-scaled fp8 GEMM
	 * its ROCm build runs a block-fp8 checkpoint's dense linears with on
	 * sc's GPU and version (cost_cfg.rocm_triton_bs), COST_TBS_OFF where
	 * it runs the kernel the aiter tables time; NULL hook: the latter */
	enum cost_tbs (*rocm_triton_bs)(const struct scenario *sc);
	/* where its ROCm build runs aiter's Triton block-scaled fp8 GEMM on
	 * sc's GPU and version, whatever prices it (cost_cfg.rocm_triton_jit:
	 * the kernel's compiles at new prefill sizes), COST_TBS_OFF where it
	 * does not; NULL hook: never */
	enum cost_tbs (*rocm_triton_jit)(const struct scenario *sc);
	/* why the engine keeps an MXFP4 checkpoint's block scales on the GPU
	 * beside the relaid copy its kernel reads (cost_cfg.mxfp4_scales_kept:
	 * the experts weigh 1/17 more), or NULL; NULL hook: never */
	const char *(*mxfp4_scales_kept)(const struct scenario *sc);
	/* why its block-fp8 routed experts run DeepGEMM's grouped GEMM over
	 * the whole padded workspace on sc's GPU, version and layout
	 * (cost_cfg.moe_dg_padded), or NULL; NULL hook: never */
	const char *(*moe_dg_padded)(const struct scenario *sc);
	/* why it runs a block-fp8 checkpoint's dense linears on its CUTLASS
	 * block-scaled GEMM on sc's GPU and install (cost_cfg.cutlass_bs,
	 * cost/cutlassbs.c), or NULL where they run the kernels its GEMM
	 * tables price; NULL hook: never */
	const char *(*block_fp8_cutlass)(const struct scenario *sc);
	/* why that CUTLASS path copies every call's activations and scales
	 * into fresh buffers padded to a multiple of 4 rows
	 * (cost_cfg.cutlass_bs_pad, cost/cutlassbs.c), or NULL; NULL hook:
	 * never */
	const char *(*block_fp8_cutlass_pad)(const struct scenario *sc);
	/* why it runs sc's model's decoder attention on vLLM's Triton unified
	 * attention kernel where its tables time FlashAttention on sc's GPU
	 * (cost_cfg.triton_attn, cost/tritonattn.c), or NULL; NULL hook:
	 * never */
	const char *(*triton_attn)(const struct scenario *sc);
	/* why it runs an MLA model's absorbed W_UK / W_UV products in bf16
	 * (kv_b_proj's weights dequantised at load) where the checkpoint
	 * stores kv_b quantised (cost_cfg.mla_absorb_bf16), or NULL where
	 * they run in kv_b's stored format; NULL hook: the latter */
	const char *(*mla_absorb_bf16)(const struct scenario *sc);
};

/* The fp8 format of an AMD GPU's fp8 kernels, as the ROCm builds name it:
 * e4m3fnuz on CDNA3 (gfx942: MI300X, MI325X; checkpoints in e4m3fn are
 * converted at load, same bytes), OCP e4m3fn on CDNA4 (gfx950: MI355X).
 * vLLM: RocmPlatform.fp8_dtype (vllm/platforms/rocm.py, "gfx94" -> fnuz). */
const char *engine_rocm_fp8(const struct gpu_spec *g);

#endif
