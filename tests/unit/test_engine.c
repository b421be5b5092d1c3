// SPDX-License-Identifier: MIT
/*
 * The gateway engine without a network: MoldUDP64 packets built with the
 * shared codec go in; the orders that come out must be exactly those of the
 * strategy run directly on the same prices (trigger seq, side, shares, limit),
 * encoded as valid OUCH with a token that names the triggering message; the
 * exchange's replies must move position and cash as the fills say.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "gateway/engine.h"
#include "proto/csum.h"
#include "proto/itch.h"
#include "proto/moldudp64.h"
#include "strategy/gbm.h"

#define NTICKS 3000

static struct gw_engine e;
static char session[MOLD_SESSION_LEN];
static uint64_t next_seq = 1;

static struct gw_cfg cfg(void)
{
	struct gw_cfg c = { 0 };

	c.n_inst = 2;
	strcpy(c.inst[0].symbol, "AAPL");
	c.inst[0].length = 12;
	c.inst[0].unit = 100;
	strcpy(c.inst[1].symbol, "MSFT");
	c.inst[1].length = 30;
	c.inst[1].unit = 7;
	c.limit_bp = 10;
	c.order_log = 1 << 12;
	c.tick_ring = 1 << 10;
	c.hold_slots = 512;
	c.gap_retry_ns = 1000;
	c.gap_timeout_ns = 1000000;
	c.order_timeout_ns = 5000;
	strcpy(c.firm, "TEST");
	return c;
}

static void sym8(char dst[8], const char *s)
{
	memset(dst, ' ', 8);
	memcpy(dst, s, strlen(s));
}

/* One packet with one message; returns its length. */
static size_t pkt_one(uint8_t *buf, const struct itch_msg *m)
{
	struct mold_builder b;

	assert_int_equal(mold_builder_init(&b, buf, 1500, session, next_seq), 0);
	assert_true(mold_builder_append_itch(&b, m) > 0);
	next_seq++;
	return mold_builder_finish(&b);
}

static size_t pkt_directory(uint8_t *buf, uint16_t locate, const char *sym)
{
	struct itch_msg m = { .type = 'R', .locate = locate };

	sym8(m.r.stock, sym);
	m.r.market_category = 'Q';
	m.r.financial_status = 'N';
	m.r.round_lot_size = 100;
	m.r.round_lots_only = 'N';
	m.r.issue_classification = 'C';
	m.r.issue_subtype[0] = 'Z';
	m.r.issue_subtype[1] = ' ';
	m.r.authenticity = 'P';
	m.r.short_sale_threshold = 'N';
	m.r.ipo_flag = 'N';
	m.r.luld_tier = '1';
	m.r.etp_flag = 'N';
	m.r.inverse = 'N';
	return pkt_one(buf, &m);
}

static size_t pkt_trade(uint8_t *buf, uint16_t locate, const char *sym,
			uint32_t price)
{
	struct itch_msg m = { .type = 'P', .locate = locate, .timestamp = 12345 };

	m.p.side = 'B';
	m.p.shares = 100;
	sym8(m.p.stock, sym);
	m.p.price = price;
	m.p.match = next_seq;
	return pkt_one(buf, &m);
}

static int setup(void **state)
{
	struct gw_cfg c = cfg();
	char err[128];

	(void)state;
	mold_session_set(session, "TEST000001");
	next_seq = 1;
	return engine_init(&e, &c, err, sizeof(err));
}

static int teardown(void **state)
{
	(void)state;
	engine_destroy(&e);
	return 0;
}

