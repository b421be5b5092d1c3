/* SPDX-License-Identifier: MIT */
/* Status line, final summary (text and JSON) and the order log, off the hot path. */
#ifndef GATEWAY_REPORT_H
#define GATEWAY_REPORT_H

#include <stdio.h>

#include "gateway/engine.h"
#include "gateway/opts.h"
#include "gateway/path.h"
#include "latency/capture.h"
#include "latency/hdr.h"

struct gw_report {
	const struct gw_opts *o;
	struct gw_engine *e;
	struct xsk_path *x;	/* NULL on the UDP path */
	struct udp_path *u;	/* NULL on the AF_XDP path */
	double elapsed_s;
	struct capture_hists *lat;	/* per stage (latency/order_rec.h) */
	uint64_t clock_mismatch;	/* feed stamps said mono but were not */
	struct hdr_hist *clock_read;	/* back-to-back clock reads, hot CPU */
};

/* One status line from the shared counters (called once a second). */
void report_status(FILE *out, const struct gw_report *r, double dt_s,
		   uint64_t *prev_ticks);
/*
 * Build the stage histograms from the order log, measure the clock reads'
 * cost on the hot loop's CPU, and write the capture log if asked for
 * (allocates; after the run, once the hot loop has stopped).
 */
int report_build(struct gw_report *r);
void report_free(struct gw_report *r);
void report_summary(FILE *out, const struct gw_report *r);
int report_json(const char *path, const struct gw_report *r);
int report_orders_csv(const char *path, const struct gw_report *r);
const char *path_name(const struct gw_opts *o);

#endif /* GATEWAY_REPORT_H */
