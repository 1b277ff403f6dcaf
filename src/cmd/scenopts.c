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
	case SCF + 6: rc = cli_int("--max-num-batched-tokens", arg, 1, 1 << 20, &f->mbt, e); break;
	case SCF + 7: rc = cli_int("--max-num-seqs", arg, 1, 1 << 16, &f->mns, e); break;
	case SCF + 8: rc = cli_int("--max-model-len", arg, 1, 1 << 24, &f->mml, e); break;
	case SCF + 9: rc = cli_int("--block-size", arg, 1, 1024, &f->block, e); f->block_given = true; break;
	case SCF + 10:
		rc = cli_double("--gpu-memory-utilization", arg, 0, true, &f->util, e);
		if (rc == 0 && f->util > 1)
			rc = err_set(e, SS_EUSAGE, "--gpu-memory-utilization must be in (0, 1], got %g", f->util);
		f->util_given = true;
		break;
	case SCF + 11: rc = cli_int("--long-prefill-token-threshold", arg, 0, 1 << 24, &f->lpt, e); break;
	case SCF + 12: rc = cli_int("--total-kv-blocks", arg, 1, 1 << 28, &f->kv_blocks, e); break;
	case SCF + 13: f->no_prefix = true; break;
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
		if ((rc = cli_shape_option(code, arg, NULL, &f->par, &f->pf, e)) != 0)
			return rc;
		if ((rc = cli_overhead_option(code, arg, &f->ov, e)) > 0)
			f->ov_given = true;
		return rc;
	}
	return rc < 0 ? rc : 1;
}