static void test_orders_equal_strategy(void **state)
{
	uint32_t px[NTICKS];
	struct strat ref;
	uint8_t pkt[1500], out[OUCH_ENTER_DGRAM_LEN];
	unsigned int want_orders = 0;
	struct gw_decision dec[GW_MAX_DECISIONS];

	(void)state;
	gbm_series(7, px, NTICKS);
	strat_init(&ref, 12);

	/* Before the directory names AAPL, its trades are not ours. */
	size_t len = pkt_trade(pkt, 5, "AAPL", 1000000);
	assert_int_equal(engine_on_feed(&e, pkt, len, 1, 1, dec, 0), 0);
	assert_int_equal(e.st.ticks, 1);
	assert_int_equal(e.st.ticks_ours, 0);

	len = pkt_directory(pkt, 5, "AAPL");
	assert_int_equal(engine_on_feed(&e, pkt, len, 1, 1, dec, 0), 0);
	assert_int_equal(e.inst[0].locate, 5);
	len = pkt_directory(pkt, 9, "IBM");
	engine_on_feed(&e, pkt, len, 1, 1, dec, 0);

	for (int t = 0; t < NTICKS; t++) {
		uint64_t seq = next_seq;
		int chg = strat_on_tick(&ref, px[t]);
		unsigned int nd;

		/* Unconfigured IBM trades in between change nothing. */
		len = pkt_trade(pkt, 9, "IBM", 5000);
		assert_int_equal(engine_on_feed(&e, pkt, len, 2, 2, dec, 0), 0);

		seq = next_seq;
		len = pkt_trade(pkt, 5, "AAPL", px[t]);
		nd = engine_on_feed(&e, pkt, len, 1000 + t, 1000 + t, dec, 0);
		assert_int_equal(nd, chg != 0);
		if (!nd)
			continue;
		want_orders++;
		assert_int_equal(dec[0].md_seq, seq);
		assert_int_equal(dec[0].change, chg);
		assert_int_equal(dec[0].t_hook, 1000 + t);

		struct gw_order *rec;
		struct ouch_enter_order o;
		uint64_t tok_seq;
		uint32_t tok_no;

		uint64_t sum = engine_build_order(&e, &dec[0], 5, out, &rec);

		/* The sum it returns is the datagram's own one's complement sum. */
		assert_int_equal(csum_fold(sum), csum_fold(csum_partial(out, sizeof(out), 0)));
		assert_int_equal(ouch_decode_enter_order(out, sizeof(out), &o),
				 OUCH_ENTER_DGRAM_LEN);
		assert_int_equal(order_token_decode(o.token, &tok_seq, &tok_no), 0);
		assert_int_equal(tok_seq, seq);
		assert_int_equal(tok_no, want_orders - 1);
		assert_int_equal(o.side, chg > 0 ? 'B' : 'S');
		assert_int_equal(o.shares, (uint32_t)(chg < 0 ? -chg : chg) * 100);
		assert_memory_equal(o.stock, "AAPL    ", 8);
		assert_memory_equal(o.firm, "TEST", 4);
		assert_int_equal(o.tif, OUCH_TIF_IOC);
		/* IOC limit 10 bp through the trigger price. */
		assert_int_equal(o.price, chg > 0 ? px[t] + px[t] / 1000 : px[t] - px[t] / 1000);
		assert_int_equal(rec->md_seq, seq);
		assert_int_equal(rec->side, o.side);
	}
	assert_true(want_orders > 10);
	assert_int_equal(e.st.orders, want_orders);
	assert_int_equal(e.inst[0].orders, want_orders);
	assert_int_equal(e.inst[0].strat.sar.pos, ref.sar.pos);
	assert_int_equal(e.inst[1].orders, 0);
}

static size_t reply(uint8_t *buf, char type, const struct gw_order *o,
		    uint32_t shares, uint32_t price)
{
	struct ouch_reply r = { .type = type, .timestamp = 1 };
	int len;

	order_token_encode(r.token, o->md_seq, o->order_no);
	if (type == 'E') {
		r.executed.shares = shares;
		r.executed.price = price;
		r.executed.liquidity = 'R';
		r.executed.match = 1;
	} else if (type == 'C') {
		r.canceled.decrement = shares;
		r.canceled.reason = 'I';
	} else if (type == 'J') {
		r.rejected.reason = 'S';
	} else {
		r.accepted.side = o->side;
		r.accepted.shares = o->shares;
		r.accepted.price = o->price;
	}
	len = ouch_encode_reply(buf, 128, &r);
	assert_true(len > 0);
	return (size_t)len;
}

