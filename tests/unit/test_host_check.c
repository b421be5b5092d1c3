// SPDX-License-Identifier: MIT
/*
 * The host readiness report (host/check.h) against made-up /proc and /sys
 * trees in a temporary directory: an isolated nohz_full core where every
 * finding is ok; a host like the project's VM (no isolation, kdamond and a
 * kworker on the hot CPU, a feed IRQ firing there, THP madvise, no
 * hugepages, powersave, RT throttling under --fifo); a tree with nothing
 * in it, one with /proc only, no window, no pinned CPU; the queues, RPS,
 * irqbalance, THP always, IRQs named after the interface; CPU lists and
 * the command line; and this machine's own tree.  Each finding is looked
 * up by its key and its level and words checked.  Between the two
 * snapshots the test plays the window: it moves the counters itself.
 */
#include <errno.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "host/check.h"
#include "host/cpulist.h"
#include "host/read.h"

#define MS 1000000ull
#define SELF 4242	/* the gateway's own process in the trees */

static char root[128];

static void mkdirs(const char *path)
{
	char buf[512];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(buf, 0755);
			*p = '/';
		}
	mkdir(buf, 0755);
}

/* ROOT/path holds what fmt makes, its folders made first. */
static void put(const char *path, const char *fmt, ...)
{
	char full[512], dir[512];
	va_list ap;
	FILE *f;

	snprintf(full, sizeof(full), "%s%s", root, path);
	snprintf(dir, sizeof(dir), "%s", full);
	*strrchr(dir, '/') = '\0';
	mkdirs(dir);
	f = fopen(full, "w");
	assert_non_null(f);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fclose(f);
}

/* path is a symbolic link to target, as sysfs has them (made again: the same). */
static void link_to(const char *target, const char *path)
{
	unlink(path);
	assert_int_equal(symlink(target, path), 0);
}

/* A thread as /proc shows it: stat (flags, processor), schedstat, status. */
static void task(int pid, int tid, const char *comm, bool kthread, int cpu, uint64_t run_ns,
		 uint64_t runs, const char *allowed)
{
	char path[128];

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", pid, tid);
	put(path, "%d (%s) S 2 0 0 0 -1 %u 0 0 0 0 %llu %llu 0 0 20 0 1 0 100 0 0 "
	    "18446744073709551615 0 0 0 0 0 0 0 2147483647 0 0 0 0 17 %d 0 0 0 0 0\n", tid,
	    comm, kthread ? 0x00208040u : 0x00400100u, (unsigned long long)(run_ns / 10000000),
	    0ull, cpu);
	snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat", pid, tid);
	put(path, "%llu 0 %llu\n", (unsigned long long)run_ns, (unsigned long long)runs);
	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", pid, tid);
	put(path, "Name:\t%s\nCpus_allowed_list:\t%s\n", comm, allowed);
}

static void interrupts(unsigned int loc, unsigned int disk, unsigned int feed)
{
	put("/proc/interrupts",
	    "           CPU0       CPU1       \n"
	    " 36:          0      %u  PCI-MSIX-0000:00:02.0   1-edge      virtio1-req.0\n"
	    " 37:          0          0  PCI-MSIX-0000:00:03.0   0-edge      virtio2-config\n"
	    " 38:        100      %u  PCI-MSIX-0000:00:03.0   1-edge      virtio2-input.0\n"
	    " 39:        200          0  PCI-MSIX-0000:00:03.0   2-edge      virtio2-output.0\n"
	    "NMI:          0          0   Non-maskable interrupts\n"
	    "LOC:      40217      %u   Local timer interrupts\n"
	    "ERR:          0\n", disk, feed, loc);
}

static void softirqs(unsigned int timer, unsigned int rcu)
{
	put("/proc/softirqs",
	    "                    CPU0       CPU1       \n"
	    "          HI:          0          0\n"
	    "       TIMER:       8132      %u\n"
	    "         RCU:      21414      %u\n", timer, rcu);
}

