/* mooncake.c - Mooncake traces (kvcache-ai/Mooncake, FAST25-release/traces:
 * conversation, tool-agent and synthetic traces), one JSON object per line:
 * timestamp (ms from the trace's start), input_length and output_length
 * (tokens), hash_ids (one id per 512-token block of the input, the last
 * block possibly partial: remapped hashes of the block and everything before
 * it, so equal ids at a position mean a reusable prefix).  Read into a
 * trace workload whose records carry the ids as their prompts' block keys
 * (wl_req.keys): the simulator's prefix cache shares what the ids share.
 * The traces hold no latencies. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/gzread.h"
#include "base/json.h"
#include "readers/mooncake.h"

/* One line's fields into r (keys appended to *keys, their offset in
 * r->nkeys' place until the caller points r->keys at them). */
static int read_line(const struct json *o, const char *ctx, double prev_ms, struct wl_req *r,
		     int64_t **keys, size_t *nkeys, size_t *kcap, double *ms, struct err *e)
{
	static const char *const fields[] = {"timestamp", "input_length", "output_length", "hash_ids", NULL};
	const struct json *ids, *x;
	int64_t in, out;
	size_t i = 0, want;
	int rc;

	if (json_type_of(o) != JSON_OBJECT)
		return err_set(e, SS_EDATA, "%s: expected one JSON object per line", ctx);
	if ((rc = json_check_keys(o, fields, ctx, e)) < 0 || (rc = json_req_num(o, "timestamp", ctx, ms, e)) < 0 ||
	    (rc = json_req_int(o, "input_length", ctx, 1, WL_MAX_TOKENS, &in, e)) < 0 ||
	    (rc = json_req_int(o, "output_length", ctx, 1, WL_MAX_TOKENS, &out, e)) < 0)
		return rc;
	if (!(*ms >= 0 && *ms <= WL_MAX_TIME_S * 1e3) || *ms < prev_ms)
		return err_set(e, SS_EDATA, "%s: 'timestamp' must be in [0, %g] ms and non-decreasing, got %g "
			       "after %g", ctx, WL_MAX_TIME_S * 1e3, *ms, prev_ms);
	ids = json_get(o, "hash_ids");
	want = (size_t)((in + MOONCAKE_BLOCK_TOKENS - 1) / MOONCAKE_BLOCK_TOKENS);
	if (!ids || json_type_of(ids) != JSON_ARRAY || json_size(ids) > want)
		return err_set(e, SS_EDATA, "%s: 'hash_ids' must be an array of at most %zu ids (one per %d "
			       "tokens of input_length %lld)", ctx, want, MOONCAKE_BLOCK_TOKENS, (long long)in);
	XGROW(*keys, *kcap, *nkeys + json_size(ids));
	for (x = json_first(ids); x; x = json_next(x), i++) {
		double v = json_number(x);
		if (json_type_of(x) != JSON_NUMBER || !(v >= 0 && v < 0x1p53) || v != floor(v))
			return err_set(e, SS_EDATA, "%s: 'hash_ids[%zu]' must be an integer in [0, 2^53), got %g",
				       ctx, i, v);
		(*keys)[*nkeys + i] = (int64_t)v;
	}
	memset(r, 0, sizeof(*r));
	r->arrival_ns = (int64_t)llround(*ms * 1e6);
	r->prompt_tokens = in;
	r->output_tokens = out;
	r->prefix_group = -1;
	r->nkeys = (int32_t)i;
	return 0;
}

int mooncake_read(const char *path, struct wl_spec *wl, struct err *e)
{
	struct gzr *g = NULL;
	struct wl_req *recs = NULL;
	int64_t *keys = NULL;
	size_t n = 0, cap = 0, nkeys = 0, kcap = 0, i, off = 0;
	double prev = 0;
	const char *line;
	size_t len;
	int rc;

	if ((rc = gzr_open(path, &g, e)) < 0)
		return rc;
	while ((rc = gzr_getline(g, &line, &len, e)) == 0 && line) {
		char ctx[700];
		struct json *o;
		double ms;
		size_t k0 = nkeys;
		while (len && (line[len - 1] == '\r' || line[len - 1] == ' '))
			len--;
		if (len == 0)
			continue;
		snprintf(ctx, sizeof(ctx), "%s:%zu", path, gzr_lineno(g));
		if (n >= (size_t)WL_DEFAULT_MAX_REQUESTS) {
			rc = err_set(e, SS_EDATA, "%s: more than %lld requests", ctx, (long long)WL_DEFAULT_MAX_REQUESTS);
			break;
		}
		if ((rc = json_parse(line, len, ctx, &o, e)) < 0)
			break;
		XGROW(recs, cap, n + 1);
		rc = read_line(o, ctx, prev, &recs[n], &keys, &nkeys, &kcap, &ms, e);
		json_free(o);
		if (rc < 0)
			break;
		nkeys = k0 + (size_t)recs[n].nkeys;
		recs[n].content_id = -(int64_t)(n + 1);
		prev = ms;
		n++;
	}
	gzr_close(g);
	if (rc == 0 && n == 0)
		rc = err_set(e, SS_EDATA, "%s: no request in the trace", path);
	if (rc < 0) {
		free(recs);
		free(keys);
		return rc;
	}
	for (i = 0; i < n; i++) { /* the keys array is final now */
		recs[i].keys = recs[i].nkeys ? keys + off : NULL;
		off += (size_t)recs[i].nkeys;
	}
	wl_spec_release(wl);
	wl_spec_defaults(wl);
	wl->process = WL_TRACE;
	wl->num_requests = 0;
	wl->records = wl->own_records = recs;
	wl->nrecords = n;
	wl->own_keys = keys;
	wl->key_tokens = MOONCAKE_BLOCK_TOKENS;
	snprintf(wl->source, sizeof(wl->source), "%s", path);
	snprintf(wl->trace, sizeof(wl->trace), "%s", path);
	return 0;
}

int mooncake_slice(struct wl_spec *wl, int64_t requests, double speedup, const char *ctx, struct err *e)
{
	size_t i;

	if (requests < 0 || (size_t)requests > wl->nrecords)
		return err_set(e, SS_EDATA, "%s: 'requests' must be in [0, %zu] (the trace's requests), got %lld", ctx,
			       wl->nrecords, (long long)requests);
	if (!(speedup > 0 && speedup <= 1e6))
		return err_set(e, SS_EDATA, "%s: 'speedup' must be in (0, 1e6], got %g", ctx, speedup);
	if (requests > 0)
		wl->nrecords = (size_t)requests;
	if (speedup != 1)
		for (i = 0; i < wl->nrecords; i++)
			wl->own_records[i].arrival_ns = (int64_t)llround((double)wl->own_records[i].arrival_ns / speedup);
	return 0;
}
