// SPDX-License-Identifier: MIT
/* The book of what was published (bookfill.h). */
#include <string.h>

#include "book/book_apply.h"
#include "netns/exsim/bookfill.h"

int bookfill_init(struct bookfill *bf, uint32_t max_orders)
{
	struct book_config bc = { .max_orders = max_orders, .track_all = true };

	memset(bf, 0, sizeof(*bf));
	return book_init(&bf->book, &bc);
}

void bookfill_destroy(struct bookfill *bf)
{
	if (bf->book.mem.addr)
		book_destroy(&bf->book);
	memset(bf, 0, sizeof(*bf));
}

int bookfill_apply(struct bookfill *bf, const uint8_t *m, uint16_t len, uint64_t seq,
		   struct tape_print *p)
{
	const struct book_counters *c = &bf->book.cnt;
	int r = book_apply(&bf->book, m, len, seq, p);

	if (r == 1)
		bf->st.prints++;
	bf->st.impossible = c->dup_ref + c->unknown_ref + c->overfill + c->book_full +
			    c->bad_side;
	return r;
}
