/* runreport.c - the report of `servesim run`: the header that says what
 * was simulated (model, hardware, placement, engine, KV cache, workload,
 * kernels, calibration, warnings), the status, and the results as text,
 * JSON, CSV or vLLM benchmark keys. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine/engine.h"
#include "cost/comm.h"
#include "report/confreport.h"
#include "plan/gsweep.h"
#include "model/model.h"
#include "report/out.h"
#include "report/outfmt.h"
#include "plan/autoscale.h"
#include "hw/tier2.h"
#include "base/version.h"

static double hit_rate(const struct sim_totals *t)
{
	return t->prefix_lookup_tokens ? (double)t->prefix_hit_tokens / (double)t->prefix_lookup_tokens : 0;
}

/* KV offload: the share of prompt tokens looked up that were GPU hits,
 * host hits and misses (first admissions). */
static void tier_rates(const struct sim_totals *t, double *gpu, double *host, double *miss)
{
	double n = (double)t->prefix_lookup_tokens;

	*host = n > 0 ? (double)t->host_hit_tokens / n : NAN;
	*gpu = n > 0 ? (double)(t->prefix_hit_tokens - t->host_hit_tokens) / n : NAN;
	*miss = n > 0 ? 1 - (double)t->prefix_hit_tokens / n : NAN;
}

static uint64_t rejected_total(const struct sim_totals *t)
{
	uint64_t n = 0;
	int k;
	for (k = 0; k < REJ__COUNT; k++)
		n += t->rejected[k];
	return n;
}

/* Attention-DP + EP header: the ranks, where the experts live, and the
 * weights one GPU holds (routed experts apart from the replicated rest). */
/* Sessions: one row per turn index (sim_turn_stats). */
static void print_turns(FILE *f, struct sim *s)
{
	struct sim_turn_stats t[SIM_TURN_ROWS];
	size_t i, n = sim_turn_stats(s, t, SIM_TURN_ROWS);

	if (n == 0)
		return;
	fprintf(f, "\nturns      by turn of the sessions: prompt = context carried + new tokens; cached = its tokens found in the prefix cache; TTFT client side\n");
	fprintf(f, "  %-6s %9s %11s %8s %10s %10s %10s\n", "turn", "completed", "prompt mean", "cached", "TTFT mean",
		"TTFT p50", "TTFT p90");
	for (i = 0; i < n; i++) {
		char turn[16];
		snprintf(turn, sizeof(turn), "%d%s", t[i].turn, t[i].and_later ? "+" : "");
		fprintf(f, "  %-6s %9zu %11.1f %7.1f%% %10.2f %10.2f %10.2f\n", turn, t[i].completed,
			t[i].prompt_tokens_mean, 100 * t[i].prefix_hit_rate, t[i].ttft_ms.mean, t[i].ttft_ms.p50,
			t[i].ttft_ms.p90);
	}
}

static void turns_json(struct jw *w, struct sim *s)
{
	struct sim_turn_stats t[SIM_TURN_ROWS];
	size_t i, n = sim_turn_stats(s, t, SIM_TURN_ROWS);

	if (n == 0)
		return;
	jw_arr(w, "turns");
	for (i = 0; i < n; i++) {
		jw_obj(w, NULL);
		jw_int(w, "turn", t[i].turn);
		jw_bool(w, "and_later", t[i].and_later);
		jw_int(w, "completed", (int64_t)t[i].completed);
		jw_num(w, "prompt_tokens_mean", t[i].prompt_tokens_mean);
		jw_num(w, "prefix_hit_rate", t[i].prefix_hit_rate);
		jw_num(w, "ttft_mean_ms", t[i].ttft_ms.mean);
		jw_num(w, "ttft_p50_ms", t[i].ttft_ms.p50);
		jw_num(w, "ttft_p90_ms", t[i].ttft_ms.p90);
		jw_num(w, "ttft_p99_ms", t[i].ttft_ms.p99);
		jw_end_obj(w);
	}
	jw_end_arr(w);
}

static void print_dp_attention(FILE *f, const struct out_run *c)
{
	const struct parallel *p = &c->cfg.sc->par;
	const struct model_cfg *m = c->cfg.sc->model;
	struct param_counts pc;
	double wb = dtype_bytes(c->cfg.sc->wdt), experts, total = c->mp->weight_bytes;
	int ngpu = p->tp * p->dp * p->pp;

	model_params(m, &pc);
	/* routed experts per GPU: E/ep experts (ep 1: all), split
	 * tp*dp/ep ways, on ceil(L/pp) layers of the heaviest stage */
	experts = pc.experts / (double)(p->ep > 1 ? p->ep : 1) /
		  ((double)(p->tp * p->dp) / (p->ep > 1 ? p->ep : 1)) *
		  ceil((double)m->layers / p->pp) / (double)m->layers * wb;
	fprintf(f, "hardware   %d x %s: attention DP %d (TP %d, PP %d per rank), MoE layers shared by the ranks in lockstep, ",
	       ngpu, c->cfg.sc->gpu->id, p->dp, p->tp, p->pp);
	if (p->ep > 1)
		fprintf(f, "EP %d (%lld of %lld experts per GPU)\n", p->ep,
		       (long long)(m->n_experts / p->ep), (long long)m->n_experts);
	else
		fprintf(f, "experts TP-sharded %d ways (no expert parallelism)\n", p->tp * p->dp);
	if (!c->cost || (par_part_tp(m, &c->cost->p, PAR_DPS_DENSE_FFN) == p->tp &&
			 par_part_tp(m, &c->cost->p, PAR_DPS_SHARED) == p->tp &&
			 par_part_tp(m, &c->cost->p, PAR_DPS_LM_HEAD) == p->tp)) {
		fprintf(f, "weights    %.1f GB per GPU = routed experts %.1f GB + attention, dense layers, shared experts and embeddings %.1f GB, replicated on every DP rank (%s)\n",
			total / 1e9, experts / 1e9, (total - experts) / 1e9, dtype_name(c->cfg.sc->wdt));
		return;
	}
	{
		/* the parts the engine splits over every GPU (parallel.dp_shard) */
		const struct parallel *l = &c->cost->p;
		const char *name[3] = {"dense layers", "shared experts", "LM head"};
		const unsigned bit[3] = {PAR_DPS_DENSE_FFN, PAR_DPS_SHARED, PAR_DPS_LM_HEAD};
		char split[96] = "", kept[160] = "attention, embeddings";
		int i;
		for (i = 0; i < 3; i++) {
			bool sh = par_part_tp(m, l, bit[i]) > l->tp;
			char *o = sh ? split : kept;
			size_t n = strlen(o), cap = sh ? sizeof(split) : sizeof(kept);
			snprintf(o + n, cap - n, "%s%s", n ? ", " : "", name[i]);
		}
		fprintf(f, "weights    %.1f GB per GPU = routed experts %.1f GB + the rest %.1f GB: %s whole on every DP rank, %s split over all %d GPUs (%s)\n",
			total / 1e9, experts / 1e9, (total - experts) / 1e9, kept, split,
			p->tp * p->dp, dtype_name(c->cfg.sc->wdt));
	}
}

/* Where the GPUs sit and which links the collectives cross; with EP, the
 * dispatch + combine of one MoE layer at 128 tokens per rank (DeepEP's
 * low-latency test size) here and as it would be on one NVLink domain. */
