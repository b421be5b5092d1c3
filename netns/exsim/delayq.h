/* SPDX-License-Identifier: MIT */
/*
 * Packets that leave later: the delay of a network path.  Each packet put
 * here waits in a prefaulted ring until its time (put time + the delay +
 * a uniform draw up to the jitter), and the publisher's wait loop sends it
 * then (delayq_flush()).  Used for line B's copies and, with --delay-us,
 * for line A's packets.  Jitter may reorder packets against each other
 * only through the ring's order: a packet never leaves before the one put
 * ahead of it, as on one path.
 */
#ifndef NETNS_EXSIM_DELAYQ_H
#define NETNS_EXSIM_DELAYQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/moldudp64.h"

#define DELAYQ_SLOTS	4096	/* packets waiting for their time */

struct delayq_slot {
	uint64_t due;
	uint16_t len;
	uint8_t pkt[MOLD_MTU_BUDGET];
};

struct delayq_stats {
	uint64_t packets;	/* sent */
	uint64_t bytes;
	uint64_t send_errors;
	uint64_t queue_full;	/* no room to wait: sent at once */
	uint64_t max_late_ns;	/* worst lateness against the due time */
};

struct delayq {
	int fd;			/* the path's socket (not owned) */
	uint64_t delay_ns, jitter_ns, rng;
	struct delayq_slot *q;	/* NULL: not open */
	uint32_t head, n;
	struct delayq_stats st;
};

/* The ring for sending on @fd; 0, or -1 with err. */
int delayq_open(struct delayq *d, int fd, uint64_t delay_ns, uint64_t jitter_ns,
		uint64_t seed, char *err, size_t errlen);
void delayq_close(struct delayq *d);

/* When a packet put now is due: the delay plus this packet's draw of jitter. */
uint64_t delayq_when(struct delayq *d, uint64_t now);

/* Queue @pkt (at most MOLD_MTU_BUDGET bytes) to leave at @due. */
void delayq_put(struct delayq *d, const uint8_t *pkt, size_t len, uint64_t due);

/* Send the packets due by @now (all of them with @all). */
void delayq_flush(struct delayq *d, uint64_t now, bool all);

/* When the next packet is due; UINT64_MAX when none waits. */
static inline uint64_t delayq_due(const struct delayq *d)
{
	return d->q && d->n ? d->q[d->head].due : UINT64_MAX;
}

#endif /* NETNS_EXSIM_DELAYQ_H */
