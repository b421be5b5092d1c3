// SPDX-License-Identifier: MIT
/*
 * The own TCP client (net/tcp.h), with the test as its peer: every frame
 * it sends is parsed back (checksums verified) and every segment it gets
 * is a real frame built here.  The handshake and its MSS, SYN retries and
 * a refused SYN; delivery in order with held out-of-order segments and
 * the duplicate ACKs that show a hole; the ACK policy (delayed, at once
 * for two full segments); the peer's window never overrun, stalls and
 * zero-window probes; RFC 6298's RTO and its backoff, a connection lost
 * after the retries; fast retransmit and NewReno's partial ACK; RST and
 * SYN at and beside rcv_nxt (RFC 5961); both closes; a RST for a closed
 * connection; the hot path's frame; SACK blocks for held segments; the
 * orders' tail loss probe and the reply times it follows; sequence
 * numbers across 2^32; RFC 5961's ACK range, the gated window update and
 * the challenge-ACK budget; a window closed on data in flight; no frame
 * over the MTU with SACK blocks; the congestion window after an RTO; and
 * two byte streams through a channel that drops, doubles and reorders.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "net/tcp.h"
#include "proto/proto_err.h"

#define US 1000ull
#define MS 1000000ull
#define MAX_OUT 256
#define FRAME 2048

static const struct frame_endpoint me = { { 2, 0, 0, 0, 0, 2 }, 0x0a000002, 40000 };
static const struct frame_endpoint peer = { { 2, 0, 0, 0, 0, 1 }, 0x0a000001, 26401 };

/* What the client sent, in order. */
static uint8_t out[MAX_OUT][FRAME];
static uint32_t out_len[MAX_OUT];
static unsigned int n_out, next_free;
static bool no_frames;

static uint8_t *tx_frame(void *ctx, uint64_t *handle)
{
	(void)ctx;
	if (no_frames || next_free == MAX_OUT)
		return NULL;
	*handle = next_free;
	return out[next_free++];
}

static void tx_send(void *ctx, uint64_t handle, uint32_t len)
{
	(void)ctx;
	assert_int_equal(handle, n_out);
	out_len[n_out++] = len;
}

static struct tcp_conn *c;

static void reset_out(void)
{
	n_out = next_free = 0;
}

static const struct tcp_cfg cfg = {
	.local = me, .remote = peer, .mss = 1460, .rcv_wnd = 65535,
	.rto_init_ns = 1000 * MS, .rto_min_ns = 10 * MS, .rto_max_ns = 1000 * MS,
	.max_retries = 4, .ack_delay_ns = 200 * US, .tlp_min_ns = 2 * MS,
};

static int setup(void **state)
{
	struct tcp_tx tx = { tx_frame, tx_send, NULL };

	(void)state;
	c = malloc(sizeof(*c));
	if (!c)
		return -1;
	tcp_init(c, &cfg, &tx);
	reset_out();
	no_frames = false;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	free(c);
	return 0;
}

/* The i-th frame sent, parsed and checked. */
static struct tcp_seg sent(unsigned int i)
{
	struct tcp_seg s;

	assert_true(i < n_out);
	assert_int_equal(frame_parse_tcp(out[i], out_len[i], &s), 0);
	assert_int_equal(tcp_seg_verify(&s), 0);
	assert_int_equal(s.src_ip, me.ip);
	assert_int_equal(s.dst_ip, peer.ip);
	assert_int_equal(s.src_port, c->cfg.local.port);
	assert_int_equal(s.dst_port, peer.port);
	return s;
}

static struct tcp_seg last_sent(void)
{
	return sent(n_out - 1);
}

/* A segment from the peer, as a real frame, into the client. */
static uint8_t in_frame[FRAME];

static void peer_send(uint8_t flags, uint32_t seq, uint32_t ack, uint16_t win,
		      const void *data, size_t len, const uint8_t *opt, size_t opt_len,
		      uint64_t now)
{
	struct frame_endpoint from = peer, to = me;
	struct tcp_template t;
	struct tcp_seg s;
	size_t flen;

	to.port = c->cfg.local.port;
	tcp_template_init(&t, &from, &to, 64);
	if (opt_len)
		memcpy(in_frame + FRAME_TCP_HDR_LEN, opt, opt_len);
	if (len)
		memcpy(in_frame + FRAME_TCP_HDR_LEN + opt_len, data, len);
	flen = tcp_frame_finish(&t, in_frame, seq, ack, flags, win, opt_len, len,
				csum_partial(in_frame + FRAME_TCP_HDR_LEN + opt_len, len, 0));
	assert_int_equal(frame_parse_tcp(in_frame, flen, &s), 0);
	assert_int_equal(tcp_seg_verify(&s), 0);
	tcp_input(c, &s, now);
}

static void peer_seg(uint8_t flags, uint32_t seq, uint32_t ack, uint16_t win,
		     const void *data, size_t len, uint64_t now)
{
	peer_send(flags, seq, ack, win, data, len, NULL, 0, now);
}

/* Everything the last input made readable, concatenated. */
static size_t read_all(uint8_t *dst, size_t cap)
{
	const uint8_t *p;
	size_t n, got = 0;

	while (tcp_read(c, &p, &n)) {
		assert_true(got + n <= cap);
		memcpy(dst + got, p, n);
		got += n;
	}
	return got;
}

#define ISS 1000u
#define IRS 5000u

/* Connected at time @now: SYN, SYN-ACK with MSS @mss and window @win. */
static void connect_at(uint64_t now, uint16_t mss, uint16_t win)
{
	uint8_t opt[4] = { TCP_OPT_MSS, 4, (uint8_t)(mss >> 8), (uint8_t)mss };

	assert_int_equal(tcp_connect(c, me.port, ISS, now), 0);
	peer_send(TCP_SYN | TCP_ACK, IRS, ISS + 1, win, NULL, 0, opt, mss ? 4 : 0,
		  now + 50 * US);
	assert_int_equal(c->state, TCPS_ESTABLISHED);
	reset_out();
}

static void test_handshake(void **state)
{
	uint8_t opt[4] = { TCP_OPT_MSS, 4, 0x05, 0x00 };	/* 1280 */
	struct tcp_seg s;

	(void)state;
	assert_int_equal(tcp_connect(c, me.port, ISS, 0), 0);
	assert_int_equal(c->state, TCPS_SYN_SENT);
	assert_int_equal(n_out, 1);
	s = sent(0);
	assert_int_equal(s.flags, TCP_SYN);
	assert_int_equal(s.seq, ISS);
	assert_int_equal(s.mss, 1460);
	assert_int_equal(s.len, 0);
	assert_int_equal(s.win, 65535);
	assert_int_equal(tcp_connect(c, me.port, ISS, 0), -EISCONN);

	/* A SYN-ACK acknowledging something else is answered with a RST. */
	peer_send(TCP_SYN | TCP_ACK, IRS, ISS + 7, 1000, NULL, 0, opt, 4, 10 * US);
	assert_int_equal(c->state, TCPS_SYN_SENT);
	s = last_sent();
	assert_int_equal(s.flags, TCP_RST);
	assert_int_equal(s.seq, ISS + 7);

	peer_send(TCP_SYN | TCP_ACK, IRS, ISS + 1, 8000, NULL, 0, opt, 4, 40 * US);
	assert_int_equal(c->state, TCPS_ESTABLISHED);
	assert_int_equal(c->mss, 1280);
	assert_int_equal(c->snd_wnd, 8000);
	assert_int_equal(c->rcv_nxt, IRS + 1);
	s = last_sent();
	assert_int_equal(s.flags, TCP_ACK);
	assert_int_equal(s.seq, ISS + 1);
	assert_int_equal(s.ack, IRS + 1);
	/* The SYN's round trip is the first sample (RFC 6298 2.2). */
	assert_int_equal(c->st.rtt_samples, 1);
	assert_int_equal(c->srtt, 40 * US);
	assert_int_equal(c->rto, 10 * MS);	/* 40 + 4 x 20 us, clamped to rto_min */
	assert_int_equal(c->rto_at, 0);
}

static void test_syn_without_mss_option(void **state)
{
	(void)state;
	connect_at(0, 0, 65535);
	assert_int_equal(c->mss, TCP_DEFAULT_MSS);
}

static void test_syn_retries_then_lost(void **state)
{
	uint64_t t = 0, rto = cfg.rto_init_ns;

	(void)state;
	tcp_connect(c, me.port, ISS, 0);
	for (unsigned int i = 0; i < cfg.max_retries; i++) {
		tcp_timers(c, t + rto - 1);
		assert_int_equal(n_out, 1 + i);		/* not yet */
		t += rto;
		tcp_timers(c, t);
		assert_int_equal(n_out, 2 + i);
		assert_int_equal(last_sent().flags, TCP_SYN);
		assert_int_equal(last_sent().seq, ISS);
		rto = rto * 2 > cfg.rto_max_ns ? cfg.rto_max_ns : rto * 2;
	}
	tcp_timers(c, t + rto);
	assert_int_equal(c->state, TCPS_CLOSED);
	assert_int_equal(c->why, TCP_WHY_TIMEOUT);
	assert_int_equal(c->st.retrans_segs, cfg.max_retries);
	assert_int_equal(c->st.rto_expiries, cfg.max_retries + 1);
}

