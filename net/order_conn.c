// SPDX-License-Identifier: MIT
/* The order session: SoupBinTCP over the own TCP or the kernel's. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "net/order_conn.h"
#include "proto/proto_err.h"
#include "util/rng.h"

/* Linux 6.15's, for headers older than the kernel. */
#ifndef TCP_RTO_MIN_US
#define TCP_RTO_MIN_US		45
#endif
#ifndef TCP_DELACK_MAX_US
#define TCP_DELACK_MAX_US	46
#endif

const char *const oc_state_names[] = {
	[OC_WAITING] = "waiting",
	[OC_CONNECTING] = "connecting",
	[OC_LOGGING_IN] = "logging in",
	[OC_UP] = "up",
	[OC_HALTED] = "halted",
	[OC_CLOSING] = "closing",
	[OC_STOPPED] = "stopped",
};

const char *const oc_lost_names[OC_LOST_NR] = {
	[OC_LOST_REFUSED] = "refused",
	[OC_LOST_RESET] = "reset",
	[OC_LOST_FIN] = "closed by the exchange",
	[OC_LOST_SILENCE] = "silent",
	[OC_LOST_RETRANS] = "retransmissions unanswered",
	[OC_LOST_BROKEN] = "broken stream",
};

const char *const oc_stop_names[OC_STOP_NR] = {
	[OC_STOP_NONE] = "none",
	[OC_STOP_REJECTED] = "rejected",
	[OC_STOP_ENDED] = "ended",
	[OC_STOP_SHUTDOWN] = "shutdown",
	[OC_STOP_WRONG_SESSION] = "wrong_session",
};

void order_session_defaults(struct order_conn_cfg *c)
{
	memset(c, 0, sizeof(*c));
	c->stack = OC_STACK_OWN;
	soup_parse_login("T2TG:secret", c->soup.user, c->soup.password);
	memset(c->soup.session, ' ', SOUP_SESSION_LEN);
	c->soup.hb_ns = SOUP_HEARTBEAT_NS;
	c->soup.timeout_ns = SOUP_TIMEOUT_NS;
	c->mss = 1460;
	/*
	 * 50 ms: above the 40 ms a Linux peer delays the ACK of a segment it
	 * has nothing to answer (a heartbeat), so that one is not sent twice
	 * for nothing; orders are answered (and acknowledged) in microseconds.
	 */
	c->rto_min_ns = 50 * 1000000ull;
	c->rto_max_ns = 1000 * 1000000ull;
	c->rto_init_ns = 1000 * 1000000ull;
	c->retries = 8;
	c->ack_delay_ns = 200 * 1000ull;
	/*
	 * The probe follows the exchange's reply times (net/tcp.h); this is
	 * only its floor: several of an answered order's round trips on a
	 * venue link (tens of microseconds).  A probe sent for nothing costs
	 * the peer a duplicate segment, not a duplicate order.
	 */
	c->tlp_min_ns = 250 * 1000ull;
	c->ack_budget = TCP_ACK_BUDGET;
	c->connect_timeout_ns = 2000 * 1000000ull;
	c->backoff_min_ns = 20 * 1000000ull;
	c->backoff_max_ns = 1000 * 1000000ull;
	c->close_ns = 200 * 1000000ull;
}

int order_conn_opt_ports(void *session_cfg, const char *arg, char *why, size_t n)
{
	struct order_conn_cfg *c = session_cfg;
	unsigned long lo, hi;
	char *end;

	errno = 0;
	lo = strtoul(arg, &end, 10);
	hi = lo;
	if (*end == '-')
		hi = strtoul(end + 1, &end, 10);
	if (errno || *end || end == arg || !lo || lo > 65535 || hi > 65535 || hi < lo)
		return snprintf(why, n, "wants PORT or FIRST-LAST, ports 1-65535, FIRST <= LAST"), -1;
	c->local.port = (uint16_t)lo;
	c->local_port_last = (uint16_t)hi;
	return 0;
}

