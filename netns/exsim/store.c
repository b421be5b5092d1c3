// SPDX-License-Identifier: MIT
/* The published-message store (store.h). */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "netns/exsim/store.h"

static size_t end_bytes(uint64_t seq_cap)
{
	return seq_cap * sizeof(uint64_t);
}

static size_t msg_bytes(uint64_t seq_cap)
{
	return seq_cap * STORE_MSG_MAX;
}

size_t store_bytes_for(uint64_t seq_cap)
{
	return end_bytes(seq_cap) + msg_bytes(seq_cap);
}

/* Zeroed memory; pre-faulted while the total stays small. */
static void *map(size_t bytes, int populate)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | populate, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

int store_open(struct msg_store *s, uint64_t seq_cap)
{
	int populate = store_bytes_for(seq_cap) <= STORE_POPULATE_MAX ? MAP_POPULATE : 0;

	memset(s, 0, sizeof(*s));
	if (seq_cap < 1) {
		errno = EINVAL;
		return -1;
	}
	s->seq_cap = seq_cap;
	s->end = map(end_bytes(seq_cap), populate);
	s->bytes = map(msg_bytes(seq_cap), populate);
	if (!s->end || !s->bytes) {
		int e = errno;

		store_close(s);
		errno = e;
		return -1;
	}
	s->bytes_cap = msg_bytes(seq_cap);
	return 0;
}

void store_close(struct msg_store *s)
{
	if (s->end)
		munmap(s->end, end_bytes(s->seq_cap));
	if (s->bytes)
		munmap(s->bytes, msg_bytes(s->seq_cap));
	memset(s, 0, sizeof(*s));
}
