// SPDX-License-Identifier: MIT
/* The order port's SoupBinTCP 3.0 server over kernel TCP (soup_server.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/sockios.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "netns/exsim/soup_server.h"
#include "proto/ouch.h"
#include "util/clock.h"
#include "util/rng.h"
#include "util/rx_stamp.h"

#define LISTENER_TAG		UINT32_MAX
#define LISTEN_BACKLOG		64
#define EVENTS_PER_WAIT		32
#define ROUNDS_PER_POLL		64	/* epoll_wait()s in one poll, at most */
#define ACCEPTS_PER_TURN	8
#define READS_PER_TURN		16	/* per connection: the others get their turn */
#define RST_POLL_NS		(1000 * 1000)	/* DRAIN before a reset: SIOCOUTQ this often */

const char *const soup_close_names[SC_WHY_NR] = {
	[SC_WHY_PEER] = "peer",
	[SC_WHY_LOGOUT] = "logout",
	[SC_WHY_REJECTED] = "rejected",
	[SC_WHY_TAKEOVER] = "takeover",
	[SC_WHY_TIMEOUT] = "timeout",
	[SC_WHY_BEFORE_LOGIN] = "before_login",
	[SC_WHY_MALFORMED] = "malformed",
	[SC_WHY_BROKEN] = "broken",
	[SC_WHY_FAULT] = "fault",
	[SC_WHY_BEHIND] = "behind",
	[SC_WHY_ERROR] = "error",
	[SC_WHY_FULL] = "full",
	[SC_WHY_EXIT] = "exit",
};

static void due(struct soup_srv *s, uint64_t t)
{
	if (t < s->next_due)
		s->next_due = t;
}

/* The epoll interest of @c, from its state. */
static void set_events(struct soup_srv *s, struct soup_conn *c)
{
	struct epoll_event ev = { .data.u32 = (uint32_t)(c - s->conn) };

	/* Silent or paused, nothing is read: a peer's FIN must not wake us over and over. */
	if (c->state == SC_SILENT)
		ev.events = EPOLLRDHUP;
	else
		ev.events = (c->paused ? 0 : EPOLLIN | EPOLLRDHUP) | (c->want_out ? EPOLLOUT : 0);
	epoll_ctl(s->efd, EPOLL_CTL_MOD, c->fd, &ev);
}

static void want_out(struct soup_srv *s, struct soup_conn *c, bool on)
{
	if (c->want_out == on)
		return;
	c->want_out = on;
	set_events(s, c);
}

/* The account no longer has @c as its connection. */
static void detach(struct soup_srv *s, struct soup_conn *c)
{
	if (c->user >= 0 && s->user[c->user].live == c)
		s->user[c->user].live = NULL;
}

