/* SPDX-License-Identifier: MIT */
/*
 * Price levels: aggregate shares and order count per (locate, side, price).
 *
 * - A pool of fixed-size level records, indexed from 1 (0 is "none"), so an
 *   order keeps its level's index (4 bytes) and an execute, cancel or
 *   delete reaches the level without a lookup.  An index stays valid while
 *   the level has orders; freed levels go on a free list and are reused
 *   first.  (level_store.h)
 * - Per (locate, side), the levels in order, best first, in two parts:
 *   - the window: for the LEVEL_WINDOW ticks from just above the best down,
 *     a bit per tick and the index of the level at each tick, where nearly
 *     all of a day's level changes happen (on the real-shaped day 99.8 % of
 *     them within 512 ticks of the best).  An add finds its level there
 *     by its price alone, a level opens or empties by setting or clearing
 *     its tick, and the next best is the next set bit: no hash, no list,
 *     no other level touched (level_window.h);
 *   - the list, sorted and doubly linked, of the levels worse than the
 *     window, each also in the level hash (level_list.h, level_hash.h).
 *   A side's window is a block of a pool the book sizes once; with none
 *   left, or with a level priced between two cents from a dollar up
 *   (Reg NMS forbids displaying one, a feed may still carry it) where it
 *   would fall inside the window, the side lists every level until it is
 *   empty again (list mode).
 *
 * Window mode keeps, for each side: every level on its grid whose rank is
 * within the window has its tick (bit and index) and is neither listed nor
 * hashed; every other level is listed and hashed, worse than the whole
 * window; a side with a level has one in its window.  book_check() checks
 * all of it.  The window's moves and the other rare cases are in
 * levels.c.
 */
#ifndef BOOK_LEVELS_H
#define BOOK_LEVELS_H

#include "book/level_window.h"

/* A zeroed record for a new level, or 0 when the pool is full. */
static inline uint32_t level_alloc(struct level_store *s, uint16_t locate,
				   unsigned int side, uint32_t price)
{
	struct book_level *l;
	uint32_t idx;

	if (s->used == s->cap)
		return 0;
	if (s->free_head) {
		idx = s->free_head;
		s->free_head = s->lv[idx].worse;
	} else {
		idx = s->fresh++;
	}
	s->used++;
	l = &s->lv[idx];
	l->shares = 0;
	l->orders = 0;
	l->taken = 0;
	l->better = 0;
	l->worse = 0;
	l->price = price;
	l->locate = locate;
	l->side = (uint8_t)side;
	return idx;
}

/* A new level at tick @i of the side's window, or 0 when the pool is full. */
static inline uint32_t level_new_in_window(struct level_store *s, struct book_side *sd,
					   uint16_t locate, unsigned int side,
					   uint32_t price, uint32_t i)
{
	uint32_t idx = level_alloc(s, locate, side, price);

	if (!idx)
		return 0;
	win_ids(s, sd)[win_slot(sd->base + i)] = idx;
	win_set(sd, i);
	sd->nlevels++;
	sd->off_cent += level_off_cent(price);
	if (!sd->best || level_better(side, price, sd->best_price)) {
		sd->best = idx;
		sd->best_price = price;
	}
	return idx;
}

/* levels.c: every case of level_get() and level_put() not inlined here. */
uint32_t level_get_cold(struct level_store *s, struct book_side *sd, uint16_t locate,
			unsigned int side, uint32_t price);
void level_put_listed(struct level_store *s, struct book_side *sd, struct book_level *l,
		      uint32_t idx);
void level_best_moved(struct level_store *s, struct book_side *sd, uint16_t locate,
		      unsigned int side, uint32_t next);

/*
 * Start loading what level_get() of (locate, side, price) reads in window
 * mode: the side's first line and the window slot of the price (of block
 * 0, unused, when the side has no window: harmless).
 */
static inline __attribute__((always_inline))
void level_prefetch(const struct level_store *s, uint16_t locate, unsigned int side,
		    uint32_t price)
{
	uint32_t k = (uint32_t)locate * 2 + side;

	__builtin_prefetch(&s->side[k]);
	__builtin_prefetch(&s->win[(size_t)s->block[k] * LEVEL_WINDOW +
				   win_slot(level_rank(side, price))]);
}

/*
 * The level of (locate, side, price), created empty if need be.  Returns
 * its index, or 0 when it is new and the pool is full.
 */
static inline uint32_t level_get(struct level_store *s, uint16_t locate,
				 unsigned int side, uint32_t price)
{
	struct book_side *sd = level_side(s, locate, side);

	if (__builtin_expect(*win_block(s, sd) != 0, 1)) {
		uint32_t r = level_rank(side, price), i = r - sd->base;

		if (i < LEVEL_WINDOW && level_on_grid(price)) {
			uint32_t idx = win_ids(s, sd)[win_slot(r)];

			return idx ? idx : level_new_in_window(s, sd, locate, side, price, i);
		}
	}
	return level_get_cold(s, sd, locate, side, price);
}

/* Remove the empty level @idx from its side; free it. */
static inline void level_put(struct level_store *s, uint32_t idx)
{
	struct book_level *l = &s->lv[idx];
	struct book_side *sd = level_side(s, l->locate, l->side);
	uint32_t r = level_rank(l->side, l->price), i = r - sd->base;

	if (*win_block(s, sd) && i < LEVEL_WINDOW) {
		win_ids(s, sd)[win_slot(r)] = 0;
		win_clear(sd, i);
		sd->nlevels--;
		sd->off_cent -= level_off_cent(l->price);
		if (idx == sd->best) {
			uint32_t j = win_next(sd, i + 1);

			if (j <= LEVEL_WINDOW / 2) {
				sd->best = win_level(s, sd, j);
				sd->best_price = level_rank_price(l->side, sd->base + j);
			} else {
				level_best_moved(s, sd, l->locate, l->side, j);
			}
		}
	} else {
		level_put_listed(s, sd, l, idx);
	}
	l->worse = s->free_head;
	s->free_head = idx;
	s->used--;
}

/* The live level of (locate, side, price), 0 when there is none. */
static inline uint32_t level_find(const struct level_store *s, uint16_t locate,
				  unsigned int side, uint32_t price)
{
	const struct book_side *sd = level_side(s, locate, side);
	uint32_t i = level_rank(side, price) - sd->base;

	if (*win_block(s, sd) && i < LEVEL_WINDOW && level_on_grid(price))
		return win_level(s, sd, i);
	return level_hash_find(s, locate, side, price);
}

/* The level after @idx on its side (toward the worse prices), 0 at the end. */
static inline uint32_t level_next(const struct level_store *s, uint32_t idx)
{
	const struct book_level *l = &s->lv[idx];
	const struct book_side *sd = level_side(s, l->locate, l->side);
	uint32_t i = level_rank(l->side, l->price) - sd->base, j;

	if (!*win_block(s, sd) || i >= LEVEL_WINDOW)
		return l->worse;
	j = win_next(sd, i + 1);
	return j < LEVEL_WINDOW ? win_level(s, sd, j) : sd->head;
}

#endif /* BOOK_LEVELS_H */
