/* test_readers.c - the silicon-table reader's duplicate rows (aicdup.c),
 * and the pieces the readers share: the JSON-per-line walk (jsonl.h),
 * copying JSON fields into a record (jfield.h), the end of a replay reader
 * (gt_replay_finish), and a calibration file's overheads written and read
 * back through one list of terms (tier1file.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "base/jfield.h"
#include "base/json.h"
#include "readers/jsonl.h"
#include "readers/measured.h"
#include "readers/tier1file.h"

#define HDR "id,silicon_data_source,backend,backend_version,model_path,system,precision,mode,isl,osl," \
	    "gemm_quant_mode,moe_quant_mode,batch_size,tp_size,pp_size,attention_dp_size,moe_tp_size," \
	    "moe_ep_size,silicon_ttft_ms,silicon_tpot_ms\n"

/* One DeepSeek-R1 SGLang run of the published file (fp4, B200, 1024/8192,
 * 16 clients) as it appears three times: under db-dump as DeepSeek-V3 with
 * the layout multiplied by its EP (tp 16, moe_tp 4, ep 4), under
 * 2026-03-25 with the real one (tp 4, ep 4), under 2026-04-06 multiplied
 * again, its TPOT printed with the last digit apart (as the sources print
 * one double); then the same layout with a TPOT apart in the 10th digit,
 * and the same figures at another concurrency (two other runs). */
static const char table[] =
	HDR
	"cfg202,db-dump/2026-04-27; config_id=202; silicon_concurrency=16; measured=2026-03-25T00:00:00.000Z,"
	"sglang,0.5.9,deepseek-ai/DeepSeek-V3,b200_sxm,fp4,agg,1024,8192,nvfp4,nvfp4,16,16,1,1,4,4,"
	"346.8913925375091,12.749421285750854\n"
	"r279,source_file=2026-03-25.csv; model=DeepSeek-R1; silicon_concurrency=16; measured=2026-03-25T16:34:14Z,"
	"sglang,0.5.9,deepseek-ai/DeepSeek-R1,b200_sxm,fp4,agg,1024,8192,nvfp4,nvfp4,16,4,1,1,1,4,"
	"346.8913925375091,12.749421285750854\n"
	"r1045,source_file=2026-04-06.csv; model=DeepSeek-R1; silicon_concurrency=16; measured=2026-03-25T00:00:00.000Z,"
	"sglang,0.5.9,deepseek-ai/DeepSeek-R1,b200_sxm,fp4,agg,1024,8192,nvfp4,nvfp4,16,16,1,1,4,4,"
	"346.8913925375091,12.749421285750855\n"
	"other_tpot,source_file=2026-03-25.csv; silicon_concurrency=16; measured=2026-03-25T16:34:14Z,"
	"sglang,0.5.9,deepseek-ai/DeepSeek-R1,b200_sxm,fp4,agg,1024,8192,nvfp4,nvfp4,16,4,1,1,1,4,"
	"346.8913925375091,12.749421286750854\n"
	"other_c,source_file=2026-03-25.csv; silicon_concurrency=32; measured=2026-03-25T16:34:14Z,"
	"sglang,0.5.9,deepseek-ai/DeepSeek-R1,b200_sxm,fp4,agg,1024,8192,nvfp4,nvfp4,32,4,1,1,1,4,"
	"346.8913925375091,12.749421285750854\n";

