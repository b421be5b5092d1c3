/* SPDX-License-Identifier: MIT */
/*
 * The order sink: an unconnected UDP socket taking OUCH 4.2 Enter Orders
 * from any client, answered by the paper-fill model (fill.h) with 'S'
 * datagrams to the order's source address.
 *
 * Arrival is stamped twice: by the kernel when the datagram was received
 * (SO_TIMESTAMPNS, CLOCK_REALTIME, moved to CLOCK_MONOTONIC by the age the
 * datagram had when read) and by CLOCK_MONOTONIC right after recvmsg().  The
 * order token names the market-data message that triggered the order, so
 *   wire-to-wire          = kernel arrival - send time of that message
 *   wire_to_wire_user     = user arrival   - send time of that message
 *   wire_to_wire_intended = kernel arrival - intended send time
 * (the last one charges the feed's own lateness to the measurement, so a
 * stalled publisher cannot hide latency: coordinated omission).
 *
 * A datagram that is not a valid Enter Order is answered with Rejected 'O'
 * when its token can be read (packet type 'U', message type 'O', at least
 * 18 bytes) and otherwise counted and dropped.
 *
 * Replies are numbered per client address (docs/wire.md, "Reply
 * recovery"): each goes out as 's' with its Reply Number and is kept, so
 * that a client's resend request ('r', First Reply Number, Count) is
 * answered with the replies it names, each in its own datagram as first
 * sent (those not sent yet or no longer kept are skipped).  --reply-numbers
 * off sends the spec's plain 'S' instead.  --reply-drop-rate P leaves that
 * fraction of replies (resends too) unsent, as a lossy network would.
 */
#ifndef NETNS_EXSIM_SINK_H
#define NETNS_EXSIM_SINK_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "latency/hdr.h"
#include "netns/exsim/exsim.h"
#include "netns/exsim/feed.h"
#include "netns/exsim/fill.h"
#include "proto/order_token.h"

#define SINK_LOG_CAP	(1u << 20)	/* orders kept for --orders-log */
#define SINK_RX_LEN	2048
#define SINK_CLIENTS	16		/* order clients with a reply stream */
#define SINK_REPLIES	(1u << 21)	/* replies kept per client for resends */
#define SINK_REPLY_SLOT	80		/* >= OUCH_REPLY_DGRAM_MAX */

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
	uint64_t t_ack;		/* first reply's timestamp */
	uint64_t t_arrive;	/* kernel stamp, CLOCK_MONOTONIC */
	uint64_t t_arrive_user;
};

struct sink_stats {
	uint64_t datagrams;
	uint64_t orders;	/* decoded Enter Orders */
	uint64_t malformed;	/* not an Enter Order, token readable: rejected */
	uint64_t unreadable;	/* not an Enter Order, no token: dropped */
	uint64_t truncated;	/* larger than SINK_RX_LEN (among the above) */
	uint64_t bad_token;	/* token bytes not base-32: no wire-to-wire */
	uint64_t unmatched;	/* token seq never published: no wire-to-wire */
	uint64_t no_kernel_ts;	/* user-space arrival used instead */
	uint64_t clock_errors;	/* arrival before the send: left out, never clamped */
	uint64_t replies;
	uint64_t reply_errors;
	uint64_t replies_dropped;	/* --reply-drop-rate */
	uint64_t resend_requests;
	uint64_t resend_bad;		/* malformed, or from an unknown client */
	uint64_t resent;		/* replies sent again */
	uint64_t too_many_clients;	/* replies beyond SINK_CLIENTS: unnumbered */
	uint64_t log_dropped;	/* beyond SINK_LOG_CAP */
};

/* One client's reply stream: every reply numbered and kept for resends. */
struct sink_client {
	struct sockaddr_in addr;
	uint64_t sent;			/* replies numbered so far */
	uint8_t (*reply)[SINK_REPLY_SLOT];	/* [number % SINK_REPLIES] */
	uint8_t *len;
};

struct sink {
	int fd;
	bool numbered;
	bool stamp_mono;		/* reply Timestamps: CLOCK_MONOTONIC, else time of day */
	int64_t rt_offset;
	uint64_t drop_thr;		/* P x 2^64: replies not sent */
	uint64_t rng;
	struct sink_client client[SINK_CLIENTS];
	unsigned int nclients;
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
	uint8_t rx[SINK_RX_LEN];
};

/* Bind the order port.  Returns 0, or -1 with a message in @err. */
int sink_open(struct sink *s, const struct exsim_cfg *c, struct fill_book *book,
	      const struct feed *feed, char *err, size_t errlen);
void sink_close(struct sink *s);

/* Serve the datagrams waiting, at most @max, without blocking; returns how many. */
unsigned int sink_poll(struct sink *s, unsigned int max);

#endif /* NETNS_EXSIM_SINK_H */
