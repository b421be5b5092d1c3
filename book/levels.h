/* SPDX-License-Identifier: MIT */
/*
 * Price levels: aggregate shares and order count per (locate, side, price).
 *
 * - A pool of fixed-size levels, indexed from 1 (0 is "none"), so an order
 *   keeps its level's index (4 bytes) and an execute, cancel or delete
 *   reaches the level without a second hash lookup.  An index stays valid
 *   while the level has orders; freed levels go on a free list and are
 *   reused first, so the live ones stay packed at the low indices.
 * - A hash of (locate, side, price) -> level for adds, open-addressed with
 *   linear probing and backward-shift deletion (see order_table.h for why),
 *   at most half full.
 * - Per (locate, side), the levels in a doubly linked list sorted from the
 *   best price to the worst, with both ends kept: the best bid or ask is one
 *   load, a level that empties unlinks in O(1) (the next best is its
 *   neighbour).  A new level beyond either end links in O(1).  One inside
 *   the list first looks up the prices a few ticks either side of it in
 *   the hash: in a book whose levels sit tick by tick (any busy stock, and
 *   any book that has kept its orders since the open) a neighbour is one
 *   or two probes away.  The probes are independent loads that overlap;
 *   a walk is a chain of misses, one per level.  So the new level links
 *   beside the nearest neighbour with no walk when every level of its side
 *   is on the grid the probes step along, and only a side holding a level
 *   between two cents walks from the neighbour across the levels priced
 *   between the two.  Without a neighbour within LEVEL_PROBES ticks the
 *   walk starts from whichever end is nearer in price; that walk is the
 *   worst case, bounded by the levels on that side.
 */
#ifndef BOOK_LEVELS_H
#define BOOK_LEVELS_H

#include <stdint.h>

#define BOOK_LOCATES	65536
#define BOOK_BID	0
#define BOOK_ASK	1

struct book_level {
	uint64_t shares;	/* sum over its orders */
	uint32_t price;
	uint32_t orders;	/* > 0 while the level is live */
	uint32_t better;	/* neighbour toward the best price, 0 at the best */
	uint32_t worse;		/* neighbour away from it (free list link when free) */
	uint32_t taken;		/* of shares, what paper fills took (book/fill.h) */
	uint16_t locate;
	uint8_t side;		/* BOOK_BID or BOOK_ASK */
};

/* Two levels to a cache line: the walk of a side touches half as many. */
_Static_assert(sizeof(struct book_level) == 32, "struct book_level is 32 bytes");

struct level_slot {
	uint64_t key;
	uint32_t level;		/* 0 marks an empty slot */
	uint32_t unused;
};

/*
 * One side of one locate's book.  The two ends' prices are kept here too:
 * a new level compares its price with both, and reading them from the
 * levels themselves is two random lines of the pool for every level a day
 * opens (a quarter of the book's time on a real-shaped day).  Valid while
 * best is not 0.  32 bytes, so a locate's two sides share a line.
 */
struct book_side {
	uint32_t best;
	uint32_t worst;
	uint32_t best_price;
	uint32_t worst_price;
	uint32_t nlevels;
	uint32_t off_cent;	/* levels priced off a whole cent (level_off_cent) */
	uint32_t unused[2];
};

_Static_assert(sizeof(struct book_side) == 32, "struct book_side is 32 bytes");

struct level_store {
	struct book_level *lv;		/* [0] unused */
	struct level_slot *hash;
	struct book_side *side;		/* [locate * 2 + side] */
	uint64_t hmask;
	uint32_t hbits;
	uint32_t cap;			/* usable levels: 1..cap */
	uint32_t used;			/* live levels */
	uint32_t fresh;			/* next never-used index */
	uint32_t free_head;		/* recycled levels */
};

static inline uint64_t level_key(uint16_t locate, unsigned int side, uint32_t price)
{
	return (uint64_t)locate << 33 | (uint64_t)side << 32 | price;
}

/*
 * The quoting increment of @price (ITCH units of 1/10000 dollar): a cent
 * from one dollar up, a hundredth of a cent below (Reg NMS rule 612).  A
 * price off this grid only costs the probes; the walk still finds it.
 */
static inline uint32_t level_tick(uint32_t price)
{
	return price >= 10000 ? 100 : 1;
}

