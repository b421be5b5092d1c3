// SPDX-License-Identifier: MIT
/* The own TCP client: segment processing (RFC 9293), timers (RFC 6298). */
#include <errno.h>
#include <string.h>

#include "net/tcp.h"

/* RTO granularity G of RFC 6298: the idle turn's timer resolution. */
#define RTO_GRANULARITY_NS	100000ull
#define NS_PER_SEC		1000000000ull
/* The reply time's percentile the orders' probe waits for. */
#define PTO_PERCENTILE		99
/* An order's RTO in probe timeouts. */
#define ORDER_RTO_PTOS		4
/* Expiries a timeout doubles at most (then rto_max holds it). */
#define RTO_SHIFT_MAX		20

const char *const tcp_state_names[TCPS_STATE_NR] = {
	[TCPS_CLOSED] = "closed",
	[TCPS_SYN_SENT] = "syn_sent",
	[TCPS_ESTABLISHED] = "established",
	[TCPS_FIN_WAIT_1] = "fin_wait_1",
	[TCPS_FIN_WAIT_2] = "fin_wait_2",
	[TCPS_CLOSING] = "closing",
	[TCPS_TIME_WAIT] = "time_wait",
	[TCPS_CLOSE_WAIT] = "close_wait",
	[TCPS_LAST_ACK] = "last_ack",
};

const char *const tcp_why_names[TCP_WHY_NR] = {
	[TCP_WHY_NONE] = "none",
	[TCP_WHY_REFUSED] = "refused",
	[TCP_WHY_RESET] = "reset",
	[TCP_WHY_PEER_FIN] = "peer closed",
	[TCP_WHY_TIMEOUT] = "retransmissions unanswered",
	[TCP_WHY_ABORTED] = "aborted",
	[TCP_WHY_CLOSED] = "closed",
};

const char *const tcp_rej_names[TCP_REJ_NR] = {
#define TCP_REJ_NAME_(id, s) [TCP_REJ_##id] = s,
	TCP_REJECTS(TCP_REJ_NAME_)
#undef TCP_REJ_NAME_
};

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static uint32_t min_u32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

static uint32_t max_u32(uint32_t a, uint32_t b)
{
	return a > b ? a : b;
}

static uint64_t clamp_rto(const struct tcp_conn *c, uint64_t rto)
{
	if (rto < c->cfg.rto_min_ns)
		return c->cfg.rto_min_ns;
	return rto > c->cfg.rto_max_ns ? c->cfg.rto_max_ns : rto;
}

/* The hot path's one check: the peer's window and the congestion window. */
static void set_limit(struct tcp_conn *c)
{
	c->snd_lim = min_u32(c->snd_wnd, c->cwnd);
}

static uint64_t order_rto(const struct tcp_conn *c)
{
	return max_u64(min_u64(ORDER_RTO_PTOS * c->pto, c->rto), 2 * c->pto);
}

/*
 * The orders' probe timeout and RTO (net/tcp.h, "Orders"): the 99th
 * percentile of the recent reply times and the timer's granularity, at
 * least tlp_min; before any reply, twice the handshake's round trip.
 * The RTO of an order is four times that (the probe comes first, and a
 * reply late by a stalled host must not send everything again), no more
 * than the plain RTO unless the replies say they take longer, and never
 * less than twice the probe's.
 */
static void order_timeouts(struct tcp_conn *c)
{
	uint64_t q = reply_percentile(&c->replies, PTO_PERCENTILE);

	c->replies.dirty = false;
	if (!c->cfg.tlp_min_ns) {
		c->pto = 0;
		c->rto_ord = c->rto;
		return;
	}
	q = q ? q + RTO_GRANULARITY_NS : 2 * c->srtt + RTO_GRANULARITY_NS;
	c->pto = max_u64(c->cfg.tlp_min_ns, q);
	c->rto_ord = order_rto(c);
}

void tcp_init(struct tcp_conn *c, const struct tcp_cfg *cfg, const struct tcp_tx *tx)
{
	memset(c, 0, sizeof(*c));
	c->cfg = *cfg;
	c->tx = *tx;
	c->state = TCPS_CLOSED;
	if (!c->cfg.ack_budget)
		c->cfg.ack_budget = TCP_ACK_BUDGET;
	c->rto = clamp_rto(c, cfg->rto_init_ns);
	order_timeouts(c);
	tcp_template_init(&c->tmpl, &cfg->local, &cfg->remote, 64);
}

/* Is the connection one that sends data (and takes tcp_write())? */
static bool sends_data(const struct tcp_conn *c)
{
	return c->state == TCPS_ESTABLISHED || c->state == TCPS_CLOSE_WAIT;
}

/* Bytes of sbuf from stream position @seq into @dst. */
static void sbuf_get(const struct tcp_conn *c, uint32_t seq, uint8_t *dst, uint32_t len)
{
	uint32_t off = seq & (TCP_SBUF - 1), first = TCP_SBUF - off;

	if (len <= first) {
		memcpy(dst, c->sbuf + off, len);
		return;
	}
	memcpy(dst, c->sbuf + off, first);
	memcpy(dst + first, c->sbuf, len - first);
}

