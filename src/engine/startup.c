/* startup.c - the engines' start-up checks (see scenario.h):
 * configurations the engines refuse to start, refused here in their words,
 * or simulated with a warning under --allow-invalid. */
#include <stdio.h>
#include <string.h>

#include "engine/engine.h"
#include "engine/scenario.h"

/* Append one line to the notes buffer. */
static void note(char *buf, size_t n, const char *line)
{
	size_t len = strlen(buf);

	if (len + 1 < n)
		snprintf(buf + len, n - len, "%s%s", len ? "\n" : "", line);
}

/* A refusal: an error, or with allow a warning line. */
static int refuse(bool allow, char *notes, size_t nn, struct err *e, const char *msg)
{
	char line[1100];

	if (!allow)
		return err_set(e, SS_EUSAGE, "%s (--allow-invalid simulates it anyway)", msg);
	snprintf(line, sizeof(line), "invalid configuration simulated (--allow-invalid): %s", msg);
	note(notes, nn, line);
	return 0;
}

int scenario_check_config(const struct scenario *sc, bool allow, char *notes, size_t nn,
			  struct err *e)
{
	const struct model_cfg *m = sc->model;
	const struct gpu_spec *g = sc->gpu;
	const struct parallel *p = &sc->par;
	char msg[1024];
	int rc;

	/* weights in a dtype the GPU has no tensor cores for */
	if (g->peak_flops[sc->wdt] <= 0) {
		if (sc->wdt == DT_FP8) {
			/* vLLM's fp8 path on Ampere: Marlin W8A16 kernels */
			snprintf(msg, sizeof(msg),
				 "%s has no fp8 tensor cores: vLLM runs fp8 weights as W8A16 (Marlin), so GEMMs are priced at the bf16 peak with fp8 weight bytes (weight-only quantisation)",
				 g->id);
			note(notes, nn, msg);
		} else {
			snprintf(msg, sizeof(msg),
				 "%s weights need tensor cores %s does not have (no %s peak in data/gpus.json): vLLM and SGLang refuse to load such a checkpoint on this GPU",
				 dtype_name(sc->wdt), g->id, dtype_name(sc->wdt));
			if ((rc = refuse(allow, notes, nn, e, msg)) < 0)
				return rc;
		}
	}
	/* vLLM: max_model_len may not exceed the derived maximum */
	if (m->max_positions > 0 && sc->k.max_model_len > m->max_positions) {
		snprintf(msg, sizeof(msg),
			 "User-specified max_model_len (%lld) is greater than the derived max_model_len (max_position_embeddings=%lld in %s's config.json); vLLM refuses unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 (rope scaling is not read from the config)",
			 (long long)sc->k.max_model_len, (long long)m->max_positions, m->id);
		if ((rc = refuse(allow, notes, nn, e, msg)) < 0)
			return rc;
	}
	if (sc->engine->start_refused && sc->engine->start_refused(sc, msg, sizeof(msg)) &&
	    (rc = refuse(allow, notes, nn, e, msg)) < 0)
		return rc;
	/* EPLB places experts over EP ranks: without EP there is nothing to
	 * balance (vLLM: "enable_expert_parallel must be True to use EPLB"),
	 * and DeepSeek's packing puts the same number of physical experts on
	 * every rank */
	if (sc->eplb && m->n_experts == 0)
		return err_set(e, SS_EUSAGE, "--enable-eplb: %s has no routed experts to balance", m->id);
	if (sc->eplb && p->ep <= 1) {
		snprintf(msg, sizeof(msg),
			 "--enable-eplb needs expert parallelism, but EP is 1 (give --enable-expert-parallel for vLLM, --ep-size N for SGLang; vLLM refuses: enable_expert_parallel must be True to use EPLB)");
		if ((rc = refuse(allow, notes, nn, e, msg)) < 0)
			return rc;
	} else if (sc->eplb && (m->n_experts + p->ep_redundant) % p->ep != 0) {
		snprintf(msg, sizeof(msg),
			 "--enable-eplb: %lld experts + %d redundant = %lld physical experts do not divide over EP %d (EPLB puts the same number on every rank): give a redundant count that makes the sum a multiple of %d",
			 (long long)m->n_experts, p->ep_redundant, (long long)(m->n_experts + p->ep_redundant),
			 p->ep, p->ep);
		if ((rc = refuse(allow, notes, nn, e, msg)) < 0)
			return rc;
	} else if (!sc->eplb && p->ep > 1 && p->ep_redundant > 0 && (m->n_experts + p->ep_redundant) % p->ep != 0) {
		snprintf(msg, sizeof(msg),
			 "--ep-num-redundant-experts: %lld experts + %d redundant = %lld physical experts do not divide over EP %d (the same number sits on every rank)",
			 (long long)m->n_experts, p->ep_redundant, (long long)(m->n_experts + p->ep_redundant), p->ep);
		if ((rc = refuse(allow, notes, nn, e, msg)) < 0)
			return rc;
	}
	/* vLLM ties EP to TP x DP (enable_expert_parallel); SGLang's
	 * ep_size is 1 or the engine's GPU count; an engine with its own rule
	 * words it (engine_type.ep_refused) */
	if (sc->engine->ep_refused) {
		if (sc->engine->ep_refused(sc, msg, sizeof(msg)) && (rc = refuse(allow, notes, nn, e, msg)) < 0)
			return rc;
	} else if (m->n_experts > 0 && p->ep > 1 && p->ep != p->tp * p->dp) {
		snprintf(msg, sizeof(msg),
			 "expert parallel size %d is not TP x DP = %d x %d = %d: vLLM sets EP = TP x DP when --enable-expert-parallel is on, SGLang needs --ep-size equal to the GPUs of the engine",
			 p->ep, p->tp, p->dp, p->tp * p->dp);
		if ((rc = refuse(allow, notes, nn, e, msg)) < 0)
			return rc;
	}
	return 0;
}

