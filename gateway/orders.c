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

/* An order that is still waiting for its first reply. */
static bool unanswered(const struct gw_order *r)
{
	return orders_is_open(r) && !r->answered;
}

/*
 * The first order that may be unanswered: everything before it has had a
 * reply, failed, or fell out of the log.
 */
static uint32_t first_unanswered(struct orders *o)
{
	uint32_t no = o->next - o->unanswered_from > o->mask + 1 ? o->next - (o->mask + 1) :
								   o->unanswered_from;

	while (no != o->next && !unanswered(&o->log[no & o->mask]))
		no++;
	o->unanswered_from = no;
	return no;
}

void orders_session_up(struct orders *o, uint64_t now)
{
	o->conn++;
	o->resend_cursor = first_unanswered(o);
	o->resend_at = o->resend_cursor != o->next ? now + o->cfg.resend_after_ns : 0;
	o->up = true;
}

void orders_session_down(struct orders *o)
{
	o->up = false;
	o->resend_at = 0;
	for (uint32_t no = first_unanswered(o); no != o->next; no++) {
		const struct gw_order *r = &o->log[no & o->mask];

		if (unanswered(r) && r->conn == o->conn)
			o->st.in_doubt++;
	}
}

struct gw_order *orders_resend_next(struct orders *o, uint64_t now)
{
	if (!o->resend_at || now < o->resend_at || !o->up)
		return NULL;
	for (; o->resend_cursor != o->next; o->resend_cursor++) {
		struct gw_order *r = &o->log[o->resend_cursor & o->mask];

		if (!unanswered(r))
			continue;
		/* Sent on this connection: so is everything after it. */
		if (r->conn == o->conn)
			break;
		r->conn = o->conn;
		r->flags |= ORDER_F_RESENT;
		o->st.resent++;
		o->resend_cursor++;
		return r;
	}
	o->resend_at = 0;
	return NULL;
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
 * nothing: for no order in the log, or a second final one.
 */
static inline struct gw_order *reply_order(struct orders *o, const struct ouch_reply *rep)
{
	struct gw_order *r = find_order(o, rep->token);

	if (!r) {
		o->st.unknown_token++;
		return NULL;
	}
	/* An IOC is filled or canceled once: a second final reply changes nothing. */
	if (is_final(r) && rep->type != 'A') {
		o->st.dup_replies++;
		return NULL;
	}
	if (r->state == ORDER_TIMED_OUT)
		o->st.late_replies++;
	if (r->conn != o->conn)
		o->st.replayed++;
	r->answered = true;
	return r;
}

/* An IOC may fill in parts, one Executed per part. */
static inline void on_executed(struct orders *o, struct gw_order *r,
			       const struct ouch_executed *ex)
{
	uint32_t left = r->shares - r->filled;
	uint32_t n = ex->shares < left ? ex->shares : left;

	o->st.fills++;
	o->st.filled += !r->filled && n;
	if (ex->shares > left)
		o->st.overfills++;
	if (orders_is_open(r))
		release(o, r, n);
	r->filled += n;
	r->cash += (uint64_t)n * ex->price;
	r->fill_price = ex->price;
	if (r->filled == r->shares) {
		if (orders_is_open(r))
			o->open--;
		r->state = ORDER_FILLED;
	} else if (r->state == ORDER_SENT) {
		r->state = ORDER_ACCEPTED;
	}
}

char orders_on_reply(struct orders *o, const uint8_t *msg, size_t len,
		     struct gw_order **order, uint32_t *shares)
{
	struct ouch_reply rep;
	struct gw_order *r;

	o->st.replies++;
	if (ouch_decode_reply(msg, len, &rep) < 0) {
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
		o->st.rejects_by[(unsigned char)rep.rejected.reason < 128 ?
				 (unsigned char)rep.rejected.reason : 0]++;
		if (orders_is_open(r))
			close_order(o, r);
		r->state = ORDER_REJECTED;
		break;
	}
	return rep.type;
}

void orders_paper_result(struct orders *o, struct gw_order *r, uint32_t filled,
			 uint64_t cash, uint32_t execs)
{
	/* What a live exchange would have answered: Accepted, an Executed per level, Canceled. */
	o->st.replies += 1 + execs + (filled < r->shares);
	o->st.accepted++;
	o->st.fills += execs;
	o->st.filled += filled > 0;
	o->st.cancels += filled < r->shares;
	r->answered = true;
	if (orders_is_open(r))
		close_order(o, r);
	r->filled = filled;
	r->cash = cash;
	/* One price for the event a monitor shows; the cash is the exact sum. */
	r->fill_price = filled ? (uint32_t)(cash / filled) : 0;
	r->state = filled ? ORDER_FILLED : ORDER_CANCELED;
}
