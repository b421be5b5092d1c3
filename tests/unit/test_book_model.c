// SPDX-License-Identifier: MIT
/*
 * The book against an independent model on generated days.
 *
 * The model (book_model.h) is the contract written the plain way.
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
#include "util/rng.h"
#include "tests/unit/book_model.h"

/* The model's levels against the book's walk of each side, one by one;
 * returns the digest of the model's levels. */
static uint64_t m_levels_vs_book(struct model *m, const struct book *b)
{
	const struct book_level *bl = NULL;
	struct m_level *lv;
	long n = m_levels(m, &lv);
	int cur_loc = -1, cur_side = -1;
	uint64_t h;

	assert_true(n >= 0);
	for (long i = 0; i < n; i++) {
		int side = lv[i].side == 'B' ? BOOK_BID : BOOK_ASK;

		if (lv[i].locate != cur_loc || side != cur_side) {
			assert_null(bl);	/* the book's previous side ended too */
			bl = book_best(b, lv[i].locate, (unsigned int)side);
			cur_loc = lv[i].locate;
			cur_side = side;
		}
		assert_non_null(bl);
		assert_int_equal(bl->price, lv[i].price);
		assert_int_equal(bl->shares, lv[i].shares);
		assert_int_equal(bl->orders, lv[i].orders);
		bl = book_level_next(b, bl);
	}
	assert_null(bl);
	assert_int_equal(n, b->levels.used);
	h = m_digest(lv, n);
	free(lv);
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
	uint64_t r = splitmix64(&s->rng);
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
			uint8_t sb[DAYGEN_MSG_MAX] = { 0 };
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
	assert_int_equal(b->cnt.zero_shares, m->zero_shares);
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
