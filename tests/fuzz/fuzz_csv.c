/* fuzz_csv.c - libFuzzer harness for the CSV reader (kernel tables, traces):
 * the input is written to a temporary file and read row by row. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "servesim/csv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[64];

static void remove_scratch(void)
{
	remove(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct csv *c;
	struct err e;
	FILE *f;
	int rc, rows = 0;

	/* a RAM-backed folder when there is one: a disk write per input costs more
	 * than the parse */
	if (!path[0]) {
		snprintf(path, sizeof(path), "%s/servesim-fuzz-csv-%d.csv",
			 access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp", (int)getpid());
		atexit(remove_scratch);
	}
	f = fopen(path, "wb");
	if (!f)
		return 0;
	fwrite(data, 1, size, f);
	fclose(f);
	if (csv_open(path, &c, &e) == 0) {
		int col = csv_column(c, "latency_us");
		while ((rc = csv_next(c, &e)) > 0 && rows++ < 1000) {
			double v;
			(void)csv_num(c, col >= 0 ? col : 0, &v, &e);
		}
		csv_close(c);
	}
	return 0;
}
