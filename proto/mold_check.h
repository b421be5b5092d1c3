/* SPDX-License-Identifier: MIT */
/*
 * Structural check of one MoldUDP64 / ITCH 5.0 packet, independent of
 * sequencing: the first defect found, in the decoder's terms
 * (book/feed_decoder.h counters).  Shared by the decoder (a session is
 * adopted only from a well-formed packet), the simulator's hostile-packet
 * generator (which makes each of its packets carry exactly one defect, and
 * rejects a random packet that happens to be well formed) and the test
 * receiver fault_recv (which classifies every packet, old ones included).
 *
 * Order of the checks, first hit wins: shorter than the header; heartbeat
 * or end of session with bytes after the header (count_too_low); then for
 * each of the header's count blocks: no room for a block length
 * (count_too_high at the very end of the packet, else block_overrun), a
 * block length running past the packet (block_overrun), length 0
 * (zero_length_block), a type byte that is not ITCH 5.0 (unknown_type), a
 * length other than the type's (bad_length); last, bytes left after the
 * count blocks (count_too_low).
 */
#ifndef PROTO_MOLD_CHECK_H
#define PROTO_MOLD_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "proto/be.h"
#include "proto/itch.h"
#include "proto/moldudp64.h"

enum mold_defect {
	MOLD_WELL_FORMED,
	MOLD_SHORT_PACKET,
	MOLD_BLOCK_OVERRUN,
	MOLD_COUNT_TOO_HIGH,
	MOLD_COUNT_TOO_LOW,
	MOLD_ZERO_LENGTH_BLOCK,
	MOLD_BAD_LENGTH,
	MOLD_UNKNOWN_TYPE,
	MOLD_NDEFECTS,
};

static inline enum mold_defect mold_check(const uint8_t *pkt, size_t len)
{
	const uint8_t *p = pkt + MOLD_HDR_LEN, *end = pkt + len;
	uint16_t count, i;

	if (len < MOLD_HDR_LEN)
		return MOLD_SHORT_PACKET;
	count = be16_load(pkt + MOLD_OFF_COUNT);
	if (count == MOLD_COUNT_HEARTBEAT || count == MOLD_COUNT_END)
		return len == MOLD_HDR_LEN ? MOLD_WELL_FORMED : MOLD_COUNT_TOO_LOW;
	for (i = 0; i < count; i++) {
		uint16_t n;

		if (end - p < MOLD_BLOCK_HDR_LEN)
			return p == end ? MOLD_COUNT_TOO_HIGH : MOLD_BLOCK_OVERRUN;
		n = be16_load(p);
		p += MOLD_BLOCK_HDR_LEN;
		if (n > end - p)
			return MOLD_BLOCK_OVERRUN;
		if (n == 0)
			return MOLD_ZERO_LENGTH_BLOCK;
		if (!itch_msg_len[p[ITCH_OFF_TYPE]])
			return MOLD_UNKNOWN_TYPE;
		if (itch_msg_len[p[ITCH_OFF_TYPE]] != n)
			return MOLD_BAD_LENGTH;
		p += n;
	}
	return p == end ? MOLD_WELL_FORMED : MOLD_COUNT_TOO_LOW;
}

#endif /* PROTO_MOLD_CHECK_H */
