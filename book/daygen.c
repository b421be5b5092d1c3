// SPDX-License-Identifier: MIT
/* The synthetic ITCH day: see daygen.h for its shape. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "book/book_apply.h"
#include "book/daygen.h"
#include "book/daygen_admin.h"
#include "proto/dayfile.h"
#include "util/rng.h"

#define RECENT		4096		/* refs of the latest adds, for X and U */
#define TICK		100		/* $0.01 in Price(4) units */
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

/* Well-known names first, so that a small day trades familiar symbols. */
static const char *const names[] = {
	"AAPL", "MSFT", "NVDA", "AMZN", "GOOG", "META", "TSLA", "AMD",
	"INTC", "NFLX", "QQQ", "SPY", "CSCO", "ADBE", "PEP", "COST",
};

static const char mpids[][4] = { { 'G', 'S', 'C', 'O' }, { 'M', 'S', 'C', 'O' },
				 { 'U', 'B', 'S', 'S' }, { 'N', 'I', 'T', 'E' } };

struct gsym {
	char name[ITCH_SYMBOL_LEN + 1];	/* space-padded, NUL-terminated */
	double log_mid;			/* ln of the mid in Price(4) units */
	double sigma;			/* per price event */
};

struct daygen {
	struct daygen_config cfg;
	struct book book;
	uint64_t rng;
	uint64_t n;			/* messages handed out */
	uint64_t body_start;		/* first message of the session */
	uint64_t body_end;		/* first message of the close */
	uint64_t next_ref;
	uint64_t match;
	uint64_t fallbacks;
	uint64_t bytes;
	uint64_t last_ts;
	struct gsym *sym;		/* [locate], 1..symbols */
	uint32_t *sym_cdf;		/* [k]: pick locate k + 1 below this */
	/* Every level's orders, oldest first (price-time priority). */
	uint32_t *qnext, *qprev;	/* [ref] */
	uint32_t *qhead, *qtail;	/* [book level index] */
	/* Deletes come in order of a due time drawn at the add. */
	uint64_t *heap;			/* due << 32 | ref, a min-heap */
	size_t heap_n;
	uint32_t recent[RECENT];
	uint64_t recent_n;
	double spare;
	bool have_spare;
};

static uint64_t rnd(struct daygen *g)
{
	return splitmix64(&g->rng);
}

/* Uniform in (0, 1]. */
static double unif(struct daygen *g)
{
	return (double)((rnd(g) >> 11) + 1) * 0x1p-53;
}

static double normal(struct daygen *g)
{
	double r, a;

	if (g->have_spare) {
		g->have_spare = false;
		return g->spare;
	}
	r = sqrt(-2.0 * log(unif(g)));
	a = 2.0 * M_PI * unif(g);
	g->spare = r * sin(a);
	g->have_spare = true;
	return r * cos(a);
}

/* 0, 1, 2 ... with P(k) = p (1 - p)^k, at most @max. */
static uint32_t geometric(struct daygen *g, double p, uint32_t max)
{
	double k = floor(log(unif(g)) / log(1.0 - p));

	return k > max ? max : (uint32_t)k;
}

static uint16_t pick_symbol(struct daygen *g)
{
	uint32_t u = (uint32_t)rnd(g), lo = 0, hi = g->cfg.symbols - 1;

	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;

		if (u < g->sym_cdf[mid])
			hi = mid;
		else
			lo = mid + 1;
	}
	return (uint16_t)(lo + 1);
}

static double step_mid(struct daygen *g, uint16_t loc)
{
	struct gsym *s = &g->sym[loc];

	s->log_mid += s->sigma * normal(g) - s->sigma * s->sigma / 2;
	return exp(s->log_mid);
}

static uint32_t lot(struct daygen *g)
{
	if (rnd(g) % 10 == 0)
		return 1 + (uint32_t)(rnd(g) % 99);
	return 100 * (1 + geometric(g, 0.45, 40));
}

