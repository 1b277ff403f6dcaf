/* scenario.c - resolve a scenario into cost model, KV capacity and sim, on
 * its engine's rules (engine.h). */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "engine/engine.h"
#include "engine/registry.h"
#include "engine/scenario.h"
#include "cost/share.h"
#include "cost/lora.h"
#include "cost/vision.h"

bool scenario_big_gpu(const struct gpu_spec *g)
{
	/* vLLM V1 (EngineArgs._set_default_args, usage context
	 * OPENAI_API_SERVER): >= 70 GiB device memory and not an A100 */
	return g && g->mem_bytes >= 70.0 * 1073741824.0 && !strstr(g->id, "a100");
}

const char *scenario_limits_rule(const struct gpu_spec *g)
{
	return scenario_big_gpu(g) ? "vLLM's API-server defaults on a GPU with >= 70 GiB other than A100"
				   : "vLLM's API-server defaults on an A100, L40S or a GPU under 70 GiB";
}

void scenario_defaults(struct scenario *sc, const struct engine_type *en, const struct model_cfg *m,
		       const struct gpu_spec *g, const struct wl_spec *wl)
{
	memset(sc, 0, sizeof(*sc));
	sc->engine = en;
	sc->model = m;
	sc->gpu = g;
	sc->par = (struct parallel){1, 1, 1, 1, 0, 0};
	sc->wdt = sc->kvdt = DT_BF16;
	deploy_defaults(&deploy_table, &sc->k); /* the table's, then the rules' */
	sc->k.max_num_batched_tokens = scenario_big_gpu(g) ? 8192 : 2048;
	sc->k.max_num_seqs = scenario_big_gpu(g) ? 1024 : 256;
	/* vLLM derives max_model_len from the config's maximum */
	sc->k.max_model_len = m && m->max_positions > 0 ? m->max_positions : 32768;
	cost_default_overheads(&sc->ov);
	sc->graph_max = 512;
	sc->workload = wl;
	if (en->defaults)
		en->defaults(sc);
}

/* kv_cache_dtype "auto" as vLLM and SGLang take it: fp8 when the
 * checkpoint declares an fp8 KV cache, else the model's dtype, which for a
 * quantised checkpoint is its torch_dtype (bf16 for every fp8/fp4/int4
 * checkpoint in data/models). */
enum dtype scenario_kv_model(const struct model_cfg *m, enum dtype wdt, char *why, size_t n)
{
	enum dtype act = wdt == DT_FP16 ? DT_FP16 : DT_BF16;

	if (m && m->q.kv_fp8[0]) {
		if (n)
			snprintf(why, n, "kv_cache_dtype auto: the checkpoint's %s", m->q.kv_fp8);
		return DT_FP8;
	}
	if (act != wdt && n)
		snprintf(why, n, "kv_cache_dtype auto: the activation dtype, not the %s weights'", dtype_name(wdt));
	return act;
}

enum dtype scenario_kv_auto(const struct model_cfg *m, const struct gpu_spec *g, const struct engine_type *en,
			    enum dtype wdt, char *why, size_t n)
{
	if (n)
		why[0] = '\0';
	/* DeepSeek-V4: vLLM runs its fp8_ds_mla cache only (DeepseekV4MLAAttention
	 * asserts an fp8 cache_dtype), SGLang defaults to fp8_e4m3 for it; the
	 * measured blocks are all fp8 (TensorRT-LLM's too) */
	if (m && m->attn == ATTN_CSA) {
		if (n)
			snprintf(why, n, "DeepSeek-V4: fp8, vLLM's only KV format (fp8_ds_mla) and SGLang's default");
		return DT_FP8;
	}
	return en->kv_auto(m, g, wdt, why, n);
}

bool scenario_dp_attention(const struct model_cfg *m, const struct parallel *p)
{
	return m && m->n_experts > 0 && p->dp > 1;
}

struct parallel scenario_layout(const struct scenario *s, const struct parallel *p)
{
	struct parallel l = *p;

	l.dp_shard = s->engine->dp_shard && scenario_dp_attention(s->model, p) ? s->engine->dp_shard(s) : 0;
	return l;
}

double scenario_conservativeness(const struct scenario *s, const struct parallel *p)
{
	return s->engine->dp_conservativeness > 0 && scenario_dp_attention(s->model, p) ? s->engine->dp_conservativeness
											: 1.0;
}

int64_t scenario_rank_chunk(const struct scenario *s, const struct parallel *p, int64_t chunk)
{
	if (!s->engine->chunk_split_dp || chunk <= 0 || !scenario_dp_attention(s->model, p))
		return chunk;
	return chunk / p->dp > 0 ? chunk / p->dp : 1;
}

int64_t scenario_rank_seqs(const struct scenario *s, const struct parallel *p, int64_t mns)
{
	if (!s->engine->seqs_split_dp || mns <= 0 || !scenario_dp_attention(s->model, p))
		return mns;
	return mns / p->dp > 0 ? mns / p->dp : 1;
}

