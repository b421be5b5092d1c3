// SPDX-License-Identifier: MIT
/*
 * The book's slow self-check, for tests and the fuzzer: everything the hot
 * path keeps incrementally is recomputed from the live orders and compared.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "book/book.h"

struct tally {
	uint64_t shares;
	uint32_t orders;
	uint8_t seen;		/* reached from its side's list */
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

static int check_side(const struct book *b, uint16_t loc, unsigned int side,
		      struct tally *t, uint32_t *nlive, char *why, size_t len)
{
	const struct level_store *ls = &b->levels;
	const struct book_side *sd = level_side(ls, loc, side);
	uint32_t n = 0, prev = 0, off = 0;

	for (uint32_t i = sd->best; i; prev = i, i = ls->lv[i].worse) {
		const struct book_level *l = &ls->lv[i];

		if (i >= ls->fresh || t[i].seen || ++n > sd->nlevels)
			return bad(why, len, "locate %u side %u: list broken at level %u",
				   loc, side, i);
		t[i].seen = 1;
		off += level_off_cent(l->price);
		if (l->locate != loc || l->side != side)
			return bad(why, len, "level %u is locate %u side %u, listed under %u/%u",
				   i, l->locate, l->side, loc, side);
		if (l->better != prev)
			return bad(why, len, "level %u: back link %u, expected %u", i,
				   l->better, prev);
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
	}
	if (n != sd->nlevels || sd->worst != prev)
		return bad(why, len, "locate %u side %u: %u levels listed, count %u, "
			   "worst %u, last %u", loc, side, n, sd->nlevels, sd->worst, prev);
	if (n && (sd->best_price != ls->lv[sd->best].price ||
		  sd->worst_price != ls->lv[prev].price))
		return bad(why, len, "locate %u side %u: ends kept at %u and %u, levels "
			   "priced %u and %u", loc, side, sd->best_price, sd->worst_price,
			   ls->lv[sd->best].price, ls->lv[prev].price);
	if (off != sd->off_cent)
		return bad(why, len, "locate %u side %u: %u levels off a whole cent, "
			   "counted %u", loc, side, off, sd->off_cent);
	*nlive += n;
	return 0;
}

static int check_levels(const struct book *b, unsigned int flags, struct tally *t,
			char *why, size_t len)
{
	const struct level_store *ls = &b->levels;
	uint32_t nlive = 0, nhash = 0, nfree = 0;

	/* Each side that holds a live level, once; or every side. */
	for (uint32_t i = 1; i < ls->fresh; i++) {
		const struct book_level *l = &ls->lv[i];

		if (t[i].orders && !t[i].seen &&
		    check_side(b, l->locate, l->side, t, &nlive, why, len))
			return -1;
	}
	if (flags & BOOK_CHECK_ALL_SIDES) {
		for (uint32_t loc = 0; loc < BOOK_LOCATES; loc++)
			for (unsigned int s = BOOK_BID; s <= BOOK_ASK; s++) {
				const struct book_side *sd = level_side(ls, (uint16_t)loc, s);

				if (sd->best && !t[sd->best].seen &&
				    check_side(b, (uint16_t)loc, s, t, &nlive, why, len))
					return -1;
				if (!sd->best && (sd->worst || sd->nlevels))
					return bad(why, len, "locate %u side %u: empty with "
						   "worst %u, %u levels", loc, s, sd->worst,
						   sd->nlevels);
			}
	}
	for (uint32_t i = 1; i < ls->fresh; i++)
		if (t[i].orders && !t[i].seen)
			return bad(why, len, "level %u holds %u orders but is in no list",
				   i, t[i].orders);
	if (nlive != ls->used)
		return bad(why, len, "%u levels in the lists, %u in use", nlive, ls->used);

	for (uint64_t h = 0; h <= ls->hmask; h++) {
		const struct level_slot *s = &ls->hash[h];
		const struct book_level *l;
		uint64_t i;

		if (!s->level)
			continue;
		nhash++;
		l = &ls->lv[s->level];
		if (s->level >= ls->fresh || !t[s->level].seen ||
		    s->key != level_key(l->locate, l->side, l->price))
			return bad(why, len, "level hash slot %llu: level %u, stale or wrong key",
				   (unsigned long long)h, s->level);
		for (i = level_home(ls, s->key); ls->hash[i].level; i = (i + 1) & ls->hmask)
			if (ls->hash[i].key == s->key)
				break;
		if (i != h)
			return bad(why, len, "level %u (price %u) is not found by a lookup",
				   s->level, l->price);
	}
	if (nhash != ls->used)
		return bad(why, len, "%u levels hashed, %u in use", nhash, ls->used);

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
