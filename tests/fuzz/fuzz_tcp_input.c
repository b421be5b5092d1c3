// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the own TCP (net/tcp.h): a live connection driven by
 * the input, segment by segment, with its invariants checked after every
 * step.  The input is a list of steps, each a type byte and its fields:
 *
 *   0  a segment from the peer's side: flags, SEQ and ACK as offsets from
 *      the connection's RCV.NXT and SND.UNA (anywhere in 2^32), window,
 *      length, up to four SACK blocks; its bytes are the peer's stream at
 *      that SEQ (a forger may place a segment, not change the stream)
 *   1  the peer, honest: ACKs part of what it received, with a window
 *   2  the application writes bytes of its own stream (tcp_write)
 *   3  an order by the hot path (tcp_send_built)
 *   4  time passes (up to 2 s), the timers run
 *   5  the peer's next bytes, in order
 *   6  close or abort
 *
 * After each step: SND.UNA <= SND.NXT <= SND.MAX, what is queued fits the
 * buffer, the send limit is the smaller window, every held segment lies
 * beyond RCV.NXT and inside the window, and the bytes delivered are the
 * peer's stream, in order, each once.  Every frame sent is checked as it
 * leaves: both checksums good, at most the MTU, its bytes the
 * application's stream at that SEQ, and no new byte beyond the peer's
 * window or the congestion window.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "net/tcp.h"

#define CHECK(cond) do { if (!(cond)) __builtin_trap(); } while (0)

#define ISS_BASE	0x10000000u
#define MTU		1500

static const struct frame_endpoint me = { { 2, 0, 0, 0, 0, 2 }, 0x0a000002, 40000 };
static const struct frame_endpoint peer = { { 2, 0, 0, 0, 0, 1 }, 0x0a000001, 26401 };

static struct tcp_conn *c;
static uint8_t txbuf[4096];
static uint8_t in_frame[4096];
static uint32_t irs, iss;
static uint64_t delivered;	/* the peer's bytes the client has read */
static uint32_t sent_max;	/* the highest byte the client ever sent, + 1 */
static bool sent_any;

/* The peer's stream at offset @k, and the application's. */
static uint8_t peer_byte(uint32_t k)
{
	return (uint8_t)(k * 131u + (k >> 8) * 7u + 1u);
}

static uint8_t app_byte(uint32_t k)
{
	return (uint8_t)(k * 29u + (k >> 9) + 3u);
}

static uint8_t *tx_frame(void *ctx, uint64_t *handle)
{
	(void)ctx;
	*handle = 0;
	return txbuf;
}

/* A frame leaves: well formed, within the MTU, true to the stream and the windows. */
static void check_frame(const uint8_t *f, uint32_t len)
{
	struct tcp_seg s;

	CHECK(len <= FRAME_ETH_LEN + MTU);
	CHECK(!frame_parse_tcp(f, len, &s));
	CHECK(!tcp_seg_verify(&s));
	if (!s.len || (s.flags & (TCP_SYN | TCP_RST)))
		return;
	for (uint32_t i = 0; i < s.len; i++)
		CHECK(s.payload[i] == app_byte(s.seq + i - iss - 1));
	if (!sent_any || tcp_seq_gt(s.seq + s.len, sent_max)) {
		/* New bytes: never beyond the peer's window or the congestion window. */
		CHECK(tcp_seq_le(s.seq + s.len, c->snd_una + c->snd_wnd) ||
		      tcp_seq_lt(s.seq, c->snd_max));
		CHECK(tcp_seq_le(s.seq + s.len, c->snd_una + c->cwnd) ||
		      tcp_seq_lt(s.seq, c->snd_max));
		sent_max = s.seq + s.len;
		sent_any = true;
	}
}

static void tx_send(void *ctx, uint64_t handle, uint32_t len)
{
	(void)ctx;
	(void)handle;
	check_frame(txbuf, len);
}

/* The input, read field by field; zeros once it is used up. */
struct in {
	const uint8_t *p;
	size_t n;
};

static uint32_t take(struct in *in, unsigned int bytes)
{
	uint32_t v = 0;

	for (unsigned int i = 0; i < bytes; i++) {
		v = v << 8 | (in->n ? *in->p : 0);
		if (in->n) {
			in->p++;
			in->n--;
		}
	}
	return v;
}

