/* SPDX-License-Identifier: MIT */
/*
 * Every counter the gateway reports, named once: its group, its name and
 * its kind, in the order report_collect() (gateway/report.c) writes them,
 * which is the order of the summary, the JSON report and the monitor
 * segment.  report.c names what it collects by the row's id
 * (NUM(CNT_FEED_PACKETS, ...)), so that a name exists here only;
 * t2t-monwriter (monitor/tools/monwriter.c) writes a segment of the same
 * rows without a gateway.  Rows named after another list (the untraded
 * reasons, the risk refusals, the XDP hook's counters and the feed lines)
 * are made from that list, at compile time.
 *
 * Why in gateway/: these are the gateway's names.  The monitor library
 * below it shows whatever rows a writer defines and must not know them;
 * a program above both (t2t-monwriter) may include this header because it
 * asks for nothing to be linked: macros, an enum, a static const table and
 * an inline function, and of the headers it includes only their name lists
 * (macros beside the enums) and the monitor's definition of a row.  Keep
 * it so: no extern here, nothing that needs a .c file.
 */
#ifndef GATEWAY_COUNTERS_H
#define GATEWAY_COUNTERS_H

#include <stdbool.h>
#include <string.h>

#include "bpf/steer.h"
#include "gateway/engine.h"
#include "gateway/risk.h"
#include "monitor/writer.h"
#include "net/tcp_rej.h"

enum val_kind {
	V_NUM,		/* a count that only grows */
	V_GAUGE,	/* a level: goes up and down */
	V_BOOL,
	V_STR,
};

/*
 * A row: GW_COUNTER(id, group, name, kind).  The lists below are expanded
 * here only, with GW_COUNTER defined for the enum and then for the table.
 */
#define CNT_UNTRADED_(id, s) GW_COUNTER(CNT_ORD_##id, "orders", "untraded_" s, V_NUM)
#define CNT_RISK_(id, s) GW_COUNTER(CNT_##id, "risk", s, V_NUM)
#define CNT_XDP_(id, s) GW_COUNTER(CNT_XDP_##id, "xdp", s, V_NUM)
#define CNT_LINE_A_(id, s) GW_COUNTER(CNT_A_##id, "lines", "a_" s, V_NUM)
#define CNT_LINE_B_(id, s) GW_COUNTER(CNT_B_##id, "lines", "b_" s, V_NUM)
#define CNT_TCP_REJ_(id, s) GW_COUNTER(CNT_TCP_REJ_##id, "tcp", "rejected_" s, V_NUM)

