/* test_json.c - the strict JSON adapter: line:column errors, duplicates,
 * trailing garbage, schema helpers, and the writer. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "base/json.h"
#include "base/yaml.h"

static int parse(const char *s, struct json **j, struct err *e)
{
	err_clear(e);
	return json_parse(s, strlen(s), "t.json", j, e);
}

/* json_load_records' parser in the test: a record is a number >= 0. */
static int rec_num(const struct json *o, const char *path, size_t i, void *slot, struct err *e)
{
	if (json_type_of(o) != JSON_NUMBER || json_number(o) < 0)
		return err_set(e, SS_EDATA, "%s: xs[%zu] must be a number >= 0", path, i);
	*(double *)slot = json_number(o);
	return 0;
}

/* A catalogue of records read from file path (text) by json_load_records. */
static int load_records(const char *text, bool nonempty, double **v, size_t *n, struct err *e)
{
	static const char *const top[] = {"xs", "note", NULL};
	char path[128];
	void *items = NULL;
	FILE *f;
	int rc;

	snprintf(path, sizeof(path), "/tmp/servesim-test-json-%d.json", (int)getpid());
	f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
	err_clear(e);
	*n = 99;
	rc = json_load_records(path, top, nonempty, sizeof(double), rec_num, &items, n, e);
	*v = items;
	remove(path);
	return rc;
}

static void test_load_records(void)
{
	struct err e;
	double *v = NULL;
	size_t n;
	int rc;

	rc = load_records("{\"xs\": [1.5, 2, 0], \"note\": \"x\"}", true, &v, &n, &e);
	CHECK(rc == 0 && n == 3 && v[0] == 1.5 && v[1] == 2 && v[2] == 0, "3 records read in order: %s", e.msg);
	free(v);
	v = NULL;
	rc = load_records("{\"xs\": []}", false, &v, &n, &e);
	CHECK(rc == 0 && n == 0 && v, "an empty array where allowed: 0 records: %s", e.msg);
	free(v);
	v = NULL;
	CHECK(load_records("{\"xs\": []}", true, &v, &n, &e) == -SS_EDATA && !v && n == 99 &&
		      strstr(e.msg, "json: 'xs' must be a non-empty array"),
	      "an empty array where one is needed refused: %s", e.msg);
	CHECK(load_records("{\"xs\": 3}", false, &v, &n, &e) == -SS_EDATA && strstr(e.msg, "'xs' must be an array"),
	      "not an array refused: %s", e.msg);
	CHECK(load_records("{\"xs\": [], \"ys\": 1}", false, &v, &n, &e) == -SS_EDATA && strstr(e.msg, "'ys'"),
	      "a key not in top refused: %s", e.msg);
	CHECK(load_records("{\"xs\": [1, -2]}", false, &v, &n, &e) == -SS_EDATA && !v && n == 99 &&
		      strstr(e.msg, "json: xs[1] must be a number >= 0"),
	      "a record's error passed on, nothing kept: %s", e.msg);
}

