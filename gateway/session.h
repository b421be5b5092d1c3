/* SPDX-License-Identifier: MIT */
/*
 * The order session's glue, once for both paths: what the gateway does
 * with the session's events (a reply, a login, a lost connection), the
 * orders in doubt sent again after a new login, the held feed packets
 * drained, and the housekeeping of an idle turn (re-requests, the
 * session's timers, order timeouts).  A path keeps only what differs: how
 * a packet arrives, and how a frame leaves (its sender and its re-request
 * sender, given here as callbacks).
 *
 * A paper run has no order session (oc NULL): the glue then keeps the feed
 * side only, and a paper order waits for the feed's clock, not a reply.
 */
#ifndef GATEWAY_SESSION_H
#define GATEWAY_SESSION_H

#include <stddef.h>
#include <stdint.h>

#include "gateway/engine.h"
#include "net/order_conn.h"

/* How the path's frames leave. */
struct gw_session_out {
	/* Decided orders, as the engine's sink sends them (gw_sink_fn). */
	gw_sink_fn send;
	void *send_ctx;
	/* A MoldUDP64 re-request; NULL: no re-request server. */
	void (*rerequest)(void *ctx, const uint8_t *pkt, size_t len);
	void *rerequest_ctx;
};

struct gw_session {
	struct gw_engine *e;		/* while running */
	struct order_conn *oc;		/* NULL: a paper run */
	struct gw_session_out out;
	/*
	 * The arrival of what the session is reading: a reply's make-up
	 * order carries it as its t_hook (the segment's hook stamp on the
	 * AF_XDP path; the loop's clock when it reads a socket).
	 */
	uint64_t t_hook;
};

/* @oc: the path's session, or NULL for a paper run. */
void gw_session_init(struct gw_session *s, struct order_conn *oc,
		     const struct gw_session_out *out);

/* The session's callbacks for order_conn_init() (ctx: @s). */
void gw_session_conn_ops(struct gw_session *s, struct order_conn_ops *ops);

/* The run starts: the engine to trade with, the connection made. */
void gw_session_start(struct gw_session *s, struct gw_engine *e, uint64_t now);

/* Held packets that can be decoded now, GW_DRAIN_BUDGET at a time. */
void gw_session_drain_held(struct gw_session *s, uint64_t now);

/*
 * Read the session's socket (the kernel's TCP): replies taken now carry
 * @now as their t_hook.
 */
void gw_session_poll(struct gw_session *s, uint64_t now);

/*
 * Off the per-packet path: re-requests while a gap is open, the held
 * packets they released, the session's timers, orders in doubt sent again,
 * order timeouts.
 */
void gw_session_housekeeping(struct gw_session *s, uint64_t now);

/*
 * After the loop: a paper run's waiting orders are decided; a live one
 * logs out and closes.  true when the path should keep serving the
 * connection until gw_session_closed() (or its own deadline).
 */
bool gw_session_shutdown(struct gw_session *s, uint64_t now);

static inline bool gw_session_closed(const struct gw_session *s)
{
	return !s->oc || order_conn_stopped(s->oc);
}

#endif /* GATEWAY_SESSION_H */
