// SPDX-License-Identifier: MIT
/* The hot CPU itself: isolation, the tick, RCU, its SMT sibling, its clock, its idle states. */
#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "host/checks.h"

/* An idle state that takes longer than this to leave is a deep one. */
#define DEEP_IDLE_US 10

/* isolcpus=[flag,...,]LIST: the list after the flags (nohz, domain, managed_irq). */
static int isolcpus_list(const char *val, struct hc_cpus *set)
{
	while (isalpha((unsigned char)*val)) {
		val = strchr(val, ',');
		if (!val)
			return -EINVAL;
		val++;
	}
	return hc_cpus_parse_list(val, set);
}

void hc_check_isolated(const struct hc_ctx *c, struct hc_finding *f)
{
	char val[256] = "", list[64];
	struct hc_cpus set = { 0 };
	const char *src;
	int given = 0;

	if (c->cpu < 0) {
		hc_found(f, HC_BAD, "the loop is not pinned (--cpu -1): it may move between CPUs "
			 "and share any of them");
		hc_fix(f, "--cpu N, N an isolated CPU: a loop that moves loses its caches and "
		       "waits behind whatever runs where it lands");
		return;
	}
	if (c->isolated_err && c->cmdline_err) {
		hc_unknown(f, "/sys/devices/system/cpu/isolated and /proc/cmdline",
			   c->isolated_err);
		return;
	}
	if (!c->cmdline_err)
		given = hc_cmdline_param(c->cmdline, "isolcpus", val, sizeof(val));
	/* What the kernel applied; the command line only when it cannot say. */
	if (!c->isolated_err) {
		set = c->isolated;
	} else if (given == 1 && isolcpus_list(val, &set)) {
		hc_found(f, HC_UNKNOWN, "unknown: isolcpus=%s does not parse", val);
		return;
	}
	hc_cpus_format(&set, list, sizeof(list));
	src = c->isolated_err ? "no /sys/devices/system/cpu/isolated" : "isolated: ";
	if (hc_cpus_has(&set, c->cpu)) {
		hc_found(f, HC_OK, "CPU %d is isolated (%s%s%s%s)", c->cpu, src,
			 c->isolated_err ? "" : list, given == 1 ? "; isolcpus=" : "",
			 given == 1 ? val : "");
		return;
	}
	hc_found(f, HC_BAD, "CPU %d is not isolated (%s%s; isolcpus=%s)", c->cpu, src,
		 c->isolated_err ? "" : list, given == 1 ? val : "not given");
	hc_fix(f, "boot with isolcpus=domain,managed_irq,%d nohz_full=%d rcu_nocbs=%d (or make "
	       "it a cpuset partition of type isolated): then the scheduler puts nothing there "
	       "that is not pinned there, and managed IRQs stay off it", c->cpu, c->cpu, c->cpu);
}

void hc_check_nohz_full(const struct hc_ctx *c, struct hc_finding *f)
{
	char val[256], list[64];
	int given = 0;

	if (hc_no_cpu(c, f))
		return;
	if (c->nohz_err && c->cmdline_err) {
		hc_unknown(f, "/sys/devices/system/cpu/nohz_full and /proc/cmdline", c->nohz_err);
		return;
	}
	if (!c->cmdline_err)
		given = hc_cmdline_param(c->cmdline, "nohz_full", val, sizeof(val));
	if (!c->nohz_err) {
		hc_cpus_format(&c->nohz, list, sizeof(list));
		if (hc_cpus_has(&c->nohz, c->cpu)) {
			hc_found(f, HC_OK, "CPU %d is nohz_full (nohz_full: %s)", c->cpu, list);
			return;
		}
		hc_found(f, HC_WARN, "CPU %d is not nohz_full (nohz_full: %s)", c->cpu, list);
	} else if (given == 1) {
		hc_found(f, HC_WARN, "nohz_full=%s is on the command line, but there is no "
			 "/sys/devices/system/cpu/nohz_full: a kernel without NO_HZ_FULL", val);
	} else {
		/* The file exists only in kernels built with NO_HZ_FULL. */
		hc_found(f, HC_WARN, "CPU %d is not nohz_full (no nohz_full= on the command line, "
			 "no /sys/devices/system/cpu/nohz_full)", c->cpu);
	}
	hc_fix(f, "nohz_full=%d (a kernel with NO_HZ_FULL): with one task running there the "
	       "tick stops; otherwise it interrupts the loop HZ times a second, microseconds "
	       "each", c->cpu);
}

static bool in_cmdline_list(const struct hc_ctx *c, const char *param, int *given, char *val,
			    size_t n)
{
	struct hc_cpus set;

	*given = hc_cmdline_param(c->cmdline, param, val, n);
	return *given == 1 && !hc_cpus_parse_list(val, &set) && hc_cpus_has(&set, c->cpu);
}

void hc_check_rcu_nocbs(const struct hc_ctx *c, struct hc_finding *f)
{
	char val[256];
	int given;

	if (hc_no_cpu(c, f))
		return;
	if (c->cmdline_err) {
		hc_unknown(f, "/proc/cmdline", c->cmdline_err);
		return;
	}
	if (in_cmdline_list(c, "rcu_nocbs", &given, val, sizeof(val)) || given == 2) {
		hc_found(f, HC_OK, "CPU %d's RCU callbacks are offloaded (rcu_nocbs%s%s)", c->cpu,
			 given == 1 ? "=" : "", val);
		return;
	}
	/* nohz_full CPUs are offloaded as well (the kernel's rcu_init_nohz()). */
	if ((!c->nohz_err && hc_cpus_has(&c->nohz, c->cpu)) ||
	    in_cmdline_list(c, "nohz_full", &given, val, sizeof(val))) {
		hc_found(f, HC_OK, "CPU %d's RCU callbacks are offloaded (implied by nohz_full)",
			 c->cpu);
		return;
	}
	hc_found(f, HC_WARN, "CPU %d runs its own RCU callbacks (no rcu_nocbs= or nohz_full= "
		 "covers it)", c->cpu);
	hc_fix(f, "rcu_nocbs=%d (nohz_full=%d implies it): the callbacks then run in rcuo "
	       "threads on other CPUs, not in softirq on the loop's", c->cpu, c->cpu);
}

