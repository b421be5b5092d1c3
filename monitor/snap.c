// SPDX-License-Identifier: MIT
#include <errno.h>
#include <string.h>

#include "monitor/hist.h"
#include "monitor/snap.h"
#include "util/clock.h"

const char *const mon_event_names[MON_EV_NR] = {
	[0] = "?",
	[MON_EV_ORDER] = "order",
	[MON_EV_FILL] = "fill",
	[MON_EV_CANCEL] = "cancel",
	[MON_EV_REJECT] = "reject",
};

int mon_snapshot(const struct mon_reader *r, struct mon_snap *s, uint64_t window_ns,
		 uint64_t since)
{
	uint64_t t_win;
	int ret = 0;

	memcpy(&s->hdr, &r->hdr, sizeof(s->hdr));
	/* Written once before the segment was published: no counter guards them. */
	memcpy(s->names, r->seg->counter_names, sizeof(s->names));
	s->now_ns = mono_ns();
	s->heartbeat_ns = mon_heartbeat(r);
	s->alive = mon_writer_alive(r);
	if (mon_read_counters(r, s->counters, &s->counters_t_ns))
		ret = -EAGAIN;
	for (unsigned int k = 0; k < s->hdr.n_symbols; k++)
		if (mon_read_symbol(r, k, &s->sym[k]))
			ret = -EAGAIN;
	for (unsigned int i = 0; i < MON_STAGES; i++) {
		hdr_reset(&s->all[i]);
		if (mon_read_stage(r, i, &s->all[i]))
			ret = -EAGAIN;
	}
	/* The window copy is older than s->all: the difference is the window. */
	if (!mon_read_window(r, s->now_ns, window_ns, s->scratch, &t_win)) {
		for (unsigned int i = 0; i < MON_STAGES; i++)
			mon_hist_sub(&s->recent[i], &s->all[i], &s->scratch[i]);
		s->recent_ns = s->now_ns - t_win;
	} else {
		memcpy(s->recent, s->all, sizeof(s->recent));
		s->recent_ns = s->now_ns - s->hdr.start_mono_ns;
	}
	s->n_ev = mon_read_events(r, since, s->ev, MON_SNAP_EVENTS, &s->ev_next);
	/* since 0 asks for the newest only: nothing counts as lost */
	s->ev_lost = since && s->ev_next - s->n_ev > since ? s->ev_next - s->n_ev - since : 0;
	return ret;
}

int mon_snap_find(const struct mon_snap *s, const char *name)
{
	for (unsigned int i = 0; i < s->hdr.n_counters; i++)
		if (!strcmp(s->names[i].name, name))
			return (int)i;
	return -1;
}

uint64_t mon_snap_get(const struct mon_snap *s, const char *name)
{
	int i = mon_snap_find(s, name);

	return i < 0 ? 0 : s->counters[i];
}
