/* SPDX-License-Identifier: MIT */
/*
 * One AF_XDP socket on one receive queue, with its UMEM.
 *
 * The UMEM is split once at start-up: the first rx_frames frames belong to
 * receive (they cycle fill ring -> RX ring -> back to the fill ring), the
 * rest form a separate TX pool (free stack -> TX ring -> completion ring ->
 * free stack).  Everything is allocated, prefaulted and locked at open; the
 * inline functions below are what the hot loop calls, and the only syscall
 * among them is the TX kick.
 */
#ifndef NET_XSK_PORT_H
#define NET_XSK_PORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <xdp/xsk.h>

#include "util/table_mem.h"
#include "util/touch.h"

#include "net/busy_poll.h"

struct xsk_port_cfg {
	const char *ifname;
	unsigned int queue;
	unsigned int frame_size;	/* power of two, 2048 or 4096 */
	unsigned int rx_frames;		/* fill ring + RX ring frames */
	unsigned int tx_frames;		/* TX pool */
	unsigned int ring_size;		/* fill, RX, TX and completion rings */
	bool zero_copy;			/* ask for zero-copy (veth refuses it) */
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
	struct xsk_umem *umem;
	uint8_t *area;
	size_t area_size;
	struct table_mem mem;		/* the area's mapping */
	bool hugepages;
	int fd;
	bool busy_poll;			/* RX is driven by xsk_port_poll() */
	unsigned int frame_size;
	unsigned int ring_size;
	unsigned int rx_frames;
	uint64_t *tx_free;		/* stack of free TX frame addresses */
	unsigned int tx_free_n;
	unsigned int tx_frames;
	unsigned int tx_inflight;	/* on the TX or completion ring */
	uint64_t tx_ring_full;		/* a TX reservation was refused */
	uint64_t tx_pool_empty;		/* no free TX frame */
	uint64_t fill_short;		/* fill ring took fewer frames than returned */
	uint64_t kick_errors;		/* sendto() failed with something but EAGAIN/EBUSY */
	uint64_t kick_repeats;		/* extra sendto()s: more than 32 frames queued */
};

/* 0, or a negative errno with one line of what went wrong (and what to do). */
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
 * With busy polling, packets reach the RX ring when we ask: a non-blocking
 * receive call runs the interface's NAPI poll (the XDP program and the
 * copy into the UMEM) here, on this core.  Without it, nothing to do.
 */
static inline void xsk_port_poll(struct xsk_port *p)
{
	if (p->busy_poll)
		recvfrom(p->fd, NULL, 0, MSG_DONTWAIT, NULL, NULL);
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
 * the one syscall the hot loop makes.
 */
int xsk_port_kick(struct xsk_port *p);

#endif /* NET_XSK_PORT_H */
