// SPDX-License-Identifier: MIT
/*
 * The AF_XDP path: XDP steers the feed, the re-request answers and the
 * order connection's TCP segments into one socket; the loop busy-polls its
 * RX ring, decodes and decides in place in the UMEM frame, builds each
 * order in a TX frame from the connection's header template as soon as its
 * print is decoded (engine_set_sink()) and kicks the TX ring once per RX
 * batch.  The order session runs on the own TCP
 * (net/tcp.h) in the same socket, or on a kernel TCP socket
 * (--order-stack kernel).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/clock.h"
#include "gateway/engine_hot.h"
#include "gateway/mon.h"
#include "gateway/path.h"
#include "gateway/queues.h"
#include "net/netif.h"

#include "proto/moldudp64.h"
#include "proto/proto_err.h"
#include "util/compiler.h"

/* With orders on the kernel's TCP, replies are read every this many RX batches. */
#define KERNEL_REPLY_BATCHES 16

#define RX_BATCH	64
#define FRAME_SIZE	2048
#define TX_FRAMES	1024
/* At shutdown, how long the loop keeps serving the closing session. */
#define CLOSE_NS	(500 * NS_PER_MS)

/*
 * Frames go straight to the exchange's MAC: given, or a neighbour's.  A
 * paper run's only peer is the re-request server.
 */
static int exchange_mac(const struct gw_opts *o, uint8_t *mac, char *err, size_t errlen)
{
	uint32_t ip = o->eng.paper.on ? o->rerequest_ip : o->exch_ip;
	struct in_addr in = { .s_addr = htonl(ip) };
	char net[32];

	if (o->have_exch_mac) {
		memcpy(mac, o->exch_mac, 6);
		return 0;
	}
	if (!netif_on_link(o->ifname, ip, net, sizeof(net))) {
		if (o->eng.paper.on)
			snprintf(err, errlen, "the re-request server (%s) is not on %s's "
				 "network %s: pass --rerequest with its address on this network, "
				 "or --rerequest off (then a hole stops the books: README)",
				 inet_ntoa(in), o->ifname, net);
		else
			snprintf(err, errlen, "the exchange (%s) is not on %s's network %s: "
				 "pass --exchange with its address on this network (or, "
				 "when it is routed, --exchange-mac with the next hop's MAC)",
				 inet_ntoa(in), o->ifname, net);
		return -ENETUNREACH;
	}
	return netif_neigh_mac(o->ifname, ip, mac, err, errlen);
}

/* The re-request template and the ports the loop tells apart. */
static void set_up_frames(struct xsk_path *x, const struct gw_opts *o,
			  const struct frame_endpoint *src, const struct frame_endpoint *dst)
{
	x->feed_port = o->feed_port;
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

/* Line B's interface, and the UDP flows the XDP program steers to the socket. */
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
	if (!ret && x->rq_enabled)
		ret = xdp_steer_add_flow(&x->steer, htonl(src_ip), htons(o->retrans_port),
					 STEER_FLOW_RETRANS, htonl(o->rerequest_ip), 0);
	if (ret)
		snprintf(err, errlen, "cannot configure the steered flows: %s", strerror(-ret));
	return ret;
}

/* A socket on every served queue of line A's interface, and of line B's. */
static int open_ports(struct xsk_path *x, const struct gw_opts *o, char *err,
		      size_t errlen)
{
	struct xsk_queues_cfg qc = {
		.ifname = { o->ifname, o->line_b_if },
		.serve = o->queues,
		.ring_size = o->ring_size,
		.frame_size = FRAME_SIZE,
		.tx_frames = TX_FRAMES,
		.zero_copy = o->zero_copy,
		.need_wakeup = !o->no_need_wakeup,
		.busy_poll = o->busy_poll,
		.xskmap_fd = xdp_steer_xskmap_fd(&x->steer),
	};

	return xsk_queues_open(&x->q, &qc, err, errlen);
}

static void on_decisions(void *ctx, const struct gw_decision *d, unsigned int n,
			 uint64_t t_seen);

static void close_warm(struct xsk_path *x)
{
	if (x->dry) {
		xsk_dry_destroy(x->dry);
		free(x->dry);
		x->dry = NULL;
	}
	if (x->warm) {
		warm_destroy(x->warm);
		free(x->warm);
		x->warm = NULL;
	}
}

/*
 * The idle turn's shadow engine, and on the own TCP its dry session: the
 * shadow's orders are sent dry (x->dry_out).  The kernel's TCP
 * has nothing to send dry: its send is a syscall.
 */
