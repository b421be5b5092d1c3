/* SPDX-License-Identifier: MIT */
/*
 * The order session's own TCP client: one active connection whose frames
 * the caller receives and transmits (on the AF_XDP path, through the same
 * socket and UMEM as the feed).  Nothing here does I/O: segments come in
 * through tcp_input(), frames go out through struct tcp_tx, time is the
 * caller's CLOCK_MONOTONIC; so the whole of it runs in unit tests.
 *
 * What it does, and the policies where the RFCs leave a choice (the user's
 * view: docs/wire.md, "The gateway's own TCP"):
 *
 * - Handshake: SYN with the MSS and SACK-permitted options (no window
 *   scaling or timestamps: a session carries a few kilobytes a second, and
 *   a 64 KB window covers the replay of a day at a veth round trip).  ISN
 *   from the caller (RFC 6528's, net/order_conn.c).
 * - Segment size (RFC 9293 3.7.1): the effective MSS is the peer's MSS
 *   option and ours (the interface's MTU - 40), the smaller; every
 *   segment's payload is that less its own options (SACK blocks take up to
 *   36 bytes), so no frame is ever over the MTU.
 * - What is accepted (RFC 9293 3.10.7.4 with RFC 5961): a segment outside
 *   the receive window is dropped; a RST only at exactly RCV.NXT, in the
 *   window elsewhere it draws a challenge ACK, as does a SYN; an ACK only
 *   between SND.UNA - MAX.SND.WND and SND.NXT, else the segment (its data
 *   too) is dropped and ACKed.  The peer's window is taken only from an
 *   ACK between SND.UNA and SND.NXT: always when it advances SND.UNA, else
 *   by the SND.WL1/WL2 rule, with WL1 never set beyond RCV.NXT, so that a
 *   segment ahead of the stream (held or forged) cannot hold off the
 *   peer's next update.  The ACKs that answer unacceptable segments,
 *   challenge ACKs included, come from a budget of cfg.ack_budget a
 *   second; beyond it they are counted and not sent (a flood of forged
 *   segments costs the hot core a counter each).  Every rejected segment
 *   is counted by its class (net/tcp_rej.h).
 * - SACK, receive side (RFC 2018): while segments are held, every ACK names
 *   them (up to four blocks, the newest first), so a peer's RACK-TLP
 *   (Linux: only with SACK) resends a lost reply after a round trip or two
 *   instead of its 200 ms RTO.  The peer's SACK blocks are read for its
 *   D-SACKs (RFC 2883) and for the evidence of a lost order (below).
 * - Receive: bytes are delivered in order (tcp_read()).  A segment ahead of
 *   the next expected byte is held (TCP_OOO_SLOTS segments of up to
 *   TCP_OOO_MAX bytes, copied) and acknowledged again at once, so the
 *   peer's fast retransmit sees the hole; one that finds no free slot is
 *   dropped (counted) and the peer sends it again.  The advertised window
 *   is constant: the reader consumes every byte before the next input.
 * - ACK policy: a pure ACK waits up to cfg.ack_delay_ns for an order or a
 *   heartbeat to carry it (replies come in bursts of two or three segments
 *   per order: one ACK for all, no TX kick on the hot core per reply);
 *   at once for two full-sized segments unacknowledged (RFC 9293
 *   3.8.6.3), an out-of-order or duplicate segment, one that fills a hole,
 *   a FIN, a SYN-ACK or anything unacceptable.  The delay stays far below
 *   the peer's minimum RTO (Linux: 200 ms) and its tail-loss probe.
 * - Send: never a byte beyond the peer's window (snd_una + snd_wnd) or the
 *   congestion window.  Sender silly-window avoidance (RFC 9293
 *   3.8.6.2.1): a segment shorter than the MSS leaves only when it carries
 *   everything queued, or at least half the largest window the peer
 *   offered, or when the persist timer says so.  A window too small for
 *   what is queued is a stall (counted once per episode); with nothing in
 *   flight the persist timer sends zero-window probes (an ACK one byte
 *   below snd_una, which any TCP answers with its window), backed off
 *   like the RTO; with data in flight an RTO sends the head of the queue
 *   whatever the window, as the probe.
 * - Congestion control (RFC 5681, NewReno's RFC 6582): a congestion window
 *   in bytes, RFC 5681's initial window, slow start by the bytes acked,
 *   congestion avoidance above ssthresh; a fast retransmit halves it and
 *   NewReno's partial ACKs resend the next hole; an RTO leaves one
 *   segment.  Orders are 52 bytes: one segment's window holds 28 of them.
 * - Retransmission: RFC 6298 RTO from one timed segment at a time (Karn:
 *   no sample from a retransmitted one), clamped to [rto_min, rto_max],
 *   doubled on every expiry; an expiry resends from snd_una (go-back-N).
 *   The connection is lost after max_retries expiries in a row of at least
 *   rto_min (and a RST sent); an acceptable ACK that shows a closed window
 *   proves the peer alive and starts the count again, so a peer that
 *   keeps acknowledging is never timed out here (the session's 15 s rule
 *   ends a dead one).  Fast retransmit on the third duplicate ACK, or on
 *   the first whose SACK blocks show bytes received beyond the hole (RFC
 *   8985's RACK with no reordering window: orders are few in flight, and
 *   three duplicates rarely come).
 * - Orders (RFC 8985's tail loss probe, adapted to a request/reply
 *   session): the exchange answers every order at once, so the time from
 *   an order's send to the ACK that covers it is a reply time, and its
 *   recent distribution is kept (net/reply_time.h).  An order's segment
 *   still unacknowledged one PTO after the last order left is sent again
 *   (PTO: the 99th percentile of the recent reply times plus the timer's
 *   granularity, at least cfg.tlp_min_ns); its RTO is 4 PTO (at most the
 *   RTO above, unless the replies say they take longer; at least 2 PTO),
 *   2 PTO once the probe went, and expiries that short do not count as
 *   retries.  A probe
 *   the peer reports received twice (D-SACK) was spurious: when no reply
 *   is missing either, the reply was late, and the time to the reply that
 *   follows is taken as a sample, so that a slower server moves the
 *   percentile and the next late reply draws no probe.  Heartbeats and the
 *   login, which a peer may ACK only after its delayed-ACK timer, keep the
 *   plain RTO and have no probe.
 * - A segment for a closed connection is answered with a RST (RFC 9293
 *   3.10.7.1).
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

#include "net/reply_time.h"
#include "net/tcp_rej.h"
#include "proto/frame.h"
#include "proto/tcp_seg.h"
#include "util/touch.h"

#define TCP_SBUF	(1u << 16)	/* bytes queued or unacknowledged */
#define TCP_OOO_SLOTS	16
#define TCP_OOO_MAX	1460
#define TCP_DEFAULT_MSS	536		/* a SYN-ACK without the option */
#define TCP_MIN_MSS	88		/* the least we send, whatever the peer says */
#define TCP_SACK_ROOM	36		/* four SACK blocks with their kind, length, NOPs */
#define TCP_ACK_BUDGET	100		/* cfg.ack_budget when 0 */

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
extern const char *const tcp_rej_names[TCP_REJ_NR];

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
	uint32_t ack_budget;		/* ACKs a second for unacceptable segments;
					   0: TCP_ACK_BUDGET */
};

