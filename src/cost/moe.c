/* moe.c - the routed-experts kernel family: the experts' format and the
 * measured grouped-GEMM curve chosen at cost_init (own GPU's, the engine's
 * collection, a later one that measures the format, or a sibling format's;
 * fp8 fallback paths skipped), the engine's wide-EP curves, and the price
 * of one MoE call for a number of tokens (cost_moe_s). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/paths.h"
#include "cost/costmodel.h"
#include "cost/kern.h"
#include "model/opgraph.h"

/* DeepEP's mode at tokens_per_rank.  SGLang's wide EP (deepep_mode auto)
 * runs every decode batch in low-latency mode, its buffers sized for the
 * largest decode batch (max_running_requests per rank), and prefill in
 * normal mode: with its decode kernel measured (wideep_pick[0]) a step of at
 * most max(128, max_seqs) tokens per rank is a decode step; otherwise
 * comm_a2a_mode_for's 128 tokens (DeepEP's low-latency default). */
enum comm_a2a_mode cost_ep_mode(const struct cost_model *c, double tokens_per_rank)
{
	double cap = (double)c->cfg.max_seqs > 128 ? (double)c->cfg.max_seqs : 128;

	if (c->wideep_pick[0].curve)
		return tokens_per_rank <= cap ? COMM_A2A_LOW_LATENCY : COMM_A2A_NORMAL;
	return comm_a2a_mode_for(tokens_per_rank);
}

/* aiter's fused MoE runs moe_sorting (token ids grouped by expert, one
 * kernel) before its two GEMM stages each MoE layer, and its tuner times
 * the stages only (ROCm/aiter csrc/ck_gemm_moe_2stages_codegen: the
 * tuned "us" is us1 + us2, the sorted ids made before timing), so the
 * AMD tables (data/mfu/<gpu>/aiter-*, us_total) leave the sort out; the
 * NVIDIA collections time the engines' whole fused-experts call, sort
 * included.  Measured: ROCm/FlyDSL PR 540 (2026-05-18), CK and OPUS
 * moe_sorting for DeepSeek-R1 (257 experts, top-9) on MI350X (gfx950),
 * graph replay: 13.5-13.9 us at 1-256 tokens (13.5 the median); for
 * prefill-sized token counts the same figure (10.1-23.5 us at 512 tokens,
 * a few microseconds beside a prefill MoE call of milliseconds).  MI300X
 * (gfx942) has no published figure: the one-CU sort kernel is latency-
 * bound, so gfx950's is taken. */
#define COST_AITER_MOE_SORT_S 13.5e-6

/* A MoE curve measured on the GPU itself (gpu_spec.measured: InferSim's
 * DeepGEMM grouped GEMMs) is preferred to a borrowed curve that is nearer
 * by up to this shape distance (moetab.c's units: 0.3 ~ a 35 % size
 * difference, the margin moetab_pick gives the sibling fp8 format). */
#define MOE_OWN_MARGIN 0.3

static double round_up(double x, double to)
{
	return ceil(x / to) * to;
}

/* Marlin's MoE kernel takes n % 256 == 0 and k % 128 == 0 in both GEMMs of
 * an expert (gate_up: n = 2 x intermediate, k = hidden; down: n = hidden,
 * k = intermediate), so vLLM creates the MXFP4 experts it runs on Marlin
 * padded: each GPU's intermediate share to a multiple of 128, the hidden
 * size to 256 (vllm/model_executor/layers/quantization/mxfp4.py,
 * Mxfp4MoEMethod.create_weights, Mxfp4Backend.MARLIN), and keeps them so.
 * The stored bytes (weights and their 1x32 scales alike) over the
 * checkpoint's: gpt-oss-120b on one GPU, 2880 -> 2944 x 3072, 1.090 (5.1 of
 * 56.7 GiB of experts; vLLM logs "Model loading took 65.9651 GiB" on one
 * H100, vllm-project/vllm issue 23278, against its 60.7 GiB checkpoint). */
/* Of an MXFP4 expert's bytes, the block scales': OCP Microscaling
 * Formats (MX) v1.0, MXFP4 = 32 FP4 (E2M1) elements sharing one 8-bit E8M0
 * scale, 1 byte in 16 + 1 = 17 per 32 weights. */
#define MOE_MXFP4_SCALE_SHARE (1.0 / 17.0)

static double moe_marlin_pad(const struct moe_shape *s)
{
	double i = s->inter / s->tp, h = s->hidden;

	if (i <= 0 || h <= 0)
		return 1.0;
	return round_up(i, 128) * round_up(h, 256) / (i * h);
}

/* The shape Marlin computes: the padded experts, and the hidden states
 * padded to their width before the kernel (vLLM's FusedMoE.forward_native,
 * vllm/model_executor/layers/fused_moe/layer.py: F.pad of the hidden
 * states to the layer's hidden_size, which create_weights padded, and the
 * output cut back), so the padded rows and columns are multiplied as any
 * other: gpt-oss's 2880 x 2880 experts run as 3072 x 2944, 1.090x the
 * checkpoint's FLOPs and weight bytes at TP 1, 3072 x 1536 per GPU at TP 2
 * (1.138x).  A curve of another shape is priced on this shape's roofline
 * (the collections' int4 rows are of aligned shapes that Marlin runs
 * unpadded); an exact shape keeps its measured curve. */
static struct moe_shape moe_marlin_shape(const struct moe_shape *s)
{
	struct moe_shape r = *s;

	if (s->inter > 0 && s->hidden > 0) {
		r.hidden = round_up(s->hidden, 256);
		r.inter = round_up(s->inter / s->tp, 128) * s->tp;
	}
	return r;
}

