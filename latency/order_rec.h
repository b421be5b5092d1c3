/* SPDX-License-Identifier: MIT */
/*
 * One order's record, as the gateway keeps it and the capture log carries
 * it: what became of it, how it came about, and its timestamps
 * (CLOCK_MONOTONIC nanoseconds of the one host, 0 where not taken); and
 * the stages of tick-to-trade computed from them, in one place.
 */
#ifndef LATENCY_ORDER_REC_H
#define LATENCY_ORDER_REC_H

#include <stdint.h>

/* What became of an order. */
enum order_outcome {
	ORDER_SENT,		/* no reply seen */
	ORDER_ACCEPTED,
	ORDER_FILLED,
	ORDER_CANCELED,
	ORDER_REJECTED,
	ORDER_SEND_FAILED,	/* never left */
	ORDER_TIMED_OUT,	/* no final reply in time */
	ORDER_OUTCOME_NR,
};

extern const char *const order_outcome_names[ORDER_OUTCOME_NR];

/* How the order came about. */
#define ORDER_F_RETRANS	1	/* its tick came in a retransmission */
#define ORDER_F_CATCHUP	2	/* its tick was decoded late, after a gap filled */
#define ORDER_F_RESTORE	4	/* no strategy change at its tick: making up */
#define ORDER_F_RESIZED	8	/* a strategy change sized by orders in flight */
#define ORDER_F_ONREPLY	16	/* made up when a reply ended the order before it */
#define ORDER_F_RESENT	32	/* sent again, same token, after a new login */
#define ORDER_F_NR	6

extern const char *const order_flag_names[ORDER_F_NR];

struct order_times {
	uint64_t t_send;	/* the exchange put the tick on the wire */
	uint64_t t_hook;	/* XDP hook / kernel receive stamp */
	uint64_t t_seen;	/* the gateway's loop saw the packet */
	uint64_t t_decided;	/* decode, strategy, order built */
	uint64_t t_queued;	/* on the TX ring (or just before sendto) */
	uint64_t t_sent;	/* the TX kick (sendto) returned */
	uint64_t t_ack;		/* the exchange's kernel arrival stamp */
};

/* The stages every report gives, in this order. */
enum order_stage {
	STAGE_SEND_HOOK,	/* exchange send -> XDP hook / kernel stamp */
	STAGE_HOOK_SEEN,	/* -> the gateway's loop saw it */
	STAGE_SEEN_DECIDED,	/* decode + strategy + order built */
	STAGE_DECIDED_QUEUED,	/* -> on the TX ring (or just before sendto) */
	STAGE_QUEUED_SENT,	/* the TX kick (sendto) */
	STAGE_SEEN_QUEUED,	/* the loop's own work: decode, strategy, order */
	STAGE_HOOK_QUEUED,	/* in-gateway tick-to-trade */
	STAGE_HOOK_SENT,	/* ... with the kick */
	STAGE_SEND_ACK,		/* wire to wire: exchange send -> exchange arrival */
	STAGE_NR,
};

extern const char *const stage_names[STAGE_NR];

/*
 * Each stage's duration of one order: fills v[] and returns a bit mask of
 * the stages it has.  Every stage needs an order that left (not
 * send_failed) with t_hook and t_sent; send->hook also needs t_send, and
 * send->ack t_send and t_ack: t_send is 0 unless the feed's timestamps are
 * this host's clock (a real feed's are the exchange's time of day), and
 * then those two stages are not measured.  A catch-up order (its tick
 * waited for a gap to fill) is no tick-to-trade and has no stage.  A stage
 * whose end comes before its start is an error of the clocks: left out,
 * never clamped, and counted in *clock_errors (may be NULL).
 */
unsigned int order_stages(const struct order_times *t, uint8_t outcome,
			  uint8_t flags, int64_t v[STAGE_NR], unsigned int *clock_errors);

#endif /* LATENCY_ORDER_REC_H */
