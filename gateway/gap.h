/* SPDX-License-Identifier: MIT */
/*
 * Sequence gap recovery: hold, re-request, catch up.
 *
 * Policy.  The strategy must see every message of a session exactly once
 * and in sequence order, or it is not the strategy the backtester runs.
 *
 *  - A packet beyond the next expected sequence number is held (copied into
 *    a preallocated hold area, kept sorted by sequence number) and not yet
 *    decoded; from then until nothing is missing, the session is "in
 *    recovery".  A heartbeat beyond the next expected number only tells
 *    that messages exist up to it.
 *  - What is missing (the holes: before the first held packet, between
 *    held packets, after the last one up to the highest number announced)
 *    is asked of the exchange's MoldUDP64 re-request server (with two feed
 *    lines, only once it has stayed missing for line_wait: the other line
 *    usually fills it first), one request
 *    per hole chunk, each sized to what one answer packet carries (the
 *    largest packet seen so far, at least GAP_PER_REQ_MIN), up to `window`
 *    requests outstanding.  A real server answers a request with one
 *    packet: the moment any answer to a request arrives, the request is
 *    done and the rest of its range is a hole asked for again at once.  The
 *    retry interval covers only requests that got no answer at all.
 *  - Retransmitted packets are decoded as they arrive, or held like any
 *    other when they land beyond the next expected number; the held packets
 *    are then decoded in order, a bounded number per loop turn.
 *  - A full hold area drops the packet (counted); its messages are one more
 *    hole, asked for like any other.  Overload therefore costs recovery
 *    time, never the session.  The last slots are for answers only, so
 *    that a window of requests still brings a window of packets when live
 *    packets have filled the rest (a late join).
 *  - The session goes stale (reported, no more orders; held packets are
 *    decoded for the counters, requests stop) only when nothing moves for
 *    `timeout` while messages are missing (the exchange does not answer),
 *    or when an established session is told of messages more than
 *    `max_hole` beyond everything seen (a number that can never be filled).
 *  - Late ticks: a tick decoded late is followed by the strategy but not
 *    traded when it is older than `max_catchup`, measured on the gateway's
 *    own clock from when its packet should have arrived: for a held packet
 *    its own arrival, for a retransmitted one the arrival of the first
 *    packet held after it (when its loss was seen).  Nothing of a catch-up
 *    from 1 (a late join) is traded: those prints are older than the
 *    gateway.
 */
#ifndef GATEWAY_GAP_H
#define GATEWAY_GAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/moldudp64.h"

#define GAP_HOLD_MTU		1500
#define GAP_REQ_MAX		2000	/* messages per request (servers' usual cap) */
#define GAP_PER_REQ_MIN		32	/* a full packet of trades */
#define GAP_WINDOW_MAX		32
#define GAP_SCAN		512	/* held packets looked through for a hole */

struct gap_cfg {
	uint32_t hold;		/* packets held while messages are missing */
	uint64_t retry_ns;	/* a request with no answer is sent again after this */
	uint64_t timeout_ns;	/* nothing moves this long while missing: stale */
	uint64_t max_hole;	/* a jump this far beyond everything seen: stale */
	uint32_t window;	/* requests outstanding at once */
	uint64_t max_catchup_ns;/* late ticks older than this: followed, not traded */
	uint64_t line_wait_ns;	/* a hole waits this long for the other line first */
	bool no_recovery;	/* no re-request server: a hole is given up after line_wait */
};

struct gap_req {
	uint64_t seq;
	uint32_t count;
	uint64_t sent_ns;
};

struct gap_stats {
	uint64_t episodes;		/* times messages went missing */
	uint64_t recovered;		/* ... and everything came back */
	uint64_t held_pkts;		/* packets held */
	uint64_t hold_dropped;		/* hold area full: dropped, asked for again */
	uint64_t timeouts;		/* no answer in time: session stale */
	uint64_t too_far;		/* a number beyond max_hole: session stale */
	uint64_t requests;		/* re-requests sent (retries included) */
	uint64_t retries;		/* ... of which sent again, unanswered */
	uint64_t retrans_pkts;		/* retransmitted packets received */
	uint64_t recovery_ns_max;	/* longest recovery */
	uint64_t recovery_ns_total;
	/*
	 * Joined late: the session's first packet seen was not its first, so
	 * everything from 1 was missing (the directory and the book
	 * included), re-requested while the lines were held.
	 */
	uint64_t catchup_msgs;		/* messages caught up (0: joined at the start) */
	uint64_t catchup_ns;		/* how long until live */
	/* no_recovery: holes decoded past, their messages never seen (engine.h) */
	uint64_t given_up;
	uint64_t given_up_msgs;
};

