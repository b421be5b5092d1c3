// SPDX-License-Identifier: MIT
/* The report: its table of checks, the window between two snapshots, the output. */
#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>

#include "host/checks.h"

const char *const hc_level_names[HC_LEVELS] = { "ok", "unknown", "warn", "bad" };

/* In the order of the report: the CPU, what ran on it, the feed, memory, the kernel. */
static const struct {
	const char *key;
	hc_check_fn *fn;
} checks[] = {
	{ "cpu.isolated", hc_check_isolated },
	{ "cpu.nohz_full", hc_check_nohz_full },
	{ "cpu.rcu_nocbs", hc_check_rcu_nocbs },
	{ "cpu.smt", hc_check_smt },
	{ "cpu.governor", hc_check_governor },
	{ "cpu.idle", hc_check_idle },
	{ "cpu.kthreads", hc_check_kthreads },
	{ "cpu.tasks", hc_check_tasks },
	{ "cpu.irqs", hc_check_irqs },
	{ "cpu.ipis", hc_check_ipis },
	{ "cpu.softirqs", hc_check_softirqs },
	{ "net.irqs", hc_check_net_irqs },
	{ "net.queues", hc_check_net_queues },
	{ "net.flows", hc_check_net_flows },
	{ "net.rp_filter", hc_check_rp_filter },
	{ "irqbalance", hc_check_irqbalance },
	{ "mem.thp", hc_check_thp },
	{ "mem.hugepages", hc_check_hugepages },
	{ "kernel.sched_rt_runtime_us", hc_check_rt_throttling },
	{ "kernel.timer_migration", hc_check_timer_migration },
	{ "vm.stat_interval", hc_check_stat_interval },
	{ "kernel.watchdog", hc_check_watchdog },
	{ "clocksource", hc_check_clocksource },
};

_Static_assert(sizeof(checks) / sizeof(checks[0]) <= HC_MAX_FINDINGS, "room for every finding");

void hc_found(struct hc_finding *f, enum hc_level level, const char *fmt, ...)
{
	va_list ap;

	f->level = level;
	va_start(ap, fmt);
	vsnprintf(f->found, sizeof(f->found), fmt, ap);
	va_end(ap);
}

void hc_fix(struct hc_finding *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(f->fix, sizeof(f->fix), fmt, ap);
	va_end(ap);
}

void hc_unknown(struct hc_finding *f, const char *what, int err)
{
	hc_found(f, HC_UNKNOWN, "unknown: %s: %s", what, strerror(-err));
	f->fix[0] = '\0';
}

void hc_cat(char *buf, size_t n, const char *fmt, ...)
{
	size_t len = strlen(buf);
	va_list ap;

	if (len + 1 >= n)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + len, n - len, fmt, ap);
	va_end(ap);
}

bool hc_no_cpu(const struct hc_ctx *c, struct hc_finding *f)
{
	if (c->cpu >= 0)
		return false;
	hc_found(f, HC_UNKNOWN, "unknown: the loop is not pinned (--cpu -1): no hot CPU to look at");
	return true;
}

bool hc_no_sample(const struct hc_ctx *c, struct hc_finding *f)
{
	if (c->delta)
		return false;
	hc_found(f, HC_UNKNOWN, "unknown: no sample (a window of 0 ms)");
	return true;
}

double hc_rate(const struct hc_ctx *c, uint64_t n)
{
	return c->elapsed_ns ? (double)n * 1e9 / (double)c->elapsed_ns : 0;
}

/* What several checks read: the command line and the CPU sets. */
static void ctx_init(struct hc_ctx *c, const struct hc_cfg *cfg)
{
	char buf[4096];
	int ret;

	memset(c, 0, sizeof(*c));
	c->cfg = cfg;
	c->root = cfg->root ? cfg->root : "";
	c->cpu = cfg->cpu;
	ret = hc_read(c->root, c->cmdline, sizeof(c->cmdline), "/proc/cmdline");
	c->cmdline_err = ret < 0 ? ret : 0;

	ret = hc_read(c->root, buf, sizeof(buf), "/sys/devices/system/cpu/online");
	c->online_err = ret < 0 ? ret : hc_cpus_parse_list(buf, &c->online);
	snprintf(c->others, sizeof(c->others), "the other CPUs");
	if (!c->online_err) {
		struct hc_cpus rest = c->online;

		hc_cpus_clear(&rest, c->cpu);
		if (hc_cpus_count(&rest))
			hc_cpus_format(&rest, c->others, sizeof(c->others));
	}
	ret = hc_read(c->root, buf, sizeof(buf), "/sys/devices/system/cpu/isolated");
	c->isolated_err = ret < 0 ? ret : hc_cpus_parse_list(buf, &c->isolated);
	ret = hc_read(c->root, buf, sizeof(buf), "/sys/devices/system/cpu/nohz_full");
	c->nohz_err = ret < 0 ? ret : hc_cpus_parse_list(buf, &c->nohz);
}

