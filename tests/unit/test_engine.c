/* test_engine.c - the engine registry (lookup, lists, the settings only some
 * engines take) and an engine added from this one file: a toy engine with
 * its own defaults, start-up rule, KV dtype rule, kernel terms and
 * scheduler (static batching over sim/core.h's mechanics) runs a small
 * simulation through the same path every engine takes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fixture.h"
#include "engine/engine.h"
#include "engine/registry.h"
#include "cost/cost.h"
#include "hw/gpu.h"
#include "model/model.h"
#include "engine/scenario.h"
#include "workload/workload.h"
#include "sim/core.h"
#include "cost/lora.h"
#include "cost/vision.h"

static struct model_registry reg;
static struct gpu_db db;
static char datadir[1024];

static void test_registry(void)
{
	const struct engine_type *en;
	char names[128];
	struct err e;
	size_t i;

	CHECK(engine_find(NULL) == engine_default() && engine_find("") == engine_default(),
	      "no name: the default engine");
	CHECK(strcmp(engine_default()->name, "vllm") == 0, "the default engine is vLLM");
	for (i = 0; (en = engine_at(i)) != NULL; i++)
		CHECK(engine_find(en->name) == en && en->cost && en->kv_auto && en->title,
		      "%s: found by name, with kernel terms, a KV rule and a title", en->name);
	CHECK(i == 3, "three engines registered (%zu)", i);
	CHECK(engine_lookup("tgi", &en, &e) < 0 && e.code == SS_EUSAGE &&
		      strcmp(e.msg, "unknown engine 'tgi' (expected vllm, sglang or trtllm)") == 0,
	      "an unknown engine is refused with the list: %s", e.msg);
	engine_names(names, sizeof(names), "and", true);
	CHECK(strcmp(names, "vllm and sglang") == 0, "engines with launch lines: %s", names);
	CHECK(engine_owner(ENGINE_KNOB_MEM_FRACTION) == engine_find("sglang"), "SGLang takes --mem-fraction-static");
	CHECK(engine_check_knobs(engine_find("vllm"), ENGINE_KNOB_SCHEDULE_POLICY, false, &e) < 0 &&
		      strcmp(e.msg, "--schedule-policy is SGLang's: give --engine sglang") == 0,
	      "an SGLang flag on vLLM is refused: %s", e.msg);
	CHECK(engine_check_knobs(engine_find("trtllm"), ENGINE_KNOB_RECV_INTERVAL | ENGINE_KNOB_MIXED_CHUNK, false, &e) < 0 &&
		      strcmp(e.msg, "--enable-mixed-chunk and --scheduler-recv-interval are SGLang's: give --engine sglang") == 0,
	      "an SGLang flag on vLLM is refused: %s", e.msg);
	CHECK(engine_check_knobs(engine_find("sglang"), 0, true, &e) < 0 &&
		      strstr(e.msg, "sizes its memory with --mem-fraction-static") != NULL,
	      "--gpu-memory-utilization on SGLang is refused: %s", e.msg);
	CHECK(engine_check_knobs(engine_find("sglang"), ENGINE_KNOB_MEM_FRACTION | ENGINE_KNOB_NO_OVERLAP, false,
				 &e) == 0,
	      "SGLang takes its own flags");
}

/* --- a toy engine, from this file alone --- */

static void toy_defaults(struct scenario *sc)
{
	sc->k.max_num_batched_tokens = 1024; /* its own limits */
	sc->k.max_num_seqs = 32;
	sc->k.block_size = 32;
}

static enum dtype toy_kv_auto(const struct model_cfg *m, const struct gpu_spec *g, enum dtype wdt, char *why,
			      size_t n)
{
	(void)m;
	(void)g;
	(void)wdt;
	snprintf(why, n, "the toy engine's fp8 cache");
	return DT_FP8;
}

static bool toy_ep_refused(const struct scenario *sc, char *msg, size_t n)
{
	if (sc->par.ep == 1)
		return false;
	snprintf(msg, n, "the toy engine runs no expert parallelism (ep %d)", sc->par.ep);
	return true;
}

/* Static batching: every running request gets its next chunk or token;
 * waiting requests are admitted only once the whole batch has drained, each
 * with the KV of its whole lifetime reserved, so that no block is ever
 * missing (nothing is preempted). */
static void toy_schedule(struct sim *s, struct replica *rp)
{
	int64_t budget = rp->mbt;
	struct req *r;

	for (r = rp->run_head; r && budget > 0; r = r->next) {
		int64_t n = chunk_of(s, r, budget);
		if (!sched_grow_blocks(s, rp, r, blocks_for(s, r->computed + n) - r->nblocks))
			break;
		sched_push(rp, r, n);
		budget -= n;
	}
	if (rp->nrun == 0)
		sched_admit(s, rp, budget, INT64_MAX, NULL);
}

static enum admit_verdict toy_admit(struct sim *s, struct replica *rp, struct req *r, const struct admit_try *t,
				    int32_t *grow)
{
	r->ne_blocks = blocks_for(s, r->prompt + r->output);
	if (rp->ne_reserved + r->ne_blocks > rp->kv.total)
		return ADMIT_FULL;
	*grow = blocks_for(s, r->computed + t->n) - t->hits;
	return ADMIT_GO;
}

/* every request walked at every step: no lazy decoders */
static bool toy_lazy(const struct sim_cfg *cfg)
{
	(void)cfg;
	return false;
}

static const struct sched_policy toy_policy = {
	.schedule = toy_schedule,
	.admit = toy_admit,
	.lazy = toy_lazy,
};

static void toy_words(const struct sim_cfg *c, bool overlap, char *out, size_t n)
{
	(void)overlap;
	snprintf(out, n, "static batches of up to %lld requests", (long long)c->max_num_seqs);
}

/* vLLM's kernel tables, one eager launch floor of its own */
static const struct cost_engine toy_cost = {
	.name = "toy",
	.fallback = "vllm",
	.lin = {13.57e-6, 2.398e-6, 5.154e-12, 1.054e-14, 19.35, 6.38e-6, 0.8298},
};

static const struct engine_host toy_host[] = {
	{"", NULL, {.layer_us = 5.0, .api_ttft_ms = 9.0, .delivery_steps = 1.0, .eager_op_us = 20.0}, false, "toy", OV_EAGER, false, false},
};

static const struct engine_type toy_engine = {
	.name = "toy",
	.title = "Toy",
	.defaults = toy_defaults,
	.kv_auto = toy_kv_auto,
	.ep_refused = toy_ep_refused,
	.pd_handoff_s = 1e-3,
	.cost = &toy_cost,
	.host = toy_host,
	.nhost = 1,
	.policy = &toy_policy,
	.sched_words = toy_words,
};

/* Host terms by version and harness (engine_host_for): a harness's own row
 * wins for that harness only, the first row at or below the version
 * otherwise, and given terms replace the row's field by field. */
