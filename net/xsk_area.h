/* SPDX-License-Identifier: MIT */
/*
 * The UMEM: one area of equal frames, registered with the kernel once and
 * shared by every AF_XDP socket of a run (XDP_SHARED_UMEM), whatever
 * interface and queue each is bound to.
 *
 * Each socket takes a share of the frames at open (xsk_area_take()): its
 * receive frames, which cycle through its own fill and RX rings, and, for
 * the one socket that transmits, the TX pool.  The shares never change
 * hands, so no socket ever needs to know another's frames.
 *
 * The rings made with the UMEM belong to its first socket (libxdp hands
 * them over when that socket is made); every later socket gets a fill and
 * a completion ring of its own.
 */
#ifndef NET_XSK_AREA_H
#define NET_XSK_AREA_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <xdp/xsk.h>

#include "util/table_mem.h"

struct xsk_area {
	struct xsk_umem *umem;
	uint8_t *base;
	size_t size;
	struct table_mem mem;		/* the mapping */
	bool hugepages;
	unsigned int frame_size;
	unsigned int frames;		/* frames in the area */
	unsigned int taken;		/* frames handed out so far */
	unsigned int sockets;		/* sockets made on it */
	bool need_wakeup;		/* the first socket's bind flag, every socket's */
	/* The rings xsk_umem__create() made: the first socket's. */
	struct xsk_ring_prod fq;
	struct xsk_ring_cons cq;
};

/*
 * @frames frames of @frame_size bytes (a power of two), prefaulted, on
 * 2 MB pages when some are reserved; the first socket's fill and
 * completion rings hold @ring_size entries.  0, or -errno with err set.
 */
int xsk_area_open(struct xsk_area *a, unsigned int frames, unsigned int frame_size,
		  unsigned int ring_size, char *err, size_t errlen);
/* Delete the UMEM (every socket on it must be gone) and unmap the area. */
void xsk_area_close(struct xsk_area *a);

/* The address of the first of @n frames not yet handed out; -ENOSPC when short. */
static inline int xsk_area_take(struct xsk_area *a, unsigned int n, uint64_t *first)
{
	if (n > a->frames - a->taken)
		return -ENOSPC;
	*first = (uint64_t)a->taken * a->frame_size;
	a->taken += n;
	return 0;
}

#endif /* NET_XSK_AREA_H */
