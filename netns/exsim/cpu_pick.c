// SPDX-License-Identifier: MIT
#include <dirent.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "netns/exsim/cpu_pick.h"

/* Is @comm a program whose hot loop spins on a CPU of its own? */
static bool spinner(const char *comm)
{
	return !strcmp(comm, "t2t-gateway") || !strcmp(comm, "t2t-floor");
}

/* @out = the formatted path; false when it does not fit. */
static bool pathf(char *out, size_t n, const char *fmt, ...)
{
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(out, n, fmt, ap);
	va_end(ap);
	return len >= 0 && (size_t)len < n;
}

/* The one CPU task @dir may run on, or -1 (several, or unknown). */
static int pinned_to(const char *dir)
{
	char path[700], line[256];
	int cpu = -1;
	FILE *f;

	if (!pathf(path, sizeof(path), "%s/status", dir))
		return -1;
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *end;

		if (strncmp(line, "Cpus_allowed_list:", 18))
			continue;
		cpu = (int)strtol(line + 18, &end, 10);
		/* "1\n" is one CPU; "0-1", "0,2" are not. */
		if (end == line + 18 || (*end != '\n' && *end != '\0'))
			cpu = -1;
		break;
	}
	fclose(f);
	return cpu;
}

/* The CPU time task @dir has used, in clock ticks (utime + stime), or 0. */
static unsigned long long cpu_time(const char *dir)
{
	char path[700], line[1024], *p;
	unsigned long long utime, stime;
	FILE *f;

	if (!pathf(path, sizeof(path), "%s/stat", dir))
		return 0;
	f = fopen(path, "r");
	if (!f)
		return 0;
	p = fgets(line, sizeof(line), f);
	fclose(f);
	/* The name in parentheses may hold spaces: the fields start after its ')'. */
	if (!p || !(p = strrchr(line, ')')))
		return 0;
	/* Fields 3 (state) to 13, then utime (14) and stime (15), proc(5). */
	if (sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
		   &utime, &stime) != 2)
		return 0;
	return utime + stime;
}

/*
 * The CPU of process @pid's hot loop, or -1.  The gateway's main thread and
 * its helpers are pinned too, to every CPU but the loop's, which on a
 * 2-CPU machine is one CPU as well.  So the loop is the pinned task that
 * has used the most CPU, since it spins from the moment it starts, and
 * never the main thread of a process that has others (the floor has none).
 */
static int hot_loop_cpu(const char *proc, const char *pid)
{
	char path[600], dir[700];
	unsigned long long most = 0;
	int cpu = -1, tasks = 0;
	struct dirent *t;
	DIR *d;

	if (!pathf(path, sizeof(path), "%s/%s/task", proc, pid))
		return -1;
	d = opendir(path);
	if (!d)
		return -1;
	while ((t = readdir(d)))
		tasks += t->d_name[0] != '.';
	rewinddir(d);
	while ((t = readdir(d))) {
		unsigned long long used;
		int c;

		if (t->d_name[0] == '.' || (tasks > 1 && !strcmp(t->d_name, pid)))
			continue;
		if (!pathf(dir, sizeof(dir), "%s/%s", path, t->d_name))
			continue;
		c = pinned_to(dir);
		used = cpu_time(dir);
		if (c >= 0 && (cpu < 0 || used > most)) {
			cpu = c;
			most = used;
		}
	}
	closedir(d);
	return cpu;
}

/* The CPUs hot loops are pinned to, as a mask of the first 64. */
static uint64_t hot_cpus(const char *proc)
{
	DIR *d = opendir(proc);
	struct dirent *p;
	uint64_t hot = 0;

	if (!d)
		return 0;
	while ((p = readdir(d))) {
		char path[600], comm[64] = "";
		FILE *f;
		int cpu;

		if (p->d_name[0] < '1' || p->d_name[0] > '9')
			continue;
		if (!pathf(path, sizeof(path), "%s/%s/comm", proc, p->d_name))
			continue;
		f = fopen(path, "r");
		if (!f)
			continue;
		if (!fgets(comm, sizeof(comm), f))
			comm[0] = '\0';
		fclose(f);
		comm[strcspn(comm, "\n")] = '\0';
		if (!spinner(comm))
			continue;
		cpu = hot_loop_cpu(proc, p->d_name);
		if (cpu >= 0 && cpu < 64)
			hot |= 1ull << cpu;
	}
	closedir(d);
	return hot;
}

int cpu_pick_in(const char *proc, long n, char *why, size_t len)
{
	uint64_t hot = hot_cpus(proc);
	bool running = hot != 0;

	if (!running && EXSIM_GATEWAY_DEFAULT_CPU < n)
		hot = 1ull << EXSIM_GATEWAY_DEFAULT_CPU;
	for (long c = 0; c < n && c < 64; c++) {
		if (hot >> c & 1)
			continue;
		if (running)
			snprintf(why, len, "a hot loop spins on CPU %d", __builtin_ctzll(hot));
		else
			snprintf(why, len, "no gateway running yet; CPU %d is its default",
				 EXSIM_GATEWAY_DEFAULT_CPU);
		return (int)c;
	}
	snprintf(why, len, "every CPU has a hot loop");
	return -1;
}

int cpu_pick(char *why, size_t len)
{
	return cpu_pick_in("/proc", sysconf(_SC_NPROCESSORS_ONLN), why, len);
}