/*
 * A price between two cents.  Each side counts its levels so priced: with
 * none, every level of the side sits on the cent grid that the neighbour
 * probes of a price from a dollar up step along.
 */
static inline int level_off_cent(uint32_t price)
{
	return price % 100 != 0;
}

/*
 * A key's home slot.  Four ticks of one side of one book share a home
 * line (four 16-byte slots): the group of four is hashed (Fibonacci), the
 * tick within it picks the slot.  A new level's neighbour probes touch a
 * line per four ticks either side, not one per tick; probing and backward
 * shift work for any home.
 */
static inline uint64_t level_home(const struct level_store *s, uint64_t key)
{
	uint32_t price = (uint32_t)key, t = price / level_tick(price);
	uint64_t group = (key & ~0xffffffffull) | (t >> 2);

	return (((group * 0x9E3779B97F4A7C15ull) >> (64 - s->hbits)) & ~3ull) | (t & 3);
}

static inline void level_prefetch(const struct level_store *s, uint64_t key)
{
	__builtin_prefetch(&s->hash[level_home(s, key)]);
}

static inline struct book_side *level_side(const struct level_store *s,
					   uint16_t locate, unsigned int side)
{
	return &s->side[(uint32_t)locate * 2 + side];
}

/* True when price @a is better than @b on @side. */
static inline int level_better(unsigned int side, uint32_t a, uint32_t b)
{
	return side == BOOK_BID ? a > b : a < b;
}

/*
 * Ticks each side of a new level's price looked up for a neighbour.  On
 * the real-shaped day (make bench-book) 4 leave 1.9 M of the 26 M new
 * levels without one, each walking 7.8 levels from an end; 16 find one for
 * 77 % of those, but cost the gateway's small book more than its walks
 * (cold hash lines against warm levels: docs/results.md, 2026-12-03).
 */
#define LEVEL_PROBES	4

/* The live level of (locate, side, price), 0 when there is none. */
static inline uint32_t level_find(const struct level_store *s, uint16_t locate,
				  unsigned int side, uint32_t price)
{
	uint64_t key = level_key(locate, side, price);
	uint64_t i = level_home(s, key);

	for (;; i = (i + 1) & s->hmask) {
		const struct level_slot *h = &s->hash[i];

		if (!h->level || h->key == key)
			return h->level;
	}
}

/*
 * A live level of @side within LEVEL_PROBES ticks of @p, nearest first;
 * *@above says whether it is priced above @p.
 */
static inline uint32_t level_neighbour(const struct level_store *s, uint16_t locate,
				       unsigned int side, uint32_t p, int *above)
{
	uint32_t tick = level_tick(p), n;

	for (uint32_t k = 1; k <= LEVEL_PROBES; k++) {
		uint32_t d = k * tick;

		*above = 1;
		if (p <= UINT32_MAX - d && (n = level_find(s, locate, side, p + d)))
			return n;
		*above = 0;
		if (p > d && (n = level_find(s, locate, side, p - d)))
			return n;
	}
	return 0;
}

/*
 * Link @idx, priced @p, next to its neighbour @n found by the probes,
 * without reading the levels past @n: the probes saw no level on p's grid
 * nearer than n on either side, and when that grid holds every level of
 * the side (level_link says when) there is none off it either, so n's
 * neighbour toward p lies beyond p.  One miss (n) instead of a walk.
 */
static inline void level_link_beside(struct book_level *lv, uint32_t idx, uint32_t n,
				     int n_better)
{
	struct book_level *l = &lv[idx];

	if (n_better) {
		l->better = n;
		l->worse = lv[n].worse;
	} else {
		l->worse = n;
		l->better = lv[n].better;
	}
	lv[l->better].worse = idx;
	lv[l->worse].better = idx;
}

