// SPDX-License-Identifier: MIT
/* Summary (text and JSON), tick record and order log of a run. */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "netns/exsim/attack.h"
#include "netns/exsim/bookfill.h"
#include "netns/exsim/report.h"
#include "util/json.h"

/* Characters of a space-padded field before the padding. */
static int trimmed(const char *s, int n)
{
	while (n > 0 && s[n - 1] == ' ')
		n--;
	return n;
}

/* Price(4) units as a decimal: -1234567 -> "-123.4567". */
static const char *fmt_px(char *buf, size_t len, int64_t v)
{
	uint64_t a = v < 0 ? -(uint64_t)v : (uint64_t)v;

	snprintf(buf, len, "%s%" PRIu64 ".%04" PRIu64, v < 0 ? "-" : "",
		 a / 10000, a % 10000);
	return buf;
}

static double secs(uint64_t a, uint64_t b)
{
	return b > a ? (double)(b - a) / 1e9 : 0;
}

static double tick_rate(const struct exsim_run *r)
{
	uint64_t n = r->feed->units_sent;

	return n > 1 && r->t_last > r->t_first ?
	       (double)(n - 1) / secs(r->t_first, r->t_last) : 0;
}

/* The GBM session's types first (always in the JSON), then any other. */
static const char msg_types[] = "SRAFECXDUP";

static const char *const source_name[] = { "day", "gbm", "replay" };

/* Positions listed in the text summary when more symbols are listed. */
#define TEXT_POSITIONS_MAX	64

static bool other_type(int t)
{
	return t && !strchr(msg_types, t);
}

static void text_faults(const struct exsim_run *r, FILE *out)
{
	const struct exsim_cfg *c = r->cfg;
	const struct fault_stats *x = &r->feed->fx.st;
	const struct hostile_stats *h = &r->hostile->st;
	unsigned int k;

	if (r->feed->fx.active)
		fprintf(out, "  faults     dropped %" PRIu64 " packets (%" PRIu64 " messages, %"
			PRIu64 " ticks; %" PRIu64 " by --drop-seqs), duplicated %" PRIu64
			", reordered %" PRIu64 " (%" PRIu64 " messages); seed %" PRIu64 "\n",
			x->dropped_packets, x->dropped_msgs, x->dropped_ticks,
			x->seq_dropped_packets, x->dup_packets, x->reordered_packets,
			x->reordered_msgs, c->fault_seed);
	if (c->hostile_per_1000 <= 0)
		return;
	fprintf(out, "  hostile    %" PRIu64 " sent (%g per 1000 tick packets), %" PRIu64
		" send errors:", h->sent, c->hostile_per_1000, h->send_errors);
	for (k = 0; k < HC_NCLASSES; k++)
		if (c->hostile_mask & (1u << k))
			fprintf(out, " %s %" PRIu64, hostile_class_name(k), h->by_class[k]);
	fputc('\n', out);
}

static void text_rereq(const struct exsim_run *r, FILE *out)
{
	const struct rereq_stats *q = &r->rereq->st;

	if (r->rereq->fd < 0)
		return;
	fprintf(out, "  rerequest  port %u: %" PRIu64 " requests, %" PRIu64 " served (%"
		PRIu64 " messages in %" PRIu64 " packets; truncated %" PRIu64 ", clipped %"
		PRIu64 "), refused %" PRIu64 ": malformed %" PRIu64 ", wrong session %"
		PRIu64 ", zero count %" PRIu64 ", seq 0 %" PRIu64 ", future %" PRIu64
		", beyond store %" PRIu64 ", rate limited %" PRIu64 ", expired %" PRIu64
		"; send errors %"
		PRIu64 "\n", r->rereq->port, q->datagrams, q->served, q->messages,
		q->packets, q->truncated, q->clipped, q->refused, q->malformed,
		q->wrong_session, q->zero_count, q->bad_seq, q->future,
		q->beyond_store, q->rate_limited, q->expired, q->send_errors);
}

/* The replay's file and filter, and the book of what was published. */
static void text_book(const struct exsim_run *r, FILE *out)
{
	const struct replay *rp = r->replay;
	const struct bookfill *bf = r->bf;

	if (rp)
		fprintf(out, "  replay     %s (%s): %" PRIu64 " messages read, %" PRIu64
			" published (%u symbols chosen%s, %" PRIu64 " malformed dropped)%s%s%s\n",
			r->cfg->replay_path, rp->rd.gzip ? "gzip" : "plain", rp->rd.msgs,
			rp->filt.kept, rp->filt.nsym, rp->filt.nsym ? "" : ": every message",
			rp->filt.malformed, rp->cut ? "; cut at --replay-until" : "",
			rp->failed ? "; STOPPED: " : "", rp->failed ? rp->err : "");
	if (bf)
		fprintf(out, "  book       %" PRIu64 " live orders (peak %" PRIu64 ", room for %u), %"
			PRIu64 " prints, %" PRIu64 " impossible events; fills took %" PRIu64
			" displayed shares\n",
			bf->book.live, bf->book.peak, bf->book.max_orders, bf->st.prints,
			bf->st.impossible, bf->book.cnt.taken);
}

