// SPDX-License-Identifier: MIT
/* The order session's frames and steering on an AF_XDP socket. */
#include <arpa/inet.h>
#include <string.h>

#include "net/xsk_session.h"

static uint8_t *tx_frame(void *ctx, uint64_t *handle)
{
	struct xsk_session *s = ctx;
	uint64_t addr = xsk_port_tx_frame(s->port);

	if (addr == UINT64_MAX)
		return NULL;
	*handle = addr;
	return xsk_port_data(s->port, addr);
}

static void tx_send(void *ctx, uint64_t handle, uint32_t len)
{
	struct xsk_session *s = ctx;

	if (!xsk_port_tx_queue(s->port, handle, len))
		s->queued++;
}

/*
 * The new connection's 4-tuple to the socket.  The last one's stays
 * steered among the few old ones (its late segments are answered here);
 * the oldest of those goes back to the kernel.
 */
static int steer(void *ctx, uint16_t old_port, uint16_t new_port)
{
	struct xsk_session *s = ctx;
	uint32_t ex = htonl(s->exch_ip), me = htonl(s->local_ip);
	uint16_t exp = htons(s->exch_port);
	unsigned int slot;

	/* A port used again is live again, not old. */
	for (unsigned int i = 0; i < XSK_SESSION_OLD_PORTS; i++)
		if (s->old_ports[i] == new_port)
			s->old_ports[i] = 0;
	if (old_port && old_port != new_port) {
		slot = s->n_old++ % XSK_SESSION_OLD_PORTS;
		if (s->old_ports[slot])
			xdp_steer_del_tcp(s->steer, ex, exp, me, htons(s->old_ports[slot]));
		s->old_ports[slot] = old_port;
	}
	return xdp_steer_add_tcp(s->steer, ex, exp, me, htons(new_port));
}

static void on_msg(void *ctx, const struct soup_msg *m, uint64_t now)
{
	struct xsk_session *s = ctx;

	s->user.on_msg(s->user.ctx, m, now);
}

static void on_up(void *ctx, uint64_t now)
{
	struct xsk_session *s = ctx;

	if (s->user.on_up)
		s->user.on_up(s->user.ctx, now);
}

static void on_down(void *ctx, uint64_t now)
{
	struct xsk_session *s = ctx;

	if (s->user.on_down)
		s->user.on_down(s->user.ctx, now);
}

int xsk_session_init(struct xsk_session *s, const struct order_conn_cfg *cfg,
		     const struct order_conn_ops *user, struct xsk_port *port,
		     struct xdp_steer *steer_, char *err, size_t errlen)
{
	struct order_conn_ops ops = {
		.on_msg = on_msg, .on_up = on_up, .on_down = on_down, .steer = steer, .ctx = s,
	};
	struct tcp_tx tx = { .frame = tx_frame, .send = tx_send, .ctx = s };
	s->port = port;
	s->steer = steer_;
	s->exch_ip = cfg->remote.ip;
	s->exch_port = cfg->remote.port;
	s->local_ip = cfg->local.ip;
	s->queued = 0;
	memset(s->old_ports, 0, sizeof(s->old_ports));
	s->n_old = 0;
	s->user = *user;
	if (cfg->stack != OC_STACK_OWN)
		ops.steer = NULL;
	return order_conn_init(&s->oc, cfg, &ops, cfg->stack == OC_STACK_OWN ? &tx : NULL,
			       err, errlen);
}

void xsk_session_destroy(struct xsk_session *s)
{
	order_conn_destroy(&s->oc);
}
