// SPDX-License-Identifier: MIT
/* /api/state: the snapshot as one JSON object (monitor/README.md). */
#include <inttypes.h>
#include <string.h>

#include "monitor/export.h"

static void price(struct sbuf *b, const char *key, int64_t p4, bool last)
{
	char v[32];

	mon_price_str(p4, v, sizeof(v));
	sbuf_printf(b, "\"%s\": %s%s", key, v, last ? "" : ", ");
}

/* Counters grouped as the gateway's JSON report groups them: {"feed": {"ticks": 1}}. */
static void counters(struct sbuf *b, const struct mon_snap *s)
{
	char group[MON_COUNTER_NAME] = "";

	sbuf_printf(b, "  \"counters\": {");
	for (unsigned int i = 0; i < s->hdr.n_counters; i++) {
		const char *n = s->names[i].name, *dot = strchr(n, '.');
		size_t glen = dot ? (size_t)(dot - n) : 0;

		if (strlen(group) != glen || strncmp(group, n, glen)) {
			sbuf_printf(b, "%s\n    ", group[0] || i ? "}," : "");
			snprintf(group, sizeof(group), "%.*s", (int)glen, n);
			sbuf_json_str(b, glen ? group : "other");
			sbuf_printf(b, ": {");
			if (!glen)
				group[0] = '\0';
		} else {
			sbuf_printf(b, ", ");
		}
		sbuf_json_str(b, dot ? dot + 1 : n);
		if (s->names[i].kind == MON_FLAG)
			sbuf_printf(b, ": %s", s->counters[i] ? "true" : "false");
		else
			sbuf_printf(b, ": %" PRIu64, s->counters[i]);
	}
	sbuf_printf(b, "%s},\n", s->hdr.n_counters ? "}\n  " : "");
}

static void symbols(struct sbuf *b, const struct mon_snap *s)
{
	sbuf_printf(b, "  \"symbols\": [");
	for (unsigned int k = 0; k < s->hdr.n_symbols; k++) {
		const struct mon_sym *m = &s->sym[k];

		sbuf_printf(b, "%s\n    {\"symbol\": ", k ? "," : "");
		sbuf_json_str(b, s->hdr.symbols[k]);
		sbuf_printf(b, ", \"position\": %" PRId64 ", \"target\": %" PRId64
			    ", \"strategy_position\": %d, ", m->position, m->target, m->strat_pos);
		price(b, "cash", m->cash, false);
		price(b, "pnl", m->pnl, false);
		price(b, "bid", m->bid, false);
		price(b, "ask", m->ask, false);
		price(b, "last", m->last_price, false);
		sbuf_printf(b, "\"last_size\": %u, \"ticks\": %" PRIu64 ", \"orders\": %" PRIu64
			    ", \"fills\": %" PRIu64 ", \"cancels\": %" PRIu64 ", \"rejects\": %"
			    PRIu64 ", \"age_ms\": %.1f}", m->last_size, m->ticks, m->orders,
			    m->fills, m->cancels, m->rejects,
			    m->t_ns && s->now_ns > m->t_ns ? (double)(s->now_ns - m->t_ns) / 1e6 : 0.0);
	}
	sbuf_printf(b, "%s],\n", s->hdr.n_symbols ? "\n  " : "");
}

static void hist(struct sbuf *b, const char *key, const struct hdr_hist *h)
{
	sbuf_printf(b, "\"%s\": {\"count\": %" PRIu64, key, hdr_count(h));
	if (hdr_count(h)) {
		sbuf_printf(b, ", \"min\": %" PRId64 ", \"mean\": %.1f", hdr_min(h), hdr_mean(h));
		for (int p = 0; p < MON_NPCT; p++)
			sbuf_printf(b, ", \"%s\": %" PRId64, mon_pct_names[p],
				    hdr_value_at_percentile(h, mon_pcts[p]));
		sbuf_printf(b, ", \"max\": %" PRId64, hdr_max(h));
	}
	sbuf_printf(b, "}");
}

static void latency(struct sbuf *b, const struct mon_snap *s)
{
	sbuf_printf(b, "  \"latency_ns\": {\"window_s\": %.3f, \"stages\": [",
		    (double)s->recent_ns / 1e9);
	for (unsigned int i = 0; i < MON_STAGES; i++) {
		sbuf_printf(b, "%s\n    {\"stage\": ", i ? "," : "");
		sbuf_json_str(b, s->hdr.stages[i]);
		sbuf_printf(b, ", ");
		hist(b, "all", &s->all[i]);
		sbuf_printf(b, ", ");
		hist(b, "recent", &s->recent[i]);
		sbuf_printf(b, "}");
	}
	sbuf_printf(b, "\n  ]},\n");
}

static void events(struct sbuf *b, const struct mon_snap *s)
{
	sbuf_printf(b, "  \"events\": {\"next\": %" PRIu64 ", \"lost\": %" PRIu64 ", \"list\": [",
		    s->ev_next, s->ev_lost);
	for (unsigned int i = 0; i < s->n_ev; i++) {
		const struct mon_event *e = &s->ev[i];
		char px[32];

		mon_price_str(e->price, px, sizeof(px));
		sbuf_printf(b, "%s\n    {\"n\": %" PRIu64 ", \"t_ms\": %.3f, \"kind\": \"%s\", "
			    "\"symbol\": ", i ? "," : "", s->ev_next - s->n_ev + i,
			    (double)mon_snap_unix_ns(s, e->t_ns) / 1e6,
			    mon_event_names[e->kind < MON_EV_NR ? e->kind : 0]);
		sbuf_json_str(b, e->sym < s->hdr.n_symbols ? s->hdr.symbols[e->sym] : "?");
		sbuf_printf(b, ", \"side\": \"%c\", \"shares\": %u, \"price\": %s, \"order_no\": %u}",
			    e->side == 'B' ? 'B' : 'S', e->shares, px, e->order_no);
	}
	sbuf_printf(b, "%s]}\n", s->n_ev ? "\n  " : "");
}

void mon_json(struct sbuf *b, const struct mon_snap *s, const char *why)
{
	const struct mon_header *h;

	if (!s) {
		sbuf_printf(b, "{\"ok\": false, \"error\": ");
		sbuf_json_str(b, why ? why : "no segment");
		sbuf_printf(b, "}\n");
		return;
	}
	h = &s->hdr;
	sbuf_printf(b, "{\n  \"ok\": true,\n  \"segment\": {\"name\": ");
	sbuf_json_str(b, h->name);
	sbuf_printf(b, ", \"writer\": ");
	sbuf_json_str(b, h->writer);
	sbuf_printf(b, ", \"pid\": %d, \"version\": %u, \"alive\": %s, \"start_ms\": %.3f, "
		    "\"now_ms\": %.3f, \"uptime_s\": %.3f, \"heartbeat_age_s\": %.3f, "
		    "\"counters_age_s\": %.3f},\n", h->pid, h->version, s->alive ? "true" : "false",
		    (double)h->start_real_ns / 1e6, (double)mon_snap_unix_ns(s, s->now_ns) / 1e6,
		    (double)(s->now_ns - h->start_mono_ns) / 1e9,
		    s->now_ns > s->heartbeat_ns ? (double)(s->now_ns - s->heartbeat_ns) / 1e9 : 0.0,
		    s->now_ns > s->counters_t_ns ? (double)(s->now_ns - s->counters_t_ns) / 1e9 : 0.0);
	counters(b, s);
	symbols(b, s);
	latency(b, s);
	events(b, s);
	sbuf_printf(b, "}\n");
}
