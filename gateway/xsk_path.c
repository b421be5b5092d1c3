// SPDX-License-Identifier: MIT
/*
 * The AF_XDP path: XDP steers the feed and the order replies into one
 * socket; the loop busy-polls its RX ring, decodes and decides in place in
 * the UMEM frame, builds each order in a TX frame from the header template
 * and kicks the TX ring once per RX batch.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/clock.h"
#include "gateway/mon.h"
#include "net/netif.h"
#include "gateway/path.h"

#include "proto/moldudp64.h"
#include "proto/proto_err.h"

#ifndef unlikely
#define unlikely(x) __builtin_expect(!!(x), 0)
#endif

#define RX_BATCH	64
#define FRAME_SIZE	2048
#define TX_FRAMES	1024

/* Frames go straight to the exchange's MAC: given, or a neighbour's. */
static int exchange_mac(const struct gw_opts *o, uint8_t *mac, char *err, size_t errlen)
{
	struct in_addr in = { .s_addr = htonl(o->exch_ip) };
	char net[32];

	if (o->have_exch_mac) {
		memcpy(mac, o->exch_mac, 6);
		return 0;
	}
	if (!netif_on_link(o->ifname, o->exch_ip, net, sizeof(net))) {
		snprintf(err, errlen, "the exchange (%s) is not on %s's network %s: "
			 "pass --exchange with its address on this network (or, "
			 "when it is routed, --exchange-mac with the next hop's MAC)",
			 inet_ntoa(in), o->ifname, net);
		return -ENETUNREACH;
	}
	return netif_neigh_mac(o->ifname, o->exch_ip, mac, err, errlen);
}

/* The frame templates (orders, re-requests) and the ports the loop tells apart. */
static void set_up_frames(struct xsk_path *x, const struct gw_opts *o,
			  const struct frame_endpoint *src, const struct frame_endpoint *dst)
{
	frame_template_init(&x->tmpl, src, dst, 64, 0);
	x->feed_port = o->feed_port;
	x->reply_port = o->local_port;
	x->retrans_port = o->retrans_port;
	x->verify_csum = !o->no_verify_csum;
	x->idle_mask = o->warm_every - 1;
	x->rq_enabled = o->rerequest_port != 0;
	if (x->rq_enabled) {
		struct frame_endpoint rsrc = *src, rdst = *dst;

		rsrc.port = o->retrans_port;
		rdst.ip = o->rerequest_ip;
		rdst.port = o->rerequest_port;
		frame_template_init(&x->rq_tmpl, &rsrc, &rdst, 64, 0);
	}
}

/* Line B's interface, and the flows the XDP program steers to the socket. */
static int steer_flows(struct xsk_path *x, const struct gw_opts *o, uint32_t src_ip,
		       char *err, size_t errlen)
{
	int ret;

	x->line_b = o->line_b_if != NULL;
	if (x->line_b) {
		ret = xdp_steer_add_if(&x->steer, o->line_b_if, o->replace_xdp, err, errlen);
		if (ret)
			return ret;
	}
	ret = xdp_steer_add_flow(&x->steer, htonl(o->feed_group), htons(o->feed_port),
				 STEER_FLOW_FEED, htonl(o->feed_source), 0);
	if (!ret && x->line_b)
		ret = xdp_steer_add_flow(&x->steer, htonl(o->feed_b_group), htons(o->feed_b_port),
					 STEER_FLOW_FEED, htonl(o->feed_b_source), 1);
	if (!ret)
		ret = xdp_steer_add_flow(&x->steer, htonl(src_ip), htons(o->local_port),
					 STEER_FLOW_REPLY, htonl(o->exch_ip), 0);
	if (!ret && x->rq_enabled)
		ret = xdp_steer_add_flow(&x->steer, htonl(src_ip), htons(o->retrans_port),
					 STEER_FLOW_RETRANS, htonl(o->rerequest_ip), 0);
	if (ret)
		snprintf(err, errlen, "cannot configure the steered flows: %s", strerror(-ret));
	return ret;
}

