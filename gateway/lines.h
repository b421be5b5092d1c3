/* SPDX-License-Identifier: MIT */
/*
 * The A/B rule of the XDP hook (bpf/steer.bpf.c, struct steer_arb), for the
 * kernel-UDP path, which reads the two lines from two sockets: a feed packet
 * of the session being decoded that lies wholly below the decoder's next
 * expected number was delivered by the other line and is dropped here,
 * counted per line with the hook's counter names; everything else goes to
 * the decoder.  The decoder itself is the arbiter's state: no second copy
 * of the next number to keep in step.
 */
#ifndef GATEWAY_LINES_H
#define GATEWAY_LINES_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "bpf/steer.h"
#include "book/feed_decoder.h"
#include "proto/be.h"
#include "proto/moldudp64.h"

struct line_stats {
	uint64_t c[STEER_LINES][STEER_LINE_NR];
};

/* Keep this packet of @line?  Counts the verdict. */
static inline bool lines_keep(struct line_stats *ls, unsigned int line,
			      const struct feed_decoder *d, const uint8_t *pkt, size_t len)
{
	uint64_t seq, next = d->next_seq;
	uint16_t count;

	if (len < MOLD_HDR_LEN || !d->have_session ||
	    memcmp(pkt, d->session, MOLD_SESSION_LEN)) {
		ls->c[line][STEER_LINE_OTHER]++;
		return true;
	}
	seq = be64_load(pkt + MOLD_OFF_SEQ);
	count = be16_load(pkt + MOLD_OFF_COUNT);
	if (count == 0 || count == MOLD_COUNT_END || (size_t)count * 2 > len - MOLD_HDR_LEN) {
		ls->c[line][STEER_LINE_OTHER]++;
		return true;
	}
	if (seq + count <= next) {
		ls->c[line][STEER_LINE_DUP]++;
		return false;
	}
	ls->c[line][seq > next ? STEER_LINE_AHEAD : STEER_LINE_TAKEN]++;
	return true;
}

#endif /* GATEWAY_LINES_H */
