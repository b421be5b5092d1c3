/* SPDX-License-Identifier: MIT */
/*
 * Paper fills: the simulator's matching model and its book of positions.
 *
 * Every order is an immediate-or-cancel limit order.  Two models:
 *
 * Against the book (the day and replay sources; bookfill.h): the order
 * takes what the published book's opposite side displays within its
 * limit, level by level, at each level's price, at most
 * BOOKFILL_MAX_LEVELS levels; the rest is canceled.  Shares a fill took
 * are not offered again until the feed takes as many off that level.
 *   something matched  -> executed (fully or partly): one execution per
 *                         level, then canceled for the rest if any
 *   nothing matched    -> canceled, reason 'I'
 *
 * Against the last trade (the GBM source): L is the last published 'P' of
 * the symbol (sent, not merely staged):
 *   buy  (B)          with limit >= L  -> executed in full at L
 *   sell (S, T, E)    with limit <= L  -> executed in full at L
 *   otherwise                          -> canceled, reason 'I'
 *   no trade published yet for it      -> canceled, reason 'I' (no_price)
 *
 * Accepted orders get Accepted then their executions and cancel.  Rejected
 * ones get Rejected with a reason, checked in this order:
 *   'C' market closed: before the 'Q' (start of market hours) or after 'M'
 *   'S' unknown symbol (not in the published stock directory)
 *   'O' side not B, S, T or E                 (counted as bad_side)
 *   'O' time in force not 0 (only IOC)        (counted as bad_tif)
 *   'Z' shares 0 or above --max-shares
 *   'X' price 0 or above 199,999.9900
 *   'O' position or cash would overflow int64 (counted as overflow)
 * (letters as in OUCH 4.2: C closed, S invalid stock, Z shares exceed the
 * safety threshold, X invalid price, O other).
 *
 * The fill model learns the market from the published messages
 * (fill_on_publish()): the directory (R), market hours (S Q, S M), the
 * book, and each symbol's last print (E C P Q with the book, P without),
 * at which positions are marked.
 *
 * Per symbol: position (shares, + long), cash (Price(4) units x shares: a
 * buy of 100 at 100.0000 is -100,000,000) and PnL = cash + position x last,
 * all int64, in Price(4) units (divide by 10,000 for dollars).
 */
#ifndef NETNS_EXSIM_FILL_H
#define NETNS_EXSIM_FILL_H

#include <stdbool.h>
#include <stdint.h>

#include "netns/exsim/bookfill.h"
#include "netns/exsim/exsim.h"
#include "proto/ouch.h"
#include "book/stock_dir.h"

#define FILL_MAX_PRICE	1999999900u	/* 199,999.9900: OUCH's largest */

#define FILL_REJ_CLOSED		OUCH_REJ_CLOSED
#define FILL_REJ_SYMBOL		OUCH_REJ_STOCK
#define FILL_REJ_OTHER		OUCH_REJ_OTHER
#define FILL_REJ_SHARES		OUCH_REJ_SHARES
#define FILL_REJ_PRICE		OUCH_REJ_PRICE
#define FILL_CANCEL_IOC		'I'

#define FILL_LOCATES	65536

struct fill_symbol {
	char stock[ITCH_SYMBOL_LEN];
	bool listed;		/* in the published directory */
	uint32_t last;		/* last published print; 0: none yet */
	int64_t position;	/* shares */
	int64_t cash;		/* Price(4) units x shares */
	uint64_t bought;	/* shares */
	uint64_t sold;
	uint64_t fills;		/* executions (one per level with the book) */
};

enum fill_outcome {
	FILL_EXECUTED,		/* fully or partly */
	FILL_CANCELED,		/* nothing executed */
	FILL_REJECTED,
};

struct fill_result {
	enum fill_outcome outcome;
	char reason;		/* canceled / rejected */
	uint16_t locate;	/* 0 when the symbol is unknown */
	unsigned int nexec;	/* executions, one per price level */
	struct book_fill_exec exec[BOOKFILL_MAX_LEVELS];
	uint32_t filled;	/* shares executed */
	uint32_t canceled;	/* shares canceled: the rest */
	uint64_t value;		/* sum of price x shares executed */
};

struct fill_counters {
	uint64_t executed;	/* orders with an execution, partial ones included */
	uint64_t partial;	/* ... of which the rest was canceled */
	uint64_t executions;	/* Executed replies (levels touched) */
	uint64_t canceled;	/* nothing executed: not marketable, no_price included */
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
	struct fill_symbol *sym;	/* [locate] */
	uint16_t *listed;		/* locates in directory order */
	unsigned int nlisted;
	struct stock_dir dir;		/* symbol -> locate */
	struct bookfill *bf;		/* NULL: against the last trade */
	uint32_t max_shares;
	bool open;			/* between 'Q' and 'M' */
	struct fill_counters n;
};

/* Returns 0 or -ENOMEM.  @bf: the book model, or NULL. */
int fill_init(struct fill_book *b, uint32_t max_shares, struct bookfill *bf);
void fill_destroy(struct fill_book *b);

/* A directory entry: @locate is @stock (space-padded). */
void fill_list(struct fill_book *b, uint16_t locate, const char *stock);

static inline struct fill_symbol *fill_sym(struct fill_book *b, uint16_t locate)
{
	return &b->sym[locate];
}

static inline void fill_set_last(struct fill_book *b, uint16_t locate, uint32_t price)
{
	b->sym[locate].last = price;
}

/* One published message, in order (a feed hook: feed.h). */
void fill_on_publish(void *book, uint64_t seq, const uint8_t *m, uint16_t len);

/* Decide an order and book the fill; counts it in b->n. */
void fill_order(struct fill_book *b, const struct ouch_enter_order *o,
		struct fill_result *r);

/* cash + position x last, Price(4) units. */
int64_t fill_pnl(const struct fill_symbol *s);

#endif /* NETNS_EXSIM_FILL_H */