/* Only from the top of a turn: nothing below a read or a pump frees a slot. */
static void conn_free(struct soup_srv *s, struct soup_conn *c, bool reset)
{
	if (reset) {
		struct linger lg = { .l_onoff = 1, .l_linger = 0 };

		setsockopt(c->fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	}
	detach(s, c);
	s->st.closed[c->why]++;
	close(c->fd);	/* leaves the epoll set with it */
	c->fd = -1;
	c->state = SC_FREE;
	s->open--;
}

/* FIN sent; what still comes is read and thrown away until the peer's FIN. */
static void start_closing(struct soup_srv *s, struct soup_conn *c, uint64_t now)
{
	detach(s, c);
	shutdown(c->fd, SHUT_WR);
	c->state = SC_CLOSING;
	c->paused = false;
	c->want_out = false;
	c->out_off = c->out_len = 0;
	c->deadline = now + SOUP_SRV_CLOSE_NS;
	set_events(s, c);
	due(s, c->deadline);
}

static void pump(struct soup_srv *s, struct soup_conn *c, uint64_t now);

/* What is written goes out, then FIN or RST (@kind); counted as @why. */
static void begin_drain(struct soup_srv *s, struct soup_conn *c, uint8_t kind, uint8_t why,
			uint64_t now)
{
	detach(s, c);
	c->state = SC_DRAIN;
	c->drain = kind;
	c->why = why;
	c->deadline = now + SOUP_SRV_CLOSE_NS;
	due(s, c->deadline);
	pump(s, c, now);
}

/* DRAIN, all written: FIN now; a reset waits in the timers for the peer's ACKs. */
static void drain_done(struct soup_srv *s, struct soup_conn *c, uint64_t now)
{
	if (c->drain == SOUP_FAULT_FIN) {
		start_closing(s, c, now);
		return;
	}
	due(s, now);
}

/* A sequenced message @n of @u's store into @c's buffer; false when it lacks room. */
static int put_msg(struct soup_srv *s, struct soup_conn *c, struct soup_user *u)
{
	size_t len;
	const uint8_t *p = soup_store_get(&u->store, c->next_send, &len);

	/*
	 * Fallen out of the store while this connection lagged: the numbering is
	 * implicit, so no later message may go on it.  A new login says where
	 * the session now starts.
	 */
	if (!p)
		return -1;
	if (sizeof(c->out) - c->out_len < len)
		return 0;
	memcpy(c->out + c->out_len, p, len);
	c->out_len += (uint32_t)len;
	if (c->next_send < c->replay_end) {
		s->st.replayed++;
		u->st.replayed++;
	}
	c->next_send++;
	c->sent++;
	s->st.seq_sent++;
	return 1;
}

/*
 * Fill @c's buffer: the messages it still lacks, as far as its fault plan
 * lets them go, then End of Session once the session ended.  Returns 1 when
 * something was added, 0 when not, -1 when the connection fell behind.
 */
static int fill(struct soup_srv *s, struct soup_conn *c)
{
	struct soup_user *u = &s->user[c->user];
	uint64_t end = u->store.next;
	int added = 0, r;

	if (c->plan.last < end - 1)
		end = c->plan.last + 1;
	while (c->next_send < end) {
		r = put_msg(s, c, u);
		if (r < 0)
			return -1;
		if (!r)
			return 1;
		added = 1;
	}
	if (s->ended && !c->eos_sent && c->next_send == u->store.next &&
	    sizeof(c->out) - c->out_len >= SOUP_EMPTY_LEN) {
		soup_encode_empty(c->out + c->out_len, SOUP_EMPTY_LEN, SOUP_END_OF_SESSION);
		c->out_len += SOUP_EMPTY_LEN;
		c->eos_sent = true;
		s->st.end_of_session++;
		added = 1;
	}
	return added;
}

/* The plan's end is reached: the fault it names. */
static void fault(struct soup_srv *s, struct soup_conn *c, uint64_t now)
{
	if (c->plan.drop_at)
		s->user[c->user].drop_at++;
	switch (c->plan.kind) {
	case SOUP_FAULT_SILENT:
		/* Still the account's connection: a new login takes it over. */
		s->st.fault_silent++;
		c->state = SC_SILENT;
		c->want_out = false;
		set_events(s, c);
		return;
	case SOUP_FAULT_RST:
		s->st.fault_rst++;
		break;
	default:
		s->st.fault_fin++;
		break;
	}
	begin_drain(s, c, c->plan.kind, SC_WHY_FAULT, now);
}

/*
 * Write what @c has to send, without blocking: its buffer, then what it
 * lacks of the session, SOUP_SRV_PUMP_BYTES at most per turn (EPOLLOUT
 * brings it back).  Never frees the slot: an error leaves it CLOSING, due
 * at once.
 */
static void pump(struct soup_srv *s, struct soup_conn *c, uint64_t now)
{
	size_t budget = SOUP_SRV_PUMP_BYTES;
	ssize_t n;
	int r;

	for (;;) {
		if (c->out_off < c->out_len) {
			n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off,
				 MSG_DONTWAIT | MSG_NOSIGNAL);
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
				want_out(s, c, true);
				return;
			}
			if (n < 0) {
				/* The peer reset it (EPIPE, ECONNRESET): nothing more to say. */
				if (c->why == SC_WHY_PEER)
					c->why = errno == EPIPE || errno == ECONNRESET ?
						 SC_WHY_PEER : SC_WHY_ERROR;
				start_closing(s, c, now);
				c->deadline = now;
				due(s, now);
				return;
			}
			c->out_off += (uint32_t)n;
			s->st.bytes_out += (uint64_t)n;
			c->last_tx = now;
			budget = (size_t)n < budget ? budget - (size_t)n : 0;
			if (c->out_off < c->out_len) {
				s->st.partial_writes++;
				want_out(s, c, true);
				return;
			}
			c->out_off = c->out_len = 0;
		}
		if (c->state == SC_DRAIN) {
			want_out(s, c, false);
			drain_done(s, c, now);
			return;
		}
		if (c->state != SC_UP)
			return;
		/* --late-replies: nothing new goes before the hold ends. */
		if (c->hold_until > now) {
			want_out(s, c, false);
			due(s, c->hold_until);
			return;
		}
		c->hold_until = 0;
		if (!budget) {
			want_out(s, c, true);
			return;
		}
		r = fill(s, c);
		if (r > 0)
			continue;
		if (r < 0) {
			begin_drain(s, c, SOUP_FAULT_FIN, SC_WHY_BEHIND, now);
			return;
		}
		want_out(s, c, false);
		if (c->next_send > c->plan.last)
			fault(s, c, now);
		else
			due(s, c->last_tx + s->cfg.hb_ns);
		return;
	}
}

