// SPDX-License-Identifier: MIT
/* t2t-backtest --itch --paper: the gateway's engine on a day file (backtest_paper.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gateway/engine.h"
#include "proto/dayfile.h"
#include "proto/itch_filter.h"
#include "proto/moldudp64.h"
#include "strategy/backtest_paper.h"

#define EXIT_BAD	2
/* One message and its MoldUDP64 header: the largest ITCH message is 50 bytes. */
#define PKT_MAX		(MOLD_HDR_LEN + MOLD_BLOCK_HDR_LEN + 64)

struct paper_run {
	const struct itch_opts *o;
	struct gw_engine e;
	struct itch_filter filt;
	uint32_t printed;		/* orders written so far */
	bool lost;			/* ... and some fell out of the log first */
};

static int sym_len(const char sym[8])
{
	int n = 8;

	while (n > 1 && sym[n - 1] == ' ')
		n--;
	return n;
}

/*
 * The orders decided so far, in the order they were made.  Paper orders
 * are decided in that order too (gateway/paper.h), so every order before
 * the first one still waiting is final.
 */
static void write_orders(struct paper_run *r, bool all)
{
	const struct orders *ord = &r->e.ord;

	if (ord->next - r->printed > ord->mask + 1) {
		r->lost = true;
		r->printed = ord->next - (ord->mask + 1);
	}
	for (; r->printed != ord->next; r->printed++) {
		const struct gw_order *o = &ord->log[r->printed & ord->mask];
		const struct gw_inst *in = &r->e.inst[o->inst];

		if (!all && orders_is_open(o))
			break;
		fprintf(r->o->out, "%" PRIu64 ",%.*s,%c,%u,%u,%" PRIu64 "\n", o->md_seq,
			sym_len(in->symbol), in->symbol, o->side, o->shares, o->filled, o->cash);
	}
}

static int setup(struct paper_run *r, char *err, size_t errlen)
{
	const struct itch_opts *o = r->o;
	struct gw_cfg c;
	int ret;

	gw_cfg_defaults(&c);
	if (!o->nspec || o->nspec > GW_MAX_INST) {
		snprintf(err, errlen, "--paper trades 1 to %d --symbol, not %u", GW_MAX_INST,
			 o->nspec);
		return -EINVAL;
	}
	memcpy(c.inst, o->spec, o->nspec * sizeof(*o->spec));
	c.n_inst = o->nspec;
	c.books = o->track_named ? GW_BOOKS_OURS : GW_BOOKS_ALL;
	c.book.max_orders = o->book_orders;
	c.book.pages = o->pages;
	if (o->limit_bp != ITCH_LIMIT_GATEWAY)
		c.orders.limit_bp = o->limit_bp;
	c.paper.on = true;
	c.paper.latency_ns = o->paper_ns;
	/* A file has no holes to recover. */
	c.gap.no_recovery = true;
	ret = itch_filter_init(&r->filt, o->symbols, o->nsymbols);
	if (ret) {
		snprintf(err, errlen, "--symbols: %s", strerror(-ret));
		return ret;
	}
	ret = engine_init(&r->e, &c, err, errlen);
	if (ret)
		itch_filter_free(&r->filt);
	return ret;
}

/* Each kept message of the day as a packet of its own, numbered as a replay numbers it. */
static int run_day(struct paper_run *r)
{
	static const char session[MOLD_SESSION_LEN] = "BACKTEST  ";
	struct gw_decision dec[GW_MAX_DECISIONS];
	struct dayfile_reader rd;
	const uint8_t *m;
	uint64_t day_seq, seq;
	uint16_t len;
	int ret;

	if (dayfile_open(&rd, r->o->path, 0)) {
		fprintf(stderr, "t2t-backtest: %s\n", rd.err);
		return EXIT_BAD;
	}
	while ((ret = dayfile_next(&rd, &m, &len, &day_seq)) == 1) {
		uint8_t pkt[PKT_MAX];
		struct mold_builder b;
		uint8_t *blk;

		if (!itch_filter_keep(&r->filt, m, len, &seq))
			continue;
		if (mold_builder_init(&b, pkt, sizeof(pkt), session, seq) ||
		    !(blk = mold_builder_reserve(&b, len))) {
			/* Not an ITCH message's length: a packet could not carry it either. */
			r->e.dec.cnt.bad_length++;
			continue;
		}
		memcpy(blk, m, len);
		engine_on_feed(&r->e, pkt, mold_builder_finish(&b), 0, 0, dec, 0);
		write_orders(r, false);
	}
	if (ret < 0)
		fprintf(stderr, "t2t-backtest: %s\n", rd.err);
	dayfile_close(&rd);
	/* The end of the day: what still waits is decided on the books as they stand. */
	engine_paper_flush(&r->e);
	write_orders(r, true);
	return ret < 0 ? EXIT_BAD : 0;
}

/* Per symbol: orders, fills, position, cash and PnL marked at its last print. */
static int summary(const struct paper_run *r)
{
	int ret = 0;

	for (unsigned int k = 0; k < r->e.n_inst; k++) {
		const struct gw_inst *in = &r->e.inst[k];

		if (in->locate < 0) {
			fprintf(stderr, "t2t-backtest: %.*s is not in the day's stock directory\n",
				sym_len(in->symbol), in->symbol);
			ret = EXIT_BAD;
			continue;
		}
		fprintf(stderr, "t2t-backtest: %.*s paper (print + %" PRIu64 " ns): ticks %" PRIu64
			" orders %" PRIu64 " executions %" PRIu64 " position %" PRId64 " cash %.4f"
			" pnl %.4f\n", sym_len(in->symbol), in->symbol, r->o->paper_ns, in->ticks,
			in->orders, in->fills, in->pos_shares, (double)in->cash / 1e4,
			(double)inst_pnl(in) / 1e4);
	}
	return ret;
}

int backtest_paper(const struct itch_opts *o)
{
	struct paper_run *r = calloc(1, sizeof(*r));
	char err[256];
	int ret;

	if (!r) {
		fprintf(stderr, "t2t-backtest: out of memory\n");
		return EXIT_BAD;
	}
	r->o = o;
	if (setup(r, err, sizeof(err))) {
		fprintf(stderr, "t2t-backtest: %s\n", err);
		free(r);
		return EXIT_BAD;
	}
	fputs(PAPER_CSV_HEADER, o->out);
	ret = run_day(r);
	if (!ret)
		ret = summary(r);
	if (r->lost) {
		fprintf(stderr, "t2t-backtest: more orders waited at once than the order log "
			"holds: some were lost before written\n");
		ret = EXIT_BAD;
	}
	if (fflush(o->out)) {
		fprintf(stderr, "t2t-backtest: output: %s\n", strerror(errno));
		ret = EXIT_BAD;
	}
	engine_destroy(&r->e);
	itch_filter_free(&r->filt);
	free(r);
	return ret;
}
