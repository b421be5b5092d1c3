/* SPDX-License-Identifier: MIT */
/*
 * OUCH Order Token (14 ASCII bytes) carrying the tick-to-trade link.
 *
 * Layout, fixed width, no padding, most significant digit first:
 *
 *   bytes 0..8   MoldUDP64 sequence number of the market-data message that
 *                triggered the order, low 45 bits, 9 base-32 digits
 *   bytes 9..13  per-client order number, low 25 bits, 5 base-32 digits
 *
 * Digits are Crockford base-32: "0123456789ABCDEFGHJKMNPQRSTVWXYZ" (no I, L,
 * O, U), so the token is alphanumeric as OUCH requires, needs no space
 * padding, and tokens of one client sort by triggering sequence number.
 * Example: seq 1234567, order 42 -> "000015NM7" "0001A" = "000015NM70001A".
 *
 * 45 bits is 3.5e13 messages per session (a busy feed day is ~1e10) and
 * 25 bits is 33.5 million orders per client per day.  Encoding is 14 table
 * lookups, no division and no snprintf; the exchange simulator decodes it to
 * find the message whose send time starts the tick-to-trade measurement.
 * Which client sent the order is the SoupBinTCP session's account (its
 * login), across however many connections it makes.
 */
#ifndef PROTO_ORDER_TOKEN_H
#define PROTO_ORDER_TOKEN_H

#include <stdint.h>

#include "proto/be.h"

#define ORDER_TOKEN_LEN		14
#define ORDER_TOKEN_SEQ_DIGITS	9
#define ORDER_TOKEN_NUM_DIGITS	5
#define ORDER_TOKEN_SEQ_BITS	45
#define ORDER_TOKEN_NUM_BITS	25
#define ORDER_TOKEN_SEQ_MASK	((UINT64_C(1) << ORDER_TOKEN_SEQ_BITS) - 1)
#define ORDER_TOKEN_NUM_MASK	((UINT32_C(1) << ORDER_TOKEN_NUM_BITS) - 1)

extern const char order_token_digits[32];

/* Digit k (0 = least significant) of @v as an ASCII byte. */
#define ORDER_TOKEN_DIGIT(v, k) \
	((uint64_t)(uint8_t)order_token_digits[((v) >> (5 * (k))) & 31])

/*
 * The token as three integers whose big-endian bytes are token bytes 0..7,
 * 8..11 and 12..13.  Unrolled with constant shifts; bits above 45 / 25 are
 * dropped.
 */
struct order_token_words {
	uint64_t w8;
	uint32_t w4;
	uint16_t w2;
};

static inline struct order_token_words order_token_words(uint64_t md_seq,
							 uint32_t order_no)
{
	struct order_token_words w;

	w.w8 =	ORDER_TOKEN_DIGIT(md_seq, 8) << 56 |
		ORDER_TOKEN_DIGIT(md_seq, 7) << 48 |
		ORDER_TOKEN_DIGIT(md_seq, 6) << 40 |
		ORDER_TOKEN_DIGIT(md_seq, 5) << 32 |
		ORDER_TOKEN_DIGIT(md_seq, 4) << 24 |
		ORDER_TOKEN_DIGIT(md_seq, 3) << 16 |
		ORDER_TOKEN_DIGIT(md_seq, 2) << 8 |
		ORDER_TOKEN_DIGIT(md_seq, 1);
	w.w4 = (uint32_t)(ORDER_TOKEN_DIGIT(md_seq, 0) << 24 |
			  ORDER_TOKEN_DIGIT(order_no, 4) << 16 |
			  ORDER_TOKEN_DIGIT(order_no, 3) << 8 |
			  ORDER_TOKEN_DIGIT(order_no, 2));
	w.w2 = (uint16_t)(ORDER_TOKEN_DIGIT(order_no, 1) << 8 |
			  ORDER_TOKEN_DIGIT(order_no, 0));
	return w;
}

/*
 * Write the 14 token bytes.  Digits are gathered in registers and stored as
 * 8 + 4 + 2 bytes, so that a later 8-byte load of the token (memcpy into the
 * order) forwards from the stores instead of stalling on 14 byte stores.
 */
static inline void order_token_encode(char dst[ORDER_TOKEN_LEN],
				      uint64_t md_seq, uint32_t order_no)
{
	struct order_token_words w = order_token_words(md_seq, order_no);

	be64_store(dst, w.w8);
	be32_store(dst + 8, w.w4);
	be16_store(dst + 12, w.w2);
}

/* Returns 0, or PROTO_E_CHAR if a byte is not a token digit. */
int order_token_decode(const char src[ORDER_TOKEN_LEN], uint64_t *md_seq,
		       uint32_t *order_no);

#endif /* PROTO_ORDER_TOKEN_H */
