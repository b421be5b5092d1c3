// SPDX-License-Identifier: MIT
/* The book: set-up in one prefaulted mapping, digest, description. */
#include <errno.h>
#include <string.h>

#include "book/book.h"

#define LINE 64

static size_t align_line(size_t n)
{
	return (n + LINE - 1) & ~(size_t)(LINE - 1);
}

/* Smallest power of two >= 2n (so the table is at most half full), >= 16. */
static uint32_t table_bits(uint32_t n)
{
	uint32_t bits = 4;

	while ((1ull << bits) < 2ull * n)
		bits++;
	return bits;
}

/* Every window block on the free list, in order. */
static void free_blocks(struct level_store *ls)
{
	for (uint32_t i = 1; i <= ls->blocks; i++)
		ls->win[(size_t)i * LEVEL_WINDOW] = i < ls->blocks ? i + 1 : 0;
	ls->free_block = ls->blocks ? 1 : 0;
}

int book_init(struct book *b, const struct book_config *cfg)
{
	uint32_t max_orders = cfg->max_orders ? cfg->max_orders : BOOK_DEFAULT_ORDERS;
	uint32_t max_levels = cfg->max_levels ? cfg->max_levels : max_orders;
	uint32_t windows = cfg->windows;
	uint32_t obits, hbits;
	size_t o_off, l_off, h_off, s_off, b_off, w_off, t_off, size;
	uint8_t *base;
	int ret;

	memset(b, 0, sizeof(*b));
	if (!windows)
		windows = max_levels < BOOK_DEFAULT_WINDOWS ? max_levels : BOOK_DEFAULT_WINDOWS;
	if (max_orders > BOOK_MAX_ORDERS || max_levels > BOOK_MAX_ORDERS ||
	    windows > 2 * BOOK_LOCATES)
		return -EINVAL;
	obits = table_bits(max_orders);
	hbits = table_bits(max_levels);

	o_off = 0;
	l_off = align_line(o_off + ((size_t)1 << obits) * sizeof(struct book_order));
	h_off = align_line(l_off + ((size_t)max_levels + 1) * sizeof(struct book_level));
	s_off = align_line(h_off + ((size_t)1 << hbits) * sizeof(struct level_slot));
	b_off = align_line(s_off + (size_t)BOOK_LOCATES * 2 * sizeof(struct book_side));
	w_off = align_line(b_off + (size_t)BOOK_LOCATES * 2 * sizeof(uint32_t));
	t_off = align_line(w_off + ((size_t)windows + 1) * LEVEL_WINDOW * sizeof(uint32_t));
	size = align_line(t_off + BOOK_LOCATES);

	ret = table_mem_map(&b->mem, size, cfg->pages);
	if (ret)
		return ret;
	base = b->mem.addr;

	b->orders.slot = (struct book_order *)(base + o_off);
	b->orders.bits = obits;
	b->orders.mask = (1ull << obits) - 1;

	b->levels.lv = (struct book_level *)(base + l_off);
	b->levels.hash = (struct level_slot *)(base + h_off);
	b->levels.side = (struct book_side *)(base + s_off);
	b->levels.hbits = hbits;
	b->levels.hmask = (1ull << hbits) - 1;
	b->levels.cap = max_levels;
	b->levels.fresh = 1;
	b->levels.block = (uint32_t *)(base + b_off);
	b->levels.win = (uint32_t *)(base + w_off);
	b->levels.blocks = windows;
	free_blocks(&b->levels);

	b->tracked = base + t_off;
	if (cfg->track_all)
		memset(b->tracked, 1, BOOK_LOCATES);
	b->max_orders = max_orders;
	return 0;
}

void book_destroy(struct book *b)
{
	table_mem_unmap(&b->mem);
	memset(b, 0, sizeof(*b));
}

void book_clear(struct book *b)
{
	struct level_store *ls = &b->levels;

	/* Only the sides of live levels can be non-empty. */
	for (uint32_t i = 1; i < ls->fresh; i++) {
		const struct book_level *l = &ls->lv[i];

		if (l->orders) {
			struct book_side *sd = level_side(ls, l->locate, l->side);

			memset(sd, 0, sizeof(*sd));
			*win_block(ls, sd) = 0;
		}
	}
	memset(ls->win, 0, ((size_t)ls->blocks + 1) * LEVEL_WINDOW * sizeof(*ls->win));
	free_blocks(ls);
	memset(ls->hash, 0, (ls->hmask + 1) * sizeof(*ls->hash));
	memset(b->orders.slot, 0, (b->orders.mask + 1) * sizeof(*b->orders.slot));
	ls->used = 0;
	ls->fresh = 1;
	ls->free_head = 0;
	b->live = 0;
	b->peak = 0;
	memset(&b->cnt, 0, sizeof(b->cnt));
}

void book_describe_pages(const struct book *b, char *buf, size_t len)
{
	table_mem_describe(&b->mem, buf, len);
}

#define FNV_PRIME 0x100000001b3ull

static uint64_t fnv(uint64_t h, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++) {
		h ^= (uint8_t)(v >> (8 * i));
		h *= FNV_PRIME;
	}
	return h;
}

static uint64_t digest_locate(const struct book *b, uint16_t locate, uint64_t h)
{
	for (unsigned int side = BOOK_BID; side <= BOOK_ASK; side++) {
		const struct book_level *l;

		for (l = book_best(b, locate, side); l; l = book_level_next(b, l)) {
			h = fnv(h, locate, 2);
			h = fnv(h, side == BOOK_BID ? 'B' : 'S', 1);
			h = fnv(h, l->price, 4);
			h = fnv(h, l->shares, 8);
			h = fnv(h, l->orders, 4);
		}
	}
	return h;
}

uint64_t book_digest(const struct book *b)
{
	uint64_t h = BOOK_DIGEST_EMPTY;

	for (uint32_t loc = 0; loc < BOOK_LOCATES; loc++)
		h = digest_locate(b, (uint16_t)loc, h);
	return h;
}

uint64_t book_digest_locate(const struct book *b, uint16_t locate)
{
	return digest_locate(b, locate, BOOK_DIGEST_EMPTY);
}