/* Everything the last input made readable: the peer's stream, in order. */
static void drain(void)
{
	const uint8_t *p;
	size_t n;

	while (tcp_read(c, &p, &n)) {
		for (size_t i = 0; i < n; i++)
			CHECK(p[i] == peer_byte((uint32_t)(delivered + i)));
		delivered += n;
	}
}

static void peer_segment(uint8_t flags, uint32_t seq, uint32_t ack, uint16_t win, uint32_t len,
			 const uint8_t *opt, size_t opt_len, uint64_t now)
{
	struct frame_endpoint from = peer, to = me;
	struct tcp_template t;
	struct tcp_seg s;
	uint8_t *payload;
	size_t flen;

	to.port = c->cfg.local.port;
	tcp_template_init(&t, &from, &to, 64);
	if (opt_len)
		memcpy(in_frame + FRAME_TCP_HDR_LEN, opt, opt_len);
	payload = in_frame + FRAME_TCP_HDR_LEN + opt_len;
	for (uint32_t i = 0; i < len; i++)
		payload[i] = peer_byte(seq + i - irs - 1);
	flen = tcp_frame_finish(&t, in_frame, seq, ack, flags, win, opt_len, len,
				csum_partial(payload, len, 0));
	CHECK(!frame_parse_tcp(in_frame, flen, &s));
	tcp_input(c, &s, now);
	drain();
}

