/* SPDX-License-Identifier: MIT */
/*
 * The gateway's pipeline, shared by the AF_XDP path and the kernel-UDP
 * fallback: decode a feed datagram into the SoA tick ring, run the
 * incremental strategy of every configured instrument on its ticks, turn
 * each position change into an OUCH Enter Order, and account the
 * exchange's replies.  The paths differ only in how bytes arrive and leave.
 *
 * Everything here is allocated and prefaulted by engine_init(); the inline
 * per-packet functions allocate nothing, take no locks and make no syscalls.
 */
#ifndef GATEWAY_ENGINE_H
#define GATEWAY_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "gateway/gap.h"
#include "proto/be.h"
#include "proto/feed_decoder.h"
#include "proto/itch.h"
#include "proto/order_token.h"
#include "proto/ouch.h"
#include "strategy/inst_spec.h"
#include "strategy/strat.h"

#ifndef unlikely
#define unlikely(x) __builtin_expect(!!(x), 0)
#endif

#define GW_MAX_INST	16
#define GW_MAX_DECISIONS 64	/* orders one feed packet can trigger */

/* Pre-trade limits; 0 = no limit. */
struct gw_risk_cfg {
	uint32_t max_pos;	/* |position| per symbol, shares, open orders included */
	uint32_t max_order;	/* shares per order */
	uint32_t max_rate;	/* orders per second (token bucket) ... */
	uint32_t burst;		/* ... of this depth */
	uint32_t collar_bp;	/* limit price within this of the last trade */
	uint32_t max_open;	/* orders without a final reply */
};

struct gw_cfg {
	struct inst_spec inst[GW_MAX_INST];
	unsigned int n_inst;
	uint32_t limit_bp;	/* IOC limit: trigger price +- this many bp */
	uint32_t order_log;	/* order records kept (power of two) */
	uint32_t tick_ring;	/* tick ring capacity (power of two) */
	char firm[5];
	struct gw_risk_cfg risk;
	uint32_t hold_slots;	/* gap recovery: packets held while a gap is open */
	uint64_t gap_retry_ns;	/* re-request again after this */
	uint64_t gap_timeout_ns;/* give up (session stale) after this */
	uint64_t order_timeout_ns; /* no final reply after this: timed out */
	uint64_t max_catchup_ns;	/* late ticks older than this: not traded */
};

enum gw_risk_reason {
	RISK_KILLED,		/* kill switch */
	RISK_STALE,		/* session stale: unfilled gap */
	RISK_MAX_POS,
	RISK_MAX_ORDER,
	RISK_RATE,
	RISK_COLLAR,
	RISK_MAX_OPEN,
	RISK_NR,
};

struct gw_inst {
	char symbol[8];		/* space padded, as on the wire */
	int locate;		/* -1 until the stock directory names it */
	struct strat strat;
	uint32_t unit;
	uint32_t last_price;
	/* what the exchange confirmed */
	int64_t pos_shares;
	int64_t cash;		/* Price(4) units x shares */
	int64_t open_buy, open_sell;	/* shares in orders without a final reply */
	uint64_t ticks, orders, fills, cancels, rejects, bad_price;
	struct ouch_order_tmpl tmpl;	/* firm, TIF, ... preset */
};

enum gw_order_state {
	GW_ORDER_SENT,
	GW_ORDER_ACCEPTED,
	GW_ORDER_FILLED,
	GW_ORDER_CANCELED,
	GW_ORDER_REJECTED,
	GW_ORDER_SEND_FAILED,
	GW_ORDER_TIMED_OUT,
};

#define GW_F_RETRANS	1	/* a retransmission from the re-request server */
#define GW_F_CATCHUP	2	/* decoded late, after a gap filled */

/* One order, as the capture log and the parity check need it. */
struct gw_order {
	uint64_t md_seq;	/* triggering market-data message */
	uint64_t t_exch;	/* the exchange's send time (ITCH timestamp, full) */
	uint64_t t_hook, t_seen, t_decided, t_queued, t_sent;
	uint64_t t_ack;		/* exchange's arrival stamp (reply Timestamp) */
	uint32_t order_no;
	uint32_t price;		/* limit */
	uint32_t shares;
	uint32_t fill_price;
	uint8_t inst;
	char side;		/* 'B' or 'S' */
	uint8_t state;		/* enum gw_order_state */
	uint8_t flags;		/* GW_F_CATCHUP */
};

struct gw_decision {
	uint64_t md_seq;
	uint64_t t_exch48;
	uint64_t t_hook;
	uint32_t price;
	int change;		/* position change in units */
	uint32_t shares;
	uint32_t limit;
	uint8_t inst;
	uint8_t flags;
};