int main(void)
{
	struct json *j = NULL;
	struct err e;
	int rc;
	double d = 0;
	int64_t i64 = 0;
	const char *s = NULL;
	bool b = false, pres = true;
	static const char *const keys[] = {"a", "b", "c", NULL};

	rc = parse("{\n  \"a\": 1,\n  \"b\": [1, 2,, 3]\n}", &j, &e);
	CHECK(rc == -SS_EDATA, "malformed JSON is SS_EDATA");
	CHECK_STR_CONTAINS(e.msg, "t.json:3:", "error names file and line");
	rc = parse("{\"a\": 1, \"a\": 2}", &j, &e);
	CHECK(rc == -SS_EDATA && strstr(e.msg, "duplicate key 'a'"), "duplicate key rejected: %s", e.msg);
	rc = parse("{\"x\": {\"k\": 1, \"k\": 1}}", &j, &e);
	CHECK(rc == -SS_EDATA, "nested duplicate key rejected");
	/* the least duplicated key is named, in small objects (compared by
	 * pairs) as in large ones (sorted) */
	rc = parse("{\"z\": 1, \"m\": 1, \"z\": 2, \"b\": 1, \"m\": 2}", &j, &e);
	CHECK(rc == -SS_EDATA && strstr(e.msg, "duplicate key 'm'"), "small object: least duplicate named: %s",
	      e.msg);
	rc = parse("{\"k01\":1,\"k02\":1,\"k03\":1,\"k04\":1,\"k05\":1,\"k06\":1,\"k07\":1,\"k08\":1,\"k09\":1,"
		   "\"z\":1,\"k11\":1,\"k12\":1,\"m\":1,\"k14\":1,\"k15\":1,\"k16\":1,\"z\":2,\"m\":2}", &j, &e);
	CHECK(rc == -SS_EDATA && strstr(e.msg, "duplicate key 'm'"), "large object: least duplicate named: %s",
	      e.msg);
	rc = parse("{\"k01\":1,\"k02\":1,\"k03\":1,\"k04\":1,\"k05\":1,\"k06\":1,\"k07\":1,\"k08\":1,\"k09\":1,"
		   "\"k10\":1,\"k11\":1,\"k12\":1,\"k13\":1,\"k14\":1,\"k15\":1,\"k16\":1,\"k17\":1,\"k17\":2}", &j, &e);
	CHECK(rc == -SS_EDATA && strstr(e.msg, "duplicate key 'k17'"), "large object, sorted but for a repeat: %s",
	      e.msg);
	rc = parse("{\"k01\":1,\"k02\":1,\"k03\":1,\"k04\":1,\"k05\":1,\"k06\":1,\"k07\":1,\"k08\":1,\"k09\":1,"
		   "\"k10\":1,\"k11\":1,\"k12\":1,\"k13\":1,\"k14\":1,\"k15\":1,\"k16\":1,\"k17\":1}", &j, &e);
	CHECK(rc == 0, "large object, keys ascending: parses");
	json_free(j);
	rc = parse("{\"a\": 1} xyz", &j, &e);
	CHECK(rc == -SS_EDATA && strstr(e.msg, "t.json:1:10"), "trailing garbage with position: %s", e.msg);
	rc = parse("", &j, &e);
	CHECK(rc == -SS_EDATA, "empty input rejected");
	rc = parse("{\"a\": 2.5, \"b\": \"x\", \"c\": true}", &j, &e);
	CHECK(rc == 0, "valid object parses");
	CHECK(json_check_keys(j, keys, "t.json", &e) == 0, "known keys accepted");
	CHECK(json_req_num(j, "a", "t.json", &d, &e) == 0 && d == 2.5, "number getter");
	CHECK(json_req_str(j, "b", "t.json", &s, &e) == 0 && strcmp(s, "x") == 0, "string getter");
	CHECK(json_opt_bool(j, "c", "t.json", &b, &e) == 0 && b, "bool getter");
	CHECK(json_opt_num(j, "zz", "t.json", &d, &pres, &e) == 0 && !pres, "absent optional");
	err_clear(&e);
	CHECK(json_req_int(j, "a", "t.json", 0, 10, &i64, &e) == -SS_EDATA &&
	      strstr(e.msg, "'a' must be an integer, got 2.5"), "non-integer rejected: %s", e.msg);
	err_clear(&e);
	CHECK(json_req_num(j, "b", "t.json", &d, &e) == -SS_EDATA &&
	      strstr(e.msg, "'b' must be a number, got \"x\""), "type error names value: %s", e.msg);
	err_clear(&e);
	CHECK(json_req_num(j, "q", "t.json: engine", &d, &e) == -SS_EDATA &&
	      strstr(e.msg, "t.json: engine: missing required key 'q'"), "missing key: %s", e.msg);
	CHECK(json_get(j, "A") == NULL, "lookups are case-sensitive");
	json_free(j);
	rc = parse("{\"a\": 1, \"zz\": 2}", &j, &e);
	err_clear(&e);
	CHECK(json_check_keys(j, keys, "w.json: arrival", &e) == -SS_EDATA &&
	      strstr(e.msg, "w.json: arrival: unknown key 'zz' (expected one of: a, b, c)"),
	      "unknown key: %s", e.msg);
	json_free(j);
	rc = parse("{\"n\": -3}", &j, &e);
	err_clear(&e);
	CHECK(json_req_int(j, "n", "w.json", 1, INT64_MAX, &i64, &e) == -SS_EDATA &&
	      strstr(e.msg, "'n' must be >= 1, got -3"), "range error: %s", e.msg);
	json_free(j);
	{
		/* writer round trip */
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		struct jw w;
		struct json *r;
		jw_init(&w, f, true);
		jw_obj(&w, NULL);
		jw_num(&w, "big", 13542186573824.0);
		jw_num(&w, "frac", 0.125);
		jw_str(&w, "s", "a\"b\n");
		jw_arr(&w, "xs");
		jw_int(&w, NULL, 1);
		jw_int(&w, NULL, 2);
		jw_end_arr(&w);
		jw_arr(&w, "empty");
		jw_end_arr(&w);
		jw_end_obj(&w);
		jw_finish(&w);
		fclose(f);
		CHECK(strstr(buf, "\"big\": 13542186573824") != NULL, "integral doubles printed exactly");
		rc = json_parse(buf, len, "mem", &r, &e);
		CHECK(rc == 0 && json_size(json_get(r, "xs")) == 2 &&
		      strcmp(json_string(json_get(r, "s")), "a\"b\n") == 0, "writer output parses back");
		if (rc == 0)
			json_free(r);
		free(buf);
	}

	/* Python's json.dumps writes bare NaN, Infinity and -Infinity (issue 10) */
	rc = parse("{\"a\": [0.0, Infinity], \"b\": -Infinity, \"c\": NaN, \"s\": \"NaN\"}", &j, &e);
	CHECK(rc == 0, "bare Infinity/-Infinity/NaN accepted: %s", e.msg);
	if (rc == 0) {
		CHECK(isinf(json_number(json_at(json_get(j, "a"), 1))) &&
		      json_number(json_at(json_get(j, "a"), 1)) > 0, "Infinity is +inf");
		CHECK(json_number(json_at(json_get(j, "a"), 0)) == 0.0, "neighbour kept");
		CHECK(isinf(json_number(json_get(j, "b"))) && json_number(json_get(j, "b")) < 0,
		      "-Infinity is -inf");
		CHECK(isnan(json_number(json_get(j, "c"))), "NaN is nan");
		CHECK(json_type_of(json_get(j, "s")) == JSON_STRING &&
		      strcmp(json_string(json_get(j, "s")), "NaN") == 0, "the string \"NaN\" stays a string");
		json_free(j);
	}
	rc = parse("Infinity", &j, &e);
	CHECK(rc == 0 && isinf(json_number(j)), "top-level Infinity");
	json_free(j);
	rc = parse("{NaN: 1}", &j, &e);
	CHECK(rc == -SS_EDATA && strstr(e.msg, "malformed JSON"), "NaN as a key refused: %s", e.msg);
	rc = parse("[1, Infinityx]", &j, &e);
	CHECK(rc == -SS_EDATA && strstr(e.msg, "t.json:1:"), "Infinityx refused: %s", e.msg);
	rc = parse("[1, nan]", &j, &e);
	CHECK(rc == -SS_EDATA, "lower-case nan refused: %s", e.msg);
	rc = parse("{\"a\": 1,\n \"b\": [NaN, 2,, 3]}", &j, &e);
	CHECK(rc == -SS_EDATA && strstr(e.msg, "t.json:2:"), "line kept after a literal: %s", e.msg);
	rc = parse("{\"rate\": 1e999}", &j, &e);
	CHECK(rc == -SS_EDATA && strstr(e.msg, "'rate' is out of the range of a double"),
	      "overflowing number refused: %s", e.msg);
	rc = parse("[\"\xff\"]", &j, &e);
	CHECK(rc == -SS_EDATA && strstr(e.msg, "0xff"), "raw 0xff refused: %s", e.msg);
	rc = parse("[1, \"a\\\"b\", NaN]", &j, &e);
	CHECK(rc == 0 && isnan(json_number(json_at(j, 2))), "escaped quote before a literal: %s", e.msg);
	json_free(j);

	/* one number rule for YAML and JSON: YAML 1.2 core-schema numbers */
	{
		const char *y = "a: .5\nb: 0x10\nc: 0o17\nd: -.inf\ne: +12\nf: 5.\ng: 1_000\nh: .nan\n";
		err_clear(&e);
		rc = yaml_parse_text(y, strlen(y), "t.yaml", &j, &e);
		CHECK(rc == 0, "YAML 1.2 numbers parse: %s", e.msg);
		if (rc == 0) {
			CHECK(json_number(json_get(j, "a")) == 0.5, ".5 is 0.5");
			CHECK(json_number(json_get(j, "b")) == 16, "0x10 is 16");
			CHECK(json_number(json_get(j, "c")) == 15, "0o17 is 15");
			CHECK(isinf(json_number(json_get(j, "d"))) && json_number(json_get(j, "d")) < 0, "-.inf");
			CHECK(json_number(json_get(j, "e")) == 12, "+12");
			CHECK(json_number(json_get(j, "f")) == 5, "5.");
			CHECK(json_type_of(json_get(j, "g")) == JSON_STRING, "1_000 is a string in YAML 1.2");
			CHECK(isnan(json_number(json_get(j, "h"))), ".nan");
			err_clear(&e);
			CHECK(json_req_num(j, "d", "t.yaml", &d, &e) == -SS_EDATA &&
			      strstr(e.msg, "'d' must be a finite number"), "schema getter refuses -inf: %s", e.msg);
			json_free(j);
		}
		y = "rate: 1e999\n";
		err_clear(&e);
		rc = yaml_parse_text(y, strlen(y), "t.yaml", &j, &e);
		CHECK(rc == -SS_EDATA && strstr(e.msg, "t.yaml:1:7: number 1e999 is out of the range"),
		      "YAML overflow refused with position: %s", e.msg);
		y = "rate: 0x1ffffffffffffffffffff\n";
		err_clear(&e);
		rc = yaml_parse_text(y, strlen(y), "t.yaml", &j, &e);
		CHECK(rc == -SS_EDATA && strstr(e.msg, "out of the range"), "YAML hex overflow refused: %s", e.msg);
	}
	test_load_records();
	return check_done();
}
