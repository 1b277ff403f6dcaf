/* arrq.h - an open-loop arrival stream drawn ahead on a thread of its own.
 *
 * An open-loop stream (Poisson, gamma, constant, counted windows, a rate
 * curve, a trace) does not depend on the simulation: request k is the
 * same whatever the engine did before it.  Its draws (a log and an exp or
 * two per request, the length samplers' logs and cosines, a trace's CSV
 * parsing) are then done by a producer thread that calls wl_gen_next
 * ahead of the simulation into a bounded single-producer/single-consumer
 * ring, and the step loop only reads them (engine.c).  The producer owns
 * the generator and so every stream it draws from (1 arrivals, 2 prompt
 * lengths, 3 output lengths, 13 LoRA, 14 and 15 images): the requests
 * come in the order and with the values wl_gen_next gives inline, whatever
 * the threads' timing, and an error (a trace line that fails) reaches the
 * consumer as the same status and message, at the request where it came.
 *
 * Not for closed loops and sessions (the next request follows a
 * completion, and the sessions' later turns read what the first turns
 * drew), nor for shared draws (wl_draws: other generators read them).
 * sim_cfg.arrival_thread asks for it (servesim run, the bench); the
 * eval, search and capacity workers, whose threads use the cores already,
 * leave it off. */
#ifndef SERVESIM_SIM_ARRQ_H
#define SERVESIM_SIM_ARRQ_H

#include "base/err.h"
#include "workload/workload.h"

struct arrq;

/* Start drawing g's next requests on a thread of its own: g is the
 * thread's until arrq_free.  NULL when no thread could be started (the
 * caller then goes on calling wl_gen_next itself: the same requests). */
struct arrq *arrq_start(struct wl_gen *g);
/* The next request into *out: 1, 0 at the stream's end, or the negative
 * status wl_gen_next returned, with its message in e. */
int arrq_next(struct arrq *q, struct wl_req *out, struct err *e);
/* Stop the thread (wherever it is) and join it; NULL is fine.  The
 * generator is the caller's again, past the requests drawn ahead. */
void arrq_free(struct arrq *q);

#endif
