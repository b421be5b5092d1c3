// SPDX-License-Identifier: MIT
/*
 * The kernel fallback, and the baseline AF_XDP is measured against: the
 * same engine over ordinary sockets.  The feed socket joins the group; the
 * order session (net/order_conn.h) runs on a kernel TCP socket.
 *
 * Two flavours: busy spin (non-blocking receive on the feed, the session's
 * socket read every 16 datagrams and whenever the feed is quiet) and
 * blocking (a blocking receive on the feed; the session is served after
 * every feed datagram and whenever the feed is quiet for the receive
 * timeout).  The kernel's receive stamp (SO_TIMESTAMPNS) is the
 * counterpart of the XDP hook stamp.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "util/clock.h"
#include "gateway/engine_hot.h"
#include "util/rx_stamp.h"
#include "gateway/mon.h"
#include "gateway/path.h"
#include "net/netif.h"

#include "proto/moldudp64.h"

#define BLOCK_TIMEOUT_US 10000
#define RCVBUF_BYTES (4 << 20)
/* At shutdown, how long the loop keeps serving the closing session. */
#define CLOSE_NS (500 * NS_PER_MS)

static int fail(char *err, size_t errlen, const char *what)
{
	int ret = -errno;

	snprintf(err, errlen, "%s: %s%s", what, strerror(errno),
		 errno == ENODEV || errno == EADDRNOTAVAIL ?
		 " (run in the gateway's namespace: netns/rig.sh)" : "");
	return ret;
}

/*
 * A UDP socket bound to @local_port on every address and connected to
 * @ip:@port, so that it receives that peer's datagrams only, with a receive
 * buffer that holds bursts (two replies per order must not overflow while
 * the loop reads the feed).  Returns the socket, or -errno with the step
 * that failed in err.
 */
static int open_connected(uint16_t local_port, uint32_t ip, uint16_t port,
			  const char *what, const char *port_flag, const char *peer,
			  const char *addr_flag, char *err, size_t errlen)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	int one = 1, rcvbuf = RCVBUF_BYTES, fd, saved, ret;
	char step[128];

	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0) {
		snprintf(step, sizeof(step), "%s socket", what);
		return fail(err, errlen, step);
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	a.sin_addr.s_addr = htonl(INADDR_ANY);
	a.sin_port = htons(local_port);
	if (bind(fd, (struct sockaddr *)&a, sizeof(a))) {
		saved = errno;
		snprintf(step, sizeof(step), "binding the %s socket (%s)", what, port_flag);
		goto out_fail;
	}
	a.sin_addr.s_addr = htonl(ip);
	a.sin_port = htons(port);
	if (connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		saved = errno;
		if (saved == ENETUNREACH) {
			struct in_addr in = { .s_addr = a.sin_addr.s_addr };

			snprintf(err, errlen, "%s (%s) is not reachable from this namespace "
				 "(no route): pass %s with its address on this network",
				 peer, inet_ntoa(in), addr_flag);
			close(fd);
			return -ENETUNREACH;
		}
		snprintf(step, sizeof(step), "connecting the %s socket to %s", what, peer);
		goto out_fail;
	}
	return fd;
out_fail:
	errno = saved;
	ret = fail(err, errlen, step);
	close(fd);
	return ret;
}

/*
 * A socket receiving @group:@port (a multicast group joined on @ifname),
 * with kernel receive stamps.  Returns it, or -errno with the step in err.
 */
