/* SPDX-License-Identifier: MIT */
/*
 * The two data paths.  Each owns its sockets and runs the hot loop on the
 * calling thread until *stop is set or, with exit_on_end, the feed ended and
 * the grace time for replies has passed.
 */
#ifndef GATEWAY_PATH_H
#define GATEWAY_PATH_H

#include <stdint.h>

#include "gateway/engine.h"
#include "gateway/lines.h"
#include "gateway/session.h"
#include "gateway/opts.h"
#include "gateway/warm.h"
#include "bpf/steer_loader.h"
#include "net/order_conn.h"
#include "net/xsk_dry.h"
#include "net/xsk_port.h"
#include "net/xsk_queues.h"
#include "net/xsk_session.h"
#include "proto/frame.h"
#include "host/flows.h"

struct gw_mon;

struct run_ctl {
	volatile int stop;
	int exit_on_end;
	uint64_t grace_ns;
	struct gw_mon *mon;	/* published to in idle turns; NULL: none */
};

/* Frames queued since the last TX kick, and the orders among them. */
struct tx_batch {
	struct gw_order *rec[256];
	unsigned int n;
	unsigned int frames;	/* frames queued, orders or not */
};

struct xsk_path;

/*
 * Where a print's orders go: the live session, its batch and the live
 * engine, or the dry session, its batch and the shadow engine (the idle
 * turn's dry sends).  Both go through the same functions.
 */
struct order_out {
	struct xsk_path *x;
	struct gw_engine *e;
	struct xsk_session *xs;
	struct tx_batch *batch;
};

struct xsk_path {
	struct xdp_steer steer;
	struct xsk_queues q;		/* a socket per served queue; q.tx transmits */
	bool line_b;			/* line B's interface is served too */
	struct hc_flow flows[HC_MAX_FLOWS];	/* what the hook steers, for advice */
	unsigned int n_flows;
	uint64_t arb_recovered;		/* gaps closed when the hook's next was last set */
	struct frame_template rq_tmpl;	/* gateway -> re-request server */
	uint16_t feed_port, retrans_port;
	bool rq_enabled;
	bool verify_csum;		/* the feed's IPv4, UDP checksums checked (TCP's always) */
	bool own_tcp;			/* the session on the own TCP, in this socket */
	bool paper;			/* no order session (engine.h: paper orders) */
	uint64_t kicks;
	struct gw_engine *e;		/* while running */
	struct tx_batch batch;
	struct warm *warm;		/* NULL: no idle-time warming */
	struct xsk_dry *dry;		/* the warming's dry sends; NULL: none */
	struct tx_batch dry_batch;
	struct order_out live;		/* the live engine's orders (while running) */
	struct order_out dry_out;	/* the shadow's, onto the dry session */
	uint64_t idle_mask;		/* idle turn every (mask + 1) empty spins */
	struct xsk_session xs;		/* the order session (xs.oc) */
	struct gw_session sess;		/* its glue (gateway/session.h) */
};

struct udp_path {
	int feed_fd;
	int feed_b_fd;			/* line B; -1 = one line */
	uint32_t feed_b_source;		/* line B's required sender; 0 = any */
	struct line_stats lines;	/* the A/B rule's verdicts (gateway/lines.h) */
	int rq_fd;			/* connected to the re-request server; -1 = off */
	int blocking;
	uint32_t feed_source;		/* required sender, host order; 0 = any */
	int64_t rt_offset;		/* CLOCK_REALTIME - CLOCK_MONOTONIC */
	uint64_t no_kernel_stamp;
	uint64_t send_errors;
	struct gw_engine *e;		/* while running */
	struct order_conn oc;		/* the order session, on the kernel's TCP */
	struct gw_session sess;		/* its glue (gateway/session.h) */
	bool paper;			/* no order session (engine.h: paper orders) */
};

int xsk_path_open(struct xsk_path *x, const struct gw_opts *o, char *err,
		  size_t errlen);
void xsk_path_run(struct xsk_path *x, struct gw_engine *e, struct run_ctl *ctl);
void xsk_path_close(struct xsk_path *x);

int udp_path_open(struct udp_path *u, const struct gw_opts *o, char *err,
		  size_t errlen);
void udp_path_run(struct udp_path *u, struct gw_engine *e, struct run_ctl *ctl);
void udp_path_close(struct udp_path *u);

#endif /* GATEWAY_PATH_H */
