// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the SoupBinTCP reassembler (proto/soupbin.h),
 * differential: the stream is read whole, then again in chunks, and both
 * reads must give the same packets and break at the same one.  Every
 * packet also goes through every payload decoder.
 *
 * Input: K (low 4 bits), max (2, big-endian: soup_rx_init()'s), K chunk
 * sizes used in turn, then the stream.  A size byte below 0x80 is that
 * many bytes, above it counts 128s (chunks of 0 to 16256 bytes).  Each
 * chunk is pushed from a heap buffer of exactly its size, freed once read,
 * so AddressSanitizer catches a read past it or through a pointer kept
 * into it.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "proto/be.h"
#include "proto/proto_err.h"
#include "proto/soupbin.h"

#define CHECK(cond) do { if (!(cond)) __builtin_trap(); } while (0)

#define LOGIN_FIELDS_LEN (SOUP_USER_LEN + SOUP_PASSWORD_LEN + SOUP_SESSION_LEN)

/* A packet of the whole read, at @off in the stream. */
struct ref {
	size_t off;
	uint16_t len;
	char type;
};

static struct soup_rx rx;

static size_t chunk_len(uint8_t b)
{
	return b < 0x80 ? b : (size_t)(b & 0x7f) << 7;
}

/* A decoder fails on length exactly when soup_check() says the length is wrong. */
static void check_length(const struct soup_pkt *p, char type, int ret)
{
	CHECK((ret == PROTO_E_LENGTH) == (soup_check(type, p->len) == PROTO_E_LENGTH));
}

/* Every decoder on every payload, whatever its type: none reads past it. */
static void decoders(const struct soup_pkt *p)
{
	uint8_t b[SOUP_LOGIN_REQUEST_LEN];
	struct soup_login_request l, l2;
	struct soup_login_accepted a, a2;
	int ret = soup_check(p->type, p->len);
	char r;

	CHECK(ret == 0 || ret == PROTO_E_LENGTH || ret == PROTO_E_PKT_TYPE);
	CHECK((ret == PROTO_E_PKT_TYPE) == !strcmp(soup_type_name(p->type), "unknown"));

	/* What a decoder read encodes back to the same fields and number. */
	ret = soup_decode_login_request(p->payload, p->len, &l);
	check_length(p, SOUP_LOGIN_REQUEST, ret);
	CHECK(!ret || ret == PROTO_E_LENGTH || ret == PROTO_E_CHAR || ret == PROTO_E_RANGE);
	if (!ret) {
		CHECK(soup_encode_login_request(b, sizeof(b), &l) == SOUP_LOGIN_REQUEST_LEN);
		CHECK(!memcmp(b + SOUP_HDR_LEN, p->payload, LOGIN_FIELDS_LEN));
		CHECK(!soup_decode_login_request(b + SOUP_HDR_LEN, p->len, &l2));
		CHECK(l2.seq == l.seq);
	}

	ret = soup_decode_login_accepted(p->payload, p->len, &a);
	check_length(p, SOUP_LOGIN_ACCEPTED, ret);
	CHECK(!ret || ret == PROTO_E_LENGTH || ret == PROTO_E_CHAR || ret == PROTO_E_RANGE);
	if (!ret) {
		CHECK(soup_encode_login_accepted(b, sizeof(b), &a) == SOUP_LOGIN_ACCEPTED_LEN);
		CHECK(!memcmp(b + SOUP_HDR_LEN, p->payload, SOUP_SESSION_LEN));
		CHECK(!soup_decode_login_accepted(b + SOUP_HDR_LEN, p->len, &a2));
		CHECK(a2.seq == a.seq);
	}

	ret = soup_decode_login_rejected(p->payload, p->len, &r);
	check_length(p, SOUP_LOGIN_REJECTED, ret);
	CHECK(ret || r == (char)p->payload[0]);
}

/*
 * The whole stream in one push: every packet in place, one after another,
 * up to a break or to what is left of a cut packet.  Returns the packets
 * in @ref; *broken, *have: how the read ended.
 */
static size_t read_whole(const uint8_t *s, size_t n, uint32_t max, struct ref *ref,
			 bool *broken, uint32_t *have)
{
	uint8_t *whole = malloc(n);
	size_t nref = 0, off = 0;
	struct soup_pkt p;
	int ret;

	CHECK(whole);
	memcpy(whole, s, n);
	soup_rx_init(&rx, max);
	soup_rx_push(&rx, whole, n);
	while ((ret = soup_rx_next(&rx, &p)) == 1) {
		CHECK(p.payload == whole + off + SOUP_HDR_LEN);
		CHECK(p.len + 1u == be16_load(whole + off));
		ref[nref++] = (struct ref){ .off = off, .len = p.len, .type = p.type };
		off += SOUP_HDR_LEN + p.len;
	}
	*broken = ret < 0;
	*have = rx.have;
	if (*broken) {
		uint16_t plen = be16_load(whole + off);

		CHECK(ret == PROTO_E_LENGTH && (!plen || plen > rx.max));
	} else {
		CHECK(!ret && rx.have == n - off);
		CHECK(n - off < 2 || be16_load(whole + off) + 2u > n - off);
	}
	CHECK(rx.st.packets == nref && !rx.st.joined && rx.st.bad_length == *broken);
	free(whole);
	return nref;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *cuts, *s;
	size_t k, n, nref, cycle = 0, from = 0, got = 0, i;
	uint64_t joined = 0;
	bool broken;
	uint32_t have, max;
	struct ref *ref;
	int ret = 0;

	if (size < 3 || size < 3 + (data[0] & 15u))
		return 0;
	k = data[0] & 15u;
	max = be16_load(data + 1);
	cuts = data + 3;
	s = cuts + k;
	n = size - 3 - k;

	ref = malloc((n / SOUP_HDR_LEN + 1) * sizeof(*ref));
	CHECK(ref);
	nref = read_whole(s, n, max, ref, &broken, &have);

	/* Sizes that add up to nothing would never get through the stream. */
	for (i = 0; i < k; i++)
		cycle += chunk_len(cuts[i]);
	if (!cycle)
		k = 0;

	soup_rx_init(&rx, max);
	for (i = 0; ; i++) {
		size_t to = k ? from + chunk_len(cuts[i % k]) : n;
		uint8_t *c;
		struct soup_pkt p;

		if (to > n)
			to = n;
		c = malloc(to - from);
		CHECK(c);
		memcpy(c, s + from, to - from);
		soup_rx_push(&rx, c, to - from);
		while ((ret = soup_rx_next(&rx, &p)) == 1) {
			const struct ref *r = &ref[got++];

			CHECK(got <= nref && p.type == r->type && p.len == r->len);
			/* In place exactly when the packet lies inside the chunk. */
			if (r->off >= from && r->off + SOUP_HDR_LEN + r->len <= to) {
				CHECK(p.payload == c + (r->off - from) + SOUP_HDR_LEN);
			} else {
				CHECK(p.payload == rx.buf + SOUP_HDR_LEN);
				joined++;
			}
			CHECK(!memcmp(p.payload, s + r->off + SOUP_HDR_LEN, p.len));
			decoders(&p);
		}
		free(c);
		CHECK(!ret || (ret == PROTO_E_LENGTH && broken));
		from = to;
		if (from == n)
			break;
	}
	CHECK(got == nref && (ret < 0) == broken && rx.broken == broken);
	CHECK(broken || rx.have == have);
	CHECK(rx.st.packets == nref && rx.st.joined == joined && rx.st.bytes == n);
	CHECK(rx.st.bad_length == broken);
	/* Broken stays broken. */
	if (broken)
		CHECK(soup_rx_next(&rx, &(struct soup_pkt){ 0 }) == PROTO_E_LENGTH);
	free(ref);
	return 0;
}
