/* SPDX-License-Identifier: MIT */
/*
 * How long the exchange takes to answer an order: a histogram of recent
 * reply times (from an order segment's send to the ACK that covers it) and
 * its 99th percentile, from which the own TCP times its orders' loss probe
 * and retransmission (net/tcp.h, docs/wire.md).
 *
 * Bins are quarter octaves from 1 us (each at most 19 % wide), so a
 * percentile read from a bin's upper edge is never below the samples in
 * it.  Two windows of REPLY_WINDOW samples are kept, the current one and
 * the one before; when the current one is full it becomes the one before:
 * the percentile is that of the last 256 to 512 replies, each counted
 * whole until it ages out, so a server that slows down (or speeds up
 * again) moves it within a few hundred orders, and a slow reply in a
 * hundred keeps it up.  A sample is one add; the percentile is a scan of
 * the bins, done in idle turns.
 */
#ifndef NET_REPLY_TIME_H
#define NET_REPLY_TIME_H

#include <stdbool.h>
#include <stdint.h>

#define REPLY_BINS	88		/* up to about 1 s */
#define REPLY_WINDOW	256
#define REPLY_UNIT_SHIFT 10		/* bins count 1.024 us units */

struct reply_time {
	uint16_t bin[REPLY_BINS];	/* the current window */
	uint16_t prev[REPLY_BINS];	/* the one before */
	uint32_t n, n_prev;		/* samples in each */
	uint64_t samples;		/* every sample ever taken */
	bool dirty;			/* the percentile is to be read again */
};

/* The bin of @ns: 0 below 1 us, then four per octave. */
static inline unsigned int reply_bin(uint64_t ns)
{
	uint64_t v = ns >> REPLY_UNIT_SHIFT;
	unsigned int lg, frac, b;

	if (!v)
		return 0;
	lg = 63u - (unsigned int)__builtin_clzll(v);
	frac = lg >= 2 ? (unsigned int)(v >> (lg - 2)) & 3 : (unsigned int)(v << (2 - lg)) & 3;
	b = 1 + 4 * lg + frac;
	return b < REPLY_BINS ? b : REPLY_BINS - 1;
}

/* The upper edge of bin @b in ns: every sample in it is below. */
static inline uint64_t reply_bin_top(unsigned int b)
{
	unsigned int lg, frac;

	if (!b)
		return 1ull << REPLY_UNIT_SHIFT;
	lg = (b - 1) / 4;
	frac = (b - 1) % 4;
	return ((5ull + frac) << REPLY_UNIT_SHIFT << lg) / 4;
}

static inline void reply_add(struct reply_time *r, uint64_t ns)
{
	if (r->n == REPLY_WINDOW) {
		for (unsigned int i = 0; i < REPLY_BINS; i++) {
			r->prev[i] = r->bin[i];
			r->bin[i] = 0;
		}
		r->n_prev = r->n;
		r->n = 0;
	}
	r->bin[reply_bin(ns)]++;
	r->n++;
	r->samples++;
	r->dirty = true;
}

/*
 * The upper edge of the bin that holds the @pct-th percentile (1-100) of
 * the samples kept; 0 with none.  With fewer than 100 samples the 99th is
 * the largest.
 */
static inline uint64_t reply_percentile(const struct reply_time *r, unsigned int pct)
{
	uint64_t cum = 0, n = (uint64_t)r->n + r->n_prev;

	if (!n)
		return 0;
	for (unsigned int i = 0; i < REPLY_BINS; i++) {
		cum += (uint64_t)r->bin[i] + r->prev[i];
		if (cum * 100 >= n * pct)
			return reply_bin_top(i);
	}
	return reply_bin_top(REPLY_BINS - 1);
}

#endif /* NET_REPLY_TIME_H */
