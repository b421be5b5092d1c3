// SPDX-License-Identifier: MIT
/*
 * The gateway engine without a network: MoldUDP64 packets built with the
 * shared codec go in.  When the exchange fills every order, the orders that
 * come out must be exactly those of the strategy run directly on the same
 * prices (trigger seq, side, shares, limit), encoded as valid OUCH with a
 * token that names the triggering message.  When it does not, each order
 * is sized from the target and the exposure: what was not filled is made
 * up at the next tick, and the position never passes the target.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "gateway/engine_hot.h"
#include "proto/csum.h"
#include "strategy/gbm.h"
#include "tests/unit/feed_fixture.h"

#define NTICKS 3000

static struct gw_engine e;

/* The order the last reply let go (sizing on replies), built; NULL: none. */
static struct gw_order *made;

/* One reply as the session hands it on, and the order it makes, built. */
static unsigned int engine_reply(const uint8_t *msg, size_t len)
{
	uint8_t out[OUCH_ENTER_PKT_LEN];
	struct gw_decision d;
	unsigned int nd = engine_on_reply(&e, msg, len, 0, 0, &d);

	made = NULL;
	if (nd)
		engine_build_order(&e, &d, 0, out, &made);
	return nd;
}

static struct gw_cfg cfg(void)
{
	struct gw_cfg c;

	gw_cfg_defaults(&c);
	c.n_inst = 2;
	strcpy(c.inst[0].symbol, "AAPL");
	c.inst[0].length = 12;
	c.inst[0].unit = 100;
	strcpy(c.inst[1].symbol, "MSFT");
	c.inst[1].length = 30;
	c.inst[1].unit = 7;
	c.orders.log_size = 1 << 12;
	c.tick_ring = 1 << 10;
	c.gap.hold = 512;
	c.book.max_orders = 1 << 12;
	c.books = GW_BOOKS_ALL;		/* prints of every locate reach the engine */
	strcpy(c.orders.firm, "TEST");
	return c;
}

static int setup(void **state)
{
	struct gw_cfg c = cfg();
	char err[128];

	(void)state;
	fx_begin("TEST000001");
	if (engine_init(&e, &c, err, sizeof(err)))
		return -1;
	orders_session_up(&e.ord, 0);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	engine_destroy(&e);
	return 0;
}

/* The exchange answers an order: Accepted, then Executed or Canceled. */
static void answer(struct gw_order *o, char outcome)
{
	uint8_t r[OUCH_REPLY_PKT_MAX];

	engine_reply(r, fx_reply(r, 'A', o, 0, 0));
	engine_reply(r, fx_reply(r, outcome, o, o->shares, o->price));
}

/* Build the orders of one feed packet; returns how many. */
static unsigned int feed(const uint8_t *pkt, size_t len, uint64_t t,
			 struct gw_order **recs)
{
	struct gw_decision dec[GW_MAX_DECISIONS];
	uint8_t out[OUCH_ENTER_PKT_LEN];
	unsigned int nd = engine_on_feed(&e, pkt, len, t, t, dec, 0);

	for (unsigned int i = 0; i < nd; i++)
		engine_build_order(&e, &dec[i], t, out, &recs[i]);
	return nd;
}

