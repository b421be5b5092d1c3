// SPDX-License-Identifier: MIT
/* MoldUDP64 packet building and parsing outside the decoder's hot loop. */
#include <string.h>

#include "proto/be.h"
#include "proto/itch.h"
#include "proto/moldudp64.h"
#include "proto/proto_err.h"

int mold_parse_header(const uint8_t *pkt, size_t len, struct mold_header *h)
{
	if (len < MOLD_HDR_LEN)
		return PROTO_E_SHORT;
	memcpy(h->session, pkt + MOLD_OFF_SESSION, MOLD_SESSION_LEN);
	h->seq = be64_load(pkt + MOLD_OFF_SEQ);
	h->count = be16_load(pkt + MOLD_OFF_COUNT);
	return 0;
}

void mold_session_set(char dst[MOLD_SESSION_LEN], const char *s)
{
	size_t n = strnlen(s, MOLD_SESSION_LEN);

	memcpy(dst, s, n);
	memset(dst + n, ' ', MOLD_SESSION_LEN - n);
}

static void write_header(uint8_t *buf, const char session[MOLD_SESSION_LEN],
			 uint64_t seq, uint16_t count)
{
	memcpy(buf + MOLD_OFF_SESSION, session, MOLD_SESSION_LEN);
	be64_store(buf + MOLD_OFF_SEQ, seq);
	be16_store(buf + MOLD_OFF_COUNT, count);
}

int mold_builder_init(struct mold_builder *b, uint8_t *buf, size_t cap,
		      const char session[MOLD_SESSION_LEN], uint64_t first_seq)
{
	if (cap < MOLD_HDR_LEN)
		return PROTO_E_NOSPACE;
	b->buf = buf;
	b->cap = cap;
	b->len = MOLD_HDR_LEN;
	b->count = 0;
	write_header(buf, session, first_seq, 0);
	return 0;
}

uint8_t *mold_builder_reserve(struct mold_builder *b, uint16_t msg_len)
{
	uint8_t *blk;

	if (msg_len == 0 || b->count >= MOLD_COUNT_MAX)
		return NULL;
	if (b->cap - b->len < (size_t)MOLD_BLOCK_HDR_LEN + msg_len)
		return NULL;
	blk = b->buf + b->len;
	be16_store(blk, msg_len);
	b->len += MOLD_BLOCK_HDR_LEN + msg_len;
	b->count++;
	return blk + MOLD_BLOCK_HDR_LEN;
}

int mold_builder_append_itch(struct mold_builder *b, const struct itch_msg *m)
{
	int len = itch_codec_len(m->type);
	uint8_t *dst;

	if (len < 0)
		return len;
	dst = mold_builder_reserve(b, (uint16_t)len);
	if (!dst)
		return PROTO_E_NOSPACE;
	return itch_encode(dst, (size_t)len, m);
}

size_t mold_builder_finish(struct mold_builder *b)
{
	be16_store(b->buf + MOLD_OFF_COUNT, b->count);
	return b->len;
}

int mold_encode_heartbeat(uint8_t *buf, size_t cap,
			  const char session[MOLD_SESSION_LEN], uint64_t next_seq)
{
	if (cap < MOLD_HDR_LEN)
		return PROTO_E_NOSPACE;
	write_header(buf, session, next_seq, MOLD_COUNT_HEARTBEAT);
	return MOLD_HDR_LEN;
}

int mold_encode_end_of_session(uint8_t *buf, size_t cap,
			       const char session[MOLD_SESSION_LEN],
			       uint64_t next_seq)
{
	if (cap < MOLD_HDR_LEN)
		return PROTO_E_NOSPACE;
	write_header(buf, session, next_seq, MOLD_COUNT_END);
	return MOLD_HDR_LEN;
}

int mold_encode_rerequest(uint8_t *buf, size_t cap,
			  const struct mold_rerequest *r)
{
	if (cap < MOLD_REREQ_LEN)
		return PROTO_E_NOSPACE;
	write_header(buf, r->session, r->seq, r->count);
	return MOLD_REREQ_LEN;
}

int mold_decode_rerequest(const uint8_t *pkt, size_t len,
			  struct mold_rerequest *r)
{
	if (len < MOLD_REREQ_LEN)
		return PROTO_E_SHORT;
	if (len != MOLD_REREQ_LEN)
		return PROTO_E_LENGTH;
	memcpy(r->session, pkt + MOLD_OFF_SESSION, MOLD_SESSION_LEN);
	r->seq = be64_load(pkt + MOLD_OFF_SEQ);
	r->count = be16_load(pkt + MOLD_OFF_COUNT);
	return MOLD_REREQ_LEN;
}

void mold_iter_init(struct mold_iter *it, const uint8_t *pkt, size_t len)
{
	it->p = len >= MOLD_HDR_LEN ? pkt + MOLD_HDR_LEN : pkt + len;
	it->end = pkt + len;
}

int mold_iter_next(struct mold_iter *it, const uint8_t **msg, uint16_t *msg_len)
{
	size_t left = (size_t)(it->end - it->p);
	uint16_t n;

	if (left == 0)
		return 0;
	if (left < MOLD_BLOCK_HDR_LEN)
		return PROTO_E_LENGTH;
	n = be16_load(it->p);
	if (left - MOLD_BLOCK_HDR_LEN < n)
		return PROTO_E_LENGTH;
	*msg = it->p + MOLD_BLOCK_HDR_LEN;
	*msg_len = n;
	it->p += MOLD_BLOCK_HDR_LEN + n;
	return 1;
}
