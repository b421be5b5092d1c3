// SPDX-License-Identifier: MIT
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/cpulist.h"

bool hc_cpus_has(const struct hc_cpus *set, int cpu)
{
	if (cpu < 0 || cpu >= HC_MAX_CPUS)
		return false;
	return set->bits[cpu / 64] >> (cpu % 64) & 1;
}

void hc_cpus_set(struct hc_cpus *set, int cpu)
{
	if (cpu >= 0 && cpu < HC_MAX_CPUS)
		set->bits[cpu / 64] |= UINT64_C(1) << (cpu % 64);
}

void hc_cpus_clear(struct hc_cpus *set, int cpu)
{
	if (cpu >= 0 && cpu < HC_MAX_CPUS)
		set->bits[cpu / 64] &= ~(UINT64_C(1) << (cpu % 64));
}

unsigned int hc_cpus_count(const struct hc_cpus *set)
{
	unsigned int n = 0;

	for (size_t i = 0; i < sizeof(set->bits) / sizeof(set->bits[0]); i++)
		n += (unsigned int)__builtin_popcountll(set->bits[i]);
	return n;
}

static int cpu_num(const char **s, long *v)
{
	char *end;

	if (!isdigit((unsigned char)**s))
		return -EINVAL;
	*v = strtol(*s, &end, 10);
	if (*v >= HC_MAX_CPUS)
		return -EINVAL;
	*s = end;
	return 0;
}

int hc_cpus_parse_list(const char *s, struct hc_cpus *set)
{
	memset(set, 0, sizeof(*set));
	while (isspace((unsigned char)*s))
		s++;
	if (!strncmp(s, "(null)", 6))
		return 0;
	while (*s && !isspace((unsigned char)*s)) {
		long lo, hi;

		/* the command line's "all" (rcu_nocbs=all) */
		if (!strncmp(s, "all", 3) && (!s[3] || s[3] == ',' || isspace((unsigned char)s[3]))) {
			memset(set->bits, 0xff, sizeof(set->bits));
			s += 3;
			if (*s == ',')
				s++;
			continue;
		}
		if (cpu_num(&s, &lo))
			return -EINVAL;
		hi = lo;
		if (*s == '-') {
			s++;
			if (cpu_num(&s, &hi) || hi < lo)
				return -EINVAL;
		}
		/* "0-7:2/4" (groups) is rare on the command line and not read here */
		if (*s == ':')
			return -EINVAL;
		for (long c = lo; c <= hi; c++)
			hc_cpus_set(set, (int)c);
		if (*s == ',')
			s++;
		else if (*s && !isspace((unsigned char)*s))
			return -EINVAL;
	}
	return 0;
}

int hc_cpus_parse_mask(const char *s, struct hc_cpus *set)
{
	size_t len;
	int bit = 0;

	memset(set, 0, sizeof(*set));
	len = strcspn(s, " \t\n");
	/* From the least significant digit, the last one, leftwards. */
	for (size_t i = len; i-- > 0;) {
		int d;

		if (s[i] == ',')
			continue;
		if (!isxdigit((unsigned char)s[i]))
			return -EINVAL;
		d = isdigit((unsigned char)s[i]) ? s[i] - '0' : tolower((unsigned char)s[i]) - 'a' + 10;
		for (int b = 0; b < 4; b++, bit++)
			if (d >> b & 1) {
				if (bit >= HC_MAX_CPUS)
					return -EINVAL;
				hc_cpus_set(set, bit);
			}
	}
	return 0;
}

void hc_cpus_format(const struct hc_cpus *set, char *buf, size_t n)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int c = 0; c < HC_MAX_CPUS; c++) {
		int hi = c;

		if (!hc_cpus_has(set, c))
			continue;
		while (hc_cpus_has(set, hi + 1))
			hi++;
		if (used < n)
			used += (size_t)snprintf(buf + used, n - used, "%s%d", used ? "," : "", c);
		if (hi > c && used < n)
			used += (size_t)snprintf(buf + used, n - used, "-%d", hi);
		c = hi;
	}
	if (!used)
		snprintf(buf, n, "none");
}
