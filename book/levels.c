// SPDX-License-Identifier: MIT
/*
 * The levels' rare cases (levels.h): a side's first level, a new best
 * above the window, levels worse than the window, a level off its grid,
 * a best that empties the window or recedes past its middle.
 */
#include "book/levels.h"

/* The first rank of a window that keeps LEVEL_MARGIN ticks above rank @r. */
static uint32_t window_start(uint32_t r)
{
	return r > LEVEL_MARGIN ? r - LEVEL_MARGIN : 0;
}

/* A new level, listed (and hashed); in list mode the best is the list's head. */
static uint32_t new_listed(struct level_store *s, struct book_side *sd, uint16_t locate,
			   unsigned int side, uint32_t price)
{
	uint32_t idx = level_alloc(s, locate, side, price);

	if (!idx)
		return 0;
	level_hash_add(s, idx, level_key(locate, side, price));
	sd->nlevels++;
	sd->off_cent += level_off_cent(price);
	level_list_link(s, sd, idx);
	if (!*win_block(s, sd)) {
		sd->best = sd->head;
		sd->best_price = s->lv[sd->head].price;
	}
	return idx;
}

uint32_t level_get_cold(struct level_store *s, struct book_side *sd, uint16_t locate,
			unsigned int side, uint32_t price)
{
	uint32_t r = level_rank(side, price), i, idx;

	if (!sd->nlevels) {
		if (s->used == s->cap)
			return 0;
		if (level_on_grid(price) && win_open(s, sd, window_start(r)))
			return level_new_in_window(s, sd, locate, side, price, r - sd->base);
		return new_listed(s, sd, locate, side, price);
	}
	if (*win_block(s, sd)) {
		i = r - sd->base;
		if ((int32_t)i < 0 && level_on_grid(price)) {
			/* A new best above the window. */
			if (s->used == s->cap)
				return 0;
			win_up(s, sd, locate, side, sd->base - window_start(r));
			return level_new_in_window(s, sd, locate, side, price, r - sd->base);
		}
		if ((int32_t)i < (int32_t)LEVEL_WINDOW) {
			/* Off its grid where the window would need its tick. */
			win_to_list(s, sd, locate, side);
			return new_listed(s, sd, locate, side, price);
		}
	}
	idx = level_hash_find(s, locate, side, price);
	return idx ? idx : new_listed(s, sd, locate, side, price);
}

void level_put_listed(struct level_store *s, struct book_side *sd, struct book_level *l,
		      uint32_t idx)
{
	level_unhash(s, idx, level_key(l->locate, l->side, l->price));
	sd->nlevels--;
	sd->off_cent -= level_off_cent(l->price);
	level_list_unlink(s, sd, l);
	if (!*win_block(s, sd)) {
		sd->best = sd->head;
		sd->best_price = sd->head ? s->lv[sd->head].price : 0;
	}
}

/*
 * The best level left the window, whose next level is at tick @next
 * (LEVEL_WINDOW: none): follow it down past the middle, take in the list's
 * best when the window emptied, give the block back when the side did.
 */
void level_best_moved(struct level_store *s, struct book_side *sd, uint16_t locate,
		      unsigned int side, uint32_t next)
{
	uint32_t i;

	if (next == LEVEL_WINDOW && !sd->head) {
		win_close(s, sd);
		sd->best = 0;
		return;
	}
	if (next == LEVEL_WINDOW)
		win_down(s, sd, locate, side,
			 window_start(level_rank(side, s->lv[sd->head].price)) - sd->base);
	else
		win_down(s, sd, locate, side, next - LEVEL_MARGIN);
	if (!*win_block(s, sd)) {
		/* A level off its grid came in: list mode. */
		sd->best = sd->head;
		sd->best_price = s->lv[sd->head].price;
		return;
	}
	i = win_next(sd, 0);
	sd->best = win_level(s, sd, i);
	sd->best_price = level_rank_price(side, sd->base + i);
}