static enum moe_fmt moe_fmt_of(enum dtype dt, const struct model_cfg *m)
{
	switch (dt) {
	case DT_FP8:
		/* published fp8 MoE checkpoints (DeepSeek-V3/R1, Qwen3-*-FP8,
		 * MiniMax) store 128x128 block scales; a bf16 checkpoint
		 * quantised by the engine gets per-tensor scales */
		return m->q.experts == Q_FP8_BLOCK ? MOE_FP8_BLOCK : MOE_FP8;
	case DT_FP4: return m->q.experts == Q_MXFP4 ? MOE_MXFP4 : MOE_FP4;
	case DT_INT4: return m->q.experts == Q_MXFP4 ? MOE_MXFP4 : MOE_INT4;
	default: return MOE_BF16;
	}
}

/* The format the experts run in when f (a source's label or --moe-format)
 * names per-tensor fp8 for a checkpoint that stores block-scaled fp8
 * experts: the engine reads the checkpoint's block scales and runs its
 * block-scaled kernel, so where its own collection times that kernel
 * (cost_engine.fp8_block_moe_family), or where the launch names the
 * engine's MoE backend (cost_cfg.moe_backend: each of TensorRT-LLM's
 * backends takes the checkpoint's block scales), it prices them; elsewhere
 * f as given
 * (per-tensor fp8 then takes the faster of the two measured fp8 curves,
 * moe_dist_s).  Until 2026-11-30 the silicon rows' "moe=fp8" label priced
 * TensorRT-LLM's DeepSeek experts on H200 with the per-tensor kernel
 * wherever it was faster: 76 against 140 us at 4 tokens, TP 8 (P/D decode
 * ITL -18 % signed, eval/silicon/HARNESS.md "pd9"). */
static enum moe_fmt moe_block_checkpoint(const struct cost_cfg *cfg, const struct model_cfg *m,
					  const struct gpu_spec *g, enum moe_fmt f)
{
	const char *fam = cfg->engine ? cfg->engine->fp8_block_moe_family : NULL;

	if (f == MOE_FP8 && m->q.experts == Q_FP8_BLOCK &&
	    ((fam && strcmp(fam, g->family) == 0) || cfg->moe_backend != MOE_BACKEND_DEFAULT))
		return MOE_FP8_BLOCK;
	return f;
}

/* The dtype the experts run in when --moe-format names their format. */
static enum dtype moe_fmt_dtype(enum moe_fmt f, const struct gpu_spec *g)
{
	switch (f) {
	case MOE_FP8: case MOE_FP8_BLOCK: return DT_FP8;
	case MOE_FP4: case MOE_MXFP4: return g->peak_flops[DT_FP4] > 0 ? DT_FP4 : DT_INT4;
	case MOE_INT4: return DT_INT4;
	default: return DT_BF16;
	}
}

/* moetab_pick for this model's experts, with a tail where the nearest
 * curve stops short of its largest step (cost_cfg.max_tokens,
 * max_num_batched_tokens) or of MOE_REACH_TOKENS, whichever is smaller:
 * past the nearest curve's last point, the nearest curve measured that far
 * (moetab_pick_reach), not the nearest held at an efficiency measured at a
 * few tokens.  Held out on the kernel tables (scripts/mfu/check_moe_reach.py:
 * each model shape priced from the others, power law 1.01, reach 8,192,
 * NVIDIA and AITER tables): on the 1,636 points whose lookup this changes
 * (vLLM 0.14.0's Marlin int4 curves at EP > 1 on H100/H200, which stop at
 * 1-160 tokens, a few of vLLM 0.19/0.24's and TensorRT-LLM 1.2's on B200,
 * AITER's mxfp4 at 128), median |log(pred/meas)| at 2,048-16,384 tokens
 * 0.604 -> 0.129 (signed -0.512 -> -0.018: 40 % too fast before), 257-2,047
 * 0.136 -> 0.092, 17-256 0.119 -> 0.111, 1-16 0.211 -> 0.193; the
 * held-out curves that are themselves cut short keep the nearest's price
 * within its range (0.098 -> 0.098 at 1-16 tokens; replacing the nearest
 * everywhere gives 0.493). */
/* A curve measured to 16,384 tokens (every NVIDIA collection's sweep) is at
 * its plateau: from 16,384 to 32,768 tokens the tables' efficiencies change
 * by a median x0.972 (791 curves, p10-p90 0.85-1.07; 8,192 -> 16,384 x0.909),
 * so it is held, not followed by another shape (AITER's MI300X curves end at
 * 16,384 or 32,768 tokens). */
#define MOE_REACH_TOKENS 16384.0

static void moe_pick_in(const struct cost_model *c, const struct moetab *t, enum moe_fmt f,
			struct moe_pick *pick)
{
	double reach = (double)c->cfg.max_tokens;

	moetab_pick_reach(t, f, &c->moe_shape, c->cfg.moe_dist, reach < MOE_REACH_TOKENS ? reach : MOE_REACH_TOKENS,
			  pick);
}

/* The engine's wide-EP kernels (cost.h wideep_pick; cost_engine.wideep):
 * the GPU's own measurements (data/mfu/wideep/<wideep>/<gpu id>-{decode,
 * prefill}.csv.gz; SGLang's, derived by scripts/mfu/derive_wideep.mjs from
 * aiconfigurator's SGLang 0.5.10 DeepEP collections; tokens = all EP
 * ranks' tokens).  Only fp8_block was
 * collected: another format takes that curve's efficiency on its own
 * roofline (the run header says "derived"). */
/* A wide-EP curve is used unless the fused tables hold a shape nearer by
 * more than this (moetab.c's log distance): 0.7 covers one factor of 2 in
 * EP (ln 2 = 0.693), so DeepSeek-V3 at an EP the wide-EP collection skipped
 * (EP 8 on B200/GB200, between its EP 4 and 16) keeps it, while smaller
 * models (Qwen3-235B-A22B 1.41, Qwen3-30B-A3B 2.31 from DeepSeek's curve)
 * keep the fused tables: from DeepSeek's curve Qwen3-30B-A3B's SGLang DP+EP
 * row (golden eval_aic_vllm_sglang) came out 6 % slower. */
