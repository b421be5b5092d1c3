// SPDX-License-Identifier: MIT
/*
 * The per-queue AF_XDP sockets (net/xsk_queues.c) on a real veth pair with
 * several queues, in a network namespace of the test's own (unshare: it
 * goes away with the process, so nothing is left behind): a socket on
 * every queue (or on a list of them), all on one UMEM, the first one the
 * only one with a TX ring; a queue the interface lacks is refused before
 * anything is opened; a queue whose bind fails (another socket holds it)
 * fails the whole set with a message naming that queue, and nothing of
 * the set is left open; line B's interface is served after line A's; the
 * steering program detaches cleanly afterwards.  Needs root.
 */
#include <dirent.h>
#include <errno.h>
#include <net/if.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "bpf/steer_loader.h"
#include "util/queue_list.h"
#include "net/xsk_queues.h"

#define RING 64

static struct xdp_steer steer;

/* Open file descriptors of this process. */
static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n - 1;	/* opendir's own */
}

static int sh(const char *cmd)
{
	int ret = system(cmd);

	if (ret)
		fprintf(stderr, "test_xsk_queues: failed: %s\n", cmd);
	return ret;
}

/* Line A: tqa0 (4 queues) with its peer tqa1; line B: tqb0 (2 queues), peer tqb1. */
static int setup(void **state)
{
	char err[256];

	(void)state;
	if (geteuid() != 0) {
		fprintf(stderr, "test_xsk_queues: needs root (a network namespace, AF_XDP)\n");
		return -1;
	}
	if (unshare(CLONE_NEWNET)) {
		perror("test_xsk_queues: unshare(CLONE_NEWNET)");
		return -1;
	}
	if (sh("ip link add tqa0 numtxqueues 4 numrxqueues 4 type veth peer name tqa1 "
	       "numtxqueues 4 numrxqueues 4 && ethtool -L tqa0 rx 4 tx 4 && "
	       "ethtool -L tqa1 rx 4 tx 4 && ip link set tqa0 up && ip link set tqa1 up && "
	       "ip link add tqb0 numtxqueues 2 numrxqueues 2 type veth peer name tqb1 "
	       "numtxqueues 2 numrxqueues 2 && ethtool -L tqb0 rx 2 tx 2 && "
	       "ethtool -L tqb1 rx 2 tx 2 && ip link set tqb0 up && ip link set tqb1 up"))
		return -1;
	if (xdp_steer_open(&steer, "tqa0", true, false, err, sizeof(err))) {
		fprintf(stderr, "test_xsk_queues: %s\n", err);
		return -1;
	}
	return xdp_steer_add_if(&steer, "tqb0", false, err, sizeof(err));
}

static int teardown(void **state)
{
	(void)state;
	xdp_steer_close(&steer);
	return 0;
}

static struct xsk_queues_cfg cfg_for(uint64_t serve, bool line_b)
{
	struct xsk_queues_cfg c = {
		.ifname = { "tqa0", line_b ? "tqb0" : NULL },
		.serve = serve,
		.ring_size = RING,
		.frame_size = 2048,
		.tx_frames = 32,
		.need_wakeup = true,
		.xskmap_fd = xdp_steer_xskmap_fd(&steer),
	};

	return c;
}

static void test_every_queue_gets_a_socket_on_one_umem(void **state)
{
	struct xsk_queues_cfg c = cfg_for(0, false);
	int fds = open_fds();
	struct xsk_queues q;
	char err[256];

	(void)state;
	assert_int_equal(xsk_queues_open(&q, &c, err, sizeof(err)), 0);
	assert_int_equal(q.n, 4);
	assert_int_equal(q.queues[0], 4);
	assert_int_equal(q.n_if[0], 4);
	assert_int_equal(q.area.frames, 4 * RING + 32);
	assert_int_equal(q.area.sockets, 4);
	assert_ptr_equal(q.tx, &q.port[0]);
	for (unsigned int i = 0; i < q.n; i++) {
		assert_int_equal(q.port[i].queue, i);
		assert_int_equal(xsk_queues_slot(&q, i), 0);
		assert_true(q.port[i].fd >= 0);
		/* One UMEM, shares that never overlap. */
		assert_ptr_equal(q.port[i].umem, &q.area);
		if (i)
			assert_true(q.port[i].rx_first >= q.port[i - 1].rx_first + RING * 2048);
		/* Only the first transmits. */
		assert_int_equal(q.port[i].tx_on, i == 0);
		for (unsigned int j = 0; j < i; j++)
			assert_int_not_equal(q.port[i].fd, q.port[j].fd);
	}
	assert_int_equal(q.port[0].tx_free_n, 32);
	xsk_queues_close(&q);
	assert_int_equal(open_fds(), fds);
}

static void test_a_list_serves_only_its_queues(void **state)
{
	struct xsk_queues_cfg c = cfg_for((1u << 1) | (1u << 3), false);
	struct xsk_queues q;
	char err[256];

	(void)state;
	assert_int_equal(xsk_queues_open(&q, &c, err, sizeof(err)), 0);
	assert_int_equal(q.n, 2);
	assert_int_equal(q.port[0].queue, 1);
	assert_int_equal(q.port[1].queue, 3);
	/* Orders leave on the lowest served queue. */
	assert_int_equal(q.tx->queue, 1);
	xsk_queues_close(&q);
}

