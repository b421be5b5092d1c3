// SPDX-License-Identifier: MIT
/* exsim: the paper-fill model (netns/exsim/fill.h) and the tick source (gen.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "netns/exsim/fill.h"
#include "netns/exsim/gen.h"
#include "strategy/gbm.h"

static const char syms[3][ITCH_SYMBOL_LEN] = {
	{ 'A', 'A', 'P', 'L', ' ', ' ', ' ', ' ' },
	{ 'M', 'S', 'F', 'T', ' ', ' ', ' ', ' ' },
	{ 'I', 'B', 'M', ' ', ' ', ' ', ' ', ' ' },
};

static struct fill_book book;

static int setup(void **state)
{
	(void)state;
	if (fill_init(&book, 1000, NULL))
		return -1;
	for (uint16_t i = 0; i < 3; i++)
		fill_list(&book, i + 1, syms[i]);
	book.open = true;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	fill_destroy(&book);
	return 0;
}

static struct ouch_enter_order order(const char *sym, char side, uint32_t shares,
				     uint32_t price)
{
	struct ouch_enter_order o = { .side = side, .shares = shares, .price = price };
	size_t n = strlen(sym);

	memcpy(o.stock, sym, n);
	memset(o.stock + n, ' ', sizeof(o.stock) - n);
	memset(o.token, 'A', sizeof(o.token));
	return o;
}

static void expect(const struct ouch_enter_order *o, enum fill_outcome outcome,
		   char reason, uint32_t price)
{
	struct fill_result r;

	fill_order(&book, o, &r);
	assert_int_equal(r.outcome, outcome);
	if (outcome != FILL_EXECUTED) {
		assert_int_equal(r.reason, reason);
		assert_int_equal(r.nexec, 0);
		assert_int_equal(r.canceled, outcome == FILL_CANCELED ? o->shares : 0);
	} else {
		/* Against the last trade: in full, at one price. */
		assert_int_equal(r.nexec, 1);
		assert_int_equal(r.exec[0].price, price);
		assert_int_equal(r.exec[0].shares, o->shares);
		assert_int_equal(r.filled, o->shares);
		assert_int_equal(r.canceled, 0);
	}
}

static void test_rejects_in_order(void **state)
{
	struct ouch_enter_order o;

	(void)state;
	o = order("ZZZZ", 'B', 100, 1000000);
	expect(&o, FILL_REJECTED, 'S', 0);
	o = order("AAPL", 'X', 100, 1000000);
	expect(&o, FILL_REJECTED, 'O', 0);
	o = order("AAPL", 'B', 100, 1000000);
	o.tif = 99999;
	expect(&o, FILL_REJECTED, 'O', 0);
	o = order("AAPL", 'B', 0, 1000000);
	expect(&o, FILL_REJECTED, 'Z', 0);
	o = order("AAPL", 'B', 1001, 1000000);		/* over --max-shares */
	expect(&o, FILL_REJECTED, 'Z', 0);
	o = order("AAPL", 'B', 100, 0);
	expect(&o, FILL_REJECTED, 'X', 0);
	o = order("AAPL", 'B', 100, FILL_MAX_PRICE + 1);
	expect(&o, FILL_REJECTED, 'X', 0);
	/* An unknown symbol is named first even if all else is wrong too. */
	o = order("NOPE", 'X', 0, 0);
	expect(&o, FILL_REJECTED, 'S', 0);

	assert_int_equal(book.n.rejected, 8);
	assert_int_equal(book.n.unknown_symbol, 2);
	assert_int_equal(book.n.bad_side, 1);
	assert_int_equal(book.n.bad_tif, 1);
	assert_int_equal(book.n.bad_shares, 2);
	assert_int_equal(book.n.bad_price, 2);
	assert_int_equal(book.n.executed + book.n.canceled, 0);
}

static void test_closed_market(void **state)
{
	struct ouch_enter_order o = order("AAPL", 'B', 100, 1000000);

	(void)state;
	fill_set_last(&book, 1, 1000000);
	book.open = false;
	expect(&o, FILL_REJECTED, 'C', 0);
	book.open = true;
	expect(&o, FILL_EXECUTED, 0, 1000000);
	assert_int_equal(book.n.closed, 1);
}

static void test_no_price_cancels(void **state)
{
	struct ouch_enter_order o = order("MSFT", 'B', 100, 2000000);

	(void)state;
	expect(&o, FILL_CANCELED, 'I', 0);
	assert_int_equal(book.n.no_price, 1);
	assert_int_equal(book.sym[2].position, 0);
}

