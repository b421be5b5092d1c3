// SPDX-License-Identifier: MIT
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/read.h"
#include "host/sample.h"

#define PF_KTHREAD 0x00200000u	/* include/linux/sched.h */

/* A growing array of n items of size sz: room for one more, or NULL. */
static void *grow(void *arr, size_t n, size_t *cap, size_t sz)
{
	void *p;

	if (n < *cap)
		return arr;
	*cap = *cap ? 2 * *cap : 64;
	p = realloc(arr, *cap * sz);
	return p;
}

/*
 * stat: "pid (comm) state ppid ...": comm may hold spaces and parentheses,
 * so the fields are counted from the last ')'.  0, or -1 when it does not
 * parse (the thread went away in between, or a made-up tree is short).
 */
static int parse_stat(const char *buf, struct hc_task *t)
{
	const char *open = strchr(buf, '('), *close = strrchr(buf, ')'), *p;
	unsigned long long utime = 0, stime = 0;
	long hz = sysconf(_SC_CLK_TCK);
	int field;

	if (!open || !close || close < open)
		return -1;
	snprintf(t->comm, sizeof(t->comm), "%.*s", (int)(close - open - 1), open + 1);
	p = close + 1;
	for (field = 3; field <= 39; field++) {
		unsigned long long v;
		char *end;

		while (*p == ' ')
			p++;
		if (field == 3) {	/* the state, a letter */
			if (!*p)
				return -1;
			p++;
			continue;
		}
		v = strtoull(p, &end, 10);
		if (end == p)
			return -1;
		p = end;
		if (field == 9)
			t->kthread = v & PF_KTHREAD;
		else if (field == 14)
			utime = v;
		else if (field == 15)
			stime = v;
		else if (field == 39)
			t->cpu = (int)v;
	}
	t->run_ns = (utime + stime) * (1000000000ull / (unsigned long long)(hz > 0 ? hz : 100));
	return 0;
}

static int read_task(const char *root, int pid, int tid, struct hc_task *t)
{
	char buf[1024];
	unsigned long long run, wait, slices;

	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->tid = tid;
	if (hc_read(root, buf, sizeof(buf), "/proc/%d/task/%d/stat", pid, tid) < 0 ||
	    parse_stat(buf, t))
		return -1;
	/* schedstat: run time (ns), wait time (ns), runs */
	if (hc_read(root, buf, sizeof(buf), "/proc/%d/task/%d/schedstat", pid, tid) > 0 &&
	    sscanf(buf, "%llu %llu %llu", &run, &wait, &slices) == 3) {
		t->run_ns = run;
		t->slices = slices;
	}
	return 0;
}

static int take_tasks(const char *root, struct hc_snap *s)
{
	size_t cap = 0;
	struct dirent *d;
	DIR *proc;
	int ret = 0;

	proc = hc_opendir(root, "/proc");
	if (!proc) {
		s->task_err = -errno;
		return 0;
	}
	while ((d = readdir(proc))) {
		long pid = hc_dirent_num(d);
		struct dirent *e;
		DIR *task;

		if (pid <= 0)
			continue;
		task = hc_opendir(root, "/proc/%ld/task", pid);
		if (!task)
			continue;	/* gone since the listing */
		while ((e = readdir(task))) {
			long tid = hc_dirent_num(e);
			struct hc_task *arr;

			if (tid <= 0)
				continue;
			arr = grow(s->task, s->n_task, &cap, sizeof(*arr));
			if (!arr) {
				ret = -ENOMEM;
				closedir(task);
				goto out;
			}
			s->task = arr;
			if (!read_task(root, (int)pid, (int)tid, &s->task[s->n_task]))
				s->n_task++;
		}
		closedir(task);
	}
out:
	closedir(proc);
	return ret;
}

/* The header "CPU0 CPU1 ...": which column is CPU cpu (offline CPUs have none). */
static int hot_column(const char *hdr, int cpu)
{
	int col = 0, c, n;

	while (sscanf(hdr, " CPU%d%n", &c, &n) == 1) {
		if (c == cpu)
			return col;
		col++;
		hdr += n;
	}
	return -1;
}

/*
 * "LABEL: c0 c1 ... [description]": the hot column's count, and a name:
 * for a device IRQ the last word (its action), else the description.
 */
static int parse_count_line(char *line, int col, struct hc_count *c)
{
	char *colon = strchr(line, ':'), *p, *label = line;
	int i;

	if (!colon)
		return -1;
	*colon = '\0';
	while (isspace((unsigned char)*label))
		label++;
	memset(c, 0, sizeof(*c));
	snprintf(c->label, sizeof(c->label), "%s", label);
	p = colon + 1;
	for (i = 0;; i++) {
		unsigned long long v;
		char *end;

		v = strtoull(p, &end, 10);
		if (end == p)
			break;
		if (i == col)
			c->n = v;
		p = end;
	}
	if (i <= col)
		return -1;	/* ERR:, MIS: have one count, not per CPU */
	while (isspace((unsigned char)*p))
		p++;
	p[strcspn(p, "\n")] = '\0';
	if (isdigit((unsigned char)c->label[0])) {
		char *last = strrchr(p, ' ');

		p = last ? last + 1 : p;
	}
	snprintf(c->name, sizeof(c->name), "%s", p);
	return 0;
}