static void test_duplicates(void)
{
	struct aic_table t;
	struct err e;
	size_t dropped;

	if (aic_read_mem(table, sizeof(table) - 1, "dups.csv", NULL, &t, &e) < 0) {
		CHECK(false, "read: %s", e.msg);
		return;
	}
	CHECK(t.n == 5, "5 rows read (%zu)", t.n);
	CHECK(aic_same_measurement(&t.r[0], &t.r[1]), "the inflated db-dump row and the real one are one run");
	CHECK(aic_same_measurement(&t.r[1], &t.r[2]), "a TPOT printed with its last digit apart is the same run");
	CHECK(!aic_same_measurement(&t.r[1], &t.r[3]), "a TPOT apart in the 10th digit is another run");
	CHECK(!aic_same_measurement(&t.r[1], &t.r[4]), "the same figures at another concurrency: another run");
	dropped = aic_drop_duplicates(&t);
	CHECK(dropped == 2, "two copies dropped (%zu)", dropped);
	CHECK(t.n == 3 && strcmp(t.r[0].id, "cfg202") == 0 && strcmp(t.r[1].id, "other_tpot") == 0 &&
		      strcmp(t.r[2].id, "other_c") == 0,
	      "the first copy kept, the others in order (%s %s %s)", t.n > 0 ? t.r[0].id : "-",
	      t.n > 1 ? t.r[1].id : "-", t.n > 2 ? t.r[2].id : "-");
	CHECK(aic_drop_duplicates(&t) == 0 && t.n == 3, "nothing left to drop");
	aic_table_release(&t);
}

/* One P/D run (SGLang GB200 fp4 1k/1k, 32 clients, db-dump cfg252 and its
 * 2026-04-06 twin, eval/silicon/HARNESS.md "pdtwins") as db-dump records it
 * (MoE TP 4, EP 1, decode batch 4) and with the pools of its launch
 * configuration (EP 4, 32 redundant decode experts): one measurement, the
 * launch configuration's copy kept in the first copy's place; a copy with
 * blank pools never replaces one with pools.  A P/D copy named MTP with the
 * means of a plain recorded copy is the plain run (db-dump holds the plain
 * P/D runs, HARNESS.md "pd6"); an agg copy read as plain (no launch
 * configuration) with the means of one its launch configuration names MTP is
 * the MTP run (HARNESS.md "aggdup"). */
static void test_pd_twins(void)
{
	struct aic_table t;
	struct err e;
	struct aic_pool rec = {.batch = 4, .workers = 2, .tp = 1, .pp = 1, .attn_dp = 4, .moe_tp = 4, .moe_ep = 1};
	struct aic_pool launch = {.workers = 2, .tp = 1, .pp = 1, .attn_dp = 4, .moe_tp = 1, .moe_ep = 4, .redundant = 32};

	if (aic_read_mem(table, sizeof(table) - 1, "twins.csv", NULL, &t, &e) < 0) {
		CHECK(false, "read: %s", e.msg);
		return;
	}
	/* rows 1 (r279) and 3 (other_tpot): one copy and another run */
	t.r[1].pre = t.r[1].dec = rec;
	t.r[2] = t.r[1];
	snprintf(t.r[2].id, sizeof(t.r[2].id), "twin");
	t.r[2].dec = launch;
	t.r[2].pools_derived = true;
	t.r[0] = t.r[1];
	snprintf(t.r[0].id, sizeof(t.r[0].id), "blank");
	memset(&t.r[0].pre, 0, sizeof(t.r[0].pre));
	memset(&t.r[0].dec, 0, sizeof(t.r[0].dec));
	t.r[4] = t.r[1];
	snprintf(t.r[4].id, sizeof(t.r[4].id), "mtp");
	t.r[4].spec_tokens = 3;
	CHECK(aic_same_measurement(&t.r[1], &t.r[2]), "other pools, same identity and means: one run");
	CHECK(aic_same_measurement(&t.r[1], &t.r[4]), "agg: another MTP depth, the same means: one run");
	for (size_t k = 0; k < t.n; k++)
		snprintf(t.r[k].mode, sizeof(t.r[k].mode), "disagg");
	CHECK(aic_same_measurement(&t.r[1], &t.r[4]), "P/D: a copy named MTP with a plain copy's means, one run");
	CHECK(aic_drop_duplicates(&t) == 3 && t.n == 2, "blank, twin and MTP copy dropped (%zu left)", t.n);
	CHECK(t.n == 2 && strcmp(t.r[0].id, "twin") == 0 && t.r[0].dec.moe_ep == 4 && t.r[0].dec.redundant == 32 &&
		      strcmp(t.r[1].id, "other_tpot") == 0,
	      "the launch configuration's copy kept first (%s %s)", t.r[0].id, t.n > 1 ? t.r[1].id : "-");
	aic_table_release(&t);

	/* the MTP copy first, then db-dump's plain record: the plain one stays */
	if (aic_read_mem(table, sizeof(table) - 1, "twins.csv", NULL, &t, &e) < 0) {
		CHECK(false, "read: %s", e.msg);
		return;
	}
	t.r[1].pre = t.r[1].dec = rec;
	snprintf(t.r[1].mode, sizeof(t.r[1].mode), "disagg");
	t.r[0] = t.r[1];
	snprintf(t.r[0].id, sizeof(t.r[0].id), "mtp");
	t.r[0].pools_derived = true;
	t.r[0].spec_tokens = 3;
	t.n = 2;
	CHECK(aic_drop_duplicates(&t) == 1 && t.n == 1 && strcmp(t.r[0].id, "r279") == 0 && t.r[0].spec_tokens == 0,
	      "db-dump's plain copy kept (%s)", t.r[0].id);
	aic_table_release(&t);

	/* agg: the plain copy without a launch configuration first, then the
	 * one whose launch configuration names MTP 3: the MTP copy stays */
	if (aic_read_mem(table, sizeof(table) - 1, "twins.csv", NULL, &t, &e) < 0) {
		CHECK(false, "read: %s", e.msg);
		return;
	}
	t.r[0] = t.r[1];
	snprintf(t.r[1].id, sizeof(t.r[1].id), "mtp");
	t.r[1].pools_derived = true;
	t.r[1].spec_tokens = 3;
	t.n = 2;
	CHECK(strcmp(t.r[0].mode, "disagg") != 0, "agg rows (%s)", t.r[0].mode);
	CHECK(aic_drop_duplicates(&t) == 1 && t.n == 1 && strcmp(t.r[0].id, "mtp") == 0 && t.r[0].spec_tokens == 3,
	      "agg: the launch configuration's MTP copy kept (%s)", t.r[0].id);
	aic_table_release(&t);
}

