/* vllm.c - vLLM v1: the default engine.  Its defaults are scenario_defaults'
 * (vLLM's EngineArgs for the OpenAI API server), its KV cache dtype "auto";
 * here its scheduler (the v1 walk over sim/core.h's mechanics), its fitted
 * kernel terms, its P/D hand-off, its run-header sentence and its launch
 * line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim.h"

#include "engine/engine.h"
#include "engine/vllm.h"
#include "cost/cost.h"
#include "engine/launch.h"
#include "engine/registry.h"
#include "engine/scenario.h"
#include "sim/core.h"
#include "sim/specpath.h"
#include "sim/winblocks.h"

/* --- the scheduler ---
 *
 * vLLM v1: each step walks the running requests in admission order, giving
 * a decode 1 token and an unfinished prefill its next chunk (min of what is
 * left, the remaining token budget, and long_prefill_token_threshold),
 * allocating KV blocks as it goes and, when a block is missing, preempting
 * the most recently admitted request; then, if nothing was preempted, it
 * admits waiting requests in FCFS order while max_num_seqs and the budget
 * allow.  The steady decoders are not walked (sim/core.h): the walk below
 * is needed only when its outcome could differ from "everyone gets
 * everything" - a missing block (preemption) or a budget that runs out
 * before a decoder is reached.  Then every decoder is made explicit again
 * and the literal walk runs (schedule_explicit), except when only decoders
 * run and the budget reaches them all: the walk then only hands the
 * crossing decoders their blocks in running order and preempts from the
 * tail, and the others stay decoders (schedule_dec_preempt). */

/* r's blocks for n more tokens: the full group's and, with a hybrid pool
 * (sim_cfg.kv_window), the sliding-window group's once the blocks that
 * left its window are freed (KVCacheManager.allocate_slots: the
 * coordinator's remove_skipped_blocks, then every group's count against
 * the free blocks).  False, nothing taken, when they are not free. */
static bool grow_for(struct sim *s, struct replica *rp, struct req *r, int64_t n)
{
	int32_t full = blocks_for(s, r->computed + n) - r->nblocks, win;

	if (s->cfg.kv_window.tokens == 0)
		return sched_grow_blocks(s, rp, r, full);
	winblk_skip(s, rp, r);
	win = winblk_need(s, r, n);
	if ((full > 0 ? full : 0) + win > kvc_available(&rp->kv))
		return false;
	sched_grow_blocks(s, rp, r, full);
	winblk_take(s, rp, r, win);
	return true;
}

/* The literal walk over the running list (see the file comment). */
static void schedule_explicit(struct sim *s, struct replica *rp)
{
	int64_t budget = rp->mbt;
	bool preempted = false;
	struct req *r;

	for (r = rp->run_head; r && rp->ndec > 0; r = r->next)
		if (r->dec)
			sched_dec_leave(s, rp, r);
	if (rp->nspath > 0)
		spath_leave_all(s, rp);
	rp->fallback = true;
	r = rp->run_head;
	while (r && budget > 0) {
		int64_t n;
		bool self = false;
		if (r->inflight) { /* PP: its batch is still in the pipeline */
			r = r->next;
			continue;
		}
		n = chunk_of(s, r, budget);
		while (!grow_for(s, rp, r, n)) {
			struct req *victim = rp->run_tail;
			while (victim && victim->inflight) /* PP: never one in flight */
				victim = victim->prev;
			if (!victim) {
				self = true;
				break;
			}
			sched_preempt(s, rp, victim);
			preempted = true;
			if (victim == r) {
				self = true;
				break;
			}
		}
		if (self)
			break;
		sched_push(rp, r, n);
		budget -= n;
		r = r->next;
	}
	/* the others list is rebuilt from the running list after the step;
	 * with PP at once, since the next batch is planned (by schedule_fast,
	 * reading the list) before this one leaves the pipeline */
	rp->nothers = 0;
	if (rp->pp > 1)
		for (r = rp->run_head; r; r = r->next)
			sched_others_push(rp, r);
	/* no admission after a preemption, but when the walk preempted every
	 * running request (a hybrid pool's lone request whose window outgrew
	 * what is left): vLLM's next step would try the queue's head, and the
	 * admission refuses one nothing running can make room for */
	if (!preempted || rp->nrun == 0)
		sched_admit(s, rp, budget, INT64_MAX, NULL);
}

/* Only decoders run (none is explicit), the budget reaches them all, and
 * the class crossing a block boundary needs more blocks than are left: the
 * literal walk's outcome without making every decoder explicit.  The walk
 * gives each decoder its token in running order and each one crossing a
 * boundary its block, preempting from the tail while none is left (a
 * victim is never one the walk has reached: it is the tail); the others
 * need nothing.  The same allocations and preemptions in the same order as
 * schedule_explicit (a crossing decoder's block taken as schedule_fast
 * takes it), with no admission after a preemption.  Returns false, having
 * changed nothing, when the literal walk is needed. */
static bool schedule_dec_preempt(struct sim *s, struct replica *rp)
{
	int32_t cls = cls_of(s, -rp->G);
	uint64_t max_rseq = 0;
	struct req *r;

	if (rp->nothers > 0 || rp->ndec != (int64_t)rp->nrun || rp->ndec > rp->mbt || rp->pp != 1 ||
	    s->cfg.spec.k > 0)
		return false;
	rp->fallback = false;
	for (r = rp->run_head; r; r = r->next) {
		if (r->cls == cls) {
			bool self = false;
			while (kvc_available(&rp->kv) < 1) {
				struct req *victim = rp->run_tail;
				sched_dec_leave(s, rp, victim);
				sched_preempt(s, rp, victim);
				if (victim == r) {
					self = true;
					break;
				}
			}
			if (self)
				break;
			if (r->lean) {
				kvc_alloc_anon(&rp->kv, 1);
			} else if (r->nnamed < r->nblocks || !s->cfg.prefix_caching ||
				   !gets_hash(s, r, r->nblocks)) {
				r->nblocks++;
				kvc_alloc_anon(&rp->kv, 1);
			} else {
				sched_take_blocks(s, rp, r, 1);
			}
		}
		if (r->rseq > max_rseq)
			max_rseq = r->rseq;
	}
	/* as the decoders' joins after a literal walk would set it */
	rp->dec_max_rseq = max_rseq;
	return true;
}

/* The others' part of a step schedule_fast or schedule_spath has found
 * room for (budget: the tokens the decoders left): with plan_ahead's sums
 * (rp->ahead_used) every one of them whole, else chunk by chunk in running
 * order; then whoever waits, when the running list is done.  Inlined in
 * both, so a step pays no call for it. */
