/* linear.c - which kernel prices a dense linear layer: the engine's
 * block-scaled fp8 kernel where it runs one (aiter's Triton kernel on ROCm,
 * tritonbs.c; vLLM's CUTLASS kernel without DeepGEMM, cutlassbs.c), else
 * the GEMM tables (gemm.c).  Its own file so that the kernel families
 * below it depend on the tables and not on each other. */
#include "cost/costmodel.h"
#include "cost/kern.h"

/* A dense linear as the engine dispatches it (kern.h): a block-fp8 one on
 * aiter's Triton kernel (tritonbs.c) or vLLM's CUTLASS one (cutlassbs.c)
 * where the engine runs them, else the GEMM tables. */
double cost_linear_col_s(const struct cost_model *c, const struct mfu_gemm_col *col, enum dtype dt, double m,
			 double n, double k, double batch)
{
	if (c->tbs && dt == DT_FP8 && batch <= 1) {
		double t = cost_tbs_s(c, m, n, k); /* aiter's Triton kernel (tritonbs.c); < 0: the tables' */

		if (t >= 0)
			return t;
	}
	if (c->cbs && dt == DT_FP8 && batch <= 1 && m > 0)
		return cost_cbs_s(c, m, n, k); /* vLLM's CUTLASS block-scaled kernel (cutlassbs.c) */
	return cost_gemm_col_s(c, col, dt, m, n, k, batch);
}