#define WIDEEP_MARGIN 0.7

int cost_moe_wideep_load(struct cost_model *c, const char *data_dir, struct err *e)
{
	static const char *const phase[2] = {"decode", "prefill"};
	const struct gpu_spec *g = c->g;
	struct gpu_spec own;
	char path[1100];
	int rc, k;

	if (c->m->n_experts <= 0 || c->p.dp <= 1 || c->p.ep <= 1 || !c->cfg.engine->wideep)
		return 0;
	own = *g; /* measured on this GPU itself */
	memcpy(own.table_peak, g->peak_flops, sizeof(own.table_peak));
	own.table_hbm_bw = g->hbm_bw;
	for (k = 0; k < 2; k++) {
		snprintf(path, sizeof(path), "%s/mfu/wideep/%s/%s-%s.csv.gz", data_dir, c->cfg.engine->wideep,
			 g->id, phase[k]);
		if (!paths_exists(path))
			continue;
		if ((rc = moetab_load(path, &own, &c->wideep_tab[k], e)) < 0)
			return rc;
		moe_pick_in(c, c->wideep_tab[k], c->moe_fmt, &c->wideep_pick[k]);
		if (!c->wideep_pick[k].curve)
			moe_pick_in(c, c->wideep_tab[k], MOE_FP8_BLOCK, &c->wideep_pick[k]);
		/* only DeepSeek-V3's shape was collected: a model the fused
		 * tables measured nearer keeps them (Qwen3-30B-A3B on H100 came
		 * out 6 % slower on its SGLang DP+EP row from DeepSeek's curve) */
		if (c->wideep_pick[k].curve && c->moe_pick.curve &&
		    c->wideep_pick[k].distance > c->moe_pick.distance + WIDEEP_MARGIN)
			memset(&c->wideep_pick[k], 0, sizeof(c->wideep_pick[k]));
	}
	return 0;
}

/* One measured MoE curve's time for tokens, its experts in weight dtype wdt.
 * The curve's efficiency is relative to the roofline moetab normalised it
 * with (moe_fmt_rates of its format), so a curve of the experts' own width
 * is priced on that roofline: an exact shape gives its measured latency
 * back.  Until 2026-11-27 the target dtype's peak was used, and MXFP4
 * curves (normalised at the bf16 peak: W4A16 math) were priced at the fp4
 * peak on Blackwell: gpt-oss-120b's experts on B200 (TensorRT-LLM 1.3, tp1
 * ep1, 8,192 tokens) came out 457 us against the measured 1,045 us, an
 * exact shape, wherever the kernel is compute-bound (>= ~3k tokens).  A
 * curve of another width (SGLang's wide-EP fp8_block curve for NVFP4
 * experts) is priced on the target's own roofline (derived, as the run
 * header says).  Wherever the roofline is not the curve's own (another
 * shape, width or GPU) the curve's fixed latency is kept as measured and
 * only the rest scales (moetab_time_s). */
static double moe_pick_s(const struct cost_model *c, const struct moe_pick *pick, enum dtype wdt,
			 double tokens)
{
	enum dtype cdt = dtype_compute(wdt);
	double pk = c->g->peak_flops[cdt] > 0 ? c->g->peak_flops[cdt] : c->g->peak_flops[DT_BF16];
	double bpp = dtype_bytes(wdt), cpk, cbpp, t, cap;
	const struct moe_shape *run;

	moe_fmt_rates(pick->fmt, c->g->peak_flops, &cpk, &cbpp);
	if (cbpp == bpp)
		pk = cpk;
	/* a curve measured on another shape or kernel carries its efficiency
	 * to the shape this model's kernel computes (moe_run) */
	run = pick->distance > 0 || pick->fmt != c->moe_fmt ? &c->moe_run : &c->moe_shape;
	t = moetab_time_s(pick, run, tokens, pk, bpp, c->g->hbm_bw);
	cap = moetab_bound_s(pick, tokens, pk, bpp, c->g->hbm_bw);
	return cap < t ? cap : t;
}

/* The alternatives of an fp8 pick from table mt, at a shape no farther
 * than the pick's: [0] the same experts' bf16 kernel, [1] for per-tensor
 * fp8 the block-scaled one (curve NULL: none). */
#define MOE_PROBE_LOG2 13 /* moe_fallback_measured's token counts: 1 .. 8192 */

static void moe_pick_alts(const struct cost_model *c, const struct moetab *mt, const struct moe_pick *pick,
			  struct moe_pick alt[2])
{
	int k;

	memset(alt, 0, 2 * sizeof(alt[0]));
	moe_pick_in(c, mt, MOE_BF16, &alt[0]);
	if (c->moe_fmt == MOE_FP8)
		moe_pick_in(c, mt, MOE_FP8_BLOCK, &alt[1]);
	for (k = 0; k < 2; k++)
		if (alt[k].curve && (alt[k].curve == pick->curve || alt[k].distance > pick->distance + 1e-9 ||
				     alt[k].fmt != (k ? MOE_FP8_BLOCK : MOE_BF16)))
			memset(&alt[k], 0, sizeof(alt[k]));
}

/* Whether an fp8 curve measured a fallback path rather than the engine's
 * fp8 kernel: slower than the same table's bf16 kernel of the same shape
 * at most of the token counts 1..8192 (powers of two).  Every collection
 * we hold times fp8 experts at 0.6-0.9x bf16 (median over the shapes both
 * measure), except vLLM 0.24's per-tensor fp8 rows on H100 and H200:
 * 2.2x and 2.9x, FlashInfer's ModelOpt path (README "fp8"). */