static void test_host_terms(void)
{
	static const struct engine_host rows[] = {
		{"0.14.0", "aiperf", {.step_us = 600, .req_us = 30}, false, "new aiperf", 0, false, false},
		{"", "aiperf", {.step_us = 500}, false, "old aiperf", 0, false, false},
		{"0.14.0", NULL, {.layer_us = 7}, true, "new", 0, false, false},
		{"", NULL, {.layer_us = 5}, false, "old", 0, false, false},
	};
	static const struct engine_type en = {.name = "hosttest", .host = rows, .nhost = 4};
	struct overheads ov, given;
	const struct engine_host *vllm;

	CHECK(engine_host_for(&en, "0.19.0", false, false, "aiperf") == &rows[0], "0.19 under aiperf: its newest row");
	CHECK(engine_host_for(&en, "0.12.0", false, false, "aiperf") == &rows[1], "0.12 under aiperf: the older row");
	CHECK(engine_host_for(&en, "0.19.0", false, false, NULL) == &rows[2], "0.19 without a harness: the general row");
	CHECK(engine_host_for(&en, "0.9.2", false, false, NULL) == &rows[3] && engine_host_for(&en, "0.14.1", false, false, NULL) == &rows[2] &&
		      engine_version_value("0.9.2") < engine_version_value("0.12.0") &&
		      engine_version_value("1.10.0") > engine_version_value("1.9.0") &&
		      engine_version_value("1.2.0rc6.post2") == engine_version_value("1.2.0"),
	      "versions compare part by part as whole numbers (0.9 below 0.12, 1.10 above 1.9)");
	CHECK(engine_version_before("0.11.2", "0.12.0") && engine_version_before("0.5.9", "0.5.13") &&
		      !engine_version_before("0.12.0", "0.12.0") && !engine_version_before("0.5.14", "0.5.13") &&
		      !engine_version_before("", "0.12.0") && !engine_version_before("nightly-x", "0.12.0"),
	      "engine_version_before: a known version below the reference; empty or unparsable is the newest");
	CHECK(engine_host_for(&en, "0.12.0", false, false, "guidellm") == &rows[3], "0.12 under another harness: general");
	CHECK(engine_host_for(&en, "", false, false, NULL) == &rows[2] && engine_host_for(&en, "nightly-x", false, false, "aiperf") == &rows[0],
	      "no version: the first row that holds for the harness");
	ov = rows[0].ov;
	cost_default_overheads(&given);
	given.req_us = 12.5;
	given.given = OV_REQ;
	cost_overheads_apply(&ov, &given);
	CHECK(ov.step_us == 600 && ov.req_us == 12.5 && ov.given == OV_REQ, "a given term replaces the row's only");
	vllm = engine_host_for(engine_find("vllm"), "0.12.0", false, false, "aiperf");
	CHECK(vllm && vllm->harness && strcmp(vllm->harness, "aiperf,vllm-bench") == 0 && vllm->ov.req_us > 0,
	      "vLLM's aiperf row: per-request host time");
	/* Per layer, not per step: a fixed step term charged 36-layer gpt-oss
	 * as much as 80-layer Llama-3.1-70B (eval/silicon/HARNESS.md, "vLLM's
	 * step terms per layer"). */
	CHECK(vllm && vllm->ov.step_us == 0 && vllm->ov.layer_us > 0 && (vllm->fit & OV_LAYER) &&
		      !(vllm->fit & OV_STEP),
	      "vLLM's aiperf row: host time per layer, no per-step term");
	CHECK(engine_host_for(engine_find("vllm"), "0.12.0", false, false, "vllm-bench") == vllm &&
		      engine_host_for(engine_find("vllm"), "0.12.0", false, false, "vllm") != vllm &&
		      engine_host_for(engine_find("vllm"), "0.12.0", false, false, "bench") != vllm,
	      "a harness list matches whole names only");
	vllm = engine_host_for(engine_find("vllm"), "0.12.0", false, false, "guidellm");
	CHECK(vllm && !vllm->harness && vllm->ov.req_us == 0 && vllm->ov.step_us == 0,
	      "vLLM under GuideLLM: the H2 terms");
	CHECK(engine_host_for(engine_find("sglang"), "0.5.9", false, false, NULL)->ov.eager_op_us > 0,
	      "SGLang: eager prefill batches");
	{
		/* SGLang's aiperf row differs from its general row by not
		 * overlapping the CPU terms: one fit for eval --cv */
		const struct engine_type *sg = engine_find("sglang");
		const struct engine_host *a = engine_host_for(sg, "0.5.9", false, false, "aiperf"),
					 *b = engine_host_for(sg, "0.5.9", false, false, "vllm-bench");
		CHECK(a != b && !a->overlap && b->overlap && engine_host_fit(sg, a) == engine_host_fit(sg, b) &&
			      engine_host_fit(engine_find("vllm"), engine_host_for(engine_find("vllm"), "0.12.0", false, false, NULL)) ==
				      engine_host_for(engine_find("vllm"), "0.12.0", false, false, NULL),
		      "rows sharing their fitted terms count as one fit (eval --cv)");
	}
	/* terms fitted on aggregated runs only: a P/D worker takes the next row
	 * (measured on the 269 P/D silicon rows: with them, TTFT / ITL medians
	 * 42.9 / 13.3 -> 47.7 / 15.2 %) */
	CHECK(engine_host_for(engine_find("sglang"), "0.5.9", true, false, NULL)->ov.eager_op_us == 0,
	      "SGLang P/D workers: no eager floor fitted on aggregated runs");
	{
		/* SGLang's EAGLE worker's host time is a row of its own, keyed
		 * by speculative decoding: eval --cv refits it apart from the
		 * plain rows' terms, and the run header names it */
		const struct engine_type *sg = engine_find("sglang");
		const struct engine_host *sp = engine_host_for(sg, "0.5.9", false, true, NULL),
					 *plain = engine_host_for(sg, "0.5.9", false, false, NULL),
					 *sp_aiperf = engine_host_for(sg, "0.5.9", false, true, "aiperf"),
					 *sp_pd = engine_host_for(sg, "0.5.9", true, true, NULL);
		CHECK(sp && sp->spec && !sp->overlap && sp->ov.step_us == 5000.0 && sp->ov.req_us == 60.0 &&
			      sp->ov.prefill_token_us == 5.0 && sp->fit == (OV_STEP | OV_REQ | OV_PREFILL_TOK) && sp == sp_aiperf,
		      "SGLang with drafts: the EAGLE worker's row (5 ms per step, 60 us per token, 5 us per prompt token, "
		      "its own fit; the other terms the plain rows')");
		CHECK(plain && !plain->spec && plain->ov.step_us == 1250.0 && sp->ov.eager_op_us == plain->ov.eager_op_us &&
			      sp->ov.api_ttft_ms == plain->ov.api_ttft_ms && sp->ov.api_prompt_us == plain->ov.api_prompt_us &&
			      sp->ov.layer_us == plain->ov.layer_us && engine_host_fit(sg, sp) == sp &&
			      engine_host_fit(sg, sp) != engine_host_fit(sg, plain) && strstr(sp->src, "MTP"),
		      "the speculative row is a fit of its own (eval --cv), its source named");
		CHECK(sp_pd && !sp_pd->spec && sp_pd->ov.eager_op_us == 0,
		      "SGLang P/D workers with drafts: the P/D row (the EAGLE row was fitted on aggregated runs)");
		CHECK(engine_host_for(engine_find("vllm"), "0.12.0", false, true, NULL) ==
			      engine_host_for(engine_find("vllm"), "0.12.0", false, false, NULL),
		      "an engine without a speculative row: drafts take its general row");
	}
	vllm = engine_host_for(engine_find("vllm"), "0.12.0", true, false, "aiperf");
	CHECK(vllm && !vllm->harness && vllm->ov.req_us == 0, "vLLM P/D under aiperf: the general row");
	{
		/* TensorRT-LLM before 1.1: more time per layer (the 1.0.0rc3 rows),
		 * its own fit; 1.1 on, an unknown version and P/D workers keep 5 us */
		const struct engine_type *tr = engine_find("trtllm");
		const struct engine_host *old = engine_host_for(tr, "1.0.0rc3", false, false, NULL),
					 *cur = engine_host_for(tr, "1.1.0rc2.post2", false, false, NULL);
		CHECK(old && cur && old != cur && old->ov.layer_us == 20 && cur->ov.layer_us == 5 &&
			      old->ov.api_ttft_ms == cur->ov.api_ttft_ms && old->fit == OV_LAYER,
		      "TensorRT-LLM 1.0: 20 us per layer, its only fitted term; 1.1: 5 us");
		CHECK(engine_host_for(tr, "", false, false, NULL) == cur && engine_host_for(tr, "1.0.0rc3", true, false, NULL)->ov.layer_us == 5,
		      "an unknown version: the newest row; a P/D worker of 1.0: the P/D row");
	}
}

/* Model `model` (on the heap: the caller frees it) and GPU `gpu` into *g:
 * NULL (the failure checked, named `what`) when the data do not load. */
static struct model_cfg *load_on(const char *model, const char *gpu, const struct gpu_spec **g, const char *what)
{
	struct model_cfg *m = calloc(1, sizeof(*m));
	struct err e;

	if (!m || registry_load_model(&reg, model, m, &e) < 0 || gpu_find(&db, gpu, g, &e) < 0) {
		CHECK(0, "%s: load: %s", what, m ? e.msg : "out of memory");
		free(m);
		return NULL;
	}
	return m;
}

/* Llama-3.1-8B on one H100 and a constant-rate workload of n requests of
 * fixed prompt and output lengths: the set-up several tests share. */
static struct model_cfg *load_8b_h100(const struct gpu_spec **g, const char *what)
{
	return load_on("llama-3.1-8b", "h100", g, what);
}

static void fixed_workload(struct wl_spec *wl, uint64_t seed, double rate, int64_t n, double prompt, double output)
{
	memset(wl, 0, sizeof(*wl));
	snprintf(wl->source, sizeof(wl->source), "test");
	wl->seed = seed;
	wl->process = WL_CONSTANT;
	wl->rate = rate;
	wl->num_requests = n;
	wl->prompt = (struct wl_dist){.kind = WL_FIXED, .a = prompt, .min = prompt, .max = prompt};
	wl->output = (struct wl_dist){.kind = WL_FIXED, .a = output, .min = output, .max = output};
}

/* SGLang's overlap scheduler is off under EAGLE / MTP unless
 * SGLANG_ENABLE_SPEC_V2 is set (ServerArgs._handle_speculative_decoding):
 * the same deployment hides its host terms' CPU part under the GPU's batch
 * without drafts and adds it with them. */
static void test_sglang_spec_overlap(void)
{
	struct model_cfg *m;
	const struct gpu_spec *g = NULL;
	struct scenario sc;
	struct scenario_state st;
	struct wl_spec wl;
	struct err e;
	bool plain = false, spec = true;
	double cpu = 0;
	struct overheads spec_ov;
	const char *spec_src = NULL;
	int pass;

	memset(&spec_ov, 0, sizeof(spec_ov));
	m = load_8b_h100(&g, "sglang spec overlap");
	if (!m)
		return;
	fixed_workload(&wl, 3, 10, 4, 512, 16);
	for (pass = 0; pass < 2; pass++) {
		scenario_defaults(&sc, engine_find("sglang"), m, g, &wl);
		if (pass == 1) {
			sc.spec.method = SPEC_EAGLE;
			sc.spec.k = 2;
			sc.spec.nrates = 1;
			sc.spec.rate[0] = 0.7;
		}
		if (scenario_prepare(&sc, datadir, &st, &e) < 0) {
			CHECK(0, "sglang spec overlap: prepare: %s", e.msg);
			free(m);
			return;
		}
		if (pass == 0) {
			plain = st.cost.cfg.overlap_cpu;
			cpu = st.cost.cfg.ov.step_us;
		} else {
			spec = st.cost.cfg.overlap_cpu;
			spec_ov = st.cost.cfg.ov;
			spec_src = st.cost.cfg.host_src;
		}
		scenario_release(&st);
	}
	CHECK(plain && !spec && cpu > 0,
	      "SGLang: overlap scheduling on without drafts, off with EAGLE drafts (its %.0f us of CPU per step then shows)",
	      cpu);
	/* the EAGLE worker's own host row replaces the step's terms, and the
	 * header's host-terms source names it */
	CHECK(spec_ov.step_us == 5000.0 && spec_ov.step_us > cpu && spec_ov.req_us == 60.0 &&
		      spec_ov.prefill_token_us == 5.0 && spec_src && strstr(spec_src, "MTP"),
	      "SGLang with EAGLE drafts: host %.0f us per step + %.0f us per verified token + %.1f us per prompt token "
	      "(without drafts %.0f us per step)",
	      spec_ov.step_us, spec_ov.req_us, spec_ov.prefill_token_us, cpu);
	free(m);
}