static SCHED_STEP_INLINE bool schedule_others(struct sim *s, struct replica *rp, int64_t budget)
{
	size_t i = 0;

	if (rp->ahead_used) { /* the walk below with chunk_of's values kept (plan_ahead) */
		size_t j;
		for (j = 0; j < rp->ngrowers; j++) { /* the others need none */
			struct req *o = rp->growers[j];
			sched_grow_blocks(s, rp, o, blocks_for(s, o->computed + o->step_tokens) - o->nblocks);
		}
		sched_take_all(s, rp, rp->others, rp->nothers);
		i = rp->nothers;
		budget -= rp->ahead.tokens;
	}
	for (; i < rp->nothers && budget > 0; i++) {
		struct req *o = rp->others[i];
		int64_t n;
		if (o->inflight)
			continue;
		n = chunk_of(s, o, budget);
		if (s->cfg.kv_window.tokens > 0) /* (the demand summed before holds both groups') */
			grow_for(s, rp, o, n);
		else
			sched_grow_blocks(s, rp, o, blocks_for(s, o->computed + n) - o->nblocks);
		sched_push(rp, o, n);
		budget -= n;
	}
	/* every one of the others in order: sched and others the same list
	 * (sched_admit appends to both) */
	rp->sched_others = rp->nsched == rp->nothers;
	/* nothing left unscheduled in the running list (and, tested here
	 * rather than in the call, someone waiting: most steps have nobody) */
	if (i == rp->nothers && rp->wlen > 0)
		sched_admit(s, rp, budget, INT64_MAX, NULL);
	return true;
}

/* Everyone gets their whole demand, or all decoders precede the others in
 * running order: the walk's outcome is known without walking.  Returns
 * false when the literal walk is needed. */
static bool schedule_fast(struct sim *s, struct replica *rp)
{
	int64_t budget = rp->mbt, tokens = rp->ndec;
	int32_t cls = cls_of(s, -rp->G), need = (int32_t)rp->cls_count[cls];
	bool decoders_first = true;
	/* a hybrid pool: the others' window blocks too, so not plan_ahead's
	 * sums (the full group's); the lazy decoders' window counts stay as
	 * they joined (winblocks.h) */
	bool win = s->cfg.kv_window.tokens > 0;
	size_t i;

	if (rp->ndec > budget)
		return false;
	if (win)
		rp->ahead_valid = false;
	if (rp->ahead_valid) { /* the walk below, summed as the last step ended */
		tokens += rp->ahead.tokens;
		need += (int32_t)rp->ahead.need;
	}
	for (i = 0; i < rp->nothers && !rp->ahead_valid; i++) {
		const struct req *o = rp->others[i];
		int64_t n;
		if (o->inflight)
			continue;
		n = chunk_of(s, o, INT64_MAX);
		tokens += n;
		need += blocks_for(s, o->computed + n) - o->nblocks + (win ? winblk_need_skipped(s, o, n) : 0);
		if (rp->ndec > 0 && o->rseq < rp->dec_max_rseq)
			decoders_first = false;
	}
	if (tokens > budget && !decoders_first)
		return false;
	if (tokens > budget) {
		/* decoders first, then the others take what the budget leaves */
		int64_t left = budget - rp->ndec;
		need = (int32_t)rp->cls_count[cls];
		for (i = 0; i < rp->nothers && left > 0; i++) {
			const struct req *o = rp->others[i];
			int64_t n;
			if (o->inflight)
				continue;
			n = chunk_of(s, o, left);
			need += blocks_for(s, o->computed + n) - o->nblocks + (win ? winblk_need_skipped(s, o, n) : 0);
			left -= n;
		}
	}
	if (need > kvc_available(&rp->kv))
		return false;
	rp->fallback = false;
	/* every one of the others scheduled whole, in order: plan_step takes
	 * their part of the description from the sums too */
	rp->ahead_used = rp->ahead_valid && tokens <= budget && rp->ahead.n == (int64_t)rp->nothers;
	sched_take_crossing(s, rp, cls); /* the class crossing a block boundary */
	budget -= rp->ndec;
	return schedule_others(s, rp, budget);
}

/* schedule_fast with lazy verifiers running (specpath.h; speculative
 * decoding: no lazy decoders, so none of its decoder terms): their tokens
 * and blocks from their sums, and all of them with the others' whole
 * demand, or the literal walk (false).  A function of its own so that a
 * step without them tests nothing of theirs. */
static bool schedule_spath(struct sim *s, struct replica *rp)
{
	struct spath_next sp;
	int64_t budget = rp->mbt, tokens, need;
	size_t i;

	spath_next_step(rp, spath_cap(s), &sp);
	tokens = sp.tokens;
	need = sp.need;
	if (rp->ahead_valid) { /* (as schedule_fast) */
		tokens += rp->ahead.tokens;
		need += rp->ahead.need;
	}
	for (i = 0; i < rp->nothers && !rp->ahead_valid; i++) {
		const struct req *o = rp->others[i];
		int64_t n;
		if (o->inflight)
			continue;
		n = chunk_of(s, o, INT64_MAX);
		tokens += n;
		need += blocks_for(s, o->computed + n) - o->nblocks;
	}
	if (tokens > budget || need > kvc_available(&rp->kv))
		return false;
	rp->fallback = false;
	rp->ahead_used = rp->ahead_valid && rp->ahead.n == (int64_t)rp->nothers;
	if (sp.need > 0) /* their blocks are anonymous: only counted */
		kvc_alloc_anon(&rp->kv, (int32_t)sp.need);
	budget -= sp.tokens;
	return schedule_others(s, rp, budget);
}

void vllm_schedule(struct sim *s, struct replica *rp)
{
	/* a hybrid pool: schedule_fast counts the window's blocks; the other
	 * shortcuts do not, so the literal walk where it cannot decide */
	if (s->cfg.kv_window.tokens > 0) {
		if (rp->nspath > 0 || !schedule_fast(s, rp))
			schedule_explicit(s, rp);
		return;
	}
	if (rp->nspath > 0) {
		if (!schedule_spath(s, rp))
			schedule_explicit(s, rp);
		return;
	}
	if (!schedule_fast(s, rp) && !schedule_dec_preempt(s, rp))
		schedule_explicit(s, rp);
}

/* Admission: the blocks of its first chunk, beside the prefix hits it takes
 * back from the free list, must be free now (vLLM admits optimistically:
 * later blocks may preempt). */
static enum admit_verdict vllm_admit(struct sim *s, struct replica *rp, struct req *r, const struct admit_try *t,
				     int32_t *grow)
{
	int32_t need = blocks_for(s, r->computed + t->n) - t->hits;
	/* a hybrid pool: its window's blocks too (sched_admit takes them) */
	int32_t win = s->cfg.kv_window.tokens > 0 ? winblk_need(s, r, t->n) : 0;

	if (need + win + t->evictable > kvc_available(&rp->kv))
		return ADMIT_FULL;
	*grow = need;
	return ADMIT_GO;
}

static const struct sched_policy vllm_policy = {
	.schedule = vllm_schedule,
	.admit = vllm_admit,
	.decode_segments = true,
};

