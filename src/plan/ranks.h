/* ranks.h - the processes of an MPI job (Open MPI's mpirun), seen through
 * four calls; the only adapter over <mpi.h> (src/plan/mpiranks.c).
 *
 * A build without MPI (the default `make`) is one rank: ranks_init refuses
 * to start inside an MPI job of several processes (each would compute and
 * print the whole grid) and says how to build with MPI (`make mpi`).  The
 * MPI build (`make mpi`: mpicc, -DSERVESIM_MPI, build-mpi/servesim) splits
 * work by rank; rank 0 gathers and prints. */
#ifndef SERVESIM_RANKS_H
#define SERVESIM_RANKS_H
#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "base/sbuf.h"

struct ranks {
	int rank, size;
	bool mpi;           /* MPI_Init was called here (ranks_finalize ends it) */
};

/* Join the job (MPI_Init when built with MPI and started by mpirun).
 * SS_EUSAGE when started by mpirun with several processes in a build
 * without MPI. */
int ranks_init(struct ranks *r, int *argc, char ***argv, struct err *e);
void ranks_finalize(struct ranks *r);
/* True when this build can join an MPI job. */
bool ranks_have_mpi(void);
/* Rank 0 receives every rank's bytes, concatenated in rank order, in all
 * (appended); other ranks send mine and leave all untouched.  A one-rank job
 * copies mine.  SS_ERUNTIME on an MPI failure. */
int ranks_gather(const struct ranks *r, const struct sbuf *mine, struct sbuf *all, struct err *e);
/* Every rank gets rank 0's value. */
int ranks_bcast_int(const struct ranks *r, int *v, struct err *e);

#endif
