/* aiterquant.c - aiter's per-1x128 fp8 activation quant on ROCm: the
 * kernel (get_hip_quant(QuantType.per_1x128): dynamic fp8, one float32
 * scale per 128 activations) the engines' ROCm builds run before a
 * block-scaled fp8 GEMM or fused MoE whose input comes in bf16, and which
 * aiter's tuned times leave out: its GEMM tuner times the kernel on an
 * input quantised beforehand (csrc/ck_gemm_a8w8_blockscale/
 * gemm_a8w8_blockscale_tune.py, generate_data), its fused-MoE tuner too
 * (csrc/ck_gemm_moe_2stages_codegen/gemm_moe_tune.py, generate_data:
 * pertoken_quant of the input before timing), where aiconfigurator's
 * NVIDIA fp8_block GEMM rows time SGLang's sglang_per_token_group_quant_fp8
 * inside the call (collector/sglang/collect_gemm.py, gemm_op) and its MoE
 * rows the engines' whole fused-experts call.  Who runs it: the dense
 * linears (tritonbs.c, ops.c) and the fused MoE (moe.c).
 *
 * COST_AITER_QUANT_S (kern.h): the aiter per-1x128 dynamic quant of a decode step's
 * q-lora on a ROCm GPU, 4.719 us a call in vllm-project/vllm PR 53540's
 * trace (2026-08-24, DeepSeek-V4, its GPU not named: a lower bound on gfx942
 * if it was a gfx950, whose kernel floors run below MI300's, ROCm/aiter PR
 * 2039); above decode sizes a call adds its bytes (bf16 in, fp8 and
 * float32 scales out) at the activations' bandwidth. */
#include <math.h>

#include "cost/costmodel.h"
#include "cost/kern.h"

double cost_aiter_quant_s(const struct cost_model *c, double m, double k)
{
	if (m <= 0)
		return 0;
	return COST_AITER_QUANT_S + (2.0 * m * k + m * k + 4.0 * m * ceil(k / 128.0)) / c->bw;
}