static void test_marketable_at_last(void **state)
{
	struct ouch_enter_order o;

	(void)state;
	fill_set_last(&book, 1, 1000000);		/* 100.0000 */
	o = order("AAPL", 'B', 300, 1000000);		/* limit == last: fills */
	expect(&o, FILL_EXECUTED, 0, 1000000);
	o = order("AAPL", 'B', 100, 1500000);		/* above: fills at last */
	expect(&o, FILL_EXECUTED, 0, 1000000);
	o = order("AAPL", 'B', 100, 999999);		/* one tick below: cancel */
	expect(&o, FILL_CANCELED, 'I', 0);
	o = order("AAPL", 'S', 100, 1000000);		/* sell at last: fills */
	expect(&o, FILL_EXECUTED, 0, 1000000);
	o = order("AAPL", 'T', 100, 1000001);		/* short, above: cancel */
	expect(&o, FILL_CANCELED, 'I', 0);
	o = order("AAPL", 'E', 100, 1);			/* short exempt, low: fills */
	expect(&o, FILL_EXECUTED, 0, 1000000);

	assert_int_equal(book.n.executed, 4);
	assert_int_equal(book.n.canceled, 2);
	assert_int_equal(book.sym[1].position, 200);	/* +300 +100 -100 -100 */
	assert_int_equal(book.sym[1].bought, 400);
	assert_int_equal(book.sym[1].sold, 200);
	assert_int_equal(book.sym[1].cash, -200 * INT64_C(1000000));
	assert_int_equal(fill_pnl(&book.sym[1]), 0);
	/* Marked at a new last price: 200 shares x +1.0000. */
	fill_set_last(&book, 1, 1010000);
	assert_int_equal(fill_pnl(&book.sym[1]), 200 * INT64_C(10000));
	/* Other symbols untouched. */
	assert_int_equal(book.sym[2].position, 0);
	assert_int_equal(book.sym[3].cash, 0);
}

static void test_overflow_rejected(void **state)
{
	struct ouch_enter_order o = order("IBM", 'B', 1000, FILL_MAX_PRICE);

	(void)state;
	fill_set_last(&book, 3, FILL_MAX_PRICE);
	book.sym[3].cash = INT64_MIN + 1;
	expect(&o, FILL_REJECTED, 'O', 0);
	assert_int_equal(book.n.overflow, 1);
	assert_int_equal(book.sym[3].position, 0);
}

static void make_cfg(struct exsim_cfg *c, unsigned int nsym, double noise)
{
	memset(c, 0, sizeof(*c));
	memcpy(c->symbols, syms, sizeof(syms));
	c->nsym = nsym;
	c->seed = 42;
	c->noise = noise;
}

/* Symbol i's trades are the spec's series of seed + i, noise or not. */
static void test_gen_prices_are_gbm(void **state)
{
	static struct gen g;
	static struct exsim_cfg c;
	enum { N = 300 };
	uint32_t want[3][N / 3];
	double noises[] = { 0, 2.5 };
	unsigned int i, k;

	(void)state;
	for (i = 0; i < 3; i++)
		gbm_series(42 + i, want[i], N / 3);
	for (k = 0; k < 2; k++) {
		make_cfg(&c, 3, noises[k]);
		gen_init(&g, &c, NULL, 0);
		for (i = 0; i < N; i++) {
			struct gen_tick t;
			struct itch_msg m;

			gen_next(&g, &t);
			assert_int_equal(t.index, i);
			assert_int_equal(t.locate, i % 3 + 1);
			assert_int_equal(t.price, want[i % 3][i / 3]);
			assert_true(t.shares >= 100 && t.shares <= 500 && t.shares % 100 == 0);
			gen_trade(&g, &t, &m);
			assert_int_equal(m.type, 'P');
			assert_int_equal(m.p.price, t.price);
			assert_memory_equal(m.p.stock, syms[i % 3], ITCH_SYMBOL_LEN);
		}
	}
}

/*
 * Noise: the asked mean; every reference names an order it added and has
 * not removed; executions and cancels never take an order's last shares
 * (that is a delete); bids rest below the trade and asks above it, on the
 * cent grid, and one the trades moved through is deleted first; at most
 * GEN_NOISE_LIVE orders rest per symbol.
 */