static int open_feed(uint32_t group, uint16_t port, const char *ifname, const char *what,
		     char *err, size_t errlen)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	struct ip_mreqn mreq = { 0 };
	int one = 1, rcvbuf = RCVBUF_BYTES, fd, ret;
	unsigned int ifindex = if_nametoindex(ifname);
	char step[96];

	if (!ifindex) {
		snprintf(err, errlen, "no interface '%s' here (wrong name, or run in the "
			 "gateway's namespace: netns/rig.sh)", ifname);
		return -ENODEV;
	}
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0) {
		snprintf(step, sizeof(step), "%s socket", what);
		return fail(err, errlen, step);
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one));
	a.sin_addr.s_addr = htonl(group);
	a.sin_port = htons(port);
	if (bind(fd, (struct sockaddr *)&a, sizeof(a))) {
		snprintf(step, sizeof(step), "binding the %s socket", what);
		goto fail;
	}
	if ((group >> 28) == 0xE) {
		mreq.imr_multiaddr.s_addr = htonl(group);
		mreq.imr_ifindex = (int)ifindex;
		if (setsockopt(fd, IPPROTO_IP, IP_ADD_MEMBERSHIP, &mreq, sizeof(mreq))) {
			snprintf(step, sizeof(step), "joining the %s group on %s", what, ifname);
			goto fail;
		}
	}
	return fd;
fail:
	ret = fail(err, errlen, step);
	close(fd);
	return ret;
}

static int open_session(struct udp_path *u, const struct gw_opts *o, char *err, size_t errlen);
static void on_decisions(void *ctx, const struct gw_decision *d, unsigned int n,
			 uint64_t t_seen);
static void send_rerequest(void *ctx, const uint8_t *pkt, size_t len);

int udp_path_open(struct udp_path *u, const struct gw_opts *o, char *err,
		  size_t errlen)
{
	struct timeval tv = { 0, BLOCK_TIMEOUT_US };
	int one = 1, ret;

	memset(&u->lines, 0, sizeof(u->lines));
	u->feed_fd = u->feed_b_fd = u->rq_fd = -1;
	u->oc.fd = u->oc.port_fd = -1;
	u->blocking = o->udp_recv == GW_UDP_BLOCK;
	u->feed_source = o->feed_source;
	u->feed_b_source = o->feed_b_source;
	u->rt_offset = realtime_offset();
	u->paper = o->eng.paper.on;
	u->no_kernel_stamp = u->send_errors = 0;
	gw_session_init(&u->sess, u->paper ? NULL : &u->oc,
			&(struct gw_session_out){ .send = on_decisions, .send_ctx = u,
						  .rerequest = o->rerequest_port ? send_rerequest : NULL,
						  .rerequest_ctx = u });

	u->feed_fd = open_feed(o->feed_group, o->feed_port, o->ifname, "feed", err, errlen);
	if (u->feed_fd < 0) {
		ret = u->feed_fd;
		goto out;
	}
	if (o->line_b_if) {
		u->feed_b_fd = open_feed(o->feed_b_group, o->feed_b_port, o->line_b_if,
					 "line B feed", err, errlen);
		if (u->feed_b_fd < 0) {
			ret = u->feed_b_fd;
			goto out;
		}
	}
	/* Blocking with one line: wait in recv; with two, in poll (see run). */
	if (u->blocking &&
	    setsockopt(u->feed_fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv))) {
		ret = fail(err, errlen, "feed receive timeout");
		goto out;
	}

	if (!u->paper) {
		ret = open_session(u, o, err, errlen);
		if (ret)
			goto out;
	}
	if (o->rerequest_port) {
		u->rq_fd = open_connected(o->retrans_port, o->rerequest_ip, o->rerequest_port,
					  "re-request", "--retrans-port",
					  "the re-request server", "--rerequest", err, errlen);
		if (u->rq_fd < 0) {
			ret = u->rq_fd;
			goto out;
		}
		/* Retransmissions are ticks too: their kernel stamp is t_hook. */
		setsockopt(u->rq_fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one));
	}
	/* Each socket's receive polls the NAPI its packets come from. */
	ret = busy_poll_set(u->feed_fd, &o->busy_poll, err, errlen);
	if (ret)
		goto out;
	return 0;
out:
	udp_path_close(u);
	return ret;
}

