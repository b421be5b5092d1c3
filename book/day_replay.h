/* SPDX-License-Identifier: MIT */
/*
 * A day file (proto/dayfile.h: plain or gzip) read once through the order
 * books into the execution tape, span by span with the book's look-ahead
 * prefetch: what t2t-backtest --itch and the research pass (api/) both
 * replay, so that both see the same messages, numbered the same way, and
 * the same prints.  With a filter (proto/itch_filter.h) only the filtered
 * session reaches the books, numbered as a replay of it would be.
 */
#ifndef BOOK_DAY_REPLAY_H
#define BOOK_DAY_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "book/book.h"
#include "proto/itch_filter.h"

struct day_replay_hooks {
	/* every kept message, with its number, before the book applies it (may be NULL) */
	void (*on_msg)(void *ctx, uint64_t seq, const uint8_t *m, uint16_t len);
	/* every kept Stock Directory (R) message, before the book applies it (may be NULL) */
	void (*on_directory)(void *ctx, const uint8_t *m);
	/* every print of the tape, in order (may be NULL) */
	void (*on_print)(void *ctx, const struct tape_print *p);
	void *ctx;
};

struct day_replay_stats {
	uint64_t messages;	/* read from the file, kept or not */
	double seconds;		/* reading, decompressing and the books */
	bool gzip;
};

/*
 * Replay @path into @b through @filt (itch_filter_init() with no symbol
 * keeps and numbers every message).  0, or -1 with
 * the reader's error in @err (the file, and the byte offset for a bad
 * frame); @st is filled either way.
 */
int day_replay(const char *path, struct book *b, struct itch_filter *filt,
	       const struct day_replay_hooks *h, struct day_replay_stats *st,
	       char *err, size_t errlen);

#endif /* BOOK_DAY_REPLAY_H */
