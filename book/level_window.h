/* SPDX-License-Identifier: MIT */
/*
 * A side's window: for the LEVEL_WINDOW ticks from just above its best
 * price down (in rank, level_store.h: tick i of the window is rank
 * base + i), a bit in the side, set for each live level there, and the
 * level's index in the side's block of the window pool.  Both are
 * circular, rank r in slot r % LEVEL_WINDOW: a slot's address follows
 * from the price and the side's block alone, so it can be loaded ahead
 * (levels.h, level_prefetch()), and a window that moves moves only the
 * levels that leave or enter it.  The levels' order is the ticks' order,
 * so a level that opens or empties in the window costs a bit and an index
 * in the side's own lines and touches no other level, and the next best
 * is the next set bit.
 *
 * The window follows the best: a new best above it moves it up (the
 * levels that fall off its far end go to the head of the list), a best
 * that recedes past the window's middle, or an empty window, moves it
 * down (the list's best levels that then fall inside come in).  A level
 * priced off its tick's grid has no tick: where it would fall inside the
 * window the side gives its block back and lists every level (levels.h).
 */
#ifndef BOOK_LEVEL_WINDOW_H
#define BOOK_LEVEL_WINDOW_H

#include <stddef.h>

#include "book/level_list.h"

/* Ticks the window keeps above a new best it moves to. */
#define LEVEL_MARGIN	64u

/* The slot of rank @r in its side's window. */
static inline uint32_t win_slot(uint32_t r)
{
	return r % LEVEL_WINDOW;
}

/* The side's block of the window pool, 0 when it has none. */
static inline uint32_t *win_block(const struct level_store *s, const struct book_side *sd)
{
	return &s->block[sd - s->side];
}

/* The side's level indices, by slot. */
static inline uint32_t *win_ids(const struct level_store *s, const struct book_side *sd)
{
	return s->win + (size_t)*win_block(s, sd) * LEVEL_WINDOW;
}

/* Tick @i (from the window's first) holds a level: set, clear. */
static inline void win_set(struct book_side *sd, uint32_t i)
{
	uint32_t k = win_slot(sd->base + i);

	sd->bits[k / 64] |= 1ull << (k % 64);
}

static inline void win_clear(struct book_side *sd, uint32_t i)
{
	uint32_t k = win_slot(sd->base + i);

	sd->bits[k / 64] &= ~(1ull << (k % 64));
}

/* The first set bit of slots [@from, @to), LEVEL_WINDOW when none. */
static inline uint32_t win_scan_up(const struct book_side *sd, uint32_t from, uint32_t to)
{
	uint32_t w = from / 64, last = (to - 1) / 64;
	uint64_t m;

	if (from >= to)
		return LEVEL_WINDOW;
	m = sd->bits[w] & (~0ull << (from % 64));
	for (;;) {
		if (w == last)
			m &= ~0ull >> (63 - (to - 1) % 64);
		if (m)
			return w * 64 + (uint32_t)__builtin_ctzll(m);
		if (w == last)
			return LEVEL_WINDOW;
		m = sd->bits[++w];
	}
}

/* The last set bit of slots [@from, @to), LEVEL_WINDOW when none. */
static inline uint32_t win_scan_down(const struct book_side *sd, uint32_t from, uint32_t to)
{
	uint32_t w = (to - 1) / 64, first = from / 64;
	uint64_t m;

	if (from >= to)
		return LEVEL_WINDOW;
	m = sd->bits[w] & (~0ull >> (63 - (to - 1) % 64));
	for (;;) {
		if (w == first)
			m &= ~0ull << (from % 64);
		if (m)
			return w * 64 + 63 - (uint32_t)__builtin_clzll(m);
		if (w == first)
			return LEVEL_WINDOW;
		m = sd->bits[--w];
	}
}

/* The first tick at or after tick @i that holds a level, LEVEL_WINDOW when none. */
static inline uint32_t win_next(const struct book_side *sd, uint32_t i)
{
	uint32_t b0 = win_slot(sd->base), k, f;

	if (i >= LEVEL_WINDOW)
		return LEVEL_WINDOW;
	k = win_slot(sd->base + i);
	if (k >= b0) {
		f = win_scan_up(sd, k, LEVEL_WINDOW);
		if (f == LEVEL_WINDOW)
			f = win_scan_up(sd, 0, b0);
	} else {
		f = win_scan_up(sd, k, b0);
	}
	return f == LEVEL_WINDOW ? f : (f + LEVEL_WINDOW - b0) % LEVEL_WINDOW;
}