struct gw_stats {
	uint64_t feed_packets;
	uint64_t ticks;			/* P messages decoded */
	uint64_t ticks_ours;		/* ... for a configured instrument */
	uint64_t orders;
	uint64_t orders_failed;		/* no TX frame / ring full / send error */
	uint64_t replies;
	uint64_t accepted, fills, cancels, rejects;
	uint64_t bad_replies;		/* undecodable reply datagrams */
	uint64_t unknown_token;		/* reply for no order we know */
	uint64_t decisions_dropped;	/* > GW_MAX_DECISIONS in one packet */
	uint64_t other_packets;		/* steered but neither feed nor reply */
	uint64_t bad_frames;		/* unparseable frames (AF_XDP path) */
	uint64_t bad_checksum;		/* IPv4 or UDP checksum wrong (AF_XDP path) */
	uint64_t other_session;		/* feed packets of another session: dropped */
	uint64_t ticks_stale;		/* ticks of a stale session: not traded */
	uint64_t catchup_orders;	/* orders from ticks decoded after a gap */
	uint64_t catchup_suppressed;	/* ... not sent: tick older than max_catchup */
	uint64_t risk[RISK_NR];		/* orders refused, per reason */
	uint64_t timeouts;		/* orders with no final reply in time */
	uint64_t late_replies;		/* replies to orders already timed out */
	uint64_t dup_replies;		/* a second final reply: ignored */
};

struct gw_engine {
	struct feed_decoder dec;
	struct gw_stats st;
	uint8_t locate_inst[65536];	/* 0 = not ours, else index + 1 */
	struct gw_inst inst[GW_MAX_INST];
	unsigned int n_inst;
	uint32_t limit_bp;
	struct gw_order *orders;
	uint32_t order_mask;
	uint32_t next_order;		/* orders sent so far */
	uint32_t oldest_open;		/* no order before it awaits a reply */
	volatile int ended;		/* end of session seen */
	volatile int killed;		/* kill switch: no new orders */
	struct gw_gap gap;
	struct gw_risk_cfg risk;
	uint64_t credit_ns;		/* token bucket, in ns of allowance */
	uint64_t credit_at;
	uint64_t order_cost_ns;		/* 1e9 / max_rate */
	uint32_t open_orders;
	uint64_t order_timeout_ns;
	uint64_t max_catchup_ns;
};

/* The gateway's defaults: make demo's book (AAPL:20 MSFT:32 NVDA:48), limits. */
void gw_cfg_defaults(struct gw_cfg *c);
int engine_init(struct gw_engine *e, const struct gw_cfg *cfg,
		char *err, size_t errlen);
void engine_destroy(struct gw_engine *e);

/* Pre-trade checks of one order; 0 or the reason it may not leave. */
static inline int engine_risk(struct gw_engine *e, const struct gw_inst *in,
			      int64_t signed_shares, uint32_t limit,
			      uint64_t now)
{
	const struct gw_risk_cfg *rc = &e->risk;

	if (e->killed)
		return RISK_KILLED;
	if (e->gap.stale)
		return RISK_STALE;
	if (rc->max_order && (uint64_t)(signed_shares < 0 ? -signed_shares : signed_shares) >
			     rc->max_order)
		return RISK_MAX_ORDER;
	if (rc->max_pos) {
		/* Worst case: every open order on this side fills too. */
		int64_t worst = signed_shares > 0 ? in->pos_shares + in->open_buy + signed_shares :
					       in->pos_shares - in->open_sell + signed_shares;

		if ((worst < 0 ? -worst : worst) > (int64_t)rc->max_pos)
			return RISK_MAX_POS;
	}
	if (rc->collar_bp) {
		uint64_t dev = limit > in->last_price ? limit - in->last_price :
						       in->last_price - limit;

		if (dev * 10000 > (uint64_t)in->last_price * rc->collar_bp)
			return RISK_COLLAR;
	}
	if (rc->max_open && e->open_orders >= rc->max_open)
		return RISK_MAX_OPEN;
	if (rc->max_rate) {
		uint64_t cap = e->order_cost_ns * rc->burst;

		if (now > e->credit_at) {
			e->credit_ns += now - e->credit_at;
			e->credit_at = now;
		}
		if (e->credit_ns > cap)
			e->credit_ns = cap;
		if (e->credit_ns < e->order_cost_ns)
			return RISK_RATE;
		e->credit_ns -= e->order_cost_ns;
	}
	return -1;
}

