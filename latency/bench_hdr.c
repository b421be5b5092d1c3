// SPDX-License-Identifier: MIT
/*
 * bench-hdr: what recording into (and querying) an HDR histogram costs.
 *
 * The values are drawn beforehand (log-uniform over 100 ns .. 1 ms, so the
 * bucket index varies like real latencies do) and replayed from a small
 * array that stays in L1/L2; the loop then measures hdr_record() itself,
 * not the random number generator.  Also timed, for comparison: the same
 * loop without the record, and a clock_gettime(CLOCK_MONOTONIC) read.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "util/clock.h"
#include "latency/hdr.h"
#include "util/rng.h"

#define NVALUES		(1u << 14)
#define RECORDS		(200u * 1000 * 1000)
#define QUERIES		20000u
#define CLOCK_READS	(20u * 1000 * 1000)

static struct hdr_hist hist, other;
static int64_t values[NVALUES];

int main(void)
{
	uint64_t seed = 42, t0, t1, i, sink = 0;
	volatile int64_t vsink;
	double base_ns, rec_ns;

	for (i = 0; i < NVALUES; i++) {
		double u = (double)(splitmix64(&seed) >> 11) / 9007199254740992.0;

		values[i] = (int64_t)exp(log(100.0) + u * (log(1e6) - log(100.0)));
	}

	/* Baseline: walk the array and fold the values, no histogram. */
	t0 = mono_ns();
	for (i = 0; i < RECORDS; i++) {
		sink += (uint64_t)values[i & (NVALUES - 1)];
		__asm__ volatile("" : "+r"(sink));
	}
	t1 = mono_ns();
	base_ns = (double)(t1 - t0) / RECORDS;
	vsink = (int64_t)sink;

	hdr_reset(&hist);
	t0 = mono_ns();
	for (i = 0; i < RECORDS; i++)
		hdr_record(&hist, values[i & (NVALUES - 1)]);
	t1 = mono_ns();
	rec_ns = (double)(t1 - t0) / RECORDS;

	printf("bench-hdr: %u records of log-uniform 100 ns..1 ms values\n",
	       RECORDS);
	printf("  hdr_record:              %6.2f ns/record (loop alone %.2f ns)\n",
	       rec_ns, base_ns);

	t0 = mono_ns();
	for (i = 0; i < QUERIES; i++)
		vsink = hdr_value_at_percentile(&hist, 99.9);
	t1 = mono_ns();
	printf("  hdr_value_at_percentile: %6.0f ns/query (p99.9, %u buckets)\n",
	       (double)(t1 - t0) / QUERIES, HDR_BUCKETS);

	hdr_reset(&other);
	t0 = mono_ns();
	for (i = 0; i < QUERIES; i++)
		hdr_merge(&other, &hist);
	t1 = mono_ns();
	printf("  hdr_merge:               %6.0f ns/merge\n",
	       (double)(t1 - t0) / QUERIES);

	t0 = mono_ns();
	for (i = 0; i < CLOCK_READS; i++)
		vsink = (int64_t)mono_ns();
	t1 = mono_ns();
	printf("  clock_gettime(MONOTONIC): %5.2f ns/read (for scale)\n",
	       (double)(t1 - t0) / CLOCK_READS);
	(void)vsink;

	printf("  sizeof(struct hdr_hist): %zu bytes\n", sizeof(struct hdr_hist));
	hdr_print_summary(&hist, "  recorded", stdout);
	return 0;
}
