/* scenopts.c - the model / hardware / engine / cost flags parsed into
 * struct scenflags, and the resolved configuration the reports print. */
#include <stdio.h>
#include <string.h>

#include "scenopts.h"
#include "engine/registry.h"

int scenflags_option(int code, const char *arg, struct scenflags *f, struct err *e)
{
	int rc = 0;

	switch (code) {
	case SCF: f->model = arg; break;
	case SCF + 1: f->config = arg; break;
	case SCF + 2: f->gpu = arg; f->gpu_given = true; break;
	case SCF + 4: rc = dtype_parse(arg, &f->dtype, e); break;
	case SCF + 5: rc = dtype_parse(arg, &f->kvdtype, e); f->kv_given = true; break;
	case SCF + 14: f->tier0_off = arg; break;
	case SCF + 15: f->tier2 = arg; break;
	case SCF + 16: rc = engine_lookup(arg, &f->engine, e); break;
	case SCF + 17: rc = engine_version_check(arg, e); f->engine_version = arg; break;
	case SCF + 18: rc = dtype_parse(arg, &f->moe_dtype, e); f->moe_dtype_given = true; break;
	case SCF + 19: rc = moe_dist_parse(arg, &f->moe_dist, e); break;
	case SCF + 20: {
		enum moe_fmt mf;
		if ((rc = moe_fmt_parse(arg, &mf, e)) == 0)
			f->moe_format = (int)mf + 1;
		break;
	}
	case SCF + 21: f->allow_invalid = true; break;
	case SCF + 22: f->calibration = arg; break;
	case SCF + 23: f->force_calibration = true; break;
	default:
		if ((rc = cli_deploy_option(&deploy_table, code, arg, &f->k, e)) != 0)
			return rc;
		if ((rc = cli_shape_option(code, arg, NULL, &f->par, &f->pf, e)) != 0)
			return rc;
		if ((rc = cli_overhead_option(code, arg, &f->ov, e)) > 0)
			f->ov_given = true;
		return rc;
	}
	return rc < 0 ? rc : 1;
}

static const char help_model[] =
	"model and hardware (as servesim run):\n"
	"  --model M | --config PATH  registry id or HF name (default llama-3.1-8b) or config.json\n"
	"  --gpu G                   GPU (default h100)\n"
	"  --tp N --dp N --ep N --pp N  parallel layout (vLLM and SGLang spellings accepted)\n"
	/* (then the pool's lines of the deployment field table) */
	;
static const char help_model2[] =
	"  --dtype D --kv-dtype D --moe-dtype D --moe-format F --moe-distribution D\n"
	"  --engine vllm|sglang|trtllm --engine-version V\n"
	"  --allow-invalid --tier0-off LIST --tier2 FILE|none\n"
	"  --calibration FILE|none   tier-1 file (default: the accepted one in calibration/tier1/\n"
	"                            for the GPU and engine version, unless overhead flags are given);\n"
	"                            a file marked rejected is not applied without --force-calibration\n"
	"  --overhead-step-us X --overhead-layer-us X --overhead-request-us X\n"
	"  --api-ttft-ms X --api-prompt-us X --stream-token-us X --delivery-steps X --eager-op-us X\n"
	"engine (vLLM v1 defaults; SGLang's spellings taken too):\n";

void scenopts_help_sglang(FILE *f)
{
	fputs("SGLang's own (--engine sglang: its scheduler and its defaults, docs/engines.md):\n", f);
	cli_help_fields(&deploy_table, DEPLOY_G_SGLANG, f);
}

void scenopts_help_offload(FILE *f)
{
	fputs("KV offload to host memory (docs/engines.md, \"KV offload\"):\n", f);
	cli_help_fields(&deploy_table, DEPLOY_G_OFFLOAD, f);
	fputs("LoRA adapters (docs/engines.md, \"LoRA\"; the workload's 'lora' block names them):\n", f);
	cli_help_fields(&deploy_table, DEPLOY_G_LORA, f);
	fputs("expert-parallel load balancing (EP > 1; docs/engines.md, \"EPLB\"):\n", f);
	cli_help_fields(&deploy_table, DEPLOY_G_EPLB, f);
}

void scenopts_help(FILE *f)
{
	fputs(help_model, f);
	cli_help_fields(&deploy_table, DEPLOY_G_POOL, f);
	fputs(help_model2, f);
	cli_help_fields(&deploy_table, DEPLOY_G_ENGINE, f);
	scenopts_help_sglang(f);
	scenopts_help_offload(f);
}
