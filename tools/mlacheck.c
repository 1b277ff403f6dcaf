/* mlacheck.c - check tool: servesim's sum of parts of one MLA decode module
 * (the q_a, kv_a, q_b and o GEMMs, the two absorb BMMs and the MLA decode
 * kernel; norms and RoPE are priced at their bytes, ~0 at decode sizes) for
 * DeepSeek-V3's geometry, per GPU heads 128/TP, batch and keys, with the
 * given engine's tables, the MLA decode module term left out.  With a fifth
 * argument `prefill`: one MLA context module instead (batch prefix-free
 * prompts of isl tokens: the q_a, kv_a, q_b and o GEMMs over batch x isl
 * tokens, the expanded MLA prefill kernel as one varlen call and the kv_b
 * GEMM, as cost.c prices a step's chunks; the q_a/kv_a RMSNorms and RoPE at
 * their bytes, read and written once, at the GPU's HBM bandwidth x bw_eff).
 * Driven by scripts/mfu/check_mla_module.py (which builds it with
 * tools/toolenv.c: scripts/mfu/checktool.py), not part of `make`.
 *
 * usage: mlacheck DATA_DIR ENGINE GPU bf16|fp8 [prefill]
 * prints "heads batch keys parts_us" lines for TP 1..16, batch 1..256 and
 * keys 1024, 4096, 16384; with prefill "heads batch isl parts_us" for TP
 * 1..16, batch 1..256 and isl 128..16384 (batch x isl <= 65536). */
#include <stdio.h>
#include <string.h>

#include "cost/cost.h"
#include "toolenv.h"

/* One MLA context module per (batch, isl): see the header. */
static void prefill_rows(const struct cost_model *c, const struct model_cfg *m, const struct gpu_spec *g,
			 double h)
{
	static int64_t len[256], prefix[256];
	int b, isl, i;

	for (b = 1; b <= 256; b *= 2)
		for (isl = 128; isl <= 16384; isl *= 2) {
			double tok = (double)b * isl, t, nb;

			if (tok > 65536)
				continue;
			for (i = 0; i < b; i++) {
				len[i] = isl;
				prefix[i] = 0;
			}
			t = cost_gemm_s(c, c->cfg.wdt, tok, (double)m->q_lora_rank, (double)m->hidden, 1) +
			    cost_gemm_s(c, c->cfg.wdt, tok, (double)(m->kv_lora_rank + m->qk_rope_dim),
					(double)m->hidden, 1) +
			    cost_gemm_s(c, c->cfg.wdt, tok, h * (double)(m->qk_nope_dim + m->qk_rope_dim),
					(double)m->q_lora_rank, 1) +
			    cost_gemm_s(c, c->cfg.wdt, tok, (double)m->hidden, h * (double)m->v_head_dim, 1) +
			    cost_attn_prefill_step_s(c, b, len, prefix);
			/* norms of q_a and kv_a outputs, RoPE of q and k: bf16 in and out */
			nb = tok * 2.0 * 2.0 *
			     ((double)m->q_lora_rank + (double)m->kv_lora_rank + h * (double)m->qk_rope_dim +
			      (double)m->qk_rope_dim);
			t += nb / (g->hbm_bw * g->bw_eff);
			printf("%g %d %d %.3f\n", h, b, isl, t * 1e6);
		}
}

int main(int argc, char **argv)
{
	static const int tps[] = {1, 2, 4, 8, 16};
	struct model_registry reg;
	struct gpu_db db;
	struct model_cfg m;
	const struct gpu_spec *g;
	struct err e;
	size_t ti;

	if (argc != 5 && !(argc == 6 && strcmp(argv[5], "prefill") == 0)) {
		fprintf(stderr, "usage: mlacheck DATA_DIR ENGINE GPU bf16|fp8 [prefill]\n");
		return 2;
	}
	if (tool_load_model("mlacheck", argv[1], "deepseek-v3", &reg, &m) < 0 ||
	    tool_load_gpu("mlacheck", argv[1], argv[3], &db, &g) < 0)
		return 1;
	for (ti = 0; ti < sizeof(tps) / sizeof(tps[0]); ti++) {
		struct cost_cfg cc;
		struct parallel p = {tps[ti], 1, 1, 1, 0};
		struct cost_model c;
		double h = 128.0 / tps[ti];
		int b, kv;

		if (tool_cost_cfg(&cc, argv[2], DT_FP8, strcmp(argv[4], "fp8") == 0 ? DT_FP8 : DT_BF16) < 0)
			return 2;
		if (cost_init(&c, &m, g, &p, &cc, argv[1], &e) < 0) {
			fprintf(stderr, "mlacheck: %s\n", e.msg);
			return 1;
		}
		if (argc == 6) {
			c.mla_ctx_tok_s = 0; /* the parts only */
			prefill_rows(&c, &m, g, h);
			cost_release(&c);
			continue;
		}
		for (b = 1; b <= 256; b *= 2)
			for (kv = 1024; kv <= 16384; kv *= 4) {
				double t = cost_gemm_s(&c, c.cfg.wdt, b, (double)m.q_lora_rank, (double)m.hidden, 1) +
					   cost_gemm_s(&c, c.cfg.wdt, b, (double)(m.kv_lora_rank + m.qk_rope_dim),
						       (double)m.hidden, 1) +
					   cost_gemm_s(&c, c.cfg.wdt, b, h * (double)(m.qk_nope_dim + m.qk_rope_dim),
						       (double)m.q_lora_rank, 1) +
					   cost_gemm_s(&c, c.cfg.wdt, b, (double)m.hidden, h * (double)m.v_head_dim, 1) +
					   cost_gemm_s(&c, c.cfg.wdt, b, (double)m.kv_lora_rank, (double)m.qk_nope_dim, h) +
					   cost_gemm_s(&c, c.cfg.wdt, b, (double)m.v_head_dim, (double)m.kv_lora_rank, h) +
					   cost_attn_decode_s(&c, b, (double)b * kv);
				printf("%g %d %d %.3f\n", h, b, kv, t * 1e6);
			}
		cost_release(&c);
	}
	return 0;
}