/* A new login of an account whose connection is still open: that one goes. */
static void takeover(struct soup_srv *s, struct soup_conn *old, uint64_t now)
{
	s->st.takeovers++;
	s->user[old->user].st.takeovers++;
	old->why = SC_WHY_TAKEOVER;
	start_closing(s, old, now);
}

static int login(struct soup_srv *s, struct soup_conn *c, const struct soup_pkt *p,
		 uint64_t now)
{
	struct soup_login_accepted a;
	struct soup_login_request l;
	struct soup_user *u;
	uint64_t gone;
	char reason;
	int who;

	if (soup_decode_login_request(p->payload, p->len, &l)) {
		c->why = SC_WHY_MALFORMED;
		return -1;
	}
	s->st.logins++;
	who = soup_login_check(&s->cfg.rules, &l, &reason);
	if (who < 0) {
		s->st.login_rejected++;
		if (s->cfg.rules.refuse)
			s->st.rej_refused++;
		else if (reason == SOUP_REJECT_NO_SESSION)
			s->st.rej_no_session++;
		else
			s->st.rej_not_authorized++;
		c->out_len = (uint32_t)soup_encode_login_rejected(c->out, sizeof(c->out), reason);
		begin_drain(s, c, SOUP_FAULT_FIN, SC_WHY_REJECTED, now);
		return 0;
	}
	u = &s->user[who];
	if (u->live)
		takeover(s, u->live, now);
	c->user = who;
	c->state = SC_UP;
	c->next_send = soup_login_start(l.seq, soup_store_first(&u->store), u->store.next, &gone);
	c->replay_end = u->store.next;
	u->st.gone += gone;
	s->st.gone += gone;
	u->live = c;
	u->st.logins++;
	s->st.login_accepted++;
	s->st.drop_at_passed += soup_fault_plan(&s->cfg.fault, 0, c->next_send, &u->drop_at,
						&c->plan);
	memcpy(a.session, s->cfg.rules.session, SOUP_SESSION_LEN);
	a.seq = c->next_send;
	c->out_len = (uint32_t)soup_encode_login_accepted(c->out, sizeof(c->out), &a);
	pump(s, c, now);
	return 0;
}