/* A limit price a few ticks behind the mid that does not cross the book. */
static uint32_t place(struct daygen *g, uint16_t loc, unsigned int side, double mid)
{
	const struct book_level *opp = book_best(&g->book, loc, side ^ 1);
	uint32_t k = rnd(g) % 20 == 0 ? 10 + (uint32_t)(rnd(g) % 190)
				      : geometric(g, 0.35, 60);
	int64_t at = (int64_t)(mid / TICK), px;

	if (side == BOOK_BID) {
		px = (at - (int64_t)k) * TICK;
		if (opp && px >= opp->price)
			px = (int64_t)opp->price - TICK;
	} else {
		px = (at + 1 + (int64_t)k) * TICK;
		if (opp && px <= opp->price)
			px = (int64_t)opp->price + TICK;
	}
	if (px < TICK)
		px = TICK;
	if (px > (int64_t)UINT32_MAX - TICK)
		px = (int64_t)UINT32_MAX - TICK;
	return (uint32_t)px;
}

static uint32_t lifetime(struct daygen *g)
{
	uint64_t r = rnd(g) % 100;
	double mean = r < 55 ? 300.0 : r < 90 ? 30000.0 : 3000000.0;
	double life = -mean * log(unif(g));

	return life > 4e9 ? 4000000000u : (uint32_t)life + 1;
}

static void heap_push(struct daygen *g, uint64_t key)
{
	size_t i = g->heap_n++;

	while (i) {
		size_t up = (i - 1) / 2;

		if (g->heap[up] <= key)
			break;
		g->heap[i] = g->heap[up];
		i = up;
	}
	g->heap[i] = key;
}

static uint64_t heap_pop(struct daygen *g)
{
	uint64_t top = g->heap[0], last = g->heap[--g->heap_n];
	size_t i = 0, n = g->heap_n;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && g->heap[c + 1] < g->heap[c])
			c++;
		if (last <= g->heap[c])
			break;
		g->heap[i] = g->heap[c];
		i = c;
	}
	if (n)
		g->heap[i] = last;
	return top;
}

static void q_push(struct daygen *g, uint32_t lvl, uint32_t ref)
{
	g->qprev[ref] = g->qtail[lvl];
	g->qnext[ref] = 0;
	if (g->qtail[lvl])
		g->qnext[g->qtail[lvl]] = ref;
	else
		g->qhead[lvl] = ref;
	g->qtail[lvl] = ref;
}

static void q_unlink(struct daygen *g, uint32_t lvl, uint32_t ref)
{
	if (g->qprev[ref])
		g->qnext[g->qprev[ref]] = g->qnext[ref];
	else
		g->qhead[lvl] = g->qnext[ref];
	if (g->qnext[ref])
		g->qprev[g->qnext[ref]] = g->qprev[ref];
	else
		g->qtail[lvl] = g->qprev[ref];
}

static uint16_t apply(struct daygen *g, const uint8_t *buf, uint16_t len)
{
	struct tape_print p;

	book_apply(&g->book, buf, len, g->n + 1, &p);
	return len;
}

static struct itch_msg hdr(char type, uint16_t loc, uint64_t ts)
{
	struct itch_msg m;

	memset(&m, 0, sizeof(m));
	m.type = type;
	m.locate = loc;
	m.timestamp = ts;
	return m;
}

static uint16_t put(struct daygen *g, uint8_t *buf, const struct itch_msg *m)
{
	return apply(g, buf, (uint16_t)itch_encode(buf, DAYGEN_MSG_MAX, m));
}

/* A new order on the queue of its level, the delete schedule and the
 * recent ring. */
static void track_new(struct daygen *g, uint32_t ref)
{
	const struct book_order *o = book_find(&g->book, ref);

	if (!o)		/* dropped by a full level pool: nothing to track */
		return;
	uint64_t due = g->n + lifetime(g);

	q_push(g, o->level, ref);
	heap_push(g, (due < UINT32_MAX ? due : UINT32_MAX) << 32 | ref);
	g->recent[g->recent_n++ % RECENT] = ref;
}

static uint16_t ev_delete(struct daygen *g, uint8_t *buf, uint64_t ts);

static uint16_t ev_add(struct daygen *g, uint8_t *buf, char type, uint64_t ts)
{
	uint16_t loc = pick_symbol(g);
	double mid = step_mid(g, loc);
	unsigned int side = rnd(g) & 1;
	struct itch_msg m = hdr(type, loc, ts);
	uint32_t ref;
	uint16_t len;

	if (g->book.live == g->book.max_orders || g->book.levels.used == g->book.levels.cap)
		return ev_delete(g, buf, ts);
	ref = (uint32_t)g->next_ref++;
	m.a.order_ref = ref;
	m.a.side = side == BOOK_BID ? 'B' : 'S';
	m.a.shares = lot(g);
	m.a.price = place(g, loc, side, mid);
	memcpy(m.a.stock, g->sym[loc].name, ITCH_SYMBOL_LEN);
	if (type == 'F')
		memcpy(m.a.mpid, mpids[rnd(g) % 4], 4);
	len = put(g, buf, &m);
	track_new(g, ref);
	return len;
}

