/* test_opgraph.c - FLOPs known answers per family, derived by hand in the
 * comments from the published shapes, with non-round batch/sequence sizes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fixture.h"
#include "engine/registry.h"
#include "cost/cost.h"
#include "model/opgraph.h"
#include "analysis/roofline.h"

static struct model_registry reg;
static struct model_cfg M;

static void load(const char *id)
{
	struct err e;
	if (registry_load_model(&reg, id, &M, &e) < 0)
		printf("# %s\n", e.msg);
}

static const struct op *find(const struct layer_kind *lk, const char *name)
{
	size_t i;
	for (i = 0; i < lk->nops; i++)
		if (strcmp(lk->ops[i].name, name) == 0)
			return &lk->ops[i];
	return NULL;
}

static double kind_cat_flops(const struct opgraph *g, const char *kind, enum op_kind k)
{
	size_t i, j;
	double f = 0;
	for (i = 0; i < g->nkinds; i++)
		if (!kind || strcmp(g->kinds[i].name, kind) == 0)
			for (j = 0; j < g->kinds[i].nops; j++)
				if (g->kinds[i].ops[j].kind == k)
					f += g->kinds[i].ops[j].flops * (double)g->kinds[i].count;
	return f;
}

static int build(const struct parallel *p, int64_t B, int64_t S, int64_t C, enum dtype dt,
		 struct opgraph *g)
{
	struct pass_shape s = {B, S, C, false};
	struct err e;
	int rc = opgraph_build(&M, p, &s, dt, dt, g, &e);
	if (rc < 0)
		printf("# build: %s\n", e.msg);
	return rc;
}

/* A checkpoint that keeps its q/kv projections bf16 and quantises o_proj
 * (nvidia/DeepSeek-R1-0528-FP4-v2): at --dtype fp4 the q_a, q_b, kv_a and
 * kv_b GEMMs (and, in a decode, the absorbed W_UK / W_UV) run in bf16 with
 * bf16 weights, o_proj and the FFNs in fp4; the fp8 model file keeps every
 * projection in the weight dtype. */
static void test_split_attention_formats(void)
{
	struct parallel p = {1, 1, 4, 4, 0, 0};
	struct opgraph g;
	const struct layer_kind *lk;
	/* q_b: 1536 -> 128 x 192 */
	double qb_w = 1536.0 * 128 * 192;

	load("deepseek-r1-0528-fp4-v2");
	CHECK(build(&p, 8, 1024, 0, DT_FP4, &g) == 0, "v2 prefill builds");
	lk = &g.kinds[g.nkinds - 2]; /* the MoE layers (before embed+head) */
	CHECK(!find(lk, "q_a_proj")->low_precision && !find(lk, "q_b_proj")->low_precision &&
	      !find(lk, "kv_a_proj")->low_precision && !find(lk, "kv_b_proj")->low_precision,
	      "v2: q/kv projections in bf16 (%s)", lk->name);
	CHECK(find(lk, "o_proj")->low_precision && find(lk, "shared_gate_up_proj")->low_precision,
	      "v2: o_proj and the shared expert in the weight dtype");
	CHECK_REL(find(lk, "q_b_proj")->weight_bytes, qb_w * 2.0, 1e-12, "v2: q_b weights 2 B each");
	CHECK_REL(find(lk, "o_proj")->weight_bytes, 128.0 * 128 * 7168 * 0.5, 1e-12, "v2: o_proj weights 0.5 B each");
	opgraph_release(&g);
	CHECK(build(&p, 8, 1, 1024, DT_FP4, &g) == 0, "v2 decode builds");
	lk = &g.kinds[g.nkinds - 2];
	CHECK(!find(lk, "q_absorb_uk")->low_precision && !find(lk, "out_absorb_uv")->low_precision,
	      "v2 decode: absorbed W_UK / W_UV (kv_b's weights) in bf16");
	opgraph_release(&g);
	/* a whole self_attn block excluded (gpt-oss's modules_to_not_convert):
	 * at --dtype fp4 qkv_proj and o_proj run in bf16 with bf16 weights */
	{
		struct parallel p1 = {1, 1, 1, 1, 0, 0};
		load("gpt-oss-120b");
		CHECK(build(&p1, 8, 1024, 0, DT_FP4, &g) == 0, "gpt-oss-120b prefill builds");
		lk = &g.kinds[0];
		CHECK(!find(lk, "qkv_proj")->low_precision && !find(lk, "o_proj")->low_precision,
		      "gpt-oss: q/k/v and o projections in bf16 at --dtype fp4 (%s)", lk->name);
		/* o_proj: 64 heads x 64 -> 2880 */
		CHECK_REL(find(lk, "o_proj")->weight_bytes, 64.0 * 64 * 2880 * 2.0, 1e-12, "gpt-oss: o_proj weights 2 B each");
		opgraph_release(&g);
	}
	/* the dense FFN layer and the shared experts a checkpoint excludes
	 * (Kimi-K2.5's ignore: "re:.*shared_experts.*", "re:.*mlp\.(gate|up|
	 * gate_up|down)_proj.*") run in bf16 with bf16 weights at --dtype fp4;
	 * the routed experts keep their stored format */
	{
		struct parallel p8 = {8, 1, 1, 8, 0, 0};
		const struct layer_kind *dense = NULL, *moe = NULL;
		size_t k;
		load("kimi-k2.5");
		CHECK(build(&p8, 8, 1024, 0, DT_FP4, &g) == 0, "kimi-k2.5 prefill builds");
		for (k = 0; k < g.nkinds; k++) {
			if (find(&g.kinds[k], "gate_up_proj"))
				dense = &g.kinds[k];
			if (find(&g.kinds[k], "shared_gate_up_proj"))
				moe = &g.kinds[k];
		}
		CHECK(dense && moe && !find(dense, "gate_up_proj")->low_precision &&
		      !find(dense, "down_proj")->low_precision && !find(moe, "shared_gate_up_proj")->low_precision &&
		      !find(moe, "shared_down_proj")->low_precision && find(moe, "experts_gate_up")->low_precision,
		      "kimi-k2.5 at --dtype fp4: dense FFN and shared expert in bf16, routed experts not");
		/* shared expert: 7168 -> 2 x 2048 / 8 ranks; dense: 18432 / 8 -> 7168 */
		if (moe && dense) {
			CHECK_REL(find(moe, "shared_gate_up_proj")->weight_bytes, 7168.0 * 512 * 2.0, 1e-12,
				  "kimi-k2.5: shared gate_up weights 2 B each");
			CHECK_REL(find(dense, "down_proj")->weight_bytes, 2304.0 * 7168 * 2.0, 1e-12,
				  "kimi-k2.5: dense down_proj weights 2 B each");
		}
		opgraph_release(&g);
	}
	load("deepseek-r1");
	CHECK(build(&p, 8, 1024, 0, DT_FP4, &g) == 0, "deepseek-r1 (fp8 file) at fp4 builds");
	lk = &g.kinds[g.nkinds - 2];
	CHECK(find(lk, "q_b_proj")->low_precision && find(lk, "o_proj")->low_precision,
	      "deepseek-r1 at --dtype fp4: every projection in the weight dtype");
	/* the router and the LM head stay bf16 under any --dtype (no format
	 * quantises them): 7168 -> 256 experts; the head 7168 -> 129,280 (TP 1) */
	CHECK(!find(lk, "router")->low_precision && !find(&g.kinds[g.nkinds - 1], "lm_head")->low_precision,
	      "deepseek-r1 at --dtype fp4: router and LM head in bf16");
	CHECK_REL(find(lk, "router")->weight_bytes, 7168.0 * 256 * 2.0, 1e-12, "deepseek-r1: router weights 2 B each");
	CHECK_REL(find(&g.kinds[g.nkinds - 1], "lm_head")->weight_bytes, 7168.0 * 129280 * 2.0, 1e-12,
		  "deepseek-r1: LM head weights 2 B each");
	opgraph_release(&g);
}

