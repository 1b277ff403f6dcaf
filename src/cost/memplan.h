/* memplan.h - GPU memory plan of one replica, as vLLM sizes its KV cache:
 *   KV bytes = mem x gpu_memory_utilization - weights - activation peak
 *              - runtime reserve
 * The activation term and the reserve were fitted to the two vLLM 0.11 logs
 * in eval/ground_truth (CodeLlama-34B on H100): 0.63 GiB of non-torch and
 * CUDA-graph memory, plus the profiling pass's peak of
 * max_num_batched_tokens x (3 x intermediate + 4 x hidden) x 2 bytes, plus
 * fp32 logits for max_num_seqs sequences.  They reproduce 2790 and 2537
 * blocks (measured 2790 and 2537) within 0.2 %.
 *
 * Models with sliding-window, chunked or linear-attention layers also need a
 * fixed amount per running sequence (model_state_bytes_per_seq: window-capped
 * KV and recurrent states); blocks then hold only the full-attention layers'
 * KV.  The per-sequence state is reserved up front for max_num_seqs
 * sequences, as SGLang sizes its Mamba state pool by the running-request
 * limit, but never more than half of what is left for the cache (our
 * choice: enough for the blocks to still hold long sequences); state_seqs
 * says how many sequences' state fits, the concurrency the engine can run.
 * vLLM's hybrid pool keeps the sliding-window layers' KV in the blocks
 * instead (memplan_share_windows, engine/vllmmem.c). */
#ifndef SERVESIM_MEMPLAN_H
#define SERVESIM_MEMPLAN_H
#include <stdint.h>

#include "base/err.h"
#include "hw/gpu.h"
#include "model/model.h"

#define MEMPLAN_RESERVE_BYTES (0.63 * 1073741824.0)

struct memplan {
	double mem_bytes;        /* per GPU, as CUDA reports it */
	double preload_bytes;    /* in use before the weights load, off mem_bytes (SGLang's plan; 0 otherwise) */
	double budget_bytes;     /* x gpu_memory_utilization */
	double weight_bytes;
	double activation_bytes;
	double reserve_bytes;
	double kv_bytes;         /* left for the KV cache (per-sequence state included) */
	double block_bytes;      /* one block (block_size tokens, full-attention layers of the stage) */
	int64_t blocks;
	double state_bytes_per_seq; /* fixed per-sequence bytes on one GPU (0: none) */
	double state_bytes;      /* of kv_bytes, reserved for state_seqs sequences; blocks
				    take the rest */
	int64_t state_seqs;      /* sequences whose state is reserved (max_num_seqs when 0 bytes) */
	double lora_bytes;       /* LoRA adapter slots, taken from kv_bytes (memplan_take) */
	double eplb_bytes;       /* EPLB's redundant experts, taken from kv_bytes (memplan_take_experts) */
	double forward_bytes;    /* the forward pass's term (activation_bytes unless the sampler's is larger) */
	double sampler_bytes;    /* the profile's sampler run, when it sets activation_bytes (0: none) */
	int32_t window_groups;   /* sliding-window groups sharing the blocks (memplan_share_windows; 0: none) */
};

/* Share of the KV memory that per-sequence state may take at most (our choice). */
#define MEMPLAN_STATE_MAX_SHARE 0.5

int memplan_compute(const struct model_cfg *m, const struct gpu_spec *g,
		    const struct parallel *p, enum dtype wdt, enum dtype kvdt,
		    double gpu_mem_util, int64_t block_size, int64_t max_batched_tokens,
		    int64_t max_seqs, struct memplan *out, struct err *e);

/* The engine allocates `bytes` per GPU before it sizes its KV cache (LoRA
 * adapter slots): they come off kv_bytes and the blocks are counted again;
 * SS_EUSAGE naming `what` when no block is left. */
int memplan_take(struct memplan *out, double bytes, const char *what, struct err *e);

/* memplan_take for EPLB's redundant experts (counted in eplb_bytes). */
int memplan_take_experts(struct memplan *out, double bytes, struct err *e);

/* The engine stores `bytes` per GPU of weights beyond the checkpoint's
 * (padding its kernels need): weight_bytes grows, kv_bytes shrinks, the
 * per-sequence state's share is capped again (MEMPLAN_STATE_MAX_SHARE) and
 * the blocks counted again; SS_EUSAGE naming `what` when no block is left. */
int memplan_add_weights(struct memplan *out, double bytes, const char *what, struct err *e);

/* vLLM's memory profile runs the sampler once the forward pass is done
 * (gpu_model_runner.profile_run: _dummy_sampler_run), so the activation
 * peak it takes off is the larger of the two: activation_bytes becomes
 * max(the forward pass's term, sampler_bytes), kv_bytes and the blocks
 * follow; SS_EUSAGE when no block is left. */
int memplan_profile_peak(struct memplan *out, double sampler_bytes, struct err *e);

/* The sliding-window layers' KV shares the blocks (vLLM's hybrid pool,
 * `groups` sliding groups beside the full one): no per-sequence state is
 * reserved and the blocks take all of kv_bytes (sim/winblocks.h counts
 * the windows' blocks as requests run). */
void memplan_share_windows(struct memplan *out, int32_t groups);

/* SGLang's plan: the static pool (weights + KV) is mem_fraction_static of
 * the memory free before the weights load, (mem - preload_bytes) x
 * mem_fraction_static (preload_bytes: what the CUDA context and the process
 * groups hold by then, sglang.h); activations and CUDA graphs live in the
 * rest (SGLang's rule sizes the fraction for them, sglang.h), so no
 * activation or reserve term is taken from the pool. */
int memplan_compute_static(const struct model_cfg *m, const struct gpu_spec *g,
			   const struct parallel *p, enum dtype wdt, enum dtype kvdt,
			   double preload_bytes, double mem_fraction_static, int64_t block_size,
			   int64_t max_seqs, struct memplan *out, struct err *e);

#endif