/* One packet of a connection in LOGIN or UP.  -1: close it (why set). */
static int packet(struct soup_srv *s, struct soup_conn *c, const struct soup_pkt *p,
		  uint64_t t_user, uint64_t t_kern, uint64_t now)
{
	if (c->state == SC_LOGIN) {
		if (p->type != SOUP_LOGIN_REQUEST) {
			c->why = SC_WHY_BEFORE_LOGIN;
			return -1;
		}
		return login(s, c, p, now);
	}
	switch (p->type) {
	case SOUP_LOGIN_REQUEST:	/* a second one: out of place */
		c->why = SC_WHY_MALFORMED;
		return -1;
	case SOUP_UNSEQ_DATA:
	case SOUP_CLIENT_HEARTBEAT:
	case SOUP_LOGOUT_REQUEST:
		if (soup_check(p->type, p->len)) {
			c->why = SC_WHY_MALFORMED;
			return -1;
		}
		break;
	case SOUP_DEBUG:
		s->st.debug_in++;
		return 0;
	default:
		/* Not a client's type (or none of the contract's): counted, skipped. */
		s->st.unknown_in++;
		return 0;
	}
	if (p->type == SOUP_CLIENT_HEARTBEAT) {
		s->st.hb_in++;
	} else if (p->type == SOUP_LOGOUT_REQUEST) {
		s->st.logouts++;
		begin_drain(s, c, SOUP_FAULT_FIN, SC_WHY_LOGOUT, now);
	} else {
		s->st.unseq++;
		/* A late answer: this order's replies, and those after them, wait. */
		if (s->cfg.fault.late_frac > 0 && !c->hold_until &&
		    (double)(splitmix64(&s->late_rng) >> 11) * 0x1p-53 < s->cfg.fault.late_frac) {
			c->hold_until = now + s->cfg.fault.late_ns;
			s->st.late_replies++;
			due(s, c->hold_until);
		}
		s->ops.on_unseq(s->ops.ctx, (unsigned int)c->user, p->payload, p->len, t_user,
				t_kern);
	}
	return 0;
}

/*
 * When the bytes reached this host: the kernel's receive stamp on the rig's
 * clock (util/rx_stamp.h, the gateway's and the floor's conversion), or
 * @user, the read's own time, when there is none or it is not plausible
 * (later than the read).
 */
static uint64_t kernel_arrival(struct soup_srv *s, struct msghdr *mh, uint64_t user)
{
	uint64_t t = rx_stamp_mono(mh, s->rt_offset);

	if (t && t <= user)
		return t;
	s->st.no_kernel_ts++;
	return user;
}

/*
 * How much to read: the rest of the packet being read (its length is known
 * from its first two bytes), or, before those, an Enter Order's worth.  A
 * read that stops at a packet's end takes no later segment's stamp.
 */
static size_t read_want(const struct soup_rx *rx)
{
	if (rx->have >= 2)
		return (size_t)be16_load(rx->buf) + 2 - rx->have;
	return OUCH_ENTER_PKT_LEN - rx->have;
}

/* Read and serve @c's packets.  -1: close it (why set). */
static int read_conn(struct soup_srv *s, struct soup_conn *c, uint64_t now)
{
	for (int i = 0; i < READS_PER_TURN; i++) {
		union {
			char buf[CMSG_SPACE(sizeof(struct timespec))];
			struct cmsghdr align;
		} ctl;
		struct iovec iov = { .iov_base = s->rbuf, .iov_len = read_want(&c->rx) };
		struct msghdr mh = {
			.msg_iov = &iov, .msg_iovlen = 1,
			.msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf),
		};
		uint64_t t_user, t_kern;
		struct soup_pkt p;
		ssize_t n;
		int r;

		n = recvmsg(c->fd, &mh, MSG_DONTWAIT);
		t_user = mono_ns();
		if (n == 0)
			return -1;	/* the peer's FIN */
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 0;
			if (errno != ECONNRESET)
				c->why = SC_WHY_ERROR;
			return -1;
		}
		t_kern = kernel_arrival(s, &mh, t_user);
		s->st.reads++;
		s->st.bytes_in += (uint64_t)n;
		c->last_rx = t_user;
		/* Read to its end: a cut packet is kept in rx, never a pointer into rbuf. */
		soup_rx_push(&c->rx, s->rbuf, (size_t)n);
		while ((r = soup_rx_next(&c->rx, &p)) == 1) {
			if (packet(s, c, &p, t_user, t_kern, now))
				return -1;
			/* Draining, closing or silent now: the rest is not served. */
			if (c->state != SC_UP && c->state != SC_LOGIN)
				return 0;
		}
		if (r < 0) {
			c->why = SC_WHY_BROKEN;
			return -1;
		}
		if (s->cfg.fault.read_pause_ns) {
			s->st.read_pauses++;
			c->paused = true;
			c->resume_at = t_user + s->cfg.fault.read_pause_ns;
			set_events(s, c);
			due(s, c->resume_at);
			return 0;
		}
	}
	return 0;
}

