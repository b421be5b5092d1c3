/* SPDX-License-Identifier: MIT */
/*
 * MoldUDP64 downstream packets and re-requests (contract: docs/wire.md).
 *
 * The builder writes a packet in place in a caller buffer (a UMEM frame or a
 * socket buffer) and refuses a block that would exceed the byte budget, so a
 * simulator can pack messages up to the MTU.
 */
#ifndef PROTO_MOLDUDP64_H
#define PROTO_MOLDUDP64_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MOLD_SESSION_LEN	10
#define MOLD_OFF_SESSION	0
#define MOLD_OFF_SEQ		10
#define MOLD_OFF_COUNT		18
#define MOLD_HDR_LEN		20
#define MOLD_BLOCK_HDR_LEN	2
#define MOLD_REREQ_LEN		20

#define MOLD_COUNT_HEARTBEAT	0
#define MOLD_COUNT_END		0xFFFF
#define MOLD_COUNT_MAX		0xFFFE	/* most messages one packet can carry */

/* Largest MoldUDP64 payload in a 1500-byte MTU IPv4/UDP datagram. */
#define MOLD_MTU_BUDGET		(1500 - 20 - 8)

struct mold_header {
	char session[MOLD_SESSION_LEN];
	uint64_t seq;
	uint16_t count;
};

/* Parse the 20-byte header.  Returns 0 or PROTO_E_SHORT. */
int mold_parse_header(const uint8_t *pkt, size_t len, struct mold_header *h);

/*
 * Copy a session id into the 10-byte field: up to 10 chars of @s, the rest
 * space-padded (ASCII, left-justified).
 */
void mold_session_set(char dst[MOLD_SESSION_LEN], const char *s);

struct mold_builder {
	uint8_t *buf;
	size_t cap;		/* byte budget: buffer size or MTU, whichever is less */
	size_t len;
	uint16_t count;
};

/*
 * Start a data packet carrying messages from @first_seq.  Returns 0, or
 * PROTO_E_NOSPACE when @cap cannot hold the header.
 */
int mold_builder_init(struct mold_builder *b, uint8_t *buf, size_t cap,
		      const char session[MOLD_SESSION_LEN], uint64_t first_seq);

/*
 * Reserve a block of @msg_len bytes and return where to write the message,
 * or NULL if it would exceed the budget (or the count limit, or msg_len is 0).
 * The block length is written here; the message count when finishing.
 */
uint8_t *mold_builder_reserve(struct mold_builder *b, uint16_t msg_len);

/* Encode an ITCH message as the next block.  Returns its length or < 0. */
struct itch_msg;
int mold_builder_append_itch(struct mold_builder *b, const struct itch_msg *m);

/* Write the message count; returns the packet length. */
size_t mold_builder_finish(struct mold_builder *b);

/* Heartbeat (count 0) or end of session (count 0xFFFF) carrying @next_seq. */
int mold_encode_heartbeat(uint8_t *buf, size_t cap,
			  const char session[MOLD_SESSION_LEN], uint64_t next_seq);
int mold_encode_end_of_session(uint8_t *buf, size_t cap,
			       const char session[MOLD_SESSION_LEN],
			       uint64_t next_seq);

/* Re-request: same 20-byte layout, count = requested message count. */
struct mold_rerequest {
	char session[MOLD_SESSION_LEN];
	uint64_t seq;		/* first missing message */
	uint16_t count;
};

int mold_encode_rerequest(uint8_t *buf, size_t cap,
			  const struct mold_rerequest *r);
/* Exactly 20 bytes or PROTO_E_SHORT / PROTO_E_LENGTH. */
int mold_decode_rerequest(const uint8_t *pkt, size_t len,
			  struct mold_rerequest *r);

/*
 * Walk the message blocks of a packet, bounds-checked: for the simulator's
 * re-request server and tests (the decoder has its own fused loop).
 */
struct mold_iter {
	const uint8_t *p;
	const uint8_t *end;
};

void mold_iter_init(struct mold_iter *it, const uint8_t *pkt, size_t len);
/*
 * Returns 1 with @msg/@msg_len set, 0 at the clean end of the packet, or
 * PROTO_E_LENGTH when a block runs past the end.
 */
int mold_iter_next(struct mold_iter *it, const uint8_t **msg, uint16_t *msg_len);

#endif /* PROTO_MOLDUDP64_H */
