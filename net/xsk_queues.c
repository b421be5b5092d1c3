// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/steer_loader.h"
#include "net/netif.h"
#include "net/xsk_queues.h"

/* How many queues @ifname has, and which of them to serve.  0, or -errno. */
static int plan(const char *ifname, uint64_t serve, unsigned int *queues, uint64_t *mask,
		char *err, size_t errlen)
{
	int n = netif_rx_queues(ifname);

	if (n < 0) {
		snprintf(err, errlen, "cannot read %s's receive queues: %s", ifname,
			 strerror(-n));
		return n;
	}
	if (n > STEER_MAX_QUEUES) {
		snprintf(err, errlen, "%s has %d receive queues; the gateway serves queues 0-%d "
			 "only: reduce them (ethtool -L %s combined %d) and steer the feed there",
			 ifname, n, STEER_MAX_QUEUES - 1, ifname, STEER_MAX_QUEUES);
		return -ERANGE;
	}
	*queues = (unsigned int)n;
	if (!serve) {
		*mask = n == 64 ? ~0ull : (1ull << n) - 1;
		return 0;
	}
	if (serve >> n) {
		unsigned int q = 63 - (unsigned int)__builtin_clzll(serve);

		snprintf(err, errlen, "--queues: %s has %d receive queue%s (0-%d); queue %u is "
			 "none of them (ethtool -l %s)", ifname, n, n == 1 ? "" : "s", n - 1, q,
			 ifname);
		return -EINVAL;
	}
	*mask = serve;
	return 0;
}

static int open_port(struct xsk_queues *q, const struct xsk_queues_cfg *cfg,
		     unsigned int slot, unsigned int queue, char *err, size_t errlen)
{
	struct xsk_port_cfg pcfg = {
		.ifname = cfg->ifname[slot],
		.queue = queue,
		.area = &q->area,
		.rx_frames = cfg->ring_size,
		/* Only the first port transmits. */
		.tx_frames = q->n == 0 ? cfg->tx_frames : 0,
		.ring_size = cfg->ring_size,
		.zero_copy = cfg->zero_copy,
		.need_wakeup = cfg->need_wakeup,
		.xskmap_fd = cfg->xskmap_fd,
		.xskmap_key = xdp_steer_xskmap_key(slot, queue),
		.busy_poll = cfg->busy_poll,
	};
	int ret = xsk_port_open(&q->port[q->n], &pcfg, err, errlen);

	if (ret)
		return ret;
	q->n++;
	q->n_if[slot]++;
	return 0;
}

int xsk_queues_open(struct xsk_queues *q, const struct xsk_queues_cfg *cfg, char *err,
		    size_t errlen)
{
	uint64_t mask[STEER_MAX_IFS] = { 0 };
	unsigned int total = 0;
	int ret;

	memset(q, 0, sizeof(*q));
	for (unsigned int s = 0; s < STEER_MAX_IFS; s++) {
		if (!cfg->ifname[s])
			continue;
		ret = plan(cfg->ifname[s], cfg->serve, &q->queues[s], &mask[s], err, errlen);
		if (ret)
			return ret;
		total += (unsigned int)__builtin_popcountll(mask[s]);
	}
	q->port = calloc(total, sizeof(*q->port));
	if (!q->port) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	ret = xsk_area_open(&q->area, total * cfg->ring_size + cfg->tx_frames, cfg->frame_size,
			    cfg->ring_size, err, errlen);
	if (ret)
		goto fail;
	for (unsigned int s = 0; s < STEER_MAX_IFS; s++)
		for (unsigned int qi = 0; qi < STEER_MAX_QUEUES; qi++) {
			if (!(mask[s] >> qi & 1))
				continue;
			ret = open_port(q, cfg, s, qi, err, errlen);
			if (ret)
				goto fail;
		}
	q->tx = &q->port[0];
	return 0;
fail:
	xsk_queues_close(q);
	return ret;
}

void xsk_queues_close(struct xsk_queues *q)
{
	/* The sockets before the UMEM they share; the first (its rings) last. */
	while (q->n)
		xsk_port_close(&q->port[--q->n]);
	if (q->area.umem)
		xsk_area_close(&q->area);
	free(q->port);
	memset(q, 0, sizeof(*q));
}