/* Link the new level @idx into its side's sorted list. */
static inline void level_link(struct level_store *s, uint32_t idx)
{
	struct book_level *l = &s->lv[idx], *lv = s->lv;
	struct book_side *sd = level_side(s, l->locate, l->side);
	uint32_t p = l->price, at, n;
	int above;

	sd->nlevels++;
	sd->off_cent += level_off_cent(p);
	if (!sd->best) {
		l->better = l->worse = 0;
		sd->best = sd->worst = idx;
		sd->best_price = sd->worst_price = p;
		return;
	}
	if (level_better(l->side, p, sd->best_price)) {
		l->better = 0;
		l->worse = sd->best;
		lv[sd->best].better = idx;
		sd->best = idx;
		sd->best_price = p;
		return;
	}
	if (level_better(l->side, sd->worst_price, p)) {
		l->worse = 0;
		l->better = sd->worst;
		lv[sd->worst].worse = idx;
		sd->worst = idx;
		sd->worst_price = p;
		return;
	}
	/*
	 * Strictly between the two ends, so both walks below stop before
	 * running off the list: find the first level worse than p, from a
	 * neighbour in price when there is one, else from the nearer end.
	 */
	n = level_neighbour(s, l->locate, l->side, p, &above);
	/*
	 * Below a dollar the probes step by the grid's own unit, 1.  From a
	 * dollar up, off_cent (which counts p already) says the whole side,
	 * p included, is on the cent grid.
	 */
	if (n && (level_tick(p) == 1 || !sd->off_cent)) {
		level_link_beside(lv, idx, n, above == (l->side == BOOK_BID));
		return;
	}
	if (!n) {
		uint32_t bp = sd->best_price, wp = sd->worst_price;
		uint32_t from_best = p > bp ? p - bp : bp - p;
		uint32_t from_worst = p > wp ? p - wp : wp - p;

		n = from_best <= from_worst ? sd->best : sd->worst;
	}
	if (level_better(l->side, lv[n].price, p)) {
		at = lv[n].worse;
		while (level_better(l->side, lv[at].price, p))
			at = lv[at].worse;
	} else {
		at = n;
		while (level_better(l->side, p, lv[lv[at].better].price))
			at = lv[at].better;
	}
	/* Insert just before (better than) at. */
	l->worse = at;
	l->better = lv[at].better;
	lv[l->better].worse = idx;
	lv[at].better = idx;
}

static inline void level_unlink(struct level_store *s, struct book_level *l)
{
	struct book_side *sd = level_side(s, l->locate, l->side);

	sd->nlevels--;
	sd->off_cent -= level_off_cent(l->price);
	if (l->better) {
		s->lv[l->better].worse = l->worse;
	} else {
		sd->best = l->worse;
		if (l->worse)
			sd->best_price = s->lv[l->worse].price;
	}
	if (l->worse) {
		s->lv[l->worse].better = l->better;
	} else {
		sd->worst = l->better;
		if (l->better)
			sd->worst_price = s->lv[l->better].price;
	}
}

/*
 * The level of (locate, side, price), created empty if need be.  Returns
 * its index, or 0 when it is new and the pool is full.
 */
static inline uint32_t level_get(struct level_store *s, uint16_t locate,
				 unsigned int side, uint32_t price)
{
	uint64_t key = level_key(locate, side, price);
	uint64_t i = level_home(s, key);
	struct level_slot *h;
	struct book_level *l;
	uint32_t idx;

	for (;;) {
		h = &s->hash[i];
		if (!h->level)
			break;
		if (h->key == key)
			return h->level;
		i = (i + 1) & s->hmask;
	}
	if (s->used == s->cap)
		return 0;
	if (s->free_head) {
		idx = s->free_head;
		s->free_head = s->lv[idx].worse;
	} else {
		idx = s->fresh++;
	}
	s->used++;
	h->key = key;
	h->level = idx;
	l = &s->lv[idx];
	l->shares = 0;
	l->orders = 0;
	l->taken = 0;
	l->price = price;
	l->locate = locate;
	l->side = (uint8_t)side;
	level_link(s, idx);
	return idx;
}

/* Remove the empty level @idx from its list and the hash; free it. */
static inline void level_put(struct level_store *s, uint32_t idx)
{
	struct book_level *l = &s->lv[idx];
	uint64_t hole = level_home(s, level_key(l->locate, l->side, l->price)), j;

	level_unlink(s, l);
	while (s->hash[hole].level != idx)
		hole = (hole + 1) & s->hmask;
	for (j = hole;;) {
		struct level_slot *n;
		uint64_t home;

		j = (j + 1) & s->hmask;
		n = &s->hash[j];
		if (!n->level)
			break;
		home = level_home(s, n->key);
		if (((j - home) & s->hmask) >= ((j - hole) & s->hmask)) {
			s->hash[hole] = *n;
			hole = j;
		}
	}
	s->hash[hole].level = 0;
	l->worse = s->free_head;
	s->free_head = idx;
	s->used--;
}

#endif /* BOOK_LEVELS_H */
