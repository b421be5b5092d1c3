/* SPDX-License-Identifier: MIT */
/*
 * MoldUDP64 / ITCH 5.0 feed decoder (contract: docs/wire.md).
 *
 * feed_decode() takes one UDP payload and, straight from its bytes:
 *  - tracks the session's sequence numbers (in order, gap, duplicate or old,
 *    partial overlap, heartbeat, end of session) and reports the outcome in
 *    feed_last(), with every case counted in struct feed_counters;
 *  - applies every in-sequence message to the order book (book/book.h)
 *    and appends its print, if any, to the tick ring: the execution tape
 *    (E at the resting order's price, printable C, P, Q with shares);
 *    without a book, only 'P' prints;
 *  - maps locate -> symbol from 'R' (stock directory), tracks 'S';
 *  - counts every well-formed message by type; skips what is not by its
 *    block length, counted by class.
 *
 * It is two steps, which a receiver with its own gap policy calls apart:
 * feed_classify() parses the MoldUDP64 header once, decides which session
 * the packet belongs to and where it falls against the next expected
 * number; feed_decode_at() decodes a packet classified as decodable.
 *
 * Which session is the feed's is decided by evidence, not by whichever
 * packet came first (junk before the exchange's first packet must not take
 * the day over):
 *  - with a pinned session id (config), only that id is ever accepted;
 *  - otherwise a session is adopted only from a well-formed data packet
 *    (every block parses and has its type's length: mold_check.h), or,
 *    while there is none, from FEED_CHALLENGE_RUN heartbeats (or ends of
 *    session) of one id announcing the same number: after the day's last
 *    data packet nothing else arrives, and a late joiner must still catch
 *    the day up from 1;
 *  - a new id replaces the current session when the current one has
 *    ended (end of session), or when it is not yet established (fewer than
 *    FEED_ESTABLISHED in-order data packets decoded) while the new id shows
 *    FEED_CHALLENGE_RUN well-formed data packets in sequence;
 *  - everything else of another id is dropped and counted (other_session).
 * An end of session is accepted only at or beyond the next expected number;
 * an older one is counted (stale_end) and ignored.
 *
 * Malformed input never reads past @len: each class is a named counter and
 * the decoder carries on with the next packet.  The sequence number advances
 * only past blocks that could be read, so messages lost to a truncated or
 * short-counted packet show up as a gap on the next packet.
 *
 * Hot path: no allocation, no syscalls, no locks.  All memory (tick ring,
 * stock directory) is allocated by feed_decoder_init().
 */
#ifndef BOOK_FEED_DECODER_H
#define BOOK_FEED_DECODER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/moldudp64.h"
#include "book/stock_dir.h"
#include "book/tick_ring.h"

enum feed_seq_kind {
	FEED_SEQ_IN_ORDER,	/* first message is the next expected */
	FEED_SEQ_GAP,		/* messages [gap_first, +gap_count) never seen */
	FEED_SEQ_OVERLAP,	/* starts before next expected: old part skipped */
	FEED_SEQ_DUPLICATE,	/* entirely old: dropped */
	FEED_SEQ_HEARTBEAT,	/* count 0 (gap_count > 0 if it revealed one) */
	FEED_SEQ_END_OF_SESSION,/* count 0xFFFF (gap likewise) */
	FEED_SEQ_AFTER_END,	/* data in a session that already ended: dropped */
	FEED_SEQ_MALFORMED,	/* shorter than the MoldUDP64 header: dropped */
	FEED_SEQ_FOREIGN,	/* not the feed's session (or none known yet): dropped */
	FEED_SEQ_STALE_END,	/* end of session behind next expected: ignored */
};

/* What a receiver does with a packet (feed_classify()). */
enum feed_verdict {
	FEED_V_DECODE,	/* at or before the next expected number: decode it */
	FEED_V_AHEAD,	/* beyond it: messages are missing before this one */
	FEED_V_DROP,	/* short, another session's, or before any session */
};

