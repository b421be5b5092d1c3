// SPDX-License-Identifier: MIT
/*
 * Batch reference == incremental kernel on the spec's reference workload
 * (150,000 GBM ticks, seed 42, the 80-length grid): the same signal at every
 * tick, hence the same trades and, to the bit, the same PnL.  Also every
 * length of the valid range on a shorter series.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "strategy/gbm.h"
#include "strategy/hma.h"
#include "strategy/sweep.h"

#define REF_TICKS 150000
#define REF_SEED 42

static uint32_t *x;
static int8_t *db;

static int setup(void **state)
{
	(void)state;
	x = malloc(REF_TICKS * sizeof(*x));
	db = malloc(REF_TICKS);
	if (!x || !db)
		return -1;
	gbm_series(REF_SEED, x, REF_TICKS);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	free(x);
	free(db);
	return 0;
}

/* Signals equal tick by tick, then trades and PnL from the shared rule. */
static void compare_length(size_t N, long L, int *trades_seen)
{
	struct hma_state *st = malloc(sizeof(*st));
	struct sar rb, ri;

	assert_non_null(st);
	assert_int_equal(hma_batch_signal(x, N, L, db), 0);
	assert_int_equal(hma_init(st, L), 0);
	for (size_t t = 0; t < N; t++) {
		int d = hma_update(st, x[t]);

		if (d != db[t])
			fail_msg("L=%ld t=%zu: batch %d incremental %d", L, t, db[t], d);
	}
	free(st);

	assert_int_equal(sweep_run(x, N, L, HMA_KERNEL_BATCH, &rb), 0);
	assert_int_equal(sweep_run(x, N, L, HMA_KERNEL_INCREMENTAL, &ri), 0);
	assert_int_equal(rb.trades, ri.trades);
	assert_true(rb.pnl_pct == ri.pnl_pct);
	*trades_seen += rb.trades > 0;
}

static void test_reference_workload(void **state)
{
	int with_trades = 0;

	(void)state;
	for (unsigned int k = 0; k < HMA_GRID_SIZE; k++)
		compare_length(REF_TICKS, hma_grid_length(k), &with_trades);
	/* The workload really trades at every length: not 80 empty agreements. */
	assert_int_equal(with_trades, HMA_GRID_SIZE);
}

static void test_every_length(void **state)
{
	int with_trades = 0;

	(void)state;
	for (long L = HMA_LEN_MIN; L <= HMA_LEN_MAX; L++)
		compare_length(4000, L, &with_trades);
	assert_true(with_trades > 200);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_length),
		cmocka_unit_test(test_reference_workload),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
