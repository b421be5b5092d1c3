// SPDX-License-Identifier: MIT
#include <inttypes.h>
#include <stdio.h>

#include "monitor/export.h"

const double mon_pcts[MON_NPCT] = { 50.0, 99.0, 99.9 };
const char *const mon_pct_names[MON_NPCT] = { "p50", "p99", "p99.9" };

/* Integer arithmetic: no binary fraction ever shows up as 0.30000000000000004. */
void mon_price_str(int64_t p4, char *buf, size_t len)
{
	uint64_t a = p4 < 0 ? (uint64_t)0 - (uint64_t)p4 : (uint64_t)p4;

	snprintf(buf, len, "%s%" PRIu64 ".%04" PRIu64, p4 < 0 ? "-" : "", a / 10000, a % 10000);
}