/* What both trees share: two CPUs, the feed's NIC (virtio: its IRQs are its PCI parent's). */
static void common_tree(void)
{
	char path[512];

	put("/sys/devices/system/cpu/online", "0-1\n");
	put("/sys/devices/system/cpu/cpu1/topology/thread_siblings_list", "1\n");
	put("/sys/devices/system/clocksource/clocksource0/current_clocksource", "tsc\n");
	put("/proc/sys/net/ipv4/conf/all/rp_filter", "0\n");
	put("/proc/sys/net/ipv4/conf/eth0/rp_filter", "0\n");
	put("/sys/devices/pci0000:00/0000:00:03.0/msi_irqs/37", "msix\n");
	put("/sys/devices/pci0000:00/0000:00:03.0/msi_irqs/38", "msix\n");
	put("/sys/devices/pci0000:00/0000:00:03.0/msi_irqs/39", "msix\n");
	put("/sys/devices/pci0000:00/0000:00:03.0/virtio2/net/eth0/queues/rx-0/rps_cpus", "0\n");
	put("/sys/devices/pci0000:00/0000:00:03.0/virtio2/net/eth0/queues/tx-0/xps_cpus", "0\n");
	snprintf(path, sizeof(path), "%s/sys/class/net", root);
	mkdirs(path);
	snprintf(path, sizeof(path), "%s/sys/class/net/eth0", root);
	link_to("../../devices/pci0000:00/0000:00:03.0/virtio2/net/eth0", path);
	snprintf(path, sizeof(path), "%s/sys/devices/pci0000:00/0000:00:03.0/virtio2/net/eth0/device",
		 root);
	link_to("../../../virtio2", path);
	put("/sys/kernel/mm/transparent_hugepage/enabled", "always [madvise] never\n");
	put("/sys/kernel/mm/transparent_hugepage/defrag",
	    "always defer defer+madvise [madvise] never\n");
	put("/proc/sys/kernel/sched_rt_period_us", "1000000\n");
	put("/proc/sys/kernel/watchdog_thresh", "10\n");
	put("/proc/sys/kernel/nmi_watchdog", "0\n");
	put("/proc/sys/kernel/watchdog", "1\n");
	/* the gateway itself on CPU 1: never counted as what preempts it */
	task(SELF, SELF, "t2t-gateway", false, 0, 1000 * MS, 10, "0-1");
	task(SELF, SELF + 1, "t2t-gateway", false, 1, 5000 * MS, 10, "1");
	task(1, 1, "init", false, 0, 50 * MS, 100, "0-1");
}

static void idle_states(const char *deep, int latency)
{
	put("/sys/devices/system/cpu/cpu1/cpuidle/state0/name", "POLL\n");
	put("/sys/devices/system/cpu/cpu1/cpuidle/state0/latency", "0\n");
	put("/sys/devices/system/cpu/cpu1/cpuidle/state0/disable", "0\n");
	put("/sys/devices/system/cpu/cpu1/cpuidle/state1/name", "%s\n", deep);
	put("/sys/devices/system/cpu/cpu1/cpuidle/state1/latency", "%d\n", latency);
	put("/sys/devices/system/cpu/cpu1/cpuidle/state1/disable", "0\n");
}

static void isolated_tree(void)
{
	common_tree();
	put("/proc/cmdline", "BOOT_IMAGE=/vmlinuz isolcpus=domain,managed_irq,1 nohz_full=1 "
	    "quiet\n");
	put("/sys/devices/system/cpu/isolated", "1\n");
	put("/sys/devices/system/cpu/nohz_full", "1\n");
	put("/sys/devices/system/cpu/cpu1/cpufreq/scaling_governor", "performance\n");
	idle_states("C1", 1);
	put("/proc/irq/37/smp_affinity_list", "0\n");
	put("/proc/irq/38/smp_affinity_list", "0\n");
	put("/proc/irq/39/smp_affinity_list", "0\n");
	put("/proc/meminfo", "MemTotal: 2000000 kB\nHugePages_Total:     512\nHugePages_Free:      "
	    "500\nHugepagesize:       2048 kB\n");
	put("/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages", "512\n");
	put("/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages", "500\n");
	put("/proc/sys/kernel/sched_rt_runtime_us", "-1\n");
	put("/proc/sys/kernel/timer_migration", "0\n");
	put("/proc/sys/vm/stat_interval", "10\n");
	put("/proc/sys/kernel/watchdog_cpumask", "0\n");
	/* per-CPU threads of CPU 1 that stay asleep, and the housekeeping CPU's */
	task(22, 22, "ksoftirqd/1", true, 1, 3 * MS, 65, "1");
	task(79, 79, "kdamond.0", true, 0, 900 * MS, 500, "0");
	interrupts(100, 47000, 0);
	softirqs(10, 20);
}