/* vLLM 0.11.1-0.12 runs MiniMax-M2's block-fp8 experts on Hopper as
 * DeepGEMM's contiguous grouped GEMM over the whole padded workspace
 * (engine/vllm.c vllm_moe_dg_padded, cost/moe.c moe_dg_padded_s): at TP 4
 * a 4-token decode step computes round_up(4 x 8 + 256 x 127, 128) = 32,640
 * rows in each GEMM.  Not before 0.11.1 (E8M0 off on Hopper: DeepGEMM only
 * from 128 tokens), not from 0.13 (padded blocks skipped, PR 30494), not at
 * MoE TP 8 from 0.12 (PR 29346) unless DEEPGEMM is named, never with TRITON
 * named (VLLM_MOE_USE_DEEP_GEMM=0). */
static void test_deepgemm_padded(void)
{
	static const struct {
		const char *ver;
		int tp;
		enum moe_backend b;
		bool on;
	} cs[] = {
		{"0.11.0", 4, MOE_BACKEND_DEFAULT, false}, {"0.11.1", 4, MOE_BACKEND_DEFAULT, true},
		{"0.12.0", 4, MOE_BACKEND_DEFAULT, true},  {"0.13.0", 4, MOE_BACKEND_DEFAULT, false},
		{"0.11.1", 8, MOE_BACKEND_DEFAULT, true},  {"0.12.0", 8, MOE_BACKEND_DEFAULT, false},
		{"0.12.0", 8, MOE_BACKEND_DEEPGEMM, true}, {"0.11.1", 4, MOE_BACKEND_TRITON, false},
	};
	const struct gpu_spec *g = NULL;
	struct model_cfg *m = load_on("minimax-m2.5", "h100", &g, "deepgemm padded");
	struct scenario sc;
	struct scenario_state st;
	struct wl_spec wl;
	struct err e;
	size_t i;

	if (!m)
		return;
	fixed_workload(&wl, 3, 10, 4, 512, 16);
	for (i = 0; i < sizeof(cs) / sizeof(cs[0]); i++) {
		scenario_defaults(&sc, engine_find("vllm"), m, g, &wl);
		snprintf(sc.engine_version, sizeof(sc.engine_version), "%s", cs[i].ver);
		sc.par.tp = cs[i].tp;
		sc.wdt = DT_FP8;
		sc.moe_backend = cs[i].b;
		sc.k.max_model_len = 32768;
		if (scenario_prepare(&sc, datadir, &st, &e) < 0) {
			CHECK(0, "deepgemm padded: prepare %s tp %d: %s", cs[i].ver, cs[i].tp, e.msg);
			break;
		}
		CHECK(st.cost.moe_dg_pad == cs[i].on, "vLLM %s, MoE TP %d, backend %s: padded DeepGEMM path %s", cs[i].ver,
		      cs[i].tp, moe_backend_name(cs[i].b), st.cost.moe_dg_pad ? "on" : "off");
		if (i == 1) {
			/* the known answer: two fp8 GEMMs of 32,640 rows (gate_up
			 * n 768 k 3072, down n 3072 k 384), compute-bound above the
			 * ~32 touched experts' 113 MB, and SiLU-and-quantise over the
			 * rows (384 x (2 x 2 + 1) bytes each) and one launch */
			const struct cost_model *c = &st.cost;
			double rows = 32640.0;
			double gemms = cost_gemm_s(c, DT_FP8, rows, 768, 3072, 1) + cost_gemm_s(c, DT_FP8, rows, 3072, 384, 1);
			double want = gemms + rows * 384.0 * 5.0 / c->bw + 3e-6;
			CHECK(gemms > 32.0 * 3.0 * 3072.0 * 384.0 / c->bw_weights, "vLLM 0.11.1 TP 4: the padded rows' GEMMs (%.0f us) outlast the touched experts' weights",
			      gemms * 1e6);
			CHECK(fabs(cost_moe_s(c, 4) / want - 1.0) < 1e-12,
			      "vLLM 0.11.1 TP 4, 4 tokens: MoE %.0f us = GEMMs at 32,640 rows + SiLU pass (%.0f us)",
			      cost_moe_s(c, 4) * 1e6, want * 1e6);
			CHECK(cost_moe_s(c, 4) > 0.9 * cost_moe_s(c, 64), "vLLM 0.11.1 TP 4: 4 and 64 tokens cost alike (%.0f / %.0f us): the rows are the workspace's",
			      cost_moe_s(c, 4) * 1e6, cost_moe_s(c, 64) * 1e6);
		}
		scenario_release(&st);
	}
	free(m);
}

/* vLLM without DeepGEMM runs DeepSeek-R1's block-fp8 linears on Hopper on
 * its CUTLASS block-scaled kernel (engine/vllm.c vllm_block_fp8_cutlass)
 * and, before 0.11.1, pads every call's activations and scales in fresh
 * buffers (vllm_block_fp8_cutlass_pad, PR 28492): on for 0.11.0 only, never
 * without --no-deep-gemm. */
static void test_cutlass_bs_pad(void)
{
	static const struct {
		const char *ver;
		bool no_dg, cbs, pad;
	} cs[] = {
		{"0.11.0", true, true, true},
		{"0.11.1", true, true, false},
		{"0.12.0", true, true, false},
		{"0.11.0", false, false, false},
	};
	const struct gpu_spec *g = NULL;
	struct model_cfg *m = load_on("deepseek-r1", "h200", &g, "cutlass pad");
	struct scenario sc;
	struct scenario_state st;
	struct wl_spec wl;
	struct err e;
	size_t i;

	if (!m)
		return;
	fixed_workload(&wl, 3, 10, 4, 512, 16);
	for (i = 0; i < sizeof(cs) / sizeof(cs[0]); i++) {
		scenario_defaults(&sc, engine_find("vllm"), m, g, &wl);
		snprintf(sc.engine_version, sizeof(sc.engine_version), "%s", cs[i].ver);
		sc.par.tp = 8;
		sc.wdt = DT_FP8;
		sc.k.no_deep_gemm = cs[i].no_dg;
		sc.k.max_model_len = 32768;
		if (scenario_prepare(&sc, datadir, &st, &e) < 0) {
			CHECK(0, "cutlass pad: prepare %s: %s", cs[i].ver, e.msg);
			break;
		}
		CHECK((st.cost.cbs != NULL) == cs[i].cbs && (st.cost.cfg.cutlass_bs_pad != NULL) == cs[i].pad,
		      "vLLM %s%s: CUTLASS block-fp8 linears %s, padding copies %s", cs[i].ver,
		      cs[i].no_dg ? " without DeepGEMM" : "", st.cost.cbs ? "on" : "off",
		      st.cost.cfg.cutlass_bs_pad ? "on" : "off");
		scenario_release(&st);
	}
	free(m);
}

/* vLLM runs gpt-oss's attention (sinks) on TRITON_ATTN on SM 8.x
 * (vllm/platforms/cuda.py get_attn_backend_cls), FlashAttention-3 on
 * Hopper; a model without sinks keeps FlashAttention on A100. */
static void test_triton_attn_path(void)
{
	static const struct {
		const char *model, *gpu;
		bool triton;
	} cases[] = {
		{"gpt-oss-20b", "a100", true},
		{"gpt-oss-20b", "l40s", true},
		{"gpt-oss-20b", "h100", false},
		{"llama-3.1-8b", "a100", false},
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct gpu_spec *g = NULL;
		struct model_cfg *m = load_on(cases[i].model, cases[i].gpu, &g, "triton attention path");
		struct scenario sc;
		struct scenario_state st;
		struct wl_spec wl;
		struct err e;

		if (!m)
			return;
		fixed_workload(&wl, 3, 10, 4, 512, 16);
		scenario_defaults(&sc, engine_find("vllm"), m, g, &wl);
		snprintf(sc.engine_version, sizeof(sc.engine_version), "0.11.0");
		sc.k.max_model_len = 8192;
		if (scenario_prepare(&sc, datadir, &st, &e) < 0) {
			CHECK(0, "triton attention path: prepare %s on %s: %s", cases[i].model, cases[i].gpu, e.msg);
			free(m);
			return;
		}
		CHECK((st.cost.cfg.triton_attn != NULL) == cases[i].triton &&
			      (strstr(st.cost.src[COST_SRC_ATTN_PREFILL], "Triton unified attention") != NULL) ==
				      cases[i].triton,
		      "vLLM 0.11 %s on %s: prefill attention on %s", cases[i].model, cases[i].gpu,
		      cases[i].triton ? "TRITON_ATTN" : "FlashAttention");
		scenario_release(&st);
		free(m);
	}
}

/* vLLM stores the MXFP4 experts it runs on Marlin padded (intermediate per
 * GPU to 128, hidden to 256: gpt-oss 2880 -> 2944 x 3072), so gpt-oss-120b
 * on one H100 under 0.10.2 weighs 65.8 GiB (vLLM logs 65.97, issue 23278)
 * and its KV cache is that much smaller; 0.12-0.23 run OpenAI's Triton
 * kernel but keep the checkpoint's block scales beside its swizzled copy,
 * 1/17 of the expert bytes more (0.14.1 logs 64.38 GiB, issue 33155); 0.24
 * frees them (PR 46549) and stores the checkpoint's bytes. */
