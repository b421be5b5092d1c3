// SPDX-License-Identifier: MIT
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/queue_list.h"

int queue_list_parse(const char *arg, uint64_t *mask, char *why, size_t n)
{
	const char *p = arg;

	*mask = 0;
	if (!strcmp(arg, "all"))
		return 0;
	while (*p) {
		char *end;
		unsigned long lo = strtoul(p, &end, 10), hi = lo;

		if (end == p)
			goto bad;
		if (*end == '-') {
			p = end + 1;
			hi = strtoul(p, &end, 10);
			if (end == p || hi < lo)
				goto bad;
		}
		if (hi >= QUEUE_LIST_MAX) {
			snprintf(why, n, "names queue %lu; queues are 0 to %d", hi,
				 QUEUE_LIST_MAX - 1);
			return -1;
		}
		for (unsigned long i = lo; i <= hi; i++)
			*mask |= 1ull << i;
		if (*end == ',' && end[1])
			end++;
		else if (*end)
			goto bad;
		p = end;
	}
	if (*mask)
		return 0;
bad:
	snprintf(why, n, "wants all, or queue numbers and ranges such as 0,2,4-7");
	return -1;
}

void queue_list_format(uint64_t mask, char *buf, size_t len)
{
	size_t off = 0;

	if (!mask) {
		snprintf(buf, len, "all");
		return;
	}
	buf[0] = '\0';
	for (unsigned int i = 0; i < 64 && off < len; i++) {
		unsigned int j = i;

		if (!(mask >> i & 1))
			continue;
		while (j + 1 < 64 && (mask >> (j + 1) & 1))
			j++;
		off += (size_t)snprintf(buf + off, len - off, j > i ? "%s%u-%u" : "%s%u",
					off ? "," : "", i, j);
		i = j;
	}
}