/* The local ports a connection takes one of (order_conn.h). */
static void port_range(struct order_conn *oc)
{
	const struct order_conn_cfg *c = &oc->cfg;
	uint32_t hi;

	oc->port_lo = c->local.port;
	if (c->stack == OC_STACK_OWN && !oc->port_lo)
		oc->port_lo = OC_FIRST_PORT;
	if (c->local_port_last)
		hi = c->local_port_last;
	else if (c->stack == OC_STACK_OWN)
		hi = (uint32_t)oc->port_lo + OC_PORT_SPAN - 1;
	else
		hi = oc->port_lo;
	oc->port_hi = (uint16_t)(hi > 65535 ? 65535 : hi);
	if (oc->port_hi < oc->port_lo)
		oc->port_hi = oc->port_lo;
}

int order_conn_init(struct order_conn *oc, const struct order_conn_cfg *cfg,
		    const struct order_conn_ops *ops, const struct tcp_tx *tx,
		    char *err, size_t errlen)
{
	memset(oc, 0, sizeof(*oc));
	oc->cfg = *cfg;
	if (cfg->stack == OC_STACK_OWN && !cfg->local.port)
		oc->cfg.local.port = OC_FIRST_PORT;
	oc->ops = *ops;
	oc->fd = oc->port_fd = -1;
	oc->state = OC_WAITING;
	oc->backoff = cfg->backoff_min_ns;
	port_range(oc);
	soup_client_init(&oc->soup, &cfg->soup);
	/*
	 * RFC 6528: the ISNs' secret, and the ports' draw.  Nothing weaker
	 * stands in for it: a guessable ISN lets a blind sender in.
	 */
	if (getrandom(oc->isn_key, sizeof(oc->isn_key), 0) != sizeof(oc->isn_key) ||
	    getrandom(&oc->rng, sizeof(oc->rng), 0) != sizeof(oc->rng)) {
		snprintf(err, errlen, "getrandom(): %s: no secret for the order connection's "
			 "initial sequence numbers (RFC 6528); not starting", strerror(errno));
		return -EIO;
	}
	if (cfg->stack != OC_STACK_OWN)
		return 0;
	oc->tcp = aligned_alloc(64, (sizeof(*oc->tcp) + 63) & ~(size_t)63);
	if (!oc->tcp) {
		snprintf(err, errlen, "the own TCP's state: out of memory");
		return -ENOMEM;
	}
	{
		struct tcp_cfg t = {
			.local = oc->cfg.local, .remote = cfg->remote, .mss = cfg->mss,
			.rcv_wnd = 65535, .rto_init_ns = cfg->rto_init_ns,
			.rto_min_ns = cfg->rto_min_ns, .rto_max_ns = cfg->rto_max_ns,
			.max_retries = cfg->retries, .ack_delay_ns = cfg->ack_delay_ns,
			.tlp_min_ns = cfg->tlp_min_ns, .ack_budget = cfg->ack_budget,
		};

		tcp_init(oc->tcp, &t, tx);
	}
	/* Touched by the hot loop: in memory now, not at the first order. */
	memset(oc->tcp->sbuf, 0, sizeof(oc->tcp->sbuf));
	return 0;
}

/*
 * What the kernel refused, for the main thread to say (the hot loop that
 * connects cannot print): the text first, then the count it watches.
 */
static void note(struct order_conn *oc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(oc->note, sizeof(oc->note), fmt, ap);
	va_end(ap);
	oc->st.sock_errors++;
	__atomic_store_n(&oc->notes, oc->notes + 1, __ATOMIC_RELEASE);
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/*
 * Kernel stack: a connection we give up while the exchange still holds
 * it is reset (SO_LINGER 0): no TIME_WAIT is left on our side, so a fixed
 * local port connects again at once.  (After the exchange's FIN, our
 * close comes second and leaves none either.)
 */
static void abort_fd(struct order_conn *oc)
{
	struct linger l = { .l_onoff = 1, .l_linger = 0 };

	if (oc->fd >= 0 && setsockopt(oc->fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l)))
		note(oc, "setsockopt(SO_LINGER 0) before closing: %s; the local port may "
		     "stay in TIME_WAIT", strerror(errno));
	close_fd(&oc->fd);
}

void order_conn_destroy(struct order_conn *oc)
{
	close_fd(&oc->fd);
	close_fd(&oc->port_fd);
	free(oc->tcp);
	oc->tcp = NULL;
}

