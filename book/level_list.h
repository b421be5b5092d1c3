/* SPDX-License-Identifier: MIT */
/*
 * A side's listed levels: a doubly linked list sorted from the best price
 * to the worst, with both ends kept (head, tail), each level also in the
 * level hash.  In window mode it holds the levels worse than the window,
 * in list mode every level of the side (levels.h).
 *
 * A new level beyond either end links in O(1).  One inside the list first
 * looks up the prices a few ticks either side of it in the hash: in a book
 * whose levels sit tick by tick a neighbour is one or two probes away.  The
 * probes are independent loads that overlap; a walk is a chain of misses,
 * one per level.  So the new level links beside the nearest listed
 * neighbour with no walk when every level of its side is on the grid the
 * probes step along, and only a side holding a level between two cents
 * walks from the neighbour across the levels priced between the two.
 * Without a listed neighbour within LEVEL_PROBES ticks the walk starts
 * from whichever end is nearer in price.
 */
#ifndef BOOK_LEVEL_LIST_H
#define BOOK_LEVEL_LIST_H

#include "book/level_hash.h"

/*
 * Ticks each side of a new level's price looked up for a neighbour.  On
 * the real-shaped day 16 find one for more of the levels that would walk,
 * but cost the gateway's small book more than its walks (cold hash lines
 * against warm levels: docs/results.md, 2026-12-03).
 */
#define LEVEL_PROBES	4

/* True when a live level of @sd priced @price is on the list, not in the window. */
static inline int level_listed(const struct level_store *s, const struct book_side *sd,
			       unsigned int side, uint32_t price)
{
	return !s->block[sd - s->side] || level_rank(side, price) - sd->base >= LEVEL_WINDOW;
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
		if (p <= UINT32_MAX - d && (n = level_hash_find(s, locate, side, p + d)))
			return n;
		*above = 0;
		if (p > d && (n = level_hash_find(s, locate, side, p - d)))
			return n;
	}
	return 0;
}

/* Put @idx on the list just before (better than) @at, or last when @at is 0. */
static inline void level_list_insert(struct level_store *s, struct book_side *sd,
				     uint32_t idx, uint32_t at)
{
	struct book_level *l = &s->lv[idx];

	l->worse = at;
	l->better = at ? s->lv[at].better : sd->tail;
	if (l->better)
		s->lv[l->better].worse = idx;
	else
		sd->head = idx;
	if (at)
		s->lv[at].better = idx;
	else
		sd->tail = idx;
}

/* Link the new level @idx into its side's list, in price order. */
static inline void level_list_link(struct level_store *s, struct book_side *sd, uint32_t idx)
{
	struct book_level *l = &s->lv[idx], *lv = s->lv;
	uint32_t p = l->price, at, n;
	int above;

	if (!sd->head || level_better(l->side, p, lv[sd->head].price)) {
		level_list_insert(s, sd, idx, sd->head);
		return;
	}
	if (level_better(l->side, lv[sd->tail].price, p)) {
		level_list_insert(s, sd, idx, 0);
		return;
	}
	/*
	 * Strictly between the two ends, so both walks below stop before
	 * running off the list: find the first level worse than p, from a
	 * neighbour in price when there is one (the hash holds only listed
	 * levels), else from the nearer end.  Below a dollar the probes step by the grid's own unit, 1.
	 * From a dollar up, off_cent (which counts p already) says the whole
	 * side, p included, is on the cent grid: no level lies between p and
	 * the nearest neighbour the probes found.
	 */
	n = level_neighbour(s, l->locate, l->side, p, &above);
	if (n && (level_tick(p) == 1 || !sd->off_cent)) {
		at = above == (l->side == BOOK_BID) ? lv[n].worse : n;
		level_list_insert(s, sd, idx, at);
		return;
	}
	if (!n) {
		uint32_t bp = lv[sd->head].price, wp = lv[sd->tail].price;
		uint32_t from_best = p > bp ? p - bp : bp - p;
		uint32_t from_worst = p > wp ? p - wp : wp - p;

		n = from_best <= from_worst ? sd->head : sd->tail;
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
	level_list_insert(s, sd, idx, at);
}

static inline void level_list_unlink(struct level_store *s, struct book_side *sd,
				     const struct book_level *l)
{
	if (l->better)
		s->lv[l->better].worse = l->worse;
	else
		sd->head = l->worse;
	if (l->worse)
		s->lv[l->worse].better = l->better;
	else
		sd->tail = l->better;
}

#endif /* BOOK_LEVEL_LIST_H */