/*
 * Turn a position change into an order if the limits allow it; refused
 * orders are counted per reason and never leave.
 */
static inline bool engine_decide(struct gw_engine *e, struct gw_inst *in,
				 unsigned int k, int chg, uint32_t px,
				 uint64_t t_hook, uint64_t now,
				 struct gw_decision *d)
{
	int units = chg < 0 ? -chg : chg;
	uint32_t shares = (uint32_t)units * in->unit;
	uint64_t off = (uint64_t)px * e->limit_bp / 10000;
	uint32_t limit;
	int why;

	if (chg > 0)
		limit = px + off > UINT32_MAX ? UINT32_MAX : (uint32_t)(px + off);
	else
		limit = off >= px ? 1 : (uint32_t)(px - off);
	why = engine_risk(e, in, chg > 0 ? (int64_t)shares : -(int64_t)shares, limit, now);
	if (why >= 0) {
		e->st.risk[why]++;
		return false;
	}
	d->change = chg;
	d->shares = shares;
	d->limit = limit;
	d->inst = (uint8_t)k;
	d->price = px;
	d->t_hook = t_hook;
	return true;
}

/*
 * A tick decoded late (retransmitted or held) older than max_catchup_ns is
 * not traded: the strategy follows it, no order goes out.  Its age is taken
 * from the ITCH timestamp, the exchange's send time on the rig.
 */
static inline bool engine_too_old(const struct gw_engine *e, uint64_t ts48,
				  uint64_t now)
{
	uint64_t sent = itch_ts_recover(ts48, now);

	return e->max_catchup_ns && now > sent && now - sent > e->max_catchup_ns;
}

/*
 * Gap check before decoding (see gap.h): true when the packet was consumed
 * here (held, or dropped as another session or an early retransmission).
 */
static inline bool engine_gap_check(struct gw_engine *e, const uint8_t *pkt,
				    size_t len, uint64_t t_hook, uint64_t now,
				    unsigned int flags)
{
	struct feed_decoder *d = &e->dec;
	uint64_t seq;

	if (len < MOLD_HDR_LEN)
		return false;
	if (unlikely(!d->have_session)) {
		/*
		 * Sessions count from 1: if the first packet we see starts later,
		 * the system events and the stock directory before it are a gap
		 * like any other (without them no symbol is ours).
		 */
		if (be64_load(pkt + MOLD_OFF_SEQ) <= 1 ||
		    be16_load(pkt + MOLD_OFF_COUNT) == MOLD_COUNT_END)
			return false;
		memcpy(d->session, pkt + MOLD_OFF_SESSION, MOLD_SESSION_LEN);
		d->have_session = true;
		d->next_seq = 1;
	}
	if (memcmp(pkt + MOLD_OFF_SESSION, d->session, MOLD_SESSION_LEN)) {
		/* A new session only after the current one ended. */
		if (d->ended)
			return false;
		e->st.other_session++;
		return true;
	}
	seq = be64_load(pkt + MOLD_OFF_SEQ);
	if (seq <= d->next_seq || e->gap.stale || d->ended)
		return false;
	if (flags & GW_F_RETRANS) {
		/* Out of order within a retransmission: asked again later. */
		e->gap.retrans_ahead++;
		return true;
	}
	if (!gap_open(&e->gap)) {
		e->gap.gaps++;
		e->gap.opened_ns = e->gap.progress_ns = now;
		e->gap.progress_seq = d->next_seq;
		e->gap.last_req_ns = 0;
	}
	if (!gap_hold(&e->gap, pkt, len, seq, t_hook))
		e->gap.stale = true;	/* cannot keep sequence order any more */
	return true;
}

/*
 * Decode one feed datagram and run the strategies on its ticks.  Fills
 * out[] with the orders to send and returns how many.  t_hook: the packet's
 * arrival stamp; now: the loop's clock (t_seen).  flags: GW_F_RETRANS for
 * the re-request server's packets, GW_F_CATCHUP for held packets.
 */
