/* SPDX-License-Identifier: MIT */
/*
 * One (instrument, length) strategy: the incremental signal feeding the
 * stop-and-reverse rule.  This is the exact code path both the backtester's
 * incremental sweep and the live gateway run per tick.
 */
#ifndef STRATEGY_STRAT_H
#define STRATEGY_STRAT_H

#include <errno.h>

#include "strategy/hma.h"
#include "strategy/sar.h"

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

#endif /* STRATEGY_STRAT_H */
