/* cutlassbs.c - vLLM's CUTLASS block-scaled fp8 GEMM (fp8 activations
 * with 1x128 scales, fp8 weights with 128x128 scales) as vLLM runs a
 * block-fp8 checkpoint's dense linears on Hopper where it finds no DeepGEMM
 * (cost_cfg.cutlass_bs, engine_type.block_fp8_cutlass), priced from its
 * measured table, plus the padding copies of the releases that made them
 * on every call (cost_cfg.cutlass_bs_pad).
 *
 * The path: W8A8BlockFp8LinearOp.apply (vllm/model_executor/layers/
 * quantization/utils/fp8_utils.py, vLLM 0.10-0.13) takes DeepGEMM's
 * fp8_gemm_nt when should_use_deepgemm_for_fp8_linear holds (bf16 output,
 * N and K multiples of 128, is_deep_gemm_supported: VLLM_USE_DEEP_GEMM,
 * on by default, and the deep_gemm package importable), else on SM 9.0
 * _run_cutlass: the per-token-group activation quantisation (QuantFP8,
 * one fused pass: its CUDA kernel, or Inductor's compile of the native
 * form inside the served model's graph), then padded_cutlass and
 * cutlass_scaled_mm's block-scaled SM90 kernel.  vLLM's PyPI wheel does not
 * depend on deep_gemm (its Docker images build it in), so a pip-installed
 * vLLM runs the CUTLASS path.  At decode sizes it is 2-3x the DeepGEMM
 * kernel the other collections time: H200, m = 4, n x k 7168 x 2048 17.0
 * us, 1536 x 7168 28.1, 512 x 7168 26.5, 3072 x 1536 12.4, 7168 x 256 9.2
 * (SGLang 0.5.14's DeepGEMM rows 8.7, 13.6, 14.2, 6.9, 4.1): one 128-row
 * tile of the output per CTA over all of K, so a narrow N keeps few SMs
 * streaming the weights.
 *
 * The table: aiconfigurator's vLLM 0.19.0 collection on h100_sxm and
 * h200_sxm, its fp8_block GEMM rows (float16 activations, so never
 * DeepGEMM; timed under a CUDA graph), kept apart by
 * scripts/mfu/derive_cutlass_block.py as gemm_cutlass_block.csv.gz in the
 * vllm-0.14.0 collection's folder (the one servesim prices vLLM <= 0.19
 * from).  Not the 0.14.0 collection's own rows: its collector quantised op
 * by op (most likely QuantFP8's forward_native, uncompiled: it enters a bare
 * VllmConfig(), no model config, so no "+quant_fp8" for blocked weights,
 * custom_ops "none"): ~12 us more a call at m = 4 and a
 * term growing with m x K (9-13 ps an activation element; m = 8192, 512 x
 * 7168: 749 us against 0.19.0's 171), which no served vLLM runs; its
 * per-tensor fp8 rows carry it too (slower than its own bf16 rows at
 * large m, derive.py refuses them).
 *
 * The padding: vLLM 0.11.0's padded_cutlass (engine/vllm.c
 * vllm_block_fp8_cutlass_pad) zero-fills an fp8 buffer of the padded rows
 * x K, copies the activations in, fills a float32 scale buffer of K / 128
 * x the padded rows with ones and copies the scales in: four memory
 * kernels a call, each a launch (COST_LAUNCH_S) and its bytes at the
 * activations' bandwidth; the collections' release copies only unaligned
 * rows (their m are multiples of 4). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "cost/costmodel.h"
#include "cost/kern.h"

#define CBS_FILE "gemm_cutlass_block.csv.gz"

int cost_cbs_init(struct cost_model *c, const char *data_dir, struct err *e)
{
	const struct model_cfg *m = c->m;
	char path[1000];
	unsigned got = 0;
	int rc;

	c->cbs = NULL;
	if (!c->cfg.cutlass_bs || c->cfg.wdt != DT_FP8 || (m->q.attn != Q_FP8_BLOCK && m->q.mlp != Q_FP8_BLOCK) ||
	    (c->cfg.tier2 && c->cfg.tier2->tables[0]))
		return 0;
	if (!mfu_find_file(data_dir, c->g, cost_engine_tables(c->cfg.engine, c->g), c->cfg.engine->fallback,
			   c->cfg.engine_version, CBS_FILE, path, sizeof(path), c->cbs_src, sizeof(c->cbs_src)))
		return 0; /* no collection on these tables measured it */
	c->cbs = xcalloc(1, sizeof(*c->cbs));
	if ((rc = mfu_csv_gemm(c->cbs, path, c->g, &got, e)) < 0 || !c->cbs->have_gemm[DT_FP8]) {
		cost_cbs_release(c);
		return rc < 0 ? rc : err_set(e, SS_EDATA, "%s: no fp8 rows (expected dtype,m,n,k,latency_us)", path);
	}
	return 0;
}

/* padded_cutlass's copies for m rows of K (the padding above): the
 * zero-filled fp8 rows (padded x K written), the activations copied in (m x
 * K read and written), the ones-filled float32 scales (K / 128 x padded
 * written) and the scales copied in (m x K / 128 x 4 read and written). */
double cost_cbs_pad_s(const struct cost_model *c, double m, double k)
{
	double padded = 4.0 * ceil(m / 4.0), groups = ceil(k / 128.0);
	double bytes = padded * k + 2.0 * m * k + 4.0 * groups * padded + 2.0 * 4.0 * groups * m;

	return 4.0 * COST_LAUNCH_S + bytes / c->bw;
}

double cost_cbs_s(const struct cost_model *c, double m, double n, double k)
{
	double t = cost_gemm_tab_s(c, c->cbs, NULL, DT_FP8, m, n, k, 1);

	return c->cfg.cutlass_bs_pad ? t + cost_cbs_pad_s(c, m, k) : t;
}

void cost_cbs_release(struct cost_model *c)
{
	if (!c->cbs)
		return;
	mfu_release(c->cbs);
	free(c->cbs);
	c->cbs = NULL;
}

void cost_cbs_note(struct cost_model *c)
{
	if (!c->cbs)
		return;
	cost_src_add(c, COST_SRC_GEMM,
		     "; dense block-fp8 linears on vLLM's CUTLASS block-scaled GEMM, %s (%s; cutlassbs.c)", c->cbs_src,
		     c->cfg.cutlass_bs);
	if (c->cfg.cutlass_bs_pad)
		cost_src_add(c, COST_SRC_GEMM, " + 4 padding copies a call (%s)", c->cfg.cutlass_bs_pad);
}