/* The run's addresses, and how long it ran. */
static void text_header(const struct exsim_run *r, FILE *out)
{
	const struct exsim_cfg *c = r->cfg;
	char feed[INET_ADDRSTRLEN], ord[INET_ADDRSTRLEN];

	inet_ntop(AF_INET, &c->feed.sin_addr, feed, sizeof(feed));
	inet_ntop(AF_INET, &c->order.sin_addr, ord, sizeof(ord));
	fprintf(out, "exsim summary: session %.10s, feed %s:%u (%s), orders %s:%u%s\n",
		c->session, feed, ntohs(c->feed.sin_port),
		c->feed_mcast ? "multicast" : "unicast", ord,
		ntohs(c->order.sin_port), r->interrupted ? ", INTERRUPTED" : "");
	fprintf(out, "  run        %.3f s; %s published over %.3f s\n",
		secs(r->t_start, r->t_end), c->source == EXSIM_SRC_GBM ? "ticks" : "messages",
		secs(r->t_first, r->t_last));
}

/* What the source published, against what was asked. */
static void text_source(const struct exsim_run *r, FILE *out)
{
	const struct exsim_cfg *c = r->cfg;
	const struct feed *f = r->feed;

	if (c->source == EXSIM_SRC_GBM)
		fprintf(out, "  ticks      %" PRIu64 " of %" PRIu64 " sent, %.1f ticks/s",
			f->units_sent, r->total, tick_rate(r));
	else
		fprintf(out, "  source     %s: %" PRIu64 " messages on the schedule, %.1f/s",
			source_name[c->source], f->units_sent, tick_rate(r));
	if (c->rate > 0)
		fprintf(out, " (asked %g/s%s)", c->rate, c->burst > 1 ? " in bursts" : "");
	if (c->source == EXSIM_SRC_REPLAY) {
		if (c->speed > 0)
			fprintf(out, " (speed x%g)", c->speed);
		else
			fputs(" (speed max)", out);
	}
}

/* Packets and messages on the feed, the messages by type. */
static void text_packets(const struct exsim_run *r, FILE *out)
{
	const struct exsim_cfg *c = r->cfg;
	const struct feed *f = r->feed;
	const struct feed_stats *st = &f->st;
	const char *t;

	fprintf(out, "\n  packets    %" PRIu64 " (%" PRIu64 " data, %" PRIu64
		" heartbeats, %" PRIu64 " end of session), %" PRIu64
		" bytes; at most %u %s / %u messages in one\n",
		st->packets, st->data_packets, st->heartbeats, st->end_of_session,
		st->bytes, st->max_units, c->source == EXSIM_SRC_GBM ? "ticks" : "units",
		st->max_msgs);
	fprintf(out, "  messages   %" PRIu64 ", next seq %" PRIu64 ":",
		st->messages, feed_next_seq(f));
	for (t = msg_types; *t; t++)
		if (st->by_type[(uint8_t)*t])
			fprintf(out, " %c %" PRIu64, *t, st->by_type[(uint8_t)*t]);
	for (int k = 0; k < 256; k++)
		if (other_type(k) && st->by_type[k])
			fprintf(out, " %c %" PRIu64, k, st->by_type[k]);
	fprintf(out, "\n  send       errors %" PRIu64 " (retries %" PRIu64 ")\n",
		st->send_errors, st->send_retries);
}

/* The order port: what came in and how it was answered; the attacks. */
static void text_orders(const struct exsim_run *r, FILE *out)
{
	const struct sink_stats *ss = &r->sink->st;
	const struct fill_counters *n = &r->book->n;
	const struct attack_stats *a = &r->attack->st;

	fprintf(out, "  orders     %" PRIu64 " 'U' packets: %" PRIu64 " orders, %" PRIu64
		" duplicate tokens (ignored), %" PRIu64 " malformed (rejected), %" PRIu64
		" unreadable (dropped), %" PRIu64 " after end of session (ignored)\n",
		ss->packets, ss->orders, ss->dup_tokens, ss->malformed, ss->unreadable,
		ss->after_end);
	fprintf(out, "             filled %" PRIu64 " (partly %" PRIu64 ", %" PRIu64
		" executions), canceled %" PRIu64
		" (no price yet %" PRIu64 "), rejected %" PRIu64 ": closed %" PRIu64
		", unknown symbol %" PRIu64 ", bad side %" PRIu64 ", bad tif %" PRIu64
		", bad shares %" PRIu64 ", bad price %" PRIu64 ", overflow %" PRIu64 "\n",
		n->executed, n->partial, n->executions, n->canceled, n->no_price, n->rejected,
		n->closed,
		n->unknown_symbol, n->bad_side, n->bad_tif, n->bad_shares,
		n->bad_price, n->overflow);
	fprintf(out, "             tokens unmatched %" PRIu64 ", bad %" PRIu64
		"; replies %" PRIu64 " (sequenced), reply errors %" PRIu64 "\n",
		ss->unmatched, ss->bad_token, ss->replies, ss->reply_errors);
	if (a->junk || a->stale_end || a->far_heartbeat || a->spoofed)
		fprintf(out, "  attacks    junk before the session %" PRIu64 ", spoofed opening %"
			PRIu64 ", stale end of session %" PRIu64 ", far heartbeat %" PRIu64 "\n",
			a->junk, a->spoofed, a->stale_end, a->far_heartbeat);
}

