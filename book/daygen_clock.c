// SPDX-License-Identifier: MIT
/* The real shape's clock: the intraday rate and the microbursts (daygen_clock.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "book/daygen_clock.h"
#include "util/rng.h"

#define PRE_RATE	0.5
#define OPEN_EXTRA	7.0
#define OPEN_DECAY	0.04
#define CLOSE_EXTRA	6.0
#define CLOSE_DECAY	0.03
#define BURSTS_PER_MIN	3.0
#define BURST_MEDIAN	2500.0		/* slots, at full scale */
#define BURST_SIGMA	0.7
#define BURST_MAX_NS	900000.0
#define BURST_GAP_MIN	30
#define BURST_GAP_SPAN	51

static double unit(uint64_t *rng)
{
	return (double)((splitmix64(rng) >> 11) + 1) * 0x1p-53;
}

double dg_clock_rate(const struct dg_clock *c, uint64_t t)
{
	double x;

	if (t < c->open_ns)
		return PRE_RATE;
	x = (double)(t - c->open_ns) / (double)(c->close_ns - c->open_ns);
	return 1.0 + OPEN_EXTRA * exp(-x / OPEN_DECAY) + CLOSE_EXTRA * exp(-(1.0 - x) / CLOSE_DECAY);
}

/* The time where the cumulative weight reaches @w; *@b only moves up. */
static uint64_t at_weight(const struct dg_clock *c, double w, uint32_t *b)
{
	double lo, span;

	while (*b + 1 < DG_CLOCK_BUCKETS && c->cum[*b + 1] <= w)
		(*b)++;
	lo = c->cum[*b];
	span = c->cum[*b + 1] - lo;
	return c->pre_ns + (uint64_t)(((double)*b + (span > 0 ? (w - lo) / span : 0)) *
				      c->bucket_ns);
}

static uint64_t plan_bursts(struct dg_clock *c, uint64_t slots, uint64_t messages,
			    uint64_t *rng)
{
	double minutes = (double)(c->close_ns - c->open_ns) / 60e9;
	double scale = (double)messages / DG_CLOCK_FULL_MESSAGES;
	double w0, w1;
	uint32_t n = (uint32_t)llround(BURSTS_PER_MIN * minutes), b, k = 0;
	uint64_t total = 0;

	c->burst = calloc(n ? n : 1, sizeof(*c->burst));
	if (!c->burst)
		return UINT64_MAX;
	b = (uint32_t)((double)(c->open_ns - c->pre_ns) / c->bucket_ns);
	w0 = c->cum[b];
	w1 = c->cum[DG_CLOCK_BUCKETS];
	for (uint32_t i = 0; i < n; i++) {
		struct dg_burst *u = &c->burst[k];
		double size = BURST_MEDIAN * exp(BURST_SIGMA * sqrt(-2.0 * log(unit(rng))) *
						  cos(2.0 * M_PI * unit(rng)));
		uint32_t gap = BURST_GAP_MIN + (uint32_t)(splitmix64(rng) % BURST_GAP_SPAN);
		double cap = BURST_MAX_NS / gap;

		/* Stratified over the session's weight: more where the rate is. */
		u->at = at_weight(c, w0 + ((double)i + unit(rng)) / n * (w1 - w0), &b);
		if (u->at < c->open_ns)
			u->at = c->open_ns;
		u->gap_ns = gap;
		u->slots = (uint32_t)llround((size < cap ? size : cap) * scale);
		/* A small day's share of bursts stays what it is at full scale. */
		if (!u->slots || total + u->slots > slots / 8)
			continue;
		total += u->slots;
		k++;
	}
	c->nburst = k;
	return total;
}

int dg_clock_init(struct dg_clock *c, uint64_t pre_ns, uint64_t open_ns, uint64_t close_ns,
		  uint64_t slots, uint64_t messages, uint64_t *rng)
{
	uint64_t in_bursts;

	c->pre_ns = pre_ns;
	c->open_ns = open_ns;
	c->close_ns = close_ns;
	c->bucket_ns = (double)(close_ns - pre_ns) / DG_CLOCK_BUCKETS;
	c->cum = calloc(DG_CLOCK_BUCKETS + 1, sizeof(*c->cum));
	if (!c->cum)
		return -ENOMEM;
	for (uint32_t i = 0; i < DG_CLOCK_BUCKETS; i++) {
		uint64_t mid = pre_ns + (uint64_t)(((double)i + 0.5) * c->bucket_ns);

		c->cum[i + 1] = c->cum[i] + dg_clock_rate(c, mid);
	}
	in_bursts = plan_bursts(c, slots, messages, rng);
	if (in_bursts == UINT64_MAX)
		return -ENOMEM;
	c->rate_slots = slots - in_bursts;
	c->cur = -1;
	c->last = pre_ns;
	return 0;
}

void dg_clock_free(struct dg_clock *c)
{
	free(c->cum);
	free(c->burst);
	c->cum = NULL;
	c->burst = NULL;
}

static uint64_t rate_next(struct dg_clock *c, uint64_t *rng)
{
	if (!c->have_rate) {
		double w = ((double)c->rate_i + unit(rng) * 0.999999) / (double)c->rate_slots;

		c->rate_next = at_weight(c, w * c->cum[DG_CLOCK_BUCKETS], &c->bucket);
		c->have_rate = true;
	}
	return c->rate_next;
}

uint64_t dg_clock_peek(struct dg_clock *c, uint64_t *rng)
{
	uint64_t t;

	if (c->have_peek)
		return c->peek;
	if (!c->left && c->bi < c->nburst &&
	    (c->rate_i == c->rate_slots || c->burst[c->bi].at <= rate_next(c, rng))) {
		c->left = c->burst[c->bi].slots;
		c->cur = (int32_t)c->bi++;
	}
	if (c->left) {
		const struct dg_burst *u = &c->burst[c->cur];

		t = u->at + (uint64_t)(u->slots - c->left) * u->gap_ns;
	} else {
		c->cur = -1;
		t = c->rate_i < c->rate_slots ? rate_next(c, rng) : c->last;
	}
	c->peek = t > c->last ? t : c->last;
	c->have_peek = true;
	return c->peek;
}

void dg_clock_take(struct dg_clock *c)
{
	c->last = c->peek;
	c->have_peek = false;
	if (c->left)
		c->left--;
	else if (c->rate_i < c->rate_slots && c->have_rate) {
		c->rate_i++;
		c->have_rate = false;
	}
}
