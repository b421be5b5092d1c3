/* SPDX-License-Identifier: MIT */
/*
 * Sequence gap recovery: hold, re-request, catch up.
 *
 * Policy.  The strategy must see every tick of a session exactly once and
 * in sequence order, or it is not the strategy the backtester runs.  So
 * when a packet arrives beyond the next expected sequence number, it and
 * every later one are held (copied into a preallocated hold area) and not
 * decoded; the missing range is asked of the exchange's MoldUDP64
 * re-request server, at most once per retry interval.  Retransmitted
 * messages are decoded as they arrive; then the held packets are decoded in
 * sequence order and trading resumes on them (their orders are sent late
 * and flagged catch-up, and kept out of the latency figures).  While loss
 * goes on, one request covers everything missing up to the last held
 * packet, and a new one goes out as soon as a retransmission moved the
 * sequence on (otherwise after the retry interval).  No progress within the
 * timeout, or more held packets than the hold area takes, marks the
 * session stale: it is reported, the held packets are
 * decoded for the counters, and the gateway sends no more orders for the
 * session.
 */
#ifndef GATEWAY_GAP_H
#define GATEWAY_GAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GAP_HOLD_MTU		1500
#define GAP_REQ_MAX		2000	/* messages per re-request (the server's cap) */

struct gw_gap {
	uint32_t cap;			/* hold slots */
	uint32_t n_held;
	uint8_t *buf;			/* cap x GAP_HOLD_MTU */
	uint16_t *len;
	uint64_t *seq;
	uint64_t *t_hook;
	uint32_t *held;			/* slots in use, unordered */
	uint32_t *free;			/* stack of free slots */
	uint32_t free_n;
	bool stale;
	uint64_t opened_ns;		/* when the current gap opened */
	uint64_t progress_ns;		/* when next expected last moved (or opened) */
	uint64_t progress_seq;		/* next expected then */
	uint64_t last_req_ns;
	uint64_t last_req_end;		/* end of the range last asked for */
	uint64_t retry_ns, timeout_ns;
	/* counters */
	uint64_t gaps;			/* gaps opened */
	uint64_t filled;		/* ... and filled */
	uint64_t held_pkts;		/* packets held */
	uint64_t hold_overflow;		/* a packet did not fit: session stale */
	uint64_t timeouts;		/* gap not filled in time: session stale */
	uint64_t requests;		/* re-requests sent */
	uint64_t retrans_pkts;		/* retransmitted packets decoded */
	uint64_t retrans_ahead;		/* retransmissions beyond next expected: dropped */
	uint64_t fill_ns_max;		/* longest time to fill a gap */
};

int gap_init(struct gw_gap *g, uint32_t hold_slots, uint64_t retry_ns,
	     uint64_t timeout_ns);
void gap_destroy(struct gw_gap *g);

static inline bool gap_open(const struct gw_gap *g)
{
	return g->n_held != 0;
}

/* Keep a packet for later; false if it does not fit (the caller goes stale). */
bool gap_hold(struct gw_gap *g, const uint8_t *pkt, size_t len, uint64_t seq,
	      uint64_t t_hook);

/*
 * Take back the held packet with the smallest sequence number if it is
 * decodable now (seq <= next, or any when the session is stale).  Its
 * bytes stay valid until the next gap_hold().
 */
bool gap_pop(struct gw_gap *g, uint64_t next, const uint8_t **pkt,
	     size_t *len, uint64_t *t_hook);

/* Smallest and largest held sequence numbers (gap_open() must be true). */
uint64_t gap_first_held(const struct gw_gap *g);
uint64_t gap_last_held(const struct gw_gap *g);

#endif /* GATEWAY_GAP_H */