int scenario_check_pd(const struct scenario *sc, bool allow, char *notes, size_t nn, struct err *e)
{
	const struct gpu_spec *pg = sc->prefill_gpu;
	char msg[512];

	/* P/D on two GPU types: the prefill workers' GPU takes the weights
	 * too (scenario_check_config checked the decode workers') */
	if (pg && sc->pd_prefill > 0 && pg->peak_flops[sc->wdt] <= 0 && sc->wdt == DT_FP8) {
		/* as scenario_check_config words it for one GPU type */
		snprintf(msg, sizeof(msg),
			 "the prefill workers' %s has no fp8 tensor cores: vLLM runs fp8 weights as W8A16 (Marlin), so their GEMMs are priced at the bf16 peak with fp8 weight bytes (weight-only quantisation)",
			 pg->id);
		note(notes, nn, msg);
	} else if (pg && sc->pd_prefill > 0 && pg->peak_flops[sc->wdt] <= 0) {
		snprintf(msg, sizeof(msg),
			 "%s weights need tensor cores the prefill workers' %s does not have (no %s peak in data/gpus.json): the engines refuse to load such a checkpoint there",
			 dtype_name(sc->wdt), pg->id, dtype_name(sc->wdt));
		return refuse(allow, notes, nn, e, msg);
	}
	if (!pg || sc->pd_prefill <= 0)
		return 0;
	/* the engine's own start-up refusals, on the prefill workers' GPU
	 * (TensorRT-LLM on an AMD GPU; a KV-cache dtype that GPU lacks) */
	if (sc->engine->start_refused) {
		struct scenario ps = *sc;
		char why[400];

		ps.gpu = pg;
		if (sc->engine->start_refused(&ps, why, sizeof(why))) {
			snprintf(msg, sizeof(msg), "the prefill workers: %s", why);
			return refuse(allow, notes, nn, e, msg);
		}
	}
	/* one pool on each vendor's GPUs: every engine's KV-transfer back end
	 * (vLLM's NIXL connector; SGLang's Mooncake, NIXL or MORI; TensorRT-LLM's
	 * UCX/NIXL transceiver) runs in a build for one vendor's GPUs (a CUDA or
	 * a ROCm image), and none documents a hand-off between the two */
	if (strcmp(pg->vendor, sc->gpu->vendor) != 0) {
		snprintf(msg, sizeof(msg),
			 "prefill on %s (%s) and decode on %s (%s): no engine documents a KV hand-off between GPUs of two "
			 "vendors (each engine image, and its KV-transfer back end, is built for one vendor's GPUs); "
			 "it would be priced as a same-vendor hand-off over the slower link",
			 pg->id, pg->vendor, sc->gpu->id, sc->gpu->vendor);
		return refuse(allow, notes, nn, e, msg);
	}
	return 0;
}

