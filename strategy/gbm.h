/* SPDX-License-Identifier: MIT */
/* The spec's deterministic GBM price generator (splitmix64 + Box-Muller). */
#ifndef STRATEGY_GBM_H
#define STRATEGY_GBM_H

#include <stddef.h>
#include <stdint.h>

#define GBM_SIGMA	0.001
#define GBM_START	100.0

struct gbm {
	uint64_t rng;		/* splitmix64 state */
	double log_s;
	uint64_t t;		/* prices produced so far */
};

void gbm_init(struct gbm *g, uint64_t seed);
/* Next price in Price(4) units; the first is the start price itself. */
uint32_t gbm_next(struct gbm *g);
/* Fill x[0..N-1] with the series of a seed. */
void gbm_series(uint64_t seed, uint32_t *x, size_t N);

#endif /* STRATEGY_GBM_H */
