/* csacheck.c - check tool: one DeepSeek-V4 attention block (CSA, HCA or
 * window-only layer) as servesim prices it and its parts, at the points read
 * from stdin, for comparison with aiconfigurator's measured DeepSeek-V4
 * module tables (scripts/mfu/check_dsv4_module.py drives it and builds it with
 * tools/toolenv.c: scripts/mfu/checktool.py; not part of `make`).
 *
 * usage: csacheck DATA_DIR ENGINE GPU MODEL
 *   stdin: "csa|hca|swa decode|prefill heads batch isl prefix" (decode: each
 *   request attends prefix + 1 keys; prefill: batch prompts of isl new
 *   tokens after prefix cached ones); heads per GPU, the model run at TP =
 *   its heads / heads (the tables' emulated ranks).
 *   stdout: the same fields, the step's price of one layer's block
 *   (cost_csa_block_s, us), its parts (GEMM FLOPs at fp8 and at bf16,
 *   attention FLOPs, bytes: cost_csa_parts) and the GPU's fp8 and bf16
 *   peaks (FLOP/s) and HBM bandwidth (B/s). */
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

	if (argc != 5) {
		fprintf(stderr, "usage: csacheck DATA_DIR ENGINE GPU MODEL\n");
		return 2;
	}
	if (tool_models_load(&tm, "csacheck", argv[1], argv[4], argv[3]) < 0)
		return 1;
	while (fgets(line, sizeof(line), stdin)) {
		char kind[8], phase[12];
		int h, b, mix;
		long long isl, pre;
		struct tool_heads *x;
		double parts[4];

		if (sscanf(line, "%7s %11s %d %d %lld %lld", kind, phase, &h, &b, &isl, &pre) != 6 || h < 1 ||
		    b < 1 || isl < 1 || pre < 0)
			continue;
		mix = strcmp(kind, "csa") == 0 ? LM_CSA : strcmp(kind, "hca") == 0 ? LM_HCA : LM_SLIDING;
		if (!(x = tool_models_find(&tm, h))) {
			struct cost_cfg cc;
			struct parallel p = {1, 1, 1, 1, 0};

			if (tm.n == TOOL_MAX_HEADS || tm.base.heads % h != 0) {
				fprintf(stderr, "csacheck: %d heads per GPU: not a TP split of %lld heads\n", h,
					(long long)tm.base.heads);
				return 1;
			}
			x = &tm.ph[tm.n++];
			x->heads = h;
			x->m = tm.base;
			p.tp = (int)(tm.base.heads / h);
			if (tool_cost_cfg(&cc, argv[2], DT_FP8, DT_FP8) < 0)
				return 2;
			if (cost_init(&x->c, &x->m, tm.g, &p, &cc, argv[1], &e) < 0) {
				fprintf(stderr, "csacheck: %s\n", e.msg);
				return 1;
			}
		}
		cost_csa_parts(&x->c, mix, b, (double)isl, (double)pre, parts);
		printf("%s %s %d %d %lld %lld %.3f %.6g %.6g %.6g %.6g %.6g %.6g %.6g\n", kind, phase, h, b, isl, pre,
		       cost_csa_block_s(&x->c, mix, strcmp(phase, "prefill") == 0, b, (double)isl, (double)pre) * 1e6,
		       parts[0], parts[1], parts[2], parts[3], x->c.peak, x->c.attn_peak, tm.g->hbm_bw);
	}
	tool_models_release(&tm);
	return 0;
}
