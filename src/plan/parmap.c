/* parmap.c - a grid evaluated on threads and MPI ranks, assembled in index
 * order.  Threads take the next point of the rank's share under a mutex;
 * each point writes only its own buffer, so no result depends on which
 * thread ran it or when.  Between ranks the results travel as records
 * (index, status, length, bytes) gathered to rank 0 (ranks.h). */
#include "plan/parmap.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"

struct pm_state {
	const struct parmap *pm;
	const struct ranks *rk;
	struct sbuf *out;
	int *rc;                /* per point */
	struct err *errs;       /* per point (only failing ones are read) */
	size_t next, done, mine;
	size_t done_units, mine_units; /* the progress's (parmap.units) */
	pthread_mutex_t lock;
};

static size_t share(const struct pm_state *s, size_t k)
{
	return (size_t)s->rk->rank + k * (size_t)s->rk->size;
}

static void *worker(void *arg)
{
	struct pm_state *s = arg;

	for (;;) {
		size_t k, i;

		pthread_mutex_lock(&s->lock);
		k = s->next++;
		pthread_mutex_unlock(&s->lock);
		if (k >= s->mine)
			break;
		i = share(s, k);
		err_clear(&s->errs[i]);
		s->rc[i] = s->pm->run(s->pm->ctx, i, &s->out[i], &s->errs[i]);
		pthread_mutex_lock(&s->lock);
		s->done++;
		s->done_units += s->pm->units ? s->pm->units(s->pm->ctx, i) : 1;
		if (s->pm->progress)
			s->pm->progress(s->pm->pctx, s->done_units, s->mine_units);
		pthread_mutex_unlock(&s->lock);
	}
	return NULL;
}

static void put_u64(struct sbuf *b, uint64_t v)
{
	sb_put(b, (const char *)&v, sizeof(v));
}

static uint64_t get_u64(const char *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

/* This rank's records, to be gathered: index, status, length, bytes (the
 * error message when the status is negative). */
static void pack(const struct pm_state *s, struct sbuf *b)
{
	size_t k;

	for (k = 0; k < s->mine; k++) {
		size_t i = share(s, k);
		const char *p = s->rc[i] < 0 ? s->errs[i].msg : s->out[i].buf;
		size_t len = s->rc[i] < 0 ? strlen(s->errs[i].msg) : s->out[i].len;

		put_u64(b, i);
		put_u64(b, (uint64_t)(int64_t)s->rc[i]);
		put_u64(b, len);
		sb_put(b, p ? p : "", len);
	}
}

static int unpack(struct pm_state *s, const struct sbuf *all, struct err *e)
{
	const char *p = all->buf, *end = all->buf + all->len;

	while (p < end) {
		uint64_t i, rc, len;
		if ((size_t)(end - p) < 24)
			return err_set(e, SS_ERUNTIME, "MPI gather: truncated result record");
		i = get_u64(p);
		rc = get_u64(p + 8);
		len = get_u64(p + 16);
		p += 24;
		if (i >= s->pm->n || len > (uint64_t)(end - p))
			return err_set(e, SS_ERUNTIME, "MPI gather: bad result record (point %llu of %zu)",
				       (unsigned long long)i, s->pm->n);
		s->rc[i] = (int)(int64_t)rc;
		if (s->rc[i] < 0) {
			size_t m = len < sizeof(s->errs[i].msg) ? (size_t)len : sizeof(s->errs[i].msg) - 1;
			memcpy(s->errs[i].msg, p, m);
			s->errs[i].msg[m] = '\0';
			s->errs[i].code = -s->rc[i];
		} else if (s->rk->rank == 0 && (size_t)i % (size_t)s->rk->size != 0) {
			sb_reset(&s->out[i]);
			sb_put(&s->out[i], p, (size_t)len);
		}
		p += len;
	}
	return 0;
}

int parmap_run(const struct parmap *pm, const struct ranks *rk, struct sbuf *out, struct err *e)
{
	struct pm_state s;
	pthread_t th[PARMAP_MAX_JOBS];
	int nth, t, rc = 0, started = 0;
	size_t i;

	if (pm->jobs < 1 || pm->jobs > PARMAP_MAX_JOBS)
		BUG("parmap: jobs out of range");
	memset(&s, 0, sizeof(s));
	s.pm = pm;
	s.rk = rk;
	s.out = out;
	s.rc = xcalloc(pm->n ? pm->n : 1, sizeof(*s.rc));
	s.errs = xcalloc(pm->n ? pm->n : 1, sizeof(*s.errs));
	s.mine = pm->n > (size_t)rk->rank ? (pm->n - (size_t)rk->rank + (size_t)rk->size - 1) / (size_t)rk->size : 0;
	for (i = 0; i < s.mine; i++)
		s.mine_units += pm->units ? pm->units(pm->ctx, share(&s, i)) : 1;
	pthread_mutex_init(&s.lock, NULL);
	nth = (size_t)pm->jobs < s.mine ? pm->jobs : (int)s.mine;
	if (nth <= 1) {
		worker(&s);
	} else {
		for (t = 0; t < nth; t++) {
			if (pthread_create(&th[t], NULL, worker, &s) != 0)
				break;
			started++;
		}
		if (started == 0)
			worker(&s);
		for (t = 0; t < started; t++)
			pthread_join(th[t], NULL);
	}
	pthread_mutex_destroy(&s.lock);
	if (rk->size > 1) {
		struct sbuf mine, all;
		sb_init(&mine);
		sb_init(&all);
		pack(&s, &mine);
		rc = ranks_gather(rk, &mine, &all, e);
		if (rc == 0 && rk->rank == 0)
			rc = unpack(&s, &all, e);
		sb_release(&mine);
		sb_release(&all);
	}
	if (rc == 0 && rk->rank == 0) {
		for (i = 0; i < pm->n; i++)
			if (s.rc[i] < 0) {
				rc = s.rc[i];
				*e = s.errs[i];
				break;
			}
	}
	/* every rank ends with rank 0's verdict */
	{
		int status = rc, brc;
		struct err be;
		err_clear(&be);
		if ((brc = ranks_bcast_int(rk, &status, &be)) < 0 && rc == 0) {
			rc = brc;
			*e = be;
		} else if (rk->rank != 0 && status < 0 && rc == 0) {
			rc = status;
			err_set(e, -status, "a point failed (rank 0 reports it)");
		}
	}
	free(s.rc);
	free(s.errs);
	return rc;
}
