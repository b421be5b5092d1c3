// SPDX-License-Identifier: MIT
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "gateway/gap.h"

static void *map(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	memset(p, 0, len);	/* touched now, not on the first gap */
	return p;
}

static size_t area_size(uint32_t cap)
{
	return (size_t)cap * (GAP_HOLD_MTU + sizeof(uint16_t) + 2 * sizeof(uint64_t) +
			      2 * sizeof(uint32_t));
}

int gap_init(struct gw_gap *g, uint32_t cap, uint64_t retry_ns,
	     uint64_t timeout_ns)
{
	uint8_t *a;

	memset(g, 0, sizeof(*g));
	if (!cap)
		return -EINVAL;
	a = map(area_size(cap));
	if (!a)
		return -ENOMEM;
	g->cap = cap;
	g->seq = (uint64_t *)a;
	g->t_hook = g->seq + cap;
	g->held = (uint32_t *)(g->t_hook + cap);
	g->free = g->held + cap;
	g->len = (uint16_t *)(g->free + cap);
	g->buf = (uint8_t *)(g->len + cap);
	for (uint32_t i = 0; i < cap; i++)
		g->free[i] = cap - 1 - i;
	g->free_n = cap;
	g->retry_ns = retry_ns;
	g->timeout_ns = timeout_ns;
	return 0;
}

void gap_destroy(struct gw_gap *g)
{
	if (g->seq)
		munmap(g->seq, area_size(g->cap));
	memset(g, 0, sizeof(*g));
}

bool gap_hold(struct gw_gap *g, const uint8_t *pkt, size_t len, uint64_t seq,
	      uint64_t t_hook)
{
	uint32_t s;

	if (!g->free_n || len > GAP_HOLD_MTU) {
		g->hold_overflow++;
		return false;
	}
	s = g->free[--g->free_n];
	memcpy(g->buf + (size_t)s * GAP_HOLD_MTU, pkt, len);
	g->len[s] = (uint16_t)len;
	g->seq[s] = seq;
	g->t_hook[s] = t_hook;
	g->held[g->n_held++] = s;
	g->held_pkts++;
	return true;
}

/* Position in held[] of the smallest sequence number. */
static uint32_t smallest(const struct gw_gap *g)
{
	uint32_t best = 0;

	for (uint32_t i = 1; i < g->n_held; i++)
		if (g->seq[g->held[i]] < g->seq[g->held[best]])
			best = i;
	return best;
}

uint64_t gap_first_held(const struct gw_gap *g)
{
	return g->seq[g->held[smallest(g)]];
}

uint64_t gap_last_held(const struct gw_gap *g)
{
	uint64_t last = 0;

	for (uint32_t i = 0; i < g->n_held; i++)
		if (g->seq[g->held[i]] > last)
			last = g->seq[g->held[i]];
	return last;
}

bool gap_pop(struct gw_gap *g, uint64_t next, const uint8_t **pkt,
	     size_t *len, uint64_t *t_hook)
{
	uint32_t i, s;

	if (!g->n_held)
		return false;
	i = smallest(g);
	s = g->held[i];
	if (g->seq[s] > next && !g->stale)
		return false;
	g->held[i] = g->held[--g->n_held];
	g->free[g->free_n++] = s;
	*pkt = g->buf + (size_t)s * GAP_HOLD_MTU;
	*len = g->len[s];
	*t_hook = g->t_hook[s];
	return true;
}
