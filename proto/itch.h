/* SPDX-License-Identifier: MIT */
/*
 * NASDAQ TotalView-ITCH 5.0 messages (contract: docs/wire.md).
 *
 * Layout constants for the fields the decoder reads in its hot loop, the
 * fixed length of every ITCH 5.0 message type, and a generic encoder/decoder
 * for the types the exchange simulator emits and the order book and tape read
 * (S, R, A, F, E, C, X, D, U, P, Q, B).
 * Alphanumeric fields are kept as raw space-padded bytes, never NUL-terminated.
 */
#ifndef PROTO_ITCH_H
#define PROTO_ITCH_H

#include <stddef.h>
#include <stdint.h>

/* Common header: Type(1) Locate(2) Tracking(2) Timestamp(6). */
#define ITCH_OFF_TYPE		0
#define ITCH_OFF_LOCATE		1
#define ITCH_OFF_TRACKING	3
#define ITCH_OFF_TIMESTAMP	5
#define ITCH_HDR_LEN		11

#define ITCH_SYMBOL_LEN		8

/* Total lengths (type byte included) of the messages in the spec table. */
#define ITCH_LEN_S		12
#define ITCH_LEN_R		39
#define ITCH_LEN_A		36
#define ITCH_LEN_F		40
#define ITCH_LEN_E		31
#define ITCH_LEN_C		36
#define ITCH_LEN_X		23
#define ITCH_LEN_D		19
#define ITCH_LEN_U		35
#define ITCH_LEN_P		44
#define ITCH_LEN_Q		40
#define ITCH_LEN_B		19

/* S System Event */
#define ITCH_S_OFF_EVENT	11

/* R Stock Directory */
#define ITCH_R_OFF_STOCK	11
#define ITCH_R_OFF_MARKET_CAT	19
#define ITCH_R_OFF_FIN_STATUS	20
#define ITCH_R_OFF_ROUND_LOT	21
#define ITCH_R_OFF_ROUND_ONLY	25
#define ITCH_R_OFF_ISSUE_CLASS	26
#define ITCH_R_OFF_ISSUE_SUB	27
#define ITCH_R_OFF_AUTHENTIC	29
#define ITCH_R_OFF_SHORT_SALE	30
#define ITCH_R_OFF_IPO		31
#define ITCH_R_OFF_LULD_TIER	32
#define ITCH_R_OFF_ETP_FLAG	33
#define ITCH_R_OFF_ETP_LEVER	34
#define ITCH_R_OFF_INVERSE	38

/* A Add Order, F Add Order with MPID */
#define ITCH_A_OFF_ORDER_REF	11
#define ITCH_A_OFF_SIDE		19
#define ITCH_A_OFF_SHARES	20
#define ITCH_A_OFF_STOCK	24
#define ITCH_A_OFF_PRICE	32
#define ITCH_F_OFF_MPID		36

/* E Order Executed, C Order Executed With Price */
#define ITCH_E_OFF_ORDER_REF	11
#define ITCH_E_OFF_SHARES	19
#define ITCH_E_OFF_MATCH	23
#define ITCH_C_OFF_PRINTABLE	31
#define ITCH_C_OFF_PRICE	32

/* X Order Cancel, D Order Delete */
#define ITCH_X_OFF_ORDER_REF	11
#define ITCH_X_OFF_SHARES	19
#define ITCH_D_OFF_ORDER_REF	11

/* U Order Replace */
#define ITCH_U_OFF_ORIG_REF	11
#define ITCH_U_OFF_NEW_REF	19
#define ITCH_U_OFF_SHARES	27
#define ITCH_U_OFF_PRICE	31

/* P Trade (non-cross) */
#define ITCH_P_OFF_ORDER_REF	11
#define ITCH_P_OFF_SIDE		19
#define ITCH_P_OFF_SHARES	20
#define ITCH_P_OFF_STOCK	24
#define ITCH_P_OFF_PRICE	32
#define ITCH_P_OFF_MATCH	36

/* Q Cross Trade (Shares is 8 bytes here, 4 everywhere else) */
#define ITCH_Q_OFF_SHARES	11
#define ITCH_Q_OFF_STOCK	19
#define ITCH_Q_OFF_PRICE	27
#define ITCH_Q_OFF_MATCH	31
#define ITCH_Q_OFF_CROSS_TYPE	39

