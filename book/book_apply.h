/* SPDX-License-Identifier: MIT */
/*
 * The book's hot path: one ITCH message in, at most one print out.  Static
 * inline so that a decoder's loop (backtester, gateway, exchange simulator)
 * compiles it in place: a switch on the type byte, no function pointers.
 *
 * Rules (docs/book.md):
 *   A F  add (ref, side, shares, price) to the header locate's book
 *   E    execute shares at the resting order's price: print 'E'
 *   C    execute at the message's price: print 'C' if Printable = 'Y'
 *   X    cancel shares;  D delete;  U replace (same side and locate)
 *   P    print 'P';  Q print 'Q' if Shares > 0;  B counted, nothing undone
 * An order at 0 shares leaves the book (an add or replace of 0 shares
 * adds nothing).  Impossible events are counted and change nothing, except
 * an overfill, which removes the order, and a printable C on an unknown ref,
 * which still prints (header locate).
 */
#ifndef BOOK_BOOK_APPLY_H
#define BOOK_BOOK_APPLY_H

#include "book/book.h"
#include "proto/be.h"
#include "proto/itch.h"
#include "proto/proto_err.h"

#define BOOK_LIKELY(x)		__builtin_expect(!!(x), 1)
#define BOOK_UNLIKELY(x)	__builtin_expect(!!(x), 0)

/* Add a new order; @o is the empty slot order_probe() gave for @ref. */
static inline void book_insert(struct book *b, struct book_order *o, uint64_t ref,
			       uint16_t locate, unsigned int side,
			       uint32_t shares, uint32_t price)
{
	struct book_level *l;
	uint32_t idx;

	if (BOOK_UNLIKELY(!shares)) {
		b->cnt.zero_shares++;
		return;
	}
	if (BOOK_UNLIKELY(b->live == b->max_orders)) {
		b->cnt.book_full++;
		return;
	}
	idx = level_get(&b->levels, locate, side, price);
	if (BOOK_UNLIKELY(!idx)) {
		b->cnt.book_full++;
		return;
	}
	/* level_get() touches only the level tables: o is still ref's slot. */
	o->ref = ref;
	o->shares = shares;
	o->level = idx;
	l = &b->levels.lv[idx];
	l->shares += shares;
	l->orders++;
	if (++b->live > b->peak)
		b->peak = b->live;
}

/*
 * The feed took shares off @l: paper fills' taken shares stay at most what
 * is left (book/fill.h), so the feed's own reductions use up the shares
 * nobody took first.
 */
static inline void book_level_shrunk(struct book_level *l)
{
	if (BOOK_UNLIKELY(l->taken > l->shares))
		l->taken = (uint32_t)l->shares;
}

static inline void book_remove(struct book *b, struct book_order *o)
{
	struct book_level *l = &b->levels.lv[o->level];

	l->shares -= o->shares;
	if (--l->orders == 0)
		level_put(&b->levels, o->level);
	else
		book_level_shrunk(l);
	order_erase(&b->orders, o);
	b->live--;
}

/* Take @shares off the live order @o (E, C, X). */
static inline void book_take(struct book *b, struct book_order *o, uint32_t shares)
{
	if (BOOK_LIKELY(shares < o->shares)) {
		struct book_level *l = &b->levels.lv[o->level];

		o->shares -= shares;
		l->shares -= shares;
		book_level_shrunk(l);
		return;
	}
	if (shares > o->shares)
		b->cnt.overfill++;
	book_remove(b, o);
}

static inline int book_print(struct book *b, struct tape_print *out, uint64_t seq,
			     uint16_t locate, uint32_t price, uint64_t shares, char kind)
{
	out->seq = seq;
	out->shares = shares;
	out->price = price;
	out->locate = locate;
	out->kind = kind;
	b->cnt.prints++;
	return 1;
}

static inline void book_on_add(struct book *b, const uint8_t *m, uint16_t locate)
{
	uint64_t ref = be64_load(m + ITCH_A_OFF_ORDER_REF);
	struct book_order *o = order_probe(&b->orders, ref);
	uint8_t side = m[ITCH_A_OFF_SIDE];

	if (BOOK_UNLIKELY(o->level)) {
		b->cnt.dup_ref++;
		return;
	}
	if (BOOK_UNLIKELY(side != 'B' && side != 'S')) {
		b->cnt.bad_side++;
		return;
	}
	book_insert(b, o, ref, locate, side == 'B' ? BOOK_BID : BOOK_ASK,
		    be32_load(m + ITCH_A_OFF_SHARES), be32_load(m + ITCH_A_OFF_PRICE));
}

