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

/* r's fields that arrival w (request id) gives, the only place a
 * workload's record becomes a request's (inline: once per request). */
static inline void reqpool_set_arrival(struct req *r, const struct wl_req *w, int64_t id)
{
	r->id = id;
	r->arrival_ns = w->arrival_ns;
	r->prompt = w->prompt_tokens;
	r->output = w->output_tokens;
	r->prefix_tokens = w->prefix_tokens;
	r->prefix_group = w->prefix_group;
	r->content_id = w->content_id;
	r->stage = w->stage;
	r->turn = w->turn;
	r->keys = w->keys;
	r->nkeys = w->nkeys;
	r->lora = w->lora;
	r->images = w->images;
	r->image_id = w->image_id;
	r->image_new = w->image_new;
}
/* r's block-id array from rp's pool of its size class, and back. */
int32_t *reqpool_ids_get(struct sim *s, struct replica *rp, struct req *r);
void reqpool_ids_put(const struct sim *s, struct replica *rp, struct req *r, int32_t *a);

#endif
