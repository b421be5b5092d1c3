/* SPDX-License-Identifier: MIT */
/*
 * Inside the day generator (book/daygen.h is its interface): the state
 * every shape keeps (its own book, the symbols, each level's orders in
 * time priority, the refs of the latest adds), the draws, and the writers
 * of the messages the shapes have in common.  Each shape's engine is its
 * own file (daygen_flat.c, daygen_real.c).
 */
#ifndef BOOK_DAYGEN_INT_H
#define BOOK_DAYGEN_INT_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "book/daygen.h"
#include "util/rng.h"

#define DG_TICK		100		/* $0.01 in Price(4) units */
#define DG_RECENT	4096		/* refs of the latest adds, for X and U */

struct gsym {
	char name[ITCH_SYMBOL_LEN + 1];	/* space-padded, NUL-terminated */
	double log_mid;			/* ln of the mid in Price(4) units */
	double sigma;			/* per price event */
};

/* The uniform shape's own state (daygen_flat.c). */
struct dg_flat {
	uint64_t body_start;		/* first message of the session */
	uint64_t body_end;		/* first message of the close */
	/* Deletes come in order of a due time drawn at the add. */
	uint64_t *heap;			/* due << 32 | ref, a min-heap */
	size_t heap_n;
};

struct dg_real;

struct daygen {
	struct daygen_config cfg;	/* with the shape's defaults filled in */
	struct book book;
	uint64_t rng;
	uint64_t n;			/* messages handed out */
	uint64_t next_ref;
	uint64_t match;
	uint64_t fallbacks;
	uint64_t bytes;
	uint64_t last_ts;
	struct gsym *sym;		/* [locate], 1..symbols */
	uint32_t *sym_cdf;		/* [k]: pick locate k + 1 below this */
	/* Every level's orders, oldest first (price-time priority). */
	uint32_t *qnext, *qprev;	/* [ref] */
	uint32_t *qhead, *qtail;	/* [book level index] */
	uint32_t recent[DG_RECENT];
	uint64_t recent_n;
	double spare;
	bool have_spare;
	struct dg_flat flat;
	struct dg_real *real;
};

static inline uint64_t dg_rnd(struct daygen *g)
{
	return splitmix64(&g->rng);
}

/* Uniform in (0, 1]. */
static inline double dg_unif(struct daygen *g)
{
	return (double)((dg_rnd(g) >> 11) + 1) * 0x1p-53;
}

static inline double dg_normal(struct daygen *g)
{
	double r, a;

	if (g->have_spare) {
		g->have_spare = false;
		return g->spare;
	}
	r = sqrt(-2.0 * log(dg_unif(g)));
	a = 2.0 * M_PI * dg_unif(g);
	g->spare = r * sin(a);
	g->have_spare = true;
	return r * cos(a);
}

/* 0, 1, 2 ... with P(k) = p (1 - p)^k, at most @max. */
static inline uint32_t dg_geometric(struct daygen *g, double p, uint32_t max)
{
	double k = floor(log(dg_unif(g)) / log(1.0 - p));

	return k > max ? max : (uint32_t)k;
}

/* Shares of an order: round lots mostly, an odd lot one time in ten. */
static inline uint32_t dg_lot(struct daygen *g)
{
	if (dg_rnd(g) % 10 == 0)
		return 1 + (uint32_t)(dg_rnd(g) % 99);
	return 100 * (1 + dg_geometric(g, 0.45, 40));
}

static inline void dg_q_push(struct daygen *g, uint32_t lvl, uint32_t ref)
{
	g->qprev[ref] = g->qtail[lvl];
	g->qnext[ref] = 0;
	if (g->qtail[lvl])
		g->qnext[g->qtail[lvl]] = ref;
	else
		g->qhead[lvl] = ref;
	g->qtail[lvl] = ref;
}