static void test_replies_account(void **state)
{
	struct gw_decision d = { .md_seq = 77, .price = 1000000, .limit = 1000000,
				 .shares = 7, .change = 1, .inst = 1 };
	struct gw_order *buy, *sell, *rej;
	uint8_t out[OUCH_ENTER_DGRAM_LEN], r[128];
	size_t n;

	(void)state;
	engine_build_order(&e, &d, 0, out, &buy);		/* buy 7 */
	d.md_seq = 78;
	d.change = -2;
	d.shares = 14;
	engine_build_order(&e, &d, 0, out, &sell);		/* sell 14 */
	d.md_seq = 79;
	engine_build_order(&e, &d, 0, out, &rej);

	n = reply(r, 'A', buy, 0, 0);
	engine_on_reply(&e, r, n);
	assert_int_equal(buy->state, GW_ORDER_ACCEPTED);
	n = reply(r, 'E', buy, 7, 1000100);
	engine_on_reply(&e, r, n);
	assert_int_equal(e.inst[1].pos_shares, 7);
	assert_int_equal(e.inst[1].cash, -7 * 1000100LL);
	n = reply(r, 'E', sell, 14, 1000300);
	engine_on_reply(&e, r, n);
	assert_int_equal(e.inst[1].pos_shares, -7);
	assert_int_equal(e.inst[1].cash, 7 * 1000300LL + 200 * 7LL);
	n = reply(r, 'J', rej, 0, 0);
	engine_on_reply(&e, r, n);
	assert_int_equal(rej->state, GW_ORDER_REJECTED);
	assert_int_equal(e.st.fills, 2);
	assert_int_equal(e.st.rejects, 1);

	/* A token for an order never sent, and garbage, are counted, not applied. */
	struct gw_order ghost = { .md_seq = 5, .order_no = 999, .side = 'B' };

	n = reply(r, 'E', &ghost, 100, 1);
	engine_on_reply(&e, r, n);
	assert_int_equal(e.st.unknown_token, 1);
	engine_on_reply(&e, r, 10);
	assert_int_equal(e.st.bad_replies, 1);
	assert_int_equal(e.inst[1].pos_shares, -7);
}

static void test_malformed_feed_is_counted(void **state)
{
	struct gw_decision dec[GW_MAX_DECISIONS];
	uint8_t junk[64];

	(void)state;
	memset(junk, 0xAB, sizeof(junk));
	assert_int_equal(engine_on_feed(&e, junk, 7, 1, 1, dec, 0), 0);
	assert_int_equal(e.dec.cnt.short_packet, 1);
	assert_int_equal(engine_on_feed(&e, junk, sizeof(junk), 1, 1, dec, 0), 0);
	assert_int_equal(e.st.orders, 0);
}

