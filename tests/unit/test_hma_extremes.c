// SPDX-License-Identifier: MIT
/*
 * The corners of the input range (L = 6 and 256, prices 1 and 2^32 - 1)
 * against an independent arbitrary-precision computation: a small
 * sign-magnitude bignum that recomputes W, R, H, Q, T and the final
 * comparison straight from the spec's definitions.  Both kernels must
 * produce the exact H and T (incremental) and the same sign (both).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "strategy/hma.h"

/* ---- a small bignum: magnitude in 32-bit limbs, separate sign ---- */
#define LIMBS 12	/* 384 bits: far above the ~2^117 the spec bounds */

struct big {
	int neg;
	uint32_t m[LIMBS];
};

static int mag_cmp(const uint32_t *a, const uint32_t *b)
{
	for (int i = LIMBS - 1; i >= 0; i--)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return 0;
}

static void mag_add(uint32_t *r, const uint32_t *a, const uint32_t *b)
{
	uint64_t c = 0;

	for (int i = 0; i < LIMBS; i++) {
		c += (uint64_t)a[i] + b[i];
		r[i] = (uint32_t)c;
		c >>= 32;
	}
	assert_int_equal(c, 0);
}

/* r = a - b, requires |a| >= |b| */
static void mag_sub(uint32_t *r, const uint32_t *a, const uint32_t *b)
{
	int64_t c = 0;

	for (int i = 0; i < LIMBS; i++) {
		c += (int64_t)a[i] - b[i];
		r[i] = (uint32_t)c;
		c = c < 0 ? -1 : 0;
	}
}

static int big_is_zero(const struct big *a)
{
	for (int i = 0; i < LIMBS; i++)
		if (a->m[i])
			return 0;
	return 1;
}

static struct big big_from(int64_t v)
{
	struct big r = { 0 };
	uint64_t m = v < 0 ? -(uint64_t)v : (uint64_t)v;

	r.neg = v < 0;
	r.m[0] = (uint32_t)m;
	r.m[1] = (uint32_t)(m >> 32);
	return r;
}

static struct big big_add(struct big a, struct big b)
{
	struct big r = { 0 };

	if (a.neg == b.neg) {
		mag_add(r.m, a.m, b.m);
		r.neg = a.neg;
	} else if (mag_cmp(a.m, b.m) >= 0) {
		mag_sub(r.m, a.m, b.m);
		r.neg = a.neg;
	} else {
		mag_sub(r.m, b.m, a.m);
		r.neg = b.neg;
	}
	if (big_is_zero(&r))
		r.neg = 0;
	return r;
}

static struct big big_neg(struct big a)
{
	if (!big_is_zero(&a))
		a.neg = !a.neg;
	return a;
}

static struct big big_mul(struct big a, struct big b)
{
	uint64_t acc[2 * LIMBS] = { 0 };
	struct big r = { 0 };

	for (int i = 0; i < LIMBS; i++) {
		uint64_t c = 0;

		for (int j = 0; j < LIMBS; j++) {
			uint64_t v = acc[i + j] + (uint64_t)a.m[i] * b.m[j] + c;

			acc[i + j] = (uint32_t)v;
			c = v >> 32;
		}
		acc[i + LIMBS] += c;
	}
	for (int i = 0; i < 2 * LIMBS; i++) {
		if (i < LIMBS)
			r.m[i] = (uint32_t)acc[i];
		else
			assert_int_equal(acc[i], 0);	/* no overflow */
	}
	r.neg = a.neg != b.neg && !big_is_zero(&r);
	return r;
}

static int big_sign(const struct big *a)
{
	return big_is_zero(a) ? 0 : a->neg ? -1 : 1;
}

static struct big big_from128(i128 v)
{
	int neg = v < 0;
	unsigned __int128 m = neg ? -(unsigned __int128)v : (unsigned __int128)v;
	struct big r = { 0 };

	for (int i = 0; i < 4; i++)
		r.m[i] = (uint32_t)(m >> (32 * i));
	r.neg = neg && m;
	return r;
}

static int big_eq(const struct big *a, const struct big *b)
{
	return a->neg == b->neg && !mag_cmp(a->m, b->m);
}

/* ---- the spec, computed in bignums ---- */
static int64_t tri(int64_t k)
{
	return k * (k + 1) / 2;
}

static struct big W_x(const uint32_t *x, long t, int k)
{
	struct big w = big_from(0);

	for (int i = 0; i < k; i++)
		w = big_add(w, big_mul(big_from(k - i), big_from(x[t - i])));
	return w;
}

static struct big W_big(const struct big *y, long t, int k)
{
	struct big w = big_from(0);

	for (int i = 0; i < k; i++)
		w = big_add(w, big_mul(big_from(k - i), y[t - i]));
	return w;
}