static void test_orders_equal_strategy_when_filled(void **state)
{
	uint32_t px[NTICKS];
	struct strat ref;
	uint8_t pkt[1500], out[OUCH_ENTER_PKT_LEN];
	unsigned int want_orders = 0;
	struct gw_decision dec[GW_MAX_DECISIONS];

	(void)state;
	gbm_series(7, px, NTICKS);
	strat_init(&ref, 12);

	/* Before the directory names AAPL, its trades are nobody's. */
	size_t len = fx_trade(pkt, 5, "AAPL", 1000000);
	assert_int_equal(engine_on_feed(&e, pkt, len, 1, 1, dec, 0), 0);
	assert_int_equal(e.st.ticks, 1);
	assert_int_equal(e.st.unknown_locate, 1);
	assert_int_equal(e.st.ticks_ours, 0);

	len = fx_directory(pkt, 5, "AAPL");
	assert_int_equal(engine_on_feed(&e, pkt, len, 1, 1, dec, 0), 0);
	assert_int_equal(e.inst[0].locate, 5);
	len = fx_directory(pkt, 9, "IBM");
	engine_on_feed(&e, pkt, len, 1, 1, dec, 0);

	for (int t = 0; t < NTICKS; t++) {
		int chg = strat_on_tick(&ref, px[t]);
		unsigned int nd;
		uint64_t seq;

		/* Unconfigured IBM trades in between change nothing. */
		len = fx_trade(pkt, 9, "IBM", 5000);
		assert_int_equal(engine_on_feed(&e, pkt, len, 2, 2, dec, 0), 0);

		seq = fx_next_seq;
		len = fx_trade(pkt, 5, "AAPL", px[t]);
		nd = engine_on_feed(&e, pkt, len, 1000 + t, 1000 + t, dec, 0);
		assert_int_equal(nd, chg != 0);
		if (!nd)
			continue;
		want_orders++;
		assert_int_equal(dec[0].md_seq, seq);
		assert_int_equal(dec[0].flags, 0);
		assert_int_equal(dec[0].t_hook, 1000 + t);

		struct gw_order *rec;
		struct ouch_enter_order o;
		uint64_t tok_seq;
		uint32_t tok_no;
		uint64_t sum = engine_build_order(&e, &dec[0], 5, out, &rec);

		/* The sum it returns is the packet's own one's complement sum. */
		assert_int_equal(csum_fold(sum), csum_fold(csum_partial(out, sizeof(out), 0)));
		assert_int_equal(out[SOUP_OFF_TYPE], SOUP_UNSEQ_DATA);
		assert_int_equal(ouch_decode_enter_order(out + SOUP_HDR_LEN,
							 sizeof(out) - SOUP_HDR_LEN, &o),
				 OUCH_LEN_ENTER);
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
		answer(rec, 'E');
	}
	assert_true(want_orders > 10);
	assert_int_equal(e.ord.st.orders, want_orders);
	assert_int_equal(e.inst[0].orders, want_orders);
	assert_int_equal(e.inst[0].strat.sar.pos, ref.sar.pos);
	assert_int_equal(e.inst[0].pos_shares, ref.sar.pos * 100);
	assert_int_equal(e.inst[1].orders, 0);
	assert_int_equal(e.st.restores, 0);
}

/* Feed AAPL prices until the strategy wants an order; its record. */
static struct gw_order *until_order(const uint32_t *px, int n, int *t)
{
	struct gw_order *recs[GW_MAX_DECISIONS];
	uint8_t pkt[1500];

	for (; *t < n; (*t)++) {
		size_t len = fx_trade(pkt, 5, "AAPL", px[*t]);

		if (feed(pkt, len, 100 + *t, recs)) {
			(*t)++;
			return recs[0];
		}
	}
	return NULL;
}

static void test_unfilled_order_made_up_next_tick(void **state)
{
	struct gw_order *recs[GW_MAX_DECISIONS], *o, *again;
	uint32_t px[400];
	uint8_t pkt[1500];
	int t = 0;

	(void)state;
	gbm_series(3, px, 400);
	feed(pkt, fx_directory(pkt, 5, "AAPL"), 1, recs);
	o = until_order(px, 400, &t);
	assert_non_null(o);
	assert_int_equal(o->shares, 100);
	assert_int_equal(o->flags, 0);

	/* While it is open, the next ticks want nothing more. */
	assert_int_equal(feed(pkt, fx_trade(pkt, 5, "AAPL", px[t]), 200, recs), 0);
	t++;
	/* Canceled by the exchange: the next tick makes it up. */
	answer(o, 'C');
	assert_int_equal(e.inst[0].pos_shares, 0);
	assert_int_equal(feed(pkt, fx_trade(pkt, 5, "AAPL", px[t]), 300, recs), 1);
	again = recs[0];
	assert_int_equal(again->side, o->side);
	assert_int_equal(again->shares, 100);
	assert_true(again->flags & ORDER_F_RESTORE);
	assert_int_equal(e.st.restores, 1);
	answer(again, 'E');
	assert_int_equal(e.inst[0].pos_shares, inst_target(&e.inst[0]));
}