static void test_llama2_prefill(void)
{
	struct parallel p = {1, 1, 1, 1, 0, 0};
	struct opgraph g;
	double h = 4096, L = 32, inter = 11008, V = 32000, S = 1024;
	/* non-embedding linear params: 32 x (4 h^2 + 3 h inter) */
	double lin = L * (4 * h * h + 3 * h * inter);
	double pairs = S * (S + 1) / 2; /* 524800 */
	double want = 2 * lin * S + 4 * L * h * pairs + 2 * h * V;

	load("llama-2-7b");
	CHECK(build(&p, 1, 1024, 0, DT_BF16, &g) == 0, "llama-2-7b prefill builds");
	CHECK_REL(opgraph_total_flops(&g), want, 0.01, "llama-2-7b B=1 S=1024 TP=1 total (issue formula)");
	/* matmuls alone are exact */
	CHECK_REL(kind_cat_flops(&g, NULL, OPK_GEMM) + kind_cat_flops(&g, NULL, OPK_ATTN), want, 1e-12,
		  "llama-2-7b GEMM + attention FLOPs exact");
	CHECK(g.attn_pairs == 524800, "causal pairs 1024*1025/2 = %.0f", g.attn_pairs);
	opgraph_release(&g);
}

static void test_gqa_tp_prefix(void)
{
	/* Llama-3.1-8B: h 4096, 32 heads, 8 KV heads, hd 128, inter 14336.
	 * B=3, S=517, C=211, TP=2: T = 1551 tokens per GPU.
	 * qkv: 2*T*4096*(16+2*4)*128 ; o: 2*T*2048*4096 ; gate_up: 2*T*4096*14336 ;
	 * down: 2*T*7168*4096 ; attn: 2*pairs*16*(128+128) with
	 * pairs = 3*(517*211 + 517*518/2) = 3*(109087 + 133903) = 728970. */
	struct parallel p = {2, 1, 1, 1, 0, 0};
	struct opgraph g;
	double T = 1551, pairs = 728970;
	const struct layer_kind *lk;

	load("llama-3.1-8b");
	CHECK(build(&p, 3, 517, 211, DT_BF16, &g) == 0, "llama-3.1-8b TP2 builds");
	lk = &g.kinds[0];
	CHECK(g.attn_pairs == pairs, "pairs with prefix: %.0f", g.attn_pairs);
	CHECK_REL(find(lk, "qkv_proj")->flops, 2 * T * 4096 * 24 * 128, 1e-12, "qkv_proj fused, TP-split");
	CHECK_REL(find(lk, "o_proj")->flops, 2 * T * 2048 * 4096, 1e-12, "o_proj row-parallel");
	CHECK_REL(find(lk, "gate_up_proj")->flops, 2 * T * 4096 * 14336, 1e-12, "gate_up fused (2 x 7168)");
	CHECK_REL(find(lk, "down_proj")->flops, 2 * T * 7168 * 4096, 1e-12, "down_proj");
	CHECK_REL(find(lk, "attn_prefill")->flops, 2 * pairs * 16 * 256, 1e-12, "attention core pairs x heads");
	CHECK(find(lk, "allreduce_attn") && find(lk, "allreduce_ffn"), "two all-reduces per layer at TP2");
	CHECK_REL(find(lk, "attn_prefill")->kv_read_bytes, 3.0 * (211 + 517) * 2 * 4 * 128 * 2, 1e-12,
		  "KV read: every cached + new token, 4 KV heads per GPU");
	opgraph_release(&g);
}