/* Like the project's VM: nothing isolated, DAMON on, THP madvise, no hugepages. */
static void vm_tree(void)
{
	common_tree();
	put("/proc/cmdline", "console=ttyS0 quiet reboot=k panic=1 -- --init-arg nohz_full=1\n");
	put("/sys/devices/system/cpu/isolated", "\n");
	put("/sys/devices/system/cpu/cpu1/cpufreq/scaling_governor", "powersave\n");
	idle_states("C6", 133);
	put("/proc/irq/37/smp_affinity_list", "0-1\n");
	put("/proc/irq/38/smp_affinity_list", "0-1\n");
	put("/proc/irq/39/smp_affinity_list", "0\n");
	put("/proc/meminfo", "MemTotal: 2000000 kB\nHugePages_Total:       0\nHugePages_Free:        "
	    "0\nHugepagesize:       2048 kB\n");
	put("/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages", "0\n");
	put("/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages", "0\n");
	put("/proc/sys/kernel/sched_rt_runtime_us", "950000\n");
	put("/proc/sys/kernel/timer_migration", "1\n");
	put("/proc/sys/vm/stat_interval", "1\n");
	put("/proc/sys/kernel/watchdog_cpumask", "0-1\n");
	task(79, 79, "kdamond.0", true, 1, 900 * MS, 500, "0-1");
	task(5140, 5140, "kworker/1:2-events", true, 1, 4 * MS, 58, "1");
	task(22, 22, "ksoftirqd/1", true, 1, 3 * MS, 65, "1");
	task(700, 700, "sshd", false, 1, 20 * MS, 30, "0-1");
	task(701, 701, "bash", false, 0, 20 * MS, 30, "0-1");
	interrupts(40000, 47000, 10);
	softirqs(10000, 20000);
}

/* One second of the VM: DAMON for 25 ms, a kworker, a feed IRQ on the hot CPU. */
static void vm_window(void)
{
	task(79, 79, "kdamond.0", true, 1, 925 * MS, 516, "0-1");
	task(5140, 5140, "kworker/1:2-events", true, 1, 4 * MS + 300000, 64, "1");
	task(700, 700, "sshd", false, 1, 20 * MS + 200000, 34, "0-1");
	task(701, 701, "bash", false, 0, 60 * MS, 40, "0-1");	/* on CPU 0: not counted */
	task(SELF, SELF + 1, "t2t-gateway", false, 1, 6000 * MS, 11, "1");
	interrupts(40250, 47120, 13);
	softirqs(10250, 20240);
}

