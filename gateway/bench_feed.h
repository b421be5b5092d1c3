/* SPDX-License-Identifier: MIT */
/*
 * bench_engine's feeds: Ethernet/IPv4/UDP frames of MoldUDP64 packets, held
 * back to back in one buffer, each with the pause before it (or none: the
 * regime's fixed pace).  Built before any timing, so growing the buffer
 * costs the figures nothing.
 */
#ifndef GATEWAY_BENCH_FEED_H
#define GATEWAY_BENCH_FEED_H

#include <stddef.h>
#include <stdint.h>

/* A packet's MoldUDP64 payload at most: a 1500-byte MTU's UDP payload. */
#define BENCH_FEED_PAYLOAD	1472
#define BENCH_FEED_FRAME_MAX	1514

struct bench_feed {
	uint8_t *buf;
	size_t used, cap;
	size_t *off;		/* frame k at buf + off[k] */
	uint16_t *len;
	uint32_t *gap_ns;	/* pause before frame k, as recorded; NULL: none */
	size_t n, max;
	/* A day's: what it holds. */
	uint64_t messages;
	uint64_t paced_ns;	/* the gaps' sum: a paced run's length */
};

static inline const uint8_t *bench_feed_frame(const struct bench_feed *f, size_t k)
{
	return f->buf + f->off[k];
}

struct frame_template;
/* The feed's Ethernet, IPv4 and UDP header (the engine does not filter on it). */
void bench_feed_template(struct frame_template *t);

/* Room for the next frame (BENCH_FEED_FRAME_MAX bytes), or NULL. */
uint8_t *bench_feed_room(struct bench_feed *f);
/* Keep the frame written at bench_feed_room()'s pointer. */
int bench_feed_push(struct bench_feed *f, uint16_t len, uint32_t gap_ns);
void bench_feed_free(struct bench_feed *f);

/*
 * The day file @path (BinaryFILE, gzip or plain) as a replay at x1 sends
 * it: the messages of one timestamp packed into one packet (up to the MTU),
 * sequence numbers from 1, each packet's pause the time since the one
 * before, capped at @max_gap_ns so that the day's quiet minutes do not
 * stretch the run.  At most @max_frames frames (0: the whole day).
 * Returns 0, or -1 with the reason in @err.
 */
int bench_feed_day(struct bench_feed *f, const char *path, size_t max_frames,
		   uint32_t max_gap_ns, char *err, size_t errlen);

#endif /* GATEWAY_BENCH_FEED_H */
