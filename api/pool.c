// SPDX-License-Identifier: MIT
/* The handle's threads (pool.h). */
#include <errno.h>
#include <stdlib.h>

#include "api/pool.h"

struct worker_arg {
	struct pool *p;
	unsigned int id;
};

static void take_jobs(struct pool *p, unsigned int id)
{
	size_t j;

	while ((j = __atomic_fetch_add(&p->next, 1, __ATOMIC_RELAXED)) < p->njobs)
		p->fn(p->ctx, id, j);
}

static void *worker(void *arg)
{
	struct pool *p = ((struct worker_arg *)arg)->p;
	unsigned int id = ((struct worker_arg *)arg)->id;
	uint64_t seen = 0;

	free(arg);
	pthread_mutex_lock(&p->mu);
	for (;;) {
		while (!p->stop && p->round == seen)
			pthread_cond_wait(&p->go, &p->mu);
		if (p->stop)
			break;
		seen = p->round;
		pthread_mutex_unlock(&p->mu);
		take_jobs(p, id);
		pthread_mutex_lock(&p->mu);
		if (--p->running == 0)
			pthread_cond_signal(&p->done);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

int pool_open(struct pool *p, unsigned int workers)
{
	unsigned int started = 0;
	int err = 0;

	*p = (struct pool){ .workers = workers };
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->go, NULL);
	pthread_cond_init(&p->done, NULL);
	if (workers > 1 && !(p->tid = calloc(workers - 1, sizeof(*p->tid))))
		err = -ENOMEM;
	for (; !err && started < workers - 1; started++) {
		struct worker_arg *a = malloc(sizeof(*a));

		if (!a) {
			err = -ENOMEM;
			break;
		}
		*a = (struct worker_arg){ p, started + 1 };
		err = -pthread_create(&p->tid[started], NULL, worker, a);
		if (err)
			free(a);
	}
	if (err) {
		p->workers = started + 1;
		pool_close(p);
	}
	return err;
}

void pool_close(struct pool *p)
{
	pthread_mutex_lock(&p->mu);
	p->stop = true;
	pthread_cond_broadcast(&p->go);
	pthread_mutex_unlock(&p->mu);
	for (unsigned int i = 0; p->tid && i + 1 < p->workers; i++)
		pthread_join(p->tid[i], NULL);
	free(p->tid);
	p->tid = NULL;
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->go);
	pthread_cond_destroy(&p->done);
}

void pool_run(struct pool *p, pool_job_fn fn, void *ctx, size_t njobs)
{
	pthread_mutex_lock(&p->mu);
	p->fn = fn;
	p->ctx = ctx;
	p->njobs = njobs;
	p->next = 0;
	p->running = p->workers - 1;
	p->round++;
	pthread_cond_broadcast(&p->go);
	pthread_mutex_unlock(&p->mu);
	take_jobs(p, 0);
	pthread_mutex_lock(&p->mu);
	while (p->running)
		pthread_cond_wait(&p->done, &p->mu);
	pthread_mutex_unlock(&p->mu);
}
