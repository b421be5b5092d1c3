// SPDX-License-Identifier: MIT
/*
 * One session's messages in order, each once (proto/mold_merge.h): in
 * order; every packet twice and overlapping re-sends; shuffled; a lost
 * packet (a hole before a held one, named by its tag); a tail a heartbeat
 * or an end of session announced but nobody sent; a capture started late;
 * other sessions beside (adopted or pinned), junk before the session;
 * packets whose framing does not hold (dropped whole, a copy fills in);
 * messages beyond the end of session; an empty block passed on as it is;
 * the holding limit; the emit function's error.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "proto/be.h"
#include "proto/itch.h"
#include "proto/mold_merge.h"

#define MAXSEQ 2000

struct sink {
	uint64_t seqs[MAXSEQ + 1];
	uint16_t lens[MAXSEQ + 1];
	size_t n;
	uint64_t fail_at;	/* emit fails here */
};

/* Message of @seq: a System Event with the number as its timestamp. */
static void put_msg(uint8_t *p, uint64_t seq)
{
	memset(p, 0, 12);
	p[ITCH_OFF_TYPE] = 'S';
	be48_store(p + ITCH_OFF_TIMESTAMP, seq);
	p[11] = 'Q';
}

static int emit(void *ctx, uint64_t seq, const uint8_t *msg, uint16_t len)
{
	struct sink *s = ctx;

	if (seq == s->fail_at)
		return -5;
	assert_true(s->n < MAXSEQ);
	if (len == 12)
		assert_int_equal(be48_load(msg + ITCH_OFF_TIMESTAMP), seq);
	s->seqs[s->n] = seq;
	s->lens[s->n++] = len;
	return 0;
}

/* A data packet of @session: @n messages from @first.  Its length. */
static size_t pkt(uint8_t *buf, const char *session, uint64_t first, uint16_t n)
{
	struct mold_builder b;
	char s[MOLD_SESSION_LEN];

	mold_session_set(s, session);
	assert_int_equal(mold_builder_init(&b, buf, 1472, s, first), 0);
	for (uint16_t i = 0; i < n; i++) {
		uint8_t *p = mold_builder_reserve(&b, 12);

		assert_non_null(p);
		put_msg(p, first + i);
	}
	return mold_builder_finish(&b);
}

static size_t ctl(uint8_t *buf, const char *session, uint64_t next, bool end)
{
	char s[MOLD_SESSION_LEN];

	mold_session_set(s, session);
	return (size_t)(end ? mold_encode_end_of_session(buf, 64, s, next)
			    : mold_encode_heartbeat(buf, 64, s, next));
}

static void start(struct mold_merge *m, struct sink *s, const char *pin)
{
	struct mold_merge_cfg cfg = { .emit = emit, .ctx = s };

	memset(s, 0, sizeof(*s));
	if (pin) {
		mold_session_set(cfg.session, pin);
		cfg.pinned = true;
	}
	mold_merge_init(m, &cfg);
}

static void feed(struct mold_merge *m, const char *session, uint64_t first, uint16_t n,
		 uint64_t tag)
{
	uint8_t buf[1500];

	assert_int_equal(mold_merge_packet(m, buf, pkt(buf, session, first, n), tag), 0);
}

/* Everything from 1 to @last passed on once, in order, and no hole. */
static void expect_all(struct mold_merge *m, struct sink *s, uint64_t last)
{
	struct mold_merge_hole h;

	assert_int_equal(mold_merge_finish(m, &h), 0);
	assert_int_equal(s->n, last);
	for (uint64_t i = 0; i < last; i++)
		assert_int_equal(s->seqs[i], i + 1);
	assert_int_equal(m->cnt.msgs, last);
	assert_int_equal(m->nheld, 0);
}

