/* trtllm.c - TensorRT-LLM (its PyTorch backend) as aiconfigurator's
 * benchmark generator deploys it: vLLM v1's step loop with TensorRT-LLM's
 * GUARANTEED_NO_EVICT admission and without chunked context, the KV cache in
 * the weights' dtype, eager steps whenever a prefill runs, and its fitted
 * kernel terms. */
#include <stdio.h>
#include <string.h>

#include "engine/engine.h"
#include "engine/vllm.h"
#include "cost/cost.h"
#include "engine/scenario.h"
#include "sim/core.h"

/* Admission as TensorRT-LLM's scheduler decides it:
 * - without chunked context (enable_chunked_prefill false, its LLM API
 *   default and what aiconfigurator's generator writes) a waiting prompt is
 *   scheduled whole or not at all; the first one that does not fit in what
 *   is left of max_num_tokens ends the step's admissions
 *   (tensorrt_llm MicroBatchScheduler).  A prompt longer than the whole
 *   budget is still chunked when the step is otherwise empty (TensorRT-LLM
 *   would refuse it);
 * - GUARANTEED_NO_EVICT, its default capacity policy (tensorrt_llm
 *   CapacitySchedulerPolicy): a waiting request starts only when the KV
 *   blocks of its whole prompt and output fit beside those reserved for
 *   every running request's whole prompt and output, so nothing is ever
 *   preempted (vLLM and SGLang admit optimistically instead). */
static enum admit_verdict trtllm_admit(struct sim *s, struct replica *rp, struct req *r, const struct admit_try *t,
				       int32_t *grow)
{
	int32_t need;

	if (rp->nsched > 0 && t->n < req_num_tokens(r) - r->computed)
		return ADMIT_WAIT; /* whole or wait */
	need = blocks_for(s, r->computed + t->n) - t->hits;
	r->ne_blocks = blocks_for(s, r->prompt + r->output); /* reserved while it runs */
	if (need + t->evictable > kvc_available(&rp->kv) || rp->ne_reserved + r->ne_blocks > rp->kv.total)
		return ADMIT_FULL;
	*grow = need;
	return ADMIT_GO;
}

/* TensorRT-LLM's attention-DP context balance (attention_dp_config
 * enable_balance; sim_cfg.adp_timeout_iters > 0), before each step of the
 * group's ranks [lo, hi) (tensorrt_llm PyExecutor._balance_adp_requests):
 * if every rank has a free batch slot and a new context request, the
 * counter of steps waited restarts, and when every rank is also generating
 * the contexts wait batching_wait_iters steps more to go together;
 * otherwise the contexts are held and the counter advances, until it
 * reaches timeout_iters or some rank has no generation work (a rank with
 * no request at all runs the engine's dummy generation request,
 * _pad_attention_dp_dummy_request), when they go and it restarts.  The
 * counter runs in steps without contexts too. */
static void trtllm_group_gate(struct sim *s, int lo, int hi)
{
	struct replica *g = &s->reps[lo];
	bool slots = true, ctx = true, gen = true, hold = false;
	int i;

	if (s->cfg.adp_timeout_iters <= 0 || hi - lo < 2)
		return;
	for (i = lo; i < hi; i++) {
		const struct replica *rp = &s->reps[i];
		slots &= (int64_t)rp->nrun < rp->mns;
		ctx &= rp->wlen > 0;
		gen &= rp->nrun > 0 || rp->wlen == 0;
	}
	if (slots && ctx) {
		g->adp_wait = 0;
		if (gen) {
			if (g->adp_batch < s->cfg.adp_batching_wait_iters) {
				g->adp_batch++;
				hold = true;
			} else {
				g->adp_batch = 0;
			}
		}
	} else if (++g->adp_wait >= s->cfg.adp_timeout_iters || !gen) {
		g->adp_wait = 0;
	} else {
		hold = true;
	}
	for (i = lo; i < hi; i++)
		s->reps[i].adp_hold = hold;
}

