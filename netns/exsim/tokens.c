// SPDX-License-Identifier: MIT
/* The Order Tokens a session has seen (tokens.h). */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "netns/exsim/tokens.h"

int tokens_open(struct token_set *t, uint64_t slots)
{
	void *p;

	memset(t, 0, sizeof(*t));
	if (slots < 4 || (slots & (slots - 1)))
		return -EINVAL;
	p = mmap(NULL, slots * sizeof(struct token_slot), PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	t->slot = p;
	t->mask = slots - 1;
	t->max = slots / 4 * 3;
	return 0;
}

void tokens_close(struct token_set *t)
{
	if (t->slot)
		munmap(t->slot, (t->mask + 1) * sizeof(struct token_slot));
	t->slot = NULL;
}

/*
 * FNV-1a, then a final mix: the tokens of one client differ in their last
 * digits (its order number) and in the middle ones (the tick), and both
 * must spread over the whole table.
 */
static uint64_t hash(const char *tok)
{
	uint64_t h = UINT64_C(0xcbf29ce484222325);

	for (int i = 0; i < ORDER_TOKEN_LEN; i++) {
		h ^= (uint8_t)tok[i];
		h *= UINT64_C(0x100000001b3);
	}
	h ^= h >> 33;
	h *= UINT64_C(0xff51afd7ed558ccd);
	h ^= h >> 33;
	return h;
}

int tokens_add(struct token_set *t, const char token[ORDER_TOKEN_LEN])
{
	uint64_t i = hash(token) & t->mask;

	for (;;) {
		struct token_slot *s = &t->slot[i];

		if (!s->used)
			break;
		if (!memcmp(s->token, token, ORDER_TOKEN_LEN))
			return TOKENS_SEEN;
		i = (i + 1) & t->mask;
	}
	/* A free slot ends the probe: the token is new, kept if there is room. */
	if (t->n >= t->max) {
		t->full++;
		return TOKENS_FULL;
	}
	memcpy(t->slot[i].token, token, ORDER_TOKEN_LEN);
	t->slot[i].used = 1;
	t->n++;
	return TOKENS_NEW;
}
