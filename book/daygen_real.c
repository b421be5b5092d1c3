// SPDX-License-Identifier: MIT
/*
 * The real shape (daygen.h, calibration in book/README.md): a day laid out
 * like a TotalView day, scaled down by its number of messages.
 *
 * The day is a prefix (S O, S S; R, H, Y per symbol; V) in the second
 * before the pre-open (which starts a 78th of the session, five minutes,
 * before the open), a body of slots whose times come from the clock
 * (daygen_clock.h), the opening block at the open (S Q; per symbol the
 * displayed orders the cross executes, C, and its Q) and the closing block
 * at the close (the same with Q type C; S M, S E, S C).  Each block has a
 * size known at the start, so the day has exactly its messages.
 *
 * A body slot is taken by the earliest scheduled event due by the slot's
 * time, stamped at its due time: the end of an order (a D, or a U whose new
 * order is scheduled in turn) drawn at its add from the lifetime of its
 * class, or a NOII of a round before a cross.  Otherwise it is a fresh
 * event at the slot's time: an add (its class also sets how far from the
 * touch it rests), an execution of the oldest order at a best level, a
 * partial cancel, a hidden print or an administrative message, on a symbol
 * drawn by activity (within a microburst, among the burst's few symbols).
 * An order's end stamped at its due time keeps its lifetime whatever the
 * scale, and taking a slot keeps the day's count and its rate profile.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "book/book_apply.h"
#include "book/daygen_admin.h"
#include "book/daygen_clock.h"
#include "book/daygen_int.h"

#define MSGS_PER_SYMBOL	37500		/* full scale: 300 M messages, 8,000 symbols */
#define MIN_SYMBOLS	10
/* Activity by rank: symbol i of K gets the part of (u + RANK_C)^-RANK_S
 * over u in [(i - 1) / K, i / K]. */
#define RANK_S		1.3
#define RANK_C		0.006
#define DAILY_VOL	0.02
#define GAP_NS		50		/* between the NOIIs of a round */
#define CROSS_NS	2500000		/* the span of each cross's block */
#define PREFIX_NS	1000000000	/* of the prefix, just before the pre-open */
#define NOII_PPM	6000		/* of the day: a third before the open */
#define CROSS_C_PPM	150		/* displayed orders executed by each cross */
#define REPLACE_SHARE	0.1424		/* of the orders' ends: U / (A + F) = 0.166 */
#define NOII_FRAC	(1.0 / 39)	/* of the session: 10 minutes before the close */
#define PRE_FRAC	(1.0 / 78)	/* of the session: 5 minutes before the open */

enum { K_DELETE = 1, K_REPLACE, K_NOII };

/* The fresh events in parts per million of the day (30 Jan 2019); D, U
 * and I come from the schedule. */
static const struct {
	char type;
	uint32_t ppm;
} mix[] = {
	{ 'A', 440000 }, { 'E', 22000 }, { 'X', 13000 }, { 'F', 6000 }, { 'P', 3600 },
	{ 'N', 3500 }, { 'L', 800 }, { 'C', 100 }, { 'O', 100 }, { 'J', 50 },
	{ 'K', 20 }, { 'h', 20 }, { 'B', 10 }, { 'W', 5 },
};

/*
 * The classes of orders: their lifetime (a lognormal median and spread, or
 * a log-uniform range) and the ticks behind the mid they rest at
 * (geometric with mean about 1 / p - 1, or log-uniform from 5 ticks out to
 * 10 % of the price, at least 300 ticks).  Which class a new order is
 * depends on the time (class_shares()).
 */
enum { FLEETING, SHORT, MEDIUM, LONG, NCLASS };

static const struct {
	double lo_ns, hi_ns;		/* FLEETING: median and ln spread */
	double p;			/* geometric distance; 0: far */
} cls[NCLASS] = {
	[FLEETING] = { 300e3, 1.0, 0.6 },
	[SHORT] = { 1e6, 10e9, 0.3 },
	[MEDIUM] = { 1e9, 2400e9, 0.07 },
	[LONG] = { 3600e9, 43200e9, 0 },
};