/* The held segments as SACK blocks at @opt, newest first; the option's length. */
static size_t sack_option(struct tcp_conn *c, uint8_t *opt)
{
	uint32_t lo[TCP_OOO_SLOTS], hi[TCP_OOO_SLOTS];
	unsigned int n = 0, first = 0, k = 0;

	/* The held ranges, in sequence order, merged where they touch. */
	for (int i = 0; i < TCP_OOO_SLOTS; i++) {
		const struct tcp_ooo *o = &c->ooo[i];
		unsigned int j;

		if (!o->used)
			continue;
		for (j = n; j > 0 && tcp_seq_gt(lo[j - 1], o->seq); j--) {
			lo[j] = lo[j - 1];
			hi[j] = hi[j - 1];
		}
		lo[j] = o->seq;
		hi[j] = o->seq + o->len;
		n++;
	}
	for (unsigned int i = 1; i < n; i++) {
		if (tcp_seq_le(lo[i], hi[k])) {
			if (tcp_seq_gt(hi[i], hi[k]))
				hi[k] = hi[i];
		} else {
			k++;
			lo[k] = lo[i];
			hi[k] = hi[i];
		}
	}
	n = n ? k + 1 : 0;
	if (!n)
		return 0;
	for (unsigned int i = 0; i < n; i++)
		if (tcp_seq_le(lo[i], c->last_ooo) && tcp_seq_lt(c->last_ooo, hi[i]))
			first = i;
	opt[0] = TCP_OPT_NOP;
	opt[1] = TCP_OPT_NOP;
	opt[2] = TCP_OPT_SACK;
	/* The newest first (RFC 2018 4), then the others from the highest down. */
	k = 0;
	for (unsigned int i = 0; i < n && k < 4; i++) {
		unsigned int b = i == 0 ? first : (first + n - i) % n;

		be32_store(opt + 4 + 8 * k, lo[b]);
		be32_store(opt + 8 + 8 * k, hi[b]);
		k++;
	}
	opt[3] = (uint8_t)(2 + 8 * k);
	return 4 + 8 * k;
}

/*
 * One segment: up to @len payload bytes from sbuf at @seq, the SYN's
 * options, or SACK blocks while segments are held.  The payload and the
 * options together never exceed the MSS (RFC 9293 3.7.1: the effective
 * MSS is less the options), so SACK blocks shorten the payload.  Returns
 * the payload bytes sent, or -1 when no TX frame was free (counted; the
 * caller retries).
 */
/* One segment out from template @t: its options, its data, its frame. */
static int seg_out(struct tcp_conn *c, struct tcp_template *t, uint32_t seq, uint32_t ack,
		   uint8_t flags, uint32_t len)
{
	size_t opt_len = 0, flen;
	uint64_t handle, sum = 0;
	uint8_t *frame = c->tx.frame(c->tx.ctx, &handle);
	uint8_t *opt;

	if (!frame) {
		c->st.no_frame++;
		return -1;
	}
	opt = frame + FRAME_TCP_HDR_LEN;
	if (flags & TCP_SYN) {
		opt[0] = TCP_OPT_MSS;
		opt[1] = TCP_OPT_MSS_LEN;
		be16_store(opt + 2, c->cfg.mss);
		opt[4] = TCP_OPT_NOP;
		opt[5] = TCP_OPT_NOP;
		opt[6] = TCP_OPT_SACK_PERM;
		opt[7] = TCP_OPT_SACK_PERM_LEN;
		opt_len = 8;
	} else if (c->sack_ok && (flags & TCP_ACK) && !(flags & TCP_RST)) {
		opt_len = sack_option(c, opt);
		c->st.sack_acks += opt_len != 0;
	}
	if (len > c->mss - opt_len)
		len = c->mss - (uint32_t)opt_len;
	if (len) {
		uint8_t *p = frame + FRAME_TCP_HDR_LEN + opt_len;

		sbuf_get(c, seq, p, len);
		sum = csum_partial(p, len, 0);
	}
	flen = tcp_frame_finish(t, frame, seq, ack, flags, c->cfg.rcv_wnd, opt_len, len, sum);
	c->tx.send(c->tx.ctx, handle, (uint32_t)flen);
	c->st.seg_out++;
	if (flags & TCP_RST)
		c->st.resets_out++;
	return (int)len;
}

/* A segment of this connection: one that acknowledges settles what was owed. */
static int emit(struct tcp_conn *c, uint32_t seq, uint32_t ack, uint8_t flags, uint32_t len)
{
	int n = seg_out(c, &c->tmpl, seq, ack, flags, len);

	if (n >= 0 && (flags & TCP_ACK)) {
		c->ack_now = false;
		c->ack_due = 0;
		c->unacked = 0;
	}
	return n;
}

static bool emit_ack(struct tcp_conn *c)
{
	if (emit(c, c->snd_nxt, c->rcv_nxt, TCP_ACK, 0) < 0)
		return false;
	c->st.acks_out++;
	return true;
}

/*
 * An unacceptable segment is answered with an ACK (a challenge ACK, RFC
 * 5961), from a budget of cfg.ack_budget a second: a flood of forged
 * segments must not make the hot core a transmitter.  Beyond it the
 * answer is counted and not sent; the peer, if it was the peer, sends
 * again.
 */
static void answer(struct tcp_conn *c, uint64_t now)
{
	if (now - c->budget_at >= NS_PER_SEC) {
		c->budget_at = now;
		c->budget_used = 0;
	}
	if (c->budget_used >= c->cfg.ack_budget) {
		c->st.acks_limited++;
		return;
	}
	c->budget_used++;
	c->st.challenge_acks++;
	c->ack_now = true;
}

/* A segment dropped for @why: counted by its class, answered when it wants one. */
static void reject(struct tcp_conn *c, enum tcp_rej why, bool ack, uint64_t now)
{
	c->st.rejected[why]++;
	if (ack)
		answer(c, now);
}

/* The connection is over: nothing more is sent or timed. */
static void set_closed(struct tcp_conn *c, enum tcp_why why)
{
	c->state = TCPS_CLOSED;
	if (c->why == TCP_WHY_NONE || c->why == TCP_WHY_PEER_FIN)
		c->why = (uint8_t)why;
	c->rto_at = c->persist_at = c->ack_due = c->tlp_at = 0;
	c->ack_now = false;
}

/* RFC 5681 3.1's initial window, in bytes (RFC 3390's formula). */
static uint32_t initial_window(uint32_t mss)
{
	return min_u32(4 * mss, max_u32(2 * mss, 4380));
}

