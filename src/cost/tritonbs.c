/* tritonbs.c - aiter's Triton block-scaled fp8 GEMM (gemm_a8w8_blockscale:
 * fp8 activations with 1x128 scales, fp8 weights with 128x128 scales) as
 * an engine's ROCm build runs its dense linears in place of the CK kernel
 * the aiter tables time (cost_cfg.rocm_triton_bs): on CDNA3 (gfx942:
 * MI300X, MI325X) every shape, at aiter's default config where the
 * engine's aiter ships no config of the shape's own, else on the tables;
 * on CDNA4 (gfx950: MI355X) the shapes of the engine's gfx950 list, at
 * their config's catch-all bucket above M 128 (below the end of this
 * comment), else on the tables.
 *
 * The default config: aiter/ops/triton/configs/gemm/gfx942-GEMM-A8W8_
 * BLOCKSCALE.json ("any": BLOCK_SIZE_M = N = K = 128, NUM_KSPLIT 1, 4
 * warps; ROCm/aiter v0.1.10.post3 to e4048607), one workgroup per
 * 128 x 128 output tile that walks K in 128-deep steps.  Its time is
 * ceil(tiles / CUs) waves x ceil(K / 128) steps x TBS_STEP_S.
 *
 * TBS_STEP_S, fitted: ROCm/aiter PR 1232 (2025-10-23) times the default
 * config on DeepSeek's fused q_a/kv_a projection, N = 2112, K = 7168 (17
 * and 34 tiles: one wave, 56 steps), at M = 64 / 128 / 256: 128.799 /
 * 127.317 / 117.496 us; their sum over 3 x 56 steps is 2.224 us a step.
 * (The PR's note names its machine "asrock-1w300-e0-3 (mi350xas2)"; its
 * title is MI300 series.)  Checked on the kernel times of InferenceX's
 * profile of SGLang 0.5.9 on MI325X at batch 64 (SemiAnalysisAI/InferenceX
 * issue 863, whose image carries aiter v0.1.10.post3, no per-shape config
 * of DeepSeek's): ~123 us for the fused q_a/kv_a (model 124.5), ~122 for
 * the dense gate_up 4608 x 7168 (124.5), ~39 for the dense down 7168 x 2304
 * (40.0), ~34 for o_proj 7168 x 2048 (35.6), ~30 for q_b 3072 x 1536
 * (26.7).  Several waves (prefill) are the model's assumption: one
 * workgroup per CU as the measured one-wave rows run.
 *
 * The activation quant: aiter_w8a8_block_fp8_linear quantises its bf16
 * input to fp8 with 1x128 scales in a kernel of its own,
 * aiter_per1x128_quant (aiterquant.c), before the GEMM, for every call
 * whose input comes unquantised; SGLang hands it a quantised input only
 * from its gfx95 fusions (fused_rms_fp8_group_quant behind _use_aiter_gfx95
 * in deepseek_v2.py and the communicator; sglang PR 12689), so on gfx942
 * every dense block-fp8 linear runs it: the fused q_a/kv_a, q_b, o_proj
 * and the dense layers' gate_up and down (the shared expert runs inside the
 * routed experts' kernel, the router is bf16, the absorbed bmm's are not
 * these linears); neither the tables' times nor PR 1232's hold it. */
