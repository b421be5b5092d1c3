/* SPDX-License-Identifier: MIT */
/*
 * The --symbols filter of a TotalView-ITCH 5.0 day: which messages of the
 * whole day make the session of a few chosen symbols, and their sequence
 * numbers in it.  One place, so that the exchange simulator's replay
 * (t2t-exsim --replay FILE --symbols ...) and the backtester (t2t-backtest --itch
 * FILE --symbols ...) agree message for message.
 *
 * Kept, in the day's order:
 *   - every System Event (S), whatever its locate;
 *   - the Stock Directory entry (R) of each chosen symbol, and no other R:
 *     the filtered session looks like a day that listed only them;
 *   - every other message whose Stock Locate a kept R has named (the
 *     locate is the key, as on the feed: E, C, X, D carry no symbol).
 * Dropped: the other symbols' messages, market-wide messages that are not
 * system events (V, W: locate 0), a message of a locate before any R named
 * it, and malformed blocks (empty, unknown type, or a length that is not
 * the type's: their locate cannot be trusted; counted).  Locates keep their
 * values.  The kept messages are numbered 1, 2, 3 ... with no gap: a
 * receiver of the filtered session sees one contiguous MoldUDP64 session.
 *
 * With no symbol chosen the filter keeps every block, malformed ones too,
 * and message n is sequence number n (the day file's ordinal).
 */
#ifndef PROTO_ITCH_FILTER_H
#define PROTO_ITCH_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/be.h"
#include "proto/itch.h"

#define ITCH_FILTER_MAX	4096	/* chosen symbols */
#define ITCH_LOCATES	65536

struct itch_filter {
	unsigned int nsym;		/* 0: keep everything */
	uint64_t *sym;			/* chosen symbols' 8 bytes, sorted */
	uint8_t *found;			/* [k]: sym[k] had a directory entry */
	uint8_t *chosen;		/* [locate]: a kept R named it */
	uint64_t seen;			/* blocks looked at */
	uint64_t kept;			/* = the last sequence number given */
	uint64_t malformed;		/* dropped as malformed (filtering only) */
};

/*
 * @syms: @n space-padded 8-byte symbols (duplicates allowed, counted
 * once), or n = 0 for no filtering.  Returns 0, -EINVAL (more than
 * ITCH_FILTER_MAX) or -ENOMEM.
 */
int itch_filter_init(struct itch_filter *f, const char (*syms)[ITCH_SYMBOL_LEN],
		     unsigned int n);
void itch_filter_free(struct itch_filter *f);

/* Is @stock (8 bytes) one of the chosen?  Index in f->sym, or -1. */
int itch_filter_index(const struct itch_filter *f, const uint8_t *stock);

/*
 * The next block of the day, @len bytes.  Returns true to keep it, with
 * *@seq its sequence number in the filtered session; false to drop it.
 */
static inline bool itch_filter_keep(struct itch_filter *f, const uint8_t *m,
				    uint16_t len, uint64_t *seq)
{
	uint16_t locate;
	uint8_t type;

	f->seen++;
	if (!f->nsym)
		goto keep;
	if (!len || itch_msg_len[m[ITCH_OFF_TYPE]] != len) {
		f->malformed++;
		return false;
	}
	type = m[ITCH_OFF_TYPE];
	locate = be16_load(m + ITCH_OFF_LOCATE);
	if (type == 'S')
		goto keep;
	if (type == 'R') {
		int k = itch_filter_index(f, m + ITCH_R_OFF_STOCK);

		/* A locate listed again as another stock stops being chosen. */
		f->chosen[locate] = k >= 0;
		if (k < 0)
			return false;
		f->found[k] = 1;
		goto keep;
	}
	if (!f->chosen[locate])
		return false;
keep:
	*seq = ++f->kept;
	return true;
}

/* After the day: the first chosen symbol no R named (space-padded, not
 * NUL-terminated), or NULL when every one was found. */
const char *itch_filter_missing(const struct itch_filter *f);

/*
 * Parse "SYM,SYM,..." (1-8 of A-Z, 0-9 and '.' each, none twice) into @out
 * (room for @cap), space-padded.  Returns the count, or -1 with the reason
 * in @why ("'aapl': only A-Z, 0-9 and '.'").
 */
int itch_parse_symbols(const char *list, char (*out)[ITCH_SYMBOL_LEN], unsigned int cap,
		       char *why, size_t whylen);

#endif /* PROTO_ITCH_FILTER_H */
