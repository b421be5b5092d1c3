/* SPDX-License-Identifier: MIT */
/*
 * One traded symbol in a replay: its strategy (strat.h, the gateway's code)
 * fed tick by tick, each change of the stop-and-reverse position written as
 * one order of |change| x unit shares at the tick's sequence number.  The
 * backtester's --ticks and --itch modes print orders through this, so both
 * follow the same rules and CSV.
 */
#ifndef STRATEGY_TRADER_H
#define STRATEGY_TRADER_H

#include <stdint.h>
#include <stdio.h>

#include "strategy/inst_spec.h"
#include "strategy/strat.h"

#define TRADER_CSV_HEADER "md_seq,symbol,side,shares\n"

struct trader {
	struct strat st;
	const struct inst_spec *spec;
	uint64_t ticks;
	uint64_t orders;
	uint64_t refused;	/* prices outside (0, 2^32): not ticks */
	uint32_t last;
	int64_t shares;		/* the position, in shares */
	int64_t cash;		/* every order filled at its print: Price(4) x shares */
};

/* 0 or -ERANGE (the length; inst_spec_parse() has checked it already). */
int trader_init(struct trader *t, const struct inst_spec *spec);

/* One tick; writes the order line, if any, to @out. */
void trader_tick(struct trader *t, uint64_t seq, uint32_t price, FILE *out);

/*
 * "t2t-backtest: SYM L=.. ticks .. orders .. position +N shares cash $..
 * pnl $.. (at the prints); strategy trades .., returns ..%": the orders
 * filled at their print in shares and dollars, marked at the last print,
 * then the strategy's own measure (strategy.md: completed trades and the
 * sum of their returns).
 */
void trader_summary(const struct trader *t, FILE *f);

#endif /* STRATEGY_TRADER_H */
