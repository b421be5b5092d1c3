/* SPDX-License-Identifier: MIT */
/*
 * The feed publisher: one MoldUDP64 session over one connected UDP socket.
 *
 * The messages come from a source (unit.h: the GBM ticks, the generated
 * day, a replayed day file) in units, each with its intended send time.
 * Units are staged ahead of time: while the simulator waits for the next
 * send time, the next packet is already built (up to the MTU budget or
 * --max-per-packet units).  At send time the caller asks how many staged
 * units are due; feed_send_units() then writes the header's count, stamps
 * the CLOCK_MONOTONIC time into the 48-bit ITCH timestamp of each message
 * (live sources; a replay keeps the day's timestamps) and makes one send()
 * call.  The units that were not due move to the front of the next packet
 * (feed_consume()).
 *
 * For every sequence number the actual send time and the intended one are
 * kept in preallocated arrays, so an order token's sequence number finds
 * its message's send time in O(1): for every number of a live run, for the
 * last --window numbers of a replay.  Every published message is also kept
 * as sent (store.h) for the re-request server, handed to the publish hook
 * (the fill model's view of the market), and every data packet passes the
 * fault injector (faults.h) on its way out: "published" means assigned a
 * sequence number, stamped, stored, recorded and seen by the hook, whether
 * or not the packet then left.
 */
#ifndef NETNS_EXSIM_FEED_H
#define NETNS_EXSIM_FEED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "latency/hdr.h"
#include "netns/exsim/exsim.h"
#include "netns/exsim/faults.h"
#include "netns/exsim/line_b.h"
#include "netns/exsim/store.h"
#include "netns/exsim/unit.h"
#include "proto/itch.h"
#include "proto/moldudp64.h"

#define FEED_MAX_UNITS	64	/* per packet; the MTU allows 31 trades */
#define FEED_MAX_MSGS	128	/* per packet; the MTU allows 103 of the smallest */
#define FEED_SEND_TRIES	1000	/* send() attempts on ENOBUFS/EAGAIN */
#define FEED_RECORD_RESERVE (UINT64_C(1) << 26)	/* prints a replay's record holds */

/* A staged unit. */
struct feed_slot {
	uint64_t index;		/* unit number */
	uint64_t intended;	/* schedule; 0 when unpaced, until sent */
	uint16_t end_len;	/* packet length through this unit */
	uint16_t end_msgs;	/* packet messages through this unit */
};

/* A published 'P' trade, for the record file. */
struct print_rec {
	uint64_t seq;
	uint64_t send_ns;
	uint32_t price;
	uint32_t shares;
	uint16_t locate;
	char stock[ITCH_SYMBOL_LEN];
};

struct feed_stats {
	uint64_t packets;	/* every datagram sent (duplicates too) */
	uint64_t data_packets;	/* published, dropped ones too */
	uint64_t heartbeats;
	uint64_t end_of_session;
	uint64_t bytes;		/* UDP payload bytes */
	uint64_t messages;
	uint64_t by_type[256];
	uint64_t send_errors;	/* datagrams given up (a gap for receivers) */
	uint64_t send_retries;	/* ENOBUFS/EAGAIN/EINTR retried */
	uint16_t max_msgs;	/* most messages in one packet */
	uint16_t max_units;	/* most units in one packet */
};

/* Sees every published message, in order, after its packet was sent. */
typedef void (*feed_hook_fn)(void *ctx, uint64_t seq, const uint8_t *m, uint16_t len);

struct feed {
	int fd;
	char session[MOLD_SESSION_LEN];
	bool stamp;		/* write the send time into the ITCH timestamps */
	bool stamp_mono;	/* ... as CLOCK_MONOTONIC, else as the time of day */
	int64_t rt_offset;	/* CLOCK_REALTIME - CLOCK_MONOTONIC */

	/* the source and its schedule: unit u is due at t0 + u.offset_ns */
	feed_next_fn next;
	void *src;
	int src_state;		/* 1 more to come, 0 part over, -1 source error */
	bool paced;		/* false: as fast as possible */
	uint64_t t0;

	/* the staged packet */
	uint8_t pkt[MOLD_MTU_BUDGET];
	struct mold_builder b;
	uint64_t first_seq;	/* its first message = next to publish */
	uint16_t msg_off[FEED_MAX_MSGS];
	struct feed_slot unit[FEED_MAX_UNITS];
	unsigned int nunits;
	unsigned int max_units;

	/* a unit from the source that did not fit the staged packet */
	bool pending;
	struct feed_unit pend;
	uint64_t generated;	/* units taken from the source */

