/* SPDX-License-Identifier: MIT */
/*
 * A synthetic TotalView-ITCH 5.0 day, deterministic from a seed, written as
 * a BinaryFILE day file (plain or gzip) or handed out one message at a time
 * (for a simulator that publishes it).  Two shapes:
 *
 * DAYGEN_SHAPE_REAL (daygen_real.c; calibration and ranges in
 * book/README.md): shaped like a real day and scaled down by its messages.
 * Symbols' activity by a power law of their rank (8,000 symbols at 300 M
 * messages, by default one per 37,500 messages); orders of four classes,
 * from fleeting ones cancelled within a millisecond at the touch to ones
 * resting for hours far from it, their ends stamped at their lifetimes, so
 * that live orders build through the morning (under 1 % of the day's
 * messages at the peak) and the active books are hundreds of levels deep;
 * an intraday rate shaped like a U with microbursts; a pre-open from five
 * minutes before the open with NOII rounds, the opening cross (S Q, C of
 * the displayed orders it executes, Q) at the start, NOII rounds in the
 * last ten minutes and the closing cross at the end, then S M, S E, S C.
 * Timestamps are nondecreasing, from start - duration / 78 to a few
 * milliseconds after start + duration.
 *
 * DAYGEN_SHAPE_FLAT (daygen_flat.c), the default, described below; the
 * same bytes for the same config as it always had.
 *
 * Shape of the flat day (timestamps: nanoseconds since midnight, increasing,
 * from 09:30 over 6.5 hours unless configured):
 *   S O, S S; R, H (trading), Y for every symbol; V; S Q; an opening
 *   cross Q per symbol;
 *   the session: per symbol a GBM mid (about 2 % daily volatility); adds
 *   (A, some F) a few ticks around it, never crossing the other side;
 *   deletes (D) in order of a lifetime drawn at the add (most orders die
 *   young, some live for hours: deletes mostly hit recent refs); replaces
 *   (U) and partial cancels (X) of recent orders; executions (E, C
 *   printable or not) of the oldest order at the best level, on the side
 *   the mid has moved into; hidden prints (P) inside the spread; and now
 *   and then I, N, L, F, O, J, K, h, W, B;
 *   a closing cross Q per symbol; S M, S E, S C.
 * The session draws each message's type with the real day's mix (30 Jan
 * 2019): A 44 %, D 43 %, U 7.4 %, E 2.2 %, X 1.3 %, P 0.36 %, C 0.04 %,
 * the rest small.  A type that cannot be made (a delete with no live order)
 * becomes an add, which happens only at the start.
 *
 * The generator keeps its own book with the book library (so it knows the
 * live refs and the best levels) and only emits valid events: replayed
 * through book_apply() the day counts no impossible event.  Order refs are
 * 1, 2, 3... in order of their add, as on Nasdaq.
 */
#ifndef BOOK_DAYGEN_H
#define BOOK_DAYGEN_H

#include <stddef.h>
#include <stdint.h>

#include "book/book.h"
#include "proto/itch.h"

#define DAYGEN_MSG_MAX		64
#define DAYGEN_START_NS		(34200ull * 1000000000ull)	/* 09:30 */
#define DAYGEN_DURATION_NS	(23400ull * 1000000000ull)	/* 6.5 h */
#define DAYGEN_MAX_SYMBOLS	60000

enum daygen_shape {
	DAYGEN_SHAPE_FLAT,
	DAYGEN_SHAPE_REAL,
};

struct daygen_config {
	uint64_t messages;	/* in the whole day, at least 7 + 5 x symbols (flat) */
	uint32_t symbols;	/* 1 .. DAYGEN_MAX_SYMBOLS, locates 1..symbols; real:
				 * 0 for one per 37,500 messages (at least 10) */
	uint64_t seed;
	uint64_t start_ns;	/* 0: 09:30 */
	uint64_t duration_ns;	/* 0: 6.5 h; at least one ns per message */
	uint32_t max_orders;	/* the generator's book; 0: BOOK_DEFAULT_ORDERS (flat),
				 * messages / 64 + 65536 (real) */
	/* Names of locates 1..symbols, space-padded; NULL: the built-in list
	 * (AAPL, MSFT, NVDA, AMZN, ... then ZAAQ, ZAAR, ...).  The caller keeps
	 * them unique. */
	const char (*names)[ITCH_SYMBOL_LEN];
	enum daygen_shape shape;
};

struct daygen_stats {
	uint64_t messages;
	uint64_t by_type[256];
	uint64_t peak_live;	/* live orders at the peak */
	uint64_t end_live;
	uint64_t fallbacks;	/* draws that became an add */
	uint64_t impossible;	/* dup_ref + unknown_ref + overfill + book_full + bad_side: 0 */
	uint64_t bytes;		/* uncompressed, frames included */
};

struct daygen;

/* Returns 0, or -EINVAL / -ENOMEM with the reason in @err. */
int daygen_new(struct daygen **g, const struct daygen_config *cfg,
	       char *err, size_t errlen);
void daygen_free(struct daygen *g);

/*
 * Write the next message of the day into @buf (DAYGEN_MSG_MAX bytes) and
 * apply it to the generator's book.  Returns its length, 0 when the day is
 * over.
 */
uint16_t daygen_next(struct daygen *g, uint8_t *buf);

/* Symbol of locate @locate (1-based), space-padded to 8, NUL-terminated. */
const char *daygen_symbol(const struct daygen *g, uint16_t locate);

/* The generator's book after the messages handed out so far. */
const struct book *daygen_book(const struct daygen *g);

/* The config in use: the caller's with the shape's defaults filled in. */
const struct daygen_config *daygen_config(const struct daygen *g);

void daygen_get_stats(const struct daygen *g, struct daygen_stats *st);

/*
 * Generate a whole day into @path: plain when @gzip_level is 0, else gzip
 * at that level.  Returns 0, or -1 with the reason in @err.
 */
int daygen_write(const char *path, const struct daygen_config *cfg, int gzip_level,
		 struct daygen_stats *st, char *err, size_t errlen);

/*
 * Write the rest of @g's day into @path (as daygen_write), handing each
 * message to @each (when not NULL) after the generator's book has it.
 */
int daygen_write_from(struct daygen *g, const char *path, int gzip_level,
		      void (*each)(void *arg, const struct daygen *g, const uint8_t *msg,
				   uint16_t len),
		      void *arg, char *err, size_t errlen);

#endif /* BOOK_DAYGEN_H */
