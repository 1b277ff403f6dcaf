/* fuzz_trace.c - libFuzzer harness for the profiler-trace readers: the first
 * byte picks a Kineto JSON document (even) or an Ascend kernel_details.csv
 * (odd, written to a scratch file since the CSV reader streams files). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trace t;
	struct err e;
	char path[64];
	FILE *f;

	if (size < 1)
		return 0;
	if (!(data[0] & 1)) {
		if (trace_read_kineto_mem((const char *)data + 1, size - 1, "fuzz.json", &t, &e) == 0)
			trace_release(&t);
		return 0;
	}
	/* a RAM-backed folder when there is one: a disk write per input costs more
	 * than the parse */
	snprintf(path, sizeof(path), "%s/fuzz-trace-%d.csv",
		 access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp", (int)getpid());
	if (!(f = fopen(path, "wb")))
		return 0;
	fwrite(data + 1, 1, size - 1, f);
	fclose(f);
	if (trace_read(path, NULL, &t, &e) == 0)
		trace_release(&t);
	remove(path);
	return 0;
}
