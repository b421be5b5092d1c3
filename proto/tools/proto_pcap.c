// SPDX-License-Identifier: MIT
/*
 * proto-pcap: write a small pcap of frames built by the library, for the
 * tshark check (tests/integration/proto_tshark.sh).
 *
 *   proto-pcap --out OUT.pcap [--feed-port P] [--order-port P]
 *
 * Frame 1: MoldUDP64 session "PCAPTEST01", sequence 1000, 5 ITCH messages
 *          (S R P P A) to the feed port.
 * Frame 2: a TCP segment to the order port carrying a SoupBinTCP Unsequenced
 *          Data packet with an OUCH 4.2 Enter Order (token for seq 1003,
 *          order 7), built as the gateway's own TCP builds it.
 * Frame 3: the same segment with its TCP checksum deliberately wrong, so
 *          the check proves that tshark's validation can fail.
 * Frame 4: MoldUDP64 heartbeat, next sequence 1005.
 */
#include <stdio.h>
#include <string.h>

#include "proto/frame.h"
#include "proto/itch.h"
#include "proto/moldudp64.h"
#include "proto/order_token.h"
#include "proto/ouch.h"
#include "proto/pcap.h"
#include "proto/tcp_seg.h"
#include "util/opt.h"

struct cfg {
	const char *out;
	uint16_t feed_port, order_port;
};

#define C(f) OFF(struct cfg, f)

static const struct opt opts[] = {
	OPT("out", 'o', OPT_STR, C(out), "FILE", "the pcap to write (required)"),
	OPT("feed-port", 0, OPT_PORT, C(feed_port), "PORT",
	    "UDP destination of the MoldUDP64 frames (1 and 4)"),
	OPT("order-port", 0, OPT_PORT, C(order_port), "PORT",
	    "TCP destination of the Enter Order segments (2 and 3)"),
	OPT_END,
};

static const struct opt_prog prog = {
	.name = "proto-pcap",
	.usage = "--out FILE [options]",
	.about =
"Write a pcap of four Ethernet frames built by libproto, for the tshark check\n"
"(tests/integration/proto_tshark.sh):\n"
"  1  MoldUDP64 session PCAPTEST01, sequence 1000, 5 ITCH messages (S R P P A)\n"
"  2  a TCP segment, SoupBinTCP 'U' with an OUCH 4.2 Enter Order, token for\n"
"     sequence 1003 and order 7\n"
"  3  the same segment with its TCP checksum deliberately wrong\n"
"  4  MoldUDP64 heartbeat, next sequence 1005\n",
	.more = "Exit status: 0 written, 1 the file could not be written, 2 bad usage.\n",
	.opts = opts,
};

/* Frame @n at 1700000000 + n seconds, as the check expects. */
static int write_frame(struct pcap_writer *w, const uint8_t *frame, size_t len, uint32_t n)
{
	return pcap_write(w, (1700000000ull + n) * 1000000000ull, frame, (uint32_t)len);
}

/* The four frames into @f; nonzero on a write error. */
static int write_frames(struct pcap_writer *f, const struct cfg *c)
{
	struct frame_endpoint exch = {
		.mac = { 0x02, 0x00, 0x00, 0x00, 0xee, 0x01 }, .ip = 0x0a4d0001,
		.port = c->order_port,	/* orders go to the exchange */
	};
	struct frame_endpoint gw = {
		.mac = { 0x02, 0x00, 0x00, 0x00, 0x99, 0x02 }, .ip = 0x0a4d0002,
		.port = c->feed_port,	/* the feed goes to the gateway */
	};
	struct ouch_enter_order o = {
		.side = 'B', .shares = 100, .stock = "AAPL    ",
		.price = 1500000, .tif = OUCH_TIF_IOC, .firm = "GWAY",
		.display = 'Y', .capacity = 'P', .iso = 'N', .cross_type = 'N',
		.customer_type = 'R',
	};
	static const char types[] = "SRPPA";
	struct frame_endpoint gw_orders = gw;	/* own source port */
	struct frame_template feed_t;
	struct tcp_template order_t;
	char session[MOLD_SESSION_LEN];
	uint8_t frame[2048];
	struct mold_builder b;
	size_t len;
	int i, err = 0;

	frame_template_init(&feed_t, &exch, &gw, 64, 0);
	gw_orders.port = 40001;
	tcp_template_init(&order_t, &gw_orders, &exch, 64);
	mold_session_set(session, "PCAPTEST01");

	mold_builder_init(&b, frame + FRAME_HDR_LEN, MOLD_MTU_BUDGET, session, 1000);
	for (i = 0; types[i]; i++) {
		struct itch_msg m = { .type = types[i], .locate = 5,
				      .timestamp = 34200000000000ull + (uint64_t)i };

		memcpy(m.r.stock, "AAPL    ", 8);	/* R */
		if (m.type == 'S')
			m.s.event = 'Q';
		if (m.type == 'P' || m.type == 'A') {
			m.p.side = 'B';
			m.p.shares = 100;
			memcpy(m.p.stock, "AAPL    ", 8);
			m.p.price = 1500000 + (uint32_t)i;
		}
		err |= mold_builder_append_itch(&b, &m) < 0;
	}
	len = frame_finish(&feed_t, frame, mold_builder_finish(&b));
	err |= write_frame(f, frame, len, 1);

	order_token_encode(o.token, 1003, 7);
	ouch_encode_enter_order(frame + FRAME_TCP_HDR_LEN, 64, &o);
	len = tcp_frame_finish(&order_t, frame, 1000001, 2000001, TCP_ACK | TCP_PSH, 65535, 0,
			       OUCH_ENTER_PKT_LEN,
			       csum_partial(frame + FRAME_TCP_HDR_LEN, OUCH_ENTER_PKT_LEN, 0));
	err |= write_frame(f, frame, len, 2);
	frame[FRAME_OFF_TCP + TCP_OFF_CSUM] ^= 0x01;
	err |= write_frame(f, frame, len, 3);

	len = frame_finish(&feed_t, frame,
			   (size_t)mold_encode_heartbeat(frame + FRAME_HDR_LEN,
							 64, session, 1005));
	err |= write_frame(f, frame, len, 4);
	return err;
}

int main(int argc, char **argv)
{
	/* The gateway's own defaults (gateway/opts.c), as the rig runs it. */
	struct cfg c = { .feed_port = 26400, .order_port = 26401 };
	struct pcap_writer_cfg wc = { .snaplen = 65535 };
	struct pcap_writer w;
	int ret, err;

	ret = opt_parse(&prog, &c, argc, argv, NULL);
	if (ret)
		return ret == 1 ? 0 : 2;
	if (!c.out)
		return opt_error(&prog, "--out FILE is required");
	if (pcap_writer_open(&w, c.out, &wc)) {
		fprintf(stderr, "proto-pcap: %s\n", w.err);
		return 1;
	}
	err = write_frames(&w, &c);
	if (pcap_writer_close(&w) || err) {
		fprintf(stderr, "proto-pcap: failed to write %s: %s\n", c.out,
			w.err[0] ? w.err : "an encoder refused a frame");
		return 1;
	}
	return 0;
}