/* Gap: later packets held, range re-requested, retransmission then catch-up in order. */
static void test_gap_hold_and_catch_up(void **state)
{
	enum { N = 400, LOST_FROM = 150, LOST_N = 5 };
	static uint8_t pkts[N][128];
	size_t lens[N];
	uint32_t px[N];
	uint64_t seqs[N], want[N], got[N];
	unsigned int nwant = 0, ngot = 0;
	struct gw_decision dec[GW_MAX_DECISIONS];
	struct strat ref;
	uint8_t pkt[1500];
	const uint8_t *hp;
	size_t hl;
	uint64_t ht, rseq;
	uint16_t rcount;

	(void)state;
	engine_on_feed(&e, pkt, pkt_directory(pkt, 5, "AAPL"), 1, 1, dec, 0);
	gbm_series(11, px, N);
	strat_init(&ref, 12);
	for (int t = 0; t < N; t++) {
		seqs[t] = next_seq;
		lens[t] = pkt_trade(pkts[t], 5, "AAPL", px[t]);
		if (strat_on_tick(&ref, px[t]))
			want[nwant++] = seqs[t];
	}
	for (int t = 0; t < N; t++) {
		unsigned int nd;

		if (t >= LOST_FROM && t < LOST_FROM + LOST_N)
			continue;			/* lost on the wire */
		nd = engine_on_feed(&e, pkts[t], lens[t], 100 + t, 100 + t, dec, 0);
		for (unsigned int i = 0; i < nd; i++)
			got[ngot++] = dec[i].md_seq;
	}
	/* Nothing after the gap was traded; the range is asked for once. */
	assert_true(gap_open(&e.gap));
	assert_int_equal(e.gap.held_pkts, N - LOST_FROM - LOST_N);
	assert_int_equal(e.dec.next_seq, seqs[LOST_FROM]);
	assert_true(engine_gap_poll(&e, 600, &rseq, &rcount));
	/* Everything from the first missing message up to the last held packet. */
	assert_int_equal(rseq, seqs[LOST_FROM]);
	assert_int_equal(rcount, seqs[N - 1] - seqs[LOST_FROM]);
	assert_false(engine_gap_poll(&e, 600, &rseq, &rcount));	/* retry interval */
	assert_true(engine_gap_poll(&e, 600 + 1000, &rseq, &rcount));

	/* The retransmission out of order: the later one is refused, then asked again. */
	assert_int_equal(engine_on_feed(&e, pkts[LOST_FROM + 1], lens[LOST_FROM + 1], 700, 700,
					dec, GW_F_RETRANS), 0);
	assert_int_equal(e.gap.retrans_ahead, 1);
	for (int t = LOST_FROM; t < LOST_FROM + LOST_N; t++) {
		unsigned int nd = engine_on_feed(&e, pkts[t], lens[t], 800, 800, dec, GW_F_RETRANS);

		for (unsigned int i = 0; i < nd; i++)
			got[ngot++] = dec[i].md_seq;
	}
	while (engine_next_held(&e, 900, &hp, &hl, &ht)) {
		unsigned int nd = engine_on_feed(&e, hp, hl, ht, 900, dec, GW_F_CATCHUP);

		for (unsigned int i = 0; i < nd; i++) {
			assert_true(dec[i].flags & GW_F_CATCHUP);
			got[ngot++] = dec[i].md_seq;
		}
	}
	assert_false(gap_open(&e.gap));
	assert_int_equal(e.gap.filled, 1);
	assert_int_equal(e.gap.retrans_pkts, LOST_N);
	assert_int_equal(e.dec.next_seq, seqs[N - 1] + 1);
	/* Every tick once, in order: the orders are the strategy's, exactly. */
	assert_int_equal(ngot, nwant);
	assert_memory_equal(got, want, nwant * sizeof(want[0]));
	assert_int_equal(e.dec.cnt.gaps, 0);
}

/* Late ticks older than max_catchup: the strategy follows, no order leaves. */
static void test_late_ticks_not_traded(void **state)
{
	struct gw_decision dec[GW_MAX_DECISIONS];
	struct strat ref;
	uint8_t pkt[1500];
	uint32_t px[200];
	unsigned int sent = 0, wanted = 0;

	(void)state;
	e.max_catchup_ns = 1000;
	engine_on_feed(&e, pkt, pkt_directory(pkt, 5, "AAPL"), 1, 1, dec, 0);
	gbm_series(5, px, 200);
	strat_init(&ref, 12);
	for (int t = 0; t < 200; t++) {
		size_t len = pkt_trade(pkt, 5, "AAPL", px[t]);	/* ITCH ts 12345 */

		wanted += strat_on_tick(&ref, px[t]) != 0;
		/* Decoded at 12345 + 500 (fresh) for the first half, + 5000 after. */
		sent += engine_on_feed(&e, pkt, len, 1, 12345 + (t < 100 ? 500 : 5000), dec,
				       GW_F_CATCHUP);
	}
	assert_true(wanted > 20);
	assert_int_equal(sent + e.st.catchup_suppressed, wanted);
	assert_true(e.st.catchup_suppressed > 5);
	assert_int_equal(e.inst[0].strat.sar.pos, ref.sar.pos);
}