static void test_decode_pairs(void)
{
	/* decode of B=5 requests each with 1022 cached tokens: sum c_i = 5 x 1023 */
	struct parallel p = {1, 1, 1, 1, 0, 0};
	struct opgraph g;

	load("qwen3-8b");
	CHECK(build(&p, 5, 1, 1022, DT_BF16, &g) == 0, "qwen3-8b decode builds");
	CHECK(g.decode && g.attn_pairs == 5 * 1023, "decode pairs = sum of contexts (%.0f)", g.attn_pairs);
	CHECK(find(&g.kinds[0], "qk_norm") != NULL, "qwen3 has qk_norm");
	/* qwen3-8b: 32 heads x 128 */
	CHECK_REL(find(&g.kinds[0], "attn_decode")->flops, 2.0 * 5 * 1023 * 32 * 256, 1e-12,
		  "decode attention FLOPs");
	/* LM head: last token of each of the 5 sequences: 2*5*4096*151936 */
	CHECK_REL(find(&g.kinds[1], "lm_head")->flops, 2.0 * 5 * 4096 * 151936, 1e-12, "lm_head on 5 rows");
	opgraph_release(&g);
}

static void test_mla(void)
{
	/* DeepSeek-V3, TP8: 16 heads per GPU, kv_lora 512, rope 64, nope 128, v 128.
	 * Decode B=7, C=376 (377 keys each): pairs 2639.
	 * absorbed attention: 2*pairs*16*((512+64) + 512) ; W_UK: 2*7*16*128*512 */
	struct parallel p = {8, 1, 1, 8, 0, 0};
	struct opgraph g;
	const struct layer_kind *lk;

	load("deepseek-v3");
	CHECK(build(&p, 7, 1, 376, DT_FP8, &g) == 0, "deepseek-v3 decode builds");
	CHECK(g.nkinds == 3 && g.kinds[0].count == 3 && g.kinds[1].count == 58,
	      "3 dense + 58 MoE layer kinds");
	lk = &g.kinds[1];
	CHECK_REL(find(lk, "attn_decode_mla")->flops, 2.0 * 2639 * 16 * (576 + 512), 1e-12, "MLA absorbed core");
	CHECK_REL(find(lk, "q_absorb_uk")->flops, 2.0 * 7 * 16 * 128 * 512, 1e-12, "q . W_UK per head");
	CHECK_REL(find(lk, "kv_a_proj")->flops, 2.0 * 7 * 7168 * 576, 1e-12, "kv_a replicated (kv_lora + rope)");
	CHECK_REL(find(lk, "attn_decode_mla")->kv_read_bytes, 7.0 * 377 * 576 * 1, 1e-12,
		  "latent cache read (fp8, shared across heads)");
	opgraph_release(&g);
	/* prefill S=300 after C=100: kv_b expands B*(C+S) = 2*400 tokens */
	CHECK(build(&p, 2, 300, 100, DT_BF16, &g) == 0, "deepseek-v3 prefill builds");
	lk = &g.kinds[0];
	CHECK(find(lk, "kv_b_proj")->m == 800, "kv_b over context + new tokens (m=%lld)",
	      (long long)find(lk, "kv_b_proj")->m);
	CHECK_REL(find(lk, "attn_prefill_mla")->flops,
		  2.0 * 2 * (300.0 * 100 + 300.0 * 301 / 2) * 16 * (192 + 128), 1e-12, "MLA prefill core");
	opgraph_release(&g);
}

static void test_dsa(void)
{
	/* DeepSeek-V3.2 prefill S=3000, no prefix, top-k 2048:
	 * main attention pairs = 2048*2049/2 + (3000-2048)*2048 = 2098176 + 1949696;
	 * indexer scores all 3000*3001/2 pairs over 64 heads x 128. */
	struct parallel p = {1, 1, 1, 1, 0, 0};
	struct opgraph g;
	double capped = 2048.0 * 2049 / 2 + 952.0 * 2048, full = 3000.0 * 3001 / 2;
	const struct layer_kind *lk;

	CHECK(attn_capped_pairs(3000, 0, 2048) == capped, "capped pairs closed form");
	CHECK(attn_capped_pairs(10, 5000, 2048) == 10.0 * 2048, "capped pairs with long prefix");
	load("deepseek-v3.2");
	CHECK(build(&p, 1, 3000, 0, DT_BF16, &g) == 0, "deepseek-v3.2 builds");
	lk = &g.kinds[0];
	CHECK_REL(find(lk, "indexer_scores")->flops, 2.0 * full * 64 * 128, 1e-12, "indexer over all pairs");
	CHECK_REL(find(lk, "attn_prefill_mla")->flops, 2.0 * capped * 128 * (192 + 128), 1e-12,
		  "main attention capped at index_topk");
	CHECK(find(lk, "indexer_topk") != NULL, "top-k op present");
	opgraph_release(&g);
}

