/* fuzz_csv.c - libFuzzer harness for the CSV reader (kernel tables, traces):
 * the input is written to a temporary file and read row by row, then read
 * as a DSA module table (hw/dsatab.h) and a grid cut out of it. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/csv.h"
#include "hw/dsatab.h"

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
	{
		struct dsatab *t;
		struct dsa_grid g;
		if (dsatab_load(path, &t, &e) == 0) {
			if (dsatab_grid(t, DSA_DECODE, 7168, 16, DT_FP8, DT_FP8, &g) == 0)
				dsa_grid_release(&g);
			if (dsatab_grid(t, DSA_PREFILL, 6144, 12, DT_BF16, DT_BF16, &g) == 0)
				dsa_grid_release(&g);
			dsatab_free(t);
		}
	}
	return 0;
}