/* The first packets of the session lost: the directory is asked for too. */
static void test_lost_session_start(void **state)
{
	struct gw_decision dec[GW_MAX_DECISIONS];
	uint8_t dir[1500], pkt[1500];
	size_t dlen, len;
	uint64_t rseq;
	uint16_t rcount;
	const uint8_t *hp;
	size_t hl;
	uint64_t ht;

	(void)state;
	dlen = pkt_directory(dir, 5, "AAPL");			/* seq 1: lost */
	len = pkt_trade(pkt, 5, "AAPL", 1000000);		/* seq 2 */
	assert_int_equal(engine_on_feed(&e, pkt, len, 1, 1, dec, 0), 0);
	assert_true(gap_open(&e.gap));
	assert_true(engine_gap_poll(&e, 10, &rseq, &rcount));
	assert_int_equal(rseq, 1);
	assert_int_equal(rcount, 1);
	/* The retransmitted directory names AAPL before its first trade is decoded. */
	engine_on_feed(&e, dir, dlen, 20, 20, dec, GW_F_RETRANS);
	assert_int_equal(e.inst[0].locate, 5);
	assert_true(engine_next_held(&e, 30, &hp, &hl, &ht));
	engine_on_feed(&e, hp, hl, ht, 30, dec, GW_F_CATCHUP);
	assert_int_equal(e.inst[0].ticks, 1);
	assert_int_equal(e.gap.filled, 1);
}

static void test_gap_timeout_goes_stale(void **state)
{
	struct gw_decision dec[GW_MAX_DECISIONS];
	uint8_t pkt[1500], later[1500];
	const uint8_t *hp;
	size_t len, hl;
	uint64_t ht, rseq;
	uint16_t rcount;
	uint32_t px = 1000000;

	(void)state;
	engine_on_feed(&e, pkt, pkt_directory(pkt, 5, "AAPL"), 1, 1, dec, 0);
	next_seq++;					/* one message lost */
	len = pkt_trade(later, 5, "AAPL", px);
	assert_int_equal(engine_on_feed(&e, later, len, 10, 10, dec, 0), 0);
	assert_true(engine_gap_poll(&e, 20, &rseq, &rcount));
	assert_false(engine_gap_poll(&e, 10 + 1000001, &rseq, &rcount));
	assert_true(e.gap.stale);
	assert_int_equal(e.gap.timeouts, 1);
	/* Stale: the held packet is decoded for the counters, never traded. */
	assert_true(engine_next_held(&e, 2000000, &hp, &hl, &ht));
	assert_int_equal(engine_on_feed(&e, hp, hl, ht, 2000000, dec, GW_F_CATCHUP), 0);
	for (int i = 0; i < 100; i++, px += 1000) {
		len = pkt_trade(pkt, 5, "AAPL", px);
		assert_int_equal(engine_on_feed(&e, pkt, len, 3000000, 3000000, dec, 0), 0);
	}
	assert_int_equal(e.st.orders, 0);
	assert_int_equal(e.st.ticks_stale, 101);
}

static void test_other_session_dropped(void **state)
{
	struct gw_decision dec[GW_MAX_DECISIONS];
	uint8_t pkt[1500];
	size_t len;

	(void)state;
	engine_on_feed(&e, pkt, pkt_directory(pkt, 5, "AAPL"), 1, 1, dec, 0);
	mold_session_set(session, "INTRUDER01");
	len = pkt_trade(pkt, 5, "AAPL", 1000000);
	assert_int_equal(engine_on_feed(&e, pkt, len, 1, 1, dec, 0), 0);
	assert_int_equal(e.st.other_session, 1);
	assert_int_equal(e.st.ticks, 0);
	assert_int_equal(e.dec.cnt.session_changes, 0);
}

