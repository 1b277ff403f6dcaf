/* ops.c - one operator of the model's graph priced at a number of step
 * tokens: each GEMM through its kernel family (gemm.c, the routed experts'
 * fused kernel in moe.c, q/k/v unfused with H3 off), elementwise operators
 * on the bandwidth, communication on the all-reduce tables or DeepEP's. */
#include <string.h>

#include "cost/comm.h"
#include "cost/costmodel.h"
#include "cost/kern.h"
#include "model/opgraph.h"

/* m tokens of the step; the expert GEMMs see m x dp of them on this rank
 * with EP. */
/* Whether operator name `name` is `lit`: the first letters compared in
 * line, strcmp only on a match (cost_op_at prices every operator of a
 * layer at each new token count: its strcmp calls were 0.6 % of a
 * DeepSeek-V3 search's instructions). */
static inline bool name_is(const char *name, const char *lit)
{
	return name[0] == lit[0] && strcmp(name, lit) == 0;
}

/* The dtype an operator's GEMM runs in: the linears' low-precision dtype
 * where the operator is stored quantised, else bf16 (opgraph.c marks what
 * the checkpoint and every engine keep unquantised -- the MoE router,
 * excluded attention / FFN / shared-expert parts, the LM head -- with
 * low_precision false). */
enum dtype cost_op_dtype(const struct cost_model *c, const struct op *o)
{
	return o->low_precision ? c->cfg.wdt : DT_BF16;
}

/* A GEMM operator where the engine runs DeepSeek's block-fp8 linears on a
 * kernel of their own rather than the tables' fp8 GEMM:
 * - the ROCm builds on aiter's Triton kernel (c->tbs, tritonbs.c), as
 *   SGLang's DeepSeek model dispatches them (python/sglang/srt/models/
 *   deepseek_v2.py, 0.5.x): the shared expert runs inside the routed
 *   experts' fused kernel (determine_num_fused_shared_experts: DeepSeek-V3/R1
 *   on gfx942 and later, 257 experts top 9), so its GEMMs keep the tables'
 *   price as their share of that kernel (shared_fused);
 * - vLLM without DeepGEMM on its CUTLASS block-scaled kernel (c->cbs,
 *   cutlassbs.c; vllm/model_executor/models/deepseek_v2.py, 0.10-0.13): the
 *   shared experts are block-fp8 linears of their own (DeepseekV2MLP with
 *   the quant config).
 * In both, q_a_proj and kv_a_proj are one GEMM (SGLang's
 * fused_qkv_a_proj_with_mqa, vLLM's fused_qkv_a_proj: q_lora_rank +
 * kv_lora_rank + rope outputs), priced with the fused GEMM's FLOPs and
 * bytes at q_a_proj's row and kv_a_proj inside it (none of its own, so
 * they are counted once); the router (an
 * unquantised linear) keeps its price; every other linear as
 * cost_linear_col_s dispatches it, on gfx942 after its activation quant
 * (cost_aiter_quant_s: a kernel of its own there, inside the NVIDIA tables'
 * rows; on gfx950 SGLang fuses it into the norms, cost_tbs_quant_apart).  FLOPs and bytes into *f, *b. */
static double block_fp8_op_s(const struct cost_model *c, const struct op *o, const struct mfu_gemm_col *col,
			     enum dtype dt, double m, bool shared_fused, double *f, double *b)
{
	const struct model_cfg *md = c->m;
	double n = (double)o->n, k = (double)o->k, batch = (double)o->batch;

	if (md->q_lora_rank > 0 && name_is(o->name, "kv_a_proj"))
		return 0; /* inside the fused q_a/kv_a GEMM (its FLOPs and bytes there) */
	if (md->q_lora_rank > 0 && name_is(o->name, "q_a_proj")) {
		n += (double)(md->kv_lora_rank + md->qk_rope_dim);
		col = NULL;
	}
	*f = 2.0 * m * n * k * batch;
	*b = n * k * batch * dtype_bytes(dt);
	if (name_is(o->name, "router") || (shared_fused && strncmp(o->name, "shared_", 7) == 0))
		return cost_gemm_col_s(c, col, dt, m, n, k, batch);
	if (cost_tbs_quant_apart(c) && dt == DT_FP8 && batch <= 1) /* aiter_w8a8_block_fp8_linear: its input quant, then the GEMM */
		return cost_aiter_quant_s(c, m, k) + cost_linear_col_s(c, col, dt, m, n, k, batch);
	return cost_linear_col_s(c, col, dt, m, n, k, batch);
}