static uint16_t ev_delete(struct daygen *g, uint8_t *buf, uint64_t ts)
{
	const struct book_order *o = NULL;
	uint32_t ref = 0;

	while (g->heap_n) {
		ref = (uint32_t)heap_pop(g);
		o = book_find(&g->book, ref);
		if (o)
			break;
	}
	if (!o)
		return 0;
	struct itch_msg m = hdr('D', book_level_of(&g->book, o)->locate, ts);

	q_unlink(g, o->level, ref);
	m.d.order_ref = ref;
	return put(g, buf, &m);
}

/* A live order with at least @min_shares: a recent one, else the oldest at
 * the best level of some symbol. */
static const struct book_order *pick_live(struct daygen *g, uint32_t min_shares)
{
	uint64_t n = g->recent_n < RECENT ? g->recent_n : RECENT;
	const struct book_order *o;

	for (int i = 0; n && i < 8; i++) {
		o = book_find(&g->book, g->recent[rnd(g) % n]);
		if (o && o->shares >= min_shares)
			return o;
	}
	for (int i = 0; i < 8; i++) {
		uint16_t loc = pick_symbol(g);
		uint32_t lvl = level_side(&g->book.levels, loc, rnd(g) & 1)->best;

		o = lvl ? book_find(&g->book, g->qhead[lvl]) : NULL;
		if (o && o->shares >= min_shares)
			return o;
	}
	return NULL;
}

static uint16_t ev_cancel(struct daygen *g, uint8_t *buf, uint64_t ts)
{
	const struct book_order *o = pick_live(g, 2);

	if (!o)
		return 0;
	struct itch_msg m = hdr('X', book_level_of(&g->book, o)->locate, ts);

	/* Partial: the order stays. */
	m.x.order_ref = o->ref;
	m.x.shares = 1 + (uint32_t)(rnd(g) % (o->shares - 1));
	return put(g, buf, &m);
}

static uint16_t ev_replace(struct daygen *g, uint8_t *buf, uint64_t ts)
{
	const struct book_order *o = pick_live(g, 1);
	const struct book_level *l;
	uint32_t nref;
	uint16_t len;

	if (!o)
		return 0;
	l = book_level_of(&g->book, o);
	struct itch_msg m = hdr('U', l->locate, ts);

	nref = (uint32_t)g->next_ref++;
	m.u.orig_ref = o->ref;
	m.u.new_ref = nref;
	m.u.shares = lot(g);
	m.u.price = place(g, l->locate, l->side, exp(g->sym[l->locate].log_mid));
	q_unlink(g, o->level, (uint32_t)o->ref);
	len = put(g, buf, &m);
	track_new(g, nref);
	return len;
}

/* Execute the oldest order at the best level, on the side the mid has
 * moved into (stale quotes get taken), else either side. */
static uint16_t ev_exec(struct daygen *g, uint8_t *buf, char type, uint64_t ts)
{
	uint16_t loc = pick_symbol(g);
	double mid = step_mid(g, loc);
	const struct book_level *bid = book_best(&g->book, loc, BOOK_BID);
	const struct book_level *ask = book_best(&g->book, loc, BOOK_ASK);
	const struct book_level *l;
	const struct book_order *o;
	unsigned int side;
	uint32_t lvl, shares;

	if (ask && ask->price < mid)
		side = BOOK_ASK;
	else if (bid && bid->price > mid)
		side = BOOK_BID;
	else
		side = rnd(g) & 1;
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
	if (shares > 1 && rnd(g) % 2)
		shares = 1 + (uint32_t)(rnd(g) % (shares - 1));
	struct itch_msg m = hdr(type, loc, ts);

	m.e.order_ref = o->ref;
	m.e.shares = shares;
	m.e.match = ++g->match;
	if (type == 'C') {
		m.e.printable = rnd(g) % 4 ? 'Y' : 'N';
		m.e.price = l->price;
		if (rnd(g) % 2 && l->price > TICK && l->price < UINT32_MAX - TICK)
			m.e.price += side == BOOK_BID ? -TICK : TICK;
	}
	if (shares == o->shares)
		q_unlink(g, lvl, (uint32_t)o->ref);
	return put(g, buf, &m);
}

