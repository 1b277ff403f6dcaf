/* fuzz_guidellm.c - libFuzzer harness for the streamed GuideLLM reader (all
 * schema eras) and its pull tokenizer. */
#include <stdint.h>
#include <stdlib.h>

#include "readers/measured.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gt_requests g;
	struct err e;

	if (guidellm_read_mem((const char *)data, size, "fuzz.json", &g, &e) == 0) {
		(void)gt_stat(&g, 0, 2, -1);
		(void)gt_stat(&g, -1, 0, 0.9);
		gt_requests_release(&g);
	}
	return 0;
}