/* The last tick at or before tick @i that holds a level, LEVEL_WINDOW when none. */
static inline uint32_t win_prev(const struct book_side *sd, uint32_t i)
{
	uint32_t b0 = win_slot(sd->base), k = win_slot(sd->base + i), f;

	if (k >= b0) {
		f = win_scan_down(sd, b0, k + 1);
	} else {
		f = win_scan_down(sd, 0, k + 1);
		if (f == LEVEL_WINDOW)
			f = win_scan_down(sd, b0, LEVEL_WINDOW);
	}
	return f == LEVEL_WINDOW ? f : (f + LEVEL_WINDOW - b0) % LEVEL_WINDOW;
}

/* The level at tick @i (set). */
static inline uint32_t win_level(const struct level_store *s, const struct book_side *sd,
				 uint32_t i)
{
	return win_ids(s, sd)[win_slot(sd->base + i)];
}

/* Give the empty side @sd a block of the pool and start its window at rank @base. */
static inline int win_open(struct level_store *s, struct book_side *sd, uint32_t base)
{
	uint32_t b = s->free_block;

	if (!b)
		return 0;
	s->free_block = s->win[(size_t)b * LEVEL_WINDOW];
	s->win[(size_t)b * LEVEL_WINDOW] = 0;
	*win_block(s, sd) = b;
	sd->base = base;
	return 1;
}

/* The side's window is empty: its block goes back to the pool. */
static inline void win_close(struct level_store *s, struct book_side *sd)
{
	uint32_t *b = win_block(s, sd);

	s->win[(size_t)*b * LEVEL_WINDOW] = s->free_block;
	s->free_block = *b;
	*b = 0;
}

/* Ticks @from and up (to the end of the window) move to the list's head. */
static inline void win_spill(struct level_store *s, struct book_side *sd, uint16_t locate,
			     unsigned int side, uint32_t from)
{
	uint32_t *ids = win_ids(s, sd);

	for (uint32_t i = win_prev(sd, LEVEL_WINDOW - 1); i < LEVEL_WINDOW && i >= from;
	     i = i ? win_prev(sd, i - 1) : LEVEL_WINDOW) {
		uint32_t *id = &ids[win_slot(sd->base + i)], idx = *id;

		level_hash_add(s, idx, level_key(locate, side, s->lv[idx].price));
		level_list_insert(s, sd, idx, sd->head);
		*id = 0;
		win_clear(sd, i);
	}
}

/* Every level of the side onto the list: list mode. */
static inline void win_to_list(struct level_store *s, struct book_side *sd, uint16_t locate,
			       unsigned int side)
{
	win_spill(s, sd, locate, side, 0);
	win_close(s, sd);
}

/* Move the window up @k ticks, for a new best above it. */
static inline void win_up(struct level_store *s, struct book_side *sd, uint16_t locate,
			  unsigned int side, uint32_t k)
{
	win_spill(s, sd, locate, side, k < LEVEL_WINDOW ? LEVEL_WINDOW - k : 0);
	sd->base -= k;
}

/*
 * Move the window down @k ticks (none of its first k holds a level) and
 * take in the list's levels that then fall inside it.  A level among them
 * off its grid turns the side to list mode.
 */
static inline void win_down(struct level_store *s, struct book_side *sd, uint16_t locate,
			    unsigned int side, uint32_t k)
{
	uint32_t *ids = win_ids(s, sd);

	sd->base += k;
	while (sd->head) {
		const struct book_level *h = &s->lv[sd->head];
		uint32_t r = level_rank(side, h->price);

		if (r - sd->base >= LEVEL_WINDOW)
			break;
		if (!level_on_grid(h->price)) {
			win_to_list(s, sd, locate, side);
			return;
		}
		level_unhash(s, sd->head, level_key(locate, side, h->price));
		ids[win_slot(r)] = sd->head;
		win_set(sd, r - sd->base);
		level_list_unlink(s, sd, h);
	}
}

#endif /* BOOK_LEVEL_WINDOW_H */
