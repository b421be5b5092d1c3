/* SPDX-License-Identifier: MIT */
/*
 * Pre-trade risk: every order passes these checks in the hot path, in a few
 * instructions, before a TX frame is taken; a refused order never leaves and
 * is counted by reason.  The kill switch is set by the main thread (file or
 * SIGUSR1) and read here for every order.
 */
#ifndef GATEWAY_RISK_H
#define GATEWAY_RISK_H

#include <stdbool.h>
#include <stdint.h>

#include "gateway/inst.h"

/* OUCH 4.2's price field: 199,999.9900 at most; 0 is no price. */
#define RISK_PRICE_MAX	1999999900u

/* Limits; 0 = no limit, except max_pos (0 = one unit of the instrument). */
struct risk_cfg {
	uint32_t max_pos;	/* |position| per symbol, open orders included */
	uint32_t max_order;	/* shares per order */
	uint32_t max_rate;	/* orders per second (token bucket) ... */
	uint32_t burst;		/* ... of this depth */
	uint32_t collar_bp;	/* limit within this of the reference price */
	uint32_t max_open;	/* orders without a final reply */
};

/* Why an order was refused; RISK_OK: it may leave. */
enum risk_reason {
	RISK_OK,
	RISK_KILLED,		/* kill switch */
	RISK_MAX_POS,
	RISK_MAX_ORDER,
	RISK_RATE,
	RISK_COLLAR,
	RISK_PRICE_RANGE,	/* limit outside OUCH's price range */
	RISK_MAX_OPEN,
	RISK_NR,
};

/*
 * The refusals' names (RISK_OK has none), listed here so that the counter
 * table (gateway/counters.h) names the "risk" group from them at compile
 * time; risk_reason_names[] is made from the same list.
 */
#define RISK_REASON_NAMES(X) \
	X(RISK_KILLED, "kill_switch") \
	X(RISK_MAX_POS, "max_position") \
	X(RISK_MAX_ORDER, "max_order_size") \
	X(RISK_RATE, "max_rate") \
	X(RISK_COLLAR, "price_collar") \
	X(RISK_PRICE_RANGE, "price_range") \
	X(RISK_MAX_OPEN, "max_open_orders")

extern const char *const risk_reason_names[RISK_NR];

struct risk {
	struct risk_cfg cfg;
	uint64_t order_cost_ns;		/* 1e9 / max_rate */
	uint64_t credit_ns;		/* token bucket, in ns of allowance */
	uint64_t credit_at;
	volatile int killed;		/* no new orders */
	uint64_t refused[RISK_NR];	/* by reason; [RISK_OK] unused */
};

void risk_init(struct risk *r, const struct risk_cfg *cfg);

/* The position limit of an instrument: the configured one, or one unit. */
static inline uint32_t risk_max_pos(const struct risk *r, const struct gw_inst *in)
{
	return r->cfg.max_pos ? r->cfg.max_pos : in->unit;
}

/*
 * May an order of @shares (> 0 buy, < 0 sell) at @limit leave?  RISK_OK if
 * so, else the reason (counted).  @ref: the price the collar judges against (0:
 * none known); @open_buy / @open_sell: shares in the instrument's open
 * orders; @open: orders awaiting a final reply.
 */
static inline int risk_check(struct risk *r, const struct gw_inst *in,
			     int64_t shares, uint32_t limit, uint32_t ref,
			     int64_t open_buy, int64_t open_sell, uint32_t open,
			     uint64_t now)
{
	const struct risk_cfg *c = &r->cfg;
	uint64_t size = (uint64_t)(shares < 0 ? -shares : shares);
	int why;

	if (r->killed) {
		why = RISK_KILLED;
		goto refuse;
	}
	if (c->max_order && size > c->max_order) {
		why = RISK_MAX_ORDER;
		goto refuse;
	}
	/* Worst case: every open order on this side fills too. */
	{
		int64_t worst = shares > 0 ? in->pos_shares + open_buy + shares :
					     in->pos_shares - open_sell + shares;

		if ((uint64_t)(worst < 0 ? -worst : worst) > risk_max_pos(r, in)) {
			why = RISK_MAX_POS;
			goto refuse;
		}
	}
	if (limit == 0 || limit > RISK_PRICE_MAX) {
		why = RISK_PRICE_RANGE;
		goto refuse;
	}
	if (c->collar_bp) {
		uint64_t dev = limit > ref ? limit - ref : ref - limit;

		if (!ref || dev * 10000 > (uint64_t)ref * c->collar_bp) {
			why = RISK_COLLAR;
			goto refuse;
		}
	}
	if (c->max_open && open >= c->max_open) {
		why = RISK_MAX_OPEN;
		goto refuse;
	}
	if (c->max_rate) {
		uint64_t cap = r->order_cost_ns * c->burst;

		if (now > r->credit_at) {
			r->credit_ns += now - r->credit_at;
			r->credit_at = now;
		}
		if (r->credit_ns > cap)
			r->credit_ns = cap;
		if (r->credit_ns < r->order_cost_ns) {
			why = RISK_RATE;
			goto refuse;
		}
		r->credit_ns -= r->order_cost_ns;
	}
	return RISK_OK;
refuse:
	r->refused[why]++;
	return why;
}

#endif /* GATEWAY_RISK_H */