#define SHORT_SHARE	0.42
#define MEDIUM_SHARE	0.12		/* times the medium rate over the day's */
#define LONG_SHARE	0.09		/* times (1 - x)^1.5 over the day's rate */
#define PRE_MEDIUM	0.30		/* before the open: orders for the cross */
#define PRE_LONG	0.10

struct sched {
	uint64_t due;
	/* kind | ref << 8; a NOII's kind | locate << 8 | window << 24 | round << 32 */
	uint64_t what;
};

struct cross {
	char type;			/* 'O' or 'C' */
	uint32_t loc;			/* K down to 1, 0: done */
	bool started;
	uint32_t left;			/* its C's still to come */
	uint32_t short_by;		/* C's no book could give (a tiny day) */
	uint32_t price;
	uint64_t shares;
};

struct noii {
	uint64_t start_ns, every_ns;
	uint32_t rounds;
	char cross;
};

struct dg_real {
	struct dg_clock clock;
	uint64_t pre_ns, open_ns, close_ns;
	uint64_t n_prefix, n_open, n_close, n_body;
	uint64_t body_taken;
	uint64_t open_i, close_i;	/* messages of each block made */
	double open_gap, close_gap, prefix_gap;	/* ns between their messages */
	uint64_t c_cross;		/* C's of each cross */
	uint32_t *quota;		/* [locate]: its share of them */
	uint32_t *avail;		/* [locate]: orders its deeper side has */
	uint32_t *take;			/* [locate]: the C's of this cross */
	uint8_t *side;			/* [locate]: that side */
	struct cross cr;
	struct noii noii[2];
	struct sched *heap;
	size_t heap_n, heap_cap;
	uint32_t mix_total;
	int32_t group_of;		/* the burst whose symbols are in group */
	uint16_t group[4];
	uint32_t group_n;
};

static uint64_t umax(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static int heap_push(struct dg_real *r, uint64_t due, uint64_t what)
{
	size_t i;

	if (r->heap_n == r->heap_cap) {
		size_t cap = r->heap_cap ? 2 * r->heap_cap : 65536;
		struct sched *h = realloc(r->heap, cap * sizeof(*h));

		if (!h)
			return -ENOMEM;
		r->heap = h;
		r->heap_cap = cap;
	}
	for (i = r->heap_n++; i; ) {
		size_t up = (i - 1) / 2;

		if (r->heap[up].due <= due)
			break;
		r->heap[i] = r->heap[up];
		i = up;
	}
	r->heap[i] = (struct sched){ due, what };
	return 0;
}

static struct sched heap_pop(struct dg_real *r)
{
	struct sched top = r->heap[0], last = r->heap[--r->heap_n];
	size_t i = 0, n = r->heap_n;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && r->heap[c + 1].due < r->heap[c].due)
			c++;
		if (last.due <= r->heap[c].due)
			break;
		r->heap[i] = r->heap[c];
		i = c;
	}
	if (n)
		r->heap[i] = last;
	return top;
}

/*
 * Shares of the classes among the orders added at @t.  Medium orders come
 * at a milder U than the day's rate and long ones mostly in the morning,
 * so that what the open and the close add is fleeting, and the orders that
 * rest build up through the morning and thin out in the afternoon.
 */
static void class_shares(const struct dg_real *r, uint64_t t, double *sh)
{
	double x, rate;

	if (t < r->open_ns) {
		sh[MEDIUM] = PRE_MEDIUM;
		sh[LONG] = PRE_LONG;
	} else {
		x = (double)(t - r->open_ns) / (double)(r->close_ns - r->open_ns);
		rate = dg_clock_rate(&r->clock, t);
		sh[MEDIUM] = MEDIUM_SHARE * (1 + 1.5 * exp(-x / 0.04) + exp(-(1 - x) / 0.03)) / rate;
		sh[LONG] = LONG_SHARE * pow(1 - x, 1.5) / rate;
	}
	sh[SHORT] = SHORT_SHARE;
	sh[FLEETING] = 1 - sh[SHORT] - sh[MEDIUM] - sh[LONG];
}