/* DRAIN, CLOSING: what the peer still sends is thrown away.  -1 at its end. */
static int discard(struct soup_srv *s, struct soup_conn *c)
{
	for (int i = 0; i < READS_PER_TURN; i++) {
		ssize_t n = recv(c->fd, s->rbuf, sizeof(s->rbuf), MSG_DONTWAIT);

		if (n > 0) {
			s->st.bytes_in += (uint64_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) ? 0 : -1;
	}
	return 0;
}

static void handle(struct soup_srv *s, uint32_t idx, uint32_t events, uint64_t now)
{
	struct soup_conn *c;
	int r = 0;

	if (idx >= SOUP_SRV_CONNS)
		return;
	c = &s->conn[idx];
	if (c->state == SC_FREE)
		return;
	if (c->state == SC_SILENT) {
		if (events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR))
			conn_free(s, c, false);
		return;
	}
	if (events & EPOLLOUT)
		pump(s, c, now);
	if (c->state == SC_DRAIN || c->state == SC_CLOSING) {
		if (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))
			r = discard(s, c);
	} else if (c->paused) {
		/* Not read until resume_at; a reset or a hang-up is the end of it. */
		if (events & (EPOLLHUP | EPOLLERR))
			r = -1;
	} else if (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) {
		r = read_conn(s, c, now);
	}
	if (r < 0)
		conn_free(s, c, false);
}

static void accept_all(struct soup_srv *s, uint64_t now)
{
	for (int i = 0; i < ACCEPTS_PER_TURN; i++) {
		struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP };
		struct sockaddr_in peer;
		socklen_t plen = sizeof(peer);
		struct soup_conn *c = NULL;
		int fd, one = 1;
		int rcvbuf = (int)s->cfg.fault.rcvbuf;

		fd = accept4(s->lfd, (struct sockaddr *)&peer, &plen, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			return;
		s->st.accepted++;
		for (unsigned int k = 0; k < SOUP_SRV_CONNS && !c; k++)
			if (s->conn[k].state == SC_FREE)
				c = &s->conn[k];
		if (!c) {
			s->st.closed[SC_WHY_FULL]++;
			close(fd);
			continue;
		}
		/* An order is one small write each way: no Nagle on the replies. */
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one));
		if (rcvbuf)
			setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
		c->fd = fd;
		c->state = SC_LOGIN;
		c->why = SC_WHY_PEER;
		c->drain = SOUP_FAULT_NONE;
		c->eos_sent = c->want_out = c->paused = false;
		c->user = -1;
		c->peer = peer;
		c->next_send = c->replay_end = c->sent = 0;
		c->plan = (struct soup_fault_plan){ .last = UINT64_MAX };
		c->last_rx = c->last_tx = now;
		c->out_off = c->out_len = 0;
		soup_rx_reset(&c->rx);
		ev.data.u32 = (uint32_t)(c - s->conn);
		if (epoll_ctl(s->efd, EPOLL_CTL_ADD, fd, &ev)) {
			s->st.closed[SC_WHY_ERROR]++;
			close(fd);
			c->fd = -1;
			c->state = SC_FREE;
			continue;
		}
		if (++s->open > s->st.max_open)
			s->st.max_open = s->open;
		due(s, now + s->cfg.timeout_ns);
	}
}