void vllm_describe(const struct sim_cfg *c, const char *chunked, const char *admission, char *out, size_t n)
{
	snprintf(out, n,
		 "vLLM v1 scheduling: max_num_batched_tokens %lld, max_num_seqs %lld, max_model_len %lld, block %lld, prefix caching %s, chunked prefill %s%s",
		 (long long)c->max_num_batched_tokens, (long long)c->max_num_seqs, (long long)c->max_model_len,
		 (long long)c->block_size, c->prefix_caching ? "on" : "off", chunked, admission);
}

static void vllm_sched_words(const struct sim_cfg *c, bool overlap, char *out, size_t n)
{
	(void)overlap;
	vllm_describe(c, "on", "", out, n);
}

/* DeepSeek-V4's parts model (cost/csamod.c) per phase [decode, prefill] and
 * mixer [CSA, HCA and window-only], fitted by scripts/mfu/check_dsv4_module.py
 * on vLLM's blocks measured on H100, H200 and B200 (fp8 projections and KV;
 * least squares on the relative error, coefficients >= 0; 4,632 to 64,215
 * rows each): c0 is the launch-bound floor, 1 / c_gemm, 1 / c_attn and
 * 1 / c_bytes the efficiencies against the fp8 / bf16 peaks and HBM.  Held
 * out by GPU (fitted on two, predicting the third), the measured block of
 * the nearest GPU times the model's ratio between the two GPUs - what a GPU
 * borrowing another's tables gets (carried) - has median |log error|
 * 0.012-0.179 (B200 from H200 the worst), against 0.045-0.501 for the
 * borrowed block as it is and 0.044-0.191 for the model alone (README,
 * "DeepSeek-V4").  The engines that fall back to vLLM's tables use these. */
const struct cost_csa_fit vllm_csa_fits[2][2] = {
	{{7.139e-05, 1.862, 2.398, 1.077}, {4.832e-05, 1.773, 5.641, 1.157}},
	{{7.914e-05, 2.099, 1.979, 1.33}, {5.571e-05, 2.166, 2.761, 1.193}},
};

/* vLLM's terms in the cost model. */
static const struct cost_engine vllm_cost = {
	.name = "vllm",
	/* a block-scaled fp8 checkpoint (quantization_config with
	 * weight_block_size) runs Fp8MoEMethod with block_quant, never the
	 * per-tensor kernel, whatever a silicon row's "moe=fp8" label says
	 * (vllm/model_executor/layers/quantization/fp8.py); the H100/H200
	 * collections time its Triton block kernel as fp8_block
	 * (aiconfigurator's vllm_fused_moe with block_shape [128, 128]) */
	.fp8_block_moe_family = "hopper",
	/* vLLM's ROCm build calls AMD's AITER kernels (VLLM_ROCM_USE_AITER=1
	 * selects ROCM_AITER_FA / ROCM_AITER_MLA attention and AITER GEMM and
	 * fused-MoE: vLLM blog "Beyond Porting: How vLLM Orchestrates
	 * High-Performance Inference on AMD ROCm", 2026-02-27) */
	.rocm = "aiter",
	/* Gated DeltaNet, fitted by scripts/mfu/fit_gdn.py on aiconfigurator's
	 * measured GDN kernels of vLLM 0.24 (conv + chunked delta rule for a
	 * prefill, conv update + recurrent kernel for a decode step, H100/H200/
	 * B200): launch s, s a chunk, s x SM an elem-token, bytes an elem-token,
	 * bytes a state elem a sequence; decode launch s, eta.  Its prefill has
	 * no HBM term (H100 = H200 to 1 %).  Median |log error| before -> after
	 * and the hold-outs: README "Linear attention" and fit_gdn.py's output. */
	.lin = {13.57e-6, 2.398e-6, 5.154e-12, 1.054e-14, 19.35, 6.38e-6, 0.8298},
	/* MLA decode module (issue 9): aiconfigurator times vLLM 0.24's whole
	 * DeepseekV2MLAAttention forward under a CUDA graph
	 * (collector/vllm/collect_mla_module.py, ../shared/data/mfu/aic-engines/
	 * <gpu>/mla/vllm/0.24.0/mla_generation_module_perf.csv.gz, fp8_block
	 * GEMMs, bf16 MLA compute); servesim's parts at the same heads, batch
	 * and keys (the q_a, kv_a, q_b and o GEMMs, the absorb BMMs and the MLA
	 * kernel from that engine's own tables; norms and RoPE at their bytes)
	 * come out below it by a near-constant amount over heads 8..128, batch
	 * 1..64 and 1k..16k keys, the unfused elementwise, quantisation and
	 * cache-write kernels of vLLM's MLA path.  Median of module - parts (105
	 * points each; scripts/mfu/check_mla_module.py): H200 46.1 us (bf16 KV) and
	 * 61.1 us (fp8 KV), H100 47.4 and 62.3 us.  TensorRT-LLM's module
	 * against the same parts: H200 3.0 / 1.4 us, H100 0.1 / -1.5 us, i.e. the
	 * parts are right and the excess is vLLM's; on B200 vLLM's excess (14.2 /
	 * 15.1 us) matches TensorRT-LLM's (12.6 / 9.6 us), a parts error there,
	 * not an engine term.  Applied on the Hopper tables (h100_sxm,
	 * h200_sxm) for MLA without the DSA indexer (whose module is a separate
	 * table). */
	.mla_decode_s = {46e-6, 61e-6},
	/* MLA context (prefill) module against the parts, on aiconfigurator's
	 * mla_context_module_perf tables (vLLM 0.24.0 and TensorRT-LLM
	 * 1.3.0rc20, tp 1, heads 1..128, batch 1..256 x isl 1..32k prefix-free
	 * prompts, fp8_block or bf16 GEMMs, bf16 MLA compute): servesim's parts
	 * (q_a, kv_a, q_b and o GEMMs over the tokens, the expanded MLA prefill
	 * kernel as one varlen call, the kv_b GEMM, norms and RoPE at their
	 * bytes; tools/mlacheck.c prefill) come out below the module by an
	 * amount that grows with the tokens and with the heads: module / parts
	 * median at >= 1024 tokens on H100 / H200 with bf16 / fp8 KV 1.17 / 1.17
	 * / 1.17 / 1.16.  Least squares over those points
	 * (scripts/mfu/check_mla_module.py --prefill, heads 8..128, batch 1..256,
	 * isl 128..16k, batch x isl 1k..64k, pooled over H100/H200 x bf16/fp8
	 * KV): module - parts per 1k tokens = 19.3 + 0.411 x heads us (888
	 * points; per set 18.9 + 0.475 h, 20.6 + 0.371 h, 16.8 + 0.464 h, 21.4 +
	 * 0.318 h).  Applied per prefill token per MLA layer on the Hopper
	 * tables, not DSA (its module is a separate table).  Not applied on B200
	 * (vLLM's module is 0.90-0.94 of the parts). */
	.mla_ctx_tok_s = 19.3e-9,
	.mla_ctx_tok_head_s = 0.411e-9,
	.mla_src = "vLLM 0.24",
	/* FlashMLASparseImpl._forward_bf16_kv passes the valid counts of
	 * triton_convert_req_index_to_global_index(return_valid_counts=True)
	 * to flash_mla_sparse_fwd as topk_length
	 * (vllm/v1/attention/backends/mla/flashmla_sparse.py at 0.24); the
	 * 0.24 DSA module rows show it: GLM-5 at 8 heads per GPU costs 0.40
	 * us a token at 1k-token prompts and 0.72 at 8k (a walk of all 2048
	 * entries would cost more than 0.40 alone; dsa.c) */
	.dsa_topk_length = true,
	.csa = vllm_csa_fits,
};

