/* SPDX-License-Identifier: MIT */
/*
 * Where the simulator runs when it is not told (--cpu auto): on a CPU that
 * no running gateway or floor spins on.  A simulator sharing the hot loop's
 * CPU takes hundreds of milliseconds a second from it, and the latency a
 * user then sees is the scheduler's, not the gateway's.
 */
#ifndef EXSIM_CPU_PICK_H
#define EXSIM_CPU_PICK_H

#include <stddef.h>

#define EXSIM_CPU_ANY	-1	/* not pinned */
#define EXSIM_CPU_AUTO	-2	/* cpu_pick() */

/* The gateway's hot loop's CPU when none is running to say otherwise. */
#define EXSIM_GATEWAY_DEFAULT_CPU 1

/*
 * The lowest online CPU that no hot loop (the busiest thread of t2t-gateway
 * or t2t-floor allowed on one CPU only) is pinned to; with none running,
 * the lowest but the gateway's default one.  -1 when every CPU is taken
 * (one CPU): then the simulator is not pinned.  @why says what was found,
 * for the start line.
 */
int cpu_pick(char *why, size_t len);

/* cpu_pick() over the processes in @proc (a /proc) and @ncpu CPUs: a test's seam. */
int cpu_pick_in(const char *proc, long ncpu, char *why, size_t len);

#endif /* EXSIM_CPU_PICK_H */
