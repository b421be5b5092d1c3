// SPDX-License-Identifier: MIT
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "strategy/hma.h"
#include "strategy/prices.h"

/* Parse one line: optional blanks, decimal digits, optional blanks. */
static int parse_price(const char *s, uint32_t *out, const char **why)
{
	unsigned long long v = 0;
	const char *p = s;

	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == '\0' || *p == '\n' || *p == '\r') {
		*why = "empty line";
		return -EINVAL;
	}
	if (*p == '-' && isdigit((unsigned char)p[1])) {
		*why = "price must be positive (0 < price < 2^32)";
		return -ERANGE;
	}
	if (!isdigit((unsigned char)*p)) {
		*why = "not a number";
		return -EINVAL;
	}
	for (; isdigit((unsigned char)*p); p++) {
		v = v * 10 + (unsigned long long)(*p - '0');
		if (v > UINT32_MAX) {
			*why = "price out of range (0 < price < 2^32)";
			return -ERANGE;
		}
	}
	while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
		p++;
	if (*p != '\0') {
		*why = "trailing characters after the number";
		return -EINVAL;
	}
	if (hma_check_price((long long)v)) {
		*why = "price out of range (0 < price < 2^32)";
		return -ERANGE;
	}
	*out = (uint32_t)v;
	return 0;
}

int prices_read(FILE *f, const char *name, uint32_t **xp, size_t *Np,
		char *err, size_t errlen)
{
	size_t cap = 1 << 16, N = 0, lineno = 0, linecap = 0;
	uint32_t *x = malloc(cap * sizeof(*x));
	char *line = NULL;
	const char *why;
	ssize_t len;
	int ret;

	if (!x) {
		snprintf(err, errlen, "%s: out of memory", name);
		return -ENOMEM;
	}
	while ((len = getline(&line, &linecap, f)) >= 0) {
		lineno++;
		if (strlen(line) != (size_t)len) {
			snprintf(err, errlen, "%s:%zu: NUL byte in line", name, lineno);
			ret = -EINVAL;
			goto fail;
		}
		if (N == cap) {
			uint32_t *nx = realloc(x, 2 * cap * sizeof(*x));

			if (!nx) {
				snprintf(err, errlen, "%s: out of memory", name);
				ret = -ENOMEM;
				goto fail;
			}
			x = nx;
			cap *= 2;
		}
		ret = parse_price(line, &x[N], &why);
		if (ret) {
			snprintf(err, errlen, "%s:%zu: %s", name, lineno, why);
			goto fail;
		}
		N++;
	}
	if (ferror(f)) {
		snprintf(err, errlen, "%s: read error: %s", name, strerror(errno));
		ret = -EIO;
		goto fail;
	}
	if (N == 0) {
		snprintf(err, errlen, "%s: no prices (empty file)", name);
		ret = -EINVAL;
		goto fail;
	}
	free(line);
	*xp = x;
	*Np = N;
	return 0;
fail:
	free(line);
	free(x);
	return ret;
}

int prices_load(const char *path, uint32_t **x, size_t *N,
		char *err, size_t errlen)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	int ret;

	if (!f) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return ret;
	}
	ret = prices_read(f, path, x, N, err, errlen);
	if (f != stdin)
		fclose(f);
	return ret;
}

int prices_write(FILE *f, const uint32_t *x, size_t N)
{
	for (size_t t = 0; t < N; t++)
		if (fprintf(f, "%u\n", x[t]) < 0)
			return -EIO;
	return fflush(f) ? -EIO : 0;
}
