// SPDX-License-Identifier: MIT
/*
 * Strategy benchmark on the reference workload (150,000 GBM ticks, seed 42,
 * 80 lengths): wall time of a whole sweep with the batch reference and with
 * the incremental kernel, and the incremental cost per tick per length.
 * Repeats each and reports the median and the spread.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "util/clock.h"
#include "strategy/gbm.h"
#include "strategy/hma.h"
#include "strategy/sweep.h"

#define TICKS 150000
#define SEED 42
#define REPS_BATCH 3
#define REPS_INCR 7

static double now_s(void)
{
	return (double)mono_ns() * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* One full sweep; the checksum keeps the work from being optimised away. */
static double sweep_once(const uint32_t *x, enum hma_kernel k, double *check)
{
	double t = now_s();

	for (unsigned int i = 0; i < HMA_GRID_SIZE; i++) {
		struct sar r;

		if (sweep_run(x, TICKS, hma_grid_length(i), k, &r)) {
			fprintf(stderr, "bench_strategy: sweep failed\n");
			exit(1);
		}
		*check += r.pnl_pct + (double)r.trades;
	}
	return now_s() - t;
}

static void run(const char *name, const uint32_t *x, enum hma_kernel k,
		int reps, double *median)
{
	double t[REPS_INCR], check = 0;

	for (int i = 0; i < reps; i++)
		t[i] = sweep_once(x, k, &check);
	qsort(t, reps, sizeof(t[0]), cmp_double);
	*median = t[reps / 2];
	printf("| %-11s | %5d | %10.3f | %10.3f | %10.3f | %8.2f |\n", name, reps,
	       t[reps / 2] * 1e3, t[0] * 1e3, t[reps - 1] * 1e3,
	       t[reps / 2] * 1e9 / ((double)TICKS * HMA_GRID_SIZE));
	if (check == 0)
		printf("(checksum 0)\n");
}

int main(void)
{
	uint32_t *x = malloc(TICKS * sizeof(*x));
	double mb, mi;

	if (!x)
		return 1;
	gbm_series(SEED, x, TICKS);
	printf("Reference workload: %d ticks (seed %d) x %d lengths (6..200)\n\n",
	       TICKS, SEED, HMA_GRID_SIZE);
	printf("| kernel      | reps  | median ms  | min ms     | max ms     | ns/tick/len |\n");
	printf("|-------------|-------|------------|------------|------------|----------|\n");
	run("batch", x, HMA_KERNEL_BATCH, REPS_BATCH, &mb);
	run("incremental", x, HMA_KERNEL_INCREMENTAL, REPS_INCR, &mi);
	printf("\nincremental is %.1fx faster than batch; %.2f ns per tick per length\n",
	       mb / mi, mi * 1e9 / ((double)TICKS * HMA_GRID_SIZE));
	free(x);
	return 0;
}
