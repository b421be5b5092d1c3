/* SPDX-License-Identifier: MIT */
/*
 * One traded instrument: its strategy, what the exchange confirmed (position
 * and cash), the recent prints that price its orders, and the order
 * template.  Open orders are the order log's (orders.h): the instrument
 * holds only what is known for certain.
 *
 * Order size policy.  The strategy names a target (its stop-and-reverse
 * position times the unit).  An order is sized from the target and the
 * exposure on its side, never from the strategy's last change: to buy,
 * target - (position + open buys); to sell, (position - open sells) -
 * target.  Open orders on the other side are assumed not to fill.  So an
 * order that was canceled, refused or never sent is made up at the next
 * tick, and whatever the fills, the position can never pass the target:
 * the strategy's largest target (one unit) bounds it.
 */
#ifndef GATEWAY_INST_H
#define GATEWAY_INST_H

#include <stdbool.h>
#include <stdint.h>

#include "proto/ouch.h"
#include "strategy/inst_spec.h"
#include "strategy/strat.h"

/* Recent prints the price reference is the median of. */
#define INST_REF_PRINTS 3

struct gw_inst {
	char symbol[8];		/* space padded, as on the wire */
	int locate;		/* -1 until the stock directory names it */
	uint32_t unit;
	struct strat strat;
	uint32_t last_price;
	uint32_t last_shares;
	uint64_t last_seq;	/* the last print's sequence number and timestamp */
	uint64_t last_ts;
	/* a strategy change covered by orders in flight, not yet made up */
	bool covered;
	uint32_t covered_px;
	uint64_t covered_seq, covered_ts;
	uint32_t ref[INST_REF_PRINTS];	/* last prints, newest at ref_at */
	uint32_t ref_at;
	/* what the exchange confirmed */
	int64_t pos_shares;
	int64_t cash;		/* Price(4) units x shares */
	uint64_t ticks, orders, fills, cancels, rejects, bad_price;
	uint64_t restores;	/* orders with no strategy change at their tick */
	struct ouch_order_tmpl tmpl;	/* firm, TIF, ... preset */
};

/* 0, or -ERANGE (HMA length out of range). */
int inst_init(struct gw_inst *in, const struct inst_spec *spec, const char *firm);

/* A valid print of the instrument: last print and the reference's window. */
static inline void inst_note_print(struct gw_inst *in, uint32_t px, uint32_t shares,
				   uint64_t seq, uint64_t ts48)
{
	in->last_price = px;
	in->last_shares = shares;
	in->last_seq = seq;
	in->last_ts = ts48;
	in->ref_at = in->ref_at + 1 == INST_REF_PRINTS ? 0 : in->ref_at + 1;
	in->ref[in->ref_at] = px;
}

/* The last print's change was covered by orders in flight: remember it. */
static inline void inst_note_covered(struct gw_inst *in, uint64_t seq)
{
	in->covered = true;
	in->covered_px = in->last_price;
	in->covered_seq = seq;
	in->covered_ts = in->last_ts;
}

/*
 * The price orders are judged against: the median of the last three
 * prints, so that one stray print (a valid ITCH price of 0xFFFFFFFF, say)
 * cannot move it.  Before three prints, the prints there are (0 = none).
 */
static inline uint32_t inst_reference(const struct gw_inst *in)
{
	uint32_t a = in->ref[0], b = in->ref[1], c = in->ref[2], t;

	if (a > b) { t = a; a = b; b = t; }
	if (b > c) { t = b; b = c; c = t; }
	if (a > b) { t = a; a = b; b = t; }
	/* zeros (no print yet) sort first */
	if (a)
		return b;	/* three prints: the median */
	return b ? b : c;	/* two: the lower; one: it; none: 0 */
}

static inline int64_t inst_target(const struct gw_inst *in)
{
	return (int64_t)in->strat.sar.pos * in->unit;
}

/*
 * Shares to trade now toward the target (> 0 buy, < 0 sell, 0 none), given
 * the shares in open orders on each side.
 */
static inline int64_t inst_want(const struct gw_inst *in, int64_t open_buy,
				int64_t open_sell)
{
	int64_t target = inst_target(in);

	if (target > in->pos_shares + open_buy)
		return target - (in->pos_shares + open_buy);
	if (target < in->pos_shares - open_sell)
		return target - (in->pos_shares - open_sell);
	return 0;
}

/* An execution confirmed by the exchange. */
static inline void inst_fill(struct gw_inst *in, char side, uint32_t shares,
			     uint32_t price)
{
	int64_t s = side == 'B' ? (int64_t)shares : -(int64_t)shares;

	in->pos_shares += s;
	in->cash -= s * (int64_t)price;
	in->fills++;
}

/* A paper fill: @shares worth @cash (their exact sum) in @execs executions. */
static inline void inst_fill_sum(struct gw_inst *in, char side, uint32_t shares,
				 uint64_t cash, uint32_t execs)
{
	if (side == 'B') {
		in->pos_shares += shares;
		in->cash -= (int64_t)cash;
	} else {
		in->pos_shares -= shares;
		in->cash += (int64_t)cash;
	}
	in->fills += execs;
}

/* Marked-to-market PnL, in Price(4) units. */
static inline int64_t inst_pnl(const struct gw_inst *in)
{
	return in->cash + in->pos_shares * (int64_t)in->last_price;
}

#endif /* GATEWAY_INST_H */
