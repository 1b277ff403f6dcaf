/* tritonattn.c - vLLM's Triton unified attention kernel (TRITON_ATTN) where
 * the engine runs it instead of FlashAttention for the decoder's prefill
 * attention (cost_cfg.triton_attn, engine_type.triton_attn): the
 * FlashAttention tables' price times the kernel's measured cost relative to
 * FlashAttention-2 at the call's sequence length.
 *
 * The path: vLLM's get_attn_backend_cls (vllm/platforms/cuda.py, 0.10.1 to
 * 0.11) returns TRITON_ATTN on SM 8.x when the layer has attention sinks
 * ("if has_sink and not cls.is_device_capability(90)": FlashAttention-2 has
 * no sinks, FlashAttention-3 is Hopper-only): gpt-oss on A100, L40S, A10.
 * vLLM's own gpt-oss recipe says the same (vllm-project/recipes
 * OpenAI/GPT-OSS.md: "A100 ... TRITON_ATTN attention backend").
 *
 * The kernel (vllm/attention/ops/triton_unified_attention.py,
 * kernel_unified_attention_2d): one program per BLOCK_M = 16 query rows
 * (16 / GQA ratio tokens x the GQA ratio's heads, gpt-oss: 2 tokens x 8
 * heads) and KV head, streaming every key of the sequence in 32-key tiles
 * (TILE_SIZE_PREFILL); FlashAttention-2 takes 64-128 query rows per
 * program, so each K/V tile it loads serves 4-8 times the rows.  Sliding
 * window layers visit only the window's tiles from vLLM 0.11 (PR 24390,
 * merged 2025-09-19; before, "GPT-OSS + triton attention backend was
 * spending equal amount of time between global and local attention").
 *
 * The ratio: aiconfigurator's vLLM 0.24.0 collection on L40S (SM 8.9, the
 * same mma.sync / cp.async instructions as A100's SM 8.0; no TMA or wgmma)
 * times vllm_triton_attn and vllm_flash_attn_fa2 at the same shapes (head
 * dim 192, 64/4 to 1/1 query/KV heads, batch 1-64, causal, no prefix; the
 * Triton rows with an fp8 KV cache, FlashAttention's bf16).  Per sequence
 * length, the median of triton / fa2 over the 27-62 cells both measured
 * (scripts/mfu/triton_attn_ratio.py prints it; quartiles within +-0.1 of
 * the median from 1,024 tokens): about 1 up to 128 tokens (launch-bound),
 * 2.0 at 1,024, 2.4 at 16,384.  The rows are prefix-free causal
 * prefills, whose queries see L / 2 keys on average: a call is looked up at
 * twice its mean keys per query (2 x pairs / tokens; a chunk after a cached
 * prefix P: 2 P + its length; a sliding layer: about twice the window), as
 * the Triton kernel's work per program is its keys' tiles; log-linear
 * between the lengths, held at the ends.
 * Decode attention stays on the FlashAttention tables: the collection's
 * Triton decode rows read an fp8 cache, FlashAttention's bf16, and decode
 * is memory-bound, so their ratio is not the kernel's. */
#include <math.h>

#include "cost/costmodel.h"
#include "cost/kern.h"

static const struct {
	double isl, ratio;
} triton_ratio[] = {
	{1, 0.983},     {16, 0.806},    {32, 0.868},    {64, 1.069},    {128, 1.151},   {256, 1.326},
	{512, 1.774},   {1024, 2.008},  {1536, 2.082},  {2048, 2.165},  {3072, 2.227},  {4096, 2.253},
	{6144, 2.322},  {8192, 2.324},  {10240, 2.393}, {12288, 2.369}, {16384, 2.409},
};

#define NRATIO (sizeof(triton_ratio) / sizeof(triton_ratio[0]))

double cost_triton_attn_ratio(double isl)
{
	size_t i;
	double x, x0, x1;

	if (isl <= triton_ratio[0].isl)
		return triton_ratio[0].ratio;
	if (isl >= triton_ratio[NRATIO - 1].isl)
		return triton_ratio[NRATIO - 1].ratio;
	for (i = 1; i < NRATIO - 1 && isl > triton_ratio[i].isl; i++)
		;
	x = log(isl);
	x0 = log(triton_ratio[i - 1].isl);
	x1 = log(triton_ratio[i].isl);
	return triton_ratio[i - 1].ratio + (triton_ratio[i].ratio - triton_ratio[i - 1].ratio) * (x - x0) / (x1 - x0);
}

double cost_triton_attn_scale(const struct cost_model *c, double pairs, double tokens)
{
	if (!c->cfg.triton_attn || tokens <= 0)
		return 1.0;
	return cost_triton_attn_ratio(2.0 * pairs / tokens);
}

void cost_triton_attn_note(struct cost_model *c)
{
	if (!c->cfg.triton_attn)
		return;
	cost_src_add(c, COST_SRC_ATTN_PREFILL,
		     "; x the Triton unified attention's cost over FlashAttention-2 at the call's length (%s; "
		     "L40S vLLM 0.24.0 rows, 1.0 at 128 tokens, 2.0 at 1,024, 2.4 at 16,384; tritonattn.c)",
		     c->cfg.triton_attn);
}