int tcp_connect(struct tcp_conn *c, uint16_t local_port, uint32_t iss, uint64_t now)
{
	if (c->state != TCPS_CLOSED && c->state != TCPS_TIME_WAIT)
		return -EISCONN;
	c->cfg.local.port = local_port;
	tcp_template_init(&c->tmpl, &c->cfg.local, &c->cfg.remote, 64);
	c->state = TCPS_SYN_SENT;
	c->why = TCP_WHY_NONE;
	c->mss = c->cfg.mss;
	c->iss = iss;
	c->snd_una = iss;
	c->snd_nxt = c->snd_max = iss + 1;
	c->snd_end = iss + 1;
	c->snd_wnd = c->snd_wl1 = c->snd_wl2 = c->max_snd_wnd = 0;
	c->cwnd = c->ssthresh = 0;
	c->ca_acked = 0;
	set_limit(c);
	c->fin_queued = c->stalled = c->cwnd_stalled = false;
	c->irs = c->rcv_nxt = 0;
	c->unacked = 0;
	c->ack_now = false;
	c->ack_due = 0;
	c->rto = clamp_rto(c, c->cfg.rto_init_ns);
	c->srtt = c->rttvar = c->rtt_min = 0;
	c->have_rtt = false;
	order_timeouts(c);
	c->rto_shift = c->retries = 0;
	c->dupacks = 0;
	c->in_recovery = false;
	c->persist_at = 0;
	c->persist_backoff = c->probes = 0;
	c->tlp_at = 0;
	c->tlp_end = iss;
	/* Nothing of the last connection's sequence space is judged in this one. */
	c->probe_start = c->probe_end = iss + 1;
	c->late_t0 = 0;
	c->sack_ok = false;
	c->last_ooo = 0;
	c->rd_n = c->rd_i = 0;
	for (int i = 0; i < TCP_OOO_SLOTS; i++)
		c->ooo[i].used = false;
	c->timing = true;
	c->timing_order = false;
	c->rtt_seq = iss + 1;
	c->rtt_t0 = now;
	c->rto_at = now + c->rto;
	c->st.connects++;
	emit(c, iss, 0, TCP_SYN, 0);
	return 0;
}

/* RFC 6298 2.2-2.4, with alpha 1/8 and beta 1/4. */
static void rtt_sample(struct tcp_conn *c, uint64_t r)
{
	if (!c->rtt_min || r < c->rtt_min)
		c->rtt_min = r;
	if (!c->have_rtt) {
		c->srtt = r;
		c->rttvar = r / 2;
		c->have_rtt = true;
	} else {
		uint64_t dev = c->srtt > r ? c->srtt - r : r - c->srtt;

		c->rttvar = (3 * c->rttvar + dev) / 4;
		c->srtt = (7 * c->srtt + r) / 8;
	}
	c->rto = clamp_rto(c, c->srtt + (4 * c->rttvar > RTO_GRANULARITY_NS ?
					  4 * c->rttvar : RTO_GRANULARITY_NS));
	/* The percentile is read again in the next idle turn (tcp_timers()). */
	c->rto_ord = c->pto ? order_rto(c) : c->rto;
	c->st.rtt_samples++;
}

/* Does the head of the queue hold an order (which draws an immediate reply)? */
static bool order_at_head(const struct tcp_conn *c)
{
	return c->pto && tcp_seq_lt(c->snd_una, c->tlp_end);
}

/* The timeout for the head of the queue now, after the expiries so far. */
static uint64_t rto_now(const struct tcp_conn *c)
{
	uint64_t base = order_at_head(c) ? c->rto_ord : c->rto;

	return min_u64(base << c->rto_shift, c->cfg.rto_max_ns);
}

/* Payload bytes in flight or queued from @seq: min(what is there, @max). */
static uint32_t data_from(const struct tcp_conn *c, uint32_t seq, uint32_t max)
{
	uint32_t avail = tcp_seq_lt(seq, c->snd_end) ? c->snd_end - seq : 0;

	return avail < max ? avail : max;
}

static uint32_t flight(const struct tcp_conn *c)
{
	return c->snd_max - c->snd_una;
}

/* Send again the first unacknowledged segment (an expiry, fast retransmit). */
static void resend_first(struct tcp_conn *c)
{
	uint32_t n;

	c->timing = false;	/* Karn: no sample from a resent segment */
	if (c->state == TCPS_SYN_SENT) {
		if (emit(c, c->iss, 0, TCP_SYN, 0) >= 0)
			c->st.retrans_segs++;
		return;
	}
	/* What was sent, no byte that never was (its window was not checked). */
	n = data_from(c, c->snd_una, min_u32(c->mss, c->snd_max - c->snd_una));
	if (n) {
		if (emit(c, c->snd_una, c->rcv_nxt, TCP_ACK | TCP_PSH, n) >= 0)
			c->st.retrans_segs++;
		return;
	}
	/* Only the FIN is outstanding. */
	if (c->fin_queued && c->snd_una == c->snd_end &&
	    emit(c, c->snd_end, c->rcv_nxt, TCP_ACK | TCP_FIN, 0) >= 0)
		c->st.retrans_segs++;
}

/* A stall: once per episode, counted by what stopped the bytes. */
static void stall(struct tcp_conn *c, bool by_cwnd, uint64_t now)
{
	if (by_cwnd) {
		if (!c->cwnd_stalled) {
			c->cwnd_stalled = true;
			c->st.cwnd_stalls++;
		}
		return;
	}
	if (!c->stalled) {
		c->stalled = true;
		c->st.window_stalls++;
	}
	/* Nothing in flight will bring an ACK: the persist timer. */
	if (c->snd_una == c->snd_max && !c->persist_at)
		c->persist_at = now + rto_now(c);
}

/* New bytes [@start, @end) left: when they hold orders, their probe is armed. */
static void orders_sent(struct tcp_conn *c, uint32_t start, uint32_t end, uint64_t now)
{
	if (!c->pto || !tcp_seq_lt(start, c->tlp_end) || !tcp_seq_gt(end, c->snd_max))
		return;
	c->tlp_at = now + c->pto;
	c->tail_sent_at = now;
}

/*
 * Send what the windows let go.  @force: the persist timer's override of
 * the silly-window rule (RFC 9293 3.8.6.2.1 (d)).
 */