/*
 * A reversal while the entry is still open: the sell counts the open buy as
 * not filled (the position must not pass the target), and the rest follows
 * once the buy is known to have filled.
 */
static void test_reversal_with_open_order(void **state)
{
	struct gw_order *recs[GW_MAX_DECISIONS], *entry, *rev, *rest;
	uint32_t px[2000];
	uint8_t pkt[1500];
	int t = 0;

	(void)state;
	gbm_series(9, px, 2000);
	feed(pkt, fx_directory(pkt, 5, "AAPL"), 1, recs);
	entry = until_order(px, 2000, &t);
	assert_non_null(entry);
	rev = until_order(px, 2000, &t);		/* the entry never answered */
	assert_non_null(rev);
	assert_int_not_equal(rev->side, entry->side);
	assert_int_equal(rev->shares, 100);		/* the strategy's change is 200 */
	assert_true(rev->flags & ORDER_F_RESIZED);
	answer(entry, 'E');
	answer(rev, 'E');
	assert_int_equal(e.inst[0].pos_shares, 0);
	assert_int_equal(feed(pkt, fx_trade(pkt, 5, "AAPL", px[t]), 5000, recs), 1);
	rest = recs[0];
	assert_int_equal(rest->side, rev->side);
	assert_int_equal(rest->shares, 100);
	answer(rest, 'E');
	assert_int_equal(e.inst[0].pos_shares, inst_target(&e.inst[0]));
}

/*
 * A reversal while the previous order is in flight, covered by it (the
 * position and that order already make the new target, if it fills): the
 * change is listed untraded, and the fill's reply makes it up at once, at
 * the covered print, instead of at the next one.  A cancel that leaves
 * the target met makes nothing: no order on every reply.
 */
static void test_covered_change_trades_on_reply(void **state)
{
	struct gw_order *recs[GW_MAX_DECISIONS], *entry, *rev;
	uint32_t px[4000];
	uint8_t pkt[1500];
	uint64_t covered_seq = 0;
	int t = 0;

	(void)state;
	gbm_series(9, px, 4000);
	feed(pkt, fx_directory(pkt, 5, "AAPL"), 1, recs);
	entry = until_order(px, 4000, &t);
	answer(entry, 'E');					/* position one unit */
	assert_null(made);
	rev = until_order(px, 4000, &t);			/* two units the other way */
	assert_int_equal(rev->shares, 200);
	/* Ticks until the strategy turns back while rev is in flight: covered. */
	for (; t < 4000 && !covered_seq; t++) {
		uint64_t seq = fx_next_seq;
		uint64_t before = e.st.untraded_by[UNTRADED_COVERED];

		assert_int_equal(feed(pkt, fx_trade(pkt, 5, "AAPL", px[t]), 100 + t, recs), 0);
		if (e.st.untraded_by[UNTRADED_COVERED] != before)
			covered_seq = seq;
	}
	assert_true(covered_seq);
	assert_true(e.inst[0].covered);
	answer(rev, 'E');
	assert_non_null(made);
	assert_int_equal(made->md_seq, covered_seq);
	assert_int_equal(made->side, entry->side);
	assert_int_equal(made->shares, 200);
	assert_true(made->flags & ORDER_F_RESTORE);
	assert_true(made->flags & ORDER_F_ONREPLY);
	assert_int_equal(e.st.on_reply, 1);
	assert_false(e.inst[0].covered);
	/* Canceled: the target is not met, but nothing was covered: the next print trades. */
	answer(made, 'C');
	assert_null(made);
	answer(until_order(px, 4000, &t), 'E');
	assert_int_equal(e.inst[0].pos_shares, inst_target(&e.inst[0]));
}

/*
 * A covered change, then a later change that is not traded for another
 * reason (the session down): the later one supersedes it, and the reply
 * that ends the covering order makes nothing up at the old print.
 */
