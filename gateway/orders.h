/* SPDX-License-Identifier: MIT */
/*
 * The orders: building each Enter Order from its instrument's template,
 * the order log (every order and its timestamps, preallocated), the shares
 * in open orders per instrument, and the exchange's replies.
 *
 * Replies come as the sequenced messages of the SoupBinTCP session
 * (net/order_conn.h), each exactly once across reconnections: nothing here
 * numbers them.  An order that saw a second final reply, or more executed
 * than it had, is counted and changes nothing.
 *
 * Orders in doubt.  An order that had no reply at all when its connection
 * was lost may never have reached the exchange.  After the next login the
 * session's replay brings every reply the exchange made while we were
 * away; resend_after later, each order still without any reply is sent
 * again with its own token (OUCH ignores an Enter Order whose token it has
 * seen, so the exchange takes each order at most once, and its replies, old
 * or new, arrive in the same sequenced stream).  Until then its shares stay
 * in the open exposure.
 *
 * Timeout policy.  An order with no final reply after the timeout is
 * reported as timed out; its shares stay in the open exposure (the exchange
 * may have filled it) until a reply says what became of it.
 */
#ifndef GATEWAY_ORDERS_H
#define GATEWAY_ORDERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gateway/inst.h"
#include "latency/order_rec.h"
#include "proto/ouch.h"

#define GW_MAX_INST	16

struct orders_cfg {
	uint32_t log_size;	/* order records kept (power of two) */
	uint32_t limit_bp;	/* IOC limit: trigger price +- this many bp */
	char firm[5];
	uint64_t timeout_ns;	/* no final reply after this: timed out */
	uint64_t resend_after_ns; /* after a login: orders in doubt go again */
};

/*
 * One order in the log.  Its outcome, flags and timestamps are the shared
 * order record's (latency/order_rec.h); t.t_send stays 0 here: the feed's
 * timestamp is kept as it came (t_exch) and widened when reported.
 */
struct gw_order {
	uint64_t md_seq;	/* triggering market-data message */
	uint64_t t_exch;	/* the feed's timestamp of it (48 bits) */
	struct order_times t;
	uint32_t order_no;
	uint32_t price;		/* limit */
	uint32_t shares;
	uint32_t fill_price;
	uint32_t filled;	/* shares executed */
	uint64_t cash;		/* sum of shares x price executed */
	uint16_t conn;		/* the session's connection it last left on */
	uint8_t inst;
	char side;		/* 'B' or 'S' */
	uint8_t state;		/* enum order_outcome */
	uint8_t flags;		/* ORDER_F_* */
	bool answered;		/* a reply came for it */
};

/* An order decided in the hot path, not yet built. */
struct gw_decision {
	uint64_t md_seq;
	uint64_t t_exch48;
	uint64_t t_hook;
	uint32_t shares;
	uint32_t limit;
	uint8_t inst;
	char side;
	uint8_t flags;
};

struct orders_stats {
	uint64_t orders;
	uint64_t failed;		/* no TX frame / not taken by the session */
	uint64_t replies;
	uint64_t accepted, cancels, rejects;
	uint64_t fills;			/* executions: an Executed each (an IOC may have several) */
	uint64_t filled;		/* orders with at least one execution, whole or in part */
	uint64_t rejects_by[128];	/* by the Rejected's reason (ASCII; others in [0]) */
	uint64_t bad_replies;		/* undecodable reply messages */
	uint64_t unknown_token;		/* reply for no order we know */
	uint64_t timeouts;		/* orders with no final reply in time */
	uint64_t late_replies;		/* replies to orders already timed out */
	uint64_t dup_replies;		/* a second final reply */
	uint64_t overfills;		/* executed more than the order had left */
	uint64_t replayed;		/* replies to orders sent on an earlier connection */
	uint64_t in_doubt;		/* orders without a reply when a connection went */
	uint64_t resent;		/* ... sent again after the next login */
};

struct orders {
	struct orders_cfg cfg;
	struct gw_order *log;
	uint32_t mask;
	uint32_t next;			/* orders sent so far */
	uint32_t oldest_live;		/* no order before it may still time out */
	uint32_t open;			/* orders without a final reply */
	int64_t open_buy[GW_MAX_INST];	/* shares in them, per instrument */
	int64_t open_sell[GW_MAX_INST];
	volatile bool up;		/* the session takes orders */
	uint16_t conn;			/* the session's connection number */
	uint64_t resend_at;		/* orders in doubt go again then; 0: none */
	uint32_t unanswered_from;	/* every order before it had a reply or failed */
	uint32_t resend_cursor;		/* the next order to look at */
	struct orders_stats st;
};

int orders_init(struct orders *o, const struct orders_cfg *cfg, char *err,
		size_t errlen);
void orders_destroy(struct orders *o);