static void test_in_order(void **state)
{
	struct mold_merge m;
	struct sink s;
	uint64_t seq = 1;

	(void)state;
	start(&m, &s, NULL);
	for (int i = 0; i < 200; i++) {
		feed(&m, "EXSIM00001", seq, (uint16_t)(1 + i % 5), (uint64_t)i);
		seq += 1 + i % 5;
	}
	expect_all(&m, &s, seq - 1);
	assert_int_equal(m.cnt.data, 200);
	assert_int_equal(m.cnt.held + m.cnt.dup_msgs + m.cnt.malformed + m.cnt.other_session, 0);
	assert_memory_equal(m.cfg.session, "EXSIM00001", MOLD_SESSION_LEN);
	mold_merge_free(&m);
}

static void test_copies_and_overlapping_resends(void **state)
{
	struct mold_merge m;
	struct sink s;

	(void)state;
	start(&m, &s, NULL);
	for (uint64_t seq = 1; seq <= 100; seq += 5) {
		feed(&m, "A", seq, 5, seq);
		feed(&m, "A", seq, 5, seq);		/* the other line's copy */
		if (seq > 5)
			feed(&m, "A", seq - 3, 7, seq);	/* a re-send that overlaps */
	}
	expect_all(&m, &s, 100);
	assert_int_equal(m.cnt.dup_packets, 20 + 19);
	assert_int_equal(m.cnt.dup_msgs, 100 + 19 * 7);
	mold_merge_free(&m);
}

static void test_shuffled(void **state)
{
	uint64_t firsts[300];
	unsigned int seed = 3;
	struct mold_merge m;
	struct sink s;

	(void)state;
	for (int i = 0; i < 300; i++)
		firsts[i] = 1 + 4 * (uint64_t)i;
	for (int i = 299; i > 0; i--) {
		int j = rand_r(&seed) % (i + 1);
		uint64_t t = firsts[i];

		firsts[i] = firsts[j];
		firsts[j] = t;
	}
	start(&m, &s, NULL);
	for (int i = 0; i < 300; i++)
		feed(&m, "A", firsts[i], 4, (uint64_t)i);
	expect_all(&m, &s, 1200);
	assert_true(m.cnt.held > 100);
	assert_true(m.cnt.held_bytes_max > 0);
	mold_merge_free(&m);
}

static void test_a_lost_packet_is_a_hole(void **state)
{
	struct mold_merge_hole h;
	struct mold_merge m;
	struct sink s;

	(void)state;
	start(&m, &s, NULL);
	for (uint64_t seq = 1; seq <= 50; seq += 5)
		if (seq != 21)
			feed(&m, "A", seq, 5, 1000 + seq);
	assert_int_equal(mold_merge_finish(&m, &h), 1);
	assert_int_equal(h.first, 21);
	assert_int_equal(h.count, 5);
	assert_true(h.before_held);
	assert_int_equal(h.held_first, 26);
	assert_int_equal(h.held_tag, 1026);
	assert_int_equal(s.n, 20);
	mold_merge_free(&m);
}

static void test_a_tail_announced_but_not_sent(void **state)
{
	struct mold_merge_hole h;
	struct mold_merge m;
	struct sink s;
	uint8_t buf[64];

	(void)state;
	start(&m, &s, NULL);
	feed(&m, "A", 1, 10, 1);
	assert_int_equal(mold_merge_packet(&m, buf, ctl(buf, "A", 14, false), 2), 0);
	assert_int_equal(mold_merge_finish(&m, &h), 1);
	assert_int_equal(h.first, 11);
	assert_int_equal(h.count, 3);
	assert_false(h.before_held);
	assert_false(h.said_by_end);
	mold_merge_free(&m);

	start(&m, &s, NULL);
	feed(&m, "A", 1, 10, 1);
	assert_int_equal(mold_merge_packet(&m, buf, ctl(buf, "A", 16, true), 2), 0);
	assert_int_equal(mold_merge_finish(&m, &h), 1);
	assert_int_equal(h.first, 11);
	assert_int_equal(h.count, 5);
	assert_true(h.said_by_end);
	assert_int_equal(m.cnt.ends, 1);
	mold_merge_free(&m);

	/* a heartbeat naming what was sent is no hole */
	start(&m, &s, NULL);
	feed(&m, "A", 1, 10, 1);
	assert_int_equal(mold_merge_packet(&m, buf, ctl(buf, "A", 11, false), 2), 0);
	expect_all(&m, &s, 10);
	assert_int_equal(m.cnt.heartbeats, 1);
	mold_merge_free(&m);
}

