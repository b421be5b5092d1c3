// SPDX-License-Identifier: MIT
/*
 * The engine in paper mode (docs/paper.md), without a network: MoldUDP64
 * packets of book messages and prints go in, nothing is sent, and each
 * order is filled from the engine's own book when the feed's clock passes
 * its arrival: decided by the first message stamped after it, before that
 * message is applied, wherever it sits in its packet; by the end of the
 * session otherwise.  And the rule for a feed with no re-request server: a
 * hole given up makes every book unsafe.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "gateway/engine_hot.h"
#include "strategy/gbm.h"
#include "tests/unit/feed_fixture.h"

#define LOC	5
#define NPX	4000
#define ASK_REF	900001
#define BID_REF	900002

static struct gw_engine e;
static uint32_t px[NPX];
static uint64_t ts = 1000000;		/* the feed's clock: ns since midnight */

/* A packet being built: messages at the next sequence numbers. */
static struct mold_builder pb;
static uint8_t pbuf[1500];
static uint64_t pfirst;

static void pkt_begin(void)
{
	pfirst = fx_next_seq;
	mold_builder_init(&pb, pbuf, sizeof(pbuf), fx_session, pfirst);
}

static void pkt_msg(struct itch_msg *m)
{
	m->locate = m->locate ? m->locate : LOC;
	assert_true(mold_builder_append_itch(&pb, m) > 0);
	fx_next_seq++;
}

static void pkt_send(void)
{
	struct gw_decision d[GW_MAX_DECISIONS];

	assert_int_equal(engine_on_feed(&e, pbuf, mold_builder_finish(&pb), 0, 0, d, 0), 0);
}

static void msg_add(uint64_t ref, char side, uint32_t shares, uint32_t price, uint64_t t)
{
	struct itch_msg m = { .type = 'A', .timestamp = t };

	m.a.order_ref = ref;
	m.a.side = side;
	m.a.shares = shares;
	fx_sym8(m.a.stock, "AAPL");
	m.a.price = price;
	pkt_msg(&m);
}

static void msg_delete(uint64_t ref, uint64_t t)
{
	struct itch_msg m = { .type = 'D', .timestamp = t };

	m.d.order_ref = ref;
	pkt_msg(&m);
}

/* A hidden print: it moves the strategy and gives no liquidity. */
static void msg_print(uint32_t price, uint64_t t)
{
	struct itch_msg m = { .type = 'P', .timestamp = t };

	m.p.side = 'B';
	m.p.shares = 100;
	fx_sym8(m.p.stock, "AAPL");
	m.p.price = price;
	m.p.match = fx_next_seq;
	pkt_msg(&m);
}

/* A message of another locate: the feed's clock moves, AAPL's book does not. */
static void msg_other(uint64_t t)
{
	struct itch_msg m = { .type = 'A', .locate = LOC + 1, .timestamp = t };

	m.a.order_ref = fx_next_seq;
	m.a.side = 'B';
	m.a.shares = 100;
	fx_sym8(m.a.stock, "ZZZZ");
	m.a.price = 10000;
	pkt_msg(&m);
}

static struct gw_cfg cfg(uint64_t latency, bool no_recovery)
{
	struct gw_cfg c;

	gw_cfg_defaults(&c);
	c.n_inst = 1;
	strcpy(c.inst[0].symbol, "AAPL");
	c.inst[0].length = 12;
	c.inst[0].unit = 100;
	c.orders.log_size = 1 << 12;
	c.orders.limit_bp = 2000;	/* wide: the resting levels are always within */
	c.tick_ring = 1 << 10;
	c.gap.hold = 64;
	c.gap.no_recovery = no_recovery;
	c.book.max_orders = 1 << 12;
	c.risk.collar_bp = 0;
	c.paper.on = true;
	c.paper.latency_ns = latency;
	return c;
}

static int start(uint64_t latency, bool no_recovery)
{
	struct gw_cfg c = cfg(latency, no_recovery);
	uint8_t buf[1500];
	char err[128];

	fx_begin("PAPER00001");
	if (engine_init(&e, &c, err, sizeof(err)))
		return -1;
	gbm_series(5, px, NPX);
	assert_int_equal(engine_on_feed(&e, buf, fx_directory(buf, LOC, "AAPL"), 0, 0, NULL, 0),
			 0);
	return 0;
}

