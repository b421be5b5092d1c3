// SPDX-License-Identifier: MIT
/*
 * The floor responder's shared part (bench/floor/floor.h): which tick of a
 * MoldUDP64 packet it answers, the order it answers with (a valid Enter
 * Order whose token is that tick's sequence number, its checksum sum), the
 * replies that close its record, --answer-every, and --answer-seqs (the
 * prints of a list, each answered with the listed order, missed and wrong
 * numbers counted, the list file checked).
 */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "bench/floor/floor.h"
#include "proto/csum.h"

static const char session[MOLD_SESSION_LEN] = "SESSION001";

static void trade(struct itch_msg *m, const char *stock, uint32_t price, uint64_t ts)
{
	memset(m, 0, sizeof(*m));
	m->type = 'P';
	m->locate = 1;
	m->timestamp = ts;
	m->p.side = 'B';
	m->p.shares = 300;
	memcpy(m->p.stock, stock, 8);
	m->p.price = price;
	m->p.match = 7;
}

/* A packet from @seq: a system event when @event, then a trade print. */
static size_t packet(uint8_t *buf, size_t cap, uint64_t seq, bool event)
{
	struct mold_builder b;
	struct itch_msg m;

	assert_int_equal(mold_builder_init(&b, buf, cap, session, seq), 0);
	if (event) {
		memset(&m, 0, sizeof(m));
		m.type = 'S';
		m.s.event = 'Q';
		assert_true(mold_builder_append_itch(&b, &m) > 0);
	}
	trade(&m, "MSFT    ", 4201234, 0x123456789abcull);
	assert_true(mold_builder_append_itch(&b, &m) > 0);
	return mold_builder_finish(&b);
}

static struct floor_opts opts;
static struct floor fl;

static int setup(void **state)
{
	char err[128];

	(void)state;
	memset(&opts, 0, sizeof(opts));
	opts.shares = 100;
	opts.max_orders = 1024;
	opts.answer_every = 1;
	return floor_init(&fl, &opts, err, sizeof(err));
}

static int teardown(void **state)
{
	(void)state;
	floor_destroy(&fl);
	return 0;
}

static void test_find_tick(void **state)
{
	uint8_t buf[256];
	struct floor_tick t;
	size_t len;

	(void)state;
	len = packet(buf, sizeof(buf), 41, false);
	assert_int_equal(floor_first_print(buf, len, &t), FLOOR_TICK);
	assert_int_equal(t.seq, 41);
	assert_ptr_equal(t.msg, buf + MOLD_HDR_LEN + MOLD_BLOCK_HDR_LEN);

	/* After a system event: the print is the packet's second message. */
	len = packet(buf, sizeof(buf), 41, true);
	assert_int_equal(floor_first_print(buf, len, &t), FLOOR_TICK);
	assert_int_equal(t.seq, 42);
	assert_int_equal(t.msg[0], 'P');

	/* Cut inside the print, or its block length running past the end. */
	assert_int_equal(floor_first_print(buf, len - 1, &t), FLOOR_NONE);
	assert_int_equal(floor_first_print(buf, MOLD_HDR_LEN - 1, &t), FLOOR_NONE);

	assert_int_equal(mold_encode_heartbeat(buf, sizeof(buf), session, 9), MOLD_HDR_LEN);
	assert_int_equal(floor_first_print(buf, MOLD_HDR_LEN, &t), FLOOR_NONE);
	assert_int_equal(mold_encode_end_of_session(buf, sizeof(buf), session, 9), MOLD_HDR_LEN);
	assert_int_equal(floor_first_print(buf, MOLD_HDR_LEN, &t), FLOOR_END);

	/* A 'P' byte in a block of another length is no trade print. */
	len = packet(buf, sizeof(buf), 41, false);
	buf[MOLD_HDR_LEN + 1] = ITCH_LEN_P - 1;
	assert_int_equal(floor_first_print(buf, len - 1, &t), FLOOR_NONE);
}

