// SPDX-License-Identifier: MIT
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "strategy/trader.h"

int trader_init(struct trader *t, const struct inst_spec *spec)
{
	t->spec = spec;
	t->ticks = t->orders = t->refused = 0;
	t->last = 0;
	t->shares = t->cash = 0;
	return strat_init(&t->st, spec->length);
}

void trader_tick(struct trader *t, uint64_t seq, uint32_t price, FILE *out)
{
	int chg = strat_on_tick(&t->st, price);

	if (chg == -ERANGE) {
		t->refused++;
		return;
	}
	t->ticks++;
	t->last = price;
	if (chg == 0)
		return;
	t->orders++;
	/* Filled at the print: the backtest's order model. */
	t->shares += (int64_t)chg * t->spec->unit;
	t->cash -= (int64_t)chg * t->spec->unit * price;
	fprintf(out, "%" PRIu64 ",%s,%c,%u\n", seq, t->spec->symbol, chg > 0 ? 'B' : 'S',
		(unsigned int)abs(chg) * t->spec->unit);
}

void trader_summary(const struct trader *t, FILE *f)
{
	struct sar s = t->st.sar;

	if (t->ticks)
		sar_finish(&s, t->last);
	fprintf(f, "t2t-backtest: %-8s L=%-3u ticks %-8" PRIu64 " orders %-6" PRIu64
		" position %+" PRId64 " shares cash $%.4f pnl $%.4f (at the prints); strategy "
		"trades %" PRIu64 ", returns %.9f%%", t->spec->symbol, t->spec->length, t->ticks,
		t->orders, t->shares, (double)t->cash / 1e4,
		(double)(t->cash + t->shares * (int64_t)t->last) / 1e4, s.trades, s.pnl_pct);
	if (t->refused)
		fprintf(f, " refused %" PRIu64 " (price out of range)", t->refused);
	fputc('\n', f);
}