static inline unsigned int engine_on_feed(struct gw_engine *e,
					  const uint8_t *pkt, size_t len,
					  uint64_t t_hook, uint64_t now,
					  struct gw_decision *out,
					  unsigned int flags)
{
	const struct tick_ring *r = &e->dec.ring;
	unsigned int nd = 0;
	uint32_t n;

	if (engine_gap_check(e, pkt, len, t_hook, now, flags))
		return 0;
	n = feed_decode(&e->dec, pkt, len, t_hook);
	e->st.feed_packets++;
	e->st.ticks += n;
	if (flags & GW_F_RETRANS)
		e->gap.retrans_pkts++;
	for (uint64_t i = r->head - n; i < r->head; i++) {
		uint32_t slot = tick_ring_slot(r, i);
		unsigned int k = e->locate_inst[r->locate[slot]];
		struct gw_inst *in;
		uint32_t px;
		int chg;

		if (!k)
			continue;
		in = &e->inst[k - 1];
		px = r->price[slot];
		in->ticks++;
		e->st.ticks_ours++;
		if (e->gap.stale) {
			e->st.ticks_stale++;
			continue;
		}
		chg = strat_on_tick(&in->strat, px);
		if (chg == -ERANGE) {
			in->bad_price++;
			continue;
		}
		in->last_price = px;
		if (!chg)
			continue;
		if (unlikely(flags & (GW_F_RETRANS | GW_F_CATCHUP)) &&
		    engine_too_old(e, r->exch_ts[slot], now)) {
			e->st.catchup_suppressed++;
			continue;
		}
		if (nd == GW_MAX_DECISIONS) {
			e->st.decisions_dropped++;
			continue;
		}
		if (!engine_decide(e, in, k - 1, chg, px, t_hook, now, &out[nd]))
			continue;
		out[nd].md_seq = r->seq[slot];
		out[nd].t_exch48 = r->exch_ts[slot];
		out[nd].flags = (uint8_t)(flags & (GW_F_RETRANS | GW_F_CATCHUP));
		nd++;
	}
	if (e->dec.ended)
		e->ended = 1;
	return nd;
}

/*
 * After a packet: the next held packet that can be decoded now, if any
 * (decode it with GW_F_CATCHUP and ask again).
 */
static inline bool engine_next_held(struct gw_engine *e, uint64_t now,
				    const uint8_t **pkt, size_t *len,
				    uint64_t *t_hook)
{
	struct gw_gap *g = &e->gap;

	if (!gap_open(g) || !gap_pop(g, e->dec.next_seq, pkt, len, t_hook))
		return false;
	if (!gap_open(g) && !g->stale) {
		g->filled++;
		if (now - g->opened_ns > g->fill_ns_max)
			g->fill_ns_max = now - g->opened_ns;
	}
	return true;
}

/*
 * Held packets decoded per call of a path's drain: a long catch-up must not
 * starve the receive side (its overflow would open new gaps); the loop comes
 * back for the rest.
 */
#define GW_DRAIN_BUDGET 32

/*
 * Decode the next held packet that can be decoded now (after a fill, or
 * once the session is stale), as a catch-up: false when there is none,
 * else its decisions are in dec[0 .. *nd).
 */
static inline bool engine_feed_held(struct gw_engine *e, uint64_t now,
				    struct gw_decision *dec, unsigned int *nd)
{
	const uint8_t *pkt;
	uint64_t t_hook;
	size_t len;

	if (!engine_next_held(e, now, &pkt, &len, &t_hook))
		return false;
	*nd = engine_on_feed(e, pkt, len, t_hook, now, dec, GW_F_CATCHUP);
	return true;
}

/*
 * Gap bookkeeping for the loop's idle moments and after each batch: the
 * range to re-request now (true: [*seq, *seq + *count)), timeouts, fills.
 */
bool engine_gap_poll(struct gw_engine *e, uint64_t now, uint64_t *seq,
		     uint16_t *count);

/* Orders without a final reply past the timeout (loop's idle moments). */
void engine_expire_orders(struct gw_engine *e, uint64_t now);

/* A decision that could not be sent after all (no TX frame, send error). */
void engine_order_failed(struct gw_engine *e, struct gw_order *o);

/*
 * Write the Enter Order datagram of decision d into buf (room for
 * OUCH_ENTER_DGRAM_LEN bytes, at an even offset of the UDP payload) from the
 * instrument's template, and open its order record.  Returns the datagram's
 * one's complement sum (for frame_finish_sum); *rec gets the record so the
 * path can stamp t_queued / t_sent.
 */
static inline uint64_t engine_build_order(struct gw_engine *e,
					  const struct gw_decision *d,
					  uint64_t t_seen, uint8_t *buf,
					  struct gw_order **rec)
{
	struct gw_inst *in = &e->inst[d->inst];
	uint32_t no = e->next_order++;
	struct gw_order *o = &e->orders[no & e->order_mask];
	char side = d->change > 0 ? 'B' : 'S';

