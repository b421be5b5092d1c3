// SPDX-License-Identifier: MIT
/* Order sink: OUCH Enter Orders in, paper-fill replies out, wire-to-wire. */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "util/clock.h"
#include "netns/exsim/sink.h"
#include "proto/ouch.h"
#include "strategy/gbm.h"

#define SINK_RCVBUF	(1 << 20)
#define SINK_REPLY_SALT	UINT64_C(0x7265706c79646f70)
/* Enough to read a token: packet header, message type, 14 token bytes. */
#define SINK_TOKEN_END	(SOUP_HDR_LEN + OUCH_O_OFF_TOKEN + ORDER_TOKEN_LEN)

int sink_open(struct sink *s, const struct exsim_cfg *c, struct fill_book *book,
	      const struct feed *feed, char *err, size_t errlen)
{
	int one = 1, rcvbuf = SINK_RCVBUF;
	char addr[INET_ADDRSTRLEN];

	memset(s, 0, sizeof(*s));
	s->book = book;
	s->feed = feed;
	s->numbered = !c->reply_plain;
	s->stamp_mono = c->stamp_mono;
	s->rt_offset = realtime_offset();
	s->drop_thr = c->reply_drop_rate >= 1 ? UINT64_MAX :
		      (uint64_t)ldexp(c->reply_drop_rate, 64);
	s->rng = c->fault_seed ^ SINK_REPLY_SALT;
	hdr_reset(&s->w2w);
	hdr_reset(&s->w2w_user);
	hdr_reset(&s->w2w_intended);
	inet_ntop(AF_INET, &c->order.sin_addr, addr, sizeof(addr));

	s->fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s->fd < 0) {
		snprintf(err, errlen, "order socket: %s", strerror(errno));
		return -1;
	}
	if (setsockopt(s->fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one))) {
		snprintf(err, errlen, "SO_TIMESTAMPNS: %s", strerror(errno));
		return -1;
	}
	if (setsockopt(s->fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)))
		setsockopt(s->fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	if (bind(s->fd, (const struct sockaddr *)&c->order, sizeof(c->order))) {
		snprintf(err, errlen, "order port %s:%u: %s%s", addr,
			 ntohs(c->order.sin_port), strerror(errno),
			 errno == EADDRINUSE ? " (another exsim running? use --order-port)" :
			 errno == EADDRNOTAVAIL ? " (no interface here has that address)" : "");
		return -1;
	}
	if (c->orders_log_path) {
		void *p = mmap(NULL, SINK_LOG_CAP * sizeof(struct order_rec),
			       PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			       -1, 0);

		if (p == MAP_FAILED) {
			snprintf(err, errlen, "order log: %s", strerror(errno));
			return -1;
		}
		s->log = p;
	}
	return 0;
}

void sink_close(struct sink *s)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	if (s->log)
		munmap(s->log, SINK_LOG_CAP * sizeof(struct order_rec));
	s->log = NULL;
	for (unsigned int i = 0; i < s->nclients; i++) {
		munmap(s->client[i].reply, (size_t)SINK_REPLIES * SINK_REPLY_SLOT);
		munmap(s->client[i].len, SINK_REPLIES);
	}
	s->nclients = 0;
}

