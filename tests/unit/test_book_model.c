// SPDX-License-Identifier: MIT
/*
 * The book against an independent model on generated days.
 *
 * The model is the contract written the plain way: every message decoded
 * with the proto codec (not the book's own field loads), live orders in a
 * chained hash map, levels recomputed at the end by sorting the live orders.
 * The generated day is salted with every kind of impossible event and
 * malformed block; the book's tape must equal the model's print for print,
 * its counters the model's, and its final levels (and digest) the model's.
 * The book's slow self-check (aggregates == recount from the live orders)
 * runs after every message of a generated day.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "book/book_apply.h"
#include "book/daygen.h"
#include "proto/itch.h"
#include "strategy/gbm.h"

/* ---- the model ---- */

struct m_order {
	uint64_t ref;
	uint16_t locate;
	char side;
	uint32_t price;
	uint32_t shares;
	struct m_order *next;
};

#define M_BUCKETS 65536

struct model {
	struct m_order *bucket[M_BUCKETS];
	uint64_t live, peak, cap;
	uint64_t by_type[256];
	uint64_t malformed, dup_ref, unknown_ref, overfill, book_full, bad_side;
};

static struct m_order **m_slot(struct model *m, uint64_t ref)
{
	struct m_order **p = &m->bucket[ref % M_BUCKETS];

	while (*p && (*p)->ref != ref)
		p = &(*p)->next;
	return p;
}

static void m_insert(struct model *m, uint64_t ref, uint16_t loc, char side,
		     uint32_t price, uint32_t shares)
{
	struct m_order *o;

	if (!shares)
		return;
	if (m->live == m->cap) {
		m->book_full++;
		return;
	}
	o = malloc(sizeof(*o));
	assert_non_null(o);
	*o = (struct m_order){ ref, loc, side, price, shares, m->bucket[ref % M_BUCKETS] };
	m->bucket[ref % M_BUCKETS] = o;
	if (++m->live > m->peak)
		m->peak = m->live;
}

static void m_remove(struct model *m, struct m_order **p)
{
	struct m_order *o = *p;

	*p = o->next;
	free(o);
	m->live--;
}

static void m_take(struct model *m, struct m_order **p, uint32_t shares)
{
	if (shares > (*p)->shares)
		m->overfill++;
	if (shares >= (*p)->shares)
		m_remove(m, p);
	else
		(*p)->shares -= shares;
}

static int m_print(struct tape_print *out, uint64_t seq, uint16_t loc, uint32_t price,
		   uint64_t shares, char kind)
{
	*out = (struct tape_print){ .seq = seq, .locate = loc, .price = price,
				    .shares = shares, .kind = kind };
	return 1;
}

static int m_apply(struct model *m, const uint8_t *b, uint16_t len, uint64_t seq,
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

static void m_free(struct model *m)
{
	for (size_t i = 0; i < M_BUCKETS; i++)
		while (m->bucket[i])
			m_remove(m, &m->bucket[i]);
}

static int cmp_order(const void *pa, const void *pb)
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

static uint64_t fnv(uint64_t h, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++) {
		h ^= (uint8_t)(v >> (8 * i));
		h *= 0x100000001b3ull;
	}
	return h;
}

/*
 * The model's levels, in the digest's order, checked one by one against the
 * book's walk of the same side; returns the digest of the model's levels.
 */
static uint64_t m_levels_vs_book(struct model *m, const struct book *b)
{
	struct m_order **all = malloc((m->live + 1) * sizeof(*all));
	uint64_t h = 0xcbf29ce484222325ull, n = 0, nlevels = 0;
	const struct book_level *bl = NULL;
	int cur_loc = -1, cur_side = -1;

	assert_non_null(all);
	for (size_t i = 0; i < M_BUCKETS; i++)
		for (struct m_order *o = m->bucket[i]; o; o = o->next)
			all[n++] = o;
	assert_int_equal(n, m->live);
	qsort(all, n, sizeof(*all), cmp_order);
	for (uint64_t i = 0; i < n;) {
		uint64_t j = i, shares = 0;
		int side = all[i]->side == 'B' ? BOOK_BID : BOOK_ASK;

		while (j < n && !cmp_order(&all[i], &all[j]))
			shares += all[j++]->shares;
		if (all[i]->locate != cur_loc || side != cur_side) {
			assert_null(bl);	/* the book's previous side ended too */
			bl = book_best(b, all[i]->locate, (unsigned int)side);
			cur_loc = all[i]->locate;
			cur_side = side;
		}
		assert_non_null(bl);
		assert_int_equal(bl->price, all[i]->price);
		assert_int_equal(bl->shares, shares);
		assert_int_equal(bl->orders, j - i);
		bl = book_level_next(b, bl);
		h = fnv(h, all[i]->locate, 2);
		h = fnv(h, (uint8_t)all[i]->side, 1);
		h = fnv(h, all[i]->price, 4);
		h = fnv(h, shares, 8);
		h = fnv(h, j - i, 4);
		nlevels++;
		i = j;
	}
	assert_null(bl);
	assert_int_equal(nlevels, b->levels.used);
	free(all);
	return h;
}

