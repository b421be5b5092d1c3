// SPDX-License-Identifier: MIT
#include <math.h>

#include "strategy/gbm.h"
#include "util/rng.h"

/* Uniform in (0, 1]: never 0, so log() below is always finite. */
static double uniform01(uint64_t *z)
{
	return (double)((splitmix64(z) >> 11) + 1) * 0x1p-53;
}

void gbm_init(struct gbm *g, uint64_t seed)
{
	g->rng = seed;
	g->log_s = log(GBM_START);
	g->t = 0;
}

uint32_t gbm_next(struct gbm *g)
{
	if (g->t++ > 0) {
		double u1 = uniform01(&g->rng);
		double u2 = uniform01(&g->rng);
		double z = sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);

		g->log_s = g->log_s - GBM_SIGMA * GBM_SIGMA / 2.0 + GBM_SIGMA * z;
	}
	/*
	 * Over any series this project generates the price stays far inside
	 * (0, 2^32); clamp anyway so the generator can never emit an invalid
	 * tick.
	 */
	long long v = llround(exp(g->log_s) * 10000.0);

	if (v < 1)
		v = 1;
	if (v > (long long)UINT32_MAX)
		v = UINT32_MAX;
	return (uint32_t)v;
}

void gbm_series(uint64_t seed, uint32_t *x, size_t N)
{
	struct gbm g;

	gbm_init(&g, seed);
	for (size_t t = 0; t < N; t++)
		x[t] = gbm_next(&g);
}
