// SPDX-License-Identifier: MIT
/*
 * Feed decoder: ticks into the SoA ring, stock directory, sequence tracking
 * (gaps, duplicates, overlaps, heartbeats, end of session, new sessions) and
 * every malformed class with its counter, each followed by a good packet to
 * show the stream goes on.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "book/book.h"
#include "proto/be.h"
#include "book/feed_decoder.h"
#include "proto/itch.h"
#include "proto/moldudp64.h"

#define ARRIVAL 777000111ull

static uint8_t pkt[2048];
static size_t pkt_len;
static struct mold_builder bld;

/* Callback record for the stock directory notifications. */
static int cb_calls;
static uint16_t cb_locate;
static char cb_symbol[8];

static void on_symbol(void *ctx, uint16_t locate, const char symbol[8])
{
	(*(int *)ctx)++;
	cb_calls++;
	cb_locate = locate;
	memcpy(cb_symbol, symbol, 8);
}

static int cb_ctx_count;

static int setup_session(void **state, const char *pinned)
{
	static struct feed_decoder d;
	struct feed_decoder_config cfg = {
		.ring_capacity = 64, .on_symbol = on_symbol,
		.cb_ctx = &cb_ctx_count, .session = pinned,
	};

	if (feed_decoder_init(&d, &cfg))
		return -1;
	cb_calls = 0;
	cb_ctx_count = 0;
	*state = &d;
	return 0;
}

static int setup(void **state)
{
	return setup_session(state, NULL);
}

/* Malformed packets as the session's first: only a pinned id takes them. */
static int setup_pinned(void **state)
{
	return setup_session(state, "S1");
}

static int teardown(void **state)
{
	feed_decoder_destroy(*state);
	return 0;
}

static void begin(const char *session, uint64_t seq)
{
	char s[MOLD_SESSION_LEN];

	mold_session_set(s, session);
	assert_int_equal(mold_builder_init(&bld, pkt, sizeof(pkt), s, seq), 0);
}

static void add_trade(uint16_t locate, uint32_t price, uint32_t shares,
		      char side, uint64_t ts)
{
	struct itch_msg m = {
		.type = 'P', .locate = locate, .timestamp = ts,
		.p = { .order_ref = 1, .side = side, .shares = shares,
		       .stock = "AAPL    ", .price = price, .match = 9 },
	};

	assert_int_equal(mold_builder_append_itch(&bld, &m), 44);
}

static void add_msg(char type, uint16_t locate)
{
	struct itch_msg m = { .type = type, .locate = locate };

	if (type == 'R')
		memcpy(m.r.stock, "MSFT    ", 8);
	if (type == 'S')
		m.s.event = 'Q';
	assert_true(mold_builder_append_itch(&bld, &m) > 0);
}

/* A raw block: @len bytes starting with @type (zeros after). */
static void add_raw(uint8_t type, uint16_t len)
{
	uint8_t *m = mold_builder_reserve(&bld, len);

	assert_non_null(m);
	memset(m, 0, len);
	m[0] = type;
}

static void end(void)
{
	pkt_len = mold_builder_finish(&bld);
}

/* A good packet of @n trades at @seq; returns the ticks decoded. */
static uint32_t good(struct feed_decoder *d, const char *session, uint64_t seq,
		     int n)
{
	int i;

	begin(session, seq);
	for (i = 0; i < n; i++)
		add_trade(1, 100 + (uint32_t)i, 10, 'B', 5);
	end();
	return feed_decode(d, pkt, pkt_len, ARRIVAL);
}

