// SPDX-License-Identifier: MIT
/*
 * HDR latency histogram: queries, merge, iteration and serialisation.  The
 * recording path is inline in hdr.h; nothing here is meant for a hot loop.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "latency/hdr.h"

_Static_assert(HDR_BUCKETS == 3584, "bucket layout changed: update hdr1 readers");

void hdr_reset(struct hdr_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = INT64_MAX;
	h->max = -1;
}

void hdr_merge(struct hdr_hist *dst, const struct hdr_hist *src)
{
	uint32_t i;

	if (!src->total)
		return;
	for (i = 0; i < HDR_BUCKETS; i++)
		dst->counts[i] += src->counts[i];
	dst->total += src->total;
	dst->under += src->under;
	dst->over += src->over;
	dst->sum += src->sum;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
}

/* Inverse of hdr_index(): the first 256 buckets hold one value each; from
 * there on bucket i covers `width` values starting at sub * width. */
int64_t hdr_bucket_low(uint32_t index)
{
	uint32_t shift;

	if (index < 2 * HDR_SUB_COUNT)
		return index;
	shift = (index >> HDR_SUB_BITS) - 1;
	return (int64_t)(index - (shift << HDR_SUB_BITS)) << shift;
}

int64_t hdr_bucket_high(uint32_t index)
{
	uint32_t shift = 0;
	int64_t high;

	if (index >= 2 * HDR_SUB_COUNT)
		shift = (index >> HDR_SUB_BITS) - 1;
	high = hdr_bucket_low(index) + ((int64_t)1 << shift) - 1;
	/* Nothing above the range is ever recorded in the top bucket. */
	return high > HDR_MAX_VALUE ? HDR_MAX_VALUE : high;
}

int64_t hdr_min(const struct hdr_hist *h)
{
	return h->total ? h->min : 0;
}

int64_t hdr_max(const struct hdr_hist *h)
{
	return h->total ? h->max : 0;
}

double hdr_mean(const struct hdr_hist *h)
{
	return h->total ? (double)h->sum / (double)h->total : 0.0;
}

/*
 * Nearest rank: ceil(p/100 * total).  p/100 * total is computed in floating
 * point, where e.g. 99.9% of 1000 comes out as 999.0000000000001; the tiny
 * relative slack stops such products from rounding up to the next rank.
 */
uint64_t hdr_percentile_rank(uint64_t total, double p)
{
	long double x;
	uint64_t rank;

	if (!total)
		return 0;
	if (!(p > 0.0))		/* also catches NaN */
		return 1;
	if (p >= 100.0)
		return total;
	x = (long double)p * (long double)total / 100.0L;
	rank = (uint64_t)ceill(x - x * 1e-12L);
	if (rank < 1)
		rank = 1;
	if (rank > total)
		rank = total;
	return rank;
}

int64_t hdr_value_at_percentile(const struct hdr_hist *h, double p)
{
	uint64_t rank, seen = 0;
	uint32_t i;

	if (!h->total)
		return 0;
	if (!(p > 0.0))
		return h->min;
	if (p >= 100.0)
		return h->max;
	rank = hdr_percentile_rank(h->total, p);
	for (i = 0; i < HDR_BUCKETS; i++) {
		seen += h->counts[i];
		if (seen >= rank) {
			int64_t high = hdr_bucket_high(i);

			return high < h->max ? high : h->max;
		}
	}
	/* Unreachable while the counts add up to total. */
	return h->max;
}

void hdr_iter_init(struct hdr_iter *it, const struct hdr_hist *h)
{
	memset(it, 0, sizeof(*it));
	it->h = h;
}

bool hdr_iter_next(struct hdr_iter *it)
{
	while (it->next < HDR_BUCKETS) {
		uint32_t i = it->next++;
		uint64_t c = it->h->counts[i];

		if (!c)
			continue;
		it->index = i;
		it->low = hdr_bucket_low(i);
		it->high = hdr_bucket_high(i);
		it->count = c;
		it->cumulative += c;
		return true;
	}
	return false;
}

int hdr_write(const struct hdr_hist *h, FILE *out)
{
	struct hdr_iter it;
	uint32_t nonempty = 0;

	hdr_iter_init(&it, h);
	while (hdr_iter_next(&it))
		nonempty++;

	fprintf(out, "hdr1 %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
		" %" PRId64 " %" PRId64 " %" PRIu32,
		h->total, h->under, h->over, h->sum,
		hdr_min(h), hdr_max(h), nonempty);
	hdr_iter_init(&it, h);
	while (hdr_iter_next(&it))
		fprintf(out, " %" PRIu32 ":%" PRIu64, it.index, it.count);
	fputc('\n', out);
	return ferror(out) ? -EIO : 0;
}

