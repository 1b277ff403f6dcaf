/* dsa.c - the DSA kernel family (DeepSeek-V3.2, GLM-5: MLA with the
 * lightning indexer): a layer's indexer and sparse attention as parts,
 * priced from InferSim's H800 kernel timings, with the engine's measured
 * DSA module over the parts (dsamod.h) where there is one. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cost/costmodel.h"
#include "cost/dsamod.h"
#include "cost/kern.h"

/* DSA (DeepSeek-V3.2, GLM-5) kernel terms, fitted on InferSim's H800 kernel
 * timings (alibaba/InferSim f2293da, bench_data/dsa/{decode,prefill}/h800/;
 * ../shared/data/mfu/infersim), nothing per model:
 * - the lightning indexer's fp8 MQA logits over every cached key (DeepGEMM,
 *   logits-64-128.csv).  Decode (next_n 1, batch 64, 1k..128k keys): a
 *   launch plus each key's index entry (index_head_dim fp8 bytes + an fp32
 *   scale) streamed at a fraction of HBM: 6.6 us and 0.78 of 3.35 TB/s
 *   (minimax fit over the 8 rows: largest |log error| 0.090).  Prefill
 *   (4096 or 2048 queries x 4k..128k keys): its FLOPs at 0.617 of the fp8
 *   peak (median over the 10 rows with >= 8k keys).
 * - the sparse attention itself runs the absorbed (MQA, latent) form over
 *   the top-k keys (FlashMLA sparse, attn-128-576-2048.csv): in a prefill at
 *   0.615 of the bf16 peak (median of the 6 rows, 4096 queries x top-2048),
 *   QK over kv_lora + rope dims and PV over kv_lora, for the heads the
 *   kernel runs (dsa_kernel_heads) and the top-k entries it walks
 *   (dsa_prefill_attn_s); the latent is not
 *   up-projected for the context, only the new tokens' queries and outputs
 *   are absorbed (the kv_b GEMM over the chunk).  In a decode the dense MLA
 *   decode table at the capped length (InferSim's H800 sparse decode at
 *   batch 64: 91-97 us for any context; the MLA table at 2048 keys: within
 *   15 %, checked by test_kernels.c); both walk all top-k entries per query. */
#define DSA_IDX_DECODE_LAUNCH_S 6.6e-6
#define DSA_IDX_DECODE_BW_EFF 0.78
#define DSA_IDX_PREFILL_MFU 0.617
#define DSA_PREFILL_MFU 0.615

/* Bytes of one key's index entry (fp8 key + fp32 scale). */
static double dsa_key_bytes(const struct model_cfg *m)
{
	return (double)m->index_head_dim + 4.0;
}

/* The query heads the sparse prefill kernel runs for c's heads per GPU.
 * On Hopper with a bf16 KV cache the engines run FlashMLA's bf16 sparse
 * prefill kernel (flash_mla_sparse_fwd), which takes a multiple of 64
 * query heads; the query is zero-padded to it (vLLM
 * FlashMLASparseImpl._bf16_flash_mla_kernel, "kernel requires
 * num_local_head to be a multiple of 64 on hopper", every version from
 * 0.11 to 0.24; FLASHMLA_SPARSE is vLLM's sparse backend on SM90).  GLM-5
 * at TP 8 (8 heads per GPU) and DeepSeek-V3.2 at TP 8 (16) run 64.  Else
 * the heads as they are: an fp8 cache at few heads takes FlashMLA's fp8
 * decode kernel and Blackwell FlashInfer's sparse MLA in vLLM 0.24, not
 * priced apart here (and topk_length, dsa_prefill_attn_s, is that kernel's). */
static bool dsa_flashmla_bf16(const struct cost_model *c)
{
	return strcmp(c->g->family, "hopper") == 0 && c->cfg.kvdt == DT_BF16;
}

static double dsa_kernel_heads(const struct cost_model *c)
{
	double h = (double)c->heads;

	return dsa_flashmla_bf16(c) ? ceil(h / 64) * 64 : h;
}

