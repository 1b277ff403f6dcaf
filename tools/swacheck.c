/* swacheck.c - check tool: one sliding-window attention layer priced from
 * servesim's tables two ways, for the shapes read from stdin: the dense
 * rows at the capped keys (the rule before the windowed tables) and the
 * same times the windowed tables' penalty (mfu_window_off), as cost.c
 * prices a sliding layer (its roofline's bandwidth term left out, as
 * kerncheck does).  Driven by scripts/mfu/check_window.py (which builds it
 * with tools/toolenv.c: scripts/mfu/checktool.py), not part of `make`.
 *
 * usage: swacheck DATA_DIR GPU ENGINE [HOLD_WINDOW] < shapes
 *   HOLD_WINDOW: the windowed configurations of that window are hidden
 *   (the hold-out of a measured window).
 * lines: prefill|decode H KVH HD KVDT WINDOW BATCH LEN [hold]
 *   LEN: the prefill's isl or the decode's kv_len (tokens in the sequence);
 *   hold: the windowed configuration of exactly this layout and window is
 *   hidden for this line (the hold-out of a layout).
 * prints per line: capped-dense and windowed latency in microseconds. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/registry.h"
#include "hw/gpu.h"
#include "hw/mfu.h"
#include "toolenv.h"

static double capped_pairs(double s, double w)
{
	double q0 = w < s ? w : s;

	return q0 * (q0 + 1) / 2.0 + (s - q0) * w;
}

/* Hide (sign -1) or show (sign 1) the windowed configurations of window w
 * (and of one layout when h > 0). */
static void hide(struct mfu_attn_cfg *c, size_t n, int w, int h, int kvh, int hd, enum dtype kd, int sign)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (abs(c[i].window) == w &&
		    (h <= 0 || (c[i].heads == h && c[i].kv_heads == kvh && c[i].head_dim == hd && c[i].kv_dtype == kd)))
			c[i].window = sign * w;
}

int main(int argc, char **argv)
{
	struct gpu_db db;
	const struct gpu_spec *g;
	struct mfu_tables t;
	const struct engine_type *en;
	struct err e;
	char line[512], kind[32], kv[32], flag[32];
	int hold = argc > 4 ? atoi(argv[4]) : 0;

	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: swacheck DATA_DIR GPU ENGINE [HOLD_WINDOW] < shapes\n");
		return 2;
	}
	if (tool_load_gpu("swacheck", argv[1], argv[2], &db, &g) < 0)
		return 2;
	if (engine_lookup(argv[3], &en, &e) < 0 ||
	    mfu_load(&t, argv[1], g, en->cost->name, en->cost->fallback, NULL, &e) < 0) {
		fprintf(stderr, "swacheck: %s\n", e.msg);
		return 1;
	}
	if (hold > 0) {
		hide(t.prefill_win, t.nprefill_win, hold, 0, 0, 0, DT_BF16, -1);
		hide(t.decode_win, t.ndecode_win, hold, 0, 0, 0, DT_BF16, -1);
	}
	while (fgets(line, sizeof(line), stdin)) {
		double h, kvh, hd, w, b, len, flops, lat, off = 0;
		const struct mfu_attn_cfg *dc;
		struct mfu_window win;
		enum dtype kd;
		bool pre;
		int nf;
		flag[0] = '\0';
		nf = sscanf(line, "%31s %lf %lf %lf %31s %lf %lf %lf %31s", kind, &h, &kvh, &hd, kv, &w, &b, &len, flag);
		if (nf < 8) {
			printf("nan nan\n");
			continue;
		}
		pre = strcmp(kind, "prefill") == 0;
		kd = strcmp(kv, "fp8") == 0 ? DT_FP8 : DT_BF16;
		if (strcmp(flag, "hold") == 0) {
			hide(pre ? t.prefill_win : t.decode_win, pre ? t.nprefill_win : t.ndecode_win, (int)w, (int)h,
			     (int)kvh, (int)hd, kd, -1);
		}
		dc = mfu_attn_resolve(&t, pre, (int)h, (int)kvh, (int)hd, kd);
		mfu_window_resolve(&t, pre, (int)h, (int)kvh, (int)hd, kd, (int)w, &win);
		if (pre) {
			/* b prefix-free prefills of len tokens: the dense row at the
			 * length with the same pairs (cost.c prefill_call_s) */
			double pairs = capped_pairs(len, w), eq = sqrt(2.0 * pairs);
			flops = 4.0 * b * h * hd * pairs;
			lat = flops / (mfu_attn_eval_log(&t, dc, true, log(b), eq < 1 ? 0.0 : log(eq)) *
				       g->peak_flops[DT_BF16]);
		} else {
			double keys = len < w ? len : w;
			flops = 4.0 * b * h * hd * keys;
			lat = flops / (mfu_attn_eval_log(&t, dc, false, log(b), log(keys)) * g->peak_flops[DT_BF16]);
		}
		if (win.cfg[0])
			off = mfu_window_off(&t, &win, log(b), log(len));
		printf("%.6g %.6g\n", lat * 1e6, lat * 1e6 / exp(off));
		if (strcmp(flag, "hold") == 0)
			hide(pre ? t.prefill_win : t.decode_win, pre ? t.nprefill_win : t.ndecode_win, (int)w, (int)h,
			     (int)kvh, (int)hd, kd, 1);
	}
	mfu_release(&t);
	gpu_db_release(&db);
	return 0;
}