/* TensorRT-LLM's batch waiting (batch_wait_timeout_iters,
 * batch_wait_max_tokens_ratio; sim_cfg.batch_wait_iters, batch_wait_tokens),
 * before each step of an engine without attention DP
 * (tensorrt_llm/_torch/pyexecutor/py_executor.py, NVIDIA/TensorRT-LLM:
 * PyExecutor._schedule calls _waiting_requests when batch waiting is on,
 * attention DP is off and the scheduler's step holds both context and
 * generation requests).  The context requests go when the holding counter
 * has reached timeout_iters or the step's tokens (the contexts' whole
 * prompts plus one per generation request and its drafts) reach
 * ratio x max_num_tokens, and the counter restarts; otherwise they are
 * dropped from the step and the counter advances.  A step without
 * generation requests takes its contexts at once (no dead waiting).  The
 * contexts counted are the waiting prompts the whole-prompt rule would
 * admit: in queue order while each fits in what max_num_tokens leaves and a
 * batch slot is free (the KV reservation is not looked at). */
static bool trtllm_batch_wait(const struct sim *s, struct replica *rp)
{
	size_t mask = rp->wcap - 1, j;
	double gen = (double)rp->nrun * (1.0 + (double)s->cfg.spec.k), ctx = 0;
	int64_t slots = rp->mns - (int64_t)rp->nrun;

	if (rp->wlen == 0 || rp->nrun == 0 || slots <= 0)
		return false;
	for (j = 0; j < rp->wlen && (int64_t)j < slots; j++) {
		const struct wq_ent *q = &rp->wq[(rp->whead + j) & mask];
		double p;
		/* an entry with a record has no arrival fields (they are
		 * not kept): a P/D hand-off joins as a generation request,
		 * a preemption's return has what is left of it to run */
		if (q->r && q->r->transferred) {
			gen += 1.0 + (double)s->cfg.spec.k;
			continue;
		}
		p = q->r ? (double)(req_num_tokens(q->r) - q->r->computed) : (double)q->a.prompt_tokens;
		if (gen + ctx + p > (double)rp->mbt && j > 0)
			break;
		ctx += p;
	}
	/* no context waiting: nothing to hold (generation never waits) */
	if (ctx == 0 || rp->bw_count >= s->cfg.batch_wait_iters ||
	    (s->cfg.batch_wait_tokens > 0 && gen + ctx >= s->cfg.batch_wait_tokens)) {
		rp->bw_count = 0;
		return false;
	}
	rp->bw_count++;
	return true;
}

/* vLLM v1's step loop, with TensorRT-LLM's batch waiting in front. */
static void trtllm_schedule(struct sim *s, struct replica *rp)
{
	if ((s->cfg.batch_wait_iters > 0 || s->cfg.batch_wait_tokens > 0) && !s->cfg.lockstep)
		rp->adp_hold = trtllm_batch_wait(s, rp);
	vllm_schedule(s, rp);
}

/* vLLM v1's step loop with TensorRT-LLM's admission. */
static const struct sched_policy trtllm_policy = {
	.schedule = trtllm_schedule,
	.admit = trtllm_admit,
	.decode_segments = true,
	.group_gate = trtllm_group_gate,
};

static void trtllm_sched_words(const struct sim_cfg *c, bool overlap, char *out, size_t n)
{
	(void)overlap;
	vllm_describe(c, "off (TensorRT-LLM: a prompt runs whole in one step or waits)",
		      "; admission as TensorRT-LLM's GUARANTEED_NO_EVICT (a request starts when the KV of its whole prompt and output can be reserved; no preemption)",
		      out, n);
}

/* The KV cache in the weights' dtype: servesim's rule before; TensorRT-LLM's
 * own "auto" (bf16 for these checkpoints) did worse on its silicon rows
 * (README "KV-cache dtype"). */
static enum dtype trtllm_kv_auto(const struct model_cfg *m, const struct gpu_spec *g, enum dtype wdt,
				 char *why, size_t n)
{
	(void)m;
	(void)g;
	(void)why;
	(void)n;
	return wdt;
}

/* TensorRT-LLM splits the experts moe_ep_size ways and shards each
 * moe_tp_size ways with moe_tp x moe_ep = its GPUs, so any EP dividing
 * TP x DP. */
static bool trtllm_ep_refused(const struct scenario *sc, char *msg, size_t n)
{
	const struct parallel *p = &sc->par;

	if (!(sc->model->n_experts > 0 && p->ep > 1 && (p->tp * p->dp) % p->ep != 0))
		return false;
	snprintf(msg, n,
		 "moe_ep_size %d does not divide the %d GPUs of the engine (TensorRT-LLM needs moe_tp_size x moe_ep_size = tp_size)",
		 p->ep, p->tp * p->dp);
	return true;
}

