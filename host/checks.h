/* SPDX-License-Identifier: MIT */
/*
 * Inside the report: what every check is given, the helpers that word a
 * finding, and the checks, one function each (the table is in check.c).
 */
#ifndef HOST_CHECKS_H
#define HOST_CHECKS_H

#include "host/check.h"
#include "host/cpulist.h"
#include "host/read.h"
#include "host/sample.h"

struct hc_ctx {
	const struct hc_cfg *cfg;
	const char *root;
	int cpu;			/* -1: not pinned */
	char cmdline[4096];
	int cmdline_err;		/* reading /proc/cmdline: 0 or -errno */
	struct hc_cpus online;
	int online_err;
	char others[64];		/* the online CPUs but the hot one, as a list */
	struct hc_cpus isolated;	/* /sys/devices/system/cpu/isolated */
	int isolated_err;
	struct hc_cpus nohz;		/* /sys/devices/system/cpu/nohz_full */
	int nohz_err;
	const struct hc_snap *snap;	/* the last snapshot */
	const struct hc_delta *delta;	/* NULL: no sample */
	uint64_t elapsed_ns;
};

typedef void hc_check_fn(const struct hc_ctx *c, struct hc_finding *f);

/* Wording. */
void hc_found(struct hc_finding *f, enum hc_level level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void hc_fix(struct hc_finding *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "unknown: WHAT: strerror(-err)". */
void hc_unknown(struct hc_finding *f, const char *what, int err);
/* Append to a NUL-ended buffer, cutting at its end. */
void hc_cat(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Per-CPU checks with --cpu -1: one way of saying so.  true when it said it. */
bool hc_no_cpu(const struct hc_ctx *c, struct hc_finding *f);
/* Checks of what ran in the window without one.  true when it said so. */
bool hc_no_sample(const struct hc_ctx *c, struct hc_finding *f);
/* Per second over the window. */
double hc_rate(const struct hc_ctx *c, uint64_t n);

/* check_cpu.c: the hot CPU itself. */
hc_check_fn hc_check_isolated, hc_check_nohz_full, hc_check_rcu_nocbs, hc_check_smt,
	hc_check_governor, hc_check_idle;
/* check_load.c: what ran on it in the window. */
hc_check_fn hc_check_kthreads, hc_check_tasks, hc_check_irqs, hc_check_ipis,
	hc_check_softirqs;
/* check_net.c: the feed interface. */
hc_check_fn hc_check_net_irqs, hc_check_net_queues, hc_check_net_flows, hc_check_rp_filter,
	hc_check_irqbalance;
/* check_mem.c */
hc_check_fn hc_check_thp, hc_check_hugepages;
/* check_kernel.c: sysctls and the clock. */
hc_check_fn hc_check_rt_throttling, hc_check_timer_migration, hc_check_stat_interval,
	hc_check_watchdog, hc_check_clocksource;

#endif /* HOST_CHECKS_H */
