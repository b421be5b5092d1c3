/* SPDX-License-Identifier: MIT */
/*
 * The orders: building each Enter Order from its instrument's template,
 * the order log (every order and its timestamps, preallocated), the shares
 * in open orders per instrument, and the exchange's replies.
 *
 * Reply policy.  Replies travel over UDP and can be lost; a lost Executed
 * would leave our position apart from the exchange's.  A numbered reply
 * ('s', proto/ouch.h) tells where it stands in our reply stream: a number
 * beyond the next expected one shows a hole, which is asked for again at
 * once ('r') and then every retry interval until it is filled; an order
 * open longer than the probe time asks for whatever follows the last reply
 * seen (the lost reply may be the last one).  While a hole is open no order
 * times out: any open order may be the one it concerns.  Duplicates (a
 * number already seen) are ignored.
 *
 * Timeout policy.  An order with no final reply after the timeout is
 * reported as timed out and never resent (an IOC resent blindly could fill
 * twice).  Its shares stay in the open exposure: the exchange may have
 * filled it, and until a reply says otherwise the limits and the sizing
 * count it as possibly filled.
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
	uint64_t retry_ns;	/* a reply hole is asked for again after this */
	uint64_t probe_ns;	/* an order open this long: ask what follows */
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
	uint8_t inst;
	char side;		/* 'B' or 'S' */
	uint8_t state;		/* enum order_outcome */
	uint8_t flags;		/* ORDER_F_* */
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

/* Replies seen beyond the next expected number, as bits. */
#define REPLY_WINDOW	4096

struct reply_stream {
	uint64_t next;		/* next expected reply number */
	uint64_t high;		/* one past the highest seen */
	uint64_t seen[REPLY_WINDOW / 64];	/* [next, next + REPLY_WINDOW) */
	uint64_t last_ask_ns;
	bool numbered;		/* the exchange numbers its replies */
};

struct orders_stats {
	uint64_t orders;
	uint64_t failed;		/* no TX frame / ring full / send error */
	uint64_t replies;
	uint64_t accepted, fills, cancels, rejects;
	uint64_t bad_replies;		/* undecodable reply datagrams */
	uint64_t unknown_token;		/* reply for no order we know */
	uint64_t timeouts;		/* orders with no final reply in time */
	uint64_t late_replies;		/* replies to orders already timed out */
	uint64_t dup_replies;		/* seen before (number or final state) */
	uint64_t overfills;		/* executed more than the order had left */
	uint64_t reply_holes;		/* replies found missing */
	uint64_t reply_recovered;	/* ... and received after all */
	uint64_t reply_lost;		/* beyond the window: never to be matched */
	uint64_t resend_requests;
	uint64_t unnumbered;		/* plain 'S' replies */
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
	struct reply_stream rs;
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
 * Write the Enter Order datagram of decision d (reserved) into buf (room for
 * OUCH_ENTER_DGRAM_LEN bytes, at an even offset of the UDP payload) from the
 * instrument's template, and open its record.  Returns the datagram's one's
 * complement sum (for frame_finish_sum); *rec gets the record so the path
 * can stamp t_queued / t_sent.
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
	r->inst = d->inst;
	r->side = d->side;
	r->state = ORDER_SENT;
	r->flags = d->flags;
	o->st.orders++;
	*rec = r;
	return ouch_order_tmpl_write(&in->tmpl, buf, d->md_seq, no, d->side, d->shares,
				     in->symbol, d->limit);
}

/* A built order that could not be sent after all (no TX frame, send error). */
void orders_failed(struct orders *o, struct gw_order *r);

/*
 * Account one reply datagram.  Returns the type of the reply applied to
 * *order ('A', 'E', 'C', 'J'), or 0 when none was (bad, duplicate, unknown
 * order).  For 'E' the fill is the instrument's to book: *shares at
 * (*order)->fill_price.  An order may be executed in parts (an Executed
 * per part, then a Canceled for what was left): it stays open until its
 * shares are all executed or the rest canceled.
 */
char orders_on_reply(struct orders *o, const uint8_t *pkt, size_t len,
		     struct gw_order **order, uint32_t *shares);

/* Orders without a final reply past the timeout (loop's idle moments). */
void orders_expire(struct orders *o, uint64_t now);

/*
 * A resend request due now: replies [*first, *first + *count).  For a hole
 * in the numbered replies, or an order open past the probe time.
 */
bool orders_resend_due(struct orders *o, uint64_t now, uint64_t *first,
		       uint16_t *count);

/* Replies known to be missing. */
static inline bool orders_reply_hole(const struct orders *o)
{
	return o->rs.next < o->rs.high;
}

#endif /* GATEWAY_ORDERS_H */
