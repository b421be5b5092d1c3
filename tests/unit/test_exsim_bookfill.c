// SPDX-License-Identifier: MIT
/*
 * exsim's paper fills against the published book (netns/exsim/bookfill.h,
 * fill.h) on a hand-built book: a full fill at one level and across
 * levels, a partial fill (Executed per level, the rest canceled), nothing
 * marketable, an empty side, sells, the level cap; the book never changed
 * by a fill; shares taken not offered twice, the feed's own removals using
 * up the untaken shares first (book/fill.h), new shares at once; positions,
 * cash and the mark at the last print.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "book/book.h"
#include "netns/exsim/bookfill.h"
#include "netns/exsim/fill.h"

#define PX(d, c)	((uint32_t)((d) * 10000 + (c) * 100))	/* dollars, cents */

static struct bookfill bf;
static struct fill_book book;
static uint64_t seq;

static void publish(const struct itch_msg *m)
{
	uint8_t buf[64];
	int len = itch_encode(buf, sizeof(buf), m);

	assert_true(len > 0);
	fill_on_publish(&book, ++seq, buf, (uint16_t)len);
}

static void event(char ev)
{
	struct itch_msg m = { .type = 'S', .s.event = ev };

	publish(&m);
}

static void list(uint16_t loc, const char *sym)
{
	struct itch_msg m = { .type = 'R', .locate = loc };

	memcpy(m.r.stock, sym, ITCH_SYMBOL_LEN);
	publish(&m);
}

static void add(uint16_t loc, uint64_t ref, char side, uint32_t shares, uint32_t price)
{
	struct itch_msg m = { .type = 'A', .locate = loc };

	m.a.order_ref = ref;
	m.a.side = side;
	m.a.shares = shares;
	m.a.price = price;
	memcpy(m.a.stock, "AAPL    ", ITCH_SYMBOL_LEN);
	publish(&m);
}

static void exec(uint16_t loc, uint64_t ref, uint32_t shares)
{
	struct itch_msg m = { .type = 'E', .locate = loc };

	m.e.order_ref = ref;
	m.e.shares = shares;
	m.e.match = seq;
	publish(&m);
}

static void del(uint16_t loc, uint64_t ref)
{
	struct itch_msg m = { .type = 'D', .locate = loc };

	m.d.order_ref = ref;
	publish(&m);
}

/*
 * AAPL (locate 1):   bids 100 @ 99.99, 50 @ 99.98
 *                    asks 100 @ 100.00, 200 @ 100.01, 300 @ 100.03
 * MSFT (locate 2):   empty.
 */
static int setup(void **state)
{
	(void)state;
	seq = 0;
	if (bookfill_init(&bf, 4096) || fill_init(&book, 1000000, &bf))
		return -1;
	event('O');
	list(1, "AAPL    ");
	list(2, "MSFT    ");
	event('Q');
	add(1, 1, 'S', 100, PX(100, 0));
	add(1, 2, 'S', 200, PX(100, 1));
	add(1, 3, 'S', 300, PX(100, 3));
	add(1, 4, 'B', 100, PX(99, 99));
	add(1, 5, 'B', 50, PX(99, 98));
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	fill_destroy(&book);
	bookfill_destroy(&bf);
	return 0;
}

static struct fill_result order(const char *sym, char side, uint32_t shares, uint32_t limit)
{
	struct ouch_enter_order o = { .side = side, .shares = shares, .price = limit };
	struct fill_result r;
	size_t n = strlen(sym);

	memcpy(o.stock, sym, n);
	memset(o.stock + n, ' ', sizeof(o.stock) - n);
	memset(o.token, 'A', sizeof(o.token));
	fill_order(&book, &o, &r);
	return r;
}

static void expect_exec(const struct fill_result *r, unsigned int i, uint32_t shares,
			uint32_t price)
{
	assert_true(i < r->nexec);
	assert_int_equal(r->exec[i].shares, shares);
	assert_int_equal(r->exec[i].price, price);
}

