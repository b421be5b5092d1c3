// SPDX-License-Identifier: MIT
/*
 * Pre-trade risk (gateway/risk.h): each limit refuses the order that would
 * break it and counts it; the collar judges against a reference one stray
 * print cannot move; prices OUCH cannot carry are refused; the position
 * limit defaults to the instrument's unit.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "gateway/risk.h"

static struct gw_inst in;
static struct risk r;

static int setup(void **state)
{
	(void)state;
	memset(&in, 0, sizeof(in));
	in.unit = 100;
	inst_note_print(&in, 1000000, 100, 0, 0);
	inst_note_print(&in, 1000000, 100, 0, 0);
	inst_note_print(&in, 1000000, 100, 0, 0);
	return 0;
}

static int check(int64_t shares, uint32_t limit, int64_t ob, int64_t os,
		 uint32_t open, uint64_t now)
{
	return risk_check(&r, &in, shares, limit, inst_reference(&in), ob, os, open, now);
}

static void test_max_order(void **state)
{
	struct risk_cfg c = { .max_order = 150, .max_pos = 1000 };

	(void)state;
	risk_init(&r, &c);
	assert_int_equal(check(100, 1000000, 0, 0, 0, 0), RISK_OK);
	assert_int_equal(check(-200, 1000000, 0, 0, 0, 0), RISK_MAX_ORDER);
	assert_int_equal(r.refused[RISK_MAX_ORDER], 1);
}

static void test_max_pos_counts_open_orders(void **state)
{
	struct risk_cfg c = { .max_pos = 250 };

	(void)state;
	risk_init(&r, &c);
	in.pos_shares = 100;
	assert_int_equal(check(100, 1000000, 0, 0, 0, 0), RISK_OK);		/* to 200 */
	assert_int_equal(check(100, 1000000, 100, 0, 1, 0), RISK_MAX_POS); /* worst 300 */
	assert_int_equal(check(-200, 1000000, 100, 0, 1, 0), RISK_OK);	/* worst -100 */
	assert_int_equal(check(-200, 1000000, 0, 200, 1, 0), RISK_MAX_POS); /* -300 */
	assert_int_equal(r.refused[RISK_MAX_POS], 2);
}

static void test_max_pos_defaults_to_unit(void **state)
{
	struct risk_cfg c = { 0 };

	(void)state;
	risk_init(&r, &c);
	assert_int_equal(risk_max_pos(&r, &in), 100);
	assert_int_equal(check(100, 1000000, 0, 0, 0, 0), RISK_OK);
	assert_int_equal(check(200, 1000000, 0, 0, 0, 0), RISK_MAX_POS);
	in.pos_shares = -100;
	assert_int_equal(check(200, 1000000, 0, 0, 0, 0), RISK_OK);		/* a reversal */
}

static void test_collar_against_reference(void **state)
{
	struct risk_cfg c = { .collar_bp = 50, .max_pos = 1000 };

	(void)state;
	risk_init(&r, &c);
	assert_int_equal(check(100, 1004000, 0, 0, 0, 0), RISK_OK);		/* 40 bp */
	assert_int_equal(check(100, 1006000, 0, 0, 0, 0), RISK_COLLAR);	/* 60 bp */
	/* One stray print does not move the reference ... */
	inst_note_print(&in, 2000000, 100, 0, 0);
	assert_int_equal(inst_reference(&in), 1000000);
	assert_int_equal(check(100, 2002000, 0, 0, 0, 0), RISK_COLLAR);
	/* ... a market that moved does. */
	inst_note_print(&in, 2000000, 100, 0, 0);
	assert_int_equal(inst_reference(&in), 2000000);
	assert_int_equal(check(100, 2002000, 0, 0, 0, 0), RISK_OK);
	assert_int_equal(r.refused[RISK_COLLAR], 2);
}

static void test_price_range(void **state)
{
	struct risk_cfg c = { .max_pos = 1000 };

	(void)state;
	risk_init(&r, &c);
	assert_int_equal(check(100, RISK_PRICE_MAX, 0, 0, 0, 0), RISK_OK);
	assert_int_equal(check(100, RISK_PRICE_MAX + 1, 0, 0, 0, 0), RISK_PRICE_RANGE);
	assert_int_equal(check(100, 0xFFFFFFFFu, 0, 0, 0, 0), RISK_PRICE_RANGE);
	assert_int_equal(check(-100, 0, 0, 0, 0, 0), RISK_PRICE_RANGE);
	assert_int_equal(r.refused[RISK_PRICE_RANGE], 3);
}

static void test_max_open_and_kill(void **state)
{
	struct risk_cfg c = { .max_open = 1, .max_pos = 1000 };

	(void)state;
	risk_init(&r, &c);
	assert_int_equal(check(100, 1000000, 0, 0, 0, 0), RISK_OK);
	assert_int_equal(check(100, 1000000, 100, 0, 1, 0), RISK_MAX_OPEN);
	r.killed = 1;
	assert_int_equal(check(100, 1000000, 0, 0, 0, 0), RISK_KILLED);
	assert_int_equal(r.refused[RISK_KILLED], 1);
}

/* 1000 orders/s, burst 2: two at once, the third 1 ms later. */
static void test_rate(void **state)
{
	struct risk_cfg c = { .max_rate = 1000, .burst = 2, .max_pos = 1000 };

	(void)state;
	risk_init(&r, &c);
	r.credit_at = 5000000;
	assert_int_equal(check(100, 1000000, 0, 0, 0, 5000000), RISK_OK);
	assert_int_equal(check(100, 1000000, 0, 0, 0, 5000000), RISK_OK);
	assert_int_equal(check(100, 1000000, 0, 0, 0, 5500000), RISK_RATE);
	assert_int_equal(check(100, 1000000, 0, 0, 0, 6000000), RISK_OK);
	assert_int_equal(r.refused[RISK_RATE], 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup(f, setup)
		T(test_max_order),
		T(test_max_pos_counts_open_orders),
		T(test_max_pos_defaults_to_unit),
		T(test_collar_against_reference),
		T(test_price_range),
		T(test_max_open_and_kill),
		T(test_rate),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