/*
 * gfx950 (COST_TBS_GFX950).  SGLang's aiter_w8a8_block_fp8_linear
 * (python/sglang/srt/layers/quantization/fp8_utils.py) runs aiter's Triton
 * kernel on gfx95 for the (N, K) of use_aiter_triton_gemm_w8a8_tuned_gfx950
 * -- DeepSeek-V3/R1's TP-8 fused q_a/kv_a 2112 x 7168, q_b 3072 x 1536,
 * o_proj 7168 x 2048, the dense gate_up 4608 x 7168, the shared expert's
 * 512 x 7168 and 7168 x 256 among them -- and CK for the rest: PR 13617
 * (2025-11-20, 0.5.6: "Replace aiter gemm_a8w8_blockscale with the Triton
 * implementation", written for MI355X; PR 14043 calls it the CDNA4 path);
 * the list as quoted from later fp8_utils.py's in the search index and
 * sgl-project/sglang PR 26337 (2026-05-26: "On AMD gfx950, the FP8
 * block-scaled GEMM dispatch maintains a tuned list of (N, K) shapes that
 * route to a Triton kernel").  The dense down 7168 x 2304 joined the list
 * with PR 20840 (after 0.5.9's date; left on the tables here, three layers).
 * The shared expert runs inside the routed experts' kernel (ops.c,
 * shared_fused), not as these linears.
 *
 * aiter v0.1.10.post3 (SGLang 0.5.9's pin) configures these shapes per M
 * bucket (aiter/ops/triton/configs/gemm/gfx950-GEMM-A8W8_BLOCKSCALE-N=*-K=*
 * .json: M_LEQ_16 .. M_LEQ_128 split-K small tiles, then "any"); above
 * M 128 the four dense shapes above and 4096 x 7168 run "any": 128 x 128 x
 * 128 tiles, 2 warps, waves_per_eu 1, no split-K (ROCm/aiter PR 2166,
 * 2026-03-04, restored that catch-all after a retune "to recover
 * prefill/ttft performance for dpskR1").  No timing of that config is
 * public.  The kernel's own is: ROCm/aiter PR 3136 (commit bb8eabea,
 * 2026-05-13) times it on MI350 (gfx950, 256 CUs; its author's PR 3307
 * names the part) before its change, at N = 1280, K = 8192, M = 1,024-
 * 16,384 (119.1 / 236.3 / 448.3 / 435.8 / 559.6 TFLOPS), on the default
 * config's catch-all of then (128 x 256 x 128 tiles, 4 warps, waves_per_eu
 * 1), whose kernel source is v0.1.10.post3's byte for byte (git diff
 * v0.1.10.post3 bb8eabea^ of the kernel and its wrapper: empty).  Its work
 * unit: each of a CU's four SIMDs runs one wave of a 64 x 128 sub-tile per
 * 128-deep K step, in both configs (one 4-warp 128 x 256 workgroup, or two
 * 2-warp 128 x 128 ones side by side: 2 x 64 KB of LDS in gfx950's 160).
 * So a call takes ceil(128 x 128 tiles / (2 x CUs)) rounds x ceil(K / 128)
 * steps x TBS950_STEP_S, the step fitted on those five rows as for gfx942
 * (their times over their 8 rounds x 64 steps: 3.051 us; the rows alone
 * 2.82 / 2.84 / 2.99 / 3.08 / 3.20 us; 4096^3 of the same table 3.15).
 * Derived, not measured at DeepSeek's shapes: the catch-all's 2 warps are
 * the tuner's choice, unmeasured; MI350X runs at a lower clock than MI355X
 * (not carried, as the tables' gfx950 rows are not).  At M <= 128 (decode)
 * the tuned small-M configs have no public timing: the tables' rows.  The
 * activation quant is not added on gfx950 (cost_tbs_quant_apart): SGLang
 * fuses it into the RMSNorms feeding the fused q_a/kv_a and q_b there
 * (fused_rms_fp8_group_quant behind _use_aiter_gfx95); o_proj's own quant
 * (a 7,400 x 2,048 call: ~10 us) is left unpriced as before. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cost/costmodel.h"
#include "cost/cost.h"
#include "cost/kern.h"

#define TBS_TILE 128.0
#define TBS_STEP_S 2.224e-6
#define TBS950_STEP_S 3.051e-6
#define TBS950_ANY_M 128.0 /* the largest M of the configs' own buckets */

/* The (N, K) shapes with a gfx942 config of their own in the aiter of
 * SGLang's images from 0.5.10 (COST_TBS_TUNED; 0.5.9's v0.1.10.post3 has
 * none): DeepSeek-V3/R1's TP-8 fused q_a/kv_a, q_b and o_proj (ROCm/aiter
 * PR 2024, 2026-02-12, in v0.1.11) and GLM-5's (PR 2743, 2026-04-22, in
 * the aiter a6bb4993 SGLang 0.5.10.post1 pins), with the largest M their
 * own buckets cover where the catch-all bucket ("any") is the default
 * config (2112 x 7168 above M 512: 128 x 128 x 128, no split-K), 0 where it
 * is a tile of its own (every other one: 64 x 128, 64 x 64, 256 x 128 or
 * 8 warps). */
