// SPDX-License-Identifier: MIT
/*
 * The flat shape (daygen.h): every message in its own even slot of the
 * day, the symbols' activity ~ 1 / rank, lifetimes counted in messages.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "book/book_apply.h"
#include "book/daygen_int.h"
#include "proto/dayfile.h"

#define DAILY_VOL	0.02

/* The session's mix in parts per million (30 Jan 2019 for the big ones). */
static const struct {
	char type;
	uint32_t ppm;
} mix[] = {
	{ 'A', 440000 }, { 'D', 430000 }, { 'U', 74000 }, { 'E', 22000 },
	{ 'X', 13000 }, { 'F', 6000 }, { 'I', 6295 }, { 'P', 3600 },
	{ 'N', 3500 }, { 'L', 800 }, { 'C', 400 }, { 'H', 100 }, { 'Y', 100 },
	{ 'O', 100 }, { 'J', 50 }, { 'K', 20 }, { 'h', 20 }, { 'B', 10 },
	{ 'W', 5 },
};

/* A limit price a few ticks behind the mid that does not cross the book. */
static uint32_t place(struct daygen *g, uint16_t loc, unsigned int side, double mid)
{
	const struct book_level *opp = book_best(&g->book, loc, side ^ 1);
	uint32_t k = dg_rnd(g) % 20 == 0 ? 10 + (uint32_t)(dg_rnd(g) % 190)
					 : dg_geometric(g, 0.35, 60);
	int64_t at = (int64_t)(mid / DG_TICK), px;

	if (side == BOOK_BID) {
		px = (at - (int64_t)k) * DG_TICK;
		if (opp && px >= opp->price)
			px = (int64_t)opp->price - DG_TICK;
	} else {
		px = (at + 1 + (int64_t)k) * DG_TICK;
		if (opp && px <= opp->price)
			px = (int64_t)opp->price + DG_TICK;
	}
	if (px < DG_TICK)
		px = DG_TICK;
	if (px > (int64_t)UINT32_MAX - DG_TICK)
		px = (int64_t)UINT32_MAX - DG_TICK;
	return (uint32_t)px;
}

/* In messages: most orders die young, some live for hours. */
static uint32_t lifetime(struct daygen *g)
{
	uint64_t r = dg_rnd(g) % 100;
	double mean = r < 55 ? 300.0 : r < 90 ? 30000.0 : 3000000.0;
	double life = -mean * log(dg_unif(g));

	return life > 4e9 ? 4000000000u : (uint32_t)life + 1;
}

static void heap_push(struct dg_flat *f, uint64_t key)
{
	size_t i = f->heap_n++;

	while (i) {
		size_t up = (i - 1) / 2;

		if (f->heap[up] <= key)
			break;
		f->heap[i] = f->heap[up];
		i = up;
	}
	f->heap[i] = key;
}

static uint64_t heap_pop(struct dg_flat *f)
{
	uint64_t top = f->heap[0], last = f->heap[--f->heap_n];
	size_t i = 0, n = f->heap_n;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && f->heap[c + 1] < f->heap[c])
			c++;
		if (last <= f->heap[c])
			break;
		f->heap[i] = f->heap[c];
		i = c;
	}
	if (n)
		f->heap[i] = last;
	return top;
}

/* A new order on the queue of its level, the delete schedule and the
 * recent ring. */
static void track_new(struct daygen *g, uint32_t ref)
{
	const struct book_order *o = book_find(&g->book, ref);

	if (!o)		/* dropped by a full level pool: nothing to track */
		return;
	uint64_t due = g->n + lifetime(g);

	dg_q_push(g, o->level, ref);
	heap_push(&g->flat, (due < UINT32_MAX ? due : UINT32_MAX) << 32 | ref);
	g->recent[g->recent_n++ % DG_RECENT] = ref;
}

static uint16_t ev_delete(struct daygen *g, uint8_t *buf, uint64_t ts);

static uint16_t ev_add(struct daygen *g, uint8_t *buf, char type, uint64_t ts)
{
	uint16_t loc = dg_pick_symbol(g);
	double mid = dg_step_mid(g, loc);
	unsigned int side = dg_rnd(g) & 1;
	struct itch_msg m = dg_hdr(type, loc, ts);
	uint32_t ref;
	uint16_t len;

	if (g->book.live == g->book.max_orders || g->book.levels.used == g->book.levels.cap)
		return ev_delete(g, buf, ts);
	ref = (uint32_t)g->next_ref++;
	m.a.order_ref = ref;
	m.a.side = side == BOOK_BID ? 'B' : 'S';
	m.a.shares = dg_lot(g);
	m.a.price = place(g, loc, side, mid);
	memcpy(m.a.stock, g->sym[loc].name, ITCH_SYMBOL_LEN);
	if (type == 'F')
		memcpy(m.a.mpid, dg_mpid(g), 4);
	len = dg_put(g, buf, &m);
	track_new(g, ref);
	return len;
}