/* Cumulative over every connection made with the same struct. */
struct tcp_stats {
	uint64_t connects;		/* SYNs sent first (not resent) */
	uint64_t established;
	uint64_t seg_in, seg_out;
	uint64_t bytes_in, bytes_out;	/* payload, in order / first sent */
	uint64_t retrans_segs;		/* segments sent again (RTO, fast, go-back, probe) */
	uint64_t rto_expiries;
	uint64_t fast_retrans;
	uint64_t dup_acks;
	uint64_t ooo_held;
	uint64_t ooo_dropped;		/* no free slot, or larger than a slot */
	uint64_t rejected[TCP_REJ_NR];	/* by class (net/tcp_rej.h) */
	uint64_t old_acks;		/* ACKs below SND.UNA: the window not taken */
	uint64_t challenge_acks;	/* ACKs that answered unacceptable segments */
	uint64_t acks_limited;		/* ... not sent: the budget was spent */
	uint64_t window_stalls;
	uint64_t cwnd_stalls;		/* the congestion window, not the peer's, stopped bytes */
	uint64_t zwin_probes;
	uint64_t window_probes;		/* RTOs that sent the head into a closed window */
	uint64_t acks_out;		/* pure ACKs */
	uint64_t resets_in, resets_out;
	uint64_t stale_segs;		/* for an earlier connection's port: answered RST */
	uint64_t no_frame;		/* a segment that found no TX frame */
	uint64_t rtt_samples;
	uint64_t tlp_probes;		/* orders' segments sent again by the probe */
	uint64_t tlp_spurious;		/* ... that the peer reported received twice */
	uint64_t tlp_late_replies;	/* ... because its reply came late (sampled) */
	uint64_t dsacks_in;		/* D-SACKs: a segment of ours received twice */
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
	uint32_t max_snd_wnd;		/* MAX.SND.WND: the largest window offered */
	uint32_t cwnd, ssthresh;	/* RFC 5681, bytes */
	uint32_t snd_lim;		/* min(snd_wnd, cwnd): what the hot path checks */
	uint32_t ca_acked;		/* congestion avoidance: bytes toward the next MSS */
	bool fin_queued;
	bool stalled;			/* the window stopped queued bytes */
	bool cwnd_stalled;

