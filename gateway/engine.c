// SPDX-License-Identifier: MIT
/*
 * The engine's set-up and the work off the hot path: the stock directory's
 * callbacks, the sink a live run decides into, paper fills, the replies and
 * the make-up rule.  The per-packet hot path, from a datagram to its orders,
 * is in engine_hot.h.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "book/fill.h"
#include "gateway/engine_hot.h"
#include "util/clock.h"

#define UNTRADED_NAME_(id, s) [id] = s,
const char *const untraded_names[UNTRADED_NR] = { UNTRADED_NAMES(UNTRADED_NAME_) };

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

/*
 * A paper order is decided now, at the feed's time @t0.  It is built and
 * logged as a live order is when it leaves (though nothing is sent), and
 * then it waits in the paper queue until the feed reaches its arrival
 * time at the exchange (paper.h).
 */
static void paper_submit(struct gw_engine *e, const struct gw_decision *d, uint64_t t0)
{
	uint8_t pkt[OUCH_ENTER_PKT_LEN];
	struct gw_order *r;

	engine_build_order(e, d, e->step.now, pkt, &r);
	r->t.t_decided = r->t.t_queued = r->t.t_sent = mono_ns();
	paper_push(&e->paper, r->order_no, t0);
	e->dec.due = paper_next_due(&e->paper);
}

/*
 * This is the make-up rule, which live replies and paper fills share.  An
 * order of instrument @k has just ended.  If the instrument's last
 * strategy change got no order of its own (the orders in flight already
 * made the target) and the exposure no longer makes the target, that
 * change trades now, at its own print: the function returns 1 with the
 * order in *d, whose t_hook is @t_hook.  Nothing is made up while the
 * session is down or stale or the books are unsafe, as at a print
 * (engine_gate()).
 */
static int engine_make_up(struct gw_engine *e, unsigned int k, uint64_t t_hook, uint64_t now,
			  struct gw_decision *d)
{
	struct gw_inst *in = &e->inst[k];

	if (!in->covered || !e->ord.up || e->gap.stale || e->unsafe_from ||
	    engine_decide(e, k, 0, in->covered_px, now, d) <= 0)
		return 0;
	in->covered = false;
	d->md_seq = in->covered_seq;
	d->t_exch48 = in->covered_ts;
	d->t_hook = t_hook;
	d->flags |= ORDER_F_ONREPLY;
	return 1;
}

/*
 * Paper order @no reaches the matching engine at @t: filled from the book
 * as it stands (book/fill.h), booked like the replies a live exchange
 * sends at that moment, and the covered change made up on it as on a live
 * reply (engine_on_reply()), at @t.
 */
static void paper_fill(struct gw_engine *e, uint32_t no, uint64_t t)
{
	struct gw_order *r = &e->ord.log[no & e->ord.mask];
	struct gw_inst *in = &e->inst[r->inst];
	struct gw_paper *p = &e->paper;
	struct book_fill f = book_fill(e->book, (uint16_t)in->locate, r->side, r->price,
				       r->shares, NULL, 0);
	struct gw_decision d;

	orders_paper_result(&e->ord, r, f.filled, f.cash, f.nexec);
	inst_fill_sum(in, r->side, f.filled, f.cash, f.nexec);
	p->st.orders++;
	p->st.executions += f.nexec;
	p->st.shares += f.filled;
	if (f.filled == r->shares) {
		p->st.filled++;
	} else {
		in->cancels++;
		if (f.filled)
			p->st.partial++;
		else
			p->st.canceled++;
	}
	if (engine_make_up(e, r->inst, e->step.t_hook, t, &d))
		paper_submit(e, &d, t);
}

/* The feed is at @ts: every paper order that arrived before it is filled. */
static void paper_due(void *ctx, uint64_t ts)
{
	struct gw_engine *e = ctx;
	uint64_t t;

	while (paper_next_due(&e->paper) < ts) {
		uint32_t no = paper_pop(&e->paper, &t);

		paper_fill(e, no, t);
	}
	e->dec.due = paper_next_due(&e->paper);
}

void engine_paper_flush(struct gw_engine *e)
{
	uint64_t t;

	while (paper_waiting(&e->paper)) {
		uint32_t no = paper_pop(&e->paper, &t);

		e->paper.st.at_end++;
		paper_fill(e, no, t);
	}
	e->dec.due = UINT64_MAX;
}

/* A print of a paper run: the strategies on it at once, on the feed's clock. */
static void paper_print(void *ctx, uint64_t ts)
{
	struct gw_engine *e = ctx;
	struct gw_decision d[GW_MAX_DECISIONS];
	unsigned int n = engine_on_ticks(e, 1, e->step.t_hook, ts, e->step.flags,
					 e->step.late, d);

	for (unsigned int i = 0; i < n; i++)
		paper_submit(e, &d[i], ts);
}

/* A print of a live run: the strategies on it, and its orders sent at once. */
static void live_print(void *ctx, uint64_t ts)
{
	struct gw_engine *e = ctx;
	/* One print: at most one order (engine_on_ticks() of one tick). */
	struct gw_decision d[1];
	unsigned int n = engine_on_ticks(e, 1, e->step.t_hook, e->step.now, e->step.flags,
					 e->step.late, d);

	(void)ts;
	if (n)
		e->sink(e->sink_ctx, d, n, e->step.now);
}

int engine_set_sink(struct gw_engine *e, gw_sink_fn sink, void *ctx)
{
	if (e->paper.cfg.on)
		return -EINVAL;
	e->sink = sink;
	e->sink_ctx = ctx;
	feed_set_on_print(&e->dec, sink ? live_print : NULL);
	return 0;
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
	if (cfg->paper.on) {
		if (cfg->books == GW_BOOKS_OFF) {
			snprintf(err, errlen, "paper fills need the books of the traded "
				 "symbols: --books off does not go with --paper");
			return -EINVAL;
		}
		dcfg.on_print = paper_print;
		dcfg.on_due = paper_due;
	}
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
	/* As many may wait as the log holds orders. */
	ret = paper_init(&e->paper, &cfg->paper, cfg->orders.log_size);
	if (ret) {
		snprintf(err, errlen, "paper orders: %s", strerror(-ret));
		goto out_orders;
	}
	/* Written on the hot path like the order log: populated now. */
	e->untraded = mmap(NULL, untraded_size(e), PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (e->untraded == MAP_FAILED) {
		e->untraded = NULL;
		snprintf(err, errlen, "untraded log: %s", strerror(errno));
		ret = -ENOMEM;
		goto out_paper;
	}
	memset(e->untraded, 0, untraded_size(e));
	/* No order session: orders "leave" from the start. */
	if (cfg->paper.on)
		e->ord.up = true;
	return 0;
out_paper:
	paper_destroy(&e->paper);
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
	paper_destroy(&e->paper);
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
	return engine_make_up(e, r->inst, t_hook, now, out);
}

int64_t engine_pnl(const struct gw_engine *e)
{
	int64_t sum = 0;

	for (unsigned int i = 0; i < e->n_inst; i++)
		sum += inst_pnl(&e->inst[i]);
	return sum;
}
