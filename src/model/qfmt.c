/* qfmt.c - the weight storage formats a checkpoint may use (enum
 * model_qfmt): their names and bytes per weight.  The config readers
 * (quant.c, quark.c) and the memory plan (params.c) both read them. */
#include "model/model.h"

const char *model_qfmt_name(enum model_qfmt f)
{
	static const char *n[Q__COUNT] = {"none", "fp8", "fp8-block", "mxfp4", "nvfp4",
					  "int4-w4a16", "int8"};
	return (unsigned)f < Q__COUNT ? n[f] : "?";
}

double model_qfmt_bytes(enum model_qfmt f, int64_t g, double unq)
{
	switch (f) {
	case Q_NONE: return unq;
	case Q_FP8: return 1.0;
	/* one fp32 scale per 128 x 128 block (DeepSeek-V3 report, sec. 3.3) */
	case Q_FP8_BLOCK: return 1.0 + 4.0 / (128.0 * 128.0);
	/* OCP MX v1.0: 32 fp4 elements share one 8-bit e8m0 scale */
	case Q_MXFP4: return 0.5 + 1.0 / 32.0;
	/* NVFP4: 16 fp4 elements share one fp8 e4m3 scale */
	case Q_NVFP4: return 0.5 + 1.0 / 16.0;
	/* compressed-tensors pack-quantized: int4 plus one bf16 scale per group */
	case Q_INT4_W4A16: return 0.5 + 2.0 / (double)(g > 0 ? g : 128);
	case Q_INT8: return 1.0;
	case Q__COUNT: break;
	}
	return unq;
}