/* TensorRT-LLM's terms in the cost model. */
static const struct cost_engine trtllm_cost = {
	.name = "trtllm",
	.fallback = "vllm",
	/* TensorRT-LLM's DSA module where its collection has none (every
	 * Blackwell table: aiconfigurator times TensorRT-LLM's DSA module on
	 * H100 / H200 only) is SGLang's, not vLLM's.  With an fp8 KV cache
	 * TensorRT-LLM runs DSA decode on Blackwell only, on its trtllm-gen
	 * sparse MLA kernels (aiconfigurator collector/trtllm/
	 * collect_mla_module.py: "FP8-KV DSA is genuinely Blackwell-only
	 * (trtllm-gen sparseMla)"), the kernels SGLang's NSA "trtllm" decode
	 * backend launches through FlashInfer (nsa_backend.py _forward_trtllm:
	 * trtllm_batch_decode_with_kv_cache_mla, sparse_mla_top_k,
	 * backend "trtllm-gen"; SGLang's default on SM100 for a bf16 cache,
	 * FlashMLA's fp8 kernel for an fp8 one, its rows within 6 % of each
	 * other), and both index with DeepGEMM's paged MQA logits.  vLLM
	 * 0.24's B200 module is 2x SGLang's (GLM-5 at 16 heads, batch 1, 8k
	 * keys: 160-187 against 76-87 us) and cannot be what TensorRT-LLM
	 * runs: 78 layers of it alone (12.2 ms) exceed the whole decode step
	 * measured on GB200 (GLM-5 NVFP4, TEP 4, one request at ~8.7k keys:
	 * 11.8 ms; eval/silicon/HARNESS.md, "pdx") */
	.dsa_fallback = "sglang",
	/* Gated DeltaNet on TensorRT-LLM 1.3's measured GDN kernels (as
	 * vLLM's: scripts/mfu/fit_gdn.py, H100/H200/B200; no HBM term in the
	 * prefill, H100 = H200 to 1 %) */
	.lin = {22.04e-6, 1.649e-6, 1.238e-11, 7.781e-15, 28.36, 8.34e-6, 0.9897},
	/* MLA context module against the parts, fitted as vLLM's (vllm.c) on
	 * aiconfigurator's mla_context_module_perf tables of TensorRT-LLM
	 * 1.3.0rc20: module / parts median at >= 1024 tokens on H100 / H200
	 * with bf16 / fp8 KV 1.14 / 1.11 / 1.23 / 1.15; module - parts per 1k
	 * tokens = 1.4 + 0.914 x heads us (900 points; per set 4.5 + 0.686 h,
	 * 7.5 + 0.380 h, -8.6 + 1.582 h, 2.0 + 1.008 h), on the Hopper tables;
	 * not on B200 (its module is 1.00-1.06 of the parts).  Its MLA decode
	 * module matches the parts (H200 3.0 / 1.4 us, H100 0.1 / -1.5 us over
	 * them): no decode term. */
	.mla_ctx_tok_s = 1.4e-9,
	.mla_ctx_tok_head_s = 0.914e-9,
	.mla_src = "TensorRT-LLM 1.3",
	/* TensorRT-LLM 1.3's windowed decode rows are not used: with a bf16
	 * cache they run 3.3x the dense kernel at 128 keys, flat in the
	 * context (another kernel path; fp8: 1.17x), which the served images of
	 * the silicon rows (1.0-1.2) did not pay: gpt-oss-120b TPOT median
	 * |error| H200 5.9 -> 7.8 %, MoE rows 9.8 -> 10.2 % with them
	 * (eval/silicon/HARNESS.md, "swa") */
	.dense_window_decode = true,
	/* Hopper: TensorRT-LLM reads DeepSeek-V3/R1's fp8 checkpoint
	 * (quantization_config quant_method fp8 with weight_block_size) as
	 * QuantAlgo.FP8_BLOCK_SCALES (tensorrt_llm/_torch/model_config.py,
	 * load_hf_quant_config, "DeepSeek V3 FP8 ckpt"), and on SM90 its
	 * experts run CutlassFusedMoE's DeepSeekFP8BlockScalesFusedMoEMethod
	 * ("fp8 block scales (SM90 Hopper only)", fused_moe/fused_moe_cutlass.py;
	 * the H200 recipes name moe_config.backend CUTLASS), never the
	 * per-tensor FP8QDQ kernel, which needs a per-tensor checkpoint.  The
	 * H100/H200 collections time exactly that kernel as fp8_block
	 * (aiconfigurator's moe_torch_flow_cutlass rows).  Not Blackwell: there
	 * the collection's fp8_block rows are DeepGEMM, while the recipes pick
	 * DEEPGEMM, TRTLLM (trtllm-gen, not timed by this collection) or CUTLASS
	 * per pool (eval/silicon/HARNESS.md, "pd6"), so the faster of the two
	 * measured fp8 curves stays the stand-in there */
	.fp8_block_moe_family = "hopper",
	/* no DeepSeek-V4 blocks of its own: vLLM's parts model */
	.csa = vllm_csa_fits,
};

