// SPDX-License-Identifier: MIT
/* A session that sends nowhere: see xsk_dry.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net/xsk_dry.h"

#define PEER_ISS 1000000u

/* A reply's bytes would go to the user; the peer here sends none. */
static void no_msg(void *ctx, const struct soup_msg *m, uint64_t now)
{
	(void)ctx;
	(void)m;
	(void)now;
}

/* Rings on plain memory: what libxdp's ring calls read and write. */
static void set_up_port(struct xsk_dry *d, unsigned int frame_size)
{
	struct xsk_port *p = &d->port;

	memset(p, 0, sizeof(*p));
	p->fd = -1;
	p->area = d->area;
	p->frame_size = frame_size;
	p->ring_size = XSK_DRY_RING;
	p->tx_frames = XSK_DRY_FRAMES;
	p->tx_free = d->free_stack;
	p->tx.producer = &d->tx_prod;
	p->tx.consumer = &d->tx_cons;
	p->tx.flags = &d->tx_flags;
	p->tx.ring = d->tx_ring;
	p->tx.mask = XSK_DRY_RING - 1;
	p->tx.size = XSK_DRY_RING;
	p->tx.cached_cons = XSK_DRY_RING;
	p->cq.producer = &d->cq_prod;
	p->cq.consumer = &d->cq_cons;
	p->cq.flags = &d->cq_flags;
	p->cq.ring = d->cq_ring;
	p->cq.mask = XSK_DRY_RING - 1;
	p->cq.size = XSK_DRY_RING;
}

/* Whatever was queued is consumed, and every frame is back in the pool. */
static void empty_ring(struct xsk_dry *d)
{
	struct xsk_port *p = &d->port;

	d->sends += d->tx_prod - d->tx_cons;
	d->tx_cons = d->tx_prod;
	p->tx_inflight = 0;
	for (unsigned int i = 0; i < XSK_DRY_FRAMES; i++)
		d->free_stack[i] = (uint64_t)i * p->frame_size;
	p->tx_free_n = XSK_DRY_FRAMES;
	d->xs.queued = 0;
}

/* One segment from the peer, through the TCP's own input. */
static int peer_segment(struct xsk_dry *d, uint8_t flags, uint32_t ack, uint64_t now)
{
	struct tcp_seg seg;
	size_t len;

	len = tcp_frame_finish(&d->peer, d->seg, d->peer_seq, ack, flags, 65535, 0, 0, 0);
	if (frame_parse_tcp(d->seg, len, &seg))
		return -EPROTO;
	tcp_input(d->xs.oc.tcp, &seg, now);
	return 0;
}

int xsk_dry_init(struct xsk_dry *d, const struct order_conn_cfg *cfg,
		 unsigned int frame_size, uint64_t now, char *err, size_t errlen)
{
	struct order_conn_ops ops = { .on_msg = no_msg };
	struct order_conn_cfg c = *cfg;
	struct tcp_conn *t;
	int ret;

	memset(d, 0, sizeof(*d));
	d->area = aligned_alloc(4096, (size_t)XSK_DRY_FRAMES * frame_size);
	if (!d->area) {
		snprintf(err, errlen, "the dry session's frames: out of memory");
		return -ENOMEM;
	}
	memset(d->area, 0, (size_t)XSK_DRY_FRAMES * frame_size);
	set_up_port(d, frame_size);
	empty_ring(d);
	c.stack = OC_STACK_OWN;
	/* No steering: nothing of this session is ever on the wire. */
	ret = xsk_session_init(&d->xs, &c, &ops, &d->port, NULL, err, errlen);
	if (ret)
		goto fail;
	t = d->xs.oc.tcp;
	/* The handshake, played: our SYN, the peer's SYN-ACK, our ACK. */
	ret = tcp_connect(t, d->xs.oc.cfg.local.port, 1, now);
	empty_ring(d);
	tcp_template_init(&d->peer, &t->cfg.remote, &t->cfg.local, 64);
	d->peer_seq = PEER_ISS;
	if (!ret)
		ret = peer_segment(d, TCP_SYN | TCP_ACK, t->snd_nxt, now);
	d->peer_seq++;
	empty_ring(d);
	if (ret || !tcp_is_established(t)) {
		snprintf(err, errlen, "the dry session's TCP did not open (state %s)",
			 tcp_state_names[t->state]);
		ret = ret ? ret : -EPROTO;
		goto fail_session;
	}
	/* Its SoupBinTCP login is not played: a send checks only this state. */
	d->xs.oc.state = OC_UP;
	d->sends = d->acks = 0;
	return 0;
fail_session:
	xsk_session_destroy(&d->xs);
fail:
	free(d->area);
	d->area = NULL;
	return ret;
}

void xsk_dry_destroy(struct xsk_dry *d)
{
	xsk_session_destroy(&d->xs);
	free(d->area);
	d->area = NULL;
}

void xsk_dry_reset(struct xsk_dry *d, uint64_t now)
{
	struct tcp_conn *t = d->xs.oc.tcp;

	if (t->snd_una != t->snd_max && !peer_segment(d, TCP_ACK, t->snd_max, now))
		d->acks++;
	empty_ring(d);
}
