// SPDX-License-Identifier: MIT
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "gateway/gap.h"

static size_t area_size(uint32_t cap)
{
	return (size_t)cap * (GAP_HOLD_MTU + 2 * sizeof(uint16_t) + 2 * sizeof(uint64_t) +
			      3 * sizeof(uint32_t));
}

int gap_init(struct gw_gap *g, const struct gap_cfg *cfg)
{
	uint32_t cap = cfg->hold;
	uint8_t *a;

	memset(g, 0, sizeof(*g));
	if (!cap || !cfg->window || cfg->window > GAP_WINDOW_MAX)
		return -EINVAL;
	a = mmap(NULL, area_size(cap), PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (a == MAP_FAILED)
		return -ENOMEM;
	memset(a, 0, area_size(cap));	/* touched now, not on the first gap */
	g->cfg = *cfg;
	g->seq = (uint64_t *)a;
	g->t_hook = g->seq + cap;
	g->free = (uint32_t *)(g->t_hook + cap);
	g->sorted = g->free + cap;
	g->len = (uint16_t *)(g->sorted + 2 * cap);
	g->nmsg = g->len + cap;
	g->buf = (uint8_t *)(g->nmsg + cap);
	/* Room for two windows of answers, but never most of a small area. */
	g->reserve = 2 * cfg->window < cap / 4 ? 2 * cfg->window : cap / 4;
	gap_reset(g);
	return 0;
}

void gap_destroy(struct gw_gap *g)
{
	if (g->seq)
		munmap(g->seq, area_size(g->cfg.hold));
	g->seq = NULL;
}

void gap_reset(struct gw_gap *g)
{
	uint32_t cap = g->cfg.hold;

	for (uint32_t i = 0; i < cap; i++)
		g->free[i] = cap - 1 - i;
	g->free_n = cap;
	g->lo = g->n_held = 0;
	g->high = g->high_ns = g->since_ns = 0;
	g->n_req = 0;
	g->dirty = false;
	g->retry_due_ns = UINT64_MAX;
	g->per_req = GAP_PER_REQ_MIN;
	g->stale = false;
	g->catchup = false;
	g->gave_up = false;
	g->why = NULL;
}

static uint64_t pkt_end(const struct gw_gap *g, uint32_t slot)
{
	return g->seq[slot] + g->nmsg[slot];
}

/* Position in sorted[] (absolute) of the first held packet with seq >= s. */
static uint32_t lower_bound(const struct gw_gap *g, uint64_t s)
{
	uint32_t a = g->lo, b = g->lo + g->n_held;

	while (a < b) {
		uint32_t m = a + (b - a) / 2;

		if (g->seq[g->sorted[m]] < s)
			a = m + 1;
		else
			b = m;
	}
	return a;
}

static void drop_req(struct gw_gap *g, uint32_t i)
{
	g->req[i] = g->req[--g->n_req];
}

/*
 * A packet from @seq arrived: the requests it answers are done.  An answer
 * starts where its request did, and any packet carrying that number, live
 * or retransmitted, makes the request moot; what the packet did not carry
 * is a hole again.
 */
static void answered(struct gw_gap *g, uint64_t seq, uint64_t end)
{
	for (uint32_t i = 0; i < g->n_req;) {
		if (seq <= g->req[i].seq && g->req[i].seq < (end > seq ? end : seq + 1))
			drop_req(g, i);
		else
			i++;
	}
}

static void go_stale(struct gw_gap *g, const char *why)
{
	g->stale = true;
	g->why = why;
	g->n_req = 0;
}

/*
 * Keep a packet in sequence order; false when the area is full.  The last
 * slots are kept for answers: with the area full of live packets (a late
 * join, a long stall), answers beyond the next number would be dropped and
 * only one request in a window would bring anything.
 */
static bool hold(struct gw_gap *g, const uint8_t *pkt, size_t len,
		 const struct mold_header *h, uint64_t t_hook, bool answer)
{
	uint16_t n = h->count == MOLD_COUNT_END ? 0 : h->count;
	uint32_t pos, s, cap = g->cfg.hold;

	pos = lower_bound(g, h->seq);
	if (pos < g->lo + g->n_held && g->seq[g->sorted[pos]] == h->seq) {
		/* A second copy: keep whichever carries more. */
		s = g->sorted[pos];
		if (n <= g->nmsg[s] || len > GAP_HOLD_MTU)
			return true;
	} else {
		if (!g->free_n || len > GAP_HOLD_MTU || (!answer && g->free_n <= g->reserve))
			return false;
		if (g->lo + g->n_held == 2 * cap) {
			memmove(g->sorted, g->sorted + g->lo, g->n_held * sizeof(*g->sorted));
			pos -= g->lo;
			g->lo = 0;
		}
		memmove(g->sorted + pos + 1, g->sorted + pos,
			(g->lo + g->n_held - pos) * sizeof(*g->sorted));
		s = g->free[--g->free_n];
		g->sorted[pos] = s;
		g->n_held++;
		g->st.held_pkts++;
	}
	answered(g, h->seq, h->seq + n);
	memcpy(g->buf + (size_t)s * GAP_HOLD_MTU, pkt, len);
	g->len[s] = (uint16_t)len;
	g->nmsg[s] = n;
	g->seq[s] = h->seq;
	g->t_hook[s] = t_hook;
	return true;
}

void gap_ahead(struct gw_gap *g, const uint8_t *pkt, size_t len,
	       const struct mold_header *h, uint64_t next, uint64_t t_hook,
	       uint64_t now, bool established, bool answer)
{
	bool data = h->count != MOLD_COUNT_HEARTBEAT && h->count != MOLD_COUNT_END;
	uint64_t end = data ? h->seq + h->count : h->seq;
	uint64_t known = g->high > next ? g->high : next;

	if (established && end > known && end - known > g->cfg.max_hole) {
		/* Never to be filled: a stray number, or a day lost. */
		g->st.too_far++;
		go_stale(g, "a packet announced more messages than --max-hole beyond "
			 "everything seen");
		return;
	}
	if (!gap_open(g)) {
		g->since_ns = now;
		g->st.episodes++;
		g->catchup = next == 1;
		g->progress_seq = next;
		g->progress_ns = now;
	}
	if (end > g->high) {
		g->high = end;
		g->high_ns = now;
	}
	g->dirty = true;
	if (h->count == MOLD_COUNT_HEARTBEAT)
		return;
	if (!hold(g, pkt, len, h, t_hook, answer))
		g->st.hold_dropped++;
}

bool gap_pop(struct gw_gap *g, uint64_t next, uint64_t now, const uint8_t **pkt,
	     size_t *len, uint64_t *t_hook)
{
	uint32_t s;

	if (!g->n_held)
		return false;
	s = g->sorted[g->lo];
	if (g->seq[s] > next && !g->stale) {
		/* Nobody sends it again: only the other line could have. */
		if (!g->cfg.no_recovery || now < g->t_hook[s] + g->cfg.line_wait_ns)
			return false;
		g->gave_up = true;
	}
	g->lo++;
	g->n_held--;
	if (!g->n_held)
		g->lo = 0;
	g->free[g->free_n++] = s;
	*pkt = g->buf + (size_t)s * GAP_HOLD_MTU;
	*len = g->len[s];
	*t_hook = g->t_hook[s];
	return true;
}

bool gap_give_up_tail(struct gw_gap *g, uint64_t next, uint64_t now)
{
	if (!g->cfg.no_recovery || !gap_open(g) || g->n_held || next >= g->high ||
	    now < g->high_ns + g->cfg.line_wait_ns)
		return false;
	g->high = next;
	g->since_ns = 0;
	g->n_req = 0;
	return true;
}

void gap_settle(struct gw_gap *g, uint64_t next, uint64_t now)
{
	uint64_t took;

	if (!gap_open(g) || g->n_held || next < g->high)
		return;
	took = now - g->since_ns;
	/* Given up or stale: not a recovery, nor a catch-up. */
	if (!g->stale && !g->gave_up) {
		g->st.recovered++;
		if (g->catchup) {
			g->st.catchup_msgs = next - 1;
			g->st.catchup_ns = took;
		}
		if (took > g->st.recovery_ns_max)
			g->st.recovery_ns_max = took;
		g->st.recovery_ns_total += took;
	}
	g->catchup = false;
	g->gave_up = false;
	g->since_ns = 0;
	g->n_req = 0;
}

/*
 * The first missing range at or after @pos: [*a, *b); false if none, or if
 * none within GAP_SCAN held packets: this runs after every batch while
 * recovering, and a long run of held packets would make it walk the whole
 * area each time; holes beyond the run are found once the front reaches it.
 */
static bool hole_from(const struct gw_gap *g, uint64_t pos, uint64_t *a, uint64_t *b,
		      uint64_t *seen_ns)
{
	uint32_t i = lower_bound(g, pos + 1), end = g->lo + g->n_held;

	if (end - i > GAP_SCAN)
		end = i + GAP_SCAN;
	/* A packet starting at or before pos may still cover it. */
	if (i > g->lo && pkt_end(g, g->sorted[i - 1]) > pos)
		pos = pkt_end(g, g->sorted[i - 1]);
	for (; i < end; i++) {
		uint32_t s = g->sorted[i];

		if (g->seq[s] > pos) {
			*a = pos;
			*b = g->seq[s];
			*seen_ns = g->t_hook[s];	/* the packet that showed the hole */
			return true;
		}
		if (pkt_end(g, s) > pos)
			pos = pkt_end(g, s);
	}
	if (end < g->lo + g->n_held)
		return false;
	*a = pos;
	*b = g->high;
	*seen_ns = g->high_ns;
	return pos < g->high;
}

/* False once decoding has not moved for --gap-timeout: the session is stale. */
static inline bool progressing(struct gw_gap *g, uint64_t next, uint64_t now)
{
	if (next != g->progress_seq) {
		g->progress_seq = next;
		g->progress_ns = now;
		g->dirty = true;
	} else if (g->cfg.timeout_ns && now - g->progress_ns > g->cfg.timeout_ns) {
		g->st.timeouts++;
		go_stale(g, "missing messages were not sent again in time (--gap-timeout)");
		return false;
	}
	return true;
}

/* Overtaken: decoding has gone past where they start. */
static inline void drop_overtaken(struct gw_gap *g, uint64_t next)
{
	for (uint32_t i = 0; i < g->n_req;) {
		if (g->req[i].seq < next)
			drop_req(g, i);
		else
			i++;
	}
}

/* The first request unanswered for --gap-retry, asked again; the next one due. */
static inline bool retry_one(struct gw_gap *g, uint64_t now, uint64_t *seq,
			     uint16_t *count)
{
	g->retry_due_ns = UINT64_MAX;
	for (uint32_t i = 0; i < g->n_req; i++) {
		struct gap_req *r = &g->req[i];

		if (now - r->sent_ns >= g->cfg.retry_ns) {
			r->sent_ns = now;
			g->st.retries++;
			g->st.requests++;
			*seq = r->seq;
			*count = (uint16_t)r->count;
			/* The others are looked at on the next call. */
			g->retry_due_ns = now;
			return true;
		}
		if (r->sent_ns + g->cfg.retry_ns < g->retry_due_ns)
			g->retry_due_ns = r->sent_ns + g->cfg.retry_ns;
	}
	return false;
}

/*
 * The end of a request that already covers @a, or 0.  When none does, @n
 * stops where the next request starts, so no number is asked twice.
 */
static inline uint64_t asked_to(const struct gw_gap *g, uint64_t a, uint64_t *n)
{
	for (uint32_t i = 0; i < g->n_req; i++) {
		const struct gap_req *r = &g->req[i];

		if (r->seq <= a && a < r->seq + r->count)
			return r->seq + r->count;
		if (a < r->seq && r->seq < a + *n)
			*n = r->seq - a;
	}
	return 0;
}

static inline void add_request(struct gw_gap *g, uint64_t a, uint64_t n, uint64_t now)
{
	g->req[g->n_req++] = (struct gap_req){ .seq = a, .count = (uint32_t)n,
					       .sent_ns = now };
	if (now + g->cfg.retry_ns < g->retry_due_ns)
		g->retry_due_ns = now + g->cfg.retry_ns;
	g->st.requests++;
}

/* A request for the first hole from @pos not yet asked for, while the window has room. */
static inline bool ask_hole(struct gw_gap *g, uint64_t pos, uint64_t now, uint64_t *seq,
			    uint16_t *count)
{
	uint64_t a, b, seen;

	while (g->n_req < g->cfg.window && hole_from(g, pos, &a, &b, &seen)) {
		uint64_t n = b - a, asked;

		/* Two lines: the other one usually fills the hole before long. */
		if (g->cfg.line_wait_ns && now - seen < g->cfg.line_wait_ns) {
			if (seen + g->cfg.line_wait_ns < g->retry_due_ns)
				g->retry_due_ns = seen + g->cfg.line_wait_ns;
			pos = b;
			continue;
		}

		if (n > g->per_req)
			n = g->per_req;
		asked = asked_to(g, a, &n);
		if (asked) {
			pos = asked;
			continue;
		}
		add_request(g, a, n, now);
		*seq = a;
		*count = (uint16_t)n;
		return true;
	}
	return false;
}

bool gap_request(struct gw_gap *g, uint64_t next, uint64_t now, uint64_t *seq,
		 uint16_t *count)
{
	if (!gap_open(g) || g->stale || !progressing(g, next, now))
		return false;
	if (!g->dirty && now < g->retry_due_ns)
		return false;
	drop_overtaken(g, next);
	if (now >= g->retry_due_ns && retry_one(g, now, seq, count))
		return true;
	if (ask_hole(g, next, now, seq, count))
		return true;
	g->dirty = false;
	return false;
}