static int setup(void **state)
{
	(void)state;
	return start(0, false);
}

static int setup_latency(void **state)
{
	(void)state;
	return start(1000, false);
}

static int setup_no_recovery(void **state)
{
	(void)state;
	return start(0, true);
}

static int teardown(void **state)
{
	(void)state;
	engine_destroy(&e);
	return 0;
}

static const struct gw_order *last_order(void)
{
	return &e.ord.log[(e.ord.next - 1) & e.ord.mask];
}

/*
 * Prints, one packet each, a step apart on the feed's clock, until the
 * strategy makes an order; it waits (nothing on the book after its print
 * has come).  Returns the index of the next price.
 */
static int until_waiting(int t)
{
	for (; t < NPX && !paper_waiting(&e.paper); t++) {
		ts += 10;
		pkt_begin();
		msg_print(px[t], ts);
		pkt_send();
	}
	assert_true(paper_waiting(&e.paper));
	return t;
}

/* A level on each side the next order can take from: 300 shares each. */
static void levels(uint64_t t)
{
	pkt_begin();
	msg_add(ASK_REF, 'S', 300, px[0] + 100, t);
	msg_add(BID_REF, 'B', 300, px[0] - 100, t);
	pkt_send();
}

/*
 * Latency 0: the order arrives at its print's time.  A later message with
 * the same timestamp is still "at most T": the order waits.  The first one
 * stamped after T decides it, before it is applied: its delete of the
 * level comes too late to take the shares away.
 */
static void test_fill_decided_by_the_first_later_message(void **state)
{
	const struct gw_order *o;
	uint64_t t0;
	uint32_t level;

	(void)state;
	levels(ts);
	until_waiting(0);
	o = last_order();
	t0 = ts;
	assert_int_equal(o->state, ORDER_SENT);
	pkt_begin();
	msg_other(t0);			/* same timestamp: part of the book it meets */
	pkt_send();
	assert_true(paper_waiting(&e.paper));
	level = o->side == 'B' ? px[0] + 100 : px[0] - 100;
	pkt_begin();
	msg_delete(o->side == 'B' ? ASK_REF : BID_REF, t0 + 1);
	pkt_send();
	assert_false(paper_waiting(&e.paper));
	assert_int_equal(o->state, ORDER_FILLED);
	assert_int_equal(o->filled, o->shares);
	assert_int_equal(o->cash, (uint64_t)o->shares * level);
	assert_int_equal(e.inst[0].pos_shares, o->side == 'B' ? (int64_t)o->shares :
						 -(int64_t)o->shares);
	assert_int_equal(e.paper.st.orders, 1);
	assert_int_equal(e.paper.st.executions, 1);
	/* The delete was applied after the fill: the level is gone. */
	assert_null(book_best(e.book, LOC, o->side == 'B' ? BOOK_ASK : BOOK_BID));
}

/*
 * The decision can fall in the middle of a packet: the print that makes
 * the order, then a message stamped later that empties the level.  The
 * fill sees the book before that message, as one message per packet
 * would.
 */
static void test_fill_decided_between_two_messages_of_a_packet(void **state)
{
	const struct gw_order *o;
	int t = 0;

	(void)state;
	levels(ts);
	/* Up to the last print before the strategy turns. */
	for (; t < NPX; t++) {
		uint64_t before = e.ord.next;

		ts += 10;
		pkt_begin();
		msg_print(px[t], ts);
		msg_delete(ASK_REF, ts + 1);
		msg_delete(BID_REF, ts + 1);
		msg_add(ASK_REF, 'S', 300, px[0] + 100, ts + 1);
		msg_add(BID_REF, 'B', 300, px[0] - 100, ts + 1);
		pkt_send();
		if (e.ord.next != before)
			break;
	}
	assert_true(t < NPX);
	o = last_order();
	assert_false(paper_waiting(&e.paper));
	assert_int_equal(o->filled, o->shares);
	/* Taken from the level before the delete, not from its replacement. */
	assert_int_equal(book_best(e.book, LOC, o->side == 'B' ? BOOK_ASK : BOOK_BID)->shares,
			 300);
}