static void test_trades_into_ring(void **state)
{
	struct feed_decoder *d = *state;
	const struct feed_result *res = feed_last(d);
	struct tick_ring *r = &d->ring;
	uint32_t i;

	begin("S1", 1);
	add_trade(7, 1500001, 300, 'B', 0xfedcba987654ull);
	add_msg('A', 7);
	add_msg('S', 0);
	add_trade(8, 99, 1, 'S', 42);
	add_msg('E', 7);
	add_msg('U', 7);
	end();

	assert_int_equal(feed_decode(d, pkt, pkt_len, ARRIVAL), 2);
	assert_int_equal(res->kind, FEED_SEQ_IN_ORDER);
	assert_true(res->new_session);
	assert_false(res->malformed);
	assert_int_equal(res->ticks, 2);
	assert_int_equal(r->head, 2);

	i = tick_ring_slot(r, 0);
	assert_int_equal(r->seq[i], 1);
	assert_int_equal(r->exch_ts[i], 0xfedcba987654ull);
	assert_int_equal(r->arrival_ns[i], ARRIVAL);
	assert_int_equal(r->locate[i], 7);
	assert_int_equal(r->price[i], 1500001);
	assert_int_equal(r->shares[i], 300);
	assert_int_equal(r->kind[i], 'P');
	i = tick_ring_slot(r, 1);
	assert_int_equal(r->seq[i], 4);		/* fourth message of the packet */
	assert_int_equal(r->locate[i], 8);
	assert_int_equal(r->price[i], 99);
	assert_int_equal(r->kind[i], 'P');

	assert_int_equal(d->cnt.msgs, 6);
	assert_int_equal(d->cnt.ticks, 2);
	assert_int_equal(d->cnt.by_type['A'], 1);
	assert_int_equal(d->cnt.by_type['E'], 1);
	assert_int_equal(d->cnt.by_type['U'], 1);
	assert_int_equal(d->cnt.by_type['P'], 2);
	assert_int_equal(d->cnt.by_type['S'], 1);
	assert_int_equal(d->cnt.system_events, 1);
	assert_int_equal(d->system_event, 'Q');
	assert_int_equal(feed_next_seq(d), 7);
}

static void test_stock_directory(void **state)
{
	struct feed_decoder *d = *state;
	struct itch_msg m = { .type = 'R', .locate = 300 };

	assert_int_equal(feed_locate_of(d, "MSFT"), -1);
	assert_null(feed_symbol_of(d, 300));

	begin("S1", 1);
	add_msg('R', 300);
	end();
	feed_decode(d, pkt, pkt_len, ARRIVAL);
	assert_int_equal(d->cnt.stock_directory, 1);
	assert_int_equal(cb_calls, 1);
	assert_int_equal(cb_ctx_count, 1);
	assert_int_equal(cb_locate, 300);
	assert_memory_equal(cb_symbol, "MSFT    ", 8);
	assert_int_equal(feed_locate_of(d, "MSFT"), 300);
	assert_memory_equal(feed_symbol_of(d, 300), "MSFT    ", 8);
	assert_int_equal(feed_locate_of(d, "MSF"), -1);
	assert_int_equal(feed_locate_of(d, "MSFTXXXXX"), -1);	/* > 8 chars */

	/* Locate 300 now names another stock: MSFT no longer resolves. */
	memcpy(m.r.stock, "ZVZZT   ", 8);
	begin("S1", 2);
	assert_int_equal(mold_builder_append_itch(&bld, &m), 39);
	end();
	feed_decode(d, pkt, pkt_len, ARRIVAL);
	assert_int_equal(feed_locate_of(d, "ZVZZT"), 300);
	assert_int_equal(feed_locate_of(d, "MSFT"), -1);
	assert_int_equal(d->dir.mapped, 1);
	assert_int_equal(cb_calls, 2);
}

static void test_reset(void **state)
{
	struct feed_decoder *d = *state;

	begin("S1", 1);
	add_msg('R', 300);
	add_trade(300, 1, 1, 'B', 1);
	end();
	feed_decode(d, pkt, pkt_len, ARRIVAL);
	assert_int_equal(feed_locate_of(d, "MSFT"), 300);

	feed_decoder_reset(d);
	assert_int_equal(d->cnt.packets, 0);
	assert_int_equal(d->cnt.stock_directory, 0);
	assert_int_equal(d->ring.head, 0);
	assert_int_equal(feed_next_seq(d), 1);
	assert_int_equal(feed_locate_of(d, "MSFT"), -1);
	assert_null(feed_symbol_of(d, 300));
	assert_int_equal(d->dir.mapped, 0);

	/* The same packet again is a fresh session, not a duplicate. */
	assert_int_equal(feed_decode(d, pkt, pkt_len, ARRIVAL), 1);
	assert_int_equal(feed_last(d)->kind, FEED_SEQ_IN_ORDER);
	assert_true(feed_last(d)->new_session);
	assert_int_equal(d->cnt.session_changes, 0);
	assert_int_equal(feed_locate_of(d, "MSFT"), 300);
	assert_int_equal(d->dir.mapped, 1);
}

