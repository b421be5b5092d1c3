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
#include <stdint.h>
#include <string.h>

#include "proto/be.h"
#include "proto/feed_decoder.h"
#include "proto/order_token.h"
#include "proto/ouch.h"
#include "strategy/inst_spec.h"
#include "strategy/strat.h"

#define GW_MAX_INST	16
#define GW_MAX_DECISIONS 64	/* orders one feed packet can trigger */

struct gw_cfg {
	struct inst_spec inst[GW_MAX_INST];
	unsigned int n_inst;
	uint32_t limit_bp;	/* IOC limit: trigger price +- this many bp */
	uint32_t order_log;	/* order records kept (power of two) */
	uint32_t tick_ring;	/* tick ring capacity (power of two) */
	char firm[5];
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
};

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
	uint8_t pad;
};

struct gw_decision {
	uint64_t md_seq;
	uint64_t t_exch48;
	uint64_t t_hook;
	uint32_t price;
	int change;		/* position change in units */
	uint8_t inst;
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
	volatile int ended;		/* end of session seen */
};

int engine_init(struct gw_engine *e, const struct gw_cfg *cfg,
		char *err, size_t errlen);
void engine_destroy(struct gw_engine *e);

/*
 * Decode one feed datagram and run the strategies on its ticks.  Fills
 * out[] with the orders to send and returns how many.
 */
static inline unsigned int engine_on_feed(struct gw_engine *e,
					  const uint8_t *pkt, size_t len,
					  uint64_t t_hook,
					  struct gw_decision *out)
{
	const struct tick_ring *r = &e->dec.ring;
	uint32_t n = feed_decode(&e->dec, pkt, len, t_hook);
	unsigned int nd = 0;

	e->st.feed_packets++;
	e->st.ticks += n;
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
		chg = strat_on_tick(&in->strat, px);
		if (chg == -ERANGE) {
			in->bad_price++;
			continue;
		}
		in->last_price = px;
		if (!chg)
			continue;
		if (nd == GW_MAX_DECISIONS) {
			e->st.decisions_dropped++;
			continue;
		}
		out[nd].md_seq = r->seq[slot];
		out[nd].t_exch48 = r->exch_ts[slot];
		out[nd].t_hook = t_hook;
		out[nd].price = px;
		out[nd].change = chg;
		out[nd].inst = (uint8_t)(k - 1);
		nd++;
	}
	if (e->dec.ended)
		e->ended = 1;
	return nd;
}

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
	int units = d->change < 0 ? -d->change : d->change;
	uint32_t shares = (uint32_t)units * in->unit;
	uint64_t off = (uint64_t)d->price * e->limit_bp / 10000;
	uint32_t limit;
	char side;

	if (d->change > 0) {
		side = 'B';
		limit = d->price + off > UINT32_MAX ? UINT32_MAX : (uint32_t)(d->price + off);
	} else {
		side = 'S';
		limit = off >= d->price ? 1 : (uint32_t)(d->price - off);
	}

	o->md_seq = d->md_seq;
	o->t_exch = d->t_exch48;	/* widened off the hot path */
	o->t_hook = d->t_hook;
	o->t_seen = t_seen;
	o->t_decided = o->t_queued = o->t_sent = o->t_ack = 0;
	o->order_no = no;
	o->price = limit;
	o->shares = shares;
	o->fill_price = 0;
	o->inst = d->inst;
	o->side = side;
	o->state = GW_ORDER_SENT;
	in->orders++;
	e->st.orders++;
	*rec = o;
	return ouch_order_tmpl_write(&in->tmpl, buf, d->md_seq, no, side, shares,
				     in->symbol, limit);
}

/*
 * Idle-time cache warming.  While the feed is quiet the kernel's work on
 * this core (the TX kick runs the whole veth transmit) evicts what the next
 * tick will touch; pulling those lines back while spinning keeps the tick's
 * decode and strategy update from starting cold.  Prefetches only: nothing
 * is written, and the cost is a few dozen instructions per idle spin.
 */
static inline void engine_warm(const struct gw_engine *e)
{
	const struct tick_ring *r = &e->dec.ring;
	uint32_t slot = tick_ring_slot(r, r->head);

	__builtin_prefetch(&e->dec);
	__builtin_prefetch(&e->dec.cnt);
	__builtin_prefetch(&e->st);
	__builtin_prefetch(&r->seq[slot], 1);
	__builtin_prefetch(&r->exch_ts[slot], 1);
	__builtin_prefetch(&r->arrival_ns[slot], 1);
	__builtin_prefetch(&r->price[slot], 1);
	__builtin_prefetch(&r->shares[slot], 1);
	__builtin_prefetch(&r->locate[slot], 1);
	__builtin_prefetch(&r->side[slot], 1);
	__builtin_prefetch(&e->orders[e->next_order & e->order_mask], 1);
	for (unsigned int i = 0; i < e->n_inst; i++) {
		const struct gw_inst *in = &e->inst[i];
		const struct hma_state *h = &in->strat.hma;
		uint64_t t = h->t;

		if (in->locate >= 0)
			__builtin_prefetch(&e->locate_inst[in->locate]);
		__builtin_prefetch(in);
		__builtin_prefetch((const char *)h + 64);
		__builtin_prefetch((const char *)h + 128);
		__builtin_prefetch((const char *)h + 192);
		__builtin_prefetch(&h->x[(t - h->hp.n) & (HMA_XRING - 1)]);
		__builtin_prefetch(&h->x[(t - h->hp.h) & (HMA_XRING - 1)]);
		__builtin_prefetch(&h->x[(t - h->hp.a) & (HMA_XRING - 1)]);
		__builtin_prefetch(&h->x[(t - h->hp.b) & (HMA_XRING - 1)]);
		__builtin_prefetch(&h->x[t & (HMA_XRING - 1)], 1);
		__builtin_prefetch(&h->R[(t - h->hp.s) & (HMA_RRING - 1)]);
		__builtin_prefetch(&h->R[t & (HMA_RRING - 1)], 1);
		__builtin_prefetch(&h->Q[(t - h->hp.p) & (HMA_QRING - 1)]);
		__builtin_prefetch(&h->Q[t & (HMA_QRING - 1)], 1);
		__builtin_prefetch(&in->strat.sar, 1);
		__builtin_prefetch(&in->tmpl);
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