/* P/D: the prefill pool's memory plan and cost model, and the link the KV
 * takes to the decode pool: NVLink when both pools fit one NVLink domain
 * (GB200 NVL72), else the inter-node link; every GPU of a prefill worker
 * (of its attention-DP rank, which holds the request) sends its shard at
 * once, at the collectives' 0.7 link efficiency (comm.c), plus the
 * engine's fixed hand-off per request (engine_type.pd_handoff_s: the
 * frontend's hand-off between the prefill and the decode worker, the
 * transfer's per-request set-up and the decode worker polling for its
 * completion, fitted per engine on the disaggregated silicon rows).  A pool's workers may be attention-DP + EP engines of an MoE
 * model (dp > 1), priced and planned as `run` does an aggregated one:
 * dp ranks of one engine stepping together (sim_cfg.lockstep); dense
 * workers are one engine each (their dp would be more workers). */
/* LoRA: the GPU slots of sc's engine (o->max_loras adapters of rank
 * o->rank) come off the KV memory of plan mp, for layout p (the engine
 * allocates them with the model, before it sizes its KV cache); their bytes
 * per GPU into *bytes when not NULL. */
static int lora_take(const struct scenario *sc, const struct parallel *p, const struct sim_lora *o,
		     struct memplan *mp, double *bytes, struct err *e)
{
	struct cost_lora l;
	double b;
	int rc;

	if ((rc = cost_lora_init(sc->model, p, &l, e)) < 0)
		return rc;
	b = l.params_gpu_per_rank * o->rank * SCENARIO_LORA_DTYPE_BYTES * o->max_loras;
	if (bytes)
		*bytes = b;
	return memplan_take(mp, b, "the LoRA adapter slots", e);
}

/* LoRA: the run header's words (n bytes): the engine's settings (set),
 * an adapter's size and load times on layout p, what its slots took from
 * the KV cache (bytes per GPU, 0: the block count was given) and the
 * kernels' pricing. */
static int lora_words(const struct scenario *sc, const struct parallel *p, const struct sim_lora *o, const char *set,
		      double bytes, char *out, size_t n, struct err *e)
{
	struct cost_lora l;
	double gpu_b, all_b, link = sc->gpu->host_link_bw * SCENARIO_HOST_LINK_EFF;
	char slots[160] = "";
	int rc;

	if ((rc = cost_lora_init(sc->model, p, &l, e)) < 0)
		return rc;
	gpu_b = l.params_gpu_per_rank * o->rank * SCENARIO_LORA_DTYPE_BYTES;
	all_b = l.params_all_per_rank * o->rank * SCENARIO_LORA_DTYPE_BYTES;
	if (bytes > 0)
		snprintf(slots, sizeof(slots), "; its %d GPU slot%s take %.3g GB per GPU from the KV cache", o->max_loras,
			 o->max_loras > 1 ? "s" : "", bytes / 1e9);
	snprintf(out, n,
		 "%s; every adapter of rank %d on the %zu projection shapes of each layer (attention and dense FFN; experts, LM head not targeted), %.3g MB per GPU in bf16, %.3g MB in all%s; a copy into a GPU slot %.3g ms over %s (%g GB/s one way x %.2f achieved), a read from disk %.3g ms (%g GB/s, assumed), both before the step that needs it; kernels: a shrink and an expand GEMM per projection, segmented by adapter (every adapter's weights read once), on the GEMM tables, no other per-adapter cost (assumed)",
		 set, o->rank, l.nproj, gpu_b / 1e6, all_b / 1e6, slots, link > 0 ? gpu_b / link * 1e3 : 0,
		 sc->gpu->host_link, sc->gpu->host_link_bw / 1e9, SCENARIO_HOST_LINK_EFF, all_b / SCENARIO_LORA_DISK_BW * 1e3,
		 SCENARIO_LORA_DISK_BW / 1e9);
	return 0;
}

/* Redundant experts of layout p (parallel.ep_redundant: EPLB's, or
 * SGLang's fixed placement): their weights come off plan mp's KV memory,
 * as the engines load them with the model, before the KV cache is sized. */
static int eplb_take(const struct scenario *sc, const struct parallel *p, struct memplan *mp, struct err *e)
{
	if (sc->model->n_experts == 0 || p->ep <= 1 || p->ep_redundant <= 0)
		return 0;
	return memplan_take_experts(mp, eplb_redundant_bytes(sc->model, p, sc->wdt, p->ep_redundant), e);
}

/* Routed experts the engine stores beyond the checkpoint for its kernel
 * (cost_model.moe_pad: vLLM's MXFP4 experts padded for Marlin, or their
 * block scales kept twice beside the Triton kernel's copy) weigh more than
 * the memory plan counted: the difference comes off the KV cache. */
