/* SPDX-License-Identifier: MIT */
/*
 * Progress on long work, for a person waiting: on a terminal one line
 * rewritten in place once a second, else a line every PROGRESS_LOG_NS (a
 * log, not a screen).  Cheap to call per item: the clock is read every
 * PROGRESS_EVERY calls only.
 *
 *	struct progress pr;
 *	progress_init(&pr, "t2t-pcap", quiet);
 *	while (...)
 *		progress_step(&pr, msgs, "messages");
 *	progress_done(&pr);
 */
#ifndef UTIL_PROGRESS_H
#define UTIL_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "util/clock.h"

#define PROGRESS_EVERY	65536
#define PROGRESS_TTY_NS	NS_PER_SEC
#define PROGRESS_LOG_NS	(10 * NS_PER_SEC)

struct progress {
	const char *name;
	bool off;
	bool tty;
	bool shown;		/* a line is on the terminal, to end at done */
	uint32_t calls;
	uint64_t t0, next_ns;
};

static inline void progress_init(struct progress *p, const char *name, bool quiet)
{
	p->name = name;
	p->off = quiet;
	p->tty = isatty(STDERR_FILENO);
	p->shown = false;
	p->calls = 0;
	p->t0 = mono_ns();
	p->next_ns = p->t0 + (p->tty ? PROGRESS_TTY_NS : PROGRESS_LOG_NS);
}

/* @done items of @unit so far. */
static inline void progress_step(struct progress *p, uint64_t done, const char *unit)
{
	uint64_t now;
	double s;

	if (p->off || ++p->calls % PROGRESS_EVERY)
		return;
	now = mono_ns();
	if (now < p->next_ns)
		return;
	p->next_ns = now + (p->tty ? PROGRESS_TTY_NS : PROGRESS_LOG_NS);
	s = (double)(now - p->t0) / 1e9;
	fprintf(stderr, "%s%s: %llu %s in %.0f s (%.0f/s)%s", p->tty ? "\r" : "", p->name,
		(unsigned long long)done, unit, s, (double)done / s, p->tty ? "\033[K" : "\n");
	p->shown = p->tty;
}

/* End the terminal's progress line before the summary is printed. */
static inline void progress_done(struct progress *p)
{
	if (p->shown)
		fputc('\n', stderr);
	p->shown = false;
}

#endif /* UTIL_PROGRESS_H */
