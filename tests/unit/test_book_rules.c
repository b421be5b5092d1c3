// SPDX-License-Identifier: MIT
/*
 * The book's rules one by one (docs/book.md): adds, levels and
 * best prices, each execution and cancel case, replace, prints, each
 * impossible-event class, malformed blocks, tracking, the digest.  Every
 * test ends with the slow self-check (aggregates == recount).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tests/unit/book_msgs.h"

static int setup(void **state)
{
	struct book_config cfg = { .max_orders = 1024, .track_all = true };

	return book_fixture_open(state, &cfg);
}


static int apply_seq(struct book *b, struct msg m, uint64_t seq, struct tape_print *p)
{
	int r;

	memset(p, 0, sizeof(*p));
	r = book_apply(b, m.b, m.len, seq, p);
	book_assert_sound(b);
	return r;
}

static int apply(struct book *b, struct msg m)
{
	struct tape_print p;

	return apply_seq(b, m, 1, &p);
}

static void assert_level(const struct book_level *l, uint32_t price, uint64_t shares,
			 uint32_t orders)
{
	assert_non_null(l);
	assert_int_equal(l->price, price);
	assert_int_equal(l->shares, shares);
	assert_int_equal(l->orders, orders);
}

static void assert_print(const struct tape_print *p, uint64_t seq, uint16_t loc,
			 uint32_t price, uint64_t shares, char kind)
{
	assert_int_equal(p->seq, seq);
	assert_int_equal(p->locate, loc);
	assert_int_equal(p->price, price);
	assert_int_equal(p->shares, shares);
	assert_int_equal(p->kind, kind);
}

static void test_add_aggregates_levels(void **state)
{
	struct book *b = *state;

	assert_null(book_best(b, 7, BOOK_BID));
	assert_int_equal(apply(b, msg_add('A', 7, 1, 'B', 100, 1000)), 0);
	assert_int_equal(apply(b, msg_add('F', 7, 2, 'B', 50, 1000)), 0);
	assert_int_equal(apply(b, msg_add('A', 7, 3, 'S', 30, 1010)), 0);
	assert_level(book_best(b, 7, BOOK_BID), 1000, 150, 2);
	assert_level(book_best(b, 7, BOOK_ASK), 1010, 30, 1);
	assert_int_equal(b->live, 3);
	assert_int_equal(b->peak, 3);
	assert_int_equal(b->cnt.by_type['A'], 2);
	assert_int_equal(b->cnt.by_type['F'], 1);
	/* Other locates are separate books. */
	assert_null(book_best(b, 8, BOOK_BID));
	const struct book_order *o = book_find(b, 2);
	assert_non_null(o);
	assert_int_equal(o->shares, 50);
	assert_int_equal(book_level_of(b, o)->locate, 7);
	assert_int_equal(book_level_of(b, o)->side, BOOK_BID);
	assert_null(book_find(b, 4));
}

/* Levels sorted best first on each side, whatever order they open in. */
static void test_best_and_level_order(void **state)
{
	static const uint32_t bids[] = { 1000, 990, 1005, 995, 1003, 980, 1001, 999 };
	static const uint32_t want_bids[] = { 1005, 1003, 1001, 1000, 999, 995, 990, 980 };
	static const uint32_t asks[] = { 1020, 1010, 1030, 1015, 1011, 1029, 1012 };
	static const uint32_t want_asks[] = { 1010, 1011, 1012, 1015, 1020, 1029, 1030 };
	struct book *b = *state;
	const struct book_level *l;
	uint64_t ref = 1;
	unsigned int i;

	for (i = 0; i < 8; i++)
		apply(b, msg_add('A', 3, ref++, 'B', 100 + i, bids[i]));
	for (i = 0; i < 7; i++)
		apply(b, msg_add('A', 3, ref++, 'S', 200 + i, asks[i]));
	for (i = 0, l = book_best(b, 3, BOOK_BID); l; l = book_level_next(b, l), i++)
		assert_int_equal(l->price, want_bids[i]);
	assert_int_equal(i, 8);
	for (i = 0, l = book_best(b, 3, BOOK_ASK); l; l = book_level_next(b, l), i++)
		assert_int_equal(l->price, want_asks[i]);
	assert_int_equal(i, 7);
	assert_int_equal(book_nlevels(b, 3, BOOK_BID), 8);
	assert_int_equal(book_nlevels(b, 3, BOOK_ASK), 7);

	/* Emptying the best makes its neighbour the best. */
	apply(b, msg_delete(3, 3));		/* bid 1005 */
	assert_level(book_best(b, 3, BOOK_BID), 1003, 104, 1);
	apply(b, msg_delete(3, 10));		/* ask 1010 */
	assert_level(book_best(b, 3, BOOK_ASK), 1011, 204, 1);
	/* And the worst. */
	apply(b, msg_delete(3, 6));		/* bid 980 */
	apply(b, msg_delete(3, 11));		/* ask 1030 */
	assert_int_equal(book_nlevels(b, 3, BOOK_BID), 6);
	assert_int_equal(book_nlevels(b, 3, BOOK_ASK), 5);
}

