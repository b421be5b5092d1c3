/* SPDX-License-Identifier: MIT */
/*
 * A SoupBinTCP session's sequenced messages, numbered 1, 2, 3 ... and kept
 * so that a login asking for any number gets them again (docs/wire.md:
 * "the server sends every sequenced message from there").
 *
 * Each message is kept as the whole 'S' packet that goes on the wire, in a
 * slot of its own ([number % cap]), so a replay is a copy of bytes and
 * never encodes anything again.  The store is bounded: it keeps the last
 * @cap messages; an older one has fallen out (counted) and a login asking
 * for it starts at the oldest one kept.  The slots are reserved, not
 * allocated (MAP_NORESERVE): pages appear as messages are kept, so a
 * session that never trades costs nothing.
 */
#ifndef NETNS_EXSIM_SOUP_STORE_H
#define NETNS_EXSIM_SOUP_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "proto/be.h"
#include "proto/ouch.h"

/* The largest packet kept: an Accepted's (69 bytes), rounded up. */
#define SOUP_STORE_SLOT		72
#define SOUP_STORE_DEFAULT	(UINT64_C(1) << 22)	/* messages kept */

_Static_assert(OUCH_REPLY_PKT_MAX <= SOUP_STORE_SLOT, "a reply fits a slot");

struct soup_store {
	uint8_t (*slot)[SOUP_STORE_SLOT];	/* [number % cap] */
	uint64_t cap;
	uint64_t next;		/* the number the next message gets */
	uint64_t evicted;	/* messages that fell out (the oldest, overwritten) */
};

/* Reserve room for @cap messages.  0, or -errno. */
int soup_store_open(struct soup_store *s, uint64_t cap);
void soup_store_close(struct soup_store *s);

/* The oldest number still kept (== next when none is). */
static inline uint64_t soup_store_first(const struct soup_store *s)
{
	return s->next - 1 > s->cap ? s->next - s->cap : 1;
}

/*
 * Where the next message's packet goes (SOUP_STORE_SLOT bytes); it is kept
 * once soup_store_commit() gives it its number.
 */
static inline uint8_t *soup_store_slot(struct soup_store *s)
{
	return s->slot[s->next % s->cap];
}

/* The packet written at soup_store_slot() is message number next; returns it. */
static inline uint64_t soup_store_commit(struct soup_store *s)
{
	if (s->next > s->cap)
		s->evicted++;
	return s->next++;
}

/* The packet of message @n, or NULL when it is not kept (or not made yet). */
static inline const uint8_t *soup_store_get(const struct soup_store *s, uint64_t n,
					    size_t *len)
{
	const uint8_t *p;

	if (n < soup_store_first(s) || n >= s->next)
		return NULL;
	p = s->slot[n % s->cap];
	*len = (size_t)be16_load(p) + 2;
	return p;
}

#endif /* NETNS_EXSIM_SOUP_STORE_H */
