// SPDX-License-Identifier: MIT
/*
 * The levels' window (book/levels.h): it follows a best that rises past it
 * and one that recedes past its middle, takes in the list when it empties,
 * turns its side to list mode for a price off its grid, wraps around its
 * circular slots, and a side that finds the pool empty lists its levels.
 * Each test checks the order of the levels, where each one lives (window
 * or list), and runs the book's self-check after every message; the last
 * one runs random days with wide price moves against the model.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tests/unit/book_msgs.h"
#include "tests/unit/book_model.h"
#include "util/rng.h"

#define CENT	100u
#define DOLLAR	10000u

static int setup_pool(void **state, uint32_t windows)
{
	struct book_config cfg = { .max_orders = 4096, .windows = windows, .track_all = true };

	return book_fixture_open(state, &cfg);
}

static int setup(void **state)
{
	return setup_pool(state, 0);
}

static int setup_one_window(void **state)
{
	return setup_pool(state, 1);
}

static void apply(struct book *b, struct msg m)
{
	struct tape_print p;

	book_apply(b, m.b, m.len, 1, &p);
	book_assert_sound(b);
}

static void add(struct book *b, uint16_t loc, uint64_t ref, char side, uint32_t price)
{
	apply(b, msg_add('A', loc, ref, side, 100, price));
}

/* The side's prices from the best, checked against @want. */
static void expect_prices(const struct book *b, uint16_t loc, unsigned int side,
			  const uint32_t *want, unsigned int n)
{
	const struct book_level *l = book_best(b, loc, side);

	for (unsigned int i = 0; i < n; i++, l = book_level_next(b, l)) {
		assert_non_null(l);
		assert_int_equal(l->price, want[i]);
		assert_int_equal(level_find(&b->levels, loc, side, want[i]), l - b->levels.lv);
	}
	assert_null(l);
	assert_int_equal(book_nlevels(b, loc, side), n);
}

/* True when the level of @price is on its side's list, not in the window. */
static int listed(const struct book *b, uint16_t loc, unsigned int side, uint32_t price)
{
	const struct level_store *s = &b->levels;

	assert_int_not_equal(level_find(s, loc, side, price), 0);
	return level_listed(s, level_side(s, loc, side), side, price);
}

static uint32_t block_of(const struct book *b, uint16_t loc, unsigned int side)
{
	const struct level_store *s = &b->levels;

	return *win_block(s, level_side(s, loc, side));
}

static void test_window_moves_up_with_a_new_best(void **state)
{
	struct book *b = *state;
	static const uint32_t want[] = { 21 * DOLLAR, 20 * DOLLAR, 13 * DOLLAR };

	add(b, 1, 1, 'B', 20 * DOLLAR);
	add(b, 1, 2, 'B', 13 * DOLLAR);		/* 700 ticks down: in the window */
	assert_false(listed(b, 1, BOOK_BID, 13 * DOLLAR));
	/* 100 ticks up: past the margin, the window moves up 100 and the
	 * level 700 ticks down falls off its far end onto the list. */
	add(b, 1, 3, 'B', 21 * DOLLAR);
	expect_prices(b, 1, BOOK_BID, want, 3);
	assert_true(listed(b, 1, BOOK_BID, 13 * DOLLAR));
	assert_false(listed(b, 1, BOOK_BID, 20 * DOLLAR));
	assert_int_equal(book_best(b, 1, BOOK_BID)->price, 21 * DOLLAR);
}

static void test_window_takes_in_the_list_when_it_empties(void **state)
{
	struct book *b = *state;
	static const uint32_t want[] = { 13 * DOLLAR, 12 * DOLLAR + 50 * CENT };

	add(b, 1, 1, 'B', 20 * DOLLAR);
	add(b, 1, 2, 'B', 13 * DOLLAR);
	add(b, 1, 3, 'B', 21 * DOLLAR);
	add(b, 1, 4, 'B', 12 * DOLLAR + 50 * CENT);
	assert_true(listed(b, 1, BOOK_BID, 12 * DOLLAR + 50 * CENT));
	apply(b, msg_delete(1, 3));
	apply(b, msg_delete(1, 1));
	expect_prices(b, 1, BOOK_BID, want, 2);
	assert_false(listed(b, 1, BOOK_BID, 13 * DOLLAR));
	assert_false(listed(b, 1, BOOK_BID, 12 * DOLLAR + 50 * CENT));
	/* The last level gone, the block goes back to the pool. */
	apply(b, msg_delete(1, 2));
	apply(b, msg_delete(1, 4));
	assert_null(book_best(b, 1, BOOK_BID));
	assert_int_equal(block_of(b, 1, BOOK_BID), 0);
}