static void test_in_order_then_gap(void **state)
{
	struct feed_decoder *d = *state;
	const struct feed_result *res = feed_last(d);

	assert_int_equal(good(d, "S1", 1, 3), 3);
	assert_int_equal(res->kind, FEED_SEQ_IN_ORDER);
	assert_int_equal(feed_next_seq(d), 4);
	assert_int_equal(good(d, "S1", 4, 1), 1);
	assert_int_equal(res->kind, FEED_SEQ_IN_ORDER);
	assert_false(res->new_session);

	assert_int_equal(good(d, "S1", 10, 2), 2);
	assert_int_equal(res->kind, FEED_SEQ_GAP);
	assert_int_equal(res->gap_first, 5);
	assert_int_equal(res->gap_count, 5);
	assert_int_equal(d->cnt.gaps, 1);
	assert_int_equal(d->cnt.gap_msgs, 5);
	assert_int_equal(d->cnt.in_order, 2);
	assert_int_equal(feed_next_seq(d), 12);
	assert_int_equal(d->ring.seq[tick_ring_slot(&d->ring, 4)], 10);
}

static void test_late_join_is_gap_from_one(void **state)
{
	struct feed_decoder *d = *state;

	good(d, "S1", 100, 1);
	assert_int_equal(feed_last(d)->kind, FEED_SEQ_GAP);
	assert_int_equal(feed_last(d)->gap_first, 1);
	assert_int_equal(feed_last(d)->gap_count, 99);
}

static void test_duplicate_and_overlap(void **state)
{
	struct feed_decoder *d = *state;
	const struct feed_result *res = feed_last(d);

	assert_int_equal(good(d, "S1", 1, 5), 5);
	/* The same packet again: dropped whole. */
	assert_int_equal(good(d, "S1", 1, 5), 0);
	assert_int_equal(res->kind, FEED_SEQ_DUPLICATE);
	assert_int_equal(d->cnt.duplicates, 1);
	assert_int_equal(d->cnt.dup_msgs, 5);
	/* Older still, and ending exactly at next - 1. */
	assert_int_equal(good(d, "S1", 3, 3), 0);
	assert_int_equal(res->kind, FEED_SEQ_DUPLICATE);
	assert_int_equal(d->cnt.duplicates, 2);

	/* 4..7: 4 and 5 seen, 6 and 7 new. */
	assert_int_equal(good(d, "S1", 4, 4), 2);
	assert_int_equal(res->kind, FEED_SEQ_OVERLAP);
	assert_int_equal(d->cnt.overlaps, 1);
	assert_int_equal(d->cnt.dup_msgs, 5 + 3 + 2);
	assert_int_equal(d->ring.seq[tick_ring_slot(&d->ring, 5)], 6);
	assert_int_equal(d->ring.seq[tick_ring_slot(&d->ring, 6)], 7);
	assert_int_equal(d->ring.price[tick_ring_slot(&d->ring, 5)], 102);
	assert_int_equal(feed_next_seq(d), 8);
	assert_int_equal(d->cnt.msgs, 7);
}

static void test_heartbeats(void **state)
{
	struct feed_decoder *d = *state;
	const struct feed_result *res = feed_last(d);
	char s[MOLD_SESSION_LEN];

	mold_session_set(s, "S1");
	good(d, "S1", 1, 2);

	mold_encode_heartbeat(pkt, sizeof(pkt), s, 3);
	assert_int_equal(feed_decode(d, pkt, MOLD_HDR_LEN, ARRIVAL), 0);
	assert_int_equal(res->kind, FEED_SEQ_HEARTBEAT);
	assert_int_equal(res->gap_count, 0);
	assert_int_equal(d->cnt.heartbeats, 1);

	/* A heartbeat announcing 6 next: 3..5 were lost. */
	mold_encode_heartbeat(pkt, sizeof(pkt), s, 6);
	feed_decode(d, pkt, MOLD_HDR_LEN, ARRIVAL);
	assert_int_equal(res->kind, FEED_SEQ_HEARTBEAT);
	assert_int_equal(res->gap_first, 3);
	assert_int_equal(res->gap_count, 3);
	assert_int_equal(d->cnt.gaps, 1);
	assert_int_equal(d->cnt.gap_msgs, 3);
	assert_int_equal(feed_next_seq(d), 6);

	/* A late heartbeat behind us changes nothing but a counter. */
	mold_encode_heartbeat(pkt, sizeof(pkt), s, 2);
	feed_decode(d, pkt, MOLD_HDR_LEN, ARRIVAL);
	assert_int_equal(d->cnt.stale_heartbeats, 1);
	assert_int_equal(feed_next_seq(d), 6);

	assert_int_equal(good(d, "S1", 6, 1), 1);
	assert_int_equal(res->kind, FEED_SEQ_IN_ORDER);
}