/*
 * Levels opening between the ends, found from a neighbour a few ticks away
 * or by the walk: on the cent grid, on the sub-dollar grid, off both, in a
 * shuffled order with deletes between.  The list stays sorted and complete.
 */
static void test_level_order_shuffled(void **state)
{
	static const uint32_t base[] = { 1500000, 5000, 1234567 };
	static const uint32_t step[] = { 100, 1, 37 };
	struct book *b = *state;
	uint64_t x = 12345, ref = 1;

	for (unsigned int g = 0; g < 3; g++) {
		uint16_t loc = (uint16_t)(10 + g);
		uint32_t want = 0;

		for (unsigned int i = 0; i < 300; i++) {
			char side;
			uint32_t p;

			x = x * 6364136223846793005ull + 1442695040888963407ull;
			p = base[g] + (uint32_t)(x >> 33) % 200 * step[g];
			side = p < base[g] + 100 * step[g] ? 'B' : 'S';
			apply(b, msg_add('A', loc, ref++, side, 100, p));
			if (i % 7 == 6)
				apply(b, msg_delete(loc, ref - 3));
		}
		for (unsigned int side = BOOK_BID; side <= BOOK_ASK; side++) {
			const struct book_level *l = book_best(b, loc, side), *prev = NULL;
			uint32_t n = 0;

			for (; l; prev = l, l = book_level_next(b, l), n++)
				if (prev)
					assert_true(side == BOOK_BID ? prev->price > l->price
								     : prev->price < l->price);
			assert_int_equal(n, book_nlevels(b, loc, side));
			want += n;
		}
		assert_true(want > 100);
	}
}

static void test_exec_partial_and_full(void **state)
{
	struct book *b = *state;
	struct tape_print p;

	apply(b, msg_add('A', 5, 10, 'S', 300, 2000));
	apply(b, msg_add('A', 5, 11, 'S', 100, 2001));
	assert_int_equal(apply_seq(b, msg_exec(5, 10, 120), 42, &p), 1);
	assert_print(&p, 42, 5, 2000, 120, 'E');
	assert_level(book_best(b, 5, BOOK_ASK), 2000, 180, 1);
	/* Exactly the remaining shares: an ordinary full fill. */
	assert_int_equal(apply_seq(b, msg_exec(5, 10, 180), 43, &p), 1);
	assert_print(&p, 43, 5, 2000, 180, 'E');
	assert_int_equal(b->cnt.overfill, 0);
	assert_null(book_find(b, 10));
	assert_level(book_best(b, 5, BOOK_ASK), 2001, 100, 1);
	assert_int_equal(b->live, 1);
	assert_int_equal(b->peak, 2);
	assert_int_equal(b->cnt.prints, 2);
}

/* The print of an E or C takes its locate from the resting order. */
static void test_exec_locate_from_order(void **state)
{
	struct book *b = *state;
	struct tape_print p;

	apply(b, msg_add('A', 5, 10, 'B', 300, 2000));
	assert_int_equal(apply_seq(b, msg_exec(6, 10, 1), 7, &p), 1);
	assert_print(&p, 7, 5, 2000, 1, 'E');
	assert_int_equal(apply_seq(b, msg_exec_price(6, 10, 2, 'Y', 1999), 8, &p), 1);
	assert_print(&p, 8, 5, 1999, 2, 'C');
	assert_level(book_best(b, 5, BOOK_BID), 2000, 297, 1);
}

