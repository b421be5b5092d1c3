/* SPDX-License-Identifier: MIT */
/*
 * The paper fill model (contract: docs/paper.md):
 * an immediate-or-cancel limit order matched against the displayed book.
 *
 * Walk the opposite side from its best level while the price is within the
 * limit (ask <= limit for a buy, bid >= limit for a sell); at each level
 * take what it still has for us, shares - taken, up to what the order still
 * wants: one execution at the level's price.  What is left is canceled by
 * the caller.  The shares taken stay on the level (book_level.taken) and
 * are not offered again; the feed's own reductions use up the untaken
 * shares first (book_level_shrunk(), book_apply.h), a level that empties
 * forgets them.  The feed's book itself is never changed: a replay stays
 * equal to its file.
 *
 * Used by the gateway's paper mode and t2t-backtest --paper (at the
 * order's arrival on the feed's clock) and by the exchange simulator (at
 * the moment an order arrives).  Nothing is allocated; the walk is bounded
 * by the levels within the limit.
 */
#ifndef BOOK_FILL_H
#define BOOK_FILL_H

#include <stdint.h>

#include "book/book.h"

/* One execution: a level, its price and the shares taken there. */
struct book_fill_exec {
	uint32_t price;
	uint32_t shares;
	uint32_t level;		/* index in the book's level pool */
};

struct book_fill {
	uint64_t cash;		/* sum of shares x price, exact */
	uint32_t filled;	/* shares */
	uint32_t nexec;		/* executions (levels taken from) */
};

/*
 * Fill @shares of a @side ('B' buy, 'S' sell) order of @locate at @limit
 * (ITCH price units) and take them.  With @ex, each execution is written
 * there and the walk stops after @max of them (an exchange's reply limit);
 * without it (@ex NULL) only the sums are kept and the walk stops at the
 * limit.  A side other than 'B' or 'S' fills nothing.
 */
struct book_fill book_fill(struct book *b, uint16_t locate, char side, uint32_t limit,
			   uint32_t shares, struct book_fill_exec *ex, unsigned int max);

/*
 * Give back what book_fill() took into @ex (@n executions), on levels that
 * are still live: for a caller that refuses the fill after the match (the
 * simulator, on an overflowing position).  Only right before the book sees
 * its next message.
 */
void book_fill_undo(struct book *b, const struct book_fill_exec *ex, unsigned int n);

#endif /* BOOK_FILL_H */
