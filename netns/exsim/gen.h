/* SPDX-License-Identifier: MIT */
/*
 * The simulator's tick source: what each published trade says, and the
 * non-trade "noise" messages that precede it.
 *
 * Tick k goes to symbol k mod n (locate k mod n + 1).  Prices are the spec's
 * GBM series of seed + i for symbol i (0-based), so the trades of symbol i
 * are exactly `t2t-backtest --gen N --seed <seed + i>`; or, with a price file,
 * the file's prices in order (one symbol).  Shares and noise come from a
 * second splitmix64 stream, so --noise never changes the prices.
 */
#ifndef NETNS_EXSIM_GEN_H
#define NETNS_EXSIM_GEN_H

#include <stdint.h>

#include "netns/exsim/exsim.h"
#include "netns/exsim/unit.h"
#include "proto/itch.h"
#include "strategy/gbm.h"

#define GEN_NOISE_LIVE	32	/* noise orders resting per symbol, at most */

struct gen_tick {
	uint64_t index;		/* tick number, 0-based */
	uint16_t locate;	/* 1..n */
	uint32_t price;		/* Price(4) */
	uint32_t shares;
	unsigned int noise;	/* noise messages that precede this trade */
};

struct gen {
	unsigned int nsym;
	const char (*symbols)[ITCH_SYMBOL_LEN];
	struct gbm gbm[EXSIM_MAX_SYMBOLS];
	const uint32_t *prices;		/* price file, or NULL for GBM */
	uint64_t nprices;
	uint64_t aux;			/* splitmix64: shares, noise */
	unsigned int noise_whole;	/* noise = whole + fraction */
	uint64_t noise_frac;		/* fraction as a 2^-64 threshold */
	uint64_t ticks;			/* generated so far */
	uint64_t order_ref;		/* last noise order reference */
	uint64_t match;			/* last ITCH match number */
	/*
	 * The noise orders resting on each symbol's book: bids below the
	 * last trade, asks above, on the cent grid, never more than
	 * GEN_NOISE_LIVE per symbol, every reference one this feed added and
	 * has not removed.  A real book stays a few levels deep around the
	 * trades; so does this one.
	 */
	struct gen_order {
		uint64_t ref;
		uint32_t price;
		uint32_t shares;
		char side;
	} live[EXSIM_MAX_SYMBOLS][GEN_NOISE_LIVE];
	unsigned int nlive[EXSIM_MAX_SYMBOLS];
	/* as the feed's source (gen_feed_next) */
	uint64_t total;			/* ticks to hand out */
	double period_ns;		/* 0: unpaced */
	uint32_t burst;
};

void gen_init(struct gen *g, const struct exsim_cfg *c,
	      const uint32_t *prices, uint64_t nprices);

/* The next tick.  With a price file the caller stops at nprices. */
void gen_next(struct gen *g, struct gen_tick *t);

/* The trade message of a tick (timestamp left 0: stamped at send). */
void gen_trade(struct gen *g, const struct gen_tick *t, struct itch_msg *m);

/* One noise message for a tick's symbol (A F E C X D U, coherent refs). */
void gen_noise(struct gen *g, const struct gen_tick *t, struct itch_msg *m);

/*
 * The feed's source (unit.h): tick k as one unit, its noise messages then
 * its trade, due (k - k mod burst) x period after the schedule's start;
 * @total ticks, then 0.  Set by gen_plan().
 */
void gen_plan(struct gen *g, uint64_t total, double rate, uint32_t burst);
int gen_feed_next(void *gen, struct feed_unit *u);

/* Directory entry for locate (1-based). */
void gen_directory(const struct gen *g, uint16_t locate, struct itch_msg *m);

#endif /* NETNS_EXSIM_GEN_H */
