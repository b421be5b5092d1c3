// SPDX-License-Identifier: MIT
/*
 * What ran on the hot CPU in the window (host/sample.h): kernel threads,
 * other processes' threads, device IRQs, the local interrupts and IPIs,
 * softirqs.  Each of them took the CPU from the loop while it ran.
 */
#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "host/checks.h"

/*
 * Bad: others held the hot CPU for this share of the window, or one of them
 * for this long a run on average (a stall of that length in the loop's tail).
 */
#define BAD_SHARE 0.01
#define BAD_RUN_NS 100000
/* Threads named in a finding; the rest are counted. */
#define NAMED 5
/* The tick on a CPU that is idle or nohz_full comes about once a second. */
#define QUIET_TICKS_PER_S 10

/* What a known kernel thread is, and how it is stopped. */
static const struct {
	const char *prefix, *hint;
} known[] = {
	{ "kdamond", "kdamond is DAMON (echo off > /sys/kernel/mm/damon/admin/kdamonds/N/state)" },
	{ "khugepaged", "khugepaged: THP enabled madvise or never" },
	{ "kcompactd", "kcompactd: vm.compaction_proactiveness=0" },
	{ "ksmd", "ksmd: echo 0 > /sys/kernel/mm/ksm/run" },
	{ "kswapd", "kswapd: the host is short of memory" },
};

/* Bound to the hot CPU alone (a per-CPU kernel thread): it cannot be moved. */
static bool bound_here(const struct hc_ctx *c, const struct hc_task *t)
{
	struct hc_cpus set;
	char buf[4096], *p;

	if (hc_read(c->root, buf, sizeof(buf), "/proc/%d/task/%d/status", t->pid, t->tid) < 0)
		return false;
	p = strstr(buf, "Cpus_allowed_list:");
	if (!p)
		return false;
	p += strlen("Cpus_allowed_list:");
	p[strcspn(p, "\n")] = '\0';
	return !hc_cpus_parse_list(p, &set) && hc_cpus_count(&set) == 1 &&
	       hc_cpus_has(&set, c->cpu);
}

/*
 * "name[pid] 27.4 ms/16 runs, ..." of the kernel threads, or of the others;
 * *longest: the one with the longest runs on average (schedstat counts them).
 */
static uint64_t list_ran(const struct hc_ctx *c, bool kthreads, char *buf, size_t n,
			 unsigned int *count, const struct hc_ran **longest)
{
	uint64_t total = 0;

	buf[0] = '\0';
	*count = 0;
	for (size_t i = 0; i < c->delta->n_ran; i++) {
		const struct hc_ran *r = &c->delta->ran[i];

		if (r->t.kthread != kthreads)
			continue;
		total += r->ns;
		if (r->slices && (!*longest || r->ns / r->slices > (*longest)->ns / (*longest)->slices))
			*longest = r;
		if (++*count > NAMED)
			continue;
		hc_cat(buf, n, "%s%s[%d] %.2f ms", *count > 1 ? ", " : "", r->t.comm, r->t.pid,
		       (double)r->ns / 1e6);
		if (r->slices)
			hc_cat(buf, n, "/%llu run%s", (unsigned long long)r->slices,
			       r->slices > 1 ? "s" : "");
	}
	if (*count > NAMED)
		hc_cat(buf, n, ", %u more", *count - NAMED);
	return total;
}

/* The level and the head of a finding on threads; false when none ran. */
static bool say_ran(const struct hc_ctx *c, struct hc_finding *f, bool kthreads)
{
	const char *one = kthreads ? "kernel thread" : "thread of another process";
	const char *many = kthreads ? "kernel threads" : "threads of other processes";
	const struct hc_ran *longest = NULL;
	uint64_t total, run_ns = 0;
	char list[HC_TEXT];
	unsigned int count;
	double share;

	if (c->snap->task_err) {
		hc_unknown(f, "/proc", c->snap->task_err);
		return false;
	}
	total = list_ran(c, kthreads, list, sizeof(list), &count, &longest);
	if (!count) {
		hc_found(f, HC_OK, "no %s ran on CPU %d in %.0f ms", many, c->cpu,
			 (double)c->elapsed_ns / 1e6);
		return false;
	}
	share = (double)total / (double)c->elapsed_ns;
	if (longest)
		run_ns = longest->ns / longest->slices;
	hc_found(f, share >= BAD_SHARE || run_ns >= BAD_RUN_NS ? HC_BAD : HC_WARN, "%u %s ran "
		 "%.2f ms on CPU %d in %.0f ms (%.1f %%): %s", count, count == 1 ? one : many,
		 (double)total / 1e6, c->cpu, (double)c->elapsed_ns / 1e6, share * 100, list);
	if (run_ns >= BAD_RUN_NS)
		hc_cat(f->found, sizeof(f->found), "; %s's runs last %.0f us on average",
		       longest->t.comm, (double)run_ns / 1e3);
	return true;
}

