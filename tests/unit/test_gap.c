// SPDX-License-Identifier: MIT
/*
 * Gap recovery through the engine (gateway/gap.h): packets after a loss are
 * held and the missing messages asked for in requests sized to one answer
 * packet; an answer that covers less than was asked leads at once to the
 * request for the rest; several holes are asked for at once; a full hold
 * area drops packets and asks for them too; only silence or an impossible
 * number makes the session stale.  Every message is decoded exactly once,
 * in order, and the orders are the strategy's.
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

#define N 400
#define MS 1000000ull

static struct gw_engine e;

/* One reply as the session hands it on; the decisions it makes, if any. */
static unsigned int engine_reply(const uint8_t *msg, size_t len)
{
	struct gw_decision d;

	return engine_on_reply(&e, msg, len, 0, 0, &d);
}
static uint8_t pkts[N][128];
static size_t lens[N];
static uint64_t seqs[N];
static uint32_t px[N];
static uint64_t want[N], got[2 * N];
static uint8_t got_flags[2 * N];
static unsigned int nwant, ngot;

static int setup_hold(uint32_t hold, bool with_directory)
{
	struct gw_cfg c;
	struct strat ref;
	char err[128];

	gw_cfg_defaults(&c);
	c.n_inst = 1;
	strcpy(c.inst[0].symbol, "AAPL");
	c.inst[0].length = 12;
	c.inst[0].unit = 100;
	c.orders.log_size = 1 << 12;
	c.tick_ring = 1 << 10;
	c.gap.hold = hold;
	c.book.max_orders = 1 << 12;
	c.gap.retry_ns = 10 * MS;
	c.gap.timeout_ns = 1000 * MS;
	c.gap.max_catchup_ns = 0;	/* trade every late tick: exact parity */
	c.gap.window = 4;
	if (engine_init(&e, &c, err, sizeof(err)))
		return -1;
	orders_session_up(&e.ord, 0);
	fx_begin("GAPS000001");
	if (with_directory) {
		uint8_t pkt[1500];
		struct gw_decision dec[GW_MAX_DECISIONS];

		engine_on_feed(&e, pkt, fx_directory(pkt, 5, "AAPL"), 1, 1, dec, 0);
	}
	gbm_series(11, px, N);
	strat_init(&ref, 12);
	nwant = ngot = 0;
	for (int t = 0; t < N; t++) {
		seqs[t] = fx_next_seq;
		lens[t] = fx_trade(pkts[t], 5, "AAPL", px[t]);
		if (strat_on_tick(&ref, px[t]))
			want[nwant++] = seqs[t];
	}
	return 0;
}

static int setup(void **state)
{
	(void)state;
	return setup_hold(512, true);
}

static int setup_small_hold(void **state)
{
	(void)state;
	return setup_hold(8, true);
}

static int teardown(void **state)
{
	(void)state;
	engine_destroy(&e);
	return 0;
}

/*
 * One packet into the engine, then what it made decodable of the held
 * ones; every order is filled at once.
 */
static void deliver(const uint8_t *pkt, size_t len, uint64_t now, unsigned int flags)
{
	struct gw_decision dec[GW_MAX_DECISIONS];
	uint8_t out[OUCH_ENTER_PKT_LEN], r[OUCH_REPLY_PKT_MAX];
	struct gw_order *rec;
	unsigned int nd = engine_on_feed(&e, pkt, len, now, now, dec, flags);
	bool more = true;

	do {
		for (unsigned int i = 0; i < nd; i++) {
			got_flags[ngot] = dec[i].flags;
			got[ngot++] = dec[i].md_seq;
			engine_build_order(&e, &dec[i], now, out, &rec);
			engine_reply(r, fx_reply(r, 'E', rec, rec->shares, rec->price));
		}
		more = gap_open(&e.gap) && engine_feed_held(&e, now, dec, &nd);
	} while (more);
}

/* An answer packet from the server: messages [from, from + n) packed. */
static size_t answer(uint8_t *buf, uint64_t from, unsigned int n)
{
	struct mold_builder b;
	int first = -1;

	for (int t = 0; t < N; t++)
		if (seqs[t] == from)
			first = t;
	assert_true(first >= 0);
	mold_builder_init(&b, buf, 1500, fx_session, from);
	for (unsigned int i = 0; i < n; i++) {
		uint8_t *m = mold_builder_reserve(&b, ITCH_LEN_P);

		assert_non_null(m);
		memcpy(m, pkts[first + i] + MOLD_HDR_LEN + MOLD_BLOCK_HDR_LEN, ITCH_LEN_P);
	}
	return mold_builder_finish(&b);
}

/*
 * Every message decoded once, in order; every strategy change either traded
 * at its tick or, with orders in flight, left to the next tick (which then
 * restores the position); nothing else traded.
 */
