/* SPDX-License-Identifier: MIT */
/*
 * splitmix64: the project's one pseudo-random generator (the strategy
 * spec's GBM series, the day generator, the simulator's faults and
 * jitter, the tests).  Deterministic from its state; one add and three
 * multiply-xorshift rounds per draw.
 */
#ifndef UTIL_RNG_H
#define UTIL_RNG_H

#include <stdint.h>

static inline uint64_t splitmix64(uint64_t *z)
{
	uint64_t v;

	*z += 0x9E3779B97F4A7C15ULL;
	v = *z;
	v = (v ^ (v >> 30)) * 0xBF58476D1CE4E5B9ULL;
	v = (v ^ (v >> 27)) * 0x94D049BB133111EBULL;
	return v ^ (v >> 31);
}

#endif /* UTIL_RNG_H */
