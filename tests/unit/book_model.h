/* SPDX-License-Identifier: MIT */
/*
 * A reference model of the book and the tape for tests and the fuzzer: the
 * contract (docs/book.md) written the plain way.  Every message
 * is decoded with the proto codec (not the book's own field loads), live
 * orders sit in a chained hash map, and the levels are recomputed when
 * asked by sorting the live orders.  Slow and obviously right.
 */
#ifndef TESTS_UNIT_BOOK_MODEL_H
#define TESTS_UNIT_BOOK_MODEL_H

#include <stdint.h>
#include <stdlib.h>

#include "book/book.h"
#include "proto/itch.h"

#ifndef M_BUCKETS
#define M_BUCKETS 65536
#endif

struct m_order {
	uint64_t ref;
	uint16_t locate;
	char side;
	uint32_t price;
	uint32_t shares;
	struct m_order *next;
};

struct model {
	struct m_order *bucket[M_BUCKETS];
	uint64_t live, peak, cap;
	uint64_t by_type[256];
	uint64_t malformed, dup_ref, unknown_ref, overfill, book_full, bad_side, zero_shares;
};

static inline struct m_order **m_slot(struct model *m, uint64_t ref)
{
	struct m_order **p = &m->bucket[ref % M_BUCKETS];

	while (*p && (*p)->ref != ref)
		p = &(*p)->next;
	return p;
}

static inline void m_insert(struct model *m, uint64_t ref, uint16_t loc, char side,
		     uint32_t price, uint32_t shares)
{
	struct m_order *o;

	if (!shares) {
		m->zero_shares++;
		return;
	}
	if (m->live == m->cap) {
		m->book_full++;
		return;
	}
	o = malloc(sizeof(*o));
	if (!o)
		abort();
	*o = (struct m_order){ ref, loc, side, price, shares, m->bucket[ref % M_BUCKETS] };
	m->bucket[ref % M_BUCKETS] = o;
	if (++m->live > m->peak)
		m->peak = m->live;
}

static inline void m_remove(struct model *m, struct m_order **p)
{
	struct m_order *o = *p;

	*p = o->next;
	free(o);
	m->live--;
}

static inline void m_take(struct model *m, struct m_order **p, uint32_t shares)
{
	if (shares > (*p)->shares)
		m->overfill++;
	if (shares >= (*p)->shares)
		m_remove(m, p);
	else
		(*p)->shares -= shares;
}

static inline int m_print(struct tape_print *out, uint64_t seq, uint16_t loc, uint32_t price,
		   uint64_t shares, char kind)
{
	*out = (struct tape_print){ .seq = seq, .locate = loc, .price = price,
				    .shares = shares, .kind = kind };
	return 1;
}

static inline int m_apply(struct model *m, const uint8_t *b, uint16_t len, uint64_t seq,
		   struct tape_print *out)
{
	struct itch_msg msg;
	struct m_order **p;

