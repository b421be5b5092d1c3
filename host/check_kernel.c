// SPDX-License-Identifier: MIT
/* Kernel settings that reach the hot CPU: RT throttling, timers, vmstat, watchdogs, the clock. */
#include <errno.h>
#include <string.h>

#include "host/checks.h"

/* vmstat_update at this interval or longer is rare enough. */
#define QUIET_STAT_INTERVAL 10

void hc_check_rt_throttling(const struct hc_ctx *c, struct hc_finding *f)
{
	long runtime, period = 1000000;
	int ret;

	ret = hc_read_long(c->root, &runtime, "/proc/sys/kernel/sched_rt_runtime_us");
	if (ret) {
		hc_unknown(f, "/proc/sys/kernel/sched_rt_runtime_us", ret);
		return;
	}
	hc_read_long(c->root, &period, "/proc/sys/kernel/sched_rt_period_us");
	if (runtime < 0 || runtime >= period) {
		hc_found(f, HC_OK, "RT throttling off (sched_rt_runtime_us %ld)", runtime);
		return;
	}
	if (!c->cfg->fifo) {
		hc_found(f, HC_OK, "RT throttling on (%ld of every %ld us), but the loop is not "
			 "SCHED_FIFO (--fifo)", runtime, period);
		return;
	}
	hc_found(f, HC_BAD, "RT throttling on: the SCHED_FIFO loop (--fifo) stops for %ld us "
		 "of every %ld", period - runtime, period);
	hc_fix(f, "sysctl kernel.sched_rt_runtime_us=-1, on an isolated CPU only (nothing else "
	       "then runs there), or drop --fifo: a throttled loop reads nothing for %ld ms",
	       (period - runtime) / 1000);
}

void hc_check_timer_migration(const struct hc_ctx *c, struct hc_finding *f)
{
	long v;
	int ret;

	ret = hc_read_long(c->root, &v, "/proc/sys/kernel/timer_migration");
	if (ret) {
		hc_unknown(f, "/proc/sys/kernel/timer_migration", ret);
		return;
	}
	if (!v) {
		hc_found(f, HC_OK, "timer_migration 0: timers expire on the CPU that armed them");
		return;
	}
	hc_found(f, HC_WARN, "timer_migration %ld: timers of idle CPUs may expire on a busy one, "
		 "such as the loop's", v);
	hc_fix(f, "sysctl kernel.timer_migration=0 (isolated and nohz_full CPUs are kept out of "
	       "it anyway): each timer that expires there runs before the loop");
}

void hc_check_stat_interval(const struct hc_ctx *c, struct hc_finding *f)
{
	long v;
	int ret;

	ret = hc_read_long(c->root, &v, "/proc/sys/vm/stat_interval");
	if (ret) {
		hc_unknown(f, "/proc/sys/vm/stat_interval", ret);
		return;
	}
	if (v >= QUIET_STAT_INTERVAL) {
		hc_found(f, HC_OK, "stat_interval %ld s", v);
		return;
	}
	hc_found(f, HC_WARN, "stat_interval %ld s: vmstat_update, a kworker, runs on every busy "
		 "CPU that often", v);
	hc_fix(f, "sysctl vm.stat_interval=%d (nohz_full quiets it on the loop's CPU too): "
	       "each run takes the CPU from the loop", QUIET_STAT_INTERVAL);
}

void hc_check_watchdog(const struct hc_ctx *c, struct hc_finding *f)
{
	long nmi = 0, soft = 0, thresh = 10;
	char mask[256] = "";
	struct hc_cpus set;
	bool here;
	int ret;

	ret = hc_read_long(c->root, &soft, "/proc/sys/kernel/watchdog");
	if (ret) {
		hc_unknown(f, "/proc/sys/kernel/watchdog", ret);
		return;
	}
	hc_read_long(c->root, &nmi, "/proc/sys/kernel/nmi_watchdog");
	hc_read_long(c->root, &thresh, "/proc/sys/kernel/watchdog_thresh");
	/* The watchdogs run on the CPUs of watchdog_cpumask only (all when it is not there). */
	here = true;
	if (hc_read(c->root, mask, sizeof(mask), "/proc/sys/kernel/watchdog_cpumask") >= 0 &&
	    !hc_cpus_parse_list(mask, &set) && c->cpu >= 0)
		here = hc_cpus_has(&set, c->cpu);
	if (!soft || !here) {
		hc_found(f, HC_OK, "%s (watchdog %ld, nmi_watchdog %ld, watchdog_cpumask %s)",
			 soft ? "the watchdogs stay off the loop's CPU" : "watchdogs off", soft, nmi,
			 mask[0] ? mask : "?");
		return;
	}
	/* the soft lockup detector's hrtimer fires every 2 * thresh / 5 seconds */
	hc_found(f, HC_WARN, "the lockup watchdog runs on CPU %d: its timer every %ld s%s "
		 "(watchdog_cpumask %s)", c->cpu, 2 * thresh / 5 ? 2 * thresh / 5 : 1,
		 nmi ? ", and the NMI watchdog" : "", mask[0] ? mask : "?");
	hc_fix(f, "sysctl kernel.watchdog_cpumask=%s (nohz_full=%d takes it out too)%s: each "
	       "check interrupts the loop", c->others, c->cpu,
	       nmi ? ", kernel.nmi_watchdog=0" : "");
}

/* Clock sources that clock_gettime() reads in the vDSO, without a system call. */
static const char *const vdso_clocks[] = {
	"tsc", "kvm-clock", "arch_sys_counter", "hyperv_clocksource_tsc_page", "xen", NULL,
};

void hc_check_clocksource(const struct hc_ctx *c, struct hc_finding *f)
{
	char src[64];
	int ret;

	ret = hc_read(c->root, src, sizeof(src),
		      "/sys/devices/system/clocksource/clocksource0/current_clocksource");
	if (ret < 0) {
		hc_unknown(f, "current_clocksource", ret);
		return;
	}
	for (int i = 0; vdso_clocks[i]; i++)
		if (!strcmp(src, vdso_clocks[i])) {
			hc_found(f, HC_OK, "clock source %s: clock_gettime() stays in the vDSO", src);
			return;
		}
	hc_found(f, !strcmp(src, "hpet") || !strcmp(src, "acpi_pm") ? HC_BAD : HC_WARN,
		 "clock source %s: clock_gettime() may be a system call", src);
	hc_fix(f, "clocksource=tsc on the command line where the TSC is stable (see "
	       "available_clocksource): the loop reads the clock for every packet and order");
}