static void test_exec_overfill(void **state)
{
	struct book *b = *state;
	struct tape_print p;

	apply(b, msg_add('A', 5, 10, 'B', 100, 2000));
	apply(b, msg_add('A', 5, 11, 'B', 100, 2000));
	assert_int_equal(apply_seq(b, msg_exec(5, 10, 150), 9, &p), 1);
	/* The tape keeps the message's shares; the order leaves. */
	assert_print(&p, 9, 5, 2000, 150, 'E');
	assert_int_equal(b->cnt.overfill, 1);
	assert_null(book_find(b, 10));
	assert_level(book_best(b, 5, BOOK_BID), 2000, 100, 1);
}

static void test_exec_unknown_ref(void **state)
{
	struct book *b = *state;
	struct tape_print p;

	apply(b, msg_add('A', 5, 10, 'B', 100, 2000));
	assert_int_equal(apply_seq(b, msg_exec(5, 99, 10), 9, &p), 0);
	assert_int_equal(b->cnt.unknown_ref, 1);
	assert_int_equal(b->cnt.prints, 0);
	assert_level(book_best(b, 5, BOOK_BID), 2000, 100, 1);
}

static void test_exec_price(void **state)
{
	struct book *b = *state;
	struct tape_print p;

	apply(b, msg_add('A', 5, 10, 'B', 100, 2000));
	/* Printable: prints at the message's price, takes the shares. */
	assert_int_equal(apply_seq(b, msg_exec_price(5, 10, 30, 'Y', 1990), 3, &p), 1);
	assert_print(&p, 3, 5, 1990, 30, 'C');
	assert_level(book_best(b, 5, BOOK_BID), 2000, 70, 1);
	/* Not printable: no print, the shares still go. */
	assert_int_equal(apply_seq(b, msg_exec_price(5, 10, 20, 'N', 1990), 4, &p), 0);
	assert_level(book_best(b, 5, BOOK_BID), 2000, 50, 1);
	/* Overfill by a C. */
	assert_int_equal(apply_seq(b, msg_exec_price(5, 10, 60, 'Y', 1980), 5, &p), 1);
	assert_print(&p, 5, 5, 1980, 60, 'C');
	assert_int_equal(b->cnt.overfill, 1);
	assert_null(book_best(b, 5, BOOK_BID));
	assert_int_equal(b->cnt.prints, 2);
}

/* A printable C on an unknown ref still prints, with the header's locate. */
static void test_exec_price_unknown_ref(void **state)
{
	struct book *b = *state;
	struct tape_print p;

	assert_int_equal(apply_seq(b, msg_exec_price(77, 1234, 40, 'Y', 5000), 11, &p), 1);
	assert_print(&p, 11, 77, 5000, 40, 'C');
	assert_int_equal(b->cnt.unknown_ref, 1);
	assert_int_equal(apply_seq(b, msg_exec_price(77, 1234, 40, 'N', 5000), 12, &p), 0);
	assert_int_equal(b->cnt.unknown_ref, 2);
	assert_int_equal(b->live, 0);
}

static void test_cancel(void **state)
{
	struct book *b = *state;

	apply(b, msg_add('A', 2, 1, 'S', 100, 500));
	apply(b, msg_add('A', 2, 2, 'S', 100, 500));
	assert_int_equal(apply(b, msg_cancel(2, 1, 40)), 0);
	assert_level(book_best(b, 2, BOOK_ASK), 500, 160, 2);
	assert_int_equal(book_find(b, 1)->shares, 60);
	/* Exactly what remains: the order leaves, no overfill. */
	apply(b, msg_cancel(2, 1, 60));
	assert_null(book_find(b, 1));
	assert_int_equal(b->cnt.overfill, 0);
	/* More than remains: overfill, the order leaves. */
	apply(b, msg_cancel(2, 2, 101));
	assert_int_equal(b->cnt.overfill, 1);
	assert_null(book_best(b, 2, BOOK_ASK));
	apply(b, msg_cancel(2, 2, 1));
	assert_int_equal(b->cnt.unknown_ref, 1);
	assert_int_equal(b->cnt.prints, 0);
}

static void test_delete(void **state)
{
	struct book *b = *state;

	apply(b, msg_add('A', 2, 1, 'S', 100, 500));
	apply(b, msg_add('A', 2, 2, 'S', 10, 501));
	assert_int_equal(apply(b, msg_delete(2, 1)), 0);
	assert_level(book_best(b, 2, BOOK_ASK), 501, 10, 1);
	assert_int_equal(b->live, 1);
	apply(b, msg_delete(2, 1));
	assert_int_equal(b->cnt.unknown_ref, 1);
	assert_level(book_best(b, 2, BOOK_ASK), 501, 10, 1);
}

