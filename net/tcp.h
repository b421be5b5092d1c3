/* SPDX-License-Identifier: MIT */
/*
 * The order session's own TCP client: one active connection whose frames
 * the caller receives and transmits (on the AF_XDP path, through the same
 * socket and UMEM as the feed).  Nothing here does I/O: segments come in
 * through tcp_input(), frames go out through struct tcp_tx, time is the
 * caller's CLOCK_MONOTONIC; so the whole of it runs in unit tests.
 *
 * What it does, and the policies where RFC 9293 leaves a choice:
 *
 * - Handshake: SYN with the MSS and SACK-permitted options (no window
 *   scaling or timestamps: a session carries a few kilobytes a second, and
 *   a 64 KB window covers the replay of a day at a veth round trip).  ISN
 *   from the caller.
 * - SACK, receive side (RFC 2018): while segments are held, every ACK names
 *   them (up to four blocks, the newest first), so a peer's RACK-TLP
 *   (Linux: only with SACK) resends a lost reply after a round trip or two
 *   instead of its 200 ms RTO.  The peer's own SACK blocks are not used.
 * - Receive: bytes are delivered in order (tcp_read()).  A segment ahead of
 *   the next expected byte is held (TCP_OOO_SLOTS segments of up to
 *   TCP_OOO_MAX bytes, copied) and acknowledged again at once, so the
 *   peer's fast retransmit sees the hole; one that finds no free slot is
 *   dropped (counted) and the peer sends it again.  Duplicates and
 *   segments outside the window are acknowledged again and dropped.  The
 *   advertised window is constant: the reader consumes every byte before
 *   the next input.
 * - ACK policy: a pure ACK waits up to cfg.ack_delay_ns for an order or a
 *   heartbeat to carry it (replies come in bursts of two or three segments
 *   per order: one ACK for all, no TX kick on the hot core per reply);
 *   at once for two full-sized segments unacknowledged (RFC 9293
 *   3.8.6.3), an out-of-order or duplicate segment, one that fills a hole,
 *   a FIN, a SYN-ACK or anything unacceptable.  The delay stays far below the peer's minimum
 *   RTO (Linux: 200 ms) and its tail-loss probe (10 ms).
 * - Send: never a byte beyond the peer's window (snd_una + snd_wnd).  A
 *   window too small for what is queued is a stall (counted once per
 *   episode); with nothing in flight the persist timer sends zero-window
 *   probes (an ACK one byte below snd_una, which any TCP answers with its
 *   window), backed off like the RTO.  No congestion window: the peer's
 *   window is the only limit (a venue link, orders of 52 bytes).
 * - Retransmission: RFC 6298 RTO from one timed segment at a time (Karn:
 *   no sample from a retransmitted one), clamped to [rto_min, rto_max],
 *   doubled on every expiry; an expiry resends from snd_una (go-back-N);
 *   the connection is declared lost after max_retries expiries in a row
 *   (and a RST sent).  Fast retransmit on the third duplicate ACK, or on
 *   the first whose SACK blocks show bytes received beyond the hole (few
 *   orders are in flight: three duplicates rarely come), with NewReno's
 *   partial-ACK rule (an ACK inside the recovery window resends the next
 *   hole at once).  An order's segment has a tail loss probe
 *   (RFC 8985's, for orders only): unacknowledged max(2 SRTT, floor)
 *   after it left, it is sent again; the exchange answers an order in
 *   microseconds, and alone in flight a lost one would wait for the RTO
 *   (orders are sparse: no duplicate ACKs come).  The floor starts at
 *   tlp_min; a probe the peer reports received twice (its D-SACK, RFC
 *   2883) was spurious, the exchange slower than the floor, and doubles
 *   it, up to half of rto_min: a slow venue costs a few probes, not one per
 *   order.  Heartbeats and the login, which a peer may ACK only after its
 *   delayed-ACK timer, have none.
 * - RST: accepted only at exactly rcv_nxt; elsewhere in the window it
 *   draws a challenge ACK (RFC 5961), as does a SYN.  A segment for a
 *   closed connection is answered with a RST (RFC 9293 3.10.7.1).
 *
 * The hot path is tcp_send_built(): the caller wrote an order's bytes into
 * a TX frame after the 54 header bytes and has their checksum sum; only
 * the header's variable fields and the two checksums are written.
 */