/* B Broken Trade */
#define ITCH_B_OFF_MATCH	11

#define ITCH_TS_BITS		48
#define ITCH_TS_MASK		((UINT64_C(1) << ITCH_TS_BITS) - 1)

/*
 * Fixed total length of each ITCH 5.0 message type, indexed by the type
 * byte; 0 for a byte that is not an ITCH 5.0 type.
 */
extern const uint8_t itch_msg_len[256];

struct itch_system_event {
	char event;			/* O S Q M E C */
};

struct itch_stock_directory {
	char stock[ITCH_SYMBOL_LEN];
	char market_category;
	char financial_status;
	uint32_t round_lot_size;
	char round_lots_only;
	char issue_classification;
	char issue_subtype[2];
	char authenticity;
	char short_sale_threshold;
	char ipo_flag;
	char luld_tier;
	char etp_flag;
	uint32_t etp_leverage;
	char inverse;
};

/* A and F (mpid used by F only). */
struct itch_add_order {
	uint64_t order_ref;
	char side;
	uint32_t shares;
	char stock[ITCH_SYMBOL_LEN];
	uint32_t price;
	char mpid[4];
};

/* E and C (printable and price used by C only). */
struct itch_order_executed {
	uint64_t order_ref;
	uint32_t shares;
	uint64_t match;
	char printable;
	uint32_t price;
};

struct itch_order_cancel {
	uint64_t order_ref;
	uint32_t shares;
};

struct itch_order_delete {
	uint64_t order_ref;
};

struct itch_order_replace {
	uint64_t orig_ref;
	uint64_t new_ref;
	uint32_t shares;
	uint32_t price;
};

struct itch_trade {
	uint64_t order_ref;
	char side;
	uint32_t shares;
	char stock[ITCH_SYMBOL_LEN];
	uint32_t price;			/* 4 implied decimals */
	uint64_t match;
};

struct itch_cross_trade {
	uint64_t shares;
	char stock[ITCH_SYMBOL_LEN];
	uint32_t price;			/* Cross Price */
	uint64_t match;
	char cross_type;		/* O C H I */
};

struct itch_broken_trade {
	uint64_t match;
};

struct itch_msg {
	char type;
	uint16_t locate;
	uint16_t tracking;
	uint64_t timestamp;		/* 48 bits used */
	union {
		struct itch_system_event s;
		struct itch_stock_directory r;
		struct itch_add_order a;	/* A, F */
		struct itch_order_executed e;	/* E, C */
		struct itch_order_cancel x;
		struct itch_order_delete d;
		struct itch_order_replace u;
		struct itch_trade p;
		struct itch_cross_trade q;
		struct itch_broken_trade b;
	};
};

/*
 * Length of a message type the codec handles (S R A F E C X D U P Q B),
 * or PROTO_E_MSG_TYPE.
 */
int itch_codec_len(char type);

/*
 * Encode @m into @dst (the message only, no MoldUDP64 block length).
 * Returns the message length, PROTO_E_NOSPACE, or PROTO_E_MSG_TYPE for a type
 * other than S R A F E C X D U P Q B.
 */
int itch_encode(uint8_t *dst, size_t cap, const struct itch_msg *m);

/*
 * Decode one message of exactly @len bytes.  Returns the length, or
 * PROTO_E_SHORT (len 0), PROTO_E_MSG_TYPE (not S R A F E C X D U P Q B),
 * PROTO_E_LENGTH (len is not the type's fixed length).
 */
int itch_decode(const uint8_t *src, size_t len, struct itch_msg *m);

/*
 * Recover a full 64-bit CLOCK_MONOTONIC nanosecond value from its low 48 bits
 * and a local clock reading @now_ns taken within 2^47 ns (~39 h) of it: the
 * result is the value congruent to @ts48 modulo 2^48 nearest to @now_ns
 * (never below zero).
 */
static inline uint64_t itch_ts_recover(uint64_t ts48, uint64_t now_ns)
{
	uint64_t diff = (ts48 - now_ns) & ITCH_TS_MASK;
	/* Sign-extend the 48-bit difference. */
	int64_t delta = (int64_t)(diff << 16) >> 16;

	if (delta < 0 && (uint64_t)-delta > now_ns)
		return ts48 & ITCH_TS_MASK;
	return now_ns + (uint64_t)delta;
}

#endif /* PROTO_ITCH_H */
