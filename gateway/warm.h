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
 * The shadow's orders go to a sink the loop gives: the AF_XDP loop sends
 * them dry, through its own send code, on a session that sends nowhere
 * (net/xsk_dry.h), so that an order's send is warm too.
 */
#ifndef GATEWAY_WARM_H
#define GATEWAY_WARM_H

#include <stddef.h>
#include <stdint.h>

#include "gateway/engine.h"
#include "proto/frame.h"
#include "util/touch.h"

#define WARM_EVERY_SPINS 64
#define WARM_PRICES	4096	/* the shadow's price path (GBM), replayed */

struct warm {
	struct gw_engine shadow;
	struct frame_template tmpl;	/* the dry tick's feed frame */
	uint64_t seq;
	size_t len;
	uint32_t price[WARM_PRICES];
	uint8_t frame[256] __attribute__((aligned(64)));
	uint64_t runs;
	uint64_t decided;	/* dry ticks whose decision passed the risk checks */
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
	touch_line(&o->st.orders);
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
 * the path's addresses (never sent).  Its orders, decided at the print as
 * a live run's are, go to @sink with @sink_ctx (the shadow's engine is
 * w->shadow): the function the live engine's go to, so that one copy of
 * it runs for both; NULL: they are dropped.
 */
int warm_init(struct warm *w, const struct gw_cfg *cfg, gw_sink_fn sink, void *sink_ctx,
	      const struct frame_endpoint *src, const struct frame_endpoint *dst,
	      char *err, size_t errlen);
void warm_destroy(struct warm *w);
/*
 * One dry tick at time @now: parse, checksums, decode, strategy, and when
 * the shadow's price path turns, risk checks and its order to the sink.
 * True when it decided an order (and the sink took it).
 */
bool warm_run(struct warm *w, uint64_t now);

#endif /* GATEWAY_WARM_H */