static void assert_every_order_once(void)
{
	unsigned int g = 0, u = 0, restores = 0;

	assert_false(gap_open(&e.gap));
	assert_false(e.gap.stale);
	assert_int_equal(e.dec.next_seq, seqs[N - 1] + 1);
	assert_int_equal(e.dec.cnt.gaps, 0);	/* nothing was ever skipped */
	for (unsigned int w = 0; w < nwant; w++) {
		while (g < ngot && got_flags[g] & ORDER_F_RESTORE) {
			restores++;
			g++;
		}
		if (g < ngot && got[g] == want[w]) {
			g++;
			continue;
		}
		assert_true(u < e.st.untraded);
		assert_int_equal(e.untraded[u].md_seq, want[w]);
		assert_int_equal(e.untraded[u].why, UNTRADED_COVERED);
		u++;
	}
	while (g < ngot && got_flags[g] & ORDER_F_RESTORE) {
		restores++;
		g++;
	}
	assert_int_equal(g, ngot);
	assert_int_equal(u, e.st.untraded);
	assert_int_equal(restores, e.st.restores);
	/*
	 * The position reaches the target, unless the last changes came while
	 * an order was in flight (covered) and no tick came after them to
	 * restore it.
	 */
	if (!e.st.untraded || e.untraded[e.st.untraded - 1].md_seq < got[ngot - 1])
		assert_int_equal(e.inst[0].pos_shares, inst_target(&e.inst[0]));
}

static void test_hold_and_catch_up(void **state)
{
	enum { FROM = 150, LOST = 5 };
	uint8_t buf[1500];
	uint64_t seq;
	uint16_t count;

	(void)state;
	for (int t = 0; t < N; t++)
		if (t < FROM || t >= FROM + LOST)
			deliver(pkts[t], lens[t], 100 + t, 0);
	/* Nothing after the loss was traded; the hole is asked for. */
	assert_true(gap_open(&e.gap));
	assert_int_equal(e.gap.st.held_pkts, N - FROM - LOST);
	assert_int_equal(e.dec.next_seq, seqs[FROM]);
	assert_true(engine_gap_request(&e, 600, &seq, &count));
	assert_int_equal(seq, seqs[FROM]);
	assert_int_equal(count, LOST);
	/* One request per hole: not asked again before the retry time. */
	assert_false(engine_gap_request(&e, 601, &seq, &count));
	deliver(buf, answer(buf, seqs[FROM], LOST), 700, ORDER_F_RETRANS);
	assert_every_order_once();
	assert_int_equal(e.gap.st.episodes, 1);
	assert_int_equal(e.gap.st.recovered, 1);
	assert_int_equal(e.gap.st.retrans_pkts, 1);
	assert_int_equal(e.gap.st.requests, 1);
	assert_true(e.gap.st.recovery_ns_max > 0);
}

/* A server that answers each request with one small packet. */
static void test_partial_answer_asks_rest_at_once(void **state)
{
	enum { FROM = 100, LOST = 50 };
	uint8_t buf[1500];
	uint64_t seq, now = 1000;
	uint16_t count;
	unsigned int asked = 0;

	(void)state;
	for (int t = 0; t < N; t++)
		if (t < FROM || t >= FROM + LOST)
			deliver(pkts[t], lens[t], 100 + t, 0);
	/* Each request is answered at once with only 7 of its messages. */
	while (engine_gap_request(&e, now, &seq, &count)) {
		unsigned int n = count < 7 ? count : 7;

		assert_true(count <= GAP_PER_REQ_MIN);
		asked++;
		deliver(buf, answer(buf, seq, n), now, ORDER_F_RETRANS);
		now += 1000;		/* 1 us later: far inside the retry time */
	}
	assert_int_equal(asked, (LOST + 6) / 7);
	assert_int_equal(e.gap.st.retries, 0);
	assert_every_order_once();
}