static void test_syn_refused(void **state)
{
	(void)state;
	tcp_connect(c, me.port, ISS, 0);
	/* A RST that does not acknowledge our SYN is ignored (RFC 9293). */
	peer_seg(TCP_RST | TCP_ACK, 0, ISS + 5, 0, NULL, 0, 1000);
	assert_int_equal(c->state, TCPS_SYN_SENT);
	peer_seg(TCP_RST | TCP_ACK, 0, ISS + 1, 0, NULL, 0, 1000);
	assert_int_equal(c->state, TCPS_CLOSED);
	assert_int_equal(c->why, TCP_WHY_REFUSED);
	assert_int_equal(c->st.resets_in, 1);
}

static void test_in_order_and_delayed_ack(void **state)
{
	uint8_t got[4096];
	uint64_t t = 1 * MS;

	(void)state;
	connect_at(0, 1460, 65535);
	peer_seg(TCP_ACK | TCP_PSH, IRS + 1, ISS + 1, 65535, "hello", 5, t);
	assert_int_equal(read_all(got, sizeof(got)), 5);
	assert_memory_equal(got, "hello", 5);
	assert_int_equal(c->rcv_nxt, IRS + 6);
	/* The ACK waits for something to ride on, up to the delay. */
	assert_int_equal(n_out, 0);
	peer_seg(TCP_ACK | TCP_PSH, IRS + 6, ISS + 1, 65535, " you", 4, t + 50 * US);
	assert_int_equal(read_all(got, sizeof(got)), 4);
	tcp_timers(c, t + 199 * US);
	assert_int_equal(n_out, 0);
	tcp_timers(c, t + 200 * US);
	assert_int_equal(n_out, 1);
	assert_int_equal(last_sent().ack, IRS + 10);
	assert_int_equal(last_sent().flags, TCP_ACK);
	assert_int_equal(c->st.acks_out, 2);	/* the handshake's, and this one */
	tcp_timers(c, t + 10 * MS);
	assert_int_equal(n_out, 1);	/* nothing more owed */
}

static void test_two_full_segments_acked_at_once(void **state)
{
	static uint8_t data[1460 * 2], got[4096];

	(void)state;
	connect_at(0, 1460, 65535);
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)i;
	peer_seg(TCP_ACK, IRS + 1, ISS + 1, 65535, data, 1460, 10);
	assert_int_equal(n_out, 0);
	peer_seg(TCP_ACK, IRS + 1461, ISS + 1, 65535, data + 1460, 1460, 20);
	assert_int_equal(n_out, 1);
	assert_int_equal(last_sent().ack, IRS + 1 + 2920);
	assert_int_equal(read_all(got, sizeof(got)), 1460);
}

static void test_out_of_order_held(void **state)
{
	uint8_t got[64];
	uint64_t t = 1 * MS;

	(void)state;
	connect_at(0, 1460, 65535);
	/* "bbb" and "ccc" arrive before "aaa": held, each answered with a dup ACK. */
	peer_seg(TCP_ACK, IRS + 4, ISS + 1, 65535, "bbb", 3, t);
	assert_int_equal(read_all(got, sizeof(got)), 0);
	assert_int_equal(n_out, 1);
	assert_int_equal(last_sent().ack, IRS + 1);
	peer_seg(TCP_ACK | TCP_FIN, IRS + 7, ISS + 1, 65535, "ccc", 3, t);
	assert_int_equal(n_out, 2);
	assert_int_equal(last_sent().ack, IRS + 1);
	/* The same held bytes again change nothing. */
	peer_seg(TCP_ACK, IRS + 4, ISS + 1, 65535, "bbb", 3, t);
	assert_int_equal(c->st.ooo_held, 2);
	/* The hole fills: all of it, in order, and the FIN that followed. */
	peer_seg(TCP_ACK, IRS + 1, ISS + 1, 65535, "aaa", 3, t);
	assert_int_equal(read_all(got, sizeof(got)), 9);
	assert_memory_equal(got, "aaabbbccc", 9);
	assert_int_equal(c->rcv_nxt, IRS + 11);
	assert_int_equal(c->state, TCPS_CLOSE_WAIT);
	assert_int_equal(c->why, TCP_WHY_PEER_FIN);
	assert_int_equal(last_sent().ack, IRS + 11);
}

/*
 * Nothing follows the peer's FIN: a segment held beyond it is dropped when
 * the FIN is reached, never delivered and never left held.
 */
static void test_nothing_held_beyond_the_fin(void **state)
{
	uint8_t got[64];

	(void)state;
	connect_at(0, 1460, 65535);
	peer_seg(TCP_ACK, IRS + 7, ISS + 1, 65535, "zzz", 3, 10);
	peer_seg(TCP_ACK | TCP_FIN, IRS + 4, ISS + 1, 65535, "bbb", 3, 10);
	peer_seg(TCP_ACK, IRS + 1, ISS + 1, 65535, "aaa", 3, 20);
	assert_int_equal(read_all(got, sizeof(got)), 6);
	assert_memory_equal(got, "aaabbb", 6);
	assert_int_equal(c->rcv_nxt, IRS + 8);
	assert_int_equal(c->state, TCPS_CLOSE_WAIT);
	assert_int_equal(c->st.rejected[TCP_REJ_AFTER_FIN], 1);
	for (int i = 0; i < TCP_OOO_SLOTS; i++)
		assert_false(c->ooo[i].used);
}

/* The same with the FIN in order and the bytes beyond it held. */
static void test_nothing_held_beyond_an_in_order_fin(void **state)
{
	uint8_t got[64];

	(void)state;
	connect_at(0, 1460, 65535);
	peer_seg(TCP_ACK, IRS + 4, ISS + 1, 65535, "zzz", 3, 10);
	peer_seg(TCP_ACK | TCP_FIN, IRS + 1, ISS + 1, 65535, "aa", 2, 20);
	assert_int_equal(read_all(got, sizeof(got)), 2);
	assert_int_equal(c->rcv_nxt, IRS + 4);
	for (int i = 0; i < TCP_OOO_SLOTS; i++)
		assert_false(c->ooo[i].used);
}

static void test_overlapping_and_duplicate_segments(void **state)
{
	uint8_t got[64];

	(void)state;
	connect_at(0, 1460, 65535);
	peer_seg(TCP_ACK, IRS + 1, ISS + 1, 65535, "abcd", 4, 10);
	assert_int_equal(read_all(got, sizeof(got)), 4);
	/* An old copy: acknowledged again, never delivered twice. */
	peer_seg(TCP_ACK, IRS + 1, ISS + 1, 65535, "abcd", 4, 20);
	assert_int_equal(read_all(got, sizeof(got)), 0);
	assert_int_equal(c->st.rejected[TCP_REJ_OUT_OF_WINDOW], 1);
	assert_int_equal(last_sent().ack, IRS + 5);
	/* Half old, half new: only the new half. */
	peer_seg(TCP_ACK, IRS + 3, ISS + 1, 65535, "cdef", 4, 30);
	assert_int_equal(read_all(got, sizeof(got)), 2);
	assert_memory_equal(got, "ef", 2);
	/* Held segments overlapping each other and the next byte. */
	peer_seg(TCP_ACK, IRS + 9, ISS + 1, 65535, "ijkl", 4, 40);
	peer_seg(TCP_ACK, IRS + 8, ISS + 1, 65535, "hij", 3, 40);
	peer_seg(TCP_ACK, IRS + 7, ISS + 1, 65535, "ghi", 3, 40);
	assert_int_equal(read_all(got, sizeof(got)), 6);
	assert_memory_equal(got, "ghijkl", 6);
	assert_int_equal(c->rcv_nxt, IRS + 13);
}

static void test_hold_area_full_drops(void **state)
{
	uint8_t got[64];

	(void)state;
	connect_at(0, 1460, 65535);
	for (uint32_t i = 0; i < TCP_OOO_SLOTS + 2; i++)
		peer_seg(TCP_ACK, IRS + 2 + i, ISS + 1, 65535, "x", 1, 10);
	assert_int_equal(c->st.ooo_held, TCP_OOO_SLOTS);
	assert_int_equal(c->st.ooo_dropped, 2);
	peer_seg(TCP_ACK, IRS + 1, ISS + 1, 65535, "y", 1, 20);
	assert_int_equal(read_all(got, sizeof(got)), 1 + TCP_OOO_SLOTS);
	assert_int_equal(c->rcv_nxt, IRS + 2 + TCP_OOO_SLOTS);
}

static void test_outside_window_dropped(void **state)
{
	uint8_t got[8];

	(void)state;
	connect_at(0, 1460, 65535);
	peer_seg(TCP_ACK, IRS + 1 + 70000, ISS + 1, 65535, "far", 3, 10);
	assert_int_equal(read_all(got, sizeof(got)), 0);
	assert_int_equal(c->st.ooo_held, 0);
	assert_int_equal(c->st.rejected[TCP_REJ_OUT_OF_WINDOW], 1);
	assert_int_equal(last_sent().ack, IRS + 1);
}