/* A hidden order's match: inside the spread. */
static uint16_t ev_trade(struct daygen *g, uint8_t *buf, uint64_t ts)
{
	uint16_t loc = pick_symbol(g);
	double mid = step_mid(g, loc);
	const struct book_level *bid = book_best(&g->book, loc, BOOK_BID);
	const struct book_level *ask = book_best(&g->book, loc, BOOK_ASK);
	struct itch_msg m = hdr('P', loc, ts);

	m.p.order_ref = 0;
	m.p.side = rnd(g) & 1 ? 'B' : 'S';
	m.p.shares = lot(g);
	memcpy(m.p.stock, g->sym[loc].name, ITCH_SYMBOL_LEN);
	if (bid && ask)
		m.p.price = (uint32_t)(((uint64_t)bid->price + ask->price) / 2);
	else
		m.p.price = (uint32_t)llround(mid);
	m.p.match = ++g->match;
	return put(g, buf, &m);
}

static uint16_t cross(struct daygen *g, uint8_t *buf, uint16_t loc, char type, uint64_t ts)
{
	struct itch_msg m = hdr('Q', loc, ts);

	/* Now and then a cross with nothing to match. */
	m.q.shares = rnd(g) % 20 ? (uint64_t)lot(g) * 50 : 0;
	memcpy(m.q.stock, g->sym[loc].name, ITCH_SYMBOL_LEN);
	m.q.price = (uint32_t)(llround(exp(g->sym[loc].log_mid) / TICK) * TICK);
	m.q.match = m.q.shares ? ++g->match : 0;
	m.q.cross_type = type;
	return put(g, buf, &m);
}

static uint16_t system_event(struct daygen *g, uint8_t *buf, char event, uint64_t ts)
{
	struct itch_msg m = hdr('S', 0, ts);

	m.s.event = event;
	return put(g, buf, &m);
}

static uint16_t directory(struct daygen *g, uint8_t *buf, uint16_t loc, uint64_t ts)
{
	struct itch_msg m = hdr('R', loc, ts);

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
	return put(g, buf, &m);
}

/* The administrative types, on a symbol drawn like the others. */
static uint16_t ev_admin(struct daygen *g, uint8_t *buf, char type, uint64_t ts)
{
	uint16_t loc = pick_symbol(g);
	uint32_t px = (uint32_t)(llround(exp(g->sym[loc].log_mid) / TICK) * TICK);
	struct itch_hdr h = { .locate = loc, .ts = ts, .stock = g->sym[loc].name };
	uint16_t len = 0;

	switch (type) {
	case 'I':
		len = itch_put_noii(buf, &h, (uint64_t)lot(g) * 10, lot(g), "BSNO"[rnd(g) % 4],
				    px + TICK, px - TICK, px, 'C', rnd(g) % 3 ? ' ' : 'L');
		break;
	case 'N':
		len = itch_put_rpii(buf, &h, "BSAN"[rnd(g) % 4]);
		break;
	case 'L':
		len = itch_put_mp_position(buf, &h, mpids[rnd(g) % 4], rnd(g) % 2 ? 'Y' : 'N',
					   'N', 'A');
		break;
	case 'H':
		len = itch_put_trading_action(buf, &h, 'T');
		break;
	case 'Y':
		len = itch_put_reg_sho(buf, &h, '0');
		break;
	case 'O':
		len = itch_put_dlcr(buf, &h, 'Y', px - 10 * TICK, px + 10 * TICK, px, ts,
				    px - 20 * TICK, px + 20 * TICK);
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
		struct itch_msg m = hdr('B', loc, ts);

		if (!g->match)
			return 0;
		m.b.match = 1 + rnd(g) % g->match;
		return put(g, buf, &m);
	}
	}
	return apply(g, buf, len);
}