/* The decoder and the engine: feed_counters(). */
#define GW_FEED_COUNTERS \
	GW_COUNTER(CNT_FEED_PACKETS, "feed", "packets", V_NUM) \
	GW_COUNTER(CNT_FEED_MESSAGES, "feed", "messages", V_NUM) \
	GW_COUNTER(CNT_FEED_TICKS, "feed", "ticks", V_NUM) \
	GW_COUNTER(CNT_FEED_TICKS_OURS, "feed", "ticks_ours", V_NUM) \
	GW_COUNTER(CNT_FEED_UNKNOWN_LOCATE, "feed", "unknown_locate", V_NUM) \
	GW_COUNTER(CNT_FEED_BAD_PRICE, "feed", "bad_price", V_NUM) \
	GW_COUNTER(CNT_FEED_STOCK_DIRECTORY, "feed", "stock_directory", V_NUM) \
	GW_COUNTER(CNT_FEED_SYSTEM_EVENTS, "feed", "system_events", V_NUM) \
	GW_COUNTER(CNT_FEED_HEARTBEATS, "feed", "heartbeats", V_NUM) \
	GW_COUNTER(CNT_FEED_STALE_HEARTBEATS, "feed", "stale_heartbeats", V_NUM) \
	GW_COUNTER(CNT_FEED_END_OF_SESSION, "feed", "end_of_session", V_BOOL) \
	GW_COUNTER(CNT_FEED_END_REPEATS, "feed", "end_repeats", V_NUM) \
	GW_COUNTER(CNT_FEED_STALE_END, "feed", "stale_end", V_NUM) \
	GW_COUNTER(CNT_FEED_AFTER_END, "feed", "after_end", V_NUM) \
	GW_COUNTER(CNT_FEED_DUPLICATES, "feed", "duplicates", V_NUM) \
	GW_COUNTER(CNT_FEED_DUP_MSGS, "feed", "dup_msgs", V_NUM) \
	GW_COUNTER(CNT_FEED_OVERLAPS, "feed", "overlaps", V_NUM) \
	GW_COUNTER(CNT_FEED_OTHER_SESSION, "feed", "other_session", V_NUM) \
	GW_COUNTER(CNT_FEED_SESSION_CHANGES, "feed", "session_changes", V_NUM) \
	GW_COUNTER(CNT_FEED_SPOOFED, "feed", "spoofed", V_NUM) \
	GW_COUNTER(CNT_FEED_NEXT_SEQ, "feed", "next_seq", V_GAUGE) \
	GW_COUNTER(CNT_FEED_MALFORMED, "feed", "malformed", V_NUM) \
	GW_COUNTER(CNT_FEED_SHORT_PACKET, "feed", "short_packet", V_NUM) \
	GW_COUNTER(CNT_FEED_BLOCK_OVERRUN, "feed", "block_overrun", V_NUM) \
	GW_COUNTER(CNT_FEED_COUNT_TOO_HIGH, "feed", "count_too_high", V_NUM) \
	GW_COUNTER(CNT_FEED_COUNT_TOO_LOW, "feed", "count_too_low", V_NUM) \
	GW_COUNTER(CNT_FEED_ZERO_LENGTH_BLOCK, "feed", "zero_length_block", V_NUM) \
	GW_COUNTER(CNT_FEED_BAD_LENGTH, "feed", "bad_length", V_NUM) \
	GW_COUNTER(CNT_FEED_UNKNOWN_TYPE, "feed", "unknown_type", V_NUM) \
	GW_COUNTER(CNT_FEED_LOST_MSGS, "feed", "lost_msgs", V_NUM)

/* The books, when kept (digest: at the end only): book_counters(). */
#define GW_BOOK_COUNTERS \
	GW_COUNTER(CNT_BOOK_LIVE_ORDERS, "book", "live_orders", V_GAUGE) \
	GW_COUNTER(CNT_BOOK_PEAK_ORDERS, "book", "peak_orders", V_GAUGE) \
	GW_COUNTER(CNT_BOOK_PRINTS, "book", "prints", V_NUM) \
	GW_COUNTER(CNT_BOOK_DUP_REF, "book", "dup_ref", V_NUM) \
	GW_COUNTER(CNT_BOOK_UNKNOWN_REF, "book", "unknown_ref", V_NUM) \
	GW_COUNTER(CNT_BOOK_OVERFILL, "book", "overfill", V_NUM) \
	GW_COUNTER(CNT_BOOK_BOOK_FULL, "book", "book_full", V_NUM) \
	GW_COUNTER(CNT_BOOK_BAD_SIDE, "book", "bad_side", V_NUM) \
	GW_COUNTER(CNT_BOOK_ZERO_SHARES, "book", "zero_shares", V_NUM) \
	GW_COUNTER(CNT_BOOK_DIGEST, "book", "digest", V_STR)

