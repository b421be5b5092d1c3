// SPDX-License-Identifier: MIT
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strategy/hma.h"
#include "strategy/ticks.h"

#define TICKS_HEADER "seq,symbol,locate,price,shares,send_ns"

/* One row; strict, so that a damaged file is noticed, not half-read. */
static int parse_row(char *line, struct tick_rec *t, const char **why)
{
	unsigned long long seq, price, locate, shares, send;
	char sym[64];
	int used = 0;

	line[strcspn(line, "\r\n")] = '\0';
	if (sscanf(line, "%llu,%63[^,],%llu,%llu,%llu,%llu%n", &seq, sym, &locate,
		   &price, &shares, &send, &used) != 6 || line[used] != '\0') {
		*why = "expected seq,symbol,locate,price,shares,send_ns";
		return -EINVAL;
	}
	if (strlen(sym) > 8) {
		*why = "symbol longer than 8 characters";
		return -EINVAL;
	}
	if (hma_check_price((long long)(price > UINT32_MAX ? 0 : price))) {
		*why = "price out of range (0 < price < 2^32)";
		return -ERANGE;
	}
	t->seq = seq;
	strcpy(t->symbol, sym);
	t->price = (uint32_t)price;
	return 0;
}

int ticks_load(const char *path, struct tick_rec **tp, size_t *np,
	       char *err, size_t errlen)
{
	size_t cap = 1 << 14, n = 0, lineno = 1, linecap = 0;
	struct tick_rec *t = NULL;
	char *line = NULL;
	const char *why;
	FILE *f;
	int ret;

	f = fopen(path, "r");
	if (!f) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return ret;
	}
	if (getline(&line, &linecap, f) < 0 ||
	    strncmp(line, TICKS_HEADER, strlen(TICKS_HEADER))) {
		snprintf(err, errlen, "%s:1: not a tick recording (header '%s' expected)",
			 path, TICKS_HEADER);
		ret = -EINVAL;
		goto fail;
	}
	t = malloc(cap * sizeof(*t));
	if (!t)
		goto nomem;
	while (getline(&line, &linecap, f) >= 0) {
		lineno++;
		if (n == cap) {
			struct tick_rec *nt = realloc(t, 2 * cap * sizeof(*t));

			if (!nt)
				goto nomem;
			t = nt;
			cap *= 2;
		}
		ret = parse_row(line, &t[n], &why);
		if (ret) {
			snprintf(err, errlen, "%s:%zu: %s", path, lineno, why);
			goto fail;
		}
		if (n && t[n].seq <= t[n - 1].seq) {
			snprintf(err, errlen, "%s:%zu: sequence number %" PRIu64
				 " not above the previous row's", path, lineno, t[n].seq);
			ret = -EINVAL;
			goto fail;
		}
		n++;
	}
	free(line);
	fclose(f);
	*tp = t;
	*np = n;
	return 0;
nomem:
	snprintf(err, errlen, "%s: out of memory", path);
	ret = -ENOMEM;
fail:
	free(line);
	free(t);
	fclose(f);
	return ret;
}
