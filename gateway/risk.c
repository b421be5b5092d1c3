// SPDX-License-Identifier: MIT
#include <string.h>

#include "gateway/risk.h"

#define RISK_REASON_NAME_(id, s) [id] = s,
const char *const risk_reason_names[RISK_NR] = { RISK_REASON_NAMES(RISK_REASON_NAME_) };

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
