/* SPDX-License-Identifier: MIT */
/*
 * CLOCK_MONOTONIC in nanoseconds: the one clock of the rig, the same as the
 * XDP stamp (bpf_ktime_get_ns).  On these machines a vDSO call on the TSC,
 * no syscall.  The kernel's SO_TIMESTAMPNS is CLOCK_REALTIME: realtime_offset()
 * converts it.
 */
#ifndef GATEWAY_CLOCK_H
#define GATEWAY_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* CLOCK_REALTIME - CLOCK_MONOTONIC, read once at start-up. */
static inline int64_t realtime_offset(void)
{
	struct timespec r, m;

	clock_gettime(CLOCK_MONOTONIC, &m);
	clock_gettime(CLOCK_REALTIME, &r);
	return ((int64_t)r.tv_sec - m.tv_sec) * 1000000000ll + (r.tv_nsec - m.tv_nsec);
}

#endif /* GATEWAY_CLOCK_H */