static const struct layer_kind *kind_named(const struct opgraph *g, const char *name)
{
	size_t i;
	for (i = 0; i < g->nkinds; i++)
		if (strcmp(g->kinds[i].name, name) == 0)
			return &g->kinds[i];
	return NULL;
}

static void test_dsv4(void)
{
	/* compressed entries seen: a query at position p sees floor(p / r),
	 * capped at top-k.  5 tokens from 0 at r 4: 0+0+0+1+1; 3 tokens after
	 * 9 at r 4: floor(10/4)+floor(11/4)+floor(12/4) = 2+2+3; decode after
	 * 8191 at r 4, top-k 512: min(2048, 512); 10 tokens at r 128: 0 */
	struct parallel p = {8, 1, 1, 1, 0, 0};
	struct opgraph g;
	const struct layer_kind *csa, *hca, *swa;
	double B = 3, win, comp, idx;

	CHECK(attn_compressed_pairs(5, 0, 4, -1) == 2, "compressed pairs, 5 tokens at ratio 4");
	CHECK(attn_compressed_pairs(3, 9, 4, -1) == 7, "compressed pairs, 3 tokens after 9");
	CHECK(attn_compressed_pairs(1, 8191, 4, 512) == 512, "decode capped at top-k");
	CHECK(attn_compressed_pairs(3000, 0, 4, 512) == 4.0 * 511 * 512 / 2 + 512 + 512.0 * (3000 - 2048),
	      "prefill of 3000: blocks of 4 positions 1..511 plus p = 2048, then 512 a query");
	CHECK(attn_compressed_pairs(10, 0, 128, -1) == 0, "nothing compressed before 128 tokens");
	load("deepseek-v4-flash");
	/* decode, batch 3 after 5000 cached, TP 8: 8 heads of 512 a GPU; the
	 * window 128 keys, CSA + min(5001 / 4, 512) = 512 entries, HCA +
	 * floor(5001 / 128) = 39; QK and PV over 512 each */
	CHECK(build(&p, 3, 1, 5000, DT_FP8, &g) == 0, "deepseek-v4-flash builds");
	csa = kind_named(&g, "csa+moe");
	hca = kind_named(&g, "hca+moe");
	swa = kind_named(&g, "sliding+moe");
	CHECK(csa && hca && swa && csa->count == 21 && hca->count == 20 && swa->count == 2,
	      "21 csa+moe, 20 hca+moe, 2 sliding+moe kinds");
	if (csa && hca && swa) {
		win = 128, comp = 512, idx = 1250;
		CHECK_REL(find(csa, "attn_csa_decode")->flops, 2.0 * B * (win + comp) * 8 * 1024, 1e-12,
			  "CSA core: window + top-k entries");
		CHECK_REL(find(hca, "attn_hca_decode")->flops, 2.0 * B * (win + 39) * 8 * 1024, 1e-12,
			  "HCA core: window + every entry");
		CHECK_REL(find(swa, "attn_swa_decode")->flops, 2.0 * B * win * 8 * 1024, 1e-12, "window-only core");
		CHECK_REL(find(csa, "indexer_scores")->flops, 2.0 * B * idx * 64 * 128, 1e-12,
			  "indexer scores every visible entry");
		/* cache read: 584 B an entry (window + top-k), 132 B an index key */
		CHECK_REL(find(csa, "attn_csa_decode")->kv_read_bytes, B * (win + comp) * 584, 1e-12, "CSA cache read");
		CHECK_REL(find(csa, "indexer_scores")->kv_read_bytes, B * idx * 132, 1e-12, "indexer keys read");
		/* TP 8: q_b 1024 -> 8 x 512, o_a one group of 8 heads x 512 -> 1024, o_b 1024 -> 4096;
		 * the replicated q_a/kv 4096 -> 1024 + 512 */
		CHECK(find(csa, "wq_b")->n == 4096 && find(csa, "wq_b")->k == 1024, "wq_b split over TP");
		CHECK(find(csa, "wo_a")->batch == 1 && find(csa, "wo_a")->k == 4096 && find(csa, "wo_a")->n == 1024,
		      "wo_a: one group a GPU");
		CHECK(find(csa, "wqa_wkv")->n == 1536 && find(csa, "wqa_wkv")->k == 4096, "q_a + kv replicated");
		CHECK(find(csa, "compressor_wkv_gate")->n == 2048 && !find(csa, "compressor_wkv_gate")->low_precision,
		      "CSA compressor 2 x 2 x 512 in bf16");
		CHECK(find(hca, "compressor_wkv_gate")->n == 1024 && find(hca, "indexer_q_proj") == NULL,
		      "HCA compressor 2 x 512, no indexer");
		CHECK(find(csa, "hc_attn_pre") && find(csa, "hc_ffn_post") && !find(csa, "residual_ffn"),
		      "hyper-connections in place of the residual adds");
	}
	opgraph_release(&g);
}

