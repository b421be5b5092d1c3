// SPDX-License-Identifier: MIT
#include <string.h>

#include "gateway/warm.h"
#include "gateway/engine_hot.h"
#include "proto/be.h"
#include "proto/itch.h"
#include "proto/moldudp64.h"
#include "strategy/gbm.h"

#define WARM_LOCATE 1

static size_t build_packet(uint8_t *buf, size_t cap, uint64_t seq,
			   const struct itch_msg *m)
{
	struct mold_builder b;
	char session[MOLD_SESSION_LEN];

	mold_session_set(session, "WARMUP");
	if (mold_builder_init(&b, buf, cap, session, seq) ||
	    mold_builder_append_itch(&b, m) < 0)
		return 0;
	return mold_builder_finish(&b);
}

/*
 * The shadow decides at its print through the live runs' code
 * (engine_set_sink()): the engine's inline print path is compiled into
 * engine.c once, and a dry tick that went through another copy of it would
 * leave the live one's instructions cold.  Without a sink of the loop's,
 * its orders go here, nowhere.
 */
static void no_sink(void *ctx, const struct gw_decision *d, unsigned int n, uint64_t t_seen)
{
	(void)ctx;
	(void)d;
	(void)n;
	(void)t_seen;
}

int warm_init(struct warm *w, const struct gw_cfg *cfg, gw_sink_fn sink, void *sink_ctx,
	      const struct frame_endpoint *src, const struct frame_endpoint *dst,
	      char *err, size_t errlen)
{
	struct gw_cfg c = *cfg;
	struct gw_decision d[GW_MAX_DECISIONS];
	struct itch_msg m;
	size_t len;

	memset(w, 0, sizeof(*w));
	c.n_inst = 1;
	c.orders.log_size = 16;
	c.tick_ring = 16;
	c.gap.hold = 1;
	c.book.max_orders = 1 << 12;
	/* The live path's code: a paper run decodes and decides through it too. */
	c.paper.on = false;
	if (engine_init(&w->shadow, &c, err, errlen))
		return -1;
	/* The shadow always trades: its session is up. */
	w->shadow.ord.up = true;
	engine_set_sink(&w->shadow, sink ? sink : no_sink, sink ? sink_ctx : NULL);
	frame_template_init(&w->tmpl, dst, src, 64, 0);

	/* Name the shadow's symbol, then keep one trade packet to replay. */
	memset(&m, 0, sizeof(m));
	m.type = 'R';
	m.locate = WARM_LOCATE;
	memcpy(m.r.stock, w->shadow.inst[0].symbol, ITCH_SYMBOL_LEN);
	len = build_packet(w->frame + FRAME_HDR_LEN, sizeof(w->frame) - FRAME_HDR_LEN, 1, &m);
	engine_on_feed(&w->shadow, w->frame + FRAME_HDR_LEN, len, 0, 0, d, 0);

	memset(&m, 0, sizeof(m));
	m.type = 'P';
	m.locate = WARM_LOCATE;
	m.p.side = 'B';
	m.p.shares = 100;
	memcpy(m.p.stock, w->shadow.inst[0].symbol, ITCH_SYMBOL_LEN);
	/*
	 * A GBM path, so that the shadow's strategy turns as often as a real
	 * one does and the dry tick runs the risk checks and the sink too.
	 */
	gbm_series(7, w->price, WARM_PRICES);
	m.p.price = w->price[0];
	w->seq = 2;
	len = build_packet(w->frame + FRAME_HDR_LEN, sizeof(w->frame) - FRAME_HDR_LEN,
			   w->seq, &m);
	/* A real frame around it, so the dry tick parses what a real one does. */
	w->len = frame_finish(&w->tmpl, w->frame, len);
	return w->len ? 0 : -1;
}

void warm_destroy(struct warm *w)
{
	engine_destroy(&w->shadow);
}

/* Where the trade's price sits in the kept frame. */
#define WARM_OFF_PRICE (FRAME_HDR_LEN + MOLD_HDR_LEN + MOLD_BLOCK_HDR_LEN + ITCH_P_OFF_PRICE)

bool warm_run(struct warm *w, uint64_t now)
{
	struct gw_decision d[GW_MAX_DECISIONS];
	struct frame_udp u;

	/*
	 * The shadow's orders are never answered: forget them, so that its
	 * exposure stays zero and a turned strategy still reaches the risk
	 * checks and the sink.
	 */
	w->shadow.ord.open_buy[0] = w->shadow.ord.open_sell[0] = 0;
	w->shadow.ord.open = 0;
	/* Each dry tick is the next message of the shadow's session. */
	be64_store(w->frame + FRAME_HDR_LEN + MOLD_OFF_SEQ, w->seq);
	be32_store(w->frame + WARM_OFF_PRICE, w->price[w->seq % WARM_PRICES]);
	w->seq++;
	frame_patch(&w->tmpl, w->frame, w->len - FRAME_HDR_LEN);
	w->runs++;
	if (frame_parse_udp(w->frame, w->len, &u) || frame_verify_checksums(&u))
		return false;
	engine_on_feed(&w->shadow, u.payload, u.payload_len, 0, now, d, 0);
	/* Reserved at the decision, released only when the sink could not send it. */
	if (!w->shadow.ord.open)
		return false;
	w->decided++;
	return true;
}