/* The reply stream of a client address, made on its first reply; NULL when full. */
static struct sink_client *client_of(struct sink *s, const struct sockaddr_in *to,
				     bool create)
{
	struct sink_client *cl;

	for (unsigned int i = 0; i < s->nclients; i++) {
		cl = &s->client[i];
		if (cl->addr.sin_addr.s_addr == to->sin_addr.s_addr &&
		    cl->addr.sin_port == to->sin_port)
			return cl;
	}
	if (!create || s->nclients == SINK_CLIENTS)
		return NULL;
	cl = &s->client[s->nclients];
	/* Reserved, not touched: pages appear as replies are kept. */
	cl->reply = mmap(NULL, (size_t)SINK_REPLIES * SINK_REPLY_SLOT, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	cl->len = mmap(NULL, SINK_REPLIES, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (cl->reply == MAP_FAILED || cl->len == MAP_FAILED) {
		if (cl->reply != MAP_FAILED)
			munmap(cl->reply, (size_t)SINK_REPLIES * SINK_REPLY_SLOT);
		if (cl->len != MAP_FAILED)
			munmap(cl->len, SINK_REPLIES);
		return NULL;
	}
	cl->addr = *to;
	cl->sent = 0;
	s->nclients++;
	return cl;
}

/* Send one reply datagram, unless the lossy network takes it. */
static void transmit(struct sink *s, const uint8_t *buf, size_t len,
		     const struct sockaddr_in *to)
{
	if (s->drop_thr && gbm_splitmix64(&s->rng) < s->drop_thr) {
		s->st.replies_dropped++;
		return;
	}
	if (sendto(s->fd, buf, len, MSG_DONTWAIT, (const struct sockaddr *)to,
		   sizeof(*to)) == (ssize_t)len)
		s->st.replies++;
	else
		s->st.reply_errors++;
}

static void reply(struct sink *s, struct ouch_reply *r, const struct sockaddr_in *to)
{
	struct sink_client *cl = s->numbered ? client_of(s, to, true) : NULL;
	uint8_t buf[SINK_REPLY_SLOT];
	int len;

	if (s->numbered && !cl)
		s->st.too_many_clients++;
	r->number = cl ? cl->sent + 1 : 0;
	/* The Timestamp in the feed's clock: time of day, or the rig's monotonic. */
	if (!s->stamp_mono)
		r->timestamp = tod_from_mono(r->timestamp, s->rt_offset);
	len = ouch_encode_reply(buf, sizeof(buf), r);
	if (len <= 0) {
		s->st.reply_errors++;
		return;
	}
	if (cl) {
		cl->sent++;
		memcpy(cl->reply[cl->sent % SINK_REPLIES], buf, (size_t)len);
		cl->len[cl->sent % SINK_REPLIES] = (uint8_t)len;
	}
	transmit(s, buf, (size_t)len, to);
}

/* A client asks for replies [first, first + count) again. */
static void resend(struct sink *s, size_t len, const struct sockaddr_in *from)
{
	struct sink_client *cl = client_of(s, from, false);
	uint64_t first, end;
	uint16_t count;

	s->st.resend_requests++;
	if (ouch_decode_resend(s->rx, len, &first, &count) < 0 || !cl) {
		s->st.resend_bad++;
		return;
	}
	end = first + count;
	if (end > cl->sent + 1)
		end = cl->sent + 1;
	if (cl->sent > SINK_REPLIES && first <= cl->sent - SINK_REPLIES)
		first = cl->sent - SINK_REPLIES + 1;	/* older ones are gone */
	for (uint64_t n = first; n < end; n++) {
		transmit(s, cl->reply[n % SINK_REPLIES], cl->len[n % SINK_REPLIES], from);
		s->st.resent++;
	}
}

static void reply_rejected(struct sink *s, const char *token, char reason,
			   const struct sockaddr_in *to, uint64_t now)
{
	struct ouch_reply r = { .type = 'J', .timestamp = now };

	memcpy(r.token, token, ORDER_TOKEN_LEN);
	r.rejected.reason = reason;
	reply(s, &r, to);
}

static void reply_accepted(struct sink *s, const struct ouch_enter_order *o,
			   const struct sockaddr_in *to, uint64_t now)
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
	reply(s, &r, to);
}

/* Executed once per level taken, then Canceled for what was not. */
static void reply_outcome(struct sink *s, const struct ouch_enter_order *o,
			  const struct fill_result *f,
			  const struct sockaddr_in *to)
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
		reply(s, &r, to);
	}
	if (!f->canceled)
		return;
	memset(&r, 0, sizeof(r));
	r.timestamp = mono_ns();
	memcpy(r.token, o->token, ORDER_TOKEN_LEN);
	r.type = 'C';
	r.canceled.decrement = f->canceled;
	r.canceled.reason = f->reason;
	reply(s, &r, to);
}

/* Two clock reads this close are taken as one instant. */
#define SAME_INSTANT_NS 2000

/*
 * Kernel receive time on CLOCK_MONOTONIC: now minus the datagram's age on
 * CLOCK_REALTIME (robust to realtime steps before now); @user, the
 * user-space arrival, when the datagram carries no stamp.
 */