/* The SoupBinTCP session: connections, logins, replays, closes, faults. */
static void text_session(const struct exsim_run *r, FILE *out)
{
	const struct soup_srv *v = &r->sink->srv;
	const struct soup_srv_stats *q = &v->st;

	fprintf(out, "  session    %.10s over TCP: %" PRIu64 " connections (%" PRIu64
		" at once at most, %u open at the end); logins %" PRIu64 ": %" PRIu64
		" accepted, %" PRIu64 " rejected (not authorized %" PRIu64 ", no session %"
		PRIu64 ", refused %" PRIu64 "), %" PRIu64 " takeovers\n",
		v->cfg.rules.session, q->accepted, q->max_open, v->open, q->logins,
		q->login_accepted, q->login_rejected, q->rej_not_authorized, q->rej_no_session,
		q->rej_refused, q->takeovers);
	fprintf(out, "             sequenced sent %" PRIu64 " (replayed %" PRIu64 ", %" PRIu64
		" asked for no longer kept), end of session %" PRIu64 "; heartbeats out %"
		PRIu64 ", in %" PRIu64 "; logouts %" PRIu64 "\n             closed:",
		q->seq_sent, q->replayed, q->gone, q->end_of_session, q->hb_out, q->hb_in,
		q->logouts);
	for (int k = 0; k < SC_WHY_EXIT; k++)
		if (q->closed[k])
			fprintf(out, " %s %" PRIu64, soup_close_names[k], q->closed[k]);
	fprintf(out, "; faults: fin %" PRIu64 ", rst %" PRIu64 ", silent %" PRIu64 "\n",
		q->fault_fin, q->fault_rst, q->fault_silent);
}

static void text_positions(const struct exsim_run *r, FILE *out)
{
	char b1[32], b2[32], b3[32];
	int64_t pnl = 0;
	unsigned int i;

	fprintf(out, "  positions  %-8s %6s %12s %10s %16s %14s\n",
		"symbol", "locate", "last", "position", "cash", "pnl");
	for (i = 0; i < r->book->nlisted; i++) {
		uint16_t loc = r->book->listed[i];
		const struct fill_symbol *s = &r->book->sym[loc];

		pnl += fill_pnl(s);
		/* Many symbols (a replayed day): only those traded. */
		if (r->book->nlisted > TEXT_POSITIONS_MAX && !s->fills)
			continue;
		fprintf(out, "             %-8.*s %6u %12s %10" PRId64 " %16s %14s\n",
			trimmed(s->stock, ITCH_SYMBOL_LEN), s->stock, loc,
			fmt_px(b1, sizeof(b1), s->last), s->position,
			fmt_px(b2, sizeof(b2), s->cash),
			fmt_px(b3, sizeof(b3), fill_pnl(s)));
	}
	if (r->book->nlisted > TEXT_POSITIONS_MAX)
		fprintf(out, "             (%u symbols listed: those with fills shown, all in "
			"--json)\n", r->book->nlisted);
	fprintf(out, "             total pnl %s\n", fmt_px(b1, sizeof(b1), pnl));
}

void report_text(const struct exsim_run *r, FILE *out)
{
	const struct feed *f = r->feed;

	text_header(r, out);
	text_source(r, out);
	text_packets(r, out);
	text_faults(r, out);
	if (f->paced)
		hdr_print_summary(&r->lag, "  pacing     send lag (actual - intended)", out);
	hdr_print_summary(&f->send_ns, "  send()     duration", out);
	text_orders(r, out);
	text_session(r, out);
	text_book(r, out);
	text_positions(r, out);
	text_rereq(r, out);
	hdr_print_summary(&r->sink->w2w, "  wire-to-wire (kernel arrival - tick send)", out);
	hdr_print_summary(&r->sink->w2w_user, "  wire-to-wire (user arrival - tick send)", out);
	hdr_print_summary(&r->sink->w2w_intended,
			  "  wire-to-wire (kernel arrival - intended send)", out);
}

/* ---- JSON ---- */

static void json_hist(FILE *o, const char *key, const struct hdr_hist *h)
{
	fprintf(o, "  \"%s\": {\"count\": %" PRIu64 ", \"min\": %" PRId64
		", \"mean\": %.1f, \"p50\": %" PRId64 ", \"p90\": %" PRId64
		", \"p99\": %" PRId64 ", \"p99_9\": %" PRId64 ", \"p99_99\": %" PRId64
		", \"max\": %" PRId64 ", \"under\": %" PRIu64 ", \"over\": %" PRIu64 "}",
		key, hdr_count(h), hdr_min(h), hdr_mean(h),
		hdr_value_at_percentile(h, 50), hdr_value_at_percentile(h, 90),
		hdr_value_at_percentile(h, 99), hdr_value_at_percentile(h, 99.9),
		hdr_value_at_percentile(h, 99.99), hdr_max(h), h->under, h->over);
}