static bool moe_fallback_measured(const struct cost_model *c, const struct moe_pick *pick,
				  const struct moe_pick *bf16)
{
	int i, slower = 0;

	if (!pick->curve || !bf16->curve)
		return false;
	for (i = 0; i <= MOE_PROBE_LOG2; i++) {
		double tok = ldexp(1.0, i);
		if (moe_pick_s(c, pick, c->moe_wdt, tok) > moe_pick_s(c, bf16, DT_BF16, tok))
			slower++;
	}
	return 2 * slower > MOE_PROBE_LOG2 + 1;
}

/* The pick's table measured a fallback path for this format
 * (moe_fallback_measured): take the format from the next collection in
 * the fallback order (same engine by version distance first) whose curve
 * of this shape, no farther than the pick, is not itself a fallback;
 * vLLM 0.24's per-tensor fp8 experts on H100/H200 come from vLLM 0.14.0's
 * Triton fp8 kernel (what `--quantization fp8` on a bf16 checkpoint runs).
 * The later collection's own bf16 curve only vets it (its fp8 must not be a
 * fallback either).  Without one, the experts are priced as the bf16 kernel, and the header
 * says so (moe_as_bf16). */
static void moe_skip_fallback(struct cost_model *c)
{
	size_t k;

	c->moe_fallback_of = c->moe_more + 1;
	for (k = c->moe_more; k < c->tabs->nmoe_more; k++) {
		const struct moetab *mt = c->tabs->moe_more[k];
		struct moe_pick p, alt[2];
		if (!mt)
			continue;
		moe_pick_in(c, mt, c->moe_fmt, &p);
		if (!p.curve || p.distance > c->moe_pick.distance + 1e-9)
			continue;
		moe_pick_alts(c, mt, &p, alt);
		if (moe_fallback_measured(c, &p, &alt[0]))
			continue;
		/* the alternatives stay those of the engine version's own
		 * table: fp8 no slower than that version's bf16 kernel */
		c->moe_pick = p;
		c->moe_more = k + 1;
		return;
	}
	c->moe_as_bf16 = true;
}

/* TensorRT-LLM's TRTLLM MoE backend (TRTLLMGenFusedMoE) runs block-scaled
 * fp8 experts on its trtllm-gen kernels, which TensorRT-LLM's own
 * collections never time: their fp8_block rows on Blackwell are DeepGEMM,
 * which is also what DEEPGEMM, CUTLASS and WIDEEP run for block scales on
 * SM100 (fused_moe_cutlass.py, fused_moe_wide_ep.py: DeepSeekFP8Block
 * ScalesFusedMoEMethodDeepGemm there).  FlashInfer's
 * trtllm_fp8_block_scale_moe launches the same trtllm-gen kernels, and
 * SGLang 0.5.14's B200 collection times it (moe_trtllm_gen.csv.gz,
 * scripts/mfu/derive.py MOE_KERNELS): DeepSeek's experts at 8,192 tokens,
 * MoE TP 8, 1,308 us against DeepGEMM's 1,727; at EP 8 2,494 against 762
 * (eval/silicon/HARNESS.md, "moe"). */
#define MOE_TRTLLM_GEN_FILE "moe_trtllm_gen.csv.gz"

int cost_moe_backend_load(struct cost_model *c, const char *data_dir, struct err *e)
{
	char path[1000], src[112];
	const struct moetab *t = NULL;
	struct moe_pick p;
	int rc;

	if (c->cfg.moe_backend != MOE_BACKEND_TRTLLM || c->moe_fmt != MOE_FP8_BLOCK ||
	    strcmp(c->g->family, "blackwell") != 0 || (c->cfg.tier2 && c->cfg.tier2->tables[0]))
		return 0;
	if (!mfu_find_file(data_dir, c->g, cost_engine_tables(c->cfg.engine, c->g), c->cfg.engine->fallback,
			   c->cfg.engine_version, MOE_TRTLLM_GEN_FILE, path, sizeof(path), src, sizeof(src)))
		return 0;
	if (c->cfg.cache)
		rc = mfu_cache_moetab(c->cfg.cache, path, c->g, c->cfg.moe_dist, &t, e);
	else if ((rc = moetab_load_dist(path, c->g, c->cfg.moe_dist, &c->backend_tab, e)) == 0)
		t = c->backend_tab;
	if (rc < 0)
		return rc;
	moe_pick_in(c, t, MOE_FP8_BLOCK, &p);
	if (!p.curve || p.fmt != MOE_FP8_BLOCK)
		return 0;
	/* the named kernel runs: no other kernel of the collections is taken
	 * where it would be faster */
	c->moe_pick = p;
	memset(c->moe_alt, 0, sizeof(c->moe_alt));
	c->moe_own = false;
	c->moe_more = 0;
	c->moe_fallback_of = 0;
	c->moe_as_bf16 = false;
	c->moe_unseen_s = 0;
	c->moe_unseen_quant = false;
	snprintf(c->moe_backend_src, sizeof(c->moe_backend_src), "%s", src);
	return 0;
}

/* 4-bit weight-only experts (W4A16: int4, MXFP4 on Marlin) where no
 * collection times them: the GPU's own bf16 fused-MoE kernel of the
 * nearest shape (c->moe_w4a16), less the time the 4-bit weights of the
 * touched experts save streaming at the weight bandwidth, and never below
 * the bf16 time scaled by the byte ratio: the rule cost_gemm_col_s applies
 * to the dense W4A16 GEMMs.  Marlin dequantises in registers and runs the
 * 16-bit tensor-core MMA (Frantar et al., "MARLIN", PPoPP 2025, arXiv
 * 2408.11743: near the 4x byte saving while memory-bound, about 16-bit
 * speed when compute-bound), so it saves bytes, not math.  Checked where
 * both are measured, vLLM 0.14.0's vllm_marlin_moe int4 rows against the
 * same collection's vllm_fused_moe bf16 rows (every shape, 1-16,384 tokens;
 * scripts/mfu/check_w4a16_moe.py): predicted / measured median 0.90 on
 * H100 (1,350 rows, p10 0.57, p90 1.37) and 0.76 on H200 (1,349), where the
 * roofline at the default MFU and bw_eff that priced them until 2026-12-01
 * gives 0.48 and 0.41 (0.33-0.40 from 1,000 tokens up; the check's shapes
 * are aligned, so Marlin pads none of them).  The bf16 curve is priced at
 * the shape Marlin computes (moe_run: MXFP4 experts padded,
 * moe_marlin_shape). */