static void test_replace(void **state)
{
	struct book *b = *state;
	const struct book_order *o;

	apply(b, msg_add('A', 9, 1, 'B', 100, 700));
	apply(b, msg_add('A', 9, 2, 'B', 100, 700));
	assert_int_equal(apply(b, msg_replace(9, 1, 3, 250, 710)), 0);
	assert_null(book_find(b, 1));
	o = book_find(b, 3);
	assert_non_null(o);
	assert_int_equal(o->shares, 250);
	/* Same side and locate as the original. */
	assert_int_equal(book_level_of(b, o)->side, BOOK_BID);
	assert_int_equal(book_level_of(b, o)->locate, 9);
	assert_level(book_best(b, 9, BOOK_BID), 710, 250, 1);
	assert_level(book_level_next(b, book_best(b, 9, BOOK_BID)), 700, 100, 1);
	assert_int_equal(b->live, 2);
	/* The locate of a U header does not move the order. */
	apply(b, msg_replace(4, 3, 5, 10, 711));
	assert_level(book_best(b, 9, BOOK_BID), 711, 10, 1);
	assert_null(book_best(b, 4, BOOK_BID));
	assert_int_equal(b->cnt.dup_ref + b->cnt.unknown_ref, 0);
}

static void test_replace_unknown_orig_checked_first(void **state)
{
	struct book *b = *state;

	apply(b, msg_add('A', 9, 1, 'S', 100, 700));
	/* Original unknown and new ref live: unknown_ref only. */
	apply(b, msg_replace(9, 50, 1, 10, 10));
	assert_int_equal(b->cnt.unknown_ref, 1);
	assert_int_equal(b->cnt.dup_ref, 0);
	/* Original unknown, new ref free: nothing added. */
	apply(b, msg_replace(9, 50, 51, 10, 10));
	assert_int_equal(b->cnt.unknown_ref, 2);
	assert_null(book_find(b, 51));
	assert_level(book_best(b, 9, BOOK_ASK), 700, 100, 1);
	assert_int_equal(b->live, 1);
}

static void test_replace_new_ref_live(void **state)
{
	struct book *b = *state;

	apply(b, msg_add('A', 9, 1, 'S', 100, 700));
	apply(b, msg_add('A', 9, 2, 'S', 40, 705));
	/* The whole message is ignored: the original stays as it was. */
	apply(b, msg_replace(9, 1, 2, 10, 690));
	assert_int_equal(b->cnt.dup_ref, 1);
	assert_int_equal(book_find(b, 1)->shares, 100);
	assert_int_equal(book_find(b, 2)->shares, 40);
	assert_level(book_best(b, 9, BOOK_ASK), 700, 100, 1);
	/* A ref replaced by itself: its new ref is live. */
	apply(b, msg_replace(9, 1, 1, 10, 690));
	assert_int_equal(b->cnt.dup_ref, 2);
	assert_level(book_best(b, 9, BOOK_ASK), 700, 100, 1);
}

static void test_add_dup_ref(void **state)
{
	struct book *b = *state;

	apply(b, msg_add('A', 1, 8, 'B', 100, 300));
	/* Unique across the day and all stocks: another locate is a dup too. */
	apply(b, msg_add('A', 2, 8, 'S', 5, 310));
	apply(b, msg_add('F', 1, 8, 'B', 7, 300));
	assert_int_equal(b->cnt.dup_ref, 2);
	assert_level(book_best(b, 1, BOOK_BID), 300, 100, 1);
	assert_null(book_best(b, 2, BOOK_ASK));
	assert_int_equal(b->live, 1);
}

