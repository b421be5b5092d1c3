/* SPDX-License-Identifier: MIT */
/*
 * Paper orders (docs/paper.md): the orders of a run with no order port.
 *
 * Nothing is sent.  An order is decided and logged as live (orders.h), then
 * waits here for its arrival at the matching engine, T = T0 + latency on
 * the feed's clock (T0: the ITCH timestamp of the message that made it).
 * The fill is decided by the first message of the feed stamped after T,
 * before that message is applied, or by the end of the session: against
 * the book as it stands then, by the book's fill model (book/fill.h), and
 * its result is booked the way a live exchange's replies are.
 *
 * Orders wait in the order they were made.  Their arrival times rise with
 * it (each T0 is the feed's time when the order was made, and the feed's
 * time does not go back), so the first to wait is the first due.
 */
#ifndef GATEWAY_PAPER_H
#define GATEWAY_PAPER_H

#include <stdbool.h>
#include <stdint.h>

struct paper_cfg {
	bool on;
	uint64_t latency_ns;	/* T0 to the matching engine, on the feed's clock */
};

struct paper_stats {
	uint64_t orders;	/* paper orders decided */
	uint64_t filled;	/* ... filled whole */
	uint64_t partial;	/* ... filled in part, the rest canceled */
	uint64_t canceled;	/* ... nothing to take within the limit */
	uint64_t executions;	/* price levels taken from */
	uint64_t shares;	/* shares filled */
	uint64_t at_end;	/* decided at the end of the session */
};

struct gw_paper {
	struct paper_cfg cfg;
	uint32_t *no;		/* order numbers waiting, oldest at head */
	uint64_t *due;		/* their T (the feed's ns since midnight) */
	uint32_t mask;
	uint32_t head, tail;
	struct paper_stats st;
};

/* Room for @cap waiting orders (a power of two).  0, or -ENOMEM. */
int paper_init(struct gw_paper *p, const struct paper_cfg *cfg, uint32_t cap);
void paper_destroy(struct gw_paper *p);

static inline bool paper_waiting(const struct gw_paper *p)
{
	return p->head != p->tail;
}

/* The first waiting order's T, UINT64_MAX when none waits. */
static inline uint64_t paper_next_due(const struct gw_paper *p)
{
	return paper_waiting(p) ? p->due[p->head & p->mask] : UINT64_MAX;
}

/*
 * Order @no, made at the feed's time @t0, waits.  The queue is as large
 * as the order log, whose orders are all it can hold.
 */
static inline void paper_push(struct gw_paper *p, uint32_t no, uint64_t t0)
{
	uint32_t i = p->tail++ & p->mask;

	p->no[i] = no;
	p->due[i] = t0 + p->cfg.latency_ns;
}

/* The first waiting order, taken off: its number, and its T in *due. */
static inline uint32_t paper_pop(struct gw_paper *p, uint64_t *due)
{
	uint32_t i = p->head++ & p->mask;

	*due = p->due[i];
	return p->no[i];
}

#endif /* GATEWAY_PAPER_H */