static double moe_w4a16_s(const struct cost_model *c, double tokens)
{
	double bpp = dtype_bytes(c->moe_wdt);
	double tb = moe_pick_s(c, &c->moe_w4a16, DT_BF16, tokens);
	double saved = moe_roofline_s(&c->moe_run, tokens, INFINITY, 2.0, c->bw_weights) -
		       moe_roofline_s(&c->moe_run, tokens, INFINITY, bpp, c->bw_weights);
	double floor_s = tb * bpp / 2.0;

	if (c->cfg.off & COST_H1)
		saved = 0;
	return tb - saved > floor_s ? tb - saved : floor_s;
}

/* DeepGEMM's contiguous grouped GEMM as vLLM 0.11.1-0.12 runs block-fp8
 * routed experts on Hopper (cost_cfg.moe_dg_padded, engine/vllm.c): the
 * experts' rows are laid out in a workspace of M_sum = round_up(tokens x
 * top_k + E_local x 127, 128) rows, the worst case of every local expert's
 * rows padded to DeepGEMM's 128-row alignment, because the expert counts
 * are not on the CPU (deep_gemm_utils.py compute_aligned_M).
 * deepgemm_moe_permute fills the rows' expert ids (m_indices) from
 * torch.zeros there, so the rows past the experts' aligned segments belong
 * to expert 0, and DeepGEMM's scheduler computes every 128-row block whose
 * id is >= 0 (deep_gemm/include/deep_gemm/common/scheduler.cuh,
 * is_computation_valid, in ea9c5d9, which vLLM's tools/install_deepgemm.sh
 * pinned in 2025, as in 477618c of 2026): both grouped GEMMs run over all M_sum
 * rows, and the SiLU-and-quantise pass between them reads and writes them
 * all.  vLLM PR 30494 (merged 2025-12-11, "DeepGEMM uses negative values in
 * m_indices ... to mark completely invalid / padded blocks") fills them
 * with -1 from 0.13.  Priced as the two fp8 GEMMs of M_sum rows on the
 * GEMM tables (gate_up: n = 2 x I / tp, k = H; down: n = H, k = I / tp),
 * no faster than streaming the touched experts' weights, plus the
 * elementwise pass (2 x I / tp bf16 in, I / tp fp8 out per row).  MiniMax-M2
 * at TP 4 (256 experts, I / tp = 384) decodes with M_sum = 32,640 rows
 * whatever the batch: 231 GFLOP a layer. */
#define MOE_DG_ALIGN 128.0

static double moe_dg_padded_s(const struct cost_model *c, double tokens)
{
	const struct moe_shape *s = &c->moe_shape;
	double e_local = s->experts / s->ep, i_local = s->inter / s->tp;
	double rows = round_up(tokens * s->topk + e_local * (MOE_DG_ALIGN - 1), MOE_DG_ALIGN);
	double touched = moe_expected_experts(e_local, s->experts, tokens * s->topk);
	double wbytes = touched * 3.0 * s->hidden * i_local * dtype_bytes(c->moe_wdt) * c->moe_pad;
	double t = cost_gemm_s(c, DT_FP8, rows, 2.0 * i_local, s->hidden, 1) +
		   cost_gemm_s(c, DT_FP8, rows, s->hidden, i_local, 1);

	if (wbytes / c->bw_weights > t)
		t = wbytes / c->bw_weights;
	return t + rows * i_local * (2.0 * 2.0 + 1.0) / c->bw + COST_LAUNCH_S;
}

/* The routed experts' kernel on the tables' routing (cost_cfg.moe_dist)
 * at tokens, DeepEP's mode that of mode_tokens. */
static double moe_dist_s(const struct cost_model *c, double tokens, double mode_tokens)
{
	enum dtype cdt = dtype_compute(c->moe_wdt);
	double pk = c->g->peak_flops[cdt] > 0 ? c->g->peak_flops[cdt] : c->g->peak_flops[DT_BF16];
	double bpp = dtype_bytes(c->moe_wdt);

	if (tokens <= 0)
		return 0;
	if (c->moe_dg_pad)
		return moe_dg_padded_s(c, tokens);
	if (c->wideep_pick[0].curve || c->wideep_pick[1].curve) {
		const struct moe_pick *w =
			&c->wideep_pick[cost_ep_mode(c, mode_tokens / (double)c->p.dp) == COMM_A2A_LOW_LATENCY ? 0 : 1];
		if (w->curve)
			return moe_pick_s(c, w, c->moe_wdt, tokens);
	}
	if (c->moe_pick.curve) {
		double t = moe_pick_s(c, &c->moe_pick, c->moe_wdt, tokens), a;
		double unseen = c->moe_unseen_s +
				(c->moe_unseen_quant ? cost_aiter_quant_s(c, tokens, c->moe_shape.hidden) : 0);
		/* fp8 experts never slower than the same shape's bf16 kernel,
		 * per-tensor fp8 never slower than the block-scaled one: an
		 * engine whose measured fp8 backend loses picks another (as
		 * for the fp8 GEMMs, README "fp8") */
		if (c->moe_alt[0].curve && (a = moe_pick_s(c, &c->moe_alt[0], DT_BF16, tokens)) < t)
			t = a;
		if (c->moe_alt[1].curve && (a = moe_pick_s(c, &c->moe_alt[1], c->moe_wdt, tokens)) < t)
			t = a;
		return t + unseen;
	}
	if (c->moe_w4a16.curve)
		return moe_w4a16_s(c, tokens);
	/* no table: the kernel's roofline at the default GEMM utilisation and
	 * the weight-streaming bandwidth, plus one launch */
	return moe_roofline_s(&c->moe_run, tokens, pk * MFU_DEFAULT_GEMM, bpp, c->bw_weights) +
	       COST_LAUNCH_S;
}