static void test_end_of_session(void **state)
{
	struct feed_decoder *d = *state;
	const struct feed_result *res = feed_last(d);
	char s[MOLD_SESSION_LEN];

	mold_session_set(s, "S1");
	good(d, "S1", 1, 2);
	mold_encode_end_of_session(pkt, sizeof(pkt), s, 3);
	assert_int_equal(feed_decode(d, pkt, MOLD_HDR_LEN, ARRIVAL), 0);
	assert_int_equal(res->kind, FEED_SEQ_END_OF_SESSION);
	assert_int_equal(res->gap_count, 0);
	assert_int_equal(d->cnt.end_of_session, 1);
	assert_true(d->ended);

	/* Feeds repeat the end-of-session packet. */
	feed_decode(d, pkt, MOLD_HDR_LEN, ARRIVAL);
	assert_int_equal(res->kind, FEED_SEQ_END_OF_SESSION);
	assert_int_equal(d->cnt.end_repeats, 1);
	assert_int_equal(d->cnt.end_of_session, 1);

	/* Data in the ended session is dropped. */
	assert_int_equal(good(d, "S1", 3, 1), 0);
	assert_int_equal(res->kind, FEED_SEQ_AFTER_END);
	assert_int_equal(d->cnt.after_end, 1);

	/* The next session starts over from 1. */
	assert_int_equal(good(d, "S2", 1, 1), 1);
	assert_int_equal(res->kind, FEED_SEQ_IN_ORDER);
	assert_true(res->new_session);
	assert_int_equal(d->cnt.session_changes, 1);
	assert_false(d->ended);
}

static void test_end_of_session_reveals_gap(void **state)
{
	struct feed_decoder *d = *state;
	char s[MOLD_SESSION_LEN];

	mold_session_set(s, "S1");
	good(d, "S1", 1, 2);
	mold_encode_end_of_session(pkt, sizeof(pkt), s, 9);
	feed_decode(d, pkt, MOLD_HDR_LEN, ARRIVAL);
	assert_int_equal(feed_last(d)->kind, FEED_SEQ_END_OF_SESSION);
	assert_int_equal(feed_last(d)->gap_first, 3);
	assert_int_equal(feed_last(d)->gap_count, 6);
}

static void test_session_change_midstream(void **state)
{
	struct feed_decoder *d = *state;

	/* An established session is not taken over by another id. */
	good(d, "A", 1, 40);
	good(d, "A", 41, 1);
	assert_true(feed_established(d));
	assert_int_equal(good(d, "B", 1, 2), 0);
	assert_int_equal(good(d, "B", 3, 2), 0);
	assert_int_equal(feed_last(d)->kind, FEED_SEQ_FOREIGN);
	assert_int_equal(d->cnt.other_session, 2);
	assert_int_equal(d->cnt.session_changes, 0);
	assert_int_equal(feed_next_seq(d), 42);
}

static void send_raw(struct feed_decoder *d, const char *session, uint64_t seq,
		     uint16_t count, size_t len)
{
	uint8_t junk[64];

	memset(junk, 0x5a, sizeof(junk));
	mold_session_set((char *)junk, session);
	be64_store(junk + MOLD_OFF_SEQ, seq);
	be16_store(junk + MOLD_OFF_COUNT, count);
	feed_decode(d, junk, len, ARRIVAL);
}