/* Gap recovery and the session's health: gap_counters(). */
#define GW_GAP_COUNTERS \
	GW_COUNTER(CNT_GAPS_OPENED, "gaps", "opened", V_NUM) \
	GW_COUNTER(CNT_GAPS_FILLED, "gaps", "filled", V_NUM) \
	GW_COUNTER(CNT_GAPS_HELD, "gaps", "held", V_NUM) \
	GW_COUNTER(CNT_GAPS_HOLD_DROPPED, "gaps", "hold_dropped", V_NUM) \
	GW_COUNTER(CNT_GAPS_REQUESTS, "gaps", "requests", V_NUM) \
	GW_COUNTER(CNT_GAPS_RETRIES, "gaps", "retries", V_NUM) \
	GW_COUNTER(CNT_GAPS_RETRANS_PKTS, "gaps", "retrans_pkts", V_NUM) \
	GW_COUNTER(CNT_GAPS_RECOVERY_NS_MAX, "gaps", "recovery_ns_max", V_GAUGE) \
	GW_COUNTER(CNT_GAPS_RECOVERY_NS_TOTAL, "gaps", "recovery_ns_total", V_NUM) \
	GW_COUNTER(CNT_GAPS_CATCHUP_MSGS, "gaps", "catchup_msgs", V_NUM) \
	GW_COUNTER(CNT_GAPS_CATCHUP_NS, "gaps", "catchup_ns", V_NUM) \
	GW_COUNTER(CNT_GAPS_TIMEOUTS, "gaps", "timeouts", V_NUM) \
	GW_COUNTER(CNT_GAPS_TOO_FAR, "gaps", "too_far", V_NUM) \
	GW_COUNTER(CNT_GAPS_GIVEN_UP, "gaps", "given_up", V_NUM) \
	GW_COUNTER(CNT_GAPS_GIVEN_UP_MSGS, "gaps", "given_up_msgs", V_NUM) \
	GW_COUNTER(CNT_GAPS_BOOKS_UNSAFE_FROM, "gaps", "books_unsafe_from", V_GAUGE) \
	GW_COUNTER(CNT_GAPS_TICKS_STALE, "gaps", "ticks_stale", V_NUM) \
	GW_COUNTER(CNT_GAPS_RECOVERING, "gaps", "recovering", V_BOOL) \
	GW_COUNTER(CNT_GAPS_STALE, "gaps", "stale", V_BOOL) \
	GW_COUNTER(CNT_GAPS_STALE_WHY, "gaps", "stale_why", V_STR)

/* Orders and replies: order_counters(). */
#define GW_ORDER_COUNTERS \
	GW_COUNTER(CNT_ORD_SENT, "orders", "sent", V_NUM) \
	GW_COUNTER(CNT_ORD_FAILED, "orders", "failed", V_NUM) \
	GW_COUNTER(CNT_ORD_ACCEPTED, "orders", "accepted", V_NUM) \
	GW_COUNTER(CNT_ORD_FILLED, "orders", "filled", V_NUM) \
	GW_COUNTER(CNT_ORD_EXECUTIONS, "orders", "executions", V_NUM) \
	GW_COUNTER(CNT_ORD_CANCELED, "orders", "canceled", V_NUM) \
	GW_COUNTER(CNT_ORD_REJECTED, "orders", "rejected", V_NUM) \
	GW_COUNTER(CNT_ORD_OPEN, "orders", "open", V_GAUGE) \
	GW_COUNTER(CNT_ORD_RESTORES, "orders", "restores", V_NUM) \
	GW_COUNTER(CNT_ORD_CATCHUP, "orders", "catchup", V_NUM) \
	GW_COUNTER(CNT_ORD_UNTRADED, "orders", "untraded", V_NUM) \
	GW_COUNTER(CNT_ORD_LOG_OVERWRITTEN, "orders", "log_overwritten", V_NUM) \
	GW_COUNTER(CNT_ORD_UNTRADED_OVERWRITTEN, "orders", "untraded_overwritten", V_NUM) \
	UNTRADED_NAMES(CNT_UNTRADED_) \
	GW_COUNTER(CNT_ORD_ON_REPLY, "orders", "on_reply", V_NUM) \
	GW_COUNTER(CNT_ORD_TIMED_OUT, "orders", "timed_out", V_NUM) \
	GW_COUNTER(CNT_ORD_REPLIES, "orders", "replies", V_NUM) \
	GW_COUNTER(CNT_ORD_BAD_REPLIES, "orders", "bad_replies", V_NUM) \
	GW_COUNTER(CNT_ORD_UNKNOWN_TOKEN, "orders", "unknown_token", V_NUM) \
	GW_COUNTER(CNT_ORD_LATE_REPLIES, "orders", "late_replies", V_NUM) \
	GW_COUNTER(CNT_ORD_DUP_REPLIES, "orders", "dup_replies", V_NUM) \
	GW_COUNTER(CNT_ORD_OVERFILLS, "orders", "overfills", V_NUM) \
	GW_COUNTER(CNT_ORD_IN_DOUBT, "orders", "in_doubt", V_NUM) \
	GW_COUNTER(CNT_ORD_RESENT, "orders", "resent", V_NUM) \
	GW_COUNTER(CNT_ORD_KILL_SWITCH, "orders", "kill_switch", V_BOOL)