static void output(struct tcp_conn *c, uint64_t now, bool force)
{
	bool fin_state = c->state == TCPS_FIN_WAIT_1 || c->state == TCPS_LAST_ACK ||
			 c->state == TCPS_CLOSING;

	if (sends_data(c) || fin_state) {
		while (tcp_seq_lt(c->snd_nxt, c->snd_end)) {
			int32_t by_wnd = (int32_t)(c->snd_una + c->snd_wnd - c->snd_nxt);
			int32_t by_cwnd = (int32_t)(c->snd_una + c->cwnd - c->snd_nxt);
			int32_t usable = by_wnd < by_cwnd ? by_wnd : by_cwnd;
			uint32_t queued = c->snd_end - c->snd_nxt, n;
			bool again = tcp_seq_lt(c->snd_nxt, c->snd_max);
			int sent;

			n = data_from(c, c->snd_nxt, c->mss);
			if (usable <= 0) {
				stall(c, by_cwnd < by_wnd, now);
				break;
			}
			if ((uint32_t)usable < n)
				n = (uint32_t)usable;
			/*
			 * Sender SWS avoidance: less than an MSS only with all that
			 * is queued, or half the largest window, or when forced.
			 */
			if (n < queued && n < c->mss && n < c->max_snd_wnd / 2 && !force && !again) {
				stall(c, by_cwnd < by_wnd, now);
				break;
			}
			sent = emit(c, c->snd_nxt, c->rcv_nxt, TCP_ACK | TCP_PSH, n);
			if (sent <= 0)
				break;
			if (again) {
				c->st.retrans_segs++;
			} else {
				c->st.bytes_out += (uint32_t)sent;
				if (!c->timing) {
					c->timing = true;
					c->timing_order = tcp_seq_lt(c->snd_nxt, c->tlp_end);
					c->rtt_seq = c->snd_nxt + (uint32_t)sent;
					c->rtt_t0 = now;
				}
				orders_sent(c, c->snd_nxt, c->snd_nxt + (uint32_t)sent, now);
			}
			c->snd_nxt += (uint32_t)sent;
			if (tcp_seq_gt(c->snd_nxt, c->snd_max))
				c->snd_max = c->snd_nxt;
			if (!c->rto_at)
				c->rto_at = now + rto_now(c);
		}
		if (c->fin_queued && c->snd_nxt == c->snd_end &&
		    emit(c, c->snd_end, c->rcv_nxt, TCP_ACK | TCP_FIN, 0) >= 0) {
			if (tcp_seq_lt(c->snd_nxt, c->snd_max))
				c->st.retrans_segs++;
			c->snd_nxt = c->snd_end + 1;
			if (tcp_seq_gt(c->snd_nxt, c->snd_max))
				c->snd_max = c->snd_nxt;
			if (!c->rto_at)
				c->rto_at = now + rto_now(c);
		}
	}
	if (c->state != TCPS_CLOSED && c->state != TCPS_SYN_SENT &&
	    (c->ack_now || (c->ack_due && now >= c->ack_due)))
		emit_ack(c);
}

void tcp_output(struct tcp_conn *c, uint64_t now)
{
	output(c, now, false);
}

int tcp_write(struct tcp_conn *c, const void *data, size_t len)
{
	if (!sends_data(c) || c->fin_queued)
		return -ENOTCONN;
	if (c->snd_end - c->snd_una + len > TCP_SBUF)
		return -ENOBUFS;
	tcp_sbuf_put(c, c->snd_end, data, (uint32_t)len);
	c->snd_end += (uint32_t)len;
	return 0;
}

void tcp_close(struct tcp_conn *c, uint64_t now)
{
	switch (c->state) {
	case TCPS_SYN_SENT:
		set_closed(c, TCP_WHY_CLOSED);
		return;
	case TCPS_ESTABLISHED:
		c->state = TCPS_FIN_WAIT_1;
		break;
	case TCPS_CLOSE_WAIT:
		c->state = TCPS_LAST_ACK;
		break;
	default:
		return;
	}
	c->fin_queued = true;
	tcp_output(c, now);
}

void tcp_abort(struct tcp_conn *c, uint64_t now)
{
	(void)now;
	if (c->state != TCPS_CLOSED && c->state != TCPS_SYN_SENT && c->state != TCPS_TIME_WAIT)
		emit(c, c->snd_nxt, c->rcv_nxt, TCP_RST | TCP_ACK, 0);
	set_closed(c, TCP_WHY_ABORTED);
}

/* RFC 9293 3.10.7.1: what a closed port answers @s with; false for nothing. */
static bool reset_fields(const struct tcp_seg *s, uint32_t *seq, uint32_t *ack, uint8_t *flags)
{
	uint32_t seg_len = s->len + !!(s->flags & TCP_SYN) + !!(s->flags & TCP_FIN);

	if (s->flags & TCP_RST)
		return false;
	if (s->flags & TCP_ACK) {
		*seq = s->ack;
		*ack = 0;
		*flags = TCP_RST;
	} else {
		*seq = 0;
		*ack = s->seq + seg_len;
		*flags = TCP_RST | TCP_ACK;
	}
	return true;
}

static void reset_reply(struct tcp_conn *c, const struct tcp_seg *s)
{
	uint32_t seq, ack;
	uint8_t flags;

	if (reset_fields(s, &seq, &ack, &flags))
		emit(c, seq, ack, flags, 0);
}

/*
 * The earlier port's reset goes out from a template of that port, and as a
 * segment of no live connection it settles no ACK this one owes.
 */
void tcp_answer_closed_port(struct tcp_conn *c, const struct tcp_seg *s)
{
	struct frame_endpoint local = c->cfg.local;
	struct tcp_template old;
	uint32_t seq, ack;
	uint8_t flags;

	c->st.stale_segs++;
	if (!reset_fields(s, &seq, &ack, &flags))
		return;
	local.port = s->dst_port;
	tcp_template_init(&old, &local, &c->cfg.remote, 64);
	seg_out(c, &old, seq, ack, flags, 0);
}