static void print_placement(FILE *f, const struct out_run *c)
{
	const struct comm_place *pl = &c->cost->place;
	const struct parallel *p = &c->cfg.sc->par;
	char buf[256];

	comm_place_describe(pl, buf, sizeof(buf));
	fprintf(f, "placement  %s; TP %s", buf, pl->tp_cross ? "across nodes (all-reduce on the inter-node link)" : "within NVLink");
	if (p->pp > 1)
		fprintf(f, ", PP sends %s", pl->pp_cross ? "on the inter-node link" : "on NVLink");
	if (p->ep > 1 && c->cfg.sc->model->n_experts > 0) {
		struct comm_place one = *pl;
		double tok = 128.0 * (double)c->cfg.sc->model->top_k * (double)c->cfg.sc->model->hidden;
		double pd = tok * dtype_bytes(c->cfg.sc->wdt), pc = tok * 2.0;
		double here = comm_a2a_s(c->cost->comm, c->cfg.sc->gpu, pl, COMM_A2A_LOW_LATENCY, false, p->ep, pd) +
			      comm_a2a_s(c->cost->comm, c->cfg.sc->gpu, pl, COMM_A2A_LOW_LATENCY, true, p->ep, pc);
		double there;
		one.ep_cross = false;
		one.ep_domains = 1;
		there = comm_a2a_s(c->cost->comm, c->cfg.sc->gpu, &one, COMM_A2A_LOW_LATENCY, false, p->ep, pd) +
			comm_a2a_s(c->cost->comm, c->cfg.sc->gpu, &one, COMM_A2A_LOW_LATENCY, true, p->ep, pc);
		if (pl->ep_cross)
			fprintf(f, "; EP %d spans %d NVLink domains: all-to-all on the inter-node link, dispatch + combine %.0f us per MoE layer at 128 tokens per rank (%.0f us on one NVLink domain, +%.0f us)",
			       p->ep, pl->ep_domains, here * 1e6, there * 1e6, (here - there) * 1e6);
		else
			fprintf(f, "; EP %d within one NVLink domain: dispatch + combine %.0f us per MoE layer at 128 tokens per rank",
			       p->ep, here * 1e6);
	}
	else if (c->simcfg->lockstep && c->cfg.sc->model->n_experts > 0)
		fprintf(f, "; experts TP-sharded over %d GPU%s in %d NVLink domain%s: all-gather and reduce-scatter of the ranks' tokens around them%s",
		       p->tp * p->dp, p->tp * p->dp > 1 ? "s" : "", pl->ep_domains,
		       pl->ep_domains > 1 ? "s" : "", pl->ep_domains > 1 ? " on the inter-node link" : " on NVLink");
	fprintf(f, "\n");
}

/* What was simulated: model, hardware, placement, engine, KV cache,
 * workload, kernels, calibration, warnings. */
/* SGLang: each default with the rule behind it (sglang.h). */
static void print_sglang_defaults(FILE *f, const struct out_run *c)
{
	const struct sglang_mem *sm = c->sg_mem;

	if (!c->mbt_given) {
		long long all = (long long)c->cfg.sc->k.max_num_batched_tokens;
		long long rank = (long long)c->simcfg->max_num_batched_tokens;
		fprintf(f, "defaults   chunked_prefill_size %lld: SGLang's rule by GPU memory (2048 under 35 GiB, 4096 under 60 GiB, 8192 under 160 GiB, else 16384)",
			all);
		if (rank != all)
			fprintf(f, ", divided by the attention-DP size: %lld tokens per rank's prefill batch", rank);
		fprintf(f, "\n");
	}
	if (!c->mem_frac_given && c->cfg.kv_from_memory && sm)
		fprintf(f, "defaults   mem_fraction_static %.3f: SGLang's rule, (%.0f MiB - %.0f MiB reserved) / %.0f MiB; reserved = 512 + 1.5 x max(chunk %lld, 2048) + 1024 x TP x PP / 8 + CUDA graphs %.0f (decode batch up to %lld, %s)%s\n",
			sm->fraction, sm->gpu_mib, sm->reserved_mib, sm->gpu_mib, (long long)sm->chunk,
			sm->graph_mib, (long long)sm->graph_max_bs,
			c->cfg.sc->model->attn == ATTN_MLA ? "MLA prefill graphs 1536" : "8 per prefill graph size",
			sm->floored ? ", raised to the 10240 MiB floor of a GPU above 60 GiB" : "");
	if (!c->mns_given)
		fprintf(f, "defaults   max_running_requests %lld: SGLang's rule, min(KV tokens / 2, min(max(KV tokens / context_length x 512, 2048), 4096))%s\n",
			(long long)c->simcfg->max_num_seqs,
			c->cfg.kv_from_memory && c->mp->state_bytes > 0 && c->simcfg->max_num_seqs == c->mp->state_seqs
				? ", capped at the sequences whose per-sequence state fits" : "");
	if (!c->sg_policy_given || c->cost->cfg.overlap_cpu)
		fprintf(f, "defaults   %s%s%s\n",
			c->sg_policy_given ? "" : "schedule policy fcfs (SGLang's default; lpm orders the waiting queue by cached prefix)",
			!c->sg_policy_given && c->cost->cfg.overlap_cpu ? "; " : "",
			c->cost->cfg.overlap_cpu ? "overlap scheduling on: the CPU overhead terms (--overhead-step-us, --overhead-request-us) hide under the GPU's batch" : "");
	if (!c->mml_given)
		fprintf(f, "defaults   context_length: the model's max_position_embeddings\n");
	if (!c->kv_dtype_given && c->cfg.sc->model->attn == ATTN_CSA)
		fprintf(f, "defaults   KV cache %s: SGLang's --kv-cache-dtype auto for DeepSeek-V4\n",
			dtype_name(c->cfg.sc->kvdt));
	else if (!c->kv_dtype_given && c->cfg.sc->kvdt != c->cfg.sc->wdt)
		fprintf(f, "defaults   KV cache %s: SGLang's --kv-cache-dtype auto, the model's dtype whatever the weights' quantisation (fp8 for DeepSeek sparse attention on Blackwell)\n",
			dtype_name(c->cfg.sc->kvdt));
}

/* The router of a dense model's DP replicas, as the header names it. */
/* The run header's words for where a P/D request's first token comes from. */
static const char *pd_first_words(enum sim_pd_first f)
{
	switch (f) {
	case SIM_PD_FIRST_DECODE_STEP:
		return "the first token reaches the client with the decode worker's first step for it (a wait for a decode slot is TTFT)";
	case SIM_PD_FIRST_DECODE_LAUNCH:
		return "the first token reaches the client as the decode worker launches its first step for it, a busy worker's step after the one that admitted it to generation-init (a wait for a decode slot is TTFT)";
	case SIM_PD_FIRST_HANDOFF:
		break;
	}
	return "the first token reaches the client at the hand-off";
}

static const char *dp_router_words(enum router_kind k)
{
	return k == ROUTER_ROUND_ROBIN ? ", round-robin router" : k == ROUTER_LEAST_OUTSTANDING ? ", least-outstanding router" : ", kv-aware router";
}

