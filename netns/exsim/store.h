/* SPDX-License-Identifier: MIT */
/*
 * Every published message, kept for the MoldUDP64 re-request server and for
 * the hostile packets that reuse old messages.
 *
 * Messages are stored back to back exactly as they left (the 48-bit ITCH
 * timestamp already stamped, block length not included), in sequence order:
 * sequence numbers are assigned in order and every message is stored when
 * its packet is published, dropped by --drop-rate or not.  end[seq] is the
 * offset just past message seq (end[0] = 0), so a message is found in O(1)
 * and its length is end[seq] - end[seq - 1].
 *
 * Sized once at start for every sequence number the run can use (the feed's
 * seq_cap) at the longest message the simulator writes (ITCH_LEN_P, 44
 * bytes); pre-faulted up to STORE_POPULATE_MAX, beyond that faulted in as
 * the run goes (one page per ~90 trades).
 */
#ifndef NETNS_EXSIM_STORE_H
#define NETNS_EXSIM_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "proto/itch.h"

#define STORE_MSG_MAX		ITCH_LEN_P	/* longest message exsim sends */
#define STORE_POPULATE_MAX	((size_t)512 << 20)

struct msg_store {
	uint8_t *bytes;
	size_t bytes_cap;
	size_t used;
	uint64_t *end;		/* [seq]: offset past message seq */
	uint64_t seq_cap;	/* sequence numbers 1 .. seq_cap - 1 */
	uint64_t n;		/* messages stored: 1 .. n */
	uint64_t refused;	/* too long or past seq_cap: never expected */
};

/* Returns 0, or -1 (errno set) when the memory cannot be mapped. */
int store_open(struct msg_store *s, uint64_t seq_cap);
void store_close(struct msg_store *s);

/* Bytes the store maps for @seq_cap sequence numbers. */
size_t store_bytes_for(uint64_t seq_cap);

/* Append message n + 1.  Returns 0, or -1 (counted in refused). */
static inline int store_put(struct msg_store *s, const uint8_t *msg, uint16_t len)
{
	uint64_t seq = s->n + 1;
	size_t i;

	if (!s->end || len > STORE_MSG_MAX || seq >= s->seq_cap ||
	    s->bytes_cap - s->used < len) {
		s->refused++;
		return -1;
	}
	for (i = 0; i < len; i++)
		s->bytes[s->used + i] = msg[i];
	s->used += len;
	s->end[seq] = s->used;
	s->n = seq;
	return 0;
}

/* Message @seq (1..n): its bytes and length, or NULL. */
static inline const uint8_t *store_get(const struct msg_store *s, uint64_t seq,
				       uint16_t *len)
{
	if (seq == 0 || seq > s->n)
		return NULL;
	*len = (uint16_t)(s->end[seq] - s->end[seq - 1]);
	return s->bytes + s->end[seq - 1];
}

#endif /* NETNS_EXSIM_STORE_H */
