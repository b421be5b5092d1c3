/* SPDX-License-Identifier: MIT */
/*
 * The segment's histograms are latency/hdr.h's, written with one store
 * per field (writer.h).  Here: copying one out of shared memory under its
 * block's sequence counter, and the window (later minus earlier).
 */
#ifndef MONITOR_HIST_H
#define MONITOR_HIST_H

#include <stdbool.h>
#include <stdint.h>

#include "latency/hdr.h"

/*
 * Copy the histogram src (guarded by *seq, written concurrently) into dst.
 * Only the buckets between min's and max's are read: no other bucket is
 * ever non-zero.  dst must be empty or an older copy of the same src
 * (counts only grow, the used range only widens, so every bucket that can
 * be non-zero is overwritten).  dst may be shared memory: it is written
 * with one store per field.  0, or -EAGAIN after @tries copies that the
 * writer overlapped.
 */
int mon_hist_copy(struct hdr_hist *dst, const struct hdr_hist *src,
		  const uint32_t *seq, unsigned int tries);

/*
 * out = later - earlier, bucket by bucket, where both are copies of one
 * cumulative histogram (earlier taken first).  min and max become the
 * bounds of the lowest and highest non-empty buckets (capped by later's
 * exact max), so percentiles keep hdr.h's 0.79 % bound.  An earlier that
 * is not below later (another segment) gives later itself.
 */
void mon_hist_sub(struct hdr_hist *out, const struct hdr_hist *later,
		  const struct hdr_hist *earlier);

#endif /* MONITOR_HIST_H */
