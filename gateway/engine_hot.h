/* SPDX-License-Identifier: MIT */
/*
 * The engine's per-packet work, the hot path both gateway paths run: a
 * feed datagram classified, held or decoded (engine_on_feed(),
 * engine_decode()), the strategies on its prints (engine_on_ticks()), the
 * gate and the sizing of each order (engine_gate(), engine_decide()), the
 * Enter Order written from its template (engine_build_order()).  Static
 * inline, so that each path compiles it into its loop; nothing here
 * allocates, takes a lock or makes a syscall.  The engine's state, set-up
 * and the work off the hot path (replies, paper fills) are engine.h's and
 * engine.c's.
 */
#ifndef GATEWAY_ENGINE_HOT_H
#define GATEWAY_ENGINE_HOT_H

#include "gateway/engine.h"

/*
 * The price an order of instrument k is judged against: the middle of the
 * best bid and ask when its book has both, else the median of its last
 * prints (inst.h).  Either way one stray print cannot move it.
 */
static inline uint32_t engine_reference(const struct gw_engine *e, const struct gw_inst *in)
{
	if (e->book && in->locate >= 0) {
		const struct book_level *bid = book_best(e->book, (uint16_t)in->locate, BOOK_BID);
		const struct book_level *ask = book_best(e->book, (uint16_t)in->locate, BOOK_ASK);

		if (bid && ask && bid->price < ask->price)
			return (uint32_t)(((uint64_t)bid->price + ask->price) / 2);
	}
	return inst_reference(in);
}

/*
 * The order instrument k wants now, if the limits let it leave: 1 decided
 * (and reserved), 0 nothing wanted, -1 refused.  @chg: the strategy's change
 * at this tick (units), to flag restores and resizes.
 */
static inline int engine_decide(struct gw_engine *e, unsigned int k, int chg,
				uint32_t px, uint64_t now, struct gw_decision *d)
{
	struct gw_inst *in = &e->inst[k];
	struct orders *o = &e->ord;
	int64_t want = inst_want(in, o->open_buy[k], o->open_sell[k]);
	uint32_t limit;
	char side;

	if (!want)
		return 0;
	side = want > 0 ? 'B' : 'S';
	limit = orders_limit(o, px, side);
	if (risk_check(&e->risk, in, want, limit, engine_reference(e, in), o->open_buy[k],
		       o->open_sell[k], o->open, now) != RISK_OK)
		return -1;
	d->shares = (uint32_t)(want < 0 ? -want : want);
	d->side = side;
	d->limit = limit;
	d->inst = (uint8_t)k;
	d->flags = !chg ? ORDER_F_RESTORE :
		   (uint64_t)(chg < 0 ? -chg : chg) * in->unit != d->shares ? ORDER_F_RESIZED : 0;
	orders_reserve(o, d);
	return 1;
}

/*
 * A strategy change that did not become an order at its tick, for the
 * report.  One covered by orders in flight is remembered: the reply that
 * ends one of them makes it up (engine_on_reply()).
 */
static inline void engine_untraded(struct gw_engine *e, unsigned int k, int chg,
				   uint64_t md_seq, enum gw_untraded_why why)
{
	struct gw_untraded *u = &e->untraded[e->st.untraded & e->ord.mask];

	if (why == UNTRADED_COVERED)
		inst_note_covered(&e->inst[k], md_seq);

	u->md_seq = md_seq;
	u->shares = (int64_t)chg * e->inst[k].unit;
	u->inst = (uint8_t)k;
	u->why = (uint8_t)why;
	e->st.untraded++;
	e->st.untraded_by[why]++;
}

/* engine_gate()'s answer when a change may trade. */
#define GW_TRADE (-1)

/*
 * Whether a strategy change at this tick may trade now: GW_TRADE, or why
 * not (enum gw_untraded_why), checked in this order.  @late: the packet
 * came too late to trade on; @nd: the orders this packet made so far.
 */
static inline int engine_gate(const struct gw_engine *e, bool late, unsigned int nd)
{
	if (unlikely(late))
		return UNTRADED_LATE;
	if (unlikely(e->unsafe_from))
		return UNTRADED_BOOK;
	if (unlikely(!e->ord.up))
		return UNTRADED_SESSION;
	if (unlikely(nd == GW_MAX_DECISIONS))
		return UNTRADED_OVERFLOW;
	return GW_TRADE;
}