static void test_book_full(void **state)
{
	struct book_config cfg = { .max_orders = 4, .track_all = true };
	struct book full;

	(void)state;
	assert_int_equal(book_init(&full, &cfg), 0);
	for (uint64_t r = 1; r <= 5; r++)
		apply(&full, msg_add('A', 1, r, 'B', 10, (uint32_t)(100 + r)));
	assert_int_equal(full.cnt.book_full, 1);
	assert_int_equal(full.live, 4);
	assert_null(book_find(&full, 5));
	/* A replace frees its original first, so it fits. */
	apply(&full, msg_replace(1, 1, 6, 10, 99));
	assert_non_null(book_find(&full, 6));
	assert_int_equal(full.cnt.book_full, 1);
	apply(&full, msg_delete(1, 2));
	apply(&full, msg_add('A', 1, 5, 'B', 10, 105));
	assert_non_null(book_find(&full, 5));
	assert_int_equal(full.cnt.book_full, 1);
	book_destroy(&full);

	/* The level pool can be the limit too. */
	cfg.max_orders = 16;
	cfg.max_levels = 2;
	assert_int_equal(book_init(&full, &cfg), 0);
	apply(&full, msg_add('A', 1, 1, 'B', 10, 100));
	apply(&full, msg_add('A', 1, 2, 'S', 10, 200));
	apply(&full, msg_add('A', 1, 3, 'S', 10, 200));	/* existing level */
	apply(&full, msg_add('A', 1, 4, 'S', 10, 201));	/* a third level */
	assert_int_equal(full.cnt.book_full, 1);
	assert_int_equal(full.live, 3);
	/* A U to a new price when the pool is full: the original goes, the
	 * new order is dropped. */
	apply(&full, msg_replace(1, 2, 5, 10, 202));
	assert_int_equal(full.cnt.book_full, 2);
	assert_null(book_find(&full, 2));
	assert_null(book_find(&full, 5));
	book_destroy(&full);
}

static void test_prints_p_q_b(void **state)
{
	struct book *b = *state;
	struct tape_print p;

	assert_int_equal(apply_seq(b, msg_trade(12, 300, 4321), 100, &p), 1);
	assert_print(&p, 100, 12, 4321, 300, 'P');
	assert_int_equal(apply_seq(b, msg_cross(12, (1ull << 33) + 1, 4400), 101, &p), 1);
	assert_print(&p, 101, 12, 4400, (1ull << 33) + 1, 'Q');
	assert_int_equal(apply_seq(b, msg_cross(12, 0, 4400), 102, &p), 0);
	struct itch_msg bm = { .type = 'B', .locate = 12 };

	bm.b.match = 1;
	assert_int_equal(apply_seq(b, msg_encode(&bm), 103, &p), 0);
	assert_int_equal(b->cnt.by_type['B'], 1);
	assert_int_equal(b->cnt.by_type['Q'], 2);
	assert_int_equal(b->cnt.prints, 2);
}

/* The administrative types are counted and change nothing. */
static void test_other_types_ignored(void **state)
{
	static const char types[] = "SRHYLVWKJhINOB";
	struct book *b = *state;

	apply(b, msg_add('A', 1, 1, 'B', 10, 100));
	uint64_t d = book_digest(b);

	for (const char *t = types; *t; t++)
		assert_int_equal(apply(b, msg_raw(*t, 1)), 0);
	for (const char *t = types; *t; t++)
		assert_int_equal(b->cnt.by_type[(uint8_t)*t], 1);
	assert_int_equal(book_digest(b), d);
	assert_int_equal(b->cnt.prints, 0);
}

static void test_malformed(void **state)
{
	struct book *b = *state;
	struct tape_print p;
	struct msg m = msg_add('A', 1, 1, 'B', 10, 100);

	assert_int_equal(book_apply(b, m.b, 35, 1, &p), PROTO_E_LENGTH);
	assert_int_equal(book_apply(b, m.b, 37, 1, &p), PROTO_E_LENGTH);
	assert_int_equal(book_apply(b, m.b, 0, 1, &p), PROTO_E_LENGTH);
	m.b[0] = 'z';
	assert_int_equal(book_apply(b, m.b, 36, 1, &p), PROTO_E_MSG_TYPE);
	assert_int_equal(b->cnt.malformed, 4);
	assert_int_equal(b->cnt.by_type['A'], 0);
	assert_int_equal(b->cnt.by_type['z'], 0);
	assert_int_equal(b->live, 0);
	book_assert_sound(b);
}

static void test_add_zero_shares_and_bad_side(void **state)
{
	struct book *b = *state;

	apply(b, msg_add('A', 1, 1, 'B', 0, 100));
	assert_null(book_find(b, 1));
	assert_int_equal(b->live, 0);
	assert_int_equal(b->cnt.zero_shares, 1);
	apply(b, msg_add('A', 1, 2, 'X', 10, 100));
	assert_int_equal(b->cnt.bad_side, 1);
	assert_null(book_find(b, 2));
	/* A replace to 0 shares removes the original and adds nothing. */
	apply(b, msg_add('A', 1, 3, 'S', 10, 100));
	apply(b, msg_replace(1, 3, 4, 0, 101));
	assert_null(book_find(b, 3));
	assert_null(book_find(b, 4));
	assert_int_equal(b->live, 0);
	assert_int_equal(b->cnt.zero_shares, 2);
	assert_int_equal(b->cnt.dup_ref + b->cnt.unknown_ref + b->cnt.book_full, 0);
}

