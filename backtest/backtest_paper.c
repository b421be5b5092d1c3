// SPDX-License-Identifier: MIT
/* t2t-backtest --itch --paper: the gateway's engine on a day file (backtest_paper.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gateway/paper_day.h"
#include "proto/dayfile.h"
#include "proto/itch_filter.h"
#include "backtest/backtest_paper.h"

#define EXIT_BAD	2

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

static void write_order(void *ctx, const struct gw_order *o)
{
	struct paper_run *r = ctx;
	const struct gw_inst *in = &r->e.inst[o->inst];

	fprintf(r->o->out, "%" PRIu64 ",%.*s,%c,%u,%u,%" PRIu64 "\n", o->md_seq,
		sym_len(in->symbol), in->symbol, o->side, o->shares, o->filled, o->cash);
}

/* The orders final so far (paper_day_orders()), or all of them at the end. */
static void write_orders(struct paper_run *r, bool all)
{
	if (!paper_day_orders(&r->e, &r->printed, all, write_order, r))
		r->lost = true;
}

static void after_msg(void *ctx)
{
	write_orders(ctx, false);
}

static int setup(struct paper_run *r, char *err, size_t errlen)
{
	const struct itch_opts *o = r->o;
	struct gw_cfg c;
	int ret;

	if (!o->nspec || o->nspec > GW_MAX_INST) {
		snprintf(err, errlen, "--paper trades 1 to %d --symbol, not %u", GW_MAX_INST,
			 o->nspec);
		return -EINVAL;
	}
	paper_day_config(&c, o->spec, o->nspec, o->paper_ns,
			 o->limit_bp == ITCH_LIMIT_GATEWAY ? PAPER_DAY_LIMIT_GATEWAY : o->limit_bp,
			 !o->track_named);
	c.book.max_orders = o->book_orders;
	c.book.pages = o->pages;
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

/* The day through the engine (gateway/paper_day.h), its orders as they become final. */
static int run_day(struct paper_run *r)
{
	char err[DAYFILE_ERR_LEN + 64];
	int ret = paper_day_run(&r->e, r->o->path, &r->filt, after_msg, r, err, sizeof(err));

	if (ret)
		fprintf(stderr, "t2t-backtest: %s\n", err);
	write_orders(r, true);
	return ret ? EXIT_BAD : 0;
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