static const double tbs_cfg_tuned[][3] = {
	{2112, 7168, 512}, {3072, 1536, 0}, {7168, 2048, 0},                     /* DeepSeek-V3/R1 TP 8 */
	{2048, 2048, 0}, {2624, 6144, 0}, {3072, 6144, 0}, {3584, 512, 0}, {6144, 1536, 0}, {6144, 2048, 0}, /* GLM-5 */
};

/* The (N, K) of SGLang's gfx950 Triton list whose aiter v0.1.10.post3
 * config runs the 128 x 128, 2-warp tile above M 128 (the other listed
 * shapes -- the shared expert's 512 x 7168 and 7168 x 256, which SGLang
 * runs inside the fused MoE, and 1024 x 8192, 8192 x 1024, 32768 x 8192,
 * 8192 x 32768 of other models -- have tiles of their own: the tables). */
static const double tbs950_any[][2] = {
	{2112, 7168}, {3072, 1536}, {7168, 2048}, {4608, 7168}, {4096, 7168},
};

static bool tbs950_listed(double n, double k)
{
	size_t i;

	for (i = 0; i < sizeof(tbs950_any) / sizeof(tbs950_any[0]); i++)
		if (tbs950_any[i][0] == n && tbs950_any[i][1] == k)
			return true;
	return false;
}

/* m x n x k on the kernel's 128 x 128 tiles: rounds of per_cu tiles a CU
 * (the GPU's CUs x per_cu at once), each K / 128 steps of step_s. */
static double tbs_rounds_s(const struct gpu_spec *g, double m, double n, double k, double per_cu, double step_s)
{
	double tiles = ceil(m / TBS_TILE) * ceil(n / TBS_TILE);
	double slots = per_cu * (g->sm_count > 0 ? (double)g->sm_count : 1);

	if (m <= 0)
		return 0;
	return ceil(tiles / slots) * ceil(k / TBS_TILE) * step_s;
}

double cost_tbs950_any_s(const struct gpu_spec *g, double m, double n, double k)
{
	return tbs_rounds_s(g, m, n, k, 2.0, TBS950_STEP_S);
}

double cost_tbs_s(const struct cost_model *c, double m, double n, double k)
{
	if (c->cfg.rocm_triton_bs == COST_TBS_GFX950)
		return m > TBS950_ANY_M && tbs950_listed(n, k) ? cost_tbs950_any_s(c->g, m, n, k) : -1;
	return cost_tbs_configured(c, m, n, k) ? -1 : cost_tbs_default_s(c->g, m, n, k);
}

bool cost_tbs_quant_apart(const struct cost_model *c)
{
	return c->tbs && c->cfg.rocm_triton_bs != COST_TBS_GFX950;
}

bool cost_tbs_configured(const struct cost_model *c, double m, double n, double k)
{
	size_t i;

	if (c->cfg.rocm_triton_bs != COST_TBS_TUNED)
		return false;
	for (i = 0; i < sizeof(tbs_cfg_tuned) / sizeof(tbs_cfg_tuned[0]); i++)
		if (tbs_cfg_tuned[i][0] == n && tbs_cfg_tuned[i][1] == k)
			return tbs_cfg_tuned[i][2] == 0 || m <= tbs_cfg_tuned[i][2];
	return false;
}

double cost_tbs_default_s(const struct gpu_spec *g, double m, double n, double k)
{
	return tbs_rounds_s(g, m, n, k, 1.0, TBS_STEP_S);
}

void cost_tbs_init(struct cost_model *c)
{
	const struct model_cfg *m = c->m;

	/* the engine runs it for a block-scaled fp8 checkpoint's linears; the
	 * hook (engine file) has checked the GPU and version */
	c->tbs = c->cfg.rocm_triton_bs != COST_TBS_OFF && c->cfg.wdt == DT_FP8 &&
		 (m->q.attn == Q_FP8_BLOCK || m->q.mlp == Q_FP8_BLOCK);
}