static inline int book_on_exec(struct book *b, const uint8_t *m, uint64_t seq,
			       struct tape_print *out)
{
	struct book_order *o = order_probe(&b->orders, be64_load(m + ITCH_E_OFF_ORDER_REF));
	uint32_t shares = be32_load(m + ITCH_E_OFF_SHARES);
	const struct book_level *l;

	if (BOOK_UNLIKELY(!o->level)) {
		b->cnt.unknown_ref++;
		return 0;
	}
	l = &b->levels.lv[o->level];
	book_print(b, out, seq, l->locate, l->price, shares, 'E');
	book_take(b, o, shares);
	return 1;
}

static inline int book_on_exec_price(struct book *b, const uint8_t *m, uint64_t seq,
				     uint16_t locate, struct tape_print *out)
{
	struct book_order *o = order_probe(&b->orders, be64_load(m + ITCH_E_OFF_ORDER_REF));
	uint32_t shares = be32_load(m + ITCH_E_OFF_SHARES);
	uint32_t price = be32_load(m + ITCH_C_OFF_PRICE);
	int printable = m[ITCH_C_OFF_PRINTABLE] == 'Y';

	if (BOOK_UNLIKELY(!o->level)) {
		b->cnt.unknown_ref++;
		/* The price is in the message; the locate is the header's. */
		return printable ? book_print(b, out, seq, locate, price, shares, 'C') : 0;
	}
	if (printable)
		book_print(b, out, seq, b->levels.lv[o->level].locate, price, shares, 'C');
	book_take(b, o, shares);
	return printable;
}

static inline void book_on_cancel(struct book *b, const uint8_t *m)
{
	struct book_order *o = order_probe(&b->orders, be64_load(m + ITCH_X_OFF_ORDER_REF));

	if (BOOK_UNLIKELY(!o->level)) {
		b->cnt.unknown_ref++;
		return;
	}
	book_take(b, o, be32_load(m + ITCH_X_OFF_SHARES));
}

static inline void book_on_delete(struct book *b, const uint8_t *m)
{
	struct book_order *o = order_probe(&b->orders, be64_load(m + ITCH_D_OFF_ORDER_REF));

	if (BOOK_UNLIKELY(!o->level)) {
		b->cnt.unknown_ref++;
		return;
	}
	book_remove(b, o);
}

static inline void book_on_replace(struct book *b, const uint8_t *m)
{
	uint64_t new_ref = be64_load(m + ITCH_U_OFF_NEW_REF);
	struct book_order *o = order_probe(&b->orders, be64_load(m + ITCH_U_OFF_ORIG_REF));
	const struct book_level *l;
	unsigned int side;
	uint16_t locate;

	if (BOOK_UNLIKELY(!o->level)) {
		b->cnt.unknown_ref++;
		return;
	}
	if (BOOK_UNLIKELY(order_probe(&b->orders, new_ref)->level)) {
		b->cnt.dup_ref++;
		return;
	}
	l = &b->levels.lv[o->level];
	side = l->side;
	locate = l->locate;
	book_remove(b, o);
	/* The removal shifted entries: probe again for the new ref's slot. */
	book_insert(b, order_probe(&b->orders, new_ref), new_ref, locate, side,
		    be32_load(m + ITCH_U_OFF_SHARES), be32_load(m + ITCH_U_OFF_PRICE));
}

/*
 * Apply one ITCH message of @len bytes (any type: the others are counted
 * and otherwise ignored) with sequence number @seq.  Returns 1 when it made
 * a print (written to @out), 0 when not, or PROTO_E_LENGTH /
 * PROTO_E_MSG_TYPE for a malformed block (counted in cnt.malformed, under
 * no type).
 */
