/* SPDX-License-Identifier: MIT */
/* Status line, final summary (text and JSON) and the order log, off the hot path. */
#ifndef GATEWAY_REPORT_H
#define GATEWAY_REPORT_H

#include <stdio.h>

#include "gateway/counters.h"
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
	bool final;			/* the hot loop has stopped (report_build()) */
};

/*
 * Every counter of the run, in one table: the summary, the JSON and the
 * monitor segment are all written from it, group by group, in this order.
 * Its rows are those of gateway/counters.h, each at most once, in that
 * table's order.
 */
struct counter {
	const char *group;
	const char *name;
	enum val_kind kind;
	uint64_t v;
	const char *str;
	enum gw_counter_id id;	/* its row in gw_counters[] */
};

#define COUNTERS_MAX CNT_NR

struct counters {
	struct counter c[COUNTERS_MAX];
	unsigned int n;
	char digest[17];	/* the books' digest, as text */
};

/*
 * Fill the table from the engine and the path (the latter's kernel and
 * BPF counters cost a syscall each: off the hot loop).  The table's rows
 * and their order depend only on the configuration, never on the values.
 */
void report_collect(struct counters *t, const struct gw_report *r);

/*
 * An order-log record as the capture log sees it.  The exchange's side of
 * its times (t_send from the feed's timestamp, t_ack from the reply's) is
 * this host's clock only when the feed says so (--feed-clock mono) and the
 * stamps agree with it; otherwise those two are not measured (0), and a
 * disagreement is counted in *mismatch (may be NULL).
 */
void report_order_rec(const struct gw_report *r, const struct gw_order *o,
		      struct capture_rec *c, uint64_t *mismatch);

/* One status line from the shared counters (called once a second). */
/*
 * What the order session has to say that the hot loop cannot print: its
 * halt (replies lost for good), a Login Accepted for another session, what
 * the kernel refused.  Each said once on @out, as it happens (main thread,
 * with the loop running); @seen keeps what was said.
 */
struct session_alerts {
	bool halted, wrong_session;
	uint32_t notes;
};
void report_session_alerts(FILE *out, const struct order_conn *oc, struct session_alerts *seen);

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
