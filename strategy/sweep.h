/* SPDX-License-Identifier: MIT */
/* Run the strategy over a whole price series with either kernel. */
#ifndef STRATEGY_SWEEP_H
#define STRATEGY_SWEEP_H

#include <stddef.h>
#include <stdint.h>

#include "strategy/sar.h"

enum hma_kernel {
	HMA_KERNEL_BATCH,
	HMA_KERNEL_INCREMENTAL,
};

/*
 * Trades and PnL of length L over x[0..N-1] (open position closed at the
 * end).  Returns 0, -ERANGE (bad length or price) or -ENOMEM.
 */
int sweep_run(const uint32_t *x, size_t N, long L, enum hma_kernel k,
	      struct sar *out);

/* Parse "6,12,20" into lengths[]; -ERANGE names the bad one in *bad. */
int sweep_parse_lengths(const char *s, unsigned int *lengths,
			unsigned int max, unsigned int *count, long *bad);

#endif /* STRATEGY_SWEEP_H */