/* DAMON twice in a second, 1.5 ms each, nothing else. */
static void vm_window_short_runs(void)
{
	task(79, 79, "kdamond.0", true, 1, 903 * MS, 502, "0-1");
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/t2t-hostcheck.XXXXXX");
	return mkdtemp(root) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static struct hc_cfg cfg_for(int cpu)
{
	struct hc_cfg c = {
		.root = root, .cpu = cpu, .ifname = "eth0", .xsk = true, .serve = 0,
		.spins = true, .exclude_pid = SELF, .window_ns = 0,
		.flows = {
			{ .kind = HC_FLOW_FEED, .ifname = "eth0", .daddr = 0xEF010101,
			  .dport = 26400 },
			{ .kind = HC_FLOW_RETRANS, .ifname = "eth0", .saddr = 0x0AC90001,
			  .daddr = 0x0AC90002, .dport = 26404 },
			{ .kind = HC_FLOW_ORDERS, .ifname = "eth0", .saddr = 0x0AC90001,
			  .sport = 26401, .daddr = 0x0AC90002, .dport = 26402,
			  .dport_last = 26465 },
		},
		.n_flows = 3,
	};

	return c;
}

/* Key's finding has the level, and text (if any) in what it found or its fix. */
static void expect(const struct hc_report *rep, const char *key, enum hc_level level,
		   const char *text)
{
	const struct hc_finding *f = hc_find(rep, key);

	if (!f)
		fail_msg("no finding %s", key);
	if (f->level != level || (text && !strstr(f->found, text) && !strstr(f->fix, text)))
		fail_msg("%s: %s '%s' -> '%s'; wanted %s with '%s'", key, hc_level_names[f->level],
			 f->found, f->fix, hc_level_names[level], text ? text : "");
}

/* Begin, the window played by window() (or none), end over one second. */
static void report(const struct hc_cfg *cfg, void (*window)(void), struct hc_report *rep)
{
	struct hc h;

	assert_int_equal(hc_begin(&h, cfg), 0);
	if (window)
		window();
	assert_int_equal(hc_end(&h, 1000 * MS, rep), 0);
}

static void isolated_window(void)
{
	task(79, 79, "kdamond.0", true, 0, 925 * MS, 516, "0");	/* on CPU 0: fine */
	task(SELF, SELF + 1, "t2t-gateway", false, 1, 6000 * MS, 11, "1");
	interrupts(101, 47000, 0);	/* one tick a second: nohz_full */
	softirqs(10, 20);
}

static void test_isolated_core_all_ok(void **state)
{
	struct hc_cfg cfg = cfg_for(1);
	struct hc_report rep;

	(void)state;
	isolated_tree();
	report(&cfg, isolated_window, &rep);
	for (unsigned int i = 0; i < rep.n; i++)
		expect(&rep, rep.f[i].key, HC_OK, NULL);
	expect(&rep, "cpu.isolated", HC_OK, "CPU 1 is isolated");
	expect(&rep, "cpu.nohz_full", HC_OK, "nohz_full: 1");
	expect(&rep, "cpu.rcu_nocbs", HC_OK, "implied by nohz_full");
	expect(&rep, "cpu.kthreads", HC_OK, "no kernel threads ran on CPU 1");
	expect(&rep, "cpu.tasks", HC_OK, "no threads of other processes");
	expect(&rep, "cpu.ipis", HC_OK, "LOC 1 (1/s)");
	expect(&rep, "net.irqs", HC_OK, "38 virtio2-input.0 on 0");
	expect(&rep, "mem.hugepages", HC_OK, "512 hugepages of 2048 kB reserved, 500 free");
	expect(&rep, "mem.thp", HC_OK, "enabled madvise, defrag madvise");
	assert_int_equal(rep.count[HC_OK], rep.n);
	assert_int_equal(rep.count[HC_BAD], 0);
	assert_int_equal(rep.window_ns, 1000 * MS);
}

static void test_host_like_the_vm(void **state)
{
	struct hc_cfg cfg = cfg_for(1);
	struct hc_report rep;

	(void)state;
	vm_tree();
	cfg.fifo = true;
	report(&cfg, vm_window, &rep);
	expect(&rep, "cpu.isolated", HC_BAD, "CPU 1 is not isolated (isolated: none; "
	       "isolcpus=not given)");
	expect(&rep, "cpu.isolated", HC_BAD, "isolcpus=domain,managed_irq,1");
	/* what follows "--" is init's, not the kernel's */
	expect(&rep, "cpu.nohz_full", HC_WARN, "no nohz_full= on the command line");
	expect(&rep, "cpu.rcu_nocbs", HC_WARN, "runs its own RCU callbacks");
	expect(&rep, "cpu.smt", HC_OK, "no SMT sibling");
	expect(&rep, "cpu.governor", HC_WARN, "governor is powersave");
	expect(&rep, "cpu.idle", HC_OK, "but the loop spins");
	/* 25.3 ms of 1 s: kdamond (movable) and a kworker (bound); ksoftirqd slept */
	expect(&rep, "cpu.kthreads", HC_BAD, "2 kernel threads ran 25.30 ms on CPU 1");
	expect(&rep, "cpu.kthreads", HC_BAD, "kdamond.0[79] 25.00 ms/16 runs, "
	       "kworker/1:2-events[5140] 0.30 ms/6 runs");
	expect(&rep, "cpu.kthreads", HC_BAD, "movable (kdamond.0)");
	expect(&rep, "cpu.kthreads", HC_BAD, "bound (kworker/1:2-events)");
	expect(&rep, "cpu.kthreads", HC_BAD, "kdamond is DAMON");
	expect(&rep, "cpu.kthreads", HC_BAD, "kdamond.0's runs last 1562 us on average");
	/* sshd ran 0.2 ms there; bash ran on CPU 0, the gateway is itself */
	expect(&rep, "cpu.tasks", HC_WARN, "1 thread of another process ran 0.20 ms on CPU 1 in "
	       "1000 ms (0.0 %): sshd[700] 0.20 ms/4 runs");
	expect(&rep, "cpu.irqs", HC_WARN, "IRQ 36 virtio1-req.0 120 (120/s), IRQ 38 "
	       "virtio2-input.0 3 (3/s)");
	expect(&rep, "cpu.ipis", HC_WARN, "LOC 250 (250/s)");
	expect(&rep, "cpu.softirqs", HC_WARN, "TIMER 250 (250/s), RCU 240 (240/s)");
	expect(&rep, "net.irqs", HC_BAD, "38 virtio2-input.0 on 0-1 (3 on CPU 1)");
	expect(&rep, "net.irqs", HC_BAD, "for N in 37 38: echo 0 >");
	expect(&rep, "net.queues", HC_OK, "1 RX and 1 TX queue, no RPS to CPU 1");
	expect(&rep, "irqbalance", HC_OK, "not running");
	expect(&rep, "mem.thp", HC_OK, "enabled madvise, defrag madvise");
	expect(&rep, "mem.hugepages", HC_WARN, "no hugepages of 2048 kB reserved");
	expect(&rep, "kernel.sched_rt_runtime_us", HC_BAD, "stops for 50000 us of every 1000000");
	expect(&rep, "kernel.timer_migration", HC_WARN, "timer_migration 1");
	expect(&rep, "vm.stat_interval", HC_WARN, "stat_interval 1 s");
	expect(&rep, "kernel.watchdog", HC_WARN, "every 4 s");
	expect(&rep, "clocksource", HC_OK, "tsc");
	assert_int_equal(rep.count[HC_BAD], 4);

	/* A small share, but in long runs: each is a stall of the loop. */
	vm_tree();
	report(&cfg, vm_window_short_runs, &rep);
	expect(&rep, "cpu.kthreads", HC_BAD, "1 kernel thread ran 3.00 ms on CPU 1 in 1000 ms "
	       "(0.3 %): kdamond.0[79] 3.00 ms/2 runs; kdamond.0's runs last 1500 us on average");

	/* Without --fifo, RT throttling does not apply; a loop that sleeps may idle deep. */
	vm_tree();
	cfg.fifo = false;
	cfg.spins = false;
	report(&cfg, vm_window, &rep);
	expect(&rep, "kernel.sched_rt_runtime_us", HC_OK, "not SCHED_FIFO");
	expect(&rep, "cpu.idle", HC_WARN, "may idle in C6 (133 us to leave)");
	expect(&rep, "cpu.idle", HC_WARN, "state1/disable");
}

static void test_nothing_there_is_unknown(void **state)
{
	struct hc_cfg cfg = cfg_for(1);
	struct hc_report rep;

	(void)state;
	report(&cfg, NULL, &rep);
	for (unsigned int i = 0; i < rep.n; i++) {
		expect(&rep, rep.f[i].key, HC_UNKNOWN, NULL);
		assert_memory_equal(rep.f[i].found, "unknown", 7);
	}
	assert_int_equal(rep.count[HC_UNKNOWN], rep.n);
	expect(&rep, "net.irqs", HC_UNKNOWN, "no interface eth0 here");
	expect(&rep, "cpu.governor", HC_UNKNOWN, "no cpufreq for CPU 1");
}

/* A container: /proc (the host's command line) and no /sys. */
static void test_proc_only(void **state)
{
	struct hc_cfg cfg = cfg_for(1);
	struct hc_report rep;

	(void)state;
	put("/proc/cmdline", "isolcpus=1 quiet\n");
	put("/proc/sys/kernel/sched_rt_runtime_us", "-1\n");
	task(79, 79, "kdamond.0", true, 1, 900 * MS, 500, "0-1");
	report(&cfg, NULL, &rep);
	expect(&rep, "cpu.isolated", HC_OK, "CPU 1 is isolated (no /sys/devices/system/cpu/"
	       "isolated; isolcpus=1)");
	put("/proc/cmdline", "rcu_nocbs=all\n");
	report(&cfg, NULL, &rep);
	expect(&rep, "cpu.isolated", HC_BAD, "not isolated (no /sys/devices/system/cpu/isolated; "
	       "isolcpus=not given)");
	expect(&rep, "cpu.rcu_nocbs", HC_OK, "offloaded (rcu_nocbs=all)");
	expect(&rep, "cpu.nohz_full", HC_WARN, "no nohz_full= on the command line");
	expect(&rep, "cpu.kthreads", HC_OK, "no kernel threads ran");
	expect(&rep, "cpu.irqs", HC_UNKNOWN, "/proc/interrupts");
	expect(&rep, "mem.thp", HC_UNKNOWN, "transparent_hugepage/enabled");
	expect(&rep, "kernel.sched_rt_runtime_us", HC_OK, "off");
	expect(&rep, "net.irqs", HC_UNKNOWN, "no interface eth0");
}

static void test_no_window_no_cpu(void **state)
{
	struct hc_cfg cfg = cfg_for(1);
	struct hc_report rep;
	struct hc h;

	(void)state;
	vm_tree();
	assert_int_equal(hc_begin(&h, &cfg), 0);
	assert_int_equal(hc_end(&h, 0, &rep), 0);
	assert_int_equal(rep.window_ns, 0);
	expect(&rep, "cpu.kthreads", HC_UNKNOWN, "no sample");
	expect(&rep, "cpu.softirqs", HC_UNKNOWN, "no sample");
	expect(&rep, "cpu.isolated", HC_BAD, "not isolated");
	/* without a window the feed's IRQ is only known to be allowed there */
	expect(&rep, "net.irqs", HC_WARN, "may land on CPU 1");

	cfg = cfg_for(-1);
	report(&cfg, vm_window, &rep);
	expect(&rep, "cpu.isolated", HC_BAD, "not pinned (--cpu -1)");
	expect(&rep, "cpu.kthreads", HC_UNKNOWN, "not pinned");
	expect(&rep, "cpu.nohz_full", HC_UNKNOWN, "not pinned");
	expect(&rep, "mem.hugepages", HC_WARN, "no hugepages");
	expect(&rep, "irqbalance", HC_OK, NULL);
}

static void test_queues_rps_irqbalance_thp(void **state)
{
	struct hc_cfg cfg = cfg_for(1);
	struct hc_report rep;
	const char *q = "/sys/devices/pci0000:00/0000:00:03.0/virtio2/net/eth0/queues";
	char path[256];

	(void)state;
	vm_tree();
	for (int i = 1; i < 4; i++) {
		snprintf(path, sizeof(path), "%s/rx-%d/rps_cpus", q, i);
		put(path, "%s\n", i == 3 ? "00000000,00000002" : "0");
		snprintf(path, sizeof(path), "%s/tx-%d/xps_cpus", q, i);
		put(path, "0\n");
	}
	task(900, 900, "irqbalance", false, 0, 1 * MS, 1, "0-1");
	put("/sys/kernel/mm/transparent_hugepage/enabled", "[always] madvise never\n");
	put("/sys/kernel/mm/transparent_hugepage/defrag", "[always] defer defer+madvise madvise never\n");
	/* Every queue served (the default): RPS to the loop's CPU is what is wrong. */
	report(&cfg, NULL, &rep);
	expect(&rep, "net.queues", HC_WARN, "4 RX and 4 TX queues; the gateway serves all 4");
	expect(&rep, "net.queues", HC_WARN, "RPS sends the receive work of rx-3 to CPU 1");
	/* Each flow and its rule, optional while every queue is served. */
	expect(&rep, "net.flows", HC_OK, "3 flows steered");
	expect(&rep, "net.flows", HC_OK, "feed 239.1.1.1:26400");
	expect(&rep, "net.flows", HC_OK, "re-request answers 10.201.0.1 -> 10.201.0.2:26404");
	expect(&rep, "net.flows", HC_OK, "order connection 10.201.0.1:26401 -> "
	       "10.201.0.2:26402-26465");
	assert_non_null(strstr(hc_find(&rep, "net.flows")->fix, "Optional"));
	/* One queue served: the rules are needed, each to that queue. */
	cfg.serve = 1u << 2;
	report(&cfg, NULL, &rep);
	expect(&rep, "net.queues", HC_WARN, "the gateway serves 2 only");
	expect(&rep, "net.flows", HC_WARN, "3 flows steered");
	{
		const char *fix = hc_find(&rep, "net.flows")->fix;

		assert_non_null(strstr(fix, "ethtool -N eth0 flow-type udp4 dst-ip 239.1.1.1 "
				       "dst-port 26400 action 2"));
		assert_non_null(strstr(fix, "ethtool -N eth0 flow-type udp4 src-ip 10.201.0.1 "
				       "dst-ip 10.201.0.2 dst-port 26404 action 2"));
		assert_non_null(strstr(fix, "ethtool -N eth0 flow-type tcp4 src-ip 10.201.0.1 "
				       "src-port 26401 dst-ip 10.201.0.2 action 2"));
		assert_non_null(strstr(fix, "ethtool -L eth0 combined 1"));
		assert_non_null(strstr(fix, "Needed"));
	}
	/* The namespace's own count (ethtool's) wins over /sys. */
	cfg.rx_queues = cfg.tx_queues = 1;
	report(&cfg, NULL, &rep);
	expect(&rep, "net.flows", HC_OK, "one RX queue");
	cfg.rx_queues = cfg.tx_queues = 0;
	cfg.serve = 0;
	expect(&rep, "irqbalance", HC_WARN, "irqbalance runs (pid 900)");
	expect(&rep, "mem.thp", HC_WARN, "enabled always, defrag always");
	expect(&rep, "mem.thp", HC_WARN, "direct compaction");

	/* IRQs named after the interface count as its own, another's do not; msi_irqs
	 * missing from /proc/interrupts have no name */
	put("/proc/interrupts",
	    "           CPU0       CPU1       \n"
	    " 45:          5          0  PCI-MSI 1-edge      eth0-TxRx-0\n"
	    " 46:          5          0  PCI-MSI 2-edge      eth01-TxRx-0\n");
	put("/proc/irq/45/smp_affinity_list", "0\n");
	put("/proc/irq/46/smp_affinity_list", "0-1\n");
	report(&cfg, NULL, &rep);
	expect(&rep, "net.irqs", HC_WARN, "37 ? on 0-1, 38 ? on 0-1, 39 ? on 0, 45 eth0-TxRx-0 "
	       "on 0");
	assert_null(strstr(hc_find(&rep, "net.irqs")->found, "46"));

	cfg.serve = 1u << 5;
	report(&cfg, NULL, &rep);
	expect(&rep, "net.queues", HC_BAD, "--queues 5 names queues it does not have");
	/* the kernel path reads every queue */
	cfg.serve = 0;
	cfg.xsk = false;
	report(&cfg, NULL, &rep);
	expect(&rep, "net.queues", HC_WARN, "RPS sends");
}

/* The reverse-path filter: the larger of all's and the interface's; only the kernel path's loss. */
static void test_rp_filter(void **state)
{
	struct hc_cfg cfg = cfg_for(1);
	struct hc_report rep;

	(void)state;
	vm_tree();
	report(&cfg, NULL, &rep);
	expect(&rep, "net.rp_filter", HC_OK, "off on eth0");
	put("/proc/sys/net/ipv4/conf/eth0/rp_filter", "1\n");
	report(&cfg, NULL, &rep);
	expect(&rep, "net.rp_filter", HC_OK, "strict on eth0 (rp_filter 1), behind the XDP hook");
	cfg.xsk = false;
	report(&cfg, NULL, &rep);
	expect(&rep, "net.rp_filter", HC_WARN, "dropped before the socket");
	expect(&rep, "net.rp_filter", HC_WARN, "ip route add SOURCE/32 dev eth0");
	put("/proc/sys/net/ipv4/conf/all/rp_filter", "2\n");
	report(&cfg, NULL, &rep);
	expect(&rep, "net.rp_filter", HC_WARN, "loose on eth0 (rp_filter 2)");
	cfg.ifname = NULL;
	report(&cfg, NULL, &rep);
	expect(&rep, "net.rp_filter", HC_UNKNOWN, "no feed interface");
}

static void test_cpu_lists_and_command_line(void **state)
{
	struct hc_cpus s;
	char buf[64];

	(void)state;
	assert_int_equal(hc_cpus_parse_list("0-3,8,10-11\n", &s), 0);
	assert_int_equal(hc_cpus_count(&s), 7);
	hc_cpus_format(&s, buf, sizeof(buf));
	assert_string_equal(buf, "0-3,8,10-11");
	assert_int_equal(hc_cpus_parse_list("(null)", &s), 0);
	assert_int_equal(hc_cpus_count(&s), 0);
	hc_cpus_format(&s, buf, sizeof(buf));
	assert_string_equal(buf, "none");
	assert_int_equal(hc_cpus_parse_list("3-1", &s), -EINVAL);
	assert_int_equal(hc_cpus_parse_list("1,x", &s), -EINVAL);
	assert_int_equal(hc_cpus_parse_list("5000", &s), -EINVAL);
	assert_int_equal(hc_cpus_parse_mask("00000001,00000006", &s), 0);
	hc_cpus_format(&s, buf, sizeof(buf));
	assert_string_equal(buf, "1-2,32");
	assert_int_equal(hc_cpus_parse_mask("0g", &s), -EINVAL);
	assert_int_equal(hc_cpus_parse_list("all", &s), 0);
	assert_true(hc_cpus_has(&s, 0) && hc_cpus_has(&s, HC_MAX_CPUS - 1));
	assert_int_equal(hc_cpus_parse_list("alloc", &s), -EINVAL);

	assert_int_equal(hc_cmdline_param("a nohz_full=1-3 rcu_nocbs b", "nohz_full", buf,
					  sizeof(buf)), 1);
	assert_string_equal(buf, "1-3");
	assert_int_equal(hc_cmdline_param("a rcu_nocbs b", "rcu_nocbs", buf, sizeof(buf)), 2);
	assert_int_equal(hc_cmdline_param("isolcpus=1 isolcpus=2", "isolcpus", buf, sizeof(buf)), 1);
	assert_string_equal(buf, "2");
	assert_int_equal(hc_cmdline_param("x -- isolcpus=1", "isolcpus", buf, sizeof(buf)), 0);
	assert_int_equal(hc_cmdline_param("isolcpus_x=1\n", "isolcpus", buf, sizeof(buf)), 0);
}

/* This machine's own /proc and /sys, whatever they hold: every check answers, under ASan. */
static void test_this_machine_reads(void **state)
{
	struct hc_cfg cfg = cfg_for(0);
	struct hc_report rep;

	(void)state;
	cfg.root = "";
	cfg.window_ns = 50 * MS;
	cfg.exclude_pid = getpid();
	assert_int_equal(hc_run(&cfg, &rep), 0);
	assert_true(rep.n >= 20);
	assert_true(rep.window_ns >= 50 * MS);
	for (unsigned int i = 0; i < rep.n; i++) {
		assert_true(rep.f[i].level < HC_LEVELS);
		assert_true(rep.f[i].found[0]);
	}
	/* /proc is there: the tasks were read */
	assert_int_not_equal(hc_find(&rep, "irqbalance")->level, HC_UNKNOWN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_isolated_core_all_ok, setup, teardown),
		cmocka_unit_test_setup_teardown(test_host_like_the_vm, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nothing_there_is_unknown, setup, teardown),
		cmocka_unit_test_setup_teardown(test_proc_only, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_window_no_cpu, setup, teardown),
		cmocka_unit_test_setup_teardown(test_queues_rps_irqbalance_thp, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rp_filter, setup, teardown),
		cmocka_unit_test(test_cpu_lists_and_command_line),
		cmocka_unit_test(test_this_machine_reads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