static void test_full_one_level(void **state)
{
	uint64_t digest = book_digest(&bf.book);
	struct fill_result r = order("AAPL", 'B', 60, PX(100, 0));

	(void)state;
	assert_int_equal(r.outcome, FILL_EXECUTED);
	assert_int_equal(r.nexec, 1);
	expect_exec(&r, 0, 60, PX(100, 0));
	assert_int_equal(r.filled, 60);
	assert_int_equal(r.canceled, 0);
	assert_int_equal(r.value, 60ull * PX(100, 0));
	assert_int_equal(book.n.executed, 1);
	assert_int_equal(book.n.partial, 0);
	/* Paper: the published book is as it was. */
	assert_true(book_digest(&bf.book) == digest);
	assert_int_equal(fill_sym(&book, 1)->position, 60);
	assert_int_equal(fill_sym(&book, 1)->cash, -60 * (int64_t)PX(100, 0));
}

static void test_full_across_levels(void **state)
{
	struct fill_result r = order("AAPL", 'B', 250, PX(100, 2));

	(void)state;
	assert_int_equal(r.outcome, FILL_EXECUTED);
	assert_int_equal(r.nexec, 2);
	expect_exec(&r, 0, 100, PX(100, 0));	/* best first, at each level's price */
	expect_exec(&r, 1, 150, PX(100, 1));
	assert_int_equal(r.canceled, 0);
	assert_int_equal(book.n.executions, 2);
	assert_int_equal(fill_sym(&book, 1)->cash,
			 -(100 * (int64_t)PX(100, 0) + 150 * (int64_t)PX(100, 1)));
}

static void test_partial(void **state)
{
	struct fill_result r = order("AAPL", 'B', 500, PX(100, 1));

	(void)state;
	assert_int_equal(r.outcome, FILL_EXECUTED);
	assert_int_equal(r.nexec, 2);
	expect_exec(&r, 0, 100, PX(100, 0));
	expect_exec(&r, 1, 200, PX(100, 1));	/* 100.03 is beyond the limit */
	assert_int_equal(r.filled, 300);
	assert_int_equal(r.canceled, 200);
	assert_int_equal(r.reason, FILL_CANCEL_IOC);
	assert_int_equal(book.n.partial, 1);
	assert_int_equal(fill_sym(&book, 1)->position, 300);
	assert_int_equal(fill_sym(&book, 1)->bought, 300);
	assert_int_equal(fill_sym(&book, 1)->fills, 2);
}

static void test_not_marketable(void **state)
{
	struct fill_result r;

	(void)state;
	r = order("AAPL", 'B', 100, PX(99, 99));	/* below the best ask */
	assert_int_equal(r.outcome, FILL_CANCELED);
	assert_int_equal(r.reason, FILL_CANCEL_IOC);
	assert_int_equal(r.nexec, 0);
	assert_int_equal(r.canceled, 100);
	r = order("AAPL", 'S', 100, PX(100, 0));	/* above the best bid */
	assert_int_equal(r.outcome, FILL_CANCELED);
	r = order("MSFT", 'B', 100, PX(500, 0));	/* an empty book */
	assert_int_equal(r.outcome, FILL_CANCELED);
	assert_int_equal(book.n.canceled, 3);
	assert_int_equal(book.n.executed, 0);
	assert_int_equal(fill_sym(&book, 1)->position, 0);
}

static void test_sell_side(void **state)
{
	struct fill_result r = order("AAPL", 'T', 120, PX(99, 98));

	(void)state;
	assert_int_equal(r.outcome, FILL_EXECUTED);
	assert_int_equal(r.nexec, 2);
	expect_exec(&r, 0, 100, PX(99, 99));
	expect_exec(&r, 1, 20, PX(99, 98));
	assert_int_equal(fill_sym(&book, 1)->position, -120);
	assert_int_equal(fill_sym(&book, 1)->sold, 120);
	assert_int_equal(fill_sym(&book, 1)->cash, 100 * (int64_t)PX(99, 99) +
			 20 * (int64_t)PX(99, 98));
}

