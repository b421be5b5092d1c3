/* SPDX-License-Identifier: MIT */
/* Clock reads for the simulator: CLOCK_MONOTONIC nanoseconds (vDSO, no syscall). */
#ifndef NETNS_EXSIM_CLOCK_H
#define NETNS_EXSIM_CLOCK_H

#include <stdint.h>
#include <time.h>

#define NS_PER_SEC	UINT64_C(1000000000)
#define NS_PER_MS	UINT64_C(1000000)

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

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

#endif /* NETNS_EXSIM_CLOCK_H */
