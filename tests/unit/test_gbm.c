// SPDX-License-Identifier: MIT
/* The spec's GBM generator: known splitmix64 output, determinism, shape. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "strategy/gbm.h"
#include "util/rng.h"

#define N 150000

static void test_splitmix64_known_answer(void **state)
{
	/* Published reference outputs of splitmix64 from state 0. */
	uint64_t z = 0;

	(void)state;
	assert_true(splitmix64(&z) == 0xe220a8397b1dcdafULL);
	assert_true(splitmix64(&z) == 0x6e789e6aa1b965f4ULL);
	assert_true(splitmix64(&z) == 0x06c45d188009454fULL);
}

static void test_same_seed_same_series(void **state)
{
	uint32_t *a = malloc(N * sizeof(*a)), *b = malloc(N * sizeof(*b));
	struct gbm g;

	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	gbm_series(42, a, N);
	gbm_series(42, b, N);
	assert_memory_equal(a, b, N * sizeof(*a));
	/* streaming and bulk agree */
	gbm_init(&g, 42);
	for (size_t t = 0; t < N; t++)
		assert_int_equal(gbm_next(&g), a[t]);
	gbm_series(43, b, N);
	assert_true(memcmp(a, b, N * sizeof(*a)) != 0);
	free(a);
	free(b);
}

static void test_series_shape(void **state)
{
	uint32_t *x = malloc(N * sizeof(*x));
	double sum = 0, sum2 = 0;

	(void)state;
	assert_non_null(x);
	gbm_series(42, x, N);
	assert_int_equal(x[0], 1000000);	/* 100.0 in Price(4) */
	for (size_t t = 1; t < N; t++) {
		double r = log((double)x[t] / x[t - 1]);

		assert_true(x[t] > 0);
		sum += r;
		sum2 += r * r;
	}
	/* log returns: mean ~ -sigma^2/2, stdev ~ sigma = 0.001 (rounding adds a little) */
	double mean = sum / (N - 1), sd = sqrt(sum2 / (N - 1) - mean * mean);

	assert_true(fabs(mean) < 1e-5);
	assert_true(sd > 0.00095 && sd < 0.00106);
	free(x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_splitmix64_known_answer),
		cmocka_unit_test(test_same_seed_same_series),
		cmocka_unit_test(test_series_shape),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
