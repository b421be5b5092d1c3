/* SPDX-License-Identifier: MIT */
/*
 * The level hash: (locate, side, price) -> level, for the listed levels
 * (level_list.h; a level in its side's window is found there instead).
 * Open addressing with linear probing and backward-shift deletion (see
 * order_table.h for why), at most half full.
 */
#ifndef BOOK_LEVEL_HASH_H
#define BOOK_LEVEL_HASH_H

#include "book/level_store.h"

/*
 * A key's home slot.  Four ticks of one side of one book share a home
 * line (four 16-byte slots): the group of four is hashed (Fibonacci), the
 * tick within it picks the slot.  A new level's neighbour probes
 * (level_list.h) touch a line per four ticks either side, not one per
 * tick; probing and backward shift work for any home.
 */
static inline uint64_t level_home(const struct level_store *s, uint64_t key)
{
	uint32_t price = (uint32_t)key, t = price / level_tick(price);
	uint64_t group = (key & ~0xffffffffull) | (t >> 2);

	return (((group * 0x9E3779B97F4A7C15ull) >> (64 - s->hbits)) & ~3ull) | (t & 3);
}

/* The slot holding @key, or the empty slot where it would go. */
static inline struct level_slot *level_slot_of(const struct level_store *s, uint64_t key)
{
	uint64_t i = level_home(s, key);

	for (;; i = (i + 1) & s->hmask) {
		struct level_slot *h = &s->hash[i];

		if (!h->level || h->key == key)
			return h;
	}
}

/* The listed level of (locate, side, price), 0 when there is none (level_find: any). */
static inline uint32_t level_hash_find(const struct level_store *s, uint16_t locate,
				  unsigned int side, uint32_t price)
{
	return level_slot_of(s, level_key(locate, side, price))->level;
}

/* Put level @idx, keyed @key (not in the hash), into it. */
static inline void level_hash_add(struct level_store *s, uint32_t idx, uint64_t key)
{
	struct level_slot *h = level_slot_of(s, key);

	h->key = key;
	h->level = idx;
}

/* Take level @idx, keyed @key, out of the hash. */
static inline void level_unhash(struct level_store *s, uint32_t idx, uint64_t key)
{
	uint64_t hole = level_home(s, key), j;

	while (s->hash[hole].level != idx)
		hole = (hole + 1) & s->hmask;
	for (j = hole;;) {
		struct level_slot *n;
		uint64_t home;

		j = (j + 1) & s->hmask;
		n = &s->hash[j];
		if (!n->level)
			break;
		home = level_home(s, n->key);
		/* n may fill the hole unless its home lies in (hole, j]. */
		if (((j - home) & s->hmask) >= ((j - hole) & s->hmask)) {
			s->hash[hole] = *n;
			hole = j;
		}
	}
	s->hash[hole].level = 0;
}

#endif /* BOOK_LEVEL_HASH_H */
