// SPDX-License-Identifier: MIT
/*
 * The paper fill model (book/fill.h, docs/paper.md), its rules one
 * by one on a hand-built book: the walk from the best level at each level's
 * price, the limit stopping it, a level our fill emptied not offered again,
 * the feed's own executions and cancels using up the untaken shares first,
 * a replace moving a level's shares, a level that empties forgetting what
 * was taken, a hidden print giving nothing, the execution cap, undo.  Then
 * a generated day through the model against a slow independent recount:
 * the reference book of book_model.h, its levels recomputed from the live
 * orders at every order, and its own map of taken shares.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "book/book_apply.h"
#include "book/daygen.h"
#include "book/fill.h"
#include "tests/unit/book_model.h"
#include "tests/unit/book_msgs.h"

#define LOC	7
#define PX(c)	((uint32_t)(100 * 10000 + (c) * 100))	/* $100 + c cents */

static uint64_t seq;

static void put(struct book *b, struct msg m)
{
	struct tape_print p;

	assert_true(m.len > 0);
	book_apply(b, m.b, m.len, ++seq, &p);
}

/*
 * Asks 100 @ +1c (refs 1, 2: 60 + 40), 200 @ +2c (3), 300 @ +4c (4);
 * bids 100 @ -1c (5), 50 @ -2c (6).
 */
static int setup(void **state)
{
	struct book_config cfg = { .max_orders = 1024, .track_all = true };
	struct book *b;

	if (book_fixture_open(state, &cfg))
		return -1;
	b = *state;
	seq = 0;
	put(b, msg_add('A', LOC, 1, 'S', 60, PX(1)));
	put(b, msg_add('A', LOC, 2, 'S', 40, PX(1)));
	put(b, msg_add('A', LOC, 3, 'S', 200, PX(2)));
	put(b, msg_add('A', LOC, 4, 'S', 300, PX(4)));
	put(b, msg_add('A', LOC, 5, 'B', 100, PX(-1)));
	put(b, msg_add('F', LOC, 6, 'B', 50, PX(-2)));
	return 0;
}

static uint32_t taken_at(const struct book *b, unsigned int side, uint32_t price)
{
	uint32_t i = level_find(&b->levels, LOC, side, price);

	return i ? b->levels.lv[i].taken : 0;
}

static void expect_valid(const struct book *b)
{
	char why[256];

	assert_int_equal(book_check(b, 0, why, sizeof(why)), 0);
}

static void test_walk_from_the_best_within_the_limit(void **state)
{
	struct book *b = *state;
	struct book_fill_exec ex[8];
	struct book_fill f = book_fill(b, LOC, 'B', PX(2), 250, ex, 8);

	assert_int_equal(f.nexec, 2);
	assert_int_equal(ex[0].price, PX(1));
	assert_int_equal(ex[0].shares, 100);
	assert_int_equal(ex[1].price, PX(2));
	assert_int_equal(ex[1].shares, 150);
	assert_int_equal(f.filled, 250);
	assert_int_equal(f.cash, 100ull * PX(1) + 150ull * PX(2));
	/* A sell walks the bids down; the limit stops it before -2c. */
	f = book_fill(b, LOC, 'S', PX(-1), 500, NULL, 0);
	assert_int_equal(f.filled, 100);
	assert_int_equal(f.nexec, 1);
	assert_int_equal(f.cash, 100ull * PX(-1));
	assert_int_equal(b->cnt.taken, 350);
	expect_valid(b);
}

static void test_the_limit_stops_the_walk(void **state)
{
	struct book *b = *state;
	struct book_fill f = book_fill(b, LOC, 'B', PX(0), 100, NULL, 0);

	assert_int_equal(f.filled, 0);			/* best ask above the limit */
	assert_int_equal(f.nexec, 0);
	f = book_fill(b, LOC, 'B', PX(3), 1000, NULL, 0);
	assert_int_equal(f.filled, 300);		/* +4c is beyond it */
	assert_int_equal(taken_at(b, BOOK_ASK, PX(4)), 0);
	/* Neither a bad side nor an empty book fills. */
	f = book_fill(b, LOC, 'X', PX(9), 100, NULL, 0);
	assert_int_equal(f.filled, 0);
	f = book_fill(b, LOC + 1, 'B', PX(9), 100, NULL, 0);
	assert_int_equal(f.filled, 0);
}

