// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gateway/bench_feed.h"
#include "proto/be.h"
#include "proto/dayfile.h"
#include "proto/frame.h"
#include "proto/itch.h"
#include "proto/moldudp64.h"

/* The gateway's feed addresses in the benchmark (its filter ignores them). */
static const struct frame_endpoint feed_src = { { 2, 0, 0, 0, 0, 1 }, 0x0a000001, 40000 };
static const struct frame_endpoint feed_dst = { { 1, 0, 0x5e, 0, 0, 1 }, 0xe9363601, 26400 };

void bench_feed_template(struct frame_template *t)
{
	frame_template_init(t, &feed_src, &feed_dst, 1, 0);
}

static int grow(void **p, size_t *cap, size_t want, size_t elem)
{
	size_t n = *cap ? *cap : 4096;
	void *q;

	while (n < want)
		n *= 2;
	q = realloc(*p, n * elem);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = n;
	return 0;
}

uint8_t *bench_feed_room(struct bench_feed *f)
{
	size_t cap = f->cap;

	if (f->used + BENCH_FEED_FRAME_MAX > f->cap &&
	    grow((void **)&f->buf, &cap, f->used + BENCH_FEED_FRAME_MAX, 1))
		return NULL;
	f->cap = cap;
	return f->buf + f->used;
}

int bench_feed_push(struct bench_feed *f, uint16_t len, uint32_t gap_ns)
{
	if (f->n == f->max) {
		size_t max = f->max, m2 = f->max, m3 = f->max;

		if (grow((void **)&f->off, &max, f->n + 1, sizeof(*f->off)) ||
		    grow((void **)&f->len, &m2, f->n + 1, sizeof(*f->len)) ||
		    grow((void **)&f->gap_ns, &m3, f->n + 1, sizeof(*f->gap_ns)))
			return -ENOMEM;
		f->max = max;
	}
	f->off[f->n] = f->used;
	f->len[f->n] = len;
	f->gap_ns[f->n] = gap_ns;
	f->used += len;
	f->n++;
	f->paced_ns += gap_ns;
	return 0;
}

void bench_feed_free(struct bench_feed *f)
{
	free(f->buf);
	free(f->off);
	free(f->len);
	free(f->gap_ns);
	memset(f, 0, sizeof(*f));
}

struct day_packer {
	struct frame_template t;
	struct mold_builder b;
	char session[MOLD_SESSION_LEN];
	uint8_t *frame;
	uint64_t ts, prev_ts;	/* the open packet's timestamp, the last one's */
	uint64_t next_seq;
	uint32_t max_gap_ns;
	bool open, have_prev;
};

static int pack_close(struct bench_feed *f, struct day_packer *p)
{
	uint64_t gap = 0;
	size_t len;

	if (!p->open)
		return 0;
	p->open = false;
	len = frame_finish(&p->t, p->frame, mold_builder_finish(&p->b));
	if (p->have_prev && p->ts > p->prev_ts)
		gap = p->ts - p->prev_ts;
	p->prev_ts = p->ts;
	p->have_prev = true;
	return bench_feed_push(f, (uint16_t)len, gap < p->max_gap_ns ? (uint32_t)gap : p->max_gap_ns);
}

static int pack_open(struct bench_feed *f, struct day_packer *p, uint64_t ts)
{
	p->frame = bench_feed_room(f);
	if (!p->frame)
		return -ENOMEM;
	mold_builder_init(&p->b, p->frame + FRAME_HDR_LEN, BENCH_FEED_PAYLOAD, p->session,
			  p->next_seq);
	p->ts = ts;
	p->open = true;
	return 0;
}

int bench_feed_day(struct bench_feed *f, const char *path, size_t max_frames,
		   uint32_t max_gap_ns, char *err, size_t errlen)
{
	struct dayfile_reader rd;
	struct day_packer p = { .next_seq = 1, .max_gap_ns = max_gap_ns };
	const uint8_t *m;
	uint16_t len;
	uint64_t seq;
	int ret;

	memset(f, 0, sizeof(*f));
	if (dayfile_open(&rd, path, 0)) {
		snprintf(err, errlen, "%s", rd.err);
		return -1;
	}
	bench_feed_template(&p.t);
	mold_session_set(p.session, "BENCHDAY");
	while ((ret = dayfile_next(&rd, &m, &len, &seq)) == 1) {
		/* A block too short for a timestamp goes with the one before it. */
		uint64_t ts = len >= ITCH_OFF_TIMESTAMP + 6 ? be48_load(m + ITCH_OFF_TIMESTAMP) : p.ts;
		uint8_t *dst;

		if (!len || len > BENCH_FEED_PAYLOAD - MOLD_HDR_LEN - 2) {
			snprintf(err, errlen, "%s: message %llu: a block of %u bytes is not "
				 "one a packet carries", path, (unsigned long long)seq, len);
			goto fail;
		}
		if (p.open && ts != p.ts && pack_close(f, &p))
			goto nomem;
		if (!p.open && max_frames && f->n == max_frames)
			break;
		if (!p.open && pack_open(f, &p, ts))
			goto nomem;
		dst = mold_builder_reserve(&p.b, len);
		if (!dst) {	/* the packet is full: the rest of the instant in the next */
			if (pack_close(f, &p) || pack_open(f, &p, ts))
				goto nomem;
			dst = mold_builder_reserve(&p.b, len);
		}
		memcpy(dst, m, len);
		p.next_seq++;
		f->messages++;
	}
	if (ret < 0) {
		snprintf(err, errlen, "%s", rd.err);
		goto fail;
	}
	if (pack_close(f, &p))
		goto nomem;
	dayfile_close(&rd);
	if (!f->n) {
		snprintf(err, errlen, "%s: no messages", path);
		bench_feed_free(f);
		return -1;
	}
	return 0;
nomem:
	snprintf(err, errlen, "%s: out of memory at message %llu", path,
		 (unsigned long long)p.next_seq);
fail:
	dayfile_close(&rd);
	bench_feed_free(f);
	return -1;
}
