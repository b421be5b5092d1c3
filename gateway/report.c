// SPDX-License-Identifier: MIT
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gateway/queues.h"
#include "gateway/report.h"
#include "latency/capture.h"
#include "latency/clock_cost.h"
#include "proto/itch.h"
#include "util/clock.h"

#define CLOCK_COST_PAIRS 100000

static const double pcts[] = { 50, 90, 99, 99.9, 99.99 };
#define NPCT (sizeof(pcts) / sizeof(pcts[0]))

const char *path_name(const struct gw_opts *o)
{
	if (o->mode == GW_MODE_XDP)
		return "af_xdp";
	return o->udp_recv == GW_UDP_BLOCK ? "udp_block" : "udp_spin";
}

/* The kernel's counts of every socket, summed. */
static void socket_stats(const struct xsk_path *x, struct xdp_statistics *sum)
{
	memset(sum, 0, sizeof(*sum));
	for (unsigned int i = 0; i < x->q.n; i++) {
		struct xdp_statistics st;

		if (xsk_port_kernel_stats(&x->q.port[i], &st))
			continue;
		sum->rx_dropped += st.rx_dropped;
		sum->rx_invalid_descs += st.rx_invalid_descs;
		sum->tx_invalid_descs += st.tx_invalid_descs;
		sum->rx_ring_full += st.rx_ring_full;
		sum->rx_fill_ring_empty_descs += st.rx_fill_ring_empty_descs;
		sum->tx_ring_empty_descs += st.tx_ring_empty_descs;
	}
}