#define MAXN 900

static struct big Rb[MAXN], Qb[MAXN];

/*
 * Check both kernels against the bignum at every defined tick; returns how
 * many ticks had a non-zero signal (so a test can show it is not all ties).
 */
static int check_series(const uint32_t *x, long N, int L)
{
	const struct hma_params *hp;
	static struct hma_state st;
	static int8_t db[MAXN];
	int nonzero = 0;

	assert_true(N <= MAXN);
	assert_int_equal(hma_init(&st, L), 0);
	assert_int_equal(hma_batch_signal(x, N, L, db), 0);
	hp = &st.hp;

	int n = hp->n, h = hp->h, s = hp->s, p = hp->p, a = hp->a, b = hp->b;
	struct big Dn = big_from(tri(n)), Dh = big_from(tri(h)), Ds = big_from(tri(s));
	struct big Dp = big_from(tri(p)), Da = big_from(tri(a)), Db = big_from(tri(b));
	struct big F1 = big_mul(big_mul(Ds, Dh), Dn);
	struct big F2 = big_mul(big_mul(big_mul(Dp, Dp), Da), Db);

	for (long t = 0; t < N; t++) {
		int di = hma_update(&st, x[t]);

		if (t >= n - 1)
			Rb[t] = big_add(big_mul(big_from(2), big_mul(W_x(x, t, h), Dn)),
					big_neg(big_mul(W_x(x, t, n), Dh)));
		if (t >= p - 1)
			Qb[t] = big_add(big_add(
				big_mul(big_from(3), big_mul(big_mul(W_x(x, t, a), Db), Dp)),
				big_neg(big_mul(big_mul(W_x(x, t, b), Da), Dp))),
				big_neg(big_mul(big_mul(W_x(x, t, p), Da), Db)));
		if (t < (long)hp->t0) {
			assert_int_equal(di, 0);
			assert_int_equal(db[t], 0);
			continue;
		}
		struct big H = W_big(Rb, t, s);
		struct big T = W_big(Qb, t, p);
		struct big Hi = big_from128(st.H), Ti = big_from128(st.T);
		struct big diff = big_add(big_mul(H, F2), big_neg(big_mul(T, F1)));

		assert_true(big_eq(&H, &Hi));
		assert_true(big_eq(&T, &Ti));
		assert_int_equal(di, big_sign(&diff));
		assert_int_equal(db[t], big_sign(&diff));
		nonzero += di != 0;
	}
	return nonzero;
}

static const uint32_t XMAX = UINT32_MAX;
static uint32_t xs[MAXN];

static uint64_t rng = 0x1234567;

static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)rng;
}

static void test_constant_max(void **state)
{
	(void)state;
	for (int t = 0; t < MAXN; t++)
		xs[t] = XMAX;
	assert_int_equal(check_series(xs, MAXN, 256), 0);
	assert_int_equal(check_series(xs, 60, 6), 0);
}

/* Full-scale swings: the largest |R| and |Q| the range allows. */
static void test_square_wave(void **state)
{
	(void)state;
	for (int period = 2; period <= 512; period *= 4) {
		for (int t = 0; t < MAXN; t++)
			xs[t] = (t / (period / 2)) % 2 ? 1 : XMAX;
		check_series(xs, MAXN, 256);
		check_series(xs, 200, 6);
	}
}

/* Extreme ramps down from 2^32 - 1 and up from 1: strictly signed. */
static void test_extreme_ramps(void **state)
{
	uint32_t step = XMAX / MAXN;

	(void)state;
	for (int t = 0; t < MAXN; t++)
		xs[t] = XMAX - (uint32_t)t * step;
	assert_true(check_series(xs, MAXN, 256) > 0);
	for (int t = 0; t < MAXN; t++)
		xs[t] = 1 + (uint32_t)t * step;
	assert_true(check_series(xs, MAXN, 256) > 0);
	assert_true(check_series(xs, MAXN, 250) > 0);
}

static void test_random_extremes(void **state)
{
	static const int lengths[] = { 6, 7, 255, 256, 200, 63 };

	(void)state;
	for (unsigned int k = 0; k < sizeof(lengths) / sizeof(lengths[0]); k++) {
		for (int t = 0; t < MAXN; t++) {
			uint32_t r = rnd();

			xs[t] = r & 1 ? XMAX - (r >> 24) : 1 + (r >> 24);
		}
		assert_true(check_series(xs, MAXN, lengths[k]) > 0);
		for (int t = 0; t < MAXN; t++)
			xs[t] = rnd() | 1;
		assert_true(check_series(xs, MAXN, lengths[k]) > 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_constant_max),
		cmocka_unit_test(test_square_wave),
		cmocka_unit_test(test_extreme_ramps),
		cmocka_unit_test(test_random_extremes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