/*
 * The kernel's compiles at run time (cost_cfg.rocm_triton_jit).  aiter's
 * _gemm_a8w8_blockscale_kernel takes GRID_MN = cdiv(M, BLOCK_SIZE_M) x
 * cdiv(N, BLOCK_SIZE_N) as a tl.constexpr, set by @triton.heuristics from
 * M (aiter/ops/triton/_triton_kernels/gemm/basic/gemm_a8w8_blockscale.py
 * at v0.1.10.post3, unchanged to e4048607), and a constexpr's value is
 * part of Triton's JIT cache key: a call whose cdiv(M, BLOCK_SIZE_M) the
 * process has not met compiles the kernel again before it runs (ROCm/aiter
 * PR 5217, 2026-09-02: "the GRID_MN is a tl.constexpr which makes Triton
 * to trigger re-compile for its dependencies, M and N ... cold compiling
 * for each M in GEMM is not accepted"; removed with PR 4199 / 5217, after
 * every image here).  M, a plain int argument, is specialised on its
 * divisibility by 16 as well (Triton's default for ints), so each bucket
 * has two keys.  Decode runs CUDA/HIP graphs captured at start-up (M <=
 * cuda_graph_max_bs: its small-M buckets compiled then, with the server's
 * warm-up prompt); a prefill of more than 128 tokens runs eagerly on the
 * catch-all / default config, 128-row tiles on both gfx942 and gfx950
 * (above): a step of m tokens whose (cdiv(m, 128), m % 16 == 0) is new
 * stalls while the forward compiles one kernel per distinct N it launches
 * (N enters GRID_MN; K does not, and the linears of one N share the
 * default or catch-all config: DeepSeek's o_proj and dense down, 7168 x
 * 2048 and 7168 x 2304, one kernel), one after another on each rank (its
 * Python thread), the ranks side by side.  Not modelled: the tuned gfx942
 * configs of q_b and o_proj from aiter v0.1.11 run 64-row tiles above M 256
 * and 64 (their buckets come twice as often), and the gfx950 configs of
 * the later images' aiter differ per M bucket below 512.
 *
 * What a compile costs is the host term jit_compile_ms (run / eval
 * --jit-compile-ms), 0 by default: no timing of this kernel's compile on
 * ROCm is public (nor could one be made here: no ROCm machine, no Triton;
 * searched again 2026-12-02, eval/public-amd/README.md "amdjit": the public
 * figures are NVIDIA's, RDNA's or one compiler stage's, none a CDNA GEMM's),
 * so the stall is not priced unless a figure is given.  The one public
 * figure of a Triton recompile in LLM serving is triton-lang/triton issue
 * 10872 (2026-07-14, SGLang's gpt-oss MoE top-k kernel on one H100): ~700
 * ms per recompile, "recurring ~1 s TTFT stalls" (sgl-project/sglang issue
 * 31283 cites it for the same bug class in an MXFP8 GEMM); a GEMM with fp8
 * MFMA, scales and a K loop is a larger kernel than a top-k, and AMD's LLVM
 * back end is not NVIDIA's (eval/public-amd/README.md, "amdfp8", prices
 * the what-if at 700 ms). */
#define TBS_JIT_TILE_M 128
#define TBS_JIT_WARM_M 128 /* the small-M configs' buckets: compiled at start-up */
#define TBS_JIT_MAX_KERNELS 16