static int pad_experts(const struct scenario *s, const struct parallel *p, const struct cost_model *c,
		       struct memplan *mp, struct err *e)
{
	if (c->moe_pad <= 1.0)
		return 0;
	return memplan_add_weights(mp, model_expert_bytes_per_gpu(s->model, p, dtype_bytes(s->wdt)) * (c->moe_pad - 1.0),
				   c->moe_marlin ? "the experts' padding for Marlin" : "the experts' kept block scales", e);
}

/* EPLB: the run header's words (n bytes) on cost model c's terms, its
 * memory from mp (NULL: the block count was given). */
static void eplb_words(const struct scenario *sc, const struct cost_model *c, const struct memplan *mp, char *out,
		       size_t n)
{
	const struct cost_eplb *x = c->eplb;
	int phys = (int)sc->model->n_experts + sc->par.ep_redundant;
	double hs[2], he[2], tok[2] = {256, 8192};
	char mem[160], move[300];
	int k;

	if (!x) {
		out[0] = '\0';
		return;
	}
	for (k = 0; k < 2; k++)
		eplb_curve_loads(&x->curve, tok[k], &hs[k], &he[k]);
	if (mp)
		snprintf(mem, sizeof(mem), "%.3g GB per GPU from the KV cache", mp->eplb_bytes / 1e9);
	else
		snprintf(mem, sizeof(mem), "%.3g GB per GPU (the block count was given)", x->bytes_gpu / 1e9);
	if (sc->eplb_async)
		snprintf(move, sizeof(move), "a rebalance moves %.3g GB per GPU beside the steps (use_async: not priced)",
			 x->bytes_gpu / 1e9);
	else
		snprintf(move, sizeof(move),
			 "a rebalance moves %.3g GB per GPU over %s (%.0f GB/s x %.2f): %.3g ms every %lld steps, %.3g us per step amortised over its MoE layers",
			 x->bytes_gpu / 1e9, c->place.ep_cross ? "the inter-node link" : "NVLink", x->link_bw / 1e9,
			 COMM_LINK_EFF, x->move_s * 1e3, (long long)c->cfg.eplb_interval,
			 x->layer_s * x->moe_layers * 1e6);
	snprintf(out, n,
		 "%s; %d physical experts, %d per GPU over EP %d; redundant weights %s; hottest EP rank over the mean at %.0f / %.0f tokens: %.2f / %.2f placed in expert order, %.2f / %.2f with EPLB (DeepSeek's eplb.py, global policy, on the %s popularity of the tables); %s; %s",
		 sc->eplb_set, phys, (phys + c->p.ep - 1) / c->p.ep, c->p.ep, mem, tok[0], tok[1], hs[0], hs[1], he[0], he[1],
		 moe_dist_name(c->cfg.moe_dist),
		 "the routed experts priced as the measured curve at tokens x EPLB's over expert order's load (the rows the tables' hottest rank carries there)",
		 move);
}

double scenario_pd_net_bw(const struct scenario *sc)
{
	double d = sc->gpu->internode_bw, p = sc->prefill_gpu ? sc->prefill_gpu->internode_bw : d;

	return p < d ? p : d;
}

static bool en_plans_fraction(const struct engine_type *en)
{
	return en->plan_memory && (en->knobs & ENGINE_KNOB_MEM_FRACTION);
}

/* The prefill workers' memory plan by the engine's own rule (SGLang's:
 * weights and KV pool in mem_fraction_static of the memory free before the
 * weights load) at the fraction their launch sets
 * (scenario.prefill_mem_fraction_static), over their layout, GPU and
 * limits: what the decode workers' plan does with k.mem_fraction_static. */
static int plan_prefill_fraction(const struct scenario *s, const struct gpu_spec *pg, int64_t chunk,
				 struct memplan *out, struct err *e)
{
	struct scenario ps = *s;
	struct scenario_state *tmp = xcalloc(1, sizeof(*tmp));
	int rc;

	ps.par = s->prefill_par;
	ps.gpu = pg;
	ps.k.mem_fraction_static = s->prefill_mem_fraction_static;
	ps.k.max_num_batched_tokens = chunk;
	ps.k.max_num_seqs = s->prefill_max_num_seqs > 0 ? s->prefill_max_num_seqs : s->k.max_num_seqs;
	ps.sglang_mrr_rule = false;
	{
		struct parallel lay = scenario_layout(s, &s->prefill_par);
		rc = s->engine->plan_memory(&ps, &lay, tmp, e);
	}
	if (rc == 0)
		*out = tmp->mp;
	free(tmp);
	return rc;
}

static int prepare_pd(const struct scenario *s, const struct cost_cfg *cc, const char *data_dir,
		      struct scenario_state *st, struct err *e)
{
	/* the prefill workers' layout, with the weights their engine splits
	 * over the DP ranks */
	const struct parallel play = scenario_layout(s, &s->prefill_par), *pp = &play;
	const struct gpu_spec *pg = s->prefill_gpu ? s->prefill_gpu : s->gpu;
	int pgpus = pp->tp * pp->pp, dgpus = s->par.tp * s->par.pp;
	int all = s->pd_prefill * pgpus * pp->dp + s->pd_decode * dgpus * s->par.dp;
	int64_t mns = scenario_rank_seqs(s, pp, s->prefill_max_num_seqs > 0 ? s->prefill_max_num_seqs : s->k.max_num_seqs);
	int64_t chunk = s->prefill_max_num_batched_tokens > 0 ? s->prefill_max_num_batched_tokens
							       : s->k.max_num_batched_tokens;
	int64_t mbt = scenario_rank_chunk(s, pp, chunk); /* a rank's */
	struct cost_cfg pcc;
	int rc;

