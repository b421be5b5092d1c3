// SPDX-License-Identifier: MIT
/*
 * The monitor segment (monitor/): what a writer publishes is what a reader
 * of another mapping reads back, field by field; the stage histograms are
 * hdr.h's buckets exactly; the window is later minus earlier; the event
 * ring keeps the newest events and says what it lost; a segment of
 * another version, magic or size is refused with a message naming it; a
 * live writer's name is not taken, a dead one's is; the reader notices a
 * restarted writer; the Prometheus names follow the naming rules.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "monitor/export.h"
#include "monitor/hist.h"
#include "monitor/reader.h"
#include "monitor/snap.h"
#include "monitor/writer.h"
#include "util/clock.h"

static char name[40];

static const struct mon_counter_def defs[] = {
	{ "feed", "ticks", MON_COUNTER, 0 },
	{ "gaps", "recovery_ns_max", MON_GAUGE, MON_UNIT_NS },
	{ "gaps", "recovery_ns_total", MON_COUNTER, MON_UNIT_NS },
	{ "orders", "open", MON_GAUGE, 0 },
	{ "orders", "kill_switch", MON_FLAG, 0 },
	{ "risk", "kill_switch", MON_COUNTER, 0 },
};
#define NDEFS (sizeof(defs) / sizeof(defs[0]))
static const char *const syms[] = { "AAPL", "MSFT", "NVDA" };

static void make(struct mon_writer *w)
{
	struct mon_cfg c = { .name = name, .writer = "test_mon", .counters = defs,
			     .n_counters = NDEFS, .symbols = syms, .n_symbols = 3 };
	char err[256];

	assert_int_equal(mon_create(w, &c, err, sizeof(err)), 0);
}

static int setup(void **state)
{
	(void)state;
	snprintf(name, sizeof(name), "test-mon-%d", getpid());
	return 0;
}

static void test_values_round_trip(void **state)
{
	struct mon_writer w;
	struct mon_reader r;
	struct mon_sym s, got;
	uint64_t v[NDEFS] = { 11, 22, 33, 44, 1, 66 }, back[NDEFS], t;
	char err[256];

	(void)state;
	/* Zeroed whole, padding too, so that the structs compare as memory. */
	memset(&s, 0, sizeof(s));
	memset(&got, 0, sizeof(got));
	s.position = -300, s.cash = 57000000, s.pnl = -1234, s.target = -300;
	s.bid = 1899900, s.ask = 1900100, s.last_price = 1900000, s.last_size = 200;
	s.strat_pos = -1, s.ticks = 9, s.orders = 4, s.fills = 3, s.cancels = 1;
	make(&w);
	mon_publish_counters(&w, v, NDEFS, 777);
	mon_publish_symbol(&w, 1, &s, 888);

	assert_int_equal(mon_open(&r, name, err, sizeof(err)), 0);
	assert_ptr_not_equal(r.seg, w.seg);	/* another mapping of the file */
	assert_string_equal(r.hdr.name, name);
	assert_string_equal(r.hdr.writer, "test_mon");
	assert_int_equal(r.hdr.pid, getpid());
	assert_int_equal(r.hdr.n_counters, NDEFS);
	assert_string_equal(r.seg->counter_names[1].name, "gaps.recovery_ns_max");
	assert_int_equal(r.seg->counter_names[1].unit, MON_UNIT_NS);
	assert_string_equal(r.hdr.symbols[2], "NVDA");
	assert_string_equal(r.hdr.stages[STAGE_HOOK_QUEUED], "hook->queued");
	assert_int_equal(mon_read_counters(&r, back, &t), 0);
	assert_int_equal(t, 777);
	assert_memory_equal(back, v, sizeof(v));
	assert_int_equal(mon_read_symbol(&r, 1, &got), 0);
	assert_int_equal(got.t_ns, 888);
	got.t_ns = 0;
	assert_memory_equal(&got, &s, sizeof(s));
	assert_true(mon_writer_alive(&r));
	assert_false(mon_replaced(&r));
	mon_close(&r);
	mon_destroy(&w);
	assert_int_equal(access(w.path, F_OK), -1);
	assert_int_equal(mon_open(&r, name, err, sizeof(err)), -ENOENT);
}

