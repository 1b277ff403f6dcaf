/* ringwake.h - how the two threads of a single-producer single-consumer
 * ring (sim/arrq.c's arrivals, sim/sinkq.c's sinks) sleep and wake, and
 * the thread itself started and joined.
 *
 * A side that finds nothing to do raises its `waiting` flag and, under the
 * mutex, loads the other side's index again before it waits on its
 * condition variable (data: the consumer's, room: the producer's); the
 * other side, after moving its index, adds nothing to it (a
 * read-modify-write) and loads the flag, all seq_cst, and if it is raised
 * takes and drops the mutex and signals (ringwake_if). */
#ifndef SERVESIM_SIM_RINGWAKE_H
#define SERVESIM_SIM_RINGWAKE_H
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

struct ringwake {
	pthread_t th;
	pthread_mutex_t m;
	pthread_cond_t data, room;
};

/* A spin's pause between two loads of the other side's index. */
static inline void ringwake_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

/* After a move of this side's index: the other side woken if it sleeps. */
static inline void ringwake_if(struct ringwake *w, atomic_uint_fast64_t *index, atomic_bool *waiting,
			       pthread_cond_t *cv)
{
	atomic_fetch_add_explicit(index, 0, memory_order_seq_cst);
	if (atomic_load_explicit(waiting, memory_order_seq_cst)) {
		pthread_mutex_lock(&w->m);
		pthread_mutex_unlock(&w->m);
		pthread_cond_signal(cv);
	}
}

/* The mutex, both condition variables and the thread running fn(arg); -1,
 * nothing left behind, when one of them cannot be made. */
static inline int ringwake_start(struct ringwake *w, void *(*fn)(void *), void *arg)
{
	if (pthread_mutex_init(&w->m, NULL) != 0)
		return -1;
	if (pthread_cond_init(&w->data, NULL) != 0)
		goto fail_m;
	if (pthread_cond_init(&w->room, NULL) != 0)
		goto fail_data;
	if (pthread_create(&w->th, NULL, fn, arg) != 0)
		goto fail_room;
	return 0;
fail_room:
	pthread_cond_destroy(&w->room);
fail_data:
	pthread_cond_destroy(&w->data);
fail_m:
	pthread_mutex_destroy(&w->m);
	return -1;
}

/* The thread told to stop (its flag stored by the caller) is woken on cv,
 * joined, and the rest destroyed. */
static inline void ringwake_join(struct ringwake *w, pthread_cond_t *cv)
{
	pthread_mutex_lock(&w->m);
	pthread_cond_signal(cv);
	pthread_mutex_unlock(&w->m);
	pthread_join(w->th, NULL);
	pthread_cond_destroy(&w->room);
	pthread_cond_destroy(&w->data);
	pthread_mutex_destroy(&w->m);
}

#endif