static void test_later_change_supersedes_a_covered_one(void **state)
{
	struct gw_order *recs[GW_MAX_DECISIONS], *rev;
	uint32_t px[4000];
	uint8_t pkt[1500];
	uint64_t before;
	int t = 0;

	(void)state;
	gbm_series(9, px, 4000);
	feed(pkt, fx_directory(pkt, 5, "AAPL"), 1, recs);
	answer(until_order(px, 4000, &t), 'E');
	rev = until_order(px, 4000, &t);
	for (; t < 4000 && !e.inst[0].covered; t++)
		feed(pkt, fx_trade(pkt, 5, "AAPL", px[t]), 100 + t, recs);
	assert_true(e.inst[0].covered);
	orders_session_down(&e.ord);
	before = e.st.untraded_by[UNTRADED_SESSION];
	for (; t < 4000 && e.st.untraded_by[UNTRADED_SESSION] == before; t++)
		feed(pkt, fx_trade(pkt, 5, "AAPL", px[t]), 100 + t, recs);
	assert_int_equal(e.st.untraded_by[UNTRADED_SESSION], before + 1);
	assert_false(e.inst[0].covered);
	orders_session_up(&e.ord, 0);
	answer(rev, 'E');
	assert_int_equal(e.st.on_reply, 0);
}

/* Whatever the exchange does with each order, the position stays in bounds. */
static void test_position_never_passes_target(void **state)
{
	struct gw_order *recs[GW_MAX_DECISIONS];
	struct gw_order *open[64];
	unsigned int nopen = 0;
	uint64_t rng = 12345;
	uint32_t px[NTICKS];
	uint8_t pkt[1500];

	(void)state;
	gbm_series(21, px, NTICKS);
	feed(pkt, fx_directory(pkt, 5, "AAPL"), 1, recs);
	for (int t = 0; t < NTICKS; t++) {
		unsigned int nd = feed(pkt, fx_trade(pkt, 5, "AAPL", px[t]), 10 + t, recs);

		for (unsigned int i = 0; i < nd && nopen < 64; i++)
			open[nopen++] = recs[i];
		/* Answer some open orders, in any order: fill, cancel or wait. */
		for (unsigned int i = 0; i < nopen;) {
			rng = rng * 6364136223846793005ull + 1442695040888963407ull;
			switch (rng >> 62) {
			case 0:
			case 1:
				answer(open[i], rng >> 62 ? 'C' : 'E');
				open[i] = open[--nopen];
				/* A reply that uncovers a change trades it at once. */
				if (made && nopen < 64)
					open[nopen++] = made;
				break;
			default:
				i++;
			}
		}
		const struct gw_inst *in = &e.inst[0];
		int64_t hi = in->pos_shares + e.ord.open_buy[0];
		int64_t lo = in->pos_shares - e.ord.open_sell[0];

		assert_true(hi <= 100 && lo >= -100);
	}
	while (nopen) {
		answer(open[--nopen], 'E');
		if (made)
			open[nopen++] = made;
	}
	feed(pkt, fx_trade(pkt, 5, "AAPL", px[NTICKS - 1]), 99999, recs);
	if (e.ord.open)
		answer(recs[0], 'E');
	assert_int_equal(e.inst[0].pos_shares, inst_target(&e.inst[0]));
	assert_true(e.st.restores > 10);
}

