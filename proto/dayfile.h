/* SPDX-License-Identifier: MIT */
/*
 * Day files: Nasdaq "BinaryFILE" as published for TotalView-ITCH 5.0
 * (contract: docs/book.md).  Each message is preceded by its
 * length as a 2-byte big-endian integer, nothing else; the file is usually
 * gzip-compressed.  Message n of the file (1-based) is sequence number n.
 *
 * The reader streams through zlib (gzread detects gzip by its magic and
 * reads a plain file as is) into a fixed buffer, so a whole day (11 GB) is
 * never in memory.  It hands out spans of whole frames, which a caller can
 * walk with a look-ahead for prefetching; dayfile_next() gives one message
 * at a time.  Every error names the file and a byte offset in the
 * uncompressed stream (the file offset itself for a plain file).
 *
 * The writer is what the day generator and tests use: the same framing,
 * plain or gzip.
 */
#ifndef PROTO_DAYFILE_H
#define PROTO_DAYFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DAYFILE_FRAME_HDR	2
/* Room for the largest frame (2 + 65535 bytes) and plenty of others. */
#define DAYFILE_BUF_MIN		(1u << 17)
#define DAYFILE_BUF_DEFAULT	(1u << 20)
#define DAYFILE_ERR_LEN		512

struct dayfile_reader {
	void *gz;		/* gzFile */
	char *path;
	uint8_t *buf;
	size_t cap;
	size_t len;		/* bytes held in buf */
	size_t pos;		/* first byte not handed out yet */
	uint64_t base;		/* uncompressed offset of buf[0] */
	uint64_t msgs;		/* messages handed out so far (last seq) */
	const uint8_t *cur;	/* dayfile_next(): rest of the current span */
	const uint8_t *cur_end;
	bool gzip;
	bool eof;
	char err[DAYFILE_ERR_LEN];
};

/* Whole frames [p, p + len): @count messages, the first is @first_seq. */
struct dayfile_span {
	const uint8_t *p;
	size_t len;
	uint64_t first_seq;
	uint64_t count;
	uint64_t offset;	/* uncompressed offset of p */
};

/*
 * Open @path (gzip or plain) with a read buffer of @bufsize bytes (0 for
 * the default; at least DAYFILE_BUF_MIN).  Returns 0, or -1 with r->err set.
 */
int dayfile_open(struct dayfile_reader *r, const char *path, size_t bufsize);
void dayfile_close(struct dayfile_reader *r);

/*
 * The next span of whole frames.  Returns 1 (span set), 0 at the clean end
 * of the file, or -1 with r->err set: a frame cut by the end of the file
 * (a length prefix that runs past the end, or half a prefix), a gzip stream
 * cut short, or corrupt gzip data.  The span stays valid until the next
 * call.
 */
int dayfile_span(struct dayfile_reader *r, struct dayfile_span *s);

/*
 * One message: 1 with @msg, @len (possibly 0: an empty block) and @seq set,
 * 0 at the end, -1 on error (r->err).  Do not mix with dayfile_span().
 */
int dayfile_next(struct dayfile_reader *r, const uint8_t **msg, uint16_t *len,
		 uint64_t *seq);

/* Byte offset (uncompressed) of the frame of a message dayfile_next() gave. */
static inline uint64_t dayfile_offset(const struct dayfile_reader *r, const uint8_t *msg)
{
	return r->base + (uint64_t)(msg - DAYFILE_FRAME_HDR - r->buf);
}

struct dayfile_writer {
	void *gz;		/* gzFile */
	char *path;
	uint8_t *buf;
	size_t cap;
	size_t len;
	uint64_t msgs;
	uint64_t bytes;		/* uncompressed bytes written, frames included */
	bool failed;
	char err[DAYFILE_ERR_LEN];
};

/*
 * Create @path: plain when @gzip_level is 0, else gzip at that level (1-9).
 * Returns 0 or -1 with w->err set.
 */
int dayfile_writer_open(struct dayfile_writer *w, const char *path,
			int gzip_level);

/*
 * Room for one message of @len bytes (its length prefix already written);
 * NULL after a write error (w->err).  The pointer is valid until the next
 * call.
 */
uint8_t *dayfile_reserve(struct dayfile_writer *w, uint16_t len);

/* Append one message.  Returns 0 or -1 (w->err). */
int dayfile_write(struct dayfile_writer *w, const uint8_t *msg, uint16_t len);

/* Flush and close.  Returns 0, or -1 if any write failed (w->err). */
int dayfile_writer_close(struct dayfile_writer *w);

#endif /* PROTO_DAYFILE_H */
