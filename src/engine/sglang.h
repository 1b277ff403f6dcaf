/* sglang.h - SGLang's own start-up defaults, as its server derives them from
 * the GPU and the parallel layout: chunked_prefill_size, the decode CUDA-graph
 * batch limit, mem_fraction_static (weights + KV pool as a share of GPU
 * memory), max_running_requests from the KV pool, and the schedule policy.
 * Each rule cites the SGLang source it follows (sglang.c). */
#ifndef SERVESIM_SGLANG_H
#define SERVESIM_SGLANG_H
#include <stdbool.h>
#include <stdint.h>

#include "base/err.h"
#include "hw/gpu.h"
#include "model/model.h"

/* The waiting-queue order SGLang's scheduler applies before each prefill
 * batch (--schedule-policy). */
enum sglang_policy { SGLANG_FCFS, SGLANG_LPM };

/* Parse "fcfs" | "lpm"; SS_EUSAGE naming the flag otherwise. */
int sglang_policy_parse(const char *s, enum sglang_policy *out, struct err *e);
const char *sglang_policy_name(enum sglang_policy p);

/* Above this many waiting requests lpm falls back to fcfs for that round
 * (SGLang skips the prefix matching and sorting of a long queue). */
#define SGLANG_LPM_MAX_QUEUE 128

/* chunked_prefill_size by GPU memory: 2048 under 35 GiB, 4096 under
 * 60 GiB, 8192 under 160 GiB, else 16384. */
int64_t sglang_chunk_default(const struct gpu_spec *g);
/* The largest decode batch captured in a CUDA graph, by GPU memory and TP. */
int64_t sglang_graph_max_bs(const struct gpu_spec *g, int tp);

/* What mem_fraction_static's rule reserves outside the static pool, MiB. */
struct sglang_mem {
	double gpu_mib;           /* capacity as CUDA reports it */
	double reserved_mib;      /* activations + CUDA graphs + parallel slack, floored */
	int64_t chunk;            /* chunked_prefill_size the rule used */
	int64_t graph_max_bs;     /* decode CUDA-graph limit */
	int64_t prefill_graphs;   /* prefill CUDA-graph sizes captured (8 MiB each; MLA: 1.5 GiB) */
	double graph_mib;         /* of reserved_mib, the CUDA graphs' */
	bool floored;             /* raised to the 10 GiB floor */
	double fraction;          /* mem_fraction_static, rounded to 3 decimals */
};

/* mem_fraction_static = round((gpu - reserved) / gpu, 3) with reserved =
 * 512 + 1.5 x max(chunk, 2048) + tp x pp / 8 x 1024 + CUDA graphs
 * (2 x graph_max_bs, with attention-DP 3 x graph_max_bs x dp and 1.5 x more
 * above a graph batch of 300, prefill graphs 8 MiB per captured size or
 * 1.5 GiB with MLA), at least 10 GiB on a GPU above 60 GiB. */
void sglang_mem_fraction(const struct gpu_spec *g, int tp, int pp, int dp, bool dp_attention,
			 int64_t chunk, bool mla, struct sglang_mem *out);

/* GPU memory in use before SGLang loads the weights (CUDA context, cuBLAS;
 * with more than one GPU the NCCL communicators and custom all-reduce
 * buffers too).  SGLang sizes its static pool from the memory free at that
 * point, not the GPU's capacity: ModelRunner.init_torch_distributed returns
 * get_available_gpu_memory() after the process groups exist, and
 * profile_max_num_token takes rest = free_after_weights - that x (1 -
 * mem_fraction_static), i.e. KV = that x mem_fraction_static - weights
 * (model_runner.py; model_runner_kv_cache_mixin.py in v0.5.8).  Medians of
 * SGLang's own "Load weight begin. avail mem=X GB" lines on 80 GB Hopper
 * GPUs (79.65 GiB) and H200 (140.40 GiB), eval/memory/PROVENANCE.md:
 * one GPU 0.84 - 1.33 GiB (five logs, median 1.22), more than one 0.88 - 3.11
 * GiB (seven, median 2.32). */
#define SGLANG_PRELOAD_ONE_GPU_BYTES (1.2 * 1073741824.0)
#define SGLANG_PRELOAD_MULTI_GPU_BYTES (2.3 * 1073741824.0)
double sglang_preload_bytes(int gpus);

/* max_running_requests when not given: min(pool_tokens / 2, the request
 * pool min(max(pool_tokens / context_len x 512, 2048), 4096)). */
int64_t sglang_max_running_requests(int64_t pool_tokens, int64_t context_len);

/* The KV cache's dtype under --kv-cache-dtype auto for model m with
 * weights of dtype `weights` on GPU g: the model's activation dtype (bf16;
 * fp16 for an fp16 model), also for fp8 checkpoints; fp8 for a DeepSeek
 * sparse-attention (NSA/DSA) model on a Blackwell GPU.  A checkpoint's
 * declared KV quantisation comes first (scenario_kv_auto). */
enum dtype sglang_kv_dtype_default(const struct model_cfg *m, const struct gpu_spec *g, enum dtype weights);

#endif
