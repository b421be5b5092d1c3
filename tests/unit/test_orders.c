// SPDX-License-Identifier: MIT
/*
 * The order log and the replies (gateway/orders.h), as the SoupBinTCP
 * session hands them on: replies applied in any order and split
 * executions; a second final reply never fills twice; a reply for no
 * order changes nothing; a timed-out order keeps its exposure until a
 * reply says what became of it; and across connections: orders without a
 * reply when a connection goes are in doubt, each is sent again (the same
 * order) once after the next login and its replay time, only when still
 * unanswered, and again after a further loss if still unanswered; replies
 * to orders of an earlier connection are counted as replayed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "gateway/orders.h"
#include "tests/unit/feed_fixture.h"

#define MS 1000000ull

static struct orders o;
static struct gw_inst in;

static int setup(void **state)
{
	struct orders_cfg c = {
		.log_size = 64, .limit_bp = 10, .firm = "TEST",
		.timeout_ns = 100 * MS, .resend_after_ns = 20 * MS,
	};
	char err[64];

	(void)state;
	memcpy(in.symbol, "AAPL    ", 8);
	if (orders_init(&o, &c, err, sizeof(err)))
		return -1;
	orders_session_up(&o, 0);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	orders_destroy(&o);
	return 0;
}

static struct gw_order *send(uint64_t md_seq, uint64_t t_sent)
{
	struct gw_decision d = { .md_seq = md_seq, .limit = 1000000, .shares = 100,
				 .side = 'B' };
	uint8_t out[OUCH_ENTER_PKT_LEN];
	struct gw_order *r;

	orders_reserve(&o, &d);
	orders_build(&o, &in, &d, 0, out, &r);
	r->t.t_sent = t_sent;
	return r;
}

static char reply_n(char type, struct gw_order *r, uint32_t shares, uint32_t price)
{
	uint8_t buf[OUCH_REPLY_PKT_MAX];
	struct gw_order *got = NULL;
	uint32_t n = 0;
	char applied = orders_on_reply(&o, buf, fx_reply(buf, type, r, shares, price), &got, &n);

	if (applied)
		assert_ptr_equal(got, r);
	return applied;
}

static char reply(char type, struct gw_order *r)
{
	return reply_n(type, r, r->shares, 1000000);
}

static void test_replies_close_orders(void **state)
{
	struct gw_order *a = send(1, 1), *b = send(2, 1);

	(void)state;
	assert_int_equal(o.open, 2);
	assert_int_equal(reply('A', a), 'A');
	assert_int_equal(reply('A', b), 'A');
	assert_int_equal(reply('C', b), 'C');
	assert_int_equal(reply('E', a), 'E');
	assert_int_equal(o.open, 0);
	assert_int_equal(o.open_buy[0], 0);
	assert_int_equal(a->state, ORDER_FILLED);
	assert_int_equal(a->cash, 100 * 1000000ull);
	assert_int_equal(b->state, ORDER_CANCELED);
	assert_int_equal(o.st.replayed, 0);
}

static void test_duplicate_fill_never_twice(void **state)
{
	struct gw_order *a = send(1, 1);

	(void)state;
	assert_int_equal(reply('E', a), 'E');
	assert_int_equal(reply('E', a), 0);
	assert_int_equal(reply('C', a), 0);
	assert_int_equal(o.st.fills, 1);
	assert_int_equal(o.st.dup_replies, 2);
	assert_int_equal(o.open, 0);
}

static void test_reply_for_no_order(void **state)
{
	struct gw_order ghost = { .md_seq = 5, .order_no = 999, .side = 'B', .shares = 100 };
	uint8_t buf[OUCH_REPLY_PKT_MAX];
	struct gw_order *got;
	uint32_t n;

	(void)state;
	send(1, 1);
	assert_int_equal(reply('E', &ghost), 0);
	assert_int_equal(o.st.unknown_token, 1);
	memset(buf, 'Q', sizeof(buf));
	assert_int_equal(orders_on_reply(&o, buf, 40, &got, &n), 0);
	assert_int_equal(orders_on_reply(&o, buf, 0, &got, &n), 0);
	assert_int_equal(o.st.bad_replies, 2);
	assert_int_equal(o.open, 1);
}

static void test_timeout_keeps_exposure(void **state)
{
	struct gw_order *a = send(9, 1000);

	(void)state;
	orders_expire(&o, 999);			/* a clock read from before the send */
	assert_int_equal(a->state, ORDER_SENT);
	orders_expire(&o, 1000 + 100 * MS - 1);
	assert_int_equal(a->state, ORDER_SENT);
	orders_expire(&o, 1000 + 100 * MS);
	assert_int_equal(a->state, ORDER_TIMED_OUT);
	assert_int_equal(o.st.timeouts, 1);
	/* It may have filled: still counted as open. */
	assert_int_equal(o.open, 1);
	assert_int_equal(o.open_buy[0], 100);
	/* The exchange answers after all: applied, counted late. */
	assert_int_equal(reply('E', a), 'E');
	assert_int_equal(o.st.late_replies, 1);
	assert_int_equal(o.open, 0);
	assert_int_equal(o.open_buy[0], 0);
}

