/* SPDX-License-Identifier: MIT */
/*
 * The feed publisher: one MoldUDP64 session over one connected UDP socket.
 *
 * Ticks are staged ahead of time: while the simulator waits for the next send
 * time, the next packet is already encoded (up to the MTU budget or
 * --max-per-packet ticks), each tick with its noise messages and its intended
 * send time.  At send time the caller asks how many staged ticks are due;
 * feed_send_ticks() then only writes the header's count, stamps the
 * CLOCK_MONOTONIC time into the 48-bit ITCH timestamp of each message and
 * makes one send() call.  The ticks that were not due move to the front of
 * the next packet (feed_consume()).
 *
 * For every sequence number the actual send time (the stamp) and the
 * intended one are kept in preallocated arrays, so an order token's
 * sequence number finds its tick's send time in O(1).  Every published
 * message is also kept as sent (store.h) for the re-request server, and
 * every data packet passes the fault injector (faults.h) on its way out:
 * "published" means assigned a sequence number, stamped, stored and
 * recorded, whether or not the packet then left.
 */
#ifndef NETNS_EXSIM_FEED_H
#define NETNS_EXSIM_FEED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "latency/hdr.h"
#include "netns/exsim/exsim.h"
#include "netns/exsim/faults.h"
#include "netns/exsim/gen.h"
#include "netns/exsim/store.h"
#include "proto/itch.h"
#include "proto/moldudp64.h"

#define FEED_MAX_TICKS	64	/* per packet; the MTU allows 31 trades */
#define FEED_MAX_MSGS	128	/* per packet; the MTU allows 103 of the smallest */
#define FEED_SEND_TRIES	1000	/* send() attempts on ENOBUFS/EAGAIN */

/* A staged tick. */
struct feed_tick {
	uint64_t index;		/* tick number */
	uint64_t seq;		/* sequence number of its 'P' */
	uint64_t intended;	/* schedule; 0 at --rate 0 until sent */
	uint16_t end_len;	/* packet length through this tick */
	uint16_t end_msgs;	/* packet messages through this tick */
	uint16_t locate;
	uint32_t price;
	uint32_t shares;
};

/* A published tick, for the record file. */
struct tick_rec {
	uint64_t seq;
	uint32_t price;
	uint32_t shares;
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
	uint16_t max_ticks;	/* most ticks in one packet */
};

struct feed {
	int fd;
	char session[MOLD_SESSION_LEN];
	bool stamp_mono;	/* ITCH timestamps: CLOCK_MONOTONIC, else time of day */
	int64_t rt_offset;	/* CLOCK_REALTIME - CLOCK_MONOTONIC */

	/* schedule: tick k is due at t0 + floor(k / burst) * burst * period */
	double period_ns;	/* 0: as fast as possible */
	uint32_t burst;
	uint64_t t0;

	/* the staged packet */
	uint8_t pkt[MOLD_MTU_BUDGET];
	struct mold_builder b;
	uint64_t first_seq;	/* its first message = next to publish */
	uint16_t msg_off[FEED_MAX_MSGS];
	struct feed_tick tick[FEED_MAX_TICKS];
	unsigned int nticks;
	unsigned int max_ticks;

	/* a generated tick that did not fit the staged packet */
	bool pending;
	struct gen_tick pend_tick;
	struct itch_msg pend_msg[EXSIM_MAX_NOISE + 1];
	unsigned int pend_n;
	uint64_t generated;	/* ticks taken from the generator */

	/* logs, preallocated */
	uint64_t *seq_send;	/* [seq]: CLOCK_MONOTONIC ns, 0 = not sent */
	uint64_t *seq_intended;	/* [seq] */
	uint64_t seq_cap;	/* seqs 1 .. seq_cap - 1 */
	struct tick_rec *ticks;
	uint64_t tick_cap;
	uint64_t ticks_sent;

	struct msg_store store;	/* every published message (if enabled) */
	struct faults fx;

	uint64_t last_send_ns;	/* of the last datagram, for heartbeats */
	struct hdr_hist send_ns;	/* duration of the send() call */
	struct feed_stats st;
};

/*
 * Open the socket (connected to the feed destination, so a missing route
 * shows here) and allocate the logs for @tick_cap ticks (and the message
 * store when @store is set).  Returns 0, or -1 with a message in @err.
 */
int feed_open(struct feed *f, const struct exsim_cfg *c, uint64_t tick_cap,
	      bool store, char *err, size_t errlen);
void feed_close(struct feed *f);

/* Start the tick schedule at @t0 (the first tick's intended time). */
void feed_start_schedule(struct feed *f, uint64_t t0);

/* Stage ticks until the packet is full; never past tick number @total. */
void feed_stage(struct feed *f, struct gen *g, uint64_t total);

/* Intended time of the first staged tick (call only when nticks > 0). */
static inline uint64_t feed_next_due(const struct feed *f)
{
	return f->tick[0].intended;
}

/* How many staged ticks are due at @now (all of them at --rate 0). */
unsigned int feed_due(const struct feed *f, uint64_t now);

/*
 * Publish the first @k staged ticks (1 <= k <= nticks) in one packet.
 * Returns the send time; f->tick[0..k-1] describe them (intended set) until
 * feed_consume(f, k).
 */
uint64_t feed_send_ticks(struct feed *f, unsigned int k);
void feed_consume(struct feed *f, unsigned int k);

/* Drop staged, unsent ticks (the run ended before they were due). */
void feed_discard(struct feed *f);

/*
 * Publish non-tick messages now (system events, directory), packed.
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

#endif /* NETNS_EXSIM_FEED_H */
