// SPDX-License-Identifier: MIT
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gateway/report.h"
#include "latency/capture.h"
#include "latency/clock_cost.h"
#include "proto/itch.h"

/* The capture log's outcomes and flags are the order log's. */
#define SAME(a, b) ((int)(a) == (int)(b))
_Static_assert(SAME(GW_ORDER_SENT, CAP_SENT) && SAME(GW_ORDER_ACCEPTED, CAP_ACCEPTED) &&
	       SAME(GW_ORDER_FILLED, CAP_FILLED) && SAME(GW_ORDER_CANCELED, CAP_CANCELED) &&
	       SAME(GW_ORDER_REJECTED, CAP_REJECTED) &&
	       SAME(GW_ORDER_SEND_FAILED, CAP_SEND_FAILED) &&
	       SAME(GW_ORDER_TIMED_OUT, CAP_TIMED_OUT) && SAME(GW_F_RETRANS, CAP_F_RETRANS) &&
	       SAME(GW_F_CATCHUP, CAP_F_CATCHUP),
	       "order states/flags and capture outcomes/flags differ");

#define CLOCK_COST_PAIRS 100000

const char *const stage_names[STAGE_NR] = {
	[STAGE_FEED] = "send->hook",
	[STAGE_HOOK_SEEN] = "hook->seen",
	[STAGE_SEEN_DECIDED] = "seen->decided",
	[STAGE_DECIDED_QUEUED] = "decided->queued",
	[STAGE_QUEUED_SENT] = "queued->sent",
	[STAGE_HOOK_QUEUED] = "hook->queued",
	[STAGE_HOOK_SENT] = "hook->sent",
	[STAGE_SEND_ACK] = "send->ack",
};

static const double pcts[] = { 50, 90, 99, 99.9, 99.99 };
#define NPCT (sizeof(pcts) / sizeof(pcts[0]))

static const char *const risk_names[RISK_NR] = {
	[RISK_KILLED] = "kill_switch",
	[RISK_STALE] = "stale_session",
	[RISK_MAX_POS] = "max_position",
	[RISK_MAX_ORDER] = "max_order_size",
	[RISK_RATE] = "max_rate",
	[RISK_COLLAR] = "price_collar",
	[RISK_MAX_OPEN] = "max_open_orders",
};

const char *path_name(const struct gw_opts *o)
{
	if (o->mode == GW_MODE_XDP)
		return "af_xdp";
	return o->udp_recv == GW_UDP_BLOCK ? "udp_block" : "udp_spin";
}

static uint64_t xdp_drops(const struct gw_report *r, struct xdp_statistics *st)
{
	if (!r->x || xsk_port_kernel_stats(&r->x->port, st))
		return 0;
	return st->rx_dropped + st->rx_ring_full + st->rx_fill_ring_empty_descs;
}

static uint64_t malformed(const struct feed_counters *c)
{
	return c->short_packet + c->block_overrun + c->count_too_high +
	       c->count_too_low + c->zero_length_block + c->bad_length +
	       c->unknown_type;
}

/* Length of a space-padded wire symbol without its padding. */
static int sym_len(const char sym[8])
{
	int n = 8;

	while (n > 0 && sym[n - 1] == ' ')
		n--;
	return n;
}

static double pnl_dollars(const struct gw_engine *e)
{
	int64_t sum = 0;

	for (unsigned int i = 0; i < e->n_inst; i++)
		sum += engine_inst_pnl(&e->inst[i]);
	return (double)sum / 10000.0;
}