/*
 * Kernel stack: a send() that fails reports, and clears, the socket's
 * pending error; a reset or a timeout seen there would leave the next
 * recv() only an end of stream, read as the exchange's close.  Kept for
 * order_conn_poll() to say why.  EPIPE says only that sending is over,
 * which a close does too.
 */
static void note_send_error(struct order_conn *oc, int err)
{
	if (!oc->fd_err && (err == ECONNRESET || err == ETIMEDOUT))
		oc->fd_err = err;
}

/* The connection's bytes onto the stream, whatever the state. */
static int stream_write(struct order_conn *oc, const uint8_t *buf, size_t len, uint64_t now)
{
	ssize_t n = 0;

	if (oc->cfg.stack == OC_STACK_OWN) {
		if (tcp_write(oc->tcp, buf, len))
			return -1;
		tcp_output(oc->tcp, now);
		soup_client_sent(&oc->soup, now);
		return 0;
	}
	if (oc->fd < 0)
		return -1;
	if (!oc->kout_len) {
		n = send(oc->fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
			note_send_error(oc, errno);
			oc->st.send_errors++;
			return -1;
		}
		if (n < 0)
			n = 0;
	}
	if ((size_t)n < len) {
		/* Whole packets or nothing: the rest waits for the socket. */
		if (oc->kout_len + len - (size_t)n > sizeof(oc->kout))
			return -1;
		memcpy(oc->kout + oc->kout_len, buf + n, len - (size_t)n);
		oc->kout_len += (uint32_t)(len - (size_t)n);
		oc->st.partial_writes++;
	}
	soup_client_sent(&oc->soup, now);
	return 0;
}

/* Kernel stack: what send() did not take before. */
static void flush_kout(struct order_conn *oc)
{
	ssize_t n;

	if (!oc->kout_len || oc->fd < 0)
		return;
	n = send(oc->fd, oc->kout, oc->kout_len, MSG_DONTWAIT | MSG_NOSIGNAL);
	if (n < 0)
		note_send_error(oc, errno);
	if (n <= 0)
		return;
	memmove(oc->kout, oc->kout + n, oc->kout_len - (size_t)n);
	oc->kout_len -= (uint32_t)n;
}

int order_conn_send(struct order_conn *oc, const uint8_t *buf, size_t len, uint64_t now)
{
	if (oc->state != OC_UP || stream_write(oc, buf, len, now)) {
		oc->st.send_fail++;
		return -1;
	}
	return 0;
}

/* Logging in or logged in (orders or not): heartbeats, the 15 s rule, a logout. */
static bool in_session(const struct order_conn *oc)
{
	return oc->state == OC_LOGGING_IN || oc->state == OC_UP || oc->state == OC_HALTED;
}

/* The connection's bytes are the session's to read. */
static bool reading(const struct order_conn *oc)
{
	return in_session(oc) || oc->state == OC_CLOSING;
}

/* Leave the logged-in state, telling the caller once. */
static void go_down(struct order_conn *oc, uint64_t now)
{
	bool was_up = oc->state == OC_UP;

	if (was_up && oc->ops.on_down)
		oc->ops.on_down(oc->ops.ctx, now);
}

/*
 * The transport goes; the TCP's own close or reset as the case says.
 * @ours: we give up a connection the exchange still holds (silence, a
 * broken stream, retransmissions unanswered): on the kernel stack, with a
 * fixed local port, it is reset, so no TIME_WAIT keeps the port the next
 * connection needs (from a range or the kernel's, another port serves).
 */
static void drop_transport(struct order_conn *oc, uint64_t now, bool ours)
{
	if (oc->cfg.stack == OC_STACK_OWN) {
		if (oc->tcp->state == TCPS_CLOSE_WAIT)
			tcp_close(oc->tcp, now);	/* the peer closed: our FIN */
		else if (!tcp_is_done(oc->tcp) && oc->tcp->state != TCPS_LAST_ACK)
			tcp_abort(oc->tcp, now);
	} else {
		if (ours && oc->port_lo && oc->port_lo == oc->port_hi)
			abort_fd(oc);
		else
			close_fd(&oc->fd);
		oc->kout_len = 0;
	}
}

