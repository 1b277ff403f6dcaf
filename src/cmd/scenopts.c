/* scenopts.c - the model / hardware / engine / cost flags parsed into
 * struct scenflags, and the resolved configuration the reports print. */
#include <stdio.h>
#include <string.h>

#include "scenopts.h"
#include "engine/registry.h"
#include "engine/sglang.h"

/* A number in (0, hi] (unit after hi in the message). */
static int positive_upto(const char *flag, const char *arg, double hi, const char *unit, double *out, struct err *e)
{
	int rc = cli_double(flag, arg, 0, true, out, e);

	if (rc == 0 && *out > hi)
		rc = err_set(e, SS_EUSAGE, "%s must be in (0, %.15g]%s, got %g", flag, hi, unit, *out);
	return rc;
}

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
	case SCF + 24:
		rc = cli_double("--mem-fraction-static", arg, 0, true, &f->mem_frac, e);
		if (rc == 0 && f->mem_frac > 1)
			rc = err_set(e, SS_EUSAGE, "--mem-fraction-static must be in (0, 1], got %g", f->mem_frac);
		break;
	case SCF + 25: {
		enum sglang_policy pol;
		rc = sglang_policy_parse(arg, &pol, e);
		f->sg_policy = arg;
		break;
	}
	case SCF + 26: f->no_overlap = true; break;
	case SCF + 27: rc = cli_int("--replicas", arg, 1, SIM_MAX_REPLICAS, &f->replicas, e); break;
	case SCF + 32: rc = positive_upto("--kv-offloading-size", arg, 1048576, " GiB", &f->kv_off_gib, e); break;
	case SCF + 33:
		if (strcmp(arg, "native") != 0 && strcmp(arg, "lmcache") != 0)
			rc = err_set(e, SS_EUSAGE, "--kv-offloading-backend must be native or lmcache, got '%s'", arg);
		f->kv_off_backend = arg;
		break;
	case SCF + 34: f->hicache = true; break;
	case SCF + 35: rc = positive_upto("--hicache-ratio", arg, 1000, "", &f->hicache_ratio, e); break;
	case SCF + 36: rc = positive_upto("--hicache-size", arg, 1048576, " GB", &f->hicache_gb, e); break;
	case SCF + 37: f->lora = true; break;
	case SCF + 38: rc = cli_int("--max-loras", arg, 1, 4096, &f->lora_max_vl, e); break;
	case SCF + 39: rc = cli_int("--max-lora-rank", arg, 1, 4096, &f->lora_rank, e); break;
	case SCF + 40: rc = cli_int("--max-cpu-loras", arg, 1, WL_MAX_ADAPTERS, &f->lora_host_vl, e); break;
	case SCF + 41: rc = cli_int("--max-loras-per-batch", arg, 1, 4096, &f->lora_max_sg, e); break;
	case SCF + 42: rc = cli_int("--max-loaded-loras", arg, 1, WL_MAX_ADAPTERS, &f->lora_host_sg, e); break;
	case SCF + 43:
		rc = cli_int("--scheduler-recv-interval", arg, 1, SIM_MAX_RECV_INTERVAL, &f->recv_interval, e);
		break;
	case SCF + 44: f->mixed_chunk = true; break;
	case SCF + 45: rc = cli_int("--max-prefill-tokens", arg, 1, 1 << 24, &f->max_prefill, e); break;
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

static const char help_sglang[] =
	"SGLang's own (--engine sglang: its scheduler and its defaults, docs/engines.md):\n"
	"  --mem-fraction-static F   weights + KV pool as a share of GPU memory (SGLang's rule)\n"
	"  --schedule-policy fcfs|lpm  waiting-queue order (default fcfs)\n"
	"  --disable-overlap-schedule  the CPU overhead terms add to each step (default:\n"
	"                            overlapped with the GPU's previous batch)\n"
	"  --max-prefill-tokens N    prompt tokens one prefill batch takes (past its first\n"
	"                            request a prompt joins only while it fits; default: no cap)\n"
	"  --enable-mixed-chunk      prefill batches carry the running decoders' tokens\n"
	"  --scheduler-recv-interval N  while it runs, the scheduler polls for new requests\n"
	"                            every N decode batches or after any other batch (default 1)\n"
	SCENFLAGS_OFFLOAD_HELP;

void scenopts_help(FILE *f)
{
	fputs(help_model, f);
	cli_help_fields(&deploy_table, f);
	fputs(help_sglang, f);
}