/* Line A's socket, and line B's when there is one; both or neither. */
static int open_ports(struct xsk_path *x, const struct gw_opts *o, char *err,
		      size_t errlen)
{
	struct xsk_port_cfg pcfg = {
		.ifname = o->ifname,
		.queue = o->queue,
		.frame_size = FRAME_SIZE,
		.rx_frames = o->ring_size,
		.tx_frames = TX_FRAMES,
		.ring_size = o->ring_size,
		.zero_copy = o->zero_copy,
		.busy_poll = o->busy_poll,
		.xskmap_fd = xdp_steer_xskmap_fd(&x->steer),
		.xskmap_key = xdp_steer_xskmap_key(0, o->queue),
	};
	int ret;

	ret = xsk_port_open(&x->port, &pcfg, err, errlen);
	if (ret || !x->line_b)
		return ret;
	/* Receive only: orders, replies and re-requests use line A's. */
	pcfg.ifname = o->line_b_if;
	pcfg.tx_frames = 64;
	pcfg.xskmap_key = xdp_steer_xskmap_key(1, o->queue);
	ret = xsk_port_open(&x->port_b, &pcfg, err, errlen);
	if (ret)
		xsk_port_close(&x->port);
	return ret;
}

static int open_warm(struct xsk_path *x, const struct gw_opts *o, char *err,
		     size_t errlen)
{
	if (o->no_warm)
		return 0;
	x->warm = malloc(sizeof(*x->warm));
	if (!x->warm || warm_init(x->warm, &o->eng, &x->tmpl, err, errlen)) {
		free(x->warm);
		x->warm = NULL;
		return -ENOMEM;
	}
	return 0;
}

int xsk_path_open(struct xsk_path *x, const struct gw_opts *o, char *err,
		  size_t errlen)
{
	struct frame_endpoint src = { 0 }, dst = { 0 };
	int ret;

	memset(x, 0, sizeof(*x));
	x->port.fd = -1;
	x->port_b.fd = -1;
	ret = netif_addr(o->ifname, &src.ip, src.mac, err, errlen);
	if (ret)
		return ret;
	ret = exchange_mac(o, dst.mac, err, errlen);
	if (ret)
		return ret;
	src.port = o->local_port;
	dst.ip = o->exch_ip;
	dst.port = o->exch_port;
	set_up_frames(x, o, &src, &dst);

	ret = xdp_steer_open(&x->steer, o->ifname, o->xdp_generic, o->replace_xdp,
			     err, errlen);
	if (ret)
		return ret;
	ret = steer_flows(x, o, src.ip, err, errlen);
	if (ret)
		goto fail;
	ret = open_ports(x, o, err, errlen);
	if (ret)
		goto fail;
	ret = open_warm(x, o, err, errlen);
	if (ret)
		goto fail_ports;
	return 0;
fail_ports:
	xsk_port_close(&x->port);
	xsk_port_close(&x->port_b);
fail:
	xdp_steer_close(&x->steer);
	return ret;
}

void xsk_path_close(struct xsk_path *x)
{
	/* Detach first, so nothing is steered into a socket that is going away. */
	xdp_steer_close(&x->steer);
	xsk_port_close(&x->port);
	xsk_port_close(&x->port_b);
	if (x->warm) {
		warm_destroy(x->warm);
		free(x->warm);
		x->warm = NULL;
	}
}

/* Order frames built from one RX batch, kicked together. */
struct tx_batch {
	struct gw_order *rec[RX_BATCH * 4];
	unsigned int n;
	unsigned int frames;	/* frames queued, orders or not */
};

/* The TX kick for everything queued, and t_sent for its orders. */
static void tx_flush(struct xsk_path *x, struct tx_batch *b)
{
	uint64_t t_sent;

	if (!b->frames)
		return;
	xsk_port_kick(&x->port);
	x->kicks++;
	t_sent = mono_ns();
	for (unsigned int i = 0; i < b->n; i++)
		b->rec[i]->t.t_sent = t_sent;
	b->n = 0;
	b->frames = 0;
}

