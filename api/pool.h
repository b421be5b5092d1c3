/* SPDX-License-Identifier: MIT */
/*
 * The handle's threads: started at open, each run hands them jobs 0..n-1
 * through one counter, the calling thread taking its share as worker 0.
 * Nothing is allocated per run.
 */
#ifndef API_POOL_H
#define API_POOL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef void (*pool_job_fn)(void *ctx, unsigned int worker, size_t job);

struct pool {
	unsigned int workers;		/* the caller included */
	pthread_t *tid;			/* workers - 1 threads */
	pthread_mutex_t mu;
	pthread_cond_t go, done;
	uint64_t round;			/* bumped per run: the threads' signal to start */
	unsigned int running;		/* threads still in the round */
	bool stop;
	pool_job_fn fn;
	void *ctx;
	size_t njobs;
	size_t next;			/* the next job to take (atomic) */
};

/* @workers >= 1.  0, or -errno (the threads started so far are stopped). */
int pool_open(struct pool *p, unsigned int workers);
void pool_close(struct pool *p);
/* Run @fn on jobs [0, njobs) on every worker; returns when all are done. */
void pool_run(struct pool *p, pool_job_fn fn, void *ctx, size_t njobs);

#endif /* API_POOL_H */