static void test_a_queue_the_interface_lacks_is_refused_first(void **state)
{
	struct xsk_queues_cfg c = cfg_for(1u << 6, false);
	int fds = open_fds();
	struct xsk_queues q;
	char err[256];

	(void)state;
	assert_int_equal(xsk_queues_open(&q, &c, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "tqa0 has 4 receive queues (0-3); queue 6 is none of them"));
	assert_int_equal(open_fds(), fds);
}

/*
 * Another socket holds queue 2: the set fails there, says so, and releases
 * queues 0 and 1 (opening the set succeeds once the other is gone).
 */
static void test_a_queue_whose_bind_fails_leaves_nothing_open(void **state)
{
	struct xsk_port_cfg bc = {
		.ifname = "tqa0", .queue = 2, .frame_size = 2048, .rx_frames = RING,
		.tx_frames = 0, .ring_size = RING, .xskmap_fd = xdp_steer_xskmap_fd(&steer),
		.xskmap_key = xdp_steer_xskmap_key(0, 2),
	};
	struct xsk_queues_cfg c = cfg_for(0, false);
	struct xsk_port blocker;
	struct xsk_queues q;
	char err[256];
	int fds;

	(void)state;
	assert_int_equal(xsk_port_open(&blocker, &bc, err, sizeof(err)), 0);
	fds = open_fds();
	assert_int_equal(xsk_queues_open(&q, &c, err, sizeof(err)), -EBUSY);
	assert_non_null(strstr(err, "AF_XDP socket on tqa0 queue 2 failed"));
	assert_non_null(strstr(err, "another AF_XDP socket holds that queue"));
	assert_int_equal(open_fds(), fds);
	xsk_port_close(&blocker);
	assert_int_equal(xsk_queues_open(&q, &c, err, sizeof(err)), 0);
	assert_int_equal(q.n, 4);
	xsk_queues_close(&q);
}

static void test_line_b_is_served_after_line_a(void **state)
{
	struct xsk_queues_cfg c = cfg_for(0, true);
	struct xsk_queues q;
	char err[256];

	(void)state;
	assert_int_equal(xsk_queues_open(&q, &c, err, sizeof(err)), 0);
	assert_int_equal(q.n, 6);
	assert_int_equal(q.n_if[0], 4);
	assert_int_equal(q.n_if[1], 2);
	assert_int_equal(q.queues[1], 2);
	assert_int_equal(xsk_queues_slot(&q, 3), 0);
	assert_int_equal(xsk_queues_slot(&q, 4), 1);
	assert_int_equal(q.port[4].queue, 0);
	assert_string_equal(q.port[5].ifname, "tqb0");
	assert_ptr_equal(q.tx, &q.port[0]);
	xsk_queues_close(&q);
}

/* Closing the sets left the program attached; closing it detaches it. */
static void test_the_program_detaches(void **state)
{
	int a = (int)if_nametoindex("tqa0"), b = (int)if_nametoindex("tqb0");

	(void)state;
	assert_int_not_equal(xdp_attached_id(a), 0);
	xdp_steer_close(&steer);
	assert_int_equal(xdp_attached_id(a), 0);
	assert_int_equal(xdp_attached_id(b), 0);
}

static void test_queue_lists(void **state)
{
	uint64_t m;
	char why[128], buf[64];

	(void)state;
	assert_int_equal(queue_list_parse("all", &m, why, sizeof(why)), 0);
	assert_int_equal(m, 0);
	assert_int_equal(queue_list_parse("0,2,4-7", &m, why, sizeof(why)), 0);
	assert_int_equal(m, 0xF5);
	queue_list_format(m, buf, sizeof(buf));
	assert_string_equal(buf, "0,2,4-7");
	assert_int_equal(queue_list_parse("63", &m, why, sizeof(why)), 0);
	assert_int_equal(m, 1ull << 63);
	assert_int_equal(queue_list_parse("64", &m, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "queues are 0 to 63"));
	assert_int_equal(queue_list_parse("3-1", &m, why, sizeof(why)), -1);
	assert_int_equal(queue_list_parse("1,,2", &m, why, sizeof(why)), -1);
	assert_int_equal(queue_list_parse("", &m, why, sizeof(why)), -1);
	assert_int_equal(queue_list_parse("x", &m, why, sizeof(why)), -1);
	queue_list_format(0, buf, sizeof(buf));
	assert_string_equal(buf, "all");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_queue_lists),
		cmocka_unit_test(test_every_queue_gets_a_socket_on_one_umem),
		cmocka_unit_test(test_a_list_serves_only_its_queues),
		cmocka_unit_test(test_a_queue_the_interface_lacks_is_refused_first),
		cmocka_unit_test(test_a_queue_whose_bind_fails_leaves_nothing_open),
		cmocka_unit_test(test_line_b_is_served_after_line_a),
		cmocka_unit_test(test_the_program_detaches),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