static void send_orders(struct xsk_path *x, struct gw_engine *e,
			const struct gw_decision *dec, unsigned int nd,
			uint64_t t_seen, struct tx_batch *b)
{
	for (unsigned int i = 0; i < nd; i++) {
		uint64_t addr = xsk_port_tx_frame(&x->port);
		struct gw_order *rec;
		uint8_t *frame;
		uint64_t sum;
		size_t len;

		if (b->n == sizeof(b->rec) / sizeof(b->rec[0]))
			tx_flush(x, b);
		if (addr == UINT64_MAX) {
			orders_unreserve(&e->ord, &dec[i]);
			continue;
		}
		frame = xsk_port_data(&x->port, addr);
		sum = engine_build_order(e, &dec[i], t_seen, frame + FRAME_HDR_LEN, &rec);
		len = frame_finish_sum(&x->tmpl, frame, OUCH_ENTER_DGRAM_LEN, sum);
		rec->t.t_decided = mono_ns();
		if (xsk_port_tx_queue(&x->port, addr, (uint32_t)len)) {
			orders_failed(&e->ord, rec);
			continue;
		}
		rec->t.t_queued = mono_ns();
		b->rec[b->n++] = rec;
		b->frames++;
	}
}

/* Held packets that can be decoded now, GW_DRAIN_BUDGET at a time. */
static void drain_held(struct xsk_path *x, struct gw_engine *e, uint64_t now,
		       struct tx_batch *b)
{
	struct gw_decision dec[GW_MAX_DECISIONS];
	unsigned int nd;

	for (int i = 0; i < GW_DRAIN_BUDGET && engine_feed_held(e, now, dec, &nd); i++)
		send_orders(x, e, dec, nd, now, b);
}

/* One feed datagram, then whatever it made decodable of the held ones. */
static inline void on_feed(struct xsk_path *x, struct gw_engine *e,
			   const uint8_t *pkt, size_t len, uint64_t t_hook,
			   uint64_t t_seen, unsigned int flags,
			   struct tx_batch *b)
{
	struct gw_decision dec[GW_MAX_DECISIONS];
	unsigned int nd = engine_on_feed(e, pkt, len, t_hook, t_seen, dec, flags);

	if (nd)
		send_orders(x, e, dec, nd, t_seen, b);
	/* Two lines: the hook keeps the first copy of the session it decodes. */
	if (unlikely(e->dec.last.new_session) && x->line_b)
		xdp_steer_arm(&x->steer, (const uint8_t *)e->dec.session, e->dec.next_seq);
	if (unlikely(gap_open(&e->gap)))
		drain_held(x, e, t_seen, b);
}

/* A control datagram (re-request, resend request) through the TX ring. */
static void send_control(struct xsk_path *x, struct frame_template *t,
			 const uint8_t *payload, size_t plen, struct tx_batch *b)
{
	uint64_t addr = xsk_port_tx_frame(&x->port);
	uint8_t *frame;
	size_t len;

	if (addr == UINT64_MAX)
		return;		/* counted as tx_pool_empty; asked again later */
	frame = xsk_port_data(&x->port, addr);
	memcpy(frame + FRAME_HDR_LEN, payload, plen);
	len = frame_finish(t, frame, plen);
	if (!xsk_port_tx_queue(&x->port, addr, (uint32_t)len))
		b->frames++;
}

/* Off the per-packet path: re-requests, reply recovery, order timeouts. */
static void housekeeping(struct xsk_path *x, struct gw_engine *e,
			 uint64_t now, struct tx_batch *b)
{
	uint8_t buf[MOLD_REREQ_LEN > OUCH_RESEND_DGRAM_LEN ? MOLD_REREQ_LEN :
		    OUCH_RESEND_DGRAM_LEN];
	struct mold_rerequest rq;
	uint64_t first;
	uint16_t count;

	if (gap_open(&e->gap)) {
		memcpy(rq.session, e->dec.session, MOLD_SESSION_LEN);
		while (x->rq_enabled && engine_gap_request(e, now, &rq.seq, &rq.count)) {
			mold_encode_rerequest(buf, sizeof(buf), &rq);
			send_control(x, &x->rq_tmpl, buf, MOLD_REREQ_LEN, b);
		}
		/* A timeout may have made the session stale: release what is held. */
		drain_held(x, e, now, b);
	}
	if (orders_resend_due(&e->ord, now, &first, &count)) {
		ouch_encode_resend(buf, sizeof(buf), first, count);
		send_control(x, &x->tmpl, buf, OUCH_RESEND_DGRAM_LEN, b);
	}
	orders_expire(&e->ord, now);
}

/*
 * One batch of one port's RX ring, handed to the engine; the frames go back
 * to its fill ring.  Returns how many there were.
 */
