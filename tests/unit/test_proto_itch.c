// SPDX-License-Identifier: MIT
/*
 * ITCH 5.0 and MoldUDP64 codecs: round trips for every message type, field
 * offsets and byte order checked against the layout in docs/wire.md
 * (offsets written out as numbers here, not taken from the headers).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "proto/itch.h"
#include "proto/moldudp64.h"
#include "proto/proto_err.h"

static const uint8_t ts_bytes[6] = { 0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc };

static void fill_hdr(struct itch_msg *m, char type)
{
	memset(m, 0, sizeof(*m));
	m->type = type;
	m->locate = 0x0102;
	m->tracking = 0x0304;
	m->timestamp = 0x123456789abcull;
}

static void check_hdr(const uint8_t *b, char type)
{
	const uint8_t locate[2] = { 0x01, 0x02 }, tracking[2] = { 0x03, 0x04 };

	assert_int_equal(b[0], (uint8_t)type);
	assert_memory_equal(b + 1, locate, 2);
	assert_memory_equal(b + 3, tracking, 2);
	assert_memory_equal(b + 5, ts_bytes, 6);
}

/* Encode, check length, decode back, compare the whole struct. */
static void round_trip(const struct itch_msg *m, int want_len, uint8_t *buf)
{
	struct itch_msg back;

	assert_int_equal(itch_encode(buf, 64, m), want_len);
	assert_int_equal(itch_msg_len[(uint8_t)m->type], want_len);
	assert_int_equal(itch_decode(buf, (size_t)want_len, &back), want_len);
	assert_memory_equal(&back, m, sizeof(back));
	check_hdr(buf, m->type);
}

static void test_system_event(void **state)
{
	struct itch_msg m;
	uint8_t b[64];

	(void)state;
	fill_hdr(&m, 'S');
	m.s.event = 'Q';
	round_trip(&m, 12, b);
	assert_int_equal(b[11], 'Q');
}

static void test_stock_directory(void **state)
{
	const uint8_t lot[4] = { 0, 0, 0x01, 0xf4 };	/* 500 */
	const uint8_t lever[4] = { 0, 0, 0, 3 };
	struct itch_msg m;
	uint8_t b[64];

	(void)state;
	fill_hdr(&m, 'R');
	memcpy(m.r.stock, "MSFT    ", 8);
	m.r.market_category = 'Q';
	m.r.financial_status = 'N';
	m.r.round_lot_size = 500;
	m.r.round_lots_only = 'N';
	m.r.issue_classification = 'C';
	memcpy(m.r.issue_subtype, "Z ", 2);
	m.r.authenticity = 'P';
	m.r.short_sale_threshold = 'N';
	m.r.ipo_flag = ' ';
	m.r.luld_tier = '1';
	m.r.etp_flag = 'N';
	m.r.etp_leverage = 3;
	m.r.inverse = 'N';
	round_trip(&m, 39, b);
	assert_memory_equal(b + 11, "MSFT    ", 8);
	assert_int_equal(b[19], 'Q');
	assert_int_equal(b[20], 'N');
	assert_memory_equal(b + 21, lot, 4);
	assert_int_equal(b[25], 'N');
	assert_int_equal(b[26], 'C');
	assert_memory_equal(b + 27, "Z ", 2);
	assert_int_equal(b[29], 'P');
	assert_int_equal(b[30], 'N');
	assert_int_equal(b[31], ' ');
	assert_int_equal(b[32], '1');
	assert_int_equal(b[33], 'N');
	assert_memory_equal(b + 34, lever, 4);
	assert_int_equal(b[38], 'N');
}

