/* facts.c - engine facts of a run: engine-facts.json (servesim's summary of
 * a vLLM log) or the vllm.log itself ("num_gpu_blocks is: N", "# GPU blocks:
 * N", the version banner), and the experiment configs (exp-config.yaml) the
 * ground-truth folders carry. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "facts.h"
#include "base/gzread.h"
#include "base/jfield.h"
#include "base/json.h"
#include "base/yaml.h"

void facts_init(struct engine_facts *f)
{
	memset(f, 0, sizeof(*f));
	f->prefix_caching = -1;
}

/* cudagraph_capture_sizes: vLLM's list of batch sizes, or the extractor's
 * prose summary of a long one ("1,2,4,8,16,24,...,512 (multiples of 8 up to 512)"). */
static int check_capture_sizes(const struct json *j, const char *path, struct err *e)
{
	const struct json *o = json_get(j, "cudagraph_capture_sizes"), *c;
	size_t i = 0;

	if (!o || json_type_of(o) == JSON_STRING)
		return 0;
	if (json_type_of(o) != JSON_ARRAY)
		return err_set(e, SS_EDATA, "%s: 'cudagraph_capture_sizes' must be an array of batch sizes "
			       "or a string, got %s", path, json_type_name(json_type_of(o)));
	for (c = json_first(o); c; c = json_next(c), i++) {
		double d = json_number(c);
		if (json_type_of(c) != JSON_NUMBER || !(d >= 1 && d <= (double)(1 << 24)) || d != floor(d))
			return err_set(e, SS_EDATA, "%s: 'cudagraph_capture_sizes[%zu]' must be an integer in "
				       "[1, 16777216]", path, i);
	}
	return 0;
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
	/* (json_opt_int leaves a field it does not find as it was) */
	if ((rc = json_opt_int(j, "num_gpu_blocks", path, 1, 1 << 28, &f->kv_blocks, NULL, e)) < 0 ||
	    (rc = json_opt_int(j, "max_num_batched_tokens", path, 1, 1 << 24, &f->mbt, NULL, e)) < 0 ||
	    (rc = json_opt_int(j, "max_num_seqs", path, 1, 1 << 20, &f->mns, NULL, e)) < 0 ||
	    (rc = json_opt_int(j, "max_model_len", path, 1, 1 << 24, &f->mml, NULL, e)) < 0 ||
	    (rc = jf_int(j, "tensor_parallel_size", path, 1, 4096, &f->tp, e)) < 0)
		goto out;
	if (json_get(j, "enable_prefix_caching")) {
		b = false;
		if ((rc = json_opt_bool(j, "enable_prefix_caching", path, &b, e)) < 0)
			goto out;
		f->prefix_caching = b;
	}
	/* the keys servesim does not use are still checked: a malformed one
	 * means a malformed summary, which must not pass as a good one */
	if ((rc = json_opt_str(j, "engine", path, &s, e)) < 0 ||
	    (rc = json_opt_str(j, "dtype", path, &s, e)) < 0 ||
	    (rc = json_opt_str(j, "source", path, &s, e)) < 0 ||
	    (rc = json_opt_str(j, "note", path, &s, e)) < 0 ||
	    (rc = json_opt_bool(j, "v1_engine", path, &b, e)) < 0 ||
	    (rc = json_opt_bool(j, "chunked_prefill_enabled", path, &b, e)) < 0 ||
	    (rc = json_opt_int(j, "gpu_kv_cache_tokens", path, 1, (int64_t)1 << 40, &v, &pres, e)) < 0)
		goto out;
	{
		double gib;
		if ((rc = json_opt_num(j, "available_kv_cache_gib", path, &gib, &pres, e)) < 0)
			goto out;
		/* 1 PiB: beyond any GPU's memory */
		if (pres && !(gib >= 0 && gib <= 1048576.0)) {
			rc = err_set(e, SS_EDATA, "%s: 'available_kv_cache_gib' must be in [0, 1048576], got %g",
				     path, gib);
			goto out;
		}
	}
	if ((rc = check_capture_sizes(j, path, e)) < 0)
		goto out;
	rc = 0;
out:
	json_free(j);
	return rc;
}

/* The block count after "num_gpu_blocks is:" and its kin, as the range
 * engine-facts.json allows (1 .. 2^28); a missing, negative or overflowing
 * number is an error, not 0 or LLONG_MAX. */
static int log_blocks(const char *path, size_t lineno, const char *p, int64_t *out,
		      struct err *e)
{
	char *end;
	long long v;

	while (*p == ' ')
		p++;
	if (strncmp(p, "None", 4) == 0) /* a config dump before the profiling run */
		return 0;
	errno = 0;
	v = strtoll(p, &end, 10);
	if (end == p || errno == ERANGE || v < 1 || v > (1 << 28) || (*end && !strchr(" \t\r\n,;.", *end)))
		return err_set(e, SS_EDATA, "%s:%zu: num_gpu_blocks must be an integer in [1, 268435456], "
			       "got '%.20s'", path, lineno, p);
	*out = v;
	return 0;
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
			if ((rc = log_blocks(path, gzr_lineno(g), strpbrk(p, ":=") + 1, &f->kv_blocks, e)) < 0)
				break;
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
	/* the keys of the ground-truth folders' exp-config.yaml (eval/ground_truth, ../shared/data) */
	static const char *const keys[] = {"model", "tensor_parallelism", "max_model_len",
		"max_num_batched_tokens", "max_num_seqs", "app", NULL};
	struct json *j;
	const char *s = NULL;
	int rc;

	memset(c, 0, sizeof(*c));
	c->tp = 1;
	if ((rc = yaml_parse_file(path, &j, e)) < 0)
		return rc;
	if ((rc = jf_mapping(j, path, "settings", e)) < 0 || (rc = json_check_keys(j, keys, path, e)) < 0 ||
	    (rc = json_opt_str(j, "app", path, &s, e)) < 0 ||
	    (rc = jf_str(j, "model", path, c->model, sizeof(c->model), true, e)) < 0 ||
	    (rc = jf_int(j, "tensor_parallelism", path, 1, 4096, &c->tp, e)) < 0 ||
	    (rc = json_opt_int(j, "max_model_len", path, 1, 1 << 24, &c->mml, NULL, e)) < 0 ||
	    (rc = json_opt_int(j, "max_num_batched_tokens", path, 1, 1 << 24, &c->mbt, NULL, e)) < 0 ||
	    (rc = json_opt_int(j, "max_num_seqs", path, 1, 1 << 20, &c->mns, NULL, e)) < 0)
		goto out;
	rc = 0;
out:
	json_free(j);
	return rc;
}