static void vllm_common(const struct launch_in *in, struct sbuf *o)
{
	sb_puts(o, in->no_deep_gemm ? "VLLM_USE_DEEP_GEMM=0 vllm serve " : "vllm serve ");
	sb_put_shell(o, in->model);
	sb_printf(o, " --tensor-parallel-size %d", in->par.tp);
	if (in->par.pp > 1)
		sb_printf(o, " --pipeline-parallel-size %d", in->par.pp);
	if (in->par.dp > 1)
		sb_printf(o, " --data-parallel-size %d", in->par.dp);
	if (in->par.ep > 1)
		sb_puts(o, " --enable-expert-parallel");
	if (in->eplb) {
		sb_puts(o, " --enable-eplb --eplb-config ");
		sb_printf(o, "'{\"num_redundant_experts\":%d", in->eplb_redundant);
		if (in->eplb_interval > 0)
			sb_printf(o, ",\"step_interval\":%lld", (long long)in->eplb_interval);
		sb_puts(o, "}'");
	}
	if (launch_online_fp8(in))
		sb_puts(o, " --quantization fp8");
	else if (in->wdt != DT_FP8 && in->wdt != DT_BF16)
		sb_printf(o, " # %s weights: serve a %s-quantised checkpoint;", dtype_name(in->wdt),
			  dtype_name(in->wdt));
	if (in->kvdt == DT_FP8)
		sb_puts(o, " --kv-cache-dtype fp8");
	sb_printf(o, " --max-num-seqs %lld", (long long)in->max_num_seqs);
	if (in->max_num_batched_tokens > 0)
		sb_printf(o, " --max-num-batched-tokens %lld", (long long)in->max_num_batched_tokens);
	if (in->spec_k > 0)
		sb_printf(o, " --speculative-config '{\"method\":\"mtp\",\"num_speculative_tokens\":%d}'",
			  in->spec_k);
}

/* vLLM (engine arguments): --tensor-parallel-size, --pipeline-parallel-size,
 * --data-parallel-size (replicas of a dense model behind vLLM's internal
 * load balancer, attention DP for an MoE model), --enable-expert-parallel
 * (EP = TP x DP), --quantization fp8 (online FP8 of a 16-bit checkpoint),
 * --kv-cache-dtype fp8, --max-num-seqs, --max-num-batched-tokens,
 * --speculative-config '{"method":"mtp","num_speculative_tokens":K}'
 * (VLLM_USE_DEEP_GEMM=0 in front for --no-deep-gemm); P/D
 * through a KV connector (--kv-transfer-config, NixlConnector) and a proxy
 * that sends each request to a prefill then a decode instance. */
static void vllm_launch(const struct launch_in *in, struct sbuf *o)
{
	if (in->pd_prefill == 0) {
		vllm_common(in, o);
		sb_putc(o, '\n');
		return;
	}
	sb_printf(o, "# %d prefill instance%s:\n", in->pd_prefill, in->pd_prefill > 1 ? "s" : "");
	vllm_common(in, o);
	sb_puts(o, " --kv-transfer-config '{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"}'\n");
	sb_printf(o, "# %d decode instance%s:\n", in->pd_decode, in->pd_decode > 1 ? "s" : "");
	vllm_common(in, o);
	sb_puts(o, " --kv-transfer-config '{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"}'\n");
	sb_puts(o, "# and a proxy sending each request to a prefill, then a decode instance\n");
}

/* vLLM: CacheConfig.cache_dtype "auto" = the model's dtype (vllm/config/
 * cache.py; vllm/utils/torch_utils.py kv_cache_dtype_str_to_dtype), fp8
 * when a ModelOpt checkpoint declares it (resolve_kv_cache_dtype_string,
 * vLLM PR #30785): scenario_kv_model, whatever the GPU. */
static enum dtype vllm_kv_auto(const struct model_cfg *m, const struct gpu_spec *g, enum dtype wdt, char *why,
			       size_t n)
{
	(void)g;
	return scenario_kv_model(m, wdt, why, n);
}

/* vLLM's all-reduce + RMSNorm fusion (PassConfig.fuse_allreduce_rms) on by
 * default at -O2 from 0.16 (vllm-project/vllm PR 34299, merged 2026-02-11,
 * "Enable AR+rms fusion by default available for -O2"): TP > 1 on SM 9.0
 * and SM 10.0 with FlashInfer (the vllm-openai images carry it), not with
 * data parallelism (PR 34392) or pipeline parallelism; SM 10.3 (B300,
 * GB300) from 0.19 (PR 37755, merged 2026-03-21).  Up to the pass's
 * default sizes (vllm/compilation/passes/fusion/allreduce_rms_fusion.py @
 * 0052812d, FI_ALLREDUCE_FUSION_MAX_SIZE_MB): SM 9.0 64 / 2 / 0.5 MiB at
 * TP 2 / 4 / 8, SM 10.0 64 / 32 / 1, SM 10.3 64 / 64 / 4.  An unnamed
 * version is the newest. */
static double vllm_ar_fused_bytes(const struct scenario *sc)
{
	const double mib = 1024.0 * 1024.0;
	const char *v = sc->engine_version;
	long major = 1000, minor = 0; /* "": the newest */
	int tp = sc->par.tp;
	bool sm103 = strncmp(sc->gpu->id, "b300", 4) == 0 || strncmp(sc->gpu->id, "gb300", 5) == 0;
	double ver;

	if (v[0]) { /* "0.16.0": major.minor; a nightly or other name: none */
		char *end;
		major = strtol(v, &end, 10);
		if (end == v || *end != '.')
			return 0;
		minor = strtol(end + 1, NULL, 10);
	}
	ver = (double)major * 1000.0 + (double)minor;
	if (tp < 2 || tp > 8 || sc->par.dp > 1 || sc->par.pp > 1 || ver < 16.0)
		return 0;
	if (strcmp(sc->gpu->family, "hopper") == 0)
		return (tp <= 2 ? 64.0 : tp <= 4 ? 2.0 : 0.5) * mib;
	if (strcmp(sc->gpu->family, "blackwell") != 0 || strcmp(sc->gpu->vendor, "nvidia") != 0)
		return 0;
	if (sm103)
		return ver < 19.0 ? 0 : (tp <= 4 ? 64.0 : 4.0) * mib;
	return (tp <= 2 ? 64.0 : tp <= 4 ? 32.0 : 1.0) * mib;
}

