/* SPDX-License-Identifier: MIT */
/*
 * t2t-backtest --itch DAY --symbol ... --paper NS: the day through the
 * gateway's own engine in paper mode (gateway/engine.h, docs/paper.md),
 * one message per MoldUDP64 packet, so that the backtest's orders, sizes
 * and fills are a paper run's, decided by the same code: a paper run
 * trades message by message whatever its packets carry.
 */
#ifndef STRATEGY_BACKTEST_PAPER_H
#define STRATEGY_BACKTEST_PAPER_H

#include "backtest/backtest_itch.h"

#define PAPER_CSV_HEADER "seq,symbol,side,shares,filled,cash\n"

/* Orders to o->out (PAPER_CSV_HEADER), the positions on stderr.  Exit status. */
int backtest_paper(const struct itch_opts *o);

#endif /* STRATEGY_BACKTEST_PAPER_H */