static void syn_sent_input(struct tcp_conn *c, const struct tcp_seg *s, uint64_t now)
{
	bool ack_ok = (s->flags & TCP_ACK) && s->ack == c->iss + 1;

	if ((s->flags & TCP_ACK) && !ack_ok) {
		c->st.rejected[TCP_REJ_ACK_UNSENT]++;
		reset_reply(c, s);
		return;
	}
	if (s->flags & TCP_RST) {
		if (ack_ok) {
			c->st.resets_in++;
			set_closed(c, TCP_WHY_REFUSED);
		}
		return;
	}
	/* A SYN without ACK (simultaneous open) is not a client's business. */
	if (!(s->flags & TCP_SYN) || !ack_ok)
		return;
	c->irs = s->seq;
	c->rcv_nxt = s->seq + 1;
	c->snd_una = s->ack;
	c->snd_wnd = c->max_snd_wnd = s->win;
	c->snd_wl1 = s->seq;
	c->snd_wl2 = s->ack;
	c->sack_ok = s->sack_ok;
	c->mss = s->mss ? s->mss : TCP_DEFAULT_MSS;
	if (c->mss > c->cfg.mss)
		c->mss = c->cfg.mss;
	if (c->mss > TCP_OOO_MAX)
		c->mss = TCP_OOO_MAX;
	/* A segment must hold its options and some bytes (Linux's floor too). */
	if (c->mss < TCP_MIN_MSS)
		c->mss = TCP_MIN_MSS;
	c->cwnd = initial_window(c->mss);
	c->ssthresh = UINT32_MAX;
	set_limit(c);
	if (c->timing && !c->rto_shift && now > c->rtt_t0)
		rtt_sample(c, now - c->rtt_t0);
	order_timeouts(c);
	c->timing = false;
	c->rto_shift = c->retries = 0;
	c->rto_at = 0;
	c->state = TCPS_ESTABLISHED;
	c->st.established++;
	c->ack_now = true;
}

/* RFC 9293 3.10.7.4, first check: does the segment fall in the window? */
static bool acceptable(const struct tcp_conn *c, const struct tcp_seg *s, uint32_t seg_len)
{
	uint32_t wnd = c->cfg.rcv_wnd;

	if (!seg_len)
		return wnd ? tcp_seq_le(c->rcv_nxt, s->seq) &&
			     tcp_seq_lt(s->seq, c->rcv_nxt + wnd) :
			     s->seq == c->rcv_nxt;
	if (!wnd)
		return false;
	return (tcp_seq_le(c->rcv_nxt, s->seq) && tcp_seq_lt(s->seq, c->rcv_nxt + wnd)) ||
	       (tcp_seq_le(c->rcv_nxt, s->seq + seg_len - 1) &&
		tcp_seq_lt(s->seq + seg_len - 1, c->rcv_nxt + wnd));
}

/* Our FIN has been sent and acknowledged. */
static bool fin_acked(const struct tcp_conn *c)
{
	return c->fin_queued && c->snd_una == c->snd_end + 1;
}

/* Fast retransmit (RFC 5681 3.2, RFC 6582): halve, inflate, resend the hole. */
static void enter_recovery(struct tcp_conn *c)
{
	c->ssthresh = max_u32(flight(c) / 2, 2u * c->mss);
	c->cwnd = c->ssthresh + c->dupacks * (uint32_t)c->mss;
	set_limit(c);
	c->in_recovery = true;
	c->recover = c->snd_max;
	c->st.fast_retrans++;
	resend_first(c);
}

/* The congestion window after @acked new bytes were acknowledged (RFC 5681, 6582). */
static void cwnd_on_ack(struct tcp_conn *c, uint32_t acked, bool full)
{
	uint32_t mss = c->mss;

	if (c->in_recovery) {
		if (full) {
			c->in_recovery = false;
			c->cwnd = min_u32(c->ssthresh, max_u32(flight(c), mss) + mss);
		} else {
			/* NewReno: a partial ACK shows the next hole; deflate by what it took. */
			c->cwnd = c->cwnd > acked ? c->cwnd - acked : 0;
			if (acked >= mss)
				c->cwnd += mss;
			c->cwnd = max_u32(c->cwnd, mss);
			resend_first(c);
		}
	} else if (c->cwnd < c->ssthresh) {
		c->cwnd += min_u32(acked, mss);
	} else {
		c->ca_acked += acked;
		if (c->ca_acked >= c->cwnd) {
			c->ca_acked -= c->cwnd;
			c->cwnd += mss;
		}
	}
	/* More than the peer ever offers is of no use. */
	c->cwnd = min_u32(c->cwnd, max_u32(c->max_snd_wnd, initial_window(mss)));
	set_limit(c);
}

/* A reply time, from an order's send to its ACK or its late reply. */
static void reply_sample(struct tcp_conn *c, uint64_t r)
{
	reply_add(&c->replies, r);
}

/* An ACK that moves snd_una: the timers, recovery, the states closing. */
static void ack_advances(struct tcp_conn *c, const struct tcp_seg *s, uint64_t now)
{
	uint32_t acked = s->ack - c->snd_una;

	c->snd_una = s->ack;
	if (tcp_seq_lt(c->snd_nxt, c->snd_una))
		c->snd_nxt = c->snd_una;
	if (c->timing && tcp_seq_ge(s->ack, c->rtt_seq)) {
		/* A stamp taken before the send it times (a batch's): no sample. */
		if (now > c->rtt_t0) {
			rtt_sample(c, now - c->rtt_t0);
			if (c->timing_order)
				reply_sample(c, now - c->rtt_t0);
		}
		c->timing = false;
	}
	c->rto_shift = c->retries = 0;
	c->dupacks = 0;
	if (tcp_seq_ge(c->snd_una, c->tlp_end))
		c->tlp_at = 0;
	if (c->probe_start != c->probe_end && !c->probe_acked_at &&
	    tcp_seq_ge(c->snd_una, c->probe_end))
		c->probe_acked_at = now;
	cwnd_on_ack(c, acked, !c->in_recovery || tcp_seq_ge(s->ack, c->recover));
	c->rto_at = c->snd_una == c->snd_max ? 0 : now + rto_now(c);
	if (fin_acked(c)) {
		if (c->state == TCPS_FIN_WAIT_1)
			c->state = TCPS_FIN_WAIT_2;
		else if (c->state == TCPS_CLOSING)
			c->state = TCPS_TIME_WAIT;
		else if (c->state == TCPS_LAST_ACK)
			set_closed(c, TCP_WHY_CLOSED);
	}
}

