/* SPDX-License-Identifier: MIT */
/*
 * Test helpers the book tests share: a book as a cmocka fixture, its
 * invariants checked, and one ITCH message built with the proto encoder
 * and applied to it.  Included after <cmocka.h>.
 */
#ifndef TESTS_UNIT_BOOK_MSGS_H
#define TESTS_UNIT_BOOK_MSGS_H

#include <stdlib.h>
#include <string.h>

#include "book/book_apply.h"
#include "proto/itch.h"

struct msg {
	uint8_t b[64];
	uint16_t len;
};

static inline struct msg msg_encode(const struct itch_msg *m)
{
	struct msg r;
	int n = itch_encode(r.b, sizeof(r.b), m);

	r.len = n > 0 ? (uint16_t)n : 0;
	return r;
}

static inline struct msg msg_add(char type, uint16_t loc, uint64_t ref, char side,
				 uint32_t shares, uint32_t price)
{
	struct itch_msg m = { .type = type, .locate = loc };

	m.a.order_ref = ref;
	m.a.side = side;
	m.a.shares = shares;
	m.a.price = price;
	memcpy(m.a.stock, "TEST    ", 8);
	memcpy(m.a.mpid, "MPID", 4);
	return msg_encode(&m);
}

static inline struct msg msg_exec(uint16_t loc, uint64_t ref, uint32_t shares)
{
	struct itch_msg m = { .type = 'E', .locate = loc };

	m.e.order_ref = ref;
	m.e.shares = shares;
	m.e.match = 1;
	return msg_encode(&m);
}

static inline struct msg msg_exec_price(uint16_t loc, uint64_t ref, uint32_t shares,
					char printable, uint32_t price)
{
	struct itch_msg m = { .type = 'C', .locate = loc };

	m.e.order_ref = ref;
	m.e.shares = shares;
	m.e.match = 2;
	m.e.printable = printable;
	m.e.price = price;
	return msg_encode(&m);
}

static inline struct msg msg_cancel(uint16_t loc, uint64_t ref, uint32_t shares)
{
	struct itch_msg m = { .type = 'X', .locate = loc };

	m.x.order_ref = ref;
	m.x.shares = shares;
	return msg_encode(&m);
}

static inline struct msg msg_delete(uint16_t loc, uint64_t ref)
{
	struct itch_msg m = { .type = 'D', .locate = loc };

	m.d.order_ref = ref;
	return msg_encode(&m);
}

static inline struct msg msg_replace(uint16_t loc, uint64_t orig, uint64_t nref,
				     uint32_t shares, uint32_t price)
{
	struct itch_msg m = { .type = 'U', .locate = loc };

	m.u.orig_ref = orig;
	m.u.new_ref = nref;
	m.u.shares = shares;
	m.u.price = price;
	return msg_encode(&m);
}

static inline struct msg msg_trade(uint16_t loc, uint32_t shares, uint32_t price)
{
	struct itch_msg m = { .type = 'P', .locate = loc };

	m.p.side = 'B';
	m.p.shares = shares;
	m.p.price = price;
	memcpy(m.p.stock, "TEST    ", 8);
	return msg_encode(&m);
}

static inline struct msg msg_cross(uint16_t loc, uint64_t shares, uint32_t price)
{
	struct itch_msg m = { .type = 'Q', .locate = loc };

	m.q.shares = shares;
	m.q.price = price;
	m.q.cross_type = 'O';
	memcpy(m.q.stock, "TEST    ", 8);
	return msg_encode(&m);
}

/* A message of a type the codec does not build: header, then zeros. */
static inline struct msg msg_raw(char type, uint16_t loc)
{
	struct msg r;

	memset(r.b, 0, sizeof(r.b));
	r.b[0] = (uint8_t)type;
	be16_store(r.b + 1, loc);
	r.len = itch_msg_len[(uint8_t)type];
	return r;
}

/* A book of @cfg in *state, for a setup; -1 when it cannot be made. */
static inline int book_fixture_open(void **state, const struct book_config *cfg)
{
	struct book *b = malloc(sizeof(*b));

	if (!b || book_init(b, cfg)) {
		free(b);
		return -1;
	}
	*state = b;
	return 0;
}

/* The teardown of book_fixture_open(). */
static inline int book_fixture_close(void **state)
{
	book_destroy(*state);
	free(*state);
	return 0;
}

/* book_check() with @flags, or the test fails saying what it found. */
static inline void book_assert_checked(const struct book *b, unsigned int flags)
{
	char why[256];

	if (book_check(b, flags, why, sizeof(why)))
		fail_msg("book check: %s", why);
}

/* Every invariant of every side, the 65536 locates' empty sides included. */
static inline void book_assert_sound(const struct book *b)
{
	book_assert_checked(b, BOOK_CHECK_ALL_SIDES);
}

#endif /* TESTS_UNIT_BOOK_MSGS_H */