static void json_line_b(const struct exsim_run *r, FILE *o)
{
	const struct exsim_cfg *c = r->cfg;
	const struct line_b *l = &r->feed->lb;
	char grp[INET_ADDRSTRLEN];

	inet_ntop(AF_INET, &c->line_b.sin_addr, grp, sizeof(grp));
	fprintf(o, "  \"line_b\": {\"group\": \"%s:%u\", \"delay_ns\": %" PRIu64
		", \"jitter_ns\": %" PRIu64 ", \"drop_rate\": %g, \"drop_burst\": %u"
		", \"dup_rate\": %g, \"reorder_rate\": %g, \"drop_seqs\": %zu,\n"
		"    \"packets\": %" PRIu64 ", \"bytes\": %" PRIu64 ", \"send_errors\": %"
		PRIu64 ", \"queue_full\": %" PRIu64 ", \"max_late_ns\": %" PRIu64
		", \"dropped_packets\": %" PRIu64 ", \"dropped_msgs\": %" PRIu64
		", \"dup_packets\": %" PRIu64 ", \"reordered_packets\": %" PRIu64 "},\n",
		grp, ntohs(c->line_b.sin_port), l->dq.delay_ns, l->dq.jitter_ns,
		c->fb.drop_rate, c->fb.drop_burst, c->fb.dup_rate, c->fb.reorder_rate,
		c->fb.ndrop_seqs, l->dq.st.packets, l->dq.st.bytes, l->dq.st.send_errors,
		l->dq.st.queue_full, l->dq.st.max_late_ns, l->fx.st.dropped_packets,
		l->fx.st.dropped_msgs, l->fx.st.dup_packets, l->fx.st.reordered_packets);
}

static void json_hostile(const struct exsim_run *r, FILE *o)
{
	const struct exsim_cfg *c = r->cfg;
	const struct hostile_stats *h = &r->hostile->st;
	const char *sep = "";
	unsigned int k;

	fprintf(o, "  \"hostile\": {\"per_1000\": %g, \"classes\": [",
		c->hostile_per_1000);
	for (k = 0; k < HC_NCLASSES; k++)
		if (c->hostile_mask & (1u << k)) {
			fprintf(o, "%s\"%s\"", sep, hostile_class_name(k));
			sep = ", ";
		}
	fprintf(o, "], \"sent\": %" PRIu64 ", \"send_errors\": %" PRIu64
		", \"unicast_other\": %" PRIu64 ",\n    \"by_class\": {",
		h->sent, h->send_errors, h->unicast_other);
	for (k = 0; k < HC_NCLASSES; k++)
		fprintf(o, "%s\"%s\": %" PRIu64, k ? ", " : "", hostile_class_name(k),
			h->by_class[k]);
	fputs("}},\n", o);
}

/* Line A's path delay (--delay-us, --jitter-us): how its sends went. */
static void json_line_a_delay(const struct exsim_run *r, FILE *o)
{
	const struct delayq *d = &r->feed->adq;

	fprintf(o, "  \"line_a_delay\": {\"delay_ns\": %" PRIu64 ", \"jitter_ns\": %" PRIu64
		", \"packets\": %" PRIu64 ", \"send_errors\": %" PRIu64 ", \"queue_full\": %"
		PRIu64 ", \"max_late_ns\": %" PRIu64 "},\n", d->delay_ns, d->jitter_ns,
		d->st.packets, d->st.send_errors, d->st.queue_full, d->st.max_late_ns);
}

static void json_faults(const struct exsim_run *r, FILE *o)
{
	const struct exsim_cfg *c = r->cfg;
	const struct faults *x = &r->feed->fx;
	const struct rereq_stats *q = &r->rereq->st;
	const struct msg_store *s = &r->feed->store;

	fprintf(o, "  \"store\": {\"messages\": %" PRIu64 ", \"bytes\": %" PRIu64
		", \"window\": %" PRIu64 ", \"refused\": %" PRIu64 "},\n", s->n, s->used,
		s->msg_cap, s->refused);
	fprintf(o, "  \"rerequest\": {\"port\": %u, \"max_count\": %u, "
		"\"rate_msgs_per_s\": %g, \"burst\": %u,\n    \"requests\": %" PRIu64
		", \"served\": %" PRIu64 ", \"messages\": %" PRIu64 ", \"packets\": %"
		PRIu64 ", \"bytes\": %" PRIu64 ", \"truncated\": %" PRIu64
		", \"clipped\": %" PRIu64 ", \"refused\": %" PRIu64 ",\n"
		"    \"refusals\": {\"malformed\": %" PRIu64 ", \"wrong_session\": %" PRIu64
		", \"zero_count\": %" PRIu64 ", \"bad_seq\": %" PRIu64 ", \"future\": %"
		PRIu64 ", \"beyond_store\": %" PRIu64 ", \"rate_limited\": %" PRIu64
		", \"expired\": %" PRIu64 "}, \"send_errors\": %" PRIu64 "},\n",
		r->rereq->fd >= 0 ? r->rereq->port : 0, c->rereq_max, c->rereq_rate,
		c->rereq_burst, q->datagrams, q->served, q->messages, q->packets,
		q->bytes, q->truncated, q->clipped, q->refused, q->malformed,
		q->wrong_session, q->zero_count, q->bad_seq, q->future,
		q->beyond_store, q->rate_limited, q->expired, q->send_errors);
	fprintf(o, "  \"faults\": {\"seed\": %" PRIu64 ", \"drop_rate\": %g, "
		"\"dup_rate\": %g, \"reorder_rate\": %g, \"drop_seqs\": %zu,\n"
		"    \"dropped_packets\": %" PRIu64 ", \"dropped_msgs\": %" PRIu64
		", \"dropped_ticks\": %" PRIu64 ", \"seq_dropped_packets\": %" PRIu64
		", \"dup_packets\": %" PRIu64 ", \"reordered_packets\": %" PRIu64
		", \"reordered_msgs\": %" PRIu64 ", \"log_events\": %" PRIu64
		", \"log_dropped\": %" PRIu64 "},\n",
		c->fault_seed, c->fa.drop_rate, c->fa.dup_rate, c->fa.reorder_rate,
		c->fa.ndrop_seqs, x->st.dropped_packets, x->st.dropped_msgs,
		x->st.dropped_ticks, x->st.seq_dropped_packets, x->st.dup_packets,
		x->st.reordered_packets, x->st.reordered_msgs, x->log_n, x->log_dropped);
	if (r->feed->adq.q)
		json_line_a_delay(r, o);
	if (r->feed->lb.fd >= 0)
		json_line_b(r, o);
	json_hostile(r, o);
}