static void test_jsonl(void)
{
	static const char buf[] = "{\"a\": 1}\r\n\n   \n{\"a\": 2}  \n[3]\n{\"a\": 4}";
	struct jsonl it;
	struct json *o;
	struct err e;
	const char *s;
	size_t n;
	int rc, seen = 0;

	jsonl_init(&it, buf, sizeof(buf) - 1, "t.jsonl");
	CHECK(jsonl_next_line(&it, &s, &n) && n == 8 && it.line == 1 && strcmp(it.ctx, "t.jsonl:1") == 0,
	      "first line without its \\r: %zu bytes, %s", n, it.ctx);
	CHECK(jsonl_next_line(&it, &s, &n) && n == 8 && it.line == 4 && strcmp(it.ctx, "t.jsonl:4") == 0,
	      "blank lines skipped but counted, trailing blanks cut: %zu bytes at %s", n, it.ctx);
	jsonl_init(&it, buf, sizeof(buf) - 1, "t.jsonl");
	while ((rc = jsonl_next(&it, &o, &e)) > 0) {
		seen++;
		json_free(o);
	}
	CHECK(seen == 2 && rc == -SS_EDATA && strstr(e.msg, "t.jsonl:5: expected one JSON object per line"),
	      "two objects, then line 5 is no object: %d, %s", seen, e.msg);
	jsonl_init(&it, "{\"a\": 1}\n{\"b\": ", 15, "u");
	CHECK(jsonl_next(&it, &o, &e) == 1, "a good line");
	json_free(o);
	CHECK(jsonl_next(&it, &o, &e) == -SS_EDATA && strstr(e.msg, "u:2"), "bad JSON names its line: %s", e.msg);
	jsonl_init(&it, "\n \n", 3, "v");
	CHECK(jsonl_next(&it, &o, &e) == 0, "only blank lines: the end at once");
	jsonl_init(&it, "{\"a\": 4}", 8, "w");
	CHECK(jsonl_next(&it, &o, &e) == 1 && json_get(o, "a") && json_number(json_get(o, "a")) == 4,
	      "last line without a newline");
	json_free(o);
}