static void test_marlin_padding(void)
{
	static const char *const ver[3] = {"0.10.2", "0.14.1", "0.24.0"};
	const double pad[3] = {2944.0 * 3072.0 / (2880.0 * 2880.0), 18.0 / 17.0, 1.0};
	const struct gpu_spec *g = NULL;
	struct model_cfg *m = load_on("gpt-oss-120b", "h100", &g, "marlin padding");
	struct scenario sc;
	struct scenario_state st;
	struct wl_spec wl;
	struct err e;
	double w[3] = {0, 0, 0}, kv[3] = {0, 0, 0}, act[3] = {0, 0, 0}, ckpt = 0, experts = 0;
	int i;

	if (!m)
		return;
	fixed_workload(&wl, 3, 10, 4, 512, 16);
	for (i = 0; i < 3; i++) {
		scenario_defaults(&sc, engine_find("vllm"), m, g, &wl);
		snprintf(sc.engine_version, sizeof(sc.engine_version), "%s", ver[i]);
		sc.k.max_model_len = 32768;
		if (scenario_prepare(&sc, datadir, &st, &e) < 0) {
			CHECK(0, "marlin padding: prepare %s: %s", ver[i], e.msg);
			free(m);
			return;
		}
		w[i] = st.mp.weight_bytes;
		kv[i] = st.mp.kv_bytes;
		act[i] = st.mp.activation_bytes;
		/* vLLM's plan (vllmmem.c): the hybrid pool at every version, the
		 * sampler's profile run (1024 x 201,088 x 14 bytes) on 0.10-0.11.0 */
		CHECK(st.sc.kv_window.tokens == 128 && st.sc.kv_window.groups == 1 && st.mp.state_bytes == 0 &&
			      st.mp.window_groups == 1,
		      "vLLM %s: gpt-oss's window layers share the pool (window %lld, %d group), no reservation", ver[i],
		      (long long)st.sc.kv_window.tokens, (int)st.sc.kv_window.groups);
		CHECK(st.mp.sampler_bytes == (i == 0 ? 2882797568.0 : 0.0) &&
			      st.mp.activation_bytes == (i == 0 ? 2882797568.0 : st.mp.forward_bytes),
		      "vLLM %s: activation peak %.0f bytes (sampler %.0f)", ver[i], st.mp.activation_bytes,
		      st.mp.sampler_bytes);
		ckpt = model_weight_bytes_per_gpu(m, &sc.par, dtype_bytes(sc.wdt));
		experts = model_expert_bytes_per_gpu(m, &sc.par, dtype_bytes(sc.wdt));
		CHECK(st.cost.moe_marlin == (i == 0) && fabs(st.cost.moe_pad - pad[i]) < 1e-12,
		      "vLLM %s: experts on %s, stored x%.4f", ver[i], st.cost.moe_marlin ? "Marlin" : "its MXFP4 kernel",
		      st.cost.moe_pad);
		scenario_release(&st);
	}
	CHECK_REL(w[2], ckpt, 1e-12, "vLLM 0.24: the checkpoint's weights");
	CHECK_REL(w[0], ckpt + experts * (pad[0] - 1.0), 1e-12, "vLLM 0.10.2: the checkpoint's + the experts' padding");
	CHECK_REL(w[1], ckpt + experts / 17.0, 1e-12, "vLLM 0.14.1: the checkpoint's + a second copy of the block scales");
	CHECK(w[0] / 1073741824.0 > 65.7 && w[0] / 1073741824.0 < 66.0 &&
		      fabs((kv[2] - kv[0]) - (w[0] - w[2]) - (act[0] - act[2])) < 1.0,
	      "vLLM 0.10.2: %.2f GiB of weights (vLLM logs 65.97), the KV cache %.2f GiB smaller (with the sampler's run)",
	      w[0] / 1073741824.0, (kv[2] - kv[0]) / 1073741824.0);
	CHECK(fabs(w[1] / 1073741824.0 / 64.38 - 1) < 0.01,
	      "vLLM 0.14.1: %.2f GiB of weights within 1 %% of the 64.38 vLLM logs", w[1] / 1073741824.0);
	free(m);
}

static void test_toy_engine(void)
{
	const struct gpu_spec *g;
	struct model_cfg *m;
	struct scenario sc;
	struct scenario_state st;
	struct wl_spec wl;
	struct err e;
	char notes[1024] = "", why[128];

	m = load_8b_h100(&g, "toy");
	if (!m)
		return;
	fixed_workload(&wl, 3, 1000, 60, 700, 40);
	scenario_defaults(&sc, &toy_engine, m, g, &wl);
	CHECK(sc.engine == &toy_engine && sc.k.max_num_batched_tokens == 1024 && sc.k.block_size == 32,
	      "toy: its defaults over the common ones");
	CHECK(scenario_kv_auto(m, g, &toy_engine, DT_BF16, why, sizeof(why)) == DT_FP8 &&
		      strcmp(why, "the toy engine's fp8 cache") == 0,
	      "toy: its KV dtype rule");
	sc.par.ep = 2;
	CHECK(scenario_check_config(&sc, true, notes, sizeof(notes), &e) == 0 &&
		      strstr(notes, "the toy engine runs no expert parallelism (ep 2)") != NULL,
	      "toy: its start-up rule in its words: %s", notes);
	sc.par.ep = 1;
	if (scenario_prepare(&sc, datadir, &st, &e) < 0) {
		CHECK(0, "toy: prepare: %s", e.msg);
		free(m);
		return;
	}
	CHECK(st.cost.cfg.engine == &toy_cost && st.cost.eager_s > 0 && st.sc.policy == &toy_policy,
	      "toy: its kernel terms and its scheduler reach the cost model and the simulation");
	CHECK(strcmp(st.cost.tabs->engine, "vllm") == 0, "toy: vLLM's kernel tables lent (%s)", st.cost.tabs->engine);
	CHECK(sim_run(st.sim, &e) == 0 && sim_totals(st.sim)->completed == 60,
	      "toy: the simulation runs every request to completion");
	{
		/* request 0 runs alone (the others arrive 1 ms apart, after its
		 * batch started); the next 32 wait for it to finish */
		double ttft[60], e2e[60];
		struct metric_set ms;
		sim_summary(st.sim, -1, &ms);
		sim_per_request(st.sim, ttft, e2e, 60);
		CHECK(ms.completed == 60 && isfinite(ms.itl_ms.mean), "toy: TTFT mean %.1f ms, ITL %.2f ms",
		      ms.ttft_ms.mean, ms.itl_ms.mean);
		CHECK(ttft[1] + 1.0 > e2e[0] && ttft[32] + 32.0 > e2e[0] && ttft[33] + 33.0 > e2e[1] + 1.0,
		      "toy: static batches: request 1 starts after request 0 ends (TTFT %.1f ms, request 0's E2E %.1f ms), "
		      "request 33 after request 1's batch", ttft[1], e2e[0]);
	}
	scenario_release(&st);
	free(m);
}

/* A trace workload (source "test") of the n records at rec. */
static void trace_wl(struct wl_spec *wl, struct wl_req *rec, size_t n)
{
	memset(wl, 0, sizeof(*wl));
	snprintf(wl->source, sizeof(wl->source), "test");
	wl->process = WL_TRACE;
	wl->records = rec;
	wl->nrecords = n;
}

/* Record i of a trace: prompt + output tokens arriving at arrival_ns, in no
 * prefix group, its content its own; the rest zero. */
static void trace_req(struct wl_req *r, int i, int64_t arrival_ns, int64_t prompt, int64_t output)
{
	memset(r, 0, sizeof(*r));
	r->arrival_ns = arrival_ns;
	r->prompt_tokens = prompt;
	r->output_tokens = output;
	r->prefix_group = -1;
	r->content_id = -(i + 1);
}

/* Prepare sc into *st (the caller releases it; NULL: released here) and
 * run it to the end with the invariant checks on: the totals into *t, the
 * n requests' client TTFT and E2E (ms) into ttft[] and e2e[]; false (a
 * failed check named `what`) when it did not run. */
static bool run_checked(struct scenario *sc, struct scenario_state *st, const char *what, struct sim_totals *t,
			double *ttft, double *e2e, size_t n)
{
	struct scenario_state own;
	struct err e;

	if (!st)
		st = &own;
	sc->check_invariants = true;
	if (scenario_prepare(sc, datadir, st, &e) < 0 || sim_run(st->sim, &e) < 0) {
		CHECK(0, "%s: %s", what, e.msg);
		return false;
	}
	*t = *sim_totals(st->sim);
	sim_per_request(st->sim, ttft, e2e, n);
	if (st == &own)
		scenario_release(st);
	return true;
}

/* One run of the offload test's workload: per-request TTFT into ttft[16],
 * the totals into *t, a block's transfer time and the client's API TTFT
 * term; false (checked) when it did not run. */
static bool offload_run(const struct model_cfg *m, const struct gpu_spec *g, double gib,
			enum kv_offload_backend be, double ttft[16], struct sim_totals *t, double *block_s,
			double *api_ms)
{
	struct scenario sc;
	struct scenario_state st;
	struct wl_spec wl;
	double e2e[16];

	fixed_workload(&wl, 5, 1, 16, 8448, 2);
	fixture_sp(&wl, 8, 1, 8192, 256, 2);
	scenario_defaults(&sc, engine_default(), m, g, &wl);
	sc.k.total_kv_blocks = 2000;
	sc.k.kv_offloading_gib = gib;
	sc.kv_offloading_backend = be;
	if (!run_checked(&sc, &st, "offload", t, ttft, e2e, 16))
		return false;
	*block_s = st.sc.offload.block_s;
	*api_ms = st.cost.cfg.ov.api_ttft_ms;
	scenario_release(&st);
	return true;
}