static void run_header(FILE *f, const struct out_run *c)
{
	/* an engine whose limits follow its own rules (SGLang's) prints each
	 * rule it applied */
	bool rules = (c->cfg.sc->engine->knobs & ENGINE_KNOB_RULE_LIMITS) != 0;
	char b1[64], b2[64], lora_mem[96] = "";

	fprintf(f, "model      %s (%s), %s weights, %s KV cache", c->cfg.sc->model->id, c->cfg.sc->model->source,
	       dtype_name(c->cost->cfg.wdt), dtype_name(c->cfg.sc->kvdt));
	if (c->cost->cfg.wdt != c->cfg.sc->wdt || (c->cfg.sc->model->n_experts > 0 && c->cost->moe_wdt != c->cost->cfg.wdt))
		fprintf(f, " (as stored in the checkpoint, %s; routed experts %s)", c->cfg.sc->model->q.method[0] ? c->cfg.sc->model->q.method : "quantized",
		       dtype_name(c->cost->moe_wdt));
	if (c->cfg.sc->kvdt_src[0])
		fprintf(f, " (KV cache from %s)", c->cfg.sc->kvdt_src);
	fprintf(f, "\n");
	if (c->as_cfg)
		fprintf(f, "replicas   autoscaled, %d to %d replicas (policy %s), %s router, each a copy of:\n",
			c->as_cfg->min, c->as_cfg->max, autoscale_policy_name(c->as_cfg->policy),
			router_name(scenario_router(c->cfg.sc)));
	else if (c->cfg.sc->k.replicas > 1)
		fprintf(f, "replicas   %d replicas, %s router (%d GPUs in all), each a copy of:\n", (int)c->cfg.sc->k.replicas,
			router_name(scenario_router(c->cfg.sc)), scenario_gpus(c->cfg.sc));
	if (c->simcfg->pd.prefill > 0) {
		/* workers, each pd.*_group attention-DP ranks (sim.h) */
		const struct parallel *pp = c->prefill_par, *dp = &c->cfg.sc->par;
		int pw = c->simcfg->pd.prefill / (pp->dp > 1 ? pp->dp : 1);
		int dw = c->simcfg->dp / (dp->dp > 1 ? dp->dp : 1);
		char pdp[48] = "", ddp[48] = "";
		if (pp->dp > 1)
			snprintf(pdp, sizeof(pdp), ", attention DP %d in lockstep", pp->dp);
		if (dp->dp > 1)
			snprintf(ddp, sizeof(ddp), ", attention DP %d in lockstep", dp->dp);
		const struct gpu_spec *pg = c->cfg.sc->prefill_gpu, *g = c->cfg.sc->gpu;
		char dgpu[80] = "", link[240];
		if (pg) { /* mixed GPU types: each pool's named */
			snprintf(dgpu, sizeof(dgpu), " %s", g->id);
			snprintf(link, sizeof(link), "the slower inter-node link of the two GPUs (%s %.0f, %s %.0f GB/s per GPU)",
				 pg->id, pg->internode_bw / 1e9, g->id, g->internode_bw / 1e9);
		} else {
			snprintf(link, sizeof(link), "%s",
				 c->pd_nvlink ? "NVLink (both pools in one NVLink domain)" : "the inter-node link");
		}
		fprintf(f, "hardware   P/D %dp%dd: %d prefill worker%s x %d %s (TP %d, PP %d, EP %d%s) + %d decode worker%s x %d%s (TP %d, PP %d, EP %d%s)\n",
		       pw, dw, pw, pw > 1 ? "s" : "", pp->tp * pp->pp * pp->dp, pg ? pg->id : g->id, pp->tp,
		       pp->pp, pp->ep, pdp, dw, dw > 1 ? "s" : "", dp->tp * dp->pp * dp->dp, dgpu, dp->tp, dp->pp,
		       dp->ep, ddp);
		fprintf(f, "kv handoff prompt KV %.1f kB per token over %s, %.0f GB/s per prefill %s (%s), + %.3g ms per request (%s); decode admits a request when its KV lands; %s; %s\n",
		       c->simcfg->pd.kv_bytes_per_token / 1e3, link,
		       c->simcfg->pd.link_bw / 1e9, pp->dp > 1 ? "rank" : "worker", "all its GPUs at 0.7 of the link",
		       c->simcfg->pd.alpha_s * 1e3,
		       c->cfg.sc->pd_handoff_given ? "--kv-handoff-ms"
						   : "the engine's hand-off: frontend, transfer set-up, decode polling; fitted on measured P/D runs",
		       pd_first_words(c->simcfg->pd.first),
		       c->simcfg->router == ROUTER_KV_AWARE
			       ? "the KV-aware router picks its decode rank"
			       : "decode workers taken in turn (a P/D frontend's round-robin, Dynamo's default), each request on the worker's least-loaded rank");
		fprintf(f, "prefill kv %lld blocks (%lld tokens) per prefill %s, from memory%s\n",
		       (long long)c->simcfg->pd.prefill_kv_blocks,
		       (long long)(c->simcfg->pd.prefill_kv_blocks * c->simcfg->block_size),
		       pp->dp > 1 ? "DP rank" : "worker",
		       pp->dp > 1 && c->simcfg->pd.prefill_rank_random
			       ? "; each prompt on a random DP rank of its worker (the engine routes by the request's bootstrap room)"
			       : "");
		if (pg && c->prefill_cost) { /* the prefill pool's own tables */
			const struct cost_model *pc = c->prefill_cost;
			fprintf(f, "prefill    %s kernel tables %s%s%s: GEMMs %s; routed experts %s\n", pg->id,
			       pc->tabs->engine[0] ? pc->tabs->engine : "none (defaults)", pc->tabs->engine[0] ? " " : "",
			       pc->tabs->version, pc->src[COST_SRC_GEMM][0] ? pc->src[COST_SRC_GEMM] : "-",
			       pc->src[COST_SRC_MOE][0] ? pc->src[COST_SRC_MOE] : "none (a dense model)");
		} else if (c->prefill_cost && c->cfg.sc->prefill_moe_backend != c->cfg.sc->moe_backend) {
			/* the pools' own MoE backends (--prefill-moe-backend) */
			fprintf(f, "prefill    routed experts %s\n", c->prefill_cost->src[COST_SRC_MOE]);
		}
	} else if (c->simcfg->lockstep)
		print_dp_attention(f, c);
	else if (c->cfg.sc->k.replicas > 1 && c->cfg.sc->par.dp == 1)
		fprintf(f, "hardware   %d x %s (TP %d, PP %d)\n", c->cfg.sc->par.tp * c->cfg.sc->par.pp, c->cfg.sc->gpu->id,
			c->cfg.sc->par.tp, c->cfg.sc->par.pp);
	else if (c->cfg.sc->k.replicas > 1)
		fprintf(f, "hardware   %d DP engines x %d %s (TP %d, PP %d)%s across them\n", c->cfg.sc->par.dp,
		       c->cfg.sc->par.tp * c->cfg.sc->par.pp, c->cfg.sc->gpu->id, c->cfg.sc->par.tp, c->cfg.sc->par.pp,
		       dp_router_words(scenario_router(c->cfg.sc)));
	else
		fprintf(f, "hardware   %d replica%s x %d %s (TP %d, PP %d%s)\n", c->cfg.sc->par.dp, c->cfg.sc->par.dp > 1 ? "s" : "",
		       c->cfg.sc->par.tp * c->cfg.sc->par.pp, c->cfg.sc->gpu->id, c->cfg.sc->par.tp, c->cfg.sc->par.pp,
		       c->cfg.sc->par.dp > 1 ? dp_router_words(scenario_router(c->cfg.sc)) : "");
	if (c->simcfg->lockstep || c->cost->place.nodes > 1)
		print_placement(f, c);
	{
		/* the engine's own words on its scheduling */
		char words[1024];
		c->cfg.sc->engine->sched_words(c->simcfg, c->cost->cfg.overlap_cpu, words, sizeof(words));
		fprintf(f, "engine     %s\n", words);
		if (c->cfg.sc->engine->rocm_words && strcmp(c->cfg.sc->gpu->vendor, "amd") == 0) {
			c->cfg.sc->engine->rocm_words(c->cfg.sc->gpu, words, sizeof(words));
			fprintf(f, "rocm       %s\n", words);
		}
	}
	if (rules)
		print_sglang_defaults(f, c);
	else if (!c->mbt_given || !c->mns_given || !c->mml_given)
		fprintf(f, "defaults   %s%s%s\n",
		       !c->mbt_given || !c->mns_given ? "max_num_batched_tokens/max_num_seqs: " : "",
		       !c->mbt_given || !c->mns_given ? scenario_limits_rule(c->cfg.sc->gpu) : "",
		       c->mml_given ? "" : (!c->mbt_given || !c->mns_given ? "; max_model_len: the model's max_position_embeddings"
							: "max_model_len: the model's max_position_embeddings"));
	if (c->mp->lora_bytes > 0) /* LoRA: its adapter slots (memplan_take) */
		snprintf(lora_mem, sizeof(lora_mem), " - %.2f GiB LoRA slots", c->mp->lora_bytes / 1073741824.0);
	if (c->mp->eplb_bytes > 0) { /* EPLB: its redundant experts (memplan_take_experts) */
		size_t l = strlen(lora_mem);
		snprintf(lora_mem + l, sizeof(lora_mem) - l, " - %.2f GiB redundant experts",
			 c->mp->eplb_bytes / 1073741824.0);
	}
	if (c->cfg.kv_from_memory && (c->cfg.sc->engine->knobs & ENGINE_KNOB_MEM_FRACTION))
		fprintf(f, "kv cache   %lld tokens (pages of %lld) per %s, from memory: (%.2f GiB - %.2f GiB in use before the weights load) x mem_fraction_static %.3f - %.2f GiB weights%s = %.2f GiB (activations and CUDA graphs live outside the static pool)\n",
		       (long long)(c->simcfg->total_kv_blocks * c->simcfg->block_size), (long long)c->simcfg->block_size,
		       c->simcfg->lockstep ? "DP rank" : "replica", c->mp->mem_bytes / 1073741824.0,
		       c->mp->preload_bytes / 1073741824.0, c->cfg.mem_fraction_static, c->mp->weight_bytes / 1073741824.0, lora_mem,
		       c->mp->kv_bytes / 1073741824.0);
	else if (c->cfg.kv_from_memory)
		fprintf(f, "kv cache   %lld blocks (%lld tokens) per %s, from memory: %.2f GiB x %.2f - %.2f GiB weights - %.2f GiB activations - %.2f GiB reserve%s = %.2f GiB\n",
		       (long long)c->simcfg->total_kv_blocks, (long long)(c->simcfg->total_kv_blocks * c->simcfg->block_size),
		       c->simcfg->lockstep ? "DP rank" : "replica",
		       c->mp->mem_bytes / 1073741824.0, c->cfg.sc->k.gpu_memory_utilization, c->mp->weight_bytes / 1073741824.0,
		       c->mp->activation_bytes / 1073741824.0, c->mp->reserve_bytes / 1073741824.0, lora_mem,
		       c->mp->kv_bytes / 1073741824.0);
	if (c->cfg.kv_from_memory && c->mp->sampler_bytes > 0)
		fprintf(f, "           activations: the profile's sampler run (max_num_seqs %lld x vocab %lld logits, %.0f bytes each) above its forward pass's %.2f GiB\n",
		       (long long)c->cfg.sc->k.max_num_seqs, (long long)c->cfg.sc->model->vocab,
		       c->mp->sampler_bytes / ((double)c->cfg.sc->k.max_num_seqs * (double)c->cfg.sc->model->vocab),
		       c->mp->forward_bytes / 1073741824.0);
	if (c->simcfg->kv_window.tokens > 0)
		fprintf(f, "           hybrid pool: the blocks hold the full-attention group and %d sliding-window group%s (window %lld), taken as chunks run and freed as they leave the window (about %lld a decoding request); vLLM's log: GPU KV cache size %lld tokens (blocks / %d groups x %lld)\n",
		       (int)c->simcfg->kv_window.groups, c->simcfg->kv_window.groups > 1 ? "s" : "",
		       (long long)c->simcfg->kv_window.tokens,
		       (long long)(((c->simcfg->kv_window.tokens + c->simcfg->block_size - 1) / c->simcfg->block_size + 1) *
				   c->simcfg->kv_window.groups),
		       (long long)(c->simcfg->total_kv_blocks / (1 + c->simcfg->kv_window.groups) * c->simcfg->block_size),
		       1 + (int)c->simcfg->kv_window.groups, (long long)c->simcfg->block_size);
	if (c->cfg.kv_from_memory && c->mp->state_bytes > 0)
		fprintf(f, "           of which %.2f GiB per-sequence state (window KV, recurrent state: %.1f MiB each) for %lld sequences\n",
		       c->mp->state_bytes / 1073741824.0, c->mp->state_bytes_per_seq / 1048576.0,
		       (long long)c->mp->state_seqs);
	if (!c->cfg.kv_from_memory)
		fprintf(f, "kv cache   %lld blocks (%lld tokens) per %s, from --total-kv-blocks\n",
		       (long long)c->simcfg->total_kv_blocks, (long long)(c->simcfg->total_kv_blocks * c->simcfg->block_size),
		       c->simcfg->lockstep ? "DP rank" : "replica");
	if (c->offload_words && c->offload_words[0])
		fprintf(f, "kv offload %s\n", c->offload_words);
	if (c->lora_words && c->lora_words[0])
		fprintf(f, "lora       %s\n", c->lora_words);
	if (c->eplb_words && c->eplb_words[0])
		fprintf(f, "eplb       %s\n", c->eplb_words);
	if (c->mm_words && c->mm_words[0])
		fprintf(f, "images     %s\n", c->mm_words);
	if (c->epd_words && c->epd_words[0])
		fprintf(f, "encoders   %s\n", c->epd_words);
	fprintf(f, "workload   %s: %s", c->cfg.wl->source, wl_process_name(c->cfg.wl->process));
	if (c->cfg.wl->process == WL_CONCURRENCY)
		fprintf(f, " x %lld clients", (long long)c->cfg.wl->concurrency);
	else if (c->cfg.wl->nstages == 0 && c->cfg.wl->ncurve == 0 && c->cfg.wl->process != WL_TRACE)
		fprintf(f, " %g %s/s", c->cfg.wl->rate, c->cfg.wl->sess.count ? "sessions" : "req");
	if (c->cfg.wl->nstages)
		fprintf(f, ", %zu stages", c->cfg.wl->nstages);
	if (c->cfg.wl->ncurve) {
		const struct wl_spec *w = c->cfg.wl;
		double lo = w->curve_rate[0], hi = lo;
		for (size_t i = 1; i < w->ncurve; i++) {
			lo = fmin(lo, w->curve_rate[i]);
			hi = fmax(hi, w->curve_rate[i]);
		}
		fprintf(f, " on a rate curve of %zu points, %g to %g req/s over %g s", w->ncurve, lo, hi,
			w->curve_t[w->ncurve - 1]);
	}
	if (c->cfg.wl->sp_groups)
		fprintf(f, ", shared prefix %lld groups x %lld prompts (%lld + %lld tokens), output %lld",
		       (long long)c->cfg.wl->sp_groups, (long long)c->cfg.wl->sp_prompts,
		       (long long)c->cfg.wl->sp_system, (long long)c->cfg.wl->sp_question,
		       (long long)c->cfg.wl->sp_output);
	else if (c->cfg.wl->process != WL_TRACE)
		fprintf(f, ", prompt %s%s, output %s", out_dist_desc(&c->cfg.wl->prompt, b1, sizeof(b1)),
		       c->cfg.wl->prefix_tokens ? " + shared prefix" : "",
		       out_dist_desc(&c->cfg.wl->output, b2, sizeof(b2)));
	if (c->cfg.wl->sess.count > 0) {
		char b3[96], b4[96];
		const struct wl_sessions *ss = &c->cfg.wl->sess;
		fprintf(f, ", %lld sessions of %s turns, think %s ms", (long long)ss->count,
			out_dist_desc(&ss->turns, b1, sizeof(b1)), out_dist_desc(&ss->think_ms, b3, sizeof(b3)));
		if (ss->tool.kind != WL_FIXED || ss->tool.a > 0)
			fprintf(f, ", tool output %s tokens", out_dist_desc(&ss->tool, b4, sizeof(b4)));
	}
	if (c->cfg.wl->images.on) {
		const struct wl_images *im = &c->cfg.wl->images;
		fprintf(f, ", images %s of %lldx%lld per request", out_dist_desc(&im->count, b1, sizeof(b1)),
			(long long)im->width, (long long)im->height);
		if (im->repeat > 0)
			fprintf(f, " (%g repeat the one before)", im->repeat);
	}
	if (c->cfg.wl->num_requests > 0)
		fprintf(f, ", %lld request%s", (long long)c->cfg.wl->num_requests, out_plural(c->cfg.wl->num_requests));
	if (c->cfg.wl->duration_s > 0)
		fprintf(f, ", %g s", c->cfg.wl->duration_s);
	fprintf(f, ", seed %llu", (unsigned long long)c->cfg.wl->seed);
	if (c->cfg.wl->harness[0])
		fprintf(f, ", harness %s (the engine's host terms under it: %s)", c->cfg.wl->harness,
			c->cost->cfg.host_src ? c->cost->cfg.host_src : "none measured");
	fputc('\n', f);
	if (c->cfg.workload_origin && c->cfg.workload_origin[0])
		fprintf(f, "           %s\n", c->cfg.workload_origin);
	if (c->simcfg->spec.k > 0) {
		const struct spec_cfg *sp = &c->simcfg->spec;
		int i;
		fprintf(f, "speculate  %s, %d draft token%s verified per step (width %d), acceptance ",
		       sp->method == SPEC_DRAFT ? c->spec_method : spec_method_name(sp->method), sp->k,
		       out_plural(sp->k), sp->k + 1);
		for (i = 0; i < sp->nrates; i++)
			fprintf(f, "%s%.3g", i ? "," : "", sp->rate[i]);
		fprintf(f, "%s (mean acceptance length %.2f); draft cost: %s\n",
		       sp->nrates == 1 ? " per position (geometric)" : " by position", spec_mean_accepted_len(sp),
		       sp->method == SPEC_NGRAM ? "none (CPU n-gram lookup)" :
		       sp->method == SPEC_DRAFT ? "K decode steps of the draft model" :
		       "K passes of one decoder layer + LM head");
		fprintf(f, "           acceptance: %s; %s prompts\n", sp->src[0] ? sp->src : "given (--acceptance-rate)",
			wl_prompt_kind_name(wl_prompt_kind(c->cfg.wl)));
	}
	if (c->cfg.calibration)
		fprintf(f, "tier 1     %s: overheads %g us/step + %g us/prefill token, API TTFT %g ms, API E2E %g ms\n",
			c->cfg.calibration, c->cost->cfg.ov.step_us, c->cost->cfg.ov.prefill_token_us,
			c->cost->cfg.ov.api_ttft_ms, c->cost->cfg.ov.api_e2e_ms);
	if (c->cost->cfg.tier2)
		fprintf(f, "tier 2     %s: bandwidth efficiency weights %.2f, paged KV %.2f, mixed %.2f\n",
		       c->cost->cfg.tier2->path, c->cost->cfg.tier2->bw_eff_weights,
		       c->cost->cfg.tier2->bw_eff_kv, c->cost->cfg.tier2->bw_eff_mixed);
	fprintf(f, "tier 0     kernel tables %s%s%s; corrections off: %s; overheads %g us/step + %g us/layer + %g us/request; client TTFT +%g ms",
	       c->cost->tabs->engine[0] ? c->cost->tabs->engine : c->cost->tabs->dir[0] ? c->cost->tabs->dir : "none (defaults)",
	       c->cost->tabs->engine[0] ? " " : "", c->cost->tabs->version,
	       c->cfg.tier0_off && *c->cfg.tier0_off ? c->cfg.tier0_off : "none", c->cost->cfg.ov.step_us,
	       c->cost->cfg.ov.layer_us, c->cost->cfg.ov.req_us, c->cost->cfg.ov.api_ttft_ms);
	if (c->cost->cfg.ov.api_prompt_us > 0)
		fprintf(f, " + %g us/prompt token", c->cost->cfg.ov.api_prompt_us);
	if (c->cost->cfg.ov.api_loop_ms > 0)
		fprintf(f, "; API server loop %g ms/request", c->cost->cfg.ov.api_loop_ms);
	if (c->cost->cfg.ov.api_loop_ms > 0 && c->simcfg->api_servers > 1)
		fprintf(f, " on each of %d API servers", c->simcfg->api_servers);
	fputc('\n', f);
	{
		int k;
		for (k = 0; k < COST_SRC__COUNT; k++)
			if (c->cost->src[k][0])
				fprintf(f, "  %-17s %s\n", cost_src_name((enum cost_src)k), c->cost->src[k]);
	}
	if (c->cost->tabs->warning[0])
		fprintf(f, "warning    %s\n", c->cost->tabs->warning);
	for (const char *n = c->notes; n && *n;) {
		const char *nl = strchr(n, '\n');
		int len = nl ? (int)(nl - n) : (int)strlen(n);
		fprintf(f, "warning    %.*s\n", len, n);
		n = nl ? nl + 1 : n + len;
	}
}

