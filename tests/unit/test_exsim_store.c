// SPDX-License-Identifier: MIT
/*
 * exsim's message store (netns/exsim/store.h) as a window: every message
 * back exactly while it is among the last msg_cap and its bytes have not
 * been written over; a message that would cross the ring's end starts at
 * its beginning, whole; nothing before 1 or after the last; too long
 * refused.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "netns/exsim/store.h"

/* Message @seq: a length from 12 to 50 and bytes that name it. */
static uint16_t make(uint64_t seq, uint8_t *m)
{
	uint16_t len = (uint16_t)(12 + seq * 7 % 39);

	for (uint16_t i = 0; i < len; i++)
		m[i] = (uint8_t)(seq * 31 + i);
	return len;
}

static void expect(const struct msg_store *s, uint64_t seq, bool held)
{
	uint8_t want[64];
	uint16_t len = 0, n = make(seq, want);
	const uint8_t *m = store_get(s, seq, &len);

	if (!held) {
		assert_null(m);
		return;
	}
	assert_non_null(m);
	assert_int_equal(len, n);
	assert_memory_equal(m, want, n);
}

/* A live run: room for everything, nothing forgotten. */
static void test_everything(void **state)
{
	struct msg_store s;
	uint8_t m[64];

	(void)state;
	assert_int_equal(store_open(&s, 1001, 1001 * 50 + STORE_MSG_MAX), 0);
	for (uint64_t seq = 1; seq <= 1000; seq++)
		assert_int_equal(store_put(&s, m, make(seq, m)), 0);
	for (uint64_t seq = 1; seq <= 1000; seq++)
		expect(&s, seq, true);
	expect(&s, 0, false);
	expect(&s, 1001, false);
	store_close(&s);
}

/* A window of 100 messages in a ring that holds about 80 of them. */
static void test_window(void **state)
{
	struct msg_store s;
	uint8_t m[64];
	uint64_t seq, oldest;

	(void)state;
	assert_int_equal(store_open(&s, 100, 2500), 0);
	for (seq = 1; seq <= 5000; seq++) {
		assert_int_equal(store_put(&s, m, make(seq, m)), 0);
		if (seq % 250)
			continue;
		/* The last messages are whole, whatever the wrap did. */
		for (uint64_t k = seq; k > seq - 40; k--)
			expect(&s, k, true);
		/* Beyond the message window: gone. */
		expect(&s, seq - 100, false);
		expect(&s, seq + 1, false);
	}
	/* Between the two limits, the bytes decide: what was written over is gone. */
	for (oldest = 5000; oldest > 4900; oldest--) {
		uint16_t len;

		if (!store_get(&s, oldest - 1, &len))
			break;
	}
	assert_true(oldest > 4901);		/* the ring, not the index, limits */
	for (seq = oldest; seq <= 5000; seq++)
		expect(&s, seq, true);
	for (seq = oldest - 1; seq > 4900; seq--)
		expect(&s, seq, false);
	assert_int_equal(s.refused, 0);
	store_close(&s);
}

static void test_refused(void **state)
{
	static uint8_t big[STORE_MSG_MAX + 1];
	struct msg_store s;

	(void)state;
	assert_int_equal(store_open(&s, 10, STORE_MSG_MAX * 2), 0);
	assert_int_equal(store_put(&s, big, STORE_MSG_MAX + 1), -1);
	assert_int_equal(s.refused, 1);
	assert_int_equal(s.n, 0);
	assert_int_equal(store_put(&s, big, STORE_MSG_MAX), 0);
	assert_int_equal(store_put(&s, big, STORE_MSG_MAX), 0);	/* wraps: whole */
	assert_int_equal(s.n, 2);
	store_close(&s);
	assert_int_equal(store_open(&s, 0, 100), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_everything),
		cmocka_unit_test(test_window),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