static void test_moe(void)
{
	/* Mixtral, T=37 tokens, top-2, no EP, TP1: experts compute 2*74*3*4096*14336;
	 * weight bytes of expected distinct experts 8*(1-(7/8)^74) x 3*4096*14336 x 2. */
	struct parallel p = {1, 1, 1, 1, 0, 0}, pe = {4, 1, 2, 8, 0, 0};
	struct opgraph g;
	const struct layer_kind *lk;
	double touched = 8 * (1 - pow(7.0 / 8, 74));

	load("mixtral-8x7b");
	CHECK(build(&p, 37, 1, 100, DT_BF16, &g) == 0, "mixtral builds");
	lk = &g.kinds[0];
	CHECK_REL(find(lk, "experts_gate_up")->flops + find(lk, "experts_down")->flops,
		  2.0 * 74 * 3 * 4096 * 14336, 1e-12, "routed expert FLOPs = tokens x top_k");
	CHECK_REL(find(lk, "experts_gate_up")->weight_bytes + find(lk, "experts_down")->weight_bytes,
		  touched * 3 * 4096 * 14336 * 2, 1e-12, "expert weight bytes from expected distinct experts");
	CHECK_REL(find(lk, "router")->flops, 2.0 * 37 * 4096 * 8, 1e-12, "router GEMM");
	opgraph_release(&g);
	/* Qwen3-30B-A3B, TP4 DP2 EP8: 16 experts per rank, moe_tp 1; local batch
	 * 11 of 21 requests (ceil), all 2 DP ranks' tokens routed: assignments
	 * per rank = 22 tokens * 8 * 16/128 = 22 */
	load("qwen3-30b-a3b");
	CHECK(build(&pe, 21, 1, 50, DT_BF16, &g) == 0, "qwen3-30b EP8 builds");
	lk = &g.kinds[0];
	CHECK(g.local_batch == 11, "DP2 local batch ceil(21/2)=11");
	CHECK_REL(find(lk, "experts_down")->flops, 2.0 * 22 * 768 * 2048, 1e-12, "EP expert FLOPs on one rank");
	CHECK(find(lk, "ep_dispatch") && find(lk, "ep_combine"), "EP dispatch/combine present");
	opgraph_release(&g);
}

static void test_model_vs_gpu(void)
{
	/* per-GPU GEMM FLOPs at TP8 are 1/8 of the model-wide ones (embedding
	 * lookups aside), replicated ops aside */
	struct parallel p1 = {1, 1, 1, 1, 0, 0}, p8 = {8, 1, 1, 1, 0, 0};
	struct opgraph a, b;

	load("llama-2-70b");
	build(&p1, 4, 333, 0, DT_BF16, &a);
	build(&p8, 4, 333, 0, DT_BF16, &b);
	CHECK_REL(kind_cat_flops(&b, NULL, OPK_GEMM) * 8, kind_cat_flops(&a, NULL, OPK_GEMM), 1e-12,
		  "TP8 GEMM FLOPs per GPU = model-wide / 8");
	opgraph_release(&a);
	opgraph_release(&b);
}


static double kind_flops(const struct opgraph *g, const char *kind)
{
	size_t i;
	for (i = 0; i < g->nkinds; i++)
		if (strcmp(g->kinds[i].name, kind) == 0)
			return layer_kind_flops(&g->kinds[i]);
	return -1;
}

static const struct layer_kind *kind_of(const struct opgraph *g, const char *kind)
{
	size_t i;
	for (i = 0; i < g->nkinds; i++)
		if (strcmp(g->kinds[i].name, kind) == 0)
			return &g->kinds[i];
	return NULL;
}

/* gpt-oss-120b decode, 3 requests after 1000 cached tokens, TP 1 (no EP):
 * h 2880, 64 heads, 8 KV heads, head dim 64, 128 experts top-4 width 2880,
 * sliding window 128 on every other layer.  By hand, per layer:
 *   qkv  2 x 3 x (64 + 2 x 8) x 64 x 2880          =  88,473,600
 *   o    2 x 3 x 4096 x 2880                        =  70,778,880
 *   attention core 2 x pairs x 64 x (64 + 64), pairs per request:
 *     full 1001 -> 3 x 1001 = 3003 -> 49,201,152; sliding 128 -> 384 -> 6,291,456
 *   router 2 x 3 x 128 x 2880                       =   2,211,840
 *   experts: 12 assignments, gate_up 2 x 12 x 5760 x 2880 = 398,131,200,
 *            down 2 x 12 x 2880 x 2880              = 199,065,600
 *   elementwise: 2 norms 4 x 3 x 2880, rope 3 x 3 x (64 + 8) x 64, 2 residuals
 *     3 x 2880, act_mul 5 x 12 x 2880, top-k 3 x 128
 * So the two layer kinds differ by the attention core alone. */
static void test_gpt_oss_sliding(void)
{
	struct parallel p = {1, 1, 1, 1, 0, 0};
	struct opgraph g;
	double h = 2880, gemms, elems, full, sliding;
	const struct layer_kind *lk;

	load("gpt-oss-120b");
	if (build(&p, 3, 1, 1000, DT_BF16, &g) < 0) {
		CHECK(0, "gpt-oss graph builds");
		return;
	}
	gemms = 2 * 3 * 80 * 64 * h + 2 * 3 * 4096 * h + 2 * 3 * 128 * h + 2 * 12 * 5760 * h +
		2 * 12 * h * h;
	elems = 2 * 4 * 3 * h + 3 * 3 * 72 * 64 + 2 * 3 * h + 5 * 12 * h + 3 * 128;
	full = 2.0 * 3003 * 64 * 128;
	sliding = 2.0 * 384 * 64 * 128;
	CHECK(g.nkinds == 3 && kind_of(&g, "moe") && kind_of(&g, "sliding+moe"),
	      "gpt-oss: kinds moe (full), sliding+moe, embed+head");
	CHECK_REL(kind_flops(&g, "moe"), gemms + elems + full, 1e-12, "gpt-oss full layer FLOPs by hand");
	CHECK_REL(kind_flops(&g, "sliding+moe"), gemms + elems + sliding, 1e-12,
		  "gpt-oss sliding layer FLOPs by hand");
	lk = kind_of(&g, "sliding+moe");
	CHECK(lk && lk->count == 18 && find(lk, "attn_decode") &&
	      find(lk, "attn_decode")->kv_read_bytes == 3.0 * 128 * 2 * 8 * 64 * 2,
	      "sliding layer reads 128 cached keys per request");
	opgraph_release(&g);
}

