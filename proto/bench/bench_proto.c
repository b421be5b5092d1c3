// SPDX-License-Identifier: MIT
/*
 * bench_proto: decode rate of packed ITCH 'P' messages into the tick ring,
 * and the cost of one order frame (token + OUCH Enter Order + Ethernet/IPv4/
 * UDP patch with both checksums).  Prints the median of several repetitions.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/clock.h"
#include "book/feed_decoder.h"
#include "proto/frame.h"
#include "proto/itch.h"
#include "proto/moldudp64.h"
#include "proto/order_token.h"
#include "proto/ouch.h"
#include "proto/tcp_seg.h"

#define NPKTS		256		/* ~370 KB of packets: stays in L2/L3 */
#define PKT_CAP		MOLD_MTU_BUDGET
#define REPS		9
#define DECODE_PASSES	400		/* per repetition */
#define ORDERS		2000000		/* per repetition */

static uint8_t pkts[NPKTS][PKT_CAP];
static size_t pkt_len[NPKTS];
volatile uint32_t bench_sink;	/* keeps the measured work observable */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return v[n / 2];
}

/* Packets of as many P messages as fit in an MTU, sequence 1, 2, ... */
static uint64_t build_packets(void)
{
	char session[MOLD_SESSION_LEN];
	uint64_t seq = 1;
	int i;

	mold_session_set(session, "BENCH00001");
	for (i = 0; i < NPKTS; i++) {
		struct mold_builder b;
		struct itch_msg m = { .type = 'P' };

		mold_builder_init(&b, pkts[i], PKT_CAP, session, seq);
		for (;;) {
			m.locate = (uint16_t)(1 + (seq & 7));
			m.timestamp = seq * 1000;
			m.p.order_ref = seq;
			m.p.side = 'B';
			m.p.shares = 100;
			memcpy(m.p.stock, "AAPL    ", 8);
			m.p.price = 1500000 + (uint32_t)(seq & 255);
			m.p.match = seq;
			if (mold_builder_append_itch(&b, &m) < 0)
				break;
			seq++;
		}
		pkt_len[i] = mold_builder_finish(&b);
	}
	return seq - 1;
}

static int bench_decode(void)
{
	struct feed_decoder_config cfg = { .ring_capacity = 1u << 16 };
	struct feed_decoder d;
	double rate[REPS];
	uint64_t msgs_per_pass = build_packets(), ticks = 0;
	int r, pass, i;

	if (feed_decoder_init(&d, &cfg))
		return -1;
	for (r = 0; r < REPS; r++) {
		uint64_t t0 = mono_ns(), dt;

		for (pass = 0; pass < DECODE_PASSES; pass++) {
			/* Replay the same packets as a fresh in-order stream. */
			d.next_seq = 1;
			for (i = 0; i < NPKTS; i++)
				ticks += feed_decode(&d, pkts[i], pkt_len[i], t0);
		}
		dt = mono_ns() - t0;
		rate[r] = (double)msgs_per_pass * DECODE_PASSES / (double)dt * 1e3;
	}
	if (ticks != msgs_per_pass * DECODE_PASSES * REPS ||
	    d.cnt.in_order != (uint64_t)NPKTS * DECODE_PASSES * REPS) {
		fprintf(stderr, "bench_proto: decode lost ticks (%llu)\n",
			(unsigned long long)ticks);
		feed_decoder_destroy(&d);
		return -1;
	}
	printf("decode P:   %.1f M msgs/s (median of %d; %llu msgs/packet, "
	       "%d packets x %d passes each)\n", median(rate, REPS), REPS,
	       (unsigned long long)(msgs_per_pass / NPKTS), NPKTS, DECODE_PASSES);
	feed_decoder_destroy(&d);
	return 0;
}

/*
 * Order frame, two ways: the plain encoder (struct -> datagram, then the
 * frame checksums read the payload back) and the hot-path template
 * (ouch_order_tmpl_write() hands its sum to frame_finish_sum()).
 */
static int bench_order(void)
{
	struct frame_endpoint src = {
		.mac = { 0x02, 0, 0, 0, 0, 1 }, .ip = 0x0a4d0001, .port = 40000,
	};
	struct frame_endpoint dst = {
		.mac = { 0x02, 0, 0, 0, 0, 2 }, .ip = 0x0a4d0002, .port = 9000,
	};
	struct ouch_enter_order o = {
		.side = 'B', .shares = 100, .stock = "AAPL    ",
		.tif = OUCH_TIF_IOC, .firm = "GWAY", .display = 'Y',
		.capacity = 'P', .iso = 'N', .cross_type = 'N',
		.customer_type = 'R',
	};
	static uint8_t frame[2048] __attribute__((aligned(64)));
	struct ouch_order_tmpl ot;
	struct tcp_template t;
	double ns_plain[REPS], ns_tmpl[REPS];
	uint32_t sink = 0;
	int r;

	tcp_template_init(&t, &src, &dst, 64);
	ouch_order_tmpl_init(&ot, &o);
	for (r = 0; r < REPS; r++) {
		uint64_t t0 = mono_ns();
		uint32_t i, acc = 0;

		for (i = 0; i < ORDERS; i++) {
			size_t len;

			order_token_encode(o.token, 1000000 + i, i);
			o.price = 1500000 + (i & 1023);
			ouch_encode_enter_order(frame + FRAME_TCP_HDR_LEN,
						sizeof(frame) - FRAME_TCP_HDR_LEN, &o);
			len = tcp_frame_finish(&t, frame, 7000 + i * 52, 9000 + i, TCP_ACK | TCP_PSH,
					       65535, 0, OUCH_ENTER_PKT_LEN,
					       csum_partial(frame + FRAME_TCP_HDR_LEN,
							    OUCH_ENTER_PKT_LEN, 0));
			acc += frame[FRAME_OFF_TCP + TCP_OFF_CSUM] + (uint32_t)len;
		}
		ns_plain[r] = (double)(mono_ns() - t0) / ORDERS;

		t0 = mono_ns();
		for (i = 0; i < ORDERS; i++) {
			uint64_t sum;
			size_t len;

			sum = ouch_order_tmpl_write(&ot, frame + FRAME_TCP_HDR_LEN,
						    1000000 + i, i, 'B', 100,
						    "AAPL    ",
						    1500000 + (i & 1023));
			len = tcp_frame_finish(&t, frame, 7000 + i * 52, 9000 + i, TCP_ACK | TCP_PSH,
					       65535, 0, OUCH_ENTER_PKT_LEN, sum);
			acc += frame[FRAME_OFF_TCP + TCP_OFF_CSUM] + (uint32_t)len;
		}
		ns_tmpl[r] = (double)(mono_ns() - t0) / ORDERS;
		sink += acc;
	}
	printf("order frame: %.1f ns/order with the hot-path template "
	       "(ouch_order_tmpl_write + tcp_frame_finish from its sum), %.1f ns/order with "
	       "the plain encoder and a full checksum (median of %d; token + Enter Order in "
	       "SoupBinTCP + eth/ip/tcp header + both checksums, %d B frame)\n",
	       median(ns_tmpl, REPS), median(ns_plain, REPS), REPS,
	       FRAME_TCP_HDR_LEN + OUCH_ENTER_PKT_LEN);
	bench_sink = sink;
	return 0;
}

int main(void)
{
	if (bench_decode() || bench_order())
		return 1;
	return 0;
}
