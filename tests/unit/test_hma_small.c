// SPDX-License-Identifier: MIT
/*
 * Hand-checkable cases of the HMA/HMA3 signal and of the stop-and-reverse
 * rule.  On a linear ramp x[t] = c + t every WMA_k lags by (k - 1) / 3, so
 * for L = 8 (n 8, h 4, s 2, p 4, a 1, b 2):
 *   HMA  = x + (n - 2h + 1)/3 - (s - 1)/3   = x
 *   HMA3 = x - (a - 1) + (b - 1)/3          = x + 1/3
 * and the signal is -1 on a rising ramp, +1 on a falling one, from t0 = 8.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "strategy/hma.h"
#include "strategy/sar.h"
#include "strategy/strat.h"
#include "strategy/sweep.h"

#define N 40

static void both_kernels(const uint32_t *x, size_t n, long L, int8_t *batch,
			 int8_t *incr)
{
	struct hma_state st;

	assert_int_equal(hma_batch_signal(x, n, L, batch), 0);
	assert_int_equal(hma_init(&st, L), 0);
	for (size_t t = 0; t < n; t++) {
		int d = hma_update(&st, x[t]);

		assert_true(d >= -1 && d <= 1);
		incr[t] = (int8_t)d;
		assert_int_equal(hma_ready(&st), t >= st.hp.t0);
	}
}

static void test_derived_lengths(void **state)
{
	struct hma_params hp;

	(void)state;
	assert_int_equal(hma_params_init(&hp, 8), 0);
	assert_int_equal(hp.n, 8);
	assert_int_equal(hp.h, 4);
	assert_int_equal(hp.s, 2);
	assert_int_equal(hp.p, 4);
	assert_int_equal(hp.a, 1);
	assert_int_equal(hp.b, 2);
	assert_int_equal(hp.t0, 8);
	assert_int_equal(hp.Dn, 36);
	assert_int_equal(hp.Ds, 3);

	assert_int_equal(hma_params_init(&hp, 256), 0);
	assert_int_equal(hp.s, 16);
	assert_int_equal(hp.p, 128);
	assert_int_equal(hp.a, 42);
	assert_int_equal(hp.b, 64);
	assert_int_equal(hp.t0, 270);
	assert_true(hp.F1 == (i128)136 * 8256 * 32896);
	assert_int_equal(hma_params_init(&hp, 15), 0);
	assert_int_equal(hp.s, 3);	/* isqrt floors */
	assert_int_equal(hma_params_init(&hp, 16), 0);
	assert_int_equal(hp.s, 4);
}

static void test_grid(void **state)
{
	(void)state;
	assert_int_equal(hma_grid_length(0), 6);
	assert_int_equal(hma_grid_length(1), 8);	/* 6 + 467/158 */
	assert_int_equal(hma_grid_length(79), 200);
	for (unsigned int k = 1; k < HMA_GRID_SIZE; k++)
		assert_true(hma_grid_length(k) > hma_grid_length(k - 1));
}

static void test_range_checks(void **state)
{
	struct hma_state st;
	int8_t d[N];
	uint32_t x[N];

	(void)state;
	for (int t = 0; t < N; t++)
		x[t] = 1000;
	assert_int_equal(hma_check_length(5), -ERANGE);
	assert_int_equal(hma_check_length(257), -ERANGE);
	assert_int_equal(hma_check_length(6), 0);
	assert_int_equal(hma_check_length(256), 0);
	assert_int_equal(hma_check_price(0), -ERANGE);
	assert_int_equal(hma_check_price(-1), -ERANGE);
	assert_int_equal(hma_check_price(4294967296LL), -ERANGE);
	assert_int_equal(hma_check_price(4294967295LL), 0);

	assert_int_equal(hma_init(&st, 5), -ERANGE);
	assert_int_equal(hma_batch_signal(x, N, 300, d), -ERANGE);
	x[7] = 0;
	assert_int_equal(hma_batch_signal(x, N, 8, d), -ERANGE);

	/* A zero price is refused and leaves the state as it was. */
	assert_int_equal(hma_init(&st, 8), 0);
	assert_int_equal(hma_update(&st, 1000), 0);
	assert_int_equal(hma_update(&st, 0), -ERANGE);
	assert_int_equal(st.t, 1);
}

static void test_constant_is_a_tie(void **state)
{
	int8_t b[N], i[N];
	uint32_t x[N];

	(void)state;
	for (int t = 0; t < N; t++)
		x[t] = 123456;
	both_kernels(x, N, 8, b, i);
	for (int t = 0; t < N; t++) {
		assert_int_equal(b[t], 0);
		assert_int_equal(i[t], 0);
	}
}