double cost_op_at(const struct cost_model *c, const struct op *o, const struct mfu_gemm_col *col,
		  double m, double *flops, double *bytes)
{
	const struct model_cfg *md = c->m;
	double t = 0, f = 0, b = 0;
	enum dtype dt = cost_op_dtype(c, o);

	switch (o->kind) {
	case OPK_GEMM:
		if (name_is(o->name, "experts_gate_up")) {
			/* the routed experts run as one fused kernel (gate_up,
			 * activation and down together): priced once, here */
			bool ep = c->p.ep > 1;
			double tin = ep ? m * c->p.dp : m;
			/* physical expert slots (redundant copies included) */
			double slots = (double)md->n_experts + (ep ? c->p.ep_redundant : 0);
			t = cost_moe_s(c, tin);
			f = 2.0 * 3.0 * tin * (double)md->top_k * c->moe_shape.hidden *
			    (double)c->moe_shape.inter / c->moe_shape.tp / c->moe_shape.ep;
			b = moe_expected_experts(slots / c->moe_shape.ep, slots, tin * (double)md->top_k) *
			    3.0 * c->moe_shape.hidden * c->moe_shape.inter / c->moe_shape.tp *
			    dtype_bytes(c->moe_wdt);
		} else if (name_is(o->name, "experts_down")) {
			t = 0; /* inside the fused kernel above */
		} else if ((c->cfg.off & COST_H3) && (name_is(o->name, "qkv_proj") ||
						      strstr(o->name, "gate_up_proj"))) {
			/* unfused: q, k, v (or gate, up) as separate GEMMs */
			if (o->name[0] == 'q') {
				double q = (double)(md->heads / c->p.tp * md->head_dim);
				double kv = ((double)o->n - q) / 2;
				t = cost_gemm_s(c, dt, m, q, (double)o->k, 1) +
				    2 * cost_gemm_s(c, dt, m, kv, (double)o->k, 1);
			} else {
				t = 2 * cost_gemm_s(c, dt, m, (double)o->n / 2, (double)o->k, 1);
			}
			f = 2.0 * m * (double)o->n * (double)o->k;
			b = (double)o->n * (double)o->k * dtype_bytes(dt);
		} else if (c->tbs) {
			t = block_fp8_op_s(c, o, col, dt, m, true, &f, &b);
		} else if (c->cbs) {
			t = block_fp8_op_s(c, o, col, dt, m, false, &f, &b);
		} else {
			t = cost_gemm_col_s(c, col, dt, m, (double)o->n, (double)o->k, (double)o->batch);
			f = 2.0 * m * (double)o->n * (double)o->k * (double)o->batch;
			b = (double)o->n * (double)o->k * (double)o->batch * dtype_bytes(dt);
		}
		break;
	case OPK_ELEMENTWISE:
	case OPK_OTHER:
		if (name_is(o->name, "experts_act_mul"))
			break; /* inside the fused MoE kernel */
		/* built at one token: scale linearly */
		f = o->flops * m;
		b = (o->act_bytes + o->weight_bytes) * m;
		t = b / c->bw;
		break;
	case OPK_COMM:
		if (strncmp(o->name, "allreduce", 9) == 0) {
			t = cost_allreduce_s(c, m * (double)md->hidden);
		} else if (c->p.ep > 1 && (c->dp_attn || c->place.ep_cross)) {
			/* wide EP over DP ranks or nodes runs DeepEP (comm.c);
			 * act_bytes holds the (ep-1)/ep share leaving the GPU */
			double share = (double)(c->p.ep - 1) / c->p.ep;
			t = comm_a2a_s(c->comm, c->g, &c->place, cost_ep_mode(c, m),
				       name_is(o->name, "ep_combine"), c->p.ep,
				       o->act_bytes * m / share);
		} else {
			t = 10e-6 + o->act_bytes * m / (c->g->link_bw * 0.7);
		}
		break;
	case OPK_ATTN:
		break;
	}
	*flops += f;
	*bytes += b;
	return t;
}

/* The attention kernels and the operators priced with them per step
 * (MLA's kv_b up-projection and absorb BMMs, DSA's top-k). */
bool cost_op_per_step_attention(const struct op *o)
{
	return o->kind == OPK_ATTN || strcmp(o->name, "kv_b_proj") == 0 ||
	       strcmp(o->name, "q_absorb_uk") == 0 || strcmp(o->name, "out_absorb_uv") == 0 ||
	       strcmp(o->name, "indexer_topk") == 0;
}
