/* allreduce.c - the all-reduce kernel family: a TP group's all-reduce from
 * the engine's measured tables, vLLM's fused all-reduce from the tables that
 * time its kernel, a TP group over several nodes on the network, and the
 * ring model over the GPU's link where nothing is measured. */
#include <stdio.h>
#include <string.h>

#include "cost/costmodel.h"
#include "cost/kern.h"

/* Whose collection times the kernel of vLLM's fused all-reduce
 * (cost_cfg.ar_fused_bytes): vLLM's pass calls FlashInfer's
 * trtllm_allreduce_fusion (vllm-project/vllm
 * vllm/compilation/passes/fusion/allreduce_rms_fusion.py @ 0052812d,
 * call_trtllm_fused_allreduce_norm; flashinfer-ai/flashinfer
 * flashinfer/comm/trtllm_ar.py), TensorRT-LLM's all-reduce fusion kernel. */
#define AR_FUSED_TABLES "trtllm"

double cost_allreduce_s(const struct cost_model *c, double elems)
{
	double t;

	if (c->place.tp_cross) /* a TP group over several nodes */
		t = comm_allreduce_cross_s(&c->place, c->p.tp, elems * 2.0);
	else if (c->ar_tabs && elems * 2.0 <= c->cfg.ar_fused_bytes &&
		 (t = mfu_allreduce_s(c->ar_tabs, c->p.tp, elems)) >= 0)
		; /* vLLM's fused all-reduce (cost_cfg.ar_fused_bytes) */
	else
		t = mfu_allreduce_s(c->tabs, c->p.tp, elems);
	if (t < 0) /* ring model over the GPU's link */
		t = 10e-6 + 2.0 * (c->p.tp - 1) / c->p.tp * elems * 2.0 / (c->g->link_bw * 0.7);
	return t;
}

int cost_allreduce_init(struct cost_model *c, const char *data_dir, struct err *e)
{
	const struct cost_cfg *cfg = &c->cfg;
	int rc;

	/* TensorRT-LLM's all-reduce kernel, timed in that engine's collection
	 * for this GPU */
	if (cfg->ar_fused_bytes <= 0 || c->p.tp <= 1 || c->place.tp_cross)
		return 0;
	if (cfg->cache) {
		rc = mfu_cache_get(cfg->cache, data_dir, c->g, AR_FUSED_TABLES, NULL, "", (cfg->off & COST_H6) != 0,
				   false, cfg->moe_dist, &c->ar_tabs, e);
	} else {
		rc = mfu_load(&c->own_ar_tabs, data_dir, c->g, AR_FUSED_TABLES, NULL, "", e);
		c->ar_tabs = &c->own_ar_tabs;
	}
	if (rc < 0)
		return rc;
	if (strcmp(c->ar_tabs->engine, AR_FUSED_TABLES) != 0 || !c->ar_tabs->src[MFU_P_ALLREDUCE][0])
		c->ar_tabs = NULL; /* none measured on this GPU: the engine's own path */
	return 0;
}

void cost_allreduce_note(struct cost_model *c)
{
	const struct mfu_tables *t = c->tabs;

	if (c->p.tp > 1)
		snprintf(c->src[COST_SRC_ALLREDUCE], sizeof(c->src[0]), "%s",
			 t->src[MFU_P_ALLREDUCE][0] && c->p.tp <= 8 ? t->src[MFU_P_ALLREDUCE]
								      : "ring model over the GPU link");
	if (c->ar_tabs) {
		cost_src_add(c, COST_SRC_ALLREDUCE,
			     "; up to %.4g MiB fused with RMSNorm (FlashInfer's port of TensorRT-LLM's kernel): %s",
			     c->cfg.ar_fused_bytes / (1024.0 * 1024.0), c->ar_tabs->src[MFU_P_ALLREDUCE]);
	}
}