void udp_path_close(struct udp_path *u)
{
	if (u->feed_fd >= 0)
		close(u->feed_fd);
	if (u->feed_b_fd >= 0)
		close(u->feed_b_fd);
	if (u->rq_fd >= 0)
		close(u->rq_fd);
	u->feed_fd = u->feed_b_fd = u->rq_fd = -1;
	order_conn_destroy(&u->oc);
}

/* Kernel receive stamp of a datagram, on CLOCK_MONOTONIC; 0 if none. */
static uint64_t kernel_stamp(struct udp_path *u, struct msghdr *m)
{
	uint64_t t = rx_stamp_mono(m, u->rt_offset);

	if (!t)
		u->no_kernel_stamp++;
	return t;
}

/* A line's sender, when one is required (host order; 0 = any). */
static bool spoofed(uint32_t source, const struct sockaddr_in *from, socklen_t fromlen)
{
	return source && (fromlen < sizeof(*from) || from->sin_family != AF_INET ||
			  ntohl(from->sin_addr.s_addr) != source);
}

static void send_orders(struct udp_path *u, struct gw_engine *e,
			const struct gw_decision *dec, unsigned int nd,
			uint64_t t_seen)
{
	uint8_t out[OUCH_ENTER_PKT_LEN] __attribute__((aligned(8)));

	for (unsigned int i = 0; i < nd; i++) {
		struct gw_order *rec;

		engine_build_order(e, &dec[i], t_seen, out, &rec);
		rec->t.t_decided = mono_ns();
		rec->t.t_queued = mono_ns();
		if (order_conn_send(&u->oc, out, sizeof(out), t_seen)) {
			u->send_errors++;
			orders_failed(&e->ord, rec);
			continue;
		}
		rec->t.t_sent = mono_ns();
	}
}

/* The engine's sink: a print's orders, sent while its datagram is walked. */
static void on_decisions(void *ctx, const struct gw_decision *d, unsigned int n,
			 uint64_t t_seen)
{
	struct udp_path *u = ctx;

	send_orders(u, u->e, d, n, t_seen);
}

/* A re-request on the connected socket. */
static void send_rerequest(void *ctx, const uint8_t *pkt, size_t len)
{
	struct udp_path *u = ctx;

	if (send(u->rq_fd, pkt, len, MSG_DONTWAIT) != (ssize_t)len)
		u->send_errors++;
}

/* The session on a kernel TCP socket, from the exchange's address on the interface. */
static int open_session(struct udp_path *u, const struct gw_opts *o, char *err, size_t errlen)
{
	struct order_conn_cfg c = o->session;
	struct order_conn_ops ops;

	if (netif_routed(o->exch_ip) == -ENETUNREACH) {
		struct in_addr in = { .s_addr = htonl(o->exch_ip) };

		snprintf(err, errlen, "the exchange (%s) is not reachable from this namespace "
			 "(no route): pass --exchange with its address on this network",
			 inet_ntoa(in));
		return -ENETUNREACH;
	}
	gw_session_conn_ops(&u->sess, &ops);
	c.stack = OC_STACK_KERNEL;
	c.remote.ip = o->exch_ip;
	c.remote.port = o->exch_port;
	c.local.ip = 0;
	return order_conn_init(&u->oc, &c, &ops, NULL, err, errlen);
}

/* One feed datagram, then whatever it made decodable of the held ones. */
static void on_feed(struct udp_path *u, struct gw_engine *e,
		    const uint8_t *pkt, size_t len, uint64_t t_hook,
		    uint64_t t_seen, unsigned int flags)
{
	struct gw_decision dec[GW_MAX_DECISIONS];
	unsigned int nd = engine_on_feed(e, pkt, len, t_hook, t_seen, dec, flags);

	send_orders(u, e, dec, nd, t_seen);
	if (gap_open(&e->gap))
		gw_session_drain_held(&u->sess, t_seen);
}