static int draw_class(struct daygen *g, uint64_t t)
{
	double sh[NCLASS], u = dg_unif(g);
	int k;

	class_shares(g->real, t, sh);
	for (k = 0; k < NCLASS - 1; k++) {
		if (u <= sh[k])
			break;
		u -= sh[k];
	}
	return k;
}

static uint64_t draw_life(struct daygen *g, int k)
{
	double ns;

	if (k == FLEETING)
		ns = cls[k].lo_ns * exp(cls[k].hi_ns * dg_normal(g));
	else
		ns = cls[k].lo_ns * exp(dg_unif(g) * log(cls[k].hi_ns / cls[k].lo_ns));
	return ns < 1000 ? 1000 : (uint64_t)ns;
}

/* A limit price of class @k behind the mid, never crossing the book. */
static uint32_t place(struct daygen *g, uint16_t loc, unsigned int side, double mid, int k)
{
	const struct book_level *opp = book_best(&g->book, loc, side ^ 1);
	int64_t at = (int64_t)(mid / DG_TICK), px, d;

	if (cls[k].p > 0) {
		d = dg_geometric(g, cls[k].p, 2000);
	} else {
		double far = mid * 0.10 / DG_TICK;

		if (far < 300)
			far = 300;
		d = (int64_t)(5.0 * exp(dg_unif(g) * log(far / 5.0)));
	}
	if (side == BOOK_BID) {
		px = (at - d) * DG_TICK;
		if (opp && px >= opp->price)
			px = (int64_t)opp->price - DG_TICK;
	} else {
		px = (at + 1 + d) * DG_TICK;
		if (opp && px <= opp->price)
			px = (int64_t)opp->price + DG_TICK;
	}
	if (px < DG_TICK)
		px = DG_TICK;
	if (px > (int64_t)UINT32_MAX - DG_TICK)
		px = (int64_t)UINT32_MAX - DG_TICK;
	return (uint32_t)px;
}

/* A new order: on its level's queue, in the recent ring, its end
 * scheduled unless it comes after the close (then it rests to the end). */
static void track_new(struct daygen *g, uint32_t ref, uint64_t ts, int k)
{
	struct dg_real *r = g->real;
	const struct book_order *o = book_find(&g->book, ref);
	uint64_t due = ts + draw_life(g, k);
	unsigned int kind = dg_unif(g) <= REPLACE_SHARE ? K_REPLACE : K_DELETE;

	if (!o)
		return;
	dg_q_push(g, o->level, ref);
	g->recent[g->recent_n++ % DG_RECENT] = ref;
	if (due < r->close_ns && heap_push(r, due, kind | (uint64_t)ref << 8))
		g->fallbacks++;		/* out of memory: the order rests */
}

static bool book_room(const struct daygen *g)
{
	return g->book.live < g->book.max_orders && g->book.levels.used < g->book.levels.cap;
}

static uint16_t ev_add(struct daygen *g, uint8_t *buf, char type, uint64_t ts, uint16_t loc)
{
	double mid = dg_step_mid(g, loc);
	unsigned int side = dg_rnd(g) & 1;
	int k = draw_class(g, ts);
	struct itch_msg m = dg_hdr(type, loc, ts);
	uint32_t ref = (uint32_t)g->next_ref++;
	uint16_t len;

	m.a.order_ref = ref;
	m.a.side = side == BOOK_BID ? 'B' : 'S';
	m.a.shares = dg_lot(g);
	m.a.price = place(g, loc, side, mid, k);
	memcpy(m.a.stock, g->sym[loc].name, ITCH_SYMBOL_LEN);
	if (type == 'F')
		memcpy(m.a.mpid, dg_mpid(g), 4);
	len = dg_put(g, buf, &m);
	track_new(g, ref, ts, k);
	return len;
}

