/* SPDX-License-Identifier: MIT */
/*
 * The gateway's pipeline, shared by the AF_XDP path and the kernel-UDP
 * fallback: decode a feed datagram into the SoA tick ring, run the
 * incremental strategy of every configured instrument on its ticks, turn
 * the distance between each instrument's target and its exposure into an
 * OUCH Enter Order, and account the exchange's replies.  The paths differ
 * only in how bytes arrive and leave.
 *
 * The engine composes parts that each own their configuration and state:
 * the decoder (book/feed_decoder.h: session and sequence), the
 * instruments (inst.h), pre-trade risk (risk.h), the orders and replies
 * (orders.h), gap recovery (gap.h) and, with no order port, the paper
 * orders (paper.h).
 *
 * Live runs with a sink (engine_set_sink()) decide at each print, inside
 * the packet's walk, and hand the order to the path at once.
 *
 * Paper runs (docs/paper.md) trade message by message: the decoder calls
 * the engine after each print and before each message that makes a paper
 * order due (feed_decoder.h's steps), so that fills and strategy changes
 * fall between the messages of a packet exactly as in the backtester, which
 * runs this engine on one message per packet; every rule with a clock
 * reads the feed's (its ITCH timestamps) instead of the host's.
 *
 * Books unsafe.  With no re-request server, a hole in the sequence (given
 * up after line_wait for the other line) may have touched any book: from
 * its first missing number on, no instrument trades (the strategy still
 * follows the prints; each change is listed untraded, reason "book") and
 * the run goes on for the counters.
 *
 * Everything here is allocated and prefaulted by engine_init(); the inline
 * per-packet functions allocate nothing, take no locks and make no syscalls.
 */
#ifndef GATEWAY_ENGINE_H
#define GATEWAY_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "book/book.h"
#include "gateway/gap.h"
#include "gateway/inst.h"
#include "gateway/orders.h"
#include "gateway/paper.h"
#include "gateway/risk.h"
#include "book/feed_decoder.h"
#include "strategy/inst_spec.h"
#include "util/compiler.h"


#define GW_MAX_DECISIONS 64	/* orders one feed packet can trigger */

/* locate_inst[] values besides an instrument's index + 1. */
#define GW_LOCATE_UNKNOWN 0	/* no stock directory entry */
#define GW_LOCATE_OTHER	0xFF	/* a listed symbol we do not trade */

/* Whose books the gateway keeps. */
enum gw_books { GW_BOOKS_OURS, GW_BOOKS_ALL, GW_BOOKS_OFF };

struct gw_cfg {
	struct inst_spec inst[GW_MAX_INST];
	unsigned int n_inst;
	uint32_t tick_ring;	/* tick ring capacity (power of two) */
	const char *session;	/* pinned feed session id, or NULL */
	int books;		/* enum gw_books */
	struct book_config book;
	struct risk_cfg risk;
	struct orders_cfg orders;
	struct gap_cfg gap;
	struct paper_cfg paper;
};

/*
 * Why a strategy change did not become an order at its tick.  Whatever the
 * reason, the instrument's next tick trades toward the target again.
 */
enum gw_untraded_why {
	UNTRADED_LATE,		/* the tick came too late (gap.h) */
	UNTRADED_COVERED,	/* position and orders in flight already make the target */
	UNTRADED_RISK,		/* refused by a limit (counted in risk.refused) */
	UNTRADED_OVERFLOW,	/* more than GW_MAX_DECISIONS in one packet */
	UNTRADED_SESSION,	/* the order session was not logged in */
	UNTRADED_BOOK,		/* the books are unsafe: a hole was given up */
	UNTRADED_NR,
};

/*
 * Their names, beside the enum so that the counter table
 * (gateway/counters.h) can name "untraded_late" and the others from them
 * at compile time; untraded_names[] is made from the same list.
 */
#define UNTRADED_NAMES(X) \
	X(UNTRADED_LATE, "late") \
	X(UNTRADED_COVERED, "covered") \
	X(UNTRADED_RISK, "risk") \
	X(UNTRADED_OVERFLOW, "overflow") \
	X(UNTRADED_SESSION, "session") \
	X(UNTRADED_BOOK, "book")

extern const char *const untraded_names[UNTRADED_NR];

struct gw_untraded {
	uint64_t md_seq;
	int64_t shares;		/* the strategy's change, > 0 buy */
	uint8_t inst;
	uint8_t why;		/* enum gw_untraded_why */
};