/* The parts' terms and the module term on top (dsamod.h), or why there is none. */
void cost_dsa_note(struct cost_model *c)
{
	const struct model_cfg *m = c->m;
	int64_t shared = m->n_mixer[LM_FULL] - m->index_layers;
	char mod[2][360], sh[2][120], kern[96] = "";
	int i;

	if (m->attn != ATTN_MLA || m->index_topk <= 0)
		return;
	for (i = 0; i < 2; i++) {
		bool pre = i == 0;
		sh[i][0] = '\0';
		if (c->dsa) {
			char note[320];
			dsa_module_note(c->dsa, pre, note, sizeof(note));
			snprintf(mod[i], sizeof(mod[i]), " + module - parts of %s", note);
		} else if (c->g->measured[0]) {
			snprintf(mod[i], sizeof(mod[i]), "; no module term (%.40s prices from InferSim's own measurements)",
				 c->g->measured);
		} else {
			snprintf(mod[i], sizeof(mod[i]), "; no measured DSA module for %.16s on %.31s: sum of parts",
				 c->cfg.engine->name, c->g->tables[0] ? c->g->tables : c->g->id);
		}
		if (shared > 0 && c->dsa && dsa_module_has_shared(c->dsa, pre))
			snprintf(sh[i], sizeof(sh[i]), "; %lld of %lld layers reuse an earlier top-k: their own "
				 "measured module", (long long)shared, (long long)m->n_mixer[LM_FULL]);
		else if (shared > 0 && c->dsa)
			snprintf(sh[i], sizeof(sh[i]), "; %lld of %lld layers reuse an earlier top-k: MLA module "
				 "term %+.1f us%s", (long long)shared, (long long)m->n_mixer[LM_FULL],
				 (pre ? c->dsa_shared_tok_s * 1e9 : c->dsa_shared_dec_s * 1e6),
				 pre ? " per 1k tokens" : "");
	}
	if (dsa_flashmla_bf16(c))
		snprintf(kern, sizeof(kern), " (at %g heads%s)", dsa_kernel_heads(c),
			 c->cfg.engine->dsa_topk_length ? ", valid ones" : "");
	cost_note_line(c->src[COST_SRC_DSA_PREFILL], sizeof(c->src[0]),
		    "parts: indexer logits at %.3f of the fp8 peak, sparse MLA over top-%lld keys a query%s at "
		    "%.3f of the attention peak (InferSim H800 fit)%s%s",
		    DSA_IDX_PREFILL_MFU, (long long)m->index_topk, kern, DSA_PREFILL_MFU, mod[0], sh[0]);
	cost_note_line(c->src[COST_SRC_DSA_DECODE], sizeof(c->src[0]),
		    "parts: indexer %.1f us + %.0f B a key at %.2f of HBM (InferSim H800 fit), sparse MLA on the "
		    "decode attention table at %lld keys%s%s",
		    DSA_IDX_DECODE_LAUNCH_S * 1e6, dsa_key_bytes(m), DSA_IDX_DECODE_BW_EFF, (long long)m->index_topk,
		    mod[1], sh[1]);
}

/* Share of the full-attention layers that run their own DSA indexer (the
 * others reuse an earlier layer's top-k: GLM-5.2 'indexer_types'). */
static double own_index_share(const struct model_cfg *m)
{
	return m->n_mixer[LM_FULL] > 0 ? (double)m->index_layers / (double)m->n_mixer[LM_FULL] : 1.0;
}

/* DSA attention of one layer for a step's prefill chunks, the parts as
 * servesim prices them: absorbed sparse attention over the top-k keys, the
 * new tokens' absorption and, in own_share of the layers, the indexer over
 * every key. */
static double dsa_prefill_attn_s(const struct cost_model *c, const struct chunk_sums *k, double own_share)
{
	const struct model_cfg *m = c->m;
	double ip = k->pairs, pairs, flops, bytes, t, kh = dsa_kernel_heads(c);
	double ipk = c->g->peak_flops[DT_FP8] > 0 ? c->g->peak_flops[DT_FP8] : c->attn_peak;

	/* without topk_length the sparse kernel walks its whole top-k index
	 * list for every query, valid or padded (InferSim: 4096 queries take
	 * 3.69 ms over 4k keys and 3.60 ms over 16k; FlashMLA masks -1
	 * entries but runs their blocks); with it, a query's valid entries,
	 * min(index_topk, keys it sees) (k->topk_pairs) */
	pairs = k->tok * (double)m->index_topk;
	if (c->cfg.engine->dsa_topk_length && dsa_flashmla_bf16(c) && k->topk_pairs > 0 && k->topk_pairs < pairs)
		pairs = k->topk_pairs;
	flops = 2.0 * pairs * kh * (double)(2 * m->kv_lora_rank + m->qk_rope_dim);
	bytes = k->ctx * c->kv_tok_layer_bytes + 2.0 * k->tok * kh * (double)c->head_dim_qk * 2.0;
	t = cost_roofline(c, flops, c->attn_peak, DSA_PREFILL_MFU, bytes);
	t += cost_linear_col_s(c, NULL, cost_mla_kvb_dtype(c), k->tok, (double)(c->heads * (m->qk_nope_dim + m->v_head_dim)),
			       (double)m->kv_lora_rank, 1);
	t += own_share * cost_roofline(c, 2.0 * ip * (double)(m->index_heads * m->index_head_dim), ipk,
				  DSA_IDX_PREFILL_MFU, k->ctx * dsa_key_bytes(m));
	return t;
}