static uint16_t end_delete(struct daygen *g, uint8_t *buf, const struct book_order *o,
			   uint64_t ts)
{
	struct itch_msg m = dg_hdr('D', book_level_of(&g->book, o)->locate, ts);

	dg_q_unlink(g, o->level, (uint32_t)o->ref);
	m.d.order_ref = o->ref;
	return dg_put(g, buf, &m);
}

static uint16_t end_replace(struct daygen *g, uint8_t *buf, const struct book_order *o,
			    uint64_t ts)
{
	const struct book_level *l = book_level_of(&g->book, o);
	uint16_t loc = l->locate;
	int k = draw_class(g, ts);
	struct itch_msg m = dg_hdr('U', loc, ts);
	uint32_t nref = (uint32_t)g->next_ref++;
	uint16_t len;

	m.u.orig_ref = o->ref;
	m.u.new_ref = nref;
	m.u.shares = dg_lot(g);
	m.u.price = place(g, loc, l->side, exp(g->sym[loc].log_mid), k);
	dg_q_unlink(g, o->level, (uint32_t)o->ref);
	len = dg_put(g, buf, &m);
	track_new(g, nref, ts, k);
	return len;
}

static uint16_t noii_msg(struct daygen *g, uint8_t *buf, uint16_t loc, char cross,
			 uint64_t ts)
{
	uint32_t px = dg_mid_px(g, loc);
	struct itch_hdr h = { .locate = loc, .ts = ts, .stock = g->sym[loc].name };
	uint32_t imb = dg_lot(g);

	return dg_apply(g, buf, itch_put_noii(buf, &h, (uint64_t)dg_lot(g) * 10, imb,
					      "BSNO"[dg_rnd(g) % 4], px + DG_TICK, px - DG_TICK,
					      px, cross, dg_rnd(g) % 3 ? ' ' : 'L'));
}

/* The next NOII of a round: locates 1..K GAP_NS apart, then the next round. */
static uint16_t ev_noii(struct daygen *g, uint8_t *buf, struct sched s, uint64_t ts)
{
	struct dg_real *r = g->real;
	uint16_t loc = (uint16_t)(s.what >> 8);
	uint32_t round = (uint32_t)(s.what >> 32);
	const struct noii *w = &r->noii[(s.what >> 24 & 0xff)];
	uint64_t what = s.what & 0xffffffffull;
	int ret = 0;

	if (loc < g->cfg.symbols)
		ret = heap_push(r, s.due + GAP_NS, (what & ~0xffff00ull) | (uint64_t)(loc + 1) << 8 |
				(uint64_t)round << 32);
	else if (round + 1 < w->rounds)
		ret = heap_push(r, w->start_ns + (round + 1) * w->every_ns,
				(what & ~0xffff00ull) | 1u << 8 | (uint64_t)(round + 1) << 32);
	if (ret)
		g->fallbacks++;
	return noii_msg(g, buf, loc, w->cross, ts);
}

/* The earliest event due by @tau, 0 when none is (stale ends of orders
 * executed in full are dropped on the way). */
static uint16_t scheduled(struct daygen *g, uint8_t *buf, uint64_t tau)
{
	struct dg_real *r = g->real;

	while (r->heap_n && r->heap[0].due <= tau) {
		struct sched s = heap_pop(r);
		unsigned int kind = s.what & 0xff;
		uint64_t ts = umax(s.due, g->last_ts);
		const struct book_order *o;

		if (kind == K_NOII) {
			g->last_ts = ts;
			return ev_noii(g, buf, s, ts);
		}
		o = book_find(&g->book, s.what >> 8);
		if (!o)
			continue;
		g->last_ts = ts;
		return kind == K_REPLACE ? end_replace(g, buf, o, ts) : end_delete(g, buf, o, ts);
	}
	return 0;
}

