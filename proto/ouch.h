/* SPDX-License-Identifier: MIT */
/*
 * OUCH 4.2 messages in SoupBinTCP-style UDP datagrams
 * (contract: shared/spec/wire.md).
 *
 * Datagram: Packet Length (2, counts the type byte and payload), Packet Type
 * (1: 'U' client -> exchange, 'S' exchange -> client), one OUCH message.
 * Gateway side: encode Enter Order, decode the four replies.  Simulator side:
 * decode Enter Order, encode the replies.  Decoders check every length and
 * never read past @len; alphanumeric fields stay raw space-padded bytes.
 */
#ifndef PROTO_OUCH_H
#define PROTO_OUCH_H

#include <stddef.h>
#include <stdint.h>

#include "proto/order_token.h"

#define SOUP_OFF_LEN		0
#define SOUP_OFF_TYPE		2
#define SOUP_HDR_LEN		3
#define SOUP_TYPE_UNSEQ		'U'
#define SOUP_TYPE_SEQ		'S'

#define OUCH_LEN_ENTER		49
#define OUCH_LEN_ACCEPTED	66
#define OUCH_LEN_EXECUTED	40
#define OUCH_LEN_CANCELED	28
#define OUCH_LEN_REJECTED	24

/* Datagram length of an Enter Order. */
#define OUCH_ENTER_DGRAM_LEN	(SOUP_HDR_LEN + OUCH_LEN_ENTER)

/* Offsets inside the OUCH message (add SOUP_HDR_LEN for the datagram). */
#define OUCH_O_OFF_TOKEN	1
#define OUCH_O_OFF_SIDE		15
#define OUCH_O_OFF_SHARES	16
#define OUCH_O_OFF_STOCK	20
#define OUCH_O_OFF_PRICE	28
#define OUCH_O_OFF_TIF		32
#define OUCH_O_OFF_FIRM		36
#define OUCH_O_OFF_DISPLAY	40
#define OUCH_O_OFF_CAPACITY	41
#define OUCH_O_OFF_ISO		42
#define OUCH_O_OFF_MIN_QTY	43
#define OUCH_O_OFF_CROSS	47
#define OUCH_O_OFF_CUSTOMER	48

/* Every reply: Type (1), Timestamp (8), Order Token (14), then its own. */
#define OUCH_R_OFF_TIMESTAMP	1
#define OUCH_R_OFF_TOKEN	9
#define OUCH_R_HDR_LEN		23

#define OUCH_A_OFF_SIDE		23
#define OUCH_A_OFF_SHARES	24
#define OUCH_A_OFF_STOCK	28
#define OUCH_A_OFF_PRICE	36
#define OUCH_A_OFF_TIF		40
#define OUCH_A_OFF_FIRM		44
#define OUCH_A_OFF_DISPLAY	48
#define OUCH_A_OFF_ORDER_REF	49
#define OUCH_A_OFF_CAPACITY	57
#define OUCH_A_OFF_ISO		58
#define OUCH_A_OFF_MIN_QTY	59
#define OUCH_A_OFF_CROSS	63
#define OUCH_A_OFF_STATE	64
#define OUCH_A_OFF_BBO_WEIGHT	65

#define OUCH_E_OFF_SHARES	23
#define OUCH_E_OFF_PRICE	27
#define OUCH_E_OFF_LIQUIDITY	31
#define OUCH_E_OFF_MATCH	32

#define OUCH_C_OFF_DECREMENT	23
#define OUCH_C_OFF_REASON	27

#define OUCH_J_OFF_REASON	23

#define OUCH_TIF_IOC		0

struct ouch_enter_order {
	char token[ORDER_TOKEN_LEN];
	char side;			/* B S T E */
	uint32_t shares;
	char stock[8];
	uint32_t price;			/* 4 implied decimals */
	uint32_t tif;			/* seconds; 0 = immediate-or-cancel */
	char firm[4];
	char display;
	char capacity;
	char iso;			/* Intermarket Sweep eligibility */
	uint32_t min_qty;
	char cross_type;
	char customer_type;
};

struct ouch_accepted {
	char side;
	uint32_t shares;
	char stock[8];
	uint32_t price;
	uint32_t tif;
	char firm[4];
	char display;
	uint64_t order_ref;
	char capacity;
	char iso;
	uint32_t min_qty;
	char cross_type;
	char order_state;
	char bbo_weight;
};

struct ouch_executed {
	uint32_t shares;
	uint32_t price;
	char liquidity;
	uint64_t match;
};

struct ouch_canceled {
	uint32_t decrement;
	char reason;
};

struct ouch_rejected {
	char reason;
};

/* A reply from the exchange: 'A', 'E', 'C' or 'J'. */
struct ouch_reply {
	char type;
	uint64_t timestamp;
	char token[ORDER_TOKEN_LEN];
	union {
		struct ouch_accepted accepted;
		struct ouch_executed executed;
		struct ouch_canceled canceled;
		struct ouch_rejected rejected;
	};
};

/* Enter Order datagram ('U').  Returns OUCH_ENTER_DGRAM_LEN or PROTO_E_NOSPACE. */
int ouch_encode_enter_order(uint8_t *dst, size_t cap,
			    const struct ouch_enter_order *o);

/*
 * Simulator side: decode an Enter Order datagram.  Returns the datagram
 * length, or PROTO_E_SHORT, PROTO_E_LENGTH (Packet Length disagrees with the
 * datagram, or not 1 + 49), PROTO_E_PKT_TYPE (not 'U'), PROTO_E_MSG_TYPE
 * (not 'O').
 */
int ouch_decode_enter_order(const uint8_t *pkt, size_t len,
			    struct ouch_enter_order *o);

/* Simulator side: reply datagram ('S').  Returns its length or < 0. */
int ouch_encode_reply(uint8_t *dst, size_t cap, const struct ouch_reply *r);

/*
 * Gateway side: decode a reply datagram.  Returns the datagram length or
 * PROTO_E_SHORT, PROTO_E_LENGTH, PROTO_E_PKT_TYPE (not 'S'),
 * PROTO_E_MSG_TYPE (not A E C J).
 */
int ouch_decode_reply(const uint8_t *pkt, size_t len, struct ouch_reply *r);

/* Fixed message length of a reply type, or PROTO_E_MSG_TYPE. */
int ouch_reply_len(char type);

#endif /* PROTO_OUCH_H */
