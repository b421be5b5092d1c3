/* SPDX-License-Identifier: MIT */
/*
 * The stop-and-reverse trading rule of the spec, shared by the backtester
 * and the live gateway so that both account trades identically, to the bit.
 */
#ifndef STRATEGY_SAR_H
#define STRATEGY_SAR_H

#include <stdint.h>

#define SAR_FEE_PCT 0.09	/* round-trip fee, percentage points */

struct sar {
	int pos;		/* -1, 0, +1 */
	uint32_t entry;		/* entry price of the open position */
	uint64_t trades;	/* completed (closed) trades */
	double pnl_pct;		/* sum of trade returns, in trade order */
};

static inline void sar_init(struct sar *s)
{
	s->pos = 0;
	s->entry = 0;
	s->trades = 0;
	s->pnl_pct = 0.0;
}

/*
 * Return of closing position pos, entered at e, at price x, less @fee
 * percentage points.  The operations and their order are the rule's: the
 * kernel in lanes (hma_lanes.h) computes them in the same order, so that
 * both give the same bits.
 */
static inline double sar_trade_return_fee(int pos, uint32_t e, uint32_t x, double fee)
{
	return (double)pos * ((double)x - (double)e) / (double)e * 100.0 - fee;
}

/* Return of closing position pos, entered at e, at price x. */
static inline double sar_trade_return(int pos, uint32_t e, uint32_t x)
{
	return sar_trade_return_fee(pos, e, x, SAR_FEE_PCT);
}

/*
 * Apply signal d at price x, a closed trade costing @fee percentage
 * points.  Returns the position change new - old (0, +-1 for an entry, +-2
 * for a reversal): the order the gateway sends.
 */
static inline int sar_step_fee(struct sar *s, int d, uint32_t x, double fee)
{
	int old = s->pos;

	if (d == 0 || d == old)
		return 0;
	if (old != 0) {
		s->pnl_pct += sar_trade_return_fee(old, s->entry, x, fee);
		s->trades++;
	}
	s->pos = d;
	s->entry = x;
	return d - old;
}

/* sar_step_fee() with the spec's fee. */
static inline int sar_step(struct sar *s, int d, uint32_t x)
{
	return sar_step_fee(s, d, x, SAR_FEE_PCT);
}

/* End of series: an open position is closed at the last price. */
static inline void sar_finish_fee(struct sar *s, uint32_t last, double fee)
{
	if (s->pos != 0) {
		s->pnl_pct += sar_trade_return_fee(s->pos, s->entry, last, fee);
		s->trades++;
		s->pos = 0;
	}
}

static inline void sar_finish(struct sar *s, uint32_t last)
{
	sar_finish_fee(s, last, SAR_FEE_PCT);
}

#endif /* STRATEGY_SAR_H */
