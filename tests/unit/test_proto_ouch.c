// SPDX-License-Identifier: MIT
/*
 * OUCH 4.2 in SoupBinTCP packets: the Enter Order packet and the four
 * replies, round trips, offsets against docs/wire.md (as numbers), every
 * decode error, the order token, and the hot path's template in a TCP
 * frame equal to the plain encoder and a full checksum.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "proto/csum.h"
#include "proto/frame.h"
#include "proto/tcp_seg.h"

#include "proto/order_token.h"
#include "proto/ouch.h"
#include "proto/proto_err.h"

static const char token[14] = { 'T', 'O', 'K', 'E', 'N', '0', '1',
				'2', '3', '4', '5', '6', '7', '8' };

static void make_order(struct ouch_enter_order *o)
{
	memset(o, 0, sizeof(*o));
	memcpy(o->token, token, 14);
	o->side = 'B';
	o->shares = 0x01020304;
	memcpy(o->stock, "AAPL    ", 8);
	o->price = 1500000;
	o->tif = 0;
	memcpy(o->firm, "GWAY", 4);
	o->display = 'Y';
	o->capacity = 'P';
	o->iso = 'N';
	o->min_qty = 0x0a0b0c0d;
	o->cross_type = 'N';
	o->customer_type = 'R';
}

static void test_enter_order(void **state)
{
	const uint8_t shares[4] = { 1, 2, 3, 4 };
	const uint8_t price[4] = { 0x00, 0x16, 0xe3, 0x60 };
	const uint8_t zero4[4] = { 0 };
	const uint8_t minq[4] = { 0x0a, 0x0b, 0x0c, 0x0d };
	struct ouch_enter_order o, back;
	uint8_t b[64];
	const uint8_t *m = b + 3;

	(void)state;
	make_order(&o);
	assert_int_equal(ouch_encode_enter_order(b, sizeof(b), &o), 52);
	/* SoupBin: length 50 (type byte + 49), type 'U'. */
	assert_int_equal(b[0], 0);
	assert_int_equal(b[1], 50);
	assert_int_equal(b[2], 'U');
	assert_int_equal(m[0], 'O');
	assert_memory_equal(m + 1, token, 14);
	assert_int_equal(m[15], 'B');
	assert_memory_equal(m + 16, shares, 4);
	assert_memory_equal(m + 20, "AAPL    ", 8);
	assert_memory_equal(m + 28, price, 4);
	assert_memory_equal(m + 32, zero4, 4);
	assert_memory_equal(m + 36, "GWAY", 4);
	assert_int_equal(m[40], 'Y');
	assert_int_equal(m[41], 'P');
	assert_int_equal(m[42], 'N');
	assert_memory_equal(m + 43, minq, 4);
	assert_int_equal(m[47], 'N');
	assert_int_equal(m[48], 'R');

	memset(&back, 0x55, sizeof(back));
	assert_int_equal(ouch_decode_enter_order(m, 49, &back), 49);
	/* Compare field by field: padding is not part of the contract. */
	assert_memory_equal(back.token, o.token, 14);
	assert_int_equal(back.side, o.side);
	assert_int_equal(back.shares, o.shares);
	assert_memory_equal(back.stock, o.stock, 8);
	assert_int_equal(back.price, o.price);
	assert_int_equal(back.tif, o.tif);
	assert_memory_equal(back.firm, o.firm, 4);
	assert_int_equal(back.display, o.display);
	assert_int_equal(back.capacity, o.capacity);
	assert_int_equal(back.iso, o.iso);
	assert_int_equal(back.min_qty, o.min_qty);
	assert_int_equal(back.cross_type, o.cross_type);
	assert_int_equal(back.customer_type, o.customer_type);

	assert_int_equal(ouch_encode_enter_order(b, 51, &o), PROTO_E_NOSPACE);
}

