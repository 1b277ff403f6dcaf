/* linattn.c - the linear-attention kernel family (Gated DeltaNet, KDA,
 * Mamba2): a layer's prefill chunk or decode step from terms fitted on the
 * measured kernels, and the run header's line saying which. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cost/costmodel.h"
#include "cost/kern.h"

/* Linear attention (Gated DeltaNet and the like), fitted per engine on
 * aiconfigurator's measured GDN kernels (conv + chunked delta rule for a
 * prefill, conv update + recurrent kernel for a decode step) by
 * scripts/mfu/fit_gdn.py: the form is cost.h's struct cost_lin_terms, each
 * engine's terms its cost_engine.lin (src/engine/<name>.c).  The chunk
 * chain of a sequence is not the tensor peak: the H20's 4096-token prefill
 * runs at the H100's speed. */
#define LIN_CHUNK 64.0 /* FLA's and FlashInfer's chunk length */

/* KDA (Kimi Delta Attention: a gated delta rule with a per-channel forget
 * gate over the same head_k_dim x head_v_dim state per head) in the GDN form
 * above, fitted by scripts/mfu/fit_kda.py on aiconfigurator's measured KDA
 * kernels (aic <gpu>/kda/vllm-0.1.dev19262/kda_perf.csv, a vLLM Kimi-K3
 * preview build; H100/H200/B200 fitted, L40S predicted): a prefill is
 * causal_conv1d_fn_qkv3 + flashkda_fwd, less the conv's constant 0.42-0.44 ms
 * host floor at one token (on every GPU and head count alike; one 2.1 us
 * launch kept), a decode step causal_conv1d_update + the packed recurrent
 * decode.  Median |log error| before (vLLM's GDN terms) -> after, and the
 * hold-outs: README "Linear attention" and fit_kda.py's output.  Measured on
 * vLLM only: every engine is priced with these. */
#define LIN_KDA_VLLM 2.034e-05, 3.108e-06, 1.284e-11, 0.07478, 41.4, 6.38e-06, 0.7819

/* Mamba2 (Nemotron-H): the measured tables hold only its causal conv
 * (aic-engines <gpu>/linear_attention/trtllm/1.3.0rc20/mamba2_perf.csv,
 * TensorRT-LLM 1.3 on H100/H200/B200); scripts/mfu/fit_mamba2.py fits it as
 *   prefill  launch + per_seq x b + b s C x tok_bytes / HBM
 *   decode   gen_launch + b C x gen_bytes / HBM
 * with C = mamba heads x head dim + 2 groups x state size channels per GPU,
 * and prices the scan with the GDN form fitted on TensorRT-LLM's GDN
 * recurrence kernels alone (chunk_gated_delta_rule, fused_recurrent_gated_
 * delta_rule: no SSD scan is measured in the data we hold; E = heads x head
 * dim x state size).  Every engine is priced with these (TensorRT-LLM's is the
 * only measured Mamba2 kernel). */
struct conv_terms {
	double launch, per_seq, tok_bytes, gen_launch, gen_bytes;
};
#define LIN_MAMBA2_CONV 5.198e-06, 5.896e-06, 5.678, 3.808e-06, 23.54
#define LIN_MAMBA2_SCAN 1.639e-05, 1.274e-06, 1.277e-11, 6.995e-14, 14.7, 4.489e-06, 0.9956

static const struct conv_terms mamba2_conv = {LIN_MAMBA2_CONV};

/* The linear-attention terms of the model's kind: KDA's and Mamba2's
 * measured fits, the engine's GDN terms otherwise. */
const struct cost_lin_terms *cost_lin_terms_for(const struct model_cfg *m, const struct cost_engine *en)
{
	static const struct cost_lin_terms kda = {LIN_KDA_VLLM}, mamba2 = {LIN_MAMBA2_SCAN};

	if (m->lin.kind == LIN_KDA)
		return &kda;
	if (m->lin.kind == LIN_MAMBA2)
		return &mamba2;
	return &en->lin;
}

/* The opgraph's causal_conv1d op is priced inside cost_linear_attn_s for
 * the kinds whose fits include the conv (KDA, Mamba2), not per token. */
bool cost_lin_conv_in_terms(const struct cost_model *c, const struct op *o)
{
	return (c->m->lin.kind == LIN_KDA || c->m->lin.kind == LIN_MAMBA2) &&
	       strcmp(o->name, "causal_conv1d") == 0;
}

