// SPDX-License-Identifier: MIT
/* Paper fills: IOC limit orders against the published book or the last trade. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "netns/exsim/fill.h"
#include "proto/be.h"

int fill_init(struct fill_book *b, uint32_t max_shares, struct bookfill *bf)
{
	memset(b, 0, sizeof(*b));
	b->sym = calloc(FILL_LOCATES, sizeof(*b->sym));
	b->listed = calloc(FILL_LOCATES, sizeof(*b->listed));
	if (!b->sym || !b->listed || stock_dir_init(&b->dir)) {
		free(b->sym);
		free(b->listed);
		b->sym = NULL;
		b->listed = NULL;
		return -ENOMEM;
	}
	b->max_shares = max_shares;
	b->bf = bf;
	return 0;
}

void fill_destroy(struct fill_book *b)
{
	if (!b->sym)
		return;
	stock_dir_destroy(&b->dir);
	free(b->sym);
	free(b->listed);
	b->sym = NULL;
	b->listed = NULL;
}

void fill_list(struct fill_book *b, uint16_t locate, const char *stock)
{
	struct fill_symbol *s = &b->sym[locate];

	if (!s->listed) {
		s->listed = true;
		b->listed[b->nlisted++] = locate;
	}
	memcpy(s->stock, stock, ITCH_SYMBOL_LEN);
	stock_dir_set(&b->dir, locate, stock);
}

void fill_on_publish(void *book, uint64_t seq, const uint8_t *m, uint16_t len)
{
	struct fill_book *b = book;
	struct tape_print p;
	uint8_t type;

	if (!len)
		return;
	type = m[ITCH_OFF_TYPE];
	if (type == 'S' && len == ITCH_LEN_S) {
		if (m[ITCH_S_OFF_EVENT] == 'Q')
			b->open = true;
		else if (m[ITCH_S_OFF_EVENT] == 'M')
			b->open = false;
	} else if (type == 'R' && len == ITCH_LEN_R) {
		fill_list(b, be16_load(m + ITCH_OFF_LOCATE), (const char *)m + ITCH_R_OFF_STOCK);
	}
	if (b->bf) {
		if (bookfill_apply(b->bf, m, len, seq, &p) == 1)
			b->sym[p.locate].last = p.price;
	} else if (type == 'P' && len == ITCH_LEN_P) {
		b->sym[be16_load(m + ITCH_OFF_LOCATE)].last = be32_load(m + ITCH_P_OFF_PRICE);
	}
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
	if (*locate < 0 || !b->sym[*locate].listed) {
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

/* What the order takes, into r->exec: the book's levels or the last trade. */
static void match(struct fill_book *b, const struct ouch_enter_order *o, bool buy,
		  struct fill_result *r)
{
	const struct fill_symbol *s = &b->sym[r->locate];

	if (b->bf) {
		struct book_fill f = book_fill(&b->bf->book, r->locate, buy ? 'B' : 'S',
					       o->price, o->shares, r->exec,
					       BOOKFILL_MAX_LEVELS);

		r->filled = f.filled;
		r->nexec = f.nexec;
	} else if (s->last && (buy ? o->price >= s->last : o->price <= s->last)) {
		r->exec[0] = (struct book_fill_exec){ .price = s->last, .shares = o->shares };
		r->nexec = 1;
		r->filled = o->shares;
	} else if (!s->last) {
		b->n.no_price++;
	}
	for (unsigned int i = 0; i < r->nexec; i++)
		r->value += (uint64_t)r->exec[i].price * r->exec[i].shares;
	r->canceled = o->shares - r->filled;
}

void fill_order(struct fill_book *b, const struct ouch_enter_order *o,
		struct fill_result *r)
{
	bool buy = o->side == 'B';
	int64_t qty, value, pos, cash, mark;
	struct fill_symbol *s;
	int locate;

	memset(r, 0, sizeof(*r));
	r->reason = check(b, o, &locate);
	r->locate = (uint16_t)locate;
	if (r->reason)
		goto rejected;

	s = &b->sym[locate];
	match(b, o, buy, r);
	if (!r->nexec) {
		r->outcome = FILL_CANCELED;
		r->reason = FILL_CANCEL_IOC;
		b->n.canceled++;
		return;
	}

	/* Book it unless a running total (or the PnL) would overflow. */
	qty = buy ? (int64_t)r->filled : -(int64_t)r->filled;
	value = (int64_t)r->value;
	mark = s->last ? s->last : (int64_t)r->exec[r->nexec - 1].price;
	if (__builtin_add_overflow(s->position, qty, &pos) ||
	    __builtin_add_overflow(s->cash, buy ? -value : value, &cash) ||
	    __builtin_mul_overflow(pos, mark, &value) ||
	    __builtin_add_overflow(cash, value, &value)) {
		b->n.overflow++;
		if (b->bf)
			book_fill_undo(&b->bf->book, r->exec, r->nexec);
		r->reason = FILL_REJ_OTHER;
		r->nexec = 0;
		r->filled = r->canceled = 0;
		r->value = 0;
		goto rejected;
	}
	s->position = pos;
	s->cash = cash;
	if (buy)
		s->bought += r->filled;
	else
		s->sold += r->filled;
	s->fills += r->nexec;
	b->n.executed++;
	b->n.executions += r->nexec;
	if (r->canceled) {
		b->n.partial++;
		r->reason = FILL_CANCEL_IOC;
	}
	r->outcome = FILL_EXECUTED;
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