static void json_book(const struct exsim_run *r, FILE *o)
{
	const struct replay *rp = r->replay;
	const struct bookfill *bf = r->bf;

	if (rp) {
		fputs("  \"replay\": {\"file\": ", o);
		json_strn(o, r->cfg->replay_path, strlen(r->cfg->replay_path));
		fprintf(o, ", \"gzip\": %s, \"speed\": %g, \"symbols\": %u, \"read\": %" PRIu64
			", \"published\": %" PRIu64 ", \"malformed_dropped\": %" PRIu64
			", \"until_s\": %" PRIu64 ", \"cut\": %s, \"error\": ",
			rp->rd.gzip ? "true" : "false", r->cfg->speed, rp->filt.nsym, rp->rd.msgs,
			rp->filt.kept, rp->filt.malformed, r->cfg->replay_until_s,
			rp->cut ? "true" : "false");
		if (rp->failed)
			json_strn(o, rp->err, strlen(rp->err));
		else
			fputs("null", o);
		fputs("},\n", o);
	}
	if (bf)
		fprintf(o, "  \"book\": {\"live\": %" PRIu64 ", \"peak\": %" PRIu64
			", \"max_orders\": %u, \"prints\": %" PRIu64 ", \"impossible\": %" PRIu64
			", \"digest\": \"%016" PRIx64 "\", \"taken\": %" PRIu64 "},\n",
			bf->book.live, bf->book.peak, bf->book.max_orders, bf->st.prints,
			bf->st.impossible, book_digest(&bf->book), bf->book.cnt.taken);
}

/* What the run was asked: the source, the addresses, the symbols, the pace. */
static void json_setup(const struct exsim_run *r, FILE *o)
{
	const struct exsim_cfg *c = r->cfg;
	char feed[INET_ADDRSTRLEN], ord[INET_ADDRSTRLEN];
	unsigned int i;

	inet_ntop(AF_INET, &c->feed.sin_addr, feed, sizeof(feed));
	inet_ntop(AF_INET, &c->order.sin_addr, ord, sizeof(ord));
	fprintf(o, "{\n  \"source\": \"%s\",\n  \"session\": ", source_name[c->source]);
	json_strn(o, c->session, trimmed(c->session, MOLD_SESSION_LEN));
	fprintf(o, ",\n  \"feed\": \"%s:%u\",\n  \"feed_multicast\": %s,\n"
		"  \"order_port\": \"%s:%u\",\n  \"symbols\": [",
		feed, ntohs(c->feed.sin_port), c->feed_mcast ? "true" : "false",
		ord, ntohs(c->order.sin_port));
	for (i = 0; i < r->book->nlisted; i++) {
		const char *sym = r->book->sym[r->book->listed[i]].stock;

		fputs(i ? ", " : "", o);
		json_strn(o, sym, trimmed(sym, ITCH_SYMBOL_LEN));
	}
	fprintf(o, "],\n  \"seed\": %" PRIu64 ",\n  \"prices_file\": ", c->seed);
	if (c->prices_path)
		json_strn(o, c->prices_path, strlen(c->prices_path));
	else
		fputs("null", o);
	fprintf(o, ",\n  \"rate_tps\": %g,\n  \"burst\": %u,\n  \"max_per_packet\": %u,\n"
		"  \"noise\": %g,\n  \"interrupted\": %s,\n",
		c->rate, c->burst, r->feed->max_units, c->noise,
		r->interrupted ? "true" : "false");
}

