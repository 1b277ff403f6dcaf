/* fuzz_bench.c - libFuzzer harness for the vLLM bench serve / SGLang
 * bench_serving results reader (Python's Infinity / NaN literals included). */
#include <stdint.h>
#include <stdlib.h>

#include "readers/measured.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bench_runs b;
	struct err e;

	if (bench_read_mem((const char *)data, size, "fuzz.jsonl", &b, &e) == 0)
		bench_runs_release(&b);
	return 0;
}
