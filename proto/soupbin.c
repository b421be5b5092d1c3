// SPDX-License-Identifier: MIT
/* SoupBinTCP 3.0: packet codec and stream reassembler (proto/soupbin.h). */
#include <string.h>

#include "proto/be.h"
#include "proto/proto_err.h"
#include "proto/soupbin.h"

void soup_pad_right(char *dst, size_t len, const char *src)
{
	size_t n = strnlen(src, len);

	memcpy(dst, src, n);
	memset(dst + n, ' ', len - n);
}

void soup_pad_left(char *dst, size_t len, const char *src)
{
	size_t n = strnlen(src, len);

	memset(dst, ' ', len - n);
	memcpy(dst + len - n, src, n);
}

void soup_seqnum_write(char dst[SOUP_SEQNUM_LEN], uint64_t v)
{
	int i = SOUP_SEQNUM_LEN;

	/* UINT64_MAX has 20 digits: the field always holds the value. */
	do {
		dst[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	memset(dst, ' ', (size_t)i);
}

int soup_seqnum_read(const char src[SOUP_SEQNUM_LEN], uint64_t *v)
{
	uint64_t x = 0;
	int i = 0;

	while (i < SOUP_SEQNUM_LEN && src[i] == ' ')
		i++;
	if (i == SOUP_SEQNUM_LEN)
		return PROTO_E_CHAR;
	for (; i < SOUP_SEQNUM_LEN; i++) {
		unsigned int d = (unsigned char)src[i] - '0';

		if (d > 9)
			return PROTO_E_CHAR;
		/* 19 digits always fit: only a 20th can overflow. */
		if (__builtin_mul_overflow(x, 10, &x) || __builtin_add_overflow(x, d, &x))
			return PROTO_E_RANGE;
	}
	*v = x;
	return 0;
}

int soup_encode_login_request(uint8_t *dst, size_t cap, const struct soup_login_request *l)
{
	char *m = (char *)dst + SOUP_HDR_LEN;

	if (cap < SOUP_LOGIN_REQUEST_LEN)
		return PROTO_E_NOSPACE;
	soup_put_header(dst, SOUP_LOGIN_REQUEST, SOUP_LOGIN_REQUEST_PAYLOAD);
	memcpy(m, l->user, SOUP_USER_LEN);
	m += SOUP_USER_LEN;
	memcpy(m, l->password, SOUP_PASSWORD_LEN);
	m += SOUP_PASSWORD_LEN;
	memcpy(m, l->session, SOUP_SESSION_LEN);
	soup_seqnum_write(m + SOUP_SESSION_LEN, l->seq);
	return SOUP_LOGIN_REQUEST_LEN;
}

int soup_encode_login_accepted(uint8_t *dst, size_t cap, const struct soup_login_accepted *a)
{
	char *m = (char *)dst + SOUP_HDR_LEN;

	if (cap < SOUP_LOGIN_ACCEPTED_LEN)
		return PROTO_E_NOSPACE;
	soup_put_header(dst, SOUP_LOGIN_ACCEPTED, SOUP_LOGIN_ACCEPTED_PAYLOAD);
	memcpy(m, a->session, SOUP_SESSION_LEN);
	soup_seqnum_write(m + SOUP_SESSION_LEN, a->seq);
	return SOUP_LOGIN_ACCEPTED_LEN;
}

int soup_encode_login_rejected(uint8_t *dst, size_t cap, char reason)
{
	if (cap < SOUP_LOGIN_REJECTED_LEN)
		return PROTO_E_NOSPACE;
	soup_put_header(dst, SOUP_LOGIN_REJECTED, SOUP_LOGIN_REJECTED_PAYLOAD);
	dst[SOUP_HDR_LEN] = (uint8_t)reason;
	return SOUP_LOGIN_REJECTED_LEN;
}

int soup_encode_empty(uint8_t *dst, size_t cap, char type)
{
	switch (type) {
	case SOUP_SERVER_HEARTBEAT:
	case SOUP_CLIENT_HEARTBEAT:
	case SOUP_END_OF_SESSION:
	case SOUP_LOGOUT_REQUEST:
		break;
	default:
		return PROTO_E_PKT_TYPE;
	}
	if (cap < SOUP_EMPTY_LEN)
		return PROTO_E_NOSPACE;
	soup_put_header(dst, type, 0);
	return SOUP_EMPTY_LEN;
}

int soup_encode_debug(uint8_t *dst, size_t cap, const char *text, size_t len)
{
	int ret = soup_encode_header(dst, cap, SOUP_DEBUG, len);

	if (ret < 0)
		return ret;
	/* An empty text may come as NULL, which memcpy must never see. */
	if (len)
		memcpy(dst + SOUP_HDR_LEN, text, len);
	return SOUP_HDR_LEN + (int)len;
}

/*
 * @cap is checked against the whole packet, not the header alone: the
 * caller writes the payload into the same buffer next, and one check here
 * spares it its own.
 */
int soup_encode_header(uint8_t *dst, size_t cap, char type, size_t payload_len)
{
	if (payload_len > SOUP_PAYLOAD_MAX)
		return PROTO_E_RANGE;
	if (cap < SOUP_HDR_LEN + payload_len)
		return PROTO_E_NOSPACE;
	soup_put_header(dst, type, (uint16_t)payload_len);
	return SOUP_HDR_LEN;
}

/* The sequence number is read first so that a bad packet leaves *l alone. */
int soup_decode_login_request(const uint8_t *payload, size_t len,
			      struct soup_login_request *l)
{
	const char *m = (const char *)payload;
	uint64_t seq;
	int ret;

	if (len != SOUP_LOGIN_REQUEST_PAYLOAD)
		return PROTO_E_LENGTH;
	ret = soup_seqnum_read(m + SOUP_USER_LEN + SOUP_PASSWORD_LEN + SOUP_SESSION_LEN, &seq);
	if (ret)
		return ret;
	memcpy(l->user, m, SOUP_USER_LEN);
	m += SOUP_USER_LEN;
	memcpy(l->password, m, SOUP_PASSWORD_LEN);
	m += SOUP_PASSWORD_LEN;
	memcpy(l->session, m, SOUP_SESSION_LEN);
	l->seq = seq;
	return 0;
}

int soup_decode_login_accepted(const uint8_t *payload, size_t len,
			       struct soup_login_accepted *a)
{
	const char *m = (const char *)payload;
	uint64_t seq;
	int ret;

	if (len != SOUP_LOGIN_ACCEPTED_PAYLOAD)
		return PROTO_E_LENGTH;
	ret = soup_seqnum_read(m + SOUP_SESSION_LEN, &seq);
	if (ret)
		return ret;
	memcpy(a->session, m, SOUP_SESSION_LEN);
	a->seq = seq;
	return 0;
}

int soup_decode_login_rejected(const uint8_t *payload, size_t len, char *reason)
{
	if (len != SOUP_LOGIN_REJECTED_PAYLOAD)
		return PROTO_E_LENGTH;
	*reason = (char)payload[0];
	return 0;
}

int soup_check(char type, size_t payload_len)
{
	size_t min = 0, max = 0;

	switch (type) {
	case SOUP_LOGIN_REQUEST:
		min = max = SOUP_LOGIN_REQUEST_PAYLOAD;
		break;
	case SOUP_LOGIN_ACCEPTED:
		min = max = SOUP_LOGIN_ACCEPTED_PAYLOAD;
		break;
	case SOUP_LOGIN_REJECTED:
		min = max = SOUP_LOGIN_REJECTED_PAYLOAD;
		break;
	case SOUP_SERVER_HEARTBEAT:
	case SOUP_CLIENT_HEARTBEAT:
	case SOUP_END_OF_SESSION:
	case SOUP_LOGOUT_REQUEST:
		break;
	case SOUP_SEQ_DATA:
	case SOUP_UNSEQ_DATA:
		min = 1;
		/* fall through */
	case SOUP_DEBUG:
		/* Any length, as long as a Packet Length can count it. */
		max = SOUP_PAYLOAD_MAX;
		break;
	default:
		return PROTO_E_PKT_TYPE;
	}
	return payload_len >= min && payload_len <= max ? 0 : PROTO_E_LENGTH;
}

/* ---- the byte stream ---- */

void soup_rx_init(struct soup_rx *rx, uint32_t max_len)
{
	/* buf is left as it is: 64 KiB nobody reads before writing. */
	rx->max = max_len && max_len < 0xffff ? max_len : 0xffff;
	memset(&rx->st, 0, sizeof(rx->st));
	soup_rx_reset(rx);
}

void soup_rx_reset(struct soup_rx *rx)
{
	rx->in = NULL;
	rx->in_len = 0;
	rx->have = 0;
	rx->broken = false;
}

/* Move up to @n bytes from the chunk to the end of buf. */
static void rx_take(struct soup_rx *rx, size_t n)
{
	if (n > rx->in_len)
		n = rx->in_len;
	memcpy(rx->buf + rx->have, rx->in, n);
	rx->have += (uint32_t)n;
	rx->in += n;
	rx->in_len -= n;
}

/*
 * Reached only when the fast path could not return a packet in place:
 * part of one is held, the chunk ends inside one, or a length is bad.  So
 * a packet completed here always spanned pushes, and goes through buf,
 * which never takes more than the packet's 2 + max bytes.
 */
int soup_rx_next_slow(struct soup_rx *rx, struct soup_pkt *p)
{
	uint32_t whole;

	if (rx->broken)
		return PROTO_E_LENGTH;
	/* What is held always lacks a byte: nothing to do without one. */
	if (!rx->in_len)
		return 0;
	if (rx->have < 2) {
		uint16_t plen;

		rx_take(rx, 2 - rx->have);
		if (rx->have < 2)
			return 0;
		plen = be16_load(rx->buf);
		if (!plen || plen > rx->max) {
			rx->broken = true;
			rx->st.bad_length++;
			return PROTO_E_LENGTH;
		}
	}
	whole = 2 + (uint32_t)be16_load(rx->buf);
	rx_take(rx, whole - rx->have);
	if (rx->have < whole)
		return 0;

	rx->have = 0;
	p->type = (char)rx->buf[SOUP_OFF_TYPE];
	p->len = (uint16_t)(whole - SOUP_HDR_LEN);
	p->payload = rx->buf + SOUP_HDR_LEN;
	rx->st.packets++;
	rx->st.joined++;
	return 1;
}

const char *soup_type_name(char type)
{
	switch (type) {
	case SOUP_DEBUG:		return "debug";
	case SOUP_LOGIN_REQUEST:	return "login request";
	case SOUP_LOGIN_ACCEPTED:	return "login accepted";
	case SOUP_LOGIN_REJECTED:	return "login rejected";
	case SOUP_SEQ_DATA:		return "sequenced data";
	case SOUP_UNSEQ_DATA:		return "unsequenced data";
	case SOUP_SERVER_HEARTBEAT:	return "server heartbeat";
	case SOUP_CLIENT_HEARTBEAT:	return "client heartbeat";
	case SOUP_END_OF_SESSION:	return "end of session";
	case SOUP_LOGOUT_REQUEST:	return "logout request";
	}
	return "unknown";
}