static void test_a_level_our_fill_emptied_is_not_offered_again(void **state)
{
	struct book *b = *state;
	struct book_fill f = book_fill(b, LOC, 'B', PX(1), 100, NULL, 0);

	assert_int_equal(f.filled, 100);
	assert_int_equal(taken_at(b, BOOK_ASK, PX(1)), 100);
	/* The feed still shows 100 at +1c; we have none of it: the next buy
	 * starts at +2c. */
	assert_int_equal(book_best(b, LOC, BOOK_ASK)->shares, 100);
	f = book_fill(b, LOC, 'B', PX(1), 10, NULL, 0);
	assert_int_equal(f.filled, 0);
	f = book_fill(b, LOC, 'B', PX(2), 10, NULL, 0);
	assert_int_equal(f.filled, 10);
	assert_int_equal(f.cash, 10ull * PX(2));
	/* Shares the feed adds are there at once. */
	put(b, msg_add('A', LOC, 9, 'S', 25, PX(1)));
	f = book_fill(b, LOC, 'B', PX(1), 100, NULL, 0);
	assert_int_equal(f.filled, 25);
	expect_valid(b);
}

static void test_the_feeds_executions_and_cancels_use_untaken_shares_first(void **state)
{
	struct book *b = *state;
	struct book_fill f = book_fill(b, LOC, 'B', PX(2), 30, NULL, 0);

	assert_int_equal(f.filled, 30);			/* 30 of +1c's 100 */
	put(b, msg_exec(LOC, 1, 50));			/* 50 left, 30 of them ours */
	assert_int_equal(taken_at(b, BOOK_ASK, PX(1)), 30);
	f = book_fill(b, LOC, 'B', PX(1), 100, NULL, 0);
	assert_int_equal(f.filled, 20);
	put(b, msg_cancel(LOC, 2, 35));			/* 15 left: taken 50 -> 15 */
	assert_int_equal(book_best(b, LOC, BOOK_ASK)->shares, 15);
	assert_int_equal(taken_at(b, BOOK_ASK, PX(1)), 15);
	f = book_fill(b, LOC, 'B', PX(1), 100, NULL, 0);
	assert_int_equal(f.filled, 0);
	put(b, msg_add('A', LOC, 9, 'S', 40, PX(1)));	/* 55, 15 taken */
	f = book_fill(b, LOC, 'B', PX(1), 100, NULL, 0);
	assert_int_equal(f.filled, 40);
	expect_valid(b);
}

static void test_a_replace_moves_a_levels_shares(void **state)
{
	struct book *b = *state;
	struct book_fill f = book_fill(b, LOC, 'B', PX(2), 300, NULL, 0);

	assert_int_equal(f.filled, 300);		/* +1c and +2c all ours */
	/* Ref 3 (200 @ +2c) moves to +3c: +2c empties and forgets, +3c has
	 * 200 nobody took. */
	put(b, msg_replace(LOC, 3, 30, 200, PX(3)));
	assert_int_equal(level_find(&b->levels, LOC, BOOK_ASK, PX(2)), 0);
	assert_int_equal(taken_at(b, BOOK_ASK, PX(3)), 0);
	f = book_fill(b, LOC, 'B', PX(3), 500, NULL, 0);
	assert_int_equal(f.filled, 200);
	assert_int_equal(f.cash, 200ull * PX(3));
	/* Ref 1 (60 of +1c's 100, all taken) is replaced by 10 at +1c: its
	 * first half leaves 40 (taken 40), its second adds 10 nobody took. */
	put(b, msg_replace(LOC, 1, 31, 10, PX(1)));
	assert_int_equal(book_best(b, LOC, BOOK_ASK)->shares, 50);
	assert_int_equal(taken_at(b, BOOK_ASK, PX(1)), 40);
	f = book_fill(b, LOC, 'B', PX(1), 100, NULL, 0);
	assert_int_equal(f.filled, 10);
	expect_valid(b);
}

static void test_a_level_that_empties_forgets(void **state)
{
	struct book *b = *state;
	struct book_fill f = book_fill(b, LOC, 'S', PX(-1), 100, NULL, 0);

	assert_int_equal(f.filled, 100);
	put(b, msg_delete(LOC, 5));			/* -1c leaves the book */
	put(b, msg_add('A', LOC, 10, 'B', 70, PX(-1)));	/* a new -1c level */
	assert_int_equal(taken_at(b, BOOK_BID, PX(-1)), 0);
	f = book_fill(b, LOC, 'S', PX(-1), 100, NULL, 0);
	assert_int_equal(f.filled, 70);
}