static int open_warm(struct xsk_path *x, const struct gw_opts *o,
		     const struct frame_endpoint *src, const struct frame_endpoint *dst,
		     char *err, size_t errlen)
{
	bool dry = x->own_tcp && !x->paper;
	int ret = -ENOMEM;

	if (o->no_warm)
		return 0;
	x->warm = malloc(sizeof(*x->warm));
	if (!x->warm) {
		snprintf(err, errlen, "the idle-time warming: out of memory");
		return -ENOMEM;
	}
	ret = warm_init(x->warm, &o->eng, dry ? on_decisions : NULL, &x->dry_out, src, dst,
			err, errlen);
	if (ret) {
		free(x->warm);
		x->warm = NULL;
		return ret < 0 ? ret : -ENOMEM;
	}
	if (!dry)
		return 0;
	x->dry = malloc(sizeof(*x->dry));
	ret = x->dry ? xsk_dry_init(x->dry, &x->xs.oc.cfg, FRAME_SIZE, mono_ns(), err, errlen)
		     : -ENOMEM;
	if (ret) {
		if (!x->dry)
			snprintf(err, errlen, "the dry session: out of memory");
		free(x->dry);
		x->dry = NULL;
		close_warm(x);
		return ret;
	}
	x->dry_out = (struct order_out){ .x = x, .e = &x->warm->shadow, .xs = &x->dry->xs,
					 .batch = &x->dry_batch };
	return 0;
}

static void send_orders(const struct order_out *o, const struct gw_decision *dec,
			unsigned int nd, uint64_t t_seen);
static void send_rerequest(void *ctx, const uint8_t *payload, size_t plen);

static int open_session(struct xsk_path *x, const struct gw_opts *o,
			const struct frame_endpoint *src, const struct frame_endpoint *dst,
			char *err, size_t errlen)
{
	struct order_conn_cfg c = o->session;
	struct order_conn_ops ops;
	int mtu = netif_mtu(o->ifname);

	x->own_tcp = c.stack == OC_STACK_OWN;
	gw_session_conn_ops(&x->sess, &ops);
	c.local = *src;
	c.remote = *dst;
	c.local.port = o->session.local.port;
	c.mss = (uint16_t)((mtu > 0 ? mtu : 1500) - FRAME_IP4_LEN - TCP_HDR_LEN);
	if (c.mss > TCP_OOO_MAX)
		c.mss = TCP_OOO_MAX;
	return xsk_session_init(&x->xs, &c, &ops, x->q.tx, &x->steer, err, errlen);
}

int xsk_path_open(struct xsk_path *x, const struct gw_opts *o, char *err,
		  size_t errlen)
{
	struct frame_endpoint src = { 0 }, dst = { 0 };
	int ret;

	memset(x, 0, sizeof(*x));
	x->xs.oc.fd = x->xs.oc.port_fd = -1;
	x->paper = o->eng.paper.on;
	ret = netif_addr(o->ifname, &src.ip, src.mac, err, errlen);
	if (ret)
		return ret;
	/* A paper run talks to nobody but the re-request server, if any. */
	if (!x->paper || o->rerequest_port) {
		ret = exchange_mac(o, dst.mac, err, errlen);
		if (ret)
			return ret;
	}
	src.port = o->session.local.port ? o->session.local.port : OC_FIRST_PORT;
	x->n_flows = gw_flows(o, src.ip, x->flows);
	dst.ip = o->exch_ip;
	dst.port = o->exch_port;
	set_up_frames(x, o, &src, &dst);

	/* The session's glue: orders leave through send_orders(), re-requests by send_rerequest(). */
	gw_session_init(&x->sess, x->paper ? NULL : &x->xs.oc,
			&(struct gw_session_out){ .send = on_decisions, .send_ctx = &x->live,
						  .rerequest = x->rq_enabled ? send_rerequest : NULL,
						  .rerequest_ctx = x });
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
	if (!x->paper) {
		ret = open_session(x, o, &src, &dst, err, errlen);
		if (ret)
			goto fail_ports;
	}
	ret = open_warm(x, o, &src, &dst, err, errlen);
	if (ret)
		goto fail_session;
	return 0;
fail_session:
	xsk_session_destroy(&x->xs);
fail_ports:
	xsk_queues_close(&x->q);
fail:
	xdp_steer_close(&x->steer);
	return ret;
}

void xsk_path_close(struct xsk_path *x)
{
	/* Detach first, so nothing is steered into a socket that is going away. */
	xdp_steer_close(&x->steer);
	xsk_queues_close(&x->q);
	xsk_session_destroy(&x->xs);
	close_warm(x);
}