/* The IOC limit for a trigger price: through it by limit_bp. */
static inline uint32_t orders_limit(const struct orders *o, uint32_t px, char side)
{
	uint64_t off = (uint64_t)px * o->cfg.limit_bp / 10000;

	if (side == 'B')
		return px + off > UINT32_MAX ? UINT32_MAX : (uint32_t)(px + off);
	return off >= px ? 1 : (uint32_t)(px - off);
}

static inline bool orders_is_open(const struct gw_order *r)
{
	return r->state == ORDER_SENT || r->state == ORDER_ACCEPTED ||
	       r->state == ORDER_TIMED_OUT;
}

/*
 * A decided order counts as open from the moment it is decided, so that a
 * second tick of the same packet sees it before it is built.
 */
static inline void orders_reserve(struct orders *o, const struct gw_decision *d)
{
	if (d->side == 'B')
		o->open_buy[d->inst] += d->shares;
	else
		o->open_sell[d->inst] += d->shares;
	o->open++;
}

/* A decision that was never built (no TX frame): counted, released. */
static inline void orders_unreserve(struct orders *o, const struct gw_decision *d)
{
	if (d->side == 'B')
		o->open_buy[d->inst] -= d->shares;
	else
		o->open_sell[d->inst] -= d->shares;
	o->open--;
	o->st.failed++;
}

/*
 * Write the Enter Order packet of decision d (reserved) into buf (room for
 * OUCH_ENTER_PKT_LEN bytes, at an even offset of the TCP payload) from the
 * instrument's template, and open its record.  Returns the packet's one's
 * complement sum (for the frame's checksum); *rec gets the record so the
 * path can stamp t_queued / t_sent.
 */
static inline uint64_t orders_build(struct orders *o, const struct gw_inst *in,
				    const struct gw_decision *d, uint64_t t_seen,
				    uint8_t *buf, struct gw_order **rec)
{
	uint32_t no = o->next++;
	struct gw_order *r = &o->log[no & o->mask];

	r->md_seq = d->md_seq;
	r->t_exch = d->t_exch48;
	r->t.t_hook = d->t_hook;
	r->t.t_seen = t_seen;
	r->t.t_decided = r->t.t_queued = r->t.t_sent = r->t.t_ack = 0;
	r->order_no = no;
	r->price = d->limit;
	r->shares = d->shares;
	r->fill_price = r->filled = 0;
	r->cash = 0;
	r->conn = o->conn;
	r->inst = d->inst;
	r->side = d->side;
	r->state = ORDER_SENT;
	r->flags = d->flags;
	r->answered = false;
	o->st.orders++;
	*rec = r;
	return ouch_order_tmpl_write(&in->tmpl, buf, d->md_seq, no, d->side, d->shares,
				     in->symbol, d->limit);
}

/* The same order's packet again (same token), to send it once more. */
static inline uint64_t orders_rebuild(const struct gw_inst *in, const struct gw_order *r,
				      uint8_t *buf)
{
	return ouch_order_tmpl_write(&in->tmpl, buf, r->md_seq, r->order_no, r->side, r->shares,
				     in->symbol, r->price);
}

/* A built order that could not be sent after all (no TX frame, send error). */
void orders_failed(struct orders *o, struct gw_order *r);

/*
 * Account one reply message (the payload of a Sequenced Data packet).
 * Returns the type of the reply applied to *order ('A', 'E', 'C', 'J'), or
 * 0 when none was (bad, duplicate, unknown order).  For 'E' the fill is the
 * instrument's to book: *shares at (*order)->fill_price.  An order may be
 * executed in parts (an Executed per part, then a Canceled for what was
 * left): it stays open until its shares are all executed or the rest
 * canceled.
 */
char orders_on_reply(struct orders *o, const uint8_t *msg, size_t len,
		     struct gw_order **order, uint32_t *shares);

/*
 * A paper order's outcome (paper.h), booked as a live exchange's replies
 * would have been: @filled shares in @execs executions worth @cash (sum of
 * shares x price), the rest canceled.
 */
void orders_paper_result(struct orders *o, struct gw_order *r, uint32_t filled,
			 uint64_t cash, uint32_t execs);

/* Orders without a final reply past the timeout (loop's idle moments). */
void orders_expire(struct orders *o, uint64_t now);

/* The session took a login: orders leave again; those in doubt, later. */
void orders_session_up(struct orders *o, uint64_t now);
/* The connection went: no order leaves; those unanswered are in doubt. */
void orders_session_down(struct orders *o);

/*
 * The next order in doubt to send again now, if any (marked as sent on
 * the current connection).  Idle turns, after orders_session_up().
 */
struct gw_order *orders_resend_next(struct orders *o, uint64_t now);

#endif /* GATEWAY_ORDERS_H */
