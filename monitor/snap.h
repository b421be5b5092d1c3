/* SPDX-License-Identifier: MIT */
/*
 * Everything a view shows, read from the segment in one go: what t2t-top
 * draws and what t2t-monitor serves come from the same snapshot.  Each
 * block is consistent in itself (its sequence counter); blocks are read
 * one after another, not at one instant.
 */
#ifndef MONITOR_SNAP_H
#define MONITOR_SNAP_H

#include <stdbool.h>
#include <stdint.h>

#include "monitor/reader.h"

#define MON_SNAP_EVENTS 256	/* newest order events a snapshot keeps */

struct mon_snap {
	struct mon_header hdr;		/* the segment's, as opened */
	struct mon_counter_name names[MON_MAX_COUNTERS];
	uint64_t now_ns;		/* CLOCK_MONOTONIC when read */
	uint64_t heartbeat_ns;
	bool alive;			/* the writer is there */
	uint64_t counters_t_ns;
	uint64_t counters[MON_MAX_COUNTERS];
	struct mon_sym sym[MON_MAX_SYMBOLS];
	struct hdr_hist all[MON_STAGES];	/* since the writer started */
	struct hdr_hist recent[MON_STAGES];	/* the last recent_ns */
	uint64_t recent_ns;
	struct mon_event ev[MON_SNAP_EVENTS];	/* oldest first */
	unsigned int n_ev;
	uint64_t ev_next;		/* number of the event after ev[n_ev - 1] */
	uint64_t ev_lost;		/* asked for but overwritten before read */
	struct hdr_hist scratch[MON_STAGES];
};

/*
 * Read everything: the recent window is the newest window copy at least
 * window_ns old (or the whole run while it is younger); events from
 * number @since (0: the newest MON_SNAP_EVENTS).  0, or -EAGAIN when a
 * block could not be copied (a writer storing flat out into it).
 */
int mon_snapshot(const struct mon_reader *r, struct mon_snap *s, uint64_t window_ns,
		 uint64_t since);

/* The index of counter "group.name", or -1. */
int mon_snap_find(const struct mon_snap *s, const char *name);
/* Its value, 0 when there is no such counter. */
uint64_t mon_snap_get(const struct mon_snap *s, const char *name);

/* CLOCK_MONOTONIC of the writer's host to Unix time, ns. */
static inline uint64_t mon_snap_unix_ns(const struct mon_snap *s, uint64_t mono)
{
	return s->hdr.start_real_ns + (mono - s->hdr.start_mono_ns);
}

extern const char *const mon_event_names[MON_EV_NR];

#endif /* MONITOR_SNAP_H */
