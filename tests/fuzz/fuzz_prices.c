/* fuzz_prices.c - libFuzzer harness for the $/GPU-hour table of `servesim
 * search` (data/prices.json): the JSON reader, then the table's schema. */
#include <stdint.h>
#include <stdlib.h>

#include "plan/prices.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct prices t;
	struct err e;

	if (prices_parse((const char *)data, size, "fuzz.json", &t, &e) == 0)
		prices_release(&t);
	return 0;
}
