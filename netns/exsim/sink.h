/* SPDX-License-Identifier: MIT */
/*
 * The order sink: OUCH 4.2 Enter Orders from the SoupBinTCP session
 * (soup_server.h: the payloads of 'U' packets), answered by the paper-fill
 * model (fill.h) with sequenced replies, and the wire-to-wire figures.
 *
 * Arrival is stamped twice: by the kernel when the order's segment was
 * received (SO_TIMESTAMPNS, as soup_server.h reads it) and by
 * CLOCK_MONOTONIC right after the read.  The order token names the
 * market-data message that triggered the order, so
 *   wire-to-wire          = kernel arrival - send time of that message
 *   wire_to_wire_user     = user arrival   - send time of that message
 *   wire_to_wire_intended = kernel arrival - intended send time
 * (the last one charges the feed's own lateness to the measurement, so a
 * stalled publisher cannot hide latency: coordinated omission).
 *
 * OUCH's rules on top of the session's:
 *   - an Enter Order whose token the session has seen is ignored: no
 *     reply, counted (dup_tokens); a client resending an order it is
 *     unsure of after a reconnection relies on it;
 *   - a payload that is not a valid Enter Order is answered with Rejected
 *     'O' when its token can be read (message type 'O', at least 15
 *     bytes), else counted and dropped;
 *   - after End of Session nothing more is sequenced: an order then gets
 *     no reply (counted, after_end).
 * Every reply is a sequenced message of the account's session, kept for
 * replays, made whether or not the account has a connection up.
 */
#ifndef NETNS_EXSIM_SINK_H
#define NETNS_EXSIM_SINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "latency/hdr.h"
#include "netns/exsim/exsim.h"
#include "netns/exsim/feed.h"
#include "netns/exsim/fill.h"
#include "netns/exsim/soup_server.h"
#include "netns/exsim/tokens.h"
#include "proto/order_token.h"

#define SINK_LOG_CAP	(1u << 20)	/* orders kept for --orders-log */

/* Outcome letters in the order log. */
#define SINK_EXECUTED	'E'
#define SINK_PARTIAL	'P'	/* executed in part, the rest canceled */
#define SINK_CANCELED	'C'
#define SINK_REJECTED	'J'
#define SINK_MALFORMED	'M'	/* not an Enter Order; rejected 'O' */

struct order_rec {
	char token[ORDER_TOKEN_LEN];
	char stock[ITCH_SYMBOL_LEN];
	char side;
	char outcome;
	char reason;		/* canceled / rejected */
	uint64_t md_seq;	/* 0: token did not name a published message */
	uint32_t shares;
	uint32_t price;
	uint32_t fill_price;	/* the average, rounded to the nearest */
	uint32_t filled;	/* shares executed */
	uint64_t fill_value;	/* sum of price x shares executed */
	uint64_t t_send;	/* send time of md_seq */
	uint64_t t_intended;	/* its intended send time */
	uint64_t t_ack;		/* when the first reply was made */
	uint64_t t_arrive;	/* kernel stamp, CLOCK_MONOTONIC */
	uint64_t t_arrive_user;
};

struct sink_stats {
	uint64_t packets;	/* Unsequenced Data packets */
	uint64_t orders;	/* decoded Enter Orders, duplicates left out */
	uint64_t dup_tokens;	/* Enter Orders with a token seen before: ignored */
	uint64_t tokens_full;	/* tokens not kept (table full): never found duplicate */
	uint64_t after_end;	/* after End of Session: ignored */
	uint64_t malformed;	/* not an Enter Order, token readable: rejected */
	uint64_t unreadable;	/* not an Enter Order, no token: dropped */
	uint64_t bad_token;	/* token bytes not base-32: no wire-to-wire */
	uint64_t unmatched;	/* token seq never published: no wire-to-wire */
	uint64_t clock_errors;	/* arrival before the send: left out, never clamped */
	uint64_t replies;	/* sequenced messages made (each once, however often sent) */
	uint64_t reply_errors;
	uint64_t log_dropped;	/* beyond SINK_LOG_CAP */
};

struct sink {
	struct soup_srv srv;
	bool stamp_mono;		/* reply Timestamps: CLOCK_MONOTONIC, else time of day */
	int64_t rt_offset;
	struct token_set tokens[SOUP_SRV_USERS];
	struct fill_book *book;
	const struct feed *feed;
	uint64_t order_ref;	/* last Order Reference Number given */
	uint64_t match;		/* last OUCH match number */
	struct hdr_hist w2w;
	struct hdr_hist w2w_user;
	struct hdr_hist w2w_intended;
	struct sink_stats st;
	struct order_rec *log;	/* NULL unless --orders-log */
	uint64_t log_n;
};

/* Before sink_open(): a sink that sink_close() may be called on. */
void sink_init_closed(struct sink *s);

/* Listen on the order port.  Returns 0, or -1 with a message in @err. */
int sink_open(struct sink *s, const struct exsim_cfg *c, struct fill_book *book,
	      const struct feed *feed, char *err, size_t errlen);
void sink_close(struct sink *s);

/* Serve what the connections have, at most @max events, without blocking. */
static inline unsigned int sink_poll(struct sink *s, unsigned int max, uint64_t now)
{
	return soup_srv_poll(&s->srv, max, now);
}

/* What the event loop waits on (POLLIN), and until when at most. */
static inline int sink_fd(const struct sink *s)
{
	return soup_srv_fd(&s->srv);
}

static inline uint64_t sink_next_due(const struct sink *s)
{
	return soup_srv_next_due(&s->srv);
}

/* The feed's session ended: End of Session on the order session too. */
static inline void sink_end(struct sink *s, uint64_t now)
{
	soup_srv_end(&s->srv, now);
}

#endif /* NETNS_EXSIM_SINK_H */