void hc_check_kthreads(const struct hc_ctx *c, struct hc_finding *f)
{
	char movable[128] = "", bound[128] = "";
	bool hinted[sizeof(known) / sizeof(known[0])] = { false };

	if (hc_no_cpu(c, f) || hc_no_sample(c, f) || !say_ran(c, f, true))
		return;
	for (size_t i = 0; i < c->delta->n_ran; i++) {
		const struct hc_task *t = &c->delta->ran[i].t;
		char *which;

		if (!t->kthread)
			continue;
		which = bound_here(c, t) ? bound : movable;
		/* the longest three are enough to say what to do */
		if (strlen(which) < 48)
			hc_cat(which, 128, "%s%s", which[0] ? ", " : "", t->comm);
		else if (!strstr(which, ", ..."))
			hc_cat(which, 128, ", ...");
	}
	if (movable[0])
		hc_cat(f->fix, sizeof(f->fix), "movable (%s): isolcpus=domain,%d, or taskset -pc %s "
		       "PID; ", movable, c->cpu, c->others);
	if (bound[0])
		hc_cat(f->fix, sizeof(f->fix), "bound (%s): they do work queued on CPU %d "
		       "(nohz_full, rcu_nocbs, IRQs and the workqueue cpumask elsewhere); ", bound,
		       c->cpu);
	for (size_t i = 0; i < c->delta->n_ran; i++)
		for (size_t k = 0; k < sizeof(known) / sizeof(known[0]); k++)
			if (c->delta->ran[i].t.kthread && !hinted[k] &&
			    !strncmp(c->delta->ran[i].t.comm, known[k].prefix,
				     strlen(known[k].prefix))) {
				hinted[k] = true;
				hc_cat(f->fix, sizeof(f->fix), "%s; ", known[k].hint);
			}
	hc_cat(f->fix, sizeof(f->fix), "each run takes the CPU from the loop");
}

void hc_check_tasks(const struct hc_ctx *c, struct hc_finding *f)
{
	if (hc_no_cpu(c, f) || hc_no_sample(c, f) || !say_ran(c, f, false))
		return;
	hc_fix(f, "isolcpus=domain,%d with only the loop pinned there, or move them now "
	       "(taskset -apc %s PID): the scheduler shares the CPU between them and the loop",
	       c->cpu, c->others);
}

/* "LABEL name N (R/s), ..." of the lines of a delta, device IRQs or the others. */
static unsigned int list_counts(const struct hc_ctx *c, const struct hc_count *cnt, size_t n,
				int devices, char *buf, size_t len)
{
	unsigned int count = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		bool dev = isdigit((unsigned char)cnt[i].label[0]);

		if (devices >= 0 && dev != (bool)devices)
			continue;
		hc_cat(buf, len, "%s%s%s%s%s %llu (%.0f/s)", count ? ", " : "", dev ? "IRQ " : "",
		       cnt[i].label, dev ? " " : "", dev ? cnt[i].name : "",
		       (unsigned long long)cnt[i].n, hc_rate(c, cnt[i].n));
		count++;
	}
	return count;
}

void hc_check_irqs(const struct hc_ctx *c, struct hc_finding *f)
{
	char list[HC_TEXT];

	if (hc_no_cpu(c, f) || hc_no_sample(c, f))
		return;
	if (c->snap->irq_err) {
		hc_unknown(f, "/proc/interrupts", c->snap->irq_err);
		return;
	}
	if (!list_counts(c, c->delta->irq, c->delta->n_irq, 1, list, sizeof(list))) {
		hc_found(f, HC_OK, "no device IRQ on CPU %d in %.0f ms", c->cpu,
			 (double)c->elapsed_ns / 1e6);
		return;
	}
	hc_found(f, HC_WARN, "device IRQs on CPU %d in %.0f ms: %s", c->cpu,
		 (double)c->elapsed_ns / 1e6, list);
	hc_fix(f, "echo %s > /proc/irq/N/smp_affinity_list for each (isolcpus=managed_irq,%d "
	       "for managed ones, which refuse it): each runs its handler, and its softirq, on "
	       "the loop's CPU", c->others, c->cpu);
}

void hc_check_ipis(const struct hc_ctx *c, struct hc_finding *f)
{
	char list[HC_TEXT];
	bool loud = false;

	if (hc_no_cpu(c, f) || hc_no_sample(c, f))
		return;
	if (c->snap->irq_err) {
		hc_unknown(f, "/proc/interrupts", c->snap->irq_err);
		return;
	}
	for (size_t i = 0; i < c->delta->n_irq; i++) {
		const struct hc_count *n = &c->delta->irq[i];

		if (isdigit((unsigned char)n->label[0]))
			continue;
		if (strcmp(n->label, "LOC") || hc_rate(c, n->n) > QUIET_TICKS_PER_S)
			loud = true;
	}
	list_counts(c, c->delta->irq, c->delta->n_irq, 0, list, sizeof(list));
	if (!loud) {
		hc_found(f, HC_OK, "CPU %d quiet in %.0f ms%s%s", c->cpu,
			 (double)c->elapsed_ns / 1e6, list[0] ? ": " : "", list);
		return;
	}
	hc_found(f, HC_WARN, "local interrupts on CPU %d in %.0f ms: %s", c->cpu,
		 (double)c->elapsed_ns / 1e6, list);
	hc_fix(f, "LOC is the tick (nohz_full stops it while one task runs); RES, CAL and TLB "
	       "come from other CPUs (a wakeup there, a function call, a TLB flush of memory "
	       "mapped there): isolation keeps their causes away");
}

void hc_check_softirqs(const struct hc_ctx *c, struct hc_finding *f)
{
	char list[HC_TEXT];

	if (hc_no_cpu(c, f) || hc_no_sample(c, f))
		return;
	if (c->snap->soft_err) {
		hc_unknown(f, "/proc/softirqs", c->snap->soft_err);
		return;
	}
	if (!list_counts(c, c->delta->soft, c->delta->n_soft, -1, list, sizeof(list))) {
		hc_found(f, HC_OK, "no softirq on CPU %d in %.0f ms", c->cpu,
			 (double)c->elapsed_ns / 1e6);
		return;
	}
	hc_found(f, HC_WARN, "softirqs on CPU %d in %.0f ms: %s", c->cpu,
		 (double)c->elapsed_ns / 1e6, list);
	hc_fix(f, "TIMER, SCHED and RCU follow the tick and RCU (nohz_full, rcu_nocbs); NET_RX, "
	       "NET_TX and BLOCK the IRQs that land there (move them): each runs before the "
	       "loop gets its CPU back");
}