static void test_answer(void **state)
{
	uint8_t buf[256], out[OUCH_ENTER_PKT_LEN + 1];
	struct ouch_enter_order o;
	struct floor_rec *rec;
	struct floor_tick t;
	uint64_t seq, sum;
	uint32_t no;
	size_t len = packet(buf, sizeof(buf), 1000, false);

	(void)state;
	assert_int_equal(floor_first_print(buf, len, &t), FLOOR_TICK);
	sum = floor_answer(&fl, &t, out, &rec);
	assert_non_null(rec);
	assert_int_equal(out[SOUP_OFF_TYPE], SOUP_UNSEQ_DATA);
	assert_int_equal(ouch_decode_enter_order(out + SOUP_HDR_LEN, OUCH_LEN_ENTER, &o),
			 OUCH_LEN_ENTER);
	assert_int_equal(order_token_decode(o.token, &seq, &no), 0);
	assert_int_equal(seq, 1000);
	assert_int_equal(no, 0);
	assert_int_equal(o.side, 'B');
	assert_int_equal(o.shares, 100);
	assert_memory_equal(o.stock, "MSFT    ", 8);
	assert_int_equal(o.price, 4201234);
	assert_int_equal(o.tif, OUCH_TIF_IOC);
	/* The returned sum is the packet's, for the segment's checksum. */
	assert_int_equal(csum_fold(sum), csum_fold(csum_partial(out, OUCH_ENTER_PKT_LEN, 0)));
	assert_int_equal(rec->md_seq, 1000);
	assert_int_equal(rec->ts48, 0x123456789abcull);
	assert_int_equal(rec->outcome, ORDER_SENT);

	/* The next one sells, so the position stays flat. */
	floor_answer(&fl, &t, out, &rec);
	assert_int_equal(ouch_decode_enter_order(out + SOUP_HDR_LEN, OUCH_LEN_ENTER, &o),
			 OUCH_LEN_ENTER);
	assert_int_equal(o.side, 'S');
	assert_int_equal(order_token_decode(o.token, &seq, &no), 0);
	assert_int_equal(no, 1);
	assert_int_equal(fl.log.n, 2);
	assert_int_equal(fl.st.ticks, 2);
}

/* A reply as the session hands it on: the OUCH message at @buf; its length. */
static size_t reply(uint8_t *buf, char type, uint64_t seq, uint32_t no, uint64_t ts)
{
	struct ouch_reply r = { .type = type, .timestamp = ts };
	uint8_t pkt[OUCH_REPLY_PKT_MAX];
	int len;

	order_token_encode(r.token, seq, no);
	if (type == 'A') {
		r.accepted.side = 'B';
		r.accepted.shares = 100;
		memcpy(r.accepted.stock, "MSFT    ", 8);
	} else if (type == 'E') {
		r.executed.shares = 100;
		r.executed.price = 4201234;
	} else if (type == 'C') {
		r.canceled.decrement = 100;
		r.canceled.reason = 'I';
	} else {
		r.rejected.reason = 'O';
	}
	len = ouch_encode_reply(pkt, sizeof(pkt), &r);
	memcpy(buf, pkt + SOUP_HDR_LEN, (size_t)len - SOUP_HDR_LEN);
	return (size_t)len - SOUP_HDR_LEN;
}

