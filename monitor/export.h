/* SPDX-License-Identifier: MIT */
/*
 * A snapshot as text: the Prometheus exposition format (0.0.4) for
 * /metrics and JSON for /api/state (monitor/README.md lists every name).
 */
#ifndef MONITOR_EXPORT_H
#define MONITOR_EXPORT_H

#include "monitor/sbuf.h"
#include "monitor/snap.h"

/* Percentiles the views show, and their names. */
#define MON_NPCT 3
extern const double mon_pcts[MON_NPCT];		/* 50, 99, 99.9 */
extern const char *const mon_pct_names[MON_NPCT];	/* "p50", "p99", "p99.9" */

/*
 * The Prometheus name of counter c: "t2t_" + group_name, nanosecond
 * counters in seconds ("ns" becomes "seconds"), counters ending in
 * "_total".
 */
void mon_prom_name(const struct mon_counter_name *c, char *out, size_t len);

/* /metrics; s NULL: no segment, only t2t_up 0. */
void mon_prom(struct sbuf *b, const struct mon_snap *s);

/* /api/state; s NULL: {"ok": false, "error": why}. */
void mon_json(struct sbuf *b, const struct mon_snap *s, const char *why);

/* Price(4) units as dollars with four decimals ("-12.3400"). */
void mon_price_str(int64_t p4, char *buf, size_t len);

#endif /* MONITOR_EXPORT_H */