static void test_tracking(void **state)
{
	struct book_config cfg = { .max_orders = 64 };
	struct tape_print p;
	struct book t;

	(void)state;
	assert_int_equal(book_init(&t, &cfg), 0);
	book_track(&t, 4, true);
	apply(&t, msg_add('A', 3, 1, 'B', 10, 100));
	apply(&t, msg_add('A', 4, 2, 'B', 10, 100));
	assert_null(book_find(&t, 1));
	assert_non_null(book_find(&t, 2));
	assert_int_equal(apply_seq(&t, msg_trade(3, 1, 1), 5, &p), 0);
	assert_int_equal(apply_seq(&t, msg_trade(4, 1, 1), 6, &p), 1);
	/* Skipped on the header's locate, before any lookup. */
	apply(&t, msg_delete(3, 2));
	assert_non_null(book_find(&t, 2));
	assert_int_equal(t.cnt.unknown_ref, 0);
	assert_int_equal(t.cnt.by_type['A'], 2);
	assert_int_equal(t.cnt.by_type['D'], 1);
	book_destroy(&t);
}

/* Refs that share a home slot, deleted from the middle and across the end
 * of the table: the others stay reachable (backward shift). */
static void test_colliding_refs(void **state)
{
	struct book_config cfg = { .max_orders = 8, .track_all = true };
	uint64_t refs[6];
	unsigned int n = 0;
	struct book t;

	(void)state;
	assert_int_equal(book_init(&t, &cfg), 0);
	assert_int_equal(t.orders.mask, 15);
	/* Six refs whose home is the last slot, so their run wraps. */
	for (uint64_t r = 1; n < 6; r++)
		if (order_home(&t.orders, r) == 15)
			refs[n++] = r;
	for (unsigned int i = 0; i < 6; i++)
		apply(&t, msg_add('A', 1, refs[i], 'B', 10 + i, 100));
	apply(&t, msg_delete(1, refs[1]));
	apply(&t, msg_delete(1, refs[0]));
	for (unsigned int i = 2; i < 6; i++)
		assert_int_equal(book_find(&t, refs[i])->shares, 10 + i);
	apply(&t, msg_add('A', 1, refs[0], 'B', 99, 100));
	apply(&t, msg_delete(1, refs[4]));
	assert_int_equal(book_find(&t, refs[0])->shares, 99);
	assert_int_equal(book_find(&t, refs[5])->shares, 15);
	assert_null(book_find(&t, refs[1]));
	assert_null(book_find(&t, refs[4]));
	book_destroy(&t);
}

static uint64_t fnv_bytes(uint64_t h, const uint8_t *p, size_t n)
{
	while (n--) {
		h ^= *p++;
		h *= 0x100000001b3ull;
	}
	return h;
}

/* The documented encoding, written out byte by byte. */
static uint64_t fnv_level(uint64_t h, uint16_t loc, char side, uint32_t price,
			  uint64_t shares, uint32_t orders)
{
	uint8_t r[19];

	r[0] = (uint8_t)loc;
	r[1] = (uint8_t)(loc >> 8);
	r[2] = (uint8_t)side;
	for (int i = 0; i < 4; i++)
		r[3 + i] = (uint8_t)(price >> (8 * i));
	for (int i = 0; i < 8; i++)
		r[7 + i] = (uint8_t)(shares >> (8 * i));
	for (int i = 0; i < 4; i++)
		r[15 + i] = (uint8_t)(orders >> (8 * i));
	return fnv_bytes(h, r, sizeof(r));
}