void out_run_text(FILE *f, const struct out_run *c)
{
	struct sim *s = c->sim;
	const struct sim_totals *t = sim_totals(s);
	struct metric_set all;
	char line[160];
	int st, ns = sim_nstages(s);

	run_header(f, c);
	sim_summary(s, -1, &all);
	run_status_line(&c->status, line, sizeof(line));
	fprintf(f, "status     %s\n", line);
	fprintf(f, "\nresults (client side; ITL = (E2E - TTFT)/(output - 1), vLLM's TPOT; TPOT = E2E/output, GuideLLM >= 0.4)\n");
	if (ns > 1) {
		fprintf(f, "  %-6s %9s %9s %10s %10s %10s %10s\n", "stage", "completed", "req/s", "in tok/s",
		       "out tok/s", "TTFT p50", "E2E mean");
		for (st = 0; st < ns; st++) {
			struct metric_set m;
			sim_summary(s, st, &m);
			if (m.completed == 0) {
				fprintf(f, "  %-6d %9zu %9s %10s %10s %10s %10s\n", st, m.completed, "-", "-", "-",
					"-", "-");
				continue;
			}
			fprintf(f, "  %-6d %9zu %9.2f %10.0f %10.0f %10.2f %10.2f\n", st, m.completed,
			       m.throughput_rps, m.input_tok_s, m.output_tok_s, m.ttft_ms.p50, m.e2e_ms.mean);
		}
		for (st = 0; st < ns; st++) {
			struct metric_set m;
			sim_summary(s, st, &m);
			fprintf(f, "stage %d\n", st);
			out_metrics_text(f, &m);
		}
		fprintf(f, "all stages\n");
	}
	out_metrics_text(f, &all);
	if (isnan(all.energy_j)) {
		/* the reason there is no energy line (docs/energy.md) */
		const struct scenario *sc = c->cfg.sc;
		const struct gpu_spec *pg = sc->prefill_gpu;
		if (!(sc->gpu->board_power_w > 0) || (pg && !(pg->board_power_w > 0)))
			fprintf(f, "  energy -: no board power figure for %s in data/gpus.json\n",
				sc->gpu->board_power_w > 0 ? pg->id : sc->gpu->id);
	}
	if (!isnan(c->request_goodput))
		fprintf(f, "  goodput    %.2f req/s: %zu of %llu requests meet every --goodput limit (vLLM's goodput)\n",
			c->request_goodput, c->good, (unsigned long long)t->arrived);
	print_turns(f, s);
	if (c->conf) {
		fputc('\n', f);
		out_confidence_text(f, c->conf, NULL);
	}
	fprintf(f, "\nrequests   arrived %llu, completed %llu, rejected %llu (too long %llu, KV capacity %llu), preemptions %llu\n",
	       (unsigned long long)t->arrived, (unsigned long long)t->completed,
	       (unsigned long long)rejected_total(t), (unsigned long long)t->rejected[REJ_TOO_LONG],
	       (unsigned long long)t->rejected[REJ_KV_CAPACITY], (unsigned long long)t->preemptions);
	if (c->simcfg->pd.prefill > 0)
		fprintf(f, "kv handoff %llu transfers, mean %.3f ms\n", (unsigned long long)t->pd_transfers,
		       t->pd_transfers ? (double)t->pd_transfer_ns * 1e-6 / (double)t->pd_transfers : 0.0);
	if (c->simcfg->spec.k > 0)
		fprintf(f, "speculate  %llu verification steps, %llu of %llu draft tokens accepted (%.1f%%), %.2f tokens per verification step\n",
		       (unsigned long long)t->spec_verify, (unsigned long long)t->spec_accepted,
		       (unsigned long long)t->spec_drafted,
		       t->spec_drafted ? 100.0 * (double)t->spec_accepted / (double)t->spec_drafted : 0.0,
		       t->spec_verify ? 1.0 + (double)t->spec_accepted / (double)t->spec_verify : 0.0);
	fprintf(f, "engine     %llu steps, prefix-cache hit rate %.1f%%, KV utilisation mean %.1f%% max %.1f%%, simulated %.3f s\n",
	       (unsigned long long)t->steps, 100 * hit_rate(t),
	       t->steps ? 100 * t->kv_util_sum_steps / (double)t->steps : 0, 100 * t->kv_util_max,
	       (double)t->duration_ns * 1e-9);
	if (c->simcfg->offload.host_blocks > 0) {
		double g, h, m;
		tier_rates(t, &g, &h, &m);
		fprintf(f, "kv tiers   prompt tokens: GPU hits %.1f%%, host hits %.1f%%, misses %.1f%%; %llu blocks loaded from the host, %llu written to it; the transfers lengthened steps by %.3f s\n",
			100 * g, 100 * h, 100 * m, (unsigned long long)t->host_loaded_blocks,
			(unsigned long long)t->host_stored_blocks, t->offload_exposed_s);
	}
	if (c->simcfg->lora.max_loras > 0)
		fprintf(f, "lora       %llu adapter loads into GPU slots (%llu read from disk first), %llu steps adapter-limited (a waiting request skipped); loads lengthened steps by %.3f s, the LoRA kernels by %.3f s\n",
			(unsigned long long)t->lora_gpu_loads, (unsigned long long)t->lora_disk_loads,
			(unsigned long long)t->lora_limited_steps, t->lora_load_s, t->lora_kernel_s);
	if (c->simcfg->mm.image_tokens > 0)
		fprintf(f, "images     %llu images admitted: %llu encoded, %llu found in the encoder cache; the encoder %s %.3f s\n",
			(unsigned long long)t->mm_images, (unsigned long long)t->mm_encoded,
			(unsigned long long)t->mm_cache_hits,
			c->simcfg->epd.encoders > 0 ? "workers were busy for" : "lengthened steps by", t->mm_encoder_s);
	if (c->simcfg->epd.encoders > 0)
		fprintf(f, "encoders   %llu embedding hand-offs, %.3f ms each on average (link and hand-off)\n",
			(unsigned long long)t->epd_transfers,
			t->epd_transfers ? (double)t->epd_transfer_ns * 1e-6 / (double)t->epd_transfers : 0.0);
	if (c->as)
		out_autoscale_text(f, c->as_cfg, c->as);
}

