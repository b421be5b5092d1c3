// SPDX-License-Identifier: MIT
/*
 * HDR histogram: bucket layout, exact statistics, percentiles against the
 * exact nearest-rank percentile of the sorted values, merge, clamping,
 * iteration and the text form.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "latency/hdr.h"

/* Percentiles as parts per million, so the oracle's rank is integer math
 * and does not share the library's floating point. */
static const uint64_t ppm_list[] = {
	1, 10000, 250000, 375000, 500000, 900000, 990000, 999000, 999900,
	999990, 1000000,
};
#define NPPM (sizeof(ppm_list) / sizeof(ppm_list[0]))

static struct hdr_hist h, h2, h3;

static uint64_t rng_state;

static uint64_t splitmix64(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform in (0, 1]. */
static double unit_open(void)
{
	return ((double)(splitmix64() >> 11) + 1.0) / 9007199254740992.0;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static uint64_t oracle_rank(uint64_t n, uint64_t ppm)
{
	uint64_t rank = (ppm * n + 999999) / 1000000;

	return rank ? rank : 1;
}

/* Reported percentile must be >= the exact one and within 1% of it (the
 * layout promises 1/128; 1% is the requirement). */
static void assert_close_above(int64_t exact, int64_t got)
{
	if (got < exact || (double)(got - exact) > 0.01 * (double)exact) {
		print_error("exact %lld got %lld\n", (long long)exact,
			    (long long)got);
		fail();
	}
}

/* Record `n` values, then check every listed percentile, min, max and mean
 * against the sorted array. */
static void check_against_sorted(int64_t *v, size_t n)
{
	uint64_t sum = 0;
	size_t i, k;

	hdr_reset(&h);
	for (i = 0; i < n; i++) {
		hdr_record(&h, v[i]);
		sum += (uint64_t)v[i];
	}
	qsort(v, n, sizeof(*v), cmp_i64);

	assert_int_equal(hdr_count(&h), n);
	assert_int_equal(hdr_min(&h), v[0]);
	assert_int_equal(hdr_max(&h), v[n - 1]);
	assert_int_equal(h.sum, sum);
	assert_true(hdr_mean(&h) == (double)sum / (double)n);
	assert_int_equal(h.under, 0);
	assert_int_equal(h.over, 0);

	for (k = 0; k < NPPM; k++) {
		uint64_t rank = oracle_rank(n, ppm_list[k]);
		double p = (double)ppm_list[k] / 10000.0;

		assert_int_equal(hdr_percentile_rank(n, p), rank);
		assert_close_above(v[rank - 1], hdr_value_at_percentile(&h, p));
	}
}

static void test_bucket_layout(void **state)
{
	uint32_t i;
	int64_t v;

	(void)state;
	/* Every bucket: both edges map back to it, buckets are contiguous,
	 * and none is wider than 1/128 of its lowest value. */
	for (i = 0; i < HDR_BUCKETS; i++) {
		int64_t lo = hdr_bucket_low(i), hi = hdr_bucket_high(i);

		if (lo > HDR_MAX_VALUE)
			break;
		assert_int_equal(hdr_index(lo), i);
		assert_int_equal(hdr_index(hi), i);
		assert_true(lo <= hi);
		if (i > 0)
			assert_int_equal(hdr_bucket_high(i - 1) + 1, lo);
		if (lo >= 256)
			assert_true((hi - lo + 1) * 128 <= lo);
	}
	assert_int_equal(hdr_bucket_high(hdr_index(HDR_MAX_VALUE)),
			 HDR_MAX_VALUE);
	assert_true(hdr_index(HDR_MAX_VALUE) < HDR_BUCKETS);
	assert_int_equal(hdr_index(HDR_MAX_VALUE), HDR_BUCKETS - 128 + 21);

	/* Exhaustively below 2^20: the value lies inside its bucket. */
	for (v = 0; v < (1 << 20); v++) {
		i = hdr_index(v);
		assert_true(hdr_bucket_low(i) <= v && v <= hdr_bucket_high(i));
	}
	/* Exact resolution below 256. */
	for (v = 0; v < 256; v++)
		assert_int_equal(hdr_index(v), v);
}

static void test_empty(void **state)
{
	struct hdr_iter it;

	(void)state;
	hdr_reset(&h);
	assert_int_equal(hdr_count(&h), 0);
	assert_int_equal(hdr_min(&h), 0);
	assert_int_equal(hdr_max(&h), 0);
	assert_true(hdr_mean(&h) == 0.0);
	assert_int_equal(hdr_value_at_percentile(&h, 50.0), 0);
	assert_int_equal(hdr_percentile_rank(0, 50.0), 0);
	hdr_iter_init(&it, &h);
	assert_false(hdr_iter_next(&it));
}

static void test_constant(void **state)
{
	int k;

	(void)state;
	hdr_reset(&h);
	for (k = 0; k < 1000; k++)
		hdr_record(&h, 12345);
	assert_int_equal(hdr_min(&h), 12345);
	assert_int_equal(hdr_max(&h), 12345);
	assert_true(hdr_mean(&h) == 12345.0);
	/* The bucket is wider than one value; capping at max makes a
	 * constant exact at every percentile. */
	assert_int_equal(hdr_value_at_percentile(&h, 0.0), 12345);
	assert_int_equal(hdr_value_at_percentile(&h, 50.0), 12345);
	assert_int_equal(hdr_value_at_percentile(&h, 99.99), 12345);
	assert_int_equal(hdr_value_at_percentile(&h, 100.0), 12345);
}

static void test_uniform(void **state)
{
	size_t n = 100000, i;
	int64_t *v = malloc(n * sizeof(*v));

	(void)state;
	assert_non_null(v);
	/* 1..N in a scrambled order: order must not matter. */
	for (i = 0; i < n; i++)
		v[i] = (int64_t)((i * 7919) % n) + 1;
	check_against_sorted(v, n);
	/* For 1..N the nearest-rank p50 is N/2 exactly; small values are
	 * exact because the buckets below 256 hold one value each. */
	assert_close_above(50000, hdr_value_at_percentile(&h, 50.0));
	assert_int_equal(hdr_value_at_percentile(&h, 0.1), 100);
	free(v);
}

static void test_two_spikes(void **state)
{
	int k;

	(void)state;
	hdr_reset(&h);
	for (k = 0; k < 990; k++)
		hdr_record(&h, 1000);
	for (k = 0; k < 10; k++)
		hdr_record(&h, 5000000);
	/* Rank 990 is the last of the low spike, rank 991 the first of the
	 * high one: the boundary must fall exactly there. */
	assert_int_equal(hdr_percentile_rank(1000, 99.0), 990);
	assert_close_above(1000, hdr_value_at_percentile(&h, 50.0));
	assert_close_above(1000, hdr_value_at_percentile(&h, 99.0));
	assert_true(hdr_value_at_percentile(&h, 99.0) < 1010);
	assert_int_equal(hdr_value_at_percentile(&h, 99.01), 5000000);
	assert_int_equal(hdr_value_at_percentile(&h, 99.9), 5000000);
	assert_int_equal(hdr_min(&h), 1000);
	assert_int_equal(hdr_max(&h), 5000000);
	assert_true(hdr_mean(&h) == (990.0 * 1000 + 10.0 * 5000000) / 1000);
}

static void test_range_edges(void **state)
{
	(void)state;
	hdr_reset(&h);
	hdr_record(&h, 0);
	hdr_record(&h, 1);
	hdr_record(&h, 1);
	hdr_record(&h, HDR_MAX_VALUE);
	assert_int_equal(h.under, 0);
	assert_int_equal(h.over, 0);
	assert_int_equal(hdr_min(&h), 0);
	assert_int_equal(hdr_max(&h), HDR_MAX_VALUE);
	assert_int_equal(hdr_value_at_percentile(&h, 0.0), 0);
	assert_int_equal(hdr_value_at_percentile(&h, 25.0), 0);
	assert_int_equal(hdr_value_at_percentile(&h, 50.0), 1);
	assert_int_equal(hdr_value_at_percentile(&h, 75.0), 1);
	assert_int_equal(hdr_value_at_percentile(&h, 75.01), HDR_MAX_VALUE);
	assert_int_equal(hdr_value_at_percentile(&h, 100.0), HDR_MAX_VALUE);
	assert_int_equal(h.sum, HDR_MAX_VALUE + 2);
}

static void test_clamping_counted(void **state)
{
	(void)state;
	hdr_reset(&h);
	hdr_record(&h, -1);
	hdr_record(&h, INT64_MIN);
	hdr_record(&h, 500);
	hdr_record(&h, HDR_MAX_VALUE + 1);
	hdr_record(&h, INT64_MAX);
	assert_int_equal(hdr_count(&h), 5);
	assert_int_equal(h.under, 2);
	assert_int_equal(h.over, 2);
	assert_int_equal(hdr_min(&h), 0);
	assert_int_equal(hdr_max(&h), HDR_MAX_VALUE);
	assert_int_equal(h.sum, 2 * HDR_MAX_VALUE + 500);
	assert_int_equal(h.counts[0], 2);
	assert_int_equal(h.counts[hdr_index(HDR_MAX_VALUE)], 2);
	assert_int_equal(hdr_value_at_percentile(&h, 40.0), 0);
	assert_int_equal(hdr_value_at_percentile(&h, 80.0), HDR_MAX_VALUE);

	/* record_n clamps and counts n at a time. */
	hdr_reset(&h);
	hdr_record_n(&h, -7, 3);
	hdr_record_n(&h, HDR_MAX_VALUE * 2, 4);
	assert_int_equal(h.under, 3);
	assert_int_equal(h.over, 4);
	assert_int_equal(hdr_count(&h), 7);
}

/* Exponential latencies around a floor, from a fixed seed. */
static void test_exponential(void **state)
{
	size_t n = 1000000, i;
	int64_t *v = malloc(n * sizeof(*v));

	(void)state;
	assert_non_null(v);
	rng_state = 12345;
	for (i = 0; i < n; i++)
		v[i] = 800 + (int64_t)(-2500.0 * log(unit_open()));
	check_against_sorted(v, n);
	free(v);
}

/* Log-uniform over the whole range 1 ns .. 10 s: the 1% bound must hold in
 * every octave, not just where latencies usually are. */
static void test_log_uniform_full_range(void **state)
{
	size_t n = 500000, i;
	int64_t *v = malloc(n * sizeof(*v));

	(void)state;
	assert_non_null(v);
	rng_state = 777;
	for (i = 0; i < n; i++) {
		v[i] = (int64_t)exp(unit_open() * log((double)HDR_MAX_VALUE));
		if (v[i] < 1)
			v[i] = 1;
		if (v[i] > HDR_MAX_VALUE)
			v[i] = HDR_MAX_VALUE;
	}
	check_against_sorted(v, n);
	/* And at a percentile every 0.5%. */
	for (i = 1; i < 200; i++) {
		uint64_t ppm = i * 5000, rank = oracle_rank(n, ppm);

		assert_close_above(v[rank - 1],
				   hdr_value_at_percentile(&h, ppm / 10000.0));
	}
	free(v);
}

static void test_merge_equals_single(void **state)
{
	int k;

	(void)state;
	hdr_reset(&h);
	hdr_reset(&h2);
	hdr_reset(&h3);
	rng_state = 99;
	for (k = 0; k < 50000; k++) {
		int64_t a = (int64_t)(splitmix64() % 3000000) - 10;
		int64_t b = (int64_t)(splitmix64() % 200) + 40;

		hdr_record(&h, a);
		hdr_record(&h3, a);
		hdr_record(&h2, b);
		hdr_record(&h3, b);
	}
	hdr_record(&h2, HDR_MAX_VALUE + 5);
	hdr_record(&h3, HDR_MAX_VALUE + 5);
	hdr_merge(&h, &h2);
	assert_memory_equal(&h, &h3, sizeof(h));

	/* Empty into full changes nothing; full into empty copies. */
	hdr_reset(&h2);
	hdr_merge(&h, &h2);
	assert_memory_equal(&h, &h3, sizeof(h));
	hdr_merge(&h2, &h3);
	assert_memory_equal(&h2, &h3, sizeof(h));
}

static void test_iteration(void **state)
{
	struct hdr_iter it;
	int64_t lows[4];
	uint64_t counts[4];
	int n = 0;

	(void)state;
	hdr_reset(&h);
	hdr_record(&h, 5);
	hdr_record(&h, 5);
	hdr_record(&h, 300);
	hdr_record(&h, 301);	/* same bucket as 300 (width 2) */
	hdr_record(&h, 1000000);
	hdr_iter_init(&it, &h);
	while (hdr_iter_next(&it)) {
		assert_true(n < 4);
		assert_true(it.low <= it.high);
		lows[n] = it.low;
		counts[n] = it.count;
		n++;
	}
	assert_int_equal(n, 3);
	assert_int_equal(lows[0], 5);
	assert_int_equal(counts[0], 2);
	assert_int_equal(lows[1], 300);
	assert_int_equal(counts[1], 2);
	assert_true(lows[2] <= 1000000 && 1000000 <= hdr_bucket_high(hdr_index(1000000)));
	assert_int_equal(counts[2], 1);
	assert_int_equal(it.cumulative, 5);
}

static char *write_to_string(const struct hdr_hist *src)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(hdr_write(src, f), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void test_text_round_trip(void **state)
{
	char *s;

	(void)state;
	hdr_reset(&h);
	rng_state = 5;
	for (int k = 0; k < 10000; k++)
		hdr_record(&h, (int64_t)(splitmix64() % 100000000));
	hdr_record(&h, -3);
	hdr_record(&h, HDR_MAX_VALUE + 1);
	s = write_to_string(&h);
	assert_int_equal(hdr_parse(&h2, s), 0);
	assert_memory_equal(&h, &h2, sizeof(h));
	free(s);

	hdr_reset(&h);
	s = write_to_string(&h);
	assert_string_equal(s, "hdr1 0 0 0 0 0 0 0\n");
	assert_int_equal(hdr_parse(&h2, s), 0);
	assert_memory_equal(&h, &h2, sizeof(h));
	free(s);
}

static void test_text_rejects_bad_input(void **state)
{
	static const char *const bad[] = {
		"",
		"hdr2 1 0 0 5 5 5 1 5:1",
		"hdr1 1 0 0 5 5 5 1 5:2",		/* counts != total */
		"hdr1 2 0 0 10 5 5 1 5:1",		/* counts != total */
		"hdr1 1 0 0 5 5 5 1 3584:1",		/* index out of range */
		"hdr1 1 0 0 5 5 5 1 99999999999999999999:1", /* overflow */
		"hdr1 1 0 0 5 5 5 1 -5:1",		/* sign */
		"hdr1 1 0 0 5 5 5 1 5:1 junk",		/* trailing */
		"hdr1 1 0 0 5 5 5 2 5:1",		/* missing bucket */
		"hdr1 2 0 0 10 5 5 2 5:1 5:1",		/* index repeats */
		"hdr1 2 0 0 11 5 6 2 6:1 5:1",		/* decreasing */
		"hdr1 1 0 0 7 7 7 1 5:1",		/* min not in bucket */
		"hdr1 1 0 0 99 5 5 1 5:1",		/* sum > max*total */
		"hdr1 1 2 0 5 5 5 1 5:1",		/* under > total */
		"hdr1 0 0 0 0 0 1 0",			/* empty with max */
		"hdr1 1 0 0 5 5 5 1 5:0",		/* empty bucket */
		"hdr1 1 0 0 10000000001 10000000001 10000000001 1 3477:1",
		"hdr1 1 0 0 5 5 5 1 5:1\n\n",
		"hdr1  1 0 0 5 5 5 1 5:1",
	};
	size_t i;

	(void)state;
	assert_int_equal(hdr_parse(&h, "hdr1 1 0 0 5 5 5 1 5:1"), 0);
	assert_int_equal(hdr_count(&h), 1);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		hdr_record(&h, 42);
		if (hdr_parse(&h, bad[i]) != -EINVAL) {
			print_error("accepted: \"%s\"\n", bad[i]);
			fail();
		}
		/* A rejected line leaves an empty histogram behind. */
		assert_int_equal(hdr_count(&h), 0);
		assert_int_equal(h.counts[42], 0);
	}
}

static void test_percentile_rank(void **state)
{
	(void)state;
	assert_int_equal(hdr_percentile_rank(1000, 99.9), 999);
	assert_int_equal(hdr_percentile_rank(10000, 99.99), 9999);
	assert_int_equal(hdr_percentile_rank(100000, 99.999), 99999);
	assert_int_equal(hdr_percentile_rank(3, 50.0), 2);
	assert_int_equal(hdr_percentile_rank(4, 50.0), 2);
	assert_int_equal(hdr_percentile_rank(1, 0.0001), 1);
	assert_int_equal(hdr_percentile_rank(7, 0.0), 1);
	assert_int_equal(hdr_percentile_rank(7, -3.0), 1);
	assert_int_equal(hdr_percentile_rank(7, NAN), 1);
	assert_int_equal(hdr_percentile_rank(7, 100.0), 7);
	assert_int_equal(hdr_percentile_rank(7, 250.0), 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bucket_layout),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_constant),
		cmocka_unit_test(test_uniform),
		cmocka_unit_test(test_two_spikes),
		cmocka_unit_test(test_range_edges),
		cmocka_unit_test(test_clamping_counted),
		cmocka_unit_test(test_exponential),
		cmocka_unit_test(test_log_uniform_full_range),
		cmocka_unit_test(test_merge_equals_single),
		cmocka_unit_test(test_iteration),
		cmocka_unit_test(test_text_round_trip),
		cmocka_unit_test(test_text_rejects_bad_input),
		cmocka_unit_test(test_percentile_rank),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
