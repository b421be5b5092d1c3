// SPDX-License-Identifier: MIT
/* Faults of the order server: the plan of a connection (soup_fault.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "netns/exsim/soup_fault.h"

const char *const soup_fault_names[] = {
	[SOUP_FAULT_NONE] = "none",
	[SOUP_FAULT_FIN] = "fin",
	[SOUP_FAULT_RST] = "rst",
	[SOUP_FAULT_SILENT] = "silent",
};

/* The connection may send up to @last, then @kind; the earliest plan wins. */
static void earlier(struct soup_fault_plan *p, uint64_t last, uint8_t kind, bool at)
{
	if (last >= p->last)
		return;
	p->last = last;
	p->kind = kind;
	p->drop_at = at;
}

size_t soup_fault_plan(const struct soup_fault_cfg *f, uint64_t sent, uint64_t next,
		       size_t *at, struct soup_fault_plan *p)
{
	size_t passed = 0;

	p->last = UINT64_MAX;
	p->kind = SOUP_FAULT_NONE;
	p->drop_at = false;
	/* A number this connection starts beyond went to another one, or to nobody. */
	while (*at < f->ndrop_at && f->drop_at[*at] < next) {
		(*at)++;
		passed++;
	}
	if (*at < f->ndrop_at)
		earlier(p, f->drop_at[*at], f->drop_at_how, true);
	if (f->drop_after && sent < f->drop_after)
		earlier(p, next - 1 + (f->drop_after - sent), f->drop_after_how, false);
	if (f->silent_after && sent < f->silent_after)
		earlier(p, next - 1 + (f->silent_after - sent), SOUP_FAULT_SILENT, false);
	return passed;
}

/* ":fin" or ":rst" at @s, or nothing (FIN).  0, or -1. */
static int how(const char *s, uint8_t *kind)
{
	if (!*s || !strcmp(s, ":fin"))
		*kind = SOUP_FAULT_FIN;
	else if (!strcmp(s, ":rst"))
		*kind = SOUP_FAULT_RST;
	else
		return -1;
	return 0;
}

/* A decimal number from 1 at *@p (advanced). */
static int number(const char **p, uint64_t *v)
{
	char *end;

	if (**p < '0' || **p > '9')
		return -1;
	*v = strtoull(*p, &end, 10);
	*p = end;
	return *v ? 0 : -1;
}

int soup_fault_parse_after(struct soup_fault_cfg *f, const char *arg, char *why, size_t n)
{
	const char *p = arg;
	uint64_t v;

	if (number(&p, &v) || how(p, &f->drop_after_how))
		return snprintf(why, n, "wants N (from 1), then :fin or :rst"), -1;
	f->drop_after = v;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int soup_fault_parse_at(struct soup_fault_cfg *f, const char *arg, char *why, size_t n)
{
	const char *p = arg;
	size_t k = 0, i, u;
	uint64_t v;

	for (;;) {
		if (k == SOUP_MAX_DROP_AT)
			return snprintf(why, n, "holds more than %d numbers", SOUP_MAX_DROP_AT), -1;
		if (number(&p, &v))
			goto bad;
		f->drop_at[k++] = v;
		if (*p != ',')
			break;
		p++;
	}
	if (how(p, &f->drop_at_how))
		goto bad;
	qsort(f->drop_at, k, sizeof(f->drop_at[0]), cmp_u64);
	for (i = u = 0; i < k; i++)
		if (!u || f->drop_at[i] != f->drop_at[u - 1])
			f->drop_at[u++] = f->drop_at[i];
	f->ndrop_at = u;
	return 0;
bad:
	f->ndrop_at = 0;
	return snprintf(why, n, "wants sequence numbers (from 1), comma-separated, then "
			":fin or :rst"), -1;
}

int soup_fault_parse_late(struct soup_fault_cfg *f, const char *arg, char *why, size_t n)
{
	char *end;
	double pct, ms;

	errno = 0;
	pct = strtod(arg, &end);
	if (errno || end == arg || *end != ':' || !(pct >= 0 && pct <= 100))
		goto bad;
	ms = strtod(end + 1, &end);
	if (errno || *end || !(ms > 0 && ms <= 60000))
		goto bad;
	f->late_frac = pct / 100;
	f->late_ns = (uint64_t)(ms * 1e6);
	return 0;
bad:
	snprintf(why, n, "wants PCT:MS, PCT 0-100 (the orders whose replies are held), "
		 "MS above 0 and at most 60000");
	return -1;
}