static void test_window_follows_a_best_past_its_middle(void **state)
{
	struct book *b = *state;
	static const uint32_t want[] = { 26 * DOLLAR, 30 * DOLLAR };

	add(b, 2, 1, 'S', 22 * DOLLAR);
	add(b, 2, 2, 'S', 26 * DOLLAR);		/* 400 ticks up */
	add(b, 2, 3, 'S', 30 * DOLLAR);		/* 800 up: listed */
	assert_true(listed(b, 2, BOOK_ASK, 30 * DOLLAR));
	apply(b, msg_delete(2, 1));
	expect_prices(b, 2, BOOK_ASK, want, 2);
	assert_false(listed(b, 2, BOOK_ASK, 30 * DOLLAR));
}

static void test_a_price_off_its_grid_lists_the_side(void **state)
{
	struct book *b = *state;
	static const uint32_t want[] = { 20 * DOLLAR, 20 * DOLLAR + 50, 20 * DOLLAR + CENT };
	static const uint32_t far[] = { 20 * DOLLAR, 29 * DOLLAR + 50 };

	add(b, 3, 1, 'S', 20 * DOLLAR);
	add(b, 3, 2, 'S', 20 * DOLLAR + CENT);
	assert_int_not_equal(block_of(b, 3, BOOK_ASK), 0);
	add(b, 3, 3, 'S', 20 * DOLLAR + 50);	/* half a cent: no tick of its own */
	assert_int_equal(block_of(b, 3, BOOK_ASK), 0);
	expect_prices(b, 3, BOOK_ASK, want, 3);
	apply(b, msg_delete(3, 3));
	apply(b, msg_delete(3, 1));
	apply(b, msg_delete(3, 2));
	/* Empty again: the next level opens a window. */
	add(b, 3, 4, 'S', 20 * DOLLAR);
	assert_int_not_equal(block_of(b, 3, BOOK_ASK), 0);
	/* Off the grid worse than the whole window: listed, the window stays. */
	add(b, 3, 5, 'S', 29 * DOLLAR + 50);
	assert_int_not_equal(block_of(b, 3, BOOK_ASK), 0);
	assert_true(listed(b, 3, BOOK_ASK, 29 * DOLLAR + 50));
	expect_prices(b, 3, BOOK_ASK, far, 2);
	/* And off the grid above the best: the side is listed. */
	add(b, 3, 6, 'S', 19 * DOLLAR + 50);
	assert_int_equal(block_of(b, 3, BOOK_ASK), 0);
	assert_int_equal(book_best(b, 3, BOOK_ASK)->price, 19 * DOLLAR + 50);
}

/*
 * The window's slots are circular: asks whose window starts 68 slots
 * before the end run across the end and on from slot 0.
 */
static void test_slots_wrap_around(void **state)
{
	struct book *b = *state;
	uint32_t grid = 764 + 768 * 30;		/* its window starts at slot 700 */
	uint32_t best = DOLLAR + (grid - DOLLAR) * CENT, want[6];
	static const uint32_t up[] = { 0, 67, 68, 69, 100, 300 };

	for (unsigned int i = 0; i < 6; i++) {
		want[i] = best + up[i] * CENT;
		add(b, 4, 10 + i, 'S', want[i]);
	}
	/* Ticks 67 and 68 of the window are slots 767 and 0. */
	assert_int_equal(win_slot(level_side(&b->levels, 4, BOOK_ASK)->base), 700);
	expect_prices(b, 4, BOOK_ASK, want, 6);
	for (unsigned int i = 0; i < 6; i++)
		assert_false(listed(b, 4, BOOK_ASK, want[i]));
	/* The best leaves, then the next: the one after is across the end. */
	apply(b, msg_delete(4, 10));
	apply(b, msg_delete(4, 11));
	assert_int_equal(book_best(b, 4, BOOK_ASK)->price, want[2]);
	expect_prices(b, 4, BOOK_ASK, want + 2, 4);
}

/* Below a dollar a tick is a hundredth of a cent, and the ranks run on. */
static void test_ticks_across_the_dollar(void **state)
{
	struct book *b = *state;
	static const uint32_t want[] = { DOLLAR + CENT, DOLLAR, DOLLAR - 1, DOLLAR - 10 };

	add(b, 5, 1, 'B', DOLLAR - 1);
	add(b, 5, 2, 'B', DOLLAR + CENT);
	add(b, 5, 3, 'B', DOLLAR - 10);
	add(b, 5, 4, 'B', DOLLAR);
	expect_prices(b, 5, BOOK_BID, want, 4);
	for (unsigned int i = 0; i < 4; i++)
		assert_false(listed(b, 5, BOOK_BID, want[i]));
}

