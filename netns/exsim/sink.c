// SPDX-License-Identifier: MIT
/* Order sink: OUCH Enter Orders in, paper-fill replies out, wire-to-wire. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "util/clock.h"
#include "netns/exsim/sink.h"
#include "proto/ouch.h"

/* Enough to read a token: message type, 14 token bytes. */
#define SINK_TOKEN_END	(OUCH_O_OFF_TOKEN + ORDER_TOKEN_LEN)

/* One reply: the account's next sequenced message, kept for replays. */
static void reply(struct sink *s, unsigned int user, struct ouch_reply *r)
{
	uint8_t *slot = soup_srv_slot(&s->srv, user);
	int len;

	/* The Timestamp in the feed's clock: time of day, or the rig's monotonic. */
	if (!s->stamp_mono)
		r->timestamp = tod_from_mono(r->timestamp, s->rt_offset);
	len = ouch_encode_reply(slot, SOUP_STORE_SLOT, r);
	if (len <= 0) {
		s->st.reply_errors++;
		return;
	}
	soup_srv_commit(&s->srv, user);
	s->st.replies++;
}

static void reply_rejected(struct sink *s, unsigned int user, const char *token, char reason,
			   uint64_t now)
{
	struct ouch_reply r = { .type = 'J', .timestamp = now };

	memcpy(r.token, token, ORDER_TOKEN_LEN);
	r.rejected.reason = reason;
	reply(s, user, &r);
}

static void reply_accepted(struct sink *s, unsigned int user, const struct ouch_enter_order *o,
			   uint64_t now)
{
	struct ouch_reply r = { .type = 'A', .timestamp = now };
	struct ouch_accepted *a = &r.accepted;

	memcpy(r.token, o->token, ORDER_TOKEN_LEN);
	a->side = o->side;
	a->shares = o->shares;
	memcpy(a->stock, o->stock, sizeof(a->stock));
	a->price = o->price;
	a->tif = o->tif;
	memcpy(a->firm, o->firm, sizeof(a->firm));
	a->display = o->display;
	a->order_ref = ++s->order_ref;
	a->capacity = o->capacity;
	a->iso = o->iso;
	a->min_qty = o->min_qty;
	a->cross_type = o->cross_type;
	a->order_state = 'L';		/* live, until the execution or cancel */
	a->bbo_weight = ' ';
	reply(s, user, &r);
}

/* Executed once per level taken, then Canceled for what was not. */
static void reply_outcome(struct sink *s, unsigned int user, const struct ouch_enter_order *o,
			  const struct fill_result *f)
{
	struct ouch_reply r;

	for (unsigned int i = 0; i < f->nexec; i++) {
		memset(&r, 0, sizeof(r));
		r.timestamp = mono_ns();
		memcpy(r.token, o->token, ORDER_TOKEN_LEN);
		r.type = 'E';
		r.executed.shares = f->exec[i].shares;
		r.executed.price = f->exec[i].price;
		r.executed.liquidity = 'R';	/* removed liquidity */
		r.executed.match = ++s->match;
		reply(s, user, &r);
	}
	if (!f->canceled)
		return;
	memset(&r, 0, sizeof(r));
	r.timestamp = mono_ns();
	memcpy(r.token, o->token, ORDER_TOKEN_LEN);
	r.type = 'C';
	r.canceled.decrement = f->canceled;
	r.canceled.reason = f->reason;
	reply(s, user, &r);
}

static struct order_rec *log_slot(struct sink *s)
{
	if (!s->log)
		return NULL;
	if (s->log_n == SINK_LOG_CAP) {
		s->st.log_dropped++;
		return NULL;
	}
	return &s->log[s->log_n++];
}

