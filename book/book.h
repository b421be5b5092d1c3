/* SPDX-License-Identifier: MIT */
/*
 * The order book of every stock locate and the execution tape (contract:
 * docs/book.md).
 *
 * One struct book holds the books of all 65536 locates: live orders in one
 * hash table keyed by Order Reference Number (refs are unique across the
 * whole day), price levels in a shared pool, per locate and side the
 * levels' order (book/levels.h).  All memory is one prefaulted mapping made by
 * book_init(); nothing is allocated afterwards.
 *
 * Messages go in through book_apply() (book/book_apply.h, static inline);
 * this header has the types, set-up, and the queries that are not on the
 * hot path (best levels, walking the levels, the digest, counters).
 */
#ifndef BOOK_BOOK_H
#define BOOK_BOOK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "book/levels.h"
#include "book/order_table.h"
#include "util/touch.h"
#include "util/table_mem.h"

/* Live orders the default table holds (its slots are twice that). */
#define BOOK_DEFAULT_ORDERS	(2u << 20)
#define BOOK_MAX_ORDERS		(1u << 30)
/*
 * Sides that keep a window at once, by default (3 KB each): a real day's
 * TotalView has about 8,000 symbols, two sides each.  A side that finds
 * the pool empty lists its levels (book/levels.h).
 */
#define BOOK_DEFAULT_WINDOWS	16384u

struct book_config {
	uint32_t max_orders;	/* live orders; 0 = BOOK_DEFAULT_ORDERS */
	uint32_t max_levels;	/* live price levels; 0 = max_orders (never the
				 * limit: every level holds an order) */
	uint32_t windows;	/* sides with a window at once; 0 = the smaller
				 * of BOOK_DEFAULT_WINDOWS and max_levels */
	bool track_all;		/* else only locates given to book_track() */
	enum table_mem_pages pages;
};

/* One trade print of the tape. */
struct tape_print {
	uint64_t seq;
	uint64_t shares;	/* Q carries 8 bytes of shares */
	uint32_t price;
	uint16_t locate;
	char kind;		/* 'E', 'C', 'P' or 'Q' */
};

struct book_counters {
	uint64_t by_type[256];	/* well-formed messages, every locate */
	uint64_t malformed;	/* length not its type's, or not an ITCH type */
	/* Impossible events, each leaving the book as it was. */
	uint64_t dup_ref;	/* add (or U's new ref) whose ref is live */
	uint64_t unknown_ref;	/* E C X D U whose ref is not live */
	uint64_t overfill;	/* E C X of more shares than rest */
	uint64_t book_full;	/* add dropped: order table (or level pool) full */
	uint64_t bad_side;	/* add whose Buy/Sell is neither 'B' nor 'S' */
	/* Possible but empty: an add, or a replace's new order, of 0 shares. */
	uint64_t zero_shares;	/* nothing rests (a replace still removes its original) */
	uint64_t prints;
	uint64_t taken;		/* shares paper fills took (book/fill.h) */
};

struct book {
	struct order_table orders;
	struct level_store levels;
	uint8_t *tracked;		/* [locate]: 1 = keep its book */
	uint64_t live;			/* live orders */
	uint64_t peak;			/* most live orders at any time */
	uint32_t max_orders;
	struct book_counters cnt;
	struct table_mem mem;
};

/*
 * Set up an empty book.  Returns 0, -EINVAL (a capacity out of range) or
 * -ENOMEM (the mapping failed).
 */
int book_init(struct book *b, const struct book_config *cfg);
void book_destroy(struct book *b);

/*
 * Empty every book and zero the counters and the peak, keeping the
 * capacity and the tracked locates (a new session, a new day).  Costs a pass
 * over the order and level tables.
 */
void book_clear(struct book *b);

/*
 * Keep (or stop keeping) the book of @locate.  Messages of untracked
 * locates are counted by type and otherwise skipped on their header's
 * locate, before any table is touched: no book, no print.  Stop tracking
 * only an empty locate: its orders would stay in the table.
 */
static inline void book_track(struct book *b, uint16_t locate, bool on)
{
	b->tracked[locate] = on;
}

static inline bool book_tracked(const struct book *b, uint16_t locate)
{
	return b->tracked[locate];
}

/* The live order @ref, or NULL. */
static inline const struct book_order *book_find(const struct book *b,
						 uint64_t ref)
{
	const struct book_order *o = order_probe(&b->orders, ref);

	return o->level ? o : NULL;
}

static inline const struct book_level *book_level_of(const struct book *b,
						     const struct book_order *o)
{
	return &b->levels.lv[o->level];
}

/* Best level of one side (BOOK_BID / BOOK_ASK) of @locate, or NULL. */
static inline const struct book_level *book_best(const struct book *b,
						 uint16_t locate, unsigned int side)
{
	uint32_t i = level_side(&b->levels, locate, side)->best;

	return i ? &b->levels.lv[i] : NULL;
}

/*
 * Read what book_best() of either side of @locate reads: the sides, and the
 * best level of each.  Plain loads, for a caller keeping them warm.
 */
static inline void book_touch_sides(const struct book *b, uint16_t locate)
{
	const struct book_side *s = level_side(&b->levels, locate, BOOK_BID);

	if (s[0].best)
		touch_line(&b->levels.lv[s[0].best].price);
	if (s[1].best)
		touch_line(&b->levels.lv[s[1].best].price);
}

/* The next level away from the best (lower bids, higher asks), or NULL. */
static inline const struct book_level *book_level_next(const struct book *b,
						       const struct book_level *l)
{
	uint32_t i = level_next(&b->levels, (uint32_t)(l - b->levels.lv));

	return i ? &b->levels.lv[i] : NULL;
}

static inline uint32_t book_nlevels(const struct book *b, uint16_t locate,
				    unsigned int side)
{
	return level_side(&b->levels, locate, side)->nlevels;
}

#define BOOK_DIGEST_EMPTY	0xcbf29ce484222325ull	/* FNV-1a offset basis */

/*
 * 64-bit FNV-1a over every level of every locate: locates in increasing
 * order, for each its bids from the best (highest) price down, then its
 * asks from the best (lowest) up, each level as 19 bytes, little-endian:
 * locate (2), side (1: 'B' or 'S'), price (4), shares (8), orders (4).
 * Books with the same levels have the same digest whatever the orders or
 * the history behind them; an empty book gives BOOK_DIGEST_EMPTY.
 */
uint64_t book_digest(const struct book *b);

/* The digest of one locate's levels alone (same encoding). */
uint64_t book_digest_locate(const struct book *b, uint16_t locate);

/* What backs the tables, for reports: "hugetlb 2 MB", "4 KB", ... */
void book_describe_pages(const struct book *b, char *buf, size_t len);

#define BOOK_CHECK_ALL_SIDES	1u

/*
 * Debug check, slow (a pass over both hash tables and the live levels;
 * allocates): recounts every live level's shares and orders from the live
 * orders and compares them with the aggregates; checks that every order
 * and level can be found by its key, that the lists are sorted and linked
 * both ways with the right ends and counts, and the live, free and peak
 * counts.  BOOK_CHECK_ALL_SIDES also checks that every side with no level
 * is empty (65536 locates).  Returns 0, or -1 with the first problem in
 * @why.
 */
int book_check(const struct book *b, unsigned int flags, char *why, size_t len);

#endif /* BOOK_BOOK_H */
