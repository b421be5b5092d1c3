/* SPDX-License-Identifier: MIT */
/* Price files: one integer Price(4) per line, as `t2t-backtest --gen` writes. */
#ifndef STRATEGY_PRICES_H
#define STRATEGY_PRICES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * Read every price of a file.  On error returns a negative errno and writes
 * one line (naming the file and line number) into err.
 */
int prices_load(const char *path, uint32_t **x, size_t *N,
		char *err, size_t errlen);
int prices_read(FILE *f, const char *name, uint32_t **x, size_t *N,
		char *err, size_t errlen);
int prices_write(FILE *f, const uint32_t *x, size_t N);

#endif /* STRATEGY_PRICES_H */
