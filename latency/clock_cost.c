// SPDX-License-Identifier: MIT
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <time.h>

#include "util/clock.h"
#include "latency/clock_cost.h"

int clock_cost_measure(int cpu, unsigned int n, struct hdr_hist *h)
{
	cpu_set_t old, set;
	bool moved = false;

	hdr_reset(h);
	if (cpu >= 0) {
		if (sched_getaffinity(0, sizeof(old), &old))
			return -errno;
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			return -errno;
		moved = true;
	}
	/* Warm the vDSO page and the loop before counting. */
	for (unsigned int i = 0; i < 1000; i++)
		(void)mono_ns();
	for (unsigned int i = 0; i < n; i++) {
		uint64_t a = mono_ns();
		uint64_t b = mono_ns();

		hdr_record(h, (int64_t)(b - a));
	}
	if (moved)
		sched_setaffinity(0, sizeof(old), &old);
	return 0;
}
