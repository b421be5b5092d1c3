// SPDX-License-Identifier: MIT
/* A string as JSON (util/json.h): escapes, control characters, the length bound. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "util/json.h"

/* What json_strn() writes for @s, @n; the caller frees it. */
static char *written(const char *s, size_t n)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	json_strn(f, s, n);
	fclose(f);
	return text;
}

static void test_escapes(void **state)
{
	char *t;

	(void)state;
	t = written("a\"b\\c\n\x01 \xc3\xa9", SIZE_MAX);
	assert_string_equal(t, "\"a\\\"b\\\\c\\u000a\\u0001 \xc3\xa9\"");
	free(t);
}

static void test_bounded(void **state)
{
	char *t;

	(void)state;
	t = written("AAPL    ", 4);		/* a padded field, trimmed by the caller */
	assert_string_equal(t, "\"AAPL\"");
	free(t);
	t = written("ab\0cd", 5);		/* a NUL ends it first */
	assert_string_equal(t, "\"ab\"");
	free(t);
	t = written("", SIZE_MAX);
	assert_string_equal(t, "\"\"");
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escapes),
		cmocka_unit_test(test_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
