/* SPDX-License-Identifier: MIT */
/*
 * Capture log: every order's timestamps in a gzip-compressed text file
 * (zcat shows it), written after the run from the gateway's order log and
 * read back by the t2t-capture tool.  The format (latency/README.md):
 *
 *	# t2t-capture v1
 *	# path=af_xdp
 *	# <key>=<value>			rig parameters, one per line
 *	order_no,md_seq,symbol,side,shares,price,outcome,flags,t_send,t_hook,t_seen,t_decided,t_queued,t_sent,t_ack,exch_ts
 *	<one line per order>
 *	# end records=<n>
 *
 * Timestamps are CLOCK_MONOTONIC nanoseconds of the one host, 0 where not
 * taken (t_send and t_ack only where the feed's clock is this host's).
 * exch_ts is the feed's own timestamp of the triggering message, as it
 * came: nanoseconds since midnight on a real feed.  Version 1 files (no
 * exch_ts) are read too.  The trailer makes a file cut short visible even where gzip itself
 * cannot tell (a capture that was never finished).
 *
 * Nothing here is for a hot loop: the writer formats and compresses.
 */
#ifndef LATENCY_CAPTURE_H
#define LATENCY_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

#include "latency/hdr.h"
#include "latency/order_rec.h"

#define CAPTURE_VERSION		2
#define CAPTURE_META_MAX	32
#define CAPTURE_KEY_LEN		32
#define CAPTURE_VAL_LEN		256
#define CAPTURE_LINE_MAX	1024

/* An order as the capture log carries it (latency/order_rec.h). */
struct capture_rec {
	uint64_t order_no;
	uint64_t md_seq;		/* triggering market-data message */
	char symbol[9];			/* no padding, NUL terminated */
	char side;
	uint32_t shares;
	uint32_t price;			/* Price(4) limit */
	uint8_t outcome;		/* enum order_outcome */
	uint8_t flags;			/* ORDER_F_* */
	struct order_times t;
	uint64_t exch_ts;		/* the feed's timestamp of md_seq (48 bits) */
};

/* The header's key=value lines, in order; "path" is always there. */
struct capture_meta {
	unsigned int n;
	struct {
		char key[CAPTURE_KEY_LEN];
		char val[CAPTURE_VAL_LEN];
	} kv[CAPTURE_META_MAX];
};

/* A header key: 1..31 of [a-z0-9_.-] (len bytes of key). */
bool capture_key_ok(const char *key, size_t len);
/*
 * A --capture-note KEY=VALUE argument for a program's header notes: @arg
 * kept in notes[*n] when its key is valid and fewer than @max are kept.
 * 0, or -1 with why (for an option table's OPT_CALL).
 */
int capture_note_add(const char **notes, unsigned int *n, unsigned int max,
		     const char *arg, char *why, size_t whylen);
void capture_meta_init(struct capture_meta *m, const char *path);
/* Set (or replace) key; keys are [a-z0-9_.-], 1..31 characters; control
 * characters in the value become '?' and a long value is cut.  0, or
 * -EINVAL for a bad key, -ENOSPC when full. */
int capture_meta_set(struct capture_meta *m, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* NULL when the key is absent. */
const char *capture_meta_get(const struct capture_meta *m, const char *key);

/* The flags column: "-" or the flags' names joined by '+' (64 bytes hold them all). */
void capture_flags_text(uint8_t flags, char *buf, size_t len);

struct capture_writer {
	gzFile gz;
	uint64_t records;
	int err;			/* first error, -errno */
};

/* Create path and write the header.  0 or -errno. */
int capture_open(struct capture_writer *w, const char *path,
		 const struct capture_meta *m);
/* Append one record; errors are kept for capture_close(). */
void capture_write(struct capture_writer *w, const struct capture_rec *r);
/* Write the trailer and close.  0, or the first error (-errno, -EIO). */
int capture_close(struct capture_writer *w);

struct capture_reader {
	gzFile gz;
	const char *name;
	unsigned long line;		/* of the last line read */
	int version;			/* of the file */
	struct capture_meta meta;
	uint64_t records;
	bool done;
	char err[CAPTURE_LINE_MAX];	/* "name:line: what" after a failure */
	char buf[CAPTURE_LINE_MAX];
};

/* Open and read the header.  0, or -1 with r->err set (the reader is then
 * closed). */
int capture_reader_open(struct capture_reader *r, const char *path);
/* 1 with a record, 0 at the end (trailer checked), -1 with r->err set. */
int capture_read(struct capture_reader *r, struct capture_rec *rec);
void capture_reader_close(struct capture_reader *r);

/* One histogram per stage; about 230 KB, so allocate it. */
struct capture_hists {
	uint64_t records;
	uint64_t clock_errors;		/* stages left out: end before start */
	struct hdr_hist stage[STAGE_NR];
};

void capture_hists_reset(struct capture_hists *h);
void capture_hists_add(struct capture_hists *h, const struct capture_rec *r);

#endif /* LATENCY_CAPTURE_H */
