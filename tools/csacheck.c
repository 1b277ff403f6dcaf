/* csacheck.c - check tool: one DeepSeek-V4 attention block (CSA, HCA or
 * window-only layer) as servesim prices it and its parts, at the points read
 * from stdin, for comparison with aiconfigurator's measured DeepSeek-V4
 * module tables (data/mfu/check_dsv4_module.py drives it and builds it: cc
 * ... build/libservesim.a; not part of `make`).
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

#include "servesim/cost.h"

#define MAX_HEADS 8

struct per_heads {
	int heads;
	struct model_cfg m;
	struct cost_model c;
};

int main(int argc, char **argv)
{
	static struct per_heads ph[MAX_HEADS];
	char path[1200], line[256];
	struct model_registry reg;
	struct model_cfg base;
	struct gpu_db db;
	const struct gpu_spec *g;
	struct err e;
	size_t nph = 0, i;

	if (argc != 5) {
		fprintf(stderr, "usage: csacheck DATA_DIR ENGINE GPU MODEL\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/models", argv[1]);
	if (registry_load(&reg, path, &e) < 0 || registry_load_model(&reg, argv[4], &base, &e) < 0) {
		fprintf(stderr, "csacheck: %s\n", e.msg);
		return 1;
	}
	snprintf(path, sizeof(path), "%s/gpus.json", argv[1]);
	if (gpu_db_load(&db, path, &e) < 0 || gpu_find(&db, argv[3], &g, &e) < 0) {
		fprintf(stderr, "csacheck: %s\n", e.msg);
		return 1;
	}
	while (fgets(line, sizeof(line), stdin)) {
		char kind[8], phase[12];
		int h, b, mix;
		long long isl, pre;
		struct per_heads *x = NULL;
		double parts[4];

		if (sscanf(line, "%7s %11s %d %d %lld %lld", kind, phase, &h, &b, &isl, &pre) != 6 || h < 1 ||
		    b < 1 || isl < 1 || pre < 0)
			continue;
		mix = strcmp(kind, "csa") == 0 ? LM_CSA : strcmp(kind, "hca") == 0 ? LM_HCA : LM_SLIDING;
		for (i = 0; i < nph; i++)
			if (ph[i].heads == h)
				x = &ph[i];
		if (!x) {
			struct cost_cfg cc;
			struct parallel p = {1, 1, 1, 1};

			if (nph == MAX_HEADS || base.heads % h != 0) {
				fprintf(stderr, "csacheck: %d heads per GPU: not a TP split of %lld heads\n", h,
					(long long)base.heads);
				return 1;
			}
			x = &ph[nph++];
			x->heads = h;
			x->m = base;
			p.tp = (int)(base.heads / h);
			memset(&cc, 0, sizeof(cc));
			cc.wdt = DT_FP8;
			cc.kvdt = DT_FP8;
			cost_default_overheads(&cc.ov);
			cc.max_tokens = 8192;
			cc.max_seqs = 1024;
			snprintf(cc.engine, sizeof(cc.engine), "%s", argv[2]);
			if (cost_init(&x->c, &x->m, g, &p, &cc, argv[1], &e) < 0) {
				fprintf(stderr, "csacheck: %s\n", e.msg);
				return 1;
			}
		}
		cost_csa_parts(&x->c, mix, b, (double)isl, (double)pre, parts);
		printf("%s %s %d %d %lld %lld %.3f %.6g %.6g %.6g %.6g %.6g %.6g %.6g\n", kind, phase, h, b, isl, pre,
		       cost_csa_block_s(&x->c, mix, strcmp(phase, "prefill") == 0, b, (double)isl, (double)pre) * 1e6,
		       parts[0], parts[1], parts[2], parts[3], x->c.peak, x->c.attn_peak, g->hbm_bw);
	}
	for (i = 0; i < nph; i++)
		cost_release(&ph[i].c);
	registry_release(&reg);
	gpu_db_release(&db);
	return 0;
}
