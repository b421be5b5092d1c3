/* SPDX-License-Identifier: MIT */
/*
 * Paper fills against the book of what the simulator published.
 *
 * The book (book/, book_apply()) takes every published message in order,
 * after its packet was sent: it is the book a receiver of the feed holds.
 * An immediate-or-cancel limit order takes what the opposite side displays
 * within its limit, best level first, at each level's price; whatever is
 * left is canceled.  A buy at limit L walks the asks priced <= L, a sell
 * the bids priced >= L; at most BOOKFILL_MAX_LEVELS levels per order.
 *
 * Paper: the fills never change the book or the feed (a replay stays equal
 * to its file).  But the shares a fill took are not offered again: the
 * simulator keeps, per price level, the shares its fills took ("taken"),
 * and an order sees a level's displayed shares less what was taken there.
 * What was taken is given back as the feed takes shares off that level:
 * an execution, cancel, delete or replace of an order at the level gives
 * back as many taken shares as it removes (the fills took the front of the
 * queue, the first shares the market's own executions would have hit).
 * Shares added to the level are available at once.  When the feed has
 * removed as many shares from a level as were taken there, the level is
 * whole again; a level that leaves the book has nothing taken left (taken
 * never exceeds a level's displayed shares).
 */
#ifndef NETNS_EXSIM_BOOKFILL_H
#define NETNS_EXSIM_BOOKFILL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "book/book.h"

#define BOOKFILL_MAX_LEVELS	32	/* Executed replies one order may get */

/* One level an order took shares from. */
struct fill_exec {
	uint32_t price;
	uint32_t shares;
	uint32_t level;		/* book level index (0: no book) */
};

struct bookfill_stats {
	uint64_t taken;		/* shares our fills took */
	uint64_t given_back;	/* ... given back by the feed's own removals */
	uint64_t prints;	/* the tape's prints of what was published */
	uint64_t impossible;	/* dup_ref + unknown_ref + overfill + book_full + bad_side */
};

struct bookfill {
	struct book book;
	uint64_t *taken;	/* [level index]: shares taken, not given back yet */
	uint32_t ntaken;	/* levels with something taken */
	struct bookfill_stats st;
};

/* A book of @max_orders live orders (0: the book's default).  0 or -errno. */
int bookfill_init(struct bookfill *bf, uint32_t max_orders);
void bookfill_destroy(struct bookfill *bf);

/*
 * Apply one published message: first give back what its level loses, then
 * book_apply().  Returns book_apply()'s result (1: a print in *p).
 */
int bookfill_apply(struct bookfill *bf, const uint8_t *m, uint16_t len, uint64_t seq,
		   struct tape_print *p);

/*
 * What an IOC order of @shares at limit @limit would take (@buy: from the
 * asks, else from the bids of @locate), into @ex (at most
 * BOOKFILL_MAX_LEVELS entries, *n set).  Changes nothing; returns the
 * shares matched.
 */
uint32_t bookfill_match(const struct bookfill *bf, uint16_t locate, bool buy,
			uint32_t limit, uint32_t shares, struct fill_exec *ex, unsigned int *n);

/* Take what bookfill_match() gave: not offered again until given back. */
void bookfill_take(struct bookfill *bf, const struct fill_exec *ex, unsigned int n);

#endif /* NETNS_EXSIM_BOOKFILL_H */
