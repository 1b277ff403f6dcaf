/* kerncheck.c - check tool: the kernel latencies servesim's tables give for
 * the shapes read from stdin, on one GPU, with or without the GPU's own
 * measurements (gpus.json "measured").  Driven by scripts/mfu/check_infersim.py
 * (which builds it with tools/toolenv.c: scripts/mfu/checktool.py), not part
 * of `make`.
 *
 * usage: kerncheck DATA_DIR GPU own|borrowed < shapes
 * lines: gemm DTYPE M N K | attn_decode|attn_prefill H KVH HD KVDT BATCH LEN |
 *        mla_decode|mla_prefill H KVDT BATCH LEN |
 *        moe FMT HIDDEN INTER TOPK EXPERTS TP EP DIST TOKENS
 * prints one latency in microseconds per line (nan when nothing prices it). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine/registry.h"
#include "cost/cost.h"
#include "hw/gpu.h"
#include "hw/mfu.h"
#include "hw/moetab.h"
#include "toolenv.h"

static double attn_flops(bool prefill, double h, double hd, double b, double len)
{
	return prefill ? 4.0 * b * h * hd * len * (len + 1) / 2 : 4.0 * b * h * hd * len;
}

int main(int argc, char **argv)
{
	struct gpu_db db;
	const struct gpu_spec *g0;
	struct gpu_spec g;
	struct mfu_tables t;
	struct err e;
	char line[512], kind[32], s1[32], s2[32];
	unsigned loaded = 0;

	if (argc != 4) {
		fprintf(stderr, "usage: kerncheck DATA_DIR GPU own|borrowed < shapes\n");
		return 2;
	}
	if (tool_load_gpu("kerncheck", argv[1], argv[2], &db, &g0) < 0)
		return 2;
	g = *g0;
	if (strcmp(argv[3], "own") != 0)
		g.measured[0] = '\0';
	if (mfu_load(&t, argv[1], &g, engine_default()->cost->name, NULL, NULL, &e) < 0) {
		fprintf(stderr, "kerncheck: %s\n", e.msg);
		return 1;
	}
	while (fgets(line, sizeof(line), stdin)) {
		double a[9] = {0};
		double lat = NAN;
		if (sscanf(line, "%31s", kind) != 1)
			continue;
		if (strcmp(kind, "gemm") == 0 &&
		    sscanf(line, "%*s %31s %lf %lf %lf", s1, &a[0], &a[1], &a[2]) == 4) {
			enum dtype dt = strcmp(s1, "fp8") == 0 ? DT_FP8 : DT_BF16;
			lat = 2.0 * a[0] * a[1] * a[2] / (mfu_gemm(&t, dt, a[0], a[1], a[2]) * g.peak_flops[dt]);
		} else if (strncmp(kind, "attn_", 5) == 0 &&
			   sscanf(line, "%*s %lf %lf %lf %31s %lf %lf", &a[0], &a[1], &a[2], s1, &a[3], &a[4]) == 6) {
			bool pre = strcmp(kind, "attn_prefill") == 0;
			enum dtype kd = strcmp(s1, "fp8") == 0 ? DT_FP8 : DT_BF16;
			const struct mfu_attn_cfg *c = mfu_attn_resolve(&t, pre, (int)a[0], (int)a[1], (int)a[2], kd);
			lat = attn_flops(pre, a[0], a[2], a[3], a[4]) /
			      (mfu_attn_eval(&t, c, pre, a[3], a[4]) * g.peak_flops[DT_BF16]);
		} else if (strncmp(kind, "mla_", 4) == 0 &&
			   sscanf(line, "%*s %lf %31s %lf %lf", &a[0], s1, &a[3], &a[4]) == 4) {
			bool pre = strcmp(kind, "mla_prefill") == 0;
			enum dtype kd = strcmp(s1, "fp8") == 0 ? DT_FP8 : DT_BF16;
			const struct mfu_attn_cfg *c = mfu_mla_resolve(&t, pre, (int)a[0], kd);
			double hd = pre ? MFU_MLA_PREFILL_DIM : MFU_MLA_DECODE_DIM;
			if (c)
				lat = attn_flops(pre, a[0], hd, a[3], a[4]) /
				      (mfu_attn_eval(&t, c, pre, a[3], a[4]) * g.peak_flops[DT_BF16]);
		} else if (strcmp(kind, "moe") == 0 &&
			   sscanf(line, "%*s %31s %lf %lf %lf %lf %lf %lf %31s %lf", s1, &a[0], &a[1], &a[2],
				  &a[3], &a[4], &a[5], s2, &a[6]) == 9) {
			enum moe_fmt f;
			enum moe_dist d;
			struct moe_shape s = {a[0], a[1], a[2], a[3], a[4], a[5]};
			struct moe_pick own, bor, *p;
			if (moe_fmt_parse(s1, &f, &e) == 0 && moe_dist_parse(s2, &d, &e) == 0) {
				if (!(loaded & (1u << d)) && mfu_load_moe(&t, &g, d, &e) == 0)
					loaded |= 1u << d;
				moetab_pick(t.moe, f, &s, d, &bor);
				moetab_pick(t.moe_own, f, &s, d, &own);
				/* cost.c's rule (MOE_OWN_MARGIN 0.3) */
				p = own.curve && (!bor.curve || own.distance <= bor.distance + 0.3) ? &own : &bor;
				if (p->curve) {
					double pk = g.peak_flops[DT_FP8] > 0 ? g.peak_flops[DT_FP8] : g.peak_flops[DT_BF16];
					lat = moetab_time_s(p, &s, a[6], pk, 1.0, g.hbm_bw);
				}
			}
		}
		printf("%.6g\n", lat * 1e6);
	}
	mfu_release(&t);
	gpu_db_release(&db);
	return 0;
}