static uint16_t ev_delete(struct daygen *g, uint8_t *buf, uint64_t ts)
{
	const struct book_order *o = NULL;
	uint32_t ref = 0;

	while (g->flat.heap_n) {
		ref = (uint32_t)heap_pop(&g->flat);
		o = book_find(&g->book, ref);
		if (o)
			break;
	}
	if (!o)
		return 0;
	struct itch_msg m = dg_hdr('D', book_level_of(&g->book, o)->locate, ts);

	dg_q_unlink(g, o->level, ref);
	m.d.order_ref = ref;
	return dg_put(g, buf, &m);
}

static uint16_t ev_replace(struct daygen *g, uint8_t *buf, uint64_t ts)
{
	const struct book_order *o = dg_pick_live(g, 1);
	const struct book_level *l;
	uint32_t nref;
	uint16_t len;

	if (!o)
		return 0;
	l = book_level_of(&g->book, o);
	struct itch_msg m = dg_hdr('U', l->locate, ts);

	nref = (uint32_t)g->next_ref++;
	m.u.orig_ref = o->ref;
	m.u.new_ref = nref;
	m.u.shares = dg_lot(g);
	m.u.price = place(g, l->locate, l->side, exp(g->sym[l->locate].log_mid));
	dg_q_unlink(g, o->level, (uint32_t)o->ref);
	len = dg_put(g, buf, &m);
	track_new(g, nref);
	return len;
}

static uint16_t ev_exec(struct daygen *g, uint8_t *buf, char type, uint64_t ts)
{
	uint16_t loc = dg_pick_symbol(g);
	double mid = dg_step_mid(g, loc);

	return dg_exec(g, buf, type, ts, loc, mid, true);
}

static uint16_t ev_trade(struct daygen *g, uint8_t *buf, uint64_t ts)
{
	uint16_t loc = dg_pick_symbol(g);
	double mid = dg_step_mid(g, loc);

	return dg_trade(g, buf, ts, loc, mid);
}

/* The administrative types, on a symbol drawn like the others. */
static uint16_t ev_admin(struct daygen *g, uint8_t *buf, char type, uint64_t ts)
{
	return dg_admin(g, buf, type, ts, dg_pick_symbol(g));
}

static uint16_t cross(struct daygen *g, uint8_t *buf, uint16_t loc, char type, uint64_t ts)
{
	struct itch_msg m = dg_hdr('Q', loc, ts);

	/* Now and then a cross with nothing to match. */
	m.q.shares = dg_rnd(g) % 20 ? (uint64_t)dg_lot(g) * 50 : 0;
	memcpy(m.q.stock, g->sym[loc].name, ITCH_SYMBOL_LEN);
	m.q.price = dg_mid_px(g, loc);
	m.q.match = m.q.shares ? ++g->match : 0;
	m.q.cross_type = type;
	return dg_put(g, buf, &m);
}

static char draw_type(struct daygen *g)
{
	uint32_t u = (uint32_t)(dg_rnd(g) % 1000000);

	for (size_t i = 0; i < sizeof(mix) / sizeof(mix[0]); i++) {
		if (u < mix[i].ppm)
			return mix[i].type;
		u -= mix[i].ppm;
	}
	return 'A';
}

static uint16_t session(struct daygen *g, uint8_t *buf, uint64_t ts)
{
	char type = draw_type(g);
	uint16_t len;

	switch (type) {
	case 'A':
	case 'F':
		len = ev_add(g, buf, type, ts);
		break;
	case 'D':
		len = ev_delete(g, buf, ts);
		break;
	case 'U':
		len = ev_replace(g, buf, ts);
		break;
	case 'E':
	case 'C':
		len = ev_exec(g, buf, type, ts);
		break;
	case 'X':
		len = dg_cancel(g, buf, ts);
		break;
	case 'P':
		len = ev_trade(g, buf, ts);
		break;
	default:
		len = ev_admin(g, buf, type, ts);
		break;
	}
	if (!len) {
		g->fallbacks++;
		len = ev_add(g, buf, 'A', ts);
	}
	return len;
}

