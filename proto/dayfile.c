// SPDX-License-Identifier: MIT
/* BinaryFILE day files: streaming reader and writer over zlib. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "proto/be.h"
#include "proto/dayfile.h"
#include "proto/gz_err.h"
#include "proto/proto_err.h"

/* Every error of this reader is its err[DAYFILE_ERR_LEN], named after the file. */
#define fail(err, path, ...) proto_file_err(err, DAYFILE_ERR_LEN, path, __VA_ARGS__)

int dayfile_open(struct dayfile_reader *r, const char *path, size_t bufsize)
{
	memset(r, 0, sizeof(*r));
	r->cap = bufsize ? bufsize : DAYFILE_BUF_DEFAULT;
	if (r->cap < DAYFILE_BUF_MIN)
		r->cap = DAYFILE_BUF_MIN;
	r->path = strdup(path);
	r->buf = malloc(r->cap);
	if (!r->path || !r->buf)
		goto nomem;
	errno = 0;
	r->gz = gzopen(path, "rb");
	if (!r->gz) {
		fail(r->err, path, "%s", errno ? strerror(errno) : "out of memory");
		goto err;
	}
	gzbuffer(r->gz, 1 << 17);
	/* Reads the magic: gzip, or a plain file passed through as is. */
	r->gzip = !gzdirect(r->gz);
	return 0;
nomem:
	fail(r->err, path, "out of memory");
err:
	free(r->buf);
	free(r->path);
	r->buf = NULL;
	r->path = NULL;
	return -1;
}

void dayfile_close(struct dayfile_reader *r)
{
	if (r->gz)
		gzclose(r->gz);
	free(r->buf);
	free(r->path);
	r->gz = NULL;
	r->buf = NULL;
	r->path = NULL;
}

static const char *where(const struct dayfile_reader *r)
{
	return r->gzip ? "uncompressed byte offset" : "byte offset";
}

/* Keep the unread tail, then read as much as fits.  0, or -1 on error. */
static int refill(struct dayfile_reader *r)
{
	int n, zerr;
	const char *msg;

	if (r->pos) {
		memmove(r->buf, r->buf + r->pos, r->len - r->pos);
		r->base += r->pos;
		r->len -= r->pos;
		r->pos = 0;
	}
	n = gzread(r->gz, r->buf + r->len, (unsigned int)(r->cap - r->len));
	if (n > 0) {
		r->len += (size_t)n;
		return 0;
	}
	/* zlib reports damage when the read reaches it, with or without data. */
	msg = proto_gz_msg(r->gz, r->path, &zerr);
	if (zerr == Z_OK || zerr == Z_STREAM_END) {
		r->eof = true;
		return 0;
	}
	if (zerr == Z_BUF_ERROR)
		return fail(r->err, r->path,
			    "gzip stream cut short after %s %llu (in message %llu)",
			    where(r), (unsigned long long)(r->base + r->len),
			    (unsigned long long)r->msgs + 1);
	return fail(r->err, r->path, "corrupt gzip stream near %s %llu (in message %llu): %s",
		    where(r), (unsigned long long)(r->base + r->len),
		    (unsigned long long)r->msgs + 1, msg);
}

/* The frame at pos is cut by the end of the file. */
static int truncated(struct dayfile_reader *r)
{
	size_t left = r->len - r->pos;
	unsigned long long off = r->base + r->pos;

	if (left < DAYFILE_FRAME_HDR)
		return fail(r->err, r->path,
			    "truncated: message %llu at %s %llu has 1 byte of its 2-byte length",
			    (unsigned long long)r->msgs + 1, where(r), off);
	return fail(r->err, r->path,
		    "truncated: message %llu at %s %llu has length %u but the file ends %zu bytes later",
		    (unsigned long long)r->msgs + 1, where(r), off,
		    be16_load(r->buf + r->pos), left - DAYFILE_FRAME_HDR);
}

