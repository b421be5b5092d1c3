// SPDX-License-Identifier: MIT
/*
 * What exsim's order session keeps: the sequenced store
 * (netns/exsim/soup_store.h) numbers messages from 1 and gives back the
 * last cap of them, each as the packet it kept, counting what fell out;
 * the token set (netns/exsim/tokens.h) says new once and seen after,
 * whatever the token's bytes, and stops keeping (counted) at three
 * quarters full.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "netns/exsim/soup_store.h"
#include "netns/exsim/tokens.h"

/* Message @n as an 'S' packet of a length from 24 to 66 bytes that names it. */
static size_t make(uint64_t n, uint8_t *p)
{
	uint16_t len = (uint16_t)(24 + n * 7 % 43);

	soup_put_header(p, SOUP_SEQ_DATA, len);
	for (uint16_t i = 0; i < len; i++)
		p[SOUP_HDR_LEN + i] = (uint8_t)(n * 31 + i);
	return SOUP_HDR_LEN + len;
}

static void put(struct soup_store *s, uint64_t want)
{
	assert_int_equal(make(s->next, soup_store_slot(s)) <= SOUP_STORE_SLOT, 1);
	assert_int_equal(soup_store_commit(s), want);
}

static void expect(const struct soup_store *s, uint64_t n, bool kept)
{
	uint8_t want[SOUP_STORE_SLOT];
	size_t len = 0, wlen = make(n, want);
	const uint8_t *p = soup_store_get(s, n, &len);

	if (!kept) {
		assert_null(p);
		return;
	}
	assert_non_null(p);
	assert_int_equal(len, wlen);
	assert_memory_equal(p, want, wlen);
}

/* Room for all: numbered from 1, every one back, nothing before or after. */
static void test_store_numbers_and_keeps(void **state)
{
	struct soup_store s;

	(void)state;
	assert_int_equal(soup_store_open(&s, 100), 0);
	assert_int_equal(soup_store_first(&s), 1);
	expect(&s, 1, false);
	for (uint64_t n = 1; n <= 100; n++)
		put(&s, n);
	for (uint64_t n = 1; n <= 100; n++)
		expect(&s, n, true);
	expect(&s, 0, false);
	expect(&s, 101, false);
	assert_int_equal(soup_store_first(&s), 1);
	assert_int_equal(s.evicted, 0);
	soup_store_close(&s);
}

/* Bounded: the last cap, the older ones counted as fallen out. */
static void test_store_keeps_the_last_cap(void **state)
{
	struct soup_store s;

	(void)state;
	assert_int_equal(soup_store_open(&s, 8), 0);
	for (uint64_t n = 1; n <= 8; n++)
		put(&s, n);
	assert_int_equal(soup_store_first(&s), 1);
	put(&s, 9);
	assert_int_equal(soup_store_first(&s), 2);
	assert_int_equal(s.evicted, 1);
	for (uint64_t n = 10; n <= 1000; n++)
		put(&s, n);
	assert_int_equal(soup_store_first(&s), 993);
	assert_int_equal(s.evicted, 992);
	for (uint64_t n = 990; n <= 1001; n++)
		expect(&s, n, n >= 993 && n <= 1000);
	soup_store_close(&s);
	assert_int_not_equal(soup_store_open(&s, 0), 0);
}

static void tok(char *t, unsigned int i)
{
	char digits[16];

	snprintf(digits, sizeof(digits), "%014u", i);
	memcpy(t, digits, ORDER_TOKEN_LEN);
}

/* New once, seen after; zero bytes and spaces are tokens like any other. */
static void test_tokens_new_then_seen(void **state)
{
	char t[ORDER_TOKEN_LEN], zero[ORDER_TOKEN_LEN] = { 0 }, spaces[ORDER_TOKEN_LEN];
	struct token_set s;

	(void)state;
	memset(spaces, ' ', sizeof(spaces));
	assert_int_equal(tokens_open(&s, 1u << 16), 0);
	assert_int_equal(tokens_add(&s, zero), TOKENS_NEW);
	assert_int_equal(tokens_add(&s, zero), TOKENS_SEEN);
	assert_int_equal(tokens_add(&s, spaces), TOKENS_NEW);
	for (unsigned int i = 0; i < 40000; i++) {
		tok(t, i);
		assert_int_equal(tokens_add(&s, t), TOKENS_NEW);
	}
	for (unsigned int i = 0; i < 40000; i++) {
		tok(t, i);
		assert_int_equal(tokens_add(&s, t), TOKENS_SEEN);
	}
	assert_int_equal(s.n, 40002);
	assert_int_equal(s.full, 0);
	tokens_close(&s);
}

/* Three quarters full: a new token is not kept, and later not found; old ones are. */
static void test_tokens_full(void **state)
{
	char t[ORDER_TOKEN_LEN];
	struct token_set s;

	(void)state;
	assert_int_not_equal(tokens_open(&s, 12), 0);
	assert_int_equal(tokens_open(&s, 16), 0);
	for (unsigned int i = 0; i < 12; i++) {
		tok(t, i);
		assert_int_equal(tokens_add(&s, t), TOKENS_NEW);
	}
	tok(t, 12);
	assert_int_equal(tokens_add(&s, t), TOKENS_FULL);
	assert_int_equal(tokens_add(&s, t), TOKENS_FULL);
	assert_int_equal(s.full, 2);
	for (unsigned int i = 0; i < 12; i++) {
		tok(t, i);
		assert_int_equal(tokens_add(&s, t), TOKENS_SEEN);
	}
	tokens_close(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_store_numbers_and_keeps),
		cmocka_unit_test(test_store_keeps_the_last_cap),
		cmocka_unit_test(test_tokens_new_then_seen),
		cmocka_unit_test(test_tokens_full),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
