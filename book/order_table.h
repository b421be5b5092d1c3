/* SPDX-License-Identifier: MIT */
/*
 * Live orders by Order Reference Number: an open-addressed hash table with
 * linear probing, a power-of-two number of 16-byte slots (four to a cache
 * line), allocated once by the book.
 *
 * The book never lets more than half the slots fill, so every probe ends at
 * an empty slot after a few steps, and a lookup of a ref that is not live
 * (what every add does) costs the same as a hit.
 *
 * Deletion shifts the following entries of the run back into the hole
 * (Knuth's algorithm R) instead of leaving a tombstone.  Half the messages
 * of a day delete an order; tombstones would pile up at that rate, lengthen
 * every probe that crosses them and need a rebuild now and then, a pause of
 * tens of milliseconds in the middle of the feed.  Backward shift keeps the
 * table exactly as if the deleted ref had never been inserted, at the cost
 * of rehashing the few entries that follow it in its run.
 */
#ifndef BOOK_ORDER_TABLE_H
#define BOOK_ORDER_TABLE_H

#include <stdint.h>

struct book_order {
	uint64_t ref;
	uint32_t shares;	/* > 0 while live */
	uint32_t level;		/* its price level; 0 marks an empty slot */
};

struct order_table {
	struct book_order *slot;
	uint64_t mask;
	uint32_t bits;		/* log2 of the slot count, >= 4 */
};

/*
 * A ref's home slot.  A feed numbers its orders in sequence (Nasdaq's refs
 * are unique across the day and increase), and most orders leave within
 * milliseconds of their add: the live refs that a burst of messages names
 * are a run of recent numbers.  So consecutive refs get consecutive lines
 * (a ref's home is 4 * ref, one line each, its three other slots left for
 * older orders and collisions): a day's adds walk the table in order and
 * the recent orders share a few pages of it, where a hashed home puts each
 * add on a page of its own (on the real-shaped day the adds' page misses
 * were a quarter of the book's time).  Each epoch of 2^(bits - 2) refs
 * starts at its own place, the Fibonacci hash of the epoch, so that the
 * orders an epoch leaves resting do not line up with the next one's, and
 * refs that do not come in sequence still spread over the table.
 */
static inline uint64_t order_home(const struct order_table *t, uint64_t ref)
{
	uint64_t epoch = ref >> (t->bits - 2);

	return ((ref << 2) + ((epoch * 0x9E3779B97F4A7C15ull) >> (64 - t->bits))) & t->mask;
}

/* The slot holding @ref, or the empty slot where it would go. */
static inline struct book_order *order_probe(const struct order_table *t,
					     uint64_t ref)
{
	uint64_t i = order_home(t, ref);

	for (;;) {
		struct book_order *o = &t->slot[i];

		if (!o->level || o->ref == ref)
			return o;
		i = (i + 1) & t->mask;
	}
}

static inline void order_prefetch(const struct order_table *t, uint64_t ref)
{
	__builtin_prefetch(&t->slot[order_home(t, ref)]);
}

/* Empty the live slot @o, shifting later entries of its run back. */
static inline void order_erase(struct order_table *t, struct book_order *o)
{
	uint64_t hole = (uint64_t)(o - t->slot), j = hole;

	for (;;) {
		struct book_order *n;
		uint64_t home;

		j = (j + 1) & t->mask;
		n = &t->slot[j];
		if (!n->level)
			break;
		home = order_home(t, n->ref);
		/* n may fill the hole unless its home lies in (hole, j]. */
		if (((j - home) & t->mask) >= ((j - hole) & t->mask)) {
			t->slot[hole] = *n;
			hole = j;
		}
	}
	t->slot[hole].level = 0;
}

#endif /* BOOK_ORDER_TABLE_H */