/* ---- salting a generated day with impossible events ---- */

struct salt {
	uint64_t rng;
	uint64_t refs[64];	/* refs seen lately (live or not) */
	unsigned int nrefs;
	uint16_t locate;
};

static void remember(struct salt *s, const uint8_t *b, uint16_t len)
{
	if (len && itch_msg_len[b[0]] == len && strchr("AFU", b[0])) {
		uint64_t ref = be64_load(b + (b[0] == 'U' ? ITCH_U_OFF_NEW_REF : 11));

		s->refs[s->nrefs++ % 64] = ref;
		s->locate = be16_load(b + ITCH_OFF_LOCATE);
	}
}

/* One impossible or malformed message, of each kind in turn. */
static uint16_t salt(struct salt *s, uint8_t *out)
{
	uint64_t r = gbm_splitmix64(&s->rng);
	uint64_t ref = s->refs[r % 64], unknown = (1ull << 40) + (r & 0xffff);
	struct itch_msg m = { .locate = s->locate };

	switch ((r >> 20) % 12) {
	case 0:		/* add of a ref that may be live */
		m.type = 'A';
		m.a.order_ref = ref;
		m.a.side = 'S';
		m.a.shares = 100;
		m.a.price = 1000000;
		break;
	case 1:		/* E of an unknown ref */
		m.type = 'E';
		m.e.order_ref = unknown;
		m.e.shares = 10;
		break;
	case 2:		/* E or X of far too many shares: an overfill if live */
		m.type = r & 1 ? 'E' : 'X';
		m.e.order_ref = ref;
		m.e.shares = 1000000;
		break;
	case 3:		/* printable C of an unknown ref: still prints */
		m.type = 'C';
		m.e.order_ref = unknown;
		m.e.shares = 7;
		m.e.printable = 'Y';
		m.e.price = 123400;
		break;
	case 4:		/* U whose new ref may be live */
		m.type = 'U';
		m.u.orig_ref = s->refs[(r >> 8) % 64];
		m.u.new_ref = ref;
		m.u.shares = 5;
		m.u.price = 999900;
		break;
	case 5:		/* U of an unknown ref */
		m.type = 'U';
		m.u.orig_ref = unknown;
		m.u.new_ref = unknown + 1;
		m.u.shares = 5;
		m.u.price = 999900;
		break;
	case 6:		/* D of a ref that may be gone */
		m.type = 'D';
		m.d.order_ref = ref;
		break;
	case 7:		/* add with a bad side */
		m.type = 'F';
		m.a.order_ref = unknown + 2;
		m.a.side = '?';
		m.a.shares = 1;
		m.a.price = 1;
		break;
	case 8:		/* empty block */
		return 0;
	case 9:		/* a length that is not the type's */
		m.type = 'D';
		m.d.order_ref = ref;
		itch_encode(out, DAYGEN_MSG_MAX, &m);
		return ITCH_LEN_D + 1;
	case 10:	/* not an ITCH type */
		memset(out, 0, 20);
		out[0] = 'z';
		return 20;
	default:	/* a non-printable C of an unknown ref */
		m.type = 'C';
		m.e.order_ref = unknown;
		m.e.shares = 3;
		m.e.printable = 'N';
		break;
	}
	return (uint16_t)itch_encode(out, DAYGEN_MSG_MAX, &m);
}

/* ---- the tests ---- */

struct run {
	uint64_t messages;
	uint32_t symbols;
	uint64_t seed;
	uint32_t book_orders;	/* the replaying book and the model */
	unsigned int salt_every;	/* 0: none */
	bool check_each;	/* book_check() after every message */
	bool want_full;		/* the table must overflow */
};