/*
 * Run the strategies on the ticks the last decode appended and collect the
 * orders they call for.  @late: the packet came too late to trade on.
 */
static inline unsigned int engine_on_ticks(struct gw_engine *e, uint32_t n,
					   uint64_t t_hook, uint64_t now,
					   unsigned int flags, bool late,
					   struct gw_decision *out)
{
	const struct tick_ring *r = &e->dec.ring;
	unsigned int nd = 0;

	e->st.ticks += n;
	for (uint64_t i = r->head - n; i < r->head; i++) {
		uint32_t slot = tick_ring_slot(r, i);
		unsigned int k = e->locate_inst[r->locate[slot]];
		struct gw_inst *in;
		uint32_t px = r->price[slot];
		int chg, ret, why;

		if (k == GW_LOCATE_OTHER)
			continue;
		if (unlikely(k == GW_LOCATE_UNKNOWN)) {
			e->st.unknown_locate++;
			continue;
		}
		in = &e->inst[k - 1];
		if (unlikely(e->gap.stale)) {
			e->st.ticks_stale++;
			continue;
		}
		chg = strat_on_tick(&in->strat, px);
		if (unlikely(chg == -ERANGE)) {
			e->st.bad_price++;
			in->bad_price++;
			continue;
		}
		in->ticks++;
		e->st.ticks_ours++;
		inst_note_print(in, px, r->shares[slot], r->seq[slot], r->exch_ts[slot]);
		/*
		 * A later change supersedes a covered one: what a reply makes
		 * up must be this change, or none if this one is not covered.
		 */
		if (chg)
			in->covered = false;
		why = engine_gate(e, late, nd);
		if (unlikely(why != GW_TRADE)) {
			if (chg)
				engine_untraded(e, k - 1, chg, r->seq[slot], (enum gw_untraded_why)why);
			continue;
		}
		ret = engine_decide(e, k - 1, chg, px, now, &out[nd]);
		if (ret <= 0) {
			if (chg)
				engine_untraded(e, k - 1, chg, r->seq[slot],
						ret ? UNTRADED_RISK : UNTRADED_COVERED);
			continue;
		}
		out[nd].md_seq = r->seq[slot];
		out[nd].t_exch48 = r->exch_ts[slot];
		out[nd].t_hook = t_hook;
		out[nd].flags |= (uint8_t)flags;
		in->covered = false;
		nd++;
	}
	return nd;
}

/*
 * A hole given up (no re-request server): from its first number @from on,
 * the books are unsafe.  @n: the messages of it.
 */
static inline void engine_books_unsafe(struct gw_engine *e, uint64_t from, uint64_t n)
{
	if (!e->unsafe_from)
		e->unsafe_from = from;
	e->gap.st.given_up++;
	e->gap.st.given_up_msgs += n;
}

/* Decode a packet of the session that is not to be held, and trade on it. */
static inline unsigned int engine_decode(struct gw_engine *e, const uint8_t *pkt,
					 size_t len, const struct mold_header *h,
					 uint64_t t_hook, uint64_t now,
					 struct gw_decision *out, unsigned int flags,
					 uint64_t t_due)
{
	/*
	 * Late: older than max_catchup since its loss was seen, or anything
	 * of a catch-up from 1 (joined late: those prints happened before the
	 * gateway existed, however recently their hole was noticed).
	 */
	bool late = (t_due && e->gap.cfg.max_catchup_ns && now > t_due &&
		     now - t_due > e->gap.cfg.max_catchup_ns) ||
		    (e->gap.catchup && gap_open(&e->gap));
	uint32_t n;

	/* A data packet beyond the next number here is a hole given up. */
	if (unlikely(h->seq > e->dec.next_seq) && h->count != MOLD_COUNT_HEARTBEAT &&
	    h->count != MOLD_COUNT_END && !e->gap.stale)
		engine_books_unsafe(e, e->dec.next_seq, h->seq - e->dec.next_seq);
	if (e->dec.stepped) {
		e->step.t_hook = t_hook;
		e->step.now = now;
		e->step.flags = flags;
		e->step.late = late;
	}
	n = feed_decode_at(&e->dec, pkt, len, h, t_hook);
	e->st.feed_packets++;
	gap_note_count(&e->gap, h->count);
	if (unlikely(e->dec.ended))
		e->ended = 1;
	if (unlikely(e->paper.cfg.on)) {
		/* Traded message by message (the decoder's steps); the rest at the end. */
		if (e->dec.ended)
			engine_paper_flush(e);
		return 0;
	}
	/* Traded and sent at each print already (engine_set_sink()). */
	if (e->dec.stepped)
		return 0;
	return engine_on_ticks(e, n, t_hook, now, flags, late, out);
}

