// SPDX-License-Identifier: MIT
/* The --symbols filter of a day (itch_filter.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/itch_filter.h"

static uint64_t key(const void *stock)
{
	uint64_t k;

	memcpy(&k, stock, sizeof(k));
	return k;
}

static int cmp_key(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int itch_filter_init(struct itch_filter *f, const char (*syms)[ITCH_SYMBOL_LEN],
		     unsigned int n)
{
	unsigned int i, k = 0;

	memset(f, 0, sizeof(*f));
	if (n > ITCH_FILTER_MAX)
		return -EINVAL;
	if (!n)
		return 0;
	f->sym = malloc(n * sizeof(*f->sym));
	f->found = calloc(n, 1);
	f->chosen = calloc(ITCH_LOCATES, 1);
	if (!f->sym || !f->found || !f->chosen) {
		itch_filter_free(f);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		f->sym[i] = key(syms[i]);
	qsort(f->sym, n, sizeof(*f->sym), cmp_key);
	for (i = 0; i < n; i++)
		if (!k || f->sym[i] != f->sym[k - 1])
			f->sym[k++] = f->sym[i];
	f->nsym = k;
	return 0;
}

void itch_filter_free(struct itch_filter *f)
{
	free(f->sym);
	free(f->found);
	free(f->chosen);
	memset(f, 0, sizeof(*f));
}

int itch_filter_index(const struct itch_filter *f, const uint8_t *stock)
{
	uint64_t k = key(stock);
	unsigned int lo = 0, hi = f->nsym;

	while (lo < hi) {
		unsigned int mid = (lo + hi) / 2;

		if (f->sym[mid] == k)
			return (int)mid;
		if (f->sym[mid] < k)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

const char *itch_filter_missing(const struct itch_filter *f)
{
	for (unsigned int k = 0; k < f->nsym; k++)
		if (!f->found[k])
			return (const char *)&f->sym[k];
	return NULL;
}

static bool symbol_char(char ch)
{
	return (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '.';
}

int itch_parse_symbols(const char *list, char (*out)[ITCH_SYMBOL_LEN], unsigned int cap,
		       char *why, size_t whylen)
{
	const char *p = list;
	unsigned int n = 0;

	for (;;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		char sym[ITCH_SYMBOL_LEN];

		if (len < 1 || len > ITCH_SYMBOL_LEN)
			return snprintf(why, whylen, "'%.*s' must be 1-8 characters", (int)len,
					p), -1;
		for (size_t i = 0; i < len; i++)
			if (!symbol_char(p[i]))
				return snprintf(why, whylen, "'%.*s': only A-Z, 0-9 and '.'",
						(int)len, p), -1;
		memcpy(sym, p, len);
		memset(sym + len, ' ', ITCH_SYMBOL_LEN - len);
		for (unsigned int i = 0; i < n; i++)
			if (!memcmp(out[i], sym, ITCH_SYMBOL_LEN))
				return snprintf(why, whylen, "'%.*s' is listed twice", (int)len,
						p), -1;
		if (n == cap)
			return snprintf(why, whylen, "lists more than %u symbols", cap), -1;
		memcpy(out[n++], sym, ITCH_SYMBOL_LEN);
		if (!end)
			return (int)n;
		p = end + 1;
	}
}