/* KV offload (issue 28): 8 prompts of 8192 shared + 256 tokens (528 full
 * blocks of 16, 527 of them looked up: a prompt keeps one token to
 * compute) cycle twice through a GPU pool of 2000 blocks, which holds
 * fewer than 4 of them: LRU over a cycle longer than the cache keeps
 * nothing a request needs, so without offload every prompt is computed
 * whole (hit rate 0).  A 16 GiB host tier (8192 blocks of Llama-3.1-8B's
 * 2 MiB) holds all eight: the second pass finds 527 blocks each in the
 * host, 8 x 527 x 16 / (16 x 8448) = 49.9 % of the prompt tokens, and loads
 * them instead of computing 8432 tokens.  One block is 32 layers x 8 KV
 * heads x 128 x 2 (K, V) x 2 bytes x 16 tokens = 2,097,152 bytes, over
 * PCIe 5.0 x16 at 50 GB/s: 41.94 us; 527 of them 22.1 ms, longer than the
 * step computing the 16 tokens left, so with vLLM's asynchronous loads the
 * second pass's TTFT is the load (plus the client's API term), against a
 * full prefill of 8448 tokens without offload. */
static void test_offload(void)
{
	const struct gpu_spec *g;
	struct model_cfg *m;
	struct sim_totals t0, t1, t2;
	double a[16], b[16], c[16], bs = 0, bs2 = 0, ma = 0, mb = 0, api = 0;
	int i;

	m = load_8b_h100(&g, "offload");
	if (!m)
		return;
	if (!offload_run(m, g, 0, KV_OFFLOAD_NATIVE, a, &t0, &bs, &api) ||
	    !offload_run(m, g, 16, KV_OFFLOAD_NATIVE, b, &t1, &bs, &api) ||
	    !offload_run(m, g, 16, KV_OFFLOAD_LMCACHE, c, &t2, &bs2, &api)) {
		free(m);
		return;
	}
	CHECK(t0.prefix_hit_tokens == 0 && t0.host_hit_tokens == 0 && t0.prefix_lookup_tokens == 16 * 8448,
	      "offload: without it the cycle of 8 prompts through 2000 blocks hits nothing (%llu of %llu tokens)",
	      (unsigned long long)t0.prefix_hit_tokens, (unsigned long long)t0.prefix_lookup_tokens);
	CHECK(t1.host_hit_tokens == 8 * 527 * 16 && t1.prefix_hit_tokens == t1.host_hit_tokens &&
		      t1.host_loaded_blocks == 8 * 527,
	      "offload: with 16 GiB of host the second pass hits the host for 527 blocks a prompt: %llu tokens, "
	      "hit rate %.4f (hand: 0.4991)", (unsigned long long)t1.host_hit_tokens,
	      (double)t1.host_hit_tokens / (double)t1.prefix_lookup_tokens);
	CHECK(fabs(bs - 2097152.0 / 50e9) < 1e-12, "offload: a block moves in %.2f us (hand: 41.94)", bs * 1e6);
	for (i = 0; i < 16; i++) {
		ma += a[i] / 16;
		mb += b[i] / 16;
	}
	/* the first pass alike: every prompt computed whole either way */
	CHECK(fabs(a[0] - b[0]) < 1e-9 && fabs(a[7] - b[7]) < 1e-9, "offload: the first pass is unchanged (%.2f ms)", a[0]);
	/* the second pass: the step of the 16 tokens left lasts the load
	 * (22.1 ms); the token reaches the client during the next step (a
	 * decode step, under 10 ms here) plus the API term */
	for (i = 8; i < 16; i++)
		if (!(b[i] > 527 * bs * 1e3 + api && b[i] < 527 * bs * 1e3 + api + 10))
			break;
	CHECK(i == 16, "offload: the second pass's TTFT is the load of 527 blocks, %.2f ms, + the API term %.0f ms "
	      "+ under a decode step: %.2f ms (%.2f ms computing the prompt)", 527 * bs * 1e3, api, b[8], a[8]);
	CHECK(mb < 0.6 * ma, "offload: mean TTFT %.1f ms, without %.1f ms", mb, ma);
	CHECK(c[8] > b[8] && c[15] > b[15], "offload: LMCache's synchronous load and store hold the step longer "
	      "(TTFT %.2f ms) than vLLM's asynchronous ones (%.2f ms)", c[8], b[8]);
	free(m);
}

/* One run of the LoRA test: n requests of 256 + 64 tokens arriving 1 us
 * apart, request i with adapter 1 + i % nad, under --enable-lora
 * --max-loras max_loras; per-request TTFT and E2E (client side, ms) into
 * ttft[16], e2e[16], the totals into *t. */
static bool lora_run(const struct model_cfg *m, const struct gpu_spec *g, int n, int nad, int max_loras,
		     double ttft[16], double e2e[16], struct sim_totals *t)
{
	struct wl_req rec[16];
	struct scenario sc;
	struct wl_spec wl;
	int i;

	for (i = 0; i < n; i++) {
		trace_req(&rec[i], i, 1000 * (int64_t)i, 256, 64);
		rec[i].lora = 1 + i % nad;
	}
	trace_wl(&wl, rec, (size_t)n);
	scenario_defaults(&sc, engine_default(), m, g, &wl);
	sc.k.lora = true;
	sc.lora_max = max_loras;
	/* (vLLM's API-server loop off: the prompts arrive 1 us apart and the
	 * hand figures take them as one batch) */
	sc.ov.api_loop_ms = 0;
	sc.ov.given |= OV_API_LOOP;
	return run_checked(&sc, NULL, "lora", t, ttft, e2e, (size_t)n);
}

/* LoRA (issue 28 item 3): 16 requests at once, alternating between 2
 * adapters, on Llama-3.1-8B / H100 under vLLM.  An adapter of rank 16 on
 * every projection: per layer qkv 3 x 16 x 4096 + 16 x 6144, o 2 x 16 x
 * 4096, gate_up 2 x 16 x 4096 + 16 x 28672, down 16 x 14336 + 16 x 4096 =
 * 1,310,720 parameters, x 32 layers x 2 bytes = 83,886,080 bytes: read from
 * disk at 2 GB/s in 41.94 ms, copied over PCIe 5.0 x16 at 50 GB/s in
 * 1.678 ms.  --max-loras 2: one batch of 16, both adapters loaded before
 * the first step.  --max-loras 1: the step batches adapter 1's 8 requests
 * and skips adapter 2's, which wait for the first 8 to finish; adapter 2
 * is then read from disk again (--max-cpu-loras defaults to max_loras: 1)
 * and the second 8 run as the first did.  So the limited run lasts twice
 * the run of adapter 1's 8 requests alone (C), within a step, and its mean
 * TTFT is C's plus half of C's span. */
static void test_lora(void)
{
	const struct gpu_spec *g;
	struct model_cfg *m;
	struct sim_totals ta, tb, tc;
	struct cost_lora l;
	double ta_t[16], ta_e[16], tb_t[16], tb_e[16], tc_t[16], tc_e[16];
	double ma = 0, mb = 0, mc = 0, span_c, load = 83886080.0 / 2e9 + 83886080.0 / 50e9;
	struct parallel one = {1, 1, 1, 1, 0, 0};
	struct err e;
	int i;

	m = load_8b_h100(&g, "lora");
	if (!m)
		return;
	CHECK(cost_lora_init(m, &one, &l, &e) == 0 && l.params_all_per_rank * 16 * 2 == 83886080.0 &&
		      l.params_gpu_per_rank == l.params_all_per_rank && l.nproj == 4,
	      "lora: a rank-16 adapter of Llama-3.1-8B is %.0f bytes on 4 projection shapes (hand: 83,886,080)",
	      l.params_all_per_rank * 32);
	if (!lora_run(m, g, 16, 2, 2, ta_t, ta_e, &ta) || !lora_run(m, g, 16, 2, 1, tb_t, tb_e, &tb) ||
	    !lora_run(m, g, 8, 1, 1, tc_t, tc_e, &tc)) {
		free(m);
		return;
	}
	CHECK(ta.completed == 16 && tb.completed == 16 && tc.completed == 8, "lora: every request completes");
	CHECK(ta.lora_gpu_loads == 2 && ta.lora_disk_loads == 2 && ta.lora_limited_steps == 0 &&
		      fabs(ta.lora_load_s - 2 * load) < 1e-9,
	      "lora: --max-loras 2 loads both adapters once, %.3f ms (hand: 2 x 43.62), and skips nobody",
	      ta.lora_load_s * 1e3);
	CHECK(tb.lora_gpu_loads == 2 && tb.lora_disk_loads == 2 && tb.lora_limited_steps > 0 &&
		      fabs(tb.lora_load_s - 2 * load) < 1e-9,
	      "lora: --max-loras 1 skips adapter 2's requests in %llu steps and loads it from disk when its turn comes",
	      (unsigned long long)tb.lora_limited_steps);
	span_c = (double)tc.duration_ns * 1e-6;
	for (i = 0; i < 16; i++) {
		ma += ta_t[i] / 16;
		mb += tb_t[i] / 16;
	}
	for (i = 0; i < 8; i++)
		mc += tc_t[i] / 8;
	/* the second group starts with the step after the first group's last
	 * (not when its last token reaches the client): within two decode
	 * steps (about 7 ms each) of twice C */
	CHECK(fabs((double)tb.duration_ns * 1e-6 - 2 * span_c) < 15,
	      "lora: the limited run lasts twice adapter 1's alone, %.2f ms (hand: 2 x %.2f, within two steps)",
	      (double)tb.duration_ns * 1e-6, span_c);
	CHECK(fabs(mb - (mc + span_c / 2)) < 0.05 * mb,
	      "lora: mean TTFT %.1f ms under --max-loras 1 (hand: %.1f + %.1f / 2 = %.1f), %.1f ms under 2",
	      mb, mc, span_c, mc + span_c / 2, ma);
	CHECK(mb > 1.5 * ma && tb.duration_ns > ta.duration_ns * 3 / 2,
	      "lora: more adapters than --max-loras cost more: %.2f s against %.2f s", (double)tb.duration_ns * 1e-9,
	      (double)ta.duration_ns * 1e-9);
	free(m);
}

