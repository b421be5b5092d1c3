// SPDX-License-Identifier: MIT
/*
 * The kernel in lanes == the scalar incremental kernel (hma_update(), the
 * gateway's), under every instruction set this CPU has: the same d at every
 * tick for every length 6..256, on GBM and on the extreme corners of the
 * price range (1 and 2^32 - 1, where the five sums come nearest 2^59);
 * the same position changes at the same ticks; the same trades and PnL to
 * the bit on the spec's reference workload; and a series fed in pieces of
 * any size gives what it gives whole.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "strategy/gbm.h"
#include "strategy/hma_lanes.h"
#include "strategy/strat.h"
#include "strategy/sweep.h"
#include "util/rng.h"

#define REF_TICKS 150000
#define SHORT_TICKS 3000

static struct hma_lanes *hl;
static int8_t *dl;
static uint32_t *x;

static int setup(void **state)
{
	(void)state;
	hl = aligned_alloc(64, sizeof(*hl));
	dl = malloc((size_t)REF_TICKS * HMA_LANES);
	x = malloc(REF_TICKS * sizeof(*x));
	return hl && dl && x ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	free(hl);
	free(dl);
	free(x);
	return 0;
}

/* Lengths L0.. (up to 8, clipped at 256) in lanes: d at every tick == hma_update's. */
static void same_signals(const uint32_t *px, size_t N, unsigned int L0, enum hma_isa isa)
{
	unsigned int L[HMA_LANES] = { 0 }, nl = 0;
	struct hma_state st;

	for (unsigned int k = 0; k < HMA_LANES && L0 + k <= HMA_LEN_MAX; k++)
		L[nl++] = L0 + k;
	assert_int_equal(hma_lanes_init(hl, L, nl, NULL, SAR_FEE_PCT, isa), 0);
	hl->d_out = dl;
	hma_lanes_run(hl, px, N, NULL, NULL);
	for (unsigned int k = 0; k < nl; k++) {
		assert_int_equal(hma_init(&st, L[k]), 0);
		for (size_t t = 0; t < N; t++) {
			int d = hma_update(&st, px[t]);

			if (d != dl[t * HMA_LANES + k])
				fail_msg("%s L=%u t=%zu: scalar %d lanes %d", hma_isa_names[isa], L[k], t,
					 d, dl[t * HMA_LANES + k]);
		}
	}
}

static void for_each_isa(void (*fn)(enum hma_isa))
{
	int ran = 0;

	for (int isa = HMA_ISA_GENERIC; isa < HMA_ISA_NR; isa++) {
		if (!hma_isa_supported(isa)) {
			print_message("(%s: not on this CPU)\n", hma_isa_names[isa]);
			assert_int_equal(hma_lanes_init(hl, (unsigned int[]){ 6 }, 1, NULL, 0, isa),
					 -ENOTSUP);
			continue;
		}
		fn(isa);
		ran++;
	}
	assert_true(ran >= 1);
}

static void every_length_gbm(enum hma_isa isa)
{
	gbm_series(7, x, SHORT_TICKS);
	for (unsigned int L = HMA_LEN_MIN; L <= HMA_LEN_MAX; L += HMA_LANES)
		same_signals(x, SHORT_TICKS, L, isa);
}

static void test_every_length_every_tick(void **state)
{
	(void)state;
	for_each_isa(every_length_gbm);
}

/*
 * The corners: runs of the largest and smallest price, a sawtooth between
 * them and random jumps over the whole range, so that the sums reach their
 * bounds and d changes sign often.
 */
static void extremes(enum hma_isa isa)
{
	uint64_t z = 99;
	size_t N = 2000;

	for (size_t t = 0; t < N; t++) {
		if (t < 600)
			x[t] = (t / 300) % 2 ? 1 : UINT32_MAX;
		else if (t < 1200)
			x[t] = t % 2 ? UINT32_MAX : 1;
		else
			x[t] = (uint32_t)(splitmix64(&z) % UINT32_MAX) + 1;
	}
	for (unsigned int L = HMA_LEN_MIN; L <= HMA_LEN_MAX; L += HMA_LANES)
		same_signals(x, N, L, isa);
	same_signals(x, N, HMA_LEN_MAX - 7, isa);
	/* flat prices: HMA == HMA3, a tie at every tick from t0 on */
	for (size_t t = 0; t < N; t++)
		x[t] = UINT32_MAX;
	same_signals(x, N, 250, isa);
}

static void test_extreme_prices(void **state)
{
	(void)state;
	for_each_isa(extremes);
}

struct change {
	size_t i;
	int chg;
};

struct changes {
	struct change *c[HMA_LANES];
	size_t n[HMA_LANES], cap;
};

static void note_change(void *ctx, unsigned int lane, size_t i, int chg)
{
	struct changes *cs = ctx;

	assert_true(cs->n[lane] < cs->cap);
	cs->c[lane][cs->n[lane]++] = (struct change){ i, chg };
}

