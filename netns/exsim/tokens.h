/* SPDX-License-Identifier: MIT */
/*
 * The Order Tokens a session has seen: OUCH ignores an Enter Order whose
 * token was already used that day (no reply at all), which is what makes a
 * client's resend of an order it is unsure of safe after a reconnection.
 *
 * An open-addressed set of 14-byte tokens in a reserved (MAP_NORESERVE)
 * table of a power of two slots, linear probing, never deleted.  It takes
 * tokens up to three quarters full; beyond that a token is not kept
 * (tokens_add() says so, counted): a duplicate of it would not be caught,
 * a fuller table would make every probe long.
 */
#ifndef NETNS_EXSIM_TOKENS_H
#define NETNS_EXSIM_TOKENS_H

#include <stdbool.h>
#include <stdint.h>

#include "proto/order_token.h"

#define TOKENS_DEFAULT_SLOTS	(UINT32_C(1) << 21)

/* A slot: the token, and a byte that says it is taken (a token may be zeros). */
struct token_slot {
	char token[ORDER_TOKEN_LEN];
	uint8_t used;
	uint8_t pad;
};

struct token_set {
	struct token_slot *slot;
	uint64_t mask;		/* slots - 1 */
	uint64_t n;		/* tokens kept */
	uint64_t max;		/* three quarters of the slots */
	uint64_t full;		/* tokens not kept: the table was full */
};

enum { TOKENS_NEW, TOKENS_SEEN, TOKENS_FULL };

/* @slots: a power of two (>= 4).  0, or -errno. */
int tokens_open(struct token_set *t, uint64_t slots);
void tokens_close(struct token_set *t);

/* TOKENS_SEEN (already there), TOKENS_NEW (kept now), or TOKENS_FULL (not kept). */
int tokens_add(struct token_set *t, const char token[ORDER_TOKEN_LEN]);

#endif /* NETNS_EXSIM_TOKENS_H */