/* Taken shares are not offered twice; the feed's removals clamp them. */
static void test_taken_once(void **state)
{
	struct fill_result r;

	(void)state;
	r = order("AAPL", 'B', 100, PX(100, 0));
	assert_int_equal(r.filled, 100);
	r = order("AAPL", 'B', 100, PX(100, 0));	/* the same 100 shares again: no */
	assert_int_equal(r.outcome, FILL_CANCELED);
	assert_int_equal(book_best(&bf.book, 1, BOOK_ASK)->taken, 100);

	/* A new order at the level is there at once. */
	add(1, 6, 'S', 70, PX(100, 0));
	r = order("AAPL", 'B', 100, PX(100, 0));
	assert_int_equal(r.filled, 70);
	assert_int_equal(r.canceled, 30);

	/* 170 displayed, 170 taken.  The feed executes 100 of them (ref 1):
	 * the level shows 70, taken min(170, 70): all still taken. */
	exec(1, 1, 100);
	assert_int_equal(book_best(&bf.book, 1, BOOK_ASK)->taken, 70);
	r = order("AAPL", 'B', 10, PX(100, 0));
	assert_int_equal(r.outcome, FILL_CANCELED);
	/* The last 70 leave (deleted): the level is gone and forgets. */
	del(1, 6);
	assert_int_equal(book_best(&bf.book, 1, BOOK_ASK)->price, PX(100, 1));
	assert_int_equal(book_best(&bf.book, 1, BOOK_ASK)->taken, 0);
	add(1, 7, 'S', 40, PX(100, 0));
	r = order("AAPL", 'B', 100, PX(100, 0));
	assert_int_equal(r.filled, 40);
	assert_int_equal(bf.book.cnt.taken, 210);
}

/* Marked at the last print: an E prints at the resting order's price. */
static void test_mark_at_last_print(void **state)
{
	struct fill_result r = order("AAPL", 'B', 100, PX(100, 0));

	(void)state;
	assert_int_equal(r.filled, 100);
	assert_int_equal(fill_sym(&book, 1)->last, 0);
	exec(1, 2, 10);					/* a print at 100.01 */
	assert_int_equal(fill_sym(&book, 1)->last, PX(100, 1));
	assert_int_equal(fill_pnl(fill_sym(&book, 1)), 100 * 100);	/* +0.01 x 100 */
}

static void test_level_cap(void **state)
{
	struct fill_result r;

	(void)state;
	for (uint32_t i = 0; i < BOOKFILL_MAX_LEVELS + 8; i++)
		add(2, 100 + i, 'S', 1, PX(50, i));
	r = order("MSFT", 'B', 100, PX(60, 0));
	assert_int_equal(r.nexec, BOOKFILL_MAX_LEVELS);
	assert_int_equal(r.filled, BOOKFILL_MAX_LEVELS);
	assert_int_equal(r.canceled, 100 - BOOKFILL_MAX_LEVELS);
	for (unsigned int i = 0; i < r.nexec; i++)
		expect_exec(&r, i, 1, PX(50, i));
}

static void test_closed_and_unknown(void **state)
{
	struct fill_result r;

	(void)state;
	r = order("IBM", 'B', 100, PX(100, 0));		/* not in the directory */
	assert_int_equal(r.outcome, FILL_REJECTED);
	assert_int_equal(r.reason, FILL_REJ_SYMBOL);
	event('M');
	r = order("AAPL", 'B', 100, PX(100, 0));
	assert_int_equal(r.outcome, FILL_REJECTED);
	assert_int_equal(r.reason, FILL_REJ_CLOSED);
	assert_int_equal(bf.book.cnt.taken, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_full_one_level, setup, teardown),
		cmocka_unit_test_setup_teardown(test_full_across_levels, setup, teardown),
		cmocka_unit_test_setup_teardown(test_partial, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_marketable, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sell_side, setup, teardown),
		cmocka_unit_test_setup_teardown(test_taken_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mark_at_last_print, setup, teardown),
		cmocka_unit_test_setup_teardown(test_level_cap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_closed_and_unknown, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