static void replay(const struct run *r)
{
	struct daygen_config gc = { .messages = r->messages, .symbols = r->symbols,
				    .seed = r->seed, .max_orders = 1u << 16 };
	struct book_config bc = { .max_orders = r->book_orders, .track_all = true };
	struct salt s = { .rng = r->seed ^ 0x5a5a };
	struct model *m = calloc(1, sizeof(*m));
	struct daygen *g;
	struct book *b = malloc(sizeof(*b));
	uint8_t buf[DAYGEN_MSG_MAX];
	uint64_t seq = 0, prints = 0, n = 0;
	char err[256];
	uint16_t len;

	assert_non_null(m);
	assert_non_null(b);
	assert_int_equal(daygen_new(&g, &gc, err, sizeof(err)), 0);
	assert_int_equal(book_init(b, &bc), 0);
	m->cap = r->book_orders;

	while ((len = daygen_next(g, buf))) {
		for (int pass = 0; pass < 2; pass++) {
			struct tape_print pb = { 0 }, pm = { 0 };
			uint8_t sb[DAYGEN_MSG_MAX];
			const uint8_t *msg = buf;
			uint16_t l = len;
			int rb, rm;

			if (pass == 0) {
				n++;
				remember(&s, buf, len);
			} else {
				if (!r->salt_every || n % r->salt_every)
					break;
				l = salt(&s, sb);
				msg = sb;
			}
			seq++;
			rb = book_apply(b, msg, l, seq, &pb);
			rm = m_apply(m, msg, l, seq, &pm);
			if ((rb < 0) != (rm < 0) || (rb == 1) != (rm == 1))
				fail_msg("seq %llu type %c: book returned %d, model %d",
					 (unsigned long long)seq, l ? msg[0] : '-', rb, rm);
			if (rb == 1) {
				prints++;
				if (pb.seq != pm.seq || pb.locate != pm.locate || pb.price != pm.price ||
				    pb.shares != pm.shares || pb.kind != pm.kind)
					fail_msg("seq %llu: book prints %c %u@%u loc %u, model %c %u@%u loc %u",
						 (unsigned long long)seq, pb.kind, (unsigned)pb.shares,
						 pb.price, pb.locate, pm.kind, (unsigned)pm.shares,
						 pm.price, pm.locate);
			}
			if (r->check_each) {
				if (book_check(b, 0, err, sizeof(err)))
					fail_msg("after seq %llu: %s", (unsigned long long)seq, err);
			}
		}
	}
	assert_int_equal(n, r->messages);
	if (book_check(b, BOOK_CHECK_ALL_SIDES, err, sizeof(err)))
		fail_msg("at the end: %s", err);

	assert_memory_equal(b->cnt.by_type, m->by_type, sizeof(m->by_type));
	assert_int_equal(b->cnt.malformed, m->malformed);
	assert_int_equal(b->cnt.dup_ref, m->dup_ref);
	assert_int_equal(b->cnt.unknown_ref, m->unknown_ref);
	assert_int_equal(b->cnt.overfill, m->overfill);
	assert_int_equal(b->cnt.book_full, m->book_full);
	assert_int_equal(b->cnt.bad_side, m->bad_side);
	assert_int_equal(b->cnt.prints, prints);
	assert_int_equal(b->live, m->live);
	assert_int_equal(b->peak, m->peak);
	assert_true(book_digest(b) == m_levels_vs_book(m, b));
	print_message("%llu messages, %llu prints, live %llu peak %llu; dup %llu unknown %llu "
		      "overfill %llu full %llu bad_side %llu malformed %llu\n",
		      (unsigned long long)seq, (unsigned long long)prints,
		      (unsigned long long)b->live, (unsigned long long)b->peak,
		      (unsigned long long)b->cnt.dup_ref, (unsigned long long)b->cnt.unknown_ref,
		      (unsigned long long)b->cnt.overfill, (unsigned long long)b->cnt.book_full,
		      (unsigned long long)b->cnt.bad_side, (unsigned long long)b->cnt.malformed);
	if (r->want_full)
		assert_true(m->book_full > 0);
	if (r->salt_every) {
		assert_true(m->dup_ref && m->unknown_ref && m->overfill && m->bad_side &&
			    m->malformed);
	}

	m_free(m);
	free(m);
	book_destroy(b);
	free(b);
	daygen_free(g);
}

/* A clean day: the tape and the final book agree, nothing impossible. */
static void test_clean_day_matches_model(void **state)
{
	struct run r = { .messages = 300000, .symbols = 12, .seed = 11,
			 .book_orders = 1u << 16 };

	(void)state;
	replay(&r);
}

/* Salted with every impossible class and malformed blocks. */
static void test_salted_day_matches_model(void **state)
{
	struct run r = { .messages = 300000, .symbols = 12, .seed = 12,
			 .book_orders = 1u << 16, .salt_every = 50 };

	(void)state;
	replay(&r);
}

/* A table smaller than the day's book: adds dropped (book_full) and the
 * later messages of their refs unknown, exactly as the model says. */
static void test_small_table_matches_model(void **state)
{
	struct run r = { .messages = 200000, .symbols = 6, .seed = 13,
			 .book_orders = 400, .salt_every = 97, .want_full = true };

	(void)state;
	replay(&r);
}

/* The slow check after every message of a generated day. */
static void test_check_after_every_message(void **state)
{
	struct run r = { .messages = 40000, .symbols = 5, .seed = 14,
			 .book_orders = 4096, .salt_every = 31, .check_each = true };

	(void)state;
	replay(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clean_day_matches_model),
		cmocka_unit_test(test_salted_day_matches_model),
		cmocka_unit_test(test_small_table_matches_model),
		cmocka_unit_test(test_check_after_every_message),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
