/* SPDX-License-Identifier: MIT */
/*
 * A day file through the gateway's engine in paper mode (docs/paper.md),
 * each kept message as a MoldUDP64 packet of its own, numbered as a replay
 * numbers it: what t2t-backtest --itch --paper and the API's day through
 * the engine (api/) both run, so that their orders, sizes and fills are a
 * paper run's, decided by the same code.  A paper run trades message by
 * message whatever its packets carry, so one message per packet loses
 * nothing.
 */
#ifndef GATEWAY_PAPER_DAY_H
#define GATEWAY_PAPER_DAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gateway/engine.h"
#include "proto/itch_filter.h"

/* The orders' limit not given: the gateway's default. */
#define PAPER_DAY_LIMIT_GATEWAY	UINT32_MAX

/*
 * The gateway's defaults, trading @spec[0..n) on paper at print + @latency_ns,
 * with the books of every locate (@books_all) or only of the traded ones.
 * The caller may then set the book's size and pages.
 */
void paper_day_config(struct gw_cfg *c, const struct inst_spec *spec, unsigned int n,
		      uint64_t latency_ns, uint32_t limit_bp, bool books_all);

/*
 * Replay @path into @e through @filt; after each message, @after(@ctx)
 * (may be NULL).  At the end, what still waits is decided on the books as
 * they stand.  0, or -1 with the reader's error in @err.
 */
int paper_day_run(struct gw_engine *e, const char *path, struct itch_filter *filt,
		  void (*after)(void *ctx), void *ctx, char *err, size_t errlen);

/*
 * The orders decided since *@next, in the order they were made, each to
 * @fn, up to the first one still waiting (paper orders are decided in
 * order, so every order before it is final), or all of them with @all.
 * Returns false when some fell out of the order log before they were
 * handed out (more waited at once than it holds).
 */
bool paper_day_orders(const struct gw_engine *e, uint32_t *next, bool all,
		      void (*fn)(void *ctx, const struct gw_order *o), void *ctx);

#endif /* GATEWAY_PAPER_DAY_H */
