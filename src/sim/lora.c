/* lora.c - LoRA adapters in the simulated engine (sim.h, sim_cfg.lora):
 * the per-step adapter limit, GPU slots and host memory as LRU caches of
 * adapters, the loads and the LoRA kernels' time on each step.
 *
 * The limit is vLLM v1's (Scheduler.schedule: `scheduled_loras` starts as
 * the running requests' adapters, and a waiting request whose adapter is
 * not among them once max_loras are is skipped) and SGLang's
 * (get_new_batch_prefill: a request whose adapter would take the running
 * set past max_loras_per_batch is skipped; the base model holds a slot of
 * its memory pool).  Every running request runs each step, so the set a
 * step batches is the running requests' adapters.
 *
 * Residency: vLLM's LRUCacheWorkerLoRAManager keeps max_cpu_loras adapters
 * loaded in host memory and activates max_loras of them in GPU slots; an
 * adapter a batch needs is read from disk when host memory lacks it
 * (evicting the least recently used), then copied into a free or least
 * recently used slot, before the forward pass (set_active_adapters): the
 * loads hold the step.  An adapter in use by a running request is never
 * evicted (the limit keeps them within the slots). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "cost/lora.h"
#include "core.h"

void lora_replica_init(struct sim *s, struct replica *rp)
{
	struct lora_rep *L = &rp->lora;
	struct err e;
	double bytes_gpu, bytes_all, link;

	memset(L, 0, sizeof(*L));
	L->proj = xcalloc(1, sizeof(*L->proj));
	/* the engine's hook checked the model at start-up (cost_lora_init of
	 * the same model on the decode layout) */
	if (cost_lora_init(rp->cost->m, &rp->cost->p, L->proj, &e) < 0)
		abort();
	bytes_gpu = L->proj->params_gpu_per_rank * s->cfg.lora.rank * s->cfg.lora.dtype_bytes;
	bytes_all = L->proj->params_all_per_rank * s->cfg.lora.rank * s->cfg.lora.dtype_bytes;
	link = rp->cost->g->host_link_bw * s->cfg.lora.host_link_eff;
	L->gpu_s = link > 0 ? bytes_gpu / link : 0;
	L->disk_s = s->cfg.lora.disk_bw > 0 ? bytes_all / s->cfg.lora.disk_bw : 0;
}

void lora_replica_release(struct replica *rp)
{
	free(rp->lora.run);
	free(rp->lora.gpu_t);
	free(rp->lora.cpu_t);
	free(rp->lora.proj);
	memset(&rp->lora, 0, sizeof(rp->lora));
}

/* Room for adapter id in the tables (zeroed as they grow). */
static void lora_grow(struct lora_rep *L, int32_t id)
{
	size_t need = (size_t)id + 1, cap = L->cap ? L->cap : 16;

	if (need <= L->cap)
		return;
	while (cap < need)
		cap *= 2;
	L->run = xrealloc(L->run, xmul(cap, sizeof(*L->run)));
	L->gpu_t = xrealloc(L->gpu_t, xmul(cap, sizeof(*L->gpu_t)));
	L->cpu_t = xrealloc(L->cpu_t, xmul(cap, sizeof(*L->cpu_t)));
	memset(L->run + L->cap, 0, (cap - L->cap) * sizeof(*L->run));
	memset(L->gpu_t + L->cap, 0, (cap - L->cap) * sizeof(*L->gpu_t));
	memset(L->cpu_t + L->cap, 0, (cap - L->cap) * sizeof(*L->cpu_t));
	L->cap = cap;
}

/* Does adapter id count against the limit? */
static bool counted(const struct sim *s, int32_t id)
{
	return id > 0 || s->cfg.lora.base_counts;
}

bool lora_fits(const struct sim *s, const struct replica *rp, int32_t id)
{
	const struct lora_rep *L = &rp->lora;

	if (!counted(s, id) || ((size_t)id < L->cap && L->run[id] > 0))
		return true;
	return L->distinct < s->cfg.lora.max_loras;
}

/* The least recently used adapter of a tier (stamps t) that no running
 * request holds; -1 when none. */
static int32_t lru_victim(const struct lora_rep *L, const int64_t *t)
{
	int32_t best = -1;
	size_t i;

	for (i = 1; i < L->cap; i++)
		if (t[i] > 0 && L->run[i] == 0 && (best < 0 || t[i] < t[best]))
			best = (int32_t)i;
	return best;
}

/* Adapter id into a GPU slot of rp (from host memory, itself from disk
 * when host memory lacks it): the loads onto the step being planned. */
static void activate(struct sim *s, struct replica *rp, int32_t id)
{
	struct lora_rep *L = &rp->lora;
	int64_t cpu_cap = s->cfg.lora.cpu_slots;

	if (L->gpu_t[id] > 0) {
		L->gpu_t[id] = ++L->stamp;
		if (L->cpu_t[id] > 0)
			L->cpu_t[id] = L->stamp;
		return;
	}
	if (L->cpu_t[id] == 0) {
		if (cpu_cap > 0 && L->ncpu >= cpu_cap) {
			int32_t v = lru_victim(L, L->cpu_t);
			if (v > 0) { /* unloaded: out of its GPU slot too */
				L->cpu_t[v] = 0;
				L->ncpu--;
				if (L->gpu_t[v] > 0) {
					L->gpu_t[v] = 0;
					L->ngpu--;
				}
			}
		}
		L->ncpu++;
		if (cpu_cap > 0) { /* 0: every adapter was loaded at start-up */
			L->pending_s += L->disk_s;
			s->tot.lora_disk_loads++;
		}
	}
	L->cpu_t[id] = ++L->stamp;
	if (L->ngpu >= s->cfg.lora.max_loras) {
		int32_t v = lru_victim(L, L->gpu_t);
		if (v > 0) {
			L->gpu_t[v] = 0;
			L->ngpu--;
		}
	}
	L->ngpu++;
	L->gpu_t[id] = L->stamp;
	L->pending_s += L->gpu_s;
	s->tot.lora_gpu_loads++;
}

void lora_run_add(struct sim *s, struct replica *rp, int32_t id)
{
	struct lora_rep *L = &rp->lora;

	lora_grow(L, id);
	if (L->run[id]++ > 0)
		return;
	if (counted(s, id))
		L->distinct++;
	if (id > 0) {
		L->adapters++;
		activate(s, rp, id);
	}
}

void lora_run_drop(struct sim *s, struct replica *rp, int32_t id)
{
	struct lora_rep *L = &rp->lora;

	if (--L->run[id] > 0)
		return;
	if (counted(s, id))
		L->distinct--;
	if (id > 0) { /* its last use: the LRU order's from here */
		L->adapters--;
		L->gpu_t[id] = L->cpu_t[id] = ++L->stamp;
	}
}

double lora_step_s(struct sim *s, struct replica *rp, const struct step_desc *d, double t)
{
	struct lora_rep *L = &rp->lora;
	int64_t tokens = d->ndecode, i;
	double k = 0;

	for (i = 0; i < d->nchunks; i++)
		tokens += d->chunk_len[i];
	/* the kernels run one segment per adapter of the batch (base-model
	 * rows take none) */
	if (L->adapters > 0)
		k = cost_lora_step_s(rp->cost, L->proj, s->cfg.lora.rank, tokens, L->adapters);
	s->tot.lora_kernel_s += k;
	s->tot.lora_load_s += L->pending_s;
	t += k + L->pending_s;
	L->pending_s = 0;
	if (L->limited) {
		s->tot.lora_limited_steps++;
		L->limited = false;
	}
	return t;
}