static void test_send_respects_window(void **state)
{
	static uint8_t data[5000];
	struct tcp_seg s;
	uint32_t total = 0;

	(void)state;
	connect_at(0, 1000, 3000);
	assert_int_equal(tcp_write(c, data, sizeof(data)), 0);
	tcp_output(c, 1 * MS);
	/* 3000 bytes of window: three segments of the peer's MSS, no more. */
	assert_int_equal(n_out, 3);
	for (unsigned int i = 0; i < n_out; i++) {
		s = sent(i);
		assert_int_equal(s.seq, ISS + 1 + total);
		assert_true(s.len <= 1000);
		total += s.len;
	}
	assert_int_equal(total, 3000);
	assert_true(c->stalled);
	assert_int_equal(c->st.window_stalls, 1);
	tcp_output(c, 2 * MS);
	assert_int_equal(n_out, 3);
	assert_int_equal(c->st.window_stalls, 1);	/* one episode */
	/* The peer takes 1500 and opens 2500 more: never past ack + window. */
	peer_seg(TCP_ACK, IRS + 1, ISS + 1 + 1500, 2500, NULL, 0, 3 * MS);
	total = 0;
	for (unsigned int i = 3; i < n_out; i++)
		total += sent(i).len;
	assert_int_equal(total, 1000);
	assert_int_equal(c->snd_nxt, ISS + 1 + 4000);
	peer_seg(TCP_ACK, IRS + 1, ISS + 1 + 4000, 10000, NULL, 0, 4 * MS);
	assert_int_equal(c->snd_nxt, ISS + 1 + 5000);
	assert_false(c->stalled);
}

static void test_zero_window_probes(void **state)
{
	struct tcp_seg s;
	uint64_t t = 1 * MS;

	(void)state;
	connect_at(0, 1460, 10);
	assert_int_equal(tcp_write(c, "0123456789abcdef", 16), 0);
	tcp_output(c, t);
	assert_int_equal(n_out, 1);
	assert_int_equal(sent(0).len, 10);
	/* The peer takes them and closes its window. */
	peer_seg(TCP_ACK, IRS + 1, ISS + 11, 0, NULL, 0, t + 100 * US);
	assert_int_equal(n_out, 1);
	assert_int_equal(c->rto_at, 0);
	assert_true(c->persist_at);
	/* The persist timer: a probe below snd_una, no byte beyond the window. */
	tcp_timers(c, c->persist_at);
	assert_int_equal(n_out, 2);
	s = last_sent();
	assert_int_equal(s.seq, ISS + 10);
	assert_int_equal(s.len, 0);
	assert_int_equal(c->st.zwin_probes, 1);
	/* Answered with the window still shut: it keeps probing, backed off. */
	peer_seg(TCP_ACK, IRS + 1, ISS + 11, 0, NULL, 0, t + 20 * MS);
	assert_int_equal(c->probes, 0);
	tcp_timers(c, c->persist_at);
	assert_int_equal(c->st.zwin_probes, 2);
	assert_int_equal(c->state, TCPS_ESTABLISHED);
	/* The window opens: the rest goes. */
	peer_seg(TCP_ACK, IRS + 1, ISS + 11, 100, NULL, 0, t + 200 * MS);
	s = last_sent();
	assert_int_equal(s.seq, ISS + 11);
	assert_int_equal(s.len, 6);
	assert_int_equal(c->persist_at, 0);
}

static void test_unanswered_probes_lose_the_connection(void **state)
{
	(void)state;
	connect_at(0, 1460, 0);
	tcp_write(c, "x", 1);
	tcp_output(c, 1 * MS);
	assert_int_equal(n_out, 0);
	for (unsigned int i = 0; i <= cfg.max_retries && c->state != TCPS_CLOSED; i++)
		tcp_timers(c, c->persist_at);
	assert_int_equal(c->state, TCPS_CLOSED);
	assert_int_equal(c->why, TCP_WHY_TIMEOUT);
	assert_int_equal(last_sent().flags, TCP_RST | TCP_ACK);
}

static void test_rto_and_backoff(void **state)
{
	uint64_t t = 1 * MS;

	(void)state;
	connect_at(0, 1460, 65535);
	c->rto = 10 * MS;
	tcp_write(c, "abc", 3);
	tcp_output(c, t);
	assert_int_equal(n_out, 1);
	assert_int_equal(c->rto_at, t + 10 * MS);
	tcp_timers(c, t + 10 * MS);
	assert_int_equal(n_out, 2);
	assert_int_equal(sent(1).seq, ISS + 1);
	assert_int_equal(sent(1).len, 3);
	assert_int_equal(c->rto_at, t + 30 * MS);	/* doubled */
	assert_int_equal(c->st.retrans_segs, 1);
	tcp_timers(c, t + 30 * MS);
	assert_int_equal(c->rto_at, t + 70 * MS);
	/* The ACK: no sample from a resent segment (Karn), the timer stops. */
	peer_seg(TCP_ACK, IRS + 1, ISS + 4, 65535, NULL, 0, t + 31 * MS);
	assert_int_equal(c->rto_at, 0);
	assert_int_equal(c->st.rtt_samples, 1);	/* the SYN's only */
	assert_int_equal(c->retries, 0);
	/* Unanswered to the end: RST and lost. */
	tcp_write(c, "d", 1);
	tcp_output(c, 100 * MS);
	while (c->state != TCPS_CLOSED)
		tcp_timers(c, c->rto_at);
	assert_int_equal(c->why, TCP_WHY_TIMEOUT);
	assert_int_equal(last_sent().flags, TCP_RST | TCP_ACK);
}

static void test_rtt_estimate(void **state)
{
	uint64_t t = 0;

	(void)state;
	connect_at(0, 1460, 65535);	/* first sample: 50 us */
	/* RFC 6298 2.3 by hand: R = 2 ms. */
	tcp_write(c, "a", 1);
	tcp_output(c, t = 10 * MS);
	peer_seg(TCP_ACK, IRS + 1, ISS + 2, 65535, NULL, 0, t + 2 * MS);
	/* rttvar = (3 * 25 + |50 - 2000|) / 4 us, srtt = (7 * 50 + 2000) / 8 us */
	assert_int_equal(c->rttvar, (3 * 25 * US + 1950 * US) / 4);
	assert_int_equal(c->srtt, (7 * 50 * US + 2000 * US) / 8);
	assert_int_equal(c->rto, 10 * MS > c->srtt + 4 * c->rttvar ? 10 * MS :
				 c->srtt + 4 * c->rttvar);
}

static void test_fast_retransmit_and_partial_ack(void **state)
{
	static uint8_t data[4000];
	struct tcp_seg s;

	(void)state;
	connect_at(0, 1000, 65535);
	tcp_write(c, data, sizeof(data));
	tcp_output(c, 1 * MS);
	assert_int_equal(n_out, 4);
	/* The first and third are lost: three duplicate ACKs for the first. */
	for (int i = 0; i < 3; i++)
		peer_seg(TCP_ACK, IRS + 1, ISS + 1, 65535, NULL, 0, 2 * MS);
	assert_int_equal(c->st.dup_acks, 3);
	assert_int_equal(c->st.fast_retrans, 1);
	assert_int_equal(n_out, 5);
	s = last_sent();
	assert_int_equal(s.seq, ISS + 1);
	assert_int_equal(s.len, 1000);
	/* A fourth changes nothing. */
	peer_seg(TCP_ACK, IRS + 1, ISS + 1, 65535, NULL, 0, 2 * MS);
	assert_int_equal(n_out, 5);
	/* A partial ACK (up to the third): it is resent at once. */
	peer_seg(TCP_ACK, IRS + 1, ISS + 2001, 65535, NULL, 0, 3 * MS);
	assert_int_equal(n_out, 6);
	s = last_sent();
	assert_int_equal(s.seq, ISS + 2001);
	assert_true(c->in_recovery);
	peer_seg(TCP_ACK, IRS + 1, ISS + 4001, 65535, NULL, 0, 4 * MS);
	assert_false(c->in_recovery);
	assert_int_equal(c->rto_at, 0);
}

/* Two orders out, the first lost: the peer's first duplicate ACK SACKs the second. */
static void test_sack_evidence_retransmits_at_once(void **state)
{
	uint8_t opt[12] = { TCP_OPT_NOP, TCP_OPT_NOP, TCP_OPT_SACK, 10 };

	(void)state;
	connect_at(0, 1000, 65535);
	tcp_write(c, "order-one!order-two!", 20);
	c->mss = 10;
	tcp_output(c, 1 * MS);
	assert_int_equal(n_out, 2);
	/* A duplicate ACK without SACK: not yet. */
	peer_seg(TCP_ACK, IRS + 1, ISS + 1, 65535, NULL, 0, 2 * MS);
	assert_int_equal(n_out, 2);
	/* One that SACKs the second order: the first goes again now. */
	be32_store(opt + 4, ISS + 11);
	be32_store(opt + 8, ISS + 21);
	peer_send(TCP_ACK, IRS + 1, ISS + 1, 65535, NULL, 0, opt, sizeof(opt), 2 * MS);
	assert_int_equal(n_out, 3);
	assert_int_equal(last_sent().seq, ISS + 1);
	assert_int_equal(last_sent().len, 10);
	assert_int_equal(c->st.fast_retrans, 1);
	/* A D-SACK (a block below the ACK) is no such evidence. */
	peer_seg(TCP_ACK, IRS + 1, ISS + 21, 65535, NULL, 0, 3 * MS);
	assert_false(c->in_recovery);
	tcp_write(c, "x", 1);
	tcp_output(c, 4 * MS);
	be32_store(opt + 4, ISS + 1);
	be32_store(opt + 8, ISS + 11);
	peer_send(TCP_ACK, IRS + 1, ISS + 21, 65535, NULL, 0, opt, sizeof(opt), 5 * MS);
	assert_int_equal(c->st.fast_retrans, 1);
}

