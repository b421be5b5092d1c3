// SPDX-License-Identifier: MIT
/*
 * A day's research pass (t2t_api.h): the day read once through the books
 * and the tape (book/day_replay.h); each traded symbol's prints wait in
 * its buffer, and every T2T_STEP of them run through the lanes of all its
 * lengths at once (strategy/hma_lanes.h).  The orders follow
 * t2t-backtest --itch's model (strategy/trader.h): one order of |change| x
 * unit shares per change of position, at the print.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/t2t_int.h"
#include "book/day_replay.h"
#include "proto/dayfile.h"
#include "proto/itch.h"
#include "strategy/inst_spec.h"

int research_open(t2t *h)
{
	const struct t2t_options *o = &h->opt;
	/*
	 * The books ask for transparent huge pages, as the gateway's do.  On
	 * 4 KB pages a process's first two days ran 1.7 x slower than the rest
	 * while taking almost no page faults, and a cluster of short tasks pays
	 * that once per worker; on huge pages every day runs at the later pace.
	 */
	struct book_config bc = { .max_orders = o->book_orders, .track_all = true,
				  .pages = TABLE_MEM_THP };
	struct research *rs;
	int ret;

	rs = calloc(1, sizeof(*rs));
	if (!rs)
		return t2t_fail(h, T2T_ENOMEM, "out of memory");
	h->rs = rs;
	/* a symbol's last group may be partly used: one more per symbol at most */
	rs->max_groups = (o->max_combos + HMA_LANES - 1) / HMA_LANES + o->max_symbols;
	rs->groups = aligned_alloc(64, rs->max_groups * sizeof(*rs->groups));
	rs->group_combo = calloc(rs->max_groups, sizeof(*rs->group_combo));
	rs->sym = calloc(o->max_symbols, sizeof(*rs->sym));
	rs->px = calloc((size_t)o->max_symbols * T2T_STEP, sizeof(*rs->px));
	rs->seq = calloc((size_t)o->max_symbols * T2T_STEP, sizeof(*rs->seq));
	if (!rs->groups || !rs->group_combo || !rs->sym || !rs->px || !rs->seq)
		return t2t_fail(h, T2T_ENOMEM, "out of memory for %u research lanes",
				rs->max_groups);
	ret = book_init(&rs->book, &bc);
	if (ret)
		return t2t_fail(h, T2T_ENOMEM, "the books (%u orders): %s",
				o->book_orders ? o->book_orders : BOOK_DEFAULT_ORDERS,
				strerror(-ret));
	return T2T_OK;
}

void research_close(t2t *h)
{
	struct research *rs = h->rs;

	if (!rs)
		return;
	if (rs->book.mem.addr)
		book_destroy(&rs->book);
	free(rs->groups);
	free(rs->group_combo);
	free(rs->sym);
	free(rs->px);
	free(rs->seq);
	free(rs);
	h->rs = NULL;
}

/* A combination as the command line would take it: the same checks, the same words. */
static int parse_combo(t2t *h, const struct t2t_combo *c, size_t k, struct inst_spec *is)
{
	char arg[64], why[128];

	if (!memchr(c->symbol, '\0', sizeof(c->symbol)) || strchr(c->symbol, ':'))
		return t2t_fail(h, T2T_EINVAL, "combination %zu: the symbol must be 1 to 8 "
				"printable characters", k);
	snprintf(arg, sizeof(arg), "%s:%u:%u", c->symbol, c->length,
		 c->unit ? c->unit : INST_UNIT_DEFAULT);
	if (inst_spec_parse(arg, is, why, sizeof(why))) {
		bool range = c->length < HMA_LEN_MIN || c->length > HMA_LEN_MAX ||
			     c->unit > INST_UNIT_MAX;

		return t2t_fail(h, range ? T2T_ERANGE : T2T_EINVAL, "combination %zu (%s): %s", k,
				arg, why);
	}
	return T2T_OK;
}

static void pad8(char dst[8], const char *s)
{
	memset(dst, ' ', 8);
	memcpy(dst, s, strnlen(s, 8));
}