/* TensorRT-LLM's host terms: vLLM's H2 terms (src/engine/vllm.c), and an
 * eager floor for steps holding a prefill.  TensorRT-LLM (PyTorch backend) replays CUDA graphs for
 * generation-only batches only (aiconfigurator's benchmark generator
 * captures every batch size 1..max_batch_size: trtllm.rule
 * cuda_graph_batch_sizes); a step holding a prefill is launched kernel
 * by kernel from Python, and where its kernels are short the GPU waits
 * for the host.  Evidence (eval/silicon/HARNESS.md, "What a DeepSeek
 * prefill step costs"): measured TTFT that does not grow with the prompt
 * (Qwen3-235B-FP8 TP8 H100 c4: 170 ms at ISL 512 and at 1024), DeepSeek
 * TTFT about 100 ms above the kernel tables' step at ISL 1024 but not at
 * 8192, and a TPOT that grows at short OSL as ~100 ms steps would make
 * it; the Kineto trace of DeepSeek-V3 (../shared/data/traces) spends 35-55
 * us of host time per kernel launched by an eager forward.  The step
 * lasts at least (operators of the pass) x eager_op_us: one engine constant,
 * swept on all 1,283 TensorRT-LLM agg rows (0-150 us; 70-80 us best on
 * the median TTFT APE), 65 us once the InferenceX rows run their recipes'
 * token budgets, 55 us once their checkpoints are priced as stored (below;
 * within the trace's 35-55 us). */
/* the aggregated rows' terms but the time per layer, one set for both */
#define TRTLLM_AGG_OV(layer) \
	{.layer_us = (layer), .api_ttft_ms = 38.0, .api_prompt_us = 2.0, .delivery_steps = 1.0, .eager_op_us = 55.0}
static const struct engine_host trtllm_host[] = {
	/* aggregated workers: refitted (65 us, 38 ms) once the InferenceX rows
	 * run with their recipes' token budget and batch waiting
	 * (ix_trtllm_limits in src/eval/experiment.c): a coordinate grid on all
	 * 1,282 agg rows, eager 55-70 us x API 20-50 ms, objective median
	 * |ITL| + 0.5 x median |TTFT| (eval/silicon/HARNESS.md, "TensorRT-LLM's
	 * launch recipes"); the minimum is flat (18.1-18.3 over 55-65 us x
	 * 29-45 ms).  Refitted the same way (eager 45-70 us x API 29-50 ms) on
	 * the 1,135 rows once the DeepSeek-R1 fp4 rows price the v2 checkpoint
	 * with an fp8 KV cache and gpt-oss its bf16 attention (HARNESS.md,
	 * "ckptattn"): 55 us, 38 ms, objective 16.37 -> 15.78 (50 us 16.18,
	 * 60 us 15.88-16.45) */
	{"1.1", NULL, TRTLLM_AGG_OV(5.0),
	 false, "fitted on the TensorRT-LLM silicon rows", OV_EAGER | OV_API_TTFT | OV_API_PROMPT, true, false},
	/* aggregated workers before 1.1: the 479 rows of TensorRT-LLM 1.0.0rc3
	 * (aiconfigurator's H100 collection: Llama-3.1-8B, Qwen3-32B fp8,
	 * Qwen3-235B fp8, TP 1-8) run slower than their kernels by a time per
	 * layer that the >= 1.1 rows do not show: with 5 us per layer their ITL
	 * is -1..-12 % signed at every TP (Llama-3.1-8B TP 8 -12 %, Qwen3-32B
	 * -11..-12 % at TP 1-8).  The per-layer term fitted on those rows alone
	 * (grid 5 / 15 / 20 / 25 us, objective median |ITL| + 0.5 x median
	 * |TTFT| of all TensorRT-LLM agg rows: 18.08 / 16.94 / 16.82 / 16.89;
	 * eval/silicon/HARNESS.md, "TensorRT-LLM before 1.1"); 1.1 added PDL
	 * (programmatic dependent launch) to more kernels (NVIDIA/TensorRT-LLM
	 * PR 7977, merged 2025-09-25), which hides launch gaps between a
	 * layer's kernels: a plausible cause, not verified per kernel.  The
	 * other terms are the row above's; only the per-layer term is this
	 * row's own fit (what `eval --cv` refits: leaving H100 out leaves
	 * nothing to fit it on, and the held-out H100 rows run without it). */
	{"", NULL, TRTLLM_AGG_OV(20.0),
	 false, "fitted on the TensorRT-LLM silicon rows (before 1.1: per-layer time on the 1.0 rows)",
	 OV_LAYER, true, false},
	/* P/D workers: the terms the P/D hand-off (pd_handoff_s) was fitted
	 * with, not refitted on the disaggregated rows */
	{"", NULL,
	 {.layer_us = 5.0, .api_ttft_ms = 29.0, .api_prompt_us = 2.0, .delivery_steps = 1.0, .eager_op_us = 75.0},
	 false, "fitted on the TensorRT-LLM silicon rows (P/D workers)", OV_EAGER | OV_API_TTFT | OV_API_PROMPT,
	 false, false},
};
#undef TRTLLM_AGG_OV