void hc_check_smt(const struct hc_ctx *c, struct hc_finding *f)
{
	char buf[256], list[64];
	bool all_isolated = true;
	struct hc_cpus sib;
	int ret;

	if (hc_no_cpu(c, f))
		return;
	ret = hc_read(c->root, buf, sizeof(buf),
		      "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list", c->cpu);
	if (ret >= 0)
		ret = hc_cpus_parse_list(buf, &sib);
	if (ret < 0) {
		hc_unknown(f, "thread_siblings_list", ret);
		return;
	}
	hc_cpus_clear(&sib, c->cpu);
	if (!hc_cpus_count(&sib)) {
		hc_found(f, HC_OK, "CPU %d has its core to itself (no SMT sibling)", c->cpu);
		return;
	}
	for (int s = 0; s < HC_MAX_CPUS; s++)
		if (hc_cpus_has(&sib, s) && (c->isolated_err || !hc_cpus_has(&c->isolated, s)))
			all_isolated = false;
	hc_cpus_format(&sib, list, sizeof(list));
	if (all_isolated) {
		hc_found(f, HC_OK, "CPU %d shares its core with CPU %s, isolated too (keep it "
			 "idle)", c->cpu, list);
		return;
	}
	hc_found(f, HC_WARN, "CPU %d shares its core with CPU %s, which is not isolated", c->cpu,
		 list);
	hc_fix(f, "isolate CPU %s with it and pin nothing there, or turn SMT off (echo off > "
	       "/sys/devices/system/cpu/smt/control): what runs on the sibling takes the core's "
	       "pipeline and caches from the loop", list);
}

void hc_check_governor(const struct hc_ctx *c, struct hc_finding *f)
{
	char gov[64];
	int ret;

	if (hc_no_cpu(c, f))
		return;
	ret = hc_read(c->root, gov, sizeof(gov),
		      "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor", c->cpu);
	if (ret == -ENOENT) {
		hc_found(f, HC_UNKNOWN, "unknown: no cpufreq for CPU %d (a VM, or no driver: the "
			 "clock is not set from here)", c->cpu);
		return;
	}
	if (ret < 0) {
		hc_unknown(f, "scaling_governor", ret);
		return;
	}
	if (!strcmp(gov, "performance")) {
		hc_found(f, HC_OK, "CPU %d's governor is performance", c->cpu);
		return;
	}
	hc_found(f, HC_WARN, "CPU %d's governor is %s", c->cpu, gov);
	hc_fix(f, "cpupower -c %d frequency-set -g performance: it holds the highest clock; "
	       "%s moves it with the load, and a lower clock or each change shows in the "
	       "loop's times", c->cpu, gov);
}

void hc_check_idle(const struct hc_ctx *c, struct hc_finding *f)
{
	char name[32] = "none", deep[32] = "";
	long lat = 0, deep_lat = -1, deep_n = -1;
	int n;

	if (hc_no_cpu(c, f))
		return;
	for (n = 0;; n++) {
		char sname[32];
		long l, off;

		if (hc_read(c->root, sname, sizeof(sname),
			    "/sys/devices/system/cpu/cpu%d/cpuidle/state%d/name", c->cpu, n) < 0 ||
		    hc_read_long(c->root, &l,
				 "/sys/devices/system/cpu/cpu%d/cpuidle/state%d/latency", c->cpu, n))
			break;
		if (hc_read_long(c->root, &off,
				 "/sys/devices/system/cpu/cpu%d/cpuidle/state%d/disable", c->cpu, n))
			off = 0;
		if (off)
			continue;
		if (l >= lat) {
			lat = l;
			snprintf(name, sizeof(name), "%s", sname);
		}
		if (l > DEEP_IDLE_US && l > deep_lat) {
			deep_lat = l;
			deep_n = n;
			snprintf(deep, sizeof(deep), "%s", sname);
		}
	}
	if (!n) {
		hc_found(f, HC_UNKNOWN, "unknown: no cpuidle states for CPU %d (a VM idles in the "
			 "hypervisor, or no driver)", c->cpu);
		return;
	}
	if (deep_n < 0) {
		hc_found(f, HC_OK, "CPU %d's deepest enabled idle state is %s (%ld us to leave)",
			 c->cpu, name, lat);
		return;
	}
	if (c->cfg->spins) {
		hc_found(f, HC_OK, "CPU %d may idle in %s (%ld us to leave), but the loop spins: "
			 "the CPU does not idle while it runs", c->cpu, deep, deep_lat);
		return;
	}
	hc_found(f, HC_WARN, "CPU %d may idle in %s (%ld us to leave) while the loop sleeps in "
		 "its receive", c->cpu, deep, deep_lat);
	hc_fix(f, "disable the states deeper than %d us (echo 1 > /sys/devices/system/cpu/cpu%d/"
	       "cpuidle/state%ld/disable, and the deeper ones), or --udp-recv spin: each "
	       "wake-up pays the exit latency before the packet is read", DEEP_IDLE_US, c->cpu,
	       deep_n);
}
