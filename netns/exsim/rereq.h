/* SPDX-License-Identifier: MIT */
/*
 * The MoldUDP64 re-request server: a UDP socket on --rerequest-port (default
 * 26403, 0 = off) at the order port's address, served from the simulator's
 * one loop without blocking, like the order port.
 *
 * A request is the spec's 20 bytes: Session (10), Sequence Number (8, the
 * first message wanted), Requested Message Count (2).  The answer is one
 * ordinary MoldUDP64 downstream packet of the feed's session, as real
 * re-request servers send, from this port to the request's source address
 * and port, carrying messages [seq, seq + n) exactly as they were published
 * (same bytes, the original ITCH timestamps included), packed up to the
 * 1472-byte MTU budget: n is what fits, and the client asks again for the
 * rest.  With --rerequest-answer all, every requested message is sent, in
 * as many packets as it takes.  Every published message can be asked for, those
 * --drop-rate never sent included, until the simulator exits (after
 * --linger, end of session and --grace).
 *
 *   n = min(count, --rerequest-max (2000), published - seq + 1,
 *           what one packet holds (unless --rerequest-answer all))
 *
 * A request answered with nothing is counted by reason:
 *   malformed      not exactly 20 bytes
 *   wrong_session  another session id
 *   zero_count     count 0
 *   bad_seq        sequence number 0
 *   future         not published yet (seq >= next sequence number)
 *   beyond_store   past anything this run can ever publish
 *   expired        published, but older than the store's window (a
 *                  replay keeps the last --window messages only)
 *   rate_limited   the token bucket holds fewer than n messages
 * A request reaching past the last published message is served up to it
 * (counted truncated); one above the cap is served up to the cap
 * (clipped).  A client re-requests what is still missing.
 *
 * Rate limit: a token bucket in messages, --rerequest-rate per second
 * (default 100,000; 0 = none), holding at most --rerequest-burst (default
 * 10,000, at least the per-request cap); a request takes n tokens or is
 * refused whole.  At most REREQ_PER_POLL requests are read per poll, so
 * orders and the feed's schedule keep their turn.
 */
#ifndef NETNS_EXSIM_REREQ_H
#define NETNS_EXSIM_REREQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "netns/exsim/exsim.h"
#include "netns/exsim/feed.h"

#define REREQ_PER_POLL	16
#define REREQ_RX_LEN	64

struct rereq_stats {
	uint64_t datagrams;	/* requests received, good or bad */
	uint64_t served;	/* requests answered */
	uint64_t messages;	/* messages resent */
	uint64_t packets;	/* answer packets sent */
	uint64_t bytes;
	uint64_t truncated;	/* served only up to the last published */
	uint64_t clipped;	/* served only up to the per-request cap */
	uint64_t refused;	/* sum of the reasons below */
	uint64_t malformed;
	uint64_t wrong_session;
	uint64_t zero_count;
	uint64_t bad_seq;
	uint64_t future;
	uint64_t beyond_store;
	uint64_t rate_limited;
	uint64_t expired;	/* no longer kept (a replay keeps --window) */
	uint64_t send_errors;	/* answer packets given up */
};

struct rereq {
	int fd;			/* -1: off */
	const struct feed *feed;
	uint16_t port;
	uint32_t max_count;
	bool one_packet;	/* answer with one packet (what real servers do) */
	double rate;		/* tokens (messages) per ns; 0: unlimited */
	double burst;
	double tokens;
	uint64_t refill_ns;	/* time of the last refill */
	struct rereq_stats st;
	uint8_t rx[REREQ_RX_LEN];
	uint8_t tx[MOLD_MTU_BUDGET];
};

/* Bind the port (nothing with --rerequest-port 0).  0, or -1 and @err. */
int rereq_open(struct rereq *q, const struct exsim_cfg *c, const struct feed *f,
	       char *err, size_t errlen);
void rereq_close(struct rereq *q);

/* Serve up to @max waiting requests without blocking; returns how many. */
unsigned int rereq_poll(struct rereq *q, unsigned int max);

#endif /* NETNS_EXSIM_REREQ_H */
