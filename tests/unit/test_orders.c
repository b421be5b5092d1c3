// SPDX-License-Identifier: MIT
/*
 * The order log and the replies (gateway/orders.h): numbered replies show
 * a lost one, which is asked for at once; while a reply is missing no
 * order times out; the last reply lost is found by the probe; duplicates
 * never fill twice; a timed-out order keeps its exposure until a reply
 * says what became of it; plain unnumbered replies still work.
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

static int setup(void **state)
{
	struct orders_cfg c = {
		.log_size = 64, .limit_bp = 10, .firm = "TEST",
		.timeout_ns = 100 * MS, .retry_ns = 10 * MS, .probe_ns = 20 * MS,
	};
	char err[64];

	(void)state;
	return orders_init(&o, &c, err, sizeof(err));
}

static int teardown(void **state)
{
	(void)state;
	orders_destroy(&o);
	return 0;
}

static struct gw_order *send(uint64_t md_seq, uint64_t t_sent)
{
	static struct gw_inst in;
	struct gw_decision d = { .md_seq = md_seq, .limit = 1000000, .shares = 100,
				 .side = 'B' };
	uint8_t out[OUCH_ENTER_DGRAM_LEN];
	struct gw_order *r;

	memcpy(in.symbol, "AAPL    ", 8);
	orders_reserve(&o, &d);
	orders_build(&o, &in, &d, 0, out, &r);
	r->t.t_sent = t_sent;
	return r;
}

static char reply(char type, struct gw_order *r, uint64_t number)
{
	uint8_t buf[OUCH_REPLY_DGRAM_MAX];
	struct gw_order *got = NULL;
	uint32_t shares = 0;
	char applied = orders_on_reply(&o, buf, fx_reply(buf, type, r, r->shares, 1000000,
							   number), &got, &shares);

	if (applied)
		assert_ptr_equal(got, r);
	return applied;
}

static void test_numbered_in_order(void **state)
{
	struct gw_order *a = send(1, 1), *b = send(2, 1);
	uint64_t first;
	uint16_t count;

	(void)state;
	assert_int_equal(reply('A', a, 1), 'A');
	assert_int_equal(reply('E', a, 2), 'E');
	assert_int_equal(reply('A', b, 3), 'A');
	assert_int_equal(reply('C', b, 4), 'C');
	assert_int_equal(o.rs.next, 5);
	assert_false(orders_reply_hole(&o));
	assert_false(orders_resend_due(&o, 2, &first, &count));
	assert_int_equal(o.open, 0);
}

static void test_lost_reply_asked_and_recovered(void **state)
{
	struct gw_order *a = send(1, 1), *b = send(2, 1);
	uint64_t first;
	uint16_t count;

	(void)state;
	reply('A', a, 1);
	/* Reply 2 (a's Executed) is lost; 3 shows the hole. */
	assert_int_equal(reply('A', b, 3), 'A');
	assert_true(orders_reply_hole(&o));
	assert_int_equal(o.st.reply_holes, 1);
	assert_true(orders_resend_due(&o, 5, &first, &count));
	assert_int_equal(first, 2);
	assert_int_equal(count, 1);
	assert_false(orders_resend_due(&o, 6, &first, &count));	/* retry time */
	/* While the hole is open, no order times out: it may be the one. */
	orders_expire(&o, 500 * MS);
	assert_int_equal(a->state, ORDER_ACCEPTED);
	assert_int_equal(o.st.timeouts, 0);
	assert_true(orders_resend_due(&o, 5 + 10 * MS, &first, &count));
	/* The resend arrives: applied once; its duplicate is not. */
	assert_int_equal(reply('E', a, 2), 'E');
	assert_false(orders_reply_hole(&o));
	assert_int_equal(o.st.reply_recovered, 1);
	assert_int_equal(reply('E', a, 2), 0);
	assert_int_equal(o.st.dup_replies, 1);
	assert_int_equal(o.rs.next, 4);
	assert_int_equal(o.open_buy[0], 100);		/* b still open */
}