/* Message i of the opening: S O, S S, R, H, Y per symbol, V, S Q, Q per symbol. */
static uint16_t opening(struct daygen *g, uint8_t *buf, uint64_t i, uint64_t ts)
{
	uint64_t k = g->cfg.symbols;

	if (i < 2)
		return dg_system_event(g, buf, i ? 'S' : 'O', ts);
	i -= 2;
	if (i < k)
		return dg_directory(g, buf, (uint16_t)(i + 1), ts);
	i -= k;
	if (i < 2 * k) {
		uint16_t loc = (uint16_t)(i % k + 1);

		return i < k ? dg_trading_action(g, buf, loc, ts) : dg_reg_sho(g, buf, loc, ts);
	}
	i -= 2 * k;
	if (i == 0)
		return dg_mwcb_levels(g, buf, ts);
	if (i == 1)
		return dg_system_event(g, buf, 'Q', ts);
	return cross(g, buf, (uint16_t)(i - 1), 'O', ts);
}

/* Message i of the close: Q per symbol, S M, S E, S C. */
static uint16_t closing(struct daygen *g, uint8_t *buf, uint64_t i, uint64_t ts)
{
	if (i < g->cfg.symbols)
		return cross(g, buf, (uint16_t)(i + 1), 'C', ts);
	return dg_system_event(g, buf, "MEC"[i - g->cfg.symbols], ts);
}

/* Spread over the day, each message somewhere in its own slot. */
static uint64_t next_ts(struct daygen *g)
{
	unsigned __int128 d = g->cfg.duration_ns;
	uint64_t lo = (uint64_t)(d * g->n / g->cfg.messages);
	uint64_t hi = (uint64_t)(d * (g->n + 1) / g->cfg.messages);
	uint64_t ts = g->cfg.start_ns + lo + (hi > lo ? dg_rnd(g) % (hi - lo) : 0);

	if (g->n && ts <= g->last_ts)
		ts = g->last_ts + 1;
	g->last_ts = ts;
	return ts;
}

uint16_t dg_flat_next(struct daygen *g, uint8_t *buf)
{
	struct dg_flat *f = &g->flat;
	uint64_t ts = next_ts(g);

	if (g->n < f->body_start)
		return opening(g, buf, g->n, ts);
	if (g->n < f->body_end)
		return session(g, buf, ts);
	return closing(g, buf, g->n - f->body_end, ts);
}

int dg_flat_check(const struct daygen_config *c, char *err, size_t errlen)
{
	uint64_t k = c->symbols, fixed = 7 + 5 * k;

	if (c->messages < fixed || c->messages >= UINT32_MAX) {
		snprintf(err, errlen, "messages must be %llu (opening and close of %llu "
			 "symbols) to %u", (unsigned long long)fixed, (unsigned long long)k,
			 UINT32_MAX - 1);
		return -EINVAL;
	}
	if (c->duration_ns < c->messages || c->start_ns + c->duration_ns > ITCH_TS_MASK) {
		snprintf(err, errlen, "the day needs at least 1 ns per message and must "
			 "end within 48 bits of nanoseconds");
		return -EINVAL;
	}
	return 0;
}

int dg_flat_setup(struct daygen *g, char *err, size_t errlen)
{
	const struct daygen_config *c = &g->cfg;
	struct dg_flat *f = &g->flat;
	uint64_t k = c->symbols;
	double wsum = 0, acc = 0, per_price_event;

	f->heap = calloc(c->messages + 1, sizeof(*f->heap));
	if (!f->heap) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	f->body_start = 4 + 4 * k;
	f->body_end = c->messages - (k + 3);

	/* Activity ~ 1 / rank (Zipf), and sigma per price event so that a
	 * symbol moves about DAILY_VOL over its share of the day. */
	for (uint64_t i = 0; i < k; i++)
		wsum += 1.0 / (double)(i + 1);
	per_price_event = (double)(f->body_end - f->body_start) * 0.47;
	for (uint64_t i = 0; i < k; i++) {
		struct gsym *s = &g->sym[i + 1];
		double w = 1.0 / (double)(i + 1) / wsum;
		double events = per_price_event * w;

		acc += w;
		g->sym_cdf[i] = i + 1 == k ? UINT32_MAX : (uint32_t)(acc * 4294967295.0);
		/* $10 to $400, log-uniform, in Price(4) units. */
		s->log_mid = log(10.0) + dg_unif(g) * (log(400.0) - log(10.0)) + log(10000.0);
		s->sigma = DAILY_VOL / sqrt(events > 1 ? events : 1);
	}
	return 0;
}

void dg_flat_free(struct daygen *g)
{
	free(g->flat.heap);
}