static void test_replies_account(void **state)
{
	struct gw_decision d = { .md_seq = 77, .limit = 1000000, .shares = 7, .side = 'B',
				 .inst = 1 };
	struct gw_order *buy, *sell, *rej;
	uint8_t out[OUCH_ENTER_PKT_LEN], r[OUCH_REPLY_PKT_MAX];

	(void)state;
	orders_reserve(&e.ord, &d);
	engine_build_order(&e, &d, 0, out, &buy);		/* buy 7 */
	d.md_seq = 78;
	d.side = 'S';
	d.shares = 14;
	orders_reserve(&e.ord, &d);
	engine_build_order(&e, &d, 0, out, &sell);		/* sell 14 */
	d.md_seq = 79;
	orders_reserve(&e.ord, &d);
	engine_build_order(&e, &d, 0, out, &rej);

	engine_reply(r, fx_reply(r, 'A', buy, 0, 0));
	assert_int_equal(buy->state, ORDER_ACCEPTED);
	engine_reply(r, fx_reply(r, 'E', buy, 7, 1000100));
	assert_int_equal(e.inst[1].pos_shares, 7);
	assert_int_equal(e.inst[1].cash, -7 * 1000100LL);
	engine_reply(r, fx_reply(r, 'E', sell, 14, 1000300));
	assert_int_equal(e.inst[1].pos_shares, -7);
	assert_int_equal(e.inst[1].cash, 7 * 1000300LL + 200 * 7LL);
	engine_reply(r, fx_reply(r, 'J', rej, 0, 0));
	assert_int_equal(rej->state, ORDER_REJECTED);
	assert_int_equal(e.ord.st.fills, 2);
	assert_int_equal(e.ord.st.rejects, 1);
	assert_int_equal(e.inst[1].rejects, 1);
	assert_int_equal(e.ord.open, 0);
	assert_int_equal(e.ord.open_sell[1], 0);

	/* A token for an order never sent, and garbage, are counted, not applied. */
	struct gw_order ghost = { .md_seq = 5, .order_no = 999, .side = 'B' };

	engine_reply(r, fx_reply(r, 'E', &ghost, 100, 1));
	assert_int_equal(e.ord.st.unknown_token, 1);
	engine_reply(r, 10);
	assert_int_equal(e.ord.st.bad_replies, 1);
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
	assert_int_equal(e.dec.cnt.other_session, 1);
	assert_int_equal(e.ord.st.orders, 0);
}

/*
 * A tick index of @px at which one print of @stray would turn the strategy
 * (run to that point on px), or -1.
 */
static int turning_point(const uint32_t *px, int n, uint32_t stray)
{
	struct strat ref, probe;

	strat_init(&ref, 12);
	for (int t = 0; t < n; t++) {
		strat_on_tick(&ref, px[t]);
		probe = ref;
		if (t > 30 && ref.sar.pos && strat_on_tick(&probe, stray))
			return t + 1;
	}
	return -1;
}

/* A price-0 print is no tick; a stray print cannot price an order. */
static void test_bad_and_stray_prints(void **state)
{
	static const uint32_t strays[] = { 1, 0xFFFFFFFFu };
	struct gw_order *recs[GW_MAX_DECISIONS];
	uint8_t pkt[1500];
	uint32_t px[2000];

	(void)state;
	feed(pkt, fx_directory(pkt, 5, "AAPL"), 1, recs);
	assert_int_equal(feed(pkt, fx_trade(pkt, 5, "AAPL", 0), 2, recs), 0);
	assert_int_equal(e.st.bad_price, 1);
	assert_int_equal(e.inst[0].ticks, 0);
	assert_int_equal(e.st.ticks_ours, 0);

	gbm_series(4, px, 2000);
	for (unsigned int k = 0; k < 2; k++) {
		int at = turning_point(px, 2000, strays[k]);
		uint64_t refused = e.risk.refused[RISK_PRICE_RANGE] + e.risk.refused[RISK_COLLAR];
		unsigned int nd;

		assert_true(at > 0);
		engine_destroy(&e);
		setup(NULL);
		feed(pkt, fx_directory(pkt, 5, "AAPL"), 1, recs);
		for (int t = 0; t < at; t++) {
			nd = feed(pkt, fx_trade(pkt, 5, "AAPL", px[t]), 10 + t, recs);
			for (unsigned int i = 0; i < nd; i++)
				answer(recs[i], 'E');
		}
		assert_int_not_equal(e.inst[0].pos_shares, 0);
		/* The stray print turns the strategy, but no order prices off it. */
		refused = e.risk.refused[RISK_PRICE_RANGE] + e.risk.refused[RISK_COLLAR];
		nd = feed(pkt, fx_trade(pkt, 5, "AAPL", strays[k]), 5000, recs);
		assert_int_not_equal(inst_target(&e.inst[0]), e.inst[0].pos_shares);
		assert_int_equal(nd, 0);
		assert_int_equal(e.risk.refused[RISK_PRICE_RANGE] + e.risk.refused[RISK_COLLAR],
				 refused + 1);
	}
}

/* What the sink saw when it was called: the order, and the book then. */
static struct {
	unsigned int calls;
	struct gw_decision d;
	uint64_t adds_applied;		/* 'A' messages the decoder had applied */
	bool had_bid;			/* AAPL's book had a bid */
} sunk;

