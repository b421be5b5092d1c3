/* SPDX-License-Identifier: MIT */
/*
 * HMA / HMA3 stop-and-reverse signal, exactly as docs/strategy.md
 * defines it.  Two kernels decide the same sign d[t] of HMA[t] - HMA3[t]:
 *
 *  - the batch reference computes every weighted sum directly over its
 *    window (O(N x L)), to be obviously right;
 *  - the incremental kernel keeps running sums and rings per (instrument,
 *    length) and does O(1) work per tick, to be fast enough for the gateway.
 *
 * Both use only integer arithmetic: the spec's scaled sums R, H, Q, T and the
 * cross-multiplied comparison H*F2 vs T*F1, which stay below 2^117 and so
 * fit a signed 128-bit integer.
 */
#ifndef STRATEGY_HMA_H
#define STRATEGY_HMA_H

#include <stddef.h>
#include <stdint.h>

#define HMA_LEN_MIN	6
#define HMA_LEN_MAX	256
#define HMA_GRID_SIZE	80

typedef __int128 i128;

/* Derived lengths and the constant denominators of one HMA length L. */
struct hma_params {
	unsigned int L;
	unsigned int n, h, s;		/* HMA: WMA_n, WMA_h, then WMA_s of r */
	unsigned int p, a, b;		/* HMA3: WMA_a, WMA_b, WMA_p, then WMA_p of q */
	unsigned int t0;		/* first tick at which both are defined */
	int64_t Dn, Dh, Ds, Dp, Da, Db;	/* D_k = k(k+1)/2 */
	i128 F1, F2;			/* HMA = H / F1, HMA3 = T / F2 */
};

/* 0 when L is a valid length, -ERANGE otherwise (nothing is computed). */
int hma_check_length(long L);
/* 0 when 0 < x < 2^32, -ERANGE otherwise. */
int hma_check_price(long long x);
int hma_params_init(struct hma_params *hp, long L);
/* The spec's 80-length sweep grid. */
unsigned int hma_grid_length(unsigned int k);

/*
 * Batch reference: d[t] for t in [0, N), 0 before t0.  Allocates its
 * scratch; returns 0, -ERANGE for a bad length or price, -ENOMEM.
 */
int hma_batch_signal(const uint32_t *x, size_t N, long L, int8_t *d);

/*
 * Incremental kernel.  Rings are sized for the largest length so that the
 * state is one fixed-size, allocation-free object; only the first n, s and p
 * slots of them are in use for a given L.
 */
#define HMA_XRING	256	/* >= n: x[t - n] is read before slot t is written */
#define HMA_RRING	16	/* >= s = isqrt(256) */
#define HMA_QRING	128	/* >= p = 256 / 2 */

struct hma_state {
	struct hma_params hp;
	uint64_t t;			/* ticks consumed */
	/* weighted (W) and plain (S) sums of x over the last n, h, a, b ticks */
	int64_t Wn, Wh, Wa, Wb;
	int64_t Sn, Sh, Sa, Sb;
	i128 H, SR;			/* WMA_s numerator over R, and plain sum */
	i128 T, SQ;			/* WMA_p numerator over Q, and plain sum */
	uint32_t x[HMA_XRING];
	i128 R[HMA_RRING];
	i128 Q[HMA_QRING];
};

int hma_init(struct hma_state *st, long L);

/*
 * Consume one price.  Returns d[t] in {-1, 0, +1} once t >= t0, 0 before,
 * and -ERANGE (state untouched) for a price outside (0, 2^32).  The caller
 * tells "not yet defined" from a tie with hma_ready().
 */
static inline int hma_ready(const struct hma_state *st)
{
	return st->t > st->hp.t0;
}

int hma_update(struct hma_state *st, uint32_t x);

#endif /* STRATEGY_HMA_H */