/* DSA attention of one layer for n decode requests attending ctx_sum keys
 * in all, the parts: in own_share of the layers the indexer scores every
 * cached key; the sparse kernel walks its whole top-k index list whatever
 * the context (InferSim H800, batch 64: 91 us at 1k keys, 93 us at 2k, 97
 * us at 128k). */
static double dsa_decode_attn_s(const struct cost_model *c, int64_t n, double ctx_sum, double own_share)
{
	const struct model_cfg *m = c->m;
	struct attn_group g = cost_attn_full_group(c);
	double t = own_share * (DSA_IDX_DECODE_LAUNCH_S +
				ctx_sum * dsa_key_bytes(m) / (c->g->hbm_bw * DSA_IDX_DECODE_BW_EFF));

	return t + cost_gqa_decode_s(c, &g, n, (double)n * (double)m->index_topk, NULL, 0.0, NULL);
}

/* One DSA layer's parts (dsamod.h): see cost.h. */
double cost_dsa_parts_s(const struct cost_model *c, bool prefill, bool own, double batch, double len)
{
	const struct model_cfg *m = c->m;
	double h = (double)c->heads;

	if (m->attn != ATTN_MLA || m->index_topk <= 0 || batch <= 0 || len <= 0)
		return 0;
	if (prefill) {
		struct chunk_sums k = {batch, batch * len, batch * len, 0, 0};
		k.pairs = batch * attn_causal_pairs((int64_t)len, 0);
		k.topk_pairs = batch * attn_capped_pairs((int64_t)len, 0, m->index_topk);
		return cost_mla_block_tok_s(c, k.tok, own) + dsa_prefill_attn_s(c, &k, own ? 1.0 : 0.0);
	}
	return cost_mla_block_tok_s(c, batch, own) +
	       cost_gemm_s(c, cost_mla_absorb_dtype(c), batch, (double)m->kv_lora_rank, (double)m->qk_nope_dim, h) +
	       cost_gemm_s(c, cost_mla_absorb_dtype(c), batch, (double)m->v_head_dim, (double)m->kv_lora_rank, h) +
	       dsa_decode_attn_s(c, (int64_t)batch, batch * len, own ? 1.0 : 0.0);
}

/* The engine's measured DSA module over cost_dsa_parts_s (0 without one). */
double cost_dsa_module_s(const struct cost_model *c, bool prefill, bool own, double batch, double len)
{
	if (!c->dsa)
		return 0;
	if (prefill)
		return dsa_module_prefill_s(c->dsa, own, batch, batch * len, c->dsa_shared_tok_s * batch * len);
	return dsa_module_decode_s(c->dsa, own, batch, len, c->dsa_shared_dec_s);
}

/* cost_dsa_parts_s as dsamod.h's callback (ctx: the cost model). */
static double dsa_parts(const void *ctx, bool prefill, bool own, double batch, double len)
{
	return cost_dsa_parts_s(ctx, prefill, own, batch, len);
}

int cost_dsa_init(struct cost_model *c, const struct cost_cfg *cfg, const char *data_dir, struct err *e)
{
	struct cost_mod_in mi;

	/* the layers that reuse an earlier layer's top-k run an MLA block
	 * without the indexer and take the engine's plain MLA module terms
	 * where no skip-indexer module was measured */
	c->dsa_shared_dec_s = cost_mla_engine_decode_s(c->g, cfg);
	c->dsa_shared_tok_s = cost_mla_engine_ctx_s(c->g, cfg, c->heads);
	return dsa_module_init(cost_mod_in_of(c, &mi), dsa_parts, c, data_dir, &c->dsa, e);
}

double cost_dsa_prefill_s(const struct cost_model *c, const struct chunk_sums *k)
{
	double own = own_index_share(c->m), t = dsa_prefill_attn_s(c, k, own);

	/* the engine's measured DSA module over the parts (dsamod.h) */
	if (c->dsa)
		t += own * dsa_module_prefill_s(c->dsa, true, k->n, k->tok, 0) +
		     (1 - own) * dsa_module_prefill_s(c->dsa, false, k->n, k->tok,
						      c->dsa_shared_tok_s * k->tok);
	return t > 0 ? t : 0;
}

double cost_dsa_decode_s(const struct cost_model *c, int64_t n, double ctx_sum)
{
	double own = own_index_share(c->m), t = dsa_decode_attn_s(c, n, ctx_sum, own);

	if (c->dsa) {
		double keys = ctx_sum / (double)n;
		t += own * dsa_module_decode_s(c->dsa, true, (double)n, keys, 0) +
		     (1 - own) * dsa_module_decode_s(c->dsa, false, (double)n, keys, c->dsa_shared_dec_s);
	}
	/* the term may be negative (parts over the module: GEMMs at
	 * large batches); it never takes the layer's attention below 0 */
	return t > 0 ? t : 0;
}
