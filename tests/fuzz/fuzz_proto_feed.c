// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the feed decoder (and, on the same bytes, every other
 * decoder in proto/: ITCH, MoldUDP64 re-request and block iterator, OUCH,
 * Ethernet/IPv4/UDP parsing and checksum verification).
 *
 * Input: a stream of packets, each a 2-byte big-endian length then that many
 * bytes (the last one takes whatever is left).  Each packet is copied into a
 * heap buffer of exactly its size, so AddressSanitizer catches a read even
 * one byte past the end.  One decoder sees the whole stream, so sequencing
 * state (gaps, duplicates, sessions) is exercised across packets; it is
 * allocated once and reset per input, so every input starts from the same
 * state.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "book/feed_decoder.h"
#include "proto/frame.h"
#include "proto/itch.h"
#include "proto/moldudp64.h"
#include "proto/ouch.h"
#include "proto/tcp_seg.h"

#define CHECK(cond) do { if (!(cond)) __builtin_trap(); } while (0)

static void other_decoders(const uint8_t *p, size_t n)
{
	struct ouch_enter_order o;
	struct ouch_reply r;
	struct mold_rerequest rr;
	struct mold_iter it;
	struct frame_udp u;
	struct tcp_seg seg;
	struct itch_msg m;
	const uint8_t *msg;
	uint16_t mlen;
	int ret;

	ret = ouch_decode_enter_order(p, n, &o);
	CHECK(ret < 0 || (size_t)ret == n);
	ret = ouch_decode_reply(p, n, &r);
	CHECK(ret < 0 || (size_t)ret == n);
	ret = mold_decode_rerequest(p, n, &rr);
	CHECK(ret < 0 || ret == MOLD_REREQ_LEN);
	ret = itch_decode(p, n, &m);
	CHECK(ret < 0 || (size_t)ret == n);

	mold_iter_init(&it, p, n);
	while ((ret = mold_iter_next(&it, &msg, &mlen)) == 1)
		CHECK(msg >= p && msg + mlen <= p + n);

	if (frame_parse_udp(p, n, &u) == 0) {
		CHECK(u.payload >= p && u.payload + u.payload_len <= p + n);
		(void)frame_verify_checksums(&u);
	}
	if (frame_parse_tcp(p, n, &seg) == 0) {
		CHECK(seg.payload >= p && seg.payload + seg.len <= p + n);
		CHECK(seg.tcp + seg.hdr_len == seg.payload);
		(void)tcp_seg_verify(&seg);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct feed_decoder d;
	static int ready;
	uint64_t t = 0;

	if (!ready) {
		struct feed_decoder_config cfg = { .ring_capacity = 16 };

		if (feed_decoder_init(&d, &cfg))
			__builtin_trap();
		ready = 1;
	}
	feed_decoder_reset(&d);
	while (size >= 2) {
		size_t n = (size_t)data[0] << 8 | data[1];
		uint64_t head = d.ring.head;
		uint32_t ticks;
		uint8_t *pkt;

		data += 2;
		size -= 2;
		if (n > size)
			n = size;
		pkt = malloc(n ? n : 1);
		if (!pkt)
			break;
		memcpy(pkt, data, n);

		ticks = feed_decode(&d, pkt, n, ++t);
		CHECK(d.ring.head == head + ticks);
		CHECK(ticks <= n / (2 + ITCH_LEN_P));
		CHECK(feed_last(&d)->ticks == ticks);
		other_decoders(pkt, n);

		free(pkt);
		data += n;
		size -= n;
	}
	return 0;
}