/* Unsigned decimal, no sign, no leading blanks, must fit in uint64_t. */
static int parse_u64(const char **pos, uint64_t *out)
{
	const char *s = *pos;
	uint64_t v = 0;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	for (; *s >= '0' && *s <= '9'; s++) {
		unsigned int d = (unsigned int)(*s - '0');

		if (v > (UINT64_MAX - d) / 10)
			return -EINVAL;
		v = v * 10 + d;
	}
	*pos = s;
	*out = v;
	return 0;
}

static int expect_char(const char **pos, char c)
{
	if (**pos != c)
		return -EINVAL;
	(*pos)++;
	return 0;
}

static int parse_fields(struct hdr_hist *h, const char *s)
{
	uint64_t total, under, over, sum, min, max, nbuckets, index, count;
	uint64_t counted = 0, b;
	int64_t prev = -1;

	if (strncmp(s, "hdr1 ", 5))
		return -EINVAL;
	s += 5;
	if (parse_u64(&s, &total) || expect_char(&s, ' ') ||
	    parse_u64(&s, &under) || expect_char(&s, ' ') ||
	    parse_u64(&s, &over) || expect_char(&s, ' ') ||
	    parse_u64(&s, &sum) || expect_char(&s, ' ') ||
	    parse_u64(&s, &min) || expect_char(&s, ' ') ||
	    parse_u64(&s, &max) || expect_char(&s, ' ') ||
	    parse_u64(&s, &nbuckets))
		return -EINVAL;
	if (nbuckets > HDR_BUCKETS || min > max || max > HDR_MAX_VALUE ||
	    under > total || over > total - under)
		return -EINVAL;

	for (b = 0; b < nbuckets; b++) {
		if (expect_char(&s, ' ') || parse_u64(&s, &index) ||
		    expect_char(&s, ':') || parse_u64(&s, &count))
			return -EINVAL;
		if (index >= HDR_BUCKETS || (int64_t)index <= prev ||
		    !count || count > total - counted)
			return -EINVAL;
		h->counts[index] = count;
		counted += count;
		prev = (int64_t)index;
	}
	if (*s == '\n')
		s++;
	if (*s != '\0' || counted != total)
		return -EINVAL;

	if (total) {
		struct hdr_iter it;
		uint32_t first, last;

		/* min and max must sit in the first and last non-empty
		 * buckets, and the sum must lie between total*min and
		 * total*max (checked in 128 bits: no overflow). */
		hdr_iter_init(&it, h);
		hdr_iter_next(&it);
		first = it.index;
		last = (uint32_t)prev;
		if (hdr_index((int64_t)min) != first ||
		    hdr_index((int64_t)max) != last)
			return -EINVAL;
		if ((unsigned __int128)sum < (unsigned __int128)min * total ||
		    (unsigned __int128)sum > (unsigned __int128)max * total)
			return -EINVAL;
		h->min = (int64_t)min;
		h->max = (int64_t)max;
	} else if (under || over || sum || min || max) {
		return -EINVAL;
	}
	h->total = total;
	h->under = under;
	h->over = over;
	h->sum = sum;
	return 0;
}

int hdr_parse(struct hdr_hist *h, const char *line)
{
	int err;

	hdr_reset(h);
	err = parse_fields(h, line);
	if (err)
		hdr_reset(h);
	return err;
}

void hdr_print_summary(const struct hdr_hist *h, const char *label, FILE *out)
{
	static const double pcts[] = { 50.0, 90.0, 99.0, 99.9, 99.99 };
	static const char *const names[] = { "p50", "p90", "p99", "p99.9",
					     "p99.99" };
	size_t i;

	fprintf(out, "%s: n=%" PRIu64 " min=%.3f mean=%.3f", label,
		hdr_count(h), hdr_min(h) / 1e3, hdr_mean(h) / 1e3);
	for (i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++)
		fprintf(out, " %s=%.3f", names[i],
			hdr_value_at_percentile(h, pcts[i]) / 1e3);
	fprintf(out, " max=%.3f us", hdr_max(h) / 1e3);
	if (h->under || h->over)
		fprintf(out, " (clamped: %" PRIu64 " below 0, %" PRIu64
			" above 10 s)", h->under, h->over);
	fputc('\n', out);
}