/* The timers of every connection, and the next time they are due. */
static void timers(struct soup_srv *s, uint64_t now)
{
	uint64_t next = UINT64_MAX;

	/* What the turn itself makes due (a send that failed: close now) lowers it again. */
	s->next_due = UINT64_MAX;

	for (unsigned int k = 0; k < SOUP_SRV_CONNS; k++) {
		struct soup_conn *c = &s->conn[k];
		int q = 0;

		switch (c->state) {
		case SC_LOGIN:
		case SC_UP:
			if (c->paused && now >= c->resume_at) {
				c->paused = false;
				set_events(s, c);
			}
			if (c->paused) {
				next = c->resume_at < next ? c->resume_at : next;
				break;
			}
			/*
			 * Deadlines, not differences: @now may predate a read of
			 * this turn (its stamp taken later), and a difference
			 * would wrap to "silent for ages".
			 */
			if (now >= c->last_rx + s->cfg.timeout_ns) {
				c->why = SC_WHY_TIMEOUT;
				conn_free(s, c, false);
				break;
			}
			if (c->hold_until && now >= c->hold_until)
				pump(s, c, now);
			if (c->hold_until && c->hold_until < next)
				next = c->hold_until;
			if (c->last_rx + s->cfg.timeout_ns < next)
				next = c->last_rx + s->cfg.timeout_ns;
			/* A heartbeat only on an idle line: bytes waiting for EPOLLOUT say enough. */
			if (c->state != SC_UP || c->out_len)
				break;
			if (now >= c->last_tx + s->cfg.hb_ns) {
				soup_encode_empty(c->out, SOUP_EMPTY_LEN, SOUP_SERVER_HEARTBEAT);
				c->out_len = SOUP_EMPTY_LEN;
				s->st.hb_out++;
				pump(s, c, now);
			}
			if (c->state == SC_UP && !c->out_len && c->last_tx + s->cfg.hb_ns < next)
				next = c->last_tx + s->cfg.hb_ns;
			break;
		case SC_DRAIN:
			if (c->out_len || c->drain != SOUP_FAULT_RST) {
				if (now >= c->deadline)
					conn_free(s, c, true);
				else if (c->deadline < next)
					next = c->deadline;
				break;
			}
			/* A reset throws away what the socket holds: first the peer's ACKs. */
			if (ioctl(c->fd, SIOCOUTQ, &q))
				q = 0;
			if (q && now < c->deadline) {
				if (now + RST_POLL_NS < next)
					next = now + RST_POLL_NS;
				break;
			}
			if (q)
				s->st.rst_unacked++;
			conn_free(s, c, true);
			break;
		case SC_CLOSING:
			if (now >= c->deadline)
				conn_free(s, c, false);
			else if (c->deadline < next)
				next = c->deadline;
			break;
		default:
			break;
		}
	}
	if (next < s->next_due)
		s->next_due = next;
}

unsigned int soup_srv_poll(struct soup_srv *s, unsigned int max, uint64_t now)
{
	struct epoll_event ev[EVENTS_PER_WAIT];
	unsigned int served = 0;

	if (s->efd < 0)
		return 0;
	for (int round = 0; round < ROUNDS_PER_POLL && served < max; round++) {
		int n = epoll_wait(s->efd, ev, EVENTS_PER_WAIT, 0);

		if (n <= 0)
			break;
		for (int i = 0; i < n; i++) {
			if (ev[i].data.u32 == LISTENER_TAG)
				accept_all(s, now);
			else
				handle(s, ev[i].data.u32, ev[i].events, now);
		}
		served += (unsigned int)n;
		if (n < EVENTS_PER_WAIT)
			break;
	}
	if (now >= s->next_due)
		timers(s, now);
	return served;
}

bool soup_srv_client_ready(const struct soup_srv *s)
{
	const struct soup_conn *c;
	int q;

	if (!s->conn)
		return false;
	for (c = s->conn; c < s->conn + SOUP_SRV_CONNS; c++) {
		if (c->state != SC_UP || c->out_off != c->out_len)
			continue;
		if (!ioctl(c->fd, SIOCOUTQ, &q) && q == 0)
			return true;
	}
	return false;
}

void soup_srv_push(struct soup_srv *s, unsigned int user, uint64_t now)
{
	struct soup_conn *c = s->user[user].live;

	if (c && c->state == SC_UP)
		pump(s, c, now);
}

void soup_srv_end(struct soup_srv *s, uint64_t now)
{
	s->ended = true;
	for (unsigned int k = 0; s->conn && k < SOUP_SRV_CONNS; k++)
		if (s->conn[k].state == SC_UP)
			pump(s, &s->conn[k], now);
}