static void test_a_late_start_is_a_hole(void **state)
{
	struct mold_merge_hole h;
	struct mold_merge m;
	struct sink s;

	(void)state;
	start(&m, &s, NULL);
	feed(&m, "A", 50, 5, 7);
	assert_int_equal(mold_merge_finish(&m, &h), 1);
	assert_int_equal(h.first, 1);
	assert_int_equal(h.count, 49);
	assert_int_equal(h.held_tag, 7);
	assert_int_equal(s.n, 0);
	mold_merge_free(&m);
}

static void test_other_sessions_and_junk(void **state)
{
	struct mold_merge m;
	struct sink s;
	uint8_t buf[1500];
	size_t n;

	(void)state;
	/* junk first: a short packet, a heartbeat, an unknown ITCH type */
	start(&m, &s, NULL);
	assert_int_equal(mold_merge_packet(&m, (const uint8_t *)"hello", 5, 1), 0);
	assert_int_equal(mold_merge_packet(&m, buf, ctl(buf, "JUNK", 5, false), 2), 0);
	n = pkt(buf, "JUNK", 1, 1);
	buf[MOLD_HDR_LEN + MOLD_BLOCK_HDR_LEN] = '!';
	assert_int_equal(mold_merge_packet(&m, buf, n, 3), 0);
	for (uint64_t seq = 1; seq <= 30; seq += 3) {
		feed(&m, "A", seq, 3, seq);
		feed(&m, "B", seq + 100, 3, seq);
	}
	expect_all(&m, &s, 30);
	assert_memory_equal(m.cfg.session, "A         ", MOLD_SESSION_LEN);
	assert_int_equal(m.cnt.other_session, 2 + 10);
	assert_int_equal(m.cnt.malformed, 1);
	mold_merge_free(&m);

	/* pinned: B's, though A's came first */
	start(&m, &s, "B");
	for (uint64_t seq = 1; seq <= 30; seq += 3) {
		feed(&m, "A", seq, 3, seq);
		feed(&m, "B", seq, 3, seq);
	}
	expect_all(&m, &s, 30);
	assert_int_equal(m.cnt.other_session, 10);
	mold_merge_free(&m);
}

static void test_framing_that_does_not_hold(void **state)
{
	struct mold_merge_hole h;
	struct mold_merge m;
	struct sink s;
	uint8_t buf[1500];
	size_t n;

	(void)state;
	start(&m, &s, NULL);
	feed(&m, "A", 1, 5, 1);
	/* count says 5, four blocks there */
	n = pkt(buf, "A", 6, 5);
	assert_int_equal(mold_merge_packet(&m, buf, n - 14, 2), 0);
	/* count says 4, five blocks there */
	be16_store(buf + MOLD_OFF_COUNT, 4);
	assert_int_equal(mold_merge_packet(&m, buf, n, 3), 0);
	/* a block running past the end */
	be16_store(buf + MOLD_OFF_COUNT, 5);
	be16_store(buf + MOLD_HDR_LEN, 200);
	assert_int_equal(mold_merge_packet(&m, buf, n, 4), 0);
	/* sequence number 0 */
	n = pkt(buf, "A", 0, 1);
	assert_int_equal(mold_merge_packet(&m, buf, n, 5), 0);
	/* a heartbeat with a tail */
	n = ctl(buf, "A", 6, false);
	assert_int_equal(mold_merge_packet(&m, buf, n + 3, 6), 0);
	assert_int_equal(m.cnt.malformed, 5);
	feed(&m, "A", 11, 5, 7);
	assert_int_equal(mold_merge_finish(&m, &h), 1);
	assert_int_equal(h.first, 6);
	assert_int_equal(h.count, 5);
	/* a good copy fills it */
	feed(&m, "A", 6, 5, 8);
	expect_all(&m, &s, 15);
	mold_merge_free(&m);
}