static void test_digest(void **state)
{
	struct book *b = *state;
	uint64_t want = BOOK_DIGEST_EMPTY;

	assert_true(book_digest(b) == BOOK_DIGEST_EMPTY);
	apply(b, msg_add('A', 300, 1, 'S', 5, 2000));
	apply(b, msg_add('A', 2, 2, 'B', 10, 100));
	apply(b, msg_add('A', 2, 3, 'B', 20, 101));
	apply(b, msg_add('A', 2, 4, 'B', 1, 101));
	apply(b, msg_add('A', 2, 5, 'S', 7, 110));
	want = fnv_level(want, 2, 'B', 101, 21, 2);
	want = fnv_level(want, 2, 'B', 100, 10, 1);
	want = fnv_level(want, 2, 'S', 110, 7, 1);
	assert_true(book_digest_locate(b, 2) == want);
	want = fnv_level(want, 300, 'S', 2000, 5, 1);
	assert_true(book_digest(b) == want);

	/* Same levels by another history: same digest. */
	struct book_config cfg = { .max_orders = 64, .track_all = true };
	struct book o;

	assert_int_equal(book_init(&o, &cfg), 0);
	apply(&o, msg_add('A', 2, 50, 'S', 9, 110));
	apply(&o, msg_cancel(2, 50, 2));
	apply(&o, msg_add('A', 300, 51, 'S', 5, 2000));
	apply(&o, msg_add('A', 2, 52, 'B', 20, 101));
	apply(&o, msg_add('A', 2, 53, 'B', 10, 100));
	apply(&o, msg_add('A', 2, 54, 'B', 1, 101));
	apply(&o, msg_exec(2, 54, 1));
	apply(&o, msg_add('A', 2, 55, 'B', 10, 102));
	apply(&o, msg_replace(2, 55, 56, 1, 101));
	assert_true(book_digest(&o) == want);
	/* One share more anywhere: another digest. */
	apply(&o, msg_add('A', 2, 57, 'B', 1, 100));
	assert_true(book_digest(&o) != want);
	book_destroy(&o);
}

static void test_clear(void **state)
{
	struct book *b = *state;

	book_track(b, 9, false);
	apply(b, msg_add('A', 1, 1, 'B', 10, 100));
	apply(b, msg_add('A', 2, 2, 'S', 10, 200));
	apply(b, msg_delete(1, 77));
	book_clear(b);
	book_assert_sound(b);
	assert_int_equal(b->live, 0);
	assert_int_equal(b->peak, 0);
	assert_int_equal(b->cnt.unknown_ref, 0);
	assert_int_equal(b->cnt.by_type['A'], 0);
	assert_null(book_best(b, 1, BOOK_BID));
	assert_null(book_find(b, 2));
	assert_true(book_digest(b) == BOOK_DIGEST_EMPTY);
	/* Tracking is kept; the book works as new. */
	assert_false(book_tracked(b, 9));
	assert_true(book_tracked(b, 1));
	apply(b, msg_add('A', 1, 1, 'B', 10, 100));
	assert_level(book_best(b, 1, BOOK_BID), 100, 10, 1);
}

/* The best price a side keeps follows every change of its best. */
static void test_side_keeps_best_price(void **state)
{
	struct book *b = *state;
	struct book_side *sd = level_side(&b->levels, 4, BOOK_BID);
	char why[256];

	apply(b, msg_add('A', 4, 1, 'B', 100, 2000));
	apply(b, msg_add('A', 4, 2, 'B', 100, 2100));	/* a new best */
	apply(b, msg_add('A', 4, 3, 'B', 100, 1900));	/* a new worst */
	apply(b, msg_add('A', 4, 4, 'B', 100, 2050));	/* between */
	assert_int_equal(sd->best_price, 2100);
	apply(b, msg_delete(4, 2));
	assert_int_equal(sd->best_price, 2050);
	apply(b, msg_delete(4, 4));
	assert_int_equal(sd->best_price, 2000);
	apply(b, msg_delete(4, 1));
	assert_int_equal(sd->best_price, 1900);
	book_assert_sound(b);

	/* The self-check catches a kept price that is not the level's. */
	sd->best_price = 1899;
	assert_int_not_equal(book_check(b, BOOK_CHECK_ALL_SIDES, why, sizeof(why)), 0);
	assert_non_null(strstr(why, "best kept"));
	sd->best_price = 1900;
}

/*
 * Four ticks of one side share a home line of the level hash (so a new
 * level's neighbour probes stay on two or three lines); the other side,
 * another book and prices below a dollar (a tick of 1) group the same way.
 */
