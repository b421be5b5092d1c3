/* SPDX-License-Identifier: MIT */
/*
 * The gateway's side of the monitor segment (monitor/): what it publishes
 * and from which thread.
 *
 *  - The main thread, every GW_MON_PERIOD_NS: the counter table (the same
 *    rows as the summary and the JSON, report_collect()), and the orders
 *    the hot loop has finished with: each order's stages (the report's own
 *    rule, report_order_rec() and order_stages()) and its events.  An order
 *    is taken once it has its final reply (so that send->ack and the fill
 *    are known), or GW_MON_ORDER_WAIT_NS after it timed out (a late
 *    Executed still books its fill).  Once a second,
 *    mon_tick() (the latency window).
 *  - The hot loop, in its idle turns only, at most every
 *    GW_MON_SYMBOL_NS: each instrument's position, cash, PnL, strategy,
 *    book top and last print, which it alone writes, so one copy is never
 *    half of two fills.  A tick never waits for any of this.
 */
#ifndef GATEWAY_MON_H
#define GATEWAY_MON_H

#include <stdbool.h>
#include <stdint.h>

#include "gateway/engine.h"
#include "gateway/report.h"
#include "monitor/writer.h"
#include "util/clock.h"

#define GW_MON_PERIOD_NS	(100 * NS_PER_MS)
#define GW_MON_SYMBOL_NS	(10 * NS_PER_MS)
#define GW_MON_ORDER_WAIT_NS	NS_PER_SEC

struct gw_mon {
	struct mon_writer w;
	const struct gw_report *rep;
	struct mon_counter_def defs[COUNTERS_MAX];
	uint64_t vals[COUNTERS_MAX];
	unsigned int n_defs;
	uint32_t order_cursor;		/* orders taken so far */
	uint64_t orders_skipped;	/* overwritten in the log before taken */
	uint64_t next_tick_ns;
	uint64_t next_symbol_ns;	/* the hot loop's */
};

/*
 * Create the segment /dev/shm/t2t-@name for the run @rep describes (its
 * engine initialised, its path open).  0, or -errno with the reason in err.
 */
int gw_mon_open(struct gw_mon *m, const char *name, const struct gw_report *rep,
		char *err, size_t errlen);
void gw_mon_close(struct gw_mon *m);

/*
 * Main thread: counters, finished orders, the window (see above).  @all:
 * the last call, at exit: every order as it stands.
 */
void gw_mon_poll(struct gw_mon *m, uint64_t now, bool all);

void gw_mon_symbols(struct gw_mon *m, const struct gw_engine *e, uint64_t now);

/* Hot loop, idle turns: the instruments, when GW_MON_SYMBOL_NS has passed. */
static inline void gw_mon_idle(struct gw_mon *m, const struct gw_engine *e,
			       uint64_t now)
{
	if (m && now >= m->next_symbol_ns) {
		m->next_symbol_ns = now + GW_MON_SYMBOL_NS;
		gw_mon_symbols(m, e, now);
	}
}

#endif /* GATEWAY_MON_H */
