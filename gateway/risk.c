// SPDX-License-Identifier: MIT
#include <string.h>

#include "gateway/risk.h"

const char *const risk_reason_names[RISK_NR] = {
	[RISK_KILLED] = "kill_switch",
	[RISK_MAX_POS] = "max_position",
	[RISK_MAX_ORDER] = "max_order_size",
	[RISK_RATE] = "max_rate",
	[RISK_COLLAR] = "price_collar",
	[RISK_PRICE_RANGE] = "price_range",
	[RISK_MAX_OPEN] = "max_open_orders",
};

void risk_init(struct risk *r, const struct risk_cfg *cfg)
{
	memset(r, 0, sizeof(*r));
	r->cfg = *cfg;
	if (r->cfg.max_rate) {
		r->order_cost_ns = 1000000000ull / r->cfg.max_rate;
		if (!r->cfg.burst)
			r->cfg.burst = 1;
		r->credit_ns = r->order_cost_ns * r->cfg.burst;	/* start full */
	}
}