static void sink(void *ctx, const struct gw_decision *d, unsigned int n, uint64_t t_seen)
{
	(void)ctx;
	(void)t_seen;
	assert_int_equal(n, 1);
	sunk.calls++;
	sunk.d = d[0];
	sunk.adds_applied = e.dec.cnt.by_type['A'];
	sunk.had_bid = book_best(e.book, 5, BOOK_BID) != NULL;
}

/*
 * With a sink, a print's order leaves at the print: before the messages
 * behind it in its packet are applied, on the book as it stood then.
 */
static void test_decides_at_print(void **state)
{
	struct gw_decision dec[GW_MAX_DECISIONS];
	uint32_t px[NTICKS];
	struct strat ref;
	uint8_t pkt[1500];
	struct mold_builder b;
	size_t len;
	int t;

	(void)state;
	memset(&sunk, 0, sizeof(sunk));
	assert_int_equal(engine_set_sink(&e, sink, NULL), 0);
	gbm_series(11, px, NTICKS);
	strat_init(&ref, 12);
	len = fx_directory(pkt, 5, "AAPL");
	engine_on_feed(&e, pkt, len, 1, 1, dec, 0);

	/* The ticks before the first change: one a packet, no order. */
	for (t = 0; t < NTICKS && !strat_on_tick(&ref, px[t]); t++) {
		len = fx_trade(pkt, 5, "AAPL", px[t]);
		assert_int_equal(engine_on_feed(&e, pkt, len, 2, 2, dec, 0), 0);
	}
	assert_true(t < NTICKS);
	assert_int_equal(sunk.calls, 0);

	/* The changing print first, then a bid added behind it. */
	struct itch_msg p = { .type = 'P', .locate = 5, .timestamp = fx_timestamp };
	struct itch_msg a = { .type = 'A', .locate = 5, .timestamp = fx_timestamp };
	uint64_t seq = fx_next_seq;

	p.p.side = 'B';
	p.p.shares = 100;
	fx_sym8(p.p.stock, "AAPL");
	p.p.price = px[t];
	a.a.order_ref = 77;
	a.a.side = 'B';
	a.a.shares = 300;
	fx_sym8(a.a.stock, "AAPL");
	a.a.price = px[t] - 100;
	mold_builder_init(&b, pkt, sizeof(pkt), fx_session, fx_next_seq);
	mold_builder_append_itch(&b, &p);
	mold_builder_append_itch(&b, &a);
	fx_next_seq += 2;
	len = mold_builder_finish(&b);

	assert_int_equal(engine_on_feed(&e, pkt, len, 3000, 3001, dec, 0), 0);
	assert_int_equal(sunk.calls, 1);
	assert_int_equal(sunk.d.md_seq, seq);
	assert_int_equal(sunk.d.t_hook, 3000);
	assert_int_equal(sunk.adds_applied, 0);
	assert_false(sunk.had_bid);
	/* The packet was walked whole all the same. */
	assert_int_equal(e.dec.cnt.by_type['A'], 1);
	assert_non_null(book_best(e.book, 5, BOOK_BID));
	assert_int_equal(e.dec.next_seq, seq + 2);

	/* Without the sink, the order comes back after the packet again. */
	assert_int_equal(engine_set_sink(&e, NULL, NULL), 0);
	for (t++; t < NTICKS; t++) {
		int chg = strat_on_tick(&ref, px[t]);

		len = fx_trade(pkt, 5, "AAPL", px[t]);
		if (engine_on_feed(&e, pkt, len, 4, 4, dec, 0)) {
			assert_true(chg != 0);
			break;
		}
	}
	assert_true(t < NTICKS);
	assert_int_equal(sunk.calls, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
		T(test_orders_equal_strategy_when_filled),
		T(test_unfilled_order_made_up_next_tick),
		T(test_reversal_with_open_order),
		T(test_covered_change_trades_on_reply),
		T(test_later_change_supersedes_a_covered_one),
		T(test_position_never_passes_target),
		T(test_replies_account),
		T(test_malformed_feed_is_counted),
		T(test_bad_and_stray_prints),
		T(test_decides_at_print),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