static inline void dg_q_unlink(struct daygen *g, uint32_t lvl, uint32_t ref)
{
	if (g->qprev[ref])
		g->qnext[g->qprev[ref]] = g->qnext[ref];
	else
		g->qhead[lvl] = g->qnext[ref];
	if (g->qnext[ref])
		g->qprev[g->qnext[ref]] = g->qprev[ref];
	else
		g->qtail[lvl] = g->qprev[ref];
}

static inline struct itch_msg dg_hdr(char type, uint16_t loc, uint64_t ts)
{
	struct itch_msg m;

	memset(&m, 0, sizeof(m));
	m.type = type;
	m.locate = loc;
	m.timestamp = ts;
	return m;
}

/* The mid of @loc in Price(4) units, on the tick grid. */
static inline uint32_t dg_mid_px(const struct daygen *g, uint16_t loc)
{
	return (uint32_t)(llround(exp(g->sym[loc].log_mid) / DG_TICK) * DG_TICK);
}

/* daygen_msg.c: the writers both shapes use.  Each writes one message into
 * @buf, applies it to the generator's book and returns its length (0: none
 * could be made, e.g. no live order to execute). */
uint16_t dg_apply(struct daygen *g, const uint8_t *buf, uint16_t len);
uint16_t dg_put(struct daygen *g, uint8_t *buf, const struct itch_msg *m);
uint16_t dg_system_event(struct daygen *g, uint8_t *buf, char event, uint64_t ts);
uint16_t dg_directory(struct daygen *g, uint8_t *buf, uint16_t loc, uint64_t ts);
uint16_t dg_trading_action(struct daygen *g, uint8_t *buf, uint16_t loc, uint64_t ts);
uint16_t dg_reg_sho(struct daygen *g, uint8_t *buf, uint16_t loc, uint64_t ts);
uint16_t dg_mwcb_levels(struct daygen *g, uint8_t *buf, uint64_t ts);
/* A partial cancel (X) of a recent order, else of one at a best level. */
uint16_t dg_cancel(struct daygen *g, uint8_t *buf, uint64_t ts);
/* Execute (E, or C at the level's price, one tick off it half the time
 * when @c_off_tick) the oldest order at the best level of @loc, on the side
 * the mid @mid has moved into, else either side; fully or in part. */
uint16_t dg_exec(struct daygen *g, uint8_t *buf, char type, uint64_t ts, uint16_t loc,
		 double mid, bool c_off_tick);
/* A hidden order's match (P) inside the spread of @loc. */
uint16_t dg_trade(struct daygen *g, uint8_t *buf, uint64_t ts, uint16_t loc, double mid);
/* One of I N L H Y O J K h W B on @loc. */
uint16_t dg_admin(struct daygen *g, uint8_t *buf, char type, uint64_t ts, uint16_t loc);
/* A live order of at least @min_shares: a recent one, else the oldest at
 * the best level of some symbol; NULL when none is found. */
const struct book_order *dg_pick_live(struct daygen *g, uint32_t min_shares);
uint16_t dg_pick_symbol(struct daygen *g);
/* One of four MPIDs, for an F. */
const char *dg_mpid(struct daygen *g);
/* One GBM step of the mid of @loc; returns the new mid. */
double dg_step_mid(struct daygen *g, uint16_t loc);

/* daygen_flat.c: check the config, set up (after the common part), make
 * the next message (0 at the end of the day). */
int dg_flat_check(const struct daygen_config *c, char *err, size_t errlen);
int dg_flat_setup(struct daygen *g, char *err, size_t errlen);
uint16_t dg_flat_next(struct daygen *g, uint8_t *buf);
void dg_flat_free(struct daygen *g);

/* daygen_real.c: the same for the real shape, and its defaults (symbols
 * and the book's size from the messages) filled into a config. */
void dg_real_defaults(struct daygen_config *c);
int dg_real_check(const struct daygen_config *c, char *err, size_t errlen);
int dg_real_setup(struct daygen *g, char *err, size_t errlen);
uint16_t dg_real_next(struct daygen *g, uint8_t *buf);
void dg_real_free(struct daygen *g);

#endif /* BOOK_DAYGEN_INT_H */