struct gw_gap {
	struct gap_cfg cfg;
	/* hold area: cfg.hold slots */
	uint8_t *buf;			/* hold x GAP_HOLD_MTU */
	uint16_t *len;
	uint16_t *nmsg;			/* messages in the packet */
	uint64_t *seq;
	uint64_t *t_hook;
	uint32_t *free;			/* stack of free slots */
	uint32_t free_n;
	uint32_t *sorted;		/* [lo, lo + n_held): slots by seq; 2 x hold */
	uint32_t lo;
	uint32_t n_held;
	uint32_t reserve;		/* free slots only answers may take */
	/* what is missing */
	uint64_t high;			/* one past the last message known to exist */
	uint64_t high_ns;		/* when it was learnt */
	uint64_t since_ns;		/* in recovery since; 0 = nothing missing */
	uint64_t progress_seq;		/* next expected when it last moved */
	uint64_t progress_ns;
	struct gap_req req[GAP_WINDOW_MAX];
	uint32_t n_req;
	/*
	 * gap_request() runs after every batch while recovering; it looks for
	 * holes only when something changed (a packet held, the next number
	 * moved) and for retries only when one is due.
	 */
	bool dirty;
	uint64_t retry_due_ns;		/* earliest unanswered request's retry */
	uint32_t per_req;		/* messages one answer packet carries */
	bool stale;
	bool catchup;			/* the open episode began before any message */
	bool gave_up;			/* ... and a hole of it was given up */
	const char *why;		/* of the staleness, for the report */
	struct gap_stats st;
};

int gap_init(struct gw_gap *g, const struct gap_cfg *cfg);
void gap_destroy(struct gw_gap *g);

/* A new session: nothing held, nothing missing, not stale. */
void gap_reset(struct gw_gap *g);

/* Messages are missing (held packets wait, or holes wait for answers). */
static inline bool gap_open(const struct gw_gap *g)
{
	return g->since_ns != 0;
}

/* Answers are sized from the packets seen: call for every data packet. */
static inline void gap_note_count(struct gw_gap *g, uint16_t count)
{
	if (count > g->per_req && count <= GAP_REQ_MAX)
		g->per_req = count;
}

/*
 * A packet (data, end of session or heartbeat) beyond @next, the next
 * expected number.  Held unless it is a heartbeat or the area is full.
 * @established: the session has shown itself (feed_established()).
 * @answer: it came from the re-request server (may use the reserve).
 */
void gap_ahead(struct gw_gap *g, const uint8_t *pkt, size_t len,
	       const struct mold_header *h, uint64_t next, uint64_t t_hook,
	       uint64_t now, bool established, bool answer);

/*
 * Take back the held packet with the smallest sequence number if it is
 * decodable now (seq <= next, or any once stale; with no_recovery, one
 * beyond next that waited line_wait for the other line: its hole is given
 * up).  Its bytes stay valid until the next gap_ahead().
 */
bool gap_pop(struct gw_gap *g, uint64_t next, uint64_t now, const uint8_t **pkt,
	     size_t *len, uint64_t *t_hook);

/*
 * no_recovery, nothing held: the messages from @next that a heartbeat or an
 * end of session announced are given up once they waited line_wait (the
 * episode closes).  True when it did.
 */
bool gap_give_up_tail(struct gw_gap *g, uint64_t next, uint64_t now);

/* After decoding: end the recovery when nothing is missing any more. */
void gap_settle(struct gw_gap *g, uint64_t next, uint64_t now);

/*
 * When a retransmitted message should have arrived: when its loss was seen
 * (the arrival of the first packet held after it).
 */
static inline uint64_t gap_due(const struct gw_gap *g)
{
	return g->n_held ? g->t_hook[g->sorted[g->lo]] : g->high_ns;
}

/*
 * The next re-request to send now, [*seq, *seq + *count): call until false.
 * Also where the timeout makes the session stale.
 */
bool gap_request(struct gw_gap *g, uint64_t next, uint64_t now, uint64_t *seq,
		 uint16_t *count);

#endif /* GATEWAY_GAP_H */