void report_status(FILE *out, const struct gw_report *r, double dt_s,
		   uint64_t *prev_ticks)
{
	/* The hot loop writes these; aligned 64-bit loads see whole values. */
	const volatile struct gw_stats *s = &r->e->st;
	uint64_t ticks = s->ticks;
	struct xdp_statistics st;

	fprintf(out, "%s: %8.0f ticks/s  ticks %-9" PRIu64 " orders %-6" PRIu64
		" fills %-6" PRIu64 " cancels %-5" PRIu64 " pnl %+.2f  pos",
		path_name(r->o), (double)(ticks - *prev_ticks) / dt_s, ticks,
		(uint64_t)s->orders, (uint64_t)s->fills, (uint64_t)s->cancels,
		pnl_dollars(r->e));
	for (unsigned int i = 0; i < r->e->n_inst; i++) {
		const volatile struct gw_inst *in = &r->e->inst[i];

		fprintf(out, " %.*s %+" PRId64, sym_len(r->e->inst[i].symbol),
			r->e->inst[i].symbol, (int64_t)in->pos_shares);
	}
	fprintf(out, "  malformed %" PRIu64 "  gaps %" PRIu64 "  xdp drops %" PRIu64 "%s\n",
		malformed(&r->e->dec.cnt), r->e->gap.gaps, xdp_drops(r, &st),
		r->e->gap.stale ? "  STALE" : "");
	fflush(out);
	*prev_ticks = ticks;
}

/* An order-log record as the capture log sees it. */
static void order_to_rec(const struct gw_engine *e, const struct gw_order *o,
			 struct capture_rec *c)
{
	const struct gw_inst *in = &e->inst[o->inst];

	memset(c, 0, sizeof(*c));
	c->order_no = o->order_no;
	c->md_seq = o->md_seq;
	memcpy(c->symbol, in->symbol, (size_t)sym_len(in->symbol));
	c->side = o->side;
	c->shares = o->shares;
	c->price = o->price;
	c->outcome = o->state < CAP_OUTCOME_NR ? o->state : CAP_SENT;
	c->flags = o->flags;
	c->t_send = o->t_hook ? itch_ts_recover(o->t_exch, o->t_hook) : 0;
	c->t_hook = o->t_hook;
	c->t_seen = o->t_seen;
	c->t_decided = o->t_decided;
	c->t_queued = o->t_queued;
	c->t_sent = o->t_sent;
	c->t_ack = o->t_ack;
}

static void capture_header(const struct gw_report *r, struct capture_meta *m)
{
	const struct gw_opts *o = r->o;
	const struct gw_engine *e = r->e;
	uint32_t n = e->next_order, cap = e->order_mask + 1;
	char host[256] = "?", date[32] = "?", syms[CAPTURE_VAL_LEN] = "";
	time_t now = time(NULL);
	struct tm tm;
	size_t len = 0;

	gethostname(host, sizeof(host) - 1);
	if (gmtime_r(&now, &tm))
		strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", &tm);
	for (unsigned int i = 0; i < e->n_inst && len < sizeof(syms); i++)
		len += (size_t)snprintf(syms + len, sizeof(syms) - len, "%s%.*s:%u:%u",
					i ? "," : "", sym_len(e->inst[i].symbol),
					e->inst[i].symbol, e->inst[i].strat.hma.hp.L,
					e->inst[i].unit);

	capture_meta_init(m, path_name(o));
	capture_meta_set(m, "iface", "%s", o->ifname);
	if (r->x)
		capture_meta_set(m, "xdp_mode", "%s", o->xdp_generic ? "generic" : "drv");
	capture_meta_set(m, "symbols", "%s", syms);
	capture_meta_set(m, "host", "%s", host);
	capture_meta_set(m, "date", "%s", date);
	capture_meta_set(m, "hot_cpu", "%d", o->cpu);
	capture_meta_set(m, "ticks", "%" PRIu64, e->st.ticks);
	capture_meta_set(m, "orders", "%u", n);
	/* The order log is a ring: the oldest orders may be gone. */
	capture_meta_set(m, "orders_overwritten", "%u", n > cap ? n - cap : 0);
	if (r->clock_read && hdr_count(r->clock_read)) {
		capture_meta_set(m, "clock_read_ns_min", "%" PRId64, hdr_min(r->clock_read));
		capture_meta_set(m, "clock_read_ns_p50", "%" PRId64,
				 hdr_value_at_percentile(r->clock_read, 50));
		capture_meta_set(m, "clock_read_ns_p99", "%" PRId64,
				 hdr_value_at_percentile(r->clock_read, 99));
	}
	for (unsigned int i = 0; i < o->n_capture_notes; i++) {
		const char *kv = o->capture_note[i], *eq = strchr(kv, '=');
		char key[CAPTURE_KEY_LEN];

		/* opts_parse() checked the key; the path is ours to name. */
		snprintf(key, sizeof(key), "%.*s", (int)(eq - kv), kv);
		if (strcmp(key, "path"))
			capture_meta_set(m, key, "%s", eq + 1);
	}
}

