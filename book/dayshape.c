// SPDX-License-Identifier: MIT
/* The shape of a day, measured (dayshape.h). */
#include <stdlib.h>
#include <string.h>

#include "book/dayshape.h"
#include "proto/be.h"

#define MS		1000000ull
#define HOUR		3600000000000ull

/* Per symbol: all its messages, then A F E C X D U. */
enum { C_ALL, C_A, C_F, C_E, C_C, C_X, C_D, C_U, C_N };

struct dayshape_meter {
	uint32_t symbols;
	uint64_t open_ns, close_ns;
	uint64_t n, last_ts, live;
	uint64_t *born;			/* [ref]: its add's time + 1, 0 when not live */
	uint64_t refs;			/* slots of born */
	uint64_t max_ref;		/* the highest ref added */
	uint64_t (*sym)[C_N];		/* [locate] */
	uint64_t ms_at, ms_n, ms_best, ms_best_at;
	uint64_t session;
	uint64_t part[DAYSHAPE_PARTS];
	uint64_t live_at[DAYSHAPE_PARTS + 1];
	uint32_t live_next;		/* the next boundary to pass */
	uint64_t peak, peak_ns;
	uint64_t snap_live;
	uint32_t *snap;			/* [locate * 2 + side]: levels at the last snapshot */
	uint64_t cancels, c_1ms, c_10ms, c_1s;
	uint64_t orders, rest_1h;
};

struct dayshape_meter *dayshape_new(uint64_t messages, uint32_t symbols, uint64_t open_ns,
				    uint64_t close_ns)
{
	struct dayshape_meter *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->symbols = symbols;
	m->open_ns = open_ns;
	m->close_ns = close_ns > open_ns ? close_ns : open_ns + 1;
	m->refs = messages + 2;
	/* calloc: only the slots of refs the day uses are ever touched. */
	m->born = calloc(m->refs, sizeof(*m->born));
	m->sym = calloc((size_t)symbols + 1, sizeof(*m->sym));
	m->snap = calloc(((size_t)symbols + 1) * 2, sizeof(*m->snap));
	if (!m->born || !m->sym || !m->snap) {
		dayshape_free(m);
		return NULL;
	}
	return m;
}

void dayshape_free(struct dayshape_meter *m)
{
	if (!m)
		return;
	free(m->born);
	free(m->sym);
	free(m->snap);
	free(m);
}

static void born(struct dayshape_meter *m, uint64_t ref, uint64_t ts)
{
	if (ref < m->refs) {
		m->born[ref] = ts + 1;
		m->orders++;
		if (ref > m->max_ref)
			m->max_ref = ref;
	}
}

/* The end of order @ref at @ts; a cancel when by D or U. */
static void ended(struct dayshape_meter *m, uint64_t ref, uint64_t ts, bool cancel)
{
	uint64_t life;

	if (ref >= m->refs || !m->born[ref])
		return;
	life = ts - (m->born[ref] - 1);
	m->born[ref] = 0;
	if (life > HOUR)
		m->rest_1h++;
	if (!cancel)
		return;
	m->cancels++;
	m->c_1ms += life <= MS;
	m->c_10ms += life <= 10 * MS;
	m->c_1s += life <= 1000 * MS;
}

/* The depth of every symbol each time live orders pass 1 % over the last
 * snapshot: the last one is within 1 % of the peak. */
static void snapshot(struct dayshape_meter *m, const struct book *b)
{
	for (uint32_t loc = 1; loc <= m->symbols; loc++) {
		m->snap[loc * 2] = book_nlevels(b, (uint16_t)loc, BOOK_BID);
		m->snap[loc * 2 + 1] = book_nlevels(b, (uint16_t)loc, BOOK_ASK);
	}
	m->snap_live = b->live;
}

void dayshape_see(struct dayshape_meter *m, const struct book *b, const uint8_t *msg,
		  uint16_t len)
{
	uint8_t type = msg[ITCH_OFF_TYPE];
	uint16_t loc;
	uint64_t ts, ref;

	if (len < ITCH_HDR_LEN || len != itch_msg_len[type])
		return;
	loc = be16_load(msg + ITCH_OFF_LOCATE);
	ts = be48_load(msg + ITCH_OFF_TIMESTAMP);
	m->n++;
	m->last_ts = ts;
	m->live = b->live;

	if (ts / MS != m->ms_at || m->n == 1) {
		m->ms_at = ts / MS;
		m->ms_n = 0;
	}
	if (++m->ms_n > m->ms_best) {
		m->ms_best = m->ms_n;
		m->ms_best_at = m->ms_at;
	}
	if (ts >= m->open_ns && ts < m->close_ns) {
		m->session++;
		m->part[(ts - m->open_ns) * DAYSHAPE_PARTS / (m->close_ns - m->open_ns)]++;
	}
	while (m->live_next <= DAYSHAPE_PARTS &&
	       ts >= m->open_ns + (m->close_ns - m->open_ns) * m->live_next / DAYSHAPE_PARTS)
		m->live_at[m->live_next++] = b->live;
	if (b->live > m->peak) {
		m->peak = b->live;
		m->peak_ns = ts;
		if (b->live * 100 > m->snap_live * 101)
			snapshot(m, b);
	}

	if (loc && loc <= m->symbols) {
		static const char types[] = "AFECXDU";
		const char *t = type ? strchr(types, type) : NULL;

		m->sym[loc][C_ALL]++;
		if (t)
			m->sym[loc][C_A + (t - types)]++;
	}
	switch (type) {
	case 'A':
	case 'F':
		born(m, be64_load(msg + ITCH_A_OFF_ORDER_REF), ts);
		break;
	case 'D':
		ended(m, be64_load(msg + ITCH_D_OFF_ORDER_REF), ts, true);
		break;
	case 'U':
		ended(m, be64_load(msg + ITCH_U_OFF_ORIG_REF), ts, true);
		born(m, be64_load(msg + ITCH_U_OFF_NEW_REF), ts);
		break;
	case 'E':
	case 'C':
	case 'X':
		ref = be64_load(msg + ITCH_E_OFF_ORDER_REF);
		if (!book_find(b, ref))
			ended(m, ref, ts, false);
		break;
	}
}

