/* SPDX-License-Identifier: MIT */
/*
 * Stock directory: ITCH Stock Locate (16 bits) <-> 8-byte symbol.
 *
 * Filled from ITCH 'R' messages.  Both directions are fixed-size tables
 * allocated at init: a 65536-entry locate -> symbol array and an
 * open-addressing symbol -> locate hash kept at most half full, so a lookup
 * or an insert probes a few slots.  Every entry carries the generation it
 * was written in, so clearing the directory is one increment, not a 3 MB
 * memset.  Symbols are the raw space-padded bytes; an all-NUL symbol is
 * treated as "unmapped".
 */
#ifndef BOOK_STOCK_DIR_H
#define BOOK_STOCK_DIR_H

#include <stdint.h>

#define STOCK_DIR_LOCATES	65536
#define STOCK_DIR_HASH_BITS	17
#define STOCK_DIR_HASH_SLOTS	(1u << STOCK_DIR_HASH_BITS)

struct stock_dir_entry {
	uint64_t symbol;	/* symbol bytes; 0 = unmapped */
	uint32_t gen;		/* valid only if == stock_dir.gen */
};

struct stock_dir_slot {
	uint64_t key;		/* symbol bytes */
	uint32_t locate;
	uint32_t gen;		/* empty unless == stock_dir.gen */
};

struct stock_dir {
	struct stock_dir_entry *entry;	/* [locate] */
	struct stock_dir_slot *hash;
	uint32_t gen;
	uint32_t hash_used;
	uint32_t mapped;	/* locates with a symbol */
};

/* Returns 0 or -ENOMEM. */
int stock_dir_init(struct stock_dir *dir);
void stock_dir_destroy(struct stock_dir *dir);
/* Forget every mapping: O(1). */
void stock_dir_clear(struct stock_dir *dir);

/*
 * Map @locate to @symbol (8 bytes), replacing an earlier mapping.  Returns 0,
 * or -ENOSPC when the reverse hash is full (the forward map is still set).
 */
int stock_dir_set(struct stock_dir *dir, uint16_t locate,
		  const char symbol[8]);

/* Locate of an 8-byte symbol, or -1 if no locate currently maps to it. */
int stock_dir_locate(const struct stock_dir *dir, const char symbol[8]);

/* Same from a C string ("AAPL"), space-padded to 8; -1 if over 8 chars. */
int stock_dir_locate_str(const struct stock_dir *dir, const char *name);

/* Pointer to the 8 symbol bytes of @locate, or NULL if unmapped. */
const char *stock_dir_symbol(const struct stock_dir *dir, uint16_t locate);

#endif /* BOOK_STOCK_DIR_H */
