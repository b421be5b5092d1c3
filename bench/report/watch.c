// SPDX-License-Identifier: MIT
/*
 * t2t-watch: what else used the machine while a benchmark ran.
 *
 * The VM is shared with other sessions.  Every --interval ms this reads
 * /proc/PID/stat of every process and writes one line per process whose
 * CPU time advanced since the last look (or that is runnable now), sorted
 * into the benchmark's own session (not written), other sessions
 * ("other"), the machine's own user-space services (session 0: "system")
 * and kernel threads ("kernel", with the CPU they ran on last), then a
 * "tick" line closing the sample:
 *
 *	<realtime s> other <pid> <comm> <cpu ms> <R|->
 *	<realtime s> kernel <pid> <comm> <cpu ms> cpu<N>
 *	<realtime s> tick
 *
 * The benchmark writes "<realtime s> begin NAME" and "... end NAME" lines
 * into the same file around each run; t2t-latency-report reads them.  CPU
 * time comes from utime + stime (clock ticks: 10 ms steps), so a short
 * burst shows as a whole tick or not at all, while anything that ran for a
 * while is counted.  Runs until killed.
 */
#include <ctype.h>
#include <stdbool.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/opt.h"

#define PF_KTHREAD	0x00200000
#define MAX_PROCS	8192

struct watch_opts {
	uint32_t sid;		/* the benchmark's session: not reported */
	uint32_t interval_ms;
	const char *out;
};

struct proc_time {
	int pid;
	unsigned long long ticks;	/* utime + stime */
};

static const struct opt opts[] = {
	OPT("sid", 0, OPT_U32, OFF(struct watch_opts, sid), "SID",
	  "the benchmark's session id (its processes are not reported)"),
	OPT("interval", 0, OPT_U32, OFF(struct watch_opts, interval_ms), "MS",
	  "time between samples", .min = 10, .max = 60000),
	OPT("out", 'o', OPT_STR, OFF(struct watch_opts, out), "FILE",
	  "append the samples to FILE (default: stdout)"),
	OPT_END,
};

static const struct opt_prog prog = {
	.name = "t2t-watch",
	.usage = "--sid SID [options]",
	.about = "Samples the CPU time of every process that is not in session SID:\n"
		 "other sessions, the machine's services and kernel threads (see the\n"
		 "source's head comment for the line format).  Runs until killed.\n",
	.opts = opts,
};

/* One /proc/PID/stat: 0 with the fields, -1 when the process is gone. */
static int read_stat(int pid, char *comm, size_t clen, char *state, int *sid,
		     unsigned long *flags, unsigned long long *ticks, int *cpu)
{
	char path[64], buf[1024], *lp, *rp, *p;
	unsigned long utime, stime;
	ssize_t n;
	int fd, field;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* comm is in parentheses and may hold spaces or ')': take the last ')'. */
	lp = strchr(buf, '(');
	rp = strrchr(buf, ')');
	if (!lp || !rp || rp < lp)
		return -1;
	snprintf(comm, clen, "%.*s", (int)(rp - lp - 1), lp + 1);
	for (char *c = comm; *c; c++)
		if (isspace((unsigned char)*c))
			*c = '_';
	/* Fields from 3 (state) on, numbered as in proc(5). */
	p = rp + 2;
	*state = *p;
	utime = stime = 0;
	*cpu = -1;
	for (field = 3; *p; field++) {
		char *end;
		unsigned long long v = strtoull(p, &end, 10);

		if (field == 6)
			*sid = (int)v;
		else if (field == 9)
			*flags = (unsigned long)v;
		else if (field == 14)
			utime = (unsigned long)v;
		else if (field == 15)
			stime = (unsigned long)v;
		else if (field == 39) {
			*cpu = (int)v;
			break;
		}
		p = strchr(p, ' ');
		if (!p)
			break;
		p++;
	}
	*ticks = (unsigned long long)utime + stime;
	return 0;
}

static unsigned long long *prev_of(struct proc_time *t, int pid)
{
	unsigned int h = (unsigned int)pid * 2654435761u % MAX_PROCS;

	for (unsigned int i = 0; i < MAX_PROCS; i++, h = (h + 1) % MAX_PROCS) {
		if (t[h].pid == pid)
			return &t[h].ticks;
		if (!t[h].pid) {
			t[h].pid = pid;
			t[h].ticks = ~0ull;	/* not seen before */
			return &t[h].ticks;
		}
	}
	return NULL;
}

static void sample(const struct watch_opts *o, struct proc_time *t, FILE *out,
		   double ms_per_tick, int self, bool first)
{
	struct timespec ts;
	struct dirent *de;
	double now;
	DIR *d = opendir("/proc");

	if (!d)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	now = (double)ts.tv_sec + ts.tv_nsec / 1e9;
	while ((de = readdir(d))) {
		unsigned long long ticks, *prev, delta;
		unsigned long flags = 0;
		char comm[64], state;
		int pid = atoi(de->d_name), sid = -1, cpu;

		if (pid <= 0 || pid == self)
			continue;
		if (read_stat(pid, comm, sizeof(comm), &state, &sid, &flags, &ticks, &cpu))
			continue;
		if (sid == (int)o->sid)
			continue;
		prev = prev_of(t, pid);
		if (!prev)
			continue;
		/*
		 * A process not seen before started after the last sample (unless
		 * this is the first): all its time is new.  A smaller count is a
		 * pid reused.
		 */
		if (*prev == ~0ull)
			delta = first ? 0 : ticks;
		else
			delta = ticks < *prev ? ticks : ticks - *prev;
		*prev = ticks;
		if (flags & PF_KTHREAD) {
			if (delta)
				fprintf(out, "%.3f kernel %d %s %.0f cpu%d\n", now, pid, comm,
					(double)delta * ms_per_tick, cpu);
		} else if (delta || state == 'R') {
			fprintf(out, "%.3f %s %d %s %.0f %c\n", now, sid == 0 ? "system" : "other",
				pid, comm, (double)delta * ms_per_tick, state == 'R' ? 'R' : '-');
		}
	}
	closedir(d);
	fprintf(out, "%.3f tick\n", now);
	fflush(out);
}

int main(int argc, char **argv)
{
	struct watch_opts o = { .interval_ms = 250 };
	struct proc_time *t;
	double ms_per_tick = 1000.0 / (double)sysconf(_SC_CLK_TCK);
	FILE *out = stdout;
	int ret = opt_parse(&prog, &o, argc, argv, NULL);

	if (ret)
		return ret == 1 ? 0 : 2;
	if (!o.sid)
		return opt_error(&prog, "--sid is required");
	if (o.out) {
		/* Append: the benchmark writes its begin/end lines into it too. */
		out = fopen(o.out, "a");
		if (!out) {
			fprintf(stderr, "t2t-watch: %s: %s\n", o.out, strerror(errno));
			return 1;
		}
	}
	t = calloc(MAX_PROCS, sizeof(*t));
	if (!t) {
		fprintf(stderr, "t2t-watch: out of memory\n");
		return 1;
	}
	for (bool first = true;; first = false) {
		struct timespec d = { o.interval_ms / 1000, (o.interval_ms % 1000) * 1000000L };

		sample(&o, t, out, ms_per_tick, getpid(), first);
		nanosleep(&d, NULL);
	}
}