double cost_moe_s(const struct cost_model *c, double tokens)
{
	const struct cost_eplb *x = c->eplb;

	if (!x || tokens <= 0)
		return moe_dist_s(c, tokens, tokens);
	/* the hottest rank's rows under EPLB, priced where the tables'
	 * hottest rank carries them (eplb.h); DeepEP's mode stays the step's */
	return moe_dist_s(c, tokens * eplb_curve_scale(&x->curve, tokens), tokens) + x->layer_s;
}

void cost_eplb_init(struct cost_model *c, const struct cost_cfg *given)
{
	const struct model_cfg *m = c->m;
	struct cost_eplb *x = xcalloc(1, sizeof(*x));
	int64_t interval = c->cfg.eplb_interval > 0 ? c->cfg.eplb_interval : 1;

	c->eplb = x;
	eplb_curve_init(&x->curve, c->cfg.moe_dist, (int)m->n_experts, (int)m->top_k, c->p.ep, c->p.ep_redundant);
	x->bytes_gpu = eplb_redundant_bytes(m, &c->p, given->wdt, c->p.ep_redundant);
	x->link_bw = c->place.ep_cross ? c->place.net_bw : c->place.nvlink_bw;
	x->move_s = x->link_bw > 0 ? x->bytes_gpu / (x->link_bw * COMM_LINK_EFF) : 0;
	x->moe_layers = (int)((m->n_moe_layers + c->p.pp - 1) / c->p.pp);
	x->layer_s = x->moe_layers > 0 && !c->cfg.eplb_async ? x->move_s / ((double)interval * x->moe_layers) : 0;
}

/* The routed experts' shape, format and measured curves (cost_init, for
 * an MoE model): see each choice below. */