/* vLLM's routed-expert kernel for MXFP4 checkpoints (gpt-oss):
 * get_mxfp4_backend (vllm/model_executor/layers/quantization/mxfp4.py)
 * takes FlashInfer on SM 10.x, the Triton kernel (OpenAI's triton_kernels
 * matmul_ogs) on SM 9.0-10.x when the triton_kernels package imports, and
 * the Marlin W4A16 kernel otherwise.  triton_kernels came with vLLM only
 * from 0.12 (PR 28788, merged 2025-11-15, bundles it under
 * vllm/third_party; before, "users have to install triton_kernels
 * manually", PR 27370 / issue 27672, and a v0.11.0 install could not import
 * it, issue 26582), so releases before 0.12 ran Marlin on Hopper: vLLM's
 * own recipe (vllm-project/recipes OpenAI/GPT-OSS.md for v0.10.2, v0.11.0
 * and v0.11.2: "Hopper ... FlashAttention3 backend and Marlin MXFP4 MoE";
 * for v0.12.0 the Hopper line is gone and VLLM_MXFP4_USE_MARLIN=1 is the
 * fix for v0.12's small-concurrency regression).  SM 8.x (Ampere, Ada)
 * runs Marlin at every version ("A100 ... TRITON_ATTN attention backend and
 * Marlin MXFP4 MoE").  An unnamed version is the newest. */
static const char *vllm_mxfp4_marlin(const struct scenario *sc)
{
	const char *fam = sc->gpu->family;

	if (strcmp(sc->gpu->vendor, "nvidia") != 0)
		return NULL;
	if (strcmp(fam, "ampere") == 0 || strcmp(fam, "ada") == 0)
		return "vLLM runs Marlin for MXFP4 on SM 8.x (triton_kernels needs SM 9.0+; vllm-project/recipes GPT-OSS.md)";
	if (strcmp(fam, "hopper") == 0 && engine_version_before(sc->engine_version, "0.12.0"))
		return "vLLM < 0.12 on Hopper (no triton_kernels before 0.12, PR 28788; vllm-project/recipes GPT-OSS.md for 0.10.2-0.11.2)";
	return NULL;
}

/* vLLM's OAI Triton MXFP4 path (Mxfp4Backend.TRITON, Hopper from 0.12,
 * vllm_mxfp4_marlin) swizzles the experts' block scales into
 * triton_kernels' PrecisionConfig in process_weights_after_loading but
 * leaves the checkpoint's w13_weight_scale / w2_weight_scale registered on
 * the layer: two copies of the scales, 1/17 of the MXFP4 expert bytes
 * (gpt-oss-120b on one H100: +3.34 GiB; vLLM 0.14.1 logs "Model loading
 * took 64.38 GiB" where the checkpoint is 60.71, issue 33155).  PR 46549
 * ("Free unused MXFP4 scales in OAI Triton Backend", merged 2026-06-24,
 * "~6 GB") deletes them; vLLM 0.24.0 (released 2026-07-01) is taken as the
 * first release with it. */
static const char *vllm_mxfp4_scales_kept(const struct scenario *sc)
{
	if (strcmp(sc->gpu->vendor, "nvidia") != 0 || strcmp(sc->gpu->family, "hopper") != 0)
		return NULL;
	if (!engine_version_before(sc->engine_version, "0.12.0") && engine_version_before(sc->engine_version, "0.24.0"))
		return "vLLM 0.12-0.23 on Hopper, OAI Triton path (vllm mxfp4.py process_weights_after_loading; freed by PR 46549)";
	return NULL;
}

/* vLLM's block-fp8 routed experts on Hopper run DeepGEMM's contiguous
 * grouped GEMM (TritonOrDeepGemmExperts, vllm/model_executor/layers/
 * fused_moe/triton_deep_gemm_moe.py) wherever `is_deep_gemm_e8m0_used() or
 * _valid_deep_gemm_shape(M, N, K)`: with E8M0 scales on, at every batch,
 * decode's few tokens too.  E8M0 became the Hopper default with PR 26197
 * (merged 2025-10-03, "Enable E8M0 by Default on Hopper for DeepGEMM"; before,
 * VLLM_USE_DEEP_GEMM_E8M0_HOPPER=0 kept DeepGEMM to M >= 128), so from
 * 0.11.1; and until PR 30494 (merged 2025-12-11, first in 0.13.0) the
 * padded workspace was computed whole (cost/moe.c moe_dg_padded_s), what
 * made vLLM's recipe for MiniMax-M2 advise VLLM_MOE_USE_DEEP_GEMM=0 on
 * H100 and H20 (vllm-project/recipes PR 120: "DeepGEMM is faster for
 * linear layers but slower for the grouped GEMM operations used in MoE
 * experts"; PR 112: TPOT 32.2 ms with it, 16.4 without, H100 TP 4 c10).
 * PR 29346 (merged 2025-11-24, taken as first in 0.12.0) turns DeepGEMM MoE
 * off by default where the MoE layer's TP size is 8.  Attention-DP
 * deployments (all2all kernels with their own expert counts) are not
 * covered.  --moe-backend DEEPGEMM / TRITON (VLLM_MOE_USE_DEEP_GEMM=1 / 0)
 * turns it on or off. */
static const char *vllm_moe_dg_padded(const struct scenario *sc)
{
	const struct parallel *p = &sc->par;
	int moe_tp = p->ep > 1 ? 1 : p->tp * p->dp;

	if (strcmp(sc->gpu->vendor, "nvidia") != 0 || strcmp(sc->gpu->family, "hopper") != 0 || p->dp > 1 ||
	    sc->moe_backend == MOE_BACKEND_TRITON)
		return NULL;
	if (engine_version_before(sc->engine_version, "0.11.1") || !engine_version_before(sc->engine_version, "0.13.0"))
		return NULL;
	if (sc->moe_backend == MOE_BACKEND_DEEPGEMM)
		return "vLLM 0.11.1-0.12 with VLLM_MOE_USE_DEEP_GEMM=1 (--moe-backend DEEPGEMM): expert ids from torch.zeros until PR 30494";
	if (moe_tp == 8 && !engine_version_before(sc->engine_version, "0.12.0"))
		return NULL;
	return "vLLM 0.11.1-0.12 on Hopper: E8M0 on by default (PR 26197), expert ids from torch.zeros until PR 30494; off at MoE TP 8 from 0.12 (PR 29346) or with --moe-backend TRITON";
}