struct gw_stats {
	uint64_t feed_packets;		/* decoded (not dropped, not held) */
	uint64_t ticks;			/* trade prints decoded */
	uint64_t ticks_ours;		/* ... of a configured instrument, valid price */
	uint64_t unknown_locate;	/* prints for a locate the directory never named */
	uint64_t bad_price;		/* prints of ours with price 0: not ticks */
	uint64_t other_packets;		/* steered but neither feed nor reply */
	uint64_t bad_frames;		/* unparseable frames (AF_XDP path) */
	uint64_t bad_checksum;		/* IPv4 or UDP checksum wrong (AF_XDP path) */
	uint64_t spoofed;		/* feed packets from another source: dropped */
	uint64_t ticks_stale;		/* ticks of a stale session: not traded */
	uint64_t catchup_orders;	/* orders from ticks decoded late */
	uint64_t untraded;		/* strategy changes not traded at their tick */
	uint64_t untraded_by[UNTRADED_NR];
	uint64_t restores;		/* orders with no strategy change at their tick */
	uint64_t on_reply;		/* ... of them, made up when a reply ended one */
};

/*
 * Where a live run's orders go at their print (engine_set_sink()): the
 * path's sender, with the loop's clock @t_seen.
 */
typedef void (*gw_sink_fn)(void *ctx, const struct gw_decision *d, unsigned int n,
			   uint64_t t_seen);

struct gw_engine {
	struct feed_decoder dec;
	struct book *book;		/* NULL: no books kept (P prints only) */
	struct gw_stats st;
	uint8_t locate_inst[65536];	/* index + 1, or GW_LOCATE_* */
	struct gw_inst inst[GW_MAX_INST];
	unsigned int n_inst;
	struct risk risk;
	struct orders ord;
	struct gw_gap gap;
	volatile int ended;		/* end of session decoded */
	struct gw_untraded *untraded;	/* as many as the order log keeps */
	struct gw_paper paper;
	gw_sink_fn sink;		/* NULL: orders returned after the packet */
	void *sink_ctx;
	/* the packet a stepped run is walking through (engine_decode()) */
	struct {
		uint64_t t_hook, now;
		unsigned int flags;
		bool late;
	} step;
	uint64_t unsafe_from;		/* books unsafe from this number; 0: safe */
	struct book book_mem;
};

/* The gateway's defaults: make demo's book (AAPL:20 MSFT:32 NVDA:48), limits. */
void gw_cfg_defaults(struct gw_cfg *c);
int engine_init(struct gw_engine *e, const struct gw_cfg *cfg,
		char *err, size_t errlen);
void engine_destroy(struct gw_engine *e);

/*
 * Live runs: decide at each print and hand its orders to @sink at once,
 * inside the packet's walk, instead of returning them after the packet:
 * a print's order does not wait for the messages behind it, and it is
 * decided on the books as they stand at the print, as the backtester
 * (one message per packet) decides it.  engine_on_feed() and
 * engine_feed_held() then return no decisions.  Not for paper runs,
 * which step through the packet already (-EINVAL).
 */
int engine_set_sink(struct gw_engine *e, gw_sink_fn sink, void *ctx);

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
		int chg, ret;

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
		if (unlikely(late)) {
			if (chg)
				engine_untraded(e, k - 1, chg, r->seq[slot], UNTRADED_LATE);
			continue;
		}
		if (unlikely(e->unsafe_from)) {
			if (chg)
				engine_untraded(e, k - 1, chg, r->seq[slot], UNTRADED_BOOK);
			continue;
		}
		if (unlikely(!e->ord.up)) {
			if (chg)
				engine_untraded(e, k - 1, chg, r->seq[slot], UNTRADED_SESSION);
			continue;
		}
		if (unlikely(nd == GW_MAX_DECISIONS)) {
			if (chg)
				engine_untraded(e, k - 1, chg, r->seq[slot], UNTRADED_OVERFLOW);
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

/*
 * A paper run's orders still waiting: decided now, against the books as
 * they stand (the end of the session, or of the run).
 */
void engine_paper_flush(struct gw_engine *e);

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
 * Held packets decoded per call of a path's drain: a long catch-up must not
 * starve the receive side (its overflow would open new holes); the loop
 * comes back for the rest.
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

/*
 * One reply of the order session (an OUCH message).  When it ends an order
 * of an instrument whose strategy change was left covered by it and the
 * exposure no longer makes the target, the make-up order is decided now,
 * at that change's print: a reversal signaled while the previous order was
 * in flight trades within one round trip.  Returns the decisions in
 * out[] (0 or 1), their t_hook @t_hook (the reply's arrival).
 */
unsigned int engine_on_reply(struct gw_engine *e, const uint8_t *msg, size_t len,
			     uint64_t t_hook, uint64_t now, struct gw_decision *out);

/* Marked-to-market PnL of all instruments, in Price(4) units. */
int64_t engine_pnl(const struct gw_engine *e);

#endif /* GATEWAY_ENGINE_H */
