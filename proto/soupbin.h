/* SPDX-License-Identifier: MIT */
/*
 * SoupBinTCP 3.0 logical packets (contract: docs/wire.md), the framing a
 * venue wraps OUCH in over TCP.
 *
 * A logical packet is Packet Length (2, big-endian, counts the type byte
 * and the payload), Packet Type (1), payload.  Packets do not map to TCP
 * segments: struct soup_rx reassembles the byte stream, whatever the cuts
 * (half a packet, many in one segment, one byte at a time).
 *
 * Encoders write whole packets and return their length or a negative
 * proto_err; payload decoders check the payload's length for its type and
 * never read past it.  Alphanumeric fields are space padded as the
 * contract says (username and password on the right, session and sequence
 * number on the left); the decoders return them raw.
 */
#ifndef PROTO_SOUPBIN_H
#define PROTO_SOUPBIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/be.h"

#define SOUP_OFF_LEN		0
#define SOUP_OFF_TYPE		2
#define SOUP_HDR_LEN		3	/* Packet Length (2) + Packet Type (1) */
/* The length field counts the type byte: a payload is at most this long. */
#define SOUP_PAYLOAD_MAX	(0xffff - 1)
#define SOUP_PKT_MAX		(SOUP_HDR_LEN + SOUP_PAYLOAD_MAX)

/* Packet types (docs/wire.md, "SoupBinTCP logical packet"). */
#define SOUP_DEBUG		'+'	/* both: text, ignored */
#define SOUP_LOGIN_REQUEST	'L'	/* client */
#define SOUP_LOGIN_ACCEPTED	'A'	/* server */
#define SOUP_LOGIN_REJECTED	'J'	/* server */
#define SOUP_SEQ_DATA		'S'	/* server: one sequenced message */
#define SOUP_UNSEQ_DATA		'U'	/* client: one unsequenced message */
#define SOUP_SERVER_HEARTBEAT	'H'
#define SOUP_CLIENT_HEARTBEAT	'R'
#define SOUP_END_OF_SESSION	'Z'	/* server: no more sequenced messages */
#define SOUP_LOGOUT_REQUEST	'O'	/* client */

/* Field widths. */
#define SOUP_USER_LEN		6
#define SOUP_PASSWORD_LEN	10
#define SOUP_SESSION_LEN	10
#define SOUP_SEQNUM_LEN		20	/* ASCII digits, left padded with spaces */

/* Payload lengths of the fixed packets. */
#define SOUP_LOGIN_REQUEST_PAYLOAD \
	(SOUP_USER_LEN + SOUP_PASSWORD_LEN + SOUP_SESSION_LEN + SOUP_SEQNUM_LEN) /* 46 */
#define SOUP_LOGIN_ACCEPTED_PAYLOAD (SOUP_SESSION_LEN + SOUP_SEQNUM_LEN)	/* 30 */
#define SOUP_LOGIN_REJECTED_PAYLOAD 1

#define SOUP_LOGIN_REQUEST_LEN	(SOUP_HDR_LEN + SOUP_LOGIN_REQUEST_PAYLOAD)	/* 49 */
#define SOUP_LOGIN_ACCEPTED_LEN	(SOUP_HDR_LEN + SOUP_LOGIN_ACCEPTED_PAYLOAD)	/* 33 */
#define SOUP_LOGIN_REJECTED_LEN	(SOUP_HDR_LEN + SOUP_LOGIN_REJECTED_PAYLOAD)	/* 4 */
#define SOUP_EMPTY_LEN		SOUP_HDR_LEN	/* H R Z O */

/* Login Rejected reason codes. */
#define SOUP_REJECT_NOT_AUTHORIZED	'A'
#define SOUP_REJECT_NO_SESSION		'S'

/* The largest sequence number 20 digits carry (and a uint64_t holds). */
#define SOUP_SEQNUM_MAX		UINT64_MAX

struct soup_login_request {
	char user[SOUP_USER_LEN];		/* raw, right padded */
	char password[SOUP_PASSWORD_LEN];	/* raw, right padded */
	char session[SOUP_SESSION_LEN];		/* raw, left padded; spaces: current */
	uint64_t seq;				/* next wanted; 0: from now on */
};

struct soup_login_accepted {
	char session[SOUP_SESSION_LEN];		/* raw, left padded */
	uint64_t seq;				/* number of the next message it sends */
};

/* Field helpers: @dst gets @len bytes; @src is a C string, cut at @len. */
void soup_pad_right(char *dst, size_t len, const char *src);
void soup_pad_left(char *dst, size_t len, const char *src);
/* The 20-digit field of @v, left padded with spaces. */
void soup_seqnum_write(char dst[SOUP_SEQNUM_LEN], uint64_t v);
/*
 * Read a 20-byte numeric field: spaces then at least one digit (a field of
 * spaces only, or with a space after a digit, or any other byte, is
 * PROTO_E_CHAR; a value above UINT64_MAX is PROTO_E_RANGE).  0 on success.
 */
int soup_seqnum_read(const char src[SOUP_SEQNUM_LEN], uint64_t *v);

/*
 * Encoders: a whole packet at @dst (room for @cap bytes).  Return its
 * length, or PROTO_E_NOSPACE.
 */