static void lose(struct order_conn *oc, enum oc_lost why, uint64_t now)
{
	bool was_up = oc->state == OC_UP || oc->state == OC_HALTED;

	go_down(oc, now);
	oc->st.lost[why]++;
	oc->last_lost = (uint8_t)why;
	drop_transport(oc, now, why == OC_LOST_SILENCE || why == OC_LOST_BROKEN ||
				why == OC_LOST_RETRANS);
	soup_client_disconnected(&oc->soup);
	if (soup_client_final(&oc->soup)) {
		oc->state = OC_STOPPED;
		return;
	}
	oc->state = OC_WAITING;
	/* A session that was up is tried again at once; failures in a row back off. */
	if (was_up) {
		oc->retry_at = now;
		return;
	}
	oc->retry_at = now + oc->backoff;
	oc->backoff = oc->backoff * 2 > oc->cfg.backoff_max_ns ? oc->cfg.backoff_max_ns :
								  oc->backoff * 2;
}

/* For good: no connection will be tried again. */
static void stop(struct order_conn *oc, enum oc_stop why, uint64_t now)
{
	go_down(oc, now);
	oc->stop = (uint8_t)why;
	drop_transport(oc, now, false);
	soup_client_disconnected(&oc->soup);
	oc->state = OC_STOPPED;
}

/* A port of the range, drawn at random (RFC 6056's aim: not guessable). */
static uint16_t random_port(struct order_conn *oc)
{
	uint32_t span = (uint32_t)oc->port_hi - oc->port_lo + 1;

	return (uint16_t)(oc->port_lo + splitmix64(&oc->rng) % span);
}

/* The next port after @p in the range, wrapping. */
static uint16_t next_port(const struct order_conn *oc, uint16_t p)
{
	return p >= oc->port_hi ? oc->port_lo : (uint16_t)(p + 1);
}

/* Own stack: a local port of the range the kernel is not using, held for us. */
static int reserve_port(struct order_conn *oc)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(oc->cfg.local.ip) };
	uint32_t span = (uint32_t)oc->port_hi - oc->port_lo + 1;
	uint16_t port = random_port(oc);

	close_fd(&oc->port_fd);
	for (uint32_t i = 0; i < span; i++, port = next_port(oc, port)) {
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

		if (fd < 0)
			return -errno;
		a.sin_port = htons(port);
		if (!bind(fd, (struct sockaddr *)&a, sizeof(a))) {
			oc->port_fd = fd;
			return port;
		}
		close(fd);
	}
	return -EADDRINUSE;
}

/*
 * RFC 6528 3: ISN = M + F(localip, localport, remoteip, remoteport,
 * secretkey), M a 4 us clock, F SipHash-2-4 under the secret.
 */
static uint32_t isn(const struct order_conn *oc, uint16_t port, uint64_t now)
{
	uint8_t t[12];

	be32_store(t, oc->cfg.local.ip);
	be16_store(t + 4, port);
	be32_store(t + 6, oc->cfg.remote.ip);
	be16_store(t + 10, oc->cfg.remote.port);
	return (uint32_t)(now / 4000) + (uint32_t)siphash24(oc->isn_key, t, sizeof(t));
}

static void connect_own(struct order_conn *oc, uint64_t now)
{
	uint16_t old = oc->port;
	int port = reserve_port(oc);

	if (port < 0) {
		oc->st.steer_errors++;
		lose(oc, OC_LOST_REFUSED, now);
		return;
	}
	oc->port = (uint16_t)port;
	if (oc->ops.steer && oc->ops.steer(oc->ops.ctx, old, oc->port)) {
		oc->st.steer_errors++;
		lose(oc, OC_LOST_REFUSED, now);
		return;
	}
	if (!tcp_is_done(oc->tcp))
		tcp_abort(oc->tcp, now);
	tcp_connect(oc->tcp, oc->port, isn(oc, oc->port, now), now);
}

/* TCP_USER_TIMEOUT: about as long as the own stack's retries take. */
static unsigned int user_timeout_ms(const struct order_conn_cfg *c)
{
	uint64_t rto = c->rto_min_ns, total = 0;

	for (uint32_t i = 0; i <= c->retries; i++) {
		total += rto;
		rto = rto * 2 > c->rto_max_ns ? c->rto_max_ns : rto * 2;
	}
	return (unsigned int)(total / 1000000 + 1);
}