void cost_moe_init(struct cost_model *c, const struct cost_cfg *cfg)
{
	const struct model_cfg *m = c->m;
	const struct parallel *p = &c->p;
	const struct gpu_spec *g = c->g;
	size_t k;

	/* the experts are split EP ways and TP-sharded over the rest of the
	 * TP x DP GPUs that share the MoE layers (attention-DP).  A latent
	 * MoE (Kimi-K3, Nemotron-3-Super) runs its routed experts at the
	 * latent width, as the tables measure them (vLLM 0.24's Kimi-K3
	 * rows are 3584 x 3072): until 2026-11-27 the model's hidden size
	 * was used, so Kimi-K3 on H200 took its own curve at twice the
	 * width (135 us at one token against the measured 68 us) */
	bool ep = p->ep > 1;
	double mtp = (double)(p->tp * p->dp) / (ep ? p->ep : 1);
	double mh = (double)(m->moe_latent > 0 ? m->moe_latent : m->hidden);
	c->moe_shape = (struct moe_shape){mh, (double)m->moe_intermediate,
					  (double)m->top_k, (double)m->n_experts,
					  mtp < 1 ? 1 : mtp, ep ? (double)p->ep : 1.0};
	c->moe_run = c->moe_shape;
	if (cfg->moe_format > 0) {
		c->moe_fmt = moe_block_checkpoint(cfg, m, g, (enum moe_fmt)(cfg->moe_format - 1));
		c->moe_wdt = moe_fmt_dtype(c->moe_fmt, g);
		if (c->moe_wdt == DT_INT4) /* 4-bit experts without fp4 tensor cores: W4A16 */
			c->moe_fmt = MOE_INT4;
	} else {
		c->moe_fmt = moe_fmt_of(c->moe_wdt, m);
	}
	/* MXFP4 experts on the engine's Marlin W4A16 kernel (cost_cfg.
	 * mxfp4_marlin): the collections' int4 rows time that kernel (every
	 * int4 row of the Hopper collections is Marlin: aiconfigurator's
	 * vllm_marlin_moe, vllm_..._marlinexperts and sglang_marlin_moe), on
	 * the same roofline (4-bit weights, bf16 math).  Their MXFP4 rows time
	 * what newer versions run (vLLM 0.24's OAI Triton matmul_ogs): 2x
	 * faster than Marlin from ~1k tokens up (H100, 8,192 tokens: 411-528
	 * TFLOP/s for gpt-oss's shapes against Marlin's 211-255 on int4 and
	 * 206 on MXFP4 shapes) */
	c->moe_pad = 1.0;
	if (cfg->mxfp4_marlin && c->moe_fmt == MOE_MXFP4) {
		c->moe_fmt = MOE_INT4;
		c->moe_marlin = true;
		c->moe_pad = moe_marlin_pad(&c->moe_shape);
		c->moe_run = moe_marlin_shape(&c->moe_shape);
	} else if (cfg->mxfp4_scales_kept && c->moe_fmt == MOE_MXFP4) {
		/* OCP MX: one 8-bit E8M0 scale per 32 FP4 values, 1 of the 17
		 * bytes per 32 weights; a second copy of the scales */
		c->moe_pad = 1.0 + MOE_MXFP4_SCALE_SHARE;
	}
	moe_pick_in(c, c->tabs->moe, c->moe_fmt, &c->moe_pick);
	/* a collection without this format's rows (vLLM 0.14.0 has no
	 * MXFP4 experts): the next one in the fallback order that
	 * measures it (mfu_tables.moe_more), before any roofline */
	for (k = 0; !c->moe_pick.curve && c->tabs->moe && k < c->tabs->nmoe_more; k++) {
		moe_pick_in(c, c->tabs->moe_more[k], c->moe_fmt, &c->moe_pick);
		if (c->moe_pick.curve)
			c->moe_more = k + 1;
	}
	/* a collection with only the sibling format (nvfp4 for mxfp4, or
	 * fp8_block for fp8) runs other kernels: a later collection that
	 * measures the format itself wins (vLLM 0.19.0 on B200 keeps no
	 * MXFP4 rows, scripts/mfu/derive.py MOE_NOT_DISPATCHED, so gpt-oss
	 * on vLLM 0.15-0.19 takes 0.24.0's MXFP4 curves, not its NVFP4) */
	if (c->moe_pick.curve && c->moe_pick.fmt != c->moe_fmt)
		for (k = 0; k < c->tabs->nmoe_more; k++) {
			struct moe_pick alt;
			char same[40];
			/* of the same engine only: another engine's kernels
			 * for the format are no nearer to what this one runs */
			snprintf(same, sizeof(same), "/%.20s-", c->tabs->engine);
			if (!strstr(c->tabs->moe_more_src[k], same))
				continue;
			moe_pick_in(c, c->tabs->moe_more[k], c->moe_fmt, &alt);
			if (alt.curve && alt.fmt == c->moe_fmt) {
				c->moe_pick = alt;
				c->moe_more = k + 1;
				break;
			}
		}
	if (c->tabs->moe_own) {
		/* the GPU's own measured curves win unless a borrowed one is
		 * a much nearer shape (MOE_OWN_MARGIN) */
		struct moe_pick own;
		moe_pick_in(c, c->tabs->moe_own, c->moe_fmt, &own);
		if (own.curve && (!c->moe_pick.curve ||
				  own.distance <= c->moe_pick.distance + MOE_OWN_MARGIN)) {
			c->moe_pick = own;
			c->moe_own = true;
			c->moe_more = 0;
		}
	}
	if (c->moe_pick.curve && (c->moe_fmt == MOE_FP8 || c->moe_fmt == MOE_FP8_BLOCK)) {
		const struct moetab *mt = c->moe_own ? c->tabs->moe_own
				       : c->moe_more ? c->tabs->moe_more[c->moe_more - 1] : c->tabs->moe;
		moe_pick_alts(c, mt, &c->moe_pick, c->moe_alt);
		if (!c->moe_own && moe_fallback_measured(c, &c->moe_pick, &c->moe_alt[0]))
			moe_skip_fallback(c);
	}
	/* 4-bit weight-only experts no collection times (A100: vLLM runs
	 * gpt-oss's MXFP4 experts on Marlin, its collection measures bf16
	 * experts only): the GPU's own bf16 curve less the bytes saved
	 * (moe_w4a16_s) */
	memset(&c->moe_w4a16, 0, sizeof(c->moe_w4a16));
	if (!c->moe_pick.curve && c->moe_fmt == MOE_INT4 && c->tabs->moe) {
		moe_pick_in(c, c->tabs->moe, MOE_BF16, &c->moe_w4a16);
		if (c->moe_w4a16.curve && c->moe_w4a16.fmt != MOE_BF16)
			memset(&c->moe_w4a16, 0, sizeof(c->moe_w4a16));
	}
	/* vLLM's DeepGEMM path over its padded workspace (moe_dg_padded_s) */
	c->moe_dg_pad = cfg->moe_dg_padded && c->moe_fmt == MOE_FP8_BLOCK && !(cfg->tier2 && cfg->tier2->tables[0]);
	/* a curve from AMD's tuned tables: the sort (and fp8's input quant)
	 * they leave out */
	if (c->moe_pick.curve && !c->moe_own &&
	    strstr(c->moe_more ? c->tabs->moe_more_src[c->moe_more - 1] : c->tabs->src[MFU_P_MOE], "/aiter-")) {
		c->moe_unseen_s = COST_AITER_MOE_SORT_S;
		/* fused_moe quantises a bf16 input per 1x128 (its quant_func,
		 * aiter/fused_moe.py) before the fp8 kernel (aiterquant.c); the
		 * MXFP4 path fuses its quant into the sort (InferenceX#1005's
		 * MI355X profile: "fused quant+sort"), priced with it */
		c->moe_unseen_quant = c->moe_fmt == MOE_FP8 || c->moe_fmt == MOE_FP8_BLOCK;
	}
}

