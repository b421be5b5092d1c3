// SPDX-License-Identifier: MIT
/* A day file as the feed's source (replay.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "netns/exsim/replay.h"
#include "proto/be.h"
#include "util/clock.h"

int replay_open(struct replay *r, const struct exsim_cfg *c, char *err, size_t errlen)
{
	int ret;

	memset(r, 0, sizeof(*r));
	r->speed = c->speed;
	r->until_ns = c->replay_until_s * NS_PER_SEC;
	ret = itch_filter_init(&r->filt, c->symbols_named ?
			       (const char (*)[ITCH_SYMBOL_LEN])c->symbols : NULL,
			       c->symbols_named ? c->nsym : 0);
	if (ret) {
		snprintf(err, errlen, "--symbols: %s", strerror(-ret));
		return ret;
	}
	if (dayfile_open(&r->rd, c->replay_path, 0)) {
		/* The reader said why (no such file, not a day file): its errno. */
		ret = errno ? -errno : -EINVAL;
		snprintf(err, errlen, "--replay %s", r->rd.err);
		itch_filter_free(&r->filt);
		return ret;
	}
	return 0;
}

void replay_close(struct replay *r)
{
	dayfile_close(&r->rd);
	itch_filter_free(&r->filt);
}

static uint64_t offset_of(struct replay *r, const uint8_t *m, uint16_t len)
{
	uint64_t ts;

	if (r->speed <= 0 || len < ITCH_OFF_TIMESTAMP + 6)
		return r->last_offset;
	ts = be48_load(m + ITCH_OFF_TIMESTAMP);
	if (!r->have_first) {
		r->have_first = true;
		r->ts_first = ts;
	}
	if (ts >= r->ts_first)
		r->last_offset = (uint64_t)((double)(ts - r->ts_first) / r->speed);
	return r->last_offset;
}

int replay_next(void *src, struct feed_unit *u)
{
	struct replay *r = src;
	const uint8_t *m;
	uint64_t fseq, seq;
	uint16_t len;
	int ret;

	if (r->failed)
		return -1;
	for (;;) {
		ret = dayfile_next(&r->rd, &m, &len, &fseq);
		if (ret <= 0)
			break;
		/* Before the filter: the slice ends at any symbol's message. */
		if (r->until_ns && len >= ITCH_OFF_TIMESTAMP + 6 &&
		    be48_load(m + ITCH_OFF_TIMESTAMP) > r->until_ns) {
			r->cut = true;
			return 0;
		}
		if (!itch_filter_keep(&r->filt, m, len, &seq))
			continue;
		if (len > FEED_MSG_MAX) {
			snprintf(r->err, sizeof(r->err), "%s: message %llu at byte offset %llu is "
				 "%u bytes long: a MoldUDP64 packet carries at most %u",
				 r->rd.path, (unsigned long long)fseq,
				 (unsigned long long)dayfile_offset(&r->rd, m), len, FEED_MSG_MAX);
			r->failed = true;
			return -1;
		}
		u->offset_ns = offset_of(r, m, len);
		memcpy(feed_unit_add(u, len), m, len);
		return 1;
	}
	if (ret < 0) {
		snprintf(r->err, sizeof(r->err), "%s", r->rd.err);
		r->failed = true;
	}
	return ret;
}
