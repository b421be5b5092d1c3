// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "book/stock_dir.h"

/* Keep the hash at most half full so that probe runs stay short. */
#define HASH_MAX_USED	(STOCK_DIR_HASH_SLOTS / 2)
#define HASH_MASK	(STOCK_DIR_HASH_SLOTS - 1)

static uint64_t sym_key(const char symbol[8])
{
	uint64_t k;

	memcpy(&k, symbol, sizeof(k));
	return k;
}

static uint32_t hash_of(uint64_t key)
{
	return (uint32_t)((key * UINT64_C(0x9E3779B97F4A7C15)) >>
			  (64 - STOCK_DIR_HASH_BITS));
}

/* Symbol key of @locate in the current generation, 0 if unmapped. */
static uint64_t current(const struct stock_dir *dir, uint16_t locate)
{
	const struct stock_dir_entry *e = &dir->entry[locate];

	return e->gen == dir->gen ? e->symbol : 0;
}

int stock_dir_init(struct stock_dir *dir)
{
	memset(dir, 0, sizeof(*dir));
	dir->entry = calloc(STOCK_DIR_LOCATES, sizeof(*dir->entry));
	dir->hash = calloc(STOCK_DIR_HASH_SLOTS, sizeof(*dir->hash));
	if (!dir->entry || !dir->hash) {
		stock_dir_destroy(dir);
		return -ENOMEM;
	}
	dir->gen = 1;		/* calloc'd entries are generation 0: empty */
	return 0;
}

void stock_dir_destroy(struct stock_dir *dir)
{
	free(dir->entry);
	free(dir->hash);
	memset(dir, 0, sizeof(*dir));
}

void stock_dir_clear(struct stock_dir *dir)
{
	dir->hash_used = 0;
	dir->mapped = 0;
	if (++dir->gen)
		return;
	/* Generation wrapped (after 4 billion clears): really wipe. */
	memset(dir->entry, 0, STOCK_DIR_LOCATES * sizeof(*dir->entry));
	memset(dir->hash, 0, STOCK_DIR_HASH_SLOTS * sizeof(*dir->hash));
	dir->gen = 1;
}

int stock_dir_set(struct stock_dir *dir, uint16_t locate,
		  const char symbol[8])
{
	uint64_t key = sym_key(symbol), old = current(dir, locate);
	uint32_t i;

	if (!old && key)
		dir->mapped++;
	else if (old && !key)
		dir->mapped--;
	dir->entry[locate].symbol = key;
	dir->entry[locate].gen = dir->gen;
	if (!key)
		return 0;

	/*
	 * No deletion: a symbol whose locate was remapped keeps a stale slot,
	 * which stock_dir_locate() recognises by checking the forward map.
	 */
	for (i = hash_of(key);; i = (i + 1) & HASH_MASK) {
		struct stock_dir_slot *s = &dir->hash[i];

		if (s->gen != dir->gen) {
			if (dir->hash_used >= HASH_MAX_USED)
				return -ENOSPC;
			s->key = key;
			s->locate = locate;
			s->gen = dir->gen;
			dir->hash_used++;
			return 0;
		}
		if (s->key == key) {
			s->locate = locate;
			return 0;
		}
	}
}

int stock_dir_locate(const struct stock_dir *dir, const char symbol[8])
{
	uint64_t key = sym_key(symbol);
	uint32_t i;

	if (!key)
		return -1;
	for (i = hash_of(key);; i = (i + 1) & HASH_MASK) {
		const struct stock_dir_slot *s = &dir->hash[i];

		if (s->gen != dir->gen)
			return -1;
		if (s->key == key)
			return current(dir, (uint16_t)s->locate) == key ?
			       (int)s->locate : -1;
	}
}

int stock_dir_locate_str(const struct stock_dir *dir, const char *name)
{
	char sym[8];
	size_t n = strnlen(name, sizeof(sym) + 1);

	if (n > sizeof(sym))
		return -1;
	memset(sym, ' ', sizeof(sym));
	memcpy(sym, name, n);
	return stock_dir_locate(dir, sym);
}

const char *stock_dir_symbol(const struct stock_dir *dir, uint16_t locate)
{
	const struct stock_dir_entry *e = &dir->entry[locate];

	return e->gen == dir->gen && e->symbol ? (const char *)&e->symbol : NULL;
}