/* Not an Enter Order: rejected when its token can be read, else dropped. */
static void serve_malformed(struct sink *s, unsigned int user, const uint8_t *msg, size_t len,
			    uint64_t t_user, uint64_t t_kern)
{
	const char *token = (const char *)msg + OUCH_O_OFF_TOKEN;
	struct order_rec *rec;

	if (len < SINK_TOKEN_END || msg[0] != 'O') {
		s->st.unreadable++;
		return;
	}
	s->st.malformed++;
	reply_rejected(s, user, token, FILL_REJ_OTHER, t_kern);
	soup_srv_push(&s->srv, user, mono_ns());
	rec = log_slot(s);
	if (!rec)
		return;
	memset(rec, 0, sizeof(*rec));
	memcpy(rec->token, token, ORDER_TOKEN_LEN);
	memset(rec->stock, ' ', sizeof(rec->stock));
	rec->side = '?';
	rec->outcome = SINK_MALFORMED;
	rec->reason = FILL_REJ_OTHER;
	rec->t_ack = mono_ns();
	rec->t_arrive = t_kern;
	rec->t_arrive_user = t_user;
}

/*
 * The message the order's token names, if it was published (else 0), and
 * the order's wire-to-wire times from its send.
 */
static uint64_t match_send(struct sink *s, const char *token, uint64_t t_user,
			   uint64_t t_kern, uint64_t *t_send, uint64_t *t_intended)
{
	uint64_t md_seq;
	uint32_t order_no;

	if (order_token_decode(token, &md_seq, &order_no)) {
		s->st.bad_token++;
		return 0;
	}
	if (!feed_send_time(s->feed, md_seq, t_send, t_intended)) {
		s->st.unmatched++;
		*t_send = *t_intended = 0;
		return 0;
	}
	/* As the gateway's stages: an interval that ends before it starts is the clocks'. */
	if (t_kern < *t_send) {
		s->st.clock_errors++;
		return md_seq;
	}
	hdr_record(&s->w2w, (int64_t)(t_kern - *t_send));
	hdr_record(&s->w2w_user, (int64_t)(t_user - *t_send));
	hdr_record(&s->w2w_intended, (int64_t)(t_kern - *t_intended));
	return md_seq;
}

/* The order and what the fill made of it; the caller adds the times. */
static void log_order(struct order_rec *rec, const struct ouch_enter_order *o,
		      const struct fill_result *f)
{
	memcpy(rec->token, o->token, ORDER_TOKEN_LEN);
	memcpy(rec->stock, o->stock, sizeof(rec->stock));
	rec->side = o->side;
	rec->outcome = f->outcome == FILL_EXECUTED ? (f->canceled ? SINK_PARTIAL :
								  SINK_EXECUTED) :
		       f->outcome == FILL_CANCELED ? SINK_CANCELED : SINK_REJECTED;
	rec->reason = f->outcome == FILL_EXECUTED && !f->canceled ? ' ' : f->reason;
	rec->shares = o->shares;
	rec->price = o->price;
	rec->filled = f->filled;
	rec->fill_value = f->value;
	rec->fill_price = f->filled ? (uint32_t)((f->value + f->filled / 2) / f->filled) : 0;
}

