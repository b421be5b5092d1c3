/* SPDX-License-Identifier: MIT */
/*
 * t2t-backtest --itch: a TotalView-ITCH 5.0 day file through the order book
 * (book/) into the execution tape, and the strategy of each configured
 * symbol on its prints (docs/book.md).
 */
#ifndef STRATEGY_BACKTEST_ITCH_H
#define STRATEGY_BACKTEST_ITCH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "util/table_mem.h"
#include "proto/itch.h"
#include "strategy/inst_spec.h"

/* --limit-bp not given: the gateway's default. */
#define ITCH_LIMIT_GATEWAY	UINT32_MAX

/* Where an output goes: nowhere (NULL), the main output ("-") or a file. */
#define ITCH_OUT_MAIN "-"

struct itch_opts {
	const char *path;		/* the day file, gzip or plain */
	const char *tape;		/* seq,locate,price,shares,kind */
	const char *stats;		/* JSON */
	const char *book_symbol;	/* final book of this symbol ... */
	const char *book_out;		/* ... written here */
	const char *dump;		/* every message kept: seq,hex */
	/* --symbols: only these symbols' session, renumbered (proto/itch_filter.h) */
	const char (*symbols)[ITCH_SYMBOL_LEN];
	unsigned int nsymbols;
	const struct inst_spec *spec;	/* orders (to the main output) */
	unsigned int nspec;
	uint32_t book_orders;		/* 0: the book's default */
	bool paper;			/* --paper: the orders filled (backtest_paper.h) */
	uint64_t paper_ns;		/* ... at print + this, on the feed's clock */
	uint32_t limit_bp;		/* --paper: the gateway's --limit-bp */
	bool track_named;		/* only the symbols named above */
	enum table_mem_pages pages;
	FILE *out;			/* the main output */
};

/* Returns the exit status: 0, or 2 (bad file, unknown symbol, write error). */
int backtest_itch(const struct itch_opts *o);

#endif /* STRATEGY_BACKTEST_ITCH_H */
