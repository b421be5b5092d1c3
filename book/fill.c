// SPDX-License-Identifier: MIT
/* Paper fills against the displayed book (fill.h). */
#include "book/fill.h"

struct book_fill book_fill(struct book *b, uint16_t locate, char side, uint32_t limit,
			   uint32_t shares, struct book_fill_exec *ex, unsigned int max)
{
	struct book_fill f = { 0 };
	unsigned int s;
	uint32_t i;

	if (side != 'B' && side != 'S')
		return f;
	s = side == 'B' ? BOOK_ASK : BOOK_BID;
	for (i = level_side(&b->levels, locate, s)->best; i && f.filled < shares;
	     i = level_next(&b->levels, i)) {
		struct book_level *l = &b->levels.lv[i];
		uint64_t avail;
		uint32_t take;

		if (s == BOOK_ASK ? l->price > limit : l->price < limit)
			break;
		/* taken is a uint32_t: a level past 4 G taken shares gives no more. */
		avail = l->shares - l->taken;
		if (avail > UINT32_MAX - l->taken)
			avail = UINT32_MAX - l->taken;
		if (!avail)
			continue;
		if (ex && f.nexec == max)
			break;
		take = avail < shares - f.filled ? (uint32_t)avail : shares - f.filled;
		l->taken += take;
		if (ex)
			ex[f.nexec] = (struct book_fill_exec){ l->price, take, i };
		f.filled += take;
		f.cash += (uint64_t)take * l->price;
		f.nexec++;
	}
	b->cnt.taken += f.filled;
	return f;
}

void book_fill_undo(struct book *b, const struct book_fill_exec *ex, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		struct book_level *l = &b->levels.lv[ex[i].level];
		uint32_t back = ex[i].shares < l->taken ? ex[i].shares : l->taken;

		l->taken -= back;
		b->cnt.taken -= back;
	}
}