/* Every order of the log to the capture file (after the run). */
static int write_capture(const struct gw_report *r)
{
	const struct gw_engine *e = r->e;
	uint32_t n = e->next_order, cap = e->order_mask + 1;
	struct capture_writer w;
	struct capture_meta m;
	int ret;

	capture_header(r, &m);
	ret = capture_open(&w, r->o->capture, &m);
	if (ret)
		return ret;
	for (uint32_t no = n > cap ? n - cap : 0; no < n; no++) {
		struct capture_rec c;

		order_to_rec(e, &e->orders[no & e->order_mask], &c);
		capture_write(&w, &c);
	}
	return capture_close(&w);
}

int report_build(struct gw_report *r)
{
	const struct gw_engine *e = r->e;
	uint32_t n = e->next_order, cap = e->order_mask + 1;
	uint32_t first = n > cap ? n - cap : 0;

	for (int i = 0; i < STAGE_NR; i++) {
		r->stage[i] = calloc(1, sizeof(*r->stage[i]));
		if (!r->stage[i])
			return -ENOMEM;
		hdr_reset(r->stage[i]);
	}
	for (uint32_t no = first; no < n; no++) {
		const struct gw_order *o = &e->orders[no & e->order_mask];

		/* Catch-up orders waited for a gap to fill: not tick-to-trade. */
		if (o->state == GW_ORDER_SEND_FAILED || !o->t_sent || !o->t_hook ||
		    (o->flags & GW_F_CATCHUP))
			continue;
		uint64_t t_send = itch_ts_recover(o->t_exch, o->t_hook);

		hdr_record(r->stage[STAGE_FEED], (int64_t)(o->t_hook - t_send));
		hdr_record(r->stage[STAGE_HOOK_SEEN], (int64_t)(o->t_seen - o->t_hook));
		hdr_record(r->stage[STAGE_SEEN_DECIDED], (int64_t)(o->t_decided - o->t_seen));
		hdr_record(r->stage[STAGE_DECIDED_QUEUED], (int64_t)(o->t_queued - o->t_decided));
		hdr_record(r->stage[STAGE_QUEUED_SENT], (int64_t)(o->t_sent - o->t_queued));
		hdr_record(r->stage[STAGE_HOOK_QUEUED], (int64_t)(o->t_queued - o->t_hook));
		hdr_record(r->stage[STAGE_HOOK_SENT], (int64_t)(o->t_sent - o->t_hook));
		if (o->t_ack)
			hdr_record(r->stage[STAGE_SEND_ACK], (int64_t)(o->t_ack - t_send));
	}

	/* What one timestamp costs where they were taken (the loop has ended). */
	r->clock_read = calloc(1, sizeof(*r->clock_read));
	if (!r->clock_read)
		return -ENOMEM;
	if (clock_cost_measure(r->o->cpu, CLOCK_COST_PAIRS, r->clock_read))
		clock_cost_measure(-1, CLOCK_COST_PAIRS, r->clock_read);

	if (r->o->capture) {
		int ret = write_capture(r);

		if (ret)
			fprintf(stderr, "gateway: capture %s: %s\n", r->o->capture,
				strerror(-ret));
	}
	return 0;
}

