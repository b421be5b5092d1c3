/* SPDX-License-Identifier: MIT */
/*
 * One MoldUDP64 session's messages in sequence order, each once, from its
 * packets in the order a capture has them: with copies (two lines, a
 * sender's duplicates, re-request answers), out of order, with heartbeats
 * and ends of session in between, and other sessions' packets beside.
 * What t2t-pcap makes a day file of: message n of the result is sequence
 * number n, so a backtest runs on exactly the messages that were on the
 * wire.
 *
 * A packet that starts beyond the next number wanted is held (a copy, in
 * a heap by first number) until the hole before it fills; at the end a
 * hole still open is reported, never papered over.  The session is the
 * one given, or else the first whose data packet is well formed as the
 * gateway's decoder adopts one (proto/mold_check.h).  Within the session
 * a packet is taken when its framing holds (its count of blocks fills it
 * exactly, from a sequence number of 1 or more): the blocks' contents are
 * passed on as they are, malformed ITCH included, since the point is to
 * reproduce the wire.  A packet whose framing does not hold is counted
 * and dropped whole; its messages are a hole unless a copy brings them.
 * An end of session fixes the last number: messages beyond it are
 * counted, not passed on.
 */
#ifndef PROTO_MOLD_MERGE_H
#define PROTO_MOLD_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/moldudp64.h"

/* Bytes of packets held ahead of a hole, by default. */
#define MOLD_MERGE_HOLD_DEFAULT	(1ull << 30)

/* Where the messages go, in order; nonzero stops the merge with that value. */
typedef int (*mold_merge_emit_fn)(void *ctx, uint64_t seq, const uint8_t *msg, uint16_t len);

struct mold_merge_cfg {
	char session[MOLD_SESSION_LEN];
	bool pinned;		/* take only @session, else adopt the first */
	uint64_t max_held;	/* bytes; 0: MOLD_MERGE_HOLD_DEFAULT */
	mold_merge_emit_fn emit;
	void *ctx;
};

struct mold_merge_counters {
	uint64_t packets;	/* given to mold_merge_packet() */
	uint64_t data;		/* the session's data packets taken */
	uint64_t heartbeats;	/* the session's */
	uint64_t ends;		/* the session's ends of session, copies included */
	uint64_t other_session;	/* packets of another session (or before one was adopted) */
	uint64_t malformed;	/* the session's packets whose framing does not hold */
	uint64_t dup_msgs;	/* messages had already */
	uint64_t dup_packets;	/* data packets that brought nothing new */
	uint64_t held;		/* packets that arrived ahead of a hole */
	uint64_t held_bytes_max;
	uint64_t after_end;	/* messages beyond the end of session's number */
	uint64_t msgs;		/* passed on */
};

/* A packet held ahead of a hole. */
struct mold_merge_held {
	uint64_t first;		/* its first sequence number */
	uint64_t tag;		/* the caller's name for it (a record number) */
	uint8_t *pkt;
	uint32_t len;
};

struct mold_merge {
	struct mold_merge_cfg cfg;
	bool adopted;
	uint64_t next;		/* the next sequence number to pass on */
	uint64_t last_seen;	/* the highest sequence number any data packet carried */
	uint64_t announced;	/* the highest next number a heartbeat or end said */
	uint64_t end_next;	/* the end of session's next number; 0: none seen */
	struct mold_merge_held *heap;
	size_t nheld, cap;
	uint64_t held_bytes;
	struct mold_merge_counters cnt;
};

/* The first hole: @count numbers from @first are missing. */
struct mold_merge_hole {
	uint64_t first, count;
	bool before_held;	/* a held packet follows it (@held_first, @held_tag) */
	uint64_t held_first, held_tag;
	bool said_by_end;	/* the tail: an end of session (else a heartbeat) named it */
};

void mold_merge_init(struct mold_merge *m, const struct mold_merge_cfg *cfg);
void mold_merge_free(struct mold_merge *m);

/*
 * One UDP payload, @tag naming it in a hole's report.  Returns 0 (taken,
 * held, or counted and dropped), the emit function's nonzero value,
 * -ENOMEM, or -ENOBUFS when holding it would pass max_held (the hole
 * before it is then mold_merge_finish()'s).
 */
int mold_merge_packet(struct mold_merge *m, const uint8_t *pkt, size_t len, uint64_t tag);

/*
 * After the last packet: 0 when every number up to the last one the
 * capture shows (or an end of session named) was passed on, 1 with @h set
 * when some are missing.  Packets still held beyond an end of session
 * that came after them are counted after_end and let go.
 */
int mold_merge_finish(struct mold_merge *m, struct mold_merge_hole *h);

#endif /* PROTO_MOLD_MERGE_H */
