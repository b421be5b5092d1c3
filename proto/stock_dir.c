// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "proto/stock_dir.h"

/* Keep the hash at most half full so that probe runs stay short. */
#define HASH_MAX_USED	(STOCK_DIR_HASH_SLOTS / 2)

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

int stock_dir_init(struct stock_dir *dir)
{
	memset(dir, 0, sizeof(*dir));
	dir->symbol = calloc(STOCK_DIR_LOCATES, sizeof(*dir->symbol));
	dir->hash = calloc(STOCK_DIR_HASH_SLOTS, sizeof(*dir->hash));
	if (!dir->symbol || !dir->hash) {
		stock_dir_destroy(dir);
		return -ENOMEM;
	}
	return 0;
}

void stock_dir_destroy(struct stock_dir *dir)
{
	free(dir->symbol);
	free(dir->hash);
	memset(dir, 0, sizeof(*dir));
}

void stock_dir_clear(struct stock_dir *dir)
{
	memset(dir->symbol, 0, STOCK_DIR_LOCATES * sizeof(*dir->symbol));
	memset(dir->hash, 0, STOCK_DIR_HASH_SLOTS * sizeof(*dir->hash));
	dir->hash_used = 0;
	dir->mapped = 0;
}

int stock_dir_set(struct stock_dir *dir, uint16_t locate,
		  const char symbol[8])
{
	uint64_t key = sym_key(symbol);
	uint32_t i;

	if (!dir->symbol[locate] && key)
		dir->mapped++;
	else if (dir->symbol[locate] && !key)
		dir->mapped--;
	dir->symbol[locate] = key;
	if (!key)
		return 0;

	/*
	 * No deletion: a symbol whose locate was remapped keeps a stale slot,
	 * which stock_dir_locate() recognises by checking the forward map.
	 */
	for (i = hash_of(key);; i = (i + 1) & (STOCK_DIR_HASH_SLOTS - 1)) {
		struct stock_dir_slot *s = &dir->hash[i];

		if (s->key == key) {
			s->locate = locate;
			return 0;
		}
		if (!s->key) {
			if (dir->hash_used >= HASH_MAX_USED)
				return -ENOSPC;
			s->key = key;
			s->locate = locate;
			dir->hash_used++;
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
	for (i = hash_of(key);; i = (i + 1) & (STOCK_DIR_HASH_SLOTS - 1)) {
		const struct stock_dir_slot *s = &dir->hash[i];

		if (!s->key)
			return -1;
		if (s->key == key)
			return dir->symbol[s->locate] == key ? (int)s->locate : -1;
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
	return dir->symbol[locate] ? (const char *)&dir->symbol[locate] : NULL;
}