static void test_ack_of_unsent_data(void **state)
{
	uint8_t got[8];

	(void)state;
	connect_at(0, 1460, 65535);
	peer_seg(TCP_ACK, IRS + 1, ISS + 100, 65535, "zz", 2, 10);
	assert_int_equal(c->st.rejected[TCP_REJ_ACK_UNSENT], 1);
	assert_int_equal(read_all(got, sizeof(got)), 0);
	assert_int_equal(last_sent().ack, IRS + 1);
	assert_int_equal(c->snd_una, ISS + 1);
}

static void test_rst_rules(void **state)
{
	(void)state;
	connect_at(0, 1460, 65535);
	/* In the window but not at rcv_nxt: a challenge ACK, no reset. */
	peer_seg(TCP_RST, IRS + 100, 0, 0, NULL, 0, 10);
	assert_int_equal(c->state, TCPS_ESTABLISHED);
	assert_int_equal(c->st.challenge_acks, 1);
	assert_int_equal(last_sent().flags, TCP_ACK);
	/* Outside the window: ignored, not even an ACK. */
	n_out = next_free = 0;
	peer_seg(TCP_RST, IRS + 100000, 0, 0, NULL, 0, 20);
	assert_int_equal(n_out, 0);
	/* A SYN in the window: a challenge ACK too. */
	peer_seg(TCP_SYN, IRS + 10, 0, 65535, NULL, 0, 30);
	assert_int_equal(c->st.challenge_acks, 2);
	assert_int_equal(c->state, TCPS_ESTABLISHED);
	/* Exactly at rcv_nxt: reset. */
	peer_seg(TCP_RST, IRS + 1, 0, 0, NULL, 0, 40);
	assert_int_equal(c->state, TCPS_CLOSED);
	assert_int_equal(c->why, TCP_WHY_RESET);
	assert_int_equal(c->st.resets_in, 1);
}

static void test_closed_answers_with_rst(void **state)
{
	struct tcp_seg s;

	(void)state;
	connect_at(0, 1460, 65535);
	tcp_abort(c, 10);
	assert_int_equal(c->why, TCP_WHY_ABORTED);
	assert_int_equal(last_sent().flags, TCP_RST | TCP_ACK);
	peer_seg(TCP_ACK | TCP_PSH, IRS + 1, ISS + 1, 65535, "late", 4, 20);
	s = last_sent();
	assert_int_equal(s.flags, TCP_RST);
	assert_int_equal(s.seq, ISS + 1);
	n_out = next_free = 0;
	/* Never a RST for a RST. */
	peer_seg(TCP_RST, IRS + 5, 0, 0, NULL, 0, 30);
	assert_int_equal(n_out, 0);
}

/*
 * A late segment for an earlier connection's port is answered as a closed
 * port answers, from that port; the live connection keeps its ACK owed.
 */
static void test_closed_port_answers_from_its_port(void **state)
{
	struct frame_endpoint from = peer, to = me;
	struct tcp_template t;
	struct tcp_seg s, r;
	size_t flen;

	(void)state;
	connect_at(0, 1460, 65535);
	peer_seg(TCP_ACK | TCP_PSH, IRS + 1, ISS + 1, 65535, "data", 4, 100 * US);
	assert_true(c->ack_due != 0);
	reset_out();
	/* A SYN-ACK for a connect given up on port 40007. */
	to.port = 40007;
	tcp_template_init(&t, &from, &to, 64);
	flen = tcp_frame_finish(&t, in_frame, 777, 123456, TCP_SYN | TCP_ACK, 65535, 0, 0, 0);
	assert_int_equal(frame_parse_tcp(in_frame, flen, &s), 0);
	tcp_answer_closed_port(c, &s);
	assert_int_equal(n_out, 1);
	assert_int_equal(frame_parse_tcp(out[0], out_len[0], &r), 0);
	assert_int_equal(tcp_seg_verify(&r), 0);
	assert_int_equal(r.src_port, 40007);
	assert_int_equal(r.dst_port, peer.port);
	assert_int_equal(r.flags, TCP_RST);
	assert_int_equal(r.seq, 123456);
	assert_int_equal(c->st.stale_segs, 1);
	/* The live connection's ACK is still owed, from its own port. */
	assert_true(c->ack_due != 0);
	tcp_output(c, 100 * US + cfg.ack_delay_ns + 1);
	assert_int_equal(last_sent().src_port, me.port);
	assert_int_equal(last_sent().ack, IRS + 5);
	/* A RST is never answered. */
	reset_out();
	flen = tcp_frame_finish(&t, in_frame, 777, 0, TCP_RST, 0, 0, 0, 0);
	assert_int_equal(frame_parse_tcp(in_frame, flen, &s), 0);
	tcp_answer_closed_port(c, &s);
	assert_int_equal(n_out, 0);
}

static void test_peer_closes_first(void **state)
{
	struct tcp_seg s;

	(void)state;
	connect_at(0, 1460, 65535);
	peer_seg(TCP_ACK | TCP_FIN, IRS + 1, ISS + 1, 65535, NULL, 0, 10);
	assert_int_equal(c->state, TCPS_CLOSE_WAIT);
	assert_int_equal(last_sent().ack, IRS + 2);
	/* Still free to send, then our FIN. */
	assert_int_equal(tcp_write(c, "bye", 3), 0);
	tcp_close(c, 20);
	assert_int_equal(c->state, TCPS_LAST_ACK);
	s = last_sent();
	assert_int_equal(s.flags, TCP_ACK | TCP_FIN);
	assert_int_equal(s.seq, ISS + 4);
	assert_int_equal(tcp_write(c, "more", 4), -ENOTCONN);
	peer_seg(TCP_ACK, IRS + 2, ISS + 5, 65535, NULL, 0, 30);
	assert_int_equal(c->state, TCPS_CLOSED);
	assert_int_equal(c->why, TCP_WHY_CLOSED);
}

static void test_we_close_first(void **state)
{
	(void)state;
	connect_at(0, 1460, 65535);
	tcp_close(c, 10);
	assert_int_equal(c->state, TCPS_FIN_WAIT_1);
	assert_int_equal(last_sent().flags, TCP_ACK | TCP_FIN);
	/* The FIN is lost: the RTO sends it again. */
	tcp_timers(c, c->rto_at);
	assert_int_equal(last_sent().flags, TCP_ACK | TCP_FIN);
	assert_int_equal(last_sent().seq, ISS + 1);
	peer_seg(TCP_ACK, IRS + 1, ISS + 2, 65535, NULL, 0, 100 * MS);
	assert_int_equal(c->state, TCPS_FIN_WAIT_2);
	/* Data may still come, then the peer's FIN. */
	peer_seg(TCP_ACK | TCP_FIN, IRS + 1, ISS + 2, 65535, "x", 1, 101 * MS);
	assert_int_equal(c->state, TCPS_TIME_WAIT);
	assert_true(tcp_is_done(c));
	assert_int_equal(last_sent().ack, IRS + 3);
	/* A new connection may start from there. */
	assert_int_equal(tcp_connect(c, me.port + 1, ISS, 200 * MS), 0);
}

static void test_hot_path_frame(void **state)
{
	static uint8_t frame[FRAME];
	uint8_t *p = frame + FRAME_TCP_HDR_LEN;
	struct tcp_seg s;
	int len;

	(void)state;
	connect_at(0, 1460, 65535);
	peer_seg(TCP_ACK, IRS + 1, ISS + 1, 65535, "r", 1, 10);
	memcpy(p, "0123456789", 10);
	len = tcp_send_built(c, frame, 10, csum_partial(p, 10, 0), 20);
	assert_int_equal(len, FRAME_TCP_HDR_LEN + 10);
	assert_int_equal(frame_parse_tcp(frame, (size_t)len, &s), 0);
	assert_int_equal(tcp_seg_verify(&s), 0);
	assert_int_equal(s.seq, ISS + 1);
	assert_int_equal(s.ack, IRS + 2);	/* the ACK rides on it */
	assert_int_equal(s.flags, TCP_ACK | TCP_PSH);
	assert_int_equal(c->ack_due, 0);
	assert_int_equal(c->snd_nxt, ISS + 11);
	assert_int_equal(c->rto_at, 20 + c->rto_ord);	/* an order's */
	/* Its bytes are kept for a retransmission. */
	tcp_timers(c, c->rto_at);
	assert_int_equal(last_sent().len, 10);
	assert_memory_equal(last_sent().payload, "0123456789", 10);
	/*
	 * A window too small: queued.  Five bytes of ten would be a silly
	 * window (RFC 9293 3.8.6.2.1): they wait for the persist timer.
	 */
	peer_seg(TCP_ACK, IRS + 2, ISS + 11, 5, NULL, 0, 30 * MS);
	n_out = next_free = 0;
	len = tcp_send_built(c, frame, 10, csum_partial(p, 10, 0), 30 * MS);
	assert_int_equal(len, 0);
	assert_int_equal(n_out, 0);
	assert_true(c->stalled);
	tcp_timers(c, c->persist_at);
	assert_int_equal(n_out, 1);
	assert_int_equal(last_sent().len, 5);
	/* Not connected: not taken. */
	tcp_abort(c, 40 * MS);
	assert_int_equal(tcp_send_built(c, frame, 10, 0, 40 * MS), -1);
}

/* The SACK blocks of an ACK: how many, and each (left, right). */
static unsigned int sack_blocks(const struct tcp_seg *s, uint32_t lo[4], uint32_t hi[4])
{
	const uint8_t *o = s->tcp + TCP_HDR_LEN;
	unsigned int n = 0;

	for (size_t i = 0; i + 1 < (size_t)(s->hdr_len - TCP_HDR_LEN);) {
		if (o[i] == TCP_OPT_NOP) {
			i++;
			continue;
		}
		if (o[i] == TCP_OPT_SACK)
			for (n = 0; n < (o[i + 1] - 2u) / 8; n++) {
				lo[n] = be32_load(o + i + 2 + 8 * n);
				hi[n] = be32_load(o + i + 6 + 8 * n);
			}
		i += o[i + 1];
	}
	return n;
}