void cost_tbs_jit_init(struct cost_model *c, const struct opgraph *gr)
{
	const struct model_cfg *md = c->m;
	double ns[TBS_JIT_MAX_KERNELS];
	int nn = 0, i;
	size_t k, j;

	c->tbs_jit_kernels = 0;
	c->tbs_jit_s = 0;
	c->tbs_jit_warm_m = TBS_JIT_WARM_M;
	if (!(c->cfg.ov.jit_compile_ms > 0) || (c->cfg.off & COST_H2) || c->cfg.rocm_triton_jit == COST_TBS_OFF ||
	    c->cfg.wdt != DT_FP8 ||
	    !(md->q.attn == Q_FP8_BLOCK || md->q.mlp == Q_FP8_BLOCK))
		return;
	/* the distinct N of the dense block-fp8 linears the forward runs on
	 * the Triton kernel (block_fp8_op_s's: not the router, the shared
	 * expert inside the fused MoE, the routed experts, kv_a_proj inside
	 * the fused q_a/kv_a, the absorbed bmm's; on gfx950 only the listed
	 * shapes) */
	for (k = 0; k < gr->nkinds; k++)
		for (j = 0; j < gr->kinds[k].nops; j++) {
			const struct op *o = &gr->kinds[k].ops[j];
			double n = (double)o->n, kk = (double)o->k;
			bool seen = false;
			if (o->kind != OPK_GEMM || o->batch > 1 || !o->low_precision /* bf16 (cost_op_dtype) */ ||
			    strcmp(o->name, "router") == 0 || strncmp(o->name, "shared_", 7) == 0 ||
			    strncmp(o->name, "experts_", 8) == 0 || strcmp(o->name, "kv_a_proj") == 0)
				continue;
			if (md->q_lora_rank > 0 && strcmp(o->name, "q_a_proj") == 0)
				n += (double)(md->kv_lora_rank + md->qk_rope_dim);
			if (c->cfg.rocm_triton_jit == COST_TBS_GFX950 && !tbs950_listed(n, kk) &&
			    !(n == 7168 && kk == 2304)) /* the dense down: listed from sglang PR 20840 */
				continue;
			for (i = 0; i < nn; i++)
				seen |= ns[i] == n;
			if (!seen && nn < TBS_JIT_MAX_KERNELS)
				ns[nn++] = n;
		}
	c->tbs_jit_kernels = nn;
	c->tbs_jit_s = c->cfg.ov.jit_compile_ms * 1e-3;
}

int64_t cost_tbs_jit_key(const struct cost_model *c, int64_t m)
{
	if (c->tbs_jit_kernels == 0 || m <= c->tbs_jit_warm_m)
		return -1;
	return 2 * ((m + TBS_JIT_TILE_M - 1) / TBS_JIT_TILE_M) + (m % 16 == 0);
}

void cost_tbs_note(struct cost_model *c)
{
	if (c->tbs_jit_kernels > 0)
		cost_src_add(c, COST_SRC_GEMM,
			     "; a prefill of a size not met before (cdiv(M, %d), M %% 16) compiles aiter's Triton "
			     "gemm_a8w8_blockscale again (GRID_MN constexpr): %d kernel%s x %.0f ms (--jit-compile-ms, %.60s; "
			     "tritonbs.c)",
			     TBS_JIT_TILE_M, c->tbs_jit_kernels, c->tbs_jit_kernels > 1 ? "s" : "", c->tbs_jit_s * 1e3,
			     (c->cfg.ov.given & OV_JIT) || !c->cfg.host_src ? "given" : c->cfg.host_src);
	if (!c->tbs)
		return;
	if (c->cfg.rocm_triton_bs == COST_TBS_GFX950) {
		cost_src_add(c, COST_SRC_GEMM,
			     "; above M %.0f DeepSeek's dense block-fp8 linears on aiter's Triton gemm_a8w8_blockscale as "
			     "SGLang's gfx950 list runs them (aiter v0.1.10.post3's 128x128 catch-all): ceil(tiles/(2 x %d "
			     "CUs)) x K/128 x %.4g us (derived: aiter PR 3136's MI350 rows of the kernel carried by wave; "
			     "tritonbs.c); q_a/kv_a fused",
			     TBS950_ANY_M, c->g->sm_count, TBS950_STEP_S * 1e6);
		return;
	}
	cost_src_add(c, COST_SRC_GEMM,
		     "; dense block-fp8 linears on aiter's Triton gemm_a8w8_blockscale (%s), shapes without a gfx942 "
		     "config of their own at its default: ceil(tiles/%d CUs) x K/128 x %.3g us, each after its "
		     "activation quant (aiter per-1x128, %.3g us a call + its bytes; tritonbs.c, aiterquant.c)",
		     c->cfg.rocm_triton_bs == COST_TBS_TUNED ? "DeepSeek's and GLM-5's TP-8 shapes configured, aiter >= v0.1.11"
							       : "aiter v0.1.10.post3: none configured",
		     c->g->sm_count, TBS_STEP_S * 1e6, COST_AITER_QUANT_S * 1e6);
}