/* The TX kick for everything queued, and t_sent for its orders. */
static void tx_flush(struct xsk_path *x)
{
	struct tx_batch *b = &x->batch;
	uint64_t t_sent;

	if (!b->frames && !x->xs.queued) {
		b->n = 0;
		return;
	}
	xsk_port_kick(x->q.tx);
	x->kicks++;
	t_sent = mono_ns();
	for (unsigned int i = 0; i < b->n; i++)
		b->rec[i]->t.t_sent = t_sent;
	b->n = 0;
	b->frames = 0;
	x->xs.queued = 0;
}

/*
 * One order onto the own TCP: built in a TX frame, or queued behind others.
 * Never inlined: the idle turn's dry send runs this very copy on the dry
 * session, and a copy of its own would leave this one's instructions cold
 * for a live order that comes once in tens of milliseconds.
 */
static __attribute__((noinline)) void send_own(struct xsk_session *xs, struct tx_batch *b,
					       struct gw_engine *e,
					       const struct gw_decision *d, uint64_t t_seen)
{
	struct xsk_port *p = xs->port;
	uint64_t addr = xsk_port_tx_frame(p);
	struct gw_order *rec;
	uint64_t sum;

	if (addr == UINT64_MAX) {
		orders_unreserve(&e->ord, d);
		return;
	}
	sum = engine_build_order(e, d, t_seen, xsk_port_data(p, addr) + FRAME_TCP_HDR_LEN, &rec);
	rec->t.t_decided = mono_ns();
	if (xsk_session_send(xs, addr, OUCH_ENTER_PKT_LEN, sum, t_seen) < 0) {
		orders_failed(&e->ord, rec);
		return;
	}
	rec->t.t_queued = mono_ns();
	b->rec[b->n++] = rec;
}

/* Sent dry when the dry tick decided nothing, so that every idle turn sends. */
static const struct gw_decision dry_order = { .limit = 1000000, .shares = 100, .side = 'B' };

/* One order onto the kernel's TCP (--order-stack kernel). */
static void send_kernel(struct xsk_path *x, struct gw_engine *e, const struct gw_decision *d,
			uint64_t t_seen)
{
	uint8_t pkt[OUCH_ENTER_PKT_LEN] __attribute__((aligned(8)));
	struct gw_order *rec;

	engine_build_order(e, d, t_seen, pkt, &rec);
	rec->t.t_decided = rec->t.t_queued = mono_ns();
	if (order_conn_send(&x->xs.oc, pkt, sizeof(pkt), t_seen)) {
		orders_failed(&e->ord, rec);
		return;
	}
	rec->t.t_sent = mono_ns();
}

/* The idle turn's dry send done: the dry session back to empty. */
static void dry_reset(struct xsk_path *x, uint64_t now)
{
	x->dry_batch.n = 0;
	xsk_dry_reset(x->dry, now);
}

/*
 * A full batch makes room: the live one by its TX kick, the dry one (which
 * sends nowhere) by going back to empty.  The dry one is emptied every idle
 * turn, so only a print with more orders than a batch holds gets here.
 */
static void make_room(const struct order_out *o, uint64_t now)
{
	if (o->batch == &o->x->batch)
		tx_flush(o->x);
	else
		dry_reset(o->x, now);
}

static void send_orders(const struct order_out *o, const struct gw_decision *dec,
			unsigned int nd, uint64_t t_seen)
{
	for (unsigned int i = 0; i < nd; i++) {
		if (unlikely(o->batch->n == sizeof(o->batch->rec) / sizeof(o->batch->rec[0])))
			make_room(o, t_seen);
		if (o->x->own_tcp)
			send_own(o->xs, o->batch, o->e, &dec[i], t_seen);
		else
			send_kernel(o->x, o->e, &dec[i], t_seen);
	}
}

/*
 * The engines' sink: a print's orders, queued while its packet is walked.
 * The live engine's go to the session (x->live), the shadow's to the dry
 * session (x->dry_out): one copy of this code, warm for the live order.
 */
static void on_decisions(void *ctx, const struct gw_decision *d, unsigned int n,
			 uint64_t t_seen)
{
	send_orders(ctx, d, n, t_seen);
}