static void test_replies(void **state)
{
	uint8_t buf[256], out[OUCH_ENTER_PKT_LEN];
	struct floor_rec *rec;
	struct floor_tick t;
	size_t len = packet(buf, sizeof(buf), 7, false);

	(void)state;
	assert_int_equal(floor_first_print(buf, len, &t), FLOOR_TICK);
	floor_answer(&fl, &t, out, &rec);	/* order 0, seq 7 */
	floor_answer(&fl, &t, out, &rec);	/* order 1, seq 7 */

	/* Accepted: its Timestamp is the order's arrival at the exchange. */
	floor_on_reply(&fl, buf, reply(buf, 'A', 7, 0, 555));
	assert_int_equal(fl.log.rec[0].t.t_ack, 555);
	assert_int_equal(fl.log.rec[0].outcome, ORDER_ACCEPTED);
	floor_on_reply(&fl, buf, reply(buf, 'E', 7, 0, 999));
	assert_int_equal(fl.log.rec[0].t.t_ack, 555);
	assert_int_equal(fl.log.rec[0].outcome, ORDER_FILLED);
	floor_on_reply(&fl, buf, reply(buf, 'C', 7, 0, 999));
	assert_int_equal(fl.log.rec[0].outcome, ORDER_FILLED);

	floor_on_reply(&fl, buf, reply(buf, 'J', 7, 1, 777));
	assert_int_equal(fl.log.rec[1].t.t_ack, 777);
	assert_int_equal(fl.log.rec[1].outcome, ORDER_REJECTED);
	assert_int_equal(fl.st.reply_bad, 0);

	/* Not ours: an order never sent, a token of another tick, junk. */
	floor_on_reply(&fl, buf, reply(buf, 'A', 7, 2, 1));
	floor_on_reply(&fl, buf, reply(buf, 'A', 8, 0, 1));
	floor_on_reply(&fl, buf, 3);
	assert_int_equal(fl.st.reply_bad, 3);
	assert_int_equal(fl.log.rec[0].t.t_ack, 555);
	assert_int_equal(fl.st.replies, 7);
}

static void test_answer_every(void **state)
{
	char err[128];
	bool taken[7];

	(void)state;
	floor_destroy(&fl);
	opts.answer_every = 3;
	assert_int_equal(floor_init(&fl, &opts, err, sizeof(err)), 0);
	for (int i = 0; i < 7; i++)
		taken[i] = floor_take(&fl);
	assert_true(taken[0] && !taken[1] && !taken[2] && taken[3] && !taken[4] &&
		    !taken[5] && taken[6]);
	assert_int_equal(fl.st.skipped, 4);
}

/*
 * A day's packet from @seq: add, execution (E), print (P), execution with
 * price (C), the opening cross (Q).
 */
static size_t day_packet(uint8_t *buf, size_t cap, uint64_t seq)
{
	struct mold_builder b;
	struct itch_msg m;

	assert_int_equal(mold_builder_init(&b, buf, cap, session, seq), 0);
	memset(&m, 0, sizeof(m));
	m.type = 'A';
	m.a.order_ref = 5;
	m.a.side = 'S';
	m.a.shares = 100;
	memcpy(m.a.stock, "AAPL    ", 8);
	m.a.price = 1500000;
	assert_true(mold_builder_append_itch(&b, &m) > 0);
	memset(&m, 0, sizeof(m));
	m.type = 'E';
	m.e.order_ref = 5;
	m.e.shares = 40;
	m.e.match = 9;
	assert_true(mold_builder_append_itch(&b, &m) > 0);
	trade(&m, "MSFT    ", 4201234, 77);
	assert_true(mold_builder_append_itch(&b, &m) > 0);
	memset(&m, 0, sizeof(m));
	m.type = 'C';
	m.e.order_ref = 5;
	m.e.shares = 60;
	m.e.match = 10;
	m.e.printable = 'Y';
	m.e.price = 1499900;
	assert_true(mold_builder_append_itch(&b, &m) > 0);
	memset(&m, 0, sizeof(m));
	m.type = 'Q';
	m.q.shares = 5000;
	memcpy(m.q.stock, "AAPL    ", 8);
	m.q.price = 1500100;
	m.q.match = 11;
	m.q.cross_type = 'O';
	assert_true(mold_builder_append_itch(&b, &m) > 0);
	return mold_builder_finish(&b);
}

static int wants_from(const char *text)
{
	char path[] = "/tmp/test_floor_seqs.XXXXXX", err[256];
	int fd = mkstemp(path), ret;
	FILE *f;

	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	fputs(text, f);
	fclose(f);
	floor_destroy(&fl);
	opts.answer_seqs = path;
	ret = floor_init(&fl, &opts, err, sizeof(err));
	opts.answer_seqs = NULL;
	unlink(path);
	return ret;
}

