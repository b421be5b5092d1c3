/* SPDX-License-Identifier: MIT */
/*
 * The host readiness report (host/check.h) for the gateway's options:
 * alone (--check-host), or beside a run, from a thread of its own off the
 * hot CPU while the loop spins, so that the sample shows what takes the
 * CPU from the loop and the start is not held up by the window.
 */
#ifndef GATEWAY_HOST_H
#define GATEWAY_HOST_H

#include <pthread.h>
#include <stdbool.h>

#include "gateway/opts.h"
#include "host/check.h"

/* --check-host's exit status when a finding is bad (0: none is). */
#define GW_HOST_BAD_EXIT 3

/* Every finding on stdout; the exit status. */
int gw_host_check(const struct gw_opts *o);

struct gw_host {
	struct hc_cfg cfg;
	struct hc_report rep;
	pthread_t th;
	bool started;
	bool verbose;		/* every warn and bad finding, not one line */
	char others[64];	/* the CPUs but the hot one, for the advice */
	int said[8];		/* processes already said to share the hot CPU */
	unsigned int n_said;
};

/*
 * Once the window is over (or *stop is set), one line on stderr: the
 * counts and the bad findings' keys; with -v, every warn and bad finding,
 * one line each.  Then, every 2 s until *stop, a process that took the
 * hot CPU from the loop is named in one line with its fix (once each).  A
 * report that cannot start says so; the run goes on.
 */
void gw_host_start(struct gw_host *h, const struct gw_opts *o, const volatile int *stop);
void gw_host_join(struct gw_host *h);

#endif /* GATEWAY_HOST_H */