struct ranked {
	uint64_t n;
	uint32_t loc;
};

/* Most messages first, ties by locate. */
static int cmp_rank(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->n != y->n)
		return x->n < y->n ? 1 : -1;
	return x->loc < y->loc ? -1 : x->loc > y->loc;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y ? 1 : 0;
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0;
}

/* Share of the top @frac of the symbols, the last one in part. */
static double top_frac(const uint64_t *sorted, uint32_t k, uint64_t total, double frac)
{
	double at = frac * k, sum = 0;
	uint32_t i;

	for (i = 0; i < k && i + 1 <= at; i++)
		sum += (double)sorted[i];
	if (i < k)
		sum += (at - i) * (double)sorted[i];
	return total ? 100.0 * sum / (double)total : 0;
}

static uint64_t top_n(const uint64_t *sorted, uint32_t k, uint32_t n)
{
	uint64_t sum = 0;

	for (uint32_t i = 0; i < k && i < n; i++)
		sum += sorted[i];
	return sum;
}

void dayshape_get(const struct dayshape_meter *m, struct dayshape *s)
{
	uint32_t k = m->symbols, busy[2 * DAYSHAPE_BUSY], nb = 0;
	uint64_t *sorted = malloc(((size_t)k + 1) * sizeof(*sorted)), total = 0, n;
	struct ranked *rank = malloc(((size_t)k + 1) * sizeof(*rank));
	const uint64_t *c;

	memset(s, 0, sizeof(*s));
	s->messages = m->n;
	s->symbols = k;
	s->open_ns = m->open_ns;
	s->close_ns = m->close_ns;
	if (sorted && rank && k) {
		for (uint32_t i = 0; i < k; i++)
			rank[i] = (struct ranked){ m->sym[i + 1][C_ALL], i + 1 };
		qsort(rank, k, sizeof(*rank), cmp_rank);
		for (uint32_t i = 0; i < k; i++) {
			sorted[i] = rank[i].n;
			total += sorted[i];
		}
		s->top1 = top_n(sorted, k, 1);
		s->top10 = top_n(sorted, k, 10);
		s->top100 = top_n(sorted, k, 100);
		s->top1_pct = pct(s->top1, total);
		s->top10_pct = pct(s->top10, total);
		s->top100_pct = pct(s->top100, total);
		s->pct1_pct = top_frac(sorted, k, total, 0.01);
		s->pct10_pct = top_frac(sorted, k, total, 0.10);
		s->pct50_pct = top_frac(sorted, k, total, 0.50);

		s->busiest_locate = (uint16_t)rank[0].loc;
		c = m->sym[rank[0].loc];
		n = c[C_A] + c[C_F] + c[C_E] + c[C_C] + c[C_X] + c[C_D] + c[C_U];
		s->mix[DS_ADD] = pct(c[C_A] + c[C_F], n);
		s->mix[DS_DELETE] = pct(c[C_D], n);
		s->mix[DS_REPLACE] = pct(c[C_U], n);
		s->mix[DS_EXEC] = pct(c[C_E] + c[C_C], n);
		s->mix[DS_CANCEL] = pct(c[C_X], n);

		for (uint32_t i = 0; i < k && i < DAYSHAPE_BUSY; i++) {
			busy[nb++] = m->snap[rank[i].loc * 2];
			busy[nb++] = m->snap[rank[i].loc * 2 + 1];
		}
		qsort(busy, nb, sizeof(*busy), cmp_u32);
		s->busy_n = nb / 2;
		s->levels_p50 = busy[(nb - 1) / 2];
		s->levels_max = busy[nb - 1];
	}
	free(sorted);
	free(rank);

	s->peak_live = m->peak;
	s->peak_ns = m->peak_ns;
	s->end_live = m->live;
	for (int i = 0; i <= DAYSHAPE_PARTS; i++)
		s->live[i] = m->peak && i < (int)m->live_next ? (double)m->live_at[i] / m->peak : 0;
	s->busiest_ms = m->ms_best;
	s->busiest_ms_ns = m->ms_best_at * MS;
	s->mean_ms = (double)m->session / ((double)(m->close_ns - m->open_ns) / MS);
	for (int i = 0; i < DAYSHAPE_PARTS; i++)
		s->rate[i] = m->part[DAYSHAPE_PARTS / 2] ?
			     (double)m->part[i] / m->part[DAYSHAPE_PARTS / 2] : 0;
	s->cancels = m->cancels;
	s->cancel_1ms_pct = pct(m->c_1ms, m->cancels);
	s->cancel_10ms_pct = pct(m->c_10ms, m->cancels);
	s->cancel_1s_pct = pct(m->c_1s, m->cancels);

	/* Orders still live rested from their add to the last message. */
	s->orders = m->orders;
	s->rest_1h = m->rest_1h;
	for (uint64_t r = 1; r <= m->max_ref; r++)
		if (m->born[r] && m->last_ts - (m->born[r] - 1) > HOUR)
			s->rest_1h++;
	s->rest_1h_pct = pct(s->rest_1h, s->orders);
}