/* /proc/interrupts or /proc/softirqs: the hot CPU's count per line. */
static int take_counts(const char *root, const char *file, int cpu, struct hc_count **out,
		       size_t *n, int *err)
{
	char path[HC_PATH], *line = NULL;
	size_t linecap = 0, cap = 0;
	int col, ret = 0;
	FILE *f;

	*err = hc_path(root, path, sizeof(path), "%s", file);
	if (*err)
		return 0;
	f = fopen(path, "re");
	if (!f) {
		*err = -errno;
		return 0;
	}
	if (getline(&line, &linecap, f) < 0 || (col = hot_column(line, cpu)) < 0) {
		*err = -ENODEV;
		goto out;
	}
	while (getline(&line, &linecap, f) >= 0) {
		struct hc_count *arr = grow(*out, *n, &cap, sizeof(**out));

		if (!arr) {
			ret = -ENOMEM;
			goto out;
		}
		*out = arr;
		if (!parse_count_line(line, col, &(*out)[*n]))
			(*n)++;
	}
out:
	free(line);
	fclose(f);
	return ret;
}

int hc_snap_take(const char *root, int cpu, struct hc_snap *s)
{
	int ret;

	memset(s, 0, sizeof(*s));
	ret = take_tasks(root, s);
	if (ret)
		goto fail;
	if (cpu < 0) {
		s->irq_err = s->soft_err = -EINVAL;
		return 0;
	}
	ret = take_counts(root, "/proc/interrupts", cpu, &s->irq, &s->n_irq, &s->irq_err);
	if (ret)
		goto fail;
	ret = take_counts(root, "/proc/softirqs", cpu, &s->soft, &s->n_soft, &s->soft_err);
	if (ret)
		goto fail;
	return 0;
fail:
	hc_snap_free(s);
	return ret;
}

void hc_snap_free(struct hc_snap *s)
{
	free(s->task);
	free(s->irq);
	free(s->soft);
	memset(s, 0, sizeof(*s));
}

static int by_tid(const void *a, const void *b)
{
	const struct hc_task *x = a, *y = b;

	return (x->tid > y->tid) - (x->tid < y->tid);
}

static int by_time(const void *a, const void *b)
{
	const struct hc_ran *x = a, *y = b;

	return (x->ns < y->ns) - (x->ns > y->ns);
}

/* The second snapshot's tasks sorted by TID, matched against the first's. */
static int diff_tasks(const struct hc_snap *a, const struct hc_snap *b, int cpu, int exclude,
		      struct hc_delta *d)
{
	struct hc_task *x, *y;
	size_t i = 0, j = 0, cap = 0;
	int ret = 0;

	if (!a->n_task || !b->n_task)
		return 0;
	x = malloc(a->n_task * sizeof(*x));
	y = malloc(b->n_task * sizeof(*y));
	if (!x || !y) {
		ret = -ENOMEM;
		goto out;
	}
	memcpy(x, a->task, a->n_task * sizeof(*x));
	memcpy(y, b->task, b->n_task * sizeof(*y));
	qsort(x, a->n_task, sizeof(*x), by_tid);
	qsort(y, b->n_task, sizeof(*y), by_tid);
	while (i < a->n_task && j < b->n_task) {
		struct hc_ran *arr;

		if (x[i].tid != y[j].tid) {
			x[i].tid < y[j].tid ? i++ : j++;
			continue;
		}
		if (x[i].pid != y[j].pid || y[j].pid == exclude || y[j].run_ns <= x[i].run_ns ||
		    (x[i].cpu != cpu && y[j].cpu != cpu))
			goto next;
		arr = grow(d->ran, d->n_ran, &cap, sizeof(*arr));
		if (!arr) {
			ret = -ENOMEM;
			goto out;
		}
		d->ran = arr;
		d->ran[d->n_ran].t = y[j];
		d->ran[d->n_ran].ns = y[j].run_ns - x[i].run_ns;
		d->ran[d->n_ran].slices = y[j].slices - x[i].slices;
		d->n_ran++;
next:
		i++;
		j++;
	}
	if (d->n_ran)
		qsort(d->ran, d->n_ran, sizeof(*d->ran), by_time);
out:
	free(x);
	free(y);
	return ret;
}

/* Lines of b whose count grew since a (matched by label; the order rarely changes). */
static int diff_counts(const struct hc_count *a, size_t na, const struct hc_count *b, size_t nb,
		       struct hc_count **out, size_t *n)
{
	size_t cap = 0;

	for (size_t j = 0; j < nb; j++) {
		const struct hc_count *old = NULL;
		struct hc_count *arr;

		if (j < na && !strcmp(a[j].label, b[j].label))
			old = &a[j];
		for (size_t i = 0; !old && i < na; i++)
			if (!strcmp(a[i].label, b[j].label))
				old = &a[i];
		if (!old || b[j].n <= old->n)
			continue;
		arr = grow(*out, *n, &cap, sizeof(*arr));
		if (!arr)
			return -ENOMEM;
		*out = arr;
		(*out)[*n] = b[j];
		(*out)[*n].n = b[j].n - old->n;
		(*n)++;
	}
	return 0;
}

int hc_delta_make(const struct hc_snap *a, const struct hc_snap *b, int cpu, int exclude_pid,
		  struct hc_delta *d)
{
	int ret;

	memset(d, 0, sizeof(*d));
	ret = diff_tasks(a, b, cpu, exclude_pid, d);
	if (!ret)
		ret = diff_counts(a->irq, a->n_irq, b->irq, b->n_irq, &d->irq, &d->n_irq);
	if (!ret)
		ret = diff_counts(a->soft, a->n_soft, b->soft, b->n_soft, &d->soft, &d->n_soft);
	if (ret)
		hc_delta_free(d);
	return ret;
}

void hc_delta_free(struct hc_delta *d)
{
	free(d->ran);
	free(d->irq);
	free(d->soft);
	memset(d, 0, sizeof(*d));
}

uint64_t hc_delta_irq(const struct hc_delta *d, const char *label)
{
	for (size_t i = 0; i < d->n_irq; i++)
		if (!strcmp(d->irq[i].label, label))
			return d->irq[i].n;
	return 0;
}