/* vLLM's dense block-fp8 linears on Hopper without DeepGEMM: W8A8BlockFp8LinearOp
 * (vllm/model_executor/layers/quantization/utils/fp8_utils.py) runs
 * DeepGEMM's fp8_gemm_nt only where is_deep_gemm_supported()
 * (VLLM_USE_DEEP_GEMM, on by default, and the deep_gemm package
 * importable: vllm/utils/deep_gemm.py), else on SM 9.0 its padded CUTLASS
 * block-scaled kernel (cost/cutlassbs.c).  vLLM's Docker images build
 * deep_gemm in; its PyPI wheel does not depend on it, so a pip-installed
 * vLLM (GPUStack's runner images: pack/cuda/Dockerfile installs
 * vllm==0.11.0 from PyPI, FlashInfer and LMCache, no DeepGEMM) takes the
 * CUTLASS path.  --no-deep-gemm (experiment.json's engine no_deep_gemm)
 * says so; the default is vLLM's images. */
static const char *vllm_block_fp8_cutlass(const struct scenario *sc)
{
	if (!sc->k.no_deep_gemm || strcmp(sc->gpu->vendor, "nvidia") != 0 || strcmp(sc->gpu->family, "hopper") != 0)
		return NULL;
	return "vLLM without DeepGEMM on Hopper: W8A8BlockFp8LinearOp._run_cutlass";
}

/* vLLM 0.11.0's padded_cutlass (fp8_utils.py, from PR 23280, which moved
 * the SM90 block-fp8 kernel onto upstream CUTLASS, whose block-scaled
 * mainloop needs M % 4 == 0) allocates a zeroed fp8 copy of the quantised
 * activations and a ones-filled copy of their column-major scales at the
 * padded row count and copies both in, on every call, aligned or not:
 * four memory kernels before each GEMM.  PR 28492 (2025-11, "Avoid M dim
 * padding to 4x for most cases", DeepSeek-R1-FP8 on 8x H200 at batch 32:
 * TPOT 31.41 -> 30.40 ms) copies only where the rows are unaligned; taken
 * as first in 0.11.1.  aiconfigurator's collections (0.14.0, 0.19.0) time
 * the later form. */
static const char *vllm_block_fp8_cutlass_pad(const struct scenario *sc)
{
	if (!engine_version_before(sc->engine_version, "0.11.1"))
		return NULL;
	return "vLLM < 0.11.1: padded_cutlass copies every call's activations and scales, until PR 28492";
}

/* vLLM's attention backend for a model with attention sinks (gpt-oss):
 * get_attn_backend_cls (vllm/platforms/cuda.py, 0.10.1-0.11) returns
 * TRITON_ATTN on SM 8.x ("if has_sink and not
 * cls.is_device_capability(90)": FlashAttention-2 has no sinks,
 * FlashAttention-3 is Hopper-only; Blackwell takes FlashInfer before that
 * line); vLLM's recipe says so for every version since (vllm-project/
 * recipes OpenAI/GPT-OSS.md, 0.10.2 to its 0.17 update: "GPT-OSS works on
 * Ampere devices by default, using the TRITON_ATTN attention backend").
 * The collections time FlashAttention there (cost/tritonattn.c). */
static const char *vllm_triton_attn(const struct scenario *sc)
{
	const struct model_cfg *m = sc->model;
	const char *fam = sc->gpu->family;

	if (strcmp(sc->gpu->vendor, "nvidia") != 0 || (strcmp(fam, "ampere") != 0 && strcmp(fam, "ada") != 0))
		return NULL;
	if (!m->attn_sinks && !(m->n_mixer[LM_SLIDING] > 0 && m->window.sinks))
		return NULL;
	return "vLLM's TRITON_ATTN for attention sinks on SM 8.x, vllm/platforms/cuda.py";
}

/* vLLM's host terms.  Chosen by the H2 protocol (eval/h2_sweep.sh, figures
 * in eval/H2_SWEEP.md): swept on the 'general' and 'codegen' inference-perf
 * runs of Llama-2-7B and CodeLlama-34B on H100, checked on the held-out
 * 'roleplay' runs (median APE TTFT 3.4 %, ITL 5.3 %, E2E 5.3 %).  The
 * measured kernel tables already hold most launch costs, hence the small
 * engine terms; a step's tokens reach the client when the next step ends
 * (output processing overlaps it). */
static const struct engine_host vllm_host[] = {
	/* Under aiconfigurator's genai-perf / aiperf harness and InferenceX's
	 * vllm-bench client (the silicon rows: a closed loop of C streaming
	 * clients with ignore_eos; eval/silicon/HARNESS.md) vLLM's steps take
	 * longer than its kernels by about 24 us per layer + 10 us per running
	 * request, on every version 0.11-0.19 and GPU of those rows (time the
	 * kernel tables do not hold: the gaps between the kernels of a replayed
	 * CUDA graph, a few per layer, and the per-request CPU work of a step;
	 * vLLM >= 0.14's async scheduling does not hide it), and the first token
	 * reaches the client 10 ms + 12 us per prompt token after the request.
	 * Fitted on the 1,128 vLLM agg silicon rows (coordinate search on median
	 * ITL APE + 0.5 x median TTFT APE; eval/silicon/HARNESS.md, "Engine host
	 * terms" and "vLLM's step terms per layer"): 0.6 ms per step + 30 us per
	 * request before (median ITL / TTFT 9.0 / 16.2 %), which charged
	 * gpt-oss-120b (36 layers) as much per step as MiniMax-M2.5 (62) and
	 * Llama-3.1-70B (80): gpt-oss ITL +10 to +14 % signed on every GPU; per
	 * layer 8.1 / 16.6 % (20 us per layer).  Refitted once the rows' all-reduces
	 * were priced as they ran (vLLM's fused all-reduce, vllm_ar_fused_bytes;
	 * InferenceX's launch lines, src/eval/experiment.c ix_vllm_launch):
	 * 20 / 10 7.93 / 16.98 %, 24 / 10 7.61 / 17.00 %, 22 / 10, 23 / 12, 24 / 8,
	 * 24 / 12, 24 / 14, 25 / 10, 26 / 10, 28 / 8 no better (HARNESS.md, "Fused
	 * all-reduces").  The H100 ground truth (GuideLLM, inference-perf:
	 * no min_tokens, constant-rate clients) shows none of it (the next row),
	 * so the terms hold for these harnesses only.
	 *
	 * Of the API time, 5 ms per request is the OpenAI server's own work on
	 * its one asyncio loop (api_loop_ms, sim/apiq.c): each handler
	 * validates the request and renders its chat template there
	 * (OpenAIServing._preprocess_chat, apply_hf_chat_template), then
	 * suspends for tokenisation in a one-thread executor
	 * (_tokenizer_executor; AsyncMicrobatchTokenizer from 0.10.2) and only
	 * then reaches the engine (AsyncLLM.add_request), so the requests that
	 * arrive together all pass that part before the first reaches the
	 * engine.  Without it the rows' TTFT was low the more clients send at
	 * once (median signed error -17 % at 64 clients, -15 % at 128, -25 %
	 * at 256, -42 % at 512), as GPUStack's bursts are (public, held out:
	 * 1,000 prompts of 128 tokens on vLLM 0.10.2-0.11 get every first
	 * token together 2-16 s after the burst, where the engine alone would
	 * spread them from 0.1 s).  Refitted with the API constant on the
	 * 1,128 vLLM agg rows (median |TTFT| APE over 1 ms steps, loop 3-6 x
	 * constant 4-8 ms, the step terms kept): 10 ms and no loop 16.50 %;
	 * loop 5 with 10 ms 14.35, 8 ms 13.66, 6 ms 13.49, 5 ms 13.56; loop 4
	 * 13.84-14.08, 6 13.50-14.09; ITL 7.52-7.56 throughout.
	 *
	 * Refitted (24 -> 28 us per layer, 10 -> 12 us per request) once the
	 * decode attention of vLLM before 0.19 on Hopper with fewer than 8 KV
	 * heads per GPU was priced as FA3 runs it (0.24.0's rows, not 0.14.0's
	 * mis-planned ones: scripts/mfu/derive.py FA3_AOT_PLANNED_KV_HEADS,
	 * hw/mfuload.c fill_decode_gaps): the step terms had absorbed part of
	 * the slow attention of the Qwen3-32B and Qwen3-235B rows (vLLM
	 * 0.12-0.14).  Grid on the 960 vLLM agg rows (median ITL + 0.5 x
	 * median TTFT APE, the API terms kept): 24 / 10 7.58 + 0.5 x 13.15 =
	 * 14.15 (before the table fix 7.30 / 13.18 = 13.90); 26 / 10-12
	 * 13.86-13.88, 27 / 11-14 13.76-13.85, 28 / 12 7.26 / 13.02 = 13.77,
	 * 28 / 11, 13, 14 13.83-13.85, 29 / 11-14 13.86-13.97, 30 / 10-12
	 * 13.93-14.03. */
	{"", "aiperf,vllm-bench",
	 {.layer_us = 28.0, .req_us = 12.0, .api_ttft_ms = 6.0, .api_prompt_us = 12.0, .delivery_steps = 1.0,
	  .api_loop_ms = 5.0},
	 false, "fitted on the vLLM silicon rows (aiperf, vllm-bench)",
	 OV_LAYER | OV_REQ | OV_API_TTFT | OV_API_PROMPT | OV_API_LOOP, true, false},
	/* (the server's loop as above: its time per request was fitted with
	 * the row above, and is 5 of this row's 9 ms) */
	{"", NULL, {.layer_us = 5.0, .api_ttft_ms = 9.0, .delivery_steps = 1.0, .api_loop_ms = 5.0}, false,
	 "H2 protocol on the vLLM H100 ground truth", OV_LAYER | OV_API_TTFT, false, false},
};

