// SPDX-License-Identifier: MIT
/*
 * Where the simulator pins itself (netns/exsim/cpu_pick.h), over a made-up
 * /proc: off the CPU of each running hot loop, found as the busiest pinned
 * task of t2t-gateway or t2t-floor, never the gateway's main thread, which
 * on a 2-CPU machine is pinned to the one CPU the loop leaves.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "netns/exsim/cpu_pick.h"

static char root[64];

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* Process @pid named @comm with no tasks yet. */
static void process(int pid, const char *comm)
{
	char path[200], line[80];

	snprintf(path, sizeof(path), "%s/%d", root, pid);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/%d/task", root, pid);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/%d/comm", root, pid);
	snprintf(line, sizeof(line), "%s\n", comm);
	put(path, line);
}

/* Task @tid of @pid, allowed on @cpus, having used @ticks of CPU. */
static void task(int pid, int tid, const char *cpus, unsigned ticks)
{
	char path[200], text[300];

	snprintf(path, sizeof(path), "%s/%d/task/%d", root, pid, tid);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/%d/task/%d/status", root, pid, tid);
	snprintf(text, sizeof(text), "Name:\tx\nState:\tR (running)\nCpus_allowed_list:\t%s\n", cpus);
	put(path, text);
	/* A name with a space and a parenthesis, as comm may hold. */
	snprintf(path, sizeof(path), "%s/%d/task/%d/stat", root, pid, tid);
	snprintf(text, sizeof(text),
		 "%d (t2t gw) x) R 1 %d %d 0 -1 4194560 4000000000 0 7 0 %u %u 0 0 20 0 3 0\n",
		 tid, pid, pid, ticks / 2, ticks - ticks / 2);
	put(path, text);
}

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/t2t-cpu-pick.XXXXXX");
	assert_non_null(mkdtemp(root));
	return 0;
}

static int teardown(void **state)
{
	char cmd[120];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) ? -1 : 0;
}

static void test_with_nothing_running_it_leaves_the_gateways_default_cpu(void **state)
{
	char why[120];

	(void)state;
	process(100, "bash");
	task(100, 100, "1", 500);
	assert_int_equal(cpu_pick_in(root, 2, why, sizeof(why)), 0);
	assert_non_null(strstr(why, "no gateway running yet"));
}

static void test_the_gateways_main_thread_pinned_elsewhere_is_not_its_loop(void **state)
{
	char why[120];

	(void)state;
	/* The 2-CPU layout: main and host threads on CPU 0, the loop on 1. */
	process(200, "t2t-gateway");
	task(200, 200, "0", 90);
	task(200, 201, "1", 400);
	task(200, 202, "0", 3);
	assert_int_equal(cpu_pick_in(root, 2, why, sizeof(why)), 0);
	assert_string_equal(why, "a hot loop spins on CPU 1");
}

static void test_a_busy_main_thread_does_not_hide_a_young_loop(void **state)
{
	char why[120];

	(void)state;
	/* Set-up took the main thread more CPU than the loop has spun yet. */
	process(300, "t2t-gateway");
	task(300, 300, "0", 900);
	task(300, 301, "1", 2);
	task(300, 302, "0", 1);
	assert_int_equal(cpu_pick_in(root, 2, why, sizeof(why)), 0);
	assert_string_equal(why, "a hot loop spins on CPU 1");
}

static void test_the_floors_one_thread_is_its_loop(void **state)
{
	char why[120];

	(void)state;
	process(400, "t2t-floor");
	task(400, 400, "0", 50);
	assert_int_equal(cpu_pick_in(root, 4, why, sizeof(why)), 1);
	assert_string_equal(why, "a hot loop spins on CPU 0");
}

static void test_unpinned_tasks_and_other_programs_do_not_count(void **state)
{
	char why[120];

	(void)state;
	process(500, "t2t-gateway");
	task(500, 500, "0-3", 10);
	task(500, 501, "2", 300);
	task(500, 502, "0,1,3", 1);
	process(501, "spinner");
	task(501, 501, "0", 1000);
	assert_int_equal(cpu_pick_in(root, 4, why, sizeof(why)), 0);
	assert_string_equal(why, "a hot loop spins on CPU 2");
}

static void test_every_cpu_taken_leaves_it_unpinned(void **state)
{
	char why[120];

	(void)state;
	process(600, "t2t-gateway");
	task(600, 600, "0", 10);
	task(600, 601, "1", 300);
	process(700, "t2t-floor");
	task(700, 700, "0", 200);
	assert_int_equal(cpu_pick_in(root, 2, why, sizeof(why)), -1);
	assert_string_equal(why, "every CPU has a hot loop");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_with_nothing_running_it_leaves_the_gateways_default_cpu, setup, teardown),
		cmocka_unit_test_setup_teardown(test_the_gateways_main_thread_pinned_elsewhere_is_not_its_loop, setup, teardown),
		cmocka_unit_test_setup_teardown(test_a_busy_main_thread_does_not_hide_a_young_loop, setup, teardown),
		cmocka_unit_test_setup_teardown(test_the_floors_one_thread_is_its_loop, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unpinned_tasks_and_other_programs_do_not_count, setup, teardown),
		cmocka_unit_test_setup_teardown(test_every_cpu_taken_leaves_it_unpinned, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
