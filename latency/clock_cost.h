/* SPDX-License-Identifier: MIT */
/*
 * What a timestamp costs: clock_gettime(CLOCK_MONOTONIC) read back to back.
 * The difference of two consecutive reads is the time one read takes from
 * the moment it samples the clock to the moment the next one does, i.e. what
 * a stage measured between two reads carries on top of its own work.
 */
#ifndef LATENCY_CLOCK_COST_H
#define LATENCY_CLOCK_COST_H

#include "latency/hdr.h"

/*
 * Take n back-to-back pairs of reads on CPU cpu (-1: wherever the thread
 * runs) and record each pair's difference in h (reset first).  The thread's
 * affinity is restored afterwards.  0, or -errno when the thread cannot be
 * moved to cpu (then nothing is measured).
 */
int clock_cost_measure(int cpu, unsigned int n, struct hdr_hist *h);

#endif /* LATENCY_CLOCK_COST_H */
