/* SPDX-License-Identifier: MIT */
/*
 * Where the steered flows arrive, queue by queue, and what to do when one
 * arrives where no socket reads.
 *
 * The XDP program counts every steered packet against the interface, the
 * receive queue and the class of flow it arrived with, at that queue's
 * socket or dropped for want of one (bpf/steer.h, queue_stats); each
 * socket counts what the loop took from it and the kernel what it dropped.
 * This reads them together, off the hot loop, for the summary, the JSON
 * report, the monitor's rows and the warning a run prints within a second
 * of a flow landing on a queue it does not serve.
 */
#ifndef GATEWAY_QUEUES_H
#define GATEWAY_QUEUES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "gateway/opts.h"
#include "gateway/path.h"
#include "host/flows.h"

/* One receive queue of a feed interface, served or not. */
struct gw_queue {
	unsigned int slot;		/* 0: line A's interface, 1: line B's */
	unsigned int queue;
	bool served;
	uint64_t received;		/* descriptors the loop took from its RX ring */
	uint64_t steered[STEER_CLASS_NR];	/* by the hook to its socket */
	uint64_t unserved[STEER_CLASS_NR];	/* dropped in the hook: no socket there */
	uint64_t dropped;		/* unserved, and the socket's own drops */
	uint64_t ring_full;		/* RX ring full, fill ring empty */
	struct xdp_statistics st;	/* the socket's, when served */
	unsigned int napi_id;		/* the NAPI its packets came from (busy polling's); 0: none */
};

struct gw_queues {
	struct gw_queue q[XSK_QUEUES_MAX];
	unsigned int n;
	uint64_t unserved;		/* every queue's, every class */
};

/* Every queue of every feed interface, served or not.  Off the hot loop. */
void gw_queues_read(const struct xsk_path *x, struct gw_queues *out);

/* The flows the path steers (the order connection's only on the own TCP). */
unsigned int gw_flows(const struct gw_opts *o, uint32_t local_ip, struct hc_flow *out);

/* The flow of class @cls arriving on interface slot @slot, or NULL. */
const struct hc_flow *gw_flow_of(const struct hc_flow *f, unsigned int n, unsigned int slot,
				 unsigned int cls);

/* What the path serves and where orders leave: one line, for the start. */
void gw_queues_describe(const struct xsk_path *x, const struct gw_opts *o, char *buf,
			size_t len);

/* The per-queue table and its advice, for the summary. */
void gw_queues_summary(FILE *out, const struct xsk_path *x, const struct gw_opts *o,
		       const struct hc_flow *flows, unsigned int n_flows);
/* The same as a JSON member ("queue_table": [...],). */
void gw_queues_json(FILE *out, const struct xsk_path *x);

/*
 * Said once per (interface, queue, class): a steered flow that arrived on
 * a queue with no socket, and what to do about it.
 */
struct gw_queues_seen {
	bool said[STEER_MAX_IFS][STEER_MAX_QUEUES][STEER_CLASS_NR];
};

/* Print what is new since the last call (the supervisor, once a second). */
void gw_queues_watch(FILE *out, const struct xsk_path *x, const struct gw_opts *o,
		     const struct hc_flow *flows, unsigned int n_flows,
		     struct gw_queues_seen *seen);

#endif /* GATEWAY_QUEUES_H */