static uint64_t kernel_arrival(struct sink *s, struct msghdr *mh, uint64_t user)
{
	struct cmsghdr *cm;

	for (cm = CMSG_FIRSTHDR(mh); cm; cm = CMSG_NXTHDR(mh, cm)) {
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_TIMESTAMPNS) {
			struct timespec ts;
			uint64_t kreal, rnow, mono, r2;

			/*
			 * The stamp is CLOCK_REALTIME: its age, read on both clocks
			 * back to back (again when a stall came between them, which
			 * would age the packet by the stall), taken off now.
			 */
			for (int tries = 0; tries < 3; tries++) {
				rnow = real_ns();
				mono = mono_ns();
				r2 = real_ns();
				if (r2 - rnow < SAME_INSTANT_NS)
					break;
			}
			memcpy(&ts, CMSG_DATA(cm), sizeof(ts));
			kreal = ts_ns(&ts);
			if (kreal && kreal <= rnow && rnow - kreal <= mono)
				return mono - (rnow - kreal);
			break;
		}
	}
	s->st.no_kernel_ts++;
	return user;
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
static void serve_malformed(struct sink *s, size_t len, const struct sockaddr_in *from,
			    uint64_t t_user, uint64_t t_kern)
{
	const char *token = (const char *)s->rx + SOUP_HDR_LEN + OUCH_O_OFF_TOKEN;
	struct order_rec *rec;
	uint64_t now;

	if (len < SINK_TOKEN_END || s->rx[SOUP_OFF_TYPE] != SOUP_TYPE_UNSEQ ||
	    s->rx[SOUP_HDR_LEN] != 'O') {
		s->st.unreadable++;
		return;
	}
	s->st.malformed++;
	now = mono_ns();
	reply_rejected(s, token, FILL_REJ_OTHER, from, t_kern);
	rec = log_slot(s);
	if (!rec)
		return;
	memset(rec, 0, sizeof(*rec));
	memcpy(rec->token, token, ORDER_TOKEN_LEN);
	memset(rec->stock, ' ', sizeof(rec->stock));
	rec->side = '?';
	rec->outcome = SINK_MALFORMED;
	rec->reason = FILL_REJ_OTHER;
	rec->t_ack = now;
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

static void serve(struct sink *s, size_t len, const struct sockaddr_in *from,
		  uint64_t t_user, uint64_t t_kern)
{
	struct ouch_enter_order o;
	struct fill_result f;
	struct order_rec *rec;
	uint64_t md_seq, t_send = 0, t_intended = 0, now;

	if (len >= SOUP_HDR_LEN && s->rx[SOUP_OFF_TYPE] == SOUP_TYPE_RESEND) {
		resend(s, len, from);
		return;
	}
	if (ouch_decode_enter_order(s->rx, len, &o) < 0) {
		serve_malformed(s, len, from, t_user, t_kern);
		return;
	}
	s->st.orders++;

	/*
	 * Answer first; the bookkeeping can wait.  The first reply's Timestamp
	 * is the order's kernel arrival (rig convention, README): the gateway
	 * reads its wire-to-wire end point from it, as it reads the feed's send
	 * time from the ITCH timestamps.
	 */
	fill_order(s->book, &o, &f);
	now = mono_ns();
	if (f.outcome == FILL_REJECTED) {
		reply_rejected(s, o.token, f.reason, from, t_kern);
	} else {
		reply_accepted(s, &o, from, t_kern);
		reply_outcome(s, &o, &f, from);
	}

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

unsigned int sink_poll(struct sink *s, unsigned int max)
{
	unsigned int served = 0;

	while (served < max) {
		union {
			char buf[CMSG_SPACE(sizeof(struct timespec))];
			struct cmsghdr align;
		} ctl;
		struct sockaddr_in from;
		struct iovec iov = { .iov_base = s->rx, .iov_len = sizeof(s->rx) };
		struct msghdr mh = {
			.msg_name = &from, .msg_namelen = sizeof(from),
			.msg_iov = &iov, .msg_iovlen = 1,
			.msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf),
		};
		uint64_t t_user, t_kern;
		ssize_t n;

		n = recvmsg(s->fd, &mh, MSG_DONTWAIT);
		t_user = mono_ns();
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;		/* EAGAIN: nothing waiting */
		}
		s->st.datagrams++;
		served++;
		t_kern = kernel_arrival(s, &mh, t_user);
		if (mh.msg_flags & MSG_TRUNC)
			s->st.truncated++;
		if (from.sin_family != AF_INET || mh.msg_namelen < sizeof(from)) {
			s->st.unreadable++;
			continue;
		}
		serve(s, (size_t)n, &from, t_user, t_kern);
	}
	return served;
}
