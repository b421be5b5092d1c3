// SPDX-License-Identifier: MIT
/* Paper fills: IOC limit orders against the last published trade price. */
#include <errno.h>
#include <string.h>

#include "netns/exsim/fill.h"

int fill_init(struct fill_book *b, const char (*symbols)[ITCH_SYMBOL_LEN],
	      unsigned int nsym, uint32_t max_shares)
{
	unsigned int i;

	memset(b, 0, sizeof(*b));
	if (stock_dir_init(&b->dir))
		return -ENOMEM;
	b->nsym = nsym;
	b->max_shares = max_shares;
	for (i = 0; i < nsym; i++) {
		memcpy(b->sym[i].stock, symbols[i], ITCH_SYMBOL_LEN);
		stock_dir_set(&b->dir, (uint16_t)(i + 1), symbols[i]);
	}
	return 0;
}

void fill_destroy(struct fill_book *b)
{
	stock_dir_destroy(&b->dir);
}

/*
 * The first reason to reject @o, counted, or 0 when it is acceptable;
 * *locate is set once the symbol is known.
 */
static char check(struct fill_book *b, const struct ouch_enter_order *o,
		  int *locate)
{
	struct fill_counters *n = &b->n;
	char side = o->side;

	*locate = 0;
	if (!b->open) {
		n->closed++;
		return FILL_REJ_CLOSED;
	}
	*locate = stock_dir_locate(&b->dir, o->stock);
	if (*locate < 1 || (unsigned int)*locate > b->nsym) {
		*locate = 0;
		n->unknown_symbol++;
		return FILL_REJ_SYMBOL;
	}
	if (side != 'B' && side != 'S' && side != 'T' && side != 'E') {
		n->bad_side++;
		return FILL_REJ_OTHER;
	}
	if (o->tif != OUCH_TIF_IOC) {
		n->bad_tif++;
		return FILL_REJ_OTHER;
	}
	if (o->shares == 0 || o->shares > b->max_shares) {
		n->bad_shares++;
		return FILL_REJ_SHARES;
	}
	if (o->price == 0 || o->price > FILL_MAX_PRICE) {
		n->bad_price++;
		return FILL_REJ_PRICE;
	}
	return 0;
}

void fill_order(struct fill_book *b, const struct ouch_enter_order *o,
		struct fill_result *r)
{
	bool buy = o->side == 'B';
	int64_t qty, value, pos, cash;
	struct fill_symbol *s;
	int locate;

	memset(r, 0, sizeof(*r));
	r->reason = check(b, o, &locate);
	r->locate = (uint16_t)locate;
	if (r->reason)
		goto rejected;

	s = &b->sym[locate - 1];
	if (!s->last)
		b->n.no_price++;
	if (!s->last || (buy ? o->price < s->last : o->price > s->last)) {
		r->outcome = FILL_CANCELED;
		r->reason = FILL_CANCEL_IOC;
		r->shares = o->shares;
		b->n.canceled++;
		return;
	}

	/* Book it unless a running total (or the PnL) would overflow. */
	qty = buy ? (int64_t)o->shares : -(int64_t)o->shares;
	value = (int64_t)s->last * (int64_t)o->shares;
	if (__builtin_add_overflow(s->position, qty, &pos) ||
	    __builtin_add_overflow(s->cash, buy ? -value : value, &cash) ||
	    __builtin_mul_overflow(pos, (int64_t)s->last, &value) ||
	    __builtin_add_overflow(cash, value, &value)) {
		b->n.overflow++;
		r->reason = FILL_REJ_OTHER;
		goto rejected;
	}
	s->position = pos;
	s->cash = cash;
	if (buy)
		s->bought += o->shares;
	else
		s->sold += o->shares;
	s->fills++;
	b->n.executed++;
	r->outcome = FILL_EXECUTED;
	r->price = s->last;
	r->shares = o->shares;
	return;

rejected:
	r->outcome = FILL_REJECTED;
	b->n.rejected++;
}

int64_t fill_pnl(const struct fill_symbol *s)
{
	/* 128-bit: the last price may have moved since the fill was booked. */
	__int128 pnl = (__int128)s->cash + (__int128)s->position * s->last;

	return pnl > INT64_MAX ? INT64_MAX : pnl < INT64_MIN ? INT64_MIN : (int64_t)pnl;
}
