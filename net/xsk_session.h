/* SPDX-License-Identifier: MIT */
/*
 * The order session on an AF_XDP socket: what the gateway's AF_XDP path
 * and the rig's floor share to run net/order_conn.h on the own TCP in the
 * socket that also takes the feed.
 *
 *  - The connection's frames come from the port's TX pool and go on its TX
 *    ring; `queued` counts those put there since the caller's last kick
 *    (the caller kicks once per batch, as for everything else).
 *  - Each connection's 4-tuple is steered to the socket by the XDP program,
 *    so the kernel never sees the exchange's segments and never answers one
 *    with a reset.  The last few connections' 4-tuples stay steered after
 *    a reconnection: a late segment of one (a SYN-ACK to a connect given
 *    up, a retransmission) is answered here as a closed port answers
 *    (tcp_answer_closed_port()), not by the kernel.
 *  - The session's callbacks are the caller's; this only adds the frames
 *    and the steering.
 */
#ifndef NET_XSK_SESSION_H
#define NET_XSK_SESSION_H

#include <stdbool.h>
#include <stdint.h>

#include "bpf/steer_loader.h"
#include "net/order_conn.h"
#include "net/xsk_port.h"
#include "proto/tcp_seg.h"
#include "util/compiler.h"
#include "util/touch.h"

/* Earlier connections whose 4-tuples stay steered (the map holds STEER_MAX_TCP). */
#define XSK_SESSION_OLD_PORTS 4

struct xsk_session {
	struct order_conn oc;
	struct xsk_port *port;
	struct xdp_steer *steer;
	uint32_t exch_ip, local_ip;	/* host order */
	uint16_t exch_port;
	uint16_t old_ports[XSK_SESSION_OLD_PORTS];	/* 0: none; the oldest is replaced */
	unsigned int n_old;
	unsigned int queued;		/* frames on the TX ring since the last kick */
	struct order_conn_ops user;	/* the caller's callbacks */
};

/*
 * @cfg: the session's configuration, its endpoints (MACs, addresses,
 * the first local port) filled in.  With cfg->stack the kernel's, the
 * session runs on a kernel socket beside the AF_XDP one (nothing steered,
 * xsk_session_send() not used).  0, or -errno with err set.
 */
int xsk_session_init(struct xsk_session *s, const struct order_conn_cfg *cfg,
		     const struct order_conn_ops *user, struct xsk_port *port,
		     struct xdp_steer *steer, char *err, size_t errlen);
void xsk_session_destroy(struct xsk_session *s);

/*
 * The hot path: an order's packet was built at frame + FRAME_TCP_HDR_LEN of
 * the TX frame @addr (@len bytes, checksum sum @sum).  Returns 1 when its
 * segment is on the TX ring, 0 when its bytes were queued on the stream
 * (they leave when the window lets them; the frame is back in the pool),
 * -1 when the session did not take them (the frame is back in the pool).
 */
static inline int xsk_session_send(struct xsk_session *s, uint64_t addr, uint32_t len,
				   uint64_t sum, uint64_t now)
{
	uint8_t *frame = xsk_port_data(s->port, addr);
	int flen = order_conn_send_frame(&s->oc, frame, len, sum, now);

	if (flen <= 0) {
		xsk_port_tx_put(s->port, addr);
		return flen < 0 ? -1 : 0;
	}
	/* A full TX ring: the segment is on the stream, the RTO sends it. */
	if (!xsk_port_tx_queue(s->port, addr, (uint32_t)flen))
		s->queued++;
	return 1;
}

/*
 * Idle turns: read what the next xsk_session_send() touches (the session,
 * its connection, the TCP state, the port's TX side), so that an order
 * after a long quiet finds it in the cache and its pages in the TLB.
 */
static inline void xsk_session_warm(struct xsk_session *s)
{
	touch_line(&s->queued);
	order_conn_warm(&s->oc);
	tcp_warm(s->oc.tcp);
	xsk_port_warm_tx(s->port);
}

/*
 * A segment of the exchange's for an earlier connection of ours (one of
 * old_ports): answered with a RST from that port.  false when it is
 * nobody's.
 */
static inline bool xsk_session_stale(struct xsk_session *s, const struct tcp_seg *seg)
{
	if (!s->oc.tcp || seg->src_ip != s->exch_ip || seg->src_port != s->exch_port ||
	    seg->dst_ip != s->local_ip)
		return false;
	for (unsigned int i = 0; i < XSK_SESSION_OLD_PORTS; i++)
		if (s->old_ports[i] && s->old_ports[i] == seg->dst_port) {
			tcp_answer_closed_port(s->oc.tcp, seg);
			return true;
		}
	return false;
}

/* Why xsk_session_on_tcp() dropped a segment. */
enum { XSK_SESSION_OK, XSK_SESSION_UNPARSEABLE, XSK_SESSION_BAD_CSUM };

/*
 * A TCP segment of a received frame: the session's (given to it: true), or
 * not (false).  Its checksums are always checked, whatever the feed's
 * policy: a corrupt segment taken in would be acknowledged and never sent
 * again.  An unparseable or badly checksummed one is dropped, *bad saying
 * which.
 */
static inline bool xsk_session_on_tcp(struct xsk_session *s, const struct frame_ip4 *ip,
				      uint64_t now, int *bad)
{
	struct tcp_seg seg;

	*bad = XSK_SESSION_OK;
	if (tcp_seg_parse(ip, &seg)) {
		*bad = XSK_SESSION_UNPARSEABLE;
		return false;
	}
	if (tcp_seg_verify(&seg)) {
		*bad = XSK_SESSION_BAD_CSUM;
		return false;
	}
	if (unlikely(!order_conn_owns(&s->oc, &seg)))
		return xsk_session_stale(s, &seg);
	order_conn_on_segment(&s->oc, &seg, now);
	return true;
}

#endif /* NET_XSK_SESSION_H */