/* vLLM's own argument checks: CacheConfig's block_size (BlockSize: 1, 8,
 * 16, 32, 64, 128) and cache_dtype (auto, bfloat16, fp8, fp8_e4m3,
 * fp8_e5m2: no fp4 or int4 KV), SchedulerConfig._verify_args (the token
 * budget holds at least one token per sequence) (vllm/config/cache.py,
 * scheduler.py). */
static bool vllm_start_refused(const struct scenario *sc, char *msg, size_t n)
{
	static const int64_t sizes[] = {1, 8, 16, 32, 64, 128};
	size_t i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]) && sizes[i] != sc->k.block_size; i++)
		;
	if (i == sizeof(sizes) / sizeof(sizes[0])) {
		snprintf(msg, n, "block_size %lld is not one vLLM takes (1, 8, 16, 32, 64 or 128)",
			 (long long)sc->k.block_size);
		return true;
	}
	if (sc->k.max_num_batched_tokens < sc->k.max_num_seqs) {
		snprintf(msg, n, "max_num_batched_tokens (%lld) must be greater than or equal to max_num_seqs (%lld): "
			 "vLLM refuses to start", (long long)sc->k.max_num_batched_tokens, (long long)sc->k.max_num_seqs);
		return true;
	}
	if (sc->kvdt == DT_FP4 || sc->kvdt == DT_INT4) {
		snprintf(msg, n, "kv_cache_dtype %s is not one vLLM takes (auto, bfloat16, fp8, fp8_e4m3, fp8_e5m2)",
			 dtype_name(sc->kvdt));
		return true;
	}
	return false;
}

/* --- KV offload ---
 *
 * --kv-offloading-size GiB (all TP ranks of an engine together, as vLLM's
 * CacheConfig documents it: each GPU holds its share) with
 * --kv-offloading-backend native (default) or lmcache.
 *
 * native: vLLM's OffloadingConnector with its CPU backend (vLLM >= 0.11;
 * docs.vllm.ai features/kv_offloading_usage; vLLM blog 2026-01-08, "Inside
 * vLLM's New KV Offloading Connector"): completed GPU blocks are copied to
 * pinned host memory by cudaMemcpyAsync on their own stream (LRU there),
 * and a prefix that misses on the GPU but hits on the CPU is loaded back
 * asynchronously (the request waits in WAITING_FOR_REMOTE_KVS while other
 * requests keep stepping).  Assumed here: stores cost no step time (the
 * blog: "miss TTFT almost unaffected"), and a load runs beside the step
 * that admits the request, which lasts at least as long as the load
 * (vLLM schedules the request's compute a step after the load lands, and
 * does not hold the others for it: servesim's step may be longer, that
 * request's TTFT shorter, by up to a step).
 *
 * lmcache: LMCache's vLLM connector (LMCacheConnectorV1) with its local CPU
 * backend, non-layerwise (its default): start_load_kv retrieves the hit
 * tokens before the forward and wait_for_save stores after it, both
 * synchronously on the worker, so both add to the step.
 *
 * Both: servesim writes a block to the host tier when the GPU prefix cache
 * evicts it (the engines write every block as it completes, so the host
 * also holds copies of blocks still on the GPU: a host of H blocks holds
 * here what theirs would hold with H + the GPU pool). */
static int vllm_offload(const struct scenario *sc, const struct scenario_state *st, struct sim_offload *o,
			char *words, size_t n, struct err *e)
{
	int gpus = sc->par.tp * sc->par.pp;
	bool lm = sc->kv_offloading_backend == KV_OFFLOAD_LMCACHE;
	double bb;
	int rc;

	(void)st;
	if ((rc = scenario_offload_tier(sc, sc->k.kv_offloading_gib * 1073741824.0 / gpus, 0, "--kv-offloading-size", o,
					&bb, e)) < 0)
		return rc;
	o->overlap = lm ? OFFLOAD_SYNC : OFFLOAD_ASYNC;
	snprintf(words, n,
		 "%s (--kv-offloading-backend %s), --kv-offloading-size %g GiB over %d GPU%s: %lld blocks of %.3g MB per GPU in host memory per engine, LRU, fed by the GPU prefix cache's evictions; a block moves in %.0f us each way over %s (%g GB/s one way x %.2f achieved); %s",
		 lm ? "LMCache's connector" : "vLLM's OffloadingConnector", lm ? "lmcache" : "native",
		 sc->k.kv_offloading_gib, gpus, gpus > 1 ? "s" : "", (long long)o->host_blocks, bb / 1e6, o->block_s * 1e6,
		 sc->gpu->host_link, sc->gpu->host_link_bw / 1e9, SCENARIO_HOST_LINK_EFF,
		 lm ? "loads before the forward and stores after it hold the step (LMCache's synchronous retrieve and store)"
		    : "loads run beside the step on their own stream (the step lasts at least as long), stores are hidden (asynchronous DMA)");
	return 0;
}