/* A paper run's orders: paper_counters(). */
#define GW_PAPER_COUNTERS \
	GW_COUNTER(CNT_PAPER_LATENCY_NS, "paper", "latency_ns", V_GAUGE) \
	GW_COUNTER(CNT_PAPER_ORDERS, "paper", "orders", V_NUM) \
	GW_COUNTER(CNT_PAPER_FILLED, "paper", "filled", V_NUM) \
	GW_COUNTER(CNT_PAPER_PARTIAL, "paper", "partial", V_NUM) \
	GW_COUNTER(CNT_PAPER_CANCELED, "paper", "canceled", V_NUM) \
	GW_COUNTER(CNT_PAPER_EXECUTIONS, "paper", "executions", V_NUM) \
	GW_COUNTER(CNT_PAPER_SHARES, "paper", "shares", V_NUM) \
	GW_COUNTER(CNT_PAPER_AT_END, "paper", "at_end", V_NUM) \
	GW_COUNTER(CNT_PAPER_WAITING, "paper", "waiting", V_GAUGE)

/* The order session (lost_*: enum oc_lost, in its order): session_counters(). */
#define GW_SESSION_COUNTERS \
	GW_COUNTER(CNT_SESS_STATE, "order_session", "state", V_STR) \
	GW_COUNTER(CNT_SESS_STACK, "order_session", "stack", V_STR) \
	GW_COUNTER(CNT_SESS_CONNECTIONS, "order_session", "connections", V_NUM) \
	GW_COUNTER(CNT_SESS_CONNECTED, "order_session", "connected", V_NUM) \
	GW_COUNTER(CNT_SESS_LOGINS, "order_session", "logins", V_NUM) \
	GW_COUNTER(CNT_SESS_ACCEPTED, "order_session", "accepted", V_NUM) \
	GW_COUNTER(CNT_SESS_REJECTS, "order_session", "rejects", V_NUM) \
	GW_COUNTER(CNT_SESS_LOST_REFUSED, "order_session", "lost_refused", V_NUM) \
	GW_COUNTER(CNT_SESS_LOST_RESET, "order_session", "lost_reset", V_NUM) \
	GW_COUNTER(CNT_SESS_LOST_FIN, "order_session", "lost_fin", V_NUM) \
	GW_COUNTER(CNT_SESS_LOST_SILENCE, "order_session", "lost_silence", V_NUM) \
	GW_COUNTER(CNT_SESS_LOST_RETRANS, "order_session", "lost_retrans", V_NUM) \
	GW_COUNTER(CNT_SESS_LOST_BROKEN, "order_session", "lost_broken", V_NUM) \
	GW_COUNTER(CNT_SESS_REPLIES, "order_session", "replies", V_NUM) \
	GW_COUNTER(CNT_SESS_REPLAYED, "order_session", "replayed", V_NUM) \
	GW_COUNTER(CNT_SESS_DUP_MSGS, "order_session", "dup_msgs", V_NUM) \
	GW_COUNTER(CNT_SESS_SKIPPED, "order_session", "skipped", V_NUM) \
	GW_COUNTER(CNT_SESS_NEXT_SEQ, "order_session", "next_seq", V_GAUGE) \
	GW_COUNTER(CNT_SESS_HEARTBEATS_IN, "order_session", "heartbeats_in", V_NUM) \
	GW_COUNTER(CNT_SESS_HEARTBEATS_OUT, "order_session", "heartbeats_out", V_NUM) \
	GW_COUNTER(CNT_SESS_BAD_PACKETS, "order_session", "bad_packets", V_NUM) \
	GW_COUNTER(CNT_SESS_ENDED, "order_session", "ended", V_NUM) \
	GW_COUNTER(CNT_SESS_SEND_FAIL, "order_session", "send_fail", V_NUM) \
	GW_COUNTER(CNT_SESS_SEND_ERRORS, "order_session", "send_errors", V_NUM) \
	GW_COUNTER(CNT_SESS_STOP, "order_session", "stop", V_STR) \
	GW_COUNTER(CNT_SESS_HALTED, "order_session", "halted", V_BOOL) \
	GW_COUNTER(CNT_SESS_LOST_FROM, "order_session", "replies_lost_from", V_GAUGE) \
	GW_COUNTER(CNT_SESS_LOST_TO, "order_session", "replies_lost_to", V_GAUGE) \
	GW_COUNTER(CNT_SESS_EMPTY_MSGS, "order_session", "empty_msgs", V_NUM) \
	GW_COUNTER(CNT_SESS_SEQ_BEFORE_LOGIN, "order_session", "seq_before_login", V_NUM) \
	GW_COUNTER(CNT_SESS_WRONG_SESSION, "order_session", "wrong_session", V_NUM) \
	GW_COUNTER(CNT_SESS_SOCK_ERRORS, "order_session", "socket_errors", V_NUM)