/* An IOC executed in parts: open until the rest is canceled. */
static void test_partial_fills(void **state)
{
	struct gw_order *a = send(1, 1);

	(void)state;
	assert_int_equal(reply('A', a), 'A');
	assert_int_equal(reply_n('E', a, 30, 1000100), 'E');
	assert_int_equal(a->filled, 30);
	assert_int_equal(a->state, ORDER_ACCEPTED);
	assert_int_equal(o.open, 1);
	assert_int_equal(o.open_buy[0], 70);		/* only what is left is in flight */
	assert_int_equal(reply_n('E', a, 50, 1000200), 'E');
	assert_int_equal(a->filled, 80);
	assert_int_equal(a->cash, 30 * 1000100ull + 50 * 1000200ull);
	assert_int_equal(o.open_buy[0], 20);
	/* The rest canceled: closed, and still an order that (partly) filled. */
	assert_int_equal(reply('C', a), 'C');
	assert_int_equal(o.open, 0);
	assert_int_equal(o.open_buy[0], 0);
	assert_int_equal(a->state, ORDER_FILLED);
	assert_int_equal(a->filled, 80);
	/* Nothing more applies to it. */
	assert_int_equal(reply('E', a), 0);
	assert_int_equal(o.st.fills, 2);
	/* More executed than it had: counted, capped. */
	struct gw_order *b = send(2, 1);

	assert_int_equal(reply_n('E', b, 150, 1000000), 'E');
	assert_int_equal(o.st.overfills, 1);
	assert_int_equal(b->filled, 100);
	assert_int_equal(o.open_buy[0], 0);
}

/*
 * A connection lost with three orders out: one answered (not in doubt),
 * two without a reply.  After the next login and its replay time, the one
 * the replay did not answer goes again, once; the replayed reply of the
 * other counts as replayed.  Lost again before an answer: it goes again
 * after the login after that.
 */
static void test_in_doubt_resent_after_login(void **state)
{
	struct gw_order *a = send(1, 1), *b = send(2, 1), *c = send(3, 1), *r;

	(void)state;
	assert_int_equal(reply('A', a), 'A');
	orders_session_down(&o);
	assert_false(o.up);
	assert_int_equal(o.st.in_doubt, 2);
	assert_null(orders_resend_next(&o, 10 * MS));	/* logged out: nothing */

	orders_session_up(&o, 100 * MS);
	assert_true(o.up);
	/* The replay: b's reply comes, from an earlier connection. */
	assert_int_equal(reply('A', b), 'A');
	assert_int_equal(o.st.replayed, 1);
	assert_null(orders_resend_next(&o, 100 * MS + 19 * MS));	/* the replay's time */
	r = orders_resend_next(&o, 100 * MS + 20 * MS);
	assert_ptr_equal(r, c);
	assert_true(c->flags & ORDER_F_RESENT);
	assert_int_equal(c->conn, o.conn);
	assert_null(orders_resend_next(&o, 200 * MS));		/* once per login */
	assert_int_equal(o.st.resent, 1);
	/* An order sent on this connection is not in doubt. */
	struct gw_order *d = send(4, 1);

	assert_null(orders_resend_next(&o, 300 * MS));
	/* Lost again: c (still unanswered) and d go after the next login. */
	orders_session_down(&o);
	assert_int_equal(o.st.in_doubt, 4);
	orders_session_up(&o, 1000 * MS);
	assert_ptr_equal(orders_resend_next(&o, 1020 * MS), c);
	assert_ptr_equal(orders_resend_next(&o, 1020 * MS), d);
	assert_null(orders_resend_next(&o, 1020 * MS));
	assert_int_equal(o.st.resent, 3);
	/* Its reply, whichever copy the exchange took, closes it once. */
	assert_int_equal(reply('A', c), 'A');
	assert_int_equal(reply('E', c), 'E');
	assert_int_equal(reply('E', c), 0);
	assert_int_equal(o.open_buy[0], 300);			/* a, b (accepted only) and d */
}

/* Nothing in doubt: a login sends nothing again. */
static void test_clean_login_resends_nothing(void **state)
{
	struct gw_order *a = send(1, 1);

	(void)state;
	reply('A', a);
	reply('E', a);
	orders_session_down(&o);
	assert_int_equal(o.st.in_doubt, 0);
	orders_session_up(&o, 0);
	assert_int_equal(o.resend_at, 0);
	assert_null(orders_resend_next(&o, 1000 * MS));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
		T(test_replies_close_orders),
		T(test_duplicate_fill_never_twice),
		T(test_reply_for_no_order),
		T(test_timeout_keeps_exposure),
		T(test_partial_fills),
		T(test_in_doubt_resent_after_login),
		T(test_clean_login_resends_nothing),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