void report_free(struct gw_report *r)
{
	for (int i = 0; i < STAGE_NR; i++) {
		free(r->stage[i]);
		r->stage[i] = NULL;
	}
	free(r->clock_read);
	r->clock_read = NULL;
}

static void print_hist_row(FILE *out, const char *name, const struct hdr_hist *h)
{
	fprintf(out, "  %-16s %8" PRIu64, name, hdr_count(h));
	if (!hdr_count(h)) {
		fprintf(out, "\n");
		return;
	}
	fprintf(out, " %8" PRId64, hdr_min(h));
	for (unsigned int i = 0; i < NPCT; i++)
		fprintf(out, " %8" PRId64, hdr_value_at_percentile(h, pcts[i]));
	fprintf(out, " %8" PRId64 "\n", hdr_max(h));
}

void report_summary(FILE *out, const struct gw_report *r)
{
	const struct gw_engine *e = r->e;
	const struct feed_counters *c = &e->dec.cnt;
	const struct gw_stats *s = &e->st;

	fprintf(out, "\n=== gateway summary: %s on %s", path_name(r->o), r->o->ifname);
	if (r->x)
		fprintf(out, " (XDP %s mode, queue %u, UMEM on %s pages)",
			r->o->xdp_generic ? "generic" : "driver", r->o->queue,
			r->x->port.hugepages ? "2 MB huge" : "4 KB");
	fprintf(out, ", %.2f s\n", r->elapsed_s);
	fprintf(out, "feed:    packets %" PRIu64 ", messages %" PRIu64 ", ticks %" PRIu64
		" (ours %" PRIu64 "), heartbeats %" PRIu64 ", end of session %s\n",
		c->packets, c->msgs, s->ticks, s->ticks_ours, c->heartbeats,
		e->dec.ended ? "seen" : "not seen");
	fprintf(out, "         gaps %" PRIu64 " (%" PRIu64 " messages), duplicates %"
		PRIu64 ", malformed %" PRIu64 " (short %" PRIu64 ", overrun %" PRIu64
		", count %" PRIu64 "/%" PRIu64 ", zero-length %" PRIu64 ", bad length %"
		PRIu64 ", unknown type %" PRIu64 ")\n",
		c->gaps, c->gap_msgs, c->duplicates, malformed(c), c->short_packet,
		c->block_overrun, c->count_too_high, c->count_too_low,
		c->zero_length_block, c->bad_length, c->unknown_type);
	fprintf(out, "orders:  sent %" PRIu64 ", failed %" PRIu64 ", accepted %" PRIu64
		", filled %" PRIu64 ", canceled %" PRIu64 ", rejected %" PRIu64
		", replies %" PRIu64 " (bad %" PRIu64 ", unknown token %" PRIu64 ")\n",
		s->orders, s->orders_failed, s->accepted, s->fills, s->cancels,
		s->rejects, s->replies, s->bad_replies, s->unknown_token);

	fprintf(out, "         timed out %" PRIu64 " (late replies %" PRIu64 "), duplicate replies %"
		PRIu64 ", catch-up %" PRIu64 " (too late, not sent: %" PRIu64 "), kill switch %s\n",
		s->timeouts, s->late_replies, s->dup_replies, s->catchup_orders,
		s->catchup_suppressed,
		e->killed ? "ENGAGED" : "off");
	fprintf(out, "risk:    refused");
	for (int i = 0; i < RISK_NR; i++)
		fprintf(out, " %s %" PRIu64, risk_names[i], s->risk[i]);
	fprintf(out, "\n");
	fprintf(out, "gaps:    opened %" PRIu64 ", filled %" PRIu64 ", packets held %" PRIu64
		", re-requests %" PRIu64 ", retransmitted packets %" PRIu64
		", longest fill %.3f ms, timeouts %" PRIu64 ", hold overflow %" PRIu64
		", session %s, other-session packets %" PRIu64 "\n",
		e->gap.gaps, e->gap.filled, e->gap.held_pkts, e->gap.requests,
		e->gap.retrans_pkts, (double)e->gap.fill_ns_max / 1e6, e->gap.timeouts,
		e->gap.hold_overflow, e->gap.stale ? "STALE (no orders)" : "ok",
		s->other_session);
	fprintf(out, "  %-8s %6s %4s %9s %7s %6s %7s %7s %10s %14s %12s\n", "symbol",
		"locate", "len", "ticks", "orders", "fills", "cancels", "rejects",
		"position", "cash", "pnl");
	for (unsigned int i = 0; i < e->n_inst; i++) {
		const struct gw_inst *in = &e->inst[i];

		fprintf(out, "  %-8.8s %6d %4u %9" PRIu64 " %7" PRIu64 " %6" PRIu64
			" %7" PRIu64 " %7" PRIu64 " %+10" PRId64 " %14.4f %+12.4f\n",
			in->symbol, in->locate, in->strat.hma.hp.L, in->ticks, in->orders,
			in->fills, in->cancels, in->rejects, in->pos_shares,
			(double)in->cash / 10000.0, (double)engine_inst_pnl(in) / 10000.0);
	}
	fprintf(out, "  total pnl %+.4f\n", pnl_dollars(e));

	if (r->x) {
		uint64_t cnt[STEER_NR_COUNTERS];
		struct xdp_statistics st;

		if (!xdp_steer_counters(&r->x->steer, cnt)) {
			fprintf(out, "xdp:    ");
			for (int i = 0; i < STEER_NR_COUNTERS; i++)
				fprintf(out, " %s %" PRIu64, steer_counter_names[i], cnt[i]);
			fprintf(out, "\n");
		}
		if (!xsk_port_kernel_stats(&r->x->port, &st))
			fprintf(out, "socket:   rx_dropped %llu, rx_invalid %llu, rx_ring_full %llu, "
				"fill_ring_empty %llu, tx_invalid %llu, tx_ring_empty %llu; "
				"tx pool empty %" PRIu64 ", tx ring full %" PRIu64 ", kicks %" PRIu64
				", kick errors %" PRIu64 "\n",
				st.rx_dropped, st.rx_invalid_descs, st.rx_ring_full,
				st.rx_fill_ring_empty_descs, st.tx_invalid_descs,
				st.tx_ring_empty_descs, r->x->port.tx_pool_empty,
				r->x->port.tx_ring_full, r->x->kicks, r->x->port.kick_errors);
		fprintf(out, "frames:   unparseable %" PRIu64 ", bad checksum %" PRIu64 "%s, other %"
			PRIu64 "\n", s->bad_frames, s->bad_checksum,
			s->bad_checksum && !s->feed_packets ?
			" (all of them: is TX checksum offload on at the sender? ethtool -K IF tx off)" : "",
			s->other_packets);
	} else if (r->u) {
		fprintf(out, "sockets: send errors %" PRIu64 ", datagrams without kernel stamp %"
			PRIu64 "\n", r->u->send_errors, r->u->no_kernel_stamp);
	}

	fprintf(out, "latency per order (ns):\n  %-16s %8s %8s %8s %8s %8s %8s %8s %8s\n",
		"stage", "count", "min", "p50", "p90", "p99", "p99.9", "p99.99", "max");
	for (int i = 0; i < STAGE_NR; i++)
		if (r->stage[i])
			print_hist_row(out, stage_names[i], r->stage[i]);
	if (r->clock_read && hdr_count(r->clock_read))
		fprintf(out, "  each stage includes about one clock read: back to back on CPU %d, "
			"min %" PRId64 ", p50 %" PRId64 ", p99 %" PRId64 " ns\n", r->o->cpu,
			hdr_min(r->clock_read), hdr_value_at_percentile(r->clock_read, 50),
			hdr_value_at_percentile(r->clock_read, 99));
}