#ifndef NET_TCP_H
#define NET_TCP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/frame.h"
#include "proto/tcp_seg.h"
#include "util/touch.h"

#define TCP_SBUF	(1u << 16)	/* bytes queued or unacknowledged */
#define TCP_OOO_SLOTS	16
#define TCP_OOO_MAX	1460
#define TCP_DEFAULT_MSS	536		/* a SYN-ACK without the option */

enum tcp_state {
	TCPS_CLOSED,
	TCPS_SYN_SENT,
	TCPS_ESTABLISHED,
	TCPS_FIN_WAIT_1,
	TCPS_FIN_WAIT_2,
	TCPS_CLOSING,
	TCPS_TIME_WAIT,
	TCPS_CLOSE_WAIT,
	TCPS_LAST_ACK,
	TCPS_STATE_NR,
};

/* Why the connection ended (or is ending). */
enum tcp_why {
	TCP_WHY_NONE,
	TCP_WHY_REFUSED,	/* the SYN was answered with a RST */
	TCP_WHY_RESET,		/* the peer reset it */
	TCP_WHY_PEER_FIN,	/* the peer closed its side */
	TCP_WHY_TIMEOUT,	/* retransmissions (or probes) went unanswered */
	TCP_WHY_ABORTED,	/* we reset it */
	TCP_WHY_CLOSED,		/* both sides closed in order */
	TCP_WHY_NR,
};

extern const char *const tcp_state_names[TCPS_STATE_NR];
extern const char *const tcp_why_names[TCP_WHY_NR];

struct tcp_cfg {
	struct frame_endpoint local;	/* MAC, IPv4 and port, host order */
	struct frame_endpoint remote;
	uint16_t mss;			/* announced: the interface's MTU - 40 */
	uint16_t rcv_wnd;		/* advertised, constant */
	uint64_t rto_init_ns;		/* before any RTT sample (the SYN's) */
	uint64_t rto_min_ns;
	uint64_t rto_max_ns;
	uint32_t max_retries;		/* expiries in a row: lost */
	uint64_t ack_delay_ns;		/* longest a pure ACK waits */
	uint64_t tlp_min_ns;		/* an order's loss probe, at the soonest; 0: none */
};

/* Cumulative over every connection made with the same struct. */
struct tcp_stats {
	uint64_t connects;		/* SYNs sent first (not resent) */
	uint64_t established;
	uint64_t seg_in, seg_out;
	uint64_t bytes_in, bytes_out;	/* payload, in order / first sent */
	uint64_t retrans_segs;		/* segments sent again (RTO, fast, go-back) */
	uint64_t rto_expiries;
	uint64_t fast_retrans;
	uint64_t dup_acks;
	uint64_t ooo_held;
	uint64_t ooo_dropped;		/* no free slot, or larger than a slot */
	uint64_t dup_segs;		/* old or outside the window */
	uint64_t window_stalls;
	uint64_t zwin_probes;
	uint64_t acks_out;		/* pure ACKs */
	uint64_t challenge_acks;
	uint64_t resets_in, resets_out;
	uint64_t bad_ack;		/* acknowledging what was never sent */
	uint64_t no_frame;		/* a segment that found no TX frame */
	uint64_t rtt_samples;
	uint64_t tlp_probes;		/* orders' segments sent again by the probe */
	uint64_t tlp_spurious;		/* ... that the peer reported received twice */
	uint64_t sack_acks;		/* ACKs that named held segments */
};

/*
 * Where frames go: frame() gives a free TX frame's data (NULL: none) and a
 * handle; send() transmits @len bytes of it (with the caller's next kick).
 */
struct tcp_tx {
	uint8_t *(*frame)(void *ctx, uint64_t *handle);
	void (*send)(void *ctx, uint64_t handle, uint32_t len);
	void *ctx;
};

