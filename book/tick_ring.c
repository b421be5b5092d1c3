// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "book/tick_ring.h"

#define RING_ALIGN 64

/* Cache-line aligned, zeroed array of @n elements of @size bytes. */
static void *array_alloc(size_t n, size_t size)
{
	size_t bytes = (n * size + RING_ALIGN - 1) & ~(size_t)(RING_ALIGN - 1);
	void *p = aligned_alloc(RING_ALIGN, bytes);

	if (p)
		memset(p, 0, bytes);
	return p;
}

int tick_ring_init(struct tick_ring *r, uint32_t capacity)
{
	memset(r, 0, sizeof(*r));
	if (capacity == 0 || (capacity & (capacity - 1)))
		return -EINVAL;

	r->capacity = capacity;
	r->mask = capacity - 1;
	r->seq = array_alloc(capacity, sizeof(*r->seq));
	r->exch_ts = array_alloc(capacity, sizeof(*r->exch_ts));
	r->arrival_ns = array_alloc(capacity, sizeof(*r->arrival_ns));
	r->price = array_alloc(capacity, sizeof(*r->price));
	r->shares = array_alloc(capacity, sizeof(*r->shares));
	r->locate = array_alloc(capacity, sizeof(*r->locate));
	r->kind = array_alloc(capacity, sizeof(*r->kind));
	if (!r->seq || !r->exch_ts || !r->arrival_ns || !r->price ||
	    !r->shares || !r->locate || !r->kind)
		goto err_free;
	return 0;

err_free:
	tick_ring_destroy(r);
	return -ENOMEM;
}

void tick_ring_destroy(struct tick_ring *r)
{
	free(r->seq);
	free(r->exch_ts);
	free(r->arrival_ns);
	free(r->price);
	free(r->shares);
	free(r->locate);
	free(r->kind);
	memset(r, 0, sizeof(*r));
}
