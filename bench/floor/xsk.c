// SPDX-License-Identifier: MIT
/*
 * The bare AF_XDP responder: the gateway's XDP program, socket code and
 * TCP, nothing else.  Busy-poll the RX ring, answer each feed packet's
 * first trade print with an order built in a TX frame of the session's
 * connection, kick once per batch.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/floor/floor.h"
#include "bpf/steer_loader.h"
#include "net/netif.h"
#include "net/xsk_port.h"
#include "net/xsk_session.h"
#include "proto/frame.h"
#include "util/clock.h"
#include "util/compiler.h"

#define FRAME_SIZE	2048
#define TX_FRAMES	1024
#define MAX_BATCH	256
#define IDLE_CHECK	64	/* idle spins between looks at the clock */


struct floor_xsk {
	struct xdp_steer steer;
	struct xsk_port port;
	struct xsk_session xs;		/* the order session, on the own TCP */
	uint16_t feed_port;
	uint32_t batch;
	/*
	 * --spin-frame: the kernel fills frames in the order the fill ring
	 * gave them, and this loop gives them back in the order they came, so
	 * the k-th packet lands in frame k mod ring.  Its metadata slot (the
	 * XDP stamp) is cleared when the frame is recycled; once it reads
	 * non-zero the copy has begun, and the frame's lines are pulled in
	 * while the kernel finishes and publishes the descriptor.  Nothing is
	 * acted on before the descriptor: the copy is ordered only by it.
	 */
	bool spin_frame;
	bool spun;			/* the next frame's lines were pulled in */
	uint32_t data_off;		/* packet data's offset in its frame; 0: unknown */
	uint64_t rx_count;
	uint64_t spin_hits;		/* the descriptor came for a frame seen filling */
	uint64_t spin_misses;		/* it came for another frame */
};

int floor_xsk_open(struct floor_xsk **out, const struct floor_opts *o, struct floor *f,
		   char *err, size_t errlen)
{
	struct order_conn_ops ops = floor_session_ops;
	struct order_conn_cfg sc = o->session;
	struct frame_endpoint src = { 0 }, dst = { 0 };
	struct xsk_port_cfg pcfg = {
		.ifname = o->ifname,
		.queue = o->queue,
		.frame_size = FRAME_SIZE,
		.rx_frames = o->ring_size,
		.tx_frames = TX_FRAMES,
		.ring_size = o->ring_size,
		.busy_poll = o->busy_poll,
	};
	struct floor_xsk *x;
	char net[32];
	int ret;

	x = calloc(1, sizeof(*x));
	if (!x) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	x->port.fd = -1;
	x->xs.oc.fd = x->xs.oc.port_fd = -1;
	x->feed_port = o->feed_port;
	x->batch = o->batch;
	x->spin_frame = o->spin_frame;
	ret = netif_addr(o->ifname, &src.ip, src.mac, err, errlen);
	if (ret)
		goto fail_free;
	if (netif_on_link(o->ifname, o->exch_ip, net, sizeof(net)) != 1) {
		snprintf(err, errlen, "the exchange is not on %s's network %s: pass --exchange",
			 o->ifname, net);
		ret = -ENETUNREACH;
		goto fail_free;
	}
	ret = netif_neigh_mac(o->ifname, o->exch_ip, dst.mac, err, errlen);
	if (ret)
		goto fail_free;
	src.port = o->session.local.port;
	dst.ip = o->exch_ip;
	dst.port = o->exch_port;

	ret = xdp_steer_open(&x->steer, o->ifname, o->xdp_generic, false, err, errlen);
	if (ret)
		goto fail_free;
	/* One feed line (A), never armed: every feed packet goes to the socket. */
	ret = xdp_steer_add_flow(&x->steer, htonl(o->feed_group), htons(o->feed_port),
				 STEER_FLOW_FEED, htonl(o->feed_source), 0);
	if (ret) {
		snprintf(err, errlen, "cannot configure the steered flows: %s", strerror(-ret));
		goto fail_steer;
	}
	pcfg.xskmap_fd = xdp_steer_xskmap_fd(&x->steer);
	pcfg.xskmap_key = xdp_steer_xskmap_key(0, o->queue);
	ret = xsk_port_open(&x->port, &pcfg, err, errlen);
	if (ret)
		goto fail_steer;
	sc.local = src;
	sc.remote = dst;
	ops.ctx = f;
	ret = xsk_session_init(&x->xs, &sc, &ops, &x->port, &x->steer, err, errlen);
	if (ret)
		goto fail_port;
	*out = x;
	return 0;
fail_port:
	xsk_port_close(&x->port);
fail_steer:
	xdp_steer_close(&x->steer);
fail_free:
	free(x);
	return ret;
}

