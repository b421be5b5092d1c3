/* SPDX-License-Identifier: MIT */
/*
 * A unit of the feed's schedule: messages that leave together, in one
 * packet, at one intended time.  A tick of the GBM source is a unit (its
 * noise messages, then its trade); the day and replay sources hand out one
 * message per unit.  Sources fill units; the feed (feed.h) packs as many
 * due units as the MTU allows into each packet and never splits one.
 */
#ifndef NETNS_EXSIM_UNIT_H
#define NETNS_EXSIM_UNIT_H

#include <stdint.h>

#include "netns/exsim/exsim.h"
#include "proto/moldudp64.h"

#define FEED_UNIT_MSGS	(EXSIM_MAX_NOISE + 1)
/* The longest message a packet carries: the budget less the header and
 * one block length. */
#define FEED_MSG_MAX	(MOLD_MTU_BUDGET - MOLD_HDR_LEN - MOLD_BLOCK_HDR_LEN)

struct feed_unit {
	uint64_t offset_ns;	/* intended send time after the schedule's start */
	uint16_t n;		/* messages */
	uint16_t bytes;		/* their bytes, back to back in buf */
	uint16_t len[FEED_UNIT_MSGS];
	uint8_t buf[FEED_MSG_MAX];
};

/*
 * A source: 1 with the next unit in *u; 0 when this part of the session is
 * over (the source says whether another part follows); -1 on an error the
 * source keeps for its caller.  A unit's messages with their block lengths
 * always fit one packet.
 */
typedef int (*feed_next_fn)(void *src, struct feed_unit *u);

/* Append one message to @u; the caller checked that it fits. */
static inline uint8_t *feed_unit_add(struct feed_unit *u, uint16_t len)
{
	uint8_t *p = u->buf + u->bytes;

	u->len[u->n++] = len;
	u->bytes = (uint16_t)(u->bytes + len);
	return p;
}

#endif /* NETNS_EXSIM_UNIT_H */