/* TensorRT-LLM's KV-cache quantisation: fp8 (and int8), NVFP4 on the GPUs
 * with fp4 tensor cores (KvCacheConfig dtype); no int4. */
static bool trtllm_start_refused(const struct scenario *sc, char *msg, size_t n)
{
	if (strcmp(sc->gpu->vendor, "nvidia") != 0) {
		snprintf(msg, n, "TensorRT-LLM runs on NVIDIA GPUs only (CUDA): %s is %s GPU (--engine vllm or sglang "
			 "run there)", sc->gpu->id, strcmp(sc->gpu->vendor, "amd") == 0 ? "an AMD" : "a Huawei");
		return true;
	}
	if (sc->kvdt == DT_INT4 || (sc->kvdt == DT_FP4 && !(sc->gpu->peak_flops[DT_FP4] > 0))) {
		snprintf(msg, n, "a %s KV cache is not one TensorRT-LLM runs on %s (fp8; nvfp4 on a GPU with fp4 "
			 "tensor cores)", dtype_name(sc->kvdt), sc->gpu->id);
		return true;
	}
	return false;
}

const struct engine_type engine_trtllm = {
	.name = "trtllm",
	.title = "TensorRT-LLM",
	.host = trtllm_host,
	.nhost = sizeof(trtllm_host) / sizeof(trtllm_host[0]),
	.kv_auto = trtllm_kv_auto,
	.ep_refused = trtllm_ep_refused,
	.start_refused = trtllm_start_refused,
	/* P/D hand-off: 23 ms, the median measured - predicted TTFT without it
	 * on the disaggregated rows that record their pools, at concurrency
	 * <= 16 (the prefill pool has no queue to speak of), the first token
	 * as below, over the 25 rows without a cold start (11 more measure
	 * 0.9-38 s, which no queue explains); 29 ms (29.7 on 2026-12-01)
	 * before a busy decode worker's generation-init iteration was priced
	 * (admit.c, gen_init_mark; eval/silicon/HARNESS.md, "The hand-off",
	 * "pdx").
	 * Dynamo's frontend takes the prefill worker's response and sends the
	 * decode request; the decode worker then pulls the KV.  (10 us before,
	 * with the first token at the hand-off.) */
	.pd_handoff_s = 0.023,
	/* the first token reaches the client from the decode worker: behind
	 * Dynamo's frontend the decode worker streams every token (ai-dynamo
	 * docs/design_docs/disagg_serving.md), and TensorRT-LLM's executor
	 * returns a generation-only request's first token (the context
	 * worker's, in its disaggregated params) when the request's KV has
	 * landed and a step that holds it is launched (PyExecutor
	 * _handle_first_token_response, called before _forward_step) */
	.pd_first = SIM_PD_FIRST_DECODE_LAUNCH,
	/* PyExecutor's generation-init iteration (sim/admit.c, gen_init_mark) */
	.pd_gen_init_step = true,
	.cost = &trtllm_cost,
	.policy = &trtllm_policy,
	.sched_words = trtllm_sched_words,
};