/* What the feed published: times, packets, messages by type. */
static void json_feed(const struct exsim_run *r, FILE *o)
{
	const struct feed *f = r->feed;
	const struct feed_stats *st = &f->st;
	const char *t, *sep = "";

	fprintf(o, "  \"elapsed_s\": %.6f,\n  \"publish_s\": %.6f,\n"
		"  \"ticks_planned\": %" PRIu64 ",\n  \"ticks\": %" PRIu64 ",\n"
		"  \"achieved_tps\": %.1f,\n",
		secs(r->t_start, r->t_end), secs(r->t_first, r->t_last),
		r->total, f->units_sent, tick_rate(r));
	fprintf(o, "  \"messages\": %" PRIu64 ",\n  \"next_seq\": %" PRIu64 ",\n"
		"  \"packets\": %" PRIu64 ",\n  \"data_packets\": %" PRIu64 ",\n"
		"  \"heartbeats\": %" PRIu64 ",\n  \"end_of_session\": %" PRIu64 ",\n"
		"  \"bytes\": %" PRIu64 ",\n  \"max_ticks_per_packet\": %u,\n"
		"  \"max_msgs_per_packet\": %u,\n  \"send_errors\": %" PRIu64 ",\n"
		"  \"send_retries\": %" PRIu64 ",\n  \"messages_by_type\": {",
		st->messages, feed_next_seq(f), st->packets, st->data_packets,
		st->heartbeats, st->end_of_session, st->bytes, st->max_units,
		st->max_msgs, st->send_errors, st->send_retries);
	for (t = msg_types; *t; t++) {
		fprintf(o, "%s\"%c\": %" PRIu64, sep, *t, st->by_type[(uint8_t)*t]);
		sep = ", ";
	}
	/* Other ITCH types (all letters); a malformed block's byte is not a key. */
	for (int k = 0; k < 256; k++)
		if (other_type(k) && st->by_type[k] && itch_msg_len[k])
			fprintf(o, ", \"%c\": %" PRIu64, k, st->by_type[k]);
	fputs("},\n", o);
}

/* The order port's counters and the session attacks. */
static void json_orders(const struct exsim_run *r, FILE *o)
{
	const struct sink_stats *ss = &r->sink->st;
	const struct fill_counters *n = &r->book->n;
	const struct attack_stats *a = &r->attack->st;

	fprintf(o, "  \"orders\": {\"packets\": %" PRIu64 ", \"received\": %" PRIu64
		", \"dup_tokens\": %" PRIu64 ", \"tokens_full\": %" PRIu64
		", \"after_end\": %" PRIu64
		", \"partial\": %" PRIu64 ", \"executions\": %" PRIu64
		", \"malformed\": %" PRIu64 ", \"unreadable\": %" PRIu64
		", \"filled\": %" PRIu64
		", \"canceled\": %" PRIu64 ", \"no_price\": %" PRIu64
		", \"rejected\": %" PRIu64 ",\n    \"rejects\": {\"closed\": %" PRIu64
		", \"unknown_symbol\": %" PRIu64 ", \"bad_side\": %" PRIu64
		", \"bad_tif\": %" PRIu64 ", \"bad_shares\": %" PRIu64
		", \"bad_price\": %" PRIu64 ", \"overflow\": %" PRIu64 "},\n"
		"    \"unmatched_seq\": %" PRIu64 ", \"bad_token\": %" PRIu64
		", \"no_kernel_ts\": %" PRIu64 ", \"clock_errors\": %" PRIu64
		", \"replies\": %" PRIu64
		", \"reply_errors\": %" PRIu64 ", \"log_dropped\": %" PRIu64 "},\n",
		ss->packets, ss->orders, ss->dup_tokens, ss->tokens_full, ss->after_end,
		n->partial, n->executions, ss->malformed, ss->unreadable,
		n->executed, n->canceled, n->no_price, n->rejected,
		n->closed, n->unknown_symbol, n->bad_side, n->bad_tif,
		n->bad_shares, n->bad_price, n->overflow, ss->unmatched,
		ss->bad_token, r->sink->srv.st.no_kernel_ts, ss->clock_errors, ss->replies,
		ss->reply_errors, ss->log_dropped);
	fprintf(o, "  \"attacks\": {\"junk\": %" PRIu64 ", \"spoofed\": %" PRIu64
		", \"stale_end\": %" PRIu64 ", \"far_heartbeat\": %" PRIu64
		", \"send_errors\": %" PRIu64 "},\n", a->junk, a->spoofed,
		a->stale_end, a->far_heartbeat, a->send_errors);
}

/* Each account's session: its numbering, its store, its connection. */
static void json_sessions(const struct soup_srv *v, FILE *o)
{
	fputs("    \"sessions\": [", o);
	for (unsigned int i = 0; i < v->nusers; i++) {
		const struct soup_user *u = &v->user[i];
		const char *name = v->cfg.rules.acct[i].user;

		fprintf(o, "%s\n      {\"user\": ", i ? "," : "");
		json_strn(o, name, trimmed(name, SOUP_USER_LEN));
		fprintf(o, ", \"messages\": %" PRIu64 ", \"next_seq\": %" PRIu64
			", \"kept_from\": %" PRIu64 ", \"evicted\": %" PRIu64
			", \"logins\": %" PRIu64 ", \"takeovers\": %" PRIu64
			", \"replayed\": %" PRIu64 ", \"gone\": %" PRIu64
			", \"connected\": %s}", u->store.next - 1, u->store.next,
			soup_store_first(&u->store), u->store.evicted, u->st.logins,
			u->st.takeovers, u->st.replayed, u->st.gone, u->live ? "true" : "false");
	}
	fputs("\n    ]", o);
}