/* A socket option the connection needs: refused, the attempt fails (said). */
static int must_set(struct order_conn *oc, int level, int name, const char *what,
		    const void *v, socklen_t len)
{
	if (!setsockopt(oc->fd, level, name, v, len))
		return 0;
	note(oc, "setsockopt(%s): %s; not connecting without it", what, strerror(errno));
	return -1;
}

/*
 * A tuning option, @v or the first of @more (ascending) the kernel takes
 * (TCP_DELACK_MAX_US wants at least two jiffies); refused altogether (an older
 * kernel), said once and done without.
 */
static void may_set(struct order_conn *oc, int name, const char *what, uint32_t v,
		    const uint32_t *more, size_t nmore, const char *instead)
{
	static uint32_t said;

	for (size_t i = 0;; i++) {
		if (!setsockopt(oc->fd, IPPROTO_TCP, name, &v, sizeof(v)))
			return;
		if (errno != EINVAL || i == nmore)
			break;
		if (more[i] > v)
			v = more[i];
	}
	if (said & (1u << name % 32))
		return;
	said |= 1u << name % 32;
	note(oc, "setsockopt(%s): %s (Linux 6.15 has it); %s", what, strerror(errno), instead);
}

/*
 * Kernel stack: bind to the configured address and a port of the range,
 * at random; a port in use is passed over, any other refusal fails the
 * attempt.  0, or -1 (said).
 */
static int bind_local(struct order_conn *oc)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(oc->cfg.local.ip) };
	uint32_t span = (uint32_t)oc->port_hi - oc->port_lo + 1;
	uint16_t port = oc->port_lo ? random_port(oc) : 0;
	int one = 1, err = 0;

	if (must_set(oc, SOL_SOCKET, SO_REUSEADDR, "SO_REUSEADDR", &one, sizeof(one)))
		return -1;
	for (uint32_t i = 0; i < span; i++, port = next_port(oc, port)) {
		a.sin_port = htons(port);
		if (!bind(oc->fd, (struct sockaddr *)&a, sizeof(a)))
			return 0;
		err = errno;
		if (err != EADDRINUSE || !port)
			break;
	}
	if (oc->port_lo == oc->port_hi && oc->port_lo)
		note(oc, "bind(--local-port %u): %s; not connecting from another port",
		     oc->port_lo, strerror(err));
	else
		note(oc, "bind(local ports %u-%u): %s", oc->port_lo, oc->port_hi, strerror(err));
	return -1;
}

static void connect_kernel(struct order_conn *oc, uint64_t now)
{
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(oc->cfg.remote.port),
				  .sin_addr.s_addr = htonl(oc->cfg.remote.ip) };
	unsigned int tmo = user_timeout_ms(&oc->cfg);
	int one = 1;
	char err[128];

	oc->fd_err = 0;
	oc->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (oc->fd < 0) {
		note(oc, "socket(): %s", strerror(errno));
		lose(oc, OC_LOST_REFUSED, now);
		return;
	}
	if (must_set(oc, IPPROTO_TCP, TCP_NODELAY, "TCP_NODELAY", &one, sizeof(one)) ||
	    must_set(oc, IPPROTO_TCP, TCP_USER_TIMEOUT, "TCP_USER_TIMEOUT", &tmo, sizeof(tmo)) ||
	    ((oc->cfg.local.ip || oc->port_lo) && bind_local(oc))) {
		lose(oc, OC_LOST_REFUSED, now);
		return;
	}
	/* The own stack's policies where this kernel takes them (docs/wire.md). */
	may_set(oc, TCP_RTO_MIN_US, "TCP_RTO_MIN_US", (uint32_t)(oc->cfg.rto_min_ns / 1000),
		NULL, 0, "the route's rto_min, else net.ipv4.tcp_rto_min_us, else 200 ms applies");
	if (oc->cfg.ack_delay_ns) {
		/* At least two jiffies: 2 ms at HZ=1000, 8 at 250, 20 at 100. */
		static const uint32_t jiffy_us[] = { 2000, 8000, 20000 };

		may_set(oc, TCP_DELACK_MAX_US, "TCP_DELACK_MAX_US",
			(uint32_t)(oc->cfg.ack_delay_ns / 1000), jiffy_us,
			sizeof(jiffy_us) / sizeof(jiffy_us[0]),
			"the route's quickack or the kernel's delayed ACK applies");
	}
	if (busy_poll_set(oc->fd, &oc->cfg.busy_poll, err, sizeof(err)))
		note(oc, "%s", err);
	if (connect(oc->fd, (struct sockaddr *)&to, sizeof(to)) && errno != EINPROGRESS) {
		lose(oc, errno == ECONNREFUSED ? OC_LOST_REFUSED : OC_LOST_RESET, now);
		return;
	}
	oc->deadline = now + oc->cfg.connect_timeout_ns;
	{
		struct sockaddr_in me;
		socklen_t len = sizeof(me);

		if (!getsockname(oc->fd, (struct sockaddr *)&me, &len))
			oc->port = ntohs(me.sin_port);
	}
}