	if ((s->par.dp != 1 && !scenario_dp_attention(s->model, &s->par)) ||
	    (pp->dp != 1 && !scenario_dp_attention(s->model, pp)))
		return err_set(e, SS_EUSAGE,
			       "--disaggregate: each worker is one engine (--dp 1, --prefill-dp 1; attention-DP workers need an MoE model); give the workers' count as XpYd");
	if ((rc = model_check_parallel(s->model, pp, e)) < 0) {
		err_prefix(e, "prefill workers");
		return rc;
	}
	if (s->prefill_mem_fraction_static > 0 && en_plans_fraction(s->engine))
		rc = plan_prefill_fraction(s, pg, chunk, &st->prefill_mp, e);
	else
		rc = memplan_compute(s->model, pg, pp, s->wdt, s->kvdt, s->k.gpu_memory_utilization, s->k.block_size,
				     chunk, mns, &st->prefill_mp, e);
	if (rc == 0 && st->sc.kv_window.tokens > 0) /* the engine's hybrid pool (plan_memory) */
		memplan_share_windows(&st->prefill_mp, st->sc.kv_window.groups);
	if (rc < 0) {
		err_prefix(e, "prefill workers");
		return rc;
	}
	if (s->k.lora && (rc = lora_take(s, pp, &st->sc.lora, &st->prefill_mp, NULL, e)) < 0) {
		err_prefix(e, "prefill workers");
		return rc;
	}
	if ((rc = eplb_take(s, pp, &st->prefill_mp, e)) < 0) {
		err_prefix(e, "prefill workers");
		return rc;
	}
	/* the prefill pool's own limits size its cost model's step shapes */
	pcc = *cc;
	pcc.moe_backend = s->prefill_moe_backend;
	pcc.max_tokens = mbt;
	pcc.max_seqs = mns;
	if (s->prefill_gpu) /* the tier-2 file measured the decode workers' GPU */
		pcc.tier2 = NULL;
	if ((rc = cost_init(&st->prefill_cost, s->model, pg, pp, &pcc, data_dir, e)) < 0)
		return rc;
	if ((rc = pad_experts(s, pp, &st->prefill_cost, &st->prefill_mp, e)) < 0) {
		cost_release(&st->prefill_cost); /* (not yet has_prefill) */
		err_prefix(e, "prefill workers");
		return rc;
	}
	st->has_prefill = true;
	/* two GPU types share no NVLink domain */
	st->pd_nvlink = !s->prefill_gpu && all <= s->gpu->nvlink_domain;
	st->sc.dp = s->pd_decode * s->par.dp;
	st->sc.lockstep = s->par.dp > 1 || pp->dp > 1;
	st->sc.pd.prefill = s->pd_prefill * pp->dp;
	st->sc.pd.prefill_group = pp->dp;
	st->sc.pd.decode_group = s->par.dp;
	st->sc.pd.prefill_cost = &st->prefill_cost;
	st->sc.pd.prefill_kv_blocks = st->prefill_mp.blocks;
	st->sc.pd.prefill_max_num_seqs = mns;
	st->sc.pd.prefill_max_num_batched_tokens = mbt;
	st->sc.prefill_conservativeness = scenario_conservativeness(s, pp);
	st->sc.pd.kv_bytes_per_token = model_kv_bytes_per_token(s->model, dtype_bytes(s->kvdt));
	st->sc.pd.link_bw = (st->pd_nvlink ? s->gpu->link_bw : scenario_pd_net_bw(s)) * pgpus * 0.7;
	st->sc.pd.alpha_s = s->pd_handoff_given ? s->pd_handoff_ms * 1e-3 : s->engine->pd_handoff_s;
	st->sc.pd.first = s->engine->pd_first;
	st->sc.pd.gen_init_step = s->engine->pd_gen_init_step;
	st->sc.pd.prefill_rank_random = s->engine->pd_prefill_rank_random;
	return 0;
}

/* A draft model (--speculative-method draft:MODEL) is loaded beside the
 * target on the same GPUs at the same TP, and its layers' KV shares each
 * block with the target's: both come out of the KV cache's memory (they
 * were free, so a draft of DeepSeek-V3 on one H100 kept every block,
 * issue 30). */