/* The shared-memory record is hdr_record(): same buckets, min, max, sum. */
static void test_stage_is_hdr(void **state)
{
	static struct hdr_hist ref, got;
	struct mon_writer w;
	struct mon_reader r;
	uint64_t x = 1;
	char err[256];

	(void)state;
	make(&w);
	hdr_reset(&ref);
	for (int i = 0; i < 100000; i++) {
		int64_t v;

		x = x * 6364136223846793005ull + 1442695040888963407ull;
		v = (int64_t)(x >> 40) - 1000;	/* some negative: clamped */
		if (i % 1000 == 0)
			v = HDR_MAX_VALUE + 5;	/* clamped above */
		mon_record_stage(&w, STAGE_SEEN_QUEUED, v);
		hdr_record(&ref, v);
	}
	assert_int_equal(mon_open(&r, name, err, sizeof(err)), 0);
	hdr_reset(&got);
	assert_int_equal(mon_read_stage(&r, STAGE_SEEN_QUEUED, &got), 0);
	assert_memory_equal(&got, &ref, sizeof(ref));
	hdr_reset(&got);
	assert_int_equal(mon_read_stage(&r, STAGE_HOOK_SEEN, &got), 0);
	assert_int_equal(hdr_count(&got), 0);
	mon_close(&r);
	mon_destroy(&w);
}

/* An order's stages are order_stages()'s: catch-up and failed orders have none. */
static void test_record_order(void **state)
{
	struct order_times t = { .t_send = 1000, .t_hook = 5000, .t_seen = 6000,
				 .t_decided = 6700, .t_queued = 6770, .t_sent = 18000,
				 .t_ack = 17000 };
	static struct hdr_hist h;
	struct mon_writer w;
	struct mon_reader r;
	char err[256];

	(void)state;
	make(&w);
	assert_int_equal(mon_record_order(&w, &t, ORDER_FILLED, 0), (1u << STAGE_NR) - 1);
	assert_int_equal(mon_record_order(&w, &t, ORDER_FILLED, ORDER_F_CATCHUP), 0);
	assert_int_equal(mon_record_order(&w, &t, ORDER_SEND_FAILED, 0), 0);
	assert_int_equal(mon_open(&r, name, err, sizeof(err)), 0);
	for (int i = 0; i < STAGE_NR; i++) {
		hdr_reset(&h);
		assert_int_equal(mon_read_stage(&r, i, &h), 0);
		assert_int_equal(hdr_count(&h), 1);
	}
	assert_int_equal(hdr_min(&h), 16000);	/* send->ack, the last stage */
	mon_close(&r);
	mon_destroy(&w);
}

/* Recent = live minus the newest copy at least W old, bucket by bucket. */
static void test_window(void **state)
{
	static struct mon_snap s;
	struct mon_writer w;
	struct mon_reader r;
	uint64_t now = 1000 * NS_PER_SEC;
	char err[256];

	(void)state;
	make(&w);
	assert_int_equal(mon_open(&r, name, err, sizeof(err)), 0);
	/* seconds 0..9: second k records 10 values of 1000*(k+1) ns */
	for (int k = 0; k < 10; k++) {
		for (int i = 0; i < 10; i++)
			mon_record_stage(&w, STAGE_HOOK_QUEUED, 1000 * (k + 1));
		mon_tick(&w, now + (uint64_t)k * NS_PER_SEC);
	}
	{
		static struct hdr_hist h[MON_STAGES];
		uint64_t t;

		/* at second 9.5, 3 s back: the copy of second 6 (70 values) */
		assert_int_equal(mon_read_window(&r, now + 9500 * NS_PER_MS, 3 * NS_PER_SEC, h,
						 &t), 0);
		assert_int_equal(t, now + 6 * NS_PER_SEC);
		assert_int_equal(hdr_count(&h[STAGE_HOOK_QUEUED]), 70);
		/* nothing that old yet at 0.5 s */
		assert_int_equal(mon_read_window(&r, now + 500 * NS_PER_MS, 3 * NS_PER_SEC, h,
						 &t), -ENOENT);
	}
	/* the snapshot's recent window, on the real clock: the last 3 complete ticks */
	{
		uint64_t t0 = mono_ns() - 4 * NS_PER_SEC;

		for (int k = 0; k < 4; k++) {
			mon_record_stage(&w, STAGE_HOOK_SEEN, 100 * (k + 1));
			mon_tick(&w, t0 + (uint64_t)k * NS_PER_SEC);
		}
		mon_record_stage(&w, STAGE_HOOK_SEEN, 500);
		assert_int_equal(mon_snapshot(&r, &s, 2 * NS_PER_SEC, 0), 0);
		/* the copy at t0+2s holds 100, 200, 300; recent: 400 and 500 */
		assert_int_equal(hdr_count(&s.all[STAGE_HOOK_SEEN]), 5);
		assert_int_equal(hdr_count(&s.recent[STAGE_HOOK_SEEN]), 2);
		assert_int_equal(hdr_min(&s.recent[STAGE_HOOK_SEEN]), 400);
		assert_int_equal(hdr_max(&s.recent[STAGE_HOOK_SEEN]), 500);
		assert_in_range(s.recent_ns, 2 * NS_PER_SEC, 3 * NS_PER_SEC);
	}
	mon_close(&r);
	mon_destroy(&w);
}