/*
 * One feed datagram: classify it (session, sequence), hold it if messages
 * before it are missing, else decode it and run the strategies.  Fills
 * out[] with the orders to send and returns how many.  t_hook: the
 * packet's arrival stamp; now: the loop's clock (t_seen).  flags:
 * ORDER_F_RETRANS for the re-request server's packets.
 */
static inline unsigned int engine_on_feed(struct gw_engine *e,
					  const uint8_t *pkt, size_t len,
					  uint64_t t_hook, uint64_t now,
					  struct gw_decision *out,
					  unsigned int flags)
{
	struct feed_decoder *d = &e->dec;
	struct mold_header h;
	enum feed_verdict v = feed_classify(d, pkt, len, &h);
	uint64_t t_due = 0;

	if (v == FEED_V_DROP)
		return 0;
	if (unlikely(d->last.new_session)) {
		gap_reset(&e->gap);
		/* A new session starts from empty books (a pass over the tables). */
		if (e->book && e->book->peak)
			book_clear(e->book);
	}
	if (unlikely(flags & ORDER_F_RETRANS)) {
		e->gap.st.retrans_pkts++;
		t_due = gap_due(&e->gap);
	}
	if (v == FEED_V_AHEAD && !e->gap.stale) {
		/* Nobody to ask, and no other line to wait for: given up at once. */
		if (e->gap.cfg.no_recovery && !e->gap.cfg.line_wait_ns)
			return engine_decode(e, pkt, len, &h, t_hook, now, out, flags, t_due);
		gap_ahead(&e->gap, pkt, len, &h, d->next_seq, t_hook, now,
			  feed_established(d), flags & ORDER_F_RETRANS);
		return 0;
	}
	return engine_decode(e, pkt, len, &h, t_hook, now, out, flags, t_due);
}

/*
 * Decode the next held packet that can be decoded now (after a fill, or
 * once the session is stale), as a catch-up: false when there is none,
 * else its decisions are in dec[0 .. *nd).
 */
static inline bool engine_feed_held(struct gw_engine *e, uint64_t now,
				    struct gw_decision *dec, unsigned int *nd)
{
	struct mold_header h;
	const uint8_t *pkt;
	uint64_t t_hook;
	size_t len;

	if (!gap_pop(&e->gap, e->dec.next_seq, now, &pkt, &len, &t_hook)) {
		uint64_t lost = e->gap.high > e->dec.next_seq ? e->gap.high - e->dec.next_seq : 0;

		if (unlikely(gap_give_up_tail(&e->gap, e->dec.next_seq, now)))
			engine_books_unsafe(e, e->dec.next_seq, lost);
		gap_settle(&e->gap, e->dec.next_seq, now);
		return false;
	}
	/* Classified when held; a stale session decodes past its holes. */
	mold_parse_header(pkt, len, &h);
	*nd = engine_decode(e, pkt, len, &h, t_hook, now, dec, ORDER_F_CATCHUP, t_hook);
	return true;
}

/* The next re-request to send now (see gap_request()). */
static inline bool engine_gap_request(struct gw_engine *e, uint64_t now,
				      uint64_t *seq, uint16_t *count)
{
	return gap_request(&e->gap, e->dec.next_seq, now, seq, count);
}

/*
 * Write the Enter Order packet of decision d (from engine_decide()) into
 * buf and open its record (orders_build()).
 */
static inline uint64_t engine_build_order(struct gw_engine *e,
					  const struct gw_decision *d,
					  uint64_t t_seen, uint8_t *buf,
					  struct gw_order **rec)
{
	struct gw_inst *in = &e->inst[d->inst];

	in->orders++;
	in->restores += !!(d->flags & ORDER_F_RESTORE);
	e->st.restores += !!(d->flags & ORDER_F_RESTORE);
	e->st.on_reply += !!(d->flags & ORDER_F_ONREPLY);
	e->st.catchup_orders += !!(d->flags & ORDER_F_CATCHUP);
	return orders_build(&e->ord, in, d, t_seen, buf, rec);
}

#endif /* GATEWAY_ENGINE_HOT_H */