/* The own TCP: tcp_counters(). */
#define GW_TCP_COUNTERS \
	GW_COUNTER(CNT_TCP_STATE, "tcp", "state", V_STR) \
	GW_COUNTER(CNT_TCP_SEGS_IN, "tcp", "segs_in", V_NUM) \
	GW_COUNTER(CNT_TCP_SEGS_OUT, "tcp", "segs_out", V_NUM) \
	GW_COUNTER(CNT_TCP_BYTES_IN, "tcp", "bytes_in", V_NUM) \
	GW_COUNTER(CNT_TCP_BYTES_OUT, "tcp", "bytes_out", V_NUM) \
	GW_COUNTER(CNT_TCP_RETRANSMISSIONS, "tcp", "retransmissions", V_NUM) \
	GW_COUNTER(CNT_TCP_RTO_EXPIRIES, "tcp", "rto_expiries", V_NUM) \
	GW_COUNTER(CNT_TCP_FAST_RETRANSMITS, "tcp", "fast_retransmits", V_NUM) \
	GW_COUNTER(CNT_TCP_TAIL_LOSS_PROBES, "tcp", "tail_loss_probes", V_NUM) \
	GW_COUNTER(CNT_TCP_SPURIOUS_PROBES, "tcp", "spurious_probes", V_NUM) \
	GW_COUNTER(CNT_TCP_SACK_ACKS, "tcp", "sack_acks", V_NUM) \
	GW_COUNTER(CNT_TCP_DUP_ACKS, "tcp", "dup_acks", V_NUM) \
	GW_COUNTER(CNT_TCP_OOO_HELD, "tcp", "ooo_held", V_NUM) \
	GW_COUNTER(CNT_TCP_OOO_DROPPED, "tcp", "ooo_dropped", V_NUM) \
	TCP_REJECTS(CNT_TCP_REJ_) \
	GW_COUNTER(CNT_TCP_OLD_ACKS, "tcp", "old_acks", V_NUM) \
	GW_COUNTER(CNT_TCP_WINDOW_STALLS, "tcp", "window_stalls", V_NUM) \
	GW_COUNTER(CNT_TCP_CWND_STALLS, "tcp", "cwnd_stalls", V_NUM) \
	GW_COUNTER(CNT_TCP_ZERO_WINDOW_PROBES, "tcp", "zero_window_probes", V_NUM) \
	GW_COUNTER(CNT_TCP_WINDOW_PROBES, "tcp", "window_probes", V_NUM) \
	GW_COUNTER(CNT_TCP_ACKS_OUT, "tcp", "acks_out", V_NUM) \
	GW_COUNTER(CNT_TCP_CHALLENGE_ACKS, "tcp", "challenge_acks", V_NUM) \
	GW_COUNTER(CNT_TCP_ACKS_LIMITED, "tcp", "acks_limited", V_NUM) \
	GW_COUNTER(CNT_TCP_RESETS_IN, "tcp", "resets_in", V_NUM) \
	GW_COUNTER(CNT_TCP_RESETS_OUT, "tcp", "resets_out", V_NUM) \
	GW_COUNTER(CNT_TCP_STALE_SEGMENTS, "tcp", "stale_segments", V_NUM) \
	GW_COUNTER(CNT_TCP_LATE_REPLIES, "tcp", "late_replies", V_NUM) \
	GW_COUNTER(CNT_TCP_DSACKS_IN, "tcp", "dsacks_in", V_NUM) \
	GW_COUNTER(CNT_TCP_NO_FRAME, "tcp", "no_frame", V_NUM) \
	GW_COUNTER(CNT_TCP_SRTT_NS, "tcp", "srtt_ns", V_GAUGE) \
	GW_COUNTER(CNT_TCP_RTO_NS, "tcp", "rto_ns", V_GAUGE) \
	GW_COUNTER(CNT_TCP_PTO_NS, "tcp", "pto_ns", V_GAUGE) \
	GW_COUNTER(CNT_TCP_CWND, "tcp", "cwnd", V_GAUGE)

