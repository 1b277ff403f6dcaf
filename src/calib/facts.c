/* facts.c - engine facts of a run: engine-facts.json (servesim's summary of
 * a vLLM log) or the vllm.log itself ("num_gpu_blocks is: N", "# GPU blocks:
 * N", the version banner), and the experiment configs (exp-config.yaml) the
 * ground-truth folders carry. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "facts.h"
#include "servesim/gzread.h"
#include "servesim/json.h"
#include "servesim/yaml.h"

void facts_init(struct engine_facts *f)
{
	memset(f, 0, sizeof(*f));
	f->prefix_caching = -1;
}

int facts_read_json(const char *path, struct engine_facts *f, struct err *e)
{
	struct json *j;
	const char *s = NULL;
	int64_t v;
	bool b, pres;
	int rc;

	/* the keys our extractor writes from vllm.log (eval/ground_truth); any
	 * other is a typo that would silently drop a setting */
	static const char *const keys[] = {"engine", "version", "v1_engine", "dtype",
		"tensor_parallel_size", "max_model_len", "max_num_batched_tokens", "max_num_seqs",
		"enable_prefix_caching", "chunked_prefill_enabled", "num_gpu_blocks",
		"gpu_kv_cache_tokens", "available_kv_cache_gib", "cudagraph_capture_sizes", "source",
		"note", NULL};

	if ((rc = json_parse_file(path, &j, e)) < 0)
		return rc;
	if ((rc = json_check_keys(j, keys, path, e)) < 0)
		goto out;
	if ((rc = json_opt_str(j, "version", path, &s, e)) < 0)
		goto out;
	if (s)
		snprintf(f->version, sizeof(f->version), "%s", s);
	if ((rc = json_opt_int(j, "num_gpu_blocks", path, 1, 1 << 28, &v, &pres, e)) < 0)
		goto out;
	if (pres)
		f->kv_blocks = v;
	if ((rc = json_opt_int(j, "max_num_batched_tokens", path, 1, 1 << 24, &v, &pres, e)) < 0)
		goto out;
	if (pres)
		f->mbt = v;
	if ((rc = json_opt_int(j, "max_num_seqs", path, 1, 1 << 20, &v, &pres, e)) < 0)
		goto out;
	if (pres)
		f->mns = v;
	if ((rc = json_opt_int(j, "max_model_len", path, 1, 1 << 24, &v, &pres, e)) < 0)
		goto out;
	if (pres)
		f->mml = v;
	if ((rc = json_opt_int(j, "tensor_parallel_size", path, 1, 4096, &v, &pres, e)) < 0)
		goto out;
	if (pres)
		f->tp = (int)v;
	if (json_get(j, "enable_prefix_caching")) {
		b = false;
		if ((rc = json_opt_bool(j, "enable_prefix_caching", path, &b, e)) < 0)
			goto out;
		f->prefix_caching = b;
	}
	rc = 0;
out:
	json_free(j);
	return rc;
}

int facts_read_log(const char *path, struct engine_facts *f, struct err *e)
{
	struct gzr *g;
	const char *line;
	size_t len;
	int rc;

	if ((rc = gzr_open(path, &g, e)) < 0)
		return rc;
	while ((rc = gzr_getline(g, &line, &len, e)) == 0 && line) {
		const char *p;
		if ((p = strstr(line, "num_gpu_blocks is:")) || (p = strstr(line, "# GPU blocks:")) ||
		    (p = strstr(line, "num_gpu_blocks=")))
			f->kv_blocks = strtoll(strpbrk(p, "0123456789") ? strpbrk(p, "0123456789") : p, NULL, 10);
		if ((p = strstr(line, "vLLM version ")) || (p = strstr(line, "vllm version ")))
			sscanf(p + 13, "%31s", f->version);
		if (strstr(line, "enable_prefix_caching=True"))
			f->prefix_caching = 1;
		else if (strstr(line, "enable_prefix_caching=False"))
			f->prefix_caching = 0;
	}
	gzr_close(g);
	return rc;
}

int facts_read_exp_config(const char *path, struct exp_config *c, struct err *e)
{
	struct json *j;
	const char *s = NULL;
	int64_t v;
	bool pres;
	int rc;

	memset(c, 0, sizeof(*c));
	c->tp = 1;
	if ((rc = yaml_parse_file(path, &j, e)) < 0)
		return rc;
	if ((rc = json_req_str(j, "model", path, &s, e)) < 0)
		goto out;
	snprintf(c->model, sizeof(c->model), "%s", s);
	if ((rc = json_opt_int(j, "tensor_parallelism", path, 1, 4096, &v, &pres, e)) < 0)
		goto out;
	if (pres)
		c->tp = (int)v;
	if ((rc = json_opt_int(j, "max_model_len", path, 1, 1 << 24, &c->mml, &pres, e)) < 0 ||
	    (rc = json_opt_int(j, "max_num_batched_tokens", path, 1, 1 << 24, &c->mbt, &pres, e)) < 0 ||
	    (rc = json_opt_int(j, "max_num_seqs", path, 1, 1 << 20, &c->mns, &pres, e)) < 0)
		goto out;
	rc = 0;
out:
	json_free(j);
	return rc;
}
