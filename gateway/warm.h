/* SPDX-License-Identifier: MIT */
/*
 * Keeping the hot path hot while the feed is quiet.
 *
 * On this core the TX kick runs the kernel's whole veth transmit, and
 * between ticks nothing of ours runs but the spin on the RX ring: by the
 * next tick the decoder, the strategy and the order builder have left the
 * L1 caches, instructions included, and the tick pays for it (measured:
 * hundreds of ns of seen->decided).  So while idle the loop periodically
 * runs a dry tick through the same code on a shadow engine (its own
 * decoder, strategy and order log; nothing is sent, no real state or
 * counter changes), and prefetches the real engine's lines (engine_warm).
 */
#ifndef GATEWAY_WARM_H
#define GATEWAY_WARM_H

#include <stddef.h>
#include <stdint.h>

#include "gateway/engine.h"
#include "proto/frame.h"

#define WARM_EVERY_SPINS 64
#define WARM_PRICES	4096	/* the shadow's price path (GBM), replayed */

struct warm {
	struct gw_engine shadow;
	struct frame_template tmpl;
	uint64_t seq;
	size_t len;
	uint32_t price[WARM_PRICES];
	uint8_t frame[256] __attribute__((aligned(64)));
	uint8_t out[256] __attribute__((aligned(64)));
	uint64_t runs;
	uint64_t decided;	/* dry ticks whose decision passed the risk checks */
};

/* The shadow trades the first instrument of cfg; tmpl is the path's. */
int warm_init(struct warm *w, const struct gw_cfg *cfg,
	      const struct frame_template *tmpl, char *err, size_t errlen);
void warm_destroy(struct warm *w);
/*
 * One dry tick: parse, checksums, decode, strategy, and (when the shadow's
 * price path turns) risk checks, order build and frame finish.
 */
void warm_run(struct warm *w);

#endif /* GATEWAY_WARM_H */