static void test_ramps(void **state)
{
	int8_t b[N], i[N];
	uint32_t up[N], down[N];

	(void)state;
	for (int t = 0; t < N; t++) {
		up[t] = 1000 + t;
		down[t] = 1000 - t;
	}
	both_kernels(up, N, 8, b, i);
	for (int t = 0; t < N; t++) {
		assert_int_equal(b[t], t < 8 ? 0 : -1);
		assert_int_equal(i[t], b[t]);
	}
	both_kernels(down, N, 8, b, i);
	for (int t = 0; t < N; t++) {
		assert_int_equal(b[t], t < 8 ? 0 : 1);
		assert_int_equal(i[t], b[t]);
	}
	/* L = 6 and L = 12: on a ramp the two averages coincide exactly. */
	both_kernels(up, N, 6, b, i);
	for (int t = 0; t < N; t++)
		assert_int_equal(b[t], 0);
	both_kernels(up, N, 12, b, i);
	for (int t = 0; t < N; t++)
		assert_int_equal(i[t], 0);
}

static void test_sar_rule(void **state)
{
	struct sar s;
	double want;

	(void)state;
	sar_init(&s);
	assert_int_equal(sar_step(&s, 0, 100), 0);	/* nothing to do */
	assert_int_equal(sar_step(&s, 1, 100), 1);	/* entry long */
	assert_int_equal(s.pos, 1);
	assert_int_equal(s.entry, 100);
	assert_int_equal(s.trades, 0);
	assert_int_equal(sar_step(&s, 0, 300), 0);	/* tie keeps it */
	assert_int_equal(sar_step(&s, 1, 300), 0);	/* same side keeps it */
	assert_int_equal(s.entry, 100);
	assert_int_equal(sar_step(&s, -1, 110), -2);	/* reversal */
	assert_int_equal(s.trades, 1);
	want = 10.0 - 0.09;				/* long 100 -> 110 */
	assert_true(s.pnl_pct == want);
	assert_int_equal(s.pos, -1);
	assert_int_equal(s.entry, 110);
	sar_finish(&s, 99);				/* short 110 -> 99 */
	assert_int_equal(s.trades, 2);
	want += -1.0 * (99.0 - 110.0) / 110.0 * 100.0 - 0.09;
	assert_true(s.pnl_pct == want);
	assert_int_equal(s.pos, 0);
	sar_finish(&s, 50);				/* flat: nothing */
	assert_int_equal(s.trades, 2);
}

static void test_ramp_trade(void **state)
{
	uint32_t x[N];
	struct sar rb, ri;

	(void)state;
	for (int t = 0; t < N; t++)
		x[t] = 1000 + t;
	/* Short at t0 = 8 (price 1008), closed at the end (1039). */
	assert_int_equal(sweep_run(x, N, 8, HMA_KERNEL_BATCH, &rb), 0);
	assert_int_equal(sweep_run(x, N, 8, HMA_KERNEL_INCREMENTAL, &ri), 0);
	assert_int_equal(rb.trades, 1);
	assert_true(rb.pnl_pct == -1.0 * (1039.0 - 1008.0) / 1008.0 * 100.0 - 0.09);
	assert_int_equal(ri.trades, rb.trades);
	assert_true(ri.pnl_pct == rb.pnl_pct);
}

static void test_reversal_on_v(void **state)
{
	uint32_t x[2 * N];
	struct strat s;
	int orders = 0, chg_of[4] = { 0 };

	(void)state;
	/* Up then down: short on the way up, reverse to long on the way down. */
	for (int t = 0; t < N; t++)
		x[t] = 1000 + t;
	for (int t = N; t < 2 * N; t++)
		x[t] = 1000 + (2 * N - 2 - t);
	assert_int_equal(strat_init(&s, 8), 0);
	for (int t = 0; t < 2 * N; t++) {
		int chg = strat_on_tick(&s, x[t]);

		if (chg && orders < 4)
			chg_of[orders++] = chg;
	}
	assert_int_equal(orders, 2);
	assert_int_equal(chg_of[0], -1);	/* sell 1 to open short */
	assert_int_equal(chg_of[1], 2);	/* buy 2 to reverse */
	assert_int_equal(s.sar.pos, 1);
	assert_int_equal(s.sar.trades, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_derived_lengths),
		cmocka_unit_test(test_grid),
		cmocka_unit_test(test_range_checks),
		cmocka_unit_test(test_constant_is_a_tie),
		cmocka_unit_test(test_ramps),
		cmocka_unit_test(test_sar_rule),
		cmocka_unit_test(test_ramp_trade),
		cmocka_unit_test(test_reversal_on_v),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