static void json_hist(FILE *f, const char *name, const struct hdr_hist *h,
		      int last)
{
	fprintf(f, "    \"%s\": {\"count\": %" PRIu64, name, hdr_count(h));
	if (hdr_count(h)) {
		fprintf(f, ", \"min\": %" PRId64 ", \"mean\": %.1f", hdr_min(h), hdr_mean(h));
		for (unsigned int i = 0; i < NPCT; i++)
			fprintf(f, ", \"p%g\": %" PRId64, pcts[i],
				hdr_value_at_percentile(h, pcts[i]));
		fprintf(f, ", \"max\": %" PRId64, hdr_max(h));
	}
	fprintf(f, "}%s\n", last ? "" : ",");
}

int report_json(const char *path, const struct gw_report *r)
{
	const struct gw_engine *e = r->e;
	const struct feed_counters *c = &e->dec.cnt;
	const struct gw_stats *s = &e->st;
	FILE *f = fopen(path, "w");

	if (!f)
		return -errno;
	fprintf(f, "{\n  \"path\": \"%s\",\n  \"elapsed_s\": %.3f,\n", path_name(r->o),
		r->elapsed_s);
	fprintf(f, "  \"feed\": {\"packets\": %" PRIu64 ", \"messages\": %" PRIu64
		", \"ticks\": %" PRIu64 ", \"ticks_ours\": %" PRIu64 ", \"gaps\": %" PRIu64
		", \"gap_msgs\": %" PRIu64 ", \"duplicates\": %" PRIu64
		", \"malformed\": %" PRIu64 ", \"heartbeats\": %" PRIu64
		", \"end_of_session\": %s, \"next_seq\": %" PRIu64 "},\n",
		c->packets, c->msgs, s->ticks, s->ticks_ours, c->gaps, c->gap_msgs,
		c->duplicates, malformed(c), c->heartbeats, e->dec.ended ? "true" : "false",
		e->dec.next_seq);
	fprintf(f, "  \"orders\": {\"sent\": %" PRIu64 ", \"failed\": %" PRIu64
		", \"accepted\": %" PRIu64 ", \"filled\": %" PRIu64 ", \"canceled\": %"
		PRIu64 ", \"rejected\": %" PRIu64 ", \"replies\": %" PRIu64
		", \"bad_replies\": %" PRIu64 ", \"unknown_token\": %" PRIu64 "},\n",
		s->orders, s->orders_failed, s->accepted, s->fills, s->cancels, s->rejects,
		s->replies, s->bad_replies, s->unknown_token);
	fprintf(f, "  \"orders_more\": {\"timed_out\": %" PRIu64 ", \"late_replies\": %" PRIu64
		", \"dup_replies\": %" PRIu64 ", \"catchup\": %" PRIu64
		", \"catchup_suppressed\": %" PRIu64 ", \"kill_switch\": %s},\n",
		s->timeouts, s->late_replies, s->dup_replies, s->catchup_orders,
		s->catchup_suppressed,
		e->killed ? "true" : "false");
	fprintf(f, "  \"risk\": {");
	for (int i = 0; i < RISK_NR; i++)
		fprintf(f, "%s\"%s\": %" PRIu64, i ? ", " : "", risk_names[i], s->risk[i]);
	fprintf(f, "},\n");
	fprintf(f, "  \"gaps\": {\"opened\": %" PRIu64 ", \"filled\": %" PRIu64
		", \"held\": %" PRIu64 ", \"requests\": %" PRIu64 ", \"retrans_pkts\": %"
		PRIu64 ", \"retrans_ahead\": %" PRIu64 ", \"fill_ns_max\": %" PRIu64
		", \"timeouts\": %" PRIu64 ", \"hold_overflow\": %" PRIu64
		", \"stale\": %s, \"other_session\": %" PRIu64 ", \"ticks_stale\": %" PRIu64 "},\n",
		e->gap.gaps, e->gap.filled, e->gap.held_pkts, e->gap.requests,
		e->gap.retrans_pkts, e->gap.retrans_ahead, e->gap.fill_ns_max,
		e->gap.timeouts, e->gap.hold_overflow, e->gap.stale ? "true" : "false",
		s->other_session, s->ticks_stale);
	fprintf(f, "  \"symbols\": [\n");
	for (unsigned int i = 0; i < e->n_inst; i++) {
		const struct gw_inst *in = &e->inst[i];

		fprintf(f, "    {\"symbol\": \"%.*s\", \"locate\": %d, \"length\": %u, "
			"\"ticks\": %" PRIu64 ", \"orders\": %" PRIu64 ", \"fills\": %" PRIu64
			", \"cancels\": %" PRIu64 ", \"rejects\": %" PRIu64
			", \"position\": %" PRId64 ", \"cash\": %" PRId64 ", \"pnl\": %" PRId64
			", \"last_price\": %u, \"strategy_position\": %d}%s\n",
			sym_len(in->symbol), in->symbol, in->locate, in->strat.hma.hp.L, in->ticks, in->orders,
			in->fills, in->cancels, in->rejects, in->pos_shares, in->cash,
			engine_inst_pnl(in), in->last_price, in->strat.sar.pos,
			i + 1 < e->n_inst ? "," : "");
	}
	fprintf(f, "  ],\n");
	if (r->x) {
		uint64_t cnt[STEER_NR_COUNTERS] = { 0 };
		struct xdp_statistics st = { 0 };

		xdp_steer_counters(&r->x->steer, cnt);
		xsk_port_kernel_stats(&r->x->port, &st);
		fprintf(f, "  \"xdp\": {");
		for (int i = 0; i < STEER_NR_COUNTERS; i++)
			fprintf(f, "\"%s\": %" PRIu64 ", ", steer_counter_names[i], cnt[i]);
		fprintf(f, "\"bad_frames\": %" PRIu64 ", \"bad_checksum\": %" PRIu64 ", ",
			s->bad_frames, s->bad_checksum);
		fprintf(f, "\"rx_dropped\": %llu, \"rx_ring_full\": %llu, "
			"\"rx_fill_ring_empty\": %llu, \"tx_ring_empty\": %llu},\n",
			st.rx_dropped, st.rx_ring_full, st.rx_fill_ring_empty_descs,
			st.tx_ring_empty_descs);
	}
	if (r->clock_read)
		json_hist(f, "clock_read_ns", r->clock_read, 0);
	fprintf(f, "  \"latency_ns\": {\n");
	for (int i = 0; i < STAGE_NR; i++)
		json_hist(f, stage_names[i], r->stage[i], i == STAGE_NR - 1);
	fprintf(f, "  }\n}\n");
	return fclose(f) ? -errno : 0;
}

