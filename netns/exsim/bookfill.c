// SPDX-License-Identifier: MIT
/* Paper fills against the published book (bookfill.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "book/book_apply.h"
#include "netns/exsim/bookfill.h"

int bookfill_init(struct bookfill *bf, uint32_t max_orders)
{
	struct book_config bc = { .max_orders = max_orders, .track_all = true };
	int ret;

	memset(bf, 0, sizeof(*bf));
	ret = book_init(&bf->book, &bc);
	if (ret)
		return ret;
	bf->taken = calloc((size_t)bf->book.levels.cap + 1, sizeof(*bf->taken));
	if (!bf->taken) {
		book_destroy(&bf->book);
		return -ENOMEM;
	}
	return 0;
}

void bookfill_destroy(struct bookfill *bf)
{
	if (bf->book.mem.addr)
		book_destroy(&bf->book);
	free(bf->taken);
	memset(bf, 0, sizeof(*bf));
}

/* The level of @m's order loses shares: give back as many taken ones. */
static void give_back(struct bookfill *bf, const uint8_t *m, uint16_t len)
{
	const struct book_order *o;
	uint64_t lost, *t;
	uint8_t type = m[ITCH_OFF_TYPE];

	if (itch_msg_len[type] != len)
		return;
	switch (type) {
	case 'E':
	case 'C':
	case 'X':
		o = book_find(&bf->book, be64_load(m + ITCH_E_OFF_ORDER_REF));
		if (!o)
			return;
		/* X and E share the layout of ref and shares. */
		lost = be32_load(m + ITCH_E_OFF_SHARES);
		if (lost > o->shares)
			lost = o->shares;
		break;
	case 'D':
	case 'U':
		/* D's ref and U's original ref sit at the same offset. */
		o = book_find(&bf->book, be64_load(m + ITCH_D_OFF_ORDER_REF));
		if (!o)
			return;
		lost = o->shares;
		break;
	default:
		return;
	}
	t = &bf->taken[o->level];
	if (!*t)
		return;
	if (lost > *t)
		lost = *t;
	*t -= lost;
	bf->st.given_back += lost;
	if (!*t)
		bf->ntaken--;
}

int bookfill_apply(struct bookfill *bf, const uint8_t *m, uint16_t len, uint64_t seq,
		   struct tape_print *p)
{
	const struct book_counters *c = &bf->book.cnt;
	int r;

	if (bf->ntaken && len)
		give_back(bf, m, len);
	r = book_apply(&bf->book, m, len, seq, p);
	if (r == 1)
		bf->st.prints++;
	bf->st.impossible = c->dup_ref + c->unknown_ref + c->overfill + c->book_full +
			    c->bad_side;
	return r;
}

uint32_t bookfill_match(const struct bookfill *bf, uint16_t locate, bool buy,
			uint32_t limit, uint32_t shares, struct fill_exec *ex, unsigned int *n)
{
	const struct book *b = &bf->book;
	const struct book_level *l;
	uint32_t left = shares;

	*n = 0;
	for (l = book_best(b, locate, buy ? BOOK_ASK : BOOK_BID);
	     l && left && *n < BOOKFILL_MAX_LEVELS; l = book_level_next(b, l)) {
		uint32_t idx = (uint32_t)(l - b->levels.lv);
		uint64_t avail;

		if (buy ? l->price > limit : l->price < limit)
			break;
		avail = l->shares - bf->taken[idx];
		if (!avail)
			continue;
		ex[*n].price = l->price;
		ex[*n].shares = avail < left ? (uint32_t)avail : left;
		ex[*n].level = idx;
		left -= ex[*n].shares;
		(*n)++;
	}
	return shares - left;
}

void bookfill_take(struct bookfill *bf, const struct fill_exec *ex, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		uint64_t *t = &bf->taken[ex[i].level];

		if (!*t)
			bf->ntaken++;
		*t += ex[i].shares;
		bf->st.taken += ex[i].shares;
	}
}