static char draw_type(struct daygen *g)
{
	uint32_t u = (uint32_t)(dg_rnd(g) % g->real->mix_total);

	for (size_t i = 0; i < sizeof(mix) / sizeof(mix[0]); i++) {
		if (u < mix[i].ppm)
			return mix[i].type;
		u -= mix[i].ppm;
	}
	return 'A';
}

/* A microburst's events fall on a few symbols of its own. */
static uint16_t fresh_symbol(struct daygen *g)
{
	struct dg_real *r = g->real;
	int32_t b = r->clock.cur;

	if (b < 0)
		return dg_pick_symbol(g);
	if (r->group_of != b) {
		r->group_of = b;
		r->group_n = 1 + dg_geometric(g, 0.5, 3);
		for (uint32_t i = 0; i < r->group_n; i++)
			r->group[i] = dg_pick_symbol(g);
	}
	return r->group[dg_rnd(g) % r->group_n];
}

static uint16_t fresh(struct daygen *g, uint8_t *buf, uint64_t ts)
{
	char type = draw_type(g);
	uint16_t loc = fresh_symbol(g), len = 0;

	switch (type) {
	case 'A':
	case 'F':
		if (book_room(g))
			len = ev_add(g, buf, type, ts, loc);
		break;
	case 'E':
	case 'C':
		len = dg_exec(g, buf, type, ts, loc, dg_step_mid(g, loc), false);
		break;
	case 'X':
		len = dg_cancel(g, buf, ts);
		break;
	case 'P':
		len = dg_trade(g, buf, ts, loc, dg_step_mid(g, loc));
		break;
	default:
		len = dg_admin(g, buf, type, ts, loc);
		break;
	}
	if (!len) {
		const struct book_order *o;

		g->fallbacks++;
		if (book_room(g))
			return ev_add(g, buf, 'A', ts, loc);
		/* A full book (a --book-orders too small): an early delete. */
		o = dg_pick_live(g, 1);
		len = o ? end_delete(g, buf, o, ts) : noii_msg(g, buf, loc, 'O', ts);
	}
	return len;
}

/* Orders on @side of @loc from the best, up to @want; *@px: the price of
 * the level where the last of them rests. */
static uint32_t side_orders(const struct daygen *g, uint16_t loc, unsigned int side,
			    uint32_t want, uint32_t *px)
{
	const struct level_store *s = &g->book.levels;
	uint32_t n = 0;

	for (uint32_t i = level_side(s, loc, side)->best; i && n < want; i = level_next(s, i)) {
		n += s->lv[i].orders;
		*px = s->lv[i].price;
	}
	return n < want ? n : want;
}

/*
 * The next message of a cross: per locate from K down to 1 the displayed
 * orders the cross executes (C, each in full at the cross price, not
 * printable: the Q prints them) and then its Q.  The cross price is the
 * price of the last of them, so each executes at its limit or better, the
 * other side being the cross's undisplayed orders.
 */
static uint16_t cross_next(struct daygen *g, uint8_t *buf, uint64_t ts)
{
	struct dg_real *r = g->real;
	struct cross *c = &r->cr;
	uint16_t loc = (uint16_t)c->loc;

	if (!loc) {
		g->fallbacks++;
		c->short_by--;
		return noii_msg(g, buf, 1, c->type, ts);
	}
	if (!c->started) {
		uint32_t px = 0;

		c->left = r->take[loc];
		side_orders(g, loc, r->side[loc], c->left, &px);
		c->price = c->left ? px : dg_mid_px(g, loc);
		c->shares = 0;
		c->started = true;
	}
	if (c->left) {
		uint32_t lvl = level_side(&g->book.levels, loc, r->side[loc])->best;
		const struct book_order *o = book_find(&g->book, g->qhead[lvl]);
		struct itch_msg m = dg_hdr('C', loc, ts);

		c->left--;
		m.e.order_ref = o->ref;
		m.e.shares = o->shares;
		m.e.match = ++g->match;
		m.e.printable = 'N';
		m.e.price = c->price;
		c->shares += o->shares;
		dg_q_unlink(g, lvl, (uint32_t)o->ref);
		return dg_put(g, buf, &m);
	}

	struct itch_msg m = dg_hdr('Q', loc, ts);

	/* Undisplayed interest on top; now and then a cross with nothing. */
	m.q.shares = c->shares + (c->shares || dg_rnd(g) % 20 ? (uint64_t)dg_lot(g) * 50 : 0);
	memcpy(m.q.stock, g->sym[loc].name, ITCH_SYMBOL_LEN);
	m.q.price = c->price;
	m.q.match = m.q.shares ? ++g->match : 0;
	m.q.cross_type = c->type;
	/* After the open the symbol trades around its opening price. */
	g->sym[loc].log_mid = log((double)c->price);
	c->started = false;
	c->loc--;
	return dg_put(g, buf, &m);
}

