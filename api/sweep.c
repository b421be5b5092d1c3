// SPDX-License-Identifier: MIT
/*
 * The sweep (t2t_api.h): the lengths split into groups of HMA_LANES, one
 * group per job on the handle's threads, each group reading the whole
 * series in its lanes.  A last group of fewer than LANES_WORTH lengths
 * runs them one by one on the scalar kernel instead: the lanes cost the
 * same whether one of them is used or eight, and the two kernels decide
 * the same trades to the bit (test_hma_lanes).  The batch and scalar
 * kernels run a length per job.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "api/t2t_int.h"
#include "strategy/hma.h"
#include "strategy/sar.h"

/* Fewer lengths than this go to the scalar kernel: four of its runs cost about one of the lanes'. */
#define LANES_WORTH	4

struct sweep_call {
	t2t *h;
	const uint32_t *x32;		/* the closes: one of these two */
	const double *x64;
	size_t n;
	const uint32_t *lengths;
	size_t nlen;
	double fee;
	int kernel;
	uint64_t *trades;
	double *pnl;
	int err;			/* the first job's failure (-ENOMEM) */
	size_t groups;			/* incremental: jobs in lanes, then a length per job */
};

/* A dollar close as Price(4), if it is exactly one: 0 when not. */
static uint32_t price4(double v)
{
	double p;

	if (!(v > 0) || v >= 4294967296.0 / 1e4)
		return 0;
	p = nearbyint(v * 1e4);
	/* the double nearest p / 10^4 is what "p / 10^4" written out parses to */
	if (p < 1 || p > 4294967295.0 || p / 1e4 != v)
		return 0;
	return (uint32_t)p;
}

static int check_closes(t2t *h, const struct sweep_call *c)
{
	for (size_t i = 0; i < c->n; i++) {
		if (c->x32) {
			if (c->x32[i] == 0)
				return t2t_fail(h, T2T_ERANGE, "close[%zu] is 0: prices are in (0, 2^32) "
						"Price(4) units", i);
			continue;
		}
		if (isnan(c->x64[i]))
			return t2t_fail(h, T2T_ERANGE, "close[%zu] is NaN", i);
		if (!price4(c->x64[i])) {
			if (!(c->x64[i] > 0) || c->x64[i] >= 4294967296.0 / 1e4)
				return t2t_fail(h, T2T_ERANGE, "close[%zu] = %.17g is out of range "
						"(0, 429496.7296) dollars", i, c->x64[i]);
			return t2t_fail(h, T2T_ERANGE, "close[%zu] = %.17g is not a price of at "
					"most four decimals (Price(4)): it cannot be converted "
					"exactly", i, c->x64[i]);
		}
	}
	return T2T_OK;
}

/* closes [off, off + m) as Price(4), into @buf when they must be converted */
static const uint32_t *closes(const struct sweep_call *c, size_t off, size_t m, uint32_t *buf)
{
	if (c->x32)
		return c->x32 + off;
	for (size_t i = 0; i < m; i++)
		buf[i] = price4(c->x64[off + i]);
	return buf;
}

static void scalar_job(void *ctx, unsigned int worker, size_t job);

static void lanes_job(void *ctx, unsigned int worker, size_t job)
{
	struct sweep_call *c = ctx;
	struct sweep_worker *w = &c->h->sw[worker];
	size_t first = job * HMA_LANES;

	if (job >= c->groups) {
		scalar_job(ctx, worker, c->groups * HMA_LANES + (job - c->groups));
		return;
	}
	unsigned int nl = c->nlen - first < HMA_LANES ? (unsigned int)(c->nlen - first) : HMA_LANES;
	unsigned int L[HMA_LANES] = { 0 };

	for (unsigned int k = 0; k < nl; k++)
		L[k] = c->lengths[first + k];
	/* lengths and ISA were checked: this cannot fail */
	hma_lanes_init(&w->lanes, L, nl, NULL, c->fee, c->h->isa);
	for (size_t off = 0; off < c->n; off += T2T_STEP) {
		size_t m = c->n - off < T2T_STEP ? c->n - off : T2T_STEP;

		hma_lanes_run(&w->lanes, closes(c, off, m, w->x), m, NULL, NULL);
	}
	for (unsigned int k = 0; k < nl; k++) {
		struct sar r;

		hma_lanes_result(&w->lanes, k, &r);
		c->trades[first + k] = r.trades;
		c->pnl[first + k] = r.pnl_pct;
	}
}

/* The gateway's kernel, hma_update() and the rule, one length. */
static void scalar_job(void *ctx, unsigned int worker, size_t job)
{
	struct sweep_call *c = ctx;
	struct sweep_worker *w = &c->h->sw[worker];
	struct hma_state st;
	struct sar s;
	uint32_t last = 0;

	sar_init(&s);
	hma_init(&st, c->lengths[job]);
	for (size_t off = 0; off < c->n; off += T2T_STEP) {
		size_t m = c->n - off < T2T_STEP ? c->n - off : T2T_STEP;
		const uint32_t *x = closes(c, off, m, w->x);

		for (size_t i = 0; i < m; i++)
			sar_step_fee(&s, hma_update(&st, x[i]), x[i], c->fee);
		last = x[m - 1];
	}
	if (c->n)
		sar_finish_fee(&s, last, c->fee);
	c->trades[job] = s.trades;
	c->pnl[job] = s.pnl_pct;
}

