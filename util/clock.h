/* SPDX-License-Identifier: MIT */
/*
 * The one clock of the rig: CLOCK_MONOTONIC in nanoseconds, the same clock
 * as the XDP program's bpf_ktime_get_ns(), read through the vDSO (no
 * syscall).  The kernel's socket timestamps (SO_TIMESTAMPNS) are
 * CLOCK_REALTIME: realtime_offset() converts them.
 */
#ifndef UTIL_CLOCK_H
#define UTIL_CLOCK_H

#include <stdint.h>
#include <time.h>

#define NS_PER_SEC	UINT64_C(1000000000)
#define NS_PER_MS	UINT64_C(1000000)
#define NS_PER_DAY	(UINT64_C(86400) * NS_PER_SEC)

static inline uint64_t ts_ns(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * NS_PER_SEC + (uint64_t)ts->tv_nsec;
}

static inline uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts_ns(&ts);
}

static inline uint64_t real_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts_ns(&ts);
}

/*
 * CLOCK_REALTIME - CLOCK_MONOTONIC, read once at start-up.  The realtime
 * read is bracketed by two monotonic ones and taken against their middle;
 * a bracket wider than 20 us (the thread was preempted between the reads,
 * which would shift every converted stamp by the stall) is read again, up
 * to 100 times, keeping the narrowest.
 */
static inline int64_t realtime_offset(void)
{
	int64_t best = 0, width = INT64_MAX;

	for (int i = 0; i < 100 && width > 20000; i++) {
		uint64_t m0 = mono_ns(), r = real_ns(), m1 = mono_ns();

		if ((int64_t)(m1 - m0) < width) {
			width = (int64_t)(m1 - m0);
			best = (int64_t)r - (int64_t)(m0 + (m1 - m0) / 2);
		}
	}
	return best;
}

/*
 * A CLOCK_MONOTONIC reading as the time of day, nanoseconds since midnight
 * (UTC), the way an exchange stamps its messages; @rt_offset from
 * realtime_offset().
 */
static inline uint64_t tod_from_mono(uint64_t mono, int64_t rt_offset)
{
	return (uint64_t)((int64_t)mono + rt_offset) % NS_PER_DAY;
}

/* In a spin-wait: tell the core (and a hyperthread sibling) we are waiting. */
static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

#endif /* UTIL_CLOCK_H */