static void test_sack_blocks_name_held_segments(void **state)
{
	static const uint8_t opt[8] = { TCP_OPT_MSS, 4, 0x05, 0xb4, TCP_OPT_NOP, TCP_OPT_NOP,
					TCP_OPT_SACK_PERM, 2 };
	uint32_t lo[4], hi[4];
	struct tcp_seg s;

	(void)state;
	tcp_connect(c, me.port, ISS, 0);
	s = sent(0);
	/* The SYN offers SACK: MSS, NOP, NOP, SACK-permitted. */
	assert_int_equal(s.hdr_len, TCP_HDR_LEN + 8);
	assert_int_equal(s.sack_ok, 1);
	peer_send(TCP_SYN | TCP_ACK, IRS, ISS + 1, 65535, NULL, 0, opt, sizeof(opt), 10);
	assert_true(c->sack_ok);
	/* Held: 11..20 then 31..40 (newest), then 21..30 joins them. */
	peer_seg(TCP_ACK, IRS + 11, ISS + 1, 65535, "0123456789", 10, 20);
	peer_seg(TCP_ACK, IRS + 31, ISS + 1, 65535, "0123456789", 10, 20);
	s = last_sent();
	assert_int_equal(s.ack, IRS + 1);
	assert_int_equal(sack_blocks(&s, lo, hi), 2);
	assert_int_equal(lo[0], IRS + 31);
	assert_int_equal(hi[0], IRS + 41);
	assert_int_equal(lo[1], IRS + 11);
	assert_int_equal(hi[1], IRS + 21);
	peer_seg(TCP_ACK, IRS + 21, ISS + 1, 65535, "0123456789", 10, 20);
	s = last_sent();
	assert_int_equal(sack_blocks(&s, lo, hi), 1);
	assert_int_equal(lo[0], IRS + 11);
	assert_int_equal(hi[0], IRS + 41);
	/* The hole fills: nothing held, no blocks. */
	peer_seg(TCP_ACK, IRS + 1, ISS + 1, 65535, "0123456789", 10, 30);
	s = last_sent();
	assert_int_equal(s.ack, IRS + 41);
	assert_int_equal(sack_blocks(&s, lo, hi), 0);
	assert_int_equal(s.hdr_len, TCP_HDR_LEN);
	assert_int_equal(c->st.sack_acks, 3);
}

static void test_sack_only_when_the_peer_takes_it(void **state)
{
	uint32_t lo[4], hi[4];
	struct tcp_seg s;

	(void)state;
	connect_at(0, 1460, 65535);	/* no SACK-permitted in the SYN-ACK */
	assert_false(c->sack_ok);
	peer_seg(TCP_ACK, IRS + 11, ISS + 1, 65535, "0123456789", 10, 20);
	s = last_sent();
	assert_int_equal(sack_blocks(&s, lo, hi), 0);
	assert_int_equal(c->st.sack_acks, 0);
}

/* An order's segment lost alone: probed long before the RTO; a heartbeat is not. */
static void test_orders_tail_loss_probe(void **state)
{
	static uint8_t frame[FRAME];
	uint8_t *p = frame + FRAME_TCP_HDR_LEN;
	uint64_t t = 10 * MS;

	(void)state;
	connect_at(0, 1460, 65535);	/* SRTT 50 us: the probe at its floor, 2 ms */
	memcpy(p, "ORDER", 5);
	assert_int_equal(tcp_send_built(c, frame, 5, csum_partial(p, 5, 0), t), FRAME_TCP_HDR_LEN + 5);
	assert_int_equal(c->tlp_at, t + 2 * MS);
	tcp_timers(c, t + 2 * MS - 1);
	assert_int_equal(n_out, 0);
	tcp_timers(c, t + 2 * MS);
	assert_int_equal(n_out, 1);
	assert_int_equal(last_sent().seq, ISS + 1);
	assert_memory_equal(last_sent().payload, "ORDER", 5);
	assert_int_equal(c->st.tlp_probes, 1);
	/* One probe per tail; the RTO stays. */
	tcp_timers(c, t + 4 * MS);
	assert_int_equal(c->st.tlp_probes, 1);
	assert_true(c->rto_at > t + 4 * MS);
	/* Acknowledged: nothing pending.  A heartbeat arms no probe. */
	peer_seg(TCP_ACK, IRS + 1, ISS + 6, 65535, NULL, 0, t + 5 * MS);
	assert_int_equal(c->tlp_at, 0);
	tcp_write(c, "HB", 2);
	tcp_output(c, t + 6 * MS);
	assert_int_equal(c->tlp_at, 0);
	tcp_timers(c, t + 20 * MS);
	assert_int_equal(c->st.tlp_probes, 1);
	/* Answered in time: no probe at all. */
	peer_seg(TCP_ACK, IRS + 1, ISS + 8, 65535, NULL, 0, t + 21 * MS);
	memcpy(p, "ORDR2", 5);
	tcp_send_built(c, frame, 5, csum_partial(p, 5, 0), t + 30 * MS);
	peer_seg(TCP_ACK | TCP_PSH, IRS + 1, ISS + 13, 65535, "reply", 5, t + 30 * MS + 40 * US);
	tcp_timers(c, t + 40 * MS);
	assert_int_equal(c->st.tlp_probes, 1);
}

/*
 * A probe the peer reports received twice (its D-SACK: the first block at
 * or below the ACK) was spurious; when nothing from the peer is missing,
 * the reply was late, and the time to it is a reply time: the probe
 * timeout moves past it, so the next such reply draws no probe.  The
 * percentile outlives the connection.
 */
static void test_late_reply_moves_the_probe(void **state)
{
	static uint8_t frame[FRAME];
	uint8_t opt[12] = { TCP_OPT_NOP, TCP_OPT_NOP, TCP_OPT_SACK, 10 };
	uint8_t *p = frame + FRAME_TCP_HDR_LEN;
	uint64_t t = 10 * MS, pto;
	uint32_t seq = ISS + 1, rseq = IRS + 1;

	(void)state;
	connect_at(0, 1460, 65535);
	memcpy(p, "ORDER", 5);
	/* Replies in 100 us: the probe waits about that and the timer's grain. */
	for (int i = 0; i < 20; i++) {
		tcp_send_built(c, frame, 5, csum_partial(p, 5, 0), t);
		peer_seg(TCP_ACK | TCP_PSH, rseq, seq + 5, 65535, "R", 1, t + 100 * US);
		tcp_timers(c, t + 200 * US);
		seq += 5;
		rseq += 1;
		t += 1 * MS;
	}
	pto = c->pto;
	assert_true(pto >= cfg.tlp_min_ns && pto < 3 * MS);
	assert_int_equal(c->st.tlp_probes, 0);
	/* A reply 8 ms late: the probe goes, the D-SACK shows it spurious. */
	tcp_send_built(c, frame, 5, csum_partial(p, 5, 0), t);
	assert_int_equal(c->tlp_at, t + pto);
	tcp_timers(c, t + pto);
	assert_int_equal(c->st.tlp_probes, 1);
	be32_store(opt + 4, seq);
	be32_store(opt + 8, seq + 5);
	peer_send(TCP_ACK, rseq, seq + 5, 65535, NULL, 0, opt, sizeof(opt), t + pto + 50 * US);
	assert_int_equal(c->st.tlp_spurious, 1);
	peer_seg(TCP_ACK | TCP_PSH, rseq, seq + 5, 65535, "R", 1, t + 8 * MS);
	assert_int_equal(c->st.tlp_late_replies, 1);
	seq += 5;
	rseq += 1;
	t += 20 * MS;
	tcp_timers(c, t);
	/* With fewer than 100 replies the 99th percentile is the slowest: past 8 ms. */
	assert_true(c->pto > 8 * MS);
	tcp_send_built(c, frame, 5, csum_partial(p, 5, 0), t);
	tcp_timers(c, t + 8 * MS);
	peer_seg(TCP_ACK | TCP_PSH, rseq, seq + 5, 65535, "R", 1, t + 8 * MS);
	assert_int_equal(c->st.tlp_probes, 1);
	seq += 5;
	rseq += 1;
	/*
	 * The original's ACK (with its reply) just after the probe left,
	 * sooner than the probe could be answered, the probe's D-SACK after
	 * it: the ACK was the original's, its time the sample.
	 */
	t += 20 * MS;
	pto = c->pto;
	tcp_send_built(c, frame, 5, csum_partial(p, 5, 0), t);
	tcp_timers(c, t + pto);
	assert_int_equal(c->st.tlp_probes, 2);
	peer_seg(TCP_ACK | TCP_PSH, rseq, seq + 5, 65535, "R", 1, t + pto + 10 * US);
	rseq += 1;
	peer_send(TCP_ACK, rseq, seq + 5, 65535, NULL, 0, opt, sizeof(opt), t + pto + 11 * US);
	assert_int_equal(c->st.tlp_spurious, 1);	/* not this one: its blocks are the last probe's */
	be32_store(opt + 4, seq);
	be32_store(opt + 8, seq + 5);
	peer_send(TCP_ACK, rseq, seq + 5, 65535, NULL, 0, opt, sizeof(opt), t + pto + 200 * US);
	assert_int_equal(c->st.tlp_spurious, 2);
	assert_int_equal(c->st.tlp_late_replies, 2);
	tcp_timers(c, t + pto + 1 * MS);
	assert_true(c->pto > pto);
	/*
	 * An ACK a round trip after the probe may be the probe's (its copy
	 * D-SACKed later, a duplicate): nothing learnt from it.
	 */
	seq += 5;
	t += 40 * MS;
	pto = c->pto;
	reset_out();
	tcp_send_built(c, frame, 5, csum_partial(p, 5, 0), t);
	tcp_timers(c, t + pto);
	assert_int_equal(c->st.tlp_probes, 3);
	peer_seg(TCP_ACK | TCP_PSH, rseq, seq + 5, 65535, "R", 1, t + pto + 300 * US);
	rseq += 1;
	be32_store(opt + 4, seq);
	be32_store(opt + 8, seq + 5);
	peer_send(TCP_ACK, rseq, seq + 5, 65535, NULL, 0, opt, sizeof(opt), t + pto + 400 * US);
	assert_int_equal(c->st.tlp_spurious, 3);
	assert_int_equal(c->st.tlp_late_replies, 2);
	/* The next connection keeps what was learnt. */
	tcp_abort(c, t + 60 * MS);
	connect_at(t + 100 * MS, 1460, 65535);
	assert_int_equal(c->pto, pto);
}

