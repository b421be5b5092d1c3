// SPDX-License-Identifier: MIT
/* Price files: valid input parses; each kind of bad line is named by number. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "strategy/prices.h"

static int parse(const char *text, uint32_t **x, size_t *n, char *err)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int ret;

	assert_non_null(f);
	ret = prices_read(f, "t.txt", x, n, err, 256);
	fclose(f);
	return ret;
}

static void expect_error(const char *text, int code, const char *msg)
{
	char err[256] = "";
	uint32_t *x = NULL;
	size_t n = 0;

	assert_int_equal(parse(text, &x, &n, err), code);
	assert_null(x);
	if (!strstr(err, msg))
		fail_msg("input %s: error '%s' lacks '%s'", text, err, msg);
}

static void test_valid(void **state)
{
	char err[256];
	uint32_t *x;
	size_t n;

	(void)state;
	assert_int_equal(parse("1000000\n 42 \r\n4294967295", &x, &n, err), 0);
	assert_int_equal(n, 3);
	assert_int_equal(x[0], 1000000);
	assert_int_equal(x[1], 42);
	assert_int_equal(x[2], 4294967295u);
	free(x);
}

static void test_errors_name_the_line(void **state)
{
	(void)state;
	expect_error("", -EINVAL, "t.txt: no prices");
	expect_error("5\nabc\n", -EINVAL, "t.txt:2: not a number");
	expect_error("5\n6\n0\n", -ERANGE, "t.txt:3: price out of range");
	expect_error("4294967296\n", -ERANGE, "t.txt:1: price out of range");
	expect_error("99999999999999999999999\n", -ERANGE, "t.txt:1: price out of range");
	expect_error("7\n-5\n", -ERANGE, "t.txt:2: price must be positive");
	expect_error("7\n12x\n", -EINVAL, "t.txt:2: trailing characters");
	expect_error("7\n1.5\n", -EINVAL, "t.txt:2: trailing characters");
	expect_error("7\n\n8\n", -EINVAL, "t.txt:2: empty line");
}

static void test_write_read_round_trip(void **state)
{
	uint32_t in[4] = { 1, 2, 4294967295u, 1000000 }, *out;
	char buf[128], err[256];
	size_t n;
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	(void)state;
	assert_non_null(f);
	assert_int_equal(prices_write(f, in, 4), 0);
	fclose(f);
	assert_int_equal(parse(buf, &out, &n, err), 0);
	assert_int_equal(n, 4);
	assert_memory_equal(in, out, sizeof(in));
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid),
		cmocka_unit_test(test_errors_name_the_line),
		cmocka_unit_test(test_write_read_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
