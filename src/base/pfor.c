/* pfor: a for loop over indices on threads (eval's experiments, calibrate's
 * simulations); see pfor.h. */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/err.h"
#include "base/pfor.h"

struct pfor_state {
	size_t n, next;
	void (*fn)(void *ctx, size_t i);
	void *ctx;
	pthread_mutex_t lock;
};

static void *pfor_worker(void *arg)
{
	struct pfor_state *s = arg;

	for (;;) {
		size_t i;
		pthread_mutex_lock(&s->lock);
		i = s->next < s->n ? s->next++ : s->n;
		pthread_mutex_unlock(&s->lock);
		if (i >= s->n)
			return NULL;
		s->fn(s->ctx, i);
	}
}

int pfor_default_threads(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > PFOR_MAX_THREADS ? PFOR_MAX_THREADS : (int)n;
}

void pfor_run(size_t n, int threads, void (*fn)(void *ctx, size_t i), void *ctx)
{
	struct pfor_state s;
	pthread_t *th;
	size_t t, nth = threads > 1 ? (size_t)threads : 1, started = 0;

	if (nth > n)
		nth = n;
	s.n = n;
	s.next = 0;
	s.fn = fn;
	s.ctx = ctx;
	if (pthread_mutex_init(&s.lock, NULL) != 0)
		BUG("pthread_mutex_init");
	th = xcalloc(nth ? nth : 1, sizeof(*th));
	for (t = 1; t < nth; t++)
		if (pthread_create(&th[started], NULL, pfor_worker, &s) == 0)
			started++;
	pfor_worker(&s);
	for (t = 0; t < started; t++)
		pthread_join(th[t], NULL);
	pthread_mutex_destroy(&s.lock);
	free(th);
}
