/* SPDX-License-Identifier: MIT */
/*
 * A session that sends nowhere, for the idle turn's dry sends.
 *
 * An order's send (the TX frame, SoupBinTCP, the own TCP, the TX ring) is
 * code that only an order runs.  On a feed where orders are rare (one
 * every 33 ms on a real-shaped day against one every 0.65 ms on the GBM
 * benchmark) its instructions and branch history are gone by the next
 * order, and the order pays 0.4-0.7 us for it where reading its data
 * lines while idle gained nothing.  So the gateway's idle turn sends a dry
 * order through the very function the live order goes through, on this
 * session: a real xsk_session, order connection and TCP, whose port's TX
 * ring and UMEM are plain memory nobody reads and whose TCP was opened by
 * a handshake played here.  After each send xsk_dry_reset() plays the
 * peer's ACK through tcp_input() and empties the ring, so the session
 * never fills or times out.  Nothing of it touches a socket.
 */
#ifndef NET_XSK_DRY_H
#define NET_XSK_DRY_H

#include <stddef.h>
#include <stdint.h>

#include "net/xsk_session.h"
#include "proto/tcp_seg.h"

#define XSK_DRY_FRAMES	4
#define XSK_DRY_RING	16	/* a power of two, > XSK_DRY_FRAMES */

struct xsk_dry {
	struct xsk_session xs;		/* its port is .port below */
	struct xsk_port port;
	struct tcp_template peer;	/* the exchange's side of the connection */
	uint32_t peer_seq;
	uint32_t tx_prod, tx_cons, tx_flags;
	uint32_t cq_prod, cq_cons, cq_flags;
	uint64_t free_stack[XSK_DRY_FRAMES];
	struct xdp_desc tx_ring[XSK_DRY_RING];
	uint64_t cq_ring[XSK_DRY_RING];
	uint8_t seg[128] __attribute__((aligned(64)));	/* the peer's segment */
	uint8_t *area;			/* XSK_DRY_FRAMES frames of frame_size */
	uint64_t sends;			/* frames that reached its TX ring */
	uint64_t acks;			/* the peer's ACKs played */
};

/*
 * A session with the live one's configuration @cfg (its addresses and
 * MSS: the segments are built as the live ones are), logged in.  0, or
 * -errno with err set.
 */
int xsk_dry_init(struct xsk_dry *d, const struct order_conn_cfg *cfg,
		 unsigned int frame_size, uint64_t now, char *err, size_t errlen);
void xsk_dry_destroy(struct xsk_dry *d);

/*
 * After a dry send: the peer acknowledges everything sent, the TX ring is
 * emptied and every frame is free again.
 */
void xsk_dry_reset(struct xsk_dry *d, uint64_t now);

#endif /* NET_XSK_DRY_H */