struct tcp_ooo {
	uint32_t seq;
	uint16_t len;
	bool used;
	bool fin;			/* a FIN followed these bytes */
	uint8_t data[TCP_OOO_MAX];
};

struct tcp_chunk {
	const uint8_t *p;
	uint32_t n;
};

struct tcp_conn {
	struct tcp_cfg cfg;
	struct tcp_tx tx;
	struct tcp_template tmpl;
	uint8_t state;			/* enum tcp_state */
	uint8_t why;			/* enum tcp_why */
	uint16_t mss;			/* what we send: min(peer's, ours) */
	bool sack_ok;			/* the peer takes SACK blocks */

	/* send side: [snd_una, snd_end) is in sbuf; a FIN follows at snd_end */
	uint32_t iss;
	uint32_t snd_una, snd_nxt, snd_max, snd_end;
	uint32_t snd_wnd, snd_wl1, snd_wl2;
	bool fin_queued;
	bool stalled;			/* the window stopped queued bytes */

	/* receive side */
	uint32_t irs, rcv_nxt;
	uint32_t last_ooo;		/* the newest held segment's first byte */
	uint32_t unacked;		/* bytes received since our last ACK */
	bool ack_now;
	uint64_t ack_due;		/* 0: no ACK owed */

	/* timers: 0 = off */
	uint64_t rto, srtt, rttvar;
	bool have_rtt;
	uint64_t rto_at;
	uint32_t retries;
	bool timing;			/* one segment timed (Karn) */
	uint32_t rtt_seq;
	uint64_t rtt_t0;
	uint32_t dupacks;
	bool in_recovery;		/* fast retransmit until recover is acked */
	uint32_t recover;
	uint64_t tlp_at;		/* the orders' loss probe; 0: none */
	uint32_t tlp_end;		/* ... for the bytes before this */
	uint64_t pto_floor;		/* the probe's soonest, raised by spurious ones */
	uint32_t probe_start, probe_end; /* the last probe's bytes; equal: none out */
	uint64_t persist_at;
	uint32_t persist_backoff;	/* probes since the window closed */
	uint32_t probes;		/* probes since the peer's last ACK */

	/* what the last input made readable (tcp_read()) */
	struct tcp_chunk rd[1 + TCP_OOO_SLOTS];
	unsigned int rd_n, rd_i;

	struct tcp_stats st;
	struct tcp_ooo ooo[TCP_OOO_SLOTS];
	uint8_t sbuf[TCP_SBUF];
};

/* Once: the configuration and the frames' way out; the connection CLOSED. */
void tcp_init(struct tcp_conn *c, const struct tcp_cfg *cfg, const struct tcp_tx *tx);

/*
 * A new connection from @local_port (the previous one's state is
 * forgotten, its counters kept): SYN with initial sequence number @iss.
 * 0, or -EISCONN while one is open.
 */
int tcp_connect(struct tcp_conn *c, uint16_t local_port, uint32_t iss, uint64_t now);

/*
 * A received segment of this connection's 4-tuple, checksums verified by
 * the caller.  Answers what must be answered at once (ACKs, RSTs, a fast
 * retransmit, data the window now lets go).  What it made readable is
 * taken with tcp_read() before the next input.
 */
void tcp_input(struct tcp_conn *c, const struct tcp_seg *s, uint64_t now);

/* The next in-order bytes: true with *p, *n; false when none are left. */
static inline bool tcp_read(struct tcp_conn *c, const uint8_t **p, size_t *n)
{
	if (c->rd_i == c->rd_n)
		return false;
	*p = c->rd[c->rd_i].p;
	*n = c->rd[c->rd_i].n;
	c->rd_i++;
	return true;
}

/*
 * Queue @len bytes on the stream (sent by tcp_output()).  0, -ENOTCONN
 * (not in a state that sends), or -ENOBUFS (sbuf full: nothing queued).
 */
int tcp_write(struct tcp_conn *c, const void *data, size_t len);