	/* receive side */
	uint32_t irs, rcv_nxt;
	uint32_t last_ooo;		/* the newest held segment's first byte */
	uint32_t unacked;		/* bytes received since our last ACK */
	bool ack_now;
	uint64_t ack_due;		/* 0: no ACK owed */

	/* timers: 0 = off */
	uint64_t rto, srtt, rttvar;
	uint64_t rtt_min;		/* the least round trip seen; 0: none */
	uint64_t pto;			/* the orders' probe timeout; 0: no probe */
	uint64_t rto_ord;		/* the RTO of an order at the head */
	bool have_rtt;
	uint64_t rto_at;
	uint32_t rto_shift;		/* expiries since new data was acknowledged */
	uint32_t retries;		/* ... of at least rto_min, the peer silent */
	bool timing;			/* one segment timed (Karn) */
	bool timing_order;		/* ... and it was an order's */
	uint32_t rtt_seq;
	uint64_t rtt_t0;
	uint32_t dupacks;
	bool in_recovery;		/* fast retransmit until recover is acked */
	uint32_t recover;
	uint64_t tlp_at;		/* the orders' loss probe; 0: none */
	uint32_t tlp_end;		/* ... for the bytes before this */
	uint64_t tail_sent_at;		/* when the order ending at tlp_end left */
	uint32_t probe_start, probe_end; /* the last probe's bytes; equal: none out */
	uint64_t probe_t0;		/* ... the original's send time */
	uint64_t probe_sent_at;		/* ... when the probe left */
	uint64_t probe_acked_at;	/* ... when an ACK first covered it; 0: not yet */
	uint64_t late_t0;		/* a late reply awaited since; 0: none */
	uint64_t persist_at;
	uint32_t persist_backoff;	/* probes since the window closed */
	uint32_t probes;		/* probes since the peer's last ACK */
	uint64_t budget_at;		/* the answers' budget: this second's start */
	uint32_t budget_used;

	/* what the last input made readable (tcp_read()) */
	struct tcp_chunk rd[1 + TCP_OOO_SLOTS];
	unsigned int rd_n, rd_i;

	struct tcp_stats st;
	struct reply_time replies;	/* kept across connections: the venue's pace */
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

/*
 * A segment for an earlier connection of ours, whose local port was @s's
 * destination: answered as a closed port answers (RFC 9293 3.10.7.1), from
 * that port, and the live connection's state is left as it was.  The
 * caller has checked that the segment is the peer's.
 */
void tcp_answer_closed_port(struct tcp_conn *c, const struct tcp_seg *s);

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
	/* An order: its bytes are the orders' tail, probed and timed as such. */
	c->tlp_end = end;
	if (__builtin_expect(c->snd_nxt != c->snd_end || len > c->mss ||
			     end - c->snd_una > c->snd_lim, 0)) {
		c->snd_end = end;
		tcp_output(c, now);
		return 0;
	}
	if (!c->timing) {
		c->timing = true;
		c->timing_order = true;
		c->rtt_seq = end;
		c->rtt_t0 = now;
	}
	if (!c->rto_at)
		c->rto_at = now + c->rto_ord;
	if (c->pto)
		c->tlp_at = now + c->pto;
	c->tail_sent_at = now;
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
