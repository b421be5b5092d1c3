/* SPDX-License-Identifier: MIT */
/*
 * The book of what the simulator published, and the paper fills against it.
 *
 * The book (book/, book_apply()) takes every published message in order,
 * after its packet was sent: it is the book a receiver of the feed holds.
 * An order is filled at the moment it arrives by the one fill model of the
 * project (book/fill.h, the contract's rule): the opposite side walked from
 * its best level within the limit, at each level what it still has for us
 * (its shares less what earlier fills took there), at most
 * BOOKFILL_MAX_LEVELS executions per order (the Executed replies one order
 * gets); whatever is left is canceled.  The fills never change the feed's
 * book: a replay stays equal to its file.
 */
#ifndef NETNS_EXSIM_BOOKFILL_H
#define NETNS_EXSIM_BOOKFILL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "book/book.h"
#include "book/fill.h"

#define BOOKFILL_MAX_LEVELS	32	/* Executed replies one order may get */

struct bookfill_stats {
	uint64_t prints;	/* the tape's prints of what was published */
	uint64_t impossible;	/* dup_ref + unknown_ref + overfill + book_full + bad_side */
};

struct bookfill {
	struct book book;
	struct bookfill_stats st;
};

/* A book of @max_orders live orders (0: the book's default).  0 or -errno. */
int bookfill_init(struct bookfill *bf, uint32_t max_orders);
void bookfill_destroy(struct bookfill *bf);

/* Apply one published message: book_apply()'s result (1: a print in *p). */
int bookfill_apply(struct bookfill *bf, const uint8_t *m, uint16_t len, uint64_t seq,
		   struct tape_print *p);

#endif /* NETNS_EXSIM_BOOKFILL_H */
