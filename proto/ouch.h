/* SPDX-License-Identifier: MIT */
/*
 * OUCH 4.2 messages (contract: docs/wire.md), carried in SoupBinTCP 3.0
 * packets over TCP (proto/soupbin.h): the client's Enter Order in an
 * Unsequenced Data packet ('U'), each of the exchange's replies in a
 * Sequenced Data packet ('S'), numbered by the session (proto/soup_client.h).
 *
 * Gateway side: the Enter Order packet (from a template, on the hot path),
 * the replies decoded from the messages the session hands on.  Simulator
 * side: the Enter Order message decoded from a 'U' packet's payload, the
 * replies encoded as whole 'S' packets.  Decoders check every length and
 * never read past @len; alphanumeric fields stay raw space-padded bytes.
 */
#ifndef PROTO_OUCH_H
#define PROTO_OUCH_H

#include <stddef.h>
#include <stdint.h>

#include "proto/be.h"
#include "proto/csum.h"
#include "proto/order_token.h"
#include "proto/soupbin.h"

#define OUCH_LEN_ENTER		49
#define OUCH_LEN_ACCEPTED	66
#define OUCH_LEN_EXECUTED	40
#define OUCH_LEN_CANCELED	28
#define OUCH_LEN_REJECTED	24

/* The Enter Order's Unsequenced Data packet. */
#define OUCH_ENTER_PKT_LEN	(SOUP_HDR_LEN + OUCH_LEN_ENTER)		/* 52 */
/* The largest reply's Sequenced Data packet (an Accepted). */
#define OUCH_REPLY_PKT_MAX	(SOUP_HDR_LEN + OUCH_LEN_ACCEPTED)	/* 69 */

/* Offsets inside the OUCH message (add SOUP_HDR_LEN for the packet). */
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
	char reason;		/* OUCH_REJ_*, or a venue's other code */
};

/* OUCH 4.2's Rejected reasons (a venue may add its own). */
#define OUCH_REJ_TEST_MODE	'T'
#define OUCH_REJ_HALTED		'H'
#define OUCH_REJ_SHARES		'Z'	/* shares beyond the safety threshold */
#define OUCH_REJ_STOCK		'S'	/* invalid stock */
#define OUCH_REJ_DISPLAY	'D'
#define OUCH_REJ_CLOSED		'C'	/* the exchange is closed */
#define OUCH_REJ_FIRM		'L'	/* firm not authorized for the clearing type */
#define OUCH_REJ_TIMES		'M'	/* outside the permitted times */
#define OUCH_REJ_CROSS		'R'
#define OUCH_REJ_PRICE		'X'	/* invalid price */
#define OUCH_REJ_MIN_QTY	'N'
#define OUCH_REJ_OTHER		'O'

/* What a Rejected's reason means, for a person: "exchange closed"; NULL: unknown. */
const char *ouch_reject_reason(char reason);

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

/* The Enter Order packet ('U').  Returns OUCH_ENTER_PKT_LEN or PROTO_E_NOSPACE. */
int ouch_encode_enter_order(uint8_t *dst, size_t cap,
			    const struct ouch_enter_order *o);

/*
 * Hot path: an Enter Order packet prefilled once from a prototype order
 * (firm, time in force, display, capacity, ...).  Per order only the token,
 * side, shares, stock and price are written, and the one's complement sum of
 * the packet is returned, built from the fixed part's sum and the new
 * field values in registers: the frame's checksum (tcp_frame_finish())
 * then covers the payload without reading back bytes just stored.
 */
struct ouch_order_tmpl {
	uint8_t pkt[OUCH_ENTER_PKT_LEN];	/* per-order fields zero */
	uint64_t fixed_sum;			/* csum_partial of pkt */
};

void ouch_order_tmpl_init(struct ouch_order_tmpl *t,
			  const struct ouch_enter_order *proto);

/*
 * Write the packet (OUCH_ENTER_PKT_LEN bytes) at @dst, which must start at
 * an even offset of the checksummed data (a TCP payload does).  Returns its
 * csum_partial()-compatible sum.
 */
static inline uint64_t ouch_order_tmpl_write(const struct ouch_order_tmpl *t,
					     uint8_t *dst, uint64_t md_seq,
					     uint32_t order_no, char side,
					     uint32_t shares,
					     const char stock[8],
					     uint32_t price)
{
	enum {	/* packet offsets: even ones, then odd ones */
		TOKEN = SOUP_HDR_LEN + OUCH_O_OFF_TOKEN,	/* 4 */
		SIDE = SOUP_HDR_LEN + OUCH_O_OFF_SIDE,		/* 18 */
		SHARES = SOUP_HDR_LEN + OUCH_O_OFF_SHARES,	/* 19 */
		STOCK = SOUP_HDR_LEN + OUCH_O_OFF_STOCK,	/* 23 */
		PRICE = SOUP_HDR_LEN + OUCH_O_OFF_PRICE,	/* 31 */
	};
	struct order_token_words w = order_token_words(md_seq, order_no);
	uint64_t sum = t->fixed_sum, stock_mem;

	_Static_assert(TOKEN % 2 == 0 && SIDE % 2 == 0 && SHARES % 2 == 1 &&
		       STOCK % 2 == 1 && PRICE % 2 == 1,
		       "checksum parity of Enter Order fields");
	__builtin_memcpy(dst, t->pkt, OUCH_ENTER_PKT_LEN);
	__builtin_memcpy(&stock_mem, stock, 8);

	be64_store(dst + TOKEN, w.w8);
	be32_store(dst + TOKEN + 8, w.w4);
	be16_store(dst + TOKEN + 12, w.w2);
	dst[SIDE] = (uint8_t)side;
	be32_store(dst + SHARES, shares);
	__builtin_memcpy(dst + STOCK, &stock_mem, 8);
	be32_store(dst + PRICE, price);

	sum += csum_field64_even(be64_mem(w.w8));
	sum += csum_field32_even(be32_mem(w.w4));
	sum += csum_field16_even(be16_mem(w.w2));
	sum += csum_byte_even((uint8_t)side);
	sum += csum_field32_odd(be32_mem(shares));
	sum += csum_field64_odd(stock_mem);
	sum += csum_field32_odd(be32_mem(price));
	return sum;
}

/*
 * Simulator side: the Enter Order message, the payload of a 'U' packet.
 * Returns OUCH_LEN_ENTER, or PROTO_E_SHORT (empty), PROTO_E_MSG_TYPE (not
 * 'O'), PROTO_E_LENGTH (not 49 bytes).
 */
int ouch_decode_enter_order(const uint8_t *msg, size_t len, struct ouch_enter_order *o);

/* Simulator side: the reply as a whole 'S' packet.  Returns its length or < 0. */
int ouch_encode_reply(uint8_t *dst, size_t cap, const struct ouch_reply *r);

/*
 * Gateway side: a reply message, the payload of an 'S' packet.  Returns its
 * length, or PROTO_E_SHORT, PROTO_E_MSG_TYPE (not A E C J), PROTO_E_LENGTH.
 */
int ouch_decode_reply(const uint8_t *msg, size_t len, struct ouch_reply *r);

/* Fixed message length of a reply type, or PROTO_E_MSG_TYPE. */
int ouch_reply_len(char type);

#endif /* PROTO_OUCH_H */