/* Qwen3-Next-80B-A3B linear (Gated DeltaNet) layer, prefill of 2 requests of
 * 100 tokens, TP 1: h 2048, 16 key heads x 128, 32 value heads x 128, conv 4.
 *   in_proj  2 x 200 x (2 x 2048 + 2 x 4096 + 2 x 32) x 2048 = 10,118,758,400
 *   conv     200 x (2 x 2048 + 4096) x (2 x 4)              =     13,107,200
 *   recurrent 200 x 32 x 128 x 128 x 6                      =    629,145,600
 *   out_proj 2 x 200 x 4096 x 2048                          =  3,355,443,200
 * attention-category FLOPs of the kind: 14,116,454,400.  The state (32 x 128
 * x 128 x 2 B bf16 = 1 MiB) is read and written once per request. */
static void test_qwen3_next_linear(void)
{
	struct parallel p = {1, 1, 1, 1, 0, 0};
	struct opgraph g;
	const struct layer_kind *lk;
	const struct op *o;

	load("qwen3-next-80b-a3b");
	if (build(&p, 2, 100, 0, DT_BF16, &g) < 0) {
		CHECK(0, "qwen3-next graph builds");
		return;
	}
	lk = kind_of(&g, "linear+moe");
	CHECK(lk && lk->count == 36 && kind_of(&g, "moe") && kind_of(&g, "moe")->count == 12,
	      "qwen3-next: 36 linear+moe, 12 full moe layers");
	if (lk) {
		CHECK_REL(layer_kind_flops_cat(lk, OPC_ATTENTION), 14116454400.0, 1e-12,
			  "GDN layer attention FLOPs by hand");
		o = find(lk, "gated_delta_rule");
		CHECK(o && o->kv_read_bytes == 2.0 * 32 * 128 * 128 * 2 && o->kv_write_bytes == o->kv_read_bytes,
		      "GDN state read and written once per request");
	}
	/* gated full attention: q_proj emits query + gate, 16 x 256 each */
	lk = kind_of(&g, "moe");
	CHECK(lk && find(lk, "qkv_proj") && find(lk, "qkv_proj")->n == 16 * 256 * 2 + 2 * 2 * 256,
	      "gated attention: qkv n = 2 x 16 x 256 + 2 x 2 x 256");
	opgraph_release(&g);
}

/* Kimi-K3 (kimi_linear) at TP 8, 2 requests of 100 new tokens: 68
 * KDA+MoE, 1 KDA+dense (first_k_dense_replace 1) and 24 MLA+MoE layers.  Per
 * GPU 12 KDA heads of 128: in_proj q k v (3 x 1536) + beta (12) + the two
 * full-rank gates (2 x 1536) = 7692; the conv over q k v 4608 channels; the
 * fp32 state 12 x 128 x 128 x 4 bytes read and written once per request.
 * Attention residuals over blocks of 12 layers: layer l has l / 12 blocks
 * done; its mixer sees the embedding, those blocks and (past a block's first
 * layer) the partial sum, its FFN one more; over the 93 layers
 * sum(l / 12) = 12 x (0 + ... + 6) + 9 x 7 = 315, so (93 + 315 + 85) +
 * (2 x 93 + 315) = 994 sources over 186 sublayers; each op reads them and
 * writes one 7168 row of bf16 per token.  The MLA layers' output gate is a
 * hidden -> 12 x 128 GEMM per GPU.  Recurrent state per request and GPU:
 * 69 layers x (786432 + 3 x 4608 x 2 bytes of bf16 conv state). */
