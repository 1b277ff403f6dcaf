/* scenopts.c - the model / hardware / engine / cost flags' table and help
 * (scenopts.h). */
#include <stdio.h>
#include <string.h>

#include "engine/scenopts.h"
#include "base/sbuf.h"
#include "cost/ovflags.h"
#include "engine/registry.h"

static int parse_engine(const char *flag, const char *arg, void *dst, struct err *e)
{
	(void)flag;
	return engine_lookup(arg, dst, e);
}

static int parse_moe_dist(const char *flag, const char *arg, void *dst, struct err *e)
{
	(void)flag;
	return moe_dist_parse(arg, dst, e);
}

/* scenflags.moe_format: the format + 1 (0: as the checkpoint stores it) */
static int parse_moe_format(const char *flag, const char *arg, void *dst, struct err *e)
{
	enum moe_fmt mf;
	int rc;

	(void)flag;
	if ((rc = moe_fmt_parse(arg, &mf, e)) == 0)
		*(int *)dst = (int)mf + 1;
	return rc;
}

static int parse_moe_backend(const char *flag, const char *arg, void *dst, struct err *e)
{
	(void)flag;
	return moe_backend_parse(arg, dst, e);
}

static void help_all(FILE *f);

#define O(m) offsetof(struct scenflags, m)
#define G(m) .given = ARGTAB_GIVEN(struct scenflags, m)
static const struct argtab_row rows[] = {
	AT_SEC(help_all),
	{AT_S("--model", "M", O(model), NULL)},
	{AT_S("--config", "PATH", O(config), NULL)},
	{AT_S("--gpu", "G", O(gpu), NULL), G(gpu_given)},
	{AT_F("--dtype", "D", O(dtype), dtype_arg, NULL)},
	{AT_F("--kv-dtype", "D", O(kvdtype), dtype_arg, NULL), G(kv_given)},
	{AT_S("--tier0-off", "LIST", O(tier0_off), NULL)},
	{AT_S("--tier2", "FILE", O(tier2), NULL)},
	{AT_F("--engine", "E", O(engine), parse_engine, NULL)},
	{AT_F("--engine-version", "V", O(engine_version), engine_version_arg, NULL)},
	{AT_F("--moe-dtype", "D", O(moe_dtype), dtype_arg, NULL), G(moe_dtype_given)},
	{AT_F("--moe-distribution", "D", O(moe_dist), parse_moe_dist, NULL)},
	{AT_F("--moe-format", "F", O(moe_format), parse_moe_format, NULL)},
	{AT_F("--moe-backend", "B", O(moe_backend), parse_moe_backend, NULL)},
	{AT_B("--allow-invalid", O(allow_invalid), NULL)},
	{AT_S("--calibration", "FILE", O(calibration), NULL)},
	{AT_B("--force-calibration", O(force_calibration), NULL)},
	{PAR_FLAGS_INCLUDE(struct scenflags, par, pf)},
	{AT_TQ(&par_flags_pp_tab, O(par))},
	{AT_TQ(&ov_flags_tab, O(ov)), G(ov_given)},
};
const struct argtab scenflags_tab = ARGTAB(rows, 0);

void scenopts_help_group(enum deploy_group g, FILE *f)
{
	struct sbuf sb;

	sb_init(&sb);
	deploy_help(&deploy_table, g, &sb);
	fputs(sb.buf, f);
	sb_release(&sb);
}

static const char help_model[] =
	"model and hardware (as servesim run):\n"
	"  --model M | --config PATH  registry id or HF name (default llama-3.1-8b), or a\n"
	"                            config.json or model folder\n"
	"  --gpu G                   GPU (default h100)\n"
	"  --tp N --dp N --ep N --pp N  parallel layout (vLLM and SGLang spellings accepted)\n"
	/* (then the pool's lines of the deployment field table) */
	;
static const char help_model2[] =
	"  --dtype D --kv-dtype D --moe-dtype D --moe-format F --moe-distribution D\n"
	"  --moe-backend B           the routed experts' kernels as TensorRT-LLM's moe_config.backend\n"
	"                            names them: TRTLLM (trtllm-gen), DEEPGEMM, CUTLASS, CUTEDSL or\n"
	"                            WIDEEP; vLLM's: DEEPGEMM or TRITON (VLLM_MOE_USE_DEEP_GEMM=1 / 0)\n"
	"                            (default: the tables' fastest kernel per shape)\n"
	"  --engine vllm|sglang|trtllm --engine-version V\n"
	"  --allow-invalid --tier0-off LIST --tier2 FILE|none\n"
	"  --calibration FILE|none   tier-1 file (default: the accepted one in calibration/tier1/\n"
	"                            for the GPU and engine version, unless overhead flags are given);\n"
	"                            a file marked rejected is not applied without --force-calibration\n"
	"  --overhead-step-us X --overhead-layer-us X --overhead-request-us X\n"
	"  --api-ttft-ms X --api-prompt-us X --stream-token-us X --delivery-steps X --eager-op-us X\n"
	"  --api-loop-ms X --jit-compile-ms X\n"
	"engine (vLLM v1 defaults; SGLang's spellings taken too):\n";

void scenopts_help_sglang(FILE *f)
{
	fputs("SGLang's own (--engine sglang: its scheduler and its defaults, docs/engines.md):\n", f);
	scenopts_help_group(DEPLOY_G_SGLANG, f);
}

void scenopts_help_offload(FILE *f)
{
	fputs("KV offload to host memory (docs/engines.md, \"KV offload\"):\n", f);
	scenopts_help_group(DEPLOY_G_OFFLOAD, f);
	fputs("LoRA adapters (docs/engines.md, \"LoRA\"; the workload's 'lora' block names them):\n", f);
	scenopts_help_group(DEPLOY_G_LORA, f);
	fputs("expert-parallel load balancing (EP > 1; docs/engines.md, \"EPLB\"):\n", f);
	scenopts_help_group(DEPLOY_G_EPLB, f);
}

static void help_all(FILE *f)
{
	fputs(help_model, f);
	scenopts_help_group(DEPLOY_G_POOL, f);
	fputs(help_model2, f);
	scenopts_help_group(DEPLOY_G_ENGINE, f);
	scenopts_help_sglang(f);
	scenopts_help_offload(f);
}