/* Several holes at once, within the window; an unanswered one is retried. */
static void test_window_and_retry(void **state)
{
	uint8_t buf[1500];
	uint64_t seq[8], s;
	uint16_t cnt[8], c;
	unsigned int n = 0;

	(void)state;
	for (int t = 0; t < N; t++)
		if (t % 40 != 20 || t > 300)		/* holes at 20, 60, ..., 300 */
			deliver(pkts[t], lens[t], 100 + t, 0);
	while (n < 8 && engine_gap_request(&e, 1000, &seq[n], &cnt[n]))
		n++;
	assert_int_equal(n, 4);				/* the window */
	for (unsigned int i = 0; i < n; i++) {
		assert_int_equal(seq[i], seqs[20 + 40 * i]);
		assert_int_equal(cnt[i], 1);
	}
	/* The second hole answered first: held, the first is still missing. */
	deliver(buf, answer(buf, seq[1], 1), 2000, ORDER_F_RETRANS);
	assert_int_equal(e.dec.next_seq, seqs[20]);
	/* Its slot in the window is free: the fifth hole is asked for. */
	assert_true(engine_gap_request(&e, 2000, &s, &c));
	assert_int_equal(s, seqs[180]);
	/* No answer to the first within the retry time: asked again. */
	assert_true(engine_gap_request(&e, 1000 + 10 * MS, &s, &c));
	assert_int_equal(s, seqs[20]);
	assert_true(e.gap.st.retries >= 1);
	for (int t = 20; t <= 300; t += 40)
		deliver(buf, answer(buf, seqs[t], 1), 20 * MS, ORDER_F_RETRANS);
	assert_every_order_once();
}

/*
 * The hold area overflows: packets dropped, asked for, recovered; the slots
 * kept for answers hold them.
 */
static void test_hold_overflow_recovers(void **state)
{
	uint8_t buf[1500];
	uint64_t seq, now = 1000;
	uint16_t count;

	(void)state;
	for (int t = 0; t < 100; t++)
		if (t != 50)
			deliver(pkts[t], lens[t], 100 + t, 0);
	/* Live packets fill the area but for the slots kept for answers. */
	assert_int_equal(e.gap.reserve, 2);
	assert_int_equal(e.gap.n_held, 8 - 2);
	assert_int_equal(e.gap.st.hold_dropped, 100 - 51 - 6);
	assert_false(e.gap.stale);
	for (int t = 100; t < N; t++)
		deliver(pkts[t], lens[t], 100 + t, 0);
	/* A server answering every request in full. */
	for (int guard = 0; guard < 100 && engine_gap_request(&e, now, &seq, &count); guard++) {
		deliver(buf, answer(buf, seq, count), now, ORDER_F_RETRANS);
		now += 1000;
	}
	assert_every_order_once();
}

/* The first packets of the session lost: the directory is asked for too. */
static void test_lost_session_start(void **state)
{
	struct gw_decision dec[GW_MAX_DECISIONS];
	uint8_t dir[1500], pkt[1500];
	uint64_t seq;
	uint16_t count;
	unsigned int nd;

	(void)state;
	engine_destroy(&e);
	setup_hold(16, false);
	fx_begin("LATE000001");
	size_t dlen = fx_directory(dir, 7, "AAPL");		/* seq 1: lost */
	size_t len = fx_trade(pkt, 7, "AAPL", 1000000);		/* seq 2 */

	assert_int_equal(engine_on_feed(&e, pkt, len, 1, 1, dec, 0), 0);
	assert_true(e.dec.last.new_session);
	assert_true(gap_open(&e.gap));
	assert_true(engine_gap_request(&e, 10, &seq, &count));
	assert_int_equal(seq, 1);
	assert_int_equal(count, 1);
	/* The retransmitted directory names AAPL before its first trade is decoded. */
	engine_on_feed(&e, dir, dlen, 20, 20, dec, ORDER_F_RETRANS);
	assert_int_equal(e.inst[0].locate, 7);
	assert_true(engine_feed_held(&e, 30, dec, &nd));
	assert_int_equal(e.inst[0].ticks, 1);
	assert_false(engine_feed_held(&e, 30, dec, &nd));
	assert_int_equal(e.gap.st.recovered, 1);
}

static void test_timeout_goes_stale(void **state)
{
	struct gw_decision dec[GW_MAX_DECISIONS];
	uint64_t seq;
	uint16_t count;
	unsigned int nd;

	(void)state;
	for (int t = 0; t < 50; t++)
		if (t != 30)
			deliver(pkts[t], lens[t], 100 + t, 0);
	assert_true(engine_gap_request(&e, 200, &seq, &count));
	/* The exchange never answers: retried, then stale after the timeout. */
	assert_true(engine_gap_request(&e, 200 + 10 * MS, &seq, &count));
	assert_false(engine_gap_request(&e, 200 + 1001 * MS, &seq, &count));
	assert_true(e.gap.stale);
	assert_int_equal(e.gap.st.timeouts, 1);
	assert_false(engine_gap_request(&e, 200 + 2000 * MS, &seq, &count));
	/* Stale: held packets decoded for the counters, never traded. */
	while (engine_feed_held(&e, 3000 * MS, dec, &nd))
		assert_int_equal(nd, 0);
	for (int t = 50; t < 100; t++)
		assert_int_equal(engine_on_feed(&e, pkts[t], lens[t], 1, 1, dec, 0), 0);
	assert_int_equal(e.st.ticks_stale, 69);
}