static void test_kimi_k3(void)
{
	struct parallel p = {8, 1, 1, 1, 0, 0};
	struct opgraph g;
	const struct layer_kind *lk;
	const struct op *o;
	double src = 994.0 / 186.0;

	load("kimi-k3");
	if (build(&p, 2, 100, 0, DT_BF16, &g) < 0) {
		CHECK(0, "kimi-k3 graph builds");
		return;
	}
	lk = kind_of(&g, "linear+moe");
	CHECK(lk && lk->count == 68 && kind_of(&g, "linear+dense") && kind_of(&g, "linear+dense")->count == 1 &&
	      kind_of(&g, "moe") && kind_of(&g, "moe")->count == 24,
	      "kimi-k3: 68 linear+moe, 1 linear+dense, 24 MLA moe layers");
	if (lk) {
		CHECK(find(lk, "in_proj") && find(lk, "in_proj")->n == 7692, "KDA in_proj n = 7692");
		o = find(lk, "kda");
		CHECK(o && o->kv_read_bytes == 2.0 * 12 * 128 * 128 * 4 && o->kv_write_bytes == o->kv_read_bytes,
		      "KDA fp32 state read and written once per request");
		o = find(lk, "causal_conv1d");
		CHECK(o && strcmp(o->shape_in, "[200,4608]") == 0, "KDA conv over q k v: %s", o ? o->shape_in : "-");
		o = find(lk, "attn_res_mixer");
		CHECK(o && find(lk, "attn_res_ffn"), "attention residuals before the mixer and the FFN");
		if (o)
			CHECK_REL(o->act_bytes, 200.0 * 7168 * (src + 1) * 2, 1e-12,
				  "attention residual bytes: 994 / 186 sources by hand");
	}
	lk = kind_of(&g, "moe");
	CHECK(lk && find(lk, "gate_proj") && find(lk, "gate_proj")->n == 1536, "MLA output gate n = 12 x 128");
	CHECK_REL(model_state_bytes_per_seq_per_gpu(&M, &p, 2.0), 69.0 * (786432 + 3 * 4608 * 2), 1e-12,
		  "KDA recurrent + conv state per request and GPU");
	opgraph_release(&g);
}

/* chunked-local pairs (Llama 4): 10 new tokens after 5 cached, chunk 8:
 * positions 6..15 see 6 7 8 1 2 3 4 5 6 7 keys = 49 */
static void test_chunked_pairs(void)
{
	CHECK(attn_chunked_pairs(10, 5, 8) == 49.0, "chunked pairs 49 (%g)", attn_chunked_pairs(10, 5, 8));
	CHECK(attn_chunked_pairs(7, 0, 0) == attn_causal_pairs(7, 0), "chunk 0 = causal");
	CHECK(attn_chunked_pairs(100, 0, 1000) == attn_causal_pairs(100, 0), "short sequences unaffected");
}


/* The attention sum over layer groups (cost.c): priced against a copy of the
 * model whose layers are all full attention, decode of 8 requests. */
static void all_full(struct model_cfg *f)
{
	int64_t i;
	for (i = 0; i < f->layers; i++)
		f->mixer[i] = LM_FULL;
	memset(f->n_mixer, 0, sizeof(f->n_mixer));
	f->n_mixer[LM_FULL] = f->layers;
}

static int cost_for(struct cost_model *c, const struct model_cfg *m, const struct gpu_spec *g,
		    const char *data)
{
	struct cost_cfg cc;
	struct parallel p = {1, 1, 1, 1, 0, 0};
	struct err e;
	int rc;

	fixture_cost_cfg(&cc, 256, 16, 0);
	rc = cost_init(c, m, g, &p, &cc, data, &e);
	if (rc < 0)
		printf("# cost: %s\n", e.msg);
	return rc;
}

static void test_attention_groups(const char *data)
{
	static struct model_cfg full;
	struct gpu_db db;
	const struct gpu_spec *g = NULL;
	struct cost_model ch, cf;
	char path[1200];
	struct err e;
	double t1, t2, f1, f2;

	snprintf(path, sizeof(path), "%s/gpus.json", data);
	if (gpu_db_load(&db, path, &e) < 0 || gpu_find(&db, "h100", &g, &e) < 0) {
		CHECK(0, "gpus load: %s", e.msg);
		return;
	}
	/* gpt-oss-120b: 18 full + 18 sliding (128) layers.  At 50 000 keys per
	 * request the sliding half costs little: about half the all-full
	 * attention.  A sliding layer (2 x the mean per layer - a full one) is
	 * the engine's measured windowed kernel (vLLM 0.24.0 H100, 64/8/64,
	 * bf16 KV, window 128, data/mfu/h100_sxm/vllm-0.24.0/
	 * attn_{decode,prefill}_window.csv.gz): decode of 8 requests at 32,768
	 * and 65,536 keys 15.0933 and 15.104 us, a 4,096-token prefill 105.168 us
	 * (the dense rows at the capped keys alone: 11.1 and 44 us) */
	load("gpt-oss-120b");
	full = M;
	all_full(&full);
	if (cost_for(&ch, &M, g, data) == 0 && cost_for(&cf, &full, g, data) == 0) {
		t1 = cost_attn_decode_s(&ch, 8, 8 * 50000.0);
		f1 = cost_attn_decode_s(&cf, 8, 8 * 50000.0);
		CHECK(t1 / f1 > 0.5 && t1 / f1 < 0.55, "gpt-oss decode attention %.3g = %.3f x all-full",
		      t1, t1 / f1);
		CHECK_REL(2 * t1 - f1, 15.1e-6, 0.01, "sliding layer at 50k keys: the measured windowed decode");
		/* short contexts (under the window): the windowed rows measure
		 * the dense kernel's time, within their noise (0.98-1.02) */
		CHECK_REL(cost_attn_decode_s(&ch, 8, 8 * 100.0), cost_attn_decode_s(&cf, 8, 8 * 100.0), 0.02,
			  "contexts inside the window: sliding ~ full");
		t2 = cost_attn_prefill_s(&ch, 4096, 0);
		f2 = cost_attn_prefill_s(&cf, 4096, 0);
		CHECK(t2 < 0.7 * f2, "4096-token prefill: sliding layers cheaper than full ones (%.3f x)", t2 / f2);
		CHECK_REL(2 * t2 - f2, 105.168e-6, 0.01, "sliding layer, 4096-token prefill: the measured windowed row");
		cost_release(&ch);
		cost_release(&cf);
	}
	/* qwen3-next: 12 full + 36 Gated DeltaNet layers.  The linear part,
	 * hybrid - 12/48 x all-full, does not grow with the context */
	load("qwen3-next-80b-a3b");
	full = M;
	all_full(&full);
	if (cost_for(&ch, &M, g, data) == 0 && cost_for(&cf, &full, g, data) == 0) {
		t1 = cost_attn_decode_s(&ch, 8, 8 * 1000.0);
		t2 = cost_attn_decode_s(&ch, 8, 8 * 100000.0);
		f1 = cost_attn_decode_s(&cf, 8, 8 * 1000.0);
		f2 = cost_attn_decode_s(&cf, 8, 8 * 100000.0);
		CHECK_REL(t1 - 12.0 / 48 * f1, t2 - 12.0 / 48 * f2, 1e-9,
			  "recurrent update independent of the context");
		/* one update: 8 x 32 x 128 x 128 state x 2 B, read and written at
		 * vLLM's 0.8298 of the HBM bandwidth (memory-bound), plus the
		 * kernels' 6.38 us floor, per linear layer (fitted on measured GDN
		 * kernels, scripts/mfu/fit_gdn.py) */
		CHECK_REL((t1 - 12.0 / 48 * f1) * 48 / 36,
			  6.38e-6 + 2.0 * 8 * 32 * 128 * 128 * 2 / (ch.g->hbm_bw * 0.8298), 1e-9,
			  "recurrent update = launch + state read + write at 0.83 of HBM");
		cost_release(&ch);
		cost_release(&cf);
	}
	gpu_db_release(&db);
}