static void connect_now(struct order_conn *oc, uint64_t now)
{
	oc->conn_no++;
	oc->st.attempts++;
	oc->state = OC_CONNECTING;
	if (oc->cfg.stack == OC_STACK_OWN)
		connect_own(oc, now);
	else
		connect_kernel(oc, now);
}

void order_conn_start(struct order_conn *oc, uint64_t now)
{
	if (oc->state == OC_WAITING)
		connect_now(oc, now);
}

/* TCP is up: log in. */
static void connected(struct order_conn *oc, uint64_t now)
{
	uint8_t buf[SOUP_LOGIN_REQUEST_LEN];
	int len = soup_client_login(&oc->soup, buf, sizeof(buf), now);

	oc->st.connected++;
	if (len < 0 || stream_write(oc, buf, (size_t)len, now)) {
		lose(oc, OC_LOST_BROKEN, now);
		return;
	}
	oc->state = OC_LOGGING_IN;
}

/* What the session's bytes say, until they are used up. */
static void session_events(struct order_conn *oc, uint64_t now)
{
	struct soup_msg m;

	for (;;) {
		switch (soup_client_next(&oc->soup, &m)) {
		case SOUP_EV_NONE:
			return;
		case SOUP_EV_MSG:
			oc->ops.on_msg(oc->ops.ctx, &m, now);
			break;
		case SOUP_EV_LOGGED_IN:
			oc->backoff = oc->cfg.backoff_min_ns;
			/* Replies lost for good: logged in for the rest, but no orders. */
			if (oc->soup.halted) {
				oc->state = OC_HALTED;
				break;
			}
			oc->state = OC_UP;
			if (oc->ops.on_up)
				oc->ops.on_up(oc->ops.ctx, now);
			break;
		case SOUP_EV_REJECTED:
			stop(oc, OC_STOP_REJECTED, now);
			return;
		case SOUP_EV_WRONG_SESSION:
			stop(oc, OC_STOP_WRONG_SESSION, now);
			return;
		case SOUP_EV_END:
			/* No more messages this session: log out and close. */
			oc->stop = OC_STOP_ENDED;
			order_conn_shutdown(oc, now);
			return;
		case SOUP_EV_LOST:
			lose(oc, OC_LOST_BROKEN, now);
			return;
		}
	}
}

/* Own stack: what the TCP's state says of the connection. */
static void follow_tcp(struct order_conn *oc, uint64_t now)
{
	struct tcp_conn *t = oc->tcp;

	if (oc->state == OC_CONNECTING && tcp_is_established(t)) {
		connected(oc, now);
		return;
	}
	if (oc->state == OC_CLOSING) {
		if (tcp_is_done(t))
			oc->state = OC_STOPPED;
		return;
	}
	if (oc->state == OC_WAITING || oc->state == OC_STOPPED)
		return;
	if (t->state == TCPS_CLOSE_WAIT)
		lose(oc, OC_LOST_FIN, now);
	else if (t->state == TCPS_CLOSED)
		lose(oc, t->why == TCP_WHY_REFUSED ? OC_LOST_REFUSED :
			 t->why == TCP_WHY_TIMEOUT ? OC_LOST_RETRANS : OC_LOST_RESET, now);
}

void order_conn_on_segment(struct order_conn *oc, const struct tcp_seg *s, uint64_t now)
{
	const uint8_t *p;
	size_t n;

	tcp_input(oc->tcp, s, now);
	while (tcp_read(oc->tcp, &p, &n)) {
		if (!reading(oc))
			continue;
		soup_client_on_bytes(&oc->soup, p, n, now);
		session_events(oc, now);
	}
	follow_tcp(oc, now);
}

