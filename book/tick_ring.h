/* SPDX-License-Identifier: MIT */
/*
 * Struct-of-arrays ring of trade prints (the execution tape), filled by the
 * feed decoder.
 *
 * Capacity is a power of two fixed at init; nothing is allocated afterwards.
 * @head counts every tick ever appended, so tick number i lives in slot
 * (i & mask) and a reader keeps its own 64-bit read index: the ticks of one
 * feed_decode() call are [head - n, head).  The writer never waits: a reader
 * more than @capacity behind has lost the oldest ticks (head - read > cap),
 * which it can detect with tick_ring_lost().
 */
#ifndef BOOK_TICK_RING_H
#define BOOK_TICK_RING_H

#include <stdint.h>

struct tick_ring {
	uint64_t head;		/* ticks appended so far */
	uint32_t capacity;
	uint32_t mask;
	uint64_t *seq;		/* MoldUDP64 sequence number of the printing message */
	uint64_t *exch_ts;	/* ITCH timestamp, 48 bits, as sent */
	uint64_t *arrival_ns;	/* caller's arrival time for the packet */
	uint32_t *price;	/* 4 implied decimals */
	uint32_t *shares;
	uint16_t *locate;
	uint8_t *kind;		/* 'E', 'C', 'P' or 'Q' (book/book.h) */
};

/* Returns 0, -EINVAL (capacity 0 or not a power of two) or -ENOMEM. */
int tick_ring_init(struct tick_ring *r, uint32_t capacity);
void tick_ring_destroy(struct tick_ring *r);

static inline uint32_t tick_ring_slot(const struct tick_ring *r, uint64_t i)
{
	return (uint32_t)(i & r->mask);
}

/* Ticks a reader at @read_idx has lost to overwriting (0 if none). */
static inline uint64_t tick_ring_lost(const struct tick_ring *r,
				      uint64_t read_idx)
{
	uint64_t behind = r->head - read_idx;

	return behind > r->capacity ? behind - r->capacity : 0;
}

#endif /* BOOK_TICK_RING_H */
