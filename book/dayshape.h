/* SPDX-License-Identifier: MIT */
/*
 * The shape of an ITCH day, measured from its messages and the book they
 * build: what t2t-genday --stats reports and the real shape's test holds
 * to its ranges (book/README.md).  Any day, any shape: the meter sees each
 * message after the book has applied it.
 */
#ifndef BOOK_DAYSHAPE_H
#define BOOK_DAYSHAPE_H

#include <stdint.h>
#include <stdio.h>

#include "book/book.h"
#include "proto/itch.h"

#define DAYSHAPE_PARTS	13	/* of the session: half-hours of a 6.5 h day */
#define DAYSHAPE_BUSY	10	/* busiest symbols whose depth is reported */

enum { DS_ADD, DS_DELETE, DS_REPLACE, DS_EXEC, DS_CANCEL, DS_NMIX };

struct dayshape {
	uint64_t messages;
	uint32_t symbols;
	uint64_t open_ns, close_ns;
	/* Messages per symbol by rank (most messages first). */
	uint16_t busiest_locate;
	char busiest[ITCH_SYMBOL_LEN + 1];	/* the caller's to fill, "" */
	uint64_t top1, top10, top100;		/* messages of the top 1, 10, 100 */
	double top1_pct, top10_pct, top100_pct;
	/* Shares of the top 1 %, 10 %, 50 % of the symbols, at fractional
	 * ranks (part of the next symbol's count), so days with other
	 * numbers of symbols compare. */
	double pct1_pct, pct10_pct, pct50_pct;
	/* The busiest symbol's order messages: A+F, D, U, E+C, X, in %. */
	double mix[DS_NMIX];
	uint64_t peak_live, peak_ns, end_live;
	/* Live orders at the session's part boundaries (open, +D/13, ...,
	 * close), over the peak. */
	double live[DAYSHAPE_PARTS + 1];
	/* Price levels per side of the busiest symbols when live orders were
	 * within 1 % of their peak: median and largest over their sides. */
	uint32_t busy_n;
	uint32_t levels_p50, levels_max;
	/* Messages per millisecond: the busiest, and the mean of the session. */
	uint64_t busiest_ms, busiest_ms_ns;
	double mean_ms;
	/* Messages in each part of the session, over the middle part's. */
	double rate[DAYSHAPE_PARTS];
	/* Ends of orders by D or U: how soon after their add. */
	uint64_t cancels;
	double cancel_1ms_pct, cancel_10ms_pct, cancel_1s_pct;
	/* Orders (A, F, new refs of U) that rested over an hour, counting
	 * those live at the end up to the last message. */
	uint64_t orders, rest_1h;
	double rest_1h_pct;
};

struct dayshape_meter;

/*
 * For a day of at most @messages messages (refs up to that), locates
 * 1..@symbols, the session [@open_ns, @close_ns).  NULL when out of
 * memory.
 */
struct dayshape_meter *dayshape_new(uint64_t messages, uint32_t symbols, uint64_t open_ns,
				    uint64_t close_ns);
void dayshape_free(struct dayshape_meter *m);

/* One message, after @b has applied it. */
void dayshape_see(struct dayshape_meter *m, const struct book *b, const uint8_t *msg,
		  uint16_t len);

/* The shape so far. */
void dayshape_get(const struct dayshape_meter *m, struct dayshape *s);

/* dayshape_report.c: a table for people, and the same as one JSON object. */
void dayshape_print(FILE *f, const struct dayshape *s);
void dayshape_json(FILE *f, const struct dayshape *s);

#endif /* BOOK_DAYSHAPE_H */
