/* SPDX-License-Identifier: MIT */
/*
 * Published messages, kept for the MoldUDP64 re-request server and for the
 * hostile packets that reuse old messages.
 *
 * Messages are stored exactly as they left (the 48-bit ITCH timestamp as
 * sent, block length not included), in sequence order: sequence numbers
 * are assigned in order and every message is stored when its packet is
 * published, dropped by --drop-rate or not.
 *
 * The store is a window over the session: the last @msg_cap messages,
 * within a ring of @bytes_cap bytes (a message that would cross the ring's
 * end starts again at its beginning, so each one is contiguous).  A live
 * run sizes it for every sequence number it can use, so nothing is ever
 * forgotten; a replay of a whole day cannot keep it all (368 M messages on
 * a real day), so it keeps the last --window messages and a request for
 * an older one finds nothing (store_get() returns NULL: "expired").
 *
 * Pre-faulted up to STORE_POPULATE_MAX, beyond that faulted in as the run
 * goes.
 */
#ifndef NETNS_EXSIM_STORE_H
#define NETNS_EXSIM_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "netns/exsim/unit.h"

#define STORE_MSG_MAX		FEED_MSG_MAX	/* anything one packet carries */
#define STORE_POPULATE_MAX	((size_t)512 << 20)

struct msg_store {
	uint8_t *bytes;		/* the ring */
	size_t bytes_cap;
	uint64_t used;		/* bytes written since the start (a position) */
	uint64_t *pos;		/* [seq % msg_cap]: position of message seq */
	uint16_t *len;		/* [seq % msg_cap] */
	uint64_t msg_cap;
	uint64_t n;		/* messages stored: the last one is n */
	uint64_t refused;	/* longer than STORE_MSG_MAX: never expected */
};

/* Bytes the store maps for that window. */
size_t store_bytes_for(uint64_t msg_cap, size_t bytes_cap);

/* Returns 0, or -1 (errno set) when the memory cannot be mapped. */
int store_open(struct msg_store *s, uint64_t msg_cap, size_t bytes_cap);
void store_close(struct msg_store *s);

static inline int store_enabled(const struct msg_store *s)
{
	return s->pos != NULL;
}

/* Append message n + 1.  Returns 0, or -1 (counted in refused). */
static inline int store_put(struct msg_store *s, const uint8_t *msg, uint16_t len)
{
	uint64_t seq = s->n + 1, at;
	size_t phys, i;

	if (!s->pos || len > STORE_MSG_MAX) {
		s->refused++;
		return -1;
	}
	phys = s->used % s->bytes_cap;
	if (phys + len > s->bytes_cap)
		s->used += s->bytes_cap - phys;	/* wrap: keep it contiguous */
	at = s->used;
	phys = at % s->bytes_cap;
	for (i = 0; i < len; i++)
		s->bytes[phys + i] = msg[i];
	s->used += len;
	s->pos[seq % s->msg_cap] = at;
	s->len[seq % s->msg_cap] = len;
	s->n = seq;
	return 0;
}

/* Message @seq: its bytes and length, or NULL (never stored, or no longer). */
static inline const uint8_t *store_get(const struct msg_store *s, uint64_t seq,
				       uint16_t *len)
{
	uint64_t at;

	if (seq == 0 || seq > s->n || s->n - seq >= s->msg_cap)
		return NULL;
	at = s->pos[seq % s->msg_cap];
	/* Overwritten once the ring has moved on by more than its size. */
	if (s->used - at > s->bytes_cap)
		return NULL;
	*len = s->len[seq % s->msg_cap];
	return s->bytes + at % s->bytes_cap;
}

#endif /* NETNS_EXSIM_STORE_H */