static void jnum(struct jw *w, const char *k, double v)
{
	if (isnan(v))
		jw_null(w, k);
	else
		jw_num(w, k, v);
}

void out_run_json(FILE *f, const struct out_run *c)
{
	struct sim *s = c->sim;
	const struct sim_totals *t = sim_totals(s);
	const struct sim_cfg *sc = c->simcfg;
	struct metric_set all;
	struct jw w;
	char line[160];
	int st, ns = sim_nstages(s);

	sim_summary(s, -1, &all);
	jw_init(&w, f, true);
	jw_obj(&w, NULL);
	jw_str(&w, "servesim_version", SERVESIM_VERSION);
	jw_str(&w, "status", run_status_name(c->status.kind));
	run_status_line(&c->status, line, sizeof(line));
	jw_str(&w, "status_line", line);
	out_config_json(&w, &c->cfg);
	if (sc->pd.prefill > 0) {
		jw_obj(&w, "disaggregation");
		jw_int(&w, "prefill_workers", sc->pd.prefill / (c->prefill_par->dp > 1 ? c->prefill_par->dp : 1));
		jw_int(&w, "decode_workers", sc->dp / (c->cfg.sc->par.dp > 1 ? c->cfg.sc->par.dp : 1));
		if (c->cfg.sc->prefill_gpu) /* mixed GPU types (absent: --gpu's) */
			jw_str(&w, "prefill_gpu", c->cfg.sc->prefill_gpu->id);
		jw_int(&w, "prefill_tp", c->prefill_par->tp);
		jw_int(&w, "prefill_ep", c->prefill_par->ep);
		if (c->prefill_par->dp > 1 || c->cfg.sc->par.dp > 1) { /* attention-DP workers */
			jw_int(&w, "prefill_dp", c->prefill_par->dp);
			jw_int(&w, "decode_dp", c->cfg.sc->par.dp);
		}
		jw_int(&w, "prefill_total_kv_blocks", sc->pd.prefill_kv_blocks);
		jw_num(&w, "kv_link_bytes_per_s", sc->pd.link_bw);
		jw_num(&w, "kv_handoff_ms", sc->pd.alpha_s * 1e3);
		jw_str(&w, "first_token", sc->pd.first == SIM_PD_FIRST_HANDOFF ? "handoff" : "decode_worker");
		jw_end_obj(&w);
	}
	jw_obj(&w, "summary");
	jw_int(&w, "arrived", (int64_t)t->arrived);
	jw_int(&w, "rejected", (int64_t)rejected_total(t));
	jw_int(&w, "rejected_too_long", (int64_t)t->rejected[REJ_TOO_LONG]);
	jw_int(&w, "rejected_kv_capacity", (int64_t)t->rejected[REJ_KV_CAPACITY]);
	jw_int(&w, "preemptions", (int64_t)t->preemptions);
	jw_num(&w, "duration_s", (double)t->duration_ns * 1e-9);
	jw_int(&w, "steps", (int64_t)t->steps);
	jnum(&w, "prefix_cache_hit_rate", t->prefix_lookup_tokens ? hit_rate(t) : NAN);
	if (sc->offload.host_blocks > 0) {
		double g, h, m;
		tier_rates(t, &g, &h, &m);
		jw_obj(&w, "kv_tiers");
		jw_int(&w, "host_blocks", sc->offload.host_blocks);
		jnum(&w, "gpu_hit_rate", g);
		jnum(&w, "host_hit_rate", h);
		jnum(&w, "miss_rate", m);
		jw_int(&w, "host_loaded_blocks", (int64_t)t->host_loaded_blocks);
		jw_int(&w, "host_stored_blocks", (int64_t)t->host_stored_blocks);
		jw_num(&w, "transfer_exposed_s", t->offload_exposed_s);
		jw_num(&w, "block_transfer_s", sc->offload.block_s);
		jw_end_obj(&w);
	}
	if (sc->lora.max_loras > 0) {
		jw_obj(&w, "lora");
		jw_int(&w, "max_loras", sc->lora.max_loras);
		jw_int(&w, "max_lora_rank", sc->lora.rank);
		jw_int(&w, "host_slots", sc->lora.cpu_slots);
		jw_int(&w, "gpu_loads", (int64_t)t->lora_gpu_loads);
		jw_int(&w, "disk_loads", (int64_t)t->lora_disk_loads);
		jw_int(&w, "adapter_limited_steps", (int64_t)t->lora_limited_steps);
		jw_num(&w, "load_s", t->lora_load_s);
		jw_num(&w, "kernel_s", t->lora_kernel_s);
		jw_end_obj(&w);
	}
	if (sc->mm.image_tokens > 0) {
		jw_obj(&w, "images");
		jw_int(&w, "tokens_per_image", sc->mm.image_tokens);
		jw_int(&w, "patches_per_image", sc->mm.patches);
		jw_int(&w, "admitted", (int64_t)t->mm_images);
		jw_int(&w, "encoded", (int64_t)t->mm_encoded);
		jw_int(&w, "encoder_cache_hits", (int64_t)t->mm_cache_hits);
		jw_num(&w, "encoder_s", t->mm_encoder_s);
		if (sc->epd.encoders > 0) {
			jw_int(&w, "encoder_workers", sc->epd.encoders);
			jw_int(&w, "embedding_handoffs", (int64_t)t->epd_transfers);
			jw_num(&w, "embedding_handoff_s", (double)t->epd_transfer_ns * 1e-9);
		}
		jw_end_obj(&w);
	}
	jnum(&w, "kv_util_mean", t->steps ? t->kv_util_sum_steps / (double)t->steps : NAN);
	jnum(&w, "kv_util_max", t->steps ? t->kv_util_max : NAN);
	jnum(&w, "offered_rps", c->status.offered_rps);
	jnum(&w, "queue_growth_s", c->status.queue_growth_s);
	jw_str(&w, "itl_definition", "(e2e - ttft) / (output_tokens - 1) per request (vLLM's TPOT)");
	jw_str(&w, "itl_pooled_definition", OUT_ITL_POOLED_DEFINITION);
	jw_str(&w, "tpot_definition", "e2e / output_tokens (GuideLLM >= 0.4)");
	out_metrics_json(&w, &all);
	if (c->conf)
		out_confidence_json(&w, c->conf);
	if (!isnan(c->request_goodput)) {
		jw_obj(&w, "goodput");
		jnum(&w, "ttft_ms", c->goodput_ttft_ms);
		jnum(&w, "tpot_ms", c->goodput_tpot_ms);
		jnum(&w, "e2el_ms", c->goodput_e2el_ms);
		jw_int(&w, "good_requests", (int64_t)c->good);
		jw_num(&w, "request_goodput_rps", c->request_goodput);
		jw_end_obj(&w);
	}
	if (sc->pd.prefill > 0) {
		jw_int(&w, "kv_transfers", (int64_t)t->pd_transfers);
		jnum(&w, "kv_transfer_mean_ms",
		     t->pd_transfers ? (double)t->pd_transfer_ns * 1e-6 / (double)t->pd_transfers : NAN);
	}
	if (sc->spec.k > 0) {
		jw_obj(&w, "speculative");
		jw_str(&w, "method", sc->spec.method == SPEC_DRAFT ? c->spec_method
							       : spec_method_name(sc->spec.method));
		jw_int(&w, "num_speculative_tokens", sc->spec.k);
		jw_arr(&w, "acceptance_rate");
		for (st = 0; st < sc->spec.nrates; st++)
			jw_num(&w, NULL, sc->spec.rate[st]);
		jw_end_arr(&w);
		jw_str(&w, "acceptance_source", sc->spec.src[0] ? sc->spec.src : "given");
		jw_int(&w, "verification_steps", (int64_t)t->spec_verify);
		jw_int(&w, "draft_tokens", (int64_t)t->spec_drafted);
		jw_int(&w, "accepted_tokens", (int64_t)t->spec_accepted);
		jw_end_obj(&w);
	}
	turns_json(&w, s);
	if (c->as)
		out_autoscale_summary_json(&w, c->as_cfg, c->as);
	jw_end_obj(&w);
	if (c->as)
		out_autoscale_json(&w, c->as_cfg, c->as);
	jw_arr(&w, "stages");
	for (st = 0; st < ns; st++) {
		struct metric_set m;
		sim_summary(s, st, &m);
		jw_obj(&w, NULL);
		jw_int(&w, "index", st);
		if (c->cfg.wl->nstages) {
			jw_num(&w, "rate", c->cfg.wl->stages[st].rate);
			jw_num(&w, "duration_s", c->cfg.wl->stages[st].duration_s);
		}
		out_metrics_json(&w, &m);
		jw_end_obj(&w);
	}
	jw_end_arr(&w);
	jw_end_obj(&w);
	jw_finish(&w);
}