int hc_begin(struct hc *h, const struct hc_cfg *cfg)
{
	h->cfg = *cfg;
	return hc_snap_take(cfg->root ? cfg->root : "", cfg->cpu, &h->before);
}

int hc_end(struct hc *h, uint64_t elapsed_ns, struct hc_report *rep)
{
	struct hc_snap after = { 0 };
	struct hc_delta delta = { 0 };
	struct hc_ctx c;
	int ret = 0;

	memset(rep, 0, sizeof(*rep));
	ctx_init(&c, &h->cfg);
	c.snap = &h->before;
	if (elapsed_ns) {
		ret = hc_snap_take(c.root, c.cpu, &after);
		if (ret)
			goto out;
		ret = hc_delta_make(&h->before, &after, c.cpu, h->cfg.exclude_pid, &delta);
		if (ret)
			goto out;
		c.snap = &after;
		c.delta = &delta;
		c.elapsed_ns = elapsed_ns;
		rep->window_ns = elapsed_ns;
	}
	for (size_t i = 0; i < sizeof(checks) / sizeof(checks[0]); i++) {
		struct hc_finding *f = &rep->f[rep->n++];

		f->key = checks[i].key;
		checks[i].fn(&c, f);
		rep->count[f->level]++;
	}
out:
	hc_delta_free(&delta);
	hc_snap_free(&after);
	hc_snap_free(&h->before);
	return ret;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int hc_run(const struct hc_cfg *cfg, struct hc_report *rep)
{
	uint64_t t0, elapsed = 0;
	struct hc h;
	int ret;

	/* From before the first snapshot: a thread read late in it ran for longer. */
	t0 = now_ns();
	ret = hc_begin(&h, cfg);
	if (ret)
		return ret;
	/* In steps, so that a run that stops early is not held up by the window. */
	while (cfg->window_ns && (elapsed = now_ns() - t0) < cfg->window_ns &&
	       !(cfg->stop && *cfg->stop)) {
		uint64_t left = cfg->window_ns - elapsed, step = 50 * 1000 * 1000;
		struct timespec ts;

		if (left < step)
			step = left;
		ts.tv_sec = 0;
		ts.tv_nsec = (long)step;
		nanosleep(&ts, NULL);
	}
	if (cfg->window_ns)
		elapsed = now_ns() - t0;
	return hc_end(&h, elapsed, rep);
}

const struct hc_finding *hc_find(const struct hc_report *rep, const char *key)
{
	for (unsigned int i = 0; i < rep->n; i++)
		if (!strcmp(rep->f[i].key, key))
			return &rep->f[i];
	return NULL;
}

void hc_print(FILE *out, const char *prefix, const struct hc_report *rep, enum hc_level min)
{
	for (unsigned int i = 0; i < rep->n; i++) {
		const struct hc_finding *f = &rep->f[i];

		if (f->level < min)
			continue;
		fprintf(out, "%s%-7s %-26s %s%s%s\n", prefix, hc_level_names[f->level], f->key,
			f->found, f->fix[0] ? " -> " : "", f->fix);
	}
}

void hc_print_brief(FILE *out, const char *prefix, const struct hc_report *rep)
{
	const char *sep = "";

	fprintf(out, "%s%u bad, %u warn, %u ok, %u unknown", prefix, rep->count[HC_BAD],
		rep->count[HC_WARN], rep->count[HC_OK], rep->count[HC_UNKNOWN]);
	if (rep->window_ns)
		fprintf(out, " (what ran on the hot CPU: over %.0f ms)", (double)rep->window_ns / 1e6);
	for (unsigned int i = 0; i < rep->n; i++) {
		if (rep->f[i].level != HC_BAD)
			continue;
		fprintf(out, "%s%s", *sep ? sep : "; bad: ", rep->f[i].key);
		sep = ", ";
	}
	fprintf(out, "; --check-host for the list\n");
}

void hc_print_counts(FILE *out, const char *prefix, const struct hc_report *rep)
{
	fprintf(out, "%s%u ok, %u warn, %u bad, %u unknown", prefix, rep->count[HC_OK],
		rep->count[HC_WARN], rep->count[HC_BAD], rep->count[HC_UNKNOWN]);
	if (rep->window_ns)
		fprintf(out, " (what ran on the hot CPU: over %.0f ms)\n",
			(double)rep->window_ns / 1e6);
	else
		fprintf(out, " (no sample of what ran on the hot CPU)\n");
}