static void test_answer_seqs(void **state)
{
	uint8_t buf[512], out[OUCH_ENTER_PKT_LEN];
	struct ouch_enter_order o;
	struct floor_rec *rec;
	struct floor_tick t;
	size_t len;

	(void)state;
	/* 3 was in a packet never seen; 11 (E), 13 (C) in this one; 12 (P) not wanted. */
	assert_int_equal(wants_from("md_seq,symbol,side,shares\n3,AAPL,B,100\n"
				    "11,AAPL,S,200\n13,AAPL,B,300\n14,AAPL,S,100\n21,MSFT,B,100\n"), 0);
	assert_int_equal(fl.n_want, 5);
	len = day_packet(buf, sizeof(buf), 10);
	assert_int_equal(floor_find_tick(&fl, buf, len, &t), FLOOR_TICK);
	assert_int_equal(fl.st.want_missed, 1);
	assert_int_equal(t.seq, 11);
	assert_int_equal(t.msg[0], 'E');
	floor_answer(&fl, &t, out, &rec);
	assert_int_equal(ouch_decode_enter_order(out + SOUP_HDR_LEN, OUCH_LEN_ENTER, &o),
			 OUCH_LEN_ENTER);
	assert_int_equal(o.side, 'S');
	assert_int_equal(o.shares, 200);
	assert_memory_equal(o.stock, "AAPL    ", 8);
	assert_int_equal(o.price, 1);	/* an E has no price */
	assert_int_equal(rec->shares, 200);

	assert_int_equal(floor_more_ticks(&fl, buf, len, &t), FLOOR_TICK);
	assert_int_equal(t.seq, 13);
	assert_int_equal(t.msg[0], 'C');
	floor_answer(&fl, &t, out, &rec);
	assert_int_equal(ouch_decode_enter_order(out + SOUP_HDR_LEN, OUCH_LEN_ENTER, &o),
			 OUCH_LEN_ENTER);
	assert_int_equal(o.price, 1499900);
	assert_int_equal(o.side, 'B');
	assert_int_equal(o.shares, 300);
	assert_int_equal(floor_more_ticks(&fl, buf, len, &t), FLOOR_TICK);
	assert_int_equal(t.seq, 14);
	floor_answer(&fl, &t, out, &rec);
	assert_int_equal(rec->price, 1500100);
	assert_int_equal(floor_more_ticks(&fl, buf, len, &t), FLOOR_NONE);

	/* The same packet again (a duplicate): nothing more to answer. */
	assert_int_equal(floor_find_tick(&fl, buf, len, &t), FLOOR_NONE);
	assert_int_equal(fl.st.want_missed, 1);

	/* 21 names the packet's add: the list is not this feed's. */
	len = day_packet(buf, sizeof(buf), 21);
	assert_int_equal(floor_find_tick(&fl, buf, len, &t), FLOOR_NONE);
	assert_int_equal(fl.st.want_bad, 1);
	assert_int_equal(fl.next_want, 5);

	/* A list that descends, a bad line, an empty list: refused. */
	assert_int_not_equal(wants_from("5,AAPL,B,100\n4,AAPL,S,100\n"), 0);
	assert_int_not_equal(wants_from("md_seq,symbol,side,shares\n5,AAPL,X,100\n"), 0);
	assert_int_not_equal(wants_from("5,TOOLONGSYM,B,100\n"), 0);
	assert_int_not_equal(wants_from("md_seq,symbol,side,shares\n"), 0);
	assert_int_equal(wants_from("5,AAPL,B,100\n"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_find_tick, setup, teardown),
		cmocka_unit_test_setup_teardown(test_answer, setup, teardown),
		cmocka_unit_test_setup_teardown(test_replies, setup, teardown),
		cmocka_unit_test_setup_teardown(test_answer_every, setup, teardown),
		cmocka_unit_test_setup_teardown(test_answer_seqs, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
