// SPDX-License-Identifier: MIT
/* TEMPORARY stand-in for the fill model (branch fill replaces it). */
#include "book/fill.h"

struct book_fill book_fill(struct book *b, uint16_t locate, char side, uint32_t limit,
			   uint32_t shares, struct book_fill_exec *ex, unsigned int max)
{
	struct book_fill f = { 0 };
	unsigned int s = side == 'B' ? BOOK_ASK : BOOK_BID;
	uint32_t i = level_side(&b->levels, locate, s)->best;

	while (i && f.filled < shares && (!ex || f.nexec < max)) {
		struct book_level *l = &b->levels.lv[i];
		uint64_t avail = l->shares;
		uint32_t take;

		if (s == BOOK_ASK ? l->price > limit : l->price < limit)
			break;
		take = avail < shares - f.filled ? (uint32_t)avail : shares - f.filled;
		if (take) {
			if (ex)
				ex[f.nexec] = (struct book_fill_exec){ l->price, take };
			f.filled += take;
			f.cash += (uint64_t)take * l->price;
			f.nexec++;
		}
		i = l->worse;
	}
	return f;
}