/* One feed datagram, then whatever it made decodable of the held ones. */
static inline void on_feed(struct xsk_path *x, struct gw_engine *e,
			   const uint8_t *pkt, size_t len, uint64_t t_hook,
			   uint64_t t_seen, unsigned int flags)
{
	struct gw_decision dec[GW_MAX_DECISIONS];
	unsigned int nd = engine_on_feed(e, pkt, len, t_hook, t_seen, dec, flags);

	if (nd)
		send_orders(&x->live, dec, nd, t_seen);
	/* Two lines: the hook keeps the first copy of the session it decodes. */
	if (unlikely(e->dec.last.new_session) && x->line_b)
		xdp_steer_arm(&x->steer, (const uint8_t *)e->dec.session, e->dec.next_seq);
	if (unlikely(gap_open(&e->gap)))
		gw_session_drain_held(&x->sess, t_seen);
}

/* A re-request through the TX ring, from the re-request template. */
static void send_rerequest(void *ctx, const uint8_t *payload, size_t plen)
{
	struct xsk_path *x = ctx;
	struct xsk_port *tx = x->q.tx;
	uint64_t addr = xsk_port_tx_frame(tx);
	uint8_t *frame;
	size_t len;

	if (addr == UINT64_MAX)
		return;		/* counted as tx_pool_empty; asked again later */
	frame = xsk_port_data(tx, addr);
	memcpy(frame + FRAME_HDR_LEN, payload, plen);
	len = frame_finish(&x->rq_tmpl, frame, plen);
	if (!xsk_port_tx_queue(tx, addr, (uint32_t)len))
		x->batch.frames++;
}

/* A TCP segment: the order connection's, or nobody's. */
static inline void on_tcp(struct xsk_path *x, struct gw_engine *e, const struct frame_ip4 *ip,
			  uint64_t t_hook, uint64_t t_seen)
{
	int bad = XSK_SESSION_OK;

	x->sess.t_hook = t_hook;
	if (x->own_tcp && xsk_session_on_tcp(&x->xs, ip, t_seen, &bad))
		return;
	if (bad == XSK_SESSION_UNPARSEABLE)
		e->st.bad_frames++;
	else if (bad == XSK_SESSION_BAD_CSUM)
		e->st.bad_checksum++;
	else
		e->st.other_packets++;
}

/* A UDP datagram: the feed or a re-request's answer. */
static inline void on_udp(struct xsk_path *x, struct gw_engine *e, const struct frame_ip4 *ip,
			  uint64_t t_hook, uint64_t t_seen)
{
	struct frame_udp u;

	if (frame_parse_udp_ip4(ip, &u)) {
		e->st.bad_frames++;
		return;
	}
	/*
	 * Copy mode on veth: no NIC has checked anything.  Do what the kernel
	 * would have done and drop bad checksums.
	 */
	if (x->verify_csum && frame_verify_checksums(&u)) {
		e->st.bad_checksum++;
		return;
	}
	if (u.dst_port == x->feed_port)
		on_feed(x, e, u.payload, u.payload_len, t_hook, t_seen, 0);
	else if (u.dst_port == x->retrans_port)
		on_feed(x, e, u.payload, u.payload_len, t_hook, t_seen, ORDER_F_RETRANS);
	else
		e->st.other_packets++;
}

/*
 * One batch of one port's RX ring, handed to the engine; the frames go back
 * to its fill ring.  Returns how many there were.
 */
static inline uint32_t rx_batch(struct xsk_path *x, struct xsk_port *p, struct gw_engine *e)
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
		const uint8_t *buf = xsk_port_data(p, d->addr);

		for (uint32_t off = 0; off < d->len; off += 64)
			__builtin_prefetch(buf + off);
	}
	for (uint32_t i = 0; i < n; i++) {
		const struct xdp_desc *d = xsk_ring_cons__rx_desc(&p->rx, idx + i);
		const uint8_t *buf = xsk_port_data(p, d->addr);
		struct frame_ip4 ip;
		uint64_t t_hook;

		recycle[i] = xsk_umem__extract_addr(d->addr);
		/* The XDP program's stamp comes first, then the packet. */
		if (unlikely(d->len < STEER_STAMP_LEN)) {
			e->st.bad_frames++;
			continue;
		}
		t_hook = steer_frame_stamp(buf);
		if (frame_parse_ip4(buf + STEER_STAMP_LEN, d->len - STEER_STAMP_LEN, &ip)) {
			e->st.bad_frames++;
			continue;
		}
		if (likely(ip.proto != IPPROTO_TCP_NUM))
			on_udp(x, e, &ip, t_hook, t_seen);
		else
			on_tcp(x, e, &ip, t_hook, t_seen);
	}
	xsk_ring_cons__release(&p->rx, n);
	xsk_port_refill(p, recycle, n);
	p->rx_packets += n;
	if (unlikely(gap_open(&e->gap)))
		gw_session_housekeeping(&x->sess, t_seen);
	/*
	 * A gap just closed: the packets that were ahead of the hook's next
	 * number passed without moving it; bring it up to where decoding is,
	 * or both lines' copies keep coming through.
	 */
	if (unlikely(x->line_b && e->gap.st.recovered != x->arb_recovered)) {
		x->arb_recovered = e->gap.st.recovered;
		xdp_steer_advance(&x->steer, e->dec.next_seq);
	}
	tx_flush(x);
	return n;
}