/* Each limit refuses the order that would break it, and counts it. */
static void test_risk_limits(void **state)
{
	struct gw_inst *in = &e.inst[0];
	struct gw_decision d;
	uint8_t out[OUCH_ENTER_DGRAM_LEN];
	struct gw_order *rec;

	(void)state;
	in->last_price = 1000000;
	e.limit_bp = 10;

	e.risk = (struct gw_risk_cfg){ .max_order = 150 };
	assert_true(engine_decide(&e, in, 0, 1, 1000000, 0, 0, &d));	/* 100 */
	assert_false(engine_decide(&e, in, 0, -2, 1000000, 0, 0, &d));	/* 200 */
	assert_int_equal(e.st.risk[RISK_MAX_ORDER], 1);

	e.risk = (struct gw_risk_cfg){ .max_pos = 250 };
	in->pos_shares = 100;
	assert_true(engine_decide(&e, in, 0, 1, 1000000, 0, 0, &d));	/* to 200 */
	engine_build_order(&e, &d, 0, out, &rec);			/* open: +100 */
	assert_false(engine_decide(&e, in, 0, 1, 1000000, 0, 0, &d));	/* worst 300 */
	assert_true(engine_decide(&e, in, 0, -2, 1000000, 0, 0, &d));	/* worst -100 */
	assert_int_equal(e.st.risk[RISK_MAX_POS], 1);

	e.risk = (struct gw_risk_cfg){ .collar_bp = 5 };
	assert_false(engine_decide(&e, in, 0, 1, 1000000, 0, 0, &d));	/* limit +10 bp */
	e.limit_bp = 5;
	assert_true(engine_decide(&e, in, 0, 1, 1000000, 0, 0, &d));
	assert_false(engine_decide(&e, in, 0, 1, 1010000, 0, 0, &d));	/* trigger 1% away */
	assert_int_equal(e.st.risk[RISK_COLLAR], 2);

	e.risk = (struct gw_risk_cfg){ .max_open = 1 };			/* one is open */
	assert_false(engine_decide(&e, in, 0, 1, 1000000, 0, 0, &d));
	assert_int_equal(e.st.risk[RISK_MAX_OPEN], 1);

	/* 1000 orders/s, burst 2: two at once, the third 1 ms later. */
	e.risk = (struct gw_risk_cfg){ .max_rate = 1000, .burst = 2 };
	e.order_cost_ns = 1000000;
	e.credit_ns = 2 * e.order_cost_ns;
	e.credit_at = 5000000;
	assert_true(engine_decide(&e, in, 0, 1, 1000000, 0, 5000000, &d));
	assert_true(engine_decide(&e, in, 0, 1, 1000000, 0, 5000000, &d));
	assert_false(engine_decide(&e, in, 0, 1, 1000000, 0, 5500000, &d));
	assert_true(engine_decide(&e, in, 0, 1, 1000000, 0, 6000000, &d));
	assert_int_equal(e.st.risk[RISK_RATE], 1);

	e.risk = (struct gw_risk_cfg){ 0 };
	e.killed = 1;
	assert_false(engine_decide(&e, in, 0, 1, 1000000, 0, 0, &d));
	assert_int_equal(e.st.risk[RISK_KILLED], 1);
}

static void test_order_timeout(void **state)
{
	struct gw_decision d = { .md_seq = 9, .price = 1000000, .limit = 1000000,
				 .shares = 100, .change = 1, .inst = 0 };
	uint8_t out[OUCH_ENTER_DGRAM_LEN], r[128];
	struct gw_order *o;

	(void)state;
	engine_build_order(&e, &d, 0, out, &o);
	o->t_sent = 1000;
	assert_int_equal(e.open_orders, 1);
	engine_expire_orders(&e, 999);		/* a clock read from before the send */
	assert_int_equal(o->state, GW_ORDER_SENT);
	engine_expire_orders(&e, 1000 + 4999);
	assert_int_equal(o->state, GW_ORDER_SENT);
	engine_expire_orders(&e, 1000 + 5000);
	assert_int_equal(o->state, GW_ORDER_TIMED_OUT);
	assert_int_equal(e.st.timeouts, 1);
	assert_int_equal(e.open_orders, 0);
	assert_int_equal(e.inst[0].open_buy, 0);
	/* The exchange answers after all: the fill is applied, counted late. */
	engine_on_reply(&e, r, reply(r, 'E', o, 100, 1000000));
	assert_int_equal(e.st.late_replies, 1);
	assert_int_equal(e.inst[0].pos_shares, 100);
	assert_int_equal(e.open_orders, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_orders_equal_strategy, setup, teardown),
		cmocka_unit_test_setup_teardown(test_replies_account, setup, teardown),
		cmocka_unit_test_setup_teardown(test_malformed_feed_is_counted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_gap_hold_and_catch_up, setup, teardown),
		cmocka_unit_test_setup_teardown(test_late_ticks_not_traded, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lost_session_start, setup, teardown),
		cmocka_unit_test_setup_teardown(test_gap_timeout_goes_stale, setup, teardown),
		cmocka_unit_test_setup_teardown(test_other_session_dropped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_risk_limits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_order_timeout, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