static void test_junk_first_does_not_take_session(void **state)
{
	struct feed_decoder *d = *state;

	/* Ill-formed junk and control packets before the exchange's first. */
	send_raw(d, "JUNK", 7, 3, 40);
	send_raw(d, "JUNK", 1000000, 0, MOLD_HDR_LEN);
	send_raw(d, "JUNK", 5, MOLD_COUNT_END, MOLD_HDR_LEN);
	assert_false(d->have_session);
	assert_int_equal(d->cnt.other_session, 3);
	/* The genuine session is adopted from its first well-formed packet. */
	assert_int_equal(good(d, "REAL", 1, 2), 2);
	assert_true(feed_last(d)->new_session);
	assert_int_equal(good(d, "REAL", 3, 1), 1);
	assert_int_equal(feed_last(d)->kind, FEED_SEQ_IN_ORDER);
}

/*
 * A gateway that joins after the day's last data packet sees heartbeats
 * only: two of one id announcing the same number make the session, with
 * everything from 1 missing; a lone one, or two that disagree, do not.
 */
static void test_heartbeats_alone_start_a_late_session(void **state)
{
	struct feed_decoder *d = *state;
	struct mold_header h;

	send_raw(d, "JUNK", 900, 0, MOLD_HDR_LEN);
	send_raw(d, "REAL", 51, 0, MOLD_HDR_LEN);
	send_raw(d, "REAL", 50, 0, MOLD_HDR_LEN);
	send_raw(d, "REAL", 50, 0, MOLD_HDR_LEN + 4);	/* not a heartbeat's length */
	assert_false(d->have_session);
	/* The second REAL heartbeat announcing 50. */
	mold_encode_heartbeat(pkt, sizeof(pkt), "REAL      ", 50);
	assert_int_equal(feed_classify(d, pkt, MOLD_HDR_LEN, &h), FEED_V_AHEAD);
	assert_true(d->have_session);
	assert_true(feed_last(d)->new_session);
	assert_int_equal(feed_next_seq(d), 1);
	/* The day's first packet, re-requested, is then in sequence. */
	assert_int_equal(good(d, "REAL", 1, 2), 2);
	assert_int_equal(feed_last(d)->kind, FEED_SEQ_IN_ORDER);
}

static void test_wellformed_junk_gives_way(void **state)
{
	struct feed_decoder *d = *state;

	/* Well-formed junk of another id came first and was adopted ... */
	assert_int_equal(good(d, "JUNK", 500, 1), 1);
	assert_false(feed_established(d));
	/* ... the genuine session, in sequence, replaces it on its second packet. */
	assert_int_equal(good(d, "REAL", 1, 2), 0);
	assert_int_equal(feed_last(d)->kind, FEED_SEQ_FOREIGN);
	assert_int_equal(good(d, "REAL", 3, 2), 2);
	assert_true(feed_last(d)->new_session);
	assert_int_equal(d->cnt.session_changes, 1);
	/* Its first packet was dropped: a gap from 1, as for any lost packet. */
	assert_int_equal(feed_last(d)->kind, FEED_SEQ_GAP);
	assert_int_equal(feed_last(d)->gap_first, 1);
}

static void test_pinned_session(void **state)
{
	struct feed_decoder *d = *state;
	struct mold_header h;

	assert_int_equal(good(d, "OTHER", 1, 2), 0);
	assert_int_equal(feed_last(d)->kind, FEED_SEQ_FOREIGN);
	begin("S1", 4);
	add_trade(1, 1, 1, 'B', 1);
	end();
	assert_int_equal(feed_classify(d, pkt, pkt_len, &h), FEED_V_AHEAD);
	assert_int_equal(h.seq, 4);
	assert_int_equal(good(d, "S1", 1, 3), 3);
	assert_int_equal(feed_classify(d, pkt, pkt_len, &h), FEED_V_DECODE);
}