void floor_xsk_close(struct floor_xsk *x)
{
	if (!x)
		return;
	/* Detach first, so nothing is steered into a socket that is going away. */
	xdp_steer_close(&x->steer);
	xsk_port_close(&x->port);
	xsk_session_destroy(&x->xs);
	free(x);
}

void floor_xsk_json(struct floor_xsk *x, char *buf, size_t len)
{
	uint64_t c[STEER_NR_COUNTERS] = { 0 };
	struct xdp_statistics st = { 0 };
	int n;

	if (x->steer.skel)
		xdp_steer_counters(&x->steer, c);
	xsk_port_kernel_stats(&x->port, &st);
	n = floor_session_json(&x->xs.oc, buf, len);
	if (n < 0 || (size_t)n + 2 >= len)
		return;
	buf += n;
	len -= (size_t)n;
	n = snprintf(buf, len, ",\n");
	buf += n;
	len -= (size_t)n;
	snprintf(buf, len, "  \"xdp\": {\"seen\": %" PRIu64 ", \"steered\": %" PRIu64
		 ", \"passed\": %" PRIu64 ", \"no_meta\": %" PRIu64
		 ", \"rx_dropped\": %llu, \"rx_ring_full\": %llu"
		 ", \"rx_fill_ring_empty\": %llu, \"tx_ring_empty\": %llu"
		 ", \"tx_pool_empty\": %" PRIu64 ", \"tx_ring_full\": %" PRIu64
		 ", \"kick_errors\": %" PRIu64 ", \"napi_id\": %u"
		 ", \"spin_hits\": %" PRIu64 ", \"spin_misses\": %" PRIu64 "}",
		 c[STEER_SEEN], c[STEER_STEERED], c[STEER_PASSED], c[STEER_NO_META],
		 (unsigned long long)st.rx_dropped, (unsigned long long)st.rx_ring_full,
		 (unsigned long long)st.rx_fill_ring_empty_descs,
		 (unsigned long long)st.tx_ring_empty_descs, x->port.tx_pool_empty,
		 x->port.tx_ring_full, x->port.kick_errors, busy_poll_napi_id(x->port.fd),
		 x->spin_hits, x->spin_misses);
}

/* The frame the next packet will land in (see struct floor_xsk). */
static inline uint8_t *next_frame(struct floor_xsk *x)
{
	uint64_t base = (x->rx_count & (x->port.ring_size - 1)) * FRAME_SIZE;

	return xsk_port_data(&x->port, base + x->data_off);
}

static inline void spin_next(struct floor_xsk *x)
{
	const uint8_t *buf;

	if (x->spun || !x->data_off)
		return;
	/* The hook's stamp comes first: a non-zero one is the marker. */
	buf = next_frame(x);
	if (!*(const volatile uint64_t *)buf)
		return;
	/* Copy under way: pull the lines over now, act on the descriptor only. */
	for (unsigned int off = 0; off < 128 + STEER_STAMP_LEN; off += 64)
		__builtin_prefetch(buf + off);
	x->spun = true;
}

/* One answered tick: its order in a TX frame, on the TX ring. */
static inline void answer(struct floor_xsk *x, struct floor *f, const struct floor_tick *t,
			  uint64_t t_hook, uint64_t t_seen, struct floor_rec **pending,
			  unsigned int *np)
{
	uint64_t addr, sum;
	struct floor_rec *rec;

	if (!order_conn_up(&x->xs.oc)) {
		f->st.not_up++;
		return;
	}
	addr = xsk_port_tx_frame(&x->port);
	if (addr == UINT64_MAX) {
		f->st.ticks++;
		f->st.send_failed++;
		return;
	}
	sum = floor_answer(f, t, xsk_port_data(&x->port, addr) + FRAME_TCP_HDR_LEN, &rec);
	if (rec) {
		rec->t.t_hook = t_hook;
		rec->t.t_seen = t_seen;
		rec->t.t_decided = mono_ns();
	}
	if (xsk_session_send(&x->xs, addr, OUCH_ENTER_PKT_LEN, sum, t_seen) < 0) {
		f->st.send_failed++;
		if (rec)
			rec->outcome = ORDER_SEND_FAILED;
		return;
	}
	if (rec) {
		rec->t.t_queued = mono_ns();
		pending[(*np)++] = rec;
	}
}

/* The kick for what the session and the answers put on the TX ring. */
static void kick(struct floor_xsk *x, struct floor *f, unsigned int queued,
		 struct floor_rec **pending, unsigned int np)
{
	uint64_t t_sent;

	if (x->port.tx_inflight == queued && !x->xs.queued)
		return;
	xsk_port_kick(&x->port);
	f->st.kicks++;
	x->xs.queued = 0;
	t_sent = mono_ns();
	for (unsigned int i = 0; i < np; i++)
		pending[i]->t.t_sent = t_sent;
}

