/* reqpool.h - request records and block-id arrays (reqpool.c); private to
 * src/sim/. */
#ifndef SERVESIM_SIM_REQPOOL_H
#define SERVESIM_SIM_REQPOOL_H
#include <stdint.h>

#include "sim/core.h"

/* A record from the slab pool, cleared (sched_req_put returns one). */
struct req *reqpool_req_get(struct sim *s);
/* A bare record of arrival w, request id (what its arrival says). */
void reqpool_of_arrival(struct req *r, const struct wl_req *w, int64_t id);
/* r's block-id array from rp's pool of its size class, and back. */
int32_t *reqpool_ids_get(struct sim *s, struct replica *rp, struct req *r);
void reqpool_ids_put(const struct sim *s, struct replica *rp, struct req *r, int32_t *a);

#endif
