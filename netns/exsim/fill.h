/* SPDX-License-Identifier: MIT */
/*
 * Paper fills: the simulator's matching model and its book of positions.
 *
 * Every order is an immediate-or-cancel limit order against the last
 * published trade price L of its symbol (the last 'P' sent on the feed, not
 * merely staged):
 *   buy  (B)          with limit >= L  -> executed in full at L
 *   sell (S, T, E)    with limit <= L  -> executed in full at L
 *   otherwise                          -> canceled, reason 'I'
 *   no trade published yet for it      -> canceled, reason 'I' (no_price)
 * Accepted orders get Accepted then Executed or Canceled.  Rejected ones get
 * Rejected with a reason, checked in this order:
 *   'C' market closed: before the 'Q' (start of market hours) or after 'M'
 *   'S' unknown symbol (not in the stock directory)
 *   'O' side not B, S, T or E                 (counted as bad_side)
 *   'O' time in force not 0 (only IOC)        (counted as bad_tif)
 *   'Z' shares 0 or above --max-shares
 *   'X' price 0 or above 199,999.9900
 *   'O' position or cash would overflow int64 (counted as overflow)
 * (letters as in OUCH 4.2: C closed, S invalid stock, Z shares exceed the
 * safety threshold, X invalid price, O other).
 *
 * Per symbol: position (shares, + long), cash (Price(4) units x shares: a
 * buy of 100 at 100.0000 is -100,000,000) and PnL = cash + position x L,
 * all int64, in Price(4) units (divide by 10,000 for dollars).
 */
#ifndef NETNS_EXSIM_FILL_H
#define NETNS_EXSIM_FILL_H

#include <stdbool.h>
#include <stdint.h>

#include "netns/exsim/exsim.h"
#include "proto/ouch.h"
#include "book/stock_dir.h"

#define FILL_MAX_PRICE	1999999900u	/* 199,999.9900: OUCH's largest */

#define FILL_REJ_CLOSED		'C'
#define FILL_REJ_SYMBOL		'S'
#define FILL_REJ_OTHER		'O'
#define FILL_REJ_SHARES		'Z'
#define FILL_REJ_PRICE		'X'
#define FILL_CANCEL_IOC		'I'

struct fill_symbol {
	char stock[ITCH_SYMBOL_LEN];
	uint32_t last;		/* last published trade price; 0: none yet */
	int64_t position;	/* shares */
	int64_t cash;		/* Price(4) units x shares */
	uint64_t bought;	/* shares */
	uint64_t sold;
	uint64_t fills;
};

enum fill_outcome {
	FILL_EXECUTED,
	FILL_CANCELED,
	FILL_REJECTED,
};

struct fill_result {
	enum fill_outcome outcome;
	char reason;		/* canceled / rejected */
	uint16_t locate;	/* 0 when the symbol is unknown */
	uint32_t price;		/* execution price */
	uint32_t shares;	/* executed or canceled */
};

struct fill_counters {
	uint64_t executed;
	uint64_t canceled;	/* not marketable, no_price included */
	uint64_t no_price;
	uint64_t rejected;	/* all the rejects below */
	uint64_t closed;
	uint64_t unknown_symbol;
	uint64_t bad_side;
	uint64_t bad_tif;
	uint64_t bad_shares;
	uint64_t bad_price;
	uint64_t overflow;
};

struct fill_book {
	unsigned int nsym;
	struct fill_symbol sym[EXSIM_MAX_SYMBOLS];
	struct stock_dir dir;	/* symbol -> locate */
	uint32_t max_shares;
	bool open;		/* between 'Q' and 'M' */
	struct fill_counters n;
};

/* Returns 0 or -ENOMEM. */
int fill_init(struct fill_book *b, const char (*symbols)[ITCH_SYMBOL_LEN],
	      unsigned int nsym, uint32_t max_shares);
void fill_destroy(struct fill_book *b);

static inline void fill_set_last(struct fill_book *b, uint16_t locate,
				 uint32_t price)
{
	b->sym[locate - 1].last = price;
}

/* Decide an order and book the fill; counts it in b->n. */
void fill_order(struct fill_book *b, const struct ouch_enter_order *o,
		struct fill_result *r);

/* cash + position x last, Price(4) units. */
int64_t fill_pnl(const struct fill_symbol *s);

#endif /* NETNS_EXSIM_FILL_H */