static void test_sequence_wraps(void **state)
{
	uint8_t got[32];
	uint32_t iss = 0xfffffffe, irs = 0xfffffff0;

	(void)state;
	tcp_connect(c, me.port, iss, 0);
	peer_seg(TCP_SYN | TCP_ACK, irs, iss + 1, 65535, NULL, 0, 10);
	assert_int_equal(c->state, TCPS_ESTABLISHED);
	tcp_write(c, "wrap-around", 11);
	tcp_output(c, 20);
	assert_int_equal(last_sent().seq, 0xffffffff);
	peer_seg(TCP_ACK, irs + 1, iss + 12, 65535, "0123456789abcdefXYZ", 19, 30);
	assert_int_equal(read_all(got, sizeof(got)), 19);
	assert_int_equal(c->snd_una, (uint32_t)(iss + 12));
	assert_int_equal(c->rcv_nxt, (uint32_t)(irs + 20));
	assert_int_equal(c->rto_at, 0);
}

static void test_no_tx_frame(void **state)
{
	(void)state;
	connect_at(0, 1460, 65535);
	no_frames = true;
	tcp_write(c, "abc", 3);
	tcp_output(c, 10);
	assert_int_equal(c->st.no_frame, 1);
	assert_int_equal(c->snd_nxt, ISS + 1);
	no_frames = false;
	tcp_output(c, 20);
	assert_int_equal(c->snd_nxt, ISS + 4);
}

/* The hot path's order of @len bytes at @t (their checksum computed here). */
static int send_order(const char *text, uint32_t len, uint64_t t)
{
	static uint8_t frame[FRAME];
	uint8_t *p = frame + FRAME_TCP_HDR_LEN;

	memcpy(p, text, len);
	return tcp_send_built(c, frame, len, csum_partial(p, len, 0), t);
}

/*
 * RFC 5961 5.2, the ACK field: below SND.UNA - MAX.SND.WND the segment is
 * dropped, its data too, and answered by a challenge ACK; beyond SND.NXT
 * the same; in between (but below SND.UNA) its data is taken and its
 * window is not.
 */
static void test_rfc5961_ack_range(void **state)
{
	uint8_t got[16];
	struct tcp_seg s;

	(void)state;
	connect_at(0, 1460, 20000);	/* MAX.SND.WND 20000 */
	assert_int_equal(c->max_snd_wnd, 20000);
	assert_int_equal(send_order("ORDER", 5, 1 * MS), FRAME_TCP_HDR_LEN + 5);
	peer_seg(TCP_ACK, IRS + 1, ISS + 6, 20000, NULL, 0, 1 * MS + 50 * US);
	reset_out();
	/* Too old: 2^30 below SND.UNA, with data at RCV.NXT (the issue's frame). */
	peer_seg(TCP_ACK | TCP_PSH, IRS + 1, ISS + 6 - (1u << 30), 0, "BAD", 3, 2 * MS);
	assert_int_equal(read_all(got, sizeof(got)), 0);
	assert_int_equal(c->rcv_nxt, IRS + 1);
	assert_int_equal(c->st.rejected[TCP_REJ_ACK_TOO_OLD], 1);
	assert_int_equal(c->snd_wnd, 20000);
	assert_int_equal(c->st.challenge_acks, 1);
	assert_int_equal(n_out, 1);
	s = last_sent();
	assert_int_equal(s.flags, TCP_ACK);
	assert_int_equal(s.seq, ISS + 6);
	assert_int_equal(s.ack, IRS + 1);
	/* Just below SND.UNA - MAX.SND.WND: still too old. */
	peer_seg(TCP_ACK, IRS + 1, ISS + 6 - 20001, 0, NULL, 0, 3 * MS);
	assert_int_equal(c->st.rejected[TCP_REJ_ACK_TOO_OLD], 2);
	/* Too new: an ACK of bytes never sent, data and all dropped. */
	peer_seg(TCP_ACK | TCP_PSH, IRS + 1, ISS + 7, 0, "BAD", 3, 4 * MS);
	assert_int_equal(read_all(got, sizeof(got)), 0);
	assert_int_equal(c->st.rejected[TCP_REJ_ACK_UNSENT], 1);
	assert_int_equal(c->st.challenge_acks, 3);
	assert_int_equal(c->snd_wnd, 20000);
	/* In range but old: the data is taken, the window of an older ACK is not. */
	peer_seg(TCP_ACK | TCP_PSH, IRS + 1, ISS + 6 - 20000, 0, "ok!", 3, 5 * MS);
	assert_int_equal(read_all(got, sizeof(got)), 3);
	assert_memory_equal(got, "ok!", 3);
	assert_int_equal(c->st.old_acks, 1);
	assert_int_equal(c->snd_wnd, 20000);
	assert_int_equal(c->snd_una, ISS + 6);
	/* In range and current: taken. */
	peer_seg(TCP_ACK | TCP_PSH, IRS + 4, ISS + 6, 30000, "yes", 3, 6 * MS);
	assert_int_equal(read_all(got, sizeof(got)), 3);
	assert_int_equal(c->snd_wnd, 30000);
	assert_int_equal(c->max_snd_wnd, 30000);
}

/*
 * The window is taken only from an ACK in [SND.UNA, SND.NXT]: always when
 * it advances, else by SND.WL1/WL2, and a segment ahead of RCV.NXT (forged
 * near the top of the window) never moves WL1 past it, so the peer's next
 * segment still updates the window.
 */
static void test_window_update_gated(void **state)
{
	(void)state;
	connect_at(0, 1460, 65535);
	/* The issue's frame: window 0, SEQ near the top of the window, an old ACK. */
	peer_seg(TCP_ACK, IRS + 1 + 65000, ISS, 0, NULL, 0, 1 * MS);
	assert_int_equal(c->snd_wnd, 65535);
	assert_int_equal(c->snd_wl1, IRS);	/* the SYN-ACK's */
	/* With a current ACK it may close the window, but not hold it. */
	peer_seg(TCP_ACK, IRS + 1 + 65000, ISS + 1, 0, NULL, 0, 2 * MS);
	assert_int_equal(c->snd_wnd, 0);
	assert_int_equal(c->snd_wl1, IRS + 1);
	/* The exchange's own next segment (a heartbeat) opens it again. */
	peer_seg(TCP_ACK | TCP_PSH, IRS + 1, ISS + 1, 65535, "\0\1H", 3, 3 * MS);
	assert_int_equal(c->snd_wnd, 65535);
	assert_int_equal(c->snd_wl1, IRS + 1);
	/* An ACK that advances always carries its window, whatever its SEQ. */
	send_order("ORDER", 5, 4 * MS);
	peer_seg(TCP_ACK, IRS + 100, ISS + 6, 9000, NULL, 0, 5 * MS);
	assert_int_equal(c->snd_wnd, 9000);
	assert_int_equal(c->snd_una, ISS + 6);
}

/*
 * Answers to unacceptable segments come from a budget of cfg.ack_budget a
 * second (100 by default): a flood of forged RSTs in the window draws 100
 * challenge ACKs, the rest counted; the next second has a new budget.
 */