static void test_stale_end_of_session_ignored(void **state)
{
	struct feed_decoder *d = *state;
	char s[MOLD_SESSION_LEN];

	good(d, "S1", 1, 5);
	good(d, "S1", 6, 5);
	mold_session_set(s, "S1");
	mold_encode_end_of_session(pkt, sizeof(pkt), s, 3);
	feed_decode(d, pkt, MOLD_HDR_LEN, ARRIVAL);
	assert_int_equal(feed_last(d)->kind, FEED_SEQ_STALE_END);
	assert_false(d->ended);
	assert_int_equal(d->cnt.stale_end, 1);
	assert_int_equal(good(d, "S1", 11, 1), 1);
	mold_encode_end_of_session(pkt, sizeof(pkt), s, 12);
	feed_decode(d, pkt, MOLD_HDR_LEN, ARRIVAL);
	assert_true(d->ended);
	assert_int_equal(d->cnt.end_of_session, 1);
}

/* ---- malformed input: counter, what survives, and the stream goes on ---- */

static void test_short_packet(void **state)
{
	struct feed_decoder *d = *state;

	good(d, "S1", 1, 1);
	assert_int_equal(feed_decode(d, pkt, 19, ARRIVAL), 0);
	assert_int_equal(feed_last(d)->kind, FEED_SEQ_MALFORMED);
	assert_int_equal(feed_decode(d, pkt, 0, ARRIVAL), 0);
	assert_int_equal(d->cnt.short_packet, 2);
	assert_int_equal(feed_next_seq(d), 2);
	assert_int_equal(good(d, "S1", 2, 1), 1);
	assert_int_equal(feed_last(d)->kind, FEED_SEQ_IN_ORDER);
}

static void test_block_overrun(void **state)
{
	struct feed_decoder *d = *state;

	/* Three trades, the third block cut short by 1 byte. */
	begin("S1", 1);
	add_trade(1, 1, 1, 'B', 1);
	add_trade(1, 2, 1, 'B', 1);
	add_trade(1, 3, 1, 'B', 1);
	end();
	assert_int_equal(feed_decode(d, pkt, pkt_len - 1, ARRIVAL), 2);
	assert_true(feed_last(d)->malformed);
	assert_int_equal(d->cnt.block_overrun, 1);
	assert_int_equal(d->cnt.lost_msgs, 1);
	assert_int_equal(feed_next_seq(d), 3);

	/* A block length field itself cut in half. */
	begin("S1", 3);
	add_trade(1, 1, 1, 'B', 1);
	add_trade(1, 1, 1, 'B', 1);
	end();
	assert_int_equal(feed_decode(d, pkt, MOLD_HDR_LEN + 46 + 1, ARRIVAL), 1);
	assert_int_equal(d->cnt.block_overrun, 2);
	assert_int_equal(feed_next_seq(d), 4);

	/* A huge block length. */
	begin("S1", 4);
	add_trade(1, 1, 1, 'B', 1);
	end();
	be16_store(pkt + MOLD_HDR_LEN, 0xffff);
	assert_int_equal(feed_decode(d, pkt, pkt_len, ARRIVAL), 0);
	assert_int_equal(d->cnt.block_overrun, 3);
	assert_int_equal(feed_next_seq(d), 4);

	/* The lost message shows as a gap on the next good packet. */
	assert_int_equal(good(d, "S1", 5, 1), 1);
	assert_int_equal(feed_last(d)->kind, FEED_SEQ_GAP);
	assert_int_equal(feed_last(d)->gap_first, 4);
	assert_int_equal(feed_last(d)->gap_count, 1);
}

static void test_count_too_high(void **state)
{
	struct feed_decoder *d = *state;

	begin("S1", 1);
	add_trade(1, 1, 1, 'B', 1);
	add_trade(1, 2, 1, 'B', 1);
	end();
	be16_store(pkt + MOLD_OFF_COUNT, 3);
	assert_int_equal(feed_decode(d, pkt, pkt_len, ARRIVAL), 2);
	assert_int_equal(d->cnt.count_too_high, 1);
	assert_int_equal(d->cnt.block_overrun, 0);
	assert_int_equal(d->cnt.lost_msgs, 1);
	assert_int_equal(feed_next_seq(d), 3);
	assert_int_equal(good(d, "S1", 4, 1), 1);
	assert_int_equal(feed_last(d)->gap_first, 3);
}