/* One Unsequenced Data payload of account @user (soup_srv_ops.on_unseq). */
static void serve(void *ctx, unsigned int user, const uint8_t *msg, size_t len,
		  uint64_t t_user, uint64_t t_kern)
{
	struct sink *s = ctx;
	struct ouch_enter_order o;
	struct fill_result f;
	struct order_rec *rec;
	uint64_t md_seq, t_send = 0, t_intended = 0, now;

	s->st.packets++;
	if (s->srv.ended) {
		s->st.after_end++;
		return;
	}
	if (ouch_decode_enter_order(msg, len, &o) < 0) {
		serve_malformed(s, user, msg, len, t_user, t_kern);
		return;
	}
	switch (tokens_add(&s->tokens[user], o.token)) {
	case TOKENS_SEEN:
		s->st.dup_tokens++;
		return;
	case TOKENS_FULL:
		s->st.tokens_full++;
		break;
	}
	s->st.orders++;

	/*
	 * Answer first; the bookkeeping can wait.  The first reply's Timestamp
	 * is the order's kernel arrival (rig convention, README): the gateway
	 * reads its wire-to-wire end point from it, as it reads the feed's send
	 * time from the ITCH timestamps.
	 */
	fill_order(s->book, &o, &f);
	if (f.outcome == FILL_REJECTED) {
		reply_rejected(s, user, o.token, f.reason, t_kern);
	} else {
		reply_accepted(s, user, &o, t_kern);
		reply_outcome(s, user, &o, &f);
	}
	now = mono_ns();
	soup_srv_push(&s->srv, user, now);

	md_seq = match_send(s, o.token, t_user, t_kern, &t_send, &t_intended);
	rec = log_slot(s);
	if (!rec)
		return;
	log_order(rec, &o, &f);
	rec->md_seq = md_seq;
	rec->t_send = t_send;
	rec->t_intended = t_intended;
	rec->t_ack = now;
	rec->t_arrive = t_kern;
	rec->t_arrive_user = t_user;
}

void sink_init_closed(struct sink *s)
{
	s->srv.lfd = s->srv.efd = -1;
}

/* The session's settings from the command line's. */
static void server_cfg(const struct exsim_cfg *c, struct soup_srv_cfg *sc)
{
	memset(sc, 0, sizeof(*sc));
	sc->addr = c->order;
	memcpy(sc->rules.acct, c->logins, sizeof(sc->rules.acct));
	sc->rules.nacct = c->nlogins;
	memcpy(sc->rules.session, c->soup_session, SOUP_SESSION_LEN);
	sc->rules.refuse = c->soup_fault.refuse_login;
	sc->hb_ns = c->soup_hb_ns;
	sc->timeout_ns = c->soup_timeout_ns;
	sc->keep = c->soup_keep;
	sc->fault = c->soup_fault;
	sc->fault.late_seed = c->fault_seed;
}

int sink_open(struct sink *s, const struct exsim_cfg *c, struct fill_book *book,
	      const struct feed *feed, char *err, size_t errlen)
{
	static struct soup_srv_cfg sc;	/* --drop-at's list makes it large */
	struct soup_srv_ops ops = { .on_unseq = serve, .ctx = s };
	int ret;

	/* The server clears its own part when it opens. */
	memset((char *)s + offsetof(struct sink, stamp_mono), 0,
	       sizeof(*s) - offsetof(struct sink, stamp_mono));
	sink_init_closed(s);
	s->book = book;
	s->feed = feed;
	s->stamp_mono = c->stamp_mono;
	s->rt_offset = realtime_offset();
	hdr_reset(&s->w2w);
	hdr_reset(&s->w2w_user);
	hdr_reset(&s->w2w_intended);
	for (unsigned int i = 0; i < c->nlogins; i++) {
		ret = tokens_open(&s->tokens[i], TOKENS_DEFAULT_SLOTS);
		if (ret) {
			snprintf(err, errlen, "order tokens: %s", strerror(-ret));
			return -EINVAL;
		}
	}
	if (c->orders_log_path) {
		void *p = mmap(NULL, SINK_LOG_CAP * sizeof(struct order_rec),
			       PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			       -1, 0);

		if (p == MAP_FAILED) {
			snprintf(err, errlen, "order log: %s", strerror(errno));
			return errno ? -errno : -EIO;
		}
		s->log = p;
	}
	server_cfg(c, &sc);
	return soup_srv_open(&s->srv, &sc, &ops, err, errlen);
}

void sink_close(struct sink *s)
{
	soup_srv_close(&s->srv);
	if (s->log)
		munmap(s->log, SINK_LOG_CAP * sizeof(struct order_rec));
	s->log = NULL;
	for (unsigned int i = 0; i < SOUP_SRV_USERS; i++)
		tokens_close(&s->tokens[i]);
}