static void test_hist_sub(void **state)
{
	static struct hdr_hist a, b, out;

	(void)state;
	hdr_reset(&a);
	hdr_reset(&b);
	for (int i = 0; i < 1000; i++) {
		hdr_record(&a, 50 + i);
		if (i < 600)
			hdr_record(&b, 50 + i);
	}
	mon_hist_sub(&out, &a, &b);
	assert_int_equal(hdr_count(&out), 400);
	/* min and max: the bounds of their buckets (648..651 holds 650) */
	assert_int_equal(hdr_min(&out), hdr_bucket_low(hdr_index(650)));
	assert_int_equal(hdr_max(&out), 1049);
	assert_int_equal(out.sum, a.sum - b.sum);
	/* earlier "larger" than later: another run, the later stands */
	mon_hist_sub(&out, &b, &a);
	assert_int_equal(hdr_count(&out), 600);
}

static void test_events(void **state)
{
	static struct mon_event ev[MON_SNAP_EVENTS];
	struct mon_writer w;
	struct mon_reader r;
	uint64_t next;
	unsigned int n;
	char err[256];

	(void)state;
	make(&w);
	assert_int_equal(mon_open(&r, name, err, sizeof(err)), 0);
	for (uint32_t i = 0; i < 3000; i++)
		mon_record_event(&w, MON_EV_FILL, i % 3, i % 2 ? 'S' : 'B', i, 10 * i, i, 5 * i);
	n = mon_read_events(&r, 0, ev, MON_SNAP_EVENTS, &next);
	assert_int_equal(n, MON_SNAP_EVENTS);
	assert_int_equal(next, 3000);
	for (unsigned int i = 0; i < n; i++) {
		uint32_t no = 3000 - MON_SNAP_EVENTS + i;

		assert_int_equal(ev[i].order_no, no);
		assert_int_equal(ev[i].price, 10 * no);
		assert_int_equal(ev[i].t_ns, 5 * no);
		assert_int_equal(ev[i].side, no % 2 ? 'S' : 'B');
		assert_int_equal(ev[i].kind, MON_EV_FILL);
	}
	/* from 2990: the last 10 */
	n = mon_read_events(&r, 2990, ev, MON_SNAP_EVENTS, &next);
	assert_int_equal(n, 10);
	assert_int_equal(ev[0].order_no, 2990);
	/* nothing new */
	assert_int_equal(mon_read_events(&r, next, ev, MON_SNAP_EVENTS, &next), 0);
	/* from 100: long overwritten; what is left of the ring, newest MAX */
	n = mon_read_events(&r, 100, ev, MON_SNAP_EVENTS, &next);
	assert_int_equal(ev[n - 1].order_no, 2999);
	mon_close(&r);
	mon_destroy(&w);
}

static void patch(const char *path, off_t off, const void *v, size_t len)
{
	int fd = open(path, O_WRONLY);

	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, v, len, off), (ssize_t)len);
	close(fd);
}

/* A version this reader does not know is refused, naming both versions. */
static void test_refuses_unknown_layout(void **state)
{
	struct mon_writer w;
	struct mon_reader r;
	uint32_t v = 99;
	char err[256];

	(void)state;
	make(&w);
	patch(w.path, offsetof(struct mon_header, version), &v, sizeof(v));
	assert_int_equal(mon_open(&r, name, err, sizeof(err)), -EPROTO);
	assert_non_null(strstr(err, "has layout version 99"));
	{
		char want[64];

		snprintf(want, sizeof(want), "reads version %d only", MON_VERSION);
		assert_non_null(strstr(err, want));
	}

	v = MON_VERSION;
	patch(w.path, offsetof(struct mon_header, version), &v, sizeof(v));
	assert_int_equal(mon_open(&r, name, err, sizeof(err)), 0);
	mon_close(&r);

	v = sizeof(struct mon_header) + 8;
	patch(w.path, offsetof(struct mon_header, header_size), &v, sizeof(v));
	assert_int_equal(mon_open(&r, name, err, sizeof(err)), -EPROTO);
	assert_non_null(strstr(err, "sizes differ"));

	patch(w.path, 0, "NOTMAGIC", 8);
	assert_int_equal(mon_open(&r, name, err, sizeof(err)), -EPROTO);
	assert_non_null(strstr(err, "not a t2t monitor segment"));
	assert_int_equal(truncate(w.path, 100), 0);
	assert_int_equal(mon_open(&r, name, err, sizeof(err)), -EPROTO);
	if (!strstr(err, "100 bytes"))
		fail_msg("%s", err);
	mon_destroy(&w);
}

