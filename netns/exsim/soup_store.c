// SPDX-License-Identifier: MIT
/* A session's sequenced messages, kept for replays (soup_store.h). */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "netns/exsim/soup_store.h"

int soup_store_open(struct soup_store *s, uint64_t cap)
{
	void *p;

	memset(s, 0, sizeof(*s));
	if (!cap || cap > SIZE_MAX / SOUP_STORE_SLOT)
		return -EINVAL;
	/* Reserved, not touched: a slot's page appears with its first message. */
	p = mmap(NULL, (size_t)cap * SOUP_STORE_SLOT, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	s->slot = p;
	s->cap = cap;
	s->next = 1;
	return 0;
}

void soup_store_close(struct soup_store *s)
{
	if (s->slot)
		munmap(s->slot, (size_t)s->cap * SOUP_STORE_SLOT);
	s->slot = NULL;
}