static void test_level_home_groups_ticks(void **state)
{
	const struct level_store *s = &((struct book *)*state)->levels;
	static const struct { uint16_t loc; unsigned int side; uint32_t base, tick; } g[] = {
		{ 4, BOOK_BID, 20000, 100 }, { 4, BOOK_ASK, 20000, 100 },
		{ 9, BOOK_BID, 1234400, 100 }, { 9, BOOK_ASK, 4000, 1 },
	};

	for (unsigned int i = 0; i < sizeof(g) / sizeof(g[0]); i++) {
		uint64_t h0 = level_home(s, level_key(g[i].loc, g[i].side, g[i].base));

		assert_int_equal(h0 & 3, (g[i].base / g[i].tick) & 3);
		for (uint32_t k = 1; k < 4; k++) {
			uint32_t p = g[i].base + k * g[i].tick;
			uint64_t h = level_home(s, level_key(g[i].loc, g[i].side, p));

			assert_int_equal(h >> 2, h0 >> 2);
			assert_int_equal(h & 3, (p / g[i].tick) & 3);
		}
	}
}

/* The prices of @side's levels from the best to the worst, into @p. */
static unsigned int side_prices(const struct book *b, uint16_t loc, unsigned int side,
				uint32_t *p, unsigned int max)
{
	const struct level_store *ls = &b->levels;
	unsigned int n = 0;

	for (uint32_t i = level_side(ls, loc, side)->best; i && n < max; i = level_next(ls, i))
		p[n++] = ls->lv[i].price;
	return n;
}

/*
 * A new level beside a neighbour the probes found links to it without a
 * walk only while its side has no level between two cents: one there
 * (off the probes' grid) would lie between them.  The count of such levels
 * follows adds and removals, and the self-check catches a wrong one.
 */
static void test_link_beside_neighbour(void **state)
{
	struct book *b = *state;
	struct book_side *sd = level_side(&b->levels, 5, BOOK_BID);
	static const uint32_t want_off[] = { 20500, 20200, 20150, 20000, 19900 };
	static const uint32_t want_on[] = { 20500, 20300, 20200, 20000, 19900 };
	uint32_t got[8];
	char why[256];

	apply(b, msg_add('A', 5, 1, 'B', 100, 20000));
	apply(b, msg_add('A', 5, 2, 'B', 100, 20500));
	apply(b, msg_add('A', 5, 3, 'B', 100, 20150));	/* off the cent grid */
	assert_int_equal(sd->off_cent, 1);
	/* Probes find 20000 two cents down; 20150 is between them. */
	apply(b, msg_add('A', 5, 4, 'B', 100, 20200));
	apply(b, msg_add('A', 5, 5, 'B', 100, 19900));
	assert_int_equal(side_prices(b, 5, BOOK_BID, got, 8), 5);
	assert_memory_equal(got, want_off, sizeof(want_off));
	book_assert_sound(b);

	apply(b, msg_delete(5, 3));
	assert_int_equal(sd->off_cent, 0);
	/* Now beside a neighbour: 20200 one cent down. */
	apply(b, msg_add('A', 5, 6, 'B', 100, 20300));
	assert_int_equal(side_prices(b, 5, BOOK_BID, got, 8), 5);
	assert_memory_equal(got, want_on, sizeof(want_on));
	book_assert_sound(b);

	sd->off_cent = 1;
	assert_int_not_equal(book_check(b, BOOK_CHECK_ALL_SIDES, why, sizeof(why)), 0);
	assert_non_null(strstr(why, "off a whole cent"));
	sd->off_cent = 0;
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, book_fixture_close)
	const struct CMUnitTest tests[] = {
		T(test_add_aggregates_levels),
		T(test_best_and_level_order),
		T(test_level_order_shuffled),
		T(test_level_order_shuffled),
		T(test_exec_partial_and_full),
		T(test_exec_locate_from_order),
		T(test_exec_overfill),
		T(test_exec_unknown_ref),
		T(test_exec_price),
		T(test_exec_price_unknown_ref),
		T(test_cancel),
		T(test_delete),
		T(test_replace),
		T(test_replace_unknown_orig_checked_first),
		T(test_replace_new_ref_live),
		T(test_add_dup_ref),
		T(test_book_full),
		T(test_prints_p_q_b),
		T(test_other_types_ignored),
		T(test_malformed),
		T(test_add_zero_shares_and_bad_side),
		T(test_tracking),
		T(test_colliding_refs),
		T(test_digest),
		T(test_clear),
		T(test_side_keeps_best_price),
		T(test_level_home_groups_ticks),
		T(test_link_beside_neighbour),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