/* A side that finds the pool empty lists its levels, and keeps its order. */
static void test_an_empty_pool_lists_the_side(void **state)
{
	struct book *b = *state;
	static const uint32_t want[] = { 20 * DOLLAR, 19 * DOLLAR, 10 * DOLLAR };

	add(b, 6, 1, 'B', 20 * DOLLAR);
	assert_int_not_equal(block_of(b, 6, BOOK_BID), 0);
	add(b, 7, 2, 'B', 19 * DOLLAR);
	add(b, 7, 3, 'B', 20 * DOLLAR);
	add(b, 7, 4, 'B', 10 * DOLLAR);
	assert_int_equal(block_of(b, 7, BOOK_BID), 0);
	assert_true(listed(b, 7, BOOK_BID, 20 * DOLLAR));
	expect_prices(b, 7, BOOK_BID, want, 3);
	apply(b, msg_delete(7, 3));
	assert_int_equal(book_best(b, 7, BOOK_BID)->price, 19 * DOLLAR);
	/* The first side empties: the next new side gets its block. */
	apply(b, msg_delete(6, 1));
	add(b, 8, 5, 'S', 5 * DOLLAR);
	assert_int_not_equal(block_of(b, 8, BOOK_ASK), 0);
}

/*
 * Random messages on three books whose prices wander by hundreds of ticks
 * and jump now and then (a few off the grid, one book around a dollar),
 * against the model: the self-check after every message, every level in
 * order at the end.  The check of the 65536 locates' empty sides runs every
 * 1024 messages and at the end (after every one it took minutes under ASan).
 */
static void test_wide_moves_match_the_model(void **state)
{
	struct book *b = *state;
	struct model *m = calloc(1, sizeof(*m));
	uint64_t live[512] = { 0 }, next_ref = 1, rng = 0x5eed;
	uint32_t mid[3] = { 50 * DOLLAR, DOLLAR, 300 * DOLLAR };
	struct m_level *lv;
	long n;

	assert_non_null(m);
	m->cap = 4096;
	for (int i = 0; i < 60000; i++) {
		unsigned int slot = (unsigned int)(splitmix64(&rng) % 512), loc = slot % 3;
		uint64_t r = splitmix64(&rng);
		uint32_t tick = mid[loc] < DOLLAR ? 1 : CENT, px;
		struct tape_print p;
		struct msg msg;

		if (r % 97 == 0 && ((r >> 8) % 2 || mid[loc] < 2000 * tick))
			mid[loc] += 900 * tick;
		else if (r % 97 == 0)
			mid[loc] -= 900 * tick;
		else if (r % 3 == 0 && ((r >> 8) % 2 || mid[loc] < 1000 + tick))
			mid[loc] += tick;
		else if (r % 3 == 0)
			mid[loc] -= tick;
		px = mid[loc] + ((uint32_t)(r >> 16) % 600) * tick;
		if ((r >> 32) % 2)
			px = px > 600 * tick ? px - 600 * tick : px;
		if ((r >> 40) % 50 == 0)
			px += 50;	/* off its grid from a dollar up */
		if (!live[slot]) {
			live[slot] = next_ref++;
			msg = msg_add('A', (uint16_t)(loc + 1), live[slot],
				      (r >> 48) % 2 ? 'B' : 'S', 1 + (uint32_t)(r % 300), px);
		} else if ((r >> 56) % 4 == 0) {
			uint64_t nref = next_ref++;

			msg = msg_replace((uint16_t)(loc + 1), live[slot], nref,
					  1 + (uint32_t)(r % 300), px);
			live[slot] = nref;
		} else if ((r >> 56) % 4 == 1) {
			msg = msg_exec((uint16_t)(loc + 1), live[slot], 1 + (uint32_t)(r % 200));
		} else {
			msg = msg_delete((uint16_t)(loc + 1), live[slot]);
			live[slot] = 0;
		}
		book_apply(b, msg.b, msg.len, (uint64_t)i + 1, &p);
		m_apply(m, msg.b, msg.len, (uint64_t)i + 1, &p);
		book_assert_checked(b, i % 1024 ? 0 : BOOK_CHECK_ALL_SIDES);
		/* An execution may have taken the whole order. */
		if (live[slot] && !book_find(b, live[slot]))
			live[slot] = 0;
	}
	book_assert_sound(b);
	n = m_levels(m, &lv);
	assert_true(n > 0);
	assert_int_equal(n, b->levels.used);
	assert_true(m_digest(lv, n) == book_digest(b));
	free(lv);
	m_free(m);
	free(m);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, book_fixture_close)
	const struct CMUnitTest tests[] = {
		T(test_window_moves_up_with_a_new_best),
		T(test_window_takes_in_the_list_when_it_empties),
		T(test_window_follows_a_best_past_its_middle),
		T(test_a_price_off_its_grid_lists_the_side),
		T(test_slots_wrap_around),
		T(test_ticks_across_the_dollar),
		cmocka_unit_test_setup_teardown(test_an_empty_pool_lists_the_side,
						setup_one_window, book_fixture_close),
		T(test_wide_moves_match_the_model),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