void cost_moe_note(struct cost_model *c)
{
	const struct mfu_tables *t = c->tabs;
	char note[160] = "";
	int k;

	cost_part_note(c, c->moe_own, note, sizeof(note));
	if (!c->moe_own && c->g->tables_of[0] && c->moe_pick.curve) /* moetab_time_s on another GPU */
		snprintf(note, sizeof(note), " (%.40s's fixed %.0f us kept, the rest at its roofline efficiency on %.40s)",
			 c->g->tables_of, c->moe_pick.fixed_s * 1e6, c->g->id);
	if (c->m->n_experts > 0) {
		char fixed[48] = "", why[200] = "", alt[240];
		const char *fmt = moe_fmt_name(c->moe_fmt);
		const char *alts = c->moe_alt[0].curve && c->moe_alt[1].curve ? "its bf16 and fp8_block curves"
				   : c->moe_alt[0].curve ? "its bf16 curve"
				   : c->moe_alt[1].curve ? "its fp8_block curve" : NULL;
		if (c->moe_pick.distance > 0)
			snprintf(fixed, sizeof(fixed), ", its fixed %.0f us kept", c->moe_pick.fixed_s * 1e6);
		if (c->moe_backend_src[0])
			snprintf(why, sizeof(why), " (MoE backend TRTLLM: TensorRT-LLM's trtllm-gen kernels, which its own collections do not time, timed through FlashInfer)");
		else if (c->moe_fallback_of > 0 && !c->moe_as_bf16)
			snprintf(why, sizeof(why), " (%.60s's %s rows of this shape run slower than its bf16 kernel: a fallback path)",
				 c->moe_fallback_of == 1 ? t->src[MFU_P_MOE] : t->moe_more_src[c->moe_fallback_of - 2], fmt);
		else if (c->moe_more)
			snprintf(why, sizeof(why), " (%.60s has no rows of this format)", t->src[MFU_P_MOE]);
		alt[0] = '\0';
		if (c->moe_as_bf16)
			snprintf(alt, sizeof(alt), "; priced as the faster of %s: these %s rows run slower than bf16 (a fallback path) and no other collection measures a faster %s kernel of this shape",
				 alts, fmt, fmt);
		else if (alts)
			snprintf(alt, sizeof(alt), "; no slower than %s", alts);
		if (c->moe_pick.curve)
			cost_note_line(c->src[COST_SRC_MOE], sizeof(c->src[0]), "fused kernel, %.60s%s: %s%.100s%s%s%s%s%s%s",
				 c->moe_backend_src[0] ? c->moe_backend_src
				 : c->moe_own ? t->src_own[MFU_P_MOE]
				 : c->moe_more ? t->moe_more_src[c->moe_more - 1] : t->src[MFU_P_MOE],
				 why, c->moe_pick.distance == 0 ? "measured " : "nearest shape ",
				 c->moe_pick.desc, fixed, c->moe_pick.bound ? ", capped by the measured " : "",
				 c->moe_pick.bound ? c->moe_pick.bound_desc : "", c->moe_pick.bound ? " of this shape" : "",
				 alt, note);
		else if (c->moe_w4a16.curve)
			cost_note_line(c->src[COST_SRC_MOE], sizeof(c->src[0]),
				 "fused kernel, no %s MoE table: %.60s's bf16 kernel, %s%.100s%s, less the weight bytes 4-bit experts save (as the W4A16 GEMMs)",
				 moe_fmt_name(c->moe_fmt), t->src[MFU_P_MOE],
				 c->moe_w4a16.distance == 0 ? "measured " : "nearest shape ", c->moe_w4a16.desc, note);
		else
			snprintf(c->src[COST_SRC_MOE], sizeof(c->src[0]),
				 "fused kernel, roofline (no %s MoE table): default MFU %.2f + one launch",
				 moe_fmt_name(c->moe_fmt), MFU_DEFAULT_GEMM);
		if (c->moe_pick.curve && c->moe_pick.tail) {
			cost_src_add(c, COST_SRC_MOE,
				     "; measured only up to %.0f tokens, short of the %lld-token step: past them the nearest curve measured that far, %.100s, its fixed %.0f us kept",
				     c->moe_pick.tail_from_tokens, (long long)c->cfg.max_tokens, c->moe_pick.tail_desc,
				     c->moe_pick.tail_fixed_s * 1e6);
		}
		if (c->cfg.moe_backend != MOE_BACKEND_DEFAULT && !c->moe_backend_src[0]) {
			cost_src_add(c, COST_SRC_MOE,
				     "; MoE backend %s named: priced on the tables' %s curve",
				     moe_backend_name(c->cfg.moe_backend), moe_fmt_name(c->moe_fmt));
		}
		if (c->moe_marlin) {
			cost_src_add(c, COST_SRC_MOE,
				     "; mxfp4 experts on Marlin (int4 rows): %.200s; stored padded for it, x%.3f the checkpoint's expert bytes",
				     c->cfg.mxfp4_marlin, c->moe_pad);
		}
		if (!c->moe_marlin && c->moe_pad > 1.0 && c->cfg.mxfp4_scales_kept) {
			cost_src_add(c, COST_SRC_MOE,
				     "; the checkpoint's mxfp4 block scales kept beside the kernel's copy: %.200s; x%.4f the checkpoint's expert bytes",
				     c->cfg.mxfp4_scales_kept, c->moe_pad);
		}
		if (c->moe_dg_pad) {
			cost_src_add(c, COST_SRC_MOE,
				     "; replaced by DeepGEMM's grouped GEMM over its padded workspace (tokens x top_k + %.0f x 127 rows, every row computed): the GEMM tables' fp8 GEMMs at that row count: %.200s",
				     c->moe_shape.experts / c->moe_shape.ep, c->cfg.moe_dg_padded);
		}
		if (c->moe_unseen_s > 0) {
			cost_src_add(c, COST_SRC_MOE,
				     "; + %.1f us of moe_sorting per call, which aiter's tuned times leave out (measured on MI350X, ROCm/FlyDSL PR 540)%s",
				     c->moe_unseen_s * 1e6,
				     c->moe_unseen_quant ? ", and its input's per-1x128 quant (aiterquant.c)" : "");
		}
		for (k = 0; k < 2; k++) {
			const struct moe_pick *w = &c->wideep_pick[k];
			if (!w->curve)
				continue;
			if (k == 0)
				cost_src_add(c, COST_SRC_MOE,
					     "; decode steps (<= %lld tokens per rank)",
					     (long long)(c->cfg.max_seqs > 128 ? c->cfg.max_seqs : 128));
			else
				cost_src_add(c, COST_SRC_MOE, "; prefill steps");
			cost_src_add(c, COST_SRC_MOE,
				     ": SGLang DeepEP kernel, mfu/wideep/sglang-0.5.10/%.32s-%s: %s%.80s", c->g->id,
				     k ? "prefill" : "decode", w->distance == 0 ? "measured " : "nearest shape ", w->desc);
			if (w->fmt != c->moe_fmt)
				cost_src_add(c, COST_SRC_MOE,
					     " (derived: its fixed %.0f us kept, the rest on this format's roofline)",
					     w->fixed_s * 1e6);
			else if (w->distance > 0)
				cost_src_add(c, COST_SRC_MOE, ", its fixed %.0f us kept",
					     w->fixed_s * 1e6);
		}
	}
}