/* Roofline weight reuse: WRF divides the weight bytes only up to the rows a
 * GEMM has (a weight read serves at most that many rows), so batch-1 decode
 * reads every weight and is HBM-bound; design document 001's DeepSeek-V3
 * decode stays HBM-bound at every batch.  Until 2026-11-28 batch-1 decode of
 * Llama-3.1-8B on an H100 came out compute-bound (3.75 GB of weights read,
 * T_hbm 1.45 ms < T_comp 1.94 ms; issue 26). */
static void test_roofline_reuse(const char *data)
{
	static const int64_t batches[] = {1, 2, 8, 64, 512};
	char path[1200];
	struct gpu_db db;
	struct rl_cfg c;
	struct rl_point one, four, pt;
	struct err e;
	size_t i;

	snprintf(path, sizeof(path), "%s/gpus.json", data);
	if (gpu_db_load(&db, path, &e) < 0) {
		CHECK(0, "gpus.json: %s", e.msg);
		return;
	}
	load("llama-3.1-8b");
	rl_cfg_defaults(&c);
	c.m = &M;
	c.p = (struct parallel){1, 1, 1, 1, 0, 0};
	c.wdt = c.kvdt = DT_BF16;
	if (gpu_find(&db, "h100", &c.g, &e) < 0 || rl_eval(&c, 1, 1, 1024, &one, &e) < 0 ||
	    rl_eval(&c, 4, 1, 1024, &four, &e) < 0) {
		CHECK(0, "roofline llama-3.1-8b: %s", e.msg);
		gpu_db_release(&db);
		return;
	}
	CHECK(strcmp(one.regime, "HBM weights") == 0 && one.t_hbm > one.t_comp,
	      "llama-3.1-8b batch-1 decode: %s (T_hbm %.2f ms, T_comp %.2f ms)", one.regime, one.t_hbm * 1e3,
	      one.t_comp * 1e3);
	CHECK(one.weight_bytes > 14.5e9 && fabs(one.weight_bytes / four.weight_bytes - 4.0) < 0.01,
	      "one row reads every weight (%.2f GB), four rows a quarter of them each (%.2f GB)",
	      one.weight_bytes / 1e9, four.weight_bytes / 1e9);
	load("deepseek-v3");
	c.m = &M;
	c.p = (struct parallel){8, 1, 1, 1, 0, 0};
	c.wdt = c.kvdt = DT_FP8;
	if (gpu_find(&db, "h200", &c.g, &e) < 0) {
		CHECK(0, "h200: %s", e.msg);
		gpu_db_release(&db);
		return;
	}
	for (i = 0; i < sizeof(batches) / sizeof(batches[0]); i++) {
		if (rl_eval(&c, batches[i], 1, 1024, &pt, &e) < 0) {
			CHECK(0, "roofline deepseek-v3: %s", e.msg);
			break;
		}
		CHECK(strncmp(pt.regime, "HBM", 3) == 0, "deepseek-v3 fp8 TP8 H200 decode at batch %lld: %s",
		      (long long)batches[i], pt.regime);
	}
	gpu_db_release(&db);
}

int main(void)
{
	char data[1024];

	if (fixture_load(data, sizeof(data), &reg, NULL) < 0)
		return 1;
	test_llama2_prefill();
	test_gqa_tp_prefix();
	test_decode_pairs();
	test_mla();
	test_dsa();
	test_dsv4();
	test_moe();
	test_model_vs_gpu();
	test_gpt_oss_sliding();
	test_qwen3_next_linear();
	test_kimi_k3();
	test_split_attention_formats();
	test_chunked_pairs();
	test_attention_groups(data);
	test_roofline_reuse(data);
	registry_release(&reg);
	return check_done();
}
