/* SPDX-License-Identifier: MIT */
/*
 * The real shape's clock (daygen_real.c): when each message of the day's
 * body falls.  The body has a fixed number of slots (the day's messages
 * less its fixed blocks), each with a nominal time, nondecreasing:
 *
 *   - most slots follow an intraday rate, a U: from the start of the
 *     pre-open to the open half the midday rate, then
 *     1 + 7 e^(-x / 0.04) + 6 e^(-(1 - x) / 0.03) times it, x the part of
 *     the session gone (the first 30 minutes of 6.5 h average 4.1 times
 *     midday, the last 30 minutes 3.2 times);
 *   - the others are microbursts: about three a minute, more where the rate
 *     is high, each a run of slots 30 to 80 ns apart (a 10 GbE link full),
 *     lognormal in size around 2,500 slots at full scale (300 M messages;
 *     a smaller day scales them down with its messages, so that the
 *     busiest millisecond keeps its ratio to the mean), never longer than
 *     0.9 ms.
 *
 * The rate is kept as a table of cumulative weights over 16384 buckets of
 * the window, the density constant within each; slot j of the n that
 * follow the rate falls at the point where the cumulative weight reaches
 * (j + u) / n of the total, u uniform: stratified, so the profile holds at
 * any scale.  Draws come from the generator's splitmix64 state.
 */
#ifndef BOOK_DAYGEN_CLOCK_H
#define BOOK_DAYGEN_CLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DG_CLOCK_BUCKETS	16384
#define DG_CLOCK_FULL_MESSAGES	300000000.0

struct dg_burst {
	uint64_t at;		/* nominal time of its first slot */
	uint32_t slots;
	uint32_t gap_ns;
};

struct dg_clock {
	uint64_t pre_ns, open_ns, close_ns;
	double bucket_ns;
	double *cum;			/* [DG_CLOCK_BUCKETS + 1] */
	uint64_t rate_slots;		/* the slots that follow the rate */
	uint64_t rate_i;		/* the next of them */
	uint64_t rate_next;		/* its time, when have_rate */
	bool have_rate;
	uint32_t bucket;		/* where the last lookup ended */
	struct dg_burst *burst;
	uint32_t nburst;
	uint32_t bi;			/* the next burst not started */
	uint32_t left;			/* slots left in the current burst */
	int32_t cur;			/* burst of the peeked slot, -1: none */
	uint64_t peek;
	bool have_peek;
	uint64_t last;			/* the time of the last slot taken */
};

/*
 * Plan @slots slots over [@pre_ns, @close_ns), the session from @open_ns;
 * @messages (of the whole day) sizes the bursts.  Returns 0 or -ENOMEM.
 */
int dg_clock_init(struct dg_clock *c, uint64_t pre_ns, uint64_t open_ns, uint64_t close_ns,
		  uint64_t slots, uint64_t messages, uint64_t *rng);
void dg_clock_free(struct dg_clock *c);

/* The nominal time of the next slot (the same until it is taken); c->cur
 * says which burst it belongs to, -1 for none. */
uint64_t dg_clock_peek(struct dg_clock *c, uint64_t *rng);
void dg_clock_take(struct dg_clock *c);

/* Relative rate at @t (1 at midday), for tests and reports. */
double dg_clock_rate(const struct dg_clock *c, uint64_t t);

#endif /* BOOK_DAYGEN_CLOCK_H */
