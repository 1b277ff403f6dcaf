/* fuzz_aic.c - libFuzzer harness for the aiconfigurator silicon CSV reader
 * (with and without a --where filter) and its model-name candidates. */
#include <stdint.h>
#include <stdlib.h>

#include "readers/measured.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct aic_table t;
	struct err e;
	size_t i;

	if (aic_read_mem((const char *)data, size, "fuzz.csv", NULL, &t, &e) == 0) {
		char cand[3][128];
		for (i = 0; i < t.n; i++)
			(void)aic_model_candidates(t.r[i].model, cand);
		aic_table_release(&t);
	}
	if (aic_read_mem((const char *)data, size, "fuzz.csv", "mode=agg,backend!=sglang", &t, &e) == 0)
		aic_table_release(&t);
	return 0;
}
