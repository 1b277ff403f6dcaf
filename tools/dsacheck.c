/* dsacheck.c - check tool: servesim's sum of parts of one DSA attention
 * module (DeepSeek-V3.2, GLM-5: the MLA projections, norms and RoPE, the
 * lightning indexer's projections, its scores and top-k, the sparse MLA
 * kernel, the absorb BMMs (decode) or kv_b (prefill) and o_proj), priced
 * with the given engine's tables at the points read from stdin, for
 * comparison with aiconfigurator's measured DSA module tables
 * (scripts/mfu/check_dsa_module.py drives it and builds it with
 * tools/toolenv.c: scripts/mfu/checktool.py; not part of `make`).
 *
 * usage: dsacheck DATA_DIR ENGINE GPU MODEL bf16|fp8 GEMM decode|prefill [shared]
 *   KV dtype bf16|fp8, GEMM dtype fp8|bf16 (the module's projections);
 *   shared: a layer that reuses an earlier layer's top-k (no indexer).
 *   stdin: "heads batch keys" (decode: each request attends `keys` keys) or
 *   "heads batch isl prefix" (prefill: batch prompts of isl new tokens after
 *   prefix cached ones, one varlen call); heads per GPU, set on the model
 *   (TP 1) so that any head count of the tables can be priced.
 *   stdout: the same fields, the parts (cost_dsa_parts_s) and the engine's
 *   DSA module term (cost_dsa_module_s) in us; with a prefix the parts as a
 *   step prices them (an own-indexer layer: not with `shared`). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cost/cost.h"
#include "toolenv.h"

int main(int argc, char **argv)
{
	static struct tool_models tm;
	char line[256];
	struct err e;
	bool decode, own;

	if ((argc != 8 && argc != 9) || (argc == 9 && strcmp(argv[8], "shared") != 0)) {
		fprintf(stderr, "usage: dsacheck DATA_DIR ENGINE GPU MODEL bf16|fp8 GEMM decode|prefill [shared]\n");
		return 2;
	}
	decode = strcmp(argv[7], "decode") == 0;
	own = argc == 8;
	if (tool_models_load(&tm, "dsacheck", argv[1], argv[4], argv[3]) < 0)
		return 1;
	while (fgets(line, sizeof(line), stdin)) {
		int h, b;
		long long k, pre = 0;
		struct tool_heads *x;
		double t, x_s;

		if (sscanf(line, "%d %d %lld %lld", &h, &b, &k, &pre) < 3 || h < 1 || b < 1 || k < 1)
			continue;
		if (!(x = tool_models_find(&tm, h))) {
			struct cost_cfg cc;
			struct parallel p = {1, 1, 1, 1, 0};

			if (tm.n == TOOL_MAX_HEADS) {
				fprintf(stderr, "dsacheck: more than %d head counts\n", TOOL_MAX_HEADS);
				return 1;
			}
			x = &tm.ph[tm.n++];
			x->heads = h;
			x->m = tm.base;
			x->m.heads = h;
			if (strcmp(argv[6], "bf16") == 0) /* bf16 projections, whatever the checkpoint stores */
				x->m.q.attn = x->m.q.mlp = x->m.q.experts = Q_NONE;
			if (tool_cost_cfg(&cc, argv[2], strcmp(argv[6], "bf16") == 0 ? DT_BF16 : DT_FP8,
					  strcmp(argv[5], "fp8") == 0 ? DT_FP8 : DT_BF16) < 0)
				return 2;
			if (cost_init(&x->c, &x->m, tm.g, &p, &cc, argv[1], &e) < 0) {
				fprintf(stderr, "dsacheck: %s\n", e.msg);
				return 1;
			}
		}
		t = cost_dsa_parts_s(&x->c, !decode, own, b, (double)k);
		x_s = cost_dsa_module_s(&x->c, !decode, own, b, (double)k);
		if (pre > 0) { /* a cached prefix: one step's chunks through the cost model */
			int64_t *len = malloc((size_t)b * sizeof(*len)), *pf = malloc((size_t)b * sizeof(*pf));
			int j;
			for (j = 0; j < b; j++) {
				len[j] = k;
				pf[j] = pre;
			}
			t = cost_mla_block_tok_s(&x->c, (double)b * (double)k, own) +
			    cost_attn_prefill_step_s(&x->c, b, len, pf) * (double)x->m.layers /
				    (double)x->m.n_mixer[LM_FULL];
			/* the term is inside the step's price: the same as at the
			 * prefix-free point of the chunks' count and length */
			t -= x_s;
			free(len);
			free(pf);
		}
		if (decode)
			printf("%d %d %lld %.3f %.3f\n", h, b, k, t * 1e6, x_s * 1e6);
		else
			printf("%d %d %lld %lld %.3f %.3f\n", h, b, k, pre, t * 1e6, x_s * 1e6);
	}
	tool_models_release(&tm);
	return 0;
}