	/* per sequence number, preallocated: [seq % seq_win] */
	uint64_t *seq_send;	/* CLOCK_MONOTONIC ns, 0 = not sent */
	uint64_t *seq_intended;
	uint64_t seq_cap;	/* seqs 1 .. seq_cap - 1 can be published */
	uint64_t seq_win;	/* send times kept for the last seq_win numbers */
	uint64_t units_sent;	/* units sent on the schedule */

	/* --record: every 'P' published */
	struct print_rec *rec;
	uint64_t rec_cap, rec_n, rec_dropped;

	feed_hook_fn hook;
	void *hook_ctx;

	struct msg_store store;	/* every published message (if enabled) */
	struct faults fx;	/* line A's */
	struct line_b lb;	/* line B: the same packets, its own faults */
	struct delayq adq;	/* line A's delay (--delay-us); q NULL: none */

	uint64_t last_send_ns;	/* of the last datagram, for heartbeats */
	struct hdr_hist send_ns;	/* duration of the send() call */
	struct feed_stats st;
};

/* What feed_open() sizes. */
struct feed_plan {
	uint64_t seq_cap;	/* sequence numbers the run can use, + 1; UINT64_MAX: no end */
	uint64_t seq_win;	/* send times and messages kept (a live run: seq_cap) */
	size_t store_bytes;	/* the store's ring; 0: no store */
	uint64_t record_cap;	/* 'P' rows --record keeps; 0: no record */
};

/*
 * Open the socket (connected to the feed destination, so a missing route
 * shows here) and allocate the logs.  Returns 0, or -1 with a message in
 * @err.
 */
int feed_open(struct feed *f, const struct exsim_cfg *c, const struct feed_plan *p,
	      char *err, size_t errlen);
void feed_close(struct feed *f);

/* Where the units come from; @stamp: overwrite the ITCH timestamps. */
void feed_set_source(struct feed *f, feed_next_fn next, void *src, bool paced, bool stamp);

/* Every published message goes to @hook too. */
void feed_set_hook(struct feed *f, feed_hook_fn hook, void *ctx);

/* Start the schedule at @t0 (the intended time of offset 0). */
void feed_start_schedule(struct feed *f, uint64_t t0);

/* The source's next part: staging goes on after a part ended. */
static inline void feed_next_part(struct feed *f)
{
	if (f->src_state == 0)
		f->src_state = 1;
}

/* Stage units until the packet is full or the source's part ends. */
void feed_stage(struct feed *f);

/* Intended time of the first staged unit (call only when nunits > 0). */
static inline uint64_t feed_next_due(const struct feed *f)
{
	return f->unit[0].intended;
}

/* How many staged units are due at @now (all of them when unpaced). */
unsigned int feed_due(const struct feed *f, uint64_t now);

/*
 * Publish the first @k staged units (1 <= k <= nunits) in one packet.
 * Returns the send time; f->unit[0..k-1] describe them (intended set) until
 * feed_consume(f, k).
 */
uint64_t feed_send_units(struct feed *f, unsigned int k);
void feed_consume(struct feed *f, unsigned int k);

/* Drop staged, unsent units (the run ended before they were due). */
void feed_discard(struct feed *f);

/*
 * Publish the source's current part at once, packed (the opening and the
 * close of a day).  Returns 0, or -1 when the source failed.
 */
int feed_publish_part(struct feed *f);

/*
 * Publish non-unit messages now (system events, directory), packed.
 * Nothing may be staged.  Returns 0 or -1 if the seq log is full.
 */
int feed_send_msgs(struct feed *f, const struct itch_msg *m, unsigned int n);

/* Heartbeat and end of session send a held (reordered) packet first. */
void feed_heartbeat(struct feed *f);
void feed_end_of_session(struct feed *f);

/* Next sequence number to publish. */
static inline uint64_t feed_next_seq(const struct feed *f)
{
	return f->first_seq;
}

/*
 * The send and intended times of published message @seq, while its
 * number is within the window.  Returns false when unknown.
 */
static inline bool feed_send_time(const struct feed *f, uint64_t seq,
				  uint64_t *sent, uint64_t *intended)
{
	uint64_t i = seq % f->seq_win;

	if (seq == 0 || seq >= f->first_seq || f->first_seq - seq > f->seq_win ||
	    !f->seq_send[i])
		return false;
	*sent = f->seq_send[i];
	*intended = f->seq_intended[i];
	return true;
}

/* Line A's delayed packets and line B's copies that are due by @now (all). */
static inline void feed_flush_lines(struct feed *f, uint64_t now, bool all)
{
	delayq_flush(&f->adq, now, all);
	line_b_flush(&f->lb, now, all);
}

/* When the next delayed packet of either line is due; UINT64_MAX: none. */
static inline uint64_t feed_lines_due(const struct feed *f)
{
	uint64_t a = delayq_due(&f->adq), b = line_b_due(&f->lb);

	return a < b ? a : b;
}

#endif /* NETNS_EXSIM_FEED_H */