/* The SoupBinTCP server: connections, logins, replays, closes, faults. */
static void json_soup(const struct exsim_run *r, FILE *o)
{
	const struct soup_srv *v = &r->sink->srv;
	const struct soup_srv_stats *q = &v->st;
	const struct soup_fault_cfg *f = &v->cfg.fault;
	const char *id = v->cfg.rules.session;
	int pad = 0;

	while (pad < SOUP_SESSION_LEN && id[pad] == ' ')
		pad++;
	fputs("  \"soup\": {\"session\": ", o);
	json_strn(o, id + pad, SOUP_SESSION_LEN - pad);
	fprintf(o, ", \"heartbeat_ms\": %g, \"timeout_ms\": %g, \"keep\": %" PRIu64
		", \"ended\": %s,\n    \"connections\": {\"accepted\": %" PRIu64
		", \"max_open\": %" PRIu64 ", \"open\": %u},\n"
		"    \"logins\": {\"requests\": %" PRIu64 ", \"accepted\": %" PRIu64
		", \"rejected\": %" PRIu64 ", \"rejects\": {\"not_authorized\": %" PRIu64
		", \"no_session\": %" PRIu64 ", \"refused\": %" PRIu64 "}, \"takeovers\": %"
		PRIu64 "},\n",
		(double)v->cfg.hb_ns / 1e6, (double)v->cfg.timeout_ns / 1e6, v->cfg.keep,
		v->ended ? "true" : "false", q->accepted, q->max_open, v->open, q->logins,
		q->login_accepted, q->login_rejected, q->rej_not_authorized, q->rej_no_session,
		q->rej_refused, q->takeovers);
	fprintf(o, "    \"sequenced_sent\": %" PRIu64 ", \"replayed\": %" PRIu64
		", \"gone\": %" PRIu64 ", \"end_of_session\": %" PRIu64
		", \"heartbeats_out\": %" PRIu64 ", \"heartbeats_in\": %" PRIu64
		", \"unsequenced\": %" PRIu64 ", \"debug\": %" PRIu64 ", \"unknown\": %"
		PRIu64 ", \"logouts\": %" PRIu64 ",\n    \"bytes_in\": %" PRIu64
		", \"bytes_out\": %" PRIu64 ", \"reads\": %" PRIu64 ", \"partial_writes\": %"
		PRIu64 ",\n    \"closed\": {",
		q->seq_sent, q->replayed, q->gone, q->end_of_session, q->hb_out, q->hb_in,
		q->unseq, q->debug_in, q->unknown_in, q->logouts, q->bytes_in, q->bytes_out,
		q->reads, q->partial_writes);
	/* "exit" is counted after the summary is written: not a key. */
	for (int k = 0; k < SC_WHY_EXIT; k++)
		fprintf(o, "%s\"%s\": %" PRIu64, k ? ", " : "", soup_close_names[k],
			q->closed[k]);
	fprintf(o, "},\n    \"faults\": {\"drop_after\": %" PRIu64 ", \"drop_after_how\": \"%s\""
		", \"drop_at\": %zu, \"drop_at_how\": \"%s\", \"silent_after\": %" PRIu64
		", \"refuse_login\": %s, \"rcvbuf\": %u, \"read_pause_ms\": %g,\n"
		"      \"late_replies_pct\": %g, \"late_replies_ms\": %g,\n"
		"      \"fin\": %" PRIu64 ", \"rst\": %" PRIu64 ", \"silent\": %" PRIu64
		", \"drop_at_passed\": %" PRIu64 ", \"rst_unacked\": %" PRIu64
		", \"read_pauses\": %" PRIu64 ", \"late_replies\": %" PRIu64 "},\n",
		f->drop_after, soup_fault_names[f->drop_after ? f->drop_after_how : 0],
		f->ndrop_at, soup_fault_names[f->ndrop_at ? f->drop_at_how : 0],
		f->silent_after, f->refuse_login ? "true" : "false", f->rcvbuf,
		(double)f->read_pause_ns / 1e6, f->late_frac * 100, (double)f->late_ns / 1e6,
		q->fault_fin, q->fault_rst, q->fault_silent, q->drop_at_passed, q->rst_unacked,
		q->read_pauses, q->late_replies);
	json_sessions(v, o);
	fputs("},\n", o);
}

static void json_positions(const struct exsim_run *r, FILE *o)
{
	int64_t pnl = 0;
	unsigned int i;

	fputs("  \"positions\": [", o);
	for (i = 0; i < r->book->nlisted; i++) {
		uint16_t loc = r->book->listed[i];
		const struct fill_symbol *s = &r->book->sym[loc];

		fprintf(o, "%s\n    {\"symbol\": ", i ? "," : "");
		json_strn(o, s->stock, trimmed(s->stock, ITCH_SYMBOL_LEN));
		fprintf(o, ", \"locate\": %u, \"last_price\": %" PRIu32
			", \"position\": %" PRId64 ", \"cash\": %" PRId64
			", \"pnl\": %" PRId64 ", \"bought\": %" PRIu64
			", \"sold\": %" PRIu64 ", \"fills\": %" PRIu64 "}",
			loc, s->last, s->position, s->cash, fill_pnl(s),
			s->bought, s->sold, s->fills);
		pnl += fill_pnl(s);
	}
	fprintf(o, "\n  ],\n  \"pnl_total\": %" PRId64 ",\n", pnl);
}