/* The symbols and their groups of lanes, each group's lanes mapped to combinations. */
static int plan(t2t *h, const struct t2t_combo *combos, size_t n)
{
	struct research *rs = h->rs;
	static const unsigned int none = UINT32_MAX;
	int ret;

	rs->nsym = 0;
	rs->ngroups = 0;
	for (size_t k = 0; k < n; k++) {
		struct inst_spec is;
		char s8[8];
		unsigned int j;

		ret = parse_combo(h, &combos[k], k, &is);
		if (ret)
			return ret;
		pad8(s8, is.symbol);
		for (j = 0; j < rs->nsym && memcmp(rs->sym[j].sym8, s8, 8); j++)
			;
		if (j == rs->nsym) {
			if (rs->nsym == h->opt.max_symbols)
				return t2t_fail(h, T2T_ELIMIT, "more than %u symbols: the handle was "
						"opened for at most %u", h->opt.max_symbols,
						h->opt.max_symbols);
			memset(&rs->sym[j], 0, sizeof(rs->sym[j]));
			memcpy(rs->sym[j].sym8, s8, 8);
			rs->sym[j].locate = -1;
			rs->sym[j].px = rs->px + (size_t)j * T2T_STEP;
			rs->sym[j].seq = rs->seq + (size_t)j * T2T_STEP;
			rs->nsym++;
		}
	}
	/* each symbol's combinations, in the order given, eight to a group */
	for (unsigned int j = 0; j < rs->nsym; j++) {
		struct rsym *sy = &rs->sym[j];
		unsigned int lane = HMA_LANES;

		sy->first_group = rs->ngroups;
		for (size_t k = 0; k < n; k++) {
			char s8[8];

			pad8(s8, combos[k].symbol);
			if (memcmp(sy->sym8, s8, 8))
				continue;
			if (lane == HMA_LANES) {
				if (rs->ngroups == rs->max_groups)
					return t2t_fail(h, T2T_ELIMIT, "too many combinations");
				for (unsigned int l = 0; l < HMA_LANES; l++)
					rs->group_combo[rs->ngroups][l] = none;
				rs->ngroups++;
				lane = 0;
			}
			rs->group_combo[rs->ngroups - 1][lane++] = (uint32_t)k;
		}
		sy->ngroups = rs->ngroups - sy->first_group;
	}
	for (unsigned int g = 0; g < rs->ngroups; g++) {
		unsigned int L[HMA_LANES];
		uint32_t unit[HMA_LANES];
		unsigned int nl = 0;

		for (; nl < HMA_LANES && rs->group_combo[g][nl] != none; nl++) {
			const struct t2t_combo *c = &combos[rs->group_combo[g][nl]];

			L[nl] = c->length;
			unit[nl] = c->unit ? c->unit : INST_UNIT_DEFAULT;
		}
		ret = hma_lanes_init(&rs->groups[g], L, nl, unit, T2T_FEE_PCT, h->isa);
		if (ret)
			return t2t_fail(h, T2T_ERANGE, "lanes: %s", strerror(-ret));
	}
	return T2T_OK;
}

struct flush_ctx {
	struct research *rs;
	const struct rsym *sy;
	unsigned int group;
};

/* A change of a combination's position: its order (trader_tick()'s rule). */
static void on_change(void *ctx, unsigned int lane, size_t i, int chg)
{
	struct flush_ctx *f = ctx;
	struct research *rs = f->rs;
	uint32_t k = rs->group_combo[f->group][lane];
	const struct t2t_combo *c = &rs->combos[k];
	struct t2t_order *o;
	uint32_t unit = c->unit ? c->unit : INST_UNIT_DEFAULT;

	if (rs->orders_n++ >= rs->orders_cap || !rs->orders)
		return;
	o = &rs->orders[rs->orders_n - 1];
	memset(o, 0, sizeof(*o));
	o->md_seq = f->sy->seq[i];
	o->combo = k;
	o->side = chg > 0 ? 'B' : 'S';
	o->shares = (uint32_t)(chg > 0 ? chg : -chg) * unit;
	o->filled = o->shares;
	o->price = f->sy->px[i];
	o->cash = (uint64_t)o->shares * o->price;
}

static void flush(struct research *rs, struct rsym *sy)
{
	struct flush_ctx f = { .rs = rs, .sy = sy };
	bool want = rs->orders != NULL;

	if (!sy->nbuf)
		return;
	for (unsigned int g = sy->first_group; g < sy->first_group + sy->ngroups; g++) {
		f.group = g;
		hma_lanes_run(&rs->groups[g], sy->px, sy->nbuf, want ? on_change : NULL, &f);
	}
	sy->nbuf = 0;
}

static void on_directory(void *ctx, const uint8_t *m)
{
	struct research *rs = ctx;
	uint16_t loc = be16_load(m + ITCH_OFF_LOCATE);

	/* a locate listed again as another stock is no longer ours (t2t-backtest --itch: the same) */
	for (unsigned int j = 0; j < rs->nsym; j++)
		if (!memcmp(m + ITCH_R_OFF_STOCK, rs->sym[j].sym8, 8)) {
			rs->sym[j].locate = loc;
			rs->locate_sym[loc] = (int16_t)j;
		}
}

static void on_print(void *ctx, const struct tape_print *p)
{
	struct research *rs = ctx;
	int j = rs->locate_sym[p->locate];
	struct rsym *sy;

	rs->prints++;
	if (j < 0)
		return;
	sy = &rs->sym[j];
	if (!p->price) {
		sy->refused++;
		return;
	}
	sy->px[sy->nbuf] = p->price;
	sy->seq[sy->nbuf] = p->seq;
	sy->ticks++;
	sy->last = p->price;
	if (++sy->nbuf == T2T_STEP)
		flush(rs, sy);
}