/* Refusals by reason (gateway/risk.h): path_counters(). */
#define GW_RISK_COUNTERS \
	RISK_REASON_NAMES(CNT_RISK_)

/* The AF_XDP path: the hook's counters (bpf/steer.h), then the socket's. */
#define GW_XDP_COUNTERS \
	STEER_COUNTER_NAMES(CNT_XDP_) \
	GW_COUNTER(CNT_XDP_BAD_FRAMES, "xdp", "bad_frames", V_NUM) \
	GW_COUNTER(CNT_XDP_BAD_CHECKSUM, "xdp", "bad_checksum", V_NUM) \
	GW_COUNTER(CNT_XDP_OTHER_PACKETS, "xdp", "other_packets", V_NUM) \
	GW_COUNTER(CNT_XDP_RX_DROPPED, "xdp", "rx_dropped", V_NUM) \
	GW_COUNTER(CNT_XDP_RX_INVALID, "xdp", "rx_invalid", V_NUM) \
	GW_COUNTER(CNT_XDP_RX_RING_FULL, "xdp", "rx_ring_full", V_NUM) \
	GW_COUNTER(CNT_XDP_RX_FILL_RING_EMPTY, "xdp", "rx_fill_ring_empty", V_NUM) \
	GW_COUNTER(CNT_XDP_TX_INVALID, "xdp", "tx_invalid", V_NUM) \
	GW_COUNTER(CNT_XDP_TX_RING_EMPTY, "xdp", "tx_ring_empty", V_NUM) \
	GW_COUNTER(CNT_XDP_TX_POOL_EMPTY, "xdp", "tx_pool_empty", V_NUM) \
	GW_COUNTER(CNT_XDP_TX_RING_FULL, "xdp", "tx_ring_full", V_NUM) \
	GW_COUNTER(CNT_XDP_KICKS, "xdp", "kicks", V_NUM) \
	GW_COUNTER(CNT_XDP_KICKS_SAVED, "xdp", "kicks_saved", V_NUM) \
	GW_COUNTER(CNT_XDP_FILL_WAKEUPS, "xdp", "fill_wakeups", V_NUM) \
	GW_COUNTER(CNT_XDP_KICK_ERRORS, "xdp", "kick_errors", V_NUM) \
	GW_COUNTER(CNT_XDP_WARM_TURNS, "xdp", "warm_turns", V_NUM) \
	GW_COUNTER(CNT_XDP_DRY_SENDS, "xdp", "dry_sends", V_NUM)