/* One row per stage and one for all: configuration columns, stage,
 * status, metrics. */
void out_run_csv(FILE *f, const struct out_run *c)
{
	struct metric_set m;
	int st, ns = sim_nstages(c->sim);

	out_config_csv_header(f);
	fprintf(f, ",stage,status,");
	out_metrics_csv_header(f);
	fputc('\n', f);
	for (st = 0; st <= ns; st++) {
		bool all = st == ns;
		sim_summary(c->sim, all ? -1 : st, &m);
		out_config_csv_row(f, &c->cfg);
		if (all)
			fprintf(f, ",all,%s,", run_status_name(c->status.kind));
		else
			fprintf(f, ",%d,,", st);
		out_metrics_csv_row(f, &m);
		fputc('\n', f);
	}
}

void out_run_vllm_bench(FILE *f, const struct out_run *c)
{
	const struct sim_totals *t = sim_totals(c->sim);
	const struct wl_spec *wl = c->cfg.wl;
	struct out_bench_info bi;
	struct metric_set all;

	sim_summary(c->sim, -1, &all);
	memset(&bi, 0, sizeof(bi));
	bi.model_id = c->cfg.sc->model->id;
	bi.num_prompts = (int64_t)t->arrived;
	bi.request_rate = c->status.offered_rps;
	bi.max_concurrency = wl->process == WL_CONCURRENCY ? wl->concurrency : 0;
	bi.failed = (int64_t)rejected_total(t);
	bi.request_goodput = c->request_goodput;
	out_vllm_bench(f, &bi, &all, &c->status, &c->cfg);
}

