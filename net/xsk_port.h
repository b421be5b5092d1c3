/* SPDX-License-Identifier: MIT */
/*
 * One AF_XDP socket on one receive queue of one interface.
 *
 * The socket's frames are its share of a UMEM (net/xsk_area.h), taken at
 * open: its receive frames cycle fill ring -> RX ring -> back to the fill
 * ring, and a socket that transmits has a separate TX pool (free stack ->
 * TX ring -> completion ring -> free stack).  Everything is allocated,
 * prefaulted and locked at open; the inline functions below are what the
 * hot loop calls, and the only syscalls among them are the TX kick and a
 * fill-ring wakeup the kernel asked for.
 */
#ifndef NET_XSK_PORT_H
#define NET_XSK_PORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <xdp/xsk.h>

#include "util/touch.h"

#include "net/busy_poll.h"
#include "net/xsk_area.h"

struct xsk_port_cfg {
	const char *ifname;
	unsigned int queue;
	struct xsk_area *area;		/* the UMEM it shares; NULL: one of its own */
	unsigned int frame_size;	/* with an area of its own: power of two, 2048 or 4096 */
	unsigned int rx_frames;		/* fill ring + RX ring frames */
	unsigned int tx_frames;		/* TX pool; 0: the socket only receives */
	unsigned int ring_size;		/* fill, RX, TX and completion rings */
	bool zero_copy;			/* ask for zero-copy (veth refuses it) */
	/*
	 * XDP_USE_NEED_WAKEUP: the kernel says when the TX ring needs a kick
	 * and the fill ring a wakeup.  The area's first socket decides for
	 * every socket on it.
	 */
	bool need_wakeup;
	int xskmap_fd;			/* the steering program's XSKMAP */
	unsigned int xskmap_key;	/* this socket's entry in it */
	struct busy_poll_cfg busy_poll;	/* all 0: off */
};

struct xsk_port {
	struct xsk_ring_prod fq;
	struct xsk_ring_cons rx;
	struct xsk_ring_prod tx;
	struct xsk_ring_cons cq;
	struct xsk_socket *xsk;
	uint8_t *area;			/* the UMEM's base: frame addresses are offsets in it */
	struct xsk_area *umem;		/* the UMEM the socket is on */
	struct xsk_area own;		/* the UMEM when it has one of its own */
	char ifname[16];		/* IFNAMSIZ */
	unsigned int queue;
	int fd;
	bool busy_poll;			/* RX is driven by xsk_port_poll() */
	bool need_wakeup;		/* bound with XDP_USE_NEED_WAKEUP */
	bool tx_on;			/* it has a TX ring and pool */
	unsigned int frame_size;
	unsigned int ring_size;
	unsigned int rx_frames;
	uint64_t rx_first;		/* the address of its first receive frame */
	uint64_t tx_first;		/* the address of its first TX frame */
	int xskmap_fd;			/* its entry, removed at close; -1: none */
	unsigned int xskmap_key;
	uint64_t *tx_free;		/* stack of free TX frame addresses */
	unsigned int tx_free_n;
	unsigned int tx_frames;
	unsigned int tx_inflight;	/* on the TX or completion ring */
	uint64_t rx_packets;		/* descriptors taken from the RX ring (the caller counts) */
	uint64_t tx_ring_full;		/* a TX reservation was refused */
	uint64_t tx_pool_empty;		/* no free TX frame */
	uint64_t fill_short;		/* fill ring took fewer frames than returned */
	uint64_t fill_wakeups;		/* receive calls the fill ring asked for */
	uint64_t kicks_saved;		/* TX kicks not made: the ring did not ask */
	uint64_t kick_errors;		/* sendto() failed with something but EAGAIN/EBUSY */
	uint64_t kick_repeats;		/* extra sendto()s: more than 32 frames queued */
};

/*
 * 0, or a negative errno with one line of what went wrong (and what to do).
 * On failure nothing of the socket is left (its XSKMAP entry included).
 */
int xsk_port_open(struct xsk_port *p, const struct xsk_port_cfg *cfg,
		  char *err, size_t errlen);
void xsk_port_close(struct xsk_port *p);
/* Kernel-side drop and ring-full counters (XDP_STATISTICS). */
int xsk_port_kernel_stats(const struct xsk_port *p, struct xdp_statistics *st);