/* The kernel-UDP path instead. */
#define GW_UDP_COUNTERS \
	GW_COUNTER(CNT_UDP_SEND_ERRORS, "udp", "send_errors", V_NUM) \
	GW_COUNTER(CNT_UDP_NO_KERNEL_STAMP, "udp", "no_kernel_stamp", V_NUM)

/* Two feed lines, A then B, with the hook's names (bpf/steer.h): line_counters(). */
#define GW_LINE_COUNTERS \
	STEER_LINE_COUNTER_NAMES(CNT_LINE_A_) \
	STEER_LINE_COUNTER_NAMES(CNT_LINE_B_)

/*
 * Per receive queue, line A's ("a3_received") then line B's, the first
 * GW_QUEUE_ROWS queues of each interface (the summary and the JSON report
 * have every queue): what the loop received, what was dropped there (no
 * socket on the queue, or the socket's own drops) and the ring-full events
 * (RX ring full, fill ring empty).  queue_counters() emits the rows of the
 * queues that exist.
 */
#define GW_QUEUE_ROWS 16
#define GW_QUEUE_KINDS 3
#define CNT_QUEUE_(l, q) \
	GW_COUNTER(CNT_Q_##l##q##_RECEIVED, "queues", #l #q "_received", V_NUM) \
	GW_COUNTER(CNT_Q_##l##q##_DROPPED, "queues", #l #q "_dropped", V_NUM) \
	GW_COUNTER(CNT_Q_##l##q##_RING_FULL, "queues", #l #q "_ring_full", V_NUM)
#define CNT_QUEUE_LINE_(l) \
	CNT_QUEUE_(l, 0) CNT_QUEUE_(l, 1) CNT_QUEUE_(l, 2) CNT_QUEUE_(l, 3) \
	CNT_QUEUE_(l, 4) CNT_QUEUE_(l, 5) CNT_QUEUE_(l, 6) CNT_QUEUE_(l, 7) \
	CNT_QUEUE_(l, 8) CNT_QUEUE_(l, 9) CNT_QUEUE_(l, 10) CNT_QUEUE_(l, 11) \
	CNT_QUEUE_(l, 12) CNT_QUEUE_(l, 13) CNT_QUEUE_(l, 14) CNT_QUEUE_(l, 15)
#define GW_QUEUE_COUNTERS CNT_QUEUE_LINE_(a) CNT_QUEUE_LINE_(b)

#define GW_COUNTERS \
	GW_FEED_COUNTERS GW_BOOK_COUNTERS GW_GAP_COUNTERS GW_ORDER_COUNTERS \
	GW_PAPER_COUNTERS GW_SESSION_COUNTERS GW_TCP_COUNTERS GW_RISK_COUNTERS \
	GW_XDP_COUNTERS GW_UDP_COUNTERS GW_LINE_COUNTERS GW_QUEUE_COUNTERS

#define GW_COUNTER(id, g, n, k) id,
enum gw_counter_id { GW_COUNTERS CNT_NR };
#undef GW_COUNTER

struct gw_counter_def {
	const char *group;
	const char *name;
	enum val_kind kind;
};

#define GW_COUNTER(id, g, n, k) [id] = { g, n, k },
static const struct gw_counter_def gw_counters[CNT_NR] = { GW_COUNTERS };
#undef GW_COUNTER

/*
 * A row as the monitor segment defines it: a flag, a gauge or a counter, in
 * ns when its name says so.  Text has no place there: false.
 */
static inline bool gw_counter_mon_def(const struct gw_counter_def *c,
				      struct mon_counter_def *d)
{
	if (c->kind == V_STR)
		return false;
	d->group = c->group;
	d->name = c->name;
	d->kind = c->kind == V_BOOL ? MON_FLAG : c->kind == V_GAUGE ? MON_GAUGE : MON_COUNTER;
	d->unit = strstr(c->name, "_ns") ? MON_UNIT_NS : MON_UNIT_NONE;
	return true;
}

#endif /* GATEWAY_COUNTERS_H */