/* Retransmissions from the re-request server, without blocking. */
static void drain_retrans(struct udp_path *u, struct gw_engine *e)
{
	uint8_t buf[2048];
	char cbuf[CMSG_SPACE(sizeof(struct timespec)) * 2];
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };

	if (u->rq_fd < 0)
		return;
	for (;;) {
		struct msghdr m = {
			.msg_iov = &iov, .msg_iovlen = 1,
			.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
		};
		ssize_t n = recvmsg(u->rq_fd, &m, MSG_DONTWAIT);

		if (n < 0)
			return;
		on_feed(u, e, buf, (size_t)n, kernel_stamp(u, &m), mono_ns(), ORDER_F_RETRANS);
	}
}

/*
 * One datagram of line @line's socket, if there is one (@flags: MSG_DONTWAIT
 * or blocking): 1 when one came, 0 when none.
 */
static int recv_line(struct udp_path *u, struct gw_engine *e, int fd, unsigned int line,
		     int flags)
{
	uint8_t buf[2048];
	char cbuf[CMSG_SPACE(sizeof(struct timespec)) * 2];
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct sockaddr_in from;
	struct msghdr m = {
		.msg_name = &from, .msg_namelen = sizeof(from),
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	ssize_t n = recvmsg(fd, &m, flags);
	uint64_t t_seen;

	if (n < 0)
		return 0;
	t_seen = mono_ns();
	if (unlikely(spoofed(line ? u->feed_b_source : u->feed_source, &from, m.msg_namelen)))
		e->st.spoofed++;
	else if (u->feed_b_fd < 0 || lines_keep(&u->lines, line, &e->dec, buf, (size_t)n))
		on_feed(u, e, buf, (size_t)n, kernel_stamp(u, &m), t_seen, 0);
	return 1;
}

/* After the loop: log out, close, and read what comes until it is done. */
static void close_session(struct udp_path *u)
{
	uint64_t end = mono_ns() + CLOSE_NS;

	if (!gw_session_shutdown(&u->sess, mono_ns()))
		return;
	while (!gw_session_closed(&u->sess) && mono_ns() < end)
		order_conn_idle(&u->oc, mono_ns());
}

/* Blocking with two lines: sleep until either has a datagram (or 10 ms). */
static void wait_lines(struct udp_path *u)
{
	struct pollfd p[2] = { { .fd = u->feed_fd, .events = POLLIN },
			       { .fd = u->feed_b_fd, .events = POLLIN } };

	poll(p, 2, BLOCK_TIMEOUT_US / 1000);
}

void udp_path_run(struct udp_path *u, struct gw_engine *e, struct run_ctl *ctl)
{
	bool two = u->feed_b_fd >= 0;
	int flags = u->blocking && !two ? 0 : MSG_DONTWAIT;
	uint64_t end_at = 0, spins = 0;

	u->e = e;
	if (!u->paper)
		engine_set_sink(e, on_decisions, u);
	gw_session_start(&u->sess, e, mono_ns());
	while (!ctl->stop) {
		int got;

		if (u->blocking && two)
			wait_lines(u);
		got = recv_line(u, e, u->feed_fd, 0, flags);
		if (two)
			got += recv_line(u, e, u->feed_b_fd, 1, MSG_DONTWAIT);
		if (got) {
			/* A busy feed must not starve the replies (nor the gap work). */
			if (u->blocking || gap_open(&e->gap) || ++spins % 16 == 0) {
				gw_session_poll(&u->sess, mono_ns());
				drain_retrans(u, e);
				gw_session_housekeeping(&u->sess, mono_ns());
			}
			continue;
		}
		/* While something is missing, its answer is what we wait for. */
		if (!u->blocking && ++spins % 64 && !gap_open(&e->gap))
			continue;
		gw_session_poll(&u->sess, mono_ns());
		drain_retrans(u, e);
		gw_session_housekeeping(&u->sess, mono_ns());
		gw_mon_idle(ctl->mon, e, mono_ns());
		if (e->ended && ctl->exit_on_end) {
			if (!end_at)
				end_at = mono_ns() + ctl->grace_ns;
			else if (mono_ns() > end_at)
				break;
		}
	}
	close_session(u);
}