static void test_a_hidden_print_gives_nothing(void **state)
{
	struct book *b = *state;
	struct book_fill f;

	/* Non-displayed trades at +1c and at the bid: the displayed book is
	 * unchanged, and an empty side stays empty. */
	put(b, msg_trade(LOC, 5000, PX(1)));
	put(b, msg_trade(LOC + 1, 5000, PX(1)));
	f = book_fill(b, LOC, 'B', PX(1), 1000, NULL, 0);
	assert_int_equal(f.filled, 100);
	f = book_fill(b, LOC + 1, 'B', PX(1), 1000, NULL, 0);
	assert_int_equal(f.filled, 0);
}

static void test_the_execution_cap_and_undo(void **state)
{
	struct book *b = *state;
	struct book_fill_exec ex[2];
	struct book_fill f = book_fill(b, LOC, 'B', PX(9), 1000, ex, 2);

	assert_int_equal(f.nexec, 2);			/* +4c not reached */
	assert_int_equal(f.filled, 300);
	assert_int_equal(taken_at(b, BOOK_ASK, PX(4)), 0);
	book_fill_undo(b, ex, f.nexec);
	assert_int_equal(taken_at(b, BOOK_ASK, PX(1)), 0);
	assert_int_equal(taken_at(b, BOOK_ASK, PX(2)), 0);
	assert_int_equal(b->cnt.taken, 0);
	f = book_fill(b, LOC, 'B', PX(9), 1000, NULL, 0);
	assert_int_equal(f.filled, 600);
	assert_int_equal(f.nexec, 3);
}

/* ---- a generated day against the slow recount ---- */

/* The recount's taken shares: a short list keyed by (locate, side, price). */
#define R_TAKEN	4096

struct r_taken {
	uint16_t locate;
	char side;
	uint32_t price;
	uint64_t shares;
};

struct recount {
	struct model *m;
	struct r_taken t[R_TAKEN];
	unsigned int n;
};

static struct r_taken *r_find(struct recount *r, uint16_t loc, char side, uint32_t price)
{
	for (unsigned int i = 0; i < r->n; i++)
		if (r->t[i].locate == loc && r->t[i].side == side && r->t[i].price == price)
			return &r->t[i];
	return NULL;
}

/* The model's shares at (loc, side, price), from its live orders. */
static uint64_t r_level_shares(const struct model *m, uint16_t loc, char side,
			       uint32_t price)
{
	uint64_t s = 0;

	for (size_t b = 0; b < M_BUCKETS; b++)
		for (const struct m_order *o = m->bucket[b]; o; o = o->next)
			if (o->locate == loc && o->side == side && o->price == price)
				s += o->shares;
	return s;
}

/* The level of @o loses @lost shares: taken at most what is left. */
static void r_shrink(struct recount *r, const struct m_order *o, uint64_t lost)
{
	struct r_taken *t = r_find(r, o->locate, o->side, o->price);
	uint64_t left;

	if (!t)
		return;
	left = r_level_shares(r->m, o->locate, o->side, o->price) - lost;
	if (t->shares > left)
		t->shares = left;
	if (!t->shares)
		*t = r->t[--r->n];
}

/* Before @msg is applied: what it takes off which level. */
static void r_before(struct recount *r, const uint8_t *msg, uint16_t len)
{
	struct itch_msg d;
	struct m_order **p;

	if (itch_decode(msg, len, &d) < 0)
		return;
	switch (d.type) {
	case 'E':
	case 'C':
	case 'X':
		/* E, C and X decode their ref and shares alike. */
		p = m_slot(r->m, d.type == 'X' ? d.x.order_ref : d.e.order_ref);
		if (*p)
			r_shrink(r, *p, d.type == 'X' ? (d.x.shares < (*p)->shares ?
							 d.x.shares : (*p)->shares) :
				 (d.e.shares < (*p)->shares ? d.e.shares : (*p)->shares));
		break;
	case 'D':
		p = m_slot(r->m, d.d.order_ref);
		if (*p)
			r_shrink(r, *p, (*p)->shares);
		break;
	case 'U':
		/* The first half: the original leaves its level. */
		p = m_slot(r->m, d.u.orig_ref);
		if (*p && !*m_slot(r->m, d.u.new_ref))
			r_shrink(r, *p, (*p)->shares);
		break;
	}
}