static void test_jfield(void)
{
	static const char doc[] = "{\"s\": \"abcdef\", \"i\": 12, \"n\": null, \"f\": 1.5, \"x\": 3}";
	struct json *j;
	const struct json *o;
	struct err e;
	char buf[4] = "old";
	int v = 7;

	if (json_parse(doc, sizeof(doc) - 1, "t.json", &j, &e) < 0) {
		CHECK(0, "parse: %s", e.msg);
		return;
	}
	CHECK(jf_str(j, "s", "t.json", buf, sizeof(buf), true, &e) == 0 && strcmp(buf, "abc") == 0,
	      "string cut to its buffer: '%s'", buf);
	CHECK(jf_str(j, "none", "t.json", buf, sizeof(buf), false, &e) == 0 && strcmp(buf, "abc") == 0,
	      "optional string absent: buffer untouched");
	CHECK(jf_str(j, "none", "t.json", buf, sizeof(buf), true, &e) == -SS_EDATA &&
	      strstr(e.msg, "t.json: missing required key 'none'"), "required string absent: %s", e.msg);
	CHECK(jf_str(j, "i", "t.json", buf, sizeof(buf), false, &e) == -SS_EDATA &&
	      strstr(e.msg, "'i' must be a string"), "a number is no string: %s", e.msg);
	CHECK(jf_int(j, "i", "t.json", 1, 100, &v, &e) == 0 && v == 12, "integer into an int: %d", v);
	CHECK(jf_int(j, "none", "t.json", 1, 100, &v, &e) == 0 && v == 12, "absent integer: int untouched");
	CHECK(jf_int(j, "i", "t.json", 1, 10, &v, &e) == -SS_EDATA && v == 12 &&
	      strstr(e.msg, "'i' must be in [1, 10], got 12"), "out of range, int untouched: %s", e.msg);
	CHECK(jf_int(j, "f", "t.json", 1, 10, &v, &e) == -SS_EDATA && strstr(e.msg, "'f' must be an integer"),
	      "not integral: %s", e.msg);
	CHECK(jf_req(j, "x", "t.json", &o, &e) == 0 && o && json_number(o) == 3, "required member found");
	CHECK(jf_req(j, "n", "t.json", &o, &e) == 0 && o && json_type_of(o) == JSON_NULL,
	      "a null member is there");
	CHECK(jf_req(j, "y", "t.json", &o, &e) == -SS_EDATA && strcmp(e.msg, "t.json: missing required key 'y'") == 0,
	      "missing member: %s", e.msg);
	CHECK(jf_mapping(j, "t.json", "settings", &e) == 0, "an object is a mapping");
	CHECK(jf_mapping(json_get(j, "x"), "c.yaml", "settings", &e) == -SS_EDATA &&
	      strcmp(e.msg, "c.yaml: expected a mapping of settings, got a number") == 0, "a number is not: %s", e.msg);
	json_free(j);
}

static void test_replay_finish(void)
{
	static const struct gt_fields f = {"t", "p", "o", "ttft", "e2e"};
	struct gt_requests g;
	struct gt_ids ids = {NULL, 0, 0};
	struct err e;
	int rc;

	memset(&g, 0, sizeof(g));
	rc = gt_replay_finish(&g, 0, NULL, NULL, "f.jsonl", "no requests here", "t", "x", &e);
	CHECK(rc == -SS_EDATA && strcmp(e.msg, "f.jsonl: no requests here") == 0, "no request: %s", e.msg);
	g.r = calloc(2, sizeof(*g.r));
	g.cap = 2;
	CHECK(gt_request_set(&g.r[0], "f:1", &f, 12, 10, 5, 20, 100, &e) == 0 &&
	      gt_request_set(&g.r[1], "f:2", &f, 10, 10, 5, 20, 50, &e) == 0, "two requests");
	g.n = 2;
	gt_ids_add(&ids, "a", 1);
	gt_ids_add(&ids, "a", 2);
	rc = gt_replay_finish(&g, 0, &ids, "rid", "f.jsonl", "none", "t", "x", &e);
	CHECK(rc == -SS_EDATA && strstr(e.msg, "lines 1 and 2 have the same 'rid'") && ids.n == 0 && g.r == NULL,
	      "a repeated id fails, ids and requests released: %s", e.msg);
	memset(&g, 0, sizeof(g));
	g.r = calloc(2, sizeof(*g.r));
	g.cap = 2;
	gt_request_set(&g.r[0], "f:1", &f, 12, 10, 5, 20, 100, &e);
	gt_request_set(&g.r[1], "f:2", &f, 10, 10, 5, 20, 50, &e);
	g.n = 2;
	gt_ids_add(&ids, "a", 1);
	gt_ids_add(&ids, "b", 2);
	rc = gt_replay_finish(&g, 0, &ids, "rid", "f.jsonl", "none", "t", "era1", &e);
	CHECK(rc == 0 && ids.n == 0 && g.nb == 1 && strcmp(g.b[0].strategy, "replay") == 0 && g.server_side &&
	      strcmp(g.era, "era1") == 0 && g.r[0].arrival_s == 0 && g.r[1].arrival_s == 2 &&
	      g.b[0].end_s == 2.1, "one replay benchmark, sorted from the first arrival, ends at %g", g.b[0].end_s);
	rc = gt_replay_finish(&g, -SS_EDATA, NULL, NULL, "f.jsonl", "none", "t", "x", &e);
	CHECK(rc == -SS_EDATA && g.r == NULL, "an earlier failure is kept and releases the requests");
}