/* The batch reference over the whole series (c->x32 converted already). */
static void batch_job(void *ctx, unsigned int worker, size_t job)
{
	struct sweep_call *c = ctx;
	int8_t *d = malloc(c->n ? c->n : 1);
	struct sar s;

	(void)worker;
	sar_init(&s);
	if (!d || hma_batch_signal(c->x32, c->n, c->lengths[job], d)) {
		__atomic_store_n(&c->err, -ENOMEM, __ATOMIC_RELAXED);
		free(d);
		return;
	}
	for (size_t t = 0; t < c->n; t++)
		sar_step_fee(&s, d[t], c->x32[t], c->fee);
	if (c->n)
		sar_finish_fee(&s, c->x32[c->n - 1], c->fee);
	free(d);
	c->trades[job] = s.trades;
	c->pnl[job] = s.pnl_pct;
}

static int sweep(t2t *h, struct sweep_call *c)
{
	uint32_t *conv = NULL;
	int ret;

	if (!h)
		return T2T_EINVAL;
	h->err[0] = '\0';
	if ((!c->x32 && !c->x64 && c->n) || !c->lengths || !c->trades || !c->pnl)
		return t2t_fail(h, T2T_EINVAL, "a NULL array");
	if (!c->nlen)
		return t2t_fail(h, T2T_EINVAL, "no length given");
	if (c->nlen > h->opt.max_lengths)
		return t2t_fail(h, T2T_ELIMIT, "%zu lengths: the handle was opened for at most %u",
				c->nlen, h->opt.max_lengths);
	if (!isfinite(c->fee))
		return t2t_fail(h, T2T_ERANGE, "the fee must be a finite number of percentage points");
	if (c->kernel < T2T_KERNEL_INCREMENTAL || c->kernel > T2T_KERNEL_SCALAR)
		return t2t_fail(h, T2T_EINVAL, "kernel %d: 0 incremental, 1 batch, 2 scalar",
				c->kernel);
	for (size_t k = 0; k < c->nlen; k++)
		if (hma_check_length(c->lengths[k]))
			return t2t_fail(h, T2T_ERANGE, "length %u (lengths[%zu]) is out of range "
					"[%d, %d]", c->lengths[k], k, HMA_LEN_MIN, HMA_LEN_MAX);
	ret = check_closes(h, c);
	if (ret)
		return ret;
	c->h = h;
	switch (c->kernel) {
	case T2T_KERNEL_INCREMENTAL:
		c->groups = c->nlen / HMA_LANES + (c->nlen % HMA_LANES >= LANES_WORTH);
		pool_run(&h->pool, lanes_job, c,
			 c->groups + (c->nlen - (c->groups * HMA_LANES < c->nlen ?
						  c->groups * HMA_LANES : c->nlen)));
		break;
	case T2T_KERNEL_SCALAR:
		pool_run(&h->pool, scalar_job, c, c->nlen);
		break;
	case T2T_KERNEL_BATCH:
		if (!c->x32) {
			conv = malloc((c->n ? c->n : 1) * sizeof(*conv));
			if (!conv)
				return t2t_fail(h, T2T_ENOMEM, "out of memory for %zu closes", c->n);
			closes(c, 0, c->n, conv);
			c->x32 = conv;
		}
		pool_run(&h->pool, batch_job, c, c->nlen);
		free(conv);
		if (c->err)
			return t2t_fail(h, T2T_ENOMEM, "out of memory for the batch kernel's scratch");
		break;
	}
	return T2T_OK;
}

int t2t_sweep_u32(t2t *h, const uint32_t *close, size_t n, const uint32_t *lengths,
		  size_t nlen, double fee, int kernel, uint64_t *trades, double *pnl_pct)
{
	struct sweep_call c = { .x32 = close, .n = n, .lengths = lengths, .nlen = nlen,
				.fee = fee, .kernel = kernel, .trades = trades, .pnl = pnl_pct };

	return sweep(h, &c);
}

int t2t_sweep_f64(t2t *h, const double *close, size_t n, const uint32_t *lengths,
		  size_t nlen, double fee, int kernel, uint64_t *trades, double *pnl_pct)
{
	struct sweep_call c = { .x64 = close, .n = n, .lengths = lengths, .nlen = nlen,
				.fee = fee, .kernel = kernel, .trades = trades, .pnl = pnl_pct };

	if (!close && n && h)
		return t2t_fail(h, T2T_EINVAL, "a NULL array");
	return sweep(h, &c);
}