/* One run of the image test: n requests of `prompt` + 16 tokens on
 * Qwen3-VL / H200 under vLLM, request i arriving at arrive_ns[i] with
 * images[i] images of 1024 x 768 (each its own, or the first request's when
 * same); client TTFT (ms) into ttft[], the totals into *t, one image's
 * encoder time into *enc_s. */
static bool image_run(const struct model_cfg *m, const struct gpu_spec *g, int n, int64_t prompt,
		      const int64_t *arrive_ns, const int32_t *images, bool same, double *ttft,
		      struct sim_totals *t, double *enc_s)
{
	struct wl_req rec[8];
	struct scenario sc;
	struct scenario_state st;
	struct wl_spec wl;
	double e2e[8];
	int i;

	for (i = 0; i < n; i++) {
		trace_req(&rec[i], i, arrive_ns[i], prompt, 16);
		rec[i].images = images[i];
		rec[i].image_id = same ? 0 : i;
		rec[i].image_new = 1;
	}
	trace_wl(&wl, rec, (size_t)n);
	wl.images.on = true;
	wl.images.width = 1024;
	wl.images.height = 768;
	scenario_defaults(&sc, engine_default(), m, g, &wl);
	if (!run_checked(&sc, &st, "images", t, ttft, e2e, (size_t)n))
		return false;
	*enc_s = cost_vision_s(&st.cost, 1, st.sc.mm.patches, &st.sc.mm.win);
	CHECK(st.sc.mm.image_tokens == 768 && st.sc.mm.patches == 3072 && strstr(st.mm_words, "768 tokens per 1024x768"),
	      "images: the header states the rule: %.120s...", st.mm_words);
	scenario_release(&st);
	return true;
}

/* Images (issue 28 item 6) on Qwen3-VL-30B-A3B, one H200, vLLM.  A
 * 1024x768 image is 768 prompt tokens (Qwen's smart_resize: 3072 patches
 * of 16 px, 2x2 merged; test_model checks the rule).  A lone request of
 * 256 text tokens and one image has the prompt of a lone text request of
 * 1024 tokens, and its step also runs the encoder: its TTFT is the text
 * request's plus the encoder's priced time for one image, within 10 ns
 * (the clock's rounding of step times).  That time is the operators' (cost/vision.h):
 * 3.90 TFLOP (test_model) on a 989 TFLOP/s GPU cannot take under 3.9 ms.
 * Two requests 1 s apart sending the same image: the second finds it in
 * the encoder cache, so its TTFT is the first's less the encoder time. */
/* A trace of one request at 0 of 256 + 16 tokens and one 1024x768 image. */
static void lone_image(struct wl_spec *wl, struct wl_req *rec)
{
	trace_req(rec, 0, 0, 256, 16);
	rec->images = 1;
	rec->image_new = 1;
	trace_wl(wl, rec, 1);
	wl->images.on = true;
	wl->images.width = 1024;
	wl->images.height = 768;
}

/* Qwen2.5-VL's window attention priced (test_model checks the windows of
 * a 1024x768 image: 70 of them, 243,600 query-key pairs): on one H100 the
 * encoder with its 28 windowed blocks takes the full-attention encoder's
 * time less 28 x (one full-image attention call - one varlen call over the
 * 70 windows), to rounding; everything else in the blocks is the same. */
static void test_window_attention(void)
{
	struct model_cfg *m;
	const struct gpu_spec *g = NULL;
	struct wl_req rec[1];
	struct scenario sc;
	struct scenario_state st;
	struct wl_spec wl;
	struct err e;
	double tw, tf, aw, af;

	m = load_on("qwen2.5-vl-7b", "h100", &g, "window attention");
	if (!m)
		return;
	lone_image(&wl, rec);
	scenario_defaults(&sc, engine_default(), m, g, &wl);
	if (scenario_prepare(&sc, datadir, &st, &e) < 0) {
		CHECK(0, "window attention: %s", e.msg);
		free(m);
		return;
	}
	tw = cost_vision_s(&st.cost, 1, st.sc.mm.patches, &st.sc.mm.win);
	tf = cost_vision_s(&st.cost, 1, st.sc.mm.patches, NULL);
	af = cost_attn_vision_s(&st.cost, 1, 3996, 16, 80);
	aw = cost_attn_vision_pairs_s(&st.cost, 70, 3996, 243600, 16, 80);
	CHECK(st.sc.mm.patches == 3996 && st.sc.mm.win.n == 4 && fabs((tf - tw) - 28 * (af - aw)) < 1e-12 && aw < af,
	      "window attention: encoder %.3f ms windowed, %.3f ms if every block attended the whole image (28 x "
	      "(%.1f - %.1f) us)", tw * 1e3, tf * 1e3, af * 1e6, aw * 1e6);
	scenario_release(&st);
	free(m);
}

static void test_images(void)
{
	struct model_cfg *m;
	const struct gpu_spec *g = NULL;
	struct sim_totals ta, tb, tc, td;
	int64_t one[1] = {0}, two[2] = {0, 1000000000};
	int32_t im1[1] = {1}, im0[1] = {0}, im2[2] = {1, 1};
	double a[1], b[1], c[2], d[2], enc, enc2;

	m = load_on("qwen3-vl-30b-a3b", "h200", &g, "images");
	if (!m)
		return;
	if (!image_run(m, g, 1, 256, one, im1, false, a, &ta, &enc) ||
	    !image_run(m, g, 1, 1024, one, im0, false, b, &tb, &enc2) ||
	    !image_run(m, g, 2, 256, two, im2, true, c, &tc, &enc2) ||
	    !image_run(m, g, 2, 256, two, im2, false, d, &td, &enc2)) {
		free(m);
		return;
	}
	CHECK(enc > 3.9e-3 && enc < 20e-3, "images: one 1024x768 image encodes in %.3f ms (at least 3.9 ms of FLOPs)",
	      enc * 1e3);
	CHECK(ta.mm_images == 1 && ta.mm_encoded == 1 && fabs(ta.mm_encoder_s - enc) < 1e-12,
	      "images: the lone image is encoded once, %.3f ms on its step", ta.mm_encoder_s * 1e3);
	CHECK(fabs((a[0] - b[0]) - enc * 1e3) < 1e-5,
	      "images: TTFT %.4f ms with the image, %.4f ms for the same 1024 tokens as text: +%.4f ms, the encoder's %.4f ms",
	      a[0], b[0], a[0] - b[0], enc * 1e3);
	CHECK(tc.mm_images == 2 && tc.mm_encoded == 1 && tc.mm_cache_hits == 1,
	      "images: the same image twice is encoded once, found once in the encoder cache");
	CHECK(fabs((c[0] - c[1]) - enc * 1e3) < 1e-5 && td.mm_encoded == 2 && fabs(d[1] - d[0]) < 1e-5,
	      "images: the repeated image's TTFT %.4f ms is the first's %.4f ms less the encoder's %.4f ms; two "
	      "different images take %.4f and %.4f ms", c[1], c[0], enc * 1e3, d[0], d[1]);
	free(m);
}

/* E/P/D (issue 28 item 6): one encoder worker ahead of the aggregated
 * engine (--disaggregate 1e1pd) on Qwen3-VL / H200.  A lone request with one
 * 1024x768 image: its image is encoded on the encoder worker (TP 1, the
 * same 7.438 ms as the aggregated TP-1 engine's), its embeddings (768 tokens
 * x 2048 x (1 + 3 deepstack levels) x 2 B = 12,582,912 B) move over NVLink
 * at 0.7 of the GPU's link in 1 ms + bytes / link, and the engine then
 * prefills 1024 tokens without encoding: its TTFT is the text request's
 * plus the encoder's and the hand-off's time. */
static void test_epd(void)
{
	struct model_cfg *m;
	const struct gpu_spec *g = NULL;
	struct wl_req rec[1];
	struct scenario sc;
	struct scenario_state st;
	struct wl_spec wl;
	double ttft[1], e2e[1], text[1], enc, link, bytes = 768.0 * 2048 * 4 * 2, xfer;
	struct sim_totals t, tt;
	int32_t im0[1] = {0};
	int64_t one[1] = {0};

	m = load_on("qwen3-vl-30b-a3b", "h200", &g, "epd");
	if (!m)
		return;
	if (!image_run(m, g, 1, 1024, one, im0, false, text, &tt, &enc)) {
		free(m);
		return;
	}
	lone_image(&wl, rec);
	scenario_defaults(&sc, engine_default(), m, g, &wl);
	sc.epd_encoders = 1;
	if (!run_checked(&sc, &st, "epd", &t, ttft, e2e, 1)) {
		free(m);
		return;
	}
	link = g->link_bw * 0.7;
	xfer = 1e-3 + bytes / link;
	CHECK(st.sc.epd.emb_bytes_per_token * 768 == bytes && t.epd_transfers == 1 && t.mm_encoded == 1 &&
		      fabs(t.mm_encoder_s - enc) < 1e-12,
	      "epd: the image is encoded once on the encoder worker (%.3f ms) and its 12,582,912 B handed off once",
	      t.mm_encoder_s * 1e3);
	CHECK(fabs((ttft[0] - text[0]) - (enc + xfer) * 1e3) < 1e-5,
	      "epd: TTFT %.4f ms = the text request's %.4f + encoder %.4f + hand-off %.4f ms (1 ms + 12.58 MB at %.0f GB/s)",
	      ttft[0], text[0], enc * 1e3, xfer * 1e3, link / 1e9);
	scenario_release(&st);
	free(m);
}

/* vLLM's all-reduce + RMSNorm fusion by default (engine_type.ar_fused_bytes):
 * from 0.16 (PR 34299) at TP > 1 on Hopper and B200, not with DP, not on
 * B300 before 0.19 (PR 37755), not for a version it cannot read. */
