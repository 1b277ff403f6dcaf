/* pfor: run fn(ctx, i) for i = 0 .. n-1 on up to `threads` threads (the
 * calling thread is one of them), each thread taking the next index.
 *
 * The order in which indices run is not fixed: fn must write its results
 * into slots of index i only.  Returns when every index has run.  A thread
 * that cannot be created leaves its share to the others. */
#ifndef SERVESIM_PFOR_H
#define SERVESIM_PFOR_H
#include <stddef.h>

/* The most threads a command's --jobs asks for (eval, calibrate, search,
 * sweep): one limit, refused above with exit 2 and named in each --help
 * (PFOR_MAX_THREADS_TEXT); a default of the online cores is capped to it. */
#define PFOR_MAX_THREADS 256
#define PFOR_TEXT_(x) #x
#define PFOR_TEXT(x) PFOR_TEXT_(x)
#define PFOR_MAX_THREADS_TEXT PFOR_TEXT(PFOR_MAX_THREADS)

/* The online cores, 1 when unknown, at most PFOR_MAX_THREADS: --jobs's
 * default. */
int pfor_default_threads(void);
void pfor_run(size_t n, int threads, void (*fn)(void *ctx, size_t i), void *ctx);

#endif