/* vLLM's ROCm build (vllm/platforms/rocm.py at 001eda31; vLLM blog "Beyond
 * Porting", 2026-02-27): with VLLM_ROCM_USE_AITER=1 the attention backend is
 * ROCM_AITER_MLA for MLA models and ROCM_AITER_FA for the others, MoE and fp8
 * GEMMs are AITER's; the block size stays 16 (the blog's DeepSeek-R1 runs
 * use 16: AITER MLA runs alike at any block size) and the scheduler's
 * defaults are the CUDA build's; custom all-reduce on gfx94x/gfx95x. */
static void vllm_rocm_words(const struct gpu_spec *g, char *out, size_t n)
{
	snprintf(out, n, "vLLM's ROCm build with VLLM_ROCM_USE_AITER=1: AITER kernels (ROCM_AITER_MLA or ROCM_AITER_FA "
		 "attention, fused MoE, fp8 GEMM), block size 16 and scheduler defaults as on CUDA, custom all-reduce; "
		 "fp8 %s", engine_rocm_fp8(g));
}

/* --- LoRA ---
 *
 * --enable-lora with --max-loras N (adapters in one batch, and the GPU
 * slots holding them: default 1), --max-lora-rank R (default 16, one of
 * 1, 8, 16, 32, 64, 128, 256, 320, 512) and --max-cpu-loras M (adapters
 * kept in host memory, >= max_loras; default max_loras): vLLM's LoRAConfig
 * (vllm/config/lora.py; docs.vllm.ai, engine arguments, LoRA).  The
 * scheduler skips a waiting request whose adapter would make max_loras + 1
 * in the batch (v1 Scheduler.schedule); the worker's LRU caches load a
 * missing adapter from disk into host memory and copy it into a GPU slot
 * before the forward (LRUCacheWorkerLoRAManager), and the slots of rank R
 * for every LoRA-capable layer are allocated with the model, before the KV
 * cache is sized.  The base model takes no slot. */
static const int vllm_lora_ranks[] = {1, 8, 16, 32, 64, 128, 256, 320, 512};

static int vllm_lora(const struct scenario *sc, struct sim_lora *o, char *words, size_t n, struct err *e)
{
	size_t i;

	memset(o, 0, sizeof(*o));
	o->max_loras = sc->lora_max > 0 ? (int)sc->lora_max : 1;
	o->rank = sc->k.lora_rank > 0 ? (int)sc->k.lora_rank : 16;
	o->cpu_slots = sc->lora_host > 0 ? sc->lora_host : o->max_loras;
	for (i = 0; i < sizeof(vllm_lora_ranks) / sizeof(vllm_lora_ranks[0]); i++)
		if (vllm_lora_ranks[i] == o->rank)
			break;
	if (i == sizeof(vllm_lora_ranks) / sizeof(vllm_lora_ranks[0]))
		return err_set(e, SS_EUSAGE, "--max-lora-rank must be one of 1, 8, 16, 32, 64, 128, 256, 320, 512 (vLLM's choices), got %d",
			       o->rank);
	if (o->cpu_slots < o->max_loras)
		return err_set(e, SS_EUSAGE, "--max-cpu-loras (%lld) must be >= --max-loras (%d), as vLLM requires",
			       (long long)o->cpu_slots, o->max_loras);
	snprintf(words, n, "vLLM --max-loras %d%s, --max-lora-rank %d%s, --max-cpu-loras %lld%s; the base model takes no slot",
		 o->max_loras, sc->lora_max > 0 ? "" : " (default)", o->rank, sc->k.lora_rank > 0 ? "" : " (default)",
		 (long long)o->cpu_slots, sc->lora_host > 0 ? "" : " (default: max_loras)");
	return 0;
}

const struct engine_type engine_vllm = {
	.name = "vllm",
	.title = "vLLM",
	.knobs = ENGINE_KNOB_KV_OFFLOAD | ENGINE_KNOB_LORA_VLLM | ENGINE_KNOB_EPLB_VLLM | ENGINE_KNOB_NO_DEEP_GEMM,
	.host = vllm_host,
	.nhost = sizeof(vllm_host) / sizeof(vllm_host[0]),
	.kv_auto = vllm_kv_auto,
	.start_refused = vllm_start_refused,
	/* P/D hand-off: 245 ms (267 until the first token waited for the decode
	 * worker, 2026-11-28), the median of measured - predicted TTFT over 6
	 * disaggregated Kimi-K2.5 rows (vLLM 0.18, GB200) at concurrency <= 16,
	 * where the prefill pool has no queue to speak of: the frontend's hand-off
	 * between the prefill and the decode worker (Dynamo), vLLM's
	 * NixlConnector set-up (the decode worker pulls the blocks once the
	 * prefill returns their ids) and the decode worker polling for the
	 * transfer's completion (eval/silicon/HARNESS.md, "Disaggregated rows:
	 * the hand-off"; scenario_prepare) */
	.pd_handoff_s = 0.245,
	/* the prefill request's token is discarded (the proxy sends the
	 * decode worker the prompt; its KV connector leaves the last prompt
	 * token to recompute, which makes the first token) */
	.pd_first = SIM_PD_FIRST_DECODE_STEP,
	/* EPLBConfig.step_interval's default (vllm/config/parallel.py) */
	.eplb_interval = 3000,
	/* --api-server-count left unset defaults to --data-parallel-size under
	 * internal load balancing ("Defaulting api_server_count to
	 * data_parallel_size", vllm/entrypoints/cli/serve.py ServeSubcommand.cmd;
	 * 0.16.0 is the first release checked to hold it, 0.12.0's default is
	 * one server): each runs its own asyncio loop (api_loop_ms) */
	.api_servers_dp_from = "0.16.0",
	.cost = &vllm_cost,
	.plan_memory = vllm_plan_memory,
	.policy = &vllm_policy,
	.sched_words = vllm_sched_words,
	.rocm_words = vllm_rocm_words,
	.launch = vllm_launch,
	.offload = vllm_offload,
	.lora = vllm_lora,
	.ar_fused_bytes = vllm_ar_fused_bytes,
	.mxfp4_marlin = vllm_mxfp4_marlin,
	.mxfp4_scales_kept = vllm_mxfp4_scales_kept,
	.moe_dg_padded = vllm_moe_dg_padded,
	.block_fp8_cutlass = vllm_block_fp8_cutlass,
	.block_fp8_cutlass_pad = vllm_block_fp8_cutlass_pad,
	.triton_attn = vllm_triton_attn,
};