int dayfile_span(struct dayfile_reader *r, struct dayfile_span *s)
{
	for (;;) {
		size_t q = r->pos;
		uint64_t count = 0;

		while (q + DAYFILE_FRAME_HDR <= r->len) {
			size_t next = q + DAYFILE_FRAME_HDR + be16_load(r->buf + q);

			if (next > r->len)
				break;
			q = next;
			count++;
		}
		if (count) {
			s->p = r->buf + r->pos;
			s->len = q - r->pos;
			s->first_seq = r->msgs + 1;
			s->count = count;
			s->offset = r->base + r->pos;
			r->msgs += count;
			r->pos = q;
			return 1;
		}
		if (r->eof)
			return r->len > r->pos ? truncated(r) : 0;
		if (refill(r))
			return -1;
	}
}

int dayfile_next(struct dayfile_reader *r, const uint8_t **msg, uint16_t *len,
		 uint64_t *seq)
{
	uint16_t n;

	if (r->cur == r->cur_end) {
		struct dayfile_span s;
		int ret = dayfile_span(r, &s);

		if (ret <= 0)
			return ret;
		r->cur = s.p;
		r->cur_end = s.p + s.len;
		/* Spans hand out all their messages at once; count them here. */
		r->msgs -= s.count;
	}
	n = be16_load(r->cur);
	*msg = r->cur + DAYFILE_FRAME_HDR;
	*len = n;
	r->cur += DAYFILE_FRAME_HDR + n;
	*seq = ++r->msgs;
	return 1;
}

int dayfile_writer_open(struct dayfile_writer *w, const char *path,
			int gzip_level)
{
	char mode[8];

	memset(w, 0, sizeof(*w));
	if (gzip_level < 0 || gzip_level > 9)
		return fail(w->err, path, "gzip level %d is not 0 (plain) to 9", gzip_level);
	w->cap = DAYFILE_BUF_DEFAULT;
	w->path = strdup(path);
	w->buf = malloc(w->cap);
	if (!w->path || !w->buf) {
		fail(w->err, path, "out of memory");
		goto err;
	}
	/* "T": zlib writes a plain file through the same calls. */
	if (gzip_level)
		snprintf(mode, sizeof(mode), "wb%d", gzip_level);
	else
		snprintf(mode, sizeof(mode), "wbT");
	errno = 0;
	w->gz = gzopen(path, mode);
	if (!w->gz) {
		fail(w->err, path, "%s", errno ? strerror(errno) : "out of memory");
		goto err;
	}
	gzbuffer(w->gz, 1 << 18);
	return 0;
err:
	free(w->buf);
	free(w->path);
	w->buf = NULL;
	w->path = NULL;
	return -1;
}

static int flush(struct dayfile_writer *w)
{
	int zerr;

	if (w->failed)
		return -1;
	if (w->len && gzwrite(w->gz, w->buf, (unsigned int)w->len) != (int)w->len) {
		const char *msg = proto_gz_msg(w->gz, w->path, &zerr);

		w->failed = true;
		return fail(w->err, w->path, "write error: %s", msg);
	}
	w->len = 0;
	return 0;
}

uint8_t *dayfile_reserve(struct dayfile_writer *w, uint16_t len)
{
	uint8_t *p;

	if (w->cap - w->len < (size_t)DAYFILE_FRAME_HDR + len && flush(w))
		return NULL;
	if (w->failed)
		return NULL;
	p = w->buf + w->len;
	be16_store(p, len);
	w->len += DAYFILE_FRAME_HDR + (size_t)len;
	w->msgs++;
	w->bytes += DAYFILE_FRAME_HDR + (uint64_t)len;
	return p + DAYFILE_FRAME_HDR;
}

int dayfile_write(struct dayfile_writer *w, const uint8_t *msg, uint16_t len)
{
	uint8_t *p = dayfile_reserve(w, len);

	if (!p)
		return -1;
	memcpy(p, msg, len);
	return 0;
}

int dayfile_writer_close(struct dayfile_writer *w)
{
	int ret = 0, zret;

	if (!w->gz)
		return -1;
	if (flush(w))
		ret = -1;
	zret = gzclose(w->gz);
	if (zret != Z_OK && !ret)
		ret = fail(w->err, w->path, "close: %s",
			   zret == Z_ERRNO ? strerror(errno) : zError(zret));
	w->gz = NULL;
	free(w->buf);
	free(w->path);
	w->buf = NULL;
	w->path = NULL;
	return ret;
}
