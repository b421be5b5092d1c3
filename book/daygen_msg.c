// SPDX-License-Identifier: MIT
/* The day generator's writers of the messages every shape makes (daygen_int.h). */
#include "book/book_apply.h"
#include "book/daygen_admin.h"
#include "book/daygen_int.h"

static const char mpids[][4] = { { 'G', 'S', 'C', 'O' }, { 'M', 'S', 'C', 'O' },
				 { 'U', 'B', 'S', 'S' }, { 'N', 'I', 'T', 'E' } };

uint16_t dg_apply(struct daygen *g, const uint8_t *buf, uint16_t len)
{
	struct tape_print p;

	book_apply(&g->book, buf, len, g->n + 1, &p);
	return len;
}

uint16_t dg_put(struct daygen *g, uint8_t *buf, const struct itch_msg *m)
{
	return dg_apply(g, buf, (uint16_t)itch_encode(buf, DAYGEN_MSG_MAX, m));
}

uint16_t dg_pick_symbol(struct daygen *g)
{
	uint32_t u = (uint32_t)dg_rnd(g), lo = 0, hi = g->cfg.symbols - 1;

	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;

		if (u < g->sym_cdf[mid])
			hi = mid;
		else
			lo = mid + 1;
	}
	return (uint16_t)(lo + 1);
}

double dg_step_mid(struct daygen *g, uint16_t loc)
{
	struct gsym *s = &g->sym[loc];

	s->log_mid += s->sigma * dg_normal(g) - s->sigma * s->sigma / 2;
	return exp(s->log_mid);
}

const struct book_order *dg_pick_live(struct daygen *g, uint32_t min_shares)
{
	uint64_t n = g->recent_n < DG_RECENT ? g->recent_n : DG_RECENT;
	const struct book_order *o;

	for (int i = 0; n && i < 8; i++) {
		o = book_find(&g->book, g->recent[dg_rnd(g) % n]);
		if (o && o->shares >= min_shares)
			return o;
	}
	for (int i = 0; i < 8; i++) {
		uint16_t loc = dg_pick_symbol(g);
		uint32_t lvl = level_side(&g->book.levels, loc, dg_rnd(g) & 1)->best;

		o = lvl ? book_find(&g->book, g->qhead[lvl]) : NULL;
		if (o && o->shares >= min_shares)
			return o;
	}
	return NULL;
}

uint16_t dg_cancel(struct daygen *g, uint8_t *buf, uint64_t ts)
{
	const struct book_order *o = dg_pick_live(g, 2);

	if (!o)
		return 0;
	struct itch_msg m = dg_hdr('X', book_level_of(&g->book, o)->locate, ts);

	/* Partial: the order stays. */
	m.x.order_ref = o->ref;
	m.x.shares = 1 + (uint32_t)(dg_rnd(g) % (o->shares - 1));
	return dg_put(g, buf, &m);
}

uint16_t dg_exec(struct daygen *g, uint8_t *buf, char type, uint64_t ts, uint16_t loc,
		 double mid, bool c_off_tick)
{
	const struct book_level *bid = book_best(&g->book, loc, BOOK_BID);
	const struct book_level *ask = book_best(&g->book, loc, BOOK_ASK);
	const struct book_level *l;
	const struct book_order *o;
	unsigned int side;
	uint32_t lvl, shares;

	/* Stale quotes get taken. */
	if (ask && ask->price < mid)
		side = BOOK_ASK;
	else if (bid && bid->price > mid)
		side = BOOK_BID;
	else
		side = dg_rnd(g) & 1;
	if (!book_best(&g->book, loc, side))
		side ^= 1;
	lvl = level_side(&g->book.levels, loc, side)->best;
	if (!lvl)
		return 0;
	l = &g->book.levels.lv[lvl];
	o = book_find(&g->book, g->qhead[lvl]);
	if (!o)
		return 0;
	shares = o->shares;
	if (shares > 1 && dg_rnd(g) % 2)
		shares = 1 + (uint32_t)(dg_rnd(g) % (shares - 1));
	struct itch_msg m = dg_hdr(type, loc, ts);

	m.e.order_ref = o->ref;
	m.e.shares = shares;
	m.e.match = ++g->match;
	if (type == 'C') {
		m.e.printable = dg_rnd(g) % 4 ? 'Y' : 'N';
		m.e.price = l->price;
		if (c_off_tick && dg_rnd(g) % 2 && l->price > DG_TICK &&
		    l->price < UINT32_MAX - DG_TICK)
			m.e.price += side == BOOK_BID ? -DG_TICK : DG_TICK;
	}
	if (shares == o->shares)
		dg_q_unlink(g, lvl, (uint32_t)o->ref);
	return dg_put(g, buf, &m);
}