static inline int book_apply(struct book *b, const uint8_t *m, uint16_t len,
			     uint64_t seq, struct tape_print *out)
{
	uint16_t locate;
	uint8_t type;

	if (BOOK_UNLIKELY(!len)) {
		b->cnt.malformed++;
		return PROTO_E_LENGTH;
	}
	type = m[ITCH_OFF_TYPE];
	if (BOOK_UNLIKELY(itch_msg_len[type] != len)) {
		b->cnt.malformed++;
		return itch_msg_len[type] ? PROTO_E_LENGTH : PROTO_E_MSG_TYPE;
	}
	b->cnt.by_type[type]++;
	locate = be16_load(m + ITCH_OFF_LOCATE);
	if (!b->tracked[locate])
		return 0;

	switch (type) {
	case 'A':
	case 'F':
		book_on_add(b, m, locate);
		return 0;
	case 'D':
		book_on_delete(b, m);
		return 0;
	case 'U':
		book_on_replace(b, m);
		return 0;
	case 'E':
		return book_on_exec(b, m, seq, out);
	case 'X':
		book_on_cancel(b, m);
		return 0;
	case 'C':
		return book_on_exec_price(b, m, seq, locate, out);
	case 'P':
		return book_print(b, out, seq, locate, be32_load(m + ITCH_P_OFF_PRICE),
				  be32_load(m + ITCH_P_OFF_SHARES), 'P');
	case 'Q': {
		uint64_t shares = be64_load(m + ITCH_Q_OFF_SHARES);

		if (!shares)
			return 0;
		return book_print(b, out, seq, locate, be32_load(m + ITCH_Q_OFF_PRICE),
				  shares, 'Q');
	}
	default:
		return 0;
	}
}

/*
 * Start loading the table slots a message will touch, so that by the time
 * book_apply() reaches it they are in cache: the order slot of its ref (and
 * the new ref of a U), and for an add its side and the window slot of its
 * price (book/levels.h).
 * Harmless on any bytes; meant to run a few messages ahead.
 *
 * Always inlined: gcc counts a prefetch as no side effect, so a function
 * made only of prefetches, left out of line, is found "pure" and every
 * call to it is deleted.
 */
static inline __attribute__((always_inline))
void book_prefetch(const struct book *b, const uint8_t *m, uint16_t len)
{
	uint8_t type;

	if (BOOK_UNLIKELY(!len))
		return;
	type = m[ITCH_OFF_TYPE];
	if (itch_msg_len[type] != len)
		return;
	switch (type) {
	case 'A':
	case 'F':
		order_prefetch(&b->orders, be64_load(m + ITCH_A_OFF_ORDER_REF));
		level_prefetch(&b->levels, be16_load(m + ITCH_OFF_LOCATE),
			       m[ITCH_A_OFF_SIDE] != 'B', be32_load(m + ITCH_A_OFF_PRICE));
		break;
	case 'U':
		order_prefetch(&b->orders, be64_load(m + ITCH_U_OFF_NEW_REF));
		/* fall through */
	case 'D':
	case 'E':
	case 'X':
	case 'C':
		order_prefetch(&b->orders, be64_load(m + ITCH_E_OFF_ORDER_REF));
		break;
	}
}

/*
 * Walk the whole frames of a BinaryFILE span (2-byte big-endian length,
 * message) with book_prefetch() running a few messages ahead: far enough
 * that a slot's cache miss is over when its message comes up, near enough
 * that the line is still there.  make bench-book measures the distance.
 */
#define BOOK_LOOKAHEAD	8

struct book_walk {
	const uint8_t *p;
	const uint8_t *ahead;
	const uint8_t *end;
};

static inline __attribute__((always_inline))
void book_walk_ahead(struct book_walk *w, const struct book *b)
{
	uint16_t len;

	if (w->end - w->ahead < 2)
		return;
	len = be16_load(w->ahead);
	if (w->end - w->ahead - 2 < len) {
		w->ahead = w->end;
		return;
	}
	book_prefetch(b, w->ahead + 2, len);
	w->ahead += 2 + len;
}

/* @ahead messages of look-ahead (0: no prefetching). */
static inline void book_walk_init_ahead(struct book_walk *w, const struct book *b,
					const uint8_t *p, size_t n, unsigned int ahead)
{
	w->p = w->ahead = p;
	w->end = p + n;
	for (unsigned int i = 0; i < ahead; i++)
		book_walk_ahead(w, b);
	if (!ahead)
		w->ahead = w->end;
}

static inline void book_walk_init(struct book_walk *w, const struct book *b,
				  const uint8_t *p, size_t n)
{
	book_walk_init_ahead(w, b, p, n, BOOK_LOOKAHEAD);
}

/* 1 with the next message, 0 at the end (or at a frame cut by the end). */
static inline int book_walk_next(struct book_walk *w, const struct book *b,
				 const uint8_t **msg, uint16_t *len)
{
	uint16_t n;

	if (w->end - w->p < 2)
		return 0;
	n = be16_load(w->p);
	if (w->end - w->p - 2 < n)
		return 0;
	*msg = w->p + 2;
	*len = n;
	w->p += 2 + n;
	book_walk_ahead(w, b);
	return 1;
}

#endif /* BOOK_BOOK_APPLY_H */