/* The same order the plain way: sort the live orders into levels, walk. */
static struct book_fill r_fill(struct recount *r, uint16_t loc, char side, uint32_t limit,
			       uint32_t shares)
{
	char opp = side == 'B' ? 'S' : 'B';
	struct book_fill f = { 0 };
	struct m_level *lv;
	long n = m_levels(r->m, &lv), first = -1, last = -1;

	assert_true(n >= 0);
	for (long i = 0; i < n; i++)
		if (lv[i].locate == loc && lv[i].side == opp) {
			if (first < 0)
				first = i;
			last = i;
		}
	/* m_levels() sorts bids high to low and asks low to high: best first. */
	for (long i = first; first >= 0 && i <= last && f.filled < shares; i++) {
		struct r_taken *t = r_find(r, loc, opp, lv[i].price);
		uint64_t avail = lv[i].shares - (t ? t->shares : 0);
		uint32_t take;

		if (side == 'B' ? lv[i].price > limit : lv[i].price < limit)
			break;
		if (!avail)
			continue;
		take = avail < shares - f.filled ? (uint32_t)avail : shares - f.filled;
		if (!t) {
			assert_true(r->n < R_TAKEN);
			t = &r->t[r->n++];
			*t = (struct r_taken){ loc, opp, lv[i].price, 0 };
		}
		t->shares += take;
		f.filled += take;
		f.cash += (uint64_t)take * lv[i].price;
		f.nexec++;
	}
	free(lv);
	return f;
}

static void test_a_generated_day_against_the_recount(void **state)
{
	struct daygen_config gc = { .messages = 60000, .symbols = 3, .seed = 7,
				    .max_orders = 1u << 16 };
	struct book_config bc = { .max_orders = 1u << 16, .track_all = true };
	struct recount *r = calloc(1, sizeof(*r));
	uint8_t buf[DAYGEN_MSG_MAX];
	uint64_t rng = 0x9e3779b97f4a7c15ull, orders = 0, filled = 0, s = 0;
	struct daygen *g;
	struct book b;
	char err[256];
	uint16_t len;

	(void)state;
	assert_non_null(r);
	r->m = calloc(1, sizeof(*r->m));
	assert_non_null(r->m);
	r->m->cap = UINT64_MAX;
	assert_int_equal(daygen_new(&g, &gc, err, sizeof(err)), 0);
	assert_int_equal(book_init(&b, &bc), 0);
	while ((len = daygen_next(g, buf))) {
		struct tape_print p, pm;

		r_before(r, buf, len);
		book_apply(&b, buf, len, ++s, &p);
		m_apply(r->m, buf, len, s, &pm);
		if (s % 37)
			continue;
		/* An order at the touch or through it, now and then. */
		rng = rng * 6364136223846793005ull + 1442695040888963407ull;
		{
			uint16_t loc = (uint16_t)(1 + (rng >> 33) % gc.symbols);
			char side = (rng >> 40) & 1 ? 'B' : 'S';
			const struct book_level *best = book_best(&b, loc, side == 'B' ?
								  BOOK_ASK : BOOK_BID);
			uint32_t sh = 1 + (uint32_t)((rng >> 20) % 800), lim, off;
			struct book_fill f, rf;

			if (!best)
				continue;
			off = (uint32_t)((rng >> 12) % 4) * 100;
			lim = side == 'B' ? best->price + off : best->price - off;
			f = book_fill(&b, loc, side, lim, sh, NULL, 0);
			rf = r_fill(r, loc, side, lim, sh);
			assert_int_equal(f.filled, rf.filled);
			assert_int_equal(f.cash, rf.cash);
			assert_int_equal(f.nexec, rf.nexec);
			orders++;
			filled += f.filled;
		}
		if (!(s % 4096))
			expect_valid(&b);
	}
	expect_valid(&b);
	/* The day exercised the model: orders, and shares that were there. */
	assert_true(orders > 1000);
	assert_true(filled > 0);
	book_destroy(&b);
	daygen_free(g);
	m_free(r->m);
	free(r->m);
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_walk_from_the_best_within_the_limit,
						setup, book_fixture_close),
		cmocka_unit_test_setup_teardown(test_the_limit_stops_the_walk, setup, book_fixture_close),
		cmocka_unit_test_setup_teardown(test_a_level_our_fill_emptied_is_not_offered_again,
						setup, book_fixture_close),
		cmocka_unit_test_setup_teardown(
			test_the_feeds_executions_and_cancels_use_untaken_shares_first,
			setup, book_fixture_close),
		cmocka_unit_test_setup_teardown(test_a_replace_moves_a_levels_shares,
						setup, book_fixture_close),
		cmocka_unit_test_setup_teardown(test_a_level_that_empties_forgets, setup, book_fixture_close),
		cmocka_unit_test_setup_teardown(test_a_hidden_print_gives_nothing, setup, book_fixture_close),
		cmocka_unit_test_setup_teardown(test_the_execution_cap_and_undo, setup, book_fixture_close),
		cmocka_unit_test(test_a_generated_day_against_the_recount),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