static void json_body(const struct exsim_run *r, FILE *o)
{
	json_setup(r, o);
	json_feed(r, o);
	json_faults(r, o);
	json_hist(o, "send_lag_ns", &r->lag);
	fputs(",\n", o);
	json_hist(o, "send_call_ns", &r->feed->send_ns);
	fputs(",\n", o);
	json_orders(r, o);
	json_soup(r, o);
	json_book(r, o);
	json_positions(r, o);
	json_hist(o, "wire_to_wire_ns", &r->sink->w2w);
	fputs(",\n", o);
	json_hist(o, "wire_to_wire_user_ns", &r->sink->w2w_user);
	fputs(",\n", o);
	json_hist(o, "wire_to_wire_intended_ns", &r->sink->w2w_intended);
	fputs("\n}\n", o);
}

/* Open @path, let @body write, and report any write error. */
static int write_file(const char *path, const char *what,
		      void (*body)(const struct exsim_run *, FILE *),
		      const struct exsim_run *r)
{
	FILE *o = fopen(path, "w");
	int bad;

	if (!o) {
		fprintf(stderr, "t2t-exsim: %s %s: %s\n", what, path, strerror(errno));
		return errno ? -errno : -EIO;
	}
	body(r, o);
	bad = ferror(o);
	if (fclose(o) || bad) {
		fprintf(stderr, "t2t-exsim: %s %s: write error: %s\n", what, path,
			strerror(errno));
		return errno ? -errno : -EIO;
	}
	return 0;
}

int report_json(const struct exsim_run *r, const char *path)
{
	return write_file(path, "--json", json_body, r);
}

/* Bytes as received, made CSV-safe: anything odd becomes '?'. */
static void csv_safe(char *dst, const char *src, int n)
{
	int k;

	for (k = 0; k < n; k++)
		dst[k] = src[k] > ' ' && src[k] <= '~' && src[k] != ',' &&
			 src[k] != '"' ? src[k] : '?';
	dst[n] = '\0';
}

static void record_body(const struct exsim_run *r, FILE *o)
{
	const struct feed *f = r->feed;
	uint64_t i;

	fputs("seq,symbol,locate,price,shares,send_ns\n", o);
	for (i = 0; i < f->rec_n; i++) {
		const struct print_rec *t = &f->rec[i];
		char stock[ITCH_SYMBOL_LEN + 1];

		csv_safe(stock, t->stock, trimmed(t->stock, ITCH_SYMBOL_LEN));
		fprintf(o, "%" PRIu64 ",%s,%u,%" PRIu32 ",%" PRIu32 ",%" PRIu64 "\n",
			t->seq, stock, t->locate, t->price, t->shares, t->send_ns);
	}
}

int report_record(const struct exsim_run *r, const char *path)
{
	return write_file(path, "--record", record_body, r);
}

static void orders_body(const struct exsim_run *r, FILE *o)
{
	const struct sink *s = r->sink;
	uint64_t i;

	fputs("token,md_seq,symbol,side,shares,price,t_send,t_ack,outcome,"
	      "reason,fill_price,t_arrive,t_arrive_user,w2w_ns,t_intended,filled,fill_value\n",
	      o);
	for (i = 0; i < s->log_n; i++) {
		const struct order_rec *e = &s->log[i];
		const char *outcome = e->outcome == SINK_EXECUTED ? "filled" :
				      e->outcome == SINK_PARTIAL ? "partial" :
				      e->outcome == SINK_CANCELED ? "canceled" :
				      e->outcome == SINK_REJECTED ? "rejected" :
				      "malformed";
		char token[ORDER_TOKEN_LEN + 1], stock[ITCH_SYMBOL_LEN + 1], side[2];

		csv_safe(token, e->token, ORDER_TOKEN_LEN);
		csv_safe(side, &e->side, 1);
		csv_safe(stock, e->stock, trimmed(e->stock, ITCH_SYMBOL_LEN));
		fprintf(o, "%s,%" PRIu64 ",%s,%s,%" PRIu32 ",%" PRIu32 ",%" PRIu64
			",%" PRIu64 ",%s,%c,%" PRIu32 ",%" PRIu64 ",%" PRIu64 ",",
			token, e->md_seq, stock, side, e->shares, e->price, e->t_send, e->t_ack,
			outcome, e->reason > ' ' ? e->reason : '-', e->fill_price,
			e->t_arrive, e->t_arrive_user);
		if (e->md_seq)
			fprintf(o, "%" PRId64 ",%" PRIu64, (int64_t)(e->t_arrive - e->t_send),
				e->t_intended);
		else
			fputs(",", o);
		fprintf(o, ",%" PRIu32 ",%" PRIu64 "\n", e->filled, e->fill_value);
	}
}

int report_orders(const struct exsim_run *r, const char *path)
{
	return write_file(path, "--orders-log", orders_body, r);
}