/*
 * Each symbol's C's for this cross: its quota (by activity) on its deeper
 * side, as far as its book has orders; what thinner books cannot give goes
 * to books with orders to spare, the busiest first.  The block keeps its
 * size: only when every book together is too thin (a tiny day) do NOIIs
 * stand in for the C's missing.
 */
static void cross_begin(struct daygen *g, char type)
{
	struct dg_real *r = g->real;
	uint32_t k = g->cfg.symbols, want = (uint32_t)r->c_cross, given = 0, px;

	for (uint32_t loc = 1; loc <= k; loc++) {
		unsigned int side = dg_rnd(g) & 1;
		uint32_t a = side_orders(g, (uint16_t)loc, side, want, &px);
		uint32_t b = side_orders(g, (uint16_t)loc, side ^ 1, want, &px);

		if (b > a) {
			side ^= 1;
			a = b;
		}
		r->side[loc] = (uint8_t)side;
		r->avail[loc] = a;
		r->take[loc] = r->quota[loc] < a ? r->quota[loc] : a;
		given += r->take[loc];
	}
	for (uint32_t loc = 1; loc <= k && given < want; loc++) {
		uint32_t more = r->avail[loc] - r->take[loc];

		if (more > want - given)
			more = want - given;
		r->take[loc] += more;
		given += more;
	}
	r->cr = (struct cross){ .type = type, .loc = k, .short_by = want - given };
}

/* Message i of the prefix: S O, S S, R, H, Y per symbol, V. */
static uint16_t prefix(struct daygen *g, uint8_t *buf, uint64_t i, uint64_t ts)
{
	uint64_t k = g->cfg.symbols;

	if (i < 2)
		return dg_system_event(g, buf, i ? 'S' : 'O', ts);
	i -= 2;
	if (i < k)
		return dg_directory(g, buf, (uint16_t)(i + 1), ts);
	i -= k;
	if (i < k)
		return dg_trading_action(g, buf, (uint16_t)(i + 1), ts);
	i -= k;
	if (i < k)
		return dg_reg_sho(g, buf, (uint16_t)(i + 1), ts);
	return dg_mwcb_levels(g, buf, ts);
}

static uint16_t open_block(struct daygen *g, uint8_t *buf)
{
	struct dg_real *r = g->real;
	uint64_t ts = umax(r->open_ns + (uint64_t)((double)r->open_i * r->open_gap), g->last_ts);

	g->last_ts = ts;
	if (r->open_i++ == 0) {
		cross_begin(g, 'O');
		return dg_system_event(g, buf, 'Q', ts);
	}
	return cross_next(g, buf, ts);
}

static uint16_t close_block(struct daygen *g, uint8_t *buf)
{
	struct dg_real *r = g->real;
	uint64_t i = r->close_i++;
	uint64_t ts = umax(r->close_ns + (uint64_t)((double)i * r->close_gap), g->last_ts);

	g->last_ts = ts;
	if (i == 0)
		cross_begin(g, 'C');
	if (i + 3 < r->n_close)
		return cross_next(g, buf, ts);
	return dg_system_event(g, buf, "MEC"[i + 3 - r->n_close], ts);
}

