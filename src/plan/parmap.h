/* parmap.h - evaluate points 0 .. n-1 of a grid on threads and MPI ranks,
 * results in index order.
 *
 * A point is a pure function of its index (and the read-only context): run
 * renders point i into its own byte buffer.  With ranks.size > 1 rank r
 * evaluates the points i with i % size == r (round robin, so that slow and
 * fast regions of a grid spread over the ranks), each rank on `jobs`
 * threads taking the next point of its share; rank 0 gathers every point's
 * bytes.  Output assembled from out[0 .. n-1] in order is therefore the same
 * bytes for any number of threads and ranks. */
#ifndef SERVESIM_PARMAP_H
#define SERVESIM_PARMAP_H
#include <stddef.h>

#include "base/err.h"
#include "base/pfor.h"
#include "plan/ranks.h"
#include "base/sbuf.h"

#define PARMAP_MAX_JOBS PFOR_MAX_THREADS

struct parmap {
	size_t n;         /* points */
	int jobs;         /* threads per rank, 1 .. PARMAP_MAX_JOBS */
	/* Render point i into out (empty on entry).  A negative status stops
	 * the run: the error of the lowest failing index is returned. */
	int (*run)(void *ctx, size_t i, struct sbuf *out, struct err *e);
	void *ctx;
	/* What point i counts for in the progress (NULL: 1 each). */
	size_t (*units)(void *ctx, size_t i);
	/* This rank's progress (done of mine, in units), called from any
	 * thread under a lock; NULL for none. */
	void (*progress)(void *pctx, size_t done, size_t mine);
	void *pctx;
};

/* out: n buffers, sb_init'ed by the caller.  On rank 0 out[i] holds point
 * i's bytes on success; on other ranks only its own points are filled.
 * The status (and message, on rank 0) is the same on every rank. */
int parmap_run(const struct parmap *pm, const struct ranks *rk, struct sbuf *out, struct err *e);

#endif
