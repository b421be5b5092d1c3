// SPDX-License-Identifier: MIT
/*
 * The one table of the gateway's counters (gateway/counters.h) and what
 * report_collect() makes of it.  The table: no (group, name) twice, each
 * group in one run (the JSON writes a group once), every name short enough
 * for the monitor segment.  The report: on an engine of every part (books,
 * paper, the order session on the own TCP, both paths, two lines), its
 * rows come in the table's order, each at most once, with the table's
 * names, and between the configurations every row of the table is used:
 * a counter collected out of the table's order, or a row no code fills,
 * fails here, as t2t-monwriter writes the table as the gateway's schema.
 *
 * The AF_XDP path's counters come from BPF maps and XSK sockets: the
 * four calls that read them are stubbed below, so the test needs neither
 * (and links neither the loader nor libbpf's use of them).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "gateway/counters.h"
#include "gateway/path.h"
#include "gateway/report.h"
#include "monitor/layout.h"
#include "net/tcp.h"

int xdp_steer_counters(const struct xdp_steer *s, uint64_t out[STEER_NR_COUNTERS])
{
	(void)s;
	memset(out, 0, sizeof(uint64_t) * STEER_NR_COUNTERS);
	return 0;
}

int xdp_steer_line_counters(const struct xdp_steer *s,
			    uint64_t out[STEER_LINES][STEER_LINE_NR])
{
	(void)s;
	memset(out, 0, sizeof(uint64_t) * STEER_LINES * STEER_LINE_NR);
	return 0;
}

int xdp_steer_queue_stats(const struct xdp_steer *s, struct steer_queue_stats *out)
{
	(void)s;
	memset(out, 0, sizeof(*out));
	return 0;
}

int xsk_port_kernel_stats(const struct xsk_port *p, struct xdp_statistics *st)
{
	(void)p;
	memset(st, 0, sizeof(*st));
	return 0;
}

static struct gw_engine e;
static struct gw_opts o;
static struct xsk_path x;
static struct xsk_port ports[2 * GW_QUEUE_ROWS];
static struct udp_path u;
static struct tcp_conn tc;
static struct counters t;
static bool used[CNT_NR];

static int setup(void **state)
{
	struct gw_cfg c;
	char err[128];

	(void)state;
	gw_cfg_defaults(&c);	/* its instruments, with books: every part there */
	c.book.max_orders = 1 << 10;	/* small: no value is looked at */
	c.orders.log_size = 1 << 10;
	return engine_init(&e, &c, err, sizeof(err)) ? -1 : 0;
}

static int teardown(void **state)
{
	(void)state;
	engine_destroy(&e);
	return 0;
}

static void test_table_has_each_name_once_and_each_group_in_one_run(void **state)
{
	(void)state;
	for (int i = 0; i < CNT_NR; i++) {
		const struct gw_counter_def *a = &gw_counters[i];

		assert_non_null(a->group);
		assert_non_null(a->name);
		/* "group.name" and its NUL in the segment's slot */
		assert_true(strlen(a->group) + 1 + strlen(a->name) < MON_COUNTER_NAME);
		for (int j = 0; j < i; j++) {
			const struct gw_counter_def *b = &gw_counters[j];

			if (strcmp(a->group, b->group))
				continue;
			if (!strcmp(a->name, b->name))
				fail_msg("%s.%s: rows %d and %d", a->group, a->name, j, i);
			/* same group: every row between them is of it too */
			for (int k = j + 1; k < i; k++)
				if (strcmp(gw_counters[k].group, a->group))
					fail_msg("group %s split by row %d (%s.%s)", a->group, k,
						 gw_counters[k].group, gw_counters[k].name);
		}
	}
	assert_true(CNT_NR + 1 <= MON_MAX_COUNTERS);	/* + monitor.orders_skipped */
}

/* Collect: the table's rows in its order, each once, named as the table names them. */
static void collect(const struct gw_report *r)
{
	int last = -1;

	report_collect(&t, r);
	assert_true(t.n > 0);
	for (unsigned int i = 0; i < t.n; i++) {
		const struct counter *c = &t.c[i];
		const struct gw_counter_def *d = &gw_counters[c->id];

		if ((int)c->id <= last)
			fail_msg("%s.%s (row %d) after row %d: not in the table's order",
				 c->group, c->name, c->id, last);
		last = (int)c->id;
		assert_string_equal(c->group, d->group);
		assert_string_equal(c->name, d->name);
		assert_int_equal(c->kind, d->kind);
		used[c->id] = true;
	}
}

static void test_report_writes_the_table_in_its_order_and_uses_every_row(void **state)
{
	struct gw_report r = { .o = &o, .e = &e };

	(void)state;
	memset(used, 0, sizeof(used));

	/* The kernel-UDP path, one line, the session on the kernel's TCP. */
	u.feed_b_fd = -1;
	r.u = &u;
	collect(&r);

	/* ... the own TCP, two lines. */
	u.oc.cfg.stack = OC_STACK_OWN;
	u.oc.tcp = &tc;
	u.feed_b_fd = 0;
	collect(&r);

	/* AF_XDP, two lines, the own TCP, after the run (the books' digest). */
	r.u = NULL;
	r.x = &x;
	o.mode = GW_MODE_XDP;
	x.line_b = true;
	/* Every queue that has rows, on both lines, served. */
	for (unsigned int i = 0; i < 2 * GW_QUEUE_ROWS; i++)
		ports[i].queue = i % GW_QUEUE_ROWS;
	x.q.port = ports;
	x.q.n = 2 * GW_QUEUE_ROWS;
	x.q.n_if[0] = x.q.n_if[1] = x.q.queues[0] = x.q.queues[1] = GW_QUEUE_ROWS;
	x.q.tx = &ports[0];
	x.xs.oc.cfg.stack = OC_STACK_OWN;
	x.xs.oc.tcp = &tc;
	r.final = true;
	collect(&r);

	/* A paper run: no order session. */
	e.paper.cfg.on = true;
	collect(&r);
	e.paper.cfg.on = false;

	for (int i = 0; i < CNT_NR; i++)
		if (!used[i])
			fail_msg("%s.%s (row %d): in the table, never collected",
				 gw_counters[i].group, gw_counters[i].name, i);
}

/* What the monitor segment makes of a row: the gateway's and t2t-monwriter's one rule. */
static void test_monitor_kinds_and_units(void **state)
{
	struct mon_counter_def d;

	(void)state;
	assert_false(gw_counter_mon_def(&gw_counters[CNT_GAPS_STALE_WHY], &d));
	assert_true(gw_counter_mon_def(&gw_counters[CNT_GAPS_RECOVERY_NS_TOTAL], &d));
	assert_int_equal(d.kind, MON_COUNTER);
	assert_int_equal(d.unit, MON_UNIT_NS);
	assert_true(gw_counter_mon_def(&gw_counters[CNT_FEED_NEXT_SEQ], &d));
	assert_int_equal(d.kind, MON_GAUGE);
	assert_int_equal(d.unit, MON_UNIT_NONE);
	assert_true(gw_counter_mon_def(&gw_counters[CNT_ORD_KILL_SWITCH], &d));
	assert_int_equal(d.kind, MON_FLAG);
	assert_string_equal(d.group, "orders");
	assert_string_equal(d.name, "kill_switch");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_has_each_name_once_and_each_group_in_one_run),
		cmocka_unit_test_setup_teardown(
			test_report_writes_the_table_in_its_order_and_uses_every_row, setup,
			teardown),
		cmocka_unit_test(test_monitor_kinds_and_units),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
