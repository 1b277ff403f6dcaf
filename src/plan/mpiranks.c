/* mpiranks.c - MPI adapter: init, gather of byte buffers to rank 0, a
 * broadcast; without SERVESIM_MPI, a single rank that refuses to run as one
 * of several mpirun processes. */
#include "plan/ranks.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"

/* Open MPI's mpirun sets OMPI_COMM_WORLD_SIZE in every process it starts;
 * MPICH's and Slurm's launchers set PMI_SIZE. */
static int launcher_size(void)
{
	const char *keys[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"};
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const char *v = getenv(keys[i]);
		if (v && *v)
			return atoi(v);
	}
	return 0;
}

#ifdef SERVESIM_MPI
#include <mpi.h>

bool ranks_have_mpi(void)
{
	return true;
}

int ranks_init(struct ranks *r, int *argc, char ***argv, struct err *e)
{
	int inited = 0;

	memset(r, 0, sizeof(*r));
	r->size = 1;
	/* not started by a launcher: one process, no MPI_Init (an Open MPI
	 * singleton start is slow and needs a runtime daemon) */
	if (launcher_size() == 0)
		return 0;
	if (MPI_Initialized(&inited) != MPI_SUCCESS)
		return err_set(e, SS_ERUNTIME, "MPI_Initialized failed");
	if (!inited) {
		if (MPI_Init(argc, argv) != MPI_SUCCESS)
			return err_set(e, SS_ERUNTIME, "MPI_Init failed");
		r->mpi = true;
	}
	if (MPI_Comm_rank(MPI_COMM_WORLD, &r->rank) != MPI_SUCCESS ||
	    MPI_Comm_size(MPI_COMM_WORLD, &r->size) != MPI_SUCCESS)
		return err_set(e, SS_ERUNTIME, "MPI_Comm_rank/MPI_Comm_size failed");
	return 0;
}

void ranks_finalize(struct ranks *r)
{
	if (r->mpi)
		MPI_Finalize();
	r->mpi = false;
}

int ranks_gather(const struct ranks *r, const struct sbuf *mine, struct sbuf *all, struct err *e)
{
	int n, *counts = NULL, *displs = NULL, i, rc = 0;
	char *buf = NULL;
	long long total = 0;

	if (r->size <= 1) {
		sb_put(all, mine->buf ? mine->buf : "", mine->len);
		return 0;
	}
	if (mine->len > INT_MAX)
		return err_set(e, SS_ERUNTIME, "MPI gather: rank %d has %zu bytes, at most %d",
			       r->rank, mine->len, INT_MAX);
	n = (int)mine->len;
	if (r->rank == 0)
		counts = xcalloc((size_t)r->size, sizeof(*counts));
	if (MPI_Gather(&n, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD) != MPI_SUCCESS) {
		rc = err_set(e, SS_ERUNTIME, "MPI_Gather of the result sizes failed");
		goto out;
	}
	if (r->rank == 0) {
		displs = xcalloc((size_t)r->size, sizeof(*displs));
		for (i = 0; i < r->size; i++) {
			displs[i] = (int)total;
			total += counts[i];
		}
		if (total > INT_MAX) {
			/* the other ranks are already in MPI_Gatherv: end the job */
			err_set(e, SS_ERUNTIME, "MPI gather: %lld bytes of results, at most %d", total, INT_MAX);
			MPI_Abort(MPI_COMM_WORLD, SS_ERUNTIME);
		}
		buf = xmalloc((size_t)total + 1);
	}
	if (MPI_Gatherv(mine->buf ? mine->buf : "", n, MPI_CHAR, buf, counts, displs, MPI_CHAR, 0,
			MPI_COMM_WORLD) != MPI_SUCCESS) {
		rc = err_set(e, SS_ERUNTIME, "MPI_Gatherv of the results failed");
		goto out;
	}
	if (r->rank == 0)
		sb_put(all, buf, (size_t)total);
out:
	free(counts);
	free(displs);
	free(buf);
	return rc;
}

int ranks_bcast_int(const struct ranks *r, int *v, struct err *e)
{
	if (r->size <= 1)
		return 0;
	if (MPI_Bcast(v, 1, MPI_INT, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
		return err_set(e, SS_ERUNTIME, "MPI_Bcast failed");
	return 0;
}

#else /* no MPI */

bool ranks_have_mpi(void)
{
	return false;
}

int ranks_init(struct ranks *r, int *argc, char ***argv, struct err *e)
{
	int n = launcher_size();

	(void)argc;
	(void)argv;
	memset(r, 0, sizeof(*r));
	r->size = 1;
	if (n > 1)
		return err_set(e, SS_EUSAGE,
			       "started by mpirun with %d processes, but this servesim was built without MPI "
			       "(each process would run the whole grid); build the MPI binary with `make mpi` "
			       "(needs libopenmpi-dev) and run build-mpi/servesim", n);
	return 0;
}

void ranks_finalize(struct ranks *r)
{
	(void)r;
}

int ranks_gather(const struct ranks *r, const struct sbuf *mine, struct sbuf *all, struct err *e)
{
	(void)r;
	(void)e;
	sb_put(all, mine->buf ? mine->buf : "", mine->len);
	return 0;
}

int ranks_bcast_int(const struct ranks *r, int *v, struct err *e)
{
	(void)r;
	(void)v;
	(void)e;
	return 0;
}
#endif