static void test_gen_noise(void **state)
{
	static struct gen g;
	static struct exsim_cfg c;
	static uint32_t shares[1 << 15];	/* by reference; 0: not live */
	static uint32_t price[1 << 15];
	static char side[1 << 15];
	uint64_t total = 0, by_type[256] = { 0 }, crossed_deletes = 0;
	unsigned int live = 0, peak = 0;
	enum { N = 20000 };
	unsigned int i, j;

	(void)state;
	make_cfg(&c, 1, 1.25);
	gen_init(&g, &c, NULL, 0);
	for (i = 0; i < N; i++) {
		struct gen_tick t;
		struct itch_msg m;
		uint32_t *o;

		gen_next(&g, &t);
		assert_true(t.noise == 1 || t.noise == 2);
		total += t.noise;
		for (j = 0; j < t.noise; j++) {
			bool crossed = false;

			/* An order the trade moved through must go first. */
			for (uint64_t r = 1; r <= g.order_ref; r++)
				if (shares[r % (1 << 15)] && (side[r % (1 << 15)] == 'B' ?
				    price[r % (1 << 15)] > t.price : price[r % (1 << 15)] < t.price))
					crossed = true;
			gen_noise(&g, &t, &m);
			if (crossed) {
				uint32_t r = (uint32_t)(m.d.order_ref % (1 << 15));

				assert_int_equal(m.type, 'D');
				assert_true(side[r] == 'B' ? price[r] > t.price : price[r] < t.price);
				crossed_deletes++;
			}
			assert_int_equal(itch_codec_len(m.type) > 0, 1);
			by_type[(uint8_t)m.type]++;
			switch (m.type) {
			case 'A':
			case 'F':
				assert_true(m.a.order_ref < (1 << 15));
				assert_int_equal(m.a.price % 100, 0);
				if (m.a.side == 'B')
					assert_true(m.a.price <= t.price);
				else
					assert_true(m.a.price >= t.price);
				shares[m.a.order_ref] = m.a.shares;
				price[m.a.order_ref] = m.a.price;
				side[m.a.order_ref] = m.a.side;
				live++;
				break;
			case 'C':
				o = &shares[m.e.order_ref % (1 << 15)];
				assert_true(*o > m.e.shares);
				assert_int_equal(m.e.printable, 'N');
				*o -= m.e.shares;
				break;
			case 'X':
				o = &shares[m.x.order_ref % (1 << 15)];
				assert_true(*o > m.x.shares);
				*o -= m.x.shares;
				break;
			case 'D':
				o = &shares[m.d.order_ref % (1 << 15)];
				assert_true(*o > 0);
				*o = 0;
				live--;
				break;
			case 'U':
				assert_true(m.u.new_ref < (1 << 15));
				assert_true(shares[m.u.orig_ref % (1 << 15)] > 0);
				assert_int_equal(m.u.shares, shares[m.u.orig_ref % (1 << 15)]);
				assert_int_equal(m.u.price % 100, 0);
				shares[m.u.orig_ref % (1 << 15)] = 0;
				shares[m.u.new_ref] = m.u.shares;
				price[m.u.new_ref] = m.u.price;
				side[m.u.new_ref] = side[m.u.orig_ref % (1 << 15)];
				break;
			default:
				fail_msg("noise type %c", m.type);
			}
			assert_true(live <= GEN_NOISE_LIVE);
			if (live > peak)
				peak = live;
		}
	}
	/* 1.25 per tick: 25000 expected, binomial sd ~61. */
	assert_true(total > 24700 && total < 25300);
	for (j = 0; j < 6; j++)
		assert_true(by_type[(uint8_t)"AFCXDU"[j]] > 0);
	assert_true(peak > 4);	/* a book a few levels deep */
	assert_true(crossed_deletes > 0);
	/* Noise does not trade: no E, no printable C. */
	assert_int_equal(by_type['E'], 0);
}

static void test_gen_price_file(void **state)
{
	static struct gen g;
	static struct exsim_cfg c;
	const uint32_t px[4] = { 5, 6, 7, 8 };
	unsigned int i;

	(void)state;
	make_cfg(&c, 1, 0);
	gen_init(&g, &c, px, 4);
	for (i = 0; i < 4; i++) {
		struct gen_tick t;

		gen_next(&g, &t);
		assert_int_equal(t.price, px[i]);
		assert_int_equal(t.locate, 1);
		assert_int_equal(t.noise, 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_rejects_in_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_closed_market, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_price_cancels, setup, teardown),
		cmocka_unit_test_setup_teardown(test_marketable_at_last, setup, teardown),
		cmocka_unit_test_setup_teardown(test_overflow_rejected, setup, teardown),
		cmocka_unit_test(test_gen_prices_are_gbm),
		cmocka_unit_test(test_gen_noise),
		cmocka_unit_test(test_gen_price_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
