/* scenopts.c - the model / hardware / engine / cost flags parsed into
 * struct scenflags, and the resolved configuration the reports print. */
#include <stdio.h>
#include <string.h>

#include "scenopts.h"
#include "engine/registry.h"
#include "engine/sglang.h"

int scenflags_option(int code, const char *arg, struct scenflags *f, struct err *e)
{
	int rc = 0;

	switch (code) {
	case SCF: f->model = arg; break;
	case SCF + 1: f->config = arg; break;
	case SCF + 2: f->gpu = arg; f->gpu_given = true; break;
	case SCF + 3: rc = router_parse("--router", arg, &f->router, e); break;
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
	case SCF + 25: {
		enum sglang_policy pol;
		rc = sglang_policy_parse(arg, &pol, e);
		f->sg_policy = arg;
		break;
	}
	case SCF + 27: rc = cli_int("--replicas", arg, 1, SIM_MAX_REPLICAS, &f->replicas, e); break;
	case SCF + 33:
		if (strcmp(arg, "native") != 0 && strcmp(arg, "lmcache") != 0)
			rc = err_set(e, SS_EUSAGE, "--kv-offloading-backend must be native or lmcache, got '%s'", arg);
		f->kv_off_backend = arg;
		break;
	case SCF + 38: rc = cli_int("--max-loras", arg, 1, 4096, &f->lora_max_vl, e); break;
	case SCF + 40: rc = cli_int("--max-cpu-loras", arg, 1, WL_MAX_ADAPTERS, &f->lora_host_vl, e); break;
	case SCF + 41: rc = cli_int("--max-loras-per-batch", arg, 1, 4096, &f->lora_max_sg, e); break;
	case SCF + 42: rc = cli_int("--max-loaded-loras", arg, 1, WL_MAX_ADAPTERS, &f->lora_host_sg, e); break;
	case SCF + 43:
		rc = cli_int("--scheduler-recv-interval", arg, 1, SIM_MAX_RECV_INTERVAL, &f->recv_interval, e);
		break;
	case SCF + 46: f->eplb = true; break;
	case SCF + 47: f->eplb_config = arg; break;
	case SCF + 48: rc = cli_int("--num-redundant-experts", arg, 0, 1 << 16, &f->eplb_nre_vl, e); break;
	case SCF + 49: rc = cli_int("--ep-num-redundant-experts", arg, 0, 1 << 16, &f->eplb_nre_sg, e); break;
	case SCF + 50:
		rc = cli_int("--eplb-rebalance-num-iterations", arg, 1, INT64_C(1) << 40, &f->eplb_iters, e);
		break;
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
	"  --replicas N              N independent copies of the whole deployment (default 1)\n"
	"  --router R                round-robin, least-loaded (default) or kv-aware: picks a\n"
	"                            replica, then a DP rank in it (aliases rr, lo, kv)\n"
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
	fputs("SGLang's own (--engine sglang: its scheduler and its defaults, docs/engines.md):\n"
	      "  --schedule-policy fcfs|lpm  waiting-queue order (default fcfs)\n", f);
	cli_help_fields(&deploy_table, DEPLOY_G_SGLANG, f);
	fputs("  --scheduler-recv-interval N  while it runs, the scheduler polls for new requests\n"
	      "                            every N decode batches or after any other batch (default 1)\n", f);
}

void scenopts_help_offload(FILE *f)
{
	fputs("KV offload to host memory (docs/engines.md, \"KV offload\"):\n", f);
	cli_help_fields(&deploy_table, DEPLOY_G_OFFLOAD, f);
	fputs("  --kv-offloading-backend native|lmcache  vLLM's OffloadingConnector (loads beside the\n"
	      "                            step, default) or LMCache's (synchronous load and store)\n"
	      "LoRA adapters (docs/engines.md, \"LoRA\"; the workload's 'lora' block names them):\n", f);
	cli_help_fields(&deploy_table, DEPLOY_G_LORA, f);
	fputs("  --max-loras N             adapters per step (vLLM, default 1); SGLang:\n"
	      "                            --max-loras-per-batch N (default 8, the base model one of them)\n"
	      "  --max-cpu-loras M         adapters in host memory (vLLM, default N); SGLang:\n"
	      "                            --max-loaded-loras M (default all)\n"
	      "expert-parallel load balancing (EP > 1; docs/engines.md, \"EPLB\"):\n"
	      "  --enable-eplb             redundant experts placed by DeepSeek's EPLB: vLLM's\n"
	      "                            --eplb-config JSON (num_redundant_experts, step_interval 3000,\n"
	      "                            use_async) or --num-redundant-experts N; SGLang's\n"
	      "                            --ep-num-redundant-experts N, --eplb-rebalance-num-iterations N\n"
	      "                            (1000)\n", f);
}

void scenopts_help(FILE *f)
{
	fputs(help_model, f);
	cli_help_fields(&deploy_table, DEPLOY_G_ENGINE, f);
	scenopts_help_sglang(f);
	scenopts_help_offload(f);
}
