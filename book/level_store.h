/* SPDX-License-Identifier: MIT */
/*
 * The price levels' types: the level records, the hash slots, the sides,
 * and the small helpers every part of the level code shares (keys, ticks,
 * ranks).  How the parts fit together: book/levels.h.
 */
#ifndef BOOK_LEVEL_STORE_H
#define BOOK_LEVEL_STORE_H

#include <stdint.h>

#define BOOK_LOCATES	65536
#define BOOK_BID	0
#define BOOK_ASK	1

struct book_level {
	uint64_t shares;	/* sum over its orders */
	uint32_t price;
	uint32_t orders;	/* > 0 while the level is live */
	uint32_t better;	/* on its side's list: neighbour toward the best, 0 at the head */
	uint32_t worse;		/* on the list: away from it (free list link when free) */
	uint32_t taken;		/* of shares, what paper fills took (book/fill.h) */
	uint16_t locate;
	uint8_t side;		/* BOOK_BID or BOOK_ASK */
};

/* Two levels to a cache line. */
_Static_assert(sizeof(struct book_level) == 32, "struct book_level is 32 bytes");

struct level_slot {
	uint64_t key;
	uint32_t level;		/* 0 marks an empty slot */
	uint32_t unused;
};

/*
 * The window: LEVEL_WINDOW ticks from just above the best down, each with
 * a bit in the side and the index of its level in the side's block of the
 * window pool, both circular: rank r's slot is r % LEVEL_WINDOW, so that
 * a slot's address follows from the price (and the side's block) alone,
 * and a window that moves moves nothing but the levels that leave or
 * enter it (levels.h).  768 bits fill the side's second line and the rest
 * of its first.
 */
#define LEVEL_WINDOW		768u
#define LEVEL_WINDOW_WORDS	(LEVEL_WINDOW / 64)

/*
 * One side of one locate's book, two cache lines.  A side with levels and
 * a window block (level_store.block) is in window mode; one with levels
 * and no block lists them all (list mode).
 */
struct book_side {
	uint32_t best;		/* best level, 0 while the side is empty */
	uint32_t best_price;	/* its price, so that a new level compares without reading it */
	uint32_t nlevels;
	uint32_t off_cent;	/* levels priced off a whole cent (level_off_cent) */
	uint32_t base;		/* window mode: the rank of the window's first tick */
	uint32_t head;		/* the list's best level (window mode: worse than the window) */
	uint32_t tail;		/* the list's worst */
	uint32_t unused;
	uint64_t bits[LEVEL_WINDOW_WORDS];	/* by slot */
};

_Static_assert(sizeof(struct book_side) == 128, "struct book_side is two lines");

struct level_store {
	struct book_level *lv;		/* [0] unused */
	struct level_slot *hash;	/* the listed levels */
	struct book_side *side;		/* [locate * 2 + side] */
	uint32_t *block;		/* [locate * 2 + side]: its window block, 0 = none */
	uint32_t *win;			/* window blocks, LEVEL_WINDOW indices each; [0] unused */
	uint64_t hmask;
	uint32_t hbits;
	uint32_t cap;			/* usable levels: 1..cap */
	uint32_t used;			/* live levels */
	uint32_t fresh;			/* next never-used index */
	uint32_t free_head;		/* recycled levels */
	uint32_t blocks;		/* window blocks: 1..blocks */
	uint32_t free_block;		/* blocks no side holds, linked through their first slot */
};

static inline uint64_t level_key(uint16_t locate, unsigned int side, uint32_t price)
{
	return (uint64_t)locate << 33 | (uint64_t)side << 32 | price;
}

static inline struct book_side *level_side(const struct level_store *s,
					   uint16_t locate, unsigned int side)
{
	return &s->side[(uint32_t)locate * 2 + side];
}

/* True when price @a is better than @b on @side. */
static inline int level_better(unsigned int side, uint32_t a, uint32_t b)
{
	return side == BOOK_BID ? a > b : a < b;
}

/*
 * The quoting increment of @price (ITCH units of 1/10000 dollar): a cent
 * from one dollar up, a hundredth of a cent below (Reg NMS rule 612).
 */
static inline uint32_t level_tick(uint32_t price)
{
	return price >= 10000 ? 100 : 1;
}

/* A price between two cents (below a dollar too: the probes' rule, level_list.h). */
static inline int level_off_cent(uint32_t price)
{
	return price % 100 != 0;
}

/* A price on its own tick's grid: the window has a bit for it. */
static inline int level_on_grid(uint32_t price)
{
	return price < 10000 || price % 100 == 0;
}

/*
 * Ticks from zero, counted on each price's own grid, so that it grows with
 * the price across the dollar: prices below a dollar count one each, a
 * cent each from there (a price off its grid counts as the tick below it).
 */
static inline uint32_t level_grid(uint32_t price)
{
	return price < 10000 ? price : 10000 + (price - 10000) / 100;
}

#define LEVEL_GRID_TOP	(10000u + (UINT32_MAX - 10000u) / 100u)

/*
 * A price's rank on @side: its distance in ticks from the side's best end
 * of the price range, so that on both sides a smaller rank is a better
 * price and ranks of neighbouring ticks differ by one.
 */
static inline uint32_t level_rank(unsigned int side, uint32_t price)
{
	uint32_t g = level_grid(price);

	return side == BOOK_BID ? LEVEL_GRID_TOP - g : g;
}

/* The on-grid price of rank @r on @side (level_rank's inverse). */
static inline uint32_t level_rank_price(unsigned int side, uint32_t r)
{
	uint32_t g = side == BOOK_BID ? LEVEL_GRID_TOP - r : r;

	return g < 10000 ? g : 10000 + (g - 10000) * 100;
}

#endif /* BOOK_LEVEL_STORE_H */
