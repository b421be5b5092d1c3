// SPDX-License-Identifier: MIT
#include <errno.h>
#include <string.h>

#include "monitor/hist.h"
#include "monitor/seqlock.h"
#include "util/clock.h"

static uint32_t index_of(int64_t v)
{
	if (v < 0)
		v = 0;
	if (v > HDR_MAX_VALUE)
		v = HDR_MAX_VALUE;
	return hdr_index(v);
}

int mon_hist_copy(struct hdr_hist *dst, const struct hdr_hist *src,
		  const uint32_t *seq, unsigned int tries)
{
	while (tries--) {
		uint32_t s = seq_read_begin(seq);
		uint64_t total, under, over, sum;
		int64_t min, max;

		if (s & 1) {
			cpu_relax();
			continue;
		}
		total = mon_ld(&src->total);
		under = mon_ld(&src->under);
		over = mon_ld(&src->over);
		sum = mon_ld(&src->sum);
		min = mon_ld(&src->min);
		max = mon_ld(&src->max);
		/* A torn min/max is caught by the retry; never index outside. */
		if (total && min <= max)
			for (uint32_t i = index_of(min), hi = index_of(max); i <= hi; i++)
				mon_st(&dst->counts[i], mon_ld(&src->counts[i]));
		if (seq_read_retry(seq, s))
			continue;
		mon_st(&dst->total, total);
		mon_st(&dst->under, under);
		mon_st(&dst->over, over);
		mon_st(&dst->sum, sum);
		mon_st(&dst->min, min);
		mon_st(&dst->max, max);
		return 0;
	}
	return -EAGAIN;
}

void mon_hist_sub(struct hdr_hist *out, const struct hdr_hist *later,
		  const struct hdr_hist *earlier)
{
	int64_t first = -1, last = -1;

	if (!earlier->total || earlier->total > later->total) {
		memcpy(out, later, sizeof(*out));
		return;
	}
	hdr_reset(out);
	for (uint32_t i = 0; i < HDR_BUCKETS; i++) {
		uint64_t a = later->counts[i], b = earlier->counts[i];

		if (b > a) {		/* not the same histogram */
			memcpy(out, later, sizeof(*out));
			return;
		}
		out->counts[i] = a - b;
		if (a - b) {
			if (first < 0)
				first = i;
			last = i;
		}
	}
	out->total = later->total - earlier->total;
	out->under = later->under - earlier->under;
	out->over = later->over - earlier->over;
	out->sum = later->sum - earlier->sum;
	if (first >= 0) {
		int64_t lo = hdr_bucket_low((uint32_t)first), hi = hdr_bucket_high((uint32_t)last);

		out->min = lo > later->min ? lo : later->min;
		out->max = hi < later->max ? hi : later->max;
	}
}
