/* SPDX-License-Identifier: MIT */
/*
 * The host readiness report: what decides the tail on this host for the
 * hot CPU and the feed interface, read and never changed.  Each finding
 * has a level, a stable key ("cpu.isolated"), what was found and, when it
 * is not ok, what to change and why, in the manner of the report modes of
 * Redpanda's `rpk redpanda tune` and Scylla's perftune.py.
 *
 *	struct hc_cfg cfg = { .cpu = 1, .ifname = "eth0", .window_ns = 1e9, ... };
 *	struct hc_report rep;
 *
 *	if (hc_run(&cfg, &rep) == 0)
 *		hc_print(stdout, "", &rep, HC_OK);
 *
 * Levels: ok; unknown (a file is not there: a container, a VM, an older
 * kernel; never an error); warn (costs the loop microseconds now and then,
 * or only in some runs); bad (takes the hot CPU from the loop often or for
 * long: milliseconds in the tail).
 */
#ifndef HOST_CHECK_H
#define HOST_CHECK_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "host/flows.h"
#include "host/sample.h"

enum hc_level { HC_OK, HC_UNKNOWN, HC_WARN, HC_BAD };
#define HC_LEVELS 4
extern const char *const hc_level_names[HC_LEVELS];	/* "ok", "unknown", ... */

#define HC_TEXT 1024

struct hc_finding {
	enum hc_level level;
	const char *key;	/* stable: scripts and tests look findings up by it */
	char found[HC_TEXT];	/* what was read */
	char fix[HC_TEXT];	/* what to change, and why; "" when nothing */
};

struct hc_cfg {
	const char *root;	/* read ROOT/proc and ROOT/sys; NULL or "": the machine's */
	int cpu;		/* the hot loop's CPU; -1: not pinned */
	const char *ifname;	/* the feed's interface; NULL: none */
	/*
	 * Its queues as the caller counted them (ethtool's channels, right
	 * in any namespace); 0: count /sys/class/net/IF/queues, which under
	 * nsenter shows the namespace the caller came from.
	 */
	unsigned int rx_queues, tx_queues;
	bool xsk;		/* AF_XDP: the path reads the queues it serves only */
	uint64_t serve;		/* those queues (bit q); 0: every one */
	struct hc_flow flows[HC_MAX_FLOWS];	/* what it steers, for the rules */
	unsigned int n_flows;
	bool fifo;		/* the loop runs SCHED_FIFO */
	bool spins;		/* the loop spins (else it sleeps in a receive) */
	int exclude_pid;	/* this process: its own threads are not "others"; 0: none */
	uint64_t window_ns;	/* hc_run's sample; 0: no sample */
	const volatile int *stop;	/* hc_run's window ends early once *stop */
};

#define HC_MAX_FINDINGS 32

struct hc_report {
	struct hc_finding f[HC_MAX_FINDINGS];
	unsigned int n;
	unsigned int count[HC_LEVELS];
	uint64_t window_ns;	/* what the sample covered; 0: none */
};

/* One report in two steps, for a caller (a test) that acts in between. */
struct hc {
	struct hc_cfg cfg;
	struct hc_snap before;
};

/* The first snapshot.  0, or -ENOMEM. */
int hc_begin(struct hc *h, const struct hc_cfg *cfg);
/*
 * The second snapshot, elapsed_ns after the first (0: no sample, the
 * checks of what ran say unknown), and every check.  Frees what hc_begin
 * took.  0, or -ENOMEM.
 */
int hc_end(struct hc *h, uint64_t elapsed_ns, struct hc_report *rep);
/* Both, with cfg->window_ns between them.  0, or -ENOMEM. */
int hc_run(const struct hc_cfg *cfg, struct hc_report *rep);

/* The finding of key, or NULL. */
const struct hc_finding *hc_find(const struct hc_report *rep, const char *key);

/* One line per finding of level min or above, each led by prefix. */
void hc_print(FILE *out, const char *prefix, const struct hc_report *rep, enum hc_level min);
/*
 * One line for a run's start: "N bad, N warn, N ok, N unknown (...); bad:
 * KEY, ...; --check-host for the list".
 */
void hc_print_brief(FILE *out, const char *prefix, const struct hc_report *rep);
/* "N ok, N warn, N bad, N unknown (sample over W ms)". */
void hc_print_counts(FILE *out, const char *prefix, const struct hc_report *rep);

#endif /* HOST_CHECK_H */