	if (!len || itch_msg_len[b[0]] != len) {
		m->malformed++;
		return -1;
	}
	m->by_type[b[0]]++;
	if (itch_decode(b, len, &msg) < 0)
		return 0;		/* a type the book ignores */
	switch (msg.type) {
	case 'A':
	case 'F':
		if (*m_slot(m, msg.a.order_ref))
			m->dup_ref++;
		else if (msg.a.side != 'B' && msg.a.side != 'S')
			m->bad_side++;
		else
			m_insert(m, msg.a.order_ref, msg.locate, msg.a.side, msg.a.price,
				 msg.a.shares);
		return 0;
	case 'E':
		p = m_slot(m, msg.e.order_ref);
		if (!*p) {
			m->unknown_ref++;
			return 0;
		}
		m_print(out, seq, (*p)->locate, (*p)->price, msg.e.shares, 'E');
		m_take(m, p, msg.e.shares);
		return 1;
	case 'C':
		p = m_slot(m, msg.e.order_ref);
		if (!*p) {
			m->unknown_ref++;
			if (msg.e.printable == 'Y')
				return m_print(out, seq, msg.locate, msg.e.price, msg.e.shares, 'C');
			return 0;
		}
		if (msg.e.printable == 'Y')
			m_print(out, seq, (*p)->locate, msg.e.price, msg.e.shares, 'C');
		m_take(m, p, msg.e.shares);
		return msg.e.printable == 'Y';
	case 'X':
		p = m_slot(m, msg.x.order_ref);
		if (!*p)
			m->unknown_ref++;
		else
			m_take(m, p, msg.x.shares);
		return 0;
	case 'D':
		p = m_slot(m, msg.d.order_ref);
		if (!*p)
			m->unknown_ref++;
		else
			m_remove(m, p);
		return 0;
	case 'U': {
		struct m_order orig;

		p = m_slot(m, msg.u.orig_ref);
		if (!*p) {
			m->unknown_ref++;
			return 0;
		}
		if (*m_slot(m, msg.u.new_ref)) {
			m->dup_ref++;
			return 0;
		}
		orig = **p;
		m_remove(m, p);
		m_insert(m, msg.u.new_ref, orig.locate, orig.side, msg.u.price, msg.u.shares);
		return 0;
	}
	case 'P':
		return m_print(out, seq, msg.locate, msg.p.price, msg.p.shares, 'P');
	case 'Q':
		if (!msg.q.shares)
			return 0;
		return m_print(out, seq, msg.locate, msg.q.price, msg.q.shares, 'Q');
	}
	return 0;
}

/* Forget every order (the counters stay). */
static inline void m_free(struct model *m)
{
	for (size_t i = 0; i < M_BUCKETS; i++)
		while (m->bucket[i])
			m_remove(m, &m->bucket[i]);
}

static inline int cmp_order(const void *pa, const void *pb)
{
	const struct m_order *a = *(const struct m_order *const *)pa;
	const struct m_order *b = *(const struct m_order *const *)pb;

	if (a->locate != b->locate)
		return a->locate < b->locate ? -1 : 1;
	if (a->side != b->side)
		return a->side == 'B' ? -1 : 1;
	if (a->price != b->price)	/* bids high to low, asks low to high */
		return (a->price < b->price) == (a->side == 'B') ? 1 : -1;
	return 0;
}

static inline uint64_t fnv(uint64_t h, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++) {
		h ^= (uint8_t)(v >> (8 * i));
		h *= 0x100000001b3ull;
	}
	return h;
}

struct m_level {
	uint16_t locate;
	char side;
	uint32_t price;
	uint64_t shares;
	uint32_t orders;
};

/*
 * The live levels in the digest's order (locates up, bids high to low then
 * asks low to high) into a malloc'ed array; returns how many (-1: no
 * memory).
 */
static inline long m_levels(const struct model *m, struct m_level **out)
{
	struct m_order **all = malloc((m->live + 1) * sizeof(*all));
	struct m_level *lv = malloc((m->live + 1) * sizeof(*lv));
	uint64_t n = 0, i = 0;
	long nl = 0;

	if (!all || !lv) {
		free(all);
		free(lv);
		return -1;
	}
	for (size_t b = 0; b < M_BUCKETS; b++)
		for (struct m_order *o = m->bucket[b]; o; o = o->next)
			all[n++] = o;
	qsort(all, n, sizeof(*all), cmp_order);
	while (i < n) {
		uint64_t j = i, shares = 0;

		while (j < n && !cmp_order(&all[i], &all[j]))
			shares += all[j++]->shares;
		lv[nl++] = (struct m_level){ all[i]->locate, all[i]->side, all[i]->price,
					     shares, (uint32_t)(j - i) };
		i = j;
	}
	free(all);
	*out = lv;
	return nl;
}

/* The digest of book.h, computed from the model's levels. */
static inline uint64_t m_digest(const struct m_level *lv, long n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (long i = 0; i < n; i++) {
		h = fnv(h, lv[i].locate, 2);
		h = fnv(h, (uint8_t)lv[i].side, 1);
		h = fnv(h, lv[i].price, 4);
		h = fnv(h, lv[i].shares, 8);
		h = fnv(h, lv[i].orders, 4);
	}
	return h;
}

#endif /* TESTS_UNIT_BOOK_MODEL_H */
