/* SPDX-License-Identifier: MIT */
/*
 * High-dynamic-range latency histogram (HdrHistogram-style log-linear buckets).
 *
 * Values are nanoseconds.  Below 256 every value has its own bucket; above,
 * each power of two [2^m, 2^(m+1)) is split into 128 equal sub-buckets, so a
 * bucket is never wider than 1/128 of its lowest value: any value reported
 * from a bucket is within 0.79% of the values recorded in it.  The trackable
 * range is 0 .. HDR_MAX_VALUE (10 s); the counts live inside the struct
 * (HDR_BUCKETS counters, about 28 KiB), so recording never allocates and a
 * histogram can be static, on the stack of a setup function, or in shared
 * memory.
 *
 * Values outside the range are clamped to its edges (negative -> 0, above
 * 10 s -> 10 s) and counted in `under` / `over`, so a clock anomaly or a stall
 * is visible rather than silently folded in.  min, max, sum and mean are exact
 * over the values as recorded, i.e. after clamping.
 *
 * Percentiles use the nearest-rank definition (the smallest recorded value
 * with at least p% of the values at or below it) and report the highest value
 * of the bucket that holds it, capped at the exact max: the figure is never
 * below the true percentile and at most 0.79% above it.
 *
 * Not thread-safe: one writer per histogram; merge per-thread histograms.
 */
#ifndef LATENCY_HDR_H
#define LATENCY_HDR_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define HDR_SUB_BITS	7			/* 128 sub-buckets per octave */
#define HDR_SUB_COUNT	(1u << HDR_SUB_BITS)
#define HDR_MAX_VALUE	INT64_C(10000000000)	/* 10 s in ns */
/* 10 s lies in the octave [2^33, 2^34): buckets up to and including it. */
#define HDR_MAX_MSB	33
#define HDR_BUCKETS	((HDR_MAX_MSB - HDR_SUB_BITS + 2) * HDR_SUB_COUNT)

struct hdr_hist {
	uint64_t total;		/* values recorded, clamped ones included */
	uint64_t under;		/* values < 0, recorded as 0 */
	uint64_t over;		/* values > HDR_MAX_VALUE, recorded as the max */
	uint64_t sum;		/* exact sum of recorded values (clamped) */
	int64_t min;		/* exact; INT64_MAX while empty */
	int64_t max;		/* exact; -1 while empty */
	uint64_t counts[HDR_BUCKETS];
};

/* One non-empty bucket, as produced by hdr_iter_next(). */
struct hdr_iter {
	const struct hdr_hist *h;
	uint32_t next;		/* cursor: next bucket index to look at */
	uint32_t index;		/* bucket index of the current bucket */
	int64_t low;		/* lowest value that maps to this bucket */
	int64_t high;		/* highest value that maps to this bucket */
	uint64_t count;		/* values in this bucket */
	uint64_t cumulative;	/* values in this bucket and all below it */
};

/* Bucket of a value already known to be in 0 .. HDR_MAX_VALUE.  OR-ing 255
 * gives values below 256 the exponent 7 and so a shift of 0: they index
 * themselves, with no branch. */
static inline uint32_t hdr_index(int64_t v)
{
	uint64_t u = (uint64_t)v;
	unsigned int msb = 63 - __builtin_clzll(u | (2 * HDR_SUB_COUNT - 1));
	unsigned int shift = msb - HDR_SUB_BITS;

	return (shift << HDR_SUB_BITS) + (uint32_t)(u >> shift);
}

/* Record `n` occurrences of `v`.  O(1); the range checks are the only
 * branches and are predicted not taken. */
static inline void hdr_record_n(struct hdr_hist *h, int64_t v, uint64_t n)
{
	if (__builtin_expect(v < 0, 0)) {
		h->under += n;
		v = 0;
	} else if (__builtin_expect(v > HDR_MAX_VALUE, 0)) {
		h->over += n;
		v = HDR_MAX_VALUE;
	}
	h->counts[hdr_index(v)] += n;
	h->total += n;
	h->sum += (uint64_t)v * n;
	h->min = v < h->min ? v : h->min;
	h->max = v > h->max ? v : h->max;
}

static inline void hdr_record(struct hdr_hist *h, int64_t v)
{
	hdr_record_n(h, v, 1);
}

/* Empty the histogram (also the way to initialise one). */
void hdr_reset(struct hdr_hist *h);

/* Add every value of `src` into `dst`; the result equals having recorded
 * both streams into one histogram. */
void hdr_merge(struct hdr_hist *dst, const struct hdr_hist *src);

/* Value bounds of a bucket index (< HDR_BUCKETS). */
int64_t hdr_bucket_low(uint32_t index);
int64_t hdr_bucket_high(uint32_t index);

static inline uint64_t hdr_count(const struct hdr_hist *h) { return h->total; }
/* min/max/mean return 0 on an empty histogram. */
int64_t hdr_min(const struct hdr_hist *h);
int64_t hdr_max(const struct hdr_hist *h);
double hdr_mean(const struct hdr_hist *h);

/* Value at percentile p (0..100; outside that it is clamped).  p <= 0 gives
 * the min, p >= 100 the max; 0 on an empty histogram. */
int64_t hdr_value_at_percentile(const struct hdr_hist *h, double p);

/* The nearest rank (1..total) that percentile p selects; 0 when empty. */
uint64_t hdr_percentile_rank(uint64_t total, double p);

/* Walk the non-empty buckets in increasing value order:
 *	struct hdr_iter it;
 *	hdr_iter_init(&it, h);
 *	while (hdr_iter_next(&it))
 *		use(it.low, it.high, it.count, it.cumulative);
 */
void hdr_iter_init(struct hdr_iter *it, const struct hdr_hist *h);
bool hdr_iter_next(struct hdr_iter *it);

/*
 * Text serialisation, one line per histogram, only the non-empty buckets:
 *	hdr1 <total> <under> <over> <sum> <min> <max> <nbuckets> [<index>:<count>]...
 * hdr_write() returns 0 or -errno.  hdr_parse() reads such a line (trailing
 * newline optional) into `h` and returns 0, or -EINVAL on any malformed,
 * out-of-range or inconsistent field, leaving `h` reset.
 */
int hdr_write(const struct hdr_hist *h, FILE *out);
int hdr_parse(struct hdr_hist *h, const char *line);

/* Print count, min, mean, p50, p90, p99, p99.9, p99.99 and max on one line,
 * in microseconds, prefixed by `label`. */
void hdr_print_summary(const struct hdr_hist *h, const char *label, FILE *out);

#endif /* LATENCY_HDR_H */