static void test_ar_fusion_default(void)
{
	const struct engine_type *en = engine_find("vllm");
	const struct gpu_spec *h100, *b200, *b300;
	struct model_cfg *m = calloc(1, sizeof(*m));
	struct scenario sc;
	struct wl_spec wl;
	struct err e;
	const double mib = 1024.0 * 1024.0;

	if (!m || registry_load_model(&reg, "llama-3.1-8b", m, &e) < 0 || gpu_find(&db, "h100", &h100, &e) < 0 ||
	    gpu_find(&db, "b200", &b200, &e) < 0 || gpu_find(&db, "b300", &b300, &e) < 0) {
		CHECK(0, "ar fusion: load: %s", e.msg);
		free(m);
		return;
	}
	memset(&wl, 0, sizeof(wl));
	scenario_defaults(&sc, en, m, h100, &wl);
	CHECK(en->ar_fused_bytes != NULL, "vLLM says which all-reduces it fuses");
	if (!en->ar_fused_bytes) {
		free(m);
		return;
	}
	sc.par = (struct parallel){4, 1, 1, 1, 0, 0};
	snprintf(sc.engine_version, sizeof(sc.engine_version), "0.15.1");
	CHECK(en->ar_fused_bytes(&sc) == 0, "0.15.1: not by default");
	snprintf(sc.engine_version, sizeof(sc.engine_version), "0.16.0");
	CHECK(en->ar_fused_bytes(&sc) == 2.0 * mib, "0.16.0 on H100 at TP 4: up to 2 MiB");
	sc.par.tp = 1;
	CHECK(en->ar_fused_bytes(&sc) == 0, "TP 1: nothing to fuse");
	sc.par = (struct parallel){2, 1, 2, 4, 0, 0};
	CHECK(en->ar_fused_bytes(&sc) == 0, "with data parallelism: off (PR 34392)");
	sc.par = (struct parallel){8, 1, 1, 1, 0, 0};
	sc.gpu = b200;
	CHECK(en->ar_fused_bytes(&sc) == 1.0 * mib, "B200 at TP 8: up to 1 MiB");
	sc.gpu = b300;
	snprintf(sc.engine_version, sizeof(sc.engine_version), "0.18.0");
	CHECK(en->ar_fused_bytes(&sc) == 0, "B300 (SM 10.3) before 0.19: off");
	snprintf(sc.engine_version, sizeof(sc.engine_version), "0.19.0");
	CHECK(en->ar_fused_bytes(&sc) == 4.0 * mib, "B300 from 0.19 at TP 8: up to 4 MiB");
	snprintf(sc.engine_version, sizeof(sc.engine_version), "nightly-5b8c30d62b754b57");
	CHECK(en->ar_fused_bytes(&sc) == 0, "a nightly build: no version to read, off");
	free(m);
}

/* SGLang's ROCm build runs a block-fp8 checkpoint's dense linears on aiter's
 * Triton GEMM on CDNA3 from 0.5.6 (sgl-project/sglang PR 13617), with no
 * DeepSeek config of its own in 0.5.9's aiter (v0.1.10.post3) and the TP-8
 * ones after (v0.1.11+); on CDNA4 (MI355X) its gfx950 Triton list at
 * 0.5.6-0.5.9 (aiter v0.1.10.post3's configs), the tables' kernel from
 * 0.5.10 (retuned configs, no timing); not on NVIDIA, not before 0.5.6; an
 * unnamed version is the newest.  vLLM
 * has no such rule. */
static void test_sglang_rocm_triton_bs(void)
{
	const struct engine_type *en = engine_find("sglang");
	const struct gpu_spec *mi325x, *mi355x, *h200;
	struct model_cfg *m = calloc(1, sizeof(*m));
	struct scenario sc;
	struct wl_spec wl;
	struct err e;

	if (!m || registry_load_model(&reg, "deepseek-r1", m, &e) < 0 || gpu_find(&db, "mi325x", &mi325x, &e) < 0 ||
	    gpu_find(&db, "mi355x", &mi355x, &e) < 0 || gpu_find(&db, "h200", &h200, &e) < 0) {
		CHECK(0, "triton bs: load: %s", e.msg);
		free(m);
		return;
	}
	CHECK(en->rocm_triton_bs != NULL && engine_find("vllm")->rocm_triton_bs == NULL,
	      "SGLang says where it runs aiter's Triton GEMM, vLLM does not");
	if (!en->rocm_triton_bs) {
		free(m);
		return;
	}
	memset(&wl, 0, sizeof(wl));
	scenario_defaults(&sc, en, m, mi325x, &wl);
	snprintf(sc.engine_version, sizeof(sc.engine_version), "0.5.9");
	CHECK(en->rocm_triton_bs(&sc) == COST_TBS_DEFAULT, "MI325X, 0.5.9: Triton, no DeepSeek config (aiter v0.1.10.post3)");
	snprintf(sc.engine_version, sizeof(sc.engine_version), "0.5.19");
	CHECK(en->rocm_triton_bs(&sc) == COST_TBS_TUNED, "MI325X, 0.5.19: Triton with aiter v0.1.11's configs");
	sc.engine_version[0] = 0;
	CHECK(en->rocm_triton_bs(&sc) == COST_TBS_TUNED, "MI325X, no version: the newest");
	snprintf(sc.engine_version, sizeof(sc.engine_version), "0.4.2");
	CHECK(en->rocm_triton_bs(&sc) == COST_TBS_OFF, "MI325X, 0.4.2: before PR 13617, the tables' kernel");
	snprintf(sc.engine_version, sizeof(sc.engine_version), "0.5.9");
	sc.gpu = mi355x;
	CHECK(en->rocm_triton_bs(&sc) == COST_TBS_GFX950, "MI355X (gfx950), 0.5.9: its gfx950 Triton list (aiter v0.1.10.post3)");
	snprintf(sc.engine_version, sizeof(sc.engine_version), "0.5.12");
	CHECK(en->rocm_triton_bs(&sc) == COST_TBS_OFF, "MI355X, 0.5.12: retuned configs, no timing: the tables' kernel");
	snprintf(sc.engine_version, sizeof(sc.engine_version), "0.5.5");
	CHECK(en->rocm_triton_bs(&sc) == COST_TBS_OFF, "MI355X, 0.5.5: before PR 13617, the tables' kernel");
	snprintf(sc.engine_version, sizeof(sc.engine_version), "0.5.9");
	sc.gpu = h200;
	CHECK(en->rocm_triton_bs(&sc) == COST_TBS_OFF, "H200: not a ROCm build");
	/* where the Triton kernel runs, whatever prices it: its JIT compiles
	 * at new prefill sizes (cost/tritonbs.c, cost_tbs_jit_init) */
	CHECK(en->rocm_triton_jit != NULL && engine_find("vllm")->rocm_triton_jit == NULL,
	      "SGLang says where aiter's Triton GEMM compiles at run time, vLLM does not");
	if (en->rocm_triton_jit) {
		CHECK(en->rocm_triton_jit(&sc) == COST_TBS_OFF, "jit: H200: not a ROCm build");
		sc.gpu = mi325x;
		CHECK(en->rocm_triton_jit(&sc) == COST_TBS_DEFAULT, "jit: MI325X, 0.5.9: every shape");
		sc.gpu = mi355x;
		snprintf(sc.engine_version, sizeof(sc.engine_version), "0.5.12");
		CHECK(en->rocm_triton_jit(&sc) == COST_TBS_GFX950,
		      "jit: MI355X, 0.5.12: its gfx950 list runs Triton though the tables price it");
		snprintf(sc.engine_version, sizeof(sc.engine_version), "0.5.5");
		CHECK(en->rocm_triton_jit(&sc) == COST_TBS_OFF, "jit: MI355X, 0.5.5: before PR 13617");
	}
	free(m);
}

/* SGLang runs an MLA model's absorbed W_UK / W_UV products in bf16 where
 * a block-fp8 checkpoint's kv_b_proj is dequantised at load on CUDA
 * (DeepseekV2ForCausalLM.post_load_weights); not on ROCm, not for a
 * checkpoint whose attention is stored otherwise (DeepSeek-R1-0528-FP4-v2:
 * bf16 q/kv already); vLLM has no such rule. */
static void test_sglang_mla_absorb_bf16(void)
{
	const struct engine_type *en = engine_find("sglang");
	const struct gpu_spec *b200, *mi325x;
	struct model_cfg *m = calloc(1, sizeof(*m)), *m4 = calloc(1, sizeof(*m4));
	struct scenario sc;
	struct wl_spec wl;
	struct err e;

	if (!m || !m4 || registry_load_model(&reg, "deepseek-r1", m, &e) < 0 ||
	    registry_load_model(&reg, "dsr1-fp4", m4, &e) < 0 || gpu_find(&db, "b200", &b200, &e) < 0 ||
	    gpu_find(&db, "mi325x", &mi325x, &e) < 0) {
		CHECK(0, "absorb bf16: load: %s", e.msg);
		free(m);
		free(m4);
		return;
	}
	CHECK(en->mla_absorb_bf16 != NULL && engine_find("vllm")->mla_absorb_bf16 == NULL &&
	      engine_find("trtllm")->mla_absorb_bf16 == NULL,
	      "SGLang says where it dequantises kv_b for the absorbed BMMs, vLLM and TensorRT-LLM do not");
	if (!en->mla_absorb_bf16) {
		free(m);
		free(m4);
		return;
	}
	memset(&wl, 0, sizeof(wl));
	scenario_defaults(&sc, en, m, b200, &wl);
	CHECK(m->q.attn == Q_FP8_BLOCK && en->mla_absorb_bf16(&sc) != NULL,
	      "DeepSeek-R1 (block fp8) on B200: the absorbed BMMs in bf16");
	sc.gpu = mi325x;
	CHECK(en->mla_absorb_bf16(&sc) == NULL, "on ROCm: kv_b's stored format (per-tensor requant)");
	sc.gpu = b200;
	sc.model = m4;
	CHECK(en->mla_absorb_bf16(&sc) == NULL, "DeepSeek-R1-0528-FP4-v2: q/kv stored bf16, no rule needed");
	free(m);
	free(m4);
}