static char draw_type(struct daygen *g)
{
	uint32_t u = (uint32_t)(rnd(g) % 1000000);

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
		len = ev_cancel(g, buf, ts);
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
	struct itch_hdr h = { .ts = ts };

	if (i < 2)
		return system_event(g, buf, i ? 'S' : 'O', ts);
	i -= 2;
	if (i < k)
		return directory(g, buf, (uint16_t)(i + 1), ts);
	i -= k;
	if (i < 2 * k) {
		h.locate = (uint16_t)(i % k + 1);
		h.stock = g->sym[h.locate].name;
		return apply(g, buf, i < k ? itch_put_trading_action(buf, &h, 'T')
					   : itch_put_reg_sho(buf, &h, '0'));
	}
	i -= 2 * k;
	if (i == 0)	/* the three MWCB levels, Price(8) */
		return apply(g, buf, itch_put_mwcb_levels(buf, &h, 2000000000000ull,
							  1800000000000ull,
							  1600000000000ull));
	if (i == 1)
		return system_event(g, buf, 'Q', ts);
	return cross(g, buf, (uint16_t)(i - 1), 'O', ts);
}

/* Message i of the close: Q per symbol, S M, S E, S C. */
static uint16_t closing(struct daygen *g, uint8_t *buf, uint64_t i, uint64_t ts)
{
	if (i < g->cfg.symbols)
		return cross(g, buf, (uint16_t)(i + 1), 'C', ts);
	return system_event(g, buf, "MEC"[i - g->cfg.symbols], ts);
}

/* Spread over the day, each message somewhere in its own slot. */
static uint64_t next_ts(struct daygen *g)
{
	unsigned __int128 d = g->cfg.duration_ns;
	uint64_t lo = (uint64_t)(d * g->n / g->cfg.messages);
	uint64_t hi = (uint64_t)(d * (g->n + 1) / g->cfg.messages);
	uint64_t ts = g->cfg.start_ns + lo + (hi > lo ? rnd(g) % (hi - lo) : 0);

	if (g->n && ts <= g->last_ts)
		ts = g->last_ts + 1;
	g->last_ts = ts;
	return ts;
}

uint16_t daygen_next(struct daygen *g, uint8_t *buf)
{
	uint64_t ts;
	uint16_t len;

	if (g->n == g->cfg.messages)
		return 0;
	ts = next_ts(g);
	if (g->n < g->body_start)
		len = opening(g, buf, g->n, ts);
	else if (g->n < g->body_end)
		len = session(g, buf, ts);
	else
		len = closing(g, buf, g->n - g->body_end, ts);
	g->n++;
	g->bytes += DAYFILE_FRAME_HDR + len;
	return len;
}

static void make_name(char out[ITCH_SYMBOL_LEN + 1], uint32_t k)
{
	char name[ITCH_SYMBOL_LEN + 1];

	if (k < sizeof(names) / sizeof(names[0])) {
		snprintf(name, sizeof(name), "%s", names[k]);
	} else {
		/* ZAAA, ZAAB, ...: five letters at most for 60000 symbols. */
		uint32_t v = k;
		int n = 0;
		char rev[8];

		do {
			rev[n++] = (char)('A' + v % 26);
			v /= 26;
		} while (v && n < 7);
		while (n < 3)
			rev[n++] = 'A';
		name[0] = 'Z';
		for (int i = 0; i < n; i++)
			name[1 + i] = rev[n - 1 - i];
		name[1 + n] = '\0';
	}
	snprintf(out, ITCH_SYMBOL_LEN + 1, "%-8s", name);
}