static void test_beyond_the_end(void **state)
{
	struct mold_merge m;
	struct sink s;
	uint8_t buf[64];

	(void)state;
	start(&m, &s, NULL);
	feed(&m, "A", 1, 10, 1);
	feed(&m, "A", 21, 5, 2);	/* held, the end comes later */
	feed(&m, "A", 11, 5, 3);
	assert_int_equal(mold_merge_packet(&m, buf, ctl(buf, "A", 16, true), 4), 0);
	assert_int_equal(mold_merge_packet(&m, buf, ctl(buf, "A", 16, true), 5), 0);
	feed(&m, "A", 14, 5, 6);	/* 14, 15 copies, 16..18 beyond */
	feed(&m, "A", 30, 2, 7);	/* beyond, not held */
	expect_all(&m, &s, 15);
	assert_int_equal(m.cnt.after_end, 5 + 3 + 2);
	assert_int_equal(m.cnt.ends, 2);
	mold_merge_free(&m);
}

static void test_an_empty_block_is_passed_on(void **state)
{
	struct mold_merge m;
	struct sink s;
	uint8_t buf[1500];
	size_t n;

	(void)state;
	start(&m, &s, NULL);
	feed(&m, "A", 1, 2, 1);
	n = pkt(buf, "A", 3, 2);
	/* a block of length 0 appended by hand: the builder refuses one */
	be16_store(buf + n, 0);
	be16_store(buf + MOLD_OFF_COUNT, 3);
	assert_int_equal(mold_merge_packet(&m, buf, n + 2, 2), 0);
	expect_all(&m, &s, 5);
	assert_int_equal(s.lens[4], 0);
	mold_merge_free(&m);
}

static void test_holding_limit_and_emit_error(void **state)
{
	struct mold_merge_cfg cfg = { .emit = emit, .max_held = 200 };
	struct mold_merge_hole h;
	struct mold_merge m;
	struct sink s;
	uint8_t buf[1500];
	size_t n;

	(void)state;
	memset(&s, 0, sizeof(s));
	cfg.ctx = &s;
	mold_merge_init(&m, &cfg);
	feed(&m, "A", 1, 1, 1);
	n = pkt(buf, "A", 10, 5);	/* 20 + 5 x 14 = 90 bytes */
	assert_int_equal(mold_merge_packet(&m, buf, n, 2), 0);
	n = pkt(buf, "A", 15, 5);
	assert_int_equal(mold_merge_packet(&m, buf, n, 3), 0);
	n = pkt(buf, "A", 20, 5);
	assert_int_equal(mold_merge_packet(&m, buf, n, 4), -ENOBUFS);
	assert_int_equal(mold_merge_finish(&m, &h), 1);
	assert_int_equal(h.first, 2);
	assert_int_equal(h.held_tag, 2);
	mold_merge_free(&m);

	start(&m, &s, NULL);
	s.fail_at = 7;
	feed(&m, "A", 1, 5, 1);
	n = pkt(buf, "A", 6, 5);
	assert_int_equal(mold_merge_packet(&m, buf, n, 2), -5);
	assert_int_equal(s.n, 6);
	mold_merge_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_in_order),
		cmocka_unit_test(test_copies_and_overlapping_resends),
		cmocka_unit_test(test_shuffled),
		cmocka_unit_test(test_a_lost_packet_is_a_hole),
		cmocka_unit_test(test_a_tail_announced_but_not_sent),
		cmocka_unit_test(test_a_late_start_is_a_hole),
		cmocka_unit_test(test_other_sessions_and_junk),
		cmocka_unit_test(test_framing_that_does_not_hold),
		cmocka_unit_test(test_beyond_the_end),
		cmocka_unit_test(test_an_empty_block_is_passed_on),
		cmocka_unit_test(test_holding_limit_and_emit_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