void order_conn_poll(struct order_conn *oc, uint64_t now)
{
	ssize_t n;
	int err;

	if (oc->fd < 0 || !reading(oc))
		return;
	for (;;) {
		n = recv(oc->fd, oc->kin, sizeof(oc->kin), MSG_DONTWAIT);
		if (n > 0) {
			soup_client_on_bytes(&oc->soup, oc->kin, (size_t)n, now);
			session_events(oc, now);
			if (oc->fd < 0)
				return;
			continue;
		}
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
			return;
		if (oc->state == OC_CLOSING) {
			close_fd(&oc->fd);
			oc->state = OC_STOPPED;
			return;
		}
		err = n < 0 ? errno : oc->fd_err;
		lose(oc, !err ? OC_LOST_FIN : err == ETIMEDOUT ? OC_LOST_RETRANS :
			 OC_LOST_RESET, now);
		return;
	}
}

/* Kernel stack: has the connect completed? */
static void kernel_connecting(struct order_conn *oc, uint64_t now)
{
	struct pollfd p = { .fd = oc->fd, .events = POLLOUT };
	socklen_t len = sizeof(int);
	int soerr = 0;

	if (poll(&p, 1, 0) <= 0) {
		if (now >= oc->deadline)
			lose(oc, OC_LOST_REFUSED, now);
		return;
	}
	getsockopt(oc->fd, SOL_SOCKET, SO_ERROR, &soerr, &len);
	if (soerr) {
		lose(oc, soerr == ECONNREFUSED ? OC_LOST_REFUSED : OC_LOST_RESET, now);
		return;
	}
	connected(oc, now);
}

void order_conn_idle(struct order_conn *oc, uint64_t now)
{
	uint8_t hb[SOUP_EMPTY_LEN];
	int ret;

	switch (oc->state) {
	case OC_STOPPED:
		return;
	case OC_WAITING:
		if (now >= oc->retry_at)
			connect_now(oc, now);
		return;
	case OC_CONNECTING:
		if (oc->cfg.stack == OC_STACK_OWN) {
			tcp_timers(oc->tcp, now);
			follow_tcp(oc, now);
		} else if (oc->fd >= 0) {
			kernel_connecting(oc, now);
		}
		return;
	default:
		break;
	}
	if (oc->cfg.stack == OC_STACK_OWN) {
		tcp_timers(oc->tcp, now);
		follow_tcp(oc, now);
	} else {
		flush_kout(oc);
		order_conn_poll(oc, now);
	}
	if (oc->state == OC_CLOSING && now >= oc->deadline) {
		drop_transport(oc, now, false);
		if (oc->cfg.stack == OC_STACK_OWN && !tcp_is_done(oc->tcp))
			tcp_abort(oc->tcp, now);
		oc->state = OC_STOPPED;
		return;
	}
	if (!in_session(oc))
		return;
	ret = soup_client_tick(&oc->soup, hb, now);
	if (ret < 0)
		lose(oc, OC_LOST_SILENCE, now);
	else if (ret > 0)
		stream_write(oc, hb, sizeof(hb), now);
}

void order_conn_shutdown(struct order_conn *oc, uint64_t now)
{
	uint8_t buf[SOUP_EMPTY_LEN];

	if (!in_session(oc)) {
		if (oc->state != OC_CLOSING && oc->state != OC_STOPPED) {
			drop_transport(oc, now, false);
			oc->state = OC_STOPPED;
		}
		if (!oc->stop)
			oc->stop = OC_STOP_SHUTDOWN;
		return;
	}
	go_down(oc, now);
	if (!oc->stop)
		oc->stop = OC_STOP_SHUTDOWN;
	if (soup_client_logout(&oc->soup, buf, sizeof(buf)) > 0)
		stream_write(oc, buf, sizeof(buf), now);
	if (oc->cfg.stack == OC_STACK_OWN) {
		tcp_close(oc->tcp, now);
	} else {
		flush_kout(oc);
		shutdown(oc->fd, SHUT_WR);
	}
	oc->state = OC_CLOSING;
	oc->deadline = now + oc->cfg.close_ns;
}