/* Is the first SACK block a D-SACK (RFC 2883: at or below the ACK)? */
static bool dsack(const struct tcp_seg *s)
{
	return s->nsack && tcp_seq_le(s->sack0_right, s->ack) &&
	       tcp_seq_lt(s->sack0_left, s->sack0_right);
}

/*
 * An ACK after a tail loss probe: a D-SACK of the probe's bytes says the
 * original had arrived and the probe was spurious, so the reply time is
 * the original's (Karn's doubt is lifted).  When an ACK covered the order
 * before the D-SACK, that was the original's: its time is the sample.
 * When the D-SACK's ACK is the first to cover it and shows nothing missing
 * from the peer (its sequence number is the next we expect), the reply
 * was late rather than lost: the time to the reply that follows is the
 * sample.  Either moves the probe past such replies.  The original's own ACK may come
 * first, so a plain ACK proves nothing: the probe is judged by the D-SACK
 * alone, until the next probe.
 */
static void probe_answered(struct tcp_conn *c, const struct tcp_seg *s)
{
	if (!dsack(s) || tcp_seq_lt(s->ack, c->probe_end) ||
	    tcp_seq_lt(s->sack0_left, c->probe_start) ||
	    tcp_seq_gt(s->sack0_right, c->probe_end))
		return;
	c->st.tlp_spurious++;
	if (c->probe_acked_at) {
		/*
		 * An ACK came before, sooner than the probe could be answered: the
		 * original's.  (Later, it may answer the probe: a duplicated
		 * probe's D-SACK would teach the PTO its own length.)
		 */
		if (c->probe_acked_at > c->probe_t0 &&
		    c->probe_acked_at - c->probe_sent_at < c->rtt_min) {
			reply_sample(c, c->probe_acked_at - c->probe_t0);
			c->st.tlp_late_replies++;
		}
	} else if (tcp_seq_lt(c->snd_una, c->probe_end) && tcp_seq_le(s->seq, c->rcv_nxt)) {
		/* This ACK is the first to cover it, nothing from the peer missing: late. */
		c->late_t0 = c->probe_t0;
	}
	c->probe_start = c->probe_end;
}

/* The window from a segment whose ACK is in [SND.UNA, SND.NXT]. */
static void take_window(struct tcp_conn *c, const struct tcp_seg *s)
{
	c->snd_wnd = s->win;
	/* WL1 never beyond RCV.NXT: a segment ahead of the stream holds off nothing. */
	c->snd_wl1 = tcp_seq_lt(c->rcv_nxt, s->seq) ? c->rcv_nxt : s->seq;
	c->snd_wl2 = s->ack;
	if (s->win > c->max_snd_wnd)
		c->max_snd_wnd = s->win;
	set_limit(c);
	if (s->win) {
		c->persist_at = 0;
		c->persist_backoff = 0;
	}
}

/* The ACK field (RFC 9293 3.10.7.4, fifth check; RFC 5961 5.2; RFC 5681). */
static bool process_ack(struct tcp_conn *c, const struct tcp_seg *s, uint32_t seg_len,
			uint64_t now)
{
	if (tcp_seq_gt(s->ack, c->snd_max)) {
		reject(c, TCP_REJ_ACK_UNSENT, true, now);
		return false;
	}
	if (tcp_seq_lt(s->ack, c->snd_una - c->max_snd_wnd)) {
		reject(c, TCP_REJ_ACK_TOO_OLD, true, now);
		return false;
	}
	/* The peer is there: a probe it answered is not a probe lost. */
	c->probes = 0;
	if (dsack(s))
		c->st.dsacks_in++;
	if (c->probe_start != c->probe_end)
		probe_answered(c, s);
	if (tcp_seq_lt(s->ack, c->snd_una)) {
		/* Older than what we know: its window is older too. */
		c->st.old_acks++;
	} else if (tcp_seq_gt(s->ack, c->snd_una)) {
		take_window(c, s);
		ack_advances(c, s, now);
	} else {
		if (c->snd_una != c->snd_max && !seg_len && s->win == c->snd_wnd) {
			c->st.dup_acks++;
			c->dupacks++;
			/*
			 * Three duplicates, or one that SACKs bytes beyond the hole:
			 * orders are few in flight, so three rarely come (RACK
			 * with no reordering window, the peer's SACK the evidence).
			 */
			if (c->in_recovery) {
				c->cwnd += c->mss;
				set_limit(c);
			} else if (c->dupacks == 3 ||
				   (s->nsack && tcp_seq_gt(s->sack_right, c->snd_una))) {
				enter_recovery(c);
			}
		}
		if (tcp_seq_lt(c->snd_wl1, s->seq) ||
		    (c->snd_wl1 == s->seq && tcp_seq_le(c->snd_wl2, s->ack)))
			take_window(c, s);
	}
	/*
	 * A closed window from an acceptable ACK: the peer is alive and
	 * cannot take data now; its retransmissions are probes, not retries.
	 */
	if (tcp_seq_ge(s->ack, c->snd_una) && c->snd_wnd < data_from(c, c->snd_una, c->mss))
		c->retries = 0;
	if (c->stalled && tcp_seq_le(c->snd_end, c->snd_una + c->snd_wnd))
		c->stalled = false;
	if (c->cwnd_stalled && tcp_seq_le(c->snd_end, c->snd_una + c->cwnd))
		c->cwnd_stalled = false;
	return true;
}

/* A hold slot that already has @seq, or a free one; NULL when full. */
static struct tcp_ooo *ooo_slot(struct tcp_conn *c, uint32_t seq, uint32_t len)
{
	struct tcp_ooo *free_slot = NULL;

	for (int i = 0; i < TCP_OOO_SLOTS; i++) {
		struct tcp_ooo *o = &c->ooo[i];

		if (!o->used) {
			if (!free_slot)
				free_slot = o;
			continue;
		}
		if (o->seq == seq && o->len >= len)
			return o;
	}
	return free_slot;
}

