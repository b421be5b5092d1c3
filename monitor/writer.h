/* SPDX-License-Identifier: MIT */
/*
 * Writing the monitor segment (layout.h).
 *
 * mon_create() allocates: the file, its size, the mapping, every page
 * touched (so nothing faults later); it is published under its name only
 * once complete (a rename), so a reader never sees half a header.  After
 * that the publish calls below are inline, take no lock, make no syscall,
 * allocate nothing, and store each value once (seqlock.h).
 *
 * Threads: each block has one writer.  The counters, the symbols, the
 * stages and the events may be written by one thread (the gateway's hot
 * loop) while another calls mon_tick() (its main thread, once a second):
 * mon_tick() only reads the stages, as a reader does, and writes the
 * window ring and the heartbeat, which nothing else writes.
 */
#ifndef MONITOR_WRITER_H
#define MONITOR_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "monitor/layout.h"
#include "monitor/seqlock.h"

/* One counter of the table, as the gateway's report names it. */
struct mon_counter_def {
	const char *group;	/* "feed" */
	const char *name;	/* "ticks": the segment holds "feed.ticks" */
	uint8_t kind;		/* enum mon_kind */
	uint8_t unit;		/* enum mon_unit */
};

struct mon_cfg {
	const char *name;	/* the segment is /dev/shm/t2t-<name> */
	const char *writer;	/* program name readers show */
	const struct mon_counter_def *counters;
	unsigned int n_counters;	/* <= MON_MAX_COUNTERS */
	const char *const *symbols;	/* 1..8 characters each */
	unsigned int n_symbols;		/* <= MON_MAX_SYMBOLS */
};

/* One instrument's values, as published and as read back. */
struct mon_sym {
	int64_t position, cash, pnl, target;
	uint32_t bid, ask, last_price, last_size;
	int32_t strat_pos;
	uint64_t ticks, orders, fills, cancels, rejects;
	uint64_t t_ns;		/* set by the reader: when it was published */
};

struct mon_writer {
	struct mon_segment *seg;
	int fd;
	char path[sizeof(MON_DIR) + sizeof(MON_PREFIX) + MON_NAME_MAX];
};

/* A valid segment name: 1..MON_NAME_MAX-1 of [A-Za-z0-9_.-], not "." or "..". */
int mon_name_ok(const char *name);
/* /dev/shm/t2t-<name> into buf; -ENAMETOOLONG or -EINVAL for a bad name. */
int mon_path(const char *name, char *buf, size_t len);

/*
 * Make the segment and publish it under its name, replacing one left by a
 * writer that is gone.  0, or -errno with the reason in err: -EBUSY when a
 * live writer holds the name, -EINVAL for a bad name or table.
 */
int mon_create(struct mon_writer *w, const struct mon_cfg *cfg, char *err,
	       size_t errlen);

/*
 * Mark the segment closed, unmap it and remove its name (unless another
 * writer has taken the name since).  Readers that have it mapped keep the
 * last values.
 */
void mon_destroy(struct mon_writer *w);

/* Every counter, values in the order of the table given to mon_create(). */
static inline void mon_publish_counters(struct mon_writer *w, const uint64_t *v,
					unsigned int n, uint64_t now)
{
	struct mon_counters *c = &w->seg->counters;

	if (n > MON_MAX_COUNTERS)
		n = MON_MAX_COUNTERS;
	seq_write_begin(&c->seq);
	mon_st(&c->t_ns, now);
	for (unsigned int i = 0; i < n; i++)
		mon_st(&c->v[i], v[i]);
	seq_write_end(&c->seq);
}

/* Instrument k's values (k < the number of symbols given to mon_create()). */
static inline void mon_publish_symbol(struct mon_writer *w, unsigned int k,
				      const struct mon_sym *s, uint64_t now)
{
	struct mon_symbol *b = &w->seg->sym[k & (MON_MAX_SYMBOLS - 1)];

	seq_write_begin(&b->seq);
	mon_st(&b->t_ns, now);
	mon_st(&b->strat_pos, s->strat_pos);
	mon_st(&b->position, s->position);
	mon_st(&b->cash, s->cash);
	mon_st(&b->pnl, s->pnl);
	mon_st(&b->target, s->target);
	mon_st(&b->bid, s->bid);
	mon_st(&b->ask, s->ask);
	mon_st(&b->last_price, s->last_price);
	mon_st(&b->last_size, s->last_size);
	mon_st(&b->ticks, s->ticks);
	mon_st(&b->orders, s->orders);
	mon_st(&b->fills, s->fills);
	mon_st(&b->cancels, s->cancels);
	mon_st(&b->rejects, s->rejects);
	seq_write_end(&b->seq);
}

/*
 * hdr_record() (latency/hdr.h) with each field stored once: the same
 * buckets, clamping and exact min/max/sum, in shared memory.
 */
static inline void mon_hist_record(struct hdr_hist *h, int64_t v)
{
	uint64_t *cnt;

	if (__builtin_expect(v < 0, 0)) {
		mon_st(&h->under, mon_own(&h->under) + 1);
		v = 0;
	} else if (__builtin_expect(v > HDR_MAX_VALUE, 0)) {
		mon_st(&h->over, mon_own(&h->over) + 1);
		v = HDR_MAX_VALUE;
	}
	cnt = &h->counts[hdr_index(v)];
	mon_st(cnt, mon_own(cnt) + 1);
	mon_st(&h->total, mon_own(&h->total) + 1);
	mon_st(&h->sum, mon_own(&h->sum) + (uint64_t)v);
	if (v < mon_own(&h->min))
		mon_st(&h->min, v);
	if (v > mon_own(&h->max))
		mon_st(&h->max, v);
}

/* One value (ns) of one stage (enum order_stage). */
static inline void mon_record_stage(struct mon_writer *w, unsigned int stage,
				    int64_t ns)
{
	struct mon_stage *s = &w->seg->stage[stage < MON_STAGES ? stage : 0];

	seq_write_begin(&s->seq);
	mon_hist_record(&s->h, ns);
	seq_write_end(&s->seq);
}

/*
 * Every stage one order has (order_stages(), latency/order_rec.h): the
 * same rule as the gateway's report and the capture log.  Returns the
 * stage mask.
 */
unsigned int mon_record_order(struct mon_writer *w, const struct order_times *t,
			      uint8_t outcome, uint8_t flags);

/* An order event: sent (limit), filled (fill price), canceled, rejected. */
static inline void mon_record_event(struct mon_writer *w, enum mon_event_kind kind,
				    unsigned int sym, char side, uint32_t shares,
				    uint32_t price, uint32_t order_no, uint64_t now)
{
	struct mon_events *e = &w->seg->events;
	uint64_t n = mon_own(&e->head);
	struct mon_event *ev = &e->ev[n & (MON_EVENTS - 1)];

	mon_st(&ev->t_ns, now);
	mon_st(&ev->order_no, order_no);
	mon_st(&ev->price, price);
	mon_st(&ev->shares, shares);
	mon_st(&ev->kind, (uint8_t)kind);
	mon_st(&ev->sym, (uint8_t)sym);
	mon_st(&ev->side, side);
	mon_st(&e->head, n + 1);
}

/*
 * About once a second, from one thread (it may be another than the one
 * recording stages): copy every stage's histogram into the window ring and
 * beat the heartbeat.  Copies the buckets in use (a few KiB each): keep it
 * off the hot loop.
 */
void mon_tick(struct mon_writer *w, uint64_t now);

#endif /* MONITOR_WRITER_H */
