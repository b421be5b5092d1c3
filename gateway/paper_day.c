// SPDX-License-Identifier: MIT
/* A day file through the engine in paper mode (paper_day.h). */
#include <stdio.h>
#include <string.h>

#include "gateway/paper_day.h"
#include "gateway/engine_hot.h"
#include "proto/dayfile.h"
#include "proto/moldudp64.h"

/* One message and its MoldUDP64 header: the largest ITCH message is 50 bytes. */
#define PKT_MAX		(MOLD_HDR_LEN + MOLD_BLOCK_HDR_LEN + 64)

void paper_day_config(struct gw_cfg *c, const struct inst_spec *spec, unsigned int n,
		      uint64_t latency_ns, uint32_t limit_bp, bool books_all)
{
	gw_cfg_defaults(c);
	memcpy(c->inst, spec, n * sizeof(*spec));
	c->n_inst = n;
	c->books = books_all ? GW_BOOKS_ALL : GW_BOOKS_OURS;
	if (limit_bp != PAPER_DAY_LIMIT_GATEWAY)
		c->orders.limit_bp = limit_bp;
	c->paper.on = true;
	c->paper.latency_ns = latency_ns;
	/* A file has no holes to recover. */
	c->gap.no_recovery = true;
}

int paper_day_run(struct gw_engine *e, const char *path, struct itch_filter *filt,
		  void (*after)(void *ctx), void *ctx, char *err, size_t errlen)
{
	static const char session[MOLD_SESSION_LEN] = "BACKTEST  ";
	struct gw_decision dec[GW_MAX_DECISIONS];
	struct dayfile_reader rd;
	const uint8_t *m;
	uint64_t day_seq, seq;
	uint16_t len;
	int ret;

	if (dayfile_open(&rd, path, 0)) {
		snprintf(err, errlen, "%s", rd.err);
		return -1;
	}
	while ((ret = dayfile_next(&rd, &m, &len, &day_seq)) == 1) {
		uint8_t pkt[PKT_MAX];
		struct mold_builder b;
		uint8_t *blk;

		if (!itch_filter_keep(filt, m, len, &seq))
			continue;
		if (mold_builder_init(&b, pkt, sizeof(pkt), session, seq) ||
		    !(blk = mold_builder_reserve(&b, len))) {
			/* Not an ITCH message's length: a packet could not carry it either. */
			e->dec.cnt.bad_length++;
			continue;
		}
		memcpy(blk, m, len);
		engine_on_feed(e, pkt, mold_builder_finish(&b), 0, 0, dec, 0);
		if (after)
			after(ctx);
	}
	if (ret < 0)
		snprintf(err, errlen, "%s", rd.err);
	dayfile_close(&rd);
	/* The end of the day: what still waits is decided on the books as they stand. */
	engine_paper_flush(e);
	return ret < 0 ? -1 : 0;
}

bool paper_day_orders(const struct gw_engine *e, uint32_t *next, bool all,
		      void (*fn)(void *ctx, const struct gw_order *o), void *ctx)
{
	const struct orders *ord = &e->ord;
	bool kept = true;

	if (ord->next - *next > ord->mask + 1) {
		kept = false;
		*next = ord->next - (ord->mask + 1);
	}
	for (; *next != ord->next; (*next)++) {
		const struct gw_order *o = &ord->log[*next & ord->mask];

		if (!all && orders_is_open(o))
			break;
		fn(ctx, o);
	}
	return kept;
}