int scenario_check_spec(const struct scenario *sc, bool allow, char *notes, size_t nn, struct err *e)
{
	char msg[512];

	/* MTP drafts with the checkpoint's own modules: vLLM and SGLang refuse
	 * the method on a model without them */
	if (sc->spec.k > 0 && sc->spec.method == SPEC_MTP && sc->model->mtp_layers == 0) {
		snprintf(msg, sizeof(msg), "%s's config has no MTP module (num_nextn_predict_layers): the engines "
			 "refuse MTP speculative decoding on it (an MTP layer would be priced as one more decoder "
			 "layer)", sc->model->id);
		return refuse(allow, notes, nn, e, msg);
	}
	return 0;
}

int scenario_check_capacity(const struct scenario *sc, const struct scenario_state *st,
			    bool allow, char *notes, size_t nn, struct err *e)
{
	int64_t bs = st->sc.block_size, need, have = st->sc.total_kv_blocks;
	char msg[1024];

	need = (st->sc.max_model_len + bs - 1) / bs;
	if (need <= have)
		return 0;
	/* a block count given as a running engine's log prints it: the engine
	 * started, so it held one request of max_model_len (the help promises
	 * exit 2 for less; --total-kv-blocks 1 ran every request into a
	 * rejection, issue 30) */
	if (!st->kv_from_memory) {
		snprintf(msg, sizeof(msg),
			 "--total-kv-blocks %lld holds %lld tokens, less than one request of max_model_len %lld: an engine "
			 "that started and logged that many blocks holds at least one; give --max-model-len %lld or less, "
			 "or more blocks", (long long)have, (long long)(have * bs), (long long)st->sc.max_model_len,
			 (long long)(have * bs));
		return refuse(allow, notes, nn, e, msg);
	}
	/* vLLM's check_enough_kv_cache_memory, per DP rank */
	snprintf(msg, sizeof(msg),
		 "To serve at least one request with the model's max seq len (%lld), %.2f GiB KV cache is needed, which is larger than the available KV cache memory (%.2f GiB). Based on the available memory, the estimated maximum model length is %lld. Try increasing `gpu_memory_utilization` or decreasing `max_model_len` (--max-model-len) when initializing the engine",
		 (long long)st->sc.max_model_len, (double)need * st->mp.block_bytes / 1073741824.0,
		 (double)have * st->mp.block_bytes / 1073741824.0, (long long)(have * bs));
	(void)sc;
	return refuse(allow, notes, nn, e, msg);
}

int scenario_start(const struct scenario *sc, const char *data_dir, bool allow, char *notes, size_t nnotes,
		   struct scenario_state *st, struct err *e)
{
	int rc;

	if ((rc = scenario_prepare(sc, data_dir, st, e)) < 0)
		return rc;
	if ((rc = scenario_check_capacity(sc, st, allow, notes, nnotes, e)) < 0)
		scenario_release(st);
	return rc;
}