/* The replicas and the router are the deployment's knobs (k.replicas,
 * k.router), kept once: no router named is least-loaded (run's default),
 * a named one is its kind, and the prepared simulation and the GPU count
 * read them. */
/* SGLang divides --chunked-prefill-size by the DP size under attention DP
 * (ServerArgs._handle_data_parallelism): Qwen3-30B-A3B on 4 H100s as
 * attention DP 4 budgets 16,384 / 4 tokens per rank's prefill batch, in the
 * simulation and in the cost model's step shapes, and a P/D prefill worker
 * of DP 2 given 6,000 budgets 3,000; vLLM and a dense SGLang replica keep the
 * whole chunk.  The same function scales schedule_conservativeness by 0.3:
 * the ranks' scheduler runs at 0.3 (the P/D prefill worker's too), vLLM's
 * at 1. */
static void test_sglang_chunk_dp(void)
{
	struct model_cfg *m = calloc(1, sizeof(*m));
	const struct gpu_spec *g = NULL;
	struct scenario sc;
	struct scenario_state st;
	struct wl_spec wl;
	struct err e;
	int64_t agg = -1, cost_tokens = -1, vllm = -1, pre = -1;
	double cons = -1, vllm_cons = -1, pre_cons = -1, dec_cons = -1;

	if (!m || registry_load_model(&reg, "qwen3-30b-a3b", m, &e) < 0 || gpu_find(&db, "h100", &g, &e) < 0) {
		CHECK(0, "sglang chunk dp: load: %s", m ? e.msg : "out of memory");
		free(m);
		return;
	}
	fixed_workload(&wl, 5, 10, 4, 512, 16);
	scenario_defaults(&sc, engine_find("sglang"), m, g, &wl);
	sc.par.dp = 4;
	sc.k.max_num_batched_tokens = 16384;
	if (scenario_prepare(&sc, datadir, &st, &e) < 0) {
		CHECK(0, "sglang chunk dp: prepare: %s", e.msg);
		free(m);
		return;
	}
	agg = st.sc.max_num_batched_tokens;
	cost_tokens = st.cost.cfg.max_tokens;
	cons = st.sc.conservativeness;
	scenario_release(&st);
	scenario_defaults(&sc, engine_find("vllm"), m, g, &wl);
	sc.par.dp = 4;
	sc.k.max_num_batched_tokens = 16384;
	if (scenario_prepare(&sc, datadir, &st, &e) == 0) {
		vllm = st.sc.max_num_batched_tokens;
		vllm_cons = st.sc.conservativeness;
		scenario_release(&st);
	}
	scenario_defaults(&sc, engine_find("sglang"), m, g, &wl);
	sc.pd_prefill = 1;
	sc.pd_decode = 1;
	sc.prefill_par = sc.par;
	sc.prefill_par.dp = 2;
	sc.prefill_max_num_batched_tokens = 6000;
	if (scenario_prepare(&sc, datadir, &st, &e) == 0) {
		pre = st.sc.pd.prefill_max_num_batched_tokens;
		pre_cons = st.sc.prefill_conservativeness;
		dec_cons = st.sc.conservativeness;
		scenario_release(&st);
	} else {
		CHECK(0, "sglang chunk dp: P/D prepare: %s", e.msg);
	}
	CHECK(agg == 4096 && cost_tokens == 4096 && vllm == 16384 && pre == 3000,
	      "SGLang attention DP 4: a rank budgets %lld tokens (cost shapes %lld), vLLM %lld; P/D prefill DP 2 of 6000: %lld",
	      (long long)agg, (long long)cost_tokens, (long long)vllm, (long long)pre);
	CHECK(cons == 0.3 && vllm_cons == 1.0 && pre_cons == 0.3 && dec_cons == 1.0,
	      "schedule_conservativeness: SGLang attention DP 4 %g, vLLM %g; P/D prefill DP 2 %g, decode DP 1 %g", cons,
	      vllm_cons, pre_cons, dec_cons);
	free(m);
}

/* SGLang's --max-running-requests under attention DP is the engine's:
 * each rank admits it divided by the DP size (TpModelWorker.__init__,
 * python/sglang/srt/managers/tp_worker.py); vLLM's max_num_seqs and a
 * DP-1 SGLang engine's stay as given, SGLang's own rule stays a rank's. */
static int64_t seqs_dp(struct model_cfg *m, const struct gpu_spec *g, struct wl_spec *wl, const char *engine,
		       int dp, int64_t given, int prefill_dp, int64_t *pre, int64_t *plan)
{
	struct scenario sc;
	struct scenario_state st;
	struct err e;
	int64_t mns = -1;

	scenario_defaults(&sc, engine_find(engine), m, g, wl);
	sc.par.dp = dp;
	if (given > 0) {
		sc.k.max_num_seqs = given;
		sc.sglang_mrr_rule = false;
	}
	if (prefill_dp > 0) {
		sc.pd_prefill = 1;
		sc.pd_decode = 1;
		sc.prefill_par = sc.par;
		sc.prefill_par.dp = prefill_dp;
		sc.prefill_max_num_seqs = 16;
	}
	if (scenario_prepare(&sc, datadir, &st, &e) < 0) {
		CHECK(0, "sglang seqs dp: %s dp %d: prepare: %s", engine, dp, e.msg);
		return -1;
	}
	mns = st.sc.max_num_seqs;
	if (pre)
		*pre = st.sc.pd.prefill_max_num_seqs;
	if (plan)
		*plan = st.max_running_requests;
	scenario_release(&st);
	return mns;
}

static void test_sglang_seqs_dp(void)
{
	struct model_cfg *m = calloc(1, sizeof(*m));
	const struct gpu_spec *g = NULL;
	struct wl_spec wl;
	struct err e;
	int64_t sg4, plan4 = -1, vllm4, sg1, rule4, rule1, pre = -1, dec;

	if (!m || registry_load_model(&reg, "qwen3-30b-a3b", m, &e) < 0 || gpu_find(&db, "h100", &g, &e) < 0) {
		CHECK(0, "sglang seqs dp: load: %s", m ? e.msg : "out of memory");
		free(m);
		return;
	}
	fixed_workload(&wl, 5, 10, 4, 512, 16);
	sg4 = seqs_dp(m, g, &wl, "sglang", 4, 256, 0, NULL, &plan4);
	vllm4 = seqs_dp(m, g, &wl, "vllm", 4, 256, 0, NULL, NULL);
	sg1 = seqs_dp(m, g, &wl, "sglang", 1, 256, 0, NULL, NULL);
	rule4 = seqs_dp(m, g, &wl, "sglang", 4, 0, 0, NULL, NULL);
	rule1 = seqs_dp(m, g, &wl, "sglang", 1, 0, 0, NULL, NULL);
	dec = seqs_dp(m, g, &wl, "sglang", 1, 256, 2, &pre, NULL);
	CHECK(sg4 == 64 && plan4 == 64 && vllm4 == 256 && sg1 == 256,
	      "--max-running-requests 256: SGLang DP 4 a rank %lld (plan %lld), vLLM DP 4 %lld, SGLang DP 1 %lld",
	      (long long)sg4, (long long)plan4, (long long)vllm4, (long long)sg1);
	CHECK(rule4 > 64 && rule1 > 256, "SGLang's rule is a rank's: DP 4 %lld, DP 1 %lld", (long long)rule4,
	      (long long)rule1);
	CHECK(pre == 8 && dec == 256, "P/D: prefill DP 2 of 16 a rank %lld, decode DP 1 of 256 %lld", (long long)pre,
	      (long long)dec);
	free(m);
}

static void test_replicas_once(void)
{
	const struct gpu_spec *g;
	struct model_cfg *m;
	struct scenario sc;
	struct scenario_state st;
	struct wl_spec wl;
	struct err e;

	m = load_8b_h100(&g, "replicas");
	if (!m)
		return;
	fixed_workload(&wl, 0, 10, 8, 100, 10);
	scenario_defaults(&sc, engine_default(), m, g, &wl);
	sc.par.tp = 2;
	CHECK(sc.k.replicas == 1 && scenario_router(&sc) == ROUTER_LEAST_OUTSTANDING && scenario_gpus(&sc) == 2,
	      "defaults: one copy, least-loaded, 2 GPUs");
	sc.k.replicas = 3;
	sc.k.router = "rr";
	if (scenario_prepare(&sc, datadir, &st, &e) < 0) {
		CHECK(0, "replicas: prepare: %s", e.msg);
		free(m);
		return;
	}
	CHECK(st.sc.replicas == 3 && st.sc.router == ROUTER_ROUND_ROBIN && scenario_gpus(&sc) == 6,
	      "3 copies behind round-robin: the simulation's %d, %s; %d GPUs", st.sc.replicas,
	      router_name(st.sc.router), scenario_gpus(&sc));
	scenario_release(&st);
	free(m);
}

int main(void)
{
	if (fixture_load(datadir, sizeof(datadir), &reg, &db) < 0)
		return 1;
	test_registry();
	test_host_terms();
	test_ar_fusion_default();
	test_sglang_rocm_triton_bs();
	test_sglang_mla_absorb_bf16();
	test_toy_engine();
	test_marlin_padding();
	test_triton_attn_path();
	test_deepgemm_padded();
	test_cutlass_bs_pad();
	test_sglang_spec_overlap();
	test_sglang_chunk_dp();
	test_sglang_seqs_dp();
	test_offload();
	test_lora();
	test_images();
	test_window_attention();
	test_epd();
	test_replicas_once();
	registry_release(&reg);
	gpu_db_release(&db);
	return check_done();
}
