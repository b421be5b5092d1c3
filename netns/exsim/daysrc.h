/* SPDX-License-Identifier: MIT */
/*
 * The live feed's default source: a synthetic day from the generator
 * (book/daygen.h), published as it is made, one message per unit.
 *
 * The day comes in three parts, as the GBM session does (README, "The
 * session"): the opening (S O, S S, the directory, trading actions, Reg
 * SHO, MWCB levels, S Q) published at once; the body (the opening crosses,
 * the trading, the closing crosses) paced at --rate messages per second
 * (in --burst groups); the close (S M, S E, S C) after --linger.  The
 * messages are the generator's, with its Order Reference Numbers, but the
 * feed stamps their timestamps with the send time (CLOCK_MONOTONIC), as
 * for every live source.  A body cut short (a signal, or --duration at
 * --rate 0) closes with S M, S E, S C alone.
 */
#ifndef NETNS_EXSIM_DAYSRC_H
#define NETNS_EXSIM_DAYSRC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "book/daygen.h"
#include "netns/exsim/exsim.h"
#include "netns/exsim/unit.h"

enum daysrc_part { DAY_OPENING, DAY_BODY, DAY_CLOSE, DAY_OVER };

struct daysrc {
	struct daygen *g;
	enum daysrc_part part;
	bool part_over;		/* the part's last message went out */
	bool cut;		/* the body stopped early: a close of our own */
	unsigned int cut_sent;	/* of S M, S E, S C */
	double period_ns;	/* 0: unpaced */
	uint32_t burst;
	uint64_t body;		/* body messages handed out */
	uint8_t held[DAYGEN_MSG_MAX];	/* the S M that ends the body */
	uint16_t held_len;
};

/* A day of @messages messages.  0, or -1 with the reason in @err. */
int daysrc_open(struct daysrc *d, const struct exsim_cfg *c, uint64_t messages,
		char *err, size_t errlen);
void daysrc_close(struct daysrc *d);

/* The feed's source (unit.h): 0 at the end of each part. */
int daysrc_next(void *src, struct feed_unit *u);

/* Go on with the next part. */
void daysrc_next_part(struct daysrc *d);

/* The body stops here: the close is S M, S E, S C alone. */
void daysrc_cut(struct daysrc *d);

#endif /* NETNS_EXSIM_DAYSRC_H */