/* --- GuideLLM sweep --- */

static const char *const sweep_note =
	"GuideLLM sweep: synchronous (1 client), throughput (every request at once), then constant rates evenly spaced between their request rates";

void out_gsweep_text(FILE *f, const struct out_run *c, const struct gsweep_point *p, int k)
{
	char line[160];
	int i;

	run_header(f, c);
	fprintf(f, "sweep      %s; %lld requests per benchmark\n", sweep_note, (long long)c->cfg.wl->num_requests);
	fprintf(f, "\n  %-11s %8s %9s %9s %9s %9s %9s %9s %9s  %s\n", "benchmark", "rate", "completed", "req/s",
		"out tok/s", "TTFT mean", "TTFT p99", "ITL mean", "E2E mean", "status");
	for (i = 0; i < k; i++) {
		const struct metric_set *m = &p[i].m;
		run_status_line(&p[i].status, line, sizeof(line));
		fprintf(f, "  %-11s", gsweep_kind_name(p[i].kind));
		if (p[i].kind == GSWEEP_CONSTANT)
			fprintf(f, " %8.3f", p[i].wl.rate);
		else
			fprintf(f, " %8s", "-");
		fprintf(f, " %9zu", m->completed);
		if (m->completed == 0) {
			fprintf(f, " %9s %9s %9s %9s %9s %9s  %s\n", "-", "-", "-", "-", "-", "-", line);
			continue;
		}
		fprintf(f, " %9.3f %9.0f %9.2f %9.2f %9.2f %9.2f  %s\n", m->throughput_rps, m->output_tok_s,
			m->ttft_ms.mean, m->ttft_ms.p99, m->itl_ms.n ? m->itl_ms.mean : NAN, m->e2e_ms.mean, line);
	}
}