#define FEED_ESTABLISHED	2	/* in-order data packets: session established */
#define FEED_CHALLENGE_RUN	2	/* in-sequence packets a new id must show */

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
	uint64_t other_session;		/* packets of another session: dropped */
	uint64_t stale_end;		/* end of session behind next expected */
	/* messages */
	uint64_t msgs;			/* in-sequence messages walked */
	uint64_t ticks;			/* prints appended to the ring */
	uint64_t stock_directory;	/* 'R' applied */
	uint64_t system_events;		/* 'S' seen */
	uint64_t dir_full;		/* 'R' not indexed: reverse hash full */
	uint64_t by_type[256];		/* well-formed in-sequence messages, per type */
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

/*
 * A receiver that trades message by message is called inside the walk
 * instead of after the packet:
 *  - on_print(ctx, ts) after each print was appended to the ring (its
 *    head includes it), ts the print's timestamp: a live gateway decides
 *    and sends there, so that a print's order does not wait for the rest
 *    of its packet;
 *  - on_due(ctx, ts), optional, before a message whose timestamp ts is
 *    beyond d->due, which the receiver keeps (UINT64_MAX: nothing due),
 *    the message not applied yet: a paper run's fills, decided between
 *    two messages of a packet (docs/paper.md).
 * on_print NULL: the packet is walked whole, the ring read after it.
 */
typedef void (*feed_step_cb)(void *ctx, uint64_t ts);

struct book;

struct feed_decoder_config {
	uint32_t ring_capacity;		/* power of two */
	struct book *book;		/* the book the messages go into; NULL: only P prints */
	const char *session;		/* pinned session id, or NULL: by evidence */
	feed_symbol_cb on_symbol;	/* optional: called for each 'R' */
	feed_step_cb on_print;		/* optional: see above */
	feed_step_cb on_due;		/* optional, with on_print */
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
	bool pinned;			/* session fixed by the config */
	bool ended;
	uint32_t in_order_pkts;		/* of this session, up to FEED_ESTABLISHED */
	/* another id that may replace an unestablished session */
	char cand[MOLD_SESSION_LEN];
	uint64_t cand_next;
	uint32_t cand_run;
	char system_event;		/* last 'S' event code, 0 before any */
	struct book *book;
	feed_symbol_cb on_symbol;
	feed_step_cb on_print, on_due;
	bool stepped;			/* on_print is set */
	uint64_t due;			/* on_due before a message beyond it */
	void *cb_ctx;
};

/* Returns 0, -EINVAL (bad ring capacity or on_due without on_print) or -ENOMEM. */
int feed_decoder_init(struct feed_decoder *d,
		      const struct feed_decoder_config *cfg);
void feed_decoder_destroy(struct feed_decoder *d);

/*
 * Trade at each print from now on (on_print, with the config's cb_ctx), or
 * after each packet again (NULL); on_due stays as configured.
 */
static inline void feed_set_on_print(struct feed_decoder *d, feed_step_cb on_print)
{
	d->on_print = on_print;
	d->stepped = on_print != NULL;
}

/*
 * Back to the state after init (no session, counters zero, ring empty,
 * directory empty) without freeing or allocating: O(1) apart from zeroing
 * the counters.
 */
void feed_decoder_reset(struct feed_decoder *d);

/*
 * Parse the header into @h, settle the session (adopting or switching as
 * the rules above say) and place the packet against the next expected
 * number.  Counts short and foreign packets; feed_last() is reset here.
 */
enum feed_verdict feed_classify(struct feed_decoder *d, const uint8_t *pkt,
				size_t len, struct mold_header *h);

/*
 * Decode a packet feed_classify() did not drop, with its parsed header.
 * Returns the number of ticks appended to d->ring:
 * [d->ring.head - n, d->ring.head).
 */
uint32_t feed_decode_at(struct feed_decoder *d, const uint8_t *pkt, size_t len,
			const struct mold_header *h, uint64_t arrival_ns);

/*
 * Both steps, for a receiver without a gap policy: a packet beyond the next
 * expected number is decoded at once (the gap is counted and skipped).
 */
uint32_t feed_decode(struct feed_decoder *d, const uint8_t *pkt, size_t len,
		     uint64_t arrival_ns);

/* An established session: its in-order data packets have been seen. */
static inline bool feed_established(const struct feed_decoder *d)
{
	return d->in_order_pkts >= FEED_ESTABLISHED;
}

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

#endif /* BOOK_FEED_DECODER_H */
