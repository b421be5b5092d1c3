// SPDX-License-Identifier: MIT
/*
 * The bare kernel responder: a non-blocking busy spin on the feed socket,
 * each feed packet's first trade print answered in the order session on a
 * kernel TCP socket (net/order_conn.h), as the gateway's kernel path does.
 * The kernel's receive stamp (SO_TIMESTAMPNS) is the hook.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bench/floor/floor.h"
#include "util/clock.h"
#include "util/rx_stamp.h"

#define RCVBUF_BYTES	(4 << 20)
#define IDLE_DRAIN	64	/* idle spins between reply drains */

struct floor_udp {
	int feed_fd;
	struct order_conn oc;		/* the order session, on kernel TCP */
	uint32_t feed_source;		/* host order; 0: any */
	int64_t rt_offset;		/* CLOCK_REALTIME - CLOCK_MONOTONIC */
	uint64_t no_kernel_stamp;
	uint64_t spoofed;
};

static int fail(char *err, size_t errlen, const char *what)
{
	int ret = -errno;

	snprintf(err, errlen, "%s: %s", what, strerror(errno));
	return ret;
}

int floor_udp_open(struct floor_udp **out, const struct floor_opts *o, struct floor *f,
		   char *err, size_t errlen)
{
	struct order_conn_ops ops = floor_session_ops;
	struct order_conn_cfg sc = o->session;
	struct sockaddr_in a = { .sin_family = AF_INET };
	struct ip_mreqn mreq = { 0 };
	int one = 1, rcvbuf = RCVBUF_BYTES, ret;
	struct floor_udp *u;
	unsigned int ifindex = if_nametoindex(o->ifname);

	if (!ifindex) {
		snprintf(err, errlen, "no interface '%s' here (run in the responder's "
			 "namespace: netns/rig.sh)", o->ifname);
		return -ENODEV;
	}
	u = calloc(1, sizeof(*u));
	if (!u) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	u->oc.fd = u->oc.port_fd = -1;
	u->feed_source = o->feed_source;
	u->rt_offset = realtime_offset();
	u->feed_fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (u->feed_fd < 0) {
		ret = fail(err, errlen, "feed socket");
		goto fail;
	}
	setsockopt(u->feed_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	setsockopt(u->feed_fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	setsockopt(u->feed_fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one));
	a.sin_addr.s_addr = htonl(o->feed_group);
	a.sin_port = htons(o->feed_port);
	if (bind(u->feed_fd, (struct sockaddr *)&a, sizeof(a))) {
		ret = fail(err, errlen, "binding the feed socket");
		goto fail;
	}
	if ((o->feed_group >> 28) == 0xE) {
		mreq.imr_multiaddr.s_addr = htonl(o->feed_group);
		mreq.imr_ifindex = (int)ifindex;
		if (setsockopt(u->feed_fd, IPPROTO_IP, IP_ADD_MEMBERSHIP, &mreq, sizeof(mreq))) {
			ret = fail(err, errlen, "joining the feed group");
			goto fail;
		}
	}
	ret = busy_poll_set(u->feed_fd, &o->busy_poll, err, errlen);
	if (ret)
		goto fail;
	sc.stack = OC_STACK_KERNEL;
	sc.remote.ip = o->exch_ip;
	sc.remote.port = o->exch_port;
	sc.busy_poll = o->busy_poll;
	ops.ctx = f;
	ret = order_conn_init(&u->oc, &sc, &ops, NULL, err, errlen);
	if (ret)
		goto fail;
	*out = u;
	return 0;
fail:
	floor_udp_close(u);
	return ret;
}

void floor_udp_close(struct floor_udp *u)
{
	if (!u)
		return;
	if (u->feed_fd >= 0)
		close(u->feed_fd);
	order_conn_destroy(&u->oc);
	free(u);
}

void floor_udp_json(struct floor_udp *u, char *buf, size_t len)
{
	int n = floor_session_json(&u->oc, buf, len);

	if (n < 0 || (size_t)n + 2 >= len)
		return;
	snprintf(buf + n, len - (size_t)n, ",\n  \"udp\": {\"no_kernel_stamp\": %" PRIu64
		 ", \"spoofed\": %" PRIu64 ", \"napi_id\": %u}", u->no_kernel_stamp, u->spoofed,
		 busy_poll_napi_id(u->feed_fd));
}

/* Kernel receive stamp on CLOCK_MONOTONIC; 0 if none. */
static uint64_t kernel_stamp(struct floor_udp *u, struct msghdr *m)
{
	uint64_t t = rx_stamp_mono(m, u->rt_offset);

	if (!t)
		u->no_kernel_stamp++;
	return t;
}


static void answer(struct floor_udp *u, struct floor *f, const struct floor_tick *t,
		   uint64_t t_hook, uint64_t t_seen)
{
	uint8_t out[OUCH_ENTER_PKT_LEN] __attribute__((aligned(8)));
	struct floor_rec *rec;

	if (!order_conn_up(&u->oc)) {
		f->st.not_up++;
		return;
	}
	floor_answer(f, t, out, &rec);
	if (rec) {
		rec->t.t_hook = t_hook;
		rec->t.t_seen = t_seen;
		rec->t.t_decided = mono_ns();
		rec->t.t_queued = mono_ns();
	}
	if (order_conn_send(&u->oc, out, sizeof(out), t_seen)) {
		f->st.send_failed++;
		if (rec)
			rec->outcome = ORDER_SEND_FAILED;
		return;
	}
	if (rec)
		rec->t.t_sent = mono_ns();
}

void floor_udp_run(struct floor_udp *u, struct floor *f)
{
	uint8_t buf[2048];
	char cbuf[CMSG_SPACE(sizeof(struct timespec)) * 2];
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	uint64_t spins = 0, end;

	order_conn_start(&u->oc, mono_ns());
	while (true) {
		struct sockaddr_in from;
		struct msghdr m = {
			.msg_name = &from, .msg_namelen = sizeof(from),
			.msg_iov = &iov, .msg_iovlen = 1,
			.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
		};
		ssize_t n = recvmsg(u->feed_fd, &m, MSG_DONTWAIT);
		struct floor_tick t;
		uint64_t t_seen;

		if (n < 0) {
			if (++spins % IDLE_DRAIN)
				continue;
			order_conn_idle(&u->oc, mono_ns());
			if (floor_done(f, mono_ns()))
				break;
			continue;
		}
		/* A busy feed must not starve the replies. */
		if (++spins % IDLE_DRAIN == 0)
			order_conn_poll(&u->oc, mono_ns());
		t_seen = mono_ns();
		f->st.packets++;
		if (u->feed_source && (m.msg_namelen < sizeof(from) ||
				       ntohl(from.sin_addr.s_addr) != u->feed_source)) {
			u->spoofed++;
			f->st.other++;
			continue;
		}
		f->st.feed_packets++;
		switch (floor_find_tick(f, buf, (size_t)n, &t)) {
		case FLOOR_TICK: {
			uint64_t t_hook = kernel_stamp(u, &m);

			do {
				if (floor_take(f))
					answer(u, f, &t, t_hook, t_seen);
			} while (floor_more_ticks(f, buf, (size_t)n, &t) == FLOOR_TICK);
			break;
		}
		case FLOOR_END:
			floor_on_end(f, t_seen);
			break;
		default:
			f->st.no_tick++;
		}
	}
	order_conn_shutdown(&u->oc, mono_ns());
	end = mono_ns() + FLOOR_CLOSE_NS;
	while (!order_conn_stopped(&u->oc) && mono_ns() < end)
		order_conn_idle(&u->oc, mono_ns());
}
