// SPDX-License-Identifier: MIT
/* The published-message store (store.h). */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "netns/exsim/store.h"

static size_t index_bytes(uint64_t msg_cap)
{
	return msg_cap * (sizeof(uint64_t) + sizeof(uint16_t));
}

size_t store_bytes_for(uint64_t msg_cap, size_t bytes_cap)
{
	return index_bytes(msg_cap) + bytes_cap;
}

/* Zeroed memory; pre-faulted while the total stays small. */
static void *map(size_t bytes, int populate)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | populate, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

int store_open(struct msg_store *s, uint64_t msg_cap, size_t bytes_cap)
{
	int populate = store_bytes_for(msg_cap, bytes_cap) <= STORE_POPULATE_MAX ?
		       MAP_POPULATE : 0;

	memset(s, 0, sizeof(*s));
	if (msg_cap < 1 || bytes_cap < STORE_MSG_MAX) {
		errno = EINVAL;
		return errno ? -errno : -EIO;
	}
	s->msg_cap = msg_cap;
	s->bytes_cap = bytes_cap;
	s->pos = map(msg_cap * sizeof(uint64_t), populate);
	s->len = map(msg_cap * sizeof(uint16_t), populate);
	s->bytes = map(bytes_cap, populate);
	if (!s->pos || !s->len || !s->bytes) {
		int e = errno;

		store_close(s);
		errno = e;
		return errno ? -errno : -EIO;
	}
	return 0;
}

void store_close(struct msg_store *s)
{
	if (s->pos)
		munmap(s->pos, s->msg_cap * sizeof(uint64_t));
	if (s->len)
		munmap(s->len, s->msg_cap * sizeof(uint16_t));
	if (s->bytes)
		munmap(s->bytes, s->bytes_cap);
	memset(s, 0, sizeof(*s));
}
