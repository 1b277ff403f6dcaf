/* test_model.c - config normalisation, registry, parameter counts against
 * published figures, KV and weight bytes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "servesim/model.h"
#include "servesim/paths.h"

static struct model_registry reg;

static int load(const char *id, struct model_cfg *m)
{
	struct err e;
	int rc = registry_load_model(&reg, id, m, &e);
	if (rc < 0)
		printf("# load %s: %s\n", id, e.msg);
	return rc;
}

static int from_text(const char *txt, struct model_cfg *m, struct err *e)
{
	struct json *j;
	int rc = json_parse(txt, strlen(txt), "cfg.json", &j, e);
	if (rc < 0)
		return rc;
	rc = model_from_json(j, "cfg.json", m, e);
	json_free(j);
	return rc;
}

int main(void)
{
	char dir[1200], data[1024];
	struct err e;
	struct model_cfg *m = malloc(sizeof(*m));
	struct param_counts pc;
	struct parallel p1 = {1, 1, 1, 1}, p4 = {4, 1, 1, 1};
	int rc;

	paths_data_dir(data, sizeof(data));
	snprintf(dir, sizeof(dir), "%s/models", data);
	rc = registry_load(&reg, dir, &e);
	CHECK(rc == 0, "registry loads (%s)", rc ? e.msg : "ok");
	CHECK(reg.n >= 28, "registry has >= 28 models (%zu)", reg.n);

	/* Published parameter counts (model cards / papers), within 1 %. */
	CHECK(load("llama-2-7b", m) == 0, "llama-2-7b loads");
	model_params(m, &pc);
	/* exact: 32*(4*4096^2 + 3*4096*11008 + 2*4096) + 2*32000*4096 + 4096 */
	CHECK(pc.total == 6738415616.0, "llama-2-7b exact count %.0f == 6738415616", pc.total);
	CHECK_REL(pc.total, 6.74e9, 0.01, "llama-2-7b total vs 6.74 B");
	CHECK_REL(model_kv_bytes_per_token(m, 2.0), 2.0 * 32 * 4096 * 2, 1e-12, "llama-2-7b KV bytes/token bf16");
	CHECK_REL(model_weight_bytes_per_gpu(m, &p1, 2.0), pc.total * 2.0, 1e-12, "TP1 weight bytes = 2 x params");

	CHECK(load("meta-llama/Llama-2-70b-hf", m) == 0, "HF name resolves");
	model_params(m, &pc);
	CHECK_REL(pc.total, 69.0e9, 0.01, "llama-2-70b total vs 69.0 B");
	{
		double w4 = model_weight_bytes_per_gpu(m, &p4, 2.0);
		CHECK(w4 > pc.total * 2 / 4 * 0.999 && w4 < pc.total * 2 / 4 * 1.001,
		      "llama-2-70b TP4 weights per GPU %.3f GB ~ total/4", w4 / 1e9);
		CHECK_REL(model_kv_bytes_per_token_per_gpu(m, &p4, 2.0), 2.0 * 2 * 128 * 80 * 2, 1e-12,
			  "llama-2-70b TP4 KV bytes/token/GPU (8 KV heads / 4)");
	}
	CHECK(load("mixtral-8x7b", m) == 0, "mixtral loads");
	model_params(m, &pc);
	CHECK_REL(pc.total, 46.7e9, 0.01, "mixtral total vs 46.7 B");
	CHECK_REL(pc.active, 12.9e9, 0.01, "mixtral active vs 12.9 B");
	CHECK(m->n_moe_layers == 32, "mixtral: every layer MoE");

	CHECK(load("deepseek-v3", m) == 0, "deepseek-v3 loads");
	model_params(m, &pc);
	CHECK_REL(pc.total, 671e9, 0.01, "deepseek-v3 total vs 671 B (MTP excluded)");
	/* "37B activated" is published to two digits, i.e. [36.5, 37.5) B.  We
	 * count 37.55 B with the embedding table, 36.63 B without it; both lie
	 * within 1 % of that interval. */
	CHECK(pc.active >= 36.5e9 * 0.99 && pc.active <= 37.5e9 * 1.01,
	      "deepseek-v3 active %.4g within 1%% of published 37 B ([36.5, 37.5) B)", pc.active);
	CHECK(pc.active - pc.embedding >= 36.5e9 * 0.99 && pc.active - pc.embedding <= 37.5e9 * 1.01,
	      "deepseek-v3 active without embedding table %.4g within 1%% of 37 B", pc.active - pc.embedding);
	CHECK(m->attn == ATTN_MLA && m->n_moe_layers == 58 && m->mtp_layers == 1,
	      "deepseek-v3: MLA, 58 MoE layers, 1 MTP module");
	CHECK_REL(model_kv_bytes_per_token(m, 2.0), (512.0 + 64) * 61 * 2, 1e-12,
		  "deepseek-v3 MLA KV bytes/token = (kv_lora + rope) x layers x 2");

	CHECK(load("qwen3-235b-a22b", m) == 0, "qwen3-235b loads");
	model_params(m, &pc);
	CHECK_REL(pc.total, 235e9, 0.01, "qwen3-235b total vs 235 B");
	CHECK_REL(pc.active, 22e9, 0.01, "qwen3-235b active vs 22 B");

	CHECK(load("llama-4-scout", m) == 0, "llama4 text_config unwrapped");
	model_params(m, &pc);
	CHECK(strcmp(m->model_type, "llama4") == 0 && m->n_experts == 16 && m->top_k == 1,
	      "llama4: 16 experts, top-1");
	CHECK_REL(pc.active, 17e9, 0.015, "llama-4-scout active vs 17 B");

	CHECK(load("deepseek-v3.2", m) == 0 && m->index_topk == 2048 && m->index_heads == 64,
	      "deepseek-v3.2 DSA indexer fields");
	CHECK(load("glm-5.2", m) == 0 && m->index_topk == 2048 && m->attn == ATTN_MLA,
	      "glm_moe_dsa: MLA + DSA");
	CHECK(load("kimi-k2", m) == 0 && m->first_k_dense == 1 && m->n_experts == 384,
	      "kimi_k2: 384 experts, first dense 1");
	CHECK(load("minimax-m2.5", m) == 0 && m->n_experts == 256 && m->rope_dim == 64,
	      "minimax_m2: 256 experts, partial rotary 64");
	CHECK(load("deepseek-v2-lite", m) == 0 && m->q_lora_rank == 0, "deepseek-v2-lite: no q LoRA");

	/* errors */
	err_clear(&e);
	rc = registry_load_model(&reg, "llama-2-7", m, &e);
	CHECK(rc == -SS_EUSAGE && strstr(e.msg, "did you mean: llama-2-7b"), "suggestion: %s", e.msg);
	err_clear(&e);
	rc = registry_load_model(&reg, "deepseek-v4-flash", m, &e);
	CHECK(rc == -SS_EDATA && strstr(e.msg, "model_type 'deepseek_v4' is refused") &&
	      strstr(e.msg, "compressed sparse attention"), "refusal names the feature: %s", e.msg);
	err_clear(&e);
	rc = from_text("{\"model_type\": \"llama\", \"num_hidden_layers\": 2, \"num_attention_heads\": 4,"
		       " \"vocab_size\": 10, \"intermediate_size\": 8}", m, &e);
	CHECK(rc == -SS_EDATA && strstr(e.msg, "missing required key 'hidden_size'"), "missing key: %s", e.msg);
	err_clear(&e);
	rc = from_text("{\"model_type\": \"llama\", \"hidden_size\": -5, \"num_hidden_layers\": 2,"
		       " \"num_attention_heads\": 4, \"vocab_size\": 10}", m, &e);
	CHECK(rc == -SS_EDATA && strstr(e.msg, "'hidden_size' must be >= 1, got -5"), "negative: %s", e.msg);
	err_clear(&e);
	rc = from_text("{\"hidden_size\": 8}", m, &e);
	CHECK(rc == -SS_EDATA && strstr(e.msg, "missing required key 'model_type'"), "no model_type: %s", e.msg);
	err_clear(&e);
	rc = from_text("{\"model_type\": \"llama\", \"hidden_size\": 64, \"num_hidden_layers\": 2,"
		       " \"num_attention_heads\": 6, \"num_key_value_heads\": 4, \"vocab_size\": 10,"
		       " \"intermediate_size\": 8}", m, &e);
	CHECK(rc == -SS_EDATA && strstr(e.msg, "multiple of"), "heads/kv heads mismatch: %s", e.msg);
	{
		struct parallel bad = {3, 1, 1, 1};
		load("llama-2-7b", m);
		err_clear(&e);
		CHECK(model_check_parallel(m, &bad, &e) == -SS_EUSAGE && strstr(e.msg, "--tp 3"),
		      "tp must divide heads: %s", e.msg);
	}
	registry_release(&reg);
	free(m);
	return check_done();
}