uint16_t dg_real_next(struct daygen *g, uint8_t *buf)
{
	struct dg_real *r = g->real;
	uint64_t tau;
	uint16_t len;

	if (g->n < r->n_prefix) {
		g->last_ts = r->pre_ns - PREFIX_NS + (uint64_t)((double)g->n * r->prefix_gap);
		return prefix(g, buf, g->n, g->last_ts);
	}
	if (r->body_taken == r->n_body)
		return r->open_i < r->n_open ? open_block(g, buf) : close_block(g, buf);
	tau = dg_clock_peek(&r->clock, &g->rng);
	if (r->open_i < r->n_open && tau >= r->open_ns)
		return open_block(g, buf);
	len = scheduled(g, buf, tau);
	if (!len) {
		g->last_ts = umax(tau, g->last_ts);
		len = fresh(g, buf, g->last_ts);
	}
	dg_clock_take(&r->clock);
	r->body_taken++;
	return len;
}

/* Symbol i's share of the day by its rank (the integral of the law). */
static double rank_share(uint64_t i, uint64_t k)
{
	double g0 = pow(RANK_C, 1 - RANK_S), g1 = pow(1 + RANK_C, 1 - RANK_S);
	double a = pow((double)(i - 1) / (double)k + RANK_C, 1 - RANK_S);
	double b = pow((double)i / (double)k + RANK_C, 1 - RANK_S);

	return (a - b) / (g0 - g1);
}

void dg_real_defaults(struct daygen_config *c)
{
	if (!c->symbols) {
		uint64_t k = (c->messages + MSGS_PER_SYMBOL / 2) / MSGS_PER_SYMBOL;

		c->symbols = (uint32_t)(k < MIN_SYMBOLS ? MIN_SYMBOLS :
					k > DAYGEN_MAX_SYMBOLS ? DAYGEN_MAX_SYMBOLS : k);
	}
	/* The peak is under 1 % of the day's messages (book/README.md). */
	if (!c->max_orders) {
		uint64_t n = c->messages / 64 + 65536;

		c->max_orders = (uint32_t)(n < BOOK_MAX_ORDERS ? n : BOOK_MAX_ORDERS);
	}
}

static uint64_t fixed_messages(uint64_t n, uint64_t k, uint64_t *c_cross)
{
	*c_cross = n * CROSS_C_PPM / 1000000;
	/* prefix, opening block, closing block */
	return (3 + 3 * k) + (1 + k + *c_cross) + (k + *c_cross + 3);
}

int dg_real_check(const struct daygen_config *c, char *err, size_t errlen)
{
	uint64_t k = c->symbols, cc, need = fixed_messages(c->messages, k, &cc) + 20 * k + 1000;

	if (c->messages < need || c->messages >= UINT32_MAX) {
		snprintf(err, errlen, "messages must be %llu (the real shape's fixed blocks and "
			 "some trading for %llu symbols) to %u", (unsigned long long)need,
			 (unsigned long long)k, UINT32_MAX - 1);
		return -EINVAL;
	}
	if (c->duration_ns < 60000000000ull ||
	    c->start_ns < (uint64_t)((double)c->duration_ns * PRE_FRAC) + PREFIX_NS ||
	    c->start_ns + c->duration_ns + CROSS_NS > ITCH_TS_MASK) {
		snprintf(err, errlen, "the real shape's session must last at least 60 s, start "
			 "after its pre-open (a 78th of it) and a second, and end within 48 bits "
			 "of nanoseconds");
		return -EINVAL;
	}
	return 0;
}

