// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "gateway/orders.h"

int orders_init(struct orders *o, const struct orders_cfg *cfg, char *err,
		size_t errlen)
{
	size_t len;

	memset(o, 0, sizeof(*o));
	if (!cfg->log_size || (cfg->log_size & (cfg->log_size - 1))) {
		snprintf(err, errlen, "order log size must be a power of two");
		return -EINVAL;
	}
	o->cfg = *cfg;
	/* Written on the hot path: populated and touched now. */
	len = (size_t)cfg->log_size * sizeof(*o->log);
	o->log = mmap(NULL, len, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (o->log == MAP_FAILED) {
		o->log = NULL;
		snprintf(err, errlen, "order log: %s", strerror(errno));
		return -ENOMEM;
	}
	memset(o->log, 0, len);
	o->mask = cfg->log_size - 1;
	o->rs.next = o->rs.high = 1;
	return 0;
}

void orders_destroy(struct orders *o)
{
	if (o->log)
		munmap(o->log, (size_t)(o->mask + 1) * sizeof(*o->log));
	o->log = NULL;
}

/* @n of the order's shares are no longer in flight (executed or canceled). */
static void release(struct orders *o, const struct gw_order *r, uint32_t n)
{
	if (r->side == 'B')
		o->open_buy[r->inst] -= n;
	else
		o->open_sell[r->inst] -= n;
}

/* The order no longer awaits anything: release what it still held. */
static void close_order(struct orders *o, struct gw_order *r)
{
	release(o, r, r->shares - r->filled);
	o->open--;
}

void orders_failed(struct orders *o, struct gw_order *r)
{
	if (orders_is_open(r))
		close_order(o, r);
	r->state = ORDER_SEND_FAILED;
	o->st.failed++;
}

void orders_expire(struct orders *o, uint64_t now)
{
	/* Any open order may be the one a missing reply concerns. */
	if (o->rs.next < o->rs.high)
		return;
	while (o->oldest_live != o->next) {
		struct gw_order *r = &o->log[o->oldest_live & o->mask];

		if (r->order_no == o->oldest_live &&
		    (r->state == ORDER_SENT || r->state == ORDER_ACCEPTED)) {
			/* now may be the batch's t_seen, older than t_sent */
			if (!o->cfg.timeout_ns || !r->t.t_sent || now < r->t.t_sent ||
			    now - r->t.t_sent < o->cfg.timeout_ns)
				return;
			r->state = ORDER_TIMED_OUT;
			o->st.timeouts++;
		}
		o->oldest_live++;
	}
}

bool orders_resend_due(struct orders *o, uint64_t now, uint64_t *first,
		       uint16_t *count)
{
	struct reply_stream *rs = &o->rs;
	const struct gw_order *r;
	uint64_t n;

	if (!rs->numbered || (rs->last_ask_ns && now - rs->last_ask_ns < o->cfg.retry_ns))
		return false;
	if (rs->next < rs->high) {
		/* The hole: up to the first reply seen beyond it. */
		for (n = 1; rs->next + n < rs->high; n++)
			if (rs->seen[(rs->next + n) / 64 % (REPLY_WINDOW / 64)] &
			    (1ull << ((rs->next + n) % 64)))
				break;
	} else {
		/* The last reply may be the lost one: ask what follows it. */
		r = &o->log[o->oldest_live & o->mask];
		if (o->oldest_live == o->next || !orders_is_open(r) || !r->t.t_sent ||
		    now < r->t.t_sent || now - r->t.t_sent < o->cfg.probe_ns)
			return false;
		n = 64;
	}
	*first = rs->next;
	*count = (uint16_t)(n > OUCH_RESEND_MAX ? OUCH_RESEND_MAX : n);
	rs->last_ask_ns = now;
	o->st.resend_requests++;
	return true;
}

static bool seen_bit(const struct reply_stream *rs, uint64_t no)
{
	return rs->seen[no / 64 % (REPLY_WINDOW / 64)] & (1ull << (no % 64));
}

static void set_bit(struct reply_stream *rs, uint64_t no, bool on)
{
	uint64_t *w = &rs->seen[no / 64 % (REPLY_WINDOW / 64)];

	if (on)
		*w |= 1ull << (no % 64);
	else
		*w &= ~(1ull << (no % 64));
}

/*
 * Place a numbered reply in the stream; false if it was seen before (a
 * duplicate, or a resend of one that did arrive).
 */
static bool reply_number(struct orders *o, uint64_t no)
{
	struct reply_stream *rs = &o->rs;

	rs->numbered = true;
	if (no < rs->next || (no < rs->high && seen_bit(rs, no)))
		return false;
	if (no > rs->next && no >= rs->high) {
		o->st.reply_holes += no - rs->high;
		rs->last_ask_ns = 0;	/* ask at once */
	} else if (no < rs->high) {
		o->st.reply_recovered++;
	}
	/* A number beyond the window: what falls out of it is lost for good. */
	while (no >= rs->next + REPLY_WINDOW) {
		if (!seen_bit(rs, rs->next))
			o->st.reply_lost++;
		set_bit(rs, rs->next, false);
		rs->next++;
	}
	if (no + 1 > rs->high)
		rs->high = no + 1;
	set_bit(rs, no, true);
	while (rs->next < rs->high && seen_bit(rs, rs->next)) {
		set_bit(rs, rs->next, false);
		rs->next++;
	}
	return true;
}

/* The order a reply's token names, if it is still in the log. */
static struct gw_order *find_order(struct orders *o, const char *token)
{
	struct gw_order *r;
	uint64_t md_seq;
	uint32_t no;

	if (order_token_decode(token, &md_seq, &no))
		return NULL;
	r = &o->log[no & o->mask];
	if (no >= o->next || r->order_no != no ||
	    (r->md_seq & ORDER_TOKEN_SEQ_MASK) != md_seq)
		return NULL;
	return r;
}

static bool is_final(const struct gw_order *r)
{
	return r->state == ORDER_FILLED || r->state == ORDER_CANCELED ||
	       r->state == ORDER_REJECTED;
}

/*
 * The order a reply is about; NULL (counted) when the reply changes
 * nothing: seen before, for no order in the log, or a second final one.
 */
static inline struct gw_order *reply_order(struct orders *o, const struct ouch_reply *rep)
{
	struct gw_order *r;

	if (rep->number) {
		if (!reply_number(o, rep->number)) {
			o->st.dup_replies++;
			return NULL;
		}
	} else {
		o->st.unnumbered++;
	}
	r = find_order(o, rep->token);
	if (!r) {
		o->st.unknown_token++;
		return NULL;
	}
	/*
	 * An order is filled or canceled once (IOC, full fills): a second
	 * final reply is a duplicate datagram, not a second fill.
	 */
	if (is_final(r) && rep->type != 'A') {
		o->st.dup_replies++;
		return NULL;
	}
	if (r->state == ORDER_TIMED_OUT)
		o->st.late_replies++;
	return r;
}

/* An IOC may fill in parts, one Executed per part. */
static inline void on_executed(struct orders *o, struct gw_order *r,
			       const struct ouch_executed *ex)
{
	uint32_t left = r->shares - r->filled;
	uint32_t n = ex->shares < left ? ex->shares : left;

	o->st.fills++;
	if (ex->shares > left)
		o->st.overfills++;
	if (orders_is_open(r))
		release(o, r, n);
	r->filled += n;
	r->fill_price = ex->price;
	if (r->filled == r->shares) {
		if (orders_is_open(r))
			o->open--;
		r->state = ORDER_FILLED;
	} else if (r->state == ORDER_SENT) {
		r->state = ORDER_ACCEPTED;
	}
}

char orders_on_reply(struct orders *o, const uint8_t *pkt, size_t len,
		     struct gw_order **order, uint32_t *shares)
{
	struct ouch_reply rep;
	struct gw_order *r;

	o->st.replies++;
	if (ouch_decode_reply(pkt, len, &rep) < 0) {
		o->st.bad_replies++;
		return 0;
	}
	r = reply_order(o, &rep);
	if (!r)
		return 0;
	/*
	 * On the rig the exchange puts its CLOCK_MONOTONIC arrival time of the
	 * order in the Timestamp of its first reply (Accepted or Rejected), the
	 * way ITCH timestamps carry the send time: the order's t_ack.
	 */
	if (!r->t.t_ack && (rep.type == 'A' || rep.type == 'J'))
		r->t.t_ack = rep.timestamp;
	*order = r;
	*shares = 0;
	switch (rep.type) {
	case 'A':
		o->st.accepted++;
		if (r->state == ORDER_SENT)
			r->state = ORDER_ACCEPTED;
		break;
	case 'E':
		on_executed(o, r, &rep.executed);
		*shares = rep.executed.shares;
		break;
	case 'C':
		o->st.cancels++;
		if (orders_is_open(r))
			close_order(o, r);
		/* What was executed before the cancel stays executed. */
		r->state = r->filled ? ORDER_FILLED : ORDER_CANCELED;
		break;
	case 'J':
		o->st.rejects++;
		if (orders_is_open(r))
			close_order(o, r);
		r->state = ORDER_REJECTED;
		break;
	}
	return rep.type;
}
