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
#include "proto/tcp_seg.h"

#define WARM_EVERY_SPINS 64
#define WARM_PRICES	4096	/* the shadow's price path (GBM), replayed */

struct warm {
	struct gw_engine shadow;
	struct frame_template tmpl;	/* the dry tick's feed frame */
	struct tcp_template order_tmpl;	/* its order's frame */
	uint64_t seq;
	size_t len;
	uint32_t price[WARM_PRICES];
	uint8_t frame[256] __attribute__((aligned(64)));
	uint8_t out[256] __attribute__((aligned(64)));
	uint64_t runs;
	uint64_t decided;	/* dry ticks whose decision passed the risk checks */
	struct gw_decision dec;	/* the dry tick's order, from its sink */
	bool have_dec;
};

/*
 * Read every line the next tick will touch on the live engine: the decoder
 * and its ring slot, the counters, the instruments and their strategies,
 * the risk and order state, the next order record, and the two sides of
 * each instrument's book, which the collar reads at every order (cold,
 * they cost the print path 50-170 ns in bench_engine; warm, nothing
 * measurable).  Plain loads, not prefetches: a prefetch may be dropped
 * when it misses the TLB, which is half the point.  Nothing is written.
 */
static inline void warm_lines(const void *p, size_t len)
{
	for (size_t off = 0; off < len; off += 64)
		STRAT_TOUCH((const char *)p + off);
}

static inline void engine_warm(const struct gw_engine *e)
{
	const struct tick_ring *r = &e->dec.ring;
	uint32_t slot = tick_ring_slot(r, r->head);
	const struct orders *o = &e->ord;

	warm_lines(&e->dec, offsetof(struct feed_decoder, dir));
	warm_lines(&e->st, sizeof(e->st));
	STRAT_TOUCH(&r->seq[slot]);
	STRAT_TOUCH(&r->exch_ts[slot]);
	STRAT_TOUCH(&r->arrival_ns[slot]);
	STRAT_TOUCH(&r->price[slot]);
	STRAT_TOUCH(&r->shares[slot]);
	STRAT_TOUCH(&r->locate[slot]);
	STRAT_TOUCH(&r->kind[slot]);
	warm_lines(&e->risk, sizeof(e->risk));
	warm_lines(o, offsetof(struct orders, st));
	warm_lines(&o->log[o->next & o->mask], sizeof(struct gw_order));
	warm_lines(&e->gap, offsetof(struct gw_gap, req));
	for (unsigned int i = 0; i < e->n_inst; i++) {
		const struct gw_inst *in = &e->inst[i];

		if (in->locate >= 0) {
			STRAT_TOUCH(&e->locate_inst[in->locate]);
			if (e->book)
				book_touch_sides(e->book, (uint16_t)in->locate);
		}
		warm_lines(in, offsetof(struct gw_inst, strat));
		strat_touch(&in->strat);
		warm_lines(&in->last_price, sizeof(*in) - offsetof(struct gw_inst, last_price));
	}
}

/*
 * The shadow trades the first instrument of cfg; its frames go between
 * the path's addresses (never sent).
 */
int warm_init(struct warm *w, const struct gw_cfg *cfg, const struct frame_endpoint *src,
	      const struct frame_endpoint *dst, char *err, size_t errlen);
void warm_destroy(struct warm *w);
/*
 * One dry tick: parse, checksums, decode, strategy, and (when the shadow's
 * price path turns) risk checks, order build and frame finish.
 */
void warm_run(struct warm *w);

#endif /* GATEWAY_WARM_H */
