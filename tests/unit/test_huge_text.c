// SPDX-License-Identifier: MIT
/*
 * The program's code moved onto a 2 MB page (util/huge_text.h): linked 2 MB
 * aligned, the code's range becomes one anonymous mapping with the same
 * bytes and keeps running, on a huge page when THP allows; linked without
 * the alignment, nothing moves and the reason is given.
 */
#include <errno.h>
#include <link.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "util/huge_text.h"

/* Code of this program, called after the move. */
static __attribute__((noinline)) int collatz_steps(unsigned int n)
{
	int steps = 0;

	while (n != 1) {
		n = n & 1 ? 3 * n + 1 : n / 2;
		steps++;
	}
	return steps;
}

static int code_align_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_LOAD && (info->dlpi_phdr[i].p_flags & PF_X))
			*(size_t *)data = info->dlpi_phdr[i].p_align;
	return 1;
}

static size_t code_align(void)
{
	size_t a = 0;

	dl_iterate_phdr(code_align_cb, &a);
	return a;
}

/* The /proc/self/maps line of the mapping holding @p, into @line. */
static void maps_line_of(const void *p, char *line, size_t len)
{
	FILE *f = fopen("/proc/self/maps", "r");
	unsigned long lo, hi;

	assert_non_null(f);
	line[0] = 0;
	while (fgets(line, (int)len, f))
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && (uintptr_t)p >= lo &&
		    (uintptr_t)p < hi)
			break;
	fclose(f);
}

static bool thp_never(void)
{
	char buf[128] = "";
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");

	if (!f)
		return true;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	return strstr(buf, "[never]") != NULL;
}

static void test_moves_or_refuses(void **state)
{
	struct huge_text t;
	char err[160] = "", line[512];
	int before = collatz_steps(27);
	uint8_t code[64];
	int ret;

	(void)state;
	memcpy(code, (const void *)collatz_steps, sizeof(code));
	ret = huge_text_remap(&t, err, sizeof(err));
	if (code_align() < ((size_t)2 << 20)) {
		assert_int_equal(ret, -ENOEXEC);
		assert_non_null(strstr(err, "2 MB aligned"));
		maps_line_of((const void *)collatz_steps, line, sizeof(line));
		assert_non_null(strstr(line, "test_huge_text"));	/* still the file's */
		return;
	}
	assert_int_equal(ret, 0);
	assert_true((uintptr_t)collatz_steps >= (uintptr_t)t.addr);
	assert_true((uintptr_t)collatz_steps < (uintptr_t)t.addr + t.size);
	assert_int_equal(t.size % ((size_t)2 << 20), 0);
	/* The same bytes, now anonymous memory, and they still run. */
	assert_memory_equal(code, (const void *)collatz_steps, sizeof(code));
	maps_line_of((const void *)collatz_steps, line, sizeof(line));
	assert_null(strstr(line, "test_huge_text"));
	assert_non_null(strstr(line, "r-xp"));
	assert_int_equal(collatz_steps(27), before);
	if (!thp_never())
		assert_int_equal(t.huge_bytes, t.size);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_moves_or_refuses),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