	o->md_seq = d->md_seq;
	o->t_exch = d->t_exch48;	/* widened off the hot path */
	o->t_hook = d->t_hook;
	o->t_seen = t_seen;
	o->t_decided = o->t_queued = o->t_sent = o->t_ack = 0;
	o->order_no = no;
	o->price = d->limit;
	o->shares = d->shares;
	o->fill_price = 0;
	o->inst = d->inst;
	o->side = side;
	o->state = GW_ORDER_SENT;
	o->flags = d->flags;
	if (side == 'B')
		in->open_buy += d->shares;
	else
		in->open_sell += d->shares;
	e->open_orders++;
	in->orders++;
	e->st.orders++;
	e->st.catchup_orders += !!(d->flags & GW_F_CATCHUP);
	*rec = o;
	return ouch_order_tmpl_write(&in->tmpl, buf, d->md_seq, no, side, d->shares,
				     in->symbol, d->limit);
}

/*
 * Idle-time cache warming.  While the feed is quiet, something outside this
 * thread (the TX kick's kernel work on this core, and on this VM the host)
 * evicts what the next tick will touch: after 100 us of spinning a tick
 * costs about three times what it costs back to back (make bench-engine).
 * Reading every line the tick will use, on every page it will use, keeps
 * both the caches and the TLB warm.  Plain loads, not prefetches: a
 * prefetch may be dropped when it misses the TLB, which is half the point.
 * Nothing is written.
 */
#define WARM_TOUCH(p) ((void)*(const volatile char *)(p))

static inline void warm_lines(const void *p, size_t len)
{
	for (size_t off = 0; off < len; off += 64)
		WARM_TOUCH((const char *)p + off);
}

static inline void engine_warm(const struct gw_engine *e)
{
	const struct tick_ring *r = &e->dec.ring;
	uint32_t slot = tick_ring_slot(r, r->head);

	warm_lines(&e->dec, sizeof(e->dec.ring) + 64);	/* ring, first counters */
	WARM_TOUCH(&e->dec.cnt.ticks);
	warm_lines(&e->dec.last, sizeof(e->dec.last));
	WARM_TOUCH(&e->dec.next_seq);
	WARM_TOUCH(&e->dec.have_session);
	warm_lines(&e->st, sizeof(e->st));
	warm_lines(&e->n_inst, sizeof(*e) - offsetof(struct gw_engine, n_inst));
	WARM_TOUCH(&r->seq[slot]);
	WARM_TOUCH(&r->exch_ts[slot]);
	WARM_TOUCH(&r->arrival_ns[slot]);
	WARM_TOUCH(&r->price[slot]);
	WARM_TOUCH(&r->shares[slot]);
	WARM_TOUCH(&r->locate[slot]);
	WARM_TOUCH(&r->side[slot]);
	warm_lines(&e->orders[e->next_order & e->order_mask], sizeof(struct gw_order));
	for (unsigned int i = 0; i < e->n_inst; i++) {
		const struct gw_inst *in = &e->inst[i];
		const struct hma_state *h = &in->strat.hma;
		uint64_t t = h->t;

		if (in->locate >= 0)
			WARM_TOUCH(&e->locate_inst[in->locate]);
		warm_lines(in, offsetof(struct gw_inst, strat) + offsetof(struct hma_state, x));
		WARM_TOUCH(&h->x[(t - h->hp.n) & (HMA_XRING - 1)]);
		WARM_TOUCH(&h->x[(t - h->hp.h) & (HMA_XRING - 1)]);
		WARM_TOUCH(&h->x[(t - h->hp.a) & (HMA_XRING - 1)]);
		WARM_TOUCH(&h->x[(t - h->hp.b) & (HMA_XRING - 1)]);
		WARM_TOUCH(&h->x[t & (HMA_XRING - 1)]);
		WARM_TOUCH(&h->R[(t - h->hp.s) & (HMA_RRING - 1)]);
		WARM_TOUCH(&h->R[t & (HMA_RRING - 1)]);
		WARM_TOUCH(&h->Q[(t - h->hp.p) & (HMA_QRING - 1)]);
		WARM_TOUCH(&h->Q[t & (HMA_QRING - 1)]);
		warm_lines(&in->strat.sar, sizeof(*in) - offsetof(struct gw_inst, strat.sar));
	}
}

/* Account one reply datagram from the exchange. */
void engine_on_reply(struct gw_engine *e, const uint8_t *pkt, size_t len);

/* Marked-to-market PnL of an instrument, in Price(4) units. */
static inline int64_t engine_inst_pnl(const struct gw_inst *in)
{
	return in->cash + in->pos_shares * (int64_t)in->last_price;
}

#endif /* GATEWAY_ENGINE_H */
