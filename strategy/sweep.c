// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdlib.h>

#include "strategy/hma.h"
#include "strategy/strat.h"
#include "strategy/sweep.h"

static int run_batch(const uint32_t *x, size_t N, long L, struct sar *out)
{
	int8_t *d = malloc(N ? N : 1);
	int err;

	if (!d)
		return -ENOMEM;
	err = hma_batch_signal(x, N, L, d);
	if (!err)
		for (size_t t = 0; t < N; t++)
			sar_step(out, d[t], x[t]);
	free(d);
	return err;
}

static int run_incremental(const uint32_t *x, size_t N, long L,
			   struct sar *out)
{
	struct strat *s = malloc(sizeof(*s));
	int err;

	if (!s)
		return -ENOMEM;
	err = strat_init(s, L);
	for (size_t t = 0; !err && t < N; t++)
		if (strat_on_tick(s, x[t]) == -ERANGE)
			err = -ERANGE;
	*out = s->sar;
	free(s);
	return err;
}

int sweep_run(const uint32_t *x, size_t N, long L, enum hma_kernel k,
	      struct sar *out)
{
	int err;

	sar_init(out);
	if (k == HMA_KERNEL_BATCH)
		err = run_batch(x, N, L, out);
	else
		err = run_incremental(x, N, L, out);
	if (!err && N)
		sar_finish(out, x[N - 1]);
	return err;
}

int sweep_parse_lengths(const char *s, unsigned int *lengths,
			unsigned int max, unsigned int *count, long *bad)
{
	unsigned int n = 0;
	const char *p = s;
	char *end;

	*bad = 0;
	while (*p) {
		long L;

		errno = 0;
		L = strtol(p, &end, 10);
		if (end == p || errno || (*end != ',' && *end != '\0'))
			return -EINVAL;
		if (hma_check_length(L)) {
			*bad = L;
			return -ERANGE;
		}
		if (n == max)
			return -E2BIG;
		lengths[n++] = (unsigned int)L;
		p = *end ? end + 1 : end;
		if (*end == ',' && *p == '\0')
			return -EINVAL;
	}
	if (n == 0)
		return -EINVAL;
	*count = n;
	return 0;
}
