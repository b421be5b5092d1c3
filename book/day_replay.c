// SPDX-License-Identifier: MIT
/* A day file through the books into the tape (day_replay.h). */
#include <stdio.h>

#include "book/book_apply.h"
#include "book/day_replay.h"
#include "proto/dayfile.h"
#include "proto/itch.h"
#include "util/clock.h"

int day_replay(const char *path, struct book *b, struct itch_filter *filt,
	       const struct day_replay_hooks *h, struct day_replay_stats *st,
	       char *err, size_t errlen)
{
	struct dayfile_reader rd;
	struct dayfile_span sp;
	uint64_t t0;
	int ret;

	st->messages = 0;
	st->seconds = 0;
	st->gzip = false;
	if (dayfile_open(&rd, path, 0)) {
		snprintf(err, errlen, "%s", rd.err);
		return -1;
	}
	st->gzip = rd.gzip;
	t0 = mono_ns();
	while ((ret = dayfile_span(&rd, &sp)) == 1) {
		struct book_walk w;
		const uint8_t *m;
		uint16_t len;

		book_walk_init(&w, b, sp.p, sp.len);
		while (book_walk_next(&w, b, &m, &len)) {
			struct tape_print p;
			uint64_t seq;

			if (!itch_filter_keep(filt, m, len, &seq))
				continue;
			if (h->on_msg)
				h->on_msg(h->ctx, seq, m, len);
			if (h->on_directory && len == ITCH_LEN_R && m[0] == 'R')
				h->on_directory(h->ctx, m);
			if (book_apply(b, m, len, seq, &p) == 1 && h->on_print)
				h->on_print(h->ctx, &p);
		}
	}
	st->seconds = (double)(mono_ns() - t0) / 1e9;
	st->messages = rd.msgs;
	if (ret < 0)
		snprintf(err, errlen, "%s", rd.err);
	dayfile_close(&rd);
	return ret < 0 ? -1 : 0;
}