static inline uint8_t *xsk_port_data(struct xsk_port *p, uint64_t addr)
{
	return xsk_umem__get_data(p->area, addr);
}

/*
 * The RX ring is empty.  With busy polling, packets reach it when we ask: a
 * non-blocking receive call runs the interface's NAPI poll (the XDP program
 * and the copy into the UMEM) here, on this core.  With need_wakeup, the
 * same call wakes a driver that ran out of fill-ring frames, but only when
 * the kernel asked for it.  Otherwise nothing to do.
 */
static inline void xsk_port_poll(struct xsk_port *p)
{
	if (p->busy_poll) {
		recvfrom(p->fd, NULL, 0, MSG_DONTWAIT, NULL, NULL);
	} else if (p->need_wakeup && xsk_ring_prod__needs_wakeup(&p->fq)) {
		p->fill_wakeups++;
		recvfrom(p->fd, NULL, 0, MSG_DONTWAIT, NULL, NULL);
	}
}

/* Give RX frames back to the fill ring, so it never runs dry. */
static inline void xsk_port_refill(struct xsk_port *p, const uint64_t *addrs,
				   unsigned int n)
{
	uint32_t idx;

	if (xsk_ring_prod__reserve(&p->fq, n, &idx) != n) {
		/* Cannot happen while frames == ring capacity; counted if it does. */
		p->fill_short++;
		return;
	}
	for (unsigned int i = 0; i < n; i++)
		*xsk_ring_prod__fill_addr(&p->fq, idx + i) = addrs[i];
	xsk_ring_prod__submit(&p->fq, n);
}

/* Return completed TX frames to the pool. */
static inline void xsk_port_reap(struct xsk_port *p)
{
	uint32_t idx, n;

	if (!p->tx_inflight)
		return;
	n = xsk_ring_cons__peek(&p->cq, p->tx_inflight, &idx);
	if (!n)
		return;
	for (uint32_t i = 0; i < n; i++)
		p->tx_free[p->tx_free_n++] = *xsk_ring_cons__comp_addr(&p->cq, idx + i);
	xsk_ring_cons__release(&p->cq, n);
	p->tx_inflight -= n;
}

/* A free TX frame's address, or UINT64_MAX when the pool is empty. */
static inline uint64_t xsk_port_tx_frame(struct xsk_port *p)
{
	if (!p->tx_free_n) {
		xsk_port_reap(p);
		if (!p->tx_free_n) {
			p->tx_pool_empty++;
			return UINT64_MAX;
		}
	}
	return p->tx_free[--p->tx_free_n];
}

/*
 * Idle turns: read the lines the next order's transmit touches (the port,
 * the top of the free stack and the frame it names, where the order will
 * be written, the TX ring's producer and its next slot), so that the
 * order finds them in the cache and their pages in the TLB.  Nothing is
 * written.
 */
static inline void xsk_port_warm_tx(struct xsk_port *p)
{
	touch_lines(p, sizeof(*p));
	if (p->tx_free_n)
		touch_lines(xsk_umem__get_data(p->area, p->tx_free[p->tx_free_n - 1]), 128);
	touch_line(p->tx.producer);
	touch_line(xsk_ring_prod__tx_desc(&p->tx, p->tx.cached_prod));
}

/* A TX frame taken but not sent: back to the pool. */
static inline void xsk_port_tx_put(struct xsk_port *p, uint64_t addr)
{
	p->tx_free[p->tx_free_n++] = addr;
}

/* Put a filled TX frame on the TX ring (not yet kicked). */
static inline int xsk_port_tx_queue(struct xsk_port *p, uint64_t addr,
				    uint32_t len)
{
	struct xdp_desc *d;
	uint32_t idx;

	if (xsk_ring_prod__reserve(&p->tx, 1, &idx) != 1) {
		p->tx_ring_full++;
		p->tx_free[p->tx_free_n++] = addr;
		return -1;
	}
	d = xsk_ring_prod__tx_desc(&p->tx, idx);
	d->addr = addr;
	d->len = len;
	xsk_ring_prod__submit(&p->tx, 1);
	p->tx_inflight++;
	return 0;
}

/*
 * The TX kick: in copy mode the kernel transmits inside this call.  It is
 * the one syscall the hot loop makes per batch, and with need_wakeup it is
 * made only when the TX ring asks for it (copy mode always asks).
 */
int xsk_port_kick(struct xsk_port *p);

#endif /* NET_XSK_PORT_H */
