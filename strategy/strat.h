/* SPDX-License-Identifier: MIT */
/*
 * One (instrument, length) strategy: the incremental signal feeding the
 * stop-and-reverse rule.  This is the exact code path both the backtester's
 * incremental sweep and the live gateway run per tick.
 */
#ifndef STRATEGY_STRAT_H
#define STRATEGY_STRAT_H

#include <errno.h>
#include <stddef.h>

#include "strategy/hma.h"
#include "strategy/sar.h"
#include "util/touch.h"

struct strat {
	struct hma_state hma;
	struct sar sar;
};

static inline int strat_init(struct strat *s, long L)
{
	sar_init(&s->sar);
	return hma_init(&s->hma, L);
}

/*
 * Feed one trade price.  Returns the position change to trade (0, +-1,
 * +-2), or -ERANGE for an invalid price (nothing changes).
 */
static inline int strat_on_tick(struct strat *s, uint32_t x)
{
	int d = hma_update(&s->hma, x);

	if (d == -ERANGE)
		return -ERANGE;
	return sar_step(&s->sar, d, x);
}

/*
 * Read every line the next strat_on_tick() will touch (the parameters and
 * sums, the ring slots it reads and writes, the rule's state), writing
 * nothing: for a caller that keeps the path warm while no tick comes.
 */
static inline void strat_touch(const struct strat *s)
{
	const struct hma_state *h = &s->hma;
	uint64_t t = h->t;

	touch_lines(h, offsetof(struct hma_state, x));
	touch_line(&h->x[(t - h->hp.n) & (HMA_XRING - 1)]);
	touch_line(&h->x[(t - h->hp.h) & (HMA_XRING - 1)]);
	touch_line(&h->x[(t - h->hp.a) & (HMA_XRING - 1)]);
	touch_line(&h->x[(t - h->hp.b) & (HMA_XRING - 1)]);
	touch_line(&h->x[t & (HMA_XRING - 1)]);
	touch_line(&h->R[(t - h->hp.s) & (HMA_RRING - 1)]);
	touch_line(&h->R[t & (HMA_RRING - 1)]);
	touch_line(&h->Q[(t - h->hp.p) & (HMA_QRING - 1)]);
	touch_line(&h->Q[t & (HMA_QRING - 1)]);
	touch_line(&s->sar);
}

#endif /* STRATEGY_STRAT_H */