static int setup(struct daygen *g, char *err, size_t errlen)
{
	const struct daygen_config *c = &g->cfg;
	uint64_t k = c->symbols, fixed = 7 + 5 * k;
	double wsum = 0, acc = 0, per_price_event;
	struct book_config bc = { .max_orders = c->max_orders, .track_all = true };
	int ret;

	if (!k || k > DAYGEN_MAX_SYMBOLS) {
		snprintf(err, errlen, "symbols must be 1 to %d", DAYGEN_MAX_SYMBOLS);
		return -EINVAL;
	}
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
	ret = book_init(&g->book, &bc);
	if (ret) {
		snprintf(err, errlen, "book: %s", strerror(-ret));
		return ret;
	}
	g->sym = calloc(k + 1, sizeof(*g->sym));
	g->sym_cdf = calloc(k, sizeof(*g->sym_cdf));
	g->qnext = calloc(c->messages + 2, sizeof(*g->qnext));
	g->qprev = calloc(c->messages + 2, sizeof(*g->qprev));
	g->qhead = calloc((size_t)g->book.levels.cap + 1, sizeof(*g->qhead));
	g->qtail = calloc((size_t)g->book.levels.cap + 1, sizeof(*g->qtail));
	g->heap = calloc(c->messages + 1, sizeof(*g->heap));
	if (!g->sym || !g->sym_cdf || !g->qnext || !g->qprev || !g->qhead || !g->qtail ||
	    !g->heap) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}

	g->rng = c->seed;
	g->next_ref = 1;
	g->body_start = 4 + 4 * k;
	g->body_end = c->messages - (k + 3);

	/* Activity ~ 1 / rank (Zipf), and sigma per price event so that a
	 * symbol moves about DAILY_VOL over its share of the day. */
	for (uint64_t i = 0; i < k; i++)
		wsum += 1.0 / (double)(i + 1);
	per_price_event = (double)(g->body_end - g->body_start) * 0.47;
	for (uint64_t i = 0; i < k; i++) {
		struct gsym *s = &g->sym[i + 1];
		double w = 1.0 / (double)(i + 1) / wsum;
		double events = per_price_event * w;

		acc += w;
		g->sym_cdf[i] = i + 1 == k ? UINT32_MAX : (uint32_t)(acc * 4294967295.0);
		if (c->names) {
			memcpy(s->name, c->names[i], ITCH_SYMBOL_LEN);
			s->name[ITCH_SYMBOL_LEN] = '\0';
		} else {
			make_name(s->name, (uint32_t)i);
		}
		/* $10 to $400, log-uniform, in Price(4) units. */
		s->log_mid = log(10.0) + unif(g) * (log(400.0) - log(10.0)) + log(10000.0);
		s->sigma = DAILY_VOL / sqrt(events > 1 ? events : 1);
	}
	return 0;
}

int daygen_new(struct daygen **gp, const struct daygen_config *cfg, char *err, size_t errlen)
{
	struct daygen *g = calloc(1, sizeof(*g));
	int ret;

	*gp = NULL;
	if (!g) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	g->cfg = *cfg;
	if (!g->cfg.start_ns)
		g->cfg.start_ns = DAYGEN_START_NS;
	if (!g->cfg.duration_ns)
		g->cfg.duration_ns = DAYGEN_DURATION_NS;
	ret = setup(g, err, errlen);
	if (ret) {
		daygen_free(g);
		return ret;
	}
	*gp = g;
	return 0;
}

void daygen_free(struct daygen *g)
{
	if (!g)
		return;
	if (g->book.mem.addr)
		book_destroy(&g->book);
	free(g->sym);
	free(g->sym_cdf);
	free(g->qnext);
	free(g->qprev);
	free(g->qhead);
	free(g->qtail);
	free(g->heap);
	free(g);
}

const char *daygen_symbol(const struct daygen *g, uint16_t locate)
{
	if (!locate || locate > g->cfg.symbols)
		return NULL;
	return g->sym[locate].name;
}

const struct book *daygen_book(const struct daygen *g)
{
	return &g->book;
}

void daygen_get_stats(const struct daygen *g, struct daygen_stats *st)
{
	const struct book_counters *c = &g->book.cnt;

	memset(st, 0, sizeof(*st));
	st->messages = g->n;
	memcpy(st->by_type, c->by_type, sizeof(st->by_type));
	st->peak_live = g->book.peak;
	st->end_live = g->book.live;
	st->fallbacks = g->fallbacks;
	st->impossible = c->dup_ref + c->unknown_ref + c->overfill + c->book_full +
			 c->bad_side + c->malformed;
	st->bytes = g->bytes;
}

int daygen_write(const char *path, const struct daygen_config *cfg, int gzip_level,
		 struct daygen_stats *st, char *err, size_t errlen)
{
	struct dayfile_writer w;
	struct daygen *g;
	uint8_t buf[DAYGEN_MSG_MAX];
	uint16_t len;
	int ret = -1;

	if (daygen_new(&g, cfg, err, errlen))
		return -1;
	if (dayfile_writer_open(&w, path, gzip_level)) {
		snprintf(err, errlen, "%s", w.err);
		goto out;
	}
	while ((len = daygen_next(g, buf)))
		if (dayfile_write(&w, buf, len))
			break;
	if (dayfile_writer_close(&w)) {
		snprintf(err, errlen, "%s", w.err);
		goto out;
	}
	if (st)
		daygen_get_stats(g, st);
	ret = 0;
out:
	daygen_free(g);
	return ret;
}
