/* SPDX-License-Identifier: MIT */
/*
 * What a run leaves behind: the readable summary, the JSON summary (keys in
 * netns/exsim/README.md), the tick record and the order log.  All written
 * after the run, from the preallocated logs, never on the send path.
 */
#ifndef NETNS_EXSIM_REPORT_H
#define NETNS_EXSIM_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "latency/hdr.h"
#include "netns/exsim/exsim.h"
#include "netns/exsim/feed.h"
#include "netns/exsim/fill.h"
#include "netns/exsim/hostile.h"
#include "netns/exsim/replay.h"
#include "netns/exsim/rereq.h"
#include "netns/exsim/sink.h"

struct exsim_run {
	const struct exsim_cfg *cfg;
	struct bookfill *bf;	/* the book of what was published, or NULL */
	struct replay *replay;	/* --replay, or NULL */
	struct feed *feed;
	struct sink *sink;
	struct fill_book *book;
	struct rereq *rereq;
	struct hostile *hostile;
	struct attack *attack;
	struct hdr_hist lag;	/* per tick: actual - intended send time */
	uint64_t total;		/* units planned (0: unknown, a replay) */
	uint64_t t_start;	/* first packet */
	uint64_t t_first;	/* first unit sent on the schedule */
	uint64_t t_last;	/* last one */
	uint64_t t_end;		/* after the grace period */
	bool interrupted;	/* SIGINT/SIGTERM */
};

void report_text(const struct exsim_run *r, FILE *out);

/* Each returns 0, or -1 after printing why to stderr. */
int report_json(const struct exsim_run *r, const char *path);
int report_record(const struct exsim_run *r, const char *path);
int report_orders(const struct exsim_run *r, const char *path);

#endif /* NETNS_EXSIM_REPORT_H */