/* A heartbeat announcing a number far ahead can never be filled. */
static void test_far_heartbeat_goes_stale(void **state)
{
	uint8_t hb[MOLD_HDR_LEN];
	uint64_t seq;
	uint16_t count;

	(void)state;
	for (int t = 0; t < 10; t++)
		deliver(pkts[t], lens[t], 100 + t, 0);
	assert_true(feed_established(&e.dec));
	mold_encode_heartbeat(hb, sizeof(hb), fx_session, seqs[10] + 1000000);
	deliver(hb, sizeof(hb), 200, 0);
	assert_true(e.gap.stale);
	assert_int_equal(e.gap.st.too_far, 1);
	assert_false(engine_gap_request(&e, 300, &seq, &count));
	/* A near one is an ordinary hole. */
	engine_destroy(&e);
	setup_hold(512, true);
	for (int t = 0; t < 10; t++)
		deliver(pkts[t], lens[t], 100 + t, 0);
	mold_encode_heartbeat(hb, sizeof(hb), fx_session, seqs[13]);
	deliver(hb, sizeof(hb), 200, 0);
	assert_false(e.gap.stale);
	assert_true(engine_gap_request(&e, 300, &seq, &count));
	assert_int_equal(seq, seqs[10]);
	assert_int_equal(count, 3);
}

/* Lateness is the gateway's own clock: held too long, followed not traded. */
static void test_late_ticks_not_traded(void **state)
{
	struct gw_decision dec[GW_MAX_DECISIONS];
	uint8_t buf[1500];
	unsigned int nd, sent = 0;

	(void)state;
	e.gap.cfg.max_catchup_ns = 50 * MS;
	for (int t = 0; t < N; t++)
		if (t != 100)
			deliver(pkts[t], lens[t], 1000 + t, 0);
	/* The answer comes 80 ms after the loss was seen (first held: t=101). */
	nd = engine_on_feed(&e, buf, answer(buf, seqs[100], 1), 80 * MS, 80 * MS, dec,
			    ORDER_F_RETRANS);
	sent += nd;
	while (engine_feed_held(&e, 80 * MS, dec, &nd))
		sent += nd;
	assert_false(gap_open(&e.gap));
	/* Followed: the strategy saw every tick; traded: nothing. */
	assert_int_equal(e.inst[0].strat.hma.t, N);
	assert_int_equal(sent, 0);
	assert_int_equal(e.st.untraded_by[UNTRADED_LATE], nwant - ngot);
	assert_true(e.st.untraded_by[UNTRADED_LATE] > 5);
	/* The next live tick restores the strategy's position. */
	deliver(buf, fx_trade(buf, 5, "AAPL", px[N - 1]), 81 * MS, 0);
	assert_int_equal(e.inst[0].pos_shares, inst_target(&e.inst[0]));
}

/*
 * The same late-tick decisions whatever the feed stamps its messages with:
 * the exchange's time of day, the rig's monotonic clock, or a clock far
 * from both; only the gateway's own clock decides.
 */
static void test_lateness_ignores_feed_clock(void **state)
{
	static const uint64_t stamps[] = {
		34200000000000ull,	/* 09:30 as nanoseconds since midnight */
		80 * MS,		/* near the gateway's clock */
		(1ull << 48) - 1,	/* far from both */
	};
	uint64_t untraded[3];

	(void)state;
	for (int k = 0; k < 3; k++) {
		struct gw_decision dec[GW_MAX_DECISIONS];
		uint8_t buf[1500];
		unsigned int nd;

		engine_destroy(&e);
		fx_timestamp = stamps[k];
		setup_hold(512, true);
		e.gap.cfg.max_catchup_ns = 50 * MS;
		for (int t = 0; t < N; t++)
			if (t != 100)
				deliver(pkts[t], lens[t], 1000 + t, 0);
		engine_on_feed(&e, buf, answer(buf, seqs[100], 1), 80 * MS, 80 * MS, dec,
			       ORDER_F_RETRANS);
		while (engine_feed_held(&e, 80 * MS, dec, &nd))
			;
		untraded[k] = e.st.untraded_by[UNTRADED_LATE];
		assert_true(untraded[k] > 5);
	}
	fx_timestamp = 12345;
	assert_int_equal(untraded[0], untraded[1]);
	assert_int_equal(untraded[1], untraded[2]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
		T(test_hold_and_catch_up),
		T(test_partial_answer_asks_rest_at_once),
		T(test_window_and_retry),
		cmocka_unit_test_setup_teardown(test_hold_overflow_recovers, setup_small_hold,
						teardown),
		T(test_lost_session_start),
		T(test_timeout_goes_stale),
		T(test_far_heartbeat_goes_stale),
		T(test_late_ticks_not_traded),
		T(test_lateness_ignores_feed_clock),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