/*
 * A connection closed on a lossy line may still see the exchange's
 * retransmissions (its FIN, or what it sent before our RST) after the close:
 * the hook keeps steering them here for this long, where the own TCP answers
 * them (TIME_WAIT's ACK, a closed port's RST), instead of the kernel, which
 * would answer the exchange with a reset of its own.
 */
#define LINGER_NS	(300 * NS_PER_MS)

/* One turn of serving the connection while it closes. */
static void close_turn(struct xsk_path *x, struct gw_engine *e)
{
	for (unsigned int i = 0; i < x->q.n; i++)
		rx_batch(x, &x->q.port[i], e);
	xsk_port_reap(x->q.tx);
	order_conn_idle(&x->xs.oc, mono_ns());
	tx_flush(x);
}

/*
 * After the loop: log out, close, and keep serving the connection (its
 * replies, the FIN exchange) until it is done or CLOSE_NS have passed.  If
 * the line lost, reordered or repeated segments, or we reset the connection,
 * linger for LINGER_NS more.
 */
static void close_session(struct xsk_path *x, struct gw_engine *e)
{
	uint64_t end = mono_ns() + CLOSE_NS;
	const struct tcp_stats *t;

	if (!gw_session_shutdown(&x->sess, mono_ns()))
		return;
	tx_flush(x);
	while (!gw_session_closed(&x->sess) && mono_ns() < end)
		close_turn(x, e);
	if (!x->own_tcp)
		return;
	t = &x->xs.oc.tcp->st;
	if (!t->retrans_segs && !t->rejected[TCP_REJ_OUT_OF_WINDOW] &&
	    !t->ooo_held && !t->resets_out)
		return;
	end = mono_ns() + LINGER_NS;
	while (mono_ns() < end)
		close_turn(x, e);
}

void xsk_path_run(struct xsk_path *x, struct gw_engine *e, struct run_ctl *ctl)
{
	struct xsk_port *ports = x->q.port, *tx = x->q.tx;
	unsigned int nports = x->q.n;
	uint64_t end_at = 0, spins = 0;

	x->e = e;
	x->live = (struct order_out){ .x = x, .e = e, .xs = &x->xs, .batch = &x->batch };
	x->batch.n = x->batch.frames = 0;
	if (!x->paper)
		engine_set_sink(e, on_decisions, &x->live);
	gw_session_start(&x->sess, e, mono_ns());
	tx_flush(x);
	while (!ctl->stop) {
		uint32_t n = 0;
		uint64_t now;

		/*
		 * Every served queue of both lines, in order; whichever line is
		 * ahead leads.  An empty ring costs the look at its producer.
		 */
		for (unsigned int i = 0; i < nports; i++)
			n += rx_batch(x, &ports[i], e);
		xsk_port_reap(tx);
		if (n) {
			/* A busy feed must not starve the kernel socket's replies. */
			if (!x->own_tcp && !x->paper && ++spins % KERNEL_REPLY_BATCHES == 0) {
				gw_session_poll(&x->sess, mono_ns());
				tx_flush(x);
			}
			continue;
		}
		/* With busy polling the rings fill when asked (xsk_port_poll()). */
		for (unsigned int i = 0; i < nports; i++)
			xsk_port_poll(&ports[i]);
		/* An ACK owed leaves as soon as no packet waits behind it. */
		if (x->own_tcp && unlikely(x->xs.oc.tcp->ack_due)) {
			tcp_output(x->xs.oc.tcp, mono_ns());
			tx_flush(x);
		}
		if (++spins & x->idle_mask)
			continue;
		if (x->warm) {
			now = mono_ns();
			if (!warm_run(x->warm, now) && x->dry)
				send_orders(&x->dry_out, &dry_order, 1, now);
			if (x->dry)
				dry_reset(x, now);
			engine_warm(e);
			if (x->own_tcp)
				xsk_session_warm(&x->xs);
		}
		now = mono_ns();
		gw_session_housekeeping(&x->sess, now);
		tx_flush(x);
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
	close_session(x, e);
}
