// SPDX-License-Identifier: MIT
/*
 * Below the host readiness report: CPU lists and masks as the kernel
 * writes them, and the kernel command line's parameters.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "host/cpulist.h"
#include "host/read.h"

static void test_cpu_lists_and_command_line(void **state)
{
	struct hc_cpus s;
	char buf[64];

	(void)state;
	assert_int_equal(hc_cpus_parse_list("0-3,8,10-11\n", &s), 0);
	assert_int_equal(hc_cpus_count(&s), 7);
	hc_cpus_format(&s, buf, sizeof(buf));
	assert_string_equal(buf, "0-3,8,10-11");
	assert_int_equal(hc_cpus_parse_list("(null)", &s), 0);
	assert_int_equal(hc_cpus_count(&s), 0);
	hc_cpus_format(&s, buf, sizeof(buf));
	assert_string_equal(buf, "none");
	assert_int_equal(hc_cpus_parse_list("3-1", &s), -EINVAL);
	assert_int_equal(hc_cpus_parse_list("1,x", &s), -EINVAL);
	assert_int_equal(hc_cpus_parse_list("5000", &s), -EINVAL);
	assert_int_equal(hc_cpus_parse_mask("00000001,00000006", &s), 0);
	hc_cpus_format(&s, buf, sizeof(buf));
	assert_string_equal(buf, "1-2,32");
	assert_int_equal(hc_cpus_parse_mask("0g", &s), -EINVAL);

	assert_int_equal(hc_cmdline_param("a nohz_full=1-3 rcu_nocbs b", "nohz_full", buf,
					  sizeof(buf)), 1);
	assert_string_equal(buf, "1-3");
	assert_int_equal(hc_cmdline_param("a rcu_nocbs b", "rcu_nocbs", buf, sizeof(buf)), 2);
	assert_int_equal(hc_cmdline_param("isolcpus=1 isolcpus=2", "isolcpus", buf, sizeof(buf)), 1);
	assert_string_equal(buf, "2");
	assert_int_equal(hc_cmdline_param("x -- isolcpus=1", "isolcpus", buf, sizeof(buf)), 0);
	assert_int_equal(hc_cmdline_param("isolcpus_x=1\n", "isolcpus", buf, sizeof(buf)), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpu_lists_and_command_line),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