static int plan_draft(const struct scenario *s, struct scenario_state *st, struct err *e)
{
	const struct model_cfg *d = s->draft_model;
	struct parallel dp = {s->par.tp, 1, 1, 1, 0, 0};
	struct memplan *mp = &st->mp;
	double w = model_weight_bytes_per_gpu(d, &dp, dtype_bytes(s->wdt));
	double kv = model_kv_bytes_per_token_per_gpu(d, &dp, dtype_bytes(s->kvdt)) * (double)s->k.block_size;

	mp->weight_bytes += w;
	mp->kv_bytes -= w;
	mp->block_bytes += kv;
	mp->blocks = mp->kv_bytes - mp->state_bytes > 0
			     ? (int64_t)floor((mp->kv_bytes - mp->state_bytes) / mp->block_bytes) : 0;
	if (mp->blocks < 1)
		return err_set(e, SS_EUSAGE, "%s with its draft model %s does not fit: the draft's weights take "
			       "%.1f GB per GPU at TP %d, leaving no memory for the KV cache (raise --tp or pick "
			       "a smaller draft)", s->model->id, d->id, w / 1e9, s->par.tp);
	return 0;
}

bool scenario_offload_on(const struct scenario *sc)
{
	return sc->k.kv_offloading_gib > 0 || sc->k.hicache;
}

int scenario_offload_tier(const struct scenario *sc, double host_bytes_per_gpu, double blocks, const char *flag,
			  struct sim_offload *o, double *block_bytes, struct err *e)
{
	struct parallel rep = sc->par;
	double bb;

	if (!scenario_dp_attention(sc->model, &sc->par))
		rep.dp = 1;
	bb = model_kv_bytes_per_token_per_gpu(sc->model, &rep, dtype_bytes(sc->kvdt)) * (double)sc->k.block_size;
	if (blocks > 0)
		host_bytes_per_gpu = blocks * bb;
	else
		blocks = bb > 0 ? floor(host_bytes_per_gpu / bb) : 0;
	if (blocks < 1)
		return err_set(e, SS_EUSAGE, "%s: %.3g GB per GPU holds no KV block of %.3g MB (%lld token%s of %s)", flag,
			       host_bytes_per_gpu / 1e9, bb / 1e6, (long long)sc->k.block_size, sc->k.block_size > 1 ? "s" : "",
			       sc->model->id);
	if (blocks > INT32_MAX / 4)
		return err_set(e, SS_EUSAGE, "%s: %.3g GB per GPU is %.3g KV blocks, more than the %d servesim holds",
			       flag, host_bytes_per_gpu / 1e9, blocks, INT32_MAX / 4);
	memset(o, 0, sizeof(*o));
	o->host_blocks = (int64_t)blocks;
	o->block_s = bb / (sc->gpu->host_link_bw * SCENARIO_HOST_LINK_EFF);
	o->layers = (int)((sc->model->layers + sc->par.pp - 1) / sc->par.pp);
	*block_bytes = bb;
	return 0;
}

/* Images (the workload's 'images'): the tokens and patches of one image by
 * the model's rule into st->sc.mm, and the header's words once the cost
 * model can price the encoder (cost NULL: the rule only). */
static int mm_setup(const struct scenario *s, struct scenario_state *st, const struct cost_model *cost,
		    struct err *e)
{
	const struct wl_images *im = &s->workload->images;
	char rule[400];
	int64_t patches, tokens, mbt = s->k.max_num_batched_tokens;
	int rc;

	if ((rc = model_image_tokens(s->model, im->width, im->height, "workload 'images.resolution'", &patches, &tokens,
				     rule, sizeof(rule), e)) < 0)
		return rc;
	st->sc.mm.image_tokens = tokens;
	st->sc.mm.patches = patches;
	model_image_windows(s->model, im->width, im->height, &st->sc.mm.win);
	if (!cost)
		return 0;
	snprintf(st->mm_words, sizeof(st->mm_words),
		 "%lld tokens per %lldx%lld image (%s); vision encoder %lld blocks of %lld, %.3f ms per image "
		 "alone on the prefill GPUs (TP %d, bf16), %s; encoder budget and cache %lld tokens a %s (vLLM: "
		 "max(max_num_batched_tokens, one image)), repeat_fraction %g",
		 (long long)tokens, (long long)im->width, (long long)im->height, rule, (long long)s->model->vis.depth,
		 (long long)s->model->vis.hidden, cost_vision_s(cost, 1, patches, &st->sc.mm.win) * 1e3, cost->p.tp,
		 s->epd_encoders > 0 ? "but run on the encoder workers (E/P/D)" : "run in the step that admits its request",
		 (long long)(mbt > tokens ? mbt : tokens), s->epd_encoders > 0 ? "worker" : "replica", im->repeat);
	return 0;
}

/* E/P/D: the encoder workers (one GPU each, the model's encoder at TP 1
 * as vLLM's encoder instance runs it) and the embeddings' hand-off: the
 * image tokens x out_hidden x (1 + deepstack levels) bf16 values, over
 * NVLink when every GPU of the copy is in one NVLink domain, else the
 * inter-node link, at the P/D transfers' 0.7. */