/* A live writer keeps its name; a dead or closed one's name is taken over. */
static void test_name_taken_over_only_from_the_dead(void **state)
{
	struct mon_writer w, w2;
	struct mon_reader r;
	struct mon_cfg c = { .name = name, .counters = defs, .n_counters = NDEFS };
	int32_t pid = getppid();
	uint32_t closed = MON_F_CLOSED;
	char err[256];

	(void)state;
	make(&w);
	assert_int_equal(mon_open(&r, name, err, sizeof(err)), 0);
	/* pretend another live process (our parent) wrote it */
	patch(w.path, offsetof(struct mon_header, pid), &pid, sizeof(pid));
	assert_int_equal(mon_create(&w2, &c, err, sizeof(err)), -EBUSY);
	assert_non_null(strstr(err, "in use by process"));
	/* once closed, the name is free */
	patch(w.path, offsetof(struct mon_header, flags), &closed, sizeof(closed));
	assert_int_equal(mon_create(&w2, &c, err, sizeof(err)), 0);
	assert_true(mon_replaced(&r));		/* a reader sees the restart */
	assert_false(mon_writer_alive(&r));
	/* the old writer going away leaves the new one's name alone */
	mon_destroy(&w);
	assert_int_equal(access(w2.path, F_OK), 0);
	mon_close(&r);
	mon_destroy(&w2);
	assert_int_equal(access(w2.path, F_OK), -1);
}

static void test_names(void **state)
{
	struct mon_cfg c = { .counters = defs, .n_counters = NDEFS };
	struct mon_writer w;
	char err[256], path[128];

	(void)state;
	assert_true(mon_name_ok("t2t-vgw"));
	assert_true(mon_name_ok("a.b_c-1"));
	assert_false(mon_name_ok(""));
	assert_false(mon_name_ok(".."));
	assert_false(mon_name_ok("a/b"));
	assert_false(mon_name_ok("a b"));
	assert_int_equal(mon_path("x", path, sizeof(path)), 0);
	assert_string_equal(path, "/dev/shm/t2t-x");
	c.name = "bad/name";
	assert_int_equal(mon_create(&w, &c, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "bad segment name"));
}

static void test_prom_names(void **state)
{
	static const struct {
		struct mon_counter_name c;
		const char *want;
	} cases[] = {
		{ { "feed.ticks", MON_COUNTER, 0, { 0 } }, "t2t_feed_ticks_total" },
		{ { "orders.open", MON_GAUGE, 0, { 0 } }, "t2t_orders_open" },
		{ { "gaps.recovery_ns_max", MON_GAUGE, MON_UNIT_NS, { 0 } },
		  "t2t_gaps_recovery_seconds_max" },
		{ { "gaps.recovery_ns_total", MON_COUNTER, MON_UNIT_NS, { 0 } },
		  "t2t_gaps_recovery_seconds_total" },
		{ { "x.wait", MON_COUNTER, MON_UNIT_NS, { 0 } }, "t2t_x_wait_seconds_total" },
		{ { "orders.kill_switch", MON_FLAG, 0, { 0 } }, "t2t_orders_kill_switch" },
		{ { "a.b-c d", MON_COUNTER, 0, { 0 } }, "t2t_a_b_c_d_total" },
	};
	char out[96];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		mon_prom_name(&cases[i].c, out, sizeof(out));
		assert_string_equal(out, cases[i].want);
	}
	mon_price_str(-1234, out, sizeof(out));
	assert_string_equal(out, "-0.1234");
	mon_price_str(1900000, out, sizeof(out));
	assert_string_equal(out, "190.0000");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_values_round_trip),
		cmocka_unit_test(test_stage_is_hdr),
		cmocka_unit_test(test_record_order),
		cmocka_unit_test(test_window),
		cmocka_unit_test(test_hist_sub),
		cmocka_unit_test(test_events),
		cmocka_unit_test(test_refuses_unknown_layout),
		cmocka_unit_test(test_name_taken_over_only_from_the_dead),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_prom_names),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