/* Send what the window lets go, and an ACK that is due.  Idle turns too. */
void tcp_output(struct tcp_conn *c, uint64_t now);

/* The retransmission, persist and delayed-ACK timers (idle turns). */
void tcp_timers(struct tcp_conn *c, uint64_t now);

/* Close our side after what is queued (FIN); CLOSED at once from SYN_SENT. */
void tcp_close(struct tcp_conn *c, uint64_t now);

/* Reset the connection (RST to the peer) and forget it. */
void tcp_abort(struct tcp_conn *c, uint64_t now);

static inline bool tcp_is_established(const struct tcp_conn *c)
{
	return c->state == TCPS_ESTABLISHED;
}

/* No more data will flow either way: closed, reset, lost, or TIME_WAIT. */
static inline bool tcp_is_done(const struct tcp_conn *c)
{
	return c->state == TCPS_CLOSED || c->state == TCPS_TIME_WAIT;
}

/*
 * Idle turns: read the lines the next order's segment touches (the state
 * up to the counters, the header template, the send buffer's next bytes),
 * so that the order finds them in the cache.  Nothing is written.
 */
static inline void tcp_warm(const struct tcp_conn *c)
{
	touch_lines(c, offsetof(struct tcp_conn, st));
	touch_line(&c->sbuf[c->snd_end & (TCP_SBUF - 1)]);
}

/* Copy @len bytes into sbuf at stream position @seq (wrapping). */
static inline void tcp_sbuf_put(struct tcp_conn *c, uint32_t seq, const uint8_t *p,
				uint32_t len)
{
	uint32_t off = seq & (TCP_SBUF - 1), first = TCP_SBUF - off;

	if (__builtin_expect(len <= first, 1)) {
		__builtin_memcpy(c->sbuf + off, p, len);
		return;
	}
	__builtin_memcpy(c->sbuf + off, p, first);
	__builtin_memcpy(c->sbuf, p + first, len - first);
}

/*
 * The hot path: @len bytes of payload already at frame +
 * FRAME_TCP_HDR_LEN, their csum_partial() sum @sum.  Returns the frame's
 * length to transmit now; 0 when the bytes were only queued (a window or
 * bytes queued ahead of them stop them: tcp_output() sends them, the frame
 * goes back to the caller's pool); -1 when they were not taken (not
 * established, or no room in sbuf).
 */
static inline int tcp_send_built(struct tcp_conn *c, uint8_t *frame, uint32_t len,
				 uint64_t sum, uint64_t now)
{
	const uint8_t *payload = frame + FRAME_TCP_HDR_LEN;
	uint32_t end = c->snd_end + len;

	if (__builtin_expect(c->state != TCPS_ESTABLISHED && c->state != TCPS_CLOSE_WAIT, 0) ||
	    c->fin_queued || end - c->snd_una > TCP_SBUF)
		return -1;
	tcp_sbuf_put(c, c->snd_end, payload, len);
	if (__builtin_expect(c->snd_nxt != c->snd_end || len > c->mss ||
			     end - c->snd_una > c->snd_wnd, 0)) {
		c->snd_end = end;
		tcp_output(c, now);
		return 0;
	}
	if (!c->timing) {
		c->timing = true;
		c->rtt_seq = end;
		c->rtt_t0 = now;
	}
	if (!c->rto_at)
		c->rto_at = now + c->rto;
	if (c->pto_floor && !c->tlp_at)
		c->tlp_at = now + (2 * c->srtt > c->pto_floor ? 2 * c->srtt : c->pto_floor);
	c->tlp_end = end;
	c->snd_end = c->snd_nxt = c->snd_max = end;
	c->ack_now = false;
	c->ack_due = 0;
	c->unacked = 0;
	c->st.seg_out++;
	c->st.bytes_out += len;
	return (int)tcp_frame_finish(&c->tmpl, frame, end - len, c->rcv_nxt, TCP_ACK | TCP_PSH,
				     c->cfg.rcv_wnd, 0, len, sum);
}

#endif /* NET_TCP_H */
