/* SPDX-License-Identifier: MIT */
/*
 * Line B: the same feed packets as line A, to a second group, with faults
 * of its own (faults.h) and a delay of its own, the way an exchange's two
 * redundant multicast lines reach a gateway over two networks.
 *
 * Every packet line A is handed (data, heartbeat, end of session) is copied
 * here after its sequence numbers and stamps are set, before A's own faults
 * are applied: the two lines lose different packets.  A copy waits in a
 * delay queue (delayq.h) until its time (A's send time + --b-delay-us + up
 * to --b-jitter-us), and the publisher's wait loop sends it then
 * (line_b_flush()).  A reordered copy goes out right after the next one; a
 * duplicated one twice; a dropped one never.
 */
#ifndef NETNS_EXSIM_LINE_B_H
#define NETNS_EXSIM_LINE_B_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "netns/exsim/delayq.h"
#include "netns/exsim/exsim.h"
#include "netns/exsim/faults.h"

struct line_b {
	int fd;			/* -1: one line */
	struct faults fx;
	struct delayq dq;	/* B's delay and jitter; its stats are B's sends */
	bool holding;		/* a reordered copy waits for the next one */
	uint16_t held_len;
	uint8_t held[MOLD_MTU_BUDGET];
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
	return delayq_due(&l->dq);
}

#endif /* NETNS_EXSIM_LINE_B_H */
