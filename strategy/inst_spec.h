/* SPDX-License-Identifier: MIT */
/*
 * "SYM:LEN[:UNIT]": what to trade and how, as the gateway and the
 * backtester both take it on their command lines.
 */
#ifndef STRATEGY_INST_SPEC_H
#define STRATEGY_INST_SPEC_H

#include <stddef.h>
#include <stdint.h>

#define INST_UNIT_DEFAULT 100
#define INST_UNIT_MAX 1000000

struct inst_spec {
	char symbol[9];		/* NUL-terminated, 1 to 8 printable chars */
	unsigned int length;	/* HMA length */
	uint32_t unit;		/* shares per unit of position */
};

/* 0, or -EINVAL / -ERANGE with the reason in why. */
int inst_spec_parse(const char *s, struct inst_spec *is, char *why, size_t whylen);

#endif /* STRATEGY_INST_SPEC_H */