static void test_challenge_ack_budget(void **state)
{
	(void)state;
	assert_int_equal(c->cfg.ack_budget, TCP_ACK_BUDGET);
	connect_at(0, 1460, 65535);
	for (int i = 0; i < 250; i++)
		peer_seg(TCP_RST, IRS + 100 + (uint32_t)i, 0, 0, NULL, 0, 1 * MS + (uint64_t)i * US);
	assert_int_equal(c->state, TCPS_ESTABLISHED);
	assert_int_equal(c->st.rejected[TCP_REJ_RST_IN_WINDOW], 250);
	assert_int_equal(c->st.challenge_acks, TCP_ACK_BUDGET);
	assert_int_equal(c->st.acks_limited, 250 - TCP_ACK_BUDGET);
	assert_int_equal(n_out, TCP_ACK_BUDGET);
	/* SYNs and segments outside the window share it. */
	peer_seg(TCP_SYN, IRS + 10, 0, 65535, NULL, 0, 2 * MS);
	peer_seg(TCP_ACK, IRS + 1 + 100000, ISS + 1, 65535, "x", 1, 2 * MS);
	assert_int_equal(c->st.rejected[TCP_REJ_SYN], 1);
	assert_int_equal(c->st.rejected[TCP_REJ_OUT_OF_WINDOW], 1);
	assert_int_equal(n_out, TCP_ACK_BUDGET);
	/* A second later: answered again. */
	peer_seg(TCP_SYN, IRS + 10, 0, 65535, NULL, 0, 1 * MS + 1000 * MS);
	assert_int_equal(n_out, TCP_ACK_BUDGET + 1);
	assert_int_equal(last_sent().flags, TCP_ACK);
	assert_int_equal(c->st.challenge_acks, TCP_ACK_BUDGET + 1);
	/* No ACK flag at all: dropped, not answered. */
	peer_seg(TCP_PSH, IRS + 1, 0, 65535, "x", 1, 1100 * MS);
	assert_int_equal(c->st.rejected[TCP_REJ_NO_ACK], 1);
	assert_int_equal(n_out, TCP_ACK_BUDGET + 1);
}

/*
 * The peer shrinks its window to 0 with orders in flight and drops them:
 * each RTO sends the head as a probe, the peer answers with its closed
 * window, and the connection outlives many more expiries than
 * max_retries.  Once the window opens the orders go; a peer that then
 * falls silent is given up after the retries.
 */
static void test_closed_window_with_data_in_flight(void **state)
{
	uint64_t t = 1 * MS;
	struct tcp_seg s;

	(void)state;
	connect_at(0, 1460, 65535);
	assert_int_equal(send_order("ORDER-1", 7, t), FRAME_TCP_HDR_LEN + 7);
	assert_int_equal(send_order("ORDER-2", 7, t), FRAME_TCP_HDR_LEN + 7);
	/* The peer shrank its window and dropped both: its ACK says window 0. */
	peer_seg(TCP_ACK, IRS + 1, ISS + 1, 0, NULL, 0, t + 100 * US);
	assert_int_equal(c->snd_wnd, 0);
	for (unsigned int i = 0; i < 3 * cfg.max_retries; i++) {
		t = c->rto_at;
		tcp_timers(c, t);
		assert_int_equal(c->state, TCPS_ESTABLISHED);
		s = last_sent();
		assert_int_equal(s.seq, ISS + 1);
		assert_int_equal(s.len, 14);	/* the head, whatever the window */
		/* Answered: alive, closed. */
		peer_seg(TCP_ACK, IRS + 1, ISS + 1, 0, NULL, 0, t + 100 * US);
	}
	assert_int_equal(c->st.window_probes, 3 * cfg.max_retries);
	assert_int_equal(c->retries, 0);
	assert_true(c->rto_at - t <= cfg.rto_max_ns);
	/* It opens: the probe's bytes are acknowledged, nothing is lost. */
	peer_seg(TCP_ACK, IRS + 1, ISS + 15, 65535, NULL, 0, t + 200 * US);
	assert_int_equal(c->snd_una, ISS + 15);
	assert_int_equal(c->rto_at, 0);
	/* Then silent: lost after the retries. */
	send_order("ORDER-3", 7, t + 1 * MS);
	while (c->state != TCPS_CLOSED)
		tcp_timers(c, c->rto_at);
	assert_int_equal(c->why, TCP_WHY_TIMEOUT);
	assert_int_equal(c->retries, cfg.max_retries);
}

/*
 * No frame over the MTU: with four held segments the ACK carries 36 bytes
 * of SACK blocks, and every segment sent then, a go-back retransmission of
 * a full MSS included, carries that much less payload.
 */
static void test_sack_blocks_never_over_the_mtu(void **state)
{
	static const uint8_t opt[8] = { TCP_OPT_MSS, 4, 0x05, 0xb4, TCP_OPT_NOP, TCP_OPT_NOP,
					TCP_OPT_SACK_PERM, 2 };
	static uint8_t data[6000];
	uint32_t total = 0, max_frame = 0;

	(void)state;
	tcp_connect(c, me.port, ISS, 0);
	peer_send(TCP_SYN | TCP_ACK, IRS, ISS + 1, 65535, NULL, 0, opt, sizeof(opt), 10);
	assert_int_equal(c->mss, 1460);
	for (int i = 0; i < 4; i++)
		peer_seg(TCP_ACK, IRS + 11 + 20 * (uint32_t)i, ISS + 1, 65535, "0123456789", 10, 20);
	c->cwnd = c->snd_lim = 65535;
	reset_out();
	tcp_write(c, data, sizeof(data));
	tcp_output(c, 1 * MS);
	for (unsigned int i = 0; i < n_out; i++) {
		struct tcp_seg s = sent(i);

		assert_true(out_len[i] <= 1514);
		assert_int_equal(s.hdr_len, TCP_HDR_LEN + TCP_SACK_ROOM);
		assert_true(s.len + s.hdr_len - TCP_HDR_LEN <= c->mss);
		total += s.len;
		if (out_len[i] > max_frame)
			max_frame = out_len[i];
	}
	assert_int_equal(total, sizeof(data));
	assert_int_equal(max_frame, 1514);
	/* The RTO's go-back: full-sized again, with the blocks. */
	reset_out();
	tcp_timers(c, c->rto_at);
	assert_true(n_out >= 1);
	assert_int_equal(out_len[0], 1514);
	assert_int_equal(sent(0).len, 1460 - TCP_SACK_ROOM);
	/* The tail loss probe of an order ends at its last byte, blocks and all. */
	peer_seg(TCP_ACK, IRS + 1, ISS + 1 + sizeof(data), 65535, NULL, 0, 2000 * MS);
	reset_out();
	c->tlp_end = c->snd_end;
	tcp_write(c, data, 1460);
	c->tlp_end = c->snd_end;
	tcp_output(c, 2001 * MS);
	tcp_timers(c, 2001 * MS + c->pto);
	assert_int_equal(c->st.tlp_probes, 1);
	assert_true(last_sent().len + TCP_SACK_ROOM <= c->mss);
	assert_int_equal(last_sent().seq + last_sent().len, c->snd_end);
}

/*
 * The probe with one order in flight: one PTO after it left (the 99th
 * percentile of the replies seen, plus the timer's grain), then the RTO
 * of an order at 2 PTO from the probe (4 PTO when no probe went);
 * neither counts as a retry.
 */
static void test_probe_timeout_one_order_in_flight(void **state)
{
	uint64_t t = 10 * MS, pto;
	uint32_t seq = ISS + 1, rseq = IRS + 1;

	(void)state;
	connect_at(0, 1460, 65535);
	/* Before any reply: twice the handshake's round trip, at least tlp_min. */
	assert_int_equal(c->pto, cfg.tlp_min_ns);
	c->cfg.tlp_min_ns = 100 * US;
	for (int i = 0; i < 50; i++) {
		send_order("ORDER", 5, t);
		peer_seg(TCP_ACK | TCP_PSH, rseq, seq + 5, 65535, "R", 1,
			 t + (i == 7 ? 900 : 300) * US);
		seq += 5;
		rseq++;
		t += 2 * MS;
	}
	tcp_timers(c, t);
	pto = c->pto;
	/* The slowest of 50 (900 us) is the 99th percentile: its bin's top, plus 100 us. */
	assert_true(pto >= 1000 * US && pto <= 900 * US * 5 / 4 + 100 * US + 1);
	assert_int_equal(c->rto_ord, 4 * pto);	/* below the plain RTO (at least 10 ms) */
	reset_out();
	send_order("LOST!", 5, t);
	assert_int_equal(c->tlp_at, t + pto);
	assert_int_equal(c->rto_at, t + 4 * pto);
	tcp_timers(c, t + pto - 1);
	assert_int_equal(n_out, 0);	/* (the order itself left by the hot path) */
	tcp_timers(c, t + pto);
	assert_int_equal(n_out, 1);
	assert_int_equal(c->st.tlp_probes, 1);
	assert_int_equal(sent(0).seq, seq);
	/* The probe lost too: the RTO, 2 PTO after the probe. */
	assert_int_equal(c->rto_at, t + pto + 2 * pto);
	tcp_timers(c, c->rto_at);
	assert_int_equal(n_out, 2);
	assert_int_equal(sent(1).seq, seq);
	assert_int_equal(c->retries, 0);
	assert_int_equal(c->st.rto_expiries, 1);
	/* A heartbeat has neither: the plain RTO, at least rto_min. */
	peer_seg(TCP_ACK, rseq, seq + 5, 65535, NULL, 0, t + 5 * pto);
	tcp_write(c, "HB", 2);
	tcp_output(c, t + 6 * pto);
	assert_int_equal(c->tlp_at, 0);
	assert_true(c->rto_at >= t + 6 * pto + cfg.rto_min_ns);
}

/*
 * RFC 5681: after an RTO one segment goes (cwnd = 1 MSS, ssthresh half
 * the flight); slow start then grows it by the bytes each ACK takes.
 */