static int prepare_epd(const struct scenario *s, const struct cost_cfg *cc, const char *data_dir,
		       struct scenario_state *st, struct err *e)
{
	struct parallel one = {1, 1, 1, 1, 0, 0};
	const struct model_vision *v = &s->model->vis;
	int all = scenario_gpus_per_replica(s);
	bool nvl = all <= s->gpu->nvlink_domain;
	int rc;

	if (!s->workload || !s->workload->images.on)
		return err_set(e, SS_EUSAGE, "--disaggregate %de...: an encoder pool needs a workload that sends "
			       "images ('images')", s->epd_encoders);
	if ((rc = cost_init(&st->enc_cost, s->model, s->gpu, &one, cc, data_dir, e)) < 0) {
		err_prefix(e, "encoder workers");
		return rc;
	}
	st->has_enc = true;
	st->sc.epd.encoders = s->epd_encoders;
	st->sc.epd.cost = &st->enc_cost;
	st->sc.epd.link_bw = (nvl ? s->gpu->link_bw : s->gpu->internode_bw) * 0.7;
	st->sc.epd.alpha_s = SCENARIO_EC_HANDOFF_S;
	st->sc.epd.emb_bytes_per_token = (double)v->out_hidden * (double)(1 + (v->deepstack > 0 ? v->deepstack : 0)) * 2.0;
	snprintf(st->epd_words, sizeof(st->epd_words),
		 "%d encoder worker%s of 1 GPU per copy (vLLM --ec-transfer-config ec_producer): %.3f ms per image "
		 "alone; embeddings %.0f B per image token to the %s workers over %s at %.0f GB/s + %.0f ms hand-off "
		 "(assumed)",
		 s->epd_encoders, s->epd_encoders > 1 ? "s" : "",
		 cost_vision_s(&st->enc_cost, 1, st->sc.mm.patches, &st->sc.mm.win) * 1e3, st->sc.epd.emb_bytes_per_token,
		 s->pd_prefill > 0 ? "prefill" : "aggregated", nvl ? "NVLink" : "the inter-node link",
		 st->sc.epd.link_bw / 1e9, SCENARIO_EC_HANDOFF_S * 1e3);
	return 0;
}

/* The cost models st holds released: the deployment's and those of its
 * prefill, encoder and draft workers it has built (the has_ flags). */
static void costs_release(struct scenario_state *st)
{
	if (st->has_enc)
		cost_release(&st->enc_cost);
	if (st->has_draft)
		cost_release(&st->draft_cost);
	if (st->has_prefill)
		cost_release(&st->prefill_cost);
	cost_share_release(&st->cost);
}

int scenario_prepare(const struct scenario *s, const char *data_dir, struct scenario_state *st,
		     struct err *e)
{
	/* the layout with the weights the engine splits over the DP ranks */
	struct parallel lay = scenario_layout(s, &s->par), rep = lay;
	struct cost_cfg cc;
	const struct engine_type *en = s->engine;
	struct sim_lora lora;
	char lora_set[400] = "";
	double lora_bytes = 0;
	int64_t mns;
	int rc;