/* The reference workload: changes, trades, PnL and cash == the scalar rule's. */
static void reference(enum hma_isa isa)
{
	static struct changes cs;
	struct strat *s = malloc(sizeof(*s));

	assert_non_null(s);
	cs.cap = REF_TICKS;
	for (int k = 0; k < HMA_LANES; k++)
		assert_non_null(cs.c[k] = malloc(cs.cap * sizeof(struct change)));
	gbm_series(42, x, REF_TICKS);
	for (unsigned int g = 0; g < HMA_GRID_SIZE; g += HMA_LANES) {
		unsigned int L[HMA_LANES];
		uint32_t units[HMA_LANES];

		for (unsigned int k = 0; k < HMA_LANES; k++) {
			L[k] = hma_grid_length(g + k);
			units[k] = 100 + k;
		}
		memset(cs.n, 0, sizeof(cs.n));
		assert_int_equal(hma_lanes_init(hl, L, HMA_LANES, units, SAR_FEE_PCT, isa), 0);
		hma_lanes_run(hl, x, REF_TICKS, note_change, &cs);
		for (unsigned int k = 0; k < HMA_LANES; k++) {
			struct sar r, ref;
			size_t c = 0;
			int64_t cash = 0;

			strat_init(s, L[k]);
			for (size_t t = 0; t < REF_TICKS; t++) {
				int chg = strat_on_tick(s, x[t]);

				if (!chg)
					continue;
				if (c >= cs.n[k] || cs.c[k][c].i != t || cs.c[k][c].chg != chg)
					fail_msg("%s L=%u: change at t=%zu (%d) not in the lanes' (#%zu)",
						 hma_isa_names[isa], L[k], t, chg, c);
				c++;
				cash -= (int64_t)chg * units[k] * x[t];
			}
			assert_int_equal(c, cs.n[k]);
			assert_int_equal(hl->orders[k], (int64_t)c);
			assert_int_equal(hl->cash[k], cash);
			hma_lanes_result(hl, k, &r);
			assert_int_equal(sweep_run(x, REF_TICKS, L[k], HMA_KERNEL_INCREMENTAL, &ref), 0);
			assert_int_equal(r.trades, ref.trades);
			/* the same doubles in the same order: the same bits */
			assert_memory_equal(&r.pnl_pct, &ref.pnl_pct, sizeof(double));
		}
	}
	for (int k = 0; k < HMA_LANES; k++)
		free(cs.c[k]);
	free(s);
}

static void test_reference_workload(void **state)
{
	(void)state;
	reference(hma_isa_best());
}

/* Fed in pieces of every size from 1 to a few steps, the lanes end where one run ends. */
static void test_pieces_equal_whole(void **state)
{
	static struct hma_lanes whole;
	const unsigned int L[3] = { 6, 97, 256 };
	uint64_t z = 5;
	size_t N = 9000, off = 0;

	(void)state;
	gbm_series(3, x, N);
	assert_int_equal(hma_lanes_init(&whole, L, 3, NULL, 0.05, HMA_ISA_AUTO), 0);
	hma_lanes_run(&whole, x, N, NULL, NULL);
	assert_int_equal(hma_lanes_init(hl, L, 3, NULL, 0.05, HMA_ISA_AUTO), 0);
	while (off < N) {
		size_t m = 1 + splitmix64(&z) % (3 * HMA_LANES_BLOCK);

		if (m > N - off)
			m = N - off;
		hma_lanes_run(hl, x + off, m, NULL, NULL);
		off += m;
	}
	for (unsigned int k = 0; k < 3; k++) {
		struct sar a, b;

		hma_lanes_result(&whole, k, &a);
		hma_lanes_result(hl, k, &b);
		assert_int_equal(a.trades, b.trades);
		assert_memory_equal(&a.pnl_pct, &b.pnl_pct, sizeof(double));
		assert_true(a.trades > 0);
	}
}

static void test_bad_arguments(void **state)
{
	const unsigned int ok[1] = { 20 }, low[1] = { 5 }, high[1] = { 257 };

	(void)state;
	assert_int_equal(hma_lanes_init(hl, low, 1, NULL, 0, HMA_ISA_AUTO), -ERANGE);
	assert_int_equal(hma_lanes_init(hl, high, 1, NULL, 0, HMA_ISA_AUTO), -ERANGE);
	assert_int_equal(hma_lanes_init(hl, ok, 0, NULL, 0, HMA_ISA_AUTO), -EINVAL);
	assert_int_equal(hma_lanes_init(hl, ok, HMA_LANES + 1, NULL, 0, HMA_ISA_AUTO), -EINVAL);
	assert_int_equal(hma_lanes_init(hl, ok, 1, NULL, 0, HMA_ISA_NR), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_length_every_tick),
		cmocka_unit_test(test_extreme_prices),
		cmocka_unit_test(test_reference_workload),
		cmocka_unit_test(test_pieces_equal_whole),
		cmocka_unit_test(test_bad_arguments),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