static void test_enter_order_errors(void **state)
{
	struct ouch_enter_order o;
	uint8_t b[64];

	(void)state;
	make_order(&o);
	ouch_encode_enter_order(b, sizeof(b), &o);
	assert_int_equal(ouch_decode_enter_order(b + 3, 0, &o), PROTO_E_SHORT);
	/* A message shorter or longer than an Enter Order. */
	assert_int_equal(ouch_decode_enter_order(b + 3, 48, &o), PROTO_E_LENGTH);
	assert_int_equal(ouch_decode_enter_order(b + 3, 50, &o), PROTO_E_LENGTH);
	b[3] = 'X';
	assert_int_equal(ouch_decode_enter_order(b + 3, 49, &o), PROTO_E_MSG_TYPE);
}

static void reply_hdr(struct ouch_reply *r, char type)
{
	memset(r, 0, sizeof(*r));
	r->type = type;
	r->timestamp = 0x0102030405060708ull;
	memcpy(r->token, token, 14);
}

/* Encode, check framing and common fields, decode back and compare. */
static const uint8_t *reply_round_trip(const struct ouch_reply *r, int mlen,
				       uint8_t *b)
{
	const uint8_t ts[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	struct ouch_reply back;

	assert_int_equal(ouch_encode_reply(b, 128, r), 3 + mlen);
	assert_int_equal(b[0], 0);
	assert_int_equal(b[1], 1 + mlen);
	assert_int_equal(b[2], 'S');
	assert_int_equal(b[3], (uint8_t)r->type);
	assert_memory_equal(b + 3 + 1, ts, 8);
	assert_memory_equal(b + 3 + 9, token, 14);
	assert_int_equal(ouch_decode_reply(b + 3, (size_t)mlen, &back), mlen);
	assert_memory_equal(&back, r, sizeof(back));
	assert_int_equal(ouch_encode_reply(b, (size_t)(2 + mlen), r),
			 PROTO_E_NOSPACE);
	ouch_encode_reply(b, 128, r);
	return b + 3;
}

static void test_accepted(void **state)
{
	const uint8_t ref[8] = { 0, 0, 0, 0, 0, 0, 0x12, 0x34 };
	struct ouch_reply r;
	uint8_t b[128];
	const uint8_t *m;

	(void)state;
	reply_hdr(&r, 'A');
	r.accepted.side = 'S';
	r.accepted.shares = 100;
	memcpy(r.accepted.stock, "MSFT    ", 8);
	r.accepted.price = 2000000;
	r.accepted.tif = 0;
	memcpy(r.accepted.firm, "GWAY", 4);
	r.accepted.display = 'Y';
	r.accepted.order_ref = 0x1234;
	r.accepted.capacity = 'P';
	r.accepted.iso = 'N';
	r.accepted.min_qty = 7;
	r.accepted.cross_type = 'N';
	r.accepted.order_state = 'L';
	r.accepted.bbo_weight = '0';
	m = reply_round_trip(&r, 66, b);
	assert_int_equal(m[23], 'S');
	assert_int_equal(m[27], 100);
	assert_memory_equal(m + 28, "MSFT    ", 8);
	assert_memory_equal(m + 44, "GWAY", 4);
	assert_int_equal(m[48], 'Y');
	assert_memory_equal(m + 49, ref, 8);
	assert_int_equal(m[57], 'P');
	assert_int_equal(m[58], 'N');
	assert_int_equal(m[62], 7);
	assert_int_equal(m[63], 'N');
	assert_int_equal(m[64], 'L');
	assert_int_equal(m[65], '0');
}

static void test_executed(void **state)
{
	struct ouch_reply r;
	uint8_t b[128];
	const uint8_t *m;

	(void)state;
	reply_hdr(&r, 'E');
	r.executed.shares = 100;
	r.executed.price = 0x00112233;
	r.executed.liquidity = 'R';
	r.executed.match = 0x0a0b0c0d0e0f1011ull;
	m = reply_round_trip(&r, 40, b);
	assert_int_equal(m[26], 100);
	assert_int_equal(m[28], 0x11);
	assert_int_equal(m[30], 0x33);
	assert_int_equal(m[31], 'R');
	assert_int_equal(m[32], 0x0a);
	assert_int_equal(m[39], 0x11);
}

static void test_canceled_rejected(void **state)
{
	struct ouch_reply r;
	uint8_t b[128];
	const uint8_t *m;

	(void)state;
	reply_hdr(&r, 'C');
	r.canceled.decrement = 100;
	r.canceled.reason = 'I';
	m = reply_round_trip(&r, 28, b);
	assert_int_equal(m[26], 100);
	assert_int_equal(m[27], 'I');

	reply_hdr(&r, 'J');
	r.rejected.reason = 'Z';
	m = reply_round_trip(&r, 24, b);
	assert_int_equal(m[23], 'Z');
}

static void test_reply_errors(void **state)
{
	struct ouch_reply r;
	uint8_t b[128];

	(void)state;
	reply_hdr(&r, 'E');
	ouch_encode_reply(b, sizeof(b), &r);		/* a 43-byte packet */
	assert_int_equal(ouch_decode_reply(b + 3, 0, &r), PROTO_E_SHORT);
	assert_int_equal(ouch_decode_reply(b + 3, 39, &r), PROTO_E_LENGTH);
	assert_int_equal(ouch_decode_reply(b + 3, 41, &r), PROTO_E_LENGTH);
	b[3] = 'Q';
	assert_int_equal(ouch_decode_reply(b + 3, 40, &r), PROTO_E_MSG_TYPE);
	/* An Executed type byte with a Rejected's length. */
	b[3] = 'E';
	assert_int_equal(ouch_decode_reply(b + 3, 24, &r), PROTO_E_LENGTH);
	/* 'A' with an Executed body. */
	b[3] = 'A';
	assert_int_equal(ouch_decode_reply(b + 3, 40, &r), PROTO_E_LENGTH);
	r.type = 'O';
	assert_int_equal(ouch_encode_reply(b, sizeof(b), &r), PROTO_E_MSG_TYPE);
	assert_int_equal(ouch_reply_len('J'), 24);
}

static void test_token(void **state)
{
	char t[14];
	uint64_t seq;
	uint32_t num;

	(void)state;
	/* Independently computed with the Crockford base-32 alphabet. */
	order_token_encode(t, 1234567, 42);
	assert_memory_equal(t, "000015NM70001A", 14);
	order_token_encode(t, 0x123456789ABull, 0x1ABCDEF);
	assert_memory_equal(t, "14D2PF2DBTQKFF", 14);
	order_token_encode(t, ORDER_TOKEN_SEQ_MASK, ORDER_TOKEN_NUM_MASK);
	assert_memory_equal(t, "ZZZZZZZZZZZZZZ", 14);

	assert_int_equal(order_token_decode(t, &seq, &num), 0);
	assert_int_equal(seq, ORDER_TOKEN_SEQ_MASK);
	assert_int_equal(num, ORDER_TOKEN_NUM_MASK);

	/* Bits above the fields are dropped, not spilled. */
	order_token_encode(t, (1ull << 45) | 5, (1u << 25) | 6);
	assert_int_equal(order_token_decode(t, &seq, &num), 0);
	assert_int_equal(seq, 5);
	assert_int_equal(num, 6);

	for (seq = 1; seq < (1ull << 45); seq = seq * 3 + 1) {
		uint64_t s2;
		uint32_t n2, n = (uint32_t)(seq * 7) & ORDER_TOKEN_NUM_MASK;

		order_token_encode(t, seq, n);
		assert_int_equal(order_token_decode(t, &s2, &n2), 0);
		assert_int_equal(s2, seq);
		assert_int_equal(n2, n);
	}

	memcpy(t, "000015NM70001A", 14);
	t[3] = 'I';			/* excluded from the alphabet */
	assert_int_equal(order_token_decode(t, &seq, &num), PROTO_E_CHAR);
	t[3] = ' ';
	assert_int_equal(order_token_decode(t, &seq, &num), PROTO_E_CHAR);
	t[3] = '0';
	t[13] = 'a';			/* lower case is not a digit */
	assert_int_equal(order_token_decode(t, &seq, &num), PROTO_E_CHAR);
}

/* The hot-path template must equal the plain encoder, checksum included. */
static void test_order_template(void **state)
{
	static const char *stocks[] = { "AAPL    ", "ZVZZT   ", "\xff\xff\xff\xff\xff\xff\xff\xff",
					"\0\0\0\0\0\0\0\0", "QQQ     " };
	struct frame_endpoint a = { { 2, 0, 0, 0, 0, 1 }, 0x0a4d0001, 40001 };
	struct frame_endpoint b = { { 2, 0, 0, 0, 0, 2 }, 0x0a4d0002, 9001 };
	struct tcp_template ft1, ft2;
	struct ouch_order_tmpl t;
	struct ouch_enter_order o;
	uint8_t want[128], got[128];
	int i;

	(void)state;
	make_order(&o);
	ouch_order_tmpl_init(&t, &o);
	tcp_template_init(&ft1, &a, &b, 64);
	tcp_template_init(&ft2, &a, &b, 64);
	srand(42);
	for (i = 0; i < 20000; i++) {
		uint64_t seq = (uint64_t)rand() << 31 ^ (uint64_t)rand();
		uint32_t num = (uint32_t)rand();
		uint64_t sum;

		if (i < 2)	/* all-zero and all-ones corners */
			seq = num = i ? ~0u : 0;
		o.side = "BST\xff"[i & 3];
		o.shares = i < 2 ? -(uint32_t)i : (uint32_t)rand() * 3u;
		o.price = i < 2 ? -(uint32_t)i : (uint32_t)rand() * 5u;
		memcpy(o.stock, stocks[i % 5], 8);
		order_token_encode(o.token, seq, num);
		ouch_encode_enter_order(want + FRAME_TCP_HDR_LEN, 64, &o);

		sum = ouch_order_tmpl_write(&t, got + FRAME_TCP_HDR_LEN, seq, num,
					    o.side, o.shares, o.stock, o.price);
		assert_memory_equal(got + FRAME_TCP_HDR_LEN, want + FRAME_TCP_HDR_LEN,
				    OUCH_ENTER_PKT_LEN);
		assert_int_equal(csum_fold(sum),
				 csum_fold(csum_partial(want + FRAME_TCP_HDR_LEN,
							OUCH_ENTER_PKT_LEN, 0)));

		/* The frame from the template's sum, against a full checksum. */
		assert_int_equal(tcp_frame_finish(&ft1, want, (uint32_t)seq, num, TCP_ACK | TCP_PSH,
						  65535, 0, OUCH_ENTER_PKT_LEN,
						  csum_partial(want + FRAME_TCP_HDR_LEN,
							       OUCH_ENTER_PKT_LEN, 0)),
				 FRAME_TCP_HDR_LEN + OUCH_ENTER_PKT_LEN);
		assert_int_equal(tcp_frame_finish(&ft2, got, (uint32_t)seq, num, TCP_ACK | TCP_PSH,
						  65535, 0, OUCH_ENTER_PKT_LEN, sum),
				 FRAME_TCP_HDR_LEN + OUCH_ENTER_PKT_LEN);
		assert_memory_equal(got, want, FRAME_TCP_HDR_LEN + OUCH_ENTER_PKT_LEN);
		{
			struct tcp_seg sg;

			assert_int_equal(frame_parse_tcp(got, FRAME_TCP_HDR_LEN + OUCH_ENTER_PKT_LEN,
							 &sg), 0);
			assert_int_equal(tcp_seg_verify(&sg), 0);
		}
	}
}

static void test_strerror(void **state)
{
	(void)state;
	assert_string_equal(proto_strerror(PROTO_E_LENGTH), "length");
	assert_string_equal(proto_strerror(-999), "unknown error");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_enter_order),
		cmocka_unit_test(test_enter_order_errors),
		cmocka_unit_test(test_accepted),
		cmocka_unit_test(test_executed),
		cmocka_unit_test(test_canceled_rejected),
		cmocka_unit_test(test_reply_errors),
		cmocka_unit_test(test_token),
		cmocka_unit_test(test_order_template),
		cmocka_unit_test(test_strerror),
	};

	return cmocka_run_group_tests_name("proto_ouch", tests, NULL, NULL);
}
