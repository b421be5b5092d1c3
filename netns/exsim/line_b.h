/* SPDX-License-Identifier: MIT */
/*
 * Line B: the same feed packets as line A, to a second group, with faults
 * of its own (faults.h) and a delay of its own, the way an exchange's two
 * redundant multicast lines reach a gateway over two networks.
 *
 * Every packet line A is handed (data, heartbeat, end of session) is copied
 * here after its sequence numbers and stamps are set, before A's own faults
 * are applied: the two lines lose different packets.  A copy waits in a
 * queue until its time (A's send time + --b-delay-us + up to
 * --b-jitter-us), and the publisher's wait loop sends it then
 * (line_b_flush()).  A reordered copy goes out right after the next one; a
 * duplicated one twice; a dropped one never.
 */
#ifndef NETNS_EXSIM_LINE_B_H
#define NETNS_EXSIM_LINE_B_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "netns/exsim/exsim.h"
#include "netns/exsim/faults.h"

#define LINE_B_QUEUE	4096	/* copies waiting for their time */

struct line_b_slot {
	uint64_t due;
	uint16_t len;
	uint8_t pkt[MOLD_MTU_BUDGET];
};

struct line_b_stats {
	uint64_t packets;	/* sent on line B */
	uint64_t bytes;
	uint64_t send_errors;
	uint64_t queue_full;	/* no room to wait: sent at once */
	uint64_t max_late_ns;	/* worst lateness of a copy against its due time */
};

struct line_b {
	int fd;			/* -1: one line */
	struct faults fx;
	uint64_t delay_ns, jitter_ns, rng;
	struct line_b_slot *q;	/* LINE_B_QUEUE slots, a ring */
	uint32_t head, n;
	bool holding;		/* a reordered copy waits for the next one */
	struct line_b_slot held;
	struct line_b_stats st;
};

/* Socket and queue when c->line_b is set (else fd -1).  0, or -1 with err. */
int line_b_open(struct line_b *l, const struct exsim_cfg *c, int (*open_sock)(
		const struct exsim_cfg *, const struct sockaddr_in *, char *, size_t),
		char *err, size_t errlen);
void line_b_close(struct line_b *l);

/*
 * Line A sends the packet [seq, seq + count) now: line B's copy, through
 * B's faults (@random: a tick packet, the random faults apply).
 */
void line_b_copy(struct line_b *l, const uint8_t *pkt, size_t len, uint64_t seq,
		 uint16_t count, unsigned int units, bool random, uint64_t now);

/* Send the copies due by @now (all of them with @all). */
void line_b_flush(struct line_b *l, uint64_t now, bool all);

/* When the next copy is due; UINT64_MAX when none waits. */
static inline uint64_t line_b_due(const struct line_b *l)
{
	return l->fd >= 0 && l->n ? l->q[l->head].due : UINT64_MAX;
}

#endif /* NETNS_EXSIM_LINE_B_H */