static const char *state_name(uint8_t s)
{
	static const char *const names[] = {
		"sent", "accepted", "filled", "canceled", "rejected", "send_failed",
		"timed_out",
	};

	return s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}

int report_orders_csv(const char *path, const struct gw_report *r)
{
	const struct gw_engine *e = r->e;
	uint32_t n = e->next_order, cap = e->order_mask + 1;
	FILE *f = fopen(path, "w");

	if (!f)
		return -errno;
	fprintf(f, "order_no,md_seq,symbol,side,shares,price,state,fill_price,"
		"t_send,t_hook,t_seen,t_decided,t_queued,t_sent\n");
	for (uint32_t no = n > cap ? n - cap : 0; no < n; no++) {
		const struct gw_order *o = &e->orders[no & e->order_mask];
		const struct gw_inst *in = &e->inst[o->inst];

		fprintf(f, "%u,%" PRIu64 ",%.*s,%c,%u,%u,%s,%u,%" PRIu64 ",%" PRIu64 ",%"
			PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n",
			o->order_no, o->md_seq, sym_len(in->symbol), in->symbol, o->side, o->shares,
			o->price, state_name(o->state), o->fill_price,
			o->t_hook ? itch_ts_recover(o->t_exch, o->t_hook) : 0,
			o->t_hook, o->t_seen, o->t_decided, o->t_queued, o->t_sent);
	}
	return fclose(f) ? -errno : 0;
}