static void test_count_too_low(void **state)
{
	struct feed_decoder *d = *state;

	begin("S1", 1);
	add_trade(1, 1, 1, 'B', 1);
	add_trade(1, 2, 1, 'B', 1);
	end();
	be16_store(pkt + MOLD_OFF_COUNT, 1);
	assert_int_equal(feed_decode(d, pkt, pkt_len, ARRIVAL), 1);
	assert_int_equal(d->cnt.count_too_low, 1);
	assert_true(feed_last(d)->malformed);
	assert_int_equal(feed_next_seq(d), 2);
	assert_int_equal(good(d, "S1", 2, 1), 1);
	assert_int_equal(feed_last(d)->kind, FEED_SEQ_IN_ORDER);

	/* A heartbeat with bytes after its header. */
	mold_encode_heartbeat(pkt, sizeof(pkt), (const char *)pkt, 3);
	assert_int_equal(feed_decode(d, pkt, MOLD_HDR_LEN + 4, ARRIVAL), 0);
	assert_int_equal(d->cnt.count_too_low, 2);
}

static void test_zero_length_block(void **state)
{
	struct feed_decoder *d = *state;

	begin("S1", 1);
	add_trade(1, 1, 1, 'B', 1);
	end();
	/* Hand-append a zero-length block then another trade. */
	be16_store(pkt + pkt_len, 0);
	memcpy(pkt + pkt_len + 2, pkt + MOLD_HDR_LEN, 46);
	pkt_len += 2 + 46;
	be16_store(pkt + MOLD_OFF_COUNT, 3);
	assert_int_equal(feed_decode(d, pkt, pkt_len, ARRIVAL), 2);
	assert_int_equal(d->cnt.zero_length_block, 1);
	/* The empty block consumed sequence number 2. */
	assert_int_equal(d->ring.seq[tick_ring_slot(&d->ring, 1)], 3);
	assert_int_equal(feed_next_seq(d), 4);
	assert_int_equal(good(d, "S1", 4, 1), 1);
}

static void test_bad_length(void **state)
{
	struct feed_decoder *d = *state;

	begin("S1", 1);
	add_raw('P', 43);		/* trade one byte short */
	add_raw('P', 45);		/* and one byte long */
	add_raw('R', 38);
	add_raw('S', 13);
	add_trade(1, 5, 1, 'B', 1);
	end();
	assert_int_equal(feed_decode(d, pkt, pkt_len, ARRIVAL), 1);
	assert_int_equal(d->cnt.bad_length, 4);
	assert_int_equal(d->cnt.stock_directory, 0);
	assert_int_equal(d->cnt.system_events, 0);
	assert_int_equal(cb_calls, 0);
	assert_int_equal(d->ring.seq[tick_ring_slot(&d->ring, 0)], 5);
	assert_int_equal(feed_next_seq(d), 6);
}

static void test_unknown_and_skipped_types(void **state)
{
	struct feed_decoder *d = *state;

	begin("S1", 1);
	add_raw('z', 5);
	add_raw(0xff, 1);
	add_raw('H', 25);
	add_raw('I', 50);
	add_trade(1, 5, 1, 'B', 1);
	end();
	assert_int_equal(feed_decode(d, pkt, pkt_len, ARRIVAL), 1);
	assert_false(feed_last(d)->malformed);
	assert_int_equal(d->cnt.unknown_type, 2);
	assert_int_equal(d->cnt.by_type['z'], 0);
	assert_int_equal(d->cnt.by_type[0xff], 0);
	assert_int_equal(d->cnt.by_type['H'], 1);
	assert_int_equal(d->cnt.by_type['I'], 1);
	assert_int_equal(d->cnt.msgs, 5);
}

