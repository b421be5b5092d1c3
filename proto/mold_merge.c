// SPDX-License-Identifier: MIT
/* One MoldUDP64 session's messages in order, each once (mold_merge.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "proto/be.h"
#include "proto/mold_check.h"
#include "proto/mold_merge.h"

void mold_merge_init(struct mold_merge *m, const struct mold_merge_cfg *cfg)
{
	memset(m, 0, sizeof(*m));
	m->cfg = *cfg;
	if (!m->cfg.max_held)
		m->cfg.max_held = MOLD_MERGE_HOLD_DEFAULT;
	m->adopted = cfg->pinned;
	m->next = 1;
}

void mold_merge_free(struct mold_merge *m)
{
	for (size_t i = 0; i < m->nheld; i++)
		free(m->heap[i].pkt);
	free(m->heap);
	m->heap = NULL;
	m->nheld = m->cap = 0;
	m->held_bytes = 0;
}

/* @count blocks fill the packet exactly. */
static bool framing_holds(const uint8_t *pkt, size_t len, uint16_t count)
{
	const uint8_t *msg;
	struct mold_iter it;
	uint16_t n;

	mold_iter_init(&it, pkt, len);
	for (uint16_t i = 0; i < count; i++)
		if (mold_iter_next(&it, &msg, &n) != 1)
			return false;
	return it.p == it.end;
}

/* Pass on what a packet starting at or below next brings. */
static int take(struct mold_merge *m, const uint8_t *pkt, size_t len, uint64_t first)
{
	uint64_t seq = first, fresh = 0;
	const uint8_t *msg;
	struct mold_iter it;
	uint16_t n;
	int ret;

	mold_iter_init(&it, pkt, len);
	for (; mold_iter_next(&it, &msg, &n) == 1; seq++) {
		if (m->end_next && seq >= m->end_next) {
			m->cnt.after_end++;
			continue;
		}
		if (seq < m->next) {
			m->cnt.dup_msgs++;
			continue;
		}
		/* seq == next: a packet is taken only when it starts at or below */
		ret = m->cfg.emit(m->cfg.ctx, seq, msg, n);
		if (ret)
			return ret;
		m->next++;
		m->cnt.msgs++;
		fresh++;
	}
	if (!fresh)
		m->cnt.dup_packets++;
	return 0;
}

static void sift_down(struct mold_merge *m, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, s = i;
		struct mold_merge_held t;

		if (l < m->nheld && m->heap[l].first < m->heap[s].first)
			s = l;
		if (r < m->nheld && m->heap[r].first < m->heap[s].first)
			s = r;
		if (s == i)
			return;
		t = m->heap[i];
		m->heap[i] = m->heap[s];
		m->heap[s] = t;
		i = s;
	}
}

