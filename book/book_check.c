// SPDX-License-Identifier: MIT
/*
 * The book's slow self-check, for tests and the fuzzer: everything the hot
 * path keeps incrementally is recomputed from the live orders and compared.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "book/book.h"

/* What the sides hold, summed over the sides checked. */
struct side_sums {
	uint32_t live, listed, held;	/* levels, of them listed; window blocks */
};

struct tally {
	uint64_t shares;
	uint32_t orders;
	uint8_t seen;		/* reached in its side's order */
};

static int bad(char *why, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int bad(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return -1;
}

static int check_orders(const struct book *b, struct tally *t, char *why, size_t len)
{
	const struct order_table *ot = &b->orders;
	const struct level_store *ls = &b->levels;
	uint64_t live = 0;

	for (uint64_t i = 0; i <= ot->mask; i++) {
		const struct book_order *o = &ot->slot[i];

		if (!o->level)
			continue;
		live++;
		if (o->level >= ls->fresh)
			return bad(why, len, "order %llu: level %u was never allocated",
				   (unsigned long long)o->ref, o->level);
		if (!o->shares)
			return bad(why, len, "order %llu: live with 0 shares",
				   (unsigned long long)o->ref);
		if (order_probe(ot, o->ref) != o)
			return bad(why, len, "order %llu in slot %llu is not found by a lookup",
				   (unsigned long long)o->ref, (unsigned long long)i);
		t[o->level].shares += o->shares;
		t[o->level].orders++;
	}
	if (live != b->live)
		return bad(why, len, "%llu orders in the table, live count %llu",
			   (unsigned long long)live, (unsigned long long)b->live);
	if (b->live > b->peak || b->live > b->max_orders)
		return bad(why, len, "live %llu above peak %llu or capacity %u",
			   (unsigned long long)b->live, (unsigned long long)b->peak,
			   b->max_orders);
	return 0;
}

static unsigned int window_bits(const struct book_side *sd)
{
	unsigned int n = 0;

	for (unsigned int w = 0; w < LEVEL_WINDOW_WORDS; w++)
		n += (unsigned int)__builtin_popcountll(sd->bits[w]);
	return n;
}

/* The side's list on its own: links both ways, ends, only listed levels. */
static int check_list(const struct level_store *ls, const struct book_side *sd, uint16_t loc,
		      unsigned int side, uint32_t max, uint32_t *n, char *why, size_t len)
{
	uint32_t prev = 0;

	*n = 0;
	for (uint32_t i = sd->head; i; prev = i, i = ls->lv[i].worse) {
		if (i >= ls->fresh || ++*n > max)
			return bad(why, len, "locate %u side %u: list broken at level %u",
				   loc, side, i);
		if (ls->lv[i].better != prev)
			return bad(why, len, "level %u: back link %u, expected %u", i,
				   ls->lv[i].better, prev);
		if (!level_listed(ls, sd, side, ls->lv[i].price))
			return bad(why, len, "locate %u side %u: level %u (price %u) listed "
				   "inside the window", loc, side, i, ls->lv[i].price);
	}
	if (sd->tail != prev)
		return bad(why, len, "locate %u side %u: list ends at %u, tail kept %u", loc,
			   side, prev, sd->tail);
	return 0;
}

/* The window's ticks: a level's index exactly where its bit is set. */
/* No byte of @p[0..n) set (a compare of the library's: the check runs per message). */
static int all_zero(const void *p, size_t n)
{
	static const uint8_t zero[LEVEL_WINDOW * sizeof(uint32_t)];

	return !memcmp(p, zero, n);
}

/* The window's slots: a level's index exactly where its bit is set. */
static int check_window(const struct level_store *ls, const struct book_side *sd,
			uint16_t loc, unsigned int side, char *why, size_t len)
{
	const uint32_t *ids = win_ids(ls, sd);
	uint32_t from = 0;

	if (*win_block(ls, sd) > ls->blocks)
		return bad(why, len, "locate %u side %u: window block %u of %u", loc, side,
			   *win_block(ls, sd), ls->blocks);
	for (uint32_t w = 0; w <= LEVEL_WINDOW_WORDS; w++) {
		uint64_t m = w < LEVEL_WINDOW_WORDS ? sd->bits[w] : 1;

		for (; m; m &= m - 1) {
			uint32_t k = w * 64 + (uint32_t)__builtin_ctzll(m), i, id;

			if (!all_zero(ids + from, (k - from) * sizeof(*ids)))
				return bad(why, len, "locate %u side %u: a level in window slots "
					   "%u..%u, whose bits are clear", loc, side, from, k);
			from = k + 1;
			if (k == LEVEL_WINDOW)
				break;
			i = (k + LEVEL_WINDOW - win_slot(sd->base)) % LEVEL_WINDOW;
			id = ids[k];
			if (!id || id >= ls->fresh ||
			    ls->lv[id].price != level_rank_price(side, sd->base + i))
				return bad(why, len, "locate %u side %u: window tick %u holds "
					   "level %u, not its price's", loc, side, i, id);
		}
	}
	return 0;
}

static int check_side(const struct book *b, uint16_t loc, unsigned int side,
		      struct tally *t, struct side_sums *sum, char *why, size_t len)
{
	const struct level_store *ls = &b->levels;
	const struct book_side *sd = level_side(ls, loc, side);
	uint32_t n = 0, prev = 0, off = 0, inwin = 0, listed;

	if (*win_block(ls, sd) && check_window(ls, sd, loc, side, why, len))
		return -1;
	/* Every level in order, from the best: window, then list. */
	for (uint32_t i = sd->best; i; prev = i, i = level_next(ls, i)) {
		const struct book_level *l = &ls->lv[i];

		if (i >= ls->fresh || t[i].seen || ++n > sd->nlevels)
			return bad(why, len, "locate %u side %u: order broken at level %u",
				   loc, side, i);
		t[i].seen = 1;
		off += level_off_cent(l->price);
		if (l->locate != loc || l->side != side)
			return bad(why, len, "level %u is locate %u side %u, found under %u/%u",
				   i, l->locate, l->side, loc, side);
		if (prev && !level_better(side, ls->lv[prev].price, l->price))
			return bad(why, len, "locate %u side %u: price %u after %u", loc,
				   side, l->price, ls->lv[prev].price);
		if (l->taken > l->shares)
			return bad(why, len, "locate %u side %u price %u: %u shares taken of %llu",
				   loc, side, l->price, l->taken, (unsigned long long)l->shares);
		if (!l->orders || l->orders != t[i].orders || l->shares != t[i].shares)
			return bad(why, len,
				   "locate %u side %u price %u: %llu shares in %u orders, "
				   "recount %llu in %u", loc, side, l->price,
				   (unsigned long long)l->shares, l->orders,
				   (unsigned long long)t[i].shares, t[i].orders);
		if (level_listed(ls, sd, side, l->price)) {
			if (level_hash_find(ls, loc, side, l->price) != i)
				return bad(why, len, "level %u (price %u) is not found by a lookup",
					   i, l->price);
		} else {
			inwin++;
			if (!level_on_grid(l->price))
				return bad(why, len, "locate %u side %u: price %u off its grid "
					   "in the window", loc, side, l->price);
		}
	}
	if (n != sd->nlevels)
		return bad(why, len, "locate %u side %u: %u levels in order, count %u",
			   loc, side, n, sd->nlevels);
	if (n && sd->best_price != ls->lv[sd->best].price)
		return bad(why, len, "locate %u side %u: best kept at %u, its level priced %u",
			   loc, side, sd->best_price, ls->lv[sd->best].price);
	if (off != sd->off_cent)
		return bad(why, len, "locate %u side %u: %u levels off a whole cent, "
			   "counted %u", loc, side, off, sd->off_cent);
	if (window_bits(sd) != inwin)
		return bad(why, len, "locate %u side %u: %u window bits for %u levels", loc,
			   side, window_bits(sd), inwin);
	if (check_list(ls, sd, loc, side, n, &listed, why, len))
		return -1;
	if (listed + inwin != n)
		return bad(why, len, "locate %u side %u: %u listed and %u in the window of "
			   "%u levels", loc, side, listed, inwin, n);
	if (*win_block(ls, sd) && !inwin)
		return bad(why, len, "locate %u side %u: window of %u levels empty", loc,
			   side, n);
	sum->live += n;
	sum->listed += listed;
	sum->held += *win_block(ls, sd) != 0;
	return 0;
}

static int check_levels(const struct book *b, unsigned int flags, struct tally *t,
			char *why, size_t len)
{
	const struct level_store *ls = &b->levels;
	struct side_sums sum = { 0 };
	uint32_t nhash = 0, nfree = 0, nblocks = 0;

	/* Each side that holds a live level, once; or every side. */
	for (uint32_t i = 1; i < ls->fresh; i++) {
		const struct book_level *l = &ls->lv[i];

		if (t[i].orders && !t[i].seen &&
		    check_side(b, l->locate, l->side, t, &sum, why, len))
			return -1;
	}
	if (flags & BOOK_CHECK_ALL_SIDES) {
		for (uint32_t loc = 0; loc < BOOK_LOCATES; loc++)
			for (unsigned int s = BOOK_BID; s <= BOOK_ASK; s++) {
				const struct book_side *sd = level_side(ls, (uint16_t)loc, s);

				if (sd->best && !t[sd->best].seen &&
				    check_side(b, (uint16_t)loc, s, t, &sum, why, len))
					return -1;
				if (!sd->best && (sd->head || sd->tail || sd->nlevels ||
						  sd->off_cent || *win_block(ls, sd) ||
						  !all_zero(sd->bits, sizeof(sd->bits))))
					return bad(why, len, "locate %u side %u: empty with "
						   "list %u..%u, %u levels, %u window bits, "
						   "block %u", loc, s, sd->head, sd->tail,
						   sd->nlevels, window_bits(sd),
						   *win_block(ls, sd));
			}
	}
	for (uint32_t i = 1; i < ls->fresh; i++)
		if (t[i].orders && !t[i].seen)
			return bad(why, len, "level %u holds %u orders but is in no side's order",
				   i, t[i].orders);
	if (sum.live != ls->used)
		return bad(why, len, "%u levels in the sides, %u in use", sum.live, ls->used);

	for (uint64_t h = 0; h <= ls->hmask; h++) {
		const struct level_slot *s = &ls->hash[h];
		const struct book_level *l;
		uint64_t i;

		if (!s->level)
			continue;
		nhash++;
		l = &ls->lv[s->level];
		if (s->level >= ls->fresh || !t[s->level].seen ||
		    s->key != level_key(l->locate, l->side, l->price) ||
		    !level_listed(ls, level_side(ls, l->locate, l->side), l->side, l->price))
			return bad(why, len, "level hash slot %llu: level %u, stale, wrong key "
				   "or in a window", (unsigned long long)h, s->level);
		for (i = level_home(ls, s->key); ls->hash[i].level; i = (i + 1) & ls->hmask)
			if (ls->hash[i].key == s->key)
				break;
		if (i != h)
			return bad(why, len, "level %u (price %u) is not found by a lookup",
				   s->level, l->price);
	}
	if (nhash != sum.listed)
		return bad(why, len, "%u levels hashed, %u listed", nhash, sum.listed);
	for (uint32_t i = ls->free_block; i; i = ls->win[(size_t)i * LEVEL_WINDOW])
		if (i > ls->blocks || ++nblocks > ls->blocks)
			return bad(why, len, "window pool's free list broken at block %u", i);
	if (nblocks + sum.held != ls->blocks)
		return bad(why, len, "%u window blocks free, %u held, of %u", nblocks,
			   sum.held, ls->blocks);

	for (uint32_t i = ls->free_head; i; i = ls->lv[i].worse) {
		if (i >= ls->fresh || t[i].seen || ++nfree > ls->fresh)
			return bad(why, len, "free list broken at level %u", i);
	}
	if (nfree + ls->used != ls->fresh - 1)
		return bad(why, len, "%u free + %u used levels, %u allocated", nfree,
			   ls->used, ls->fresh - 1);
	return 0;
}

int book_check(const struct book *b, unsigned int flags, char *why, size_t len)
{
	struct tally *t = calloc(b->levels.fresh, sizeof(*t));
	int ret;

	if (!t)
		return bad(why, len, "out of memory for the check");
	ret = check_orders(b, t, why, len);
	if (!ret)
		ret = check_levels(b, flags, t, why, len);
	free(t);
	return ret;
}
