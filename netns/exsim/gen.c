// SPDX-License-Identifier: MIT
/* Tick source: GBM or file prices, round-robin symbols, noise messages. */
#include <math.h>
#include <string.h>

#include "netns/exsim/gen.h"
#include "util/rng.h"

/* Seed tweak for the second stream, so that it never equals a price stream. */
#define GEN_AUX_SALT	UINT64_C(0x6e6f6973655f7631)

void gen_init(struct gen *g, const struct exsim_cfg *c,
	      const uint32_t *prices, uint64_t nprices)
{
	double whole = floor(c->noise), frac = c->noise - whole;
	unsigned int i;

	memset(g, 0, sizeof(*g));
	g->nsym = c->nsym;
	g->symbols = c->symbols;
	for (i = 0; i < c->nsym; i++)
		gbm_init(&g->gbm[i], c->seed + i);
	g->prices = prices;
	g->nprices = nprices;
	g->aux = c->seed ^ GEN_AUX_SALT;
	g->noise_whole = (unsigned int)whole;
	/* 2^64 * frac, kept below 2^64 (frac < 1 but may round up). */
	g->noise_frac = frac > 0 ? (uint64_t)fmin(ldexp(frac, 64), 18446744073709549568.0) : 0;
}

static uint64_t aux_next(struct gen *g)
{
	return splitmix64(&g->aux);
}

void gen_next(struct gen *g, struct gen_tick *t)
{
	unsigned int sym = (unsigned int)(g->ticks % g->nsym);

	t->index = g->ticks;
	t->locate = (uint16_t)(sym + 1);
	if (g->prices)
		t->price = g->prices[g->ticks < g->nprices ? g->ticks : g->nprices - 1];
	else
		t->price = gbm_next(&g->gbm[sym]);
	/* Round lots, 100 to 500 shares. */
	t->shares = 100 * (uint32_t)(1 + aux_next(g) % 5);
	t->noise = g->noise_whole;
	if (g->noise_frac && aux_next(g) < g->noise_frac)
		t->noise++;
	g->ticks++;
}

static void header(struct itch_msg *m, char type, uint16_t locate)
{
	memset(m, 0, sizeof(*m));
	m->type = type;
	m->locate = locate;
}

void gen_trade(struct gen *g, const struct gen_tick *t, struct itch_msg *m)
{
	header(m, 'P', t->locate);
	m->p.order_ref = 0;	/* non-displayed order: no reference */
	m->p.side = 'B';
	m->p.shares = t->shares;
	memcpy(m->p.stock, g->symbols[t->locate - 1], ITCH_SYMBOL_LEN);
	m->p.price = t->price;
	m->p.match = ++g->match;
}

/*
 * A resting price for @side: 0 to 9 cents behind the trade on the cent
 * grid, so the noise book never crosses the trades and its levels sit tick
 * by tick like a real one's.
 */
static uint32_t behind(struct gen *g, uint32_t price, char side)
{
	int64_t k = (int64_t)(aux_next(g) % 10) * 100, p;

	if (side == 'B')
		p = (int64_t)price / 100 * 100 - k;
	else
		p = ((int64_t)price + 99) / 100 * 100 + k;
	return p < 100 ? 100 : p > 0x7fffff00 ? 0x7fffff00 : (uint32_t)p;
}

static void forget(struct gen *g, unsigned int sym, unsigned int i)
{
	g->live[sym][i] = g->live[sym][--g->nlive[sym]];
}