static void on_nothing(void *ctx, const struct tape_print *p)
{
	((struct research *)ctx)->prints++;
	(void)p;
}

/* One reading of the day, with or without the strategies. */
static int read_day(t2t *h, const char *path, bool strategies, struct t2t_day *day)
{
	struct research *rs = h->rs;
	struct day_replay_hooks hk = { .on_directory = strategies ? on_directory : NULL,
				       .on_print = strategies ? on_print : on_nothing, .ctx = rs };
	struct day_replay_stats st;
	struct itch_filter filt;
	char err[DAYFILE_ERR_LEN + 64];
	int ret;

	if (rs->book.peak)
		book_clear(&rs->book);
	memset(rs->locate_sym, 0xff, sizeof(rs->locate_sym));
	rs->prints = 0;
	ret = itch_filter_init(&filt, NULL, 0);
	if (ret)
		return t2t_fail(h, T2T_ENOMEM, "out of memory");
	ret = day_replay(path, &rs->book, &filt, &hk, &st, err, sizeof(err));
	itch_filter_free(&filt);
	if (day)
		*day = (struct t2t_day){ .messages = st.messages, .prints = rs->prints,
					 .seconds = st.seconds };
	if (ret)
		return t2t_day_error(h, path, err);
	return T2T_OK;
}

int t2t_replay_day(t2t *h, const char *path, struct t2t_day *day)
{
	if (!h)
		return T2T_EINVAL;
	h->err[0] = '\0';
	if (!h->rs)
		return t2t_fail(h, T2T_EINVAL, "the handle was not opened for days (options.days)");
	if (!path)
		return t2t_fail(h, T2T_EINVAL, "no day file given");
	return read_day(h, path, false, day);
}

static void results(const struct research *rs, size_t n, struct t2t_result *out)
{
	memset(out, 0, n * sizeof(*out));
	for (unsigned int j = 0; j < rs->nsym; j++) {
		const struct rsym *sy = &rs->sym[j];

		for (unsigned int g = sy->first_group; g < sy->first_group + sy->ngroups; g++) {
			const struct hma_lanes *hl = &rs->groups[g];

			for (unsigned int l = 0; l < hl->lanes; l++) {
				struct t2t_result *r = &out[rs->group_combo[g][l]];
				struct sar s;

				hma_lanes_result(hl, l, &s);
				r->ticks = sy->ticks;
				r->refused = sy->refused;
				r->orders = (uint64_t)hl->orders[l];
				r->fills = r->orders;
				r->trades = s.trades;
				r->pnl_pct = s.pnl_pct;
				r->position = hl->pos[l] * hl->unit[l];
				r->max_position = hl->max_pos[l];
				r->cash = hl->cash[l];
				r->last_price = sy->last;
				r->pnl = r->cash + r->position * (int64_t)sy->last;
			}
		}
	}
}

int t2t_research_day(t2t *h, const char *path, const struct t2t_combo *combos, size_t n,
		     struct t2t_result *res, struct t2t_order *orders, size_t orders_cap,
		     size_t *orders_n, struct t2t_day *day)
{
	struct research *rs;
	int ret;

	if (!h)
		return T2T_EINVAL;
	h->err[0] = '\0';
	rs = h->rs;
	if (!rs)
		return t2t_fail(h, T2T_EINVAL, "the handle was not opened for days (options.days)");
	if (!path || !combos || !res || (orders && !orders_n))
		return t2t_fail(h, T2T_EINVAL, "a NULL argument");
	if (!n)
		return t2t_fail(h, T2T_EINVAL, "no combination given");
	if (n > h->opt.max_combos)
		return t2t_fail(h, T2T_ELIMIT, "%zu combinations: the handle was opened for at "
				"most %u", n, h->opt.max_combos);
	ret = plan(h, combos, n);
	if (ret)
		return ret;
	rs->combos = combos;
	rs->orders = orders;
	rs->orders_cap = orders ? orders_cap : 0;
	rs->orders_n = 0;
	ret = read_day(h, path, true, day);
	if (ret)
		return ret;
	for (unsigned int j = 0; j < rs->nsym; j++)
		flush(rs, &rs->sym[j]);
	for (unsigned int j = 0; j < rs->nsym; j++)
		if (rs->sym[j].locate < 0) {
			int len = 8;

			while (len > 1 && rs->sym[j].sym8[len - 1] == ' ')
				len--;
			return t2t_fail(h, T2T_ENOSYM, "%.*s is not in the day's stock directory (%s)",
					len, rs->sym[j].sym8, path);
		}
	results(rs, n, res);
	if (orders_n)
		*orders_n = rs->orders_n;
	if (orders && rs->orders_n > orders_cap)
		return t2t_fail(h, T2T_ESPACE, "%zu orders: the array holds %zu", rs->orders_n,
				orders_cap);
	return T2T_OK;
}