static int plan_noii(struct daygen *g)
{
	struct dg_real *r = g->real;
	uint64_t k = g->cfg.symbols;
	uint64_t rounds = (g->cfg.messages * NOII_PPM / 1000000 + k / 2) / k;
	uint64_t pre = rounds / 3 ? rounds / 3 : 1;
	uint64_t close = rounds > pre + 1 ? rounds - pre : 1;
	uint64_t win = (uint64_t)((double)(r->close_ns - r->open_ns) * NOII_FRAC);

	r->noii[0] = (struct noii){ .start_ns = r->pre_ns, .rounds = (uint32_t)pre, .cross = 'O',
				    .every_ns = (r->open_ns - r->pre_ns) / pre };
	r->noii[1] = (struct noii){ .start_ns = r->close_ns - win, .rounds = (uint32_t)close,
				    .cross = 'C', .every_ns = win / close };
	for (int w = 0; w < 2; w++) {
		/* Each round half its interval into it, so the last ends before the cross. */
		r->noii[w].start_ns += r->noii[w].every_ns / 2;
		if (heap_push(r, r->noii[w].start_ns, K_NOII | 1u << 8 | (uint64_t)w << 24))
			return -ENOMEM;
	}
	return 0;
}

int dg_real_setup(struct daygen *g, char *err, size_t errlen)
{
	const struct daygen_config *c = &g->cfg;
	uint64_t k = c->symbols, given = 0;
	double acc = 0, per_price_event;
	struct dg_real *r;

	r = g->real = calloc(1, sizeof(*r));
	if (!r)
		goto nomem;
	r->open_ns = c->start_ns;
	r->close_ns = c->start_ns + c->duration_ns;
	r->pre_ns = r->open_ns - (uint64_t)((double)c->duration_ns * PRE_FRAC);
	r->n_prefix = 3 + 3 * k;
	r->n_body = c->messages - fixed_messages(c->messages, k, &r->c_cross);
	r->n_open = 1 + k + r->c_cross;
	r->n_close = k + r->c_cross + 3;
	/* Fixed spans, not gaps: the busiest millisecond keeps its ratio to
	 * the mean at any scale. */
	r->prefix_gap = (double)PREFIX_NS / r->n_prefix;
	r->open_gap = (double)CROSS_NS / r->n_open;
	r->close_gap = (double)CROSS_NS / r->n_close;
	r->group_of = -1;
	for (size_t i = 0; i < sizeof(mix) / sizeof(mix[0]); i++)
		r->mix_total += mix[i].ppm;
	r->quota = calloc(k + 1, sizeof(*r->quota));
	r->avail = calloc(k + 1, sizeof(*r->avail));
	r->take = calloc(k + 1, sizeof(*r->take));
	r->side = calloc(k + 1, sizeof(*r->side));
	if (!r->quota || !r->avail || !r->take || !r->side)
		goto nomem;

	/* Sigma per price event so that a symbol moves about DAILY_VOL over
	 * its share of the day; the cross quotas by share, what rounding
	 * leaves to the busiest. */
	per_price_event = (double)r->n_body * 0.47;
	for (uint64_t i = 1; i <= k; i++) {
		struct gsym *s = &g->sym[i];
		double w = rank_share(i, k), events = per_price_event * w;

		acc += w;
		g->sym_cdf[i - 1] = i == k ? UINT32_MAX : (uint32_t)(acc * 4294967295.0);
		s->log_mid = log(10.0) + dg_unif(g) * (log(400.0) - log(10.0)) + log(10000.0);
		s->sigma = DAILY_VOL / sqrt(events > 1 ? events : 1);
		r->quota[i] = (uint32_t)((double)r->c_cross * w);
		given += r->quota[i];
	}
	r->quota[1] += (uint32_t)(r->c_cross - given);

	if (dg_clock_init(&r->clock, r->pre_ns, r->open_ns, r->close_ns, r->n_body,
			  c->messages, &g->rng) || plan_noii(g))
		goto nomem;
	return 0;
nomem:
	snprintf(err, errlen, "out of memory");
	return -ENOMEM;
}

void dg_real_free(struct daygen *g)
{
	struct dg_real *r = g->real;

	if (!r)
		return;
	dg_clock_free(&r->clock);
	free(r->quota);
	free(r->avail);
	free(r->take);
	free(r->side);
	free(r->heap);
	free(r);
	g->real = NULL;
}