/* The connection's invariants, after every step. */
static void check_state(void)
{
	CHECK(c->state < TCPS_STATE_NR);
	if (c->state == TCPS_CLOSED || c->state == TCPS_SYN_SENT)
		return;
	CHECK(tcp_seq_le(c->snd_una, c->snd_nxt));
	CHECK(tcp_seq_le(c->snd_nxt, c->snd_max));
	CHECK(tcp_seq_le(c->snd_max, c->snd_end + 1));
	CHECK(c->snd_end - c->snd_una <= TCP_SBUF || c->snd_una == c->snd_end + 1);	/* FIN acked */
	CHECK(c->snd_lim == (c->snd_wnd < c->cwnd ? c->snd_wnd : c->cwnd));
	CHECK(c->cwnd >= c->mss);
	CHECK(c->mss > TCP_SACK_ROOM && c->mss <= c->cfg.mss);
	CHECK((uint32_t)(c->rcv_nxt - irs - 1) == (uint32_t)delivered ||
	      (uint32_t)(c->rcv_nxt - irs - 2) == (uint32_t)delivered);	/* a FIN */
	for (int i = 0; i < TCP_OOO_SLOTS; i++) {
		const struct tcp_ooo *o = &c->ooo[i];

		if (!o->used)
			continue;
		CHECK(tcp_seq_gt(o->seq, c->rcv_nxt));
		CHECK(tcp_seq_le(o->seq + o->len, c->rcv_nxt + c->cfg.rcv_wnd));
		CHECK(o->len <= TCP_OOO_MAX);
		for (uint32_t k = 0; k < o->len; k++)
			CHECK(o->data[k] == peer_byte(o->seq + k - irs - 1));
	}
	if (c->pto)
		CHECK(c->pto >= c->cfg.tlp_min_ns);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct tcp_cfg cfg = {
		.local = me, .remote = peer, .mss = 1460, .rcv_wnd = 65535,
		.rto_init_ns = 1000000000ull, .rto_min_ns = 50000000ull,
		.rto_max_ns = 1000000000ull, .max_retries = 8, .ack_delay_ns = 200000,
		.tlp_min_ns = 250000, .ack_budget = 100,
	};
	struct tcp_tx tx = { tx_frame, tx_send, NULL };
	struct in in = { data, size };
	uint32_t app_written = 0;
	uint32_t peer_next = 0;		/* the peer's stream: bytes it sent in order */
	uint64_t now = 1000000;
	uint8_t opt[40];

	if (!c)
		c = aligned_alloc(64, (sizeof(*c) + 63) & ~(size_t)63);
	tcp_init(c, &cfg, &tx);
	iss = ISS_BASE + take(&in, 2);
	irs = take(&in, 4);
	delivered = 0;
	sent_any = false;
	CHECK(!tcp_connect(c, me.port, iss, now));
	{
		/* The SYN-ACK, with an MSS and SACK-permitted from the input. */
		uint16_t mss = (uint16_t)take(&in, 2);
		uint8_t o[8] = { TCP_OPT_MSS, 4, (uint8_t)(mss >> 8), (uint8_t)mss, TCP_OPT_NOP,
				 TCP_OPT_NOP, TCP_OPT_SACK_PERM, 2 };

		peer_segment(TCP_SYN | TCP_ACK, irs, iss + 1, (uint16_t)take(&in, 2), 0, o, 8,
			     now += 50000);
	}
	check_state();
	while (in.n && c->state != TCPS_CLOSED) {
		uint8_t op = (uint8_t)take(&in, 1);

		switch (op % 7) {
		case 0: {
			uint8_t flags = (uint8_t)take(&in, 1) & 0x3f;
			int32_t seq_off = (int32_t)take(&in, 4);
			int32_t ack_off = (int32_t)take(&in, 4);
			uint16_t win = (uint16_t)take(&in, 2);
			uint32_t len = take(&in, 2) % 1400;
			uint8_t nb = (uint8_t)take(&in, 1) % 5;
			size_t olen = 0;

			/* Mostly near the window, sometimes anywhere. */
			if (op & 0x80)
				seq_off = (int16_t)seq_off;
			if (op & 0x40)
				ack_off = (int16_t)ack_off;
			if (nb) {
				opt[0] = opt[1] = TCP_OPT_NOP;
				opt[2] = TCP_OPT_SACK;
				opt[3] = (uint8_t)(2 + 8 * nb);
				for (uint8_t b = 0; b < nb; b++) {
					uint32_t l = c->snd_una + (uint32_t)(int16_t)take(&in, 2);

					be32_store(opt + 4 + 8 * b, l);
					be32_store(opt + 8 + 8 * b, l + take(&in, 1) * 16);
				}
				olen = 4 + 8u * nb;
			}
			peer_segment(flags, c->rcv_nxt + (uint32_t)seq_off,
				     c->snd_una + (uint32_t)ack_off, win, len, opt, olen, now);
			break;
		}
		case 1: {
			uint32_t out = c->snd_max - c->snd_una;
			uint32_t ack = c->snd_una + (out ? take(&in, 2) % (out + 1) : 0);

			peer_segment(TCP_ACK, c->rcv_nxt, ack, (uint16_t)take(&in, 2), 0, NULL, 0,
				     now);
			break;
		}
		case 2: {
			uint32_t len = take(&in, 2) % 3000;
			static uint8_t buf[3000];

			for (uint32_t i = 0; i < len; i++)
				buf[i] = app_byte(app_written + i);
			if (!tcp_write(c, buf, len))
				app_written += len;
			tcp_output(c, now);
			break;
		}
		case 3: {
			static uint8_t frame[2048];
			uint32_t len = 1 + take(&in, 1) % 120;
			uint8_t *p = frame + FRAME_TCP_HDR_LEN;
			int ret;

			for (uint32_t i = 0; i < len; i++)
				p[i] = app_byte(app_written + i);
			ret = tcp_send_built(c, frame, len, csum_partial(p, len, 0), now);
			if (ret >= 0)
				app_written += len;
			if (ret > 0)
				check_frame(frame, (uint32_t)ret);
			break;
		}
		case 4:
			now += take(&in, 3) * 128;
			tcp_timers(c, now);
			drain();
			break;
		case 5: {
			uint32_t len = take(&in, 2) % 1400;

			if (tcp_seq_lt(irs + 1 + peer_next, c->rcv_nxt))
				peer_next = c->rcv_nxt - irs - 1;
			peer_segment(TCP_ACK | TCP_PSH, irs + 1 + peer_next, c->snd_una, 65535, len,
				     NULL, 0, now);
			peer_next += len;
			break;
		}
		case 6:
			if (take(&in, 1) & 1)
				tcp_close(c, now);
			else
				tcp_abort(c, now);
			break;
		}
		check_state();
	}
	return 0;
}
