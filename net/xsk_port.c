// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <linux/if_xdp.h>

#include "net/xsk_port.h"

/* A queue still held by a socket closed a moment ago: how long to wait for it. */
#define BUSY_TRIES	40
#define BUSY_WAIT_US	5000

/* The UMEM the socket is on: the caller's, or one of its own. */
static int use_area(struct xsk_port *p, const struct xsk_port_cfg *cfg, char *err,
		    size_t errlen)
{
	int ret;

	if (cfg->area) {
		p->umem = cfg->area;
	} else {
		ret = xsk_area_open(&p->own, cfg->rx_frames + cfg->tx_frames, cfg->frame_size,
				    cfg->ring_size, err, errlen);
		if (ret)
			return ret;
		p->umem = &p->own;
	}
	p->area = p->umem->base;
	p->frame_size = p->umem->frame_size;
	if (xsk_area_take(p->umem, cfg->rx_frames, &p->rx_first) ||
	    xsk_area_take(p->umem, cfg->tx_frames, &p->tx_first)) {
		snprintf(err, errlen, "the UMEM has no frames left for %s queue %u",
			 cfg->ifname, cfg->queue);
		return -ENOSPC;
	}
	if (cfg->tx_frames) {
		p->tx_free = calloc(cfg->tx_frames, sizeof(*p->tx_free));
		if (!p->tx_free) {
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
	}
	return 0;
}

/*
 * The AF_XDP socket on the queue, with a fill and a completion ring of its
 * own (the area's first socket takes over the ones made with the UMEM),
 * its busy polling and its slot in the XSKMAP.
 */
static int socket_open(struct xsk_port *p, const struct xsk_port_cfg *cfg, char *err,
		       size_t errlen)
{
	struct xsk_socket_config scfg = {
		.rx_size = cfg->ring_size,
		.tx_size = cfg->ring_size,
		/* The gateway loads and attaches its own program. */
		.libxdp_flags = XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD,
		.bind_flags = (cfg->zero_copy ? XDP_ZEROCOPY : XDP_COPY) |
			      (cfg->need_wakeup ? XDP_USE_NEED_WAKEUP : 0),
	};
	bool first = p->umem->sockets == 0;
	int ret;

	/*
	 * The kernel lets a closed socket's queue go in a worker, after the
	 * close: a queue a run (or a test) closed a moment ago is still busy
	 * for a few milliseconds.  Another socket's queue stays busy.
	 */
	for (int tries = 0;; tries++) {
		ret = xsk_socket__create_shared(&p->xsk, cfg->ifname, cfg->queue, p->umem->umem,
						&p->rx, cfg->tx_frames ? &p->tx : NULL,
						&p->fq, &p->cq, &scfg);
		if (ret != -EBUSY || tries == BUSY_TRIES)
			break;
		usleep(BUSY_WAIT_US);
	}
	if (ret) {
		snprintf(err, errlen, "AF_XDP socket on %s queue %u failed: %s%s",
			 cfg->ifname, cfg->queue, strerror(-ret),
			 ret == -EOPNOTSUPP && cfg->zero_copy ?
			 " (this driver has no zero-copy: drop --zero-copy)" :
			 ret == -EBUSY ? " (another AF_XDP socket holds that queue)" :
			 ret == -EINVAL ? " (no such queue: see ethtool -l)" : "");
		return ret;
	}
	p->umem->sockets++;
	/* The first socket's bind flags hold for every socket on the UMEM. */
	p->need_wakeup = first ? cfg->need_wakeup : p->umem->need_wakeup;
	if (first)
		p->umem->need_wakeup = cfg->need_wakeup;
	p->fd = xsk_socket__fd(p->xsk);
	ret = busy_poll_set(p->fd, &cfg->busy_poll, err, errlen);
	if (ret)
		return ret;
	p->busy_poll = busy_poll_on(&cfg->busy_poll);
	/* The key is the program's (interface slot, queue), not just the queue. */
	if (bpf_map_update_elem(cfg->xskmap_fd, &cfg->xskmap_key, &p->fd, 0)) {
		ret = -errno;
		snprintf(err, errlen, "cannot add the socket of %s queue %u to the XSKMAP: %s",
			 cfg->ifname, cfg->queue, strerror(-ret));
		return ret;
	}
	p->xskmap_fd = cfg->xskmap_fd;
	p->xskmap_key = cfg->xskmap_key;
	return 0;
}

/* The whole RX share to the fill ring; the TX share to the free stack. */
static int frames_init(struct xsk_port *p, const struct xsk_port_cfg *cfg, char *err,
		       size_t errlen)
{
	uint64_t fill[256];

	for (unsigned int i = 0; i < cfg->ring_size; i += 256) {
		unsigned int n = cfg->ring_size - i < 256 ? cfg->ring_size - i : 256;

		for (unsigned int j = 0; j < n; j++)
			fill[j] = p->rx_first + (uint64_t)(i + j) * p->frame_size;
		xsk_port_refill(p, fill, n);
	}
	if (p->fill_short) {
		snprintf(err, errlen, "the fill ring of %s queue %u refused the initial frames",
			 cfg->ifname, cfg->queue);
		return -ENOSPC;
	}
	for (unsigned int i = 0; i < cfg->tx_frames; i++)
		p->tx_free[p->tx_free_n++] = p->tx_first + (uint64_t)i * p->frame_size;
	return 0;
}

int xsk_port_open(struct xsk_port *p, const struct xsk_port_cfg *cfg,
		  char *err, size_t errlen)
{
	int ret;

	memset(p, 0, sizeof(*p));
	p->fd = -1;
	p->xskmap_fd = -1;
	snprintf(p->ifname, sizeof(p->ifname), "%s", cfg->ifname);
	p->queue = cfg->queue;
	p->ring_size = cfg->ring_size;
	p->rx_frames = cfg->rx_frames;
	p->tx_frames = cfg->tx_frames;
	p->tx_on = cfg->tx_frames != 0;
	if (cfg->rx_frames < cfg->ring_size) {
		snprintf(err, errlen, "rx frames (%u) must cover the fill ring (%u)",
			 cfg->rx_frames, cfg->ring_size);
		return -EINVAL;
	}
	ret = use_area(p, cfg, err, errlen);
	if (ret)
		goto fail;
	ret = socket_open(p, cfg, err, errlen);
	if (ret)
		goto fail;
	ret = frames_init(p, cfg, err, errlen);
	if (ret)
		goto fail;
	return 0;
fail:
	xsk_port_close(p);
	return ret;
}

void xsk_port_close(struct xsk_port *p)
{
	if (p->xskmap_fd >= 0)
		bpf_map_delete_elem(p->xskmap_fd, &p->xskmap_key);
	if (p->xsk) {
		xsk_socket__delete(p->xsk);
		p->umem->sockets--;
	}
	if (p->umem == &p->own)
		xsk_area_close(&p->own);
	free(p->tx_free);
	memset(p, 0, sizeof(*p));
	p->fd = -1;
	p->xskmap_fd = -1;
}

int xsk_port_kernel_stats(const struct xsk_port *p, struct xdp_statistics *st)
{
	socklen_t len = sizeof(*st);

	memset(st, 0, sizeof(*st));
	if (p->fd < 0)
		return -EBADF;
	if (getsockopt(p->fd, SOL_XDP, XDP_STATISTICS, st, &len))
		return -errno;
	return 0;
}

int xsk_port_kick(struct xsk_port *p)
{
	if (p->need_wakeup && !xsk_ring_prod__needs_wakeup(&p->tx)) {
		p->kicks_saved++;
		return 0;
	}
	/*
	 * In copy mode one sendto() sends at most 32 descriptors: kick until
	 * the kernel has taken everything queued (bounded, in case it stalls).
	 */
	for (int i = 0; i < 64; i++) {
		if (sendto(p->fd, NULL, 0, MSG_DONTWAIT, NULL, 0) < 0) {
			/* EAGAIN/EBUSY: still sending; the ring keeps the frames. */
			if (errno == EAGAIN || errno == EBUSY || errno == ENOBUFS)
				return 0;
			p->kick_errors++;
			return -errno;
		}
		if (xsk_prod_nb_free(&p->tx, p->ring_size) == p->ring_size)
			return 0;
		p->kick_repeats++;
	}
	return 0;
}
