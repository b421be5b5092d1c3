/* SPDX-License-Identifier: MIT */
/*
 * The replay source: a Nasdaq BinaryFILE day (gzip or plain), streamed
 * through zlib by the day-file reader (proto/dayfile.h; never the whole
 * file in memory), one message per unit, with its original bytes and
 * timestamps (the feed does not stamp them).
 *
 * Pacing: message n is due at start + (ts[n] - ts[1]) / speed, ts being
 * the ITCH timestamp (ns since midnight) and ts[1] the first published
 * message's; --speed max sends as fast as it goes (packets full).  A
 * message whose timestamp is below ts[1], or that has none (a malformed
 * block shorter than the header), is due with the one before it.
 *
 * --symbols: only the session of those symbols (proto/itch_filter.h, the
 * filter t2t-backtest --itch uses), renumbered from 1.  Without it every
 * block of the file is published as it is, malformed ones included, and
 * message n of the file is sequence number n.
 *
 * --replay-until T: the first message stamped after T ends the replay, as
 * the end of the file would (a slice of the day from its start, the
 * session then ended for what was sent).
 *
 * Errors stop the replay: a file cut short, a length running past its
 * end, corrupt gzip (the reader's message names the file, the message
 * number and the byte offset), and a block longer than a MoldUDP64 packet
 * carries.  The caller ends the session for what was sent.
 */
#ifndef NETNS_EXSIM_REPLAY_H
#define NETNS_EXSIM_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "netns/exsim/exsim.h"
#include "netns/exsim/unit.h"
#include "proto/dayfile.h"
#include "proto/itch_filter.h"

struct replay {
	struct dayfile_reader rd;
	struct itch_filter filt;
	double speed;		/* 0: as fast as possible */
	bool have_first;
	uint64_t ts_first;	/* ts[1] */
	uint64_t last_offset;
	uint64_t until_ns;	/* --replay-until, ns after midnight; 0: none */
	bool cut;		/* stopped at until_ns */
	bool failed;
	char err[DAYFILE_ERR_LEN + 64];
};

/* Open --replay FILE.  0, or -1 with the reason in @err. */
int replay_open(struct replay *r, const struct exsim_cfg *c, char *err, size_t errlen);
void replay_close(struct replay *r);

/* The feed's source (unit.h): 0 at the end of the file, -1 on an error (r->err). */
int replay_next(void *src, struct feed_unit *u);

#endif /* NETNS_EXSIM_REPLAY_H */
