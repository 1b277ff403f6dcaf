/* fuzz_workload.c - libFuzzer harness for workload specs: the YAML adapter
 * (first byte odd) or the JSON reader, the spec validator, then a few
 * requests from the generator. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "workload/workload.h"
#include "base/yaml.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct json *j = NULL;
	struct wl_spec w;
	struct wl_gen *g;
	struct wl_req r;
	struct err e;
	int i, rc;

	if (size < 1)
		return 0;
	if (data[0] & 1)
		rc = yaml_parse_text((const char *)data + 1, size - 1, "fuzz.yaml", &j, &e);
	else
		rc = json_parse((const char *)data + 1, size - 1, "fuzz.json", &j, &e);
	if (rc != 0)
		return 0;
	if (wl_spec_from_json(j, "fuzz", &w, &e) == 0 && w.process != WL_TRACE &&
	    wl_gen_new(&w, &g, &e) == 0) {
		for (i = 0; i < 50 && wl_gen_next(g, (int64_t)i * 1000, &r, &e) > 0; i++)
			;
		wl_gen_free(g);
	}
	wl_spec_release(&w);
	json_free(j);
	return 0;
}
