/* SPDX-License-Identifier: MIT */
/* TEMPORARY stand-in for the fill model (branch fill replaces it). */
#ifndef BOOK_FILL_H
#define BOOK_FILL_H

#include <stdint.h>

#include "book/book.h"

struct book_fill_exec {
	uint32_t price;
	uint32_t shares;
};

struct book_fill {
	uint32_t filled;
	uint32_t nexec;
	uint64_t cash;
};

struct book_fill book_fill(struct book *b, uint16_t locate, char side, uint32_t limit,
			   uint32_t shares, struct book_fill_exec *ex, unsigned int max);

#endif
