// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the order book: arbitrary message streams through
 * book_apply() (and book_prefetch()), against the reference model of
 * tests/unit/book_model.h, with the book's slow self-check after every
 * message.
 *
 * The first input byte picks how the rest is read:
 * - raw (even): BinaryFILE-like frames, a 2-byte big-endian length then
 *   that many bytes (the last takes what is left): any type, any length;
 * - shaped (odd): one byte picks an ITCH type, the next bytes fill its
 *   fixed length, then refs are cut to 0..31, locates to 0..3 and prices to
 *   sixteen (shaped_prices), so that adds, executions, replaces and deletes
 *   keep meeting the same orders and levels: dups, unknown refs, overfills,
 *   a full table, windows that move, sides that list their levels.
 * Every message is copied into a heap buffer of exactly its length, so
 * AddressSanitizer catches a read one byte past it.  The book (32 orders,
 * three windows, every locate tracked) is allocated once and cleared per
 * input.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define M_BUCKETS 64
#include "book/book_apply.h"
#include "tests/unit/book_model.h"

#define MAX_ORDERS 32

#define CHECK(cond, ...) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "fuzz_book: " __VA_ARGS__);		\
		fputc('\n', stderr);					\
		__builtin_trap();					\
	}								\
} while (0)

static const char shaped_types[] = "AFEECXDDUUPQBSRHAFA";

/*
 * Sixteen prices a shaped add or replace picks from: neighbouring ticks
 * below a dollar, across it and at $20 (kept together in a window), ticks
 * hundreds apart (a window that has to move, levels on the list) and
 * prices between two cents (a side in list mode), book/levels.h.
 */
static const uint32_t shaped_prices[16] = {
	300, 301, 9999, 10000, 10100, 200000, 200100, 200200,
	206400, 236000, 276800, 280000, 400000, 120000, 200050, 276850,
};

/* Cut the fields of a shaped message to small ranges. */
static void shape(uint8_t *m, uint16_t len)
{
	uint8_t t = m[0];

	be16_store(m + ITCH_OFF_LOCATE, be16_load(m + ITCH_OFF_LOCATE) % 4);
	if (strchr("AFECXDU", t) && len >= 19)
		be64_store(m + 11, be64_load(m + 11) % 32);
	switch (t) {
	case 'A':
	case 'F':
		/* Mostly B or S; now and then whatever byte came. */
		if (m[ITCH_A_OFF_SIDE] % 8)
			m[ITCH_A_OFF_SIDE] = m[ITCH_A_OFF_SIDE] & 1 ? 'B' : 'S';
		be32_store(m + ITCH_A_OFF_SHARES, be32_load(m + ITCH_A_OFF_SHARES) % 300);
		be32_store(m + ITCH_A_OFF_PRICE, shaped_prices[be32_load(m + ITCH_A_OFF_PRICE) % 16]);
		break;
	case 'E':
	case 'C':
	case 'X':
		be32_store(m + 19, be32_load(m + 19) % 300);
		if (t == 'C')
			m[ITCH_C_OFF_PRINTABLE] = m[ITCH_C_OFF_PRINTABLE] & 1 ? 'Y' : 'N';
		break;
	case 'U':
		be64_store(m + ITCH_U_OFF_NEW_REF, be64_load(m + ITCH_U_OFF_NEW_REF) % 32);
		be32_store(m + ITCH_U_OFF_SHARES, be32_load(m + ITCH_U_OFF_SHARES) % 300);
		be32_store(m + ITCH_U_OFF_PRICE, shaped_prices[be32_load(m + ITCH_U_OFF_PRICE) % 16]);
		break;
	case 'Q':
		be64_store(m + ITCH_Q_OFF_SHARES, be64_load(m + ITCH_Q_OFF_SHARES) % 3);
		break;
	}
}

static void same_counters(const struct book *b, const struct model *m, uint64_t seq)
{
	CHECK(!memcmp(b->cnt.by_type, m->by_type, sizeof(m->by_type)) &&
	      b->cnt.malformed == m->malformed && b->cnt.dup_ref == m->dup_ref &&
	      b->cnt.unknown_ref == m->unknown_ref && b->cnt.overfill == m->overfill &&
	      b->cnt.book_full == m->book_full && b->cnt.bad_side == m->bad_side &&
	      b->cnt.zero_shares == m->zero_shares &&
	      b->live == m->live && b->peak == m->peak,
	      "seq %llu: counters differ from the model", (unsigned long long)seq);
}

