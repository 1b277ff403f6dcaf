/* pfor: run fn(ctx, i) for i = 0 .. n-1 on up to `threads` threads (the
 * calling thread is one of them), each thread taking the next index.
 *
 * The order in which indices run is not fixed: fn must write its results
 * into slots of index i only.  Returns when every index has run.  A thread
 * that cannot be created leaves its share to the others. */
#ifndef SERVESIM_PFOR_H
#define SERVESIM_PFOR_H
#include <stddef.h>

/* The most threads a command runs at once: every --jobs flag's bound
 * (eval, calibrate, search, sweep; plan/parmap.h sizes its threads by it). */
#define PFOR_MAX_THREADS 256

void pfor_run(size_t n, int threads, void (*fn)(void *ctx, size_t i), void *ctx);

#endif