static inline uint32_t rx_batch(struct xsk_path *x, struct xsk_port *p,
				struct gw_engine *e, struct tx_batch *b)
{
	uint64_t recycle[RX_BATCH];
	uint32_t idx, n = xsk_ring_cons__peek(&p->rx, RX_BATCH, &idx);
	uint64_t t_seen;

	if (!n)
		return 0;
	t_seen = mono_ns();
	/*
	 * The kernel wrote these frames on the sender's core: each line is a
	 * cross-core cache transfer, a memory latency each.  Ask for all of them
	 * at once instead of one after another as parsing walks them.
	 */
	for (uint32_t i = 0; i < n; i++) {
		const struct xdp_desc *d = xsk_ring_cons__rx_desc(&p->rx, idx + i);
		const uint8_t *pkt = xsk_port_data(p, d->addr);

		for (uint32_t off = 0; off < d->len + 8; off += 64)
			__builtin_prefetch(pkt - 8 + off);
	}
	for (uint32_t i = 0; i < n; i++) {
		const struct xdp_desc *d = xsk_ring_cons__rx_desc(&p->rx, idx + i);
		const uint8_t *pkt = xsk_port_data(p, d->addr);
		uint64_t t_hook;
		struct frame_udp u;

		/* The XDP program's stamp sits just before the packet. */
		memcpy(&t_hook, pkt - sizeof(t_hook), sizeof(t_hook));
		recycle[i] = xsk_umem__extract_addr(d->addr);
		if (frame_parse_udp(pkt, d->len, &u)) {
			e->st.bad_frames++;
			continue;
		}
		/*
		 * Copy mode on veth: no NIC has checked anything.  Do what
		 * the kernel would have done and drop bad checksums.
		 */
		if (x->verify_csum && frame_verify_checksums(&u)) {
			e->st.bad_checksum++;
			continue;
		}
		if (u.dst_port == x->feed_port)
			on_feed(x, e, u.payload, u.payload_len, t_hook, t_seen, 0, b);
		else if (u.dst_port == x->reply_port)
			engine_on_reply(e, u.payload, u.payload_len);
		else if (u.dst_port == x->retrans_port)
			on_feed(x, e, u.payload, u.payload_len, t_hook, t_seen,
				ORDER_F_RETRANS, b);
		else
			e->st.other_packets++;
	}
	xsk_ring_cons__release(&p->rx, n);
	xsk_port_refill(p, recycle, n);
	if (unlikely(gap_open(&e->gap) || orders_reply_hole(&e->ord)))
		housekeeping(x, e, t_seen, b);
	/*
	 * A gap just closed: the packets that were ahead of the hook's next
	 * number passed without moving it; bring it up to where decoding is,
	 * or both lines' copies keep coming through.
	 */
	if (unlikely(x->line_b && e->gap.st.recovered != x->arb_recovered)) {
		x->arb_recovered = e->gap.st.recovered;
		xdp_steer_advance(&x->steer, e->dec.next_seq);
	}
	tx_flush(x, b);
	return n;
}

void xsk_path_run(struct xsk_path *x, struct gw_engine *e, struct run_ctl *ctl)
{
	struct xsk_port *p = &x->port;
	uint64_t end_at = 0, spins = 0;
	struct tx_batch b = { .n = 0, .frames = 0 };

	while (!ctl->stop) {
		uint32_t n = rx_batch(x, p, e, &b);

		/* Line B: its own ring; whichever line is ahead leads. */
		if (x->line_b)
			n += rx_batch(x, &x->port_b, e, &b);
		xsk_port_reap(p);
		if (n)
			continue;
		/* With busy polling the rings fill when asked (xsk_port_poll()). */
		xsk_port_poll(p);
		if (x->line_b)
			xsk_port_poll(&x->port_b);
		if (++spins & x->idle_mask)
			continue;
		if (x->warm) {
			warm_run(x->warm);
			engine_warm(e);
		}
		housekeeping(x, e, mono_ns(), &b);
		tx_flush(x, &b);
		/* The hook's next lags after a gap filled: bring it up. */
		if (x->line_b)
			xdp_steer_advance(&x->steer, e->dec.next_seq);
		gw_mon_idle(ctl->mon, e, mono_ns());
		if (e->ended && ctl->exit_on_end) {
			if (!end_at)
				end_at = mono_ns() + ctl->grace_ns;
			else if (mono_ns() > end_at)
				break;
		}
	}
}
