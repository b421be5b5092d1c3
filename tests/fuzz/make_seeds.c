// SPDX-License-Identifier: MIT
/*
 * Writes the fuzz seed corpus (tests/fuzz/corpus/feed/) with the library's
 * own encoders: good streams, each sequencing case, each malformed class,
 * OUCH datagrams and Ethernet frames.  Run: build/tools/proto-fuzz-seeds DIR
 */
#include <stdio.h>
#include <string.h>

#include "proto/be.h"
#include "proto/frame.h"
#include "proto/itch.h"
#include "proto/moldudp64.h"
#include "proto/ouch.h"
#include "proto/tcp_seg.h"

static uint8_t seed[8192];
static size_t seed_len;
static const char *dir;

static void add_pkt(const uint8_t *p, size_t n)
{
	be16_store(seed + seed_len, (uint16_t)n);
	memcpy(seed + seed_len + 2, p, n);
	seed_len += 2 + n;
}

static int flush(const char *name)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(seed, 1, seed_len, f) != seed_len) {
		perror(path);
		return -1;
	}
	fclose(f);
	seed_len = 0;
	return 0;
}

/* A data packet of the given ITCH types ('P', 'R', ...). */
static size_t data_pkt(uint8_t *buf, const char *session, uint64_t seq,
		       const char *types)
{
	char s[MOLD_SESSION_LEN];
	struct mold_builder b;

	mold_session_set(s, session);
	mold_builder_init(&b, buf, MOLD_MTU_BUDGET, s, seq);
	for (; *types; types++) {
		struct itch_msg m = { .type = *types, .locate = 3,
				      .timestamp = 123456789 };

		memcpy(m.p.stock, "AAPL    ", 8);
		if (m.type == 'R')
			memcpy(m.r.stock, "AAPL    ", 8);
		m.p.price = 1500000;
		m.p.shares = 100;
		m.p.side = 'B';
		mold_builder_append_itch(&b, &m);
	}
	return mold_builder_finish(&b);
}

int main(int argc, char **argv)
{
	uint8_t p[2048];
	char s[MOLD_SESSION_LEN];
	size_t n;
	int err = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	dir = argv[1];
	mold_session_set(s, "FUZZ000001");

	/* In order, every message type the codec builds. */
	add_pkt(p, data_pkt(p, "FUZZ000001", 1, "SRPAFECXDUP"));
	add_pkt(p, data_pkt(p, "FUZZ000001", 12, "PPPP"));
	err |= flush("in_order");

	/* Gap, duplicate, overlap. */
	add_pkt(p, data_pkt(p, "FUZZ000001", 1, "PP"));
	add_pkt(p, data_pkt(p, "FUZZ000001", 5, "PP"));
	add_pkt(p, data_pkt(p, "FUZZ000001", 5, "PP"));
	add_pkt(p, data_pkt(p, "FUZZ000001", 6, "PPP"));
	err |= flush("gap_dup_overlap");

	/* Heartbeats, end of session, data after it, a new session. */
	add_pkt(p, data_pkt(p, "FUZZ000001", 1, "P"));
	add_pkt(p, (size_t)mold_encode_heartbeat(p, sizeof(p), s, 2));
	add_pkt(p, (size_t)mold_encode_heartbeat(p, sizeof(p), s, 9));
	add_pkt(p, (size_t)mold_encode_end_of_session(p, sizeof(p), s, 9));
	add_pkt(p, (size_t)mold_encode_end_of_session(p, sizeof(p), s, 9));
	add_pkt(p, data_pkt(p, "FUZZ000001", 9, "P"));
	add_pkt(p, data_pkt(p, "FUZZ000002", 1, "RP"));
	err |= flush("control");

	/* Malformed: overrun, count too high / low, zero length, bad length. */
	n = data_pkt(p, "FUZZ000001", 1, "PP");
	add_pkt(p, n - 3);
	n = data_pkt(p, "FUZZ000001", 3, "PP");
	be16_store(p + MOLD_OFF_COUNT, 3);
	add_pkt(p, n);
	be16_store(p + MOLD_OFF_COUNT, 1);
	add_pkt(p, n);
	n = data_pkt(p, "FUZZ000001", 9, "PD");
	be16_store(p + MOLD_HDR_LEN + 46, 0);		/* D block length 0 */
	add_pkt(p, n);
	n = data_pkt(p, "FUZZ000001", 11, "PS");
	be16_store(p + MOLD_HDR_LEN, 43);		/* P one byte short */
	add_pkt(p, n);
	add_pkt(p, 7);					/* short packet */
	err |= flush("malformed");

	/* OUCH: an Enter Order and the four replies, as the session hands them on. */
	{
		struct ouch_enter_order o = { .token = "000015NM70001A",
			.side = 'B', .shares = 100, .stock = "AAPL    ",
			.price = 1500000, .firm = "GWAY" };
		struct ouch_reply r = { .token = "000015NM70001A" };
		const char *types = "AECJ";

		add_pkt(p + SOUP_HDR_LEN,
			(size_t)ouch_encode_enter_order(p, sizeof(p), &o) - SOUP_HDR_LEN);
		for (; *types; types++) {
			r.type = *types;
			add_pkt(p + SOUP_HDR_LEN,
				(size_t)ouch_encode_reply(p, sizeof(p), &r) - SOUP_HDR_LEN);
		}
		err |= flush("ouch");
	}

	/* Ethernet/IPv4 frames: a feed packet and a re-request (UDP), an order (TCP). */
	{
		struct frame_endpoint a = { { 2, 0, 0, 0, 0, 1 }, 0x0a4d0001, 5000 };
		struct frame_endpoint b = { { 2, 0, 0, 0, 0, 2 }, 0x0a4d0002, 6000 };
		struct mold_rerequest rr = { .seq = 5, .count = 3 };
		struct ouch_enter_order o = { .token = "000015NM70001A", .side = 'B',
					      .shares = 100, .stock = "AAPL    ",
					      .price = 1500000, .firm = "GWAY" };
		struct frame_template t;
		struct tcp_template tt;

		frame_template_init(&t, &a, &b, 64, 0);
		n = data_pkt(p + FRAME_HDR_LEN, "FUZZ000001", 1, "RP");
		add_pkt(p, frame_finish(&t, p, n));
		memcpy(rr.session, s, MOLD_SESSION_LEN);
		n = (size_t)mold_encode_rerequest(p + FRAME_HDR_LEN, 64, &rr);
		add_pkt(p, frame_finish(&t, p, n));
		add_pkt(p + FRAME_HDR_LEN, n);
		tcp_template_init(&tt, &b, &a, 64);
		ouch_encode_enter_order(p + FRAME_TCP_HDR_LEN, 64, &o);
		add_pkt(p, tcp_frame_finish(&tt, p, 1000, 2000, TCP_ACK | TCP_PSH, 65535, 0,
					    OUCH_ENTER_PKT_LEN,
					    csum_partial(p + FRAME_TCP_HDR_LEN, OUCH_ENTER_PKT_LEN,
							 0)));
		err |= flush("frames");
	}
	return err ? 1 : 0;
}
