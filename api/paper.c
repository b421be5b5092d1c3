// SPDX-License-Identifier: MIT
/*
 * A day through the gateway's engine in paper mode (t2t_api.h): the
 * engine t2t-backtest --itch --paper runs, on the same loop
 * (gateway/paper_day.h), its orders handed out as they become final.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/t2t_int.h"
#include "gateway/paper_day.h"
#include "proto/dayfile.h"
#include "strategy/inst_spec.h"

struct paper_call {
	t2t *h;
	struct gw_engine e;
	uint32_t next;			/* the next order to hand out */
	bool lost;
	struct t2t_order *orders;
	size_t cap, n;
	int64_t pos[GW_MAX_INST], max_pos[GW_MAX_INST];
};

static void take_order(void *ctx, const struct gw_order *o)
{
	struct paper_call *c = ctx;
	int64_t *pos = &c->pos[o->inst];

	*pos += o->side == 'B' ? (int64_t)o->filled : -(int64_t)o->filled;
	if ((*pos < 0 ? -*pos : *pos) > c->max_pos[o->inst])
		c->max_pos[o->inst] = *pos < 0 ? -*pos : *pos;
	if (c->n++ < c->cap)
		c->orders[c->n - 1] = (struct t2t_order){
			.md_seq = o->md_seq, .cash = o->cash, .combo = o->inst, .shares = o->shares,
			.filled = o->filled, .price = o->price, .side = o->side,
		};
}

static void after_msg(void *ctx)
{
	struct paper_call *c = ctx;

	if (!paper_day_orders(&c->e, &c->next, false, take_order, c))
		c->lost = true;
}

static int sym_len(const char sym[8])
{
	int n = 8;

	while (n > 1 && sym[n - 1] == ' ')
		n--;
	return n;
}

static int configure(t2t *h, const struct t2t_combo *combos, size_t n, uint64_t latency_ns,
		     uint32_t limit_bp, struct gw_cfg *cfg)
{
	struct inst_spec spec[GW_MAX_INST];

	if (n > GW_MAX_INST)
		return t2t_fail(h, T2T_ELIMIT, "the engine trades at most %d symbols, not %zu",
				GW_MAX_INST, n);
	if (limit_bp != T2T_LIMIT_GATEWAY && limit_bp > 10000)
		return t2t_fail(h, T2T_ERANGE, "limit %u bp is out of range [0, 10000]", limit_bp);
	if (latency_ns > 60000000000ull)
		return t2t_fail(h, T2T_ERANGE, "paper latency %llu ns is out of range [0, 60e9]",
				(unsigned long long)latency_ns);
	for (size_t k = 0; k < n; k++) {
		const struct t2t_combo *c = &combos[k];
		char arg[64], why[128];

		if (!memchr(c->symbol, '\0', sizeof(c->symbol)) || strchr(c->symbol, ':'))
			return t2t_fail(h, T2T_EINVAL, "combination %zu: the symbol must be 1 to 8 "
					"printable characters", k);
		snprintf(arg, sizeof(arg), "%s:%u:%u", c->symbol, c->length,
			 c->unit ? c->unit : INST_UNIT_DEFAULT);
		if (inst_spec_parse(arg, &spec[k], why, sizeof(why)))
			return t2t_fail(h, c->length < HMA_LEN_MIN || c->length > HMA_LEN_MAX ||
					c->unit > INST_UNIT_MAX ? T2T_ERANGE : T2T_EINVAL,
					"combination %zu (%s): %s", k, arg, why);
		for (size_t j = 0; j < k; j++)
			if (!strcmp(spec[j].symbol, spec[k].symbol))
				return t2t_fail(h, T2T_EINVAL, "%s given twice: the engine trades one "
						"length per symbol", spec[k].symbol);
	}
	paper_day_config(cfg, spec, (unsigned int)n, latency_ns,
			 limit_bp == T2T_LIMIT_GATEWAY ? PAPER_DAY_LIMIT_GATEWAY : limit_bp, true);
	cfg->book.max_orders = h->opt.book_orders;
	return T2T_OK;
}

static void results(const struct paper_call *c, struct t2t_result *out)
{
	for (unsigned int k = 0; k < c->e.n_inst; k++) {
		const struct gw_inst *in = &c->e.inst[k];
		struct sar s = in->strat.sar;

		if (in->ticks)
			sar_finish(&s, in->last_price);
		out[k] = (struct t2t_result){
			.ticks = in->ticks, .refused = in->bad_price, .orders = in->orders,
			.fills = in->fills, .trades = s.trades, .position = in->pos_shares,
			.max_position = c->max_pos[k], .cash = in->cash, .pnl = inst_pnl(in),
			.pnl_pct = s.pnl_pct, .last_price = in->last_price,
		};
	}
}

int t2t_paper_day(t2t *h, const char *path, const struct t2t_combo *combos, size_t n,
		  uint64_t latency_ns, uint32_t limit_bp, struct t2t_result *res,
		  struct t2t_order *orders, size_t orders_cap, size_t *orders_n)
{
	struct paper_call *c;
	struct itch_filter filt;
	struct gw_cfg cfg;
	char err[DAYFILE_ERR_LEN + 64];
	int ret;

	if (!h)
		return T2T_EINVAL;
	h->err[0] = '\0';
	if (!path || !combos || !res || !orders_n || (!orders && orders_cap))
		return t2t_fail(h, T2T_EINVAL, "a NULL argument");
	if (!n)
		return t2t_fail(h, T2T_EINVAL, "no combination given");
	ret = configure(h, combos, n, latency_ns, limit_bp, &cfg);
	if (ret)
		return ret;
	c = calloc(1, sizeof(*c));
	if (!c)
		return t2t_fail(h, T2T_ENOMEM, "out of memory");
	c->h = h;
	c->orders = orders;
	c->cap = orders_cap;
	if (engine_init(&c->e, &cfg, err, sizeof(err))) {
		free(c);
		return t2t_fail(h, T2T_ENOMEM, "the engine: %s", err);
	}
	if (itch_filter_init(&filt, NULL, 0)) {
		engine_destroy(&c->e);
		free(c);
		return t2t_fail(h, T2T_ENOMEM, "out of memory");
	}
	ret = paper_day_run(&c->e, path, &filt, after_msg, c, err, sizeof(err));
	if (!paper_day_orders(&c->e, &c->next, true, take_order, c))
		c->lost = true;
	if (ret) {
		ret = t2t_day_error(h, path, err);
		goto out;
	}
	for (unsigned int k = 0; k < c->e.n_inst; k++)
		if (c->e.inst[k].locate < 0) {
			ret = t2t_fail(h, T2T_ENOSYM, "%.*s is not in the day's stock directory (%s)",
				       sym_len(c->e.inst[k].symbol), c->e.inst[k].symbol, path);
			goto out;
		}
	if (c->lost) {
		ret = t2t_fail(h, T2T_ELIMIT, "more orders waited at once than the order log "
			       "holds: some were lost");
		goto out;
	}
	results(c, res);
	*orders_n = c->n;
	if (c->n > orders_cap)
		ret = t2t_fail(h, T2T_ESPACE, "%zu orders: the array holds %zu", c->n, orders_cap);
out:
	itch_filter_free(&filt);
	engine_destroy(&c->e);
	free(c);
	return ret;
}
