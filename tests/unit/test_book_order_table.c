// SPDX-License-Identifier: MIT
/*
 * The order table's homes (book/order_table.h): refs in sequence take
 * consecutive lines; refs that come in no sequence, and days whose resting
 * orders wrap the table many times over, still keep every probe short.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tests/unit/book_msgs.h"
#include "util/rng.h"

#define ORDERS	4096

static int setup(void **state)
{
	struct book_config cfg = { .max_orders = ORDERS, .track_all = true };

	return book_fixture_open(state, &cfg);
}

static void apply(struct book *b, struct msg m)
{
	struct tape_print p;

	book_apply(b, m.b, m.len, 1, &p);
}

/* The live orders' distance from their homes: mean, and the largest. */
static double displacement(const struct book *b, uint64_t *max)
{
	const struct order_table *t = &b->orders;
	uint64_t sum = 0, n = 0;

	*max = 0;
	for (uint64_t i = 0; i <= t->mask; i++) {
		const struct book_order *o = &t->slot[i];
		uint64_t d;

		if (!o->level)
			continue;
		d = (i - order_home(t, o->ref)) & t->mask;
		sum += d;
		n++;
		if (d > *max)
			*max = d;
		assert_ptr_equal(order_probe(t, o->ref), o);
	}
	assert_int_equal(n, b->live);
	return n ? (double)sum / (double)n : 0;
}

static void test_sequential_refs_take_consecutive_lines(void **state)
{
	const struct order_table *t = &((struct book *)*state)->orders;
	uint64_t epoch = 1ull << (t->bits - 2), r0 = 7 * epoch + 100;

	for (uint64_t r = r0; r < r0 + 200; r++)
		assert_int_equal((order_home(t, r + 1) - order_home(t, r)) & t->mask, 4);
	/* A new epoch starts elsewhere. */
	assert_int_not_equal((order_home(t, 8 * epoch) - order_home(t, 8 * epoch - 1)) & t->mask,
			     4);
}

/* Refs far apart, each in an epoch of its own, spread like hashed ones. */
static void test_refs_out_of_sequence_spread(void **state)
{
	struct book *b = *state;
	uint64_t max, rng = 42;

	for (uint64_t k = 1; k <= ORDERS / 2; k++)
		apply(b, msg_add('A', 1, k << 40, 'B', 100, 10000));
	assert_true(displacement(b, &max) < 0.5);
	assert_true(max <= 16);
	for (uint64_t k = 1; k <= ORDERS / 2; k++)
		apply(b, msg_delete(1, k << 40));
	for (uint64_t k = 1; k <= ORDERS / 2; k++)
		apply(b, msg_add('A', 1, splitmix64(&rng), 'S', 100, 10000));
	assert_true(displacement(b, &max) < 0.5);
	assert_true(max <= 16);
}

/*
 * A day's shape: refs in sequence, each order live for the next 1024 adds
 * (a dense run of recent refs), one in 40 resting far longer: after forty
 * times the table's worth of refs, the resting ones and the recent run
 * still share the table without long probes.  (Refs at their own number
 * mod the table size would put the run on 1024 consecutive slots, and a
 * resting order among them would push the rest of the run along.)
 */
static void test_resting_orders_across_epochs_keep_probes_short(void **state)
{
	struct book *b = *state;
	uint64_t slots = b->orders.mask + 1, max, rng = 7, nrest = 0;
	uint64_t resting[ORDERS / 2];
	uint8_t *rests = calloc(64 * slots, 1);

	assert_non_null(rests);
	for (uint64_t ref = 1; ref < 40 * slots; ref++) {
		apply(b, msg_add('A', 2, ref, 'S', 100, 10000 + 100 * (uint32_t)(ref % 50)));
		if (ref > 1024 && !rests[ref - 1024])
			apply(b, msg_delete(2, ref - 1024));
		if (splitmix64(&rng) % 40 == 0) {
			rests[ref] = 1;
			resting[nrest++] = ref;
		}
		if (nrest == ORDERS / 2) {
			/* The oldest half of the resting orders leaves. */
			for (uint64_t i = 0; i < ORDERS / 4; i++)
				apply(b, msg_delete(2, resting[i]));
			memmove(resting, resting + ORDERS / 4, (ORDERS / 4) * sizeof(*resting));
			nrest = ORDERS / 4;
		}
	}
	assert_true(b->live > 1024);
	assert_true(displacement(b, &max) < 0.5);
	assert_true(max <= 16);
	free(rests);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, book_fixture_close)
	const struct CMUnitTest tests[] = {
		T(test_sequential_refs_take_consecutive_lines),
		T(test_refs_out_of_sequence_spread),
		T(test_resting_orders_across_epochs_keep_probes_short),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