/* Lost on the AF_XDP path: by the sockets, and for want of one (unserved). */
static uint64_t xdp_drops(const struct gw_report *r, uint64_t *unserved)
{
	uint64_t cnt[STEER_NR_COUNTERS] = { 0 };
	struct xdp_statistics st;

	*unserved = 0;
	if (!r->x)
		return 0;
	socket_stats(r->x, &st);
	if (!xdp_steer_counters(&r->x->steer, cnt))
		*unserved = cnt[STEER_UNSERVED];
	return st.rx_dropped + st.rx_ring_full + st.rx_fill_ring_empty_descs;
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

void report_status(FILE *out, const struct gw_report *r, double dt_s,
		   uint64_t *prev_ticks)
{
	/* The hot loop writes these; aligned 64-bit loads see whole values. */
	const volatile struct gw_stats *s = &r->e->st;
	const volatile struct orders_stats *os = &r->e->ord.st;
	uint64_t ticks = s->ticks, unserved, drops = xdp_drops(r, &unserved);

	fprintf(out, "%s: %8.0f ticks/s  ticks %-9" PRIu64 " orders %-6" PRIu64
		" filled %-6" PRIu64 " cancels %-5" PRIu64 " pnl %+.2f  pos",
		path_name(r->o), (double)(ticks - *prev_ticks) / dt_s, ticks,
		(uint64_t)os->orders, (uint64_t)os->filled, (uint64_t)os->cancels,
		(double)engine_pnl(r->e) / 10000.0);
	for (unsigned int i = 0; i < r->e->n_inst; i++) {
		const volatile struct gw_inst *in = &r->e->inst[i];

		fprintf(out, " %.*s %+" PRId64, sym_len(r->e->inst[i].symbol),
			r->e->inst[i].symbol, (int64_t)in->pos_shares);
	}
	fprintf(out, "  malformed %" PRIu64 "  gaps %" PRIu64 "  xdp drops %" PRIu64,
		malformed(&r->e->dec.cnt), r->e->gap.st.episodes, drops);
	if (unserved)
		fprintf(out, "  UNSERVED %" PRIu64, unserved);
	fprintf(out, "%s%s\n", gap_open(&r->e->gap) ? "  RECOVERING" : "",
		r->e->gap.stale ? "  STALE" : "");
	fflush(out);
	*prev_ticks = ticks;
}

/*
 * The loops below name entry i of a list after row FIRST + i: the table
 * holds each list whole and in its enum's order.
 */
#define UNTRADED_AT_(id, s) _Static_assert(CNT_ORD_##id == CNT_ORD_UNTRADED_LATE + id, s);
UNTRADED_NAMES(UNTRADED_AT_)
_Static_assert(CNT_ORD_ON_REPLY == CNT_ORD_UNTRADED_LATE + UNTRADED_NR, "untraded reasons");
_Static_assert(CNT_SESS_LOST_RESET == CNT_SESS_LOST_REFUSED + OC_LOST_RESET &&
	       CNT_SESS_LOST_FIN == CNT_SESS_LOST_REFUSED + OC_LOST_FIN &&
	       CNT_SESS_LOST_SILENCE == CNT_SESS_LOST_REFUSED + OC_LOST_SILENCE &&
	       CNT_SESS_LOST_RETRANS == CNT_SESS_LOST_REFUSED + OC_LOST_RETRANS &&
	       CNT_SESS_LOST_BROKEN == CNT_SESS_LOST_REFUSED + OC_LOST_BROKEN &&
	       CNT_SESS_REPLIES == CNT_SESS_LOST_REFUSED + OC_LOST_NR, "enum oc_lost");
#define TCP_REJ_AT_(id, s) _Static_assert(CNT_TCP_REJ_##id == CNT_TCP_REJ_OUT_OF_WINDOW + \
						 TCP_REJ_##id, s);
TCP_REJECTS(TCP_REJ_AT_)
#define RISK_AT_(id, s) _Static_assert(CNT_##id == CNT_RISK_KILLED + id - RISK_KILLED, s);
RISK_REASON_NAMES(RISK_AT_)
_Static_assert(CNT_XDP_STEER_SEEN == CNT_RISK_KILLED + RISK_NR - (RISK_OK + 1), "refusals");
#define STEER_AT_(id, s) _Static_assert(CNT_XDP_##id == CNT_XDP_STEER_SEEN + id, s);
STEER_COUNTER_NAMES(STEER_AT_)
_Static_assert(CNT_XDP_BAD_FRAMES == CNT_XDP_STEER_SEEN + STEER_NR_COUNTERS, "steer counters");
#define LINE_AT_(id, s) _Static_assert(CNT_A_##id == CNT_A_STEER_LINE_TAKEN + id && \
				       CNT_B_##id == CNT_B_STEER_LINE_TAKEN + id, s);
STEER_LINE_COUNTER_NAMES(LINE_AT_)
_Static_assert(CNT_B_STEER_LINE_TAKEN == CNT_A_STEER_LINE_TAKEN + STEER_LINE_NR &&
	       CNT_Q_a0_RECEIVED == CNT_A_STEER_LINE_TAKEN + STEER_LINES * STEER_LINE_NR, "lines");
_Static_assert(CNT_Q_a1_RECEIVED == CNT_Q_a0_RECEIVED + GW_QUEUE_KINDS &&
	       CNT_Q_a0_DROPPED == CNT_Q_a0_RECEIVED + 1 &&
	       CNT_Q_a0_RING_FULL == CNT_Q_a0_RECEIVED + 2 &&
	       CNT_Q_b0_RECEIVED == CNT_Q_a0_RECEIVED + GW_QUEUE_ROWS * GW_QUEUE_KINDS &&
	       CNT_NR == CNT_Q_b0_RECEIVED + GW_QUEUE_ROWS * GW_QUEUE_KINDS, "queues");

/* Row @id of the one table (gateway/counters.h): its group, name and kind. */
static void put(struct counters *t, enum gw_counter_id id, uint64_t v, const char *str)
{
	const struct gw_counter_def *d = &gw_counters[id];

	if (t->n < COUNTERS_MAX)
		t->c[t->n++] = (struct counter){ d->group, d->name, d->kind, v, str, id };
}

/* A number (a count or a gauge, as its row says), a flag, a text. */
#define NUM(id, v) put(t, id, (v), NULL)
#define BOOL(id, v) put(t, id, !!(v), NULL)
#define STR(id, s) put(t, id, 0, (s))

static void feed_counters(struct counters *t, const struct gw_engine *e)
{
	const struct feed_counters *c = &e->dec.cnt;
	const struct gw_stats *s = &e->st;

	NUM(CNT_FEED_PACKETS, c->packets);
	NUM(CNT_FEED_MESSAGES, c->msgs);
	NUM(CNT_FEED_TICKS, s->ticks);
	NUM(CNT_FEED_TICKS_OURS, s->ticks_ours);
	NUM(CNT_FEED_UNKNOWN_LOCATE, s->unknown_locate);
	NUM(CNT_FEED_BAD_PRICE, s->bad_price);
	NUM(CNT_FEED_STOCK_DIRECTORY, c->stock_directory);
	NUM(CNT_FEED_SYSTEM_EVENTS, c->system_events);
	NUM(CNT_FEED_HEARTBEATS, c->heartbeats);
	NUM(CNT_FEED_STALE_HEARTBEATS, c->stale_heartbeats);
	BOOL(CNT_FEED_END_OF_SESSION, e->dec.ended);
	NUM(CNT_FEED_END_REPEATS, c->end_repeats);
	NUM(CNT_FEED_STALE_END, c->stale_end);
	NUM(CNT_FEED_AFTER_END, c->after_end);
	NUM(CNT_FEED_DUPLICATES, c->duplicates);
	NUM(CNT_FEED_DUP_MSGS, c->dup_msgs);
	NUM(CNT_FEED_OVERLAPS, c->overlaps);
	NUM(CNT_FEED_OTHER_SESSION, c->other_session);
	NUM(CNT_FEED_SESSION_CHANGES, c->session_changes);
	NUM(CNT_FEED_SPOOFED, s->spoofed);
	NUM(CNT_FEED_NEXT_SEQ, e->dec.next_seq);
	NUM(CNT_FEED_MALFORMED, malformed(c));
	NUM(CNT_FEED_SHORT_PACKET, c->short_packet);
	NUM(CNT_FEED_BLOCK_OVERRUN, c->block_overrun);
	NUM(CNT_FEED_COUNT_TOO_HIGH, c->count_too_high);
	NUM(CNT_FEED_COUNT_TOO_LOW, c->count_too_low);
	NUM(CNT_FEED_ZERO_LENGTH_BLOCK, c->zero_length_block);
	NUM(CNT_FEED_BAD_LENGTH, c->bad_length);
	NUM(CNT_FEED_UNKNOWN_TYPE, c->unknown_type);
	NUM(CNT_FEED_LOST_MSGS, c->lost_msgs);
}

static void book_counters(struct counters *t, const struct gw_engine *e, bool final)
{
	const struct book *b = e->book;

	if (!b)
		return;
	NUM(CNT_BOOK_LIVE_ORDERS, b->live);
	NUM(CNT_BOOK_PEAK_ORDERS, b->peak);
	NUM(CNT_BOOK_PRINTS, b->cnt.prints);
	NUM(CNT_BOOK_DUP_REF, b->cnt.dup_ref);
	NUM(CNT_BOOK_UNKNOWN_REF, b->cnt.unknown_ref);
	NUM(CNT_BOOK_OVERFILL, b->cnt.overfill);
	NUM(CNT_BOOK_BOOK_FULL, b->cnt.book_full);
	NUM(CNT_BOOK_BAD_SIDE, b->cnt.bad_side);
	NUM(CNT_BOOK_ZERO_SHARES, b->cnt.zero_shares);
	/*
	 * Only once the hot loop has stopped: the digest walks every level,
	 * which the loop is changing while it runs.  Text: a 64-bit digest
	 * does not survive a JSON reader's doubles.
	 */
	if (final) {
		snprintf(t->digest, sizeof(t->digest), "%016" PRIx64, book_digest(b));
		STR(CNT_BOOK_DIGEST, t->digest);
	}
}

static void gap_counters(struct counters *t, const struct gw_engine *e)
{
	const struct gap_stats *g = &e->gap.st;

	NUM(CNT_GAPS_OPENED, g->episodes);
	NUM(CNT_GAPS_FILLED, g->recovered);
	NUM(CNT_GAPS_HELD, g->held_pkts);
	NUM(CNT_GAPS_HOLD_DROPPED, g->hold_dropped);
	NUM(CNT_GAPS_REQUESTS, g->requests);
	NUM(CNT_GAPS_RETRIES, g->retries);
	NUM(CNT_GAPS_RETRANS_PKTS, g->retrans_pkts);
	NUM(CNT_GAPS_RECOVERY_NS_MAX, g->recovery_ns_max);
	NUM(CNT_GAPS_RECOVERY_NS_TOTAL, g->recovery_ns_total);
	NUM(CNT_GAPS_CATCHUP_MSGS, g->catchup_msgs);
	NUM(CNT_GAPS_CATCHUP_NS, g->catchup_ns);
	NUM(CNT_GAPS_TIMEOUTS, g->timeouts);
	NUM(CNT_GAPS_TOO_FAR, g->too_far);
	NUM(CNT_GAPS_GIVEN_UP, g->given_up);
	NUM(CNT_GAPS_GIVEN_UP_MSGS, g->given_up_msgs);
	NUM(CNT_GAPS_BOOKS_UNSAFE_FROM, e->unsafe_from);
	NUM(CNT_GAPS_TICKS_STALE, e->st.ticks_stale);
	BOOL(CNT_GAPS_RECOVERING, gap_open(&e->gap));
	BOOL(CNT_GAPS_STALE, e->gap.stale);
	STR(CNT_GAPS_STALE_WHY, e->gap.why ? e->gap.why : "");
}

static void order_counters(struct counters *t, const struct gw_engine *e)
{
	const struct orders_stats *o = &e->ord.st;

	NUM(CNT_ORD_SENT, o->orders);
	NUM(CNT_ORD_FAILED, o->failed);
	NUM(CNT_ORD_ACCEPTED, o->accepted);
	NUM(CNT_ORD_FILLED, o->filled);
	NUM(CNT_ORD_EXECUTIONS, o->fills);
	NUM(CNT_ORD_CANCELED, o->cancels);
	NUM(CNT_ORD_REJECTED, o->rejects);
	NUM(CNT_ORD_OPEN, e->ord.open);
	NUM(CNT_ORD_RESTORES, e->st.restores);
	NUM(CNT_ORD_CATCHUP, e->st.catchup_orders);
	NUM(CNT_ORD_UNTRADED, e->st.untraded);
	/* The logs are rings the size of --order-log: what fell out is gone. */
	NUM(CNT_ORD_LOG_OVERWRITTEN, e->ord.next > e->ord.mask + 1 ?
					 e->ord.next - (e->ord.mask + 1) : 0);
	NUM(CNT_ORD_UNTRADED_OVERWRITTEN, e->st.untraded > e->ord.mask + 1 ?
					      e->st.untraded - (e->ord.mask + 1) : 0);
	for (int i = 0; i < UNTRADED_NR; i++)
		NUM(CNT_ORD_UNTRADED_LATE + i, e->st.untraded_by[i]);
	NUM(CNT_ORD_ON_REPLY, e->st.on_reply);
	NUM(CNT_ORD_TIMED_OUT, o->timeouts);
	NUM(CNT_ORD_REPLIES, o->replies);
	NUM(CNT_ORD_BAD_REPLIES, o->bad_replies);
	NUM(CNT_ORD_UNKNOWN_TOKEN, o->unknown_token);
	NUM(CNT_ORD_LATE_REPLIES, o->late_replies);
	NUM(CNT_ORD_DUP_REPLIES, o->dup_replies);
	NUM(CNT_ORD_OVERFILLS, o->overfills);
	NUM(CNT_ORD_IN_DOUBT, o->in_doubt);
	NUM(CNT_ORD_RESENT, o->resent);
	BOOL(CNT_ORD_KILL_SWITCH, e->risk.killed);
}

/* A paper run's orders: decided from the feed, filled from the book. */
static void paper_counters(struct counters *t, const struct gw_engine *e)
{
	const struct paper_stats *p = &e->paper.st;

	if (!e->paper.cfg.on)
		return;
	NUM(CNT_PAPER_LATENCY_NS, e->paper.cfg.latency_ns);
	NUM(CNT_PAPER_ORDERS, p->orders);
	NUM(CNT_PAPER_FILLED, p->filled);
	NUM(CNT_PAPER_PARTIAL, p->partial);
	NUM(CNT_PAPER_CANCELED, p->canceled);
	NUM(CNT_PAPER_EXECUTIONS, p->executions);
	NUM(CNT_PAPER_SHARES, p->shares);
	NUM(CNT_PAPER_AT_END, p->at_end);
	NUM(CNT_PAPER_WAITING, e->paper.tail - e->paper.head);
}

static const struct order_conn *session_of(const struct gw_report *r)
{
	if (r->e->paper.cfg.on)
		return NULL;
	return r->x ? &r->x->xs.oc : r->u ? &r->u->oc : NULL;
}

/* The order session: its connections, logins and what it recovered. */
static void session_counters(struct counters *t, const struct gw_report *r)
{
	const struct order_conn *oc = session_of(r);
	const struct soup_client_stats *s;

	if (!oc)
		return;
	s = &oc->soup.st;
	STR(CNT_SESS_STATE, oc_state_names[oc->state]);
	STR(CNT_SESS_STACK, oc->cfg.stack == OC_STACK_OWN ? "own" : "kernel");
	NUM(CNT_SESS_CONNECTIONS, oc->st.attempts);
	NUM(CNT_SESS_CONNECTED, oc->st.connected);
	NUM(CNT_SESS_LOGINS, s->logins);
	NUM(CNT_SESS_ACCEPTED, s->accepted);
	NUM(CNT_SESS_REJECTS, s->rejected);
	for (int i = 0; i < OC_LOST_NR; i++)
		NUM(CNT_SESS_LOST_REFUSED + i, oc->st.lost[i]);
	NUM(CNT_SESS_REPLIES, s->seq_msgs);
	NUM(CNT_SESS_REPLAYED, r->e->ord.st.replayed);
	NUM(CNT_SESS_DUP_MSGS, s->dup_msgs);
	NUM(CNT_SESS_SKIPPED, s->skipped);
	NUM(CNT_SESS_NEXT_SEQ, oc->soup.next_seq);
	NUM(CNT_SESS_HEARTBEATS_IN, s->hb_in);
	NUM(CNT_SESS_HEARTBEATS_OUT, s->hb_out);
	NUM(CNT_SESS_BAD_PACKETS, s->bad + s->unknown + s->broken);
	NUM(CNT_SESS_ENDED, s->ends);
	NUM(CNT_SESS_SEND_FAIL, oc->st.send_fail);
	NUM(CNT_SESS_SEND_ERRORS, oc->st.send_errors);
	STR(CNT_SESS_STOP, oc->soup.halted && !oc->stop ? "replies_lost" : oc_stop_names[oc->stop]);
	BOOL(CNT_SESS_HALTED, oc->soup.halted);
	NUM(CNT_SESS_LOST_FROM, oc->soup.lost_from);
	NUM(CNT_SESS_LOST_TO, oc->soup.lost_to);
	NUM(CNT_SESS_EMPTY_MSGS, s->empty_msgs);
	NUM(CNT_SESS_SEQ_BEFORE_LOGIN, s->seq_before_login);
	NUM(CNT_SESS_WRONG_SESSION, s->wrong_session);
	NUM(CNT_SESS_SOCK_ERRORS, oc->st.sock_errors);
}

/* The own TCP's segments: what the network did to the session. */
static void tcp_counters(struct counters *t, const struct gw_report *r)
{
	const struct order_conn *oc = session_of(r);
	const struct tcp_stats *s;

	if (!oc || !oc->tcp)
		return;
	s = &oc->tcp->st;
	STR(CNT_TCP_STATE, tcp_state_names[oc->tcp->state]);
	NUM(CNT_TCP_SEGS_IN, s->seg_in);
	NUM(CNT_TCP_SEGS_OUT, s->seg_out);
	NUM(CNT_TCP_BYTES_IN, s->bytes_in);
	NUM(CNT_TCP_BYTES_OUT, s->bytes_out);
	NUM(CNT_TCP_RETRANSMISSIONS, s->retrans_segs);
	NUM(CNT_TCP_RTO_EXPIRIES, s->rto_expiries);
	NUM(CNT_TCP_FAST_RETRANSMITS, s->fast_retrans);
	NUM(CNT_TCP_TAIL_LOSS_PROBES, s->tlp_probes);
	NUM(CNT_TCP_SPURIOUS_PROBES, s->tlp_spurious);
	NUM(CNT_TCP_SACK_ACKS, s->sack_acks);
	NUM(CNT_TCP_DUP_ACKS, s->dup_acks);
	NUM(CNT_TCP_OOO_HELD, s->ooo_held);
	NUM(CNT_TCP_OOO_DROPPED, s->ooo_dropped);
	for (int i = 0; i < TCP_REJ_NR; i++)
		NUM(CNT_TCP_REJ_OUT_OF_WINDOW + i, s->rejected[i]);
	NUM(CNT_TCP_OLD_ACKS, s->old_acks);
	NUM(CNT_TCP_WINDOW_STALLS, s->window_stalls);
	NUM(CNT_TCP_CWND_STALLS, s->cwnd_stalls);
	NUM(CNT_TCP_ZERO_WINDOW_PROBES, s->zwin_probes);
	NUM(CNT_TCP_WINDOW_PROBES, s->window_probes);
	NUM(CNT_TCP_ACKS_OUT, s->acks_out);
	NUM(CNT_TCP_CHALLENGE_ACKS, s->challenge_acks);
	NUM(CNT_TCP_ACKS_LIMITED, s->acks_limited);
	NUM(CNT_TCP_RESETS_IN, s->resets_in);
	NUM(CNT_TCP_RESETS_OUT, s->resets_out);
	NUM(CNT_TCP_STALE_SEGMENTS, s->stale_segs);
	NUM(CNT_TCP_LATE_REPLIES, s->tlp_late_replies);
	NUM(CNT_TCP_DSACKS_IN, s->dsacks_in);
	NUM(CNT_TCP_NO_FRAME, s->no_frame);
	NUM(CNT_TCP_SRTT_NS, oc->tcp->srtt);
	NUM(CNT_TCP_RTO_NS, oc->tcp->rto);
	NUM(CNT_TCP_PTO_NS, oc->tcp->pto);
	NUM(CNT_TCP_CWND, oc->tcp->cwnd);
}

/* Two feed lines: what the A/B rule did with each line's packets. */
static void line_counters(struct counters *t, const struct gw_report *r)
{
	uint64_t c[STEER_LINES][STEER_LINE_NR] = { { 0 } };

	if (r->x && r->x->line_b)
		xdp_steer_line_counters(&r->x->steer, c);
	else if (r->u && r->u->feed_b_fd >= 0)
		memcpy(c, r->u->lines.c, sizeof(c));
	else
		return;
	for (int l = 0; l < STEER_LINES; l++)
		for (int k = 0; k < STEER_LINE_NR; k++)
			NUM(CNT_A_STEER_LINE_TAKEN + l * STEER_LINE_NR + k, c[l][k]);
}

static void path_counters(struct counters *t, const struct gw_report *r)
{
	const struct gw_stats *s = &r->e->st;

	for (int i = RISK_OK + 1; i < RISK_NR; i++)
		NUM(CNT_RISK_KILLED + i - (RISK_OK + 1), r->e->risk.refused[i]);
	if (r->x) {
		const struct xsk_port *tx = r->x->q.tx;
		uint64_t cnt[STEER_NR_COUNTERS] = { 0 }, saved = 0, wakeups = 0;
		struct xdp_statistics st;

		xdp_steer_counters(&r->x->steer, cnt);
		socket_stats(r->x, &st);
		for (unsigned int i = 0; i < r->x->q.n; i++) {
			saved += r->x->q.port[i].kicks_saved;
			wakeups += r->x->q.port[i].fill_wakeups;
		}
		for (int i = 0; i < STEER_NR_COUNTERS; i++)
			NUM(CNT_XDP_STEER_SEEN + i, cnt[i]);
		NUM(CNT_XDP_BAD_FRAMES, s->bad_frames);
		NUM(CNT_XDP_BAD_CHECKSUM, s->bad_checksum);
		NUM(CNT_XDP_OTHER_PACKETS, s->other_packets);
		NUM(CNT_XDP_RX_DROPPED, st.rx_dropped);
		NUM(CNT_XDP_RX_INVALID, st.rx_invalid_descs);
		NUM(CNT_XDP_RX_RING_FULL, st.rx_ring_full);
		NUM(CNT_XDP_RX_FILL_RING_EMPTY, st.rx_fill_ring_empty_descs);
		NUM(CNT_XDP_TX_INVALID, st.tx_invalid_descs);
		NUM(CNT_XDP_TX_RING_EMPTY, st.tx_ring_empty_descs);
		NUM(CNT_XDP_TX_POOL_EMPTY, tx->tx_pool_empty);
		NUM(CNT_XDP_TX_RING_FULL, tx->tx_ring_full);
		NUM(CNT_XDP_KICKS, r->x->kicks);
		NUM(CNT_XDP_KICKS_SAVED, saved);
		NUM(CNT_XDP_FILL_WAKEUPS, wakeups);
		NUM(CNT_XDP_KICK_ERRORS, tx->kick_errors);
		NUM(CNT_XDP_WARM_TURNS, r->x->warm ? r->x->warm->runs : 0);
		NUM(CNT_XDP_DRY_SENDS, r->x->dry ? r->x->dry->sends : 0);
	} else if (r->u) {
		NUM(CNT_UDP_SEND_ERRORS, r->u->send_errors);
		NUM(CNT_UDP_NO_KERNEL_STAMP, r->u->no_kernel_stamp);
	}
}

/* The first GW_QUEUE_ROWS queues of each interface that exist, three rows each. */
static void queue_counters(struct counters *t, const struct gw_report *r)
{
	static struct gw_queues q;

	if (!r->x)
		return;
	gw_queues_read(r->x, &q);
	for (unsigned int i = 0; i < q.n; i++) {
		const struct gw_queue *g = &q.q[i];
		int row;

		if (g->queue >= GW_QUEUE_ROWS)
			continue;
		row = CNT_Q_a0_RECEIVED + (int)((g->slot * GW_QUEUE_ROWS + g->queue) *
						GW_QUEUE_KINDS);
		NUM(row, g->received);
		NUM(row + 1, g->dropped);
		NUM(row + 2, g->ring_full);
	}
}

void report_collect(struct counters *t, const struct gw_report *r)
{
	t->n = 0;
	feed_counters(t, r->e);
	book_counters(t, r->e, r->final);
	gap_counters(t, r->e);
	order_counters(t, r->e);
	paper_counters(t, r->e);
	session_counters(t, r);
	tcp_counters(t, r);
	path_counters(t, r);
	line_counters(t, r);
	queue_counters(t, r);
}

/* Stamps further than this from our own clock are not our clock's. */
#define SAME_CLOCK_NS (10 * NS_PER_SEC)

void report_order_rec(const struct gw_report *r, const struct gw_order *o,
		       struct capture_rec *c, uint64_t *mismatch)
{
	const struct gw_engine *e = r->e;
	const struct gw_inst *in = &e->inst[o->inst];

	memset(c, 0, sizeof(*c));
	c->order_no = o->order_no;
	c->md_seq = o->md_seq;
	memcpy(c->symbol, in->symbol, (size_t)sym_len(in->symbol));
	c->side = o->side;
	c->shares = o->shares;
	c->price = o->price;
	c->outcome = o->state < ORDER_OUTCOME_NR ? o->state : ORDER_SENT;
	c->flags = o->flags;
	c->t = o->t;
	c->exch_ts = o->t_exch;
	c->t.t_send = 0;
	if (!r->o->feed_clock_mono || !o->t.t_hook) {
		c->t.t_ack = 0;
		return;
	}
	c->t.t_send = itch_ts_recover(o->t_exch, o->t.t_hook);
	if (c->t.t_send > o->t.t_hook + SAME_CLOCK_NS ||
	    o->t.t_hook > c->t.t_send + SAME_CLOCK_NS) {
		c->t.t_send = c->t.t_ack = 0;
		if (mismatch)
			(*mismatch)++;
	}
}

static void capture_header(const struct gw_report *r, struct capture_meta *m)
{
	const struct gw_opts *o = r->o;
	const struct gw_engine *e = r->e;
	uint32_t n = e->ord.next, cap = e->ord.mask + 1;
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
	capture_meta_set(m, "feed_clock", "%s", o->feed_clock_mono ? "mono" : "tod");
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
	uint32_t n = e->ord.next, cap = e->ord.mask + 1;
	struct capture_writer w;
	struct capture_meta m;
	int ret;

	capture_header(r, &m);
	ret = capture_open(&w, r->o->capture, &m);
	if (ret)
		return ret;
	for (uint32_t no = n > cap ? n - cap : 0; no < n; no++) {
		struct capture_rec c;

		report_order_rec(r, &e->ord.log[no & e->ord.mask], &c, NULL);
		capture_write(&w, &c);
	}
	return capture_close(&w);
}

int report_build(struct gw_report *r)
{
	const struct gw_engine *e = r->e;
	uint32_t n = e->ord.next, cap = e->ord.mask + 1;
	struct capture_rec c;

	r->final = true;

	r->lat = malloc(sizeof(*r->lat));
	if (!r->lat)
		return -ENOMEM;
	capture_hists_reset(r->lat);
	for (uint32_t no = n > cap ? n - cap : 0; no < n; no++) {
		report_order_rec(r, &e->ord.log[no & e->ord.mask], &c, &r->clock_mismatch);
		capture_hists_add(r->lat, &c);
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
			fprintf(stderr, "t2t-gateway: capture %s: %s\n", r->o->capture,
				strerror(-ret));
	}
	return 0;
}

void report_free(struct gw_report *r)
{
	free(r->lat);
	r->lat = NULL;
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

/* Groups of the table, one line each (wrapped), as "name value, ...". */
static void print_counters(FILE *out, const struct counters *t)
{
	const char *group = NULL;
	int col = 0;

	for (unsigned int i = 0; i < t->n; i++) {
		const struct counter *c = &t->c[i];
		char val[96];
		int w;

		if (c->kind == V_STR && !c->str[0])
			continue;
		if (c->kind == V_NUM || c->kind == V_GAUGE)
			snprintf(val, sizeof(val), "%" PRIu64, c->v);
		else if (c->kind == V_BOOL)
			snprintf(val, sizeof(val), "%s", c->v ? "yes" : "no");
		else
			snprintf(val, sizeof(val), "\"%s\"", c->str);
		if (!group || strcmp(group, c->group)) {
			if (group)
				fputc('\n', out);
			group = c->group;
			col = fprintf(out, "%-8s", c->group);
			col += fprintf(out, " %s %s", c->name, val);
			continue;
		}
		w = (int)(strlen(c->name) + strlen(val) + 3);
		if (col + w > 100)
			col = fprintf(out, ",\n%8s", "") - 2;
		else
			col += fprintf(out, ",");
		col += fprintf(out, " %s %s", c->name, val);
	}
	if (group)
		fputc('\n', out);
}

/* A session is "ok" only when nothing is missing and it did not go stale. */
static const char *session_verdict(const struct gw_engine *e)
{
	if (e->gap.stale)
		return "STALE (no orders after it went stale)";
	if (e->unsafe_from)
		return "BOOKS UNSAFE (messages lost for good)";
	if (gap_open(&e->gap))
		return "INCOMPLETE (messages still missing)";
	if (!e->dec.ended)
		return "ok so far (no end of session seen)";
	return "ok (ended, every message decoded)";
}

void report_session_alerts(FILE *out, const struct order_conn *oc, struct session_alerts *seen)
{
	uint32_t notes = __atomic_load_n(&oc->notes, __ATOMIC_ACQUIRE);

	if (oc->soup.halted && !seen->halted) {
		seen->halted = true;
		fprintf(out, "t2t-gateway: order session HALTED: replies %" PRIu64 " to %" PRIu64
			" are lost for good (the exchange's Login Accepted started at %" PRIu64 "); "
			"no new orders from now on; the orders they answered stay open, in doubt, in "
			"the exposure\n", oc->soup.lost_from, oc->soup.lost_to, oc->soup.lost_to + 1);
	}
	if (oc->stop == OC_STOP_WRONG_SESSION && !seen->wrong_session) {
		seen->wrong_session = true;
		fprintf(out, "t2t-gateway: order session REFUSED: the exchange accepted the login "
			"for session '%.10s', not '%.10s' as asked (--soup-session); no orders will "
			"be sent\n", oc->soup.other_session, oc->soup.session);
	}
	if (notes != seen->notes) {
		seen->notes = notes;
		fprintf(out, "t2t-gateway: order session: %s\n", oc->note);
	}
}

/* An order session that stopped trading for what its exchange said. */
static void summary_order_session(FILE *out, const struct gw_report *r)
{
	const struct order_conn *oc = session_of(r);

	if (!oc)
		return;
	if (oc->soup.halted)
		fprintf(out, "order session HALTED: replies %" PRIu64 "-%" PRIu64 " lost for good "
			"(a Login Accepted started beyond them); no new order since, %" PRIu64
			" order(s) still open (in doubt) in the exposure\n", oc->soup.lost_from,
			oc->soup.lost_to, (uint64_t)r->e->ord.open);
	if (oc->stop == OC_STOP_WRONG_SESSION)
		fprintf(out, "order session REFUSED: the exchange accepted the login for session "
			"'%.10s', not '%.10s' as asked; no order sent after it\n",
			oc->soup.other_session, oc->soup.session);
}

/* The path, the session's verdict, a late join's catch-up. */
static void summary_header(FILE *out, const struct gw_report *r)
{
	const struct gw_engine *e = r->e;

	fprintf(out, "\n=== gateway summary: %s on %s", path_name(r->o), r->o->ifname);
	if (r->x)
		fprintf(out, " (XDP %s mode, %u queue%s served, UMEM on %s pages)",
			r->o->xdp_generic ? "generic" : "driver", r->x->q.n,
			r->x->q.n == 1 ? "" : "s", r->x->q.area.hugepages ? "2 MB huge" : "4 KB");
	fprintf(out, ", %.2f s\n", r->elapsed_s);
	fprintf(out, "session: %.10s, %s", e->dec.have_session ? e->dec.session : "(none)",
		session_verdict(e));
	if (e->gap.stale)
		fprintf(out, ": %s", e->gap.why);
	fprintf(out, "; longest recovery %.3f ms\n", (double)e->gap.st.recovery_ns_max / 1e6);
	summary_order_session(out, r);
	if (e->gap.st.catchup_msgs)
		fprintf(out, "joined late: caught up %" PRIu64 " messages from sequence 1 "
			"(directory and books) in %.3f ms, then live\n", e->gap.st.catchup_msgs,
			(double)e->gap.st.catchup_ns / 1e6);
	if (e->unsafe_from)
		fprintf(out, "books unsafe from sequence %" PRIu64 ": %" PRIu64 " message(s) lost "
			"for good in %" PRIu64 " hole(s), with no re-request server (--rerequest "
			"off) to ask; any book may differ from the exchange's since, so no symbol "
			"traded after it (untraded: book)\n", e->unsafe_from, e->gap.st.given_up_msgs,
			e->gap.st.given_up);
	if (e->paper.cfg.on) {
		const struct paper_stats *p = &e->paper.st;

		fprintf(out, "paper: %" PRIu64 " orders filled from the book at print + %" PRIu64
			" ns: %" PRIu64 " whole, %" PRIu64 " in part, %" PRIu64 " nothing; %" PRIu64
			" shares in %" PRIu64 " executions; %" PRIu64 " decided at the end\n",
			p->orders, e->paper.cfg.latency_ns, p->filled, p->partial, p->canceled,
			p->shares, p->executions, p->at_end);
	}
}

/* Messages decoded, by ITCH type. */
static void summary_types(FILE *out, const struct gw_engine *e)
{
	fprintf(out, "%-8s", "types");
	for (int ty = 0; ty < 256; ty++)
		if (e->dec.cnt.by_type[ty])
			fprintf(out, " %c %" PRIu64, ty, e->dec.cnt.by_type[ty]);
	fprintf(out, "\n");
}

/* The exchange's reasons for each order it rejected, named. */
static void summary_rejects(FILE *out, const struct gw_engine *e)
{
	const struct orders_stats *o = &e->ord.st;
	const char *sep = "";

	if (!o->rejects)
		return;
	fprintf(out, "rejected %" PRIu64 " order%s:", o->rejects, o->rejects == 1 ? "" : "s");
	for (int c = 0; c < 128; c++) {
		const char *why = ouch_reject_reason((char)c);

		if (!o->rejects_by[c])
			continue;
		if (c)
			fprintf(out, "%s %" PRIu64 " %s ('%c')", sep, o->rejects_by[c],
				why ? why : "a reason OUCH 4.2 does not name", c);
		else
			fprintf(out, "%s %" PRIu64 " with a reason beyond ASCII", sep, o->rejects_by[c]);
		sep = ",";
	}
	fputc('\n', out);
}

/* The first few strategy changes that did not become orders at their tick. */
static void summary_untraded(FILE *out, const struct gw_engine *e)
{
	uint64_t n = e->st.untraded;

	if (!n)
		return;
	fprintf(out, "untraded strategy changes (the next tick trades toward the target):");
	for (uint64_t i = 0; i < n && i < 8; i++) {
		const struct gw_untraded *u = &e->untraded[i];
		const struct gw_inst *in = &e->inst[u->inst];

		fprintf(out, " %.*s %+" PRId64 "@%" PRIu64 " (%s)", sym_len(in->symbol),
			in->symbol, u->shares, u->md_seq, untraded_names[u->why]);
	}
	fprintf(out, "%s\n", n > 8 ? " ..." : "");
}

/* One row per traded symbol, the total, and a hint when every frame was bad. */
static void summary_symbols(FILE *out, const struct gw_report *r)
{
	const struct gw_engine *e = r->e;

	fprintf(out, "  %-8s %6s %4s %9s %7s %6s %7s %7s %10s %8s %14s %12s\n", "symbol",
		"locate", "len", "ticks", "orders", "execs", "cancels", "rejects",
		"position", "target", "cash", "pnl");
	for (unsigned int i = 0; i < e->n_inst; i++) {
		const struct gw_inst *in = &e->inst[i];

		fprintf(out, "  %-8.8s %6d %4u %9" PRIu64 " %7" PRIu64 " %6" PRIu64
			" %7" PRIu64 " %7" PRIu64 " %+10" PRId64 " %+8" PRId64 " %14.4f %+12.4f\n",
			in->symbol, in->locate, in->strat.hma.hp.L, in->ticks, in->orders,
			in->fills, in->cancels, in->rejects, in->pos_shares, inst_target(in),
			(double)in->cash / 10000.0, (double)inst_pnl(in) / 10000.0);
	}
	fprintf(out, "  total pnl %+.4f\n", (double)engine_pnl(e) / 10000.0);
	if (r->x && e->st.bad_checksum && !e->st.feed_packets)
		fprintf(out, "  every frame had a bad checksum: is TX checksum offload on at the "
			"sender? (ethtool -K IF tx off)\n");
}

/* The latency table per stage, with what the feed's clock lets us measure. */
static void summary_latency(FILE *out, const struct gw_report *r)
{
	fprintf(out, "latency per order (ns); feed clock %s", r->o->feed_clock_mono ?
		"mono (this host's: send->hook and send->ack measured)" :
		"time of day (the exchange's: send->hook and send->ack not measured)");
	if (r->clock_mismatch)
		fprintf(out, "; %" PRIu64 " stamps were not this host's clock (not measured)",
			r->clock_mismatch);
	if (r->lat && r->lat->clock_errors)
		fprintf(out, "; %" PRIu64 " stages with an end before their start (clock errors, "
			"left out)", r->lat->clock_errors);
	fprintf(out, ":\n  %-16s %8s %8s %8s %8s %8s %8s %8s %8s\n",
		"stage", "count", "min", "p50", "p90", "p99", "p99.9", "p99.99", "max");
	for (int i = 0; i < STAGE_NR && r->lat; i++) {
		/* The exchange's clock is not ours: say so rather than print 0. */
		if (!r->o->feed_clock_mono && (i == STAGE_SEND_HOOK || i == STAGE_SEND_ACK)) {
			fprintf(out, "  %-16s not measured (the feed's clock is the exchange's)\n",
				stage_names[i]);
			continue;
		}
		print_hist_row(out, stage_names[i], &r->lat->stage[i]);
	}
	if (r->clock_read && hdr_count(r->clock_read))
		fprintf(out, "  each stage includes about one clock read: back to back on CPU %d, "
			"min %" PRId64 ", p50 %" PRId64 ", p99 %" PRId64 " ns\n", r->o->cpu,
			hdr_min(r->clock_read), hdr_value_at_percentile(r->clock_read, 50),
			hdr_value_at_percentile(r->clock_read, 99));
}

void report_summary(FILE *out, const struct gw_report *r)
{
	struct counters t;

	summary_header(out, r);
	report_collect(&t, r);
	print_counters(out, &t);
	if (r->x)
		gw_queues_summary(out, r->x, r->o, r->x->flows, r->x->n_flows);
	summary_types(out, r->e);
	summary_rejects(out, r->e);
	summary_untraded(out, r->e);
	summary_symbols(out, r);
	summary_latency(out, r);
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

/* The table as JSON objects, one per group. */
static void json_counters(FILE *f, const struct counters *t)
{
	const char *group = NULL;

	for (unsigned int i = 0; i < t->n; i++) {
		const struct counter *c = &t->c[i];

		if (!group || strcmp(group, c->group)) {
			fprintf(f, "%s  \"%s\": {", group ? "},\n" : "", c->group);
			group = c->group;
		} else {
			fprintf(f, ", ");
		}
		if (c->kind == V_NUM || c->kind == V_GAUGE)
			fprintf(f, "\"%s\": %" PRIu64, c->name, c->v);
		else if (c->kind == V_BOOL)
			fprintf(f, "\"%s\": %s", c->name, c->v ? "true" : "false");
		else
			fprintf(f, "\"%s\": \"%s\"", c->name, c->str);
	}
	if (group)
		fprintf(f, "},\n");
}

/* "rejects_by_reason": {"C": {"count": 30, "why": "exchange closed"}, ...}. */
static void json_rejects(FILE *f, const struct gw_engine *e)
{
	const struct orders_stats *o = &e->ord.st;
	const char *sep = "";

	fprintf(f, "  \"rejects_by_reason\": {");
	for (int c = 0; c < 128; c++) {
		const char *why = ouch_reject_reason((char)c);

		if (!o->rejects_by[c])
			continue;
		fprintf(f, "%s\"%c\": {\"count\": %" PRIu64 ", \"why\": \"%s\"}", sep,
			c >= 0x20 && c != '"' && c != '\\' ? c : '?', o->rejects_by[c],
			why ? why : "unknown");
		sep = ", ";
	}
	fprintf(f, "},\n");
}

static void json_symbols(FILE *f, const struct gw_engine *e)
{
	fprintf(f, "  \"symbols\": [\n");
	for (unsigned int i = 0; i < e->n_inst; i++) {
		const struct gw_inst *in = &e->inst[i];

		fprintf(f, "    {\"symbol\": \"%.*s\", \"locate\": %d, \"length\": %u, "
			"\"unit\": %u, \"ticks\": %" PRIu64 ", \"orders\": %" PRIu64
			", \"executions\": %" PRIu64 ", \"cancels\": %" PRIu64 ", \"rejects\": %" PRIu64
			", \"restores\": %" PRIu64
			", \"bad_price\": %" PRIu64 ", \"position\": %" PRId64
			", \"target\": %" PRId64 ", \"open_buy\": %" PRId64
			", \"open_sell\": %" PRId64 ", \"cash\": %" PRId64 ", \"pnl\": %" PRId64
			", \"last_price\": %u, \"strategy_position\": %d}%s\n",
			sym_len(in->symbol), in->symbol, in->locate, in->strat.hma.hp.L, in->unit,
			in->ticks, in->orders, in->fills, in->cancels, in->rejects, in->restores,
			in->bad_price, in->pos_shares, inst_target(in),
			e->ord.open_buy[i], e->ord.open_sell[i], in->cash, inst_pnl(in),
			in->last_price, in->strat.sar.pos, i + 1 < e->n_inst ? "," : "");
	}
	fprintf(f, "  ],\n");
}

/* The first few, for a person: the orders CSV has them all. */
static void json_untraded(FILE *f, const struct gw_engine *e)
{
	uint64_t nun = e->st.untraded < 20 ? e->st.untraded : 20;

	fprintf(f, "  \"untraded_first\": [");
	for (uint64_t i = 0; i < nun; i++) {
		const struct gw_untraded *u = &e->untraded[i];
		const struct gw_inst *in = &e->inst[u->inst];

		fprintf(f, "%s\n    {\"seq\": %" PRIu64 ", \"symbol\": \"%.*s\", "
			"\"side\": \"%c\", \"shares\": %" PRId64 ", \"why\": \"%s\"}",
			i ? "," : "", u->md_seq, sym_len(in->symbol), in->symbol,
			u->shares > 0 ? 'B' : 'S', u->shares < 0 ? -u->shares : u->shares,
			untraded_names[u->why]);
	}
	fprintf(f, "%s],\n", nun ? "\n  " : "");
}

static void json_latency(FILE *f, const struct gw_report *r)
{
	if (r->clock_read)
		json_hist(f, "clock_read_ns", r->clock_read, 0);
	fprintf(f, "  \"feed_clock\": \"%s\",\n  \"clock_mismatch\": %" PRIu64
		",\n  \"clock_errors\": %" PRIu64 ",\n", r->o->feed_clock_mono ? "mono" : "tod",
		r->clock_mismatch, r->lat ? r->lat->clock_errors : 0);
	fprintf(f, "  \"latency_ns\": {\n");
	for (int i = 0; i < STAGE_NR && r->lat; i++) {
		/* As in the summary: a stage the feed's clock cannot give is no 0. */
		if (!r->o->feed_clock_mono && (i == STAGE_SEND_HOOK || i == STAGE_SEND_ACK)) {
			fprintf(f, "    \"%s\": {\"count\": 0, \"not_measured\": true}%s\n",
				stage_names[i], i == STAGE_NR - 1 ? "" : ",");
			continue;
		}
		json_hist(f, stage_names[i], &r->lat->stage[i], i == STAGE_NR - 1);
	}
	fprintf(f, "  }\n");
}

int report_json(const char *path, const struct gw_report *r)
{
	const struct gw_engine *e = r->e;
	FILE *f = fopen(path, "w");
	struct counters t;

	if (!f)
		return -errno;
	fprintf(f, "{\n  \"path\": \"%s\",\n  \"elapsed_s\": %.3f,\n", path_name(r->o),
		r->elapsed_s);
	fprintf(f, "  \"session\": \"%.10s\",\n", e->dec.have_session ? e->dec.session : "");
	report_collect(&t, r);
	json_counters(f, &t);
	fprintf(f, "  \"messages_by_type\": {");
	for (int ty = 0, n = 0; ty < 256; ty++)
		if (e->dec.cnt.by_type[ty])
			fprintf(f, "%s\"%c\": %" PRIu64, n++ ? ", " : "", ty, e->dec.cnt.by_type[ty]);
	fprintf(f, "},\n");
	if (r->x)
		gw_queues_json(f, r->x);
	json_rejects(f, e);
	json_symbols(f, e);
	json_untraded(f, e);
	json_latency(f, r);
	fprintf(f, "}\n");
	return fclose(f) ? -errno : 0;
}

int report_orders_csv(const char *path, const struct gw_report *r)
{
	const struct gw_engine *e = r->e;
	uint32_t n = e->ord.next, cap = e->ord.mask + 1;
	uint64_t nu = e->st.untraded;
	FILE *f = fopen(path, "w");

	if (!f)
		return -errno;
	fprintf(f, "order_no,md_seq,symbol,side,shares,price,state,fill_price,"
		"t_send,t_hook,t_seen,t_decided,t_queued,t_sent,kind,exch_ts,filled,cash\n");
	for (uint32_t no = n > cap ? n - cap : 0; no < n; no++) {
		const struct gw_order *o = &e->ord.log[no & e->ord.mask];
		const struct gw_inst *in = &e->inst[o->inst];

		/*
		 * S: the strategy's change; A: a change resized by orders in
		 * flight; R: a restore at a later print; Y: a covered change
		 * made up when a reply ended the order that covered it.
		 */
		char kind = o->flags & ORDER_F_ONREPLY ? 'Y' : o->flags & ORDER_F_RESTORE ? 'R' :
			    o->flags & ORDER_F_RESIZED ? 'A' : 'S';
		struct capture_rec c;

		report_order_rec(r, o, &c, NULL);
		fprintf(f, "%u,%" PRIu64 ",%.*s,%c,%u,%u,%s,%u,%" PRIu64 ",%" PRIu64 ",%"
			PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%c,%" PRIu64 ",%u,%" PRIu64 "\n",
			o->order_no, o->md_seq, sym_len(in->symbol), in->symbol, o->side, o->shares,
			o->price, order_outcome_names[c.outcome], o->fill_price, c.t.t_send,
			c.t.t_hook, c.t.t_seen, c.t.t_decided, c.t.t_queued, c.t.t_sent, kind,
			c.exch_ts, o->filled, o->cash);
	}
	/* Then every strategy change that did not become an order at its tick: kind U. */
	for (uint64_t i = nu > cap ? nu - cap : 0; i < nu; i++) {
		const struct gw_untraded *u = &e->untraded[i & e->ord.mask];
		const struct gw_inst *in = &e->inst[u->inst];

		fprintf(f, "-,%" PRIu64 ",%.*s,%c,%" PRId64 ",0,untraded_%s,0,0,0,0,0,0,0,U,0,0,0\n",
			u->md_seq, sym_len(in->symbol), in->symbol, u->shares > 0 ? 'B' : 'S',
			u->shares < 0 ? -u->shares : u->shares, untraded_names[u->why]);
	}
	return fclose(f) ? -errno : 0;
}
