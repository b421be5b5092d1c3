// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strategy/hma.h"
#include "strategy/inst_spec.h"

static int parse_long(const char *s, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(s, &end, 10);
	return errno || *end || end == s ? -EINVAL : 0;
}

int inst_spec_parse(const char *s, struct inst_spec *is, char *why, size_t whylen)
{
	char buf[64], *len_s, *unit_s;
	long L, unit = INST_UNIT_DEFAULT;

	if (strlen(s) >= sizeof(buf))
		goto syntax;
	strcpy(buf, s);
	len_s = strchr(buf, ':');
	if (!len_s)
		goto syntax;
	*len_s++ = '\0';
	unit_s = strchr(len_s, ':');
	if (unit_s)
		*unit_s++ = '\0';
	if (!buf[0] || strlen(buf) > 8) {
		snprintf(why, whylen, "symbol must be 1 to 8 characters");
		return -EINVAL;
	}
	for (const char *p = buf; *p; p++)
		if (*p <= ' ' || *p > '~') {
			snprintf(why, whylen, "symbol must be printable ASCII without spaces");
			return -EINVAL;
		}
	if (parse_long(len_s, &L))
		goto syntax;
	if (hma_check_length(L)) {
		snprintf(why, whylen, "HMA length %ld out of range [%d, %d]", L,
			 HMA_LEN_MIN, HMA_LEN_MAX);
		return -ERANGE;
	}
	if (unit_s && (parse_long(unit_s, &unit) || unit < 1 || unit > INST_UNIT_MAX)) {
		snprintf(why, whylen, "unit must be 1 to %d shares", INST_UNIT_MAX);
		return -EINVAL;
	}
	strcpy(is->symbol, buf);
	is->length = (unsigned int)L;
	is->unit = (uint32_t)unit;
	return 0;
syntax:
	snprintf(why, whylen, "expected SYM:LEN[:UNIT], e.g. AAPL:20 or AAPL:20:100");
	return -EINVAL;
}