static void test_duplicate_fill_never_twice(void **state)
{
	struct gw_order *a = send(1, 1);

	(void)state;
	assert_int_equal(reply('E', a, 1), 'E');
	assert_int_equal(reply('E', a, 1), 0);		/* same number */
	assert_int_equal(reply('E', a, 0), 0);		/* unnumbered copy */
	assert_int_equal(o.st.fills, 1);
	assert_int_equal(o.st.dup_replies, 2);
}

/* The last reply lost: nothing follows it, so the probe asks. */
static void test_probe_finds_last_reply(void **state)
{
	struct gw_order *a = send(1, 1 * MS);
	uint64_t first;
	uint16_t count;

	(void)state;
	assert_int_equal(reply('A', a, 1), 'A');	/* its Executed, 2, is lost */
	assert_false(orders_resend_due(&o, 10 * MS, &first, &count));
	assert_true(orders_resend_due(&o, 22 * MS, &first, &count));
	assert_int_equal(first, 2);
	assert_false(orders_resend_due(&o, 23 * MS, &first, &count));
	assert_int_equal(reply('E', a, 2), 'E');
	assert_int_equal(o.open, 0);
	assert_false(orders_resend_due(&o, 100 * MS, &first, &count));
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
	/* The exchange answers after all (unnumbered): applied, counted late. */
	assert_int_equal(reply('E', a, 0), 'E');
	assert_int_equal(o.st.late_replies, 1);
	assert_int_equal(o.st.unnumbered, 1);
	assert_int_equal(o.open, 0);
	assert_int_equal(o.open_buy[0], 0);
}

/* An IOC executed in parts: open until the rest is canceled. */
static void test_partial_fills(void **state)
{
	struct gw_order *a = send(1, 1);
	uint8_t buf[OUCH_REPLY_DGRAM_MAX];
	struct gw_order *got;
	uint32_t shares;

	(void)state;
	assert_int_equal(reply('A', a, 1), 'A');
	assert_int_equal(orders_on_reply(&o, buf, fx_reply(buf, 'E', a, 30, 1000100, 2), &got,
					 &shares), 'E');
	assert_int_equal(shares, 30);
	assert_int_equal(a->filled, 30);
	assert_int_equal(a->state, ORDER_ACCEPTED);
	assert_int_equal(o.open, 1);
	assert_int_equal(o.open_buy[0], 70);		/* only what is left is in flight */
	assert_int_equal(orders_on_reply(&o, buf, fx_reply(buf, 'E', a, 50, 1000200, 3), &got,
					 &shares), 'E');
	assert_int_equal(a->filled, 80);
	assert_int_equal(o.open_buy[0], 20);
	/* The rest canceled: closed, and still an order that (partly) filled. */
	assert_int_equal(reply('C', a, 4), 'C');
	assert_int_equal(o.open, 0);
	assert_int_equal(o.open_buy[0], 0);
	assert_int_equal(a->state, ORDER_FILLED);
	assert_int_equal(a->filled, 80);
	/* Nothing more applies to it. */
	assert_int_equal(reply('E', a, 5), 0);
	assert_int_equal(o.st.fills, 2);
}

static void test_resend_request_codec(void **state)
{
	uint8_t buf[OUCH_RESEND_DGRAM_LEN];
	uint64_t first;
	uint16_t count;

	(void)state;
	assert_int_equal(ouch_encode_resend(buf, sizeof(buf), 77, 5), OUCH_RESEND_DGRAM_LEN);
	assert_int_equal(buf[SOUP_OFF_TYPE], 'r');
	assert_int_equal(ouch_decode_resend(buf, sizeof(buf), &first, &count),
			 OUCH_RESEND_DGRAM_LEN);
	assert_int_equal(first, 77);
	assert_int_equal(count, 5);
	assert_true(ouch_decode_resend(buf, sizeof(buf) - 1, &first, &count) < 0);
	buf[SOUP_OFF_TYPE] = 'U';
	assert_true(ouch_decode_resend(buf, sizeof(buf), &first, &count) < 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
		T(test_numbered_in_order),
		T(test_lost_reply_asked_and_recovered),
		T(test_duplicate_fill_never_twice),
		T(test_probe_finds_last_reply),
		T(test_timeout_keeps_exposure),
		T(test_partial_fills),
		T(test_resend_request_codec),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