static void test_congestion_window_after_rto(void **state)
{
	static uint8_t data[8000];
	uint32_t flight, sent_bytes = 0;

	(void)state;
	connect_at(0, 1000, 65535);
	assert_int_equal(c->cwnd, 4000);	/* RFC 5681's initial window for an MSS of 1000 */
	tcp_write(c, data, sizeof(data));
	tcp_output(c, 1 * MS);
	/* The initial window, no more. */
	assert_int_equal(c->snd_nxt, ISS + 1 + 4000);
	assert_int_equal(c->st.cwnd_stalls, 1);
	flight = c->snd_max - c->snd_una;
	reset_out();
	tcp_timers(c, c->rto_at);
	assert_int_equal(c->cwnd, 1000);
	assert_int_equal(c->ssthresh, flight / 2);
	assert_int_equal(n_out, 1);
	assert_int_equal(sent(0).seq, ISS + 1);
	assert_int_equal(sent(0).len, 1000);
	/* The ACK of that one: two more (slow start). */
	peer_seg(TCP_ACK, IRS + 1, ISS + 1001, 65535, NULL, 0, c->rto_at - 1);
	assert_int_equal(c->cwnd, 2000);
	for (unsigned int i = 1; i < n_out; i++)
		sent_bytes += sent(i).len;
	assert_int_equal(sent_bytes, 2000);
	/* A fast retransmit halves it (NewReno's inflation on top). */
	for (int i = 0; i < 3; i++)
		peer_seg(TCP_ACK, IRS + 1, ISS + 1001, 65535, NULL, 0, c->rto_at - 1);
	assert_true(c->in_recovery);
	assert_int_equal(c->ssthresh, 2000);
	assert_int_equal(c->cwnd, 2000 + 3 * 1000);
}

/* A connection after one with a probe out judges nothing by the old numbers. */
static void test_probe_range_reset_on_reconnect(void **state)
{
	(void)state;
	connect_at(0, 1460, 65535);
	send_order("ORDER", 5, 1 * MS);
	tcp_timers(c, 1 * MS + c->pto);
	assert_int_equal(c->st.tlp_probes, 1);
	assert_true(c->probe_start != c->probe_end);
	tcp_abort(c, 5 * MS);
	assert_int_equal(tcp_connect(c, me.port, 777, 10 * MS), 0);
	assert_int_equal(c->probe_start, c->probe_end);
	assert_int_equal(c->tlp_end, 777);
}

/*
 * Two streams through a channel that drops, doubles and reorders, in both
 * directions, with a minimal go-back-N peer: both arrive whole and in
 * order.
 */
struct pkt {
	uint8_t flags;
	uint32_t seq, ack;
	uint16_t len;
	uint8_t data[512];
	uint64_t at;
};

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

static void test_lossy_channel(void **state)
{
	enum { UP = 60000, DOWN = 60000, QMAX = 4096 };
	static uint8_t up[UP], down[DOWN], got_up[UP], got_down[DOWN];
	static struct pkt q[QMAX];	/* peer -> client, with delivery times */
	unsigned int nq = 0, wrote = 0, peer_sent_to = 0;
	uint32_t peer_rcv = 0, peer_una = 0, got_d = 0, peer_acked = 0;
	uint64_t t = 0, peer_rto_at = 0;
	const uint32_t pmss = 400;

	(void)state;
	for (int i = 0; i < UP; i++)
		up[i] = (uint8_t)(i * 7 + 3);
	for (int i = 0; i < DOWN; i++)
		down[i] = (uint8_t)(i * 13 + 1);
	c->cfg.rto_min_ns = 2 * MS;
	connect_at(0, 512, 20000);
	peer_rcv = 0;	/* bytes of the client's stream the peer has */

	while ((peer_rcv < UP || got_d < DOWN) && t < 60000 * MS) {
		t += 200 * US;
		/* The client writes its stream in pieces. */
		if (wrote < UP) {
			unsigned int n = 1 + rnd(300);

			if (n > UP - wrote)
				n = UP - wrote;
			if (!tcp_write(c, up + wrote, n))
				wrote += n;
		}
		tcp_output(c, t);
		tcp_timers(c, t);
		/* What the client sent reaches the peer: 10 % lost, 5 % twice. */
		for (unsigned int i = 0; i < n_out; i++) {
			struct tcp_seg s = sent(i);
			uint32_t off = s.seq - (ISS + 1);
			int copies = rnd(100) < 10 ? 0 : rnd(100) < 5 ? 2 : 1;

			/* Never past the window the peer announced. */
			if (s.len)
				assert_true(off + s.len <= peer_acked + 20000);
			for (int k = 0; k < copies; k++) {
				if (s.flags & TCP_ACK && tcp_seq_gt(s.ack, IRS + 1 + peer_una)) {
					peer_una = s.ack - (IRS + 1);
					if (peer_una > peer_sent_to)
						peer_sent_to = peer_una;
				}
				if (s.len && off <= peer_rcv && off + s.len > peer_rcv) {
					memcpy(got_up + peer_rcv, s.payload + (peer_rcv - off),
					       off + s.len - peer_rcv);
					peer_rcv = off + s.len;
				}
			}
		}
		reset_out();
		/* The peer: go-back-N on its own timer, within the client's window. */
		if (peer_rto_at && t >= peer_rto_at) {
			peer_sent_to = peer_una;
			peer_rto_at = 0;
		}
		while (peer_sent_to < DOWN && peer_sent_to - peer_una < 8000 && nq < QMAX - 4) {
			struct pkt *p = &q[nq++];
			uint32_t n = DOWN - peer_sent_to < pmss ? DOWN - peer_sent_to : pmss;

			p->flags = TCP_ACK;
			p->seq = IRS + 1 + peer_sent_to;
			p->ack = ISS + 1 + peer_rcv;
			peer_acked = peer_rcv;
			p->len = (uint16_t)n;
			memcpy(p->data, down + peer_sent_to, n);
			p->at = t + rnd(100) * 10 * US;	/* up to 1 ms late: reordering */
			peer_sent_to += n;
			if (!peer_rto_at)
				peer_rto_at = t + 20 * MS;
		}
		if (peer_una == peer_sent_to)
			peer_rto_at = 0;
		/* A pure ACK from the peer now and then. */
		if (rnd(4) == 0 && nq < QMAX) {
			struct pkt *p = &q[nq++];

			p->flags = TCP_ACK;
			p->seq = IRS + 1 + peer_sent_to;
			p->ack = ISS + 1 + peer_rcv;
			peer_acked = peer_rcv;
			p->len = 0;
			p->at = t + rnd(50) * 10 * US;
		}
		/* Deliver what is due: 10 % lost, 5 % doubled. */
		for (unsigned int i = 0; i < nq;) {
			struct pkt *p = &q[i];

			if (p->at > t) {
				i++;
				continue;
			}
			if (rnd(100) >= 10) {
				int copies = rnd(100) < 5 ? 2 : 1;

				for (int k = 0; k < copies; k++) {
					size_t n;

					peer_seg(p->flags, p->seq, p->ack, 20000, p->data, p->len, t);
					n = read_all(got_down + got_d, DOWN - got_d);
					got_d += (uint32_t)n;
				}
			}
			q[i] = q[--nq];
		}
	}
	assert_int_equal(peer_rcv, UP);
	assert_memory_equal(got_up, up, UP);
	assert_int_equal(got_d, DOWN);
	assert_memory_equal(got_down, down, DOWN);
	assert_int_equal(c->state, TCPS_ESTABLISHED);
	assert_true(c->st.retrans_segs > 0);
	assert_true(c->st.ooo_held > 0);
	assert_true(c->st.rejected[TCP_REJ_OUT_OF_WINDOW] > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_handshake, setup, teardown),
		cmocka_unit_test_setup_teardown(test_syn_without_mss_option, setup, teardown),
		cmocka_unit_test_setup_teardown(test_syn_retries_then_lost, setup, teardown),
		cmocka_unit_test_setup_teardown(test_syn_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_in_order_and_delayed_ack, setup, teardown),
		cmocka_unit_test_setup_teardown(test_two_full_segments_acked_at_once, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_out_of_order_held, setup, teardown),
		cmocka_unit_test_setup_teardown(test_overlapping_and_duplicate_segments, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_nothing_held_beyond_the_fin, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nothing_held_beyond_an_in_order_fin, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_hold_area_full_drops, setup, teardown),
		cmocka_unit_test_setup_teardown(test_outside_window_dropped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_send_respects_window, setup, teardown),
		cmocka_unit_test_setup_teardown(test_zero_window_probes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unanswered_probes_lose_the_connection, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_rto_and_backoff, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rtt_estimate, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fast_retransmit_and_partial_ack, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_sack_evidence_retransmits_at_once, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_ack_of_unsent_data, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rst_rules, setup, teardown),
		cmocka_unit_test_setup_teardown(test_closed_answers_with_rst, setup, teardown),
		cmocka_unit_test_setup_teardown(test_closed_port_answers_from_its_port, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_peer_closes_first, setup, teardown),
		cmocka_unit_test_setup_teardown(test_we_close_first, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hot_path_frame, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sack_blocks_name_held_segments, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sack_only_when_the_peer_takes_it, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_orders_tail_loss_probe, setup, teardown),
		cmocka_unit_test_setup_teardown(test_late_reply_moves_the_probe, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sequence_wraps, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_tx_frame, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rfc5961_ack_range, setup, teardown),
		cmocka_unit_test_setup_teardown(test_window_update_gated, setup, teardown),
		cmocka_unit_test_setup_teardown(test_challenge_ack_budget, setup, teardown),
		cmocka_unit_test_setup_teardown(test_closed_window_with_data_in_flight, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_sack_blocks_never_over_the_mtu, setup, teardown),
		cmocka_unit_test_setup_teardown(test_probe_timeout_one_order_in_flight, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_congestion_window_after_rto, setup, teardown),
		cmocka_unit_test_setup_teardown(test_probe_range_reset_on_reconnect, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_lossy_channel, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