/* With a latency, what happens up to T is in the book the order meets. */
static void test_latency_counts_on_the_feeds_clock(void **state)
{
	const struct gw_order *o;
	uint64_t t0;

	(void)state;
	until_waiting(0);		/* no levels yet: nothing to take */
	o = last_order();
	t0 = ts;
	pkt_begin();
	msg_add(ASK_REF, 'S', 1000, px[0] + 100, t0 + 500);
	msg_add(BID_REF, 'B', 1000, px[0] - 100, t0 + 500);
	msg_other(t0 + 1000);		/* at T: still at most T */
	pkt_send();
	assert_true(paper_waiting(&e.paper));
	pkt_begin();
	msg_other(t0 + 1001);
	pkt_send();
	assert_false(paper_waiting(&e.paper));
	assert_int_equal(o->filled, o->shares);
}

/* Nothing within the limit: canceled whole, and the next print tries again. */
static void test_nothing_to_take_is_canceled_and_restored(void **state)
{
	const struct gw_order *o;
	uint64_t n;
	int t;

	(void)state;
	t = until_waiting(0);
	o = last_order();
	pkt_begin();
	msg_other(ts + 1);
	pkt_send();
	assert_int_equal(o->state, ORDER_CANCELED);
	assert_int_equal(o->filled, 0);
	assert_int_equal(e.paper.st.canceled, 1);
	assert_int_equal(e.inst[0].pos_shares, 0);
	n = e.ord.next;
	ts += 10;
	pkt_begin();
	msg_print(px[t], ts);
	pkt_send();
	assert_int_equal(e.ord.next, n + 1);
	assert_true(last_order()->flags & ORDER_F_RESTORE);
}

/* The end of the session decides what still waits, on the books as they stand. */
static void test_end_of_session_decides_what_waits(void **state)
{
	const struct gw_order *o;
	uint8_t buf[64];
	int len;

	(void)state;
	levels(ts);
	until_waiting(0);
	o = last_order();
	len = mold_encode_end_of_session(buf, sizeof(buf), fx_session, fx_next_seq);
	assert_true(len > 0);
	assert_int_equal(engine_on_feed(&e, buf, (size_t)len, 0, 0, NULL, 0), 0);
	assert_false(paper_waiting(&e.paper));
	assert_int_equal(e.paper.st.at_end, 1);
	assert_int_equal(o->filled, o->shares);
}

/*
 * No re-request server, one line: a hole is given up at once.  From its
 * first missing number on every book is unsafe: the strategy follows the
 * prints, no order is made, each change is listed (reason book).
 */
static void test_a_hole_with_no_rerequest_makes_the_books_unsafe(void **state)
{
	uint64_t orders, hole;
	int t;

	(void)state;
	levels(ts);
	t = until_waiting(0);
	orders = e.ord.next;
	hole = fx_next_seq;
	fx_next_seq += 3;		/* three messages never sent */
	for (; t < NPX; t++) {
		ts += 10;
		pkt_begin();
		msg_print(px[t], ts);
		pkt_send();
	}
	assert_int_equal(e.unsafe_from, hole);
	assert_int_equal(e.gap.st.given_up, 1);
	assert_int_equal(e.gap.st.given_up_msgs, 3);
	assert_int_equal(e.ord.next, orders);
	assert_true(e.st.untraded_by[UNTRADED_BOOK] > 0);
	assert_int_equal(e.dec.cnt.msgs, fx_next_seq - 1 - 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_fill_decided_by_the_first_later_message,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_fill_decided_between_two_messages_of_a_packet,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_latency_counts_on_the_feeds_clock,
						setup_latency, teardown),
		cmocka_unit_test_setup_teardown(test_nothing_to_take_is_canceled_and_restored,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_end_of_session_decides_what_waits,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_a_hole_with_no_rerequest_makes_the_books_unsafe,
						setup_no_recovery, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
