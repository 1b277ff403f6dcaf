/* fuzz_requests.c - libFuzzer harness for the per-request JSONL readers
 * (vLLM engine request stats, vllm-vcr traces), the format sniffer and the
 * GuideLLM aggregate-only reader. */
#include <stdint.h>
#include <stdlib.h>

#include "readers/readers.h"
#include "base/json.h"
#include "readers/measured.h"
#include "workload/workload.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct measured_stage st[WL_MAX_STAGES];
	struct gt_requests g;
	struct gt_settings s;
	struct wl_spec wl;
	struct json *j;
	struct err e;
	char keys[300];
	size_t n;

	(void)reader_of_mem((const char *)data, size, keys, sizeof(keys));
	if (vllm_requests_read_mem((const char *)data, size, "fuzz.jsonl", &g, &e) == 0) {
		(void)gt_stat(&g, 0, 2, -1);
		gt_requests_release(&g);
	}
	if (vcr_read_mem((const char *)data, size, "fuzz.jsonl", &g, &s, &e) == 0)
		gt_requests_release(&g);
	if (json_parse((const char *)data, size, "fuzz.json", &j, &e) == 0) {
		if (guidellm_aggregates_json(j, "fuzz.json", &wl, st, &n, &e) == 0)
			wl_spec_release(&wl);
		json_free(j);
	}
	return 0;
}
