/* router.h - routing arrivals to replicas (router.c); private to src/sim/. */
#ifndef SERVESIM_SIM_ROUTER_H
#define SERVESIM_SIM_ROUTER_H
#include <stdint.h>

#include "sim/core.h"

/* Candidate i of a routing choice: ranks [lo + i x stride, + width). */
struct route_cands {
	int n, lo, stride, width;
	const uint64_t *chain;   /* the arrival's content chain (kv-aware), nchain blocks */
	int32_t nchain, nfull;   /* nfull: the prompt's full blocks */
	const int *map;          /* candidate i is block map[i] (autoscaling: sim_set_routable), or NULL: i */
};

/* The candidate the router picks among c (ctr: its round-robin counter;
 * 0 when c has one). */
int router_pick(struct sim *s, const struct route_cands *c, uint64_t *ctr);
/* The engine rank arrival w (request id) is queued on: a replica by the
 * router, then one of its ranks (with P/D, one of its prefill workers). */
int router_arrival(struct sim *s, const struct wl_req *w, int64_t id);
/* P/D: the decode rank a handed-off request of deployment k is queued on
 * (router.c). */
int router_decode_rank(struct sim *s, int k);

#endif