	memset(st, 0, sizeof(*st));
	memset(&lora, 0, sizeof(lora));
	if ((rc = model_check_parallel(s->model, &s->par, e)) < 0)
		return rc;
	if (s->k.lora && !en->lora)
		return err_set(e, SS_EUSAGE, "--enable-lora: servesim models no LoRA serving for %s", en->title);
	if (s->k.lora && (rc = en->lora(s, &lora, lora_set, sizeof(lora_set), e)) < 0)
		return rc;
	if (s->workload && s->workload->images.on && (rc = mm_setup(s, st, NULL, e)) < 0)
		return rc;
	/* dense DP: independent replicas; attention-DP: the memory plan of
	 * one rank, whose expert share depends on dp (and ep) */
	if (!scenario_dp_attention(s->model, &s->par))
		rep.dp = 1;
	st->kv_from_memory = s->k.total_kv_blocks == 0;
	mns = scenario_rank_seqs(s, &s->par, s->k.max_num_seqs); /* a rank's */
	if (en->plan_memory)
		rc = en->plan_memory(s, &rep, st, e);
	else
		rc = memplan_compute(s->model, s->gpu, &rep, s->wdt, s->kvdt, s->k.gpu_memory_utilization,
				     s->k.block_size, s->k.max_num_batched_tokens, s->k.max_num_seqs, &st->mp, e);
	if (rc == 0 && st->kv_from_memory && s->spec.k > 0 && s->spec.method == SPEC_DRAFT && s->draft_model)
		rc = plan_draft(s, st, e);
	if (rc == 0 && st->kv_from_memory && s->k.lora)
		rc = lora_take(s, &rep, &lora, &st->mp, &lora_bytes, e);
	if (rc == 0 && st->kv_from_memory)
		rc = eplb_take(s, &rep, &st->mp, e);
	if (rc < 0 && st->kv_from_memory) {
		if (s->pd_prefill > 0) /* (the prefill workers' plan says "prefill workers") */
			err_prefix(e, "decode workers");
		return rc;
	}
	if (s->sglang_mrr_rule && en->max_running)
		mns = en->max_running(s, st);
	st->max_running_requests = mns;
	memset(&cc, 0, sizeof(cc));
	cc.wdt = s->wdt;
	cc.kvdt = s->kvdt;
	cc.off = s->tier0_off;
	{
		/* the engine's host terms for its version, under the given ones */
		const struct engine_host *h =
			engine_host_for(en, s->engine_version, s->pd_prefill > 0, s->spec.k > 0,
					s->workload ? s->workload->harness : NULL);
		if (h) {
			cc.ov = h->ov;
			cc.host_src = h->src;
			if (s->host_scaled)
				cost_overheads_scale(&cc.ov, h->fit, s->host_scale);
		} else {
			cost_default_overheads(&cc.ov);
		}
		cost_overheads_apply(&cc.ov, &s->ov);
		cc.overlap_cpu = h && h->overlap && !s->k.disable_overlap && !(en->spec_no_overlap && s->spec.k > 0);
	}
	cc.max_tokens = scenario_rank_chunk(s, &s->par, s->k.max_num_batched_tokens);
	cc.max_seqs = mns;
	cc.graph_max = s->graph_max;
	cc.tier2 = s->tier2;
	cc.engine = en->cost;
	snprintf(cc.engine_version, sizeof(cc.engine_version), "%s", s->engine_version);
	cc.moe_dist = s->moe_dist;
	cc.moe_format = s->moe_format;
	cc.moe_backend = s->moe_backend;
	cc.cache = s->mfu_cache;
	cc.moe_wdt_given = s->moe_wdt_given;
	cc.moe_wdt = s->moe_wdt;
	cc.eplb = s->eplb;
	cc.eplb_async = s->eplb_async;
	cc.eplb_interval = s->eplb_interval > 0 ? s->eplb_interval : en->eplb_interval;
	cc.ar_fused_bytes = s->ar_fused_bytes > 0 ? s->ar_fused_bytes
			    : s->ar_fused_bytes == 0 && en->ar_fused_bytes ? en->ar_fused_bytes(s) : 0;
	cc.mxfp4_marlin = en->mxfp4_marlin ? en->mxfp4_marlin(s) : NULL;
	cc.rocm_triton_bs = en->rocm_triton_bs ? en->rocm_triton_bs(s) : COST_TBS_OFF;
	cc.rocm_triton_jit = en->rocm_triton_jit ? en->rocm_triton_jit(s) : COST_TBS_OFF;
	cc.mxfp4_scales_kept = en->mxfp4_scales_kept ? en->mxfp4_scales_kept(s) : NULL;
	cc.cutlass_bs = en->block_fp8_cutlass ? en->block_fp8_cutlass(s) : NULL;
	cc.cutlass_bs_pad = cc.cutlass_bs && en->block_fp8_cutlass_pad ? en->block_fp8_cutlass_pad(s) : NULL;
	cc.triton_attn = en->triton_attn ? en->triton_attn(s) : NULL;
	cc.mla_absorb_bf16 = en->mla_absorb_bf16 ? en->mla_absorb_bf16(s) : NULL;
	cc.moe_dg_padded = en->moe_dg_padded ? en->moe_dg_padded(s) : NULL;
	if ((rc = cost_share_init(s->cost_share, &st->cost, s->model, s->gpu, &lay, &cc, data_dir, e)) < 0)
		return rc;
	if (st->kv_from_memory && (rc = pad_experts(s, &rep, &st->cost, &st->mp, e)) < 0) {
		costs_release(st);
		return rc;
	}
	eplb_words(s, &st->cost, st->kv_from_memory ? &st->mp : NULL, st->eplb_words, sizeof(st->eplb_words));
	st->sc.max_num_batched_tokens = scenario_rank_chunk(s, &s->par, s->k.max_num_batched_tokens);
	st->sc.max_num_seqs = mns;
	st->sc.max_model_len = s->k.max_model_len;
	st->sc.block_size = s->k.block_size;
	st->sc.long_prefill_token_threshold = s->k.long_prefill_token_threshold;
	st->sc.total_kv_blocks = st->kv_from_memory ? st->mp.blocks : s->k.total_kv_blocks;
	st->sc.prefix_caching = s->k.prefix_caching;
	st->sc.policy = en->policy;
	/* the settings only the engines that take them can be given */
	st->sc.lpm = (en->knobs & ENGINE_KNOB_SCHEDULE_POLICY) && s->sglang_policy == SGLANG_LPM;
	st->sc.mixed_chunk = (en->knobs & ENGINE_KNOB_MIXED_CHUNK) && s->k.sglang_mixed_chunk;
	if (en->knobs & ENGINE_KNOB_MAX_PREFILL) {
		st->sc.max_prefill_tokens = s->k.max_prefill_tokens > 0 ? s->k.max_prefill_tokens : en->max_prefill_default;
		st->sc.max_prefill_whole = !en->max_prefill_fill_from ||
					   engine_version_before(s->engine_version, en->max_prefill_fill_from);
	}
	st->sc.recv_interval = (en->knobs & ENGINE_KNOB_RECV_INTERVAL) ? s->sglang_recv_interval : 0;
	st->sc.adp_timeout_iters = s->trtllm_adp_timeout_iters;
	st->sc.adp_batching_wait_iters = s->trtllm_adp_batching_wait_iters;
	st->sc.batch_wait_iters = s->trtllm_batch_wait_iters;
	st->sc.batch_wait_tokens = s->trtllm_batch_wait_ratio * (double)s->k.max_num_batched_tokens;
	st->sc.cold_start_s = s->cold_start ? en->cold_start_s : 0;
	st->sc.jit_warm_clients = !s->cold_start && s->workload && s->workload->process == WL_CONCURRENCY &&
				  strcmp(s->workload->harness, "vllm-bench") == 0 ? s->workload->concurrency : 0;
	st->sc.conservativeness = scenario_conservativeness(s, &s->par);
	st->sc.dp = s->par.dp;
	/* one API server per DP rank where the engine's release starts them
	 * (aggregated: P/D workers are each their own server, sim/apiq.c) */
	st->sc.api_servers = s->pd_prefill == 0 && en->api_servers_dp_from &&
					     !engine_version_before(s->engine_version, en->api_servers_dp_from)
				     ? s->par.dp
				     : 1;
	st->sc.lockstep = scenario_dp_attention(s->model, &s->par);
	st->sc.router = scenario_router(s);
	st->sc.replicas = (int)s->k.replicas;
	st->sc.check_invariants = s->check_invariants;
	st->sc.exact_percentiles = s->exact_percentiles;
	st->sc.no_segments = s->no_segments;
	st->sc.arrival_thread = s->arrival_thread;
	st->sc.no_pooled_gaps = s->no_pooled_gaps;
	st->sc.no_energy = s->no_energy;
	st->sc.requests_out = s->requests_out;
	st->sc.step_log = s->step_log;
	st->sc.spec = s->spec;
	if (s->k.lora) {
		lora.host_link_eff = SCENARIO_HOST_LINK_EFF;
		lora.disk_bw = SCENARIO_LORA_DISK_BW;
		lora.dtype_bytes = SCENARIO_LORA_DTYPE_BYTES;
		st->sc.lora = lora;
		if ((rc = lora_words(s, &rep, &lora, lora_set, lora_bytes, st->lora_words, sizeof(st->lora_words), e)) < 0) {
			costs_release(st);
			return rc;
		}
	}
	if (s->pd_prefill > 0 && (rc = prepare_pd(s, &cc, data_dir, st, e)) < 0) {
		costs_release(st);
		return rc;
	}
	if (s->workload && s->workload->images.on)
		mm_setup(s, st, st->has_prefill ? &st->prefill_cost : &st->cost, e);
	if (s->epd_encoders > 0 && (rc = prepare_epd(s, &cc, data_dir, st, e)) < 0) {
		costs_release(st);
		return rc;
	}
	if (scenario_offload_on(s) && en->offload &&
	    (rc = en->offload(s, st, &st->sc.offload, st->offload_words, sizeof(st->offload_words), e)) < 0) {
		costs_release(st);
		return rc;
	}
	if (s->spec.k > 0 && s->spec.method == SPEC_DRAFT) {
		/* the draft model runs on the same GPUs at the same TP */
		struct parallel dp = {s->par.tp, 1, 1, 1, 0, 0};
		if ((rc = cost_init(&st->draft_cost, s->draft_model, s->gpu, &dp, &cc, data_dir, e)) < 0) {
			err_prefix(e, "draft model");
			costs_release(st);
			return rc;
		}
		st->has_draft = true;
		st->sc.spec.draft = &st->draft_cost;
	}
	if ((rc = sim_new(&st->sc, &st->cost, s->workload, &st->sim, e)) < 0) {
		costs_release(st);
		return rc;
	}
	return 0;
}

void scenario_release(struct scenario_state *st)
{
	sim_free(st->sim);
	costs_release(st);
	memset(st, 0, sizeof(*st));
}

int scenario_gpus_per_replica(const struct scenario *sc)
{
	const struct parallel *p = &sc->par, *q = &sc->prefill_par;

	if (sc->pd_prefill > 0)
		return sc->epd_encoders + sc->pd_prefill * q->tp * q->pp * q->dp + sc->pd_decode * p->tp * p->pp * p->dp;
	return sc->epd_encoders + p->tp * p->pp * p->dp;
}

enum router_kind scenario_router(const struct scenario *sc)
{
	return router_kind_of(sc->k.router, ROUTER_LEAST_OUTSTANDING);
}

int scenario_gpus(const struct scenario *sc)
{
	return scenario_gpus_per_replica(sc) * (sc->k.replicas > 1 ? (int)sc->k.replicas : 1);
}