static void hold(struct tcp_conn *c, uint32_t seq, const uint8_t *p, uint32_t len, bool fin)
{
	struct tcp_ooo *o;

	if (len > TCP_OOO_MAX || !(o = ooo_slot(c, seq, len))) {
		c->st.ooo_dropped++;
		return;
	}
	if (o->used)
		return;		/* the same bytes again */
	o->used = true;
	o->seq = seq;
	o->len = (uint16_t)len;
	o->fin = fin;
	memcpy(o->data, p, len);
	c->last_ooo = seq;
	c->st.ooo_held++;
}

static void deliver(struct tcp_conn *c, const uint8_t *p, uint32_t n, uint64_t now)
{
	c->rd[c->rd_n].p = p;
	c->rd[c->rd_n].n = n;
	c->rd_n++;
	c->rcv_nxt += n;
	c->st.bytes_in += n;
	c->unacked += n;
	/* The late reply a spurious probe was waiting for. */
	if (c->late_t0) {
		if (now > c->late_t0) {
			reply_sample(c, now - c->late_t0);
			c->st.tlp_late_replies++;
		}
		c->late_t0 = 0;
	}
}

/*
 * The peer's stream ends at its FIN: a segment held beyond it claims bytes
 * the peer cannot send, and is dropped as data after the FIN.
 */
static void drop_held(struct tcp_conn *c)
{
	for (int i = 0; i < TCP_OOO_SLOTS; i++) {
		if (!c->ooo[i].used)
			continue;
		c->ooo[i].used = false;
		c->st.rejected[TCP_REJ_AFTER_FIN]++;
	}
}

/* The peer's FIN at rcv_nxt. */
static void fin_in(struct tcp_conn *c)
{
	drop_held(c);
	c->rcv_nxt++;
	c->ack_now = true;
	switch (c->state) {
	case TCPS_ESTABLISHED:
		c->state = TCPS_CLOSE_WAIT;
		c->why = TCP_WHY_PEER_FIN;
		break;
	case TCPS_FIN_WAIT_1:
		c->state = fin_acked(c) ? TCPS_TIME_WAIT : TCPS_CLOSING;
		break;
	case TCPS_FIN_WAIT_2:
		c->state = TCPS_TIME_WAIT;
		break;
	default:
		break;
	}
}

/*
 * Held segments that the bytes just delivered have reached, in order, up to
 * a held FIN: true when that FIN is now at rcv_nxt.
 */
static bool drain_held(struct tcp_conn *c, uint64_t now)
{
	bool moved = true, fin = false;

	while (moved && !fin) {
		moved = false;
		for (int i = 0; i < TCP_OOO_SLOTS; i++) {
			struct tcp_ooo *o = &c->ooo[i];
			uint32_t end = o->seq + o->len;

			if (!o->used || tcp_seq_gt(o->seq, c->rcv_nxt))
				continue;
			o->used = false;
			if (tcp_seq_gt(end, c->rcv_nxt)) {
				uint32_t skip = c->rcv_nxt - o->seq;

				deliver(c, o->data + skip, end - c->rcv_nxt, now);
				moved = true;
			}
			if (o->fin && end == c->rcv_nxt) {
				fin = true;
				break;
			}
		}
	}
	return fin;
}

/* The segment's text and FIN (RFC 9293 3.10.7.4, seventh and eighth). */
static void process_data(struct tcp_conn *c, const struct tcp_seg *s, uint64_t now)
{
	const uint8_t *p = s->payload;
	uint32_t seq = s->seq, len = s->len, wnd_end = c->rcv_nxt + c->cfg.rcv_wnd;
	bool fin = s->flags & TCP_FIN;

	if (c->state != TCPS_ESTABLISHED && c->state != TCPS_FIN_WAIT_1 &&
	    c->state != TCPS_FIN_WAIT_2) {
		/* The peer's FIN came already: nothing follows it. */
		if (len || fin)
			reject(c, TCP_REJ_AFTER_FIN, false, now);
		return;
	}
	if (tcp_seq_lt(seq, c->rcv_nxt)) {
		uint32_t skip = c->rcv_nxt - seq;

		if (skip > len) {
			/* Only an old FIN: acknowledge it again. */
			c->ack_now = true;
			return;
		}
		p += skip;
		len -= skip;
		seq = c->rcv_nxt;
	}
	if (tcp_seq_gt(seq + len, wnd_end)) {
		len = wnd_end - seq;
		fin = false;
	}
	if (seq != c->rcv_nxt) {
		if (len || fin)
			hold(c, seq, p, len, fin);
		c->ack_now = true;	/* the duplicate ACK that shows the hole */
		return;
	}
	if (len) {
		uint32_t before = c->rd_n;

		deliver(c, p, len, now);
		if (drain_held(c, now))
			fin = true;
		/* A hole filled is acknowledged at once (RFC 5681 4.2), as is a lot. */
		if (c->rd_n > before + 1 || c->unacked >= 2u * c->mss)
			c->ack_now = true;
		else if (!c->ack_due)
			c->ack_due = now + c->cfg.ack_delay_ns;
	}
	if (fin)
		fin_in(c);
}

void tcp_input(struct tcp_conn *c, const struct tcp_seg *s, uint64_t now)
{
	uint32_t seg_len = s->len + !!(s->flags & TCP_SYN) + !!(s->flags & TCP_FIN);

	c->rd_n = c->rd_i = 0;
	c->st.seg_in++;
	switch (c->state) {
	case TCPS_CLOSED:
		reset_reply(c, s);
		return;
	case TCPS_SYN_SENT:
		syn_sent_input(c, s, now);
		goto out;
	default:
		break;
	}
	if (!acceptable(c, s, seg_len)) {
		/* RFC 5961 3.2: a RST outside the window is dropped in silence. */
		reject(c, TCP_REJ_OUT_OF_WINDOW, !(s->flags & TCP_RST), now);
		goto out;
	}
	if (s->flags & TCP_RST) {
		if (s->seq == c->rcv_nxt) {
			c->st.resets_in++;
			set_closed(c, TCP_WHY_RESET);
			return;
		}
		reject(c, TCP_REJ_RST_IN_WINDOW, true, now);
		goto out;
	}
	if (s->flags & TCP_SYN) {
		/* RFC 5961 4.2: a SYN in the window may be a blind attack. */
		reject(c, TCP_REJ_SYN, true, now);
		goto out;
	}
	if (!(s->flags & TCP_ACK)) {
		reject(c, TCP_REJ_NO_ACK, false, now);
		goto out;
	}
	if (!process_ack(c, s, seg_len, now))
		goto out;
	if (c->state == TCPS_CLOSED)
		return;
	process_data(c, s, now);
out:
	if (c->state != TCPS_CLOSED)
		tcp_output(c, now);
}

