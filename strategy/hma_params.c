// SPDX-License-Identifier: MIT
/* Derived lengths, denominators and range checks of the HMA/HMA3 signal. */
#include <errno.h>
#include <string.h>

#include "strategy/hma.h"

static unsigned int isqrt_u(unsigned int v)
{
	unsigned int r = 0;

	while ((r + 1) * (r + 1) <= v)
		r++;
	return r;
}

static int64_t tri(unsigned int k)
{
	return (int64_t)k * (k + 1) / 2;
}

int hma_check_length(long L)
{
	return L >= HMA_LEN_MIN && L <= HMA_LEN_MAX ? 0 : -ERANGE;
}

int hma_check_price(long long x)
{
	return x > 0 && x <= (long long)UINT32_MAX ? 0 : -ERANGE;
}

int hma_params_init(struct hma_params *hp, long L)
{
	if (hma_check_length(L))
		return -ERANGE;

	memset(hp, 0, sizeof(*hp));
	hp->L = (unsigned int)L;
	hp->n = hp->L;
	hp->h = hp->L / 2;
	hp->s = isqrt_u(hp->L);
	hp->p = hp->L / 2;
	hp->a = hp->p / 3;
	hp->b = hp->p / 2;
	hp->t0 = hp->n + hp->s - 2;

	hp->Dn = tri(hp->n);
	hp->Dh = tri(hp->h);
	hp->Ds = tri(hp->s);
	hp->Dp = tri(hp->p);
	hp->Da = tri(hp->a);
	hp->Db = tri(hp->b);
	hp->F1 = (i128)hp->Ds * hp->Dh * hp->Dn;
	hp->F2 = (i128)hp->Dp * hp->Dp * hp->Da * hp->Db;
	return 0;
}

unsigned int hma_grid_length(unsigned int k)
{
	return 6 + (388 * k + 79) / 158;
}
