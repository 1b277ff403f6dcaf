/* fuzz_json.c - libFuzzer harness for the strict JSON adapter and the
 * schema helpers used by every reader. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void walk(const struct json *j, int depth)
{
	const struct json *c;
	struct err e;
	double d;
	int64_t i;
	const char *s;
	bool b;
	static const char *const keys[] = {"a", "rate", "stages", NULL};

	if (depth > 64)
		return;
	if (json_type_of(j) == JSON_OBJECT) {
		json_check_keys(j, keys, "fuzz", &e);
		json_opt_num(j, "rate", "fuzz", &d, NULL, &e);
		json_opt_int(j, "a", "fuzz", 0, 1000, &i, NULL, &e);
		json_opt_str(j, "stages", "fuzz", &s, &e);
		json_opt_bool(j, "a", "fuzz", &b, &e);
	}
	for (c = json_first(j); c; c = json_next(c)) {
		(void)json_key(c);
		walk(c, depth + 1);
	}
	(void)json_at(j, 3);
	(void)json_size(j);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct json *j;
	struct err e;

	if (json_parse((const char *)data, size, "fuzz", &j, &e) == 0) {
		walk(j, 0);
		json_free(j);
	}
	return 0;
}