uint16_t dg_trade(struct daygen *g, uint8_t *buf, uint64_t ts, uint16_t loc, double mid)
{
	const struct book_level *bid = book_best(&g->book, loc, BOOK_BID);
	const struct book_level *ask = book_best(&g->book, loc, BOOK_ASK);
	struct itch_msg m = dg_hdr('P', loc, ts);

	m.p.order_ref = 0;
	m.p.side = dg_rnd(g) & 1 ? 'B' : 'S';
	m.p.shares = dg_lot(g);
	memcpy(m.p.stock, g->sym[loc].name, ITCH_SYMBOL_LEN);
	if (bid && ask)
		m.p.price = (uint32_t)(((uint64_t)bid->price + ask->price) / 2);
	else
		m.p.price = (uint32_t)llround(mid);
	m.p.match = ++g->match;
	return dg_put(g, buf, &m);
}

uint16_t dg_system_event(struct daygen *g, uint8_t *buf, char event, uint64_t ts)
{
	struct itch_msg m = dg_hdr('S', 0, ts);

	m.s.event = event;
	return dg_put(g, buf, &m);
}

uint16_t dg_directory(struct daygen *g, uint8_t *buf, uint16_t loc, uint64_t ts)
{
	struct itch_msg m = dg_hdr('R', loc, ts);

	memcpy(m.r.stock, g->sym[loc].name, ITCH_SYMBOL_LEN);
	m.r.market_category = 'Q';
	m.r.financial_status = 'N';
	m.r.round_lot_size = 100;
	m.r.round_lots_only = 'N';
	m.r.issue_classification = 'C';
	memcpy(m.r.issue_subtype, "Z ", 2);
	m.r.authenticity = 'P';
	m.r.short_sale_threshold = 'N';
	m.r.ipo_flag = 'N';
	m.r.luld_tier = '1';
	m.r.etp_flag = 'N';
	m.r.etp_leverage = 0;
	m.r.inverse = 'N';
	return dg_put(g, buf, &m);
}

uint16_t dg_trading_action(struct daygen *g, uint8_t *buf, uint16_t loc, uint64_t ts)
{
	struct itch_hdr h = { .locate = loc, .ts = ts, .stock = g->sym[loc].name };

	return dg_apply(g, buf, itch_put_trading_action(buf, &h, 'T'));
}

uint16_t dg_reg_sho(struct daygen *g, uint8_t *buf, uint16_t loc, uint64_t ts)
{
	struct itch_hdr h = { .locate = loc, .ts = ts, .stock = g->sym[loc].name };

	return dg_apply(g, buf, itch_put_reg_sho(buf, &h, '0'));
}

/* The three MWCB levels, Price(8). */
uint16_t dg_mwcb_levels(struct daygen *g, uint8_t *buf, uint64_t ts)
{
	struct itch_hdr h = { .ts = ts };

	return dg_apply(g, buf, itch_put_mwcb_levels(buf, &h, 2000000000000ull,
						     1800000000000ull, 1600000000000ull));
}

uint16_t dg_admin(struct daygen *g, uint8_t *buf, char type, uint64_t ts, uint16_t loc)
{
	uint32_t px = dg_mid_px(g, loc);
	struct itch_hdr h = { .locate = loc, .ts = ts, .stock = g->sym[loc].name };
	uint16_t len = 0;

	switch (type) {
	case 'I':
		len = itch_put_noii(buf, &h, (uint64_t)dg_lot(g) * 10, dg_lot(g),
				    "BSNO"[dg_rnd(g) % 4], px + DG_TICK, px - DG_TICK, px, 'C',
				    dg_rnd(g) % 3 ? ' ' : 'L');
		break;
	case 'N':
		len = itch_put_rpii(buf, &h, "BSAN"[dg_rnd(g) % 4]);
		break;
	case 'L':
		len = itch_put_mp_position(buf, &h, mpids[dg_rnd(g) % 4],
					   dg_rnd(g) % 2 ? 'Y' : 'N', 'N', 'A');
		break;
	case 'H':
		len = itch_put_trading_action(buf, &h, 'T');
		break;
	case 'Y':
		len = itch_put_reg_sho(buf, &h, '0');
		break;
	case 'O':
		len = itch_put_dlcr(buf, &h, 'Y', px - 10 * DG_TICK, px + 10 * DG_TICK, px, ts,
				    px - 20 * DG_TICK, px + 20 * DG_TICK);
		break;
	case 'J':
		len = itch_put_luld_collar(buf, &h, px, px + px / 10, px - px / 10, 1);
		break;
	case 'K':
		len = itch_put_ipo_quoting(buf, &h, (uint32_t)(ts / 1000000000u) + 60, 'A', px);
		break;
	case 'h':
		len = itch_put_op_halt(buf, &h, 'Q', 'T');
		break;
	case 'W':
		h.locate = 0;
		len = itch_put_mwcb_status(buf, &h, '1');
		break;
	case 'B': {
		struct itch_msg m = dg_hdr('B', loc, ts);

		if (!g->match)
			return 0;
		m.b.match = 1 + dg_rnd(g) % g->match;
		return dg_put(g, buf, &m);
	}
	}
	return dg_apply(g, buf, len);
}

const char *dg_mpid(struct daygen *g)
{
	return mpids[dg_rnd(g) % 4];
}