/* The congestion window after a timeout (RFC 5681 3.1): one segment. */
static void cwnd_on_timeout(struct tcp_conn *c)
{
	c->ssthresh = max_u32(flight(c) / 2, 2u * c->mss);
	c->cwnd = c->mss;
	c->ca_acked = 0;
	set_limit(c);
}

/* An RTO expiry: resend from snd_una, or give up. */
static void rto_expired(struct tcp_conn *c, uint64_t now)
{
	/* Short expiries (an order's) are not yet evidence of a dead peer. */
	bool counts = rto_now(c) >= c->cfg.rto_min_ns;

	c->st.rto_expiries++;
	if (counts && c->retries >= c->cfg.max_retries) {
		if (c->state != TCPS_SYN_SENT)
			emit(c, c->snd_nxt, c->rcv_nxt, TCP_RST | TCP_ACK, 0);
		set_closed(c, TCP_WHY_TIMEOUT);
		return;
	}
	if (counts)
		c->retries++;
	if (c->rto_shift < RTO_SHIFT_MAX)
		c->rto_shift++;
	c->rto_at = now + rto_now(c);
	c->tlp_at = 0;
	c->dupacks = 0;
	c->in_recovery = false;
	c->timing = false;
	if (c->state == TCPS_SYN_SENT) {
		resend_first(c);
		return;
	}
	cwnd_on_timeout(c);
	/* Go back: everything from snd_una is sent again as the windows allow. */
	c->snd_nxt = c->snd_una;
	tcp_output(c, now);
	/*
	 * A closed window sent nothing: the head goes anyway, as the probe
	 * that makes the peer say its window (RFC 9293 3.8.6.1).
	 */
	if (c->snd_nxt == c->snd_una && c->snd_una != c->snd_max) {
		uint32_t n = data_from(c, c->snd_una, min_u32(c->mss, c->snd_max - c->snd_una));
		int sent = n ? emit(c, c->snd_una, c->rcv_nxt, TCP_ACK | TCP_PSH, n) : -1;

		if (sent > 0) {
			c->snd_nxt = c->snd_una + (uint32_t)sent;
			c->st.retrans_segs++;
			c->st.window_probes++;
		} else {
			resend_first(c);
		}
	}
}

/* The orders' tail loss probe: the segment that ends them, once more. */
static void probe_tail(struct tcp_conn *c, uint64_t now)
{
	uint32_t start = c->snd_una, room = c->mss, n, end;
	int sent;

	/* The orders' bytes that left (some may still wait for the window). */
	end = tcp_seq_lt(c->tlp_end, c->snd_max) ? c->tlp_end : c->snd_max;
	if (!tcp_seq_lt(c->snd_una, end) || c->in_recovery || !sends_data(c))
		return;
	/* The probe ends exactly at tlp_end, so SACK blocks' room comes off its start. */
	for (int i = 0; c->sack_ok && i < TCP_OOO_SLOTS; i++)
		if (c->ooo[i].used) {
			room -= TCP_SACK_ROOM;
			break;
		}
	if (end - start > room)
		start = end - room;
	n = end - start;
	c->timing = false;	/* Karn */
	sent = emit(c, start, c->rcv_nxt, TCP_ACK | TCP_PSH, n);
	if (sent < 0)
		return;
	c->st.tlp_probes++;
	c->st.retrans_segs++;
	c->probe_start = start;
	c->probe_end = start + (uint32_t)sent;
	c->probe_t0 = c->tail_sent_at;
	c->probe_sent_at = now;
	c->probe_acked_at = 0;
	/*
	 * RFC 8985 7.3: the RTO from the probe on.  The probe has waited a
	 * PTO already: two more and it is lost too.
	 */
	c->rto_at = now + min_u64(rto_now(c), 2 * c->pto);
}

/* The persist timer: a probe that makes the peer tell its window. */
static void probe_window(struct tcp_conn *c, uint64_t now)
{
	if (c->probes >= c->cfg.max_retries) {
		emit(c, c->snd_nxt, c->rcv_nxt, TCP_RST | TCP_ACK, 0);
		set_closed(c, TCP_WHY_TIMEOUT);
		return;
	}
	if (emit(c, c->snd_una - 1, c->rcv_nxt, TCP_ACK, 0) >= 0)
		c->st.zwin_probes++;
	c->probes++;
	if (c->persist_backoff < 16)
		c->persist_backoff++;
	c->persist_at = now + min_u64(c->rto << c->persist_backoff, c->cfg.rto_max_ns);
}

void tcp_timers(struct tcp_conn *c, uint64_t now)
{
	if (c->replies.dirty)
		order_timeouts(c);
	if (c->state == TCPS_CLOSED)
		return;
	if (c->rto_at && now >= c->rto_at) {
		rto_expired(c, now);
		if (c->state == TCPS_CLOSED)
			return;
	}
	if (c->tlp_at && now >= c->tlp_at) {
		c->tlp_at = 0;
		probe_tail(c, now);
	}
	if (c->persist_at && now >= c->persist_at) {
		int32_t usable = (int32_t)(c->snd_una + c->snd_wnd - c->snd_nxt);

		if (c->snd_una != c->snd_max || c->snd_nxt == c->snd_end) {
			c->persist_at = 0;	/* an ACK is on its way, or nothing waits */
		} else if (usable > 0) {
			/* Open, but too little for the silly-window rule: send what fits. */
			c->persist_at = 0;
			output(c, now, true);
		} else {
			probe_window(c, now);
		}
		if (c->state == TCPS_CLOSED)
			return;
	}
	tcp_output(c, now);
}