static void one(struct book *b, struct model *m, const uint8_t *src, uint16_t len,
		uint64_t seq)
{
	uint8_t *msg = malloc(len ? len : 1);
	struct tape_print pb, pm;
	char why[256];
	int rb, rm;

	if (!msg)
		abort();
	memcpy(msg, src, len);
	book_prefetch(b, msg, len);
	rb = book_apply(b, msg, len, seq, &pb);
	rm = m_apply(m, msg, len, seq, &pm);
	CHECK((rb < 0) == (rm < 0) && (rb == 1) == (rm == 1),
	      "seq %llu: book returned %d, model %d", (unsigned long long)seq, rb, rm);
	if (rb == 1)
		CHECK(pb.seq == pm.seq && pb.locate == pm.locate && pb.price == pm.price &&
		      pb.shares == pm.shares && pb.kind == pm.kind,
		      "seq %llu: the prints differ", (unsigned long long)seq);
	same_counters(b, m, seq);
	CHECK(!book_check(b, 0, why, sizeof(why)), "seq %llu: %s", (unsigned long long)seq, why);
	free(msg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct book b;
	static struct model m;
	static int ready;
	static unsigned int runs;
	uint8_t shaped[64];
	struct m_level *lv;
	char why[256];
	uint64_t seq = 0;
	long n;
	int mode;

	if (!ready) {
		/* Three windows for eight sides: some sides list their levels. */
		struct book_config cfg = { .max_orders = MAX_ORDERS, .windows = 3,
					   .track_all = true };

		if (book_init(&b, &cfg))
			__builtin_trap();
		ready = 1;
	}
	book_clear(&b);
	m_free(&m);
	memset(&m, 0, sizeof(m));
	m.cap = MAX_ORDERS;
	if (!size)
		return 0;
	mode = data[0] & 1;
	data++;
	size--;

	while (size) {
		uint16_t len;

		if (mode) {
			uint8_t t = (uint8_t)shaped_types[data[0] % (sizeof(shaped_types) - 1)];

			len = itch_msg_len[t];
			memset(shaped, 0, sizeof(shaped));
			shaped[0] = t;
			data++;
			size--;
			memcpy(shaped + 1, data, size < len - 1u ? size : len - 1u);
			data += size < len - 1u ? size : len - 1u;
			size -= size < len - 1u ? size : len - 1u;
			shape(shaped, len);
			one(&b, &m, shaped, len, ++seq);
		} else {
			if (size < 2)
				break;
			len = (uint16_t)(data[0] << 8 | data[1]);
			data += 2;
			size -= 2;
			if (len > size)
				len = (uint16_t)size;
			one(&b, &m, data, len, ++seq);
			data += len;
			size -= len;
		}
	}

	/* The model's levels, side by side with the book's walk of each side. */
	const struct book_level *l = NULL;

	n = m_levels(&m, &lv);
	if (n < 0)
		abort();
	CHECK((uint64_t)n == b.levels.used, "%ld levels in the model, %u in the book", n,
	      b.levels.used);
	for (long i = 0; i < n; i++) {
		unsigned int side = lv[i].side == 'B' ? BOOK_BID : BOOK_ASK;

		if (!i || lv[i].locate != lv[i - 1].locate || lv[i].side != lv[i - 1].side)
			l = book_best(&b, lv[i].locate, side);
		CHECK(l && l->price == lv[i].price && l->shares == lv[i].shares &&
		      l->orders == lv[i].orders, "level %ld differs from the model's", i);
		l = book_level_next(&b, l);
		if (i + 1 == n || lv[i + 1].locate != lv[i].locate || lv[i + 1].side != lv[i].side)
			CHECK(!l, "the book has more levels on locate %u", lv[i].locate);
	}
	free(lv);
	/* Every side of all 65536 locates now and then (a pass of 0.5 ms). */
	if ((++runs & 63) == 0)
		CHECK(!book_check(&b, BOOK_CHECK_ALL_SIDES, why, sizeof(why)), "%s", why);
	return 0;
}