int soup_srv_open(struct soup_srv *s, const struct soup_srv_cfg *cfg,
		  const struct soup_srv_ops *ops, char *err, size_t errlen)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = LISTENER_TAG };
	size_t conn_bytes = SOUP_SRV_CONNS * sizeof(struct soup_conn);
	int one = 1, rcvbuf = (int)cfg->fault.rcvbuf, ret;
	char addr[INET_ADDRSTRLEN];
	void *p;

	memset(s, 0, offsetof(struct soup_srv, rbuf));
	s->lfd = s->efd = -1;
	s->late_rng = cfg->fault.late_seed ^ UINT64_C(0x6c6174652d727031);
	s->cfg = *cfg;
	s->ops = *ops;
	s->next_due = UINT64_MAX;
	s->nusers = cfg->rules.nacct;
	for (unsigned int i = 0; i < s->nusers; i++) {
		ret = soup_store_open(&s->user[i].store, cfg->keep);
		if (ret) {
			snprintf(err, errlen, "order session store (%llu messages): %s",
				 (unsigned long long)cfg->keep, strerror(-ret));
			return ret;
		}
	}
	/* 64 connections of 73 KB, mostly the reassemblers' buffers: reserved. */
	p = mmap(NULL, conn_bytes, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED) {
		snprintf(err, errlen, "order connections: %s", strerror(errno));
		return -errno;
	}
	s->conn = p;
	/* Kernel receive stamps (CLOCK_REALTIME) onto the rig's clock. */
	s->rt_offset = realtime_offset();
	for (unsigned int k = 0; k < SOUP_SRV_CONNS; k++) {
		s->conn[k].fd = -1;
		soup_rx_init(&s->conn[k].rx, 0);
	}

	inet_ntop(AF_INET, &cfg->addr.sin_addr, addr, sizeof(addr));
	s->lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s->lfd < 0) {
		snprintf(err, errlen, "order socket: %s", strerror(errno));
		return -errno;
	}
	/* A restarted simulator takes its port back at once, its old connections in TIME_WAIT. */
	if (setsockopt(s->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one))) {
		snprintf(err, errlen, "SO_REUSEADDR on the order socket: %s", strerror(errno));
		return -errno;
	}
	/* Stamps on from the start: the first order may come with the handshake's ACK. */
	if (setsockopt(s->lfd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one))) {
		snprintf(err, errlen, "SO_TIMESTAMPNS: %s", strerror(errno));
		return -errno;
	}
	/* On the listener, so that the handshake's window already is the small one. */
	if (rcvbuf && setsockopt(s->lfd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf))) {
		snprintf(err, errlen, "--rcvbuf: %s", strerror(errno));
		return -errno;
	}
	if (bind(s->lfd, (const struct sockaddr *)&cfg->addr, sizeof(cfg->addr)) ||
	    listen(s->lfd, LISTEN_BACKLOG)) {
		snprintf(err, errlen, "order port %s:%u (TCP): %s%s", addr,
			 ntohs(cfg->addr.sin_port), strerror(errno),
			 errno == EADDRINUSE ? " (another exsim running? use --order-port)" :
			 errno == EADDRNOTAVAIL ? " (no interface here has that address)" : "");
		return -errno;
	}
	s->efd = epoll_create1(EPOLL_CLOEXEC);
	if (s->efd < 0 || epoll_ctl(s->efd, EPOLL_CTL_ADD, s->lfd, &ev)) {
		snprintf(err, errlen, "epoll: %s", strerror(errno));
		return -errno;
	}
	return 0;
}

void soup_srv_close(struct soup_srv *s)
{
	uint64_t now = mono_ns();

	for (unsigned int k = 0; s->conn && k < SOUP_SRV_CONNS; k++) {
		struct soup_conn *c = &s->conn[k];

		if (c->state == SC_FREE)
			continue;
		/* What is written goes; unread input would turn the FIN into a reset. */
		if (c->state == SC_UP || c->state == SC_DRAIN)
			pump(s, c, now);
		if (c->state == SC_FREE)
			continue;
		if (c->state != SC_CLOSING && c->state != SC_DRAIN)
			c->why = SC_WHY_EXIT;
		shutdown(c->fd, SHUT_WR);
		discard(s, c);
		conn_free(s, c, false);
	}
	if (s->conn)
		munmap(s->conn, SOUP_SRV_CONNS * sizeof(struct soup_conn));
	s->conn = NULL;
	if (s->efd >= 0)
		close(s->efd);
	if (s->lfd >= 0)
		close(s->lfd);
	s->efd = s->lfd = -1;
	for (unsigned int i = 0; i < s->nusers; i++)
		soup_store_close(&s->user[i].store);
	s->nusers = 0;
}