void gen_noise(struct gen *g, const struct gen_tick *t, struct itch_msg *m)
{
	unsigned int sym = t->locate - 1, n = g->nlive[sym], i;
	uint64_t r = aux_next(g) % 100;
	struct gen_order *o;
	char type;

	/*
	 * Weights: A 30, F 5, C 20, X 15, D 20, U 10 (percent).  Noise must
	 * not trade: no E (it prints at the order's price), and every C is
	 * non-printable.  With nothing resting an order is added; with the
	 * pool full, one is deleted.
	 */
	type = r < 30 ? 'A' : r < 35 ? 'F' : r < 55 ? 'C' :
	       r < 70 ? 'X' : r < 90 ? 'D' : 'U';
	if (!n && type != 'A' && type != 'F')
		type = 'A';
	else if (n == GEN_NOISE_LIVE && (type == 'A' || type == 'F'))
		type = 'D';
	i = n ? (unsigned int)(aux_next(g) % n) : 0;
	/*
	 * A resting order the trades have moved through would have traded on
	 * a real book: it goes first, so that bids stay below asks.
	 */
	for (unsigned int k = 0; k < n; k++) {
		const struct gen_order *c = &g->live[sym][k];

		if (c->side == 'B' ? c->price > t->price : c->price < t->price) {
			type = 'D';
			i = k;
			break;
		}
	}
	o = &g->live[sym][i];
	/* An execution or cancel of all that is left is a delete's job. */
	if ((type == 'C' || type == 'X') && o->shares <= 100)
		type = 'D';

	header(m, type, t->locate);
	switch (type) {
	case 'A':
	case 'F':
		o = &g->live[sym][g->nlive[sym]++];
		o->ref = ++g->order_ref;
		o->side = aux_next(g) & 1 ? 'B' : 'S';
		o->shares = 100 * (uint32_t)(1 + aux_next(g) % 10);
		o->price = behind(g, t->price, o->side);
		m->a.order_ref = o->ref;
		m->a.side = o->side;
		m->a.shares = o->shares;
		memcpy(m->a.stock, g->symbols[sym], ITCH_SYMBOL_LEN);
		m->a.price = o->price;
		if (type == 'F')
			memcpy(m->a.mpid, "SIMX", 4);
		break;
	case 'C':
		m->e.order_ref = o->ref;
		m->e.shares = 100;
		m->e.match = ++g->match;
		m->e.printable = 'N';
		m->e.price = o->price;
		o->shares -= 100;
		break;
	case 'X':
		m->x.order_ref = o->ref;
		m->x.shares = 100;
		o->shares -= 100;
		break;
	case 'D':
		m->d.order_ref = o->ref;
		forget(g, sym, i);
		break;
	case 'U':
		m->u.orig_ref = o->ref;
		o->ref = ++g->order_ref;
		o->price = behind(g, t->price, o->side);
		m->u.new_ref = o->ref;
		m->u.shares = o->shares;
		m->u.price = o->price;
		break;
	}
}

void gen_plan(struct gen *g, uint64_t total, double rate, uint32_t burst)
{
	g->total = total;
	g->period_ns = rate > 0 ? 1e9 / rate : 0;
	g->burst = burst ? burst : 1;
}

static void put(struct feed_unit *u, const struct itch_msg *m)
{
	uint8_t *p = u->buf + u->bytes;
	int len = itch_encode(p, sizeof(u->buf) - u->bytes, m);

	/* The largest tick (20 noise messages and a trade) is 966 bytes. */
	if (len > 0)
		feed_unit_add(u, (uint16_t)len);
}

int gen_feed_next(void *gen, struct feed_unit *u)
{
	struct gen *g = gen;
	struct gen_tick t;
	struct itch_msg m;
	unsigned int i;

	if (g->ticks >= g->total)
		return 0;
	gen_next(g, &t);
	for (i = 0; i < t.noise; i++) {
		gen_noise(g, &t, &m);
		put(u, &m);
	}
	gen_trade(g, &t, &m);
	put(u, &m);
	u->offset_ns = (uint64_t)((double)(t.index - t.index % g->burst) * g->period_ns);
	return 1;
}

void gen_directory(const struct gen *g, uint16_t locate, struct itch_msg *m)
{
	header(m, 'R', locate);
	memcpy(m->r.stock, g->symbols[locate - 1], ITCH_SYMBOL_LEN);
	m->r.market_category = 'Q';		/* NASDAQ Global Select */
	m->r.financial_status = 'N';		/* normal */
	m->r.round_lot_size = 100;
	m->r.round_lots_only = 'N';
	m->r.issue_classification = 'C';	/* common stock */
	memcpy(m->r.issue_subtype, "Z ", 2);	/* not applicable */
	m->r.authenticity = 'P';		/* live/production */
	m->r.short_sale_threshold = 'N';
	m->r.ipo_flag = ' ';
	m->r.luld_tier = '1';
	m->r.etp_flag = 'N';
	m->r.etp_leverage = 0;
	m->r.inverse = 'N';
}
