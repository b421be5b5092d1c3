// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "gateway/engine.h"

const char *const untraded_names[UNTRADED_NR] = {
	[UNTRADED_LATE] = "late",
	[UNTRADED_COVERED] = "covered",
	[UNTRADED_RISK] = "risk",
	[UNTRADED_OVERFLOW] = "overflow",
	[UNTRADED_SESSION] = "session",
};

/* The stock directory names a locate: ours, or listed but not traded. */
static void on_symbol(void *ctx, uint16_t locate, const char symbol[8])
{
	struct gw_engine *e = ctx;

	for (unsigned int i = 0; i < e->n_inst; i++) {
		struct gw_inst *in = &e->inst[i];

		if (memcmp(in->symbol, symbol, 8))
			continue;
		if (in->locate >= 0 && in->locate != locate)
			e->locate_inst[in->locate] = GW_LOCATE_OTHER;
		in->locate = locate;
		e->locate_inst[locate] = (uint8_t)(i + 1);
		if (e->book)
			book_track(e->book, locate, true);
		return;
	}
	if (e->locate_inst[locate] == GW_LOCATE_UNKNOWN)
		e->locate_inst[locate] = GW_LOCATE_OTHER;
}

static size_t untraded_size(const struct gw_engine *e)
{
	return (size_t)(e->ord.mask + 1) * sizeof(*e->untraded);
}

void gw_cfg_defaults(struct gw_cfg *c)
{
	static const struct inst_spec book[] = {
		{ "AAPL", 20, 100 }, { "MSFT", 32, 100 }, { "NVDA", 48, 100 },
	};

	memset(c, 0, sizeof(*c));
	memcpy(c->inst, book, sizeof(book));
	c->n_inst = sizeof(book) / sizeof(book[0]);
	c->tick_ring = 1u << 16;
	c->books = GW_BOOKS_OURS;
	/* Transparent huge pages where none are reserved: the book is 190 MB
	 * of random access, and a TLB miss on 4 KB pages costs a page walk. */
	c->book.pages = TABLE_MEM_THP;
	c->risk.max_order = 100000;
	c->risk.collar_bp = 500;
	c->orders.log_size = 1u << 18;
	c->orders.limit_bp = 10;
	strcpy(c->orders.firm, "T2TG");
	c->orders.timeout_ns = 1000 * 1000000ull;
	/* A day's replies replay in a few ms at a veth's round trip. */
	c->orders.resend_after_ns = 20 * 1000000ull;
	/*
	 * 8192 packets: at the fastest tested rate (about 32,000 packed
	 * packets a second) 250 ms of feed, so a stall of 50 ms and the
	 * recovery after it fit with room to spare.
	 */
	c->gap.hold = 8192;
	c->gap.retry_ns = 50 * 1000000ull;
	c->gap.timeout_ns = 2000 * 1000000ull;
	c->gap.max_hole = 500000;
	c->gap.window = 32;
	c->gap.max_catchup_ns = 50 * 1000000ull;
}

int engine_init(struct gw_engine *e, const struct gw_cfg *cfg,
		char *err, size_t errlen)
{
	struct feed_decoder_config dcfg = {
		.ring_capacity = cfg->tick_ring,
		.session = cfg->session,
		.on_symbol = on_symbol,
		.cb_ctx = e,
	};
	int ret;

	memset(e, 0, sizeof(*e));
	if (!cfg->n_inst || cfg->n_inst > GW_MAX_INST) {
		snprintf(err, errlen, "between 1 and %d instruments, not %u",
			 GW_MAX_INST, cfg->n_inst);
		return -EINVAL;
	}
	e->n_inst = cfg->n_inst;
	for (unsigned int i = 0; i < cfg->n_inst; i++) {
		ret = inst_init(&e->inst[i], &cfg->inst[i], cfg->orders.firm);
		if (ret) {
			snprintf(err, errlen, "%s: HMA length %u out of range [%d, %d]",
				 cfg->inst[i].symbol, cfg->inst[i].length, HMA_LEN_MIN,
				 HMA_LEN_MAX);
			return ret;
		}
	}
	risk_init(&e->risk, &cfg->risk);
	if (cfg->books != GW_BOOKS_OFF) {
		struct book_config bc = cfg->book;

		bc.track_all = cfg->books == GW_BOOKS_ALL;
		ret = book_init(&e->book_mem, &bc);
		if (ret) {
			snprintf(err, errlen, "order book (%u orders): %s", bc.max_orders ?
				 bc.max_orders : BOOK_DEFAULT_ORDERS, strerror(-ret));
			return ret;
		}
		e->book = &e->book_mem;
		dcfg.book = e->book;
	}
	ret = feed_decoder_init(&e->dec, &dcfg);
	if (ret) {
		snprintf(err, errlen, "feed decoder: %s", strerror(-ret));
		goto out_book;
	}
	ret = gap_init(&e->gap, &cfg->gap);
	if (ret) {
		snprintf(err, errlen, "gap hold area (%u packets): %s", cfg->gap.hold,
			 strerror(-ret));
		goto out_dec;
	}
	ret = orders_init(&e->ord, &cfg->orders, err, errlen);
	if (ret)
		goto out_gap;
	/* Written on the hot path like the order log: populated now. */
	e->untraded = mmap(NULL, untraded_size(e), PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (e->untraded == MAP_FAILED) {
		e->untraded = NULL;
		snprintf(err, errlen, "untraded log: %s", strerror(errno));
		ret = -ENOMEM;
		goto out_orders;
	}
	memset(e->untraded, 0, untraded_size(e));
	return 0;
out_orders:
	orders_destroy(&e->ord);
out_gap:
	gap_destroy(&e->gap);
out_dec:
	feed_decoder_destroy(&e->dec);
out_book:
	if (e->book)
		book_destroy(e->book);
	e->book = NULL;
	return ret;
}

void engine_destroy(struct gw_engine *e)
{
	if (e->untraded)
		munmap(e->untraded, untraded_size(e));
	e->untraded = NULL;
	orders_destroy(&e->ord);
	gap_destroy(&e->gap);
	feed_decoder_destroy(&e->dec);
	if (e->book)
		book_destroy(e->book);
	e->book = NULL;
}

unsigned int engine_on_reply(struct gw_engine *e, const uint8_t *msg, size_t len,
			     uint64_t t_hook, uint64_t now, struct gw_decision *out)
{
	struct gw_order *r;
	struct gw_inst *in;
	uint32_t shares;
	char type = orders_on_reply(&e->ord, msg, len, &r, &shares);

	if (!type || type == 'A')
		return 0;
	in = &e->inst[r->inst];
	switch (type) {
	case 'E':
		inst_fill(in, r->side, shares, r->fill_price);
		break;
	case 'C':
		in->cancels++;
		break;
	case 'J':
		in->rejects++;
		break;
	}
	if (!in->covered || !e->ord.up || e->gap.stale ||
	    engine_decide(e, r->inst, 0, in->covered_px, now, out) <= 0)
		return 0;
	in->covered = false;
	out->md_seq = in->covered_seq;
	out->t_exch48 = in->covered_ts;
	out->t_hook = t_hook;
	out->flags |= ORDER_F_ONREPLY;
	return 1;
}

int64_t engine_pnl(const struct gw_engine *e)
{
	int64_t sum = 0;

	for (unsigned int i = 0; i < e->n_inst; i++)
		sum += inst_pnl(&e->inst[i]);
	return sum;
}