void out_gsweep_json(FILE *f, const struct out_run *c, const struct gsweep_point *p, int k)
{
	struct jw w;
	char line[160];
	int i;

	jw_init(&w, f, true);
	jw_obj(&w, NULL);
	jw_str(&w, "servesim_version", SERVESIM_VERSION);
	jw_str(&w, "profile", "sweep");
	jw_str(&w, "profile_definition", sweep_note);
	out_config_json(&w, &c->cfg);
	jw_arr(&w, "benchmarks");
	for (i = 0; i < k; i++) {
		jw_obj(&w, NULL);
		jw_str(&w, "benchmark", gsweep_kind_name(p[i].kind));
		jnum(&w, "rate", p[i].kind == GSWEEP_CONSTANT ? p[i].wl.rate : NAN);
		if (p[i].kind == GSWEEP_CONSTANT)
			jw_null(&w, "concurrency");
		else
			jw_int(&w, "concurrency", p[i].wl.concurrency);
		jw_str(&w, "status", run_status_name(p[i].status.kind));
		run_status_line(&p[i].status, line, sizeof(line));
		jw_str(&w, "status_line", line);
		jw_int(&w, "arrived", (int64_t)p[i].arrived);
		jw_int(&w, "rejected", (int64_t)p[i].rejected);
		out_metrics_json(&w, &p[i].m);
		jw_end_obj(&w);
	}
	jw_end_arr(&w);
	jw_end_obj(&w);
	jw_finish(&w);
}

void out_gsweep_csv(FILE *f, const struct out_run *c, const struct gsweep_point *p, int k)
{
	struct out_config pc = c->cfg;
	int i;

	out_config_csv_header(f);
	fprintf(f, ",benchmark,status,");
	out_metrics_csv_header(f);
	fputc('\n', f);
	for (i = 0; i < k; i++) {
		pc.wl = &p[i].wl; /* the configuration columns describe this benchmark */
		out_config_csv_row(f, &pc);
		fprintf(f, ",%s,%s,", gsweep_kind_name(p[i].kind), run_status_name(p[i].status.kind));
		out_metrics_csv_row(f, &p[i].m);
		fputc('\n', f);
	}
}

void out_run_of(const struct scenflags *f, const char *spec_method, const struct scenflags_ctx *x,
		const struct scenario *sc, const struct scenario_state *st, const struct wl_spec *wl,
		const char *origin, char *tables, size_t ntables, struct out_run *rep)
{
	memset(rep, 0, sizeof(*rep));
	out_config_of(f, x, sc, st, wl, tables, ntables, &rep->cfg);
	rep->cfg.workload_origin = origin;
	rep->cost = &st->cost;
	rep->simcfg = &st->sc;
	rep->mp = &st->mp;
	rep->prefill_par = &sc->prefill_par;
	rep->prefill_cost = st->has_prefill ? &st->prefill_cost : NULL;
	rep->pd_nvlink = st->pd_nvlink;
	rep->notes = x->notes;
	rep->spec_method = spec_method;
	rep->mbt_given = deploy_given(&f->k, DEPLOY_MAX_NUM_BATCHED_TOKENS);
	rep->mns_given = deploy_given(&f->k, DEPLOY_MAX_NUM_SEQS);
	rep->mml_given = deploy_given(&f->k, DEPLOY_MAX_MODEL_LEN);
	rep->mem_frac_given = f->k.mem_fraction_static > 0;
	rep->sg_policy_given = f->k.schedule_policy != NULL;
	rep->kv_dtype_given = f->kv_given;
	rep->sg_mem = &st->sg_mem;
	rep->offload_words = st->offload_words;
	rep->lora_words = st->lora_words;
	rep->eplb_words = st->eplb_words;
	rep->mm_words = st->mm_words;
	rep->epd_words = st->epd_words;
	rep->sim = st->sim;
}

int out_run_status(struct out_run *rep, const struct wl_spec *wl, struct sim *s, const double goodput_ms[3],
		   struct err *e)
{
	int rc;

	if ((rc = run_status_sim(wl, s, &rep->status, e)) < 0)
		return rc;
	rep->request_goodput = NAN;
	if (isnan(goodput_ms[0]) && isnan(goodput_ms[1]) && isnan(goodput_ms[2]))
		return 0;
	if ((rc = sim_goodput(s, goodput_ms, &rep->good, &rep->request_goodput, e)) < 0)
		return rc;
	rep->goodput_ttft_ms = goodput_ms[0];
	rep->goodput_tpot_ms = goodput_ms[1];
	rep->goodput_e2el_ms = goodput_ms[2];
	return 0;
}
