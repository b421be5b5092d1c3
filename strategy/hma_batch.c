// SPDX-License-Identifier: MIT
/*
 * Batch reference kernel: every weighted sum is computed directly over its
 * window, the way the spec writes it.  Slow (O(N x L)) on purpose: it shares
 * no running-sum trick with the incremental kernel, so agreement between the
 * two means something.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "strategy/hma.h"

/* W_k(x)[t] = sum_{i<k} (k - i) x[t - i], for t >= k - 1. */
static int64_t wsum_x(const uint32_t *x, size_t t, unsigned int k)
{
	int64_t w = 0;

	for (unsigned int i = 0; i < k; i++)
		w += (int64_t)(k - i) * x[t - i];
	return w;
}

static i128 wsum_128(const i128 *y, size_t t, unsigned int k)
{
	i128 w = 0;

	for (unsigned int i = 0; i < k; i++)
		w += (i128)(k - i) * y[t - i];
	return w;
}

static int sign128(i128 v)
{
	return (v > 0) - (v < 0);
}

int hma_batch_signal(const uint32_t *x, size_t N, long L, int8_t *d)
{
	struct hma_params hp;
	i128 *R = NULL, *Q = NULL;
	int err;

	err = hma_params_init(&hp, L);
	if (err)
		return err;
	for (size_t t = 0; t < N; t++)
		if (x[t] == 0)
			return -ERANGE;

	memset(d, 0, N);
	if (N <= hp.t0)
		return 0;

	R = calloc(N, sizeof(*R));
	Q = calloc(N, sizeof(*Q));
	if (!R || !Q) {
		err = -ENOMEM;
		goto out;
	}

	/* R[t] defined from n - 1, Q[t] from p - 1 (p is the longest of a, b, p). */
	for (size_t t = hp.n - 1; t < N; t++)
		R[t] = 2 * (i128)wsum_x(x, t, hp.h) * hp.Dn -
		       (i128)wsum_x(x, t, hp.n) * hp.Dh;
	for (size_t t = hp.p - 1; t < N; t++)
		Q[t] = 3 * (i128)wsum_x(x, t, hp.a) * hp.Db * hp.Dp -
		       (i128)wsum_x(x, t, hp.b) * hp.Da * hp.Dp -
		       (i128)wsum_x(x, t, hp.p) * hp.Da * hp.Db;

	for (size_t t = hp.t0; t < N; t++) {
		i128 H = wsum_128(R, t, hp.s);
		i128 T = wsum_128(Q, t, hp.p);

		d[t] = (int8_t)sign128(H * hp.F2 - T * hp.F1);
	}
	err = 0;
out:
	free(R);
	free(Q);
	return err;
}
