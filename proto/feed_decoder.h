/* SPDX-License-Identifier: MIT */
/*
 * MoldUDP64 / ITCH 5.0 feed decoder (contract: shared/spec/wire.md).
 *
 * feed_decode() takes one UDP payload and, straight from its bytes:
 *  - tracks the session's sequence numbers (in order, gap, duplicate or old,
 *    partial overlap, heartbeat, end of session) and reports the outcome in
 *    feed_last(), with every case counted in struct feed_counters;
 *  - appends every in-sequence 'P' (trade) to the tick ring;
 *  - maps locate -> symbol from 'R' (stock directory), tracks 'S';
 *  - skips every other message by its block length, counting it by type.
 *
 * Malformed input never reads past @len: each class is a named counter and
 * the decoder carries on with the next packet.  The sequence number advances
 * only past blocks that could be read, so messages lost to a truncated or
 * short-counted packet show up as a gap on the next packet.
 *
 * Hot path: no allocation, no syscalls, no locks.  All memory (tick ring,
 * stock directory) is allocated by feed_decoder_init().
 */
#ifndef PROTO_FEED_DECODER_H
#define PROTO_FEED_DECODER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/moldudp64.h"
#include "proto/stock_dir.h"
#include "proto/tick_ring.h"

enum feed_seq_kind {
	FEED_SEQ_IN_ORDER,	/* first message is the next expected */
	FEED_SEQ_GAP,		/* messages [gap_first, +gap_count) never seen */
	FEED_SEQ_OVERLAP,	/* starts before next expected: old part skipped */
	FEED_SEQ_DUPLICATE,	/* entirely old: dropped */
	FEED_SEQ_HEARTBEAT,	/* count 0 (gap_count > 0 if it revealed one) */
	FEED_SEQ_END_OF_SESSION,/* count 0xFFFF (gap likewise) */
	FEED_SEQ_AFTER_END,	/* data in a session that already ended: dropped */
	FEED_SEQ_MALFORMED,	/* shorter than the MoldUDP64 header: dropped */
};

struct feed_result {
	enum feed_seq_kind kind;
	uint64_t seq;		/* header sequence number */
	uint16_t count;		/* header message count */
	uint64_t gap_first;	/* first missing sequence number ... */
	uint64_t gap_count;	/* ... and how many; 0 when no gap */
	uint32_t ticks;		/* ticks appended (also the return value) */
	bool new_session;	/* session id differed from the previous one */
	bool malformed;		/* a malformed counter moved in this packet */
};

struct feed_counters {
	/* packets and sequencing */
	uint64_t packets;
	uint64_t in_order;		/* data packets exactly in sequence */
	uint64_t gaps;			/* packets revealing a gap */
	uint64_t gap_msgs;		/* messages missing across all gaps */
	uint64_t overlaps;		/* packets partly old */
	uint64_t duplicates;		/* packets entirely old, dropped */
	uint64_t dup_msgs;		/* old messages skipped (both cases) */
	uint64_t heartbeats;
	uint64_t stale_heartbeats;	/* heartbeat behind next expected */
	uint64_t end_of_session;	/* first end-of-session per session */
	uint64_t end_repeats;		/* repeated end-of-session packets */
	uint64_t after_end;		/* data packets after end of session */
	uint64_t session_changes;	/* switch to a new session id */
	/* messages */
	uint64_t msgs;			/* in-sequence messages walked */
	uint64_t ticks;			/* 'P' appended to the ring */
	uint64_t stock_directory;	/* 'R' applied */
	uint64_t system_events;		/* 'S' seen */
	uint64_t dir_full;		/* 'R' not indexed: reverse hash full */
	uint64_t skipped_by_type[256];	/* valid messages not used, per type
					   (unknown types too) */
	/* malformed, one counter per class */
	uint64_t short_packet;		/* < 20-byte MoldUDP64 header */
	uint64_t block_overrun;		/* block length runs past the packet */
	uint64_t count_too_high;	/* packet ends before Message Count blocks */
	uint64_t count_too_low;		/* bytes left after Message Count blocks
					   (or after a heartbeat/end header) */
	uint64_t zero_length_block;	/* block length 0: skipped */
	uint64_t bad_length;		/* length != the type's fixed length: skipped */
	uint64_t unknown_type;		/* not an ITCH 5.0 type: skipped */
	uint64_t lost_msgs;		/* messages of the header never readable
					   (overrun or count too high) */
};

typedef void (*feed_symbol_cb)(void *ctx, uint16_t locate,
			       const char symbol[8]);

struct feed_decoder_config {
	uint32_t ring_capacity;		/* power of two */
	feed_symbol_cb on_symbol;	/* optional: called for each 'R' */
	void *cb_ctx;
};

struct feed_decoder {
	struct tick_ring ring;
	struct feed_counters cnt;
	struct feed_result last;
	struct stock_dir dir;
	uint64_t next_seq;		/* next expected sequence number */
	char session[MOLD_SESSION_LEN];
	bool have_session;
	bool ended;
	char system_event;		/* last 'S' event code, 0 before any */
	feed_symbol_cb on_symbol;
	void *cb_ctx;
};

/* Returns 0, -EINVAL (bad ring capacity) or -ENOMEM. */
int feed_decoder_init(struct feed_decoder *d,
		      const struct feed_decoder_config *cfg);
void feed_decoder_destroy(struct feed_decoder *d);

/*
 * Back to the state after init (no session, counters zero, ring empty,
 * directory empty) without freeing or allocating: O(1) apart from zeroing
 * the counters.
 */
void feed_decoder_reset(struct feed_decoder *d);

/*
 * Decode one MoldUDP64 packet received at @arrival_ns.  Returns the number
 * of ticks appended to d->ring: [d->ring.head - n, d->ring.head).
 */
uint32_t feed_decode(struct feed_decoder *d, const uint8_t *pkt, size_t len,
		     uint64_t arrival_ns);

static inline const struct feed_result *feed_last(const struct feed_decoder *d)
{
	return &d->last;
}

static inline uint64_t feed_next_seq(const struct feed_decoder *d)
{
	return d->next_seq;
}

/* Locate of a symbol given as a C string ("AAPL"), or -1 if not mapped. */
static inline int feed_locate_of(const struct feed_decoder *d, const char *name)
{
	return stock_dir_locate_str(&d->dir, name);
}

/* The 8 space-padded symbol bytes of @locate, or NULL. */
static inline const char *feed_symbol_of(const struct feed_decoder *d,
					 uint16_t locate)
{
	return stock_dir_symbol(&d->dir, locate);
}

#endif /* PROTO_FEED_DECODER_H */