static void test_add_order_a_f(void **state)
{
	const uint8_t ref[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	const uint8_t shares[4] = { 0, 0, 0x03, 0xe8 };		/* 1000 */
	const uint8_t price[4] = { 0x00, 0x16, 0xe3, 0x60 };	/* 150.0000 */
	struct itch_msg m;
	uint8_t b[64];

	(void)state;
	fill_hdr(&m, 'A');
	m.a.order_ref = 0x0102030405060708ull;
	m.a.side = 'S';
	m.a.shares = 1000;
	memcpy(m.a.stock, "AAPL    ", 8);
	m.a.price = 1500000;
	round_trip(&m, 36, b);
	assert_memory_equal(b + 11, ref, 8);
	assert_int_equal(b[19], 'S');
	assert_memory_equal(b + 20, shares, 4);
	assert_memory_equal(b + 24, "AAPL    ", 8);
	assert_memory_equal(b + 32, price, 4);

	m.type = 'F';
	memcpy(m.a.mpid, "GSCO", 4);
	round_trip(&m, 40, b);
	assert_memory_equal(b + 32, price, 4);
	assert_memory_equal(b + 36, "GSCO", 4);
}

static void test_executed_e_c(void **state)
{
	const uint8_t shares[4] = { 0, 0, 0, 42 };
	const uint8_t match[8] = { 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8 };
	const uint8_t price[4] = { 0xde, 0xad, 0xbe, 0xef };
	struct itch_msg m;
	uint8_t b[64];

	(void)state;
	fill_hdr(&m, 'E');
	m.e.order_ref = 7;
	m.e.shares = 42;
	m.e.match = 0xa1a2a3a4a5a6a7a8ull;
	round_trip(&m, 31, b);
	assert_int_equal(b[18], 7);
	assert_memory_equal(b + 19, shares, 4);
	assert_memory_equal(b + 23, match, 8);

	m.type = 'C';
	m.e.printable = 'Y';
	m.e.price = 0xdeadbeef;
	round_trip(&m, 36, b);
	assert_memory_equal(b + 23, match, 8);
	assert_int_equal(b[31], 'Y');
	assert_memory_equal(b + 32, price, 4);
}

static void test_cancel_delete_replace(void **state)
{
	const uint8_t u32_99[4] = { 0, 0, 0, 99 };
	struct itch_msg m;
	uint8_t b[64];

	(void)state;
	fill_hdr(&m, 'X');
	m.x.order_ref = 0x1122334455667788ull;
	m.x.shares = 99;
	round_trip(&m, 23, b);
	assert_int_equal(b[11], 0x11);
	assert_int_equal(b[18], 0x88);
	assert_memory_equal(b + 19, u32_99, 4);

	fill_hdr(&m, 'D');
	m.d.order_ref = 0x1122334455667788ull;
	round_trip(&m, 19, b);
	assert_int_equal(b[11], 0x11);
	assert_int_equal(b[18], 0x88);

	fill_hdr(&m, 'U');
	m.u.orig_ref = 1;
	m.u.new_ref = 2;
	m.u.shares = 99;
	m.u.price = 0x01020304;
	round_trip(&m, 35, b);
	assert_int_equal(b[18], 1);
	assert_int_equal(b[26], 2);
	assert_memory_equal(b + 27, u32_99, 4);
	assert_int_equal(b[31], 1);
	assert_int_equal(b[34], 4);
}

static void test_trade_p(void **state)
{
	const uint8_t price[4] = { 0x00, 0x16, 0xe3, 0x61 };	/* 150.0001 */
	const uint8_t shares[4] = { 0x00, 0x01, 0x86, 0xa0 };	/* 100000 */
	const uint8_t match[8] = { 0, 0, 0, 0, 0, 0, 0x30, 0x39 };
	struct itch_msg m;
	uint8_t b[64];

	(void)state;
	fill_hdr(&m, 'P');
	m.p.order_ref = 0;
	m.p.side = 'B';
	m.p.shares = 100000;
	memcpy(m.p.stock, "NVDA    ", 8);
	m.p.price = 1500001;
	m.p.match = 12345;
	round_trip(&m, 44, b);
	assert_int_equal(b[19], 'B');
	assert_memory_equal(b + 20, shares, 4);
	assert_memory_equal(b + 24, "NVDA    ", 8);
	assert_memory_equal(b + 32, price, 4);
	assert_memory_equal(b + 36, match, 8);
}

static void test_cross_q(void **state)
{
	const uint8_t shares[8] = { 0, 0, 0, 0x01, 0, 0, 0, 0x05 };	/* 2^32 + 5 */
	const uint8_t price[4] = { 0, 0x16, 0xe3, 0x61 };		/* 1500001 */
	const uint8_t match[8] = { 0, 0, 0, 0, 0, 0, 0x30, 0x39 };
	struct itch_msg m;
	uint8_t b[64];

	(void)state;
	fill_hdr(&m, 'Q');
	m.q.shares = (1ull << 32) + 5;
	memcpy(m.q.stock, "AAPL    ", 8);
	m.q.price = 1500001;
	m.q.match = 12345;
	m.q.cross_type = 'C';
	round_trip(&m, 40, b);
	assert_memory_equal(b + 11, shares, 8);
	assert_memory_equal(b + 19, "AAPL    ", 8);
	assert_memory_equal(b + 27, price, 4);
	assert_memory_equal(b + 31, match, 8);
	assert_int_equal(b[39], 'C');
}

static void test_broken_b(void **state)
{
	const uint8_t match[8] = { 0x01, 0, 0, 0, 0, 0, 0x30, 0x39 };
	struct itch_msg m;
	uint8_t b[64];

	(void)state;
	fill_hdr(&m, 'B');
	m.b.match = (1ull << 56) + 12345;
	round_trip(&m, 19, b);
	assert_memory_equal(b + 11, match, 8);
}

/* Every ITCH 5.0 type of the spec, the ones the codec does not build too. */
static void test_length_table(void **state)
{
	static const struct { char t; int len; } spec[] = {
		{ 'S', 12 }, { 'R', 39 }, { 'H', 25 }, { 'Y', 20 }, { 'L', 26 },
		{ 'V', 35 }, { 'W', 12 }, { 'K', 28 }, { 'J', 35 }, { 'h', 21 },
		{ 'A', 36 }, { 'F', 40 }, { 'E', 31 }, { 'C', 36 }, { 'X', 23 },
		{ 'D', 19 }, { 'U', 35 }, { 'P', 44 }, { 'Q', 40 }, { 'B', 19 },
		{ 'I', 50 }, { 'N', 20 }, { 'O', 48 },
	};
	unsigned i, known = 0;

	(void)state;
	for (i = 0; i < sizeof(spec) / sizeof(spec[0]); i++)
		assert_int_equal(itch_msg_len[(uint8_t)spec[i].t], spec[i].len);
	for (i = 0; i < 256; i++)
		known += itch_msg_len[i] != 0;
	assert_int_equal(known, sizeof(spec) / sizeof(spec[0]));
}

static void test_decode_errors(void **state)
{
	struct itch_msg m;
	uint8_t b[64] = { 'P' };

	(void)state;
	assert_int_equal(itch_decode(b, 0, &m), PROTO_E_SHORT);
	assert_int_equal(itch_decode(b, 43, &m), PROTO_E_LENGTH);
	assert_int_equal(itch_decode(b, 45, &m), PROTO_E_LENGTH);
	b[0] = 'H';	/* valid ITCH, but not one the codec builds */
	assert_int_equal(itch_decode(b, 25, &m), PROTO_E_MSG_TYPE);
	b[0] = 'z';
	assert_int_equal(itch_decode(b, 25, &m), PROTO_E_MSG_TYPE);

	fill_hdr(&m, 'P');
	assert_int_equal(itch_encode(b, 43, &m), PROTO_E_NOSPACE);
	m.type = 'z';
	assert_int_equal(itch_encode(b, 64, &m), PROTO_E_MSG_TYPE);
}

static void test_ts_recover(void **state)
{
	const uint64_t two48 = 1ull << 48;
	uint64_t now = 5 * two48 + 1000;

	(void)state;
	/* Same epoch, behind and ahead of the clock reading. */
	assert_int_equal(itch_ts_recover(900, now), 5 * two48 + 900);
	assert_int_equal(itch_ts_recover(2000, now), 5 * two48 + 2000);
	/* Sent just before the 48-bit wrap, read just after it. */
	assert_int_equal(itch_ts_recover(two48 - 10, now), 5 * two48 - 10);
	/* Sent just after the wrap, read just before it. */
	now = 6 * two48 - 5;
	assert_int_equal(itch_ts_recover(3, now), 6 * two48 + 3);
	/* Exactly 2^47 - 1 away either side still resolves. */
	now = 7 * two48;
	assert_int_equal(itch_ts_recover((1ull << 47) - 1, now),
			 7 * two48 + (1ull << 47) - 1);
	assert_int_equal(itch_ts_recover((1ull << 47) + 1, now),
			 7 * two48 - (1ull << 47) + 1);
	/* Early after boot: never below zero. */
	assert_int_equal(itch_ts_recover(two48 - 5, 100), two48 - 5);
	/* Bits above 48 in the input are ignored. */
	assert_int_equal(itch_ts_recover((9ull << 48) | 900, 1000), 900);
}

/* MoldUDP64: header layout, builder budget, heartbeat, end, re-request. */
static void test_mold_builder(void **state)
{
	const uint8_t seq[8] = { 0, 0, 0, 0, 0x01, 0x02, 0x03, 0x04 };
	char session[MOLD_SESSION_LEN];
	struct mold_builder b;
	struct mold_header h;
	struct mold_iter it;
	struct itch_msg m;
	const uint8_t *msg;
	uint16_t mlen;
	uint8_t buf[200];
	size_t len;
	int n = 0;

	(void)state;
	mold_session_set(session, "SESS1");
	assert_memory_equal(session, "SESS1     ", 10);
	/* 20 + 3 * (2 + 44) = 158 fits in 200, a fourth does not. */
	assert_int_equal(mold_builder_init(&b, buf, sizeof(buf), session,
					   0x01020304), 0);
	fill_hdr(&m, 'P');
	while (mold_builder_append_itch(&b, &m) == 44)
		n++;
	assert_int_equal(n, 3);
	len = mold_builder_finish(&b);
	assert_int_equal(len, 158);
	assert_memory_equal(buf, "SESS1     ", 10);
	assert_memory_equal(buf + 10, seq, 8);
	assert_int_equal(buf[18], 0);
	assert_int_equal(buf[19], 3);
	assert_int_equal(buf[20], 0);		/* block length 44, big-endian */
	assert_int_equal(buf[21], 44);
	assert_int_equal(buf[22], 'P');
	assert_int_equal(buf[66], 0);
	assert_int_equal(buf[67], 44);

	assert_int_equal(mold_parse_header(buf, len, &h), 0);
	assert_int_equal(h.seq, 0x01020304);
	assert_int_equal(h.count, 3);
	assert_int_equal(mold_parse_header(buf, 19, &h), PROTO_E_SHORT);

	mold_iter_init(&it, buf, len);
	n = 0;
	while (mold_iter_next(&it, &msg, &mlen) == 1) {
		assert_int_equal(mlen, 44);
		assert_int_equal(msg[0], 'P');
		n++;
	}
	assert_int_equal(n, 3);
	mold_iter_init(&it, buf, len - 1);	/* last block cut short */
	assert_int_equal(mold_iter_next(&it, &msg, &mlen), 1);
	assert_int_equal(mold_iter_next(&it, &msg, &mlen), 1);
	assert_int_equal(mold_iter_next(&it, &msg, &mlen), PROTO_E_LENGTH);

	/* A budget below the header, a zero-length reservation. */
	assert_int_equal(mold_builder_init(&b, buf, 19, session, 1),
			 PROTO_E_NOSPACE);
	assert_int_equal(mold_builder_init(&b, buf, sizeof(buf), session, 1), 0);
	assert_null(mold_builder_reserve(&b, 0));
	m.type = 'z';
	assert_int_equal(mold_builder_append_itch(&b, &m), PROTO_E_MSG_TYPE);
}

static void test_mold_control_and_rerequest(void **state)
{
	char session[MOLD_SESSION_LEN];
	struct mold_rerequest r = { .seq = 77, .count = 5 }, back;
	struct mold_header h;
	uint8_t buf[32];

	(void)state;
	mold_session_set(session, "ABCDEFGHIJKLMN");	/* truncated to 10 */
	assert_memory_equal(session, "ABCDEFGHIJ", 10);

	assert_int_equal(mold_encode_heartbeat(buf, sizeof(buf), session, 42), 20);
	assert_int_equal(mold_parse_header(buf, 20, &h), 0);
	assert_int_equal(h.seq, 42);
	assert_int_equal(h.count, 0);

	assert_int_equal(mold_encode_end_of_session(buf, sizeof(buf), session, 43),
			 20);
	assert_int_equal(buf[18], 0xff);
	assert_int_equal(buf[19], 0xff);
	assert_int_equal(mold_parse_header(buf, 20, &h), 0);
	assert_int_equal(h.seq, 43);
	assert_int_equal(h.count, MOLD_COUNT_END);
	assert_int_equal(mold_encode_heartbeat(buf, 19, session, 1),
			 PROTO_E_NOSPACE);

	memcpy(r.session, session, MOLD_SESSION_LEN);
	assert_int_equal(mold_encode_rerequest(buf, sizeof(buf), &r), 20);
	assert_int_equal(buf[17], 77);
	assert_int_equal(buf[19], 5);
	assert_int_equal(mold_decode_rerequest(buf, 20, &back), 20);
	assert_memory_equal(&back, &r, sizeof(r));
	assert_int_equal(mold_decode_rerequest(buf, 19, &back), PROTO_E_SHORT);
	assert_int_equal(mold_decode_rerequest(buf, 21, &back), PROTO_E_LENGTH);
	assert_int_equal(mold_encode_rerequest(buf, 19, &r), PROTO_E_NOSPACE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_system_event),
		cmocka_unit_test(test_stock_directory),
		cmocka_unit_test(test_add_order_a_f),
		cmocka_unit_test(test_executed_e_c),
		cmocka_unit_test(test_cancel_delete_replace),
		cmocka_unit_test(test_trade_p),
		cmocka_unit_test(test_cross_q),
		cmocka_unit_test(test_broken_b),
		cmocka_unit_test(test_length_table),
		cmocka_unit_test(test_decode_errors),
		cmocka_unit_test(test_ts_recover),
		cmocka_unit_test(test_mold_builder),
		cmocka_unit_test(test_mold_control_and_rerequest),
	};

	return cmocka_run_group_tests_name("proto_itch", tests, NULL, NULL);
}