/* One received frame: the feed, or the session's segment. */
static inline void on_frame(struct floor_xsk *x, struct floor *f, const uint8_t *pkt,
			    uint32_t len, uint64_t t_hook, uint64_t t_seen,
			    struct floor_rec **pending, unsigned int *np)
{
	struct floor_tick t;
	struct frame_ip4 ip;
	struct frame_udp u;
	int bad;

	if (frame_parse_ip4(pkt, len, &ip)) {
		f->st.other++;
		return;
	}
	if (ip.proto == IPPROTO_TCP_NUM) {
		if (!xsk_session_on_tcp(&x->xs, &ip, t_seen, &bad))
			f->st.other++;
		return;
	}
	if (frame_parse_udp_ip4(&ip, &u) || u.dst_port != x->feed_port) {
		f->st.other++;
		return;
	}
	f->st.feed_packets++;
	switch (floor_find_tick(f, u.payload, u.payload_len, &t)) {
	case FLOOR_TICK:
		do {
			if (floor_take(f))
				answer(x, f, &t, t_hook, t_seen, pending, np);
		} while (*np < MAX_BATCH &&
			 floor_more_ticks(f, u.payload, u.payload_len, &t) == FLOOR_TICK);
		break;
	case FLOOR_END:
		floor_on_end(f, t_seen);
		break;
	default:
		f->st.no_tick++;
	}
}

/* One look at the RX ring: what was there, handed on, and the kick. */
static uint32_t rx_batch(struct floor_xsk *x, struct floor *f)
{
	struct xsk_port *p = &x->port;
	struct floor_rec *pending[MAX_BATCH];
	uint64_t recycle[MAX_BATCH];
	uint32_t idx, n = xsk_ring_cons__peek(&p->rx, x->batch, &idx);
	unsigned int np = 0, queued = p->tx_inflight;
	uint64_t t_seen;

	if (!n)
		return 0;
	t_seen = mono_ns();
	for (uint32_t i = 0; i < n; i++) {
		const struct xdp_desc *d = xsk_ring_cons__rx_desc(&p->rx, idx + i);
		uint64_t base = xsk_umem__extract_addr(d->addr);
		uint8_t *buf = xsk_port_data(p, d->addr);
		uint64_t t_hook;

		recycle[i] = base;
		/* The XDP program's stamp comes first, then the packet. */
		if (d->len < STEER_STAMP_LEN) {
			f->st.other++;
			continue;
		}
		t_hook = steer_frame_stamp(buf);
		if (x->spin_frame) {
			bool hit = x->spun && base == (x->rx_count & (p->ring_size - 1)) *
							 FRAME_SIZE;

			x->spin_hits += hit;
			x->spin_misses += !hit;
			x->spun = false;
			x->data_off = (uint32_t)(d->addr - base);
			/* The marker spin_next() waits for, cleared for the next round. */
			memset(buf, 0, STEER_STAMP_LEN);
		}
		x->rx_count++;
		f->st.packets++;
		on_frame(x, f, buf + STEER_STAMP_LEN, d->len - STEER_STAMP_LEN, t_hook, t_seen,
			 pending, &np);
	}
	xsk_ring_cons__release(&p->rx, n);
	xsk_port_refill(p, recycle, n);
	kick(x, f, queued, pending, np);
	xsk_port_reap(p);
	return n;
}

/* The session's timers, and an ACK it owes, with their kick. */
static void idle(struct floor_xsk *x, struct floor *f, uint64_t now)
{
	unsigned int queued = x->port.tx_inflight;

	order_conn_idle(&x->xs.oc, now);
	kick(x, f, queued, NULL, 0);
	xsk_port_reap(&x->port);
}

void floor_xsk_run(struct floor_xsk *x, struct floor *f)
{
	struct xsk_port *p = &x->port;
	uint64_t spins = 0, end;

	order_conn_start(&x->xs.oc, mono_ns());
	idle(x, f, mono_ns());
	while (true) {
		if (rx_batch(x, f))
			continue;
		xsk_port_poll(p);
		if (x->spin_frame)
			spin_next(x);
		if (unlikely(x->xs.oc.tcp->ack_due)) {
			unsigned int queued = p->tx_inflight;

			tcp_output(x->xs.oc.tcp, mono_ns());
			kick(x, f, queued, NULL, 0);
		}
		if (++spins % IDLE_CHECK == 0) {
			idle(x, f, mono_ns());
			if (floor_done(f, mono_ns()))
				break;
		}
	}
	/* Log out and close, serving the connection until it is done. */
	order_conn_shutdown(&x->xs.oc, mono_ns());
	end = mono_ns() + FLOOR_CLOSE_NS;
	while (!order_conn_stopped(&x->xs.oc) && mono_ns() < end) {
		rx_batch(x, f);
		idle(x, f, mono_ns());
	}
}
