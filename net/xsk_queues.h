/* SPDX-License-Identifier: MIT */
/*
 * Every AF_XDP socket of a run: one per served receive queue of each feed
 * interface, all on one UMEM (net/xsk_area.h).
 *
 * A real NIC has several receive queues and RSS spreads flows over them by
 * a hash of their addresses and ports, so the feed, the re-request answers
 * and the order connection may each land on any of them.  The XDP program
 * hands a steered packet to the socket of the queue it arrived on, and
 * drops it when that queue has none; serving every queue (the default)
 * means no flow can land where nobody reads.  With ntuple rules steering
 * the flows, a list of queues serves only those.
 *
 * The hot loop polls the ports in order, line A's queues then line B's; an
 * empty RX ring costs it one load of the ring's producer index.
 *
 * Orders and re-requests leave on one TX ring: the first port's (line A's
 * lowest served queue).  Any queue's TX ring reaches the wire, and where a
 * reply comes back is decided by the receiving side's hash, not by the
 * queue an order left on; one ring keeps one kick per batch, one frame
 * pool and one completion ring to reap.
 */
#ifndef NET_XSK_QUEUES_H
#define NET_XSK_QUEUES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/steer.h"
#include "net/busy_poll.h"
#include "net/xsk_area.h"
#include "net/xsk_port.h"

#define XSK_QUEUES_MAX (STEER_MAX_IFS * STEER_MAX_QUEUES)

struct xsk_queues_cfg {
	/* Slot 0: line A (orders leave there); slot 1: line B, or NULL. */
	const char *ifname[STEER_MAX_IFS];
	/* Queues to serve on each interface (bit q = queue q); 0: all it has. */
	uint64_t serve;
	unsigned int ring_size;		/* fill, RX, TX and completion rings */
	unsigned int frame_size;
	unsigned int tx_frames;		/* the TX pool of the first port */
	bool zero_copy;
	bool need_wakeup;
	struct busy_poll_cfg busy_poll;
	int xskmap_fd;			/* the steering program's XSKMAP */
};

struct xsk_queues {
	struct xsk_area area;
	struct xsk_port *port;		/* n of them: line A's queues in order, then B's */
	unsigned int n;
	unsigned int n_if[STEER_MAX_IFS];	/* ports per interface slot */
	unsigned int queues[STEER_MAX_IFS];	/* receive queues each interface has */
	struct xsk_port *tx;		/* port[0]: orders and re-requests leave on it */
};

/*
 * Open a socket on each served queue, the first with the TX ring.  All or
 * nothing: 0, or -errno with one line in err naming the interface and
 * queue, and nothing left open.
 */
int xsk_queues_open(struct xsk_queues *q, const struct xsk_queues_cfg *cfg, char *err,
		    size_t errlen);
void xsk_queues_close(struct xsk_queues *q);

/* The interface slot of port @i. */
static inline unsigned int xsk_queues_slot(const struct xsk_queues *q, unsigned int i)
{
	return i < q->n_if[0] ? 0 : 1;
}

#endif /* NET_XSK_QUEUES_H */