/* With a book: executions print at the resting order's price, by their own seq. */
static void test_book_and_tape(void **state)
{
	struct book_config bc = { .max_orders = 1024, .track_all = true };
	struct feed_decoder_config cfg = { .ring_capacity = 64 };
	static struct book b;
	struct feed_decoder d;
	struct tick_ring *r = &d.ring;
	struct itch_msg m;
	uint32_t i;

	(void)state;
	assert_int_equal(book_init(&b, &bc), 0);
	cfg.book = &b;
	assert_int_equal(feed_decoder_init(&d, &cfg), 0);
	begin("S1", 1);
	m = (struct itch_msg){ .type = 'A', .locate = 3, .timestamp = 10,
			       .a = { .order_ref = 77, .side = 'S', .shares = 500,
				      .stock = "MSFT    ", .price = 2500000 } };
	assert_true(mold_builder_append_itch(&bld, &m) > 0);
	m = (struct itch_msg){ .type = 'E', .locate = 3, .timestamp = 11,
			       .e = { .order_ref = 77, .shares = 200, .match = 1 } };
	assert_true(mold_builder_append_itch(&bld, &m) > 0);
	m = (struct itch_msg){ .type = 'C', .locate = 3, .timestamp = 12,
			       .e = { .order_ref = 77, .shares = 100, .match = 2,
				      .printable = 'Y', .price = 2500100 } };
	assert_true(mold_builder_append_itch(&bld, &m) > 0);
	m = (struct itch_msg){ .type = 'X', .locate = 3, .x = { .order_ref = 77, .shares = 50 } };
	assert_true(mold_builder_append_itch(&bld, &m) > 0);
	end();
	assert_int_equal(feed_decode(&d, pkt, pkt_len, ARRIVAL), 2);
	i = tick_ring_slot(r, 0);
	assert_int_equal(r->seq[i], 2);
	assert_int_equal(r->kind[i], 'E');
	assert_int_equal(r->price[i], 2500000);	/* the resting order's */
	assert_int_equal(r->shares[i], 200);
	assert_int_equal(r->locate[i], 3);
	assert_int_equal(r->exch_ts[i], 11);
	i = tick_ring_slot(r, 1);
	assert_int_equal(r->seq[i], 3);
	assert_int_equal(r->kind[i], 'C');
	assert_int_equal(r->price[i], 2500100);	/* the message's */
	assert_int_equal(book_best(&b, 3, BOOK_ASK)->shares, 150);
	assert_int_equal(d.cnt.by_type['X'], 1);
	feed_decoder_destroy(&d);
	book_destroy(&b);
}

static void test_ring_wraps(void **state)
{
	struct feed_decoder_config cfg = { .ring_capacity = 4 };
	struct feed_decoder d;
	int i;

	(void)state;
	assert_int_equal(feed_decoder_init(&d, &cfg), 0);
	assert_int_equal(good(&d, "S1", 1, 6), 6);
	assert_int_equal(d.ring.head, 6);
	/* Slots hold ticks 2..5 (seq 3..6); a reader at 0 lost two. */
	for (i = 2; i < 6; i++)
		assert_int_equal(d.ring.seq[tick_ring_slot(&d.ring, (uint64_t)i)],
				 (uint64_t)i + 1);
	assert_int_equal(tick_ring_lost(&d.ring, 0), 2);
	assert_int_equal(tick_ring_lost(&d.ring, 2), 0);
	feed_decoder_destroy(&d);
}

static void test_init_rejects_bad_capacity(void **state)
{
	struct feed_decoder_config cfg = { .ring_capacity = 3 };
	struct feed_decoder d;

	(void)state;
	assert_int_equal(feed_decoder_init(&d, &cfg), -EINVAL);
	cfg.ring_capacity = 0;
	assert_int_equal(feed_decoder_init(&d, &cfg), -EINVAL);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
#define P(f) cmocka_unit_test_setup_teardown(f, setup_pinned, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_trades_into_ring),
		T(test_stock_directory),
		T(test_reset),
		T(test_in_order_then_gap),
		T(test_late_join_is_gap_from_one),
		T(test_duplicate_and_overlap),
		T(test_heartbeats),
		T(test_end_of_session),
		T(test_end_of_session_reveals_gap),
		T(test_session_change_midstream),
		T(test_junk_first_does_not_take_session),
		T(test_heartbeats_alone_start_a_late_session),
		T(test_wellformed_junk_gives_way),
		P(test_pinned_session),
		T(test_stale_end_of_session_ignored),
		T(test_short_packet),
		P(test_block_overrun),
		P(test_count_too_high),
		P(test_count_too_low),
		P(test_zero_length_block),
		P(test_bad_length),
		P(test_unknown_and_skipped_types),
		cmocka_unit_test(test_book_and_tape),
		cmocka_unit_test(test_ring_wraps),
		cmocka_unit_test(test_init_rejects_bad_capacity),
	};

	return cmocka_run_group_tests_name("proto_feed", tests, NULL, NULL);
}