/* Mamba2's measured conv of one layer (see above). */
static double mamba2_conv_s(const struct cost_model *c, double tokens, double seqs, bool decode)
{
	const struct model_cfg *m = c->m;
	const struct conv_terms *k = &mamba2_conv;
	double kh = (double)m->lin.k_heads / c->p.tp;
	double ch = (double)m->lin.v_heads / c->p.tp * (double)m->lin.v_dim +
		    2.0 * (kh < 1 ? 1.0 : kh) * (double)m->lin.k_dim;
	double bw = c->g->hbm_bw;

	if (decode)
		return k->gen_launch + seqs * ch * k->gen_bytes / bw;
	return k->launch + k->per_seq * seqs + tokens * ch * k->tok_bytes / bw;
}

/* The linear-attention terms' part of the run header. */
static void lin_terms_note(const struct cost_model *c, const struct cost_lin_terms *k, char *out, size_t cap)
{
	if (c->m->lin.kind == LIN_KDA)
		snprintf(out, cap,
			 "KDA fitted on measured vLLM 0.1.dev19262 KDA kernels (mfu/<gpu>/kda, data/mfu/fit_kda.py; "
			 "every engine): prefill %.0f us + %.2f us a 64-token chunk + SM and HBM terms (%d SMs), "
			 "decode state pass at %.2f of HBM + %.1f us",
			 k->launch * 1e6, k->per_chunk * 1e6, c->g->sm_count, k->gen_eta, k->gen_launch * 1e6);
	else if (c->m->lin.kind == LIN_MAMBA2)
		snprintf(out, cap,
			 "Mamba2: conv fitted on measured TensorRT-LLM 1.3 mamba2 conv kernels (data/mfu/fit_mamba2.py; "
			 "every engine): prefill %.1f us + %.2f us a sequence + HBM term, decode %.1f us + HBM term; "
			 "scan in the GDN form fitted on TensorRT-LLM's GDN recurrence kernels (no SSD scan measured): "
			 "prefill %.0f us + %.2f us a 64-token chunk + SM and HBM terms, decode state pass at %.2f of HBM",
			 mamba2_conv.launch * 1e6, mamba2_conv.per_seq * 1e6, mamba2_conv.gen_launch * 1e6,
			 k->launch * 1e6, k->per_chunk * 1e6, k->gen_eta);
	else
		snprintf(out, cap,
			 "fitted on measured GDN kernels of %s (data/mfu/fit_gdn.py): prefill %.0f us + %.2f us a "
			 "64-token chunk + SM and HBM terms (%d SMs), decode state pass at %.2f of HBM + %.1f us",
			 c->cfg.engine->name, k->launch * 1e6, k->per_chunk * 1e6,
			 c->g->sm_count, k->gen_eta, k->gen_launch * 1e6);
}

/* The run header's line for the linear-attention layers (and Kimi Linear's
 * attention residuals, which have no measured kernel). */
static void lin_source_note(const struct cost_model *c, char *out, size_t cap)
{
	const struct cost_lin_terms *k = c->lin;
	size_t n;

	lin_terms_note(c, k, out, cap);
	n = strlen(out);
	if (c->m->attn_res_block > 0 && n < cap)
		snprintf(out + n, cap - n,
			 "; attention residuals (blocks of %lld layers): an elementwise roofline op per sublayer, "
			 "no measured kernel",
			 (long long)c->m->attn_res_block);
}

/* Linear attention of one layer: `tokens` new tokens over `seqs` sequences
 * (a prefill chunk: one sequence; a decode step: one token each). */
double cost_linear_attn_s(const struct cost_model *c, double tokens, double seqs, bool decode)
{
	const struct model_cfg *m = c->m;
	const struct cost_lin_terms *k = c->lin;
	double vh = (double)m->lin.v_heads / c->p.tp;
	double elems = vh * (double)(m->lin.v_dim * m->lin.k_dim);
	double bw = c->g->hbm_bw, per_seq, conv;

	if (tokens <= 0 || seqs <= 0)
		return 0;
	conv = m->lin.kind == LIN_MAMBA2 ? mamba2_conv_s(c, tokens, seqs, decode) : 0.0;
	if (decode)
		return conv + k->gen_launch + 2.0 * seqs * elems * m->lin.state_elem_bytes / (bw * k->gen_eta);
	per_seq = tokens / seqs;
	return conv + k->launch + k->per_chunk * ceil(per_seq / LIN_CHUNK) +
	       tokens * elems * (k->sm_s / (double)c->g->sm_count + k->tok_bytes / bw) +
	       seqs * elems * k->seq_bytes / bw;
}

void cost_lin_note(struct cost_model *c)
{
	if (c->m->n_mixer[LM_LINEAR] > 0)
		lin_source_note(c, c->src[COST_SRC_LINEAR], sizeof(c->src[0]));
}
