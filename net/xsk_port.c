// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <linux/if_xdp.h>

#include "net/xsk_port.h"
#include "util/table_mem.h"

/* The UMEM's frames, touched now, and its registration with the kernel. */
static int umem_open(struct xsk_port *p, const struct xsk_port_cfg *cfg, char *err,
		     size_t errlen)
{
	struct xsk_umem_config ucfg = {
		.fill_size = cfg->ring_size,
		.comp_size = cfg->ring_size,
		.frame_size = cfg->frame_size,
		.frame_headroom = 0,
		.flags = 0,
	};
	int ret;

	/*
	 * 2 MB pages when some are reserved, else 4 KB pages with THP asked for
	 * (populated now either way): the loop walks thousands of frames, and
	 * on 4 KB pages each is a TLB entry of its own.
	 */
	ret = table_mem_map(&p->mem, (size_t)(cfg->rx_frames + cfg->tx_frames) * cfg->frame_size,
			    TABLE_MEM_THP);
	if (ret) {
		snprintf(err, errlen, "UMEM allocation of %zu bytes failed: %s",
			 (size_t)(cfg->rx_frames + cfg->tx_frames) * cfg->frame_size,
			 strerror(-ret));
		return ret;
	}
	p->area = p->mem.addr;
	p->area_size = p->mem.size;
	p->hugepages = p->mem.kind == TABLE_MEM_KIND_HUGETLB;

	p->tx_free = calloc(cfg->tx_frames, sizeof(*p->tx_free));
	if (!p->tx_free) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	ret = xsk_umem__create(&p->umem, p->area, p->area_size, &p->fq, &p->cq, &ucfg);
	if (ret)
		snprintf(err, errlen, "UMEM registration failed: %s", strerror(-ret));
	return ret;
}

/* The AF_XDP socket on the queue, its busy polling, its slot in the XSKMAP. */
static int socket_open(struct xsk_port *p, const struct xsk_port_cfg *cfg, char *err,
		       size_t errlen)
{
	struct xsk_socket_config scfg = {
		.rx_size = cfg->ring_size,
		.tx_size = cfg->ring_size,
		/* The gateway loads and attaches its own program. */
		.libxdp_flags = XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD,
		.bind_flags = cfg->zero_copy ? XDP_ZEROCOPY : XDP_COPY,
	};
	int ret;

	ret = xsk_socket__create(&p->xsk, cfg->ifname, cfg->queue, p->umem,
				 &p->rx, &p->tx, &scfg);
	if (ret) {
		snprintf(err, errlen, "AF_XDP socket on %s queue %u failed: %s%s",
			 cfg->ifname, cfg->queue, strerror(-ret),
			 ret == -EOPNOTSUPP && cfg->zero_copy ?
			 " (this driver has no zero-copy: drop --zero-copy)" : "");
		return ret;
	}
	p->fd = xsk_socket__fd(p->xsk);
	ret = busy_poll_set(p->fd, &cfg->busy_poll, err, errlen);
	if (ret)
		return ret;
	p->busy_poll = busy_poll_on(&cfg->busy_poll);
	/* The key is the program's (interface slot, queue), not just the queue. */
	if (bpf_map_update_elem(cfg->xskmap_fd, &cfg->xskmap_key, &p->fd, 0)) {
		ret = -errno;
		snprintf(err, errlen, "cannot add the socket to the XSKMAP: %s",
			 strerror(-ret));
		return ret;
	}
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
			fill[j] = (uint64_t)(i + j) * cfg->frame_size;
		xsk_port_refill(p, fill, n);
	}
	if (p->fill_short) {
		snprintf(err, errlen, "fill ring refused the initial frames");
		return -ENOSPC;
	}
	for (unsigned int i = 0; i < cfg->tx_frames; i++)
		p->tx_free[p->tx_free_n++] =
			(uint64_t)(cfg->rx_frames + i) * cfg->frame_size;
	return 0;
}

int xsk_port_open(struct xsk_port *p, const struct xsk_port_cfg *cfg,
		  char *err, size_t errlen)
{
	int ret;

	memset(p, 0, sizeof(*p));
	p->fd = -1;
	p->frame_size = cfg->frame_size;
	p->ring_size = cfg->ring_size;
	p->rx_frames = cfg->rx_frames;
	p->tx_frames = cfg->tx_frames;
	if (cfg->rx_frames < cfg->ring_size) {
		snprintf(err, errlen, "rx frames (%u) must cover the fill ring (%u)",
			 cfg->rx_frames, cfg->ring_size);
		return -EINVAL;
	}
	ret = umem_open(p, cfg, err, errlen);
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
	if (p->xsk)
		xsk_socket__delete(p->xsk);
	if (p->umem)
		xsk_umem__delete(p->umem);
	if (p->area)
		table_mem_unmap(&p->mem);
	free(p->tx_free);
	memset(p, 0, sizeof(*p));
	p->fd = -1;
}

int xsk_port_kernel_stats(const struct xsk_port *p, struct xdp_statistics *st)
{
	socklen_t len = sizeof(*st);

	memset(st, 0, sizeof(*st));
	if (getsockopt(p->fd, SOL_XDP, XDP_STATISTICS, st, &len))
		return -errno;
	return 0;
}

int xsk_port_kick(struct xsk_port *p)
{
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
