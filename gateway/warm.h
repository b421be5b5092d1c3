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
#include "util/touch.h"

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
 * measurable).  Nothing is written (util/touch.h).
 */
static inline void engine_warm(const struct gw_engine *e)
{
	const struct tick_ring *r = &e->dec.ring;
	uint32_t slot = tick_ring_slot(r, r->head);
	const struct orders *o = &e->ord;

	touch_lines(&e->dec, offsetof(struct feed_decoder, dir));
	touch_lines(&e->st, sizeof(e->st));
	touch_line(&r->seq[slot]);
	touch_line(&r->exch_ts[slot]);
	touch_line(&r->arrival_ns[slot]);
	touch_line(&r->price[slot]);
	touch_line(&r->shares[slot]);
	touch_line(&r->locate[slot]);
	touch_line(&r->kind[slot]);
	touch_lines(&e->risk, sizeof(e->risk));
	touch_lines(o, offsetof(struct orders, st));
	touch_lines(&o->log[o->next & o->mask], sizeof(struct gw_order));
	touch_lines(&e->gap, offsetof(struct gw_gap, req));
	for (unsigned int i = 0; i < e->n_inst; i++) {
		const struct gw_inst *in = &e->inst[i];

		if (in->locate >= 0) {
			touch_line(&e->locate_inst[in->locate]);
			if (e->book)
				book_touch_sides(e->book, (uint16_t)in->locate);
		}
		touch_lines(in, offsetof(struct gw_inst, strat));
		strat_touch(&in->strat);
		touch_lines(&in->last_price, sizeof(*in) - offsetof(struct gw_inst, last_price));
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
