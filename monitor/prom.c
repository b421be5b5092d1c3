// SPDX-License-Identifier: MIT
/*
 * /metrics in the Prometheus text exposition format 0.0.4.  Each family is
 * HELP, TYPE, then all its samples together (the parser demands it).
 *
 * Stage histograms: the segment's buckets are HDR's (3584 per stage); the
 * export gives the cumulative count at a 1-2-5 series of bounds from
 * 100 ns to 10 s.  Each bound is the top of the HDR bucket that holds the
 * round value (le="1.003e-06" for 1 us), so every count is exact for its
 * le, and le is at most 0.79 % above the round value.
 */
#include <inttypes.h>
#include <string.h>

#include "monitor/export.h"

static void name_token(char *out, size_t len, size_t *at, const char *tok, size_t n)
{
	if (*at && *at + 1 < len)
		out[(*at)++] = '_';
	for (size_t i = 0; i < n && *at + 1 < len; i++)
		out[(*at)++] = tok[i];
	out[*at] = '\0';
}

void mon_prom_name(const struct mon_counter_name *c, char *out, size_t len)
{
	char src[MON_COUNTER_NAME];
	bool seconds = false;
	size_t at = 0;
	char *tok, *save;

	snprintf(src, sizeof(src), "%s", c->name);
	for (char *p = src; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9')))
			*p = '_';
	out[0] = '\0';
	name_token(out, len, &at, "t2t", 3);
	for (tok = strtok_r(src, "_", &save); tok; tok = strtok_r(NULL, "_", &save)) {
		if (c->unit == MON_UNIT_NS && !strcmp(tok, "ns")) {
			tok = "seconds";
			seconds = true;
		}
		if (c->kind == MON_COUNTER && !strcmp(tok, "total") && !save[0] &&
		    c->unit == MON_UNIT_NS && !seconds) {
			name_token(out, len, &at, "seconds", 7);
			seconds = true;
		}
		name_token(out, len, &at, tok, strlen(tok));
	}
	if (c->unit == MON_UNIT_NS && !seconds)
		name_token(out, len, &at, "seconds", 7);
	if (c->kind == MON_COUNTER && (at < 6 || strcmp(out + at - 6, "_total")))
		name_token(out, len, &at, "total", 5);
}

static void family(struct sbuf *b, const char *name, const char *type, const char *help)
{
	sbuf_printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* A label value: backslash, double quote and newline escaped. */
static void label_value(struct sbuf *b, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			sbuf_printf(b, "\\%c", *s);
		else if (*s == '\n')
			sbuf_printf(b, "\\n");
		else
			sbuf_printf(b, "%c", *s);
	}
}

static void counters(struct sbuf *b, const struct mon_snap *s)
{
	char names[MON_MAX_COUNTERS][96];

	for (unsigned int i = 0; i < s->hdr.n_counters; i++) {
		const struct mon_counter_name *c = &s->names[i];
		const char *type = c->kind == MON_COUNTER ? "counter" : "gauge";
		char help[128];
		bool dup = false;

		mon_prom_name(c, names[i], sizeof(names[i]));
		/* Two names that clean up alike: the first one stands. */
		for (unsigned int j = 0; j < i && !dup; j++)
			dup = !strcmp(names[j], names[i]);
		if (dup || !c->name[0])
			continue;
		snprintf(help, sizeof(help), "gateway %s %s%s", c->kind == MON_FLAG ? "flag" : type,
			 c->name, c->unit == MON_UNIT_NS ? " (in seconds)" : "");
		family(b, names[i], type, help);
		if (c->unit == MON_UNIT_NS)
			sbuf_printf(b, "%s %" PRIu64 ".%09" PRIu64 "\n", names[i],
				    s->counters[i] / 1000000000, s->counters[i] % 1000000000);
		else
			sbuf_printf(b, "%s %" PRIu64 "\n", names[i], s->counters[i]);
	}
}

enum sym_field { F_POS, F_TARGET, F_STRAT, F_CASH, F_PNL, F_BID, F_ASK, F_LAST, F_SIZE,
		 F_TICKS, F_ORDERS, F_FILLS, F_CANCELS, F_REJECTS, F_NR };

static const struct {
	const char *name, *type, *help;
	bool dollars;
} sym_fields[F_NR] = {
	[F_POS] = { "t2t_position_shares", "gauge", "position the exchange confirmed" },
	[F_TARGET] = { "t2t_target_shares", "gauge", "position the strategy wants" },
	[F_STRAT] = { "t2t_strategy_position", "gauge", "the strategy's stop-and-reverse state (-1, 0, 1)" },
	[F_CASH] = { "t2t_cash_dollars", "gauge", "cash from fills", true },
	[F_PNL] = { "t2t_pnl_dollars", "gauge", "cash plus position marked at the last print", true },
	[F_BID] = { "t2t_bid_dollars", "gauge", "best bid (absent while unknown)", true },
	[F_ASK] = { "t2t_ask_dollars", "gauge", "best ask (absent while unknown)", true },
	[F_LAST] = { "t2t_last_price_dollars", "gauge", "last print (absent before the first)", true },
	[F_SIZE] = { "t2t_last_size_shares", "gauge", "shares of the last print" },
	[F_TICKS] = { "t2t_symbol_ticks_total", "counter", "prints of the symbol" },
	[F_ORDERS] = { "t2t_symbol_orders_total", "counter", "orders sent" },
	[F_FILLS] = { "t2t_symbol_fills_total", "counter", "executions" },
	[F_CANCELS] = { "t2t_symbol_cancels_total", "counter", "orders canceled" },
	[F_REJECTS] = { "t2t_symbol_rejects_total", "counter", "orders rejected" },
};

static bool sym_value(const struct mon_sym *m, enum sym_field f, int64_t *v)
{
	switch (f) {
	case F_POS: *v = m->position; return true;
	case F_TARGET: *v = m->target; return true;
	case F_STRAT: *v = m->strat_pos; return true;
	case F_CASH: *v = m->cash; return true;
	case F_PNL: *v = m->pnl; return true;
	case F_BID: *v = m->bid; return m->bid != 0;
	case F_ASK: *v = m->ask; return m->ask != 0;
	case F_LAST: *v = m->last_price; return m->last_price != 0;
	case F_SIZE: *v = m->last_size; return m->last_price != 0;
	case F_TICKS: *v = (int64_t)m->ticks; return true;
	case F_ORDERS: *v = (int64_t)m->orders; return true;
	case F_FILLS: *v = (int64_t)m->fills; return true;
	case F_CANCELS: *v = (int64_t)m->cancels; return true;
	case F_REJECTS: *v = (int64_t)m->rejects; return true;
	default: return false;
	}
}

static void symbols(struct sbuf *b, const struct mon_snap *s)
{
	for (int f = 0; f < F_NR; f++) {
		if (!s->hdr.n_symbols)
			return;
		family(b, sym_fields[f].name, sym_fields[f].type, sym_fields[f].help);
		for (unsigned int k = 0; k < s->hdr.n_symbols; k++) {
			char val[32];
			int64_t v;

			if (!sym_value(&s->sym[k], f, &v))
				continue;
			if (sym_fields[f].dollars)
				mon_price_str(v, val, sizeof(val));
			else
				snprintf(val, sizeof(val), "%" PRId64, v);
			sbuf_printf(b, "%s{symbol=\"", sym_fields[f].name);
			label_value(b, s->hdr.symbols[k]);
			sbuf_printf(b, "\"} %s\n", val);
		}
	}
}

static void stage_label(struct sbuf *b, const char *metric, const struct mon_snap *s,
			unsigned int i)
{
	sbuf_printf(b, "%s{stage=\"", metric);
	label_value(b, s->hdr.stages[i]);
	sbuf_printf(b, "\"");
}

static void histograms(struct sbuf *b, const struct mon_snap *s)
{
	static const int64_t steps[] = { 1, 2, 5 };
	const char *m = "t2t_stage_latency_seconds";

	family(b, m, "histogram", "per-order latency of each tick-to-trade stage "
	       "(latency/order_rec.h) since the writer started");
	for (unsigned int i = 0; i < MON_STAGES; i++) {
		const struct hdr_hist *h = &s->all[i];
		uint64_t cum = 0;
		uint32_t next = 0;

		for (int64_t dec = 100; dec <= HDR_MAX_VALUE; dec *= 10) {
			for (int k = 0; k < 3 && dec * steps[k] <= HDR_MAX_VALUE; k++) {
				uint32_t top = hdr_index(dec * steps[k]);

				for (; next <= top; next++)
					cum += h->counts[next];
				stage_label(b, "t2t_stage_latency_seconds_bucket", s, i);
				sbuf_printf(b, ",le=\"%.12g\"} %" PRIu64 "\n",
					    (double)hdr_bucket_high(top) / 1e9, cum);
			}
		}
		stage_label(b, "t2t_stage_latency_seconds_bucket", s, i);
		sbuf_printf(b, ",le=\"+Inf\"} %" PRIu64 "\n", h->total);
		stage_label(b, "t2t_stage_latency_seconds_sum", s, i);
		sbuf_printf(b, "} %" PRIu64 ".%09" PRIu64 "\n", h->sum / 1000000000,
			    h->sum % 1000000000);
		stage_label(b, "t2t_stage_latency_seconds_count", s, i);
		sbuf_printf(b, "} %" PRIu64 "\n", h->total);
	}

	/* The recent window: quantiles computed here over a sliding window, a summary. */
	family(b, "t2t_stage_latency_recent_seconds", "summary",
	       "per-order latency of each stage over the last seconds "
	       "(t2t_stage_latency_window_seconds)");
	for (unsigned int i = 0; i < MON_STAGES; i++) {
		const struct hdr_hist *h = &s->recent[i];

		for (int p = 0; p < MON_NPCT; p++) {
			stage_label(b, "t2t_stage_latency_recent_seconds", s, i);
			sbuf_printf(b, ",quantile=\"%g\"} %.12g\n", mon_pcts[p] / 100,
				    (double)hdr_value_at_percentile(h, mon_pcts[p]) / 1e9);
		}
		stage_label(b, "t2t_stage_latency_recent_seconds_sum", s, i);
		sbuf_printf(b, "} %" PRIu64 ".%09" PRIu64 "\n", h->sum / 1000000000,
			    h->sum % 1000000000);
		stage_label(b, "t2t_stage_latency_recent_seconds_count", s, i);
		sbuf_printf(b, "} %" PRIu64 "\n", h->total);
	}
	family(b, "t2t_stage_latency_window_seconds", "gauge",
	       "length of the window t2t_stage_latency_recent_seconds covers");
	sbuf_printf(b, "t2t_stage_latency_window_seconds %.3f\n", (double)s->recent_ns / 1e9);
}

void mon_prom(struct sbuf *b, const struct mon_snap *s)
{
	family(b, "t2t_up", "gauge", "1 while the segment's writer is running");
	sbuf_printf(b, "t2t_up %d\n", s && s->alive);
	if (!s)
		return;
	family(b, "t2t_info", "gauge", "the segment read: name, writer, its pid, layout version");
	sbuf_printf(b, "t2t_info{name=\"");
	label_value(b, s->hdr.name);
	sbuf_printf(b, "\",writer=\"");
	label_value(b, s->hdr.writer);
	sbuf_printf(b, "\",pid=\"%d\",version=\"%u\"} 1\n", s->hdr.pid, s->hdr.version);
	family(b, "t2t_start_time_seconds", "gauge", "when the writer made the segment, Unix time");
	sbuf_printf(b, "t2t_start_time_seconds %.3f\n", (double)s->hdr.start_real_ns / 1e9);
	family(b, "t2t_heartbeat_age_seconds", "gauge", "time since the writer's last tick");
	sbuf_printf(b, "t2t_heartbeat_age_seconds %.3f\n",
		    s->now_ns > s->heartbeat_ns ? (double)(s->now_ns - s->heartbeat_ns) / 1e9 : 0.0);
	counters(b, s);
	symbols(b, s);
	histograms(b, s);
	family(b, "t2t_order_events_total", "counter", "order events the writer recorded "
	       "(orders, fills, cancels, rejects)");
	sbuf_printf(b, "t2t_order_events_total %" PRIu64 "\n", s->ev_next);
}