int soup_encode_login_request(uint8_t *dst, size_t cap, const struct soup_login_request *l);
int soup_encode_login_accepted(uint8_t *dst, size_t cap, const struct soup_login_accepted *a);
int soup_encode_login_rejected(uint8_t *dst, size_t cap, char reason);
/* A packet with no payload: H, R, Z or O (PROTO_E_PKT_TYPE for another type). */
int soup_encode_empty(uint8_t *dst, size_t cap, char type);
/* Debug: @len bytes of text (PROTO_E_RANGE above SOUP_PAYLOAD_MAX). */
int soup_encode_debug(uint8_t *dst, size_t cap, const char *text, size_t len);
/*
 * The 3-byte header of a packet of @type whose @payload_len bytes the
 * caller writes after it (S and U carry one OUCH message).  Returns
 * SOUP_HDR_LEN, or PROTO_E_NOSPACE / PROTO_E_RANGE.
 */
int soup_encode_header(uint8_t *dst, size_t cap, char type, size_t payload_len);

/* Write the header in place (the hot path's; no checks). */
static inline void soup_put_header(uint8_t *dst, char type, uint16_t payload_len)
{
	be16_store(dst + SOUP_OFF_LEN, (uint16_t)(1 + payload_len));
	dst[SOUP_OFF_TYPE] = (uint8_t)type;
}

/*
 * Payload decoders: the payload of a packet of that type, as struct
 * soup_pkt gives it.  0, or PROTO_E_LENGTH (not the type's length),
 * PROTO_E_CHAR / PROTO_E_RANGE (a bad sequence number field).
 */
int soup_decode_login_request(const uint8_t *payload, size_t len,
			      struct soup_login_request *l);
int soup_decode_login_accepted(const uint8_t *payload, size_t len,
			       struct soup_login_accepted *a);
int soup_decode_login_rejected(const uint8_t *payload, size_t len, char *reason);

/*
 * Is @payload_len right for @type?  0, PROTO_E_LENGTH (a fixed packet of
 * another length, or an empty S / U), or PROTO_E_PKT_TYPE (not a type of
 * the contract).  A reader counts and skips unknown types; a wrong length
 * is the peer's error.
 */
int soup_check(char type, size_t payload_len);

/* ---- the byte stream ---- */

/* One logical packet: its payload lives until the next soup_rx_next(). */
struct soup_pkt {
	char type;
	uint16_t len;		/* payload bytes */
	const uint8_t *payload;
};

struct soup_rx_stats {
	uint64_t packets;	/* whole packets returned */
	uint64_t bytes;		/* stream bytes pushed */
	uint64_t joined;	/* packets that spanned two or more pushes */
	uint64_t bad_length;	/* a length field of 0 or above max: stream broken */
};

/*
 * The reassembler.  A packet wholly inside a pushed chunk is returned in
 * place (no copy); one cut by the chunk's end is copied into buf and
 * completed from the next chunks.  max: the largest Packet Length
 * accepted (at most 0xffff): a longer one breaks the stream, since no
 * reader can find the next packet's start in it (the connection must go).
 */
struct soup_rx {
	const uint8_t *in;	/* the rest of the current chunk */
	size_t in_len;
	uint32_t have;		/* bytes of the cut packet in buf */
	uint32_t max;
	bool broken;
	struct soup_rx_stats st;
	uint8_t buf[SOUP_PKT_MAX];
};

/* @max_len: largest Packet Length accepted; 0 means 0xffff. */
void soup_rx_init(struct soup_rx *rx, uint32_t max_len);
/* A new connection's stream: nothing held, counters kept. */
void soup_rx_reset(struct soup_rx *rx);

/*
 * The next chunk of the stream.  The previous one must have been read to
 * the end (soup_rx_next() returned 0) first: its unread bytes are dropped
 * otherwise.  The chunk must stay valid until soup_rx_next() returns 0.
 */
static inline void soup_rx_push(struct soup_rx *rx, const uint8_t *data, size_t len)
{
	rx->in = data;
	rx->in_len = len;
	rx->st.bytes += len;
}

/* The slow path of soup_rx_next(): a packet cut by a chunk's end. */
int soup_rx_next_slow(struct soup_rx *rx, struct soup_pkt *p);

/*
 * The next whole packet: 1 (in *p), 0 when the chunk is used up (a cut
 * packet's bytes are kept for the next push), or PROTO_E_LENGTH when the
 * stream is broken (a length of 0, or above max): every later call says so
 * again until soup_rx_reset().
 */
static inline int soup_rx_next(struct soup_rx *rx, struct soup_pkt *p)
{
	if (__builtin_expect(!rx->have && rx->in_len >= SOUP_HDR_LEN && !rx->broken, 1)) {
		uint16_t plen = be16_load(rx->in);

		if (plen && plen <= rx->max && (size_t)plen + 2 <= rx->in_len) {
			p->type = (char)rx->in[SOUP_OFF_TYPE];
			p->len = (uint16_t)(plen - 1);
			p->payload = rx->in + SOUP_HDR_LEN;
			rx->in += (size_t)plen + 2;
			rx->in_len -= (size_t)plen + 2;
			rx->st.packets++;
			return 1;
		}
	}
	return soup_rx_next_slow(rx, p);
}

/* Name of a packet type for logs ("login request", ...), or "unknown". */
const char *soup_type_name(char type);

#endif /* PROTO_SOUPBIN_H */
