/* gemm.c - the dense GEMM kernel family: a GEMM's time from the measured
 * MFU tables (interpolated in m, the shape's column looked up once),
 * capped at the GPU's sustained 16-bit rate, and a weight format without a
 * table of its own priced from the bf16 kernel less the weight bytes it
 * saves; and the run header's GEMM line. */
#include <stdio.h>
#include <string.h>

#include "cost/costmodel.h"
#include "cost/kern.h"

static double gemm_table_s(const struct cost_model *c, const struct mfu_gemm_col *col, enum dtype dt,
			   double m, double n, double k, double batch)
{
	return cost_gemm_tab_s(c, c->tabs, col, dt, m, n, k, batch);
}

double cost_gemm_tab_s(const struct cost_model *c, const struct mfu_tables *tabs, const struct mfu_gemm_col *col,
		       enum dtype dt, double m, double n, double k, double batch)
{
	double flops = 2.0 * m * n * k * batch;
	double wbytes = n * k * dtype_bytes(dt) * batch, abytes = (m * k + m * n) * 2.0 * batch;
	double peak = c->g->peak_flops[dt] > 0 ? c->g->peak_flops[dt] : c->g->peak_flops[DT_BF16];
	/* weights stream sequentially, activations are the mixed pattern: the
	 * time to move both at their efficiencies, as one equivalent rate */
	double bw = (wbytes + abytes) / (wbytes / c->bw_weights + abytes / c->bw);

	double mfu = col ? mfu_gemm_col_eval(col, m) : mfu_gemm(tabs, dt, m, n, k);

	/* the GPU's sustained 16-bit GEMM rate with random operands (gpu.h
	 * gemm_max_flops): vLLM's GEMM collector times uninitialised weight
	 * memory and its compute-bound rows run up to 96 % of the peak, 10-20 %
	 * above what random weights sustain (scripts/mfu/fit_gemm_ceiling.py) */
	if ((dt == DT_BF16 || dt == DT_FP16) && c->g->gemm_max_flops > 0 && mfu * peak > c->g->gemm_max_flops)
		mfu = c->g->gemm_max_flops / peak;
	return cost_roofline_bw(c, flops, peak, mfu, wbytes + abytes, bw);
}

/* The table dtype cost_gemm_s looks dt up in. */
static enum dtype gemm_table_dt(const struct cost_model *c, enum dtype dt)
{
	return dt == DT_BF16 || dt == DT_FP16 || (dt != DT_INT4 && c->tabs->have_gemm[dt]) ? dt : DT_BF16;
}

/* cost_gemm_s with the shape's table lookup resolved once (col from
 * gemm_col for the same dt, n, k and batch; NULL: looked up here). */
double cost_gemm_col_s(const struct cost_model *c, const struct mfu_gemm_col *col, enum dtype dt, double m,
		       double n, double k, double batch)
{
	enum dtype cdt = dtype_compute(dt);
	double tb, saved, floor_s;

	if (m <= 0)
		return 0;
	if (batch > 1) {
		/* a batched GEMM (the MLA absorb BMMs over the heads) is one
		 * kernel: priced as one GEMM with the batch's outputs side by
		 * side (same FLOPs and weight bytes), not batch launches */
		n *= batch;
		batch = 1;
	}
	if (gemm_table_dt(c, dt) == dt) {
		double t = gemm_table_s(c, col, dt, m, n, k, batch);
		/* the GPU's own low-precision table (InferSim's DeepGEMM fp8 on
		 * the H20/H800) beside a borrowed bf16 one: never slower than
		 * bf16, the rule derive.py applies per shape within a collection
		 * (issue 9: fp8 >= bf16 speed for m >= 64) */
		if (dt != DT_BF16 && c->tabs->src_own[dt == DT_FP8 ? MFU_P_GEMM_FP8 : MFU_P_GEMM_FP4][0] &&
		    c->tabs->have_gemm[DT_BF16]) {
			tb = gemm_table_s(c, NULL, DT_BF16, m, n, k, batch);
			if (tb < t)
				t = tb;
		}
		return t;
	}
	/* A weight format without a measured table of its own (int4 W4A16 always;
	 * fp8/fp4 where no collection measured them): the bf16 kernel's time,
	 * less the weight streaming the narrower weights save, and never below
	 * the bf16 time scaled by the byte and peak ratios (the ideal kernel).
	 * Using the bf16 MFU directly would keep the memory-bound shapes' low
	 * utilisation and hide the saving where it matters: decode. */
	tb = gemm_table_s(c, col, DT_BF16, m, n, k, batch);
	saved = n * k * batch * (2.0 - dtype_bytes(dt)) / c->bw_weights;
	floor_s = tb * (c->g->peak_flops[DT_BF16] /
			(c->g->peak_flops[cdt] > 0 ? c->g->peak_flops[cdt] : c->g->peak_flops[DT_BF16])) *
		  dtype_bytes(dt) / 2.0;
	if (c->cfg.off & COST_H1)
		saved = 0;
	return tb - saved > floor_s ? tb - saved : floor_s;
}

double cost_gemm_s(const struct cost_model *c, enum dtype dt, double m, double n, double k,
		   double batch)
{
	return cost_gemm_col_s(c, NULL, dt, m, n, k, batch);
}

void cost_gemm_col(const struct cost_model *c, enum dtype dt, double n, double k, double batch,
		   struct mfu_gemm_col *col)
{
	mfu_gemm_col_init(c->tabs, gemm_table_dt(c, dt), batch > 1 ? n * batch : n, k, col);
}

void cost_gemm_note(struct cost_model *c)
{
	const struct mfu_tables *t = c->tabs;
	enum dtype gd = dtype_compute(c->cfg.wdt);
	enum mfu_part gp = gd == DT_FP8 ? MFU_P_GEMM_FP8 : gd == DT_FP4 ? MFU_P_GEMM_FP4 : MFU_P_GEMM_BF16;
	char note[160] = "";

	cost_part_note(c, t->src_own[gp][0] && strcmp(t->src[gp], t->src_own[gp]) == 0, note, sizeof(note));
	if (t->src[gp][0])
		snprintf(c->src[COST_SRC_GEMM], sizeof(c->src[0]), "%s %s%s%s%s", dtype_name(gd), t->src[gp],
			 c->cfg.wdt == DT_INT4 ? ", int4 weight bytes (W4A16)" : "",
			 strcmp(c->g->vendor, "amd") == 0
				 ? "; below a shape's smallest tuned m, that row's time; above its largest, "
				   "the tuned shapes around it at that m (hw/mfu.c)"
				 : "",
			 note);
	else if (t->src[MFU_P_GEMM_BF16][0])
		snprintf(c->src[COST_SRC_GEMM], sizeof(c->src[0]),
			 "%s: no %s table, bf16 utilisation %s at the %s peak%s", dtype_name(gd),
			 dtype_name(gd), t->src[MFU_P_GEMM_BF16], dtype_name(gd), note);
	else
		snprintf(c->src[COST_SRC_GEMM], sizeof(c->src[0]), "roofline, default MFU %.2f",
			 MFU_DEFAULT_GEMM);
}
