/* SPDX-License-Identifier: MIT */
/*
 * Recorded ticks, as the exchange simulator writes them (--record):
 *   seq,symbol,locate,price,shares,send_ns
 * with that header line.  The backtester replays them through the same
 * strategy code the gateway runs, to check live orders against backtest.
 */
#ifndef STRATEGY_TICKS_H
#define STRATEGY_TICKS_H

#include <stddef.h>
#include <stdint.h>

struct tick_rec {
	uint64_t seq;
	char symbol[9];
	uint32_t price;
};

int ticks_load(const char *path, struct tick_rec **t, size_t *n,
	       char *err, size_t errlen);

#endif /* STRATEGY_TICKS_H */