static int hold(struct mold_merge *m, const uint8_t *pkt, size_t len, uint64_t first,
		uint64_t tag)
{
	struct mold_merge_held h = { .first = first, .tag = tag, .len = (uint32_t)len };
	size_t i;

	if (m->held_bytes + len > m->cfg.max_held)
		return -ENOBUFS;
	if (m->nheld == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 64;
		struct mold_merge_held *p = realloc(m->heap, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		m->heap = p;
		m->cap = cap;
	}
	h.pkt = malloc(len);
	if (!h.pkt)
		return -ENOMEM;
	memcpy(h.pkt, pkt, len);
	/* sift up */
	for (i = m->nheld++; i && m->heap[(i - 1) / 2].first > first; i = (i - 1) / 2)
		m->heap[i] = m->heap[(i - 1) / 2];
	m->heap[i] = h;
	m->held_bytes += len;
	m->cnt.held++;
	if (m->held_bytes > m->cnt.held_bytes_max)
		m->cnt.held_bytes_max = m->held_bytes;
	return 0;
}

/* The held packets the numbers passed on have reached, in order. */
static int drain(struct mold_merge *m)
{
	while (m->nheld && m->heap[0].first <= m->next) {
		struct mold_merge_held h = m->heap[0];
		int ret;

		m->heap[0] = m->heap[--m->nheld];
		sift_down(m, 0);
		m->held_bytes -= h.len;
		ret = take(m, h.pkt, h.len, h.first);
		free(h.pkt);
		if (ret)
			return ret;
	}
	return 0;
}

/* A heartbeat or an end of session of the session: what it says comes next. */
static void control(struct mold_merge *m, uint64_t next, bool end)
{
	if (next > m->announced)
		m->announced = next;
	if (!end) {
		m->cnt.heartbeats++;
		return;
	}
	m->cnt.ends++;
	/* the first end says it; the copies after it repeat it */
	if (!m->end_next)
		m->end_next = next;
}

int mold_merge_packet(struct mold_merge *m, const uint8_t *pkt, size_t len, uint64_t tag)
{
	struct mold_header h;
	uint64_t last;
	int ret;

	m->cnt.packets++;
	if (mold_parse_header(pkt, len, &h)) {
		m->cnt.malformed++;
		return 0;
	}
	if (!m->adopted) {
		if (h.count == MOLD_COUNT_HEARTBEAT || h.count == MOLD_COUNT_END ||
		    mold_check(pkt, len) != MOLD_WELL_FORMED || h.seq == 0) {
			m->cnt.other_session++;
			return 0;
		}
		memcpy(m->cfg.session, h.session, MOLD_SESSION_LEN);
		m->adopted = true;
	}
	if (memcmp(h.session, m->cfg.session, MOLD_SESSION_LEN)) {
		m->cnt.other_session++;
		return 0;
	}
	if (h.count == MOLD_COUNT_HEARTBEAT || h.count == MOLD_COUNT_END) {
		if (len != MOLD_HDR_LEN) {
			m->cnt.malformed++;
			return 0;
		}
		control(m, h.seq, h.count == MOLD_COUNT_END);
		return 0;
	}
	last = h.seq + h.count - 1;
	if (h.seq == 0 || last < h.seq || !framing_holds(pkt, len, h.count)) {
		m->cnt.malformed++;
		return 0;
	}
	m->cnt.data++;
	if (last > m->last_seen)
		m->last_seen = last;
	if (h.seq > m->next) {
		if (m->end_next && h.seq >= m->end_next) {
			m->cnt.after_end += h.count;
			return 0;
		}
		return hold(m, pkt, len, h.seq, tag);
	}
	ret = take(m, pkt, len, h.seq);
	return ret ? ret : drain(m);
}

int mold_merge_finish(struct mold_merge *m, struct mold_merge_hole *h)
{
	uint64_t last = m->last_seen;

	/* packets held beyond an end of session that came after them */
	while (m->nheld && m->end_next && m->heap[0].first >= m->end_next) {
		struct mold_iter it;
		const uint8_t *msg;
		uint16_t n;

		mold_iter_init(&it, m->heap[0].pkt, m->heap[0].len);
		while (mold_iter_next(&it, &msg, &n) == 1)
			m->cnt.after_end++;
		free(m->heap[0].pkt);
		m->held_bytes -= m->heap[0].len;
		m->heap[0] = m->heap[--m->nheld];
		sift_down(m, 0);
	}
	if (m->end_next)
		last = m->end_next - 1;
	else if (m->announced && m->announced - 1 > last)
		last = m->announced - 1;
	memset(h, 0, sizeof(*h));
	if (!m->nheld && m->next > last)
		return 0;
	h->first = m->next;
	if (m->nheld) {
		h->before_held = true;
		h->held_first = m->heap[0].first;
		h->held_tag = m->heap[0].tag;
		h->count = h->held_first - m->next;
	} else {
		h->count = last - m->next + 1;
		h->said_by_end = m->end_next != 0;
	}
	return 1;
}