static void test_overheads_file(void)
{
	struct overheads ov = {0};
	struct calib_file cf;
	struct err e;
	struct jw w;
	char path[] = "/tmp/servesim-test-readers-XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

	if (!f) {
		CHECK(0, "temp file");
		return;
	}
	ov.step_us = 1.25;
	ov.layer_us = 2.5;
	ov.req_us = 3.75;
	ov.prefill_token_us = 0.125;
	ov.api_ttft_ms = 4.5;
	ov.api_e2e_ms = 5.5;
	ov.stream_token_us = 6.25;
	ov.delivery_steps = 0.5;
	jw_init(&w, f, true);
	jw_obj(&w, NULL);
	jw_str(&w, "model", "m");
	jw_str(&w, "gpu", "h100");
	calib_overheads_json(&w, &ov);
	jw_end_obj(&w);
	jw_finish(&w);
	fclose(f);
	CHECK(calib_load(path, &cf, &e) == 0, "written file reads back");
	CHECK(cf.ov.step_us == 1.25 && cf.ov.layer_us == 2.5 && cf.ov.req_us == 3.75 &&
	      cf.ov.prefill_token_us == 0.125 && cf.ov.api_ttft_ms == 4.5 && cf.ov.api_e2e_ms == 5.5 &&
	      cf.ov.stream_token_us == 6.25 && cf.ov.delivery_steps == 0.5 && cf.ov.given == OV_TIER1,
	      "every overhead term round-trips to its own field");
	CHECK(cf.tp == 1 && strcmp(cf.method, "wls") == 0 && strcmp(cf.engine_version, "unknown") == 0 &&
	      strcmp(cf.model, "m") == 0, "defaults of the optional keys: tp %d, %s, %s", cf.tp, cf.method,
	      cf.engine_version);
	f = fopen(path, "w");
	fputs("{\"model\": \"m\", \"gpu\": \"g\", \"overheads\": {\"step_us\": 1, \"layer_us\": 1, \"request_us\": 1,"
	      " \"prefill_token_us\": 1, \"api_ttft_ms\": 1, \"api_e2e_ms\": 1, \"stream_token_us\": 1}}", f);
	fclose(f);
	CHECK(calib_load(path, &cf, &e) == -SS_EDATA && strstr(e.msg, "overheads: missing required key 'delivery_steps'"),
	      "a missing term is named: %s", e.msg);
	f = fopen(path, "w");
	fputs("{\"model\": \"m\", \"gpu\": \"g\"}", f);
	fclose(f);
	CHECK(calib_load(path, &cf, &e) == -SS_EDATA && strstr(e.msg, "missing required key 'overheads'"),
	      "no overheads: %s", e.msg);
	unlink(path);
}

int main(void)
{
	test_duplicates();
	test_pd_twins();
	test_jsonl();
	test_jfield();
	test_replay_finish();
	test_overheads_file();
	return check_done();
}
