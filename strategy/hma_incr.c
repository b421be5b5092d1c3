// SPDX-License-Identifier: MIT
/*
 * Incremental kernel: O(1) work per tick, exact.
 *
 * A weighted sum moves by  W_k[t] = W_k[t-1] + k*y[t] - S_k[t-1]  where S_k
 * is the plain sum of the previous k values, and S_k moves by adding y[t]
 * and dropping y[t-k].  The rings start zeroed, so before a window is full
 * the sums describe a zero-padded series; every quantity that the signal
 * reads from t0 on is built only from values inside their windows, so it is
 * exactly the spec's.
 */
#include <errno.h>
#include <string.h>

#include "strategy/hma.h"

int hma_init(struct hma_state *st, long L)
{
	memset(st, 0, sizeof(*st));
	return hma_params_init(&st->hp, L);
}

/* Move a (W, S) pair over x by one tick: x enters, x_out leaves. */
static inline void roll64(int64_t *W, int64_t *S, unsigned int k,
			  int64_t x, int64_t x_out)
{
	*W += (int64_t)k * x - *S;
	*S += x - x_out;
}

static inline int sign128(i128 v)
{
	return (v > 0) - (v < 0);
}

int hma_update(struct hma_state *st, uint32_t x)
{
	const struct hma_params *hp = &st->hp;
	uint64_t t = st->t;
	i128 R, Q, R_out, Q_out;

	if (x == 0)
		return -ERANGE;

	/* x[t - k] for each window; slot t itself still holds x[t - 256]. */
#define XOUT(k) ((int64_t)st->x[(t - (k)) & (HMA_XRING - 1)])
	roll64(&st->Wn, &st->Sn, hp->n, x, XOUT(hp->n));
	roll64(&st->Wh, &st->Sh, hp->h, x, XOUT(hp->h));
	roll64(&st->Wa, &st->Sa, hp->a, x, XOUT(hp->a));
	roll64(&st->Wb, &st->Sb, hp->b, x, XOUT(hp->b));
#undef XOUT
	st->x[t & (HMA_XRING - 1)] = x;

	R = 2 * (i128)st->Wh * hp->Dn - (i128)st->Wn * hp->Dh;
	Q = 3 * (i128)st->Wa * (hp->Db * hp->Dp) -
	    (i128)st->Wb * (hp->Da * hp->Dp) -
	    (i128)st->Wh * (hp->Da * hp->Db);	/* W_p == W_h: p == h */

	R_out = st->R[(t - hp->s) & (HMA_RRING - 1)];
	st->H += (i128)hp->s * R - st->SR;
	st->SR += R - R_out;
	st->R[t & (HMA_RRING - 1)] = R;

	Q_out = st->Q[(t - hp->p) & (HMA_QRING - 1)];
	st->T += (i128)hp->p * Q - st->SQ;
	st->SQ += Q - Q_out;
	st->Q[t & (HMA_QRING - 1)] = Q;

	st->t = t + 1;
	if (t < hp->t0)
		return 0;
	return sign128(st->H * hp->F2 - st->T * hp->F1);
}
