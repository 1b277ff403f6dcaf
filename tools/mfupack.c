/* mfupack.c - build step: write the compact kernel tables (src/hw/mfupack.h)
 * of every GPU and collection under DATA_DIR; `make` runs it whenever a
 * CSV table, data/gpus.json or the library changes. */
#include <stdio.h>

#include "base/err.h"
#include "hw/mfupack.h"

int main(int argc, char **argv)
{
	struct err e;
	size_t n = 0;
	int rc;

	if (argc != 2) {
		fprintf(stderr, "usage: mfupack DATA_DIR\n");
		return SS_EUSAGE;
	}
	err_clear(&e);
	if ((rc = mfupack_write_all(argv[1], &n, &e)) < 0) {
		fprintf(stderr, "mfupack: %s\n", e.msg);
		return -rc;
	}
	printf("mfupack: %zu compact kernel tables in %s/mfu\n", n, argv[1]);
	return 0;
}
